"""Mutants of C, C++ and JavaScript functions from tree-sitter nodes: the operator families, exact edits."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.edits import apply_edits_text

CPP = """\
#include <vector>
namespace geo {
int count_inside(const std::vector<int>& xs, int lo, int hi) {
  int n = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!(xs[i] < lo) && xs[i] <= hi) n += 1;
  }
  return n - 1;
}
bool ready() { return false; }
}  // namespace geo
"""

JS = """\
function total(items, rate) {
  let sum = 0;
  for (const it of items) {
    if (it.qty > 0 && !it.free) sum += it.price * it.qty;
  }
  return round(sum, 2) === 0 ? 'free' : 'paid';
}
module.exports = { total };
"""


def _applied(text: str, rel: str, first: int, last: int, **kw: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for m in mutants_in(rel, text.encode(), first, last, **kw):
        out.setdefault(m.kind, set()).add(apply_edits_text(text, [m.edit]))
    return out


def test_cpp_operator_families_are_exact_edits() -> None:
    by_kind = _applied(CPP, "src/geo.cc", 3, 9, qualname="geo::count_inside")
    assert CPP.replace("i < xs.size()", "i <= xs.size()") in by_kind["cmp-boundary"]
    assert CPP.replace("xs[i] <= hi", "xs[i] < hi") in by_kind["cmp-boundary"]
    assert CPP.replace("!(xs[i] < lo)", "xs[i] < lo") in by_kind["remove-not"]
    assert CPP.replace("return n - 1;", "return n;") in by_kind["drop-one"]
    assert CPP.replace("n += 1", "n -= 1") in by_kind["arith"]
    assert CPP.replace("&& xs[i]", "|| xs[i]") in by_kind["boolop"]
    assert CPP.replace("int n = 0;", "int n = 1;") in by_kind["off-by-one"]
    assert "bool-const" not in by_kind  # `false` is on line 10, outside the function's lines


def test_mutants_are_ranked_by_prior_and_name_where_they_are() -> None:
    mutants = mutants_in("src/geo.cc", CPP.encode(), 3, 9, qualname="geo::count_inside")
    assert [m.prior for m in mutants] == sorted((m.prior for m in mutants), reverse=True)
    assert mutants[0].kind == "cmp-boundary"
    assert "geo::count_inside (src/geo.cc:5)" in mutants[0].description


def test_returned_literal_becomes_the_expected_value() -> None:
    by_kind = _applied(CPP, "src/geo.cc", 10, 10, expected="true")
    assert CPP.replace("return false;", "return true;") in by_kind["return-expected"]
    assert "bool-const" not in by_kind  # the same edit once, under the likelier name


def test_swapped_arguments() -> None:
    text = "int area(int w, int h) { return scale(w, h); }\n"
    by_kind = _applied(text, "a.c", 1, 1)
    assert "int area(int w, int h) { return scale(h, w); }\n" in by_kind["swap-args"]


def test_javascript_operator_families() -> None:
    by_kind = _applied(JS, "src/cart.js", 1, 7, expected="'paid'", qualname="total")
    assert JS.replace("it.qty > 0", "it.qty >= 0") in by_kind["cmp-boundary"]
    assert JS.replace("!it.free", "it.free") in by_kind["remove-not"]
    assert JS.replace("=== 0", "!== 0") in by_kind["cmp-flip"]
    assert JS.replace("sum += it.price", "sum -= it.price") in by_kind["arith"]
    assert JS.replace("round(sum, 2)", "round(2, sum)") in by_kind["swap-args"]


def test_code_holding_or_inside_a_parse_error_is_not_mutated() -> None:
    text = "int f(int a) {\n  return g(a < 1 +, a - 2);\n}\nint g(int b) { return b < 2; }\n"
    mutants = mutants_in("x.c", text.encode(), 1, 4)
    assert 4 in {m.line for m in mutants}
    # the call holding the error is neither swapped nor negated; only what parsed whole is mutated
    plus = text.splitlines()[1].index("+") + 1  # the edits' columns count from 1
    on_line = [m for m in mutants if m.line == 2]
    assert on_line and not any(m.edit.start.col <= plus < m.edit.end.col for m in on_line), \
        [m.description for m in on_line]
    assert not {"swap-args", "negate"} & {m.kind for m in on_line}


def test_code_parsed_whole_beside_a_parse_error_is_mutated() -> None:
    # tree-sitter cannot read `this->operator()(...)`; `pos - 1` beside it parses whole (kiwi's AssocVector)
    text = ("struct V { int *p; bool operator()(int a, int b) const { return a < b; }\n"
            "  bool at(int *pos, int val) {\n"
            "    if (pos == p || this->operator()(*(pos - 1), val)) return true;\n"
            "    return false;\n  }\n};\n")
    edits = {m.edit.new_text for m in mutants_in("v.cc", text.encode(), 2, 5) if m.line == 3}
    assert "pos + 1" in edits or "+" in edits, edits


def test_unknown_languages_and_empty_ranges_give_nothing() -> None:
    assert mutants_in("notes.txt", b"a < b", 1, 1) == []
    assert mutants_in("a.c", CPP.encode(), 100, 120) == []


def test_a_dropped_negation_is_put_back_where_a_truth_value_is_read() -> None:
    text = (
        "struct S { bool empty() const; };\n"
        "bool ready(const S& s, int k) {\n"
        "  if (s.empty() && k > 0) return false;\n"
        "  for (int i = 0; i < k && s.empty(); ++i) {}\n"
        "  return k > 2 ? s.empty() : k < 0;\n"
        "}\n"
    )
    negated = _applied(text, "s.cc", 2, 6)["negate"]
    assert text.replace("if (s.empty() &&", "if (!s.empty() &&") in negated  # an operand of &&
    assert text.replace("k && s.empty()", "k && !s.empty()") in negated  # in a for condition
    assert text.replace("return k > 2 ?", "return !(k > 2 ?").replace("k < 0;", "k < 0);") in negated  # a bool returned
    assert text.replace("k > 0)", "!(k > 0))") not in negated  # a comparison: its flips say it


def test_a_cpp_name_is_one_off_only_when_the_function_declares_it_an_integer_or_a_pointer() -> None:
    # `op + 1` (an enum), `s + 1` (a class), `str + 1` (std::string) would not compile; in a schema such a
    # choice breaks the file's compile where the type surfaces (a template in a header)
    source = """\
