"""Classification by the whole diagnostic: the message with its notes, the compiler's fix-its and the
source around the error, not one message's wording.

Driven by the real compilers (gcc 12.2 / clang 14 on Debian at the time of writing) on code written
here, each case a fault of the kinds a build breaks with: a dropped macro argument, a header removed
so a type is only forward-declared, a statement whose ';' is missing running into the next line, a
member function left open inside its class, a member function named without its call.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.parse import parse_text


def _failing(compiler: str, files: dict[str, str], unit: str, tmp_path: Path, *flags: str):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    proc = subprocess.run([compiler, "-fsyntax-only", "-fdiagnostics-parseable-fixits", *flags, unit], cwd=tmp_path,
                          capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}, timeout=60)
    assert proc.returncode != 0, proc.stderr
    tool = "clang" if "clang" in compiler else "gcc"
    records = [r for r in parse_text(proc.stderr, tool, cwd=str(tmp_path)).build_errors if r.is_failure]
    assert records, proc.stderr
    return records, proc.stderr


MACRO_C = """\
#define CHECK(ctx, cond) ((cond) ? 0 : report(ctx))
int report(int ctx);
int step(int ctx, int rc) {
    return CHECK(rc == 0);
}
"""


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_a_macro_given_too_few_arguments_is_a_type_mismatch(compiler: str, tmp_path: Path) -> None:
    # gcc: 'macro "CHECK" requires 2 arguments, but only 1 given', then "'CHECK' undeclared" on the
    # same line: the count of arguments is the cause, the undeclared name its echo
    records, output = _failing(compiler, {"m.c": MACRO_C}, "m.c", tmp_path)
    assert records[0].error_type == "type_mismatch", output


SHAPES_H = "#pragma once\nnamespace geo {\nclass Shape {\n public:\n  int Area() const { return 4; }\n};\n}  // namespace geo\n"
FWD_H = "#pragma once\nnamespace geo {\nclass Shape;\nint Total(const Shape& s);\n}  // namespace geo\n"
USE_CC = '#include "fwd.h"\n\nnamespace geo {\nint Total(const Shape& s) {\n  return s.Area() * 2;\n}\n}  // namespace geo\n'


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_a_type_only_forward_declared_is_an_undefined_symbol_not_a_mismatch(compiler: str, tmp_path: Path) -> None:
    # shapes.h, which defines Shape, is not included: "invalid use of incomplete type" /
    # "member access into incomplete type" with the note "forward declaration of 'class geo::Shape'"
    records, output = _failing(compiler, {"shapes.h": SHAPES_H, "fwd.h": FWD_H, "use.cc": USE_CC}, "use.cc", tmp_path)
    assert "incomplete" in records[0].message, output
    assert records[0].error_type == "undefined_symbol", output


RLIMIT_C = "int max_open(void) {\n    struct rlimit rlim;\n    rlim.rlim_cur = 0;\n    return (int)rlim.rlim_cur;\n}\n"


@pytest.mark.parametrize("compiler", ["gcc", "clang", "g++", "clang++"])
def test_a_struct_whose_header_is_missing_is_not_a_type_mismatch(compiler: str, tmp_path: Path) -> None:
    # <sys/resource.h> removed: "storage size of 'rlim' isn't known" (gcc), "has incomplete type" (g++),
    # "variable has incomplete type 'struct rlimit'" (clang)
    unit = "lim.cc" if compiler.endswith("++") else "lim.c"
    records, output = _failing(compiler, {unit: RLIMIT_C}, unit, tmp_path)
    assert records[0].error_type == "undefined_symbol", output


JOINED_CC = """\
struct Node { Node* next; int value; };

int Pop(Node** head) {
  Node* e = *head
  *head = e->next;
  return e->value;
}

unsigned Hash(const char* p, unsigned seed);

