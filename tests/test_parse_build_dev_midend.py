"""gcc 12's middle-end diagnostics (-O2: -Warray-bounds, -Wstringop-*, -Wformat-truncation, under
glibc's -D_FORTIFY_SOURCE=2) and a failure reported up the LTO chain, on the development corpus
(tests/fixtures/build_dev: cmark-gfm and ujson's double-conversion with seeded faults).

gcc prints a warning inside inlined code after an inline chain: ``In function 'strcpy',`` then one
``    inlined from 'f' at x.c:L:C,`` per level (the last ending ``:``), often after the include chain
of the system header the code lies in, and before the diagnostic or before a note of the open one.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_whetstone.parse import iter_parse_text, parse_text

DEV = Path(__file__).parent / "fixtures" / "build_dev"


def _parse(case: str) -> tuple[dict, object]:
    log = DEV / f"{case}.log"
    label = json.loads(log.with_suffix(".json").read_text())
    return label, parse_text(log.read_bytes(), cwd=label["cwd"], tool=label.get("tool", "auto"))


def _notes(rec: object) -> list[tuple[str, int, int, str]]:
    return [(n.file_path, n.line, n.col, n.message) for n in rec.notes]  # type: ignore[attr-defined]


def test_inline_chain_names_the_function_and_keeps_the_include_chain() -> None:
    # In file included from /usr/include/string.h:535, / from buffer.c:2: / In function 'strcpy', /
    #     inlined from 'cmark_lvl3' at buffer.c:14:57, ... / string_fortified.h:79:10: warning: ...
    _, result = _parse("gcc/cmark_fortify")
    rec = next(r for r in result.build_errors if r.line == 79)
    assert (rec.function, rec.translation_unit) == ("strcpy", "buffer.c")
    assert _notes(rec) == [
        ("/usr/include/string.h", 535, 0, "included from here"), ("buffer.c", 2, 0, "included from here"),
        ("buffer.c", 14, 57, "inlined from ‘cmark_lvl3’"), ("buffer.c", 15, 57, "inlined from ‘cmark_lvl2’"),
        ("buffer.c", 16, 42, "inlined from ‘cmark_lvl1’"),
        ("buffer.c", 19, 3, "inlined from ‘cmark_strbuf_put_label’"), ("buffer.c", 18, 8, "‘b’ declared here")]


def test_inline_chain_before_a_note_is_that_notes_context() -> None:
    # buffer.c:30:24: warning: ... [-Wformat-truncation=], then "In function 'cmark_span_pos'," /
    # "    inlined from ..." / "buffer.c:30:20: note: directive argument in the range [0, 255]"
    _, result = _parse("gcc/cmark_fortify")
    rec = next(r for r in result.build_errors if r.error_code == "-Wformat-truncation=")
    assert rec.function == "cmark_strbuf_put_pos"  # the chain named the note's function, not this one's
    notes = _notes(rec)
    assert notes[:2] == [("buffer.c", 34, 3, "inlined from ‘cmark_strbuf_put_pos’"),
                         ("buffer.c", 30, 20, "directive argument in the range [0, 255]")]
    assert notes[-1][:2] == ("/usr/include/x86_64-linux-gnu/bits/stdio2.h", 54)
    # the next record is not in the function the chain named
    after = result.build_errors[result.build_errors.index(rec) + 1]
    assert after.function == "plain_fill_probe"


def test_inline_chain_of_cxx_members() -> None:
    # In member function 'T double_conversion::DigitPair<T>::At(int) const [with T = int]',
    _, result = _parse("gcc/ujson_cxx_fortify")
    first = result.build_errors[0]
    assert first.function == "double_conversion::DigitPair<T>::At"
    assert _notes(first)[0][:3] == ("bignum.cc", 815, 26)
    assert [r.function for r in result.build_errors][2] == "strcpy"
    assert (result.reported_error_count, result.warning_count) == (0, 3)


def test_inline_chain_cut_off_by_another_ltrans_job_waits_for_its_diagnostic() -> None:
    # -flto=auto: "In function 'houdini_tag'," / "    inlined from ..." (one LTRANS job), then
    # "utf8.c: In function 'cmark_utf8_probe':" and its error (another), then houdini's error
    label, result = _parse("gcc/cmark_midend_lto_auto")
    utf8, houdini = (r for r in result.build_errors if r.severity == "error")
    assert (utf8.file_path, utf8.function, _notes(utf8)) == (
        "utf8.c", "cmark_utf8_probe", [("utf8.c", 10, 7, "‘r’ was declared here")])
    assert (houdini.file_path, houdini.function) == ("houdini_html_e.c", "houdini_tag")
    assert _notes(houdini)[0] == ("houdini_html_e.c", 10, 3, "inlined from ‘houdini_tag_probe’")
    assert (result.reported_error_count, result.warning_count) == (label["error_count"], label["warning_count"]) == (2, 4)


def test_inline_chain_says_gcc_when_nothing_else_does() -> None:
    # after clang's units, gcc (as "cc", LC_ALL=C, -fno-diagnostics-show-caret) prints one warning:
    # only its inline chain tells whose it is (clang has none)
    clang = (DEV / "clang/cmark_fortify.log").read_text()
    gcc = ("cc -O2 -Wall -fno-diagnostics-show-caret -c buffer.c -o buffer.o\nIn function 'cmark_span_copy',\n"
           "    inlined from 'cmark_span_label_set' at buffer.c:28:74:\n"
           "buffer.c:26:3: warning: 'strncpy' specified bound 8 equals destination size [-Wstringop-truncation]\n")
    last = parse_text(clang + gcc).build_errors[-1]
    assert (last.tool, last.function, _notes(last)) == (
        "gcc", "cmark_span_copy", [("buffer.c", 28, 74, "inlined from 'cmark_span_label_set'")])


def test_lto_failure_reported_up_the_chain_is_one_failure() -> None:
    # lto1's two -Werror= errors, "lto1: some warnings being treated as errors", lto-wrapper's own
    # make ("make[1]: *** [/tmp/cc...mk:2: /tmp/cc...ltrans0.ltrans.o] Error 1"), "lto-wrapper:
    # fatal error: make returned 2 exit status", "compilation terminated.", bfd's "lto-wrapper
    # failed", collect2, then the build's "make: *** [Makefile:7: libcmark.so] Error 1"
    label, result = _parse("gcc/cmark_midend_lto_werror")
    assert not [r for r in result.build_errors if r.tool == "make"]
    assert (result.reported_error_count, result.warning_count) == (2, 5) == (
        label["error_count"], label["warning_count"])


def test_summaries_of_other_tools_continue_make_cascade_only_when_unbroken() -> None:
    chain = ("x.c:1:1: error: y\nmake[1]: *** [/tmp/cc1.mk:2: /tmp/cc2.ltrans0.ltrans.o] Error 1\n"
             "lto-wrapper: fatal error: make returned 2 exit status\ncompilation terminated.\n"
             "/usr/bin/ld: error: lto-wrapper failed\ncollect2: error: ld returned 1 exit status\n"
             "make: *** [Makefile:7: lib.so] Error 1\n")
    assert [r.message for r in parse_text(chain).build_errors] == ["y"]
    # a recipe that failed on its own later (its command lines between): still a record
    broken = chain + "cc -o post post.o\nsh ./post-link.sh lib.so\nmake: *** [Makefile:9: post] Error 1\n"
    assert [r.tool for r in parse_text(broken).build_errors] == ["gcc", "make"]


HEADS = ["In function ‘strcpy’,", "In member function ‘int A::f() const’,", "In function ‘memcpy’,"]
CHAIN = ["    inlined from ‘f’ at x.c:3:5,", "    inlined from ‘g’ at x.c:9:1:",
         "In file included from /usr/include/string.h:535,", "                 from x.c:1:"]
DIAGS = ["x.c:4:3: warning: array subscript 5 is above array bounds of ‘int[4]’ [-Warray-bounds]",
         "x.c:5:1: error: ‘r’ may be used uninitialized [-Werror=maybe-uninitialized]",
         "x.c:2:7: note: ‘b’ declared here", "    4 |   return a[5];", "      |          ~^~~",
         "x.c: In function ‘g’:", "make: *** [Makefile:3: x.o] Error 1", "collect2: error: ld returned 1 exit status"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(HEADS + CHAIN + DIAGS), max_size=40))
def test_inline_chains_anywhere_never_make_records_and_stream_alike(lines: list[str]) -> None:
    text = "\n".join(lines)
    result = parse_text(text, cwd="/w")
    errors = sum(line.startswith("x.c:5:1: error") for line in lines)
    warnings = sum(line.startswith("x.c:4:3: warning") for line in lines)
    gcc = [r for r in result.build_errors if r.tool == "gcc"]
    assert (sum(r.severity == "error" for r in gcc), sum(r.severity == "warning" for r in gcc)) == (errors, warnings)
    assert not [r for r in result.build_errors if "inlined from" in r.message or r.message.startswith("In ")]
    stream = iter_parse_text(text, cwd="/w")
    assert [(r.line, r.function, len(r.notes)) for r in stream] == [
        (r.line, r.function, len(r.notes)) for r in result.build_errors]