enum Op { A, B };
struct S { int n; };
int f(int n, const char *p, Op op, unsigned long k, S s, std::string str) {
  std::size_t i = 0; auto a = n; std::vector<int> v; int *q = &n, w = 2;
  g(n, p, op, k, s, s.n, str, i, a, v, q, w);
  return v[i] + m[str];
}
"""
    names = {m.description.split("`")[1] for m in mutants_in("f.cpp", source.encode(), 3, 7) if m.kind == "bound"
             and ("argument" in m.description or "index" in m.description)}
    assert names == {"n", "p", "k", "i", "q", "w"}
    js = "function f(a, o) { return g(a, o.n) + o[a]; }\n"
    named = {m.description.split("`")[1] for m in mutants_in("f.js", js.encode(), 1, 1) if m.kind == "bound"}
    assert named == {"a", "o.n"}  # untyped: any name or member


def test_a_literal_compared_with_is_not_the_value_the_test_got() -> None:
    """``r = b == 0`` printing 0 where 1 was expected: the 0 is a threshold, not the value that came out
    (a comparison yields a truth value); a literal that flows out still becomes the expected one."""
    code = "int flag(int b) {\n  int r = (b == 0);\n  return r;\n}\nint zero(void) {\n  return 0;\n}\n"
    compared = _applied(code, "src/f.c", 1, 4, expected="1", actual="0")
    assert "return-expected" not in compared
    assert code.replace("b == 0", "b != 0") in compared["cmp-flip"]
    returned = _applied(code, "src/f.c", 5, 7, expected="1", actual="0")
    assert code.replace("return 0;", "return 1;") in returned["return-expected"]


RECORD = """\
#include <cstdint>
#include <cstring>
static const int kHeader = 12;
uint32_t count(const char* rep) {
  uint32_t n;
  std::memcpy(&n, rep + 0, 4);
  return n;
}
void set_count(char* rep, uint32_t n) { std::memcpy(rep + 8, &n, 4); }
"""


def test_a_literal_may_become_an_integer_written_elsewhere_in_the_file_the_nearest_first() -> None:
    """`rep + 0` where the field sits at offset 8: the setter two lines down writes the right value."""
    mutants = mutants_in("rec.cc", RECORD.encode(), 4, 8, qualname="count")
    col = next(m.edit.start.col for m in mutants if m.description.startswith("`0` -> `1`"))
    at_offset = [m for m in mutants if m.edit.start.line == 6 and m.edit.start.col == col and m.edit.new_text.isdigit()]
    texts = [m.edit.new_text for m in at_offset]
    assert texts.index("8") < texts.index("12")  # line 9 is nearer than line 3
    own = {m.edit.new_text for m in at_offset if "of the file" not in m.description}
    assert "4" in own and "8" not in own  # the function's own 4 is its own integer; 8 and 12 are the file's
    file_ints = [m for m in at_offset if "of the file" in m.description]
    assert {m.edit.new_text for m in file_ints} == {"8", "12"}
    small = [m for m in at_offset if "a small integer" in m.description]
    assert [m.edit.new_text for m in small] == ["2"]  # any literal may be a 2 where a 0 was written
    own_kinds = [o for o in at_offset if o not in file_ints and o not in small]
    assert all(m.prior < min(o.prior for o in own_kinds) for m in file_ints)
    assert small[0].prior < min(m.prior for m in file_ints)


def test_a_literal_may_be_half_or_twice_what_it_should_be() -> None:
    """A size, a mask or a count a factor of two off (`0x100` written for `0x80`, `8` for `4`): both are
    tried, hex kept hex, below the file's own integers and above the small integer."""
    source = "unsigned lead(unsigned c) {\n  if (c < 0x100) return 1;\n  return c / 8 + 3;\n}\n"
    mutants = mutants_in("utf.c", source.encode(), 1, 4, qualname="lead")
    twice = {(m.edit.start.line, m.edit.new_text): m for m in mutants if "a factor of two" in m.description}
    assert {(2, "0x80"), (2, "0x200"), (3, "4"), (3, "16"), (3, "6")} <= set(twice)
    assert (3, "1") not in twice  # 3 is no double of anything; its own 2 and 4 are off by one
    small = next(m for m in mutants if "a small integer" in m.description)
    assert all(m.prior > small.prior for m in twice.values())


