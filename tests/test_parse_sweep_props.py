"""Shapes of gcc 12 / clang 14 output the sweep cases showed (tests/fixtures/build/*/sweep_*), as
properties over generated text and as small cases of each mechanism: messages over several lines,
clang's msvc / vi formats and categories, the echo that is no diagnostic, remarks, gcc -E's glued
last line, <stdin>, and the same-place rule deciding as much when streamed as on the whole log."""

from __future__ import annotations

import io
import json
import string
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_whetstone.parse import iter_parse_text, parse_text
from pytest_whetstone.parse.gcc_text import split_flag
from pytest_whetstone.parse.stream import write_json

FIXTURES = Path(__file__).parent / "fixtures" / "build"

_ident = st.text(alphabet=string.ascii_lowercase + string.digits + "_", min_size=1, max_size=10)
_flag = st.one_of(st.none(), st.from_regex(r"-W[a-z][a-z-]{0,18}[a-z]", fullmatch=True))


def _words(quote: tuple[str, str]) -> st.SearchStrategy[list[str]]:
    word = st.one_of(_ident, _ident.map(lambda w: f"{quote[0]}{w}{quote[1]}"))
    return st.lists(word, min_size=2, max_size=14)


def _lines(words: list[str], cuts: list[int]) -> list[list[str]]:
    """``words`` in lines broken before the word indices in ``cuts`` (none empty)."""
    points = sorted({c % len(words) for c in cuts} - {0})
    bounds = [0, *points, len(words)]
    return [words[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def _one(text: str) -> tuple[str, str, int]:
    result = parse_text(text)
    [rec] = result.build_errors
    return rec.message, rec.error_code, len(result.build_errors)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_words(("‘", "’")), st.lists(st.integers(0, 40), max_size=6), _flag, st.booleans())
def test_gcc_message_broken_over_lines_reads_whole(words: list[str], cuts: list[int], flag: str | None,
                                                   every_line: bool) -> None:
    """-fmessage-length breaks after a space (which it keeps): the rest 3 spaces in, or, with
    -fdiagnostics-show-location=every-line, behind the same location prefix; then the source echo."""
    lines = _lines(words, cuts)
    pieces = [" ".join(part) + " " for part in lines]
    pieces[-1] = pieces[-1].rstrip() + (f" [{flag}]" if flag else "")
    prefix = "x.c:3:5: warning: "
    head = [prefix + pieces[0]] + [(prefix if every_line else "   ") + p for p in pieces[1:]]
    text = "\n".join([*head, "    3 |   int y = x;", "      |     ^"]) + "\n"
    assert _one(text) == (" ".join(words), flag or "", 1)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_words(("'", "'")), st.lists(st.integers(0, 40), max_size=6), _flag, st.integers(0, 9), st.booleans())
def test_clang_message_broken_over_lines_reads_whole(words: list[str], cuts: list[int], flag: str | None,
                                                     indent: int, caret: bool) -> None:
    """clang -fmessage-length breaks at a space (which it drops): the rest 6 spaces in, the flag last;
    a source line indented 6 spaces looks like a piece until the caret under it."""
    lines = [" ".join(part) for part in _lines(words, cuts)]
    if flag:
        lines[-1] += f" [{flag}]"
    echo = [" " * indent + "foo(bar);", " " * indent + "^"] if caret else []
    text = "\n".join(["x.c:3:5: warning: " + lines[0], *("      " + rest for rest in lines[1:]), *echo]) + "\n"
    result = parse_text(text)
    [rec] = result.build_errors
    assert (rec.message, rec.error_code) == (" ".join(words), flag or "")
    assert rec.context_lines == echo


@settings(max_examples=80, deadline=None)
@given(_ident, st.integers(1, 999), st.integers(0, 99), st.sampled_from(["error", "warning", "note"]), _flag,
       st.sampled_from(["", "Semantic Issue", "Format String Issue", "Deprecations", "ARC Casting Rules"]))