unsigned Mix(const char* p, unsigned shift) {
  unsigned h = shift
  (void)p;
  return h;
}
"""


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_a_statement_run_into_the_next_line_is_a_syntax_error(compiler: str, tmp_path: Path) -> None:
    # "invalid operands ... to binary 'operator*'" on line 5 and "called object type 'unsigned int'
    # is not a function" / "'shift' cannot be used as a function" on line 13: the words say type,
    # the source says the line above ends a statement without its ';'
    records, output = _failing(compiler, {"pop.cc": JOINED_CC}, "pop.cc", tmp_path)
    by_line = {r.line: r for r in records}
    assert by_line[5].error_type == "syntax_error", output
    assert by_line[13].error_type == "syntax_error", output


JOINED_C = "int total(int *out, int count) {\n    int n = count\n    *out = n;\n    return n;\n}\n"


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_c_statement_run_into_the_next_line_is_a_syntax_error(compiler: str, tmp_path: Path) -> None:
    records, output = _failing(compiler, {"t.c": JOINED_C}, "t.c", tmp_path)
    assert records[0].line == 3 and records[0].error_type == "syntax_error", output


CONTINUED_C = "double scaled(int *p, double by) {\n    double d = by\n        + p;\n    return d;\n}\n"


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_a_real_type_error_on_a_continued_line_stays_a_type_mismatch(compiler: str, tmp_path: Path) -> None:
    # the line above ends open, but this line continues the expression (it starts with '+'): the
    # words are right
    records, output = _failing(compiler, {"c.c": CONTINUED_C}, "c.c", tmp_path)
    assert records[0].error_type == "type_mismatch", output


def test_without_the_source_the_words_decide(tmp_path: Path) -> None:
    # the same output parsed where the file is not (a log from elsewhere): no guess from a missing file
    records, output = _failing("g++", {"pop.cc": JOINED_CC}, "pop.cc", tmp_path)
    elsewhere = [r for r in parse_text(output, "gcc", cwd=str(tmp_path / "nowhere")).build_errors if r.is_failure]
    assert elsewhere[0].line == 5 and elsewhere[0].error_type == "type_mismatch"


OPEN_MEMBER_CC = """\
class Shape {
 public:
  int Area() const {
    int a = side_ * side_;
    return a;

  int Perimeter() const;
 private:
  int side_ = 1;
};

int Shape::Perimeter() const { return 4 * side_; }
"""


@pytest.mark.parametrize(("compiler", "limit"), [("g++", "-fmax-errors=1"), ("clang++", "-ferror-limit=1")])
def test_a_member_left_open_is_a_syntax_error_even_when_the_compiler_stops_early(compiler: str, limit: str, tmp_path: Path) -> None:
    # the out-of-class definition lands inside the class: "extra qualification on member"; with the
    # error limit reached the end-of-input diagnostic never comes, so its own words must say syntax
    records, output = _failing(compiler, {"shape.cc": OPEN_MEMBER_CC}, "shape.cc", tmp_path, limit)
    assert "extra qualification" in records[0].message, output
    assert records[0].error_type == "syntax_error", output


MEMBER_CC = "struct Box { int size() const { return 3; } };\nint Use(const Box& b) { int n = b.size; return n; }\n"


def test_the_compilers_fix_it_decides_when_no_words_match(tmp_path: Path) -> None:
    # clang: "reference to non-static member function must be called" (no pattern knows it) with the
    # fix-it "()": a value used as what its type is not, as g++ says outright ("cannot convert")
    records, output = _failing("clang++", {"box.cc": MEMBER_CC}, "box.cc", tmp_path)
    assert records[0].fixits and records[0].error_type == "type_mismatch", output
    records, output = _failing("g++", {"box.cc": MEMBER_CC}, "box.cc", tmp_path)
    assert records[0].error_type == "type_mismatch", output


MACRO_AT_FILE_SCOPE_C = 'const TABLE_MODEL("small")\nint kTable[2] = {1, 2};\n\nint EXPORTED(7) counter;\n'
DANGLING_COMMA_C = "int f(int a, );\n"


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_a_function_like_macro_not_defined_is_an_undefined_symbol(compiler: str, tmp_path: Path) -> None:
    # its header is not included: 'TABLE_MODEL("small")' reads as a function declarator with a string
    # for a parameter ("expected declaration specifiers or '...' before string constant", "expected
    # parameter declarator"): the words say grammar, the literal under the caret says an unknown name
    records, output = _failing(compiler, {"t.c": MACRO_AT_FILE_SCOPE_C}, "t.c", tmp_path)
    assert records[0].error_type == "undefined_symbol", output
    records, output = _failing(compiler, {"d.c": DANGLING_COMMA_C}, "d.c", tmp_path)
    assert records[0].error_type == "syntax_error", output  # a parameter missing after a comma stays grammar