def test_every_relational_and_arithmetic_slip_can_be_undone() -> None:
    """A slip is not always to the neighbouring operator: whichever operator of its family replaced the
    original, some mutant gives the original back (the whole relational and arithmetic families)."""
    template = "int f(int a, int b) {\n  if (a OP b) return a;\n  return a AR b;\n}\n"
    relational, arithmetic = ["<", "<=", ">", ">=", "==", "!="], ["+", "-", "*", "/", "%"]
    for original in relational:
        for slip in relational:
            if slip == original:
                continue
            want = template.replace("OP", original).replace("AR", "+")
            faulty = template.replace("OP", slip).replace("AR", "+")
            undone = {apply_edits_text(faulty, [m.edit]) for m in mutants_in("f.c", faulty.encode(), 1, 4)}
            assert want in undone, (original, slip)
    for original in arithmetic:
        for slip in arithmetic:
            if slip == original:
                continue
            want = template.replace("OP", "<").replace("AR", original)
            faulty = template.replace("OP", "<").replace("AR", slip)
            undone = {apply_edits_text(faulty, [m.edit]) for m in mutants_in("f.c", faulty.encode(), 1, 4)}
            assert want in undone, (original, slip)


def test_the_likeliest_slips_rank_above_the_rest_of_the_family() -> None:
    text = "int f(int a, int b) {\n  return a < b ? a + b : 0;\n}\n"
    prior = {m.description.split(" in ")[0]: m.prior for m in mutants_in("f.c", text.encode(), 1, 3)}
    assert prior["`<` -> `<=`"] > prior["`<` -> `>`"] > prior["`<` -> `>=`"] > prior["`<` -> `==`"]
    assert prior["`+` -> `-`"] > prior["`+` -> `/`"]