def test_clang_location_formats_and_categories_read_alike(name: str, line: int, col: int, sev: str,
                                                          flag: str | None, category: str) -> None:
    message = f"use of '{name}' here"
    tag = ",".join(t for t in (flag or "", category) if t)
    body = f"{sev}: {message}" + (f" [{tag}]" if tag else "")
    at = f":{col}" if col else ""
    gnu = f"src/{name}.c:{line}{at}: {body}"
    msvc = f"src/{name}.c({line},{col}): {body}"  # (msvc without a column: nvcc's shape too, not read)
    vi = f"src/{name}.c +{line}{at}: {body}"
    seen = set()
    for text in (gnu, msvc, vi) if col else (gnu, vi):
        recs = parse_text(text + "\n").build_errors
        seen.add(tuple((r.file_path, r.line, r.col, r.severity, r.message, r.error_code) for r in recs))
    assert seen == {((f"src/{name}.c", line, col, sev, message, flag or ""),)}


def test_split_flag_takes_clangs_category_off() -> None:
    assert split_flag("x [-Wformat,Format String Issue]") == ("x", "-Wformat")
    assert split_flag("x [-Wdeprecated-declarations,Deprecations]") == ("x", "-Wdeprecated-declarations")
    assert split_flag("x [-Wformat,3]") == ("x", "-Wformat")
    assert split_flag("x [Semantic Issue]") == ("x", "")
    assert split_flag("unsupported target [arm64]") == ("unsupported target [arm64]", "")
    assert split_flag("legacy API [v1] is deprecated") == ("legacy API [v1] is deprecated", "")
    assert split_flag("x [-Werror,-Wunused-variable]") == ("x", "-Werror,-Wunused-variable")


def test_a_newline_in_a_message_is_kept() -> None:
    clang = "n.c:5:29: warning: 'old' is deprecated: old\nuse new [-Wdeprecated-declarations]\nint f(void) { return old(); }\n                     ^\n"
    assert _one(clang) == ("'old' is deprecated: old\nuse new", "-Wdeprecated-declarations", 1)
    gcc_note = ("n.c:1:1: error: static assertion failed\n    1 | _Static_assert(0);\n      | ^~~\n"
                "n.c:2:9: note: ‘#pragma message: first line\nsecond line\nthird line’\n"
                "    2 | #pragma message \"first line\\nsecond line\\nthird line\"\n      |         ^~~~~~~\n")
    [rec] = parse_text(gcc_note).build_errors
    assert [n.message for n in rec.notes] == ["‘#pragma message: first line\nsecond line\nthird line’"]
    assert rec.context_lines == ["    1 | _Static_assert(0);", "      | ^~~"]
    unquoted = "a.c:11:7: warning: call to ‘bad’ declared with attribute warning: do not call bad()\nsee docs [-Wattribute-warning]\n   11 |   bad();\n      |   ^~~~~\n"
    assert _one(unquoted) == ("call to ‘bad’ declared with attribute warning: do not call bad()\nsee docs",
                              "-Wattribute-warning", 1)


def test_a_line_at_column_0_before_gccs_echo_is_message_text() -> None:
    text = "a.c:2:9: warning: first line\nsecond line\n    2 | x\n      | ^\n"
    [rec] = parse_text(text).build_errors
    assert rec.message == "first line\nsecond line"
    assert rec.context_lines == ["    2 | x", "      | ^"]


def test_a_c_label_in_clangs_echo_is_no_diagnostic_but_a_bare_line_is() -> None:
    echo = "l.c:8:26: error: use of undeclared identifier 'x'\nerror: free(buf); return x;\n                         ^\n1 error generated.\n"
    [rec] = parse_text(echo).build_errors
    assert rec.context_lines == ["error: free(buf); return x;", "                         ^"]
    no_caret = "l.c:8:26: error: use of undeclared identifier 'x'\nerror: invalid value 'c99x' in '-std=c99x'\n"
    result = parse_text(no_caret)
    assert [r.message for r in result.build_errors] == ["use of undeclared identifier 'x'",
                                                       "invalid value 'c99x' in '-std=c99x'"]
    assert result.reported_error_count == 2


def test_remarks_are_neither_records_nor_notes() -> None:
    text = ("l.c:11:9: warning: unused variable 'u' [-Wunused-variable]\n    int u;\n        ^\n"
            "l.c:5:5: remark: vectorized loop [-Rpass=loop-vectorize]\n    for (;;)\n    ^\n"
            "l.c:5:5: note: because of this\n1 warning generated.\n")
    result = parse_text(text)
    [rec] = result.build_errors
    assert (rec.message, rec.notes, result.warning_count) == ("unused variable 'u'", [], 1)


def test_a_diagnostic_glued_onto_gcc_E_output_only_after_line_markers() -> None:
    glued = '# 1 "pp.c"\nint main(void) { return 0; }pp2.c:2:5: warning: "X" is not defined [-Wundef]\n'
    [rec] = parse_text(glued).build_errors
    assert (rec.file_path, rec.line, rec.col, rec.translation_unit) == ("pp2.c", 2, 5, "pp2.c")
    # without -E output before it, a path with ';' or '}' in it is the path
    [plain] = parse_text("weird}dir/pp2.c:2:5: warning: x [-Wundef]\n").build_errors
    assert plain.file_path == "weird}dir/pp2.c"


def test_stdin_is_the_translation_unit_of_its_records() -> None:
    text = "<stdin>:3:12: error: ‘x’ undeclared (first use in this function)\n"
    [rec] = parse_text(text).build_errors
    assert (rec.file_path, rec.translation_unit) == ("<stdin>", "<stdin>")


def test_clangs_wording_and_gccs_margin_tell_the_compiler() -> None:
    clang = "run.c:9:17: error: use of undeclared identifier 'count'\nlabels.c:13: warning: x [-Wparentheses]\n"
    assert {r.tool for r in parse_text(clang).build_errors} == {"clang"}
    # gcc -fno-diagnostics-show-line-numbers: a one-space margin, the caret at index col
    gcc = "l.c: In function ‘f’:\nl.c:9:1: warning: control reaches end of non-void function [-Wreturn-type]\n }\n ^\n"
    assert [r.tool for r in parse_text(gcc).build_errors] == ["gcc"]


def _document(text: str) -> str:
    return json.dumps(parse_text(text).to_dict(), sort_keys=True)


def _streamed(text: str) -> str:
    out = io.StringIO()
    write_json(iter_parse_text(text), out)
    return json.dumps(json.loads(out.getvalue()), sort_keys=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["_Pragma takes a parenthesized string literal", "expected identifier or '('",
                                 "unknown thing", "use of undeclared identifier 'v'"]), min_size=1, max_size=8),
       st.lists(st.integers(1, 3), min_size=8, max_size=8), st.integers(0, 5))
def test_same_place_decides_the_same_streamed(messages: list[str], lines: list[int], filler: int) -> None:
    """An unknown error beside a known one at its place takes its class, streamed or not."""
    text = "".join(f"d.c:{lines[k]}:{k + 1}: error: {m}\n" + "x\n" * (filler if k == 2 else 0)
                   for k, m in enumerate(messages))
    assert _streamed(text) == _document(text)


SWEEP = sorted(FIXTURES.glob("*/sweep_*.log"))
SWEEP_LINES = [line for log in SWEEP for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(SWEEP_LINES), st.text(max_size=40)), max_size=40),
       st.sampled_from(["auto", "gcc", "clang"]))
def test_sweep_lines_in_any_order_never_raise_and_stream_the_same(lines: list[str], tool: str) -> None:
    text = "\n".join(lines)
    whole = parse_text(text, tool=tool)
    assert all(r.severity in ("error", "warning", "note") for r in whole.build_errors)
    assert [r.to_json() for r in iter_parse_text(text, tool=tool)] == [r.to_json() for r in whole.build_errors]