def test_arguments_that_are_not_neighbours_may_be_swapped() -> None:
    text = "int f(int a, int b, int c) {\n  return g(a, b, c);\n}\n"
    swaps = {apply_edits_text(text, [m.edit]): m.prior for m in mutants_in("f.c", text.encode(), 1, 3)
             if m.kind == "swap-args"}
    assert swaps[text.replace("g(a, b, c)", "g(c, b, a)")] < swaps[text.replace("g(a, b, c)", "g(b, a, c)")]
    assert text.replace("g(a, b, c)", "g(a, c, b)") in swaps


def test_a_huge_function_keeps_its_likeliest_mutants_wherever_they_are() -> None:
    from pytest_whetstone.candidates.native_mutants import MAX_MUTANTS

    body = "".join(f"  x = x * {i} + y / {i + 1};\n" for i in range(100)) + "  if (x < y) return 1;\n"
    text = "int f(int x, int y) {\n" + body + "  return 0;\n}\n"
    mutants = mutants_in("f.c", text.encode(), 1, text.count("\n"))
    assert len(mutants) == MAX_MUTANTS
    assert any(m.kind == "cmp-boundary" for m in mutants)  # on the function's last lines


def test_siblings_of_a_fix_skip_the_broad_families_long_tail() -> None:
    """After a complete fix, the other edits of its line are tried (the tests may not tell them apart):
    not the long tail of the broad families, which is no likelier the original and costs a whole check."""
    from pytest_whetstone.candidates.native_plan import _Plan, sibling_plans
    from pytest_whetstone.records import TestFailureRecord

    text = "int f(int a, int b) {\n  if (a < b) return a;\n  return b;\n}\n"
    failure = TestFailureRecord(test_name="F")
    plans = [_Plan(failure, "f.c", "f", m, 0, r) for r, m in enumerate(mutants_in("f.c", text.encode(), 1, 4))]
    on_line = [p for p in plans if p.mutant.line == 2]
    winner = next(p for p in on_line if p.mutant.edit.new_text == "<=")
    kinds = {p.mutant.kind for p in sibling_plans(winner, plans, {winner.mutant.key})}
    assert "cmp-reverse" in kinds and not kinds & {"cmp-other", "arith-other"}
    others = [p for p in on_line if p.mutant.kind == "cmp-other"]  # `<` -> `!=`, `<` -> `==`
    assert not sibling_plans(winner, others, {winner.mutant.key})
    # a fix from the tail itself: its peers are as likely, and are tried
    assert sibling_plans(others[0], others, {others[0].mutant.key}) == others[1:]


def test_a_returned_name_may_become_another_the_function_declares() -> None:
    cpp = "int clamp(int v, int lo, int hi) {\n  int out = v < lo ? lo : v;\n  return v;\n}\n"
    undone = {apply_edits_text(cpp, [m.edit]) for m in mutants_in("c.cc", cpp.encode(), 1, 4) if m.kind == "return-name"}
    assert cpp.replace("return v;", "return out;") in undone and cpp.replace("return v;", "return lo;") in undone
    js = "function pick(items, fallback) {\n  const first = items[0];\n  return fallback;\n}\n"
    undone = {apply_edits_text(js, [m.edit]) for m in mutants_in("p.js", js.encode(), 1, 4) if m.kind == "return-name"}
    assert js.replace("return fallback;", "return first;") in undone
    assert js.replace("return fallback;", "return items;") in undone


def test_a_returned_name_becomes_only_names_in_scope_there() -> None:
    cpp = ("int f(int a) {\n  int lo = a;\n  for (int i = 0; i < a; i++) { int t = i; }\n"
           "  if (a) { int z = 1; return z; }\n  return lo;\n}\n")
    names = {(m.line, m.edit.new_text) for m in mutants_in("f.cc", cpp.encode(), 1, 6) if m.kind == "return-name"}
    assert names == {(4, "lo"), (4, "a"), (5, "a")}  # not `i`, `t` (their blocks) nor `z` (another block)


def test_siblings_of_a_fix_in_a_condition_over_two_lines_cover_the_whole_condition() -> None:
    """A condition written over two lines: the dropped `!` on its second line is a sibling of a fix
    found on its first (the tests may not tell `||` -> `&&` from the `!` put back)."""
    from pytest_whetstone.candidates.native_plan import _Plan, sibling_plans
    from pytest_whetstone.records import TestFailureRecord

    text = ("int bad(int a, int b, int ok) {\n  if (a != 1 || b != 2 ||\n      ok) {\n    return 1;\n  }\n"
            "  return a + b;\n}\n")
    failure = TestFailureRecord(test_name="F")
    plans = [_Plan(failure, "f.c", "f", m, 0, r) for r, m in enumerate(mutants_in("f.c", text.encode(), 1, 7))]
    winner = next(p for p in plans if p.mutant.kind == "boolop" and p.mutant.line == 2)
    tried = {p.mutant.key for p in plans if p.mutant.prior > winner.mutant.prior} | {winner.mutant.key}
    siblings = sibling_plans(winner, plans, tried)
    assert any(p.mutant.line == 3 and p.mutant.edit.new_text == "!ok" for p in siblings)
    assert not [p for p in siblings if p.mutant.line > 3]  # not the body, nor the next statement


def _undone(text: str, rel: str = "f.cc") -> set[str]:
    return {apply_edits_text(text, [m.edit]) for m in mutants_in(rel, text.encode(), 1, text.count("\n"))}


def test_signed_and_hex_literals_are_mutated_as_written() -> None:
    """tree-sitter's C++ reads `-1` as one literal; a hex constant stays hex; an octal one is left."""
    cpp = "int f(int a) {\n  int r = -1;\n  if (a > 0x20) r = 0;\n  return r + 010;\n}\n"
    undone = _undone(cpp)
    assert cpp.replace("r = -1", "r = 0") in undone and cpp.replace("r = -1", "r = -2") in undone
    assert cpp.replace("0x20", "0x21") in undone and cpp.replace("0x20", "0x1f") in undone
    assert cpp.replace("r = 0;", "r = -1;") in undone  # a sentinel written as zero
    assert not [t for t in undone if "010" not in t]


def test_a_dropped_negation_is_put_back_as_it_was_written() -> None:
    """`if (!ok)` with its `!` dropped reads `if (ok)`: the mutant writes `if (!ok)`, not `if (!(ok))`;
    `!*p` and an operand of `&&` likewise; a comparison's negation stays parenthesized."""
    c = "int f(const char *p, int ok, int a) {\n  if (ok) return 1;\n  while (*p && a) p++;\n  if (a < 2) return 2;\n  return 0;\n}\n"
    undone = _undone(c, "f.c")
    assert c.replace("if (ok)", "if (!ok)") in undone
    assert c.replace("while (*p && a)", "while (!*p && a)") in undone
    assert c.replace("while (*p && a)", "while (*p && !a)") in undone
    assert c.replace("if (a < 2)", "if (!(a < 2))") in undone
    padded = "int g(int ok) {\n  if( ok )\n    return 1;\n  return 0;\n}\n"  # kiwi writes `if( !ready( x ) )`
    assert padded.replace("if( ok )", "if( !ok )") in _undone(padded, "g.c")


def test_a_js_function_returning_undefined_may_return_a_name_in_scope() -> None:
    js = "function sum(xs) {\n  var acc = 0;\n  xs.forEach(function (x) { acc += x; });\n  return undefined;\n}\n"
    undone = _undone(js, "f.js")
    assert js.replace("return undefined", "return acc") in undone
    assert js.replace("return undefined", "return xs") in undone


def test_a_dropped_negation_is_put_back_on_arguments_and_stored_values_of_truth_type() -> None:
    """A `!` is written on an argument (`assert(!e->in_cache)`), a bool initialized or assigned, a C
    predicate's `int`, a JS value returned: each place gets its negation, ranked below a condition's.  In
    C++ only what the file declares bool takes one (`!s` of a string, `!p` beside `p` in one `?:`, would not
    compile); in C every integer, pointer and call."""
    text = (
        "struct E { bool in_cache; int refs; bool Ready() const; };\n"
        "bool ready(int);\n"
        "int check(E* e, int n, const char* name) {\n"
        "  assert(e->in_cache);\n"
        "  bool ok = ready(n);\n"
        "  e->in_cache = ok && n;\n"
        "  use(n, name, e->Ready());\n"
        "  return ok;\n"
        "}\n"
    )
    negated = _applied(text, "e.cc", 3, 9)["negate"]
    assert text.replace("assert(e->in_cache)", "assert(!e->in_cache)") in negated
    assert text.replace("ok = ready(n)", "ok = !ready(n)") in negated
    assert text.replace("= ok && n;", "= !(ok && n);") in negated
    assert text.replace("e->Ready())", "!e->Ready())") in negated
    assert text.replace("return ok;", "return !ok;") in negated
    assert text.replace("use(n,", "use(!n,") not in negated and text.replace("name,", "!name,") not in negated
    assert all(m.prior < 0.5 for m in mutants_in("e.cc", text.encode(), 3, 9)
               if m.kind == "negate" and "argument" in m.description)
    in_c = _applied(text, "e.c", 3, 9)["negate"]
    assert text.replace("use(n,", "use(!n,") in in_c and text.replace("use(n, name,", "use(n, !name,") in in_c
    js = "function f(a, b) {\n  const ok = isThing(a);\n  done = b.x;\n  return a.flag;\n}\n"
    in_js = _applied(js, "f.js", 1, 5)["negate"]
    assert {js.replace("isThing(a)", "!isThing(a)"), js.replace("= b.x", "= !b.x"),
            js.replace("return a.flag", "return !a.flag")} <= in_js


POINTERS = """\
double drift(const double *p, const double *q, double k) {
  double d = p[1]-*p;
  return d*-k + q[0]/-*q;
}
"""


def test_an_operator_never_joins_its_neighbour_into_another_token(tmp_path: Path) -> None:
    """`p[1]-*p` with `-` -> `/` is `p[1]/ *p`, not `p[1]/*p` (a comment that hides the rest of the file
    from the compiler); `d*-k` with `*` -> `-` is `d- -k`, not a decrement.  Every such mutant compiles."""
    texts = {t for ts in _applied(POINTERS, "drift.c", 1, 4).values() for t in ts}
    assert POINTERS.replace("p[1]-*p", "p[1]/ *p") in texts
    assert POINTERS.replace("d*-k", "d- -k") in texts
    assert POINTERS.replace("q[0]/-*q", "q[0]- -*q") in texts
    assert not any("/*" in t or "--" in t or "++" in t for t in texts)
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed")
    joined = [t for t in texts if "/ *" in t or "- -" in t or "+ +" in t]
    assert joined
    for i, text in enumerate(joined):
        src = tmp_path / f"m{i}.c"
        src.write_text(text)
        done = subprocess.run([gcc, "-fsyntax-only", str(src)], capture_output=True, text=True)
        assert done.returncode == 0, (text, done.stderr)


def test_pairs_valid_code_writes_unspaced_stay_unspaced() -> None:
    """`a**p` (a times *p) restored from `a+*p` is the original's bytes: `**` is two tokens in C."""
    text = "int f(int a, const int *p) { return a+*p + 1.*a; }\n"
    texts = {t for ts in _applied(text, "f.c", 1, 1).values() for t in ts}
    assert text.replace("a+*p", "a**p") in texts


def test_javascript_operators_stay_apart() -> None:
    text = "function f(a, b) { return a*-b + a/-b; }\n"
    texts = {t for ts in _applied(text, "f.js", 1, 1).values() for t in ts}
    assert text.replace("a*-b", "a- -b") in texts
    assert not any("/*" in t or "--" in t for t in texts)


VALUES_C = """\
int pick(int x, int flag) {
  if (x == 7) return 7;
  int y = x + 7;
  return flag ? 3 : y;
}
int check(void) { return 0; }
"""


@pytest.mark.parametrize(("expected", "actual"), [("", ""), ("8", "7"), ("3", "0"), ("true", "false"), ("-1", "3")])
def test_a_tests_values_added_to_its_mutants_without_them_equal_one_generation(expected: str, actual: str) -> None:
    """The search generates a function's mutants once and adds each failing test's value mutants to them:
    the same mutants, kinds, priors and order as one generation with those values (a value's edit
    displaces the same edit of another kind, as in one generation)."""
    from pytest_whetstone.candidates.native_mutants import value_mutants, with_values

    def sig(ms: list) -> list:
        return [(m.kind, m.description, m.key, m.prior, m.lines) for m in ms]

    for first, last in [(1, 5), (6, 6)]:
        whole = mutants_in("v.c", VALUES_C.encode(), first, last, expected=expected, actual=actual, qualname="f",
                           limit=None)
        plain = mutants_in("v.c", VALUES_C.encode(), first, last, qualname="f", limit=None)
        values = value_mutants("v.c", VALUES_C.encode(), first, last, expected=expected, actual=actual, qualname="f")
        assert sig(with_values(plain, values)) == sig(whole)
        assert all(m.kind == "return-expected" for m in values)
    if expected == "8":  # a `7` the test got became the `8` it expected, over the off-by-one of the same edit;
        # the `7` compared with stays an off-by-one
        got = mutants_in("v.c", VALUES_C.encode(), 1, 5, expected=expected, actual=actual, limit=None)
        assert sorted(m.kind for m in got if m.edit.new_text == "8") == ["off-by-one", "return-expected", "return-expected"]


OUT_PARAMS_CC = """\
struct Grid {
  bool remap(int &ai, int &aj, const int &ak, double &x, double y, int *p);
};
bool Grid::remap(int &ai, int &aj, const int &ak, double &x, double y, int *p) { return ai + aj + ak + x + y + *p > 0; }
int use(Grid &g, int a, int b, double d, double e, int *q) {
  if (g.remap(a, b, a, d, e, q)) return a;
  return 0;
}
"""


@pytest.mark.skipif(not shutil.which("g++"), reason="g++ not installed")
def test_no_value_is_put_where_a_call_binds_a_non_const_reference(tmp_path: Path) -> None:
    """``a + 1`` or a swapped literal where ``int &ai`` binds cannot compile (and in a schema gcc reports one
    such argument of a call per compile): the file's own declarations say which parameters bind so.  Every
    argument mutant generated there compiles with real g++; the value and pointer parameters keep theirs
    (a swap of `e` and `q` there is the compiler's to reject)."""
    mutants = [m for m in mutants_in("grid.cc", OUT_PARAMS_CC.encode(), 5, 8, limit=None) if "argument" in m.description]
    assert {m.edit.new_text for m in mutants if m.kind == "bound"} == {"a + 1", "a - 1", "q + 1", "q - 1"}
    call = OUT_PARAMS_CC.splitlines()[5]
    opening = call.index("remap(") + len("remap(")
    starts = [opening + 1 + 3 * k for k in range(6)]  # 1-based columns of `a, b, a, d, e, q`
    touched = [m for m in mutants if m.kind == "swap-args"
               and {starts.index(m.edit.start.col), starts.index(m.edit.end.col - 1)} & {0, 1, 3}]
    assert touched  # `a` and `b` (two `int &`) swapped, and the like
    for m in touched:
        src = tmp_path / "grid.cc"
        src.write_text(apply_edits_text(OUT_PARAMS_CC, [m.edit]))
        build = subprocess.run(["g++", "-fsyntax-only", str(src)], capture_output=True, text=True)
        assert build.returncode == 0, (m.description, build.stderr[-400:])
