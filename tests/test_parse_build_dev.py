"""The development corpus of real build logs (tests/fixtures/build_dev): fields and counts say
what the tools said.

Every log there is the exact bytes gcc 12, clang 14, clang-tidy 14, GNU ld 2.40, gold 1.16,
lld 14 or mold 1.10 printed building lua 5.4, pycryptodome, markupsafe, zope.interface,
greenlet, kiwisolver, cmark-gfm (cmarkgfm) or ujson's double-conversion with seeded faults
(``capture.py``); its label was drafted from the tools' line shapes by ``draft_labels.py``, which
never runs the parser, and checked by hand.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_whetstone.parse import iter_parse_text, parse_text
from pytest_whetstone.parse.stream import write_jsonl

DEV = Path(__file__).parent / "fixtures" / "build_dev"
LOGS = sorted(DEV.glob("*/*.log"))


def _parse(case: str) -> tuple[dict, object]:
    log = DEV / f"{case}.log"
    label = json.loads(log.with_suffix(".json").read_text())
    return label, parse_text(log.read_bytes(), cwd=label["cwd"], tool=label.get("tool", "auto"))


def _key(r: dict) -> tuple:
    return (r["severity"], r["file_path"], r["line"], r["col"], r["message"])


@pytest.mark.parametrize("log", LOGS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_dev_log_records_fields_and_counts(log: Path) -> None:
    label, result = _parse(f"{log.parent.name}/{log.stem}")
    got = {}
    for rec in result.build_errors:
        got.setdefault(_key(rec.to_dict()), []).append(rec)
    assert sorted(map(_key, label["records"])) == sorted(_key(r.to_dict()) for r in result.build_errors)
    for want in label["records"]:
        rec = got[_key(want)].pop(0)
        assert (rec.tool, rec.error_code, rec.is_lint) == (want["tool"], want["error_code"], want["is_lint"]), want
        notes = [(n.file_path, n.line, n.col, n.message) for n in rec.notes]
        for note in want["notes"]:
            assert (note["file_path"], note["line"], note["col"], note["message"]) in notes, (want, note)
    assert (result.reported_error_count, result.warning_count) == (label["error_count"], label["warning_count"])


def test_corpus_covers_every_group() -> None:
    groups = {log.parent.name for log in LOGS}
    assert {"gcc", "clang", "gcc_json", "clang_tidy", "ld", "gold", "lld", "mold"} <= groups
    for log in LOGS:
        assert log.with_suffix(".json").exists() and log.with_suffix(".case.json").exists(), log


# ----------------------------------------------------------------------- shapes, one by one


def test_bfd_glibc_link_warning_is_a_warning_not_an_error() -> None:
    # "loslib.c:(.text+0x15f): warning: the use of `tmpnam' is dangerous, better use `mkstemp'"
    _, result = _parse("ld/lua_undefined_gcc")
    [warning] = [r for r in result.build_errors if r.severity == "warning"]
    assert (warning.tool, warning.file_path, warning.message) == (
        "linker", "loslib.c", "the use of `tmpnam' is dangerous, better use `mkstemp'")
    assert (warning.function, warning.is_lint) == ("os_tmpname", False)
    assert (result.reported_error_count, result.warning_count) == (1, 1)  # collect2 and make add nothing


def test_bfd_note_line_is_a_note_of_the_warning_before_it() -> None:
    # "/usr/bin/ld: NOTE: This behaviour is deprecated and will be removed in a future version of the linker"
    _, result = _parse("ld/lua_execstack")
    stack = result.build_errors[-1]
    assert stack.message == "stackless.o: missing .note.GNU-stack section implies executable stack"
    assert [n.message for n in stack.notes] == [
        "This behaviour is deprecated and will be removed in a future version of the linker"]
    assert (result.reported_error_count, result.warning_count) == (0, 2)


@pytest.mark.parametrize("case", ["gold/lua_undefined_gcc", "gold/lua_debug_undefined", "ld/lua_debug_undefined"])
def test_glibc_link_warning_of_gold_and_of_debug_info_is_the_linkers(case: str) -> None:
    # gold: "loslib.o:loslib.c:function os_tmpname: warning: ..."; with -g, bfd and gold:
    # "/abs/loslib.c:174: warning: the use of `tmpnam' ..." (a compiler's shape, binutils' quotes)
    _, result = _parse(case)
    [warning] = [r for r in result.build_errors if r.message.startswith("the use of `tmpnam'")]
    assert (warning.tool, warning.severity, warning.file_path) == ("linker", "warning", "loslib.c")
    assert warning.line in (0, 174)


@pytest.mark.parametrize(("case", "visibility"), [("lld/lua_error_limit_clang", "hidden"),
                                                   ("lld/lua_error_limit_gcc", "internal")])
def test_lld_undefined_symbol_with_a_visibility(case: str, visibility: str) -> None:
    # "ld.lld: error: undefined hidden symbol: luaH_getn" + ">>> referenced by lapi.c", and
    # "ld.lld: error: too many errors emitted, stopping now (use -error-limit=0 ...)": a summary
    _, result = _parse(case)
    assert len(result.build_errors) == 5 and result.reported_error_count == 5
    first = result.build_errors[0]
    assert first.message == f"undefined {visibility} symbol: luaH_getn"
    assert (first.file_path, first.symbol, first.error_type, first.function) == (
        "lapi.c", "luaH_getn", "undefined_symbol", "lua_rawlen")
    assert [(n.file_path, n.message) for n in first.notes] == [("lvm.c", "also referenced here")]
    assert not any("too many errors" in r.message for r in result.build_errors)


def test_interleaved_clang_units_count_as_their_tallies_say() -> None:
    # make -j2 -Weverything: two units' diagnostics interleave, one line holds the heads of
    # two ("lcode.clgc.c:564:3: warning: ..."), tallies come after another unit's records
    text = (DEV / "clang/lua_make_j2_many.log").read_text()
    assert "lcode.clgc.c:564:3" in text
    _, result = _parse("clang/lua_make_j2_many")
    # two warnings ran into other lines: 262 warning records, 264 warnings by the tallies
    assert sum(r.severity == "warning" for r in result.build_errors) == 262
    assert (result.reported_error_count, result.warning_count) == (1, 63 + 73 + 48 + 80)
    stream = iter_parse_text(text, cwd="/tmp/whetstone-dev/clang_lua_make_j2_many")
    list(stream)
    assert (stream.summary()["reported_error_count"], stream.summary()["warning_count"]) == (1, 264)


def test_clang_tidy_tallies_before_its_records_add_nothing() -> None:
    # "3647 warnings generated." / "6041 warnings generated." before the diagnostics, then
    # "Suppressed 5852 warnings": 6041 - 5852 = the 189 records
    _, result = _parse("clang_tidy/lua_checks")
    assert (result.reported_error_count, result.warning_count) == (0, 189) == (0, 6041 - 5852)


def test_clang_tidy_warnings_as_errors() -> None:
    # "[readability-magic-numbers,-warnings-as-errors]", then "18 warnings treated as errors"
    _, result = _parse("clang_tidy/lua_warnings_as_errors")
    errors = [r for r in result.build_errors if r.severity == "error"]
    assert len(errors) == 18
    for rec in errors:
        assert (rec.tool, rec.error_code) == ("clang_tidy", "readability-magic-numbers,-warnings-as-errors")
        assert rec.is_lint and rec.is_failure and not rec.message.endswith("]")
    assert (result.reported_error_count, result.warning_count) == (18, 1126 - 1107 - 18)


def test_compiler_of_the_echoed_command_decides_when_the_record_cannot() -> None:
    # clang -fno-caret-diagnostics -fno-show-column: no caret, no tally, plain 'quotes'
    _, result = _parse("clang/lua_no_caret")
    assert {r.tool for r in result.build_errors} == {"clang"}


def test_a_note_after_another_jobs_line_still_belongs_to_its_record() -> None:
    text = (
        "a.c:5:3: warning: unused variable 'x' [-Wunused-variable]\n"
        "clang -Wall -c b.c -o b.o\n"
        "./m.h:3:9: note: expanded from macro 'M'\n"
    )
    [rec] = parse_text(text).build_errors
    assert [(n.file_path, n.line, n.col, n.message) for n in rec.notes] == [("m.h", 3, 9, "expanded from macro 'M'")]
    # the driver's and clang's located-nowhere notes too
    for note in ("cc1: note: unrecognized command-line option '-Wno-x' may have been intended to silence earlier "
                 "diagnostics", "note: use 'c99' or 'iso9899:1999' for 'ISO C 1999' standard"):
        [rec] = parse_text(text.replace("./m.h:3:9: note: expanded from macro 'M'", note)).build_errors
        assert [(n.file_path, n.line) for n in rec.notes] == [("", 0)]


def test_gcc_driver_note_is_a_note_not_a_record() -> None:
    # "cc1: note: unrecognized command-line option '-Wno-frobnicate' may have been intended to ..."
    label, result = _parse("gcc/driver_errors")
    warning = next(r for r in result.build_errors if r.severity == "warning")
    assert any("-Wno-frobnicate" in n.message for n in warning.notes)
    assert (result.reported_error_count, result.warning_count) == (4, 1)


@pytest.mark.parametrize("case", ["setuptools/crc32c_pip_gcc", "setuptools/crc32c_pip_verbose_gcc",
                                  "setuptools/crc32c_pip_clang", "setuptools/crc32c_setup_py_gcc"])
def test_pip_framed_build_output_reads_as_the_compiler_printed_it(case: str) -> None:
    # pip indents the build's output (6 spaces in its failure box, 2 with -v); its own lines
    # ("error: subprocess-exited-with-error", "ERROR: Failed building wheel for crc32c") and
    # setuptools' ("error: command '/usr/bin/gcc' failed", "warning: build_py: byte-compiling
    # is disabled") are no diagnostics
    label, result = _parse(case)
    assert result.build_errors and all(r.file_path.startswith("src/crc32c/ext/") for r in result.build_errors)
    assert all(r.tool in ("gcc", "clang") for r in result.build_errors)
    assert (result.reported_error_count, result.warning_count) == (label["error_count"], label["warning_count"])
    gcc = [r for r in result.build_errors if r.tool == "gcc"]
    if gcc:
        assert any(r.context_lines for r in gcc)  # the source echo, unframed too


def test_pip_frame_across_blocks_and_in_every_reader(tmp_path: Path) -> None:
    from pytest_whetstone.parse import iter_parse_file, parse_file, parse_lines

    framed = (DEV / "setuptools/crc32c_pip_gcc.log").read_text()
    head = "".join(f"cc -c module_{i}.c -o module_{i}.o\n" for i in range(60_000))  # past one 1 MB chunk
    text = head + framed
    want = [(r.file_path, r.line, r.message) for r in parse_text(framed).build_errors]
    assert [(r.file_path, r.line, r.message) for r in parse_text(text).build_errors] == want
    assert [(r.file_path, r.line, r.message) for r in parse_lines(text.splitlines()).build_errors] == want
    (tmp_path / "pip.log").write_text(text)
    assert [(r.file_path, r.line, r.message) for r in parse_file(str(tmp_path / "pip.log")).build_errors] == want
    assert [(r.file_path, r.line, r.message) for r in iter_parse_file(str(tmp_path / "pip.log"))] == want


def test_a_pip_box_cut_short_ends_at_pips_own_line() -> None:
    text = ("  ╰─> [9 lines of output]\n      x.c:1:1: error: expected ';'\n"
            "make: *** [Makefile:2: all] Error 1\n"
            "y.c:2:7: warning: unused variable 'b' [-Wunused-variable]\n    2 |   int b;\n      |       ^\n")
    first, second = parse_text(text).build_errors
    assert (first.file_path, first.line) == ("x.c", 1)
    assert second.context_lines == ["    2 |   int b;", "      |       ^"]  # not unframed any more


def test_pip_summary_alone_is_one_record() -> None:
    # nothing in the log says why the wheel failed: the failure is not silent, and said once
    text = "  ERROR: Failed building wheel for crc32c\nFailed to build crc32c\nERROR: Failed to build one or more wheels\n"
    [rec] = parse_text(text).build_errors
    assert (rec.severity, rec.message) == ("error", "ERROR: Failed building wheel for crc32c")


def test_setuptools_flagless_warning_is_no_diagnostic() -> None:
    text = ("warning: no previously-included files matching '*.pyc' found anywhere in distribution\n"
            "warning: unknown warning option '-Wbogus' [-Wunknown-warning-option]\n")
    [rec] = parse_text(text).build_errors  # clang's cc1 speaks without a location only with its flag
    assert rec.error_code == "-Wunknown-warning-option"


def test_command_line_pseudo_file_warnings_are_gcc_diagnostics() -> None:
    # '<command-line>: warning: "LUA_COMPAT_5_3" redefined' + its '<command-line>: note:', and
    # 'cc1: warning: command-line option ... is valid for C++/ObjC++ but not for C', once per unit
    _, result = _parse("gcc/shape_command_line")
    redefined = [r for r in result.build_errors if r.file_path == "<command-line>"]
    assert len(redefined) == 4
    for rec in redefined:
        assert (rec.tool, rec.severity, rec.line, rec.col, rec.message) == (
            "gcc", "warning", 0, 0, '"LUA_COMPAT_5_3" redefined')
        assert [(n.file_path, n.message) for n in rec.notes] == [
            ("<command-line>", "this is the location of the previous definition")]
    assert (result.reported_error_count, result.warning_count) == (0, 8 + 4 + 1)


def test_sorry_unimplemented_is_an_error_of_cc1_and_of_a_location() -> None:
    _, result = _parse("gcc/shape_driver_cc1")
    sorry = [r for r in result.build_errors if "isn’t supported" in r.message or "aren’t allowed" in r.message]
    assert [(r.tool, r.severity, r.file_path, r.line) for r in sorry] == [
        ("gcc", "error", "", 0), ("gcc", "error", "isr.c", 1)]
    assert (result.reported_error_count, result.warning_count) == (12, 4)


def test_assembler_messages_are_records_at_the_line_gas_names() -> None:
    # "probe.c: Assembler messages:" / "probe.c:4: Error: no such instruction: `frobnicate'"
    _, result = _parse("gcc/shape_assembler")
    got = [(r.tool, r.severity, r.file_path, r.line, r.col, r.message) for r in result.build_errors]
    assert got[:2] == [("gcc", "error", "probe.c", 1, 0, "no such instruction: `bogusinsn %eax'"),
                       ("gcc", "error", "probe.c", 4, 0, "no such instruction: `frobnicate'")]
    assert ("gcc", "warning", "hand.s", 5, 0, "hand-written assembly") in got
    assert (result.reported_error_count, result.warning_count) == (5, 1)  # make's summaries add nothing
    # the same shape without gas's header line is not known to be the assembler's
    assert [r.tool for r in parse_text("probe.c:4: Error: no such instruction: `x'\n").build_errors] == ["unknown"]


def test_lto_wrapper_speaks_and_its_failure_chain_is_one_summary() -> None:
    _, result = _parse("gcc/shape_lto")
    serial = next(r for r in result.build_errors if r.message.startswith("using serial compilation"))
    assert (serial.tool, serial.severity, serial.file_path) == ("gcc", "warning", "")
    assert [n.message for n in serial.notes] == ["see the ‘-flto’ option documentation for more information"]
    # lto1's error, then "lto1: all warnings being treated as errors", "lto-wrapper: fatal error: cc
    # returned 1 exit status", "ld: error: lto-wrapper failed", collect2: one failure, said once
    _, result = _parse("gcc/shape_lto_werror")
    assert [r.message for r in result.build_errors if r.severity == "error"] == [
        "multiple definition of `lua_probe_table'", "type of ‘lua_probe_table’ does not match original declaration"]
    assert (result.reported_error_count, result.warning_count) == (2, 0)
    alone = "lto-wrapper: fatal error: gcc returned 1 exit status\ncompilation terminated.\n" \
            "/usr/bin/ld: error: lto-wrapper failed\ncollect2: error: ld returned 1 exit status\n"
    [rec] = parse_text(alone).build_errors  # nothing said why: the failure is not silent
    assert (rec.severity, rec.message) == ("error", "gcc returned 1 exit status")


def test_make_j2_summary_after_another_units_errors_is_explained_by_its_own_unit() -> None:
    # lmathlib's error, then "make: *** [Makefile:6: ltablib.o] Error 1" (ltablib's), then
    # "cc1: some warnings being treated as errors" and lmathlib's own "*** [...lmathlib.o] Error 1"
    _, result = _parse("gcc/shape_color")
    assert not [r for r in result.build_errors if r.tool == "make"]
    assert (result.reported_error_count, result.warning_count) == (6, 8)
    log = ("ltablib.c:1:1: error: x\nlmathlib.c:2:1: error: y\nmake: *** [Makefile:6: ltablib.o] Error 1\n"
           "cc -c lother.c -o lother.o\ncc -c lmathlib.c -o lmathlib.o\nmake: *** [Makefile:6: {}.o] Error 1\n")
    assert len(parse_text(log.format("lmathlib")).build_errors) == 2
    [rec] = parse_text(log.format("lother")).build_errors[2:]
    assert rec.message == "recipe for target 'lother.o' failed: Error 1"  # no error of its own unit


def test_gcc12_json_leaked_driver_prefix_and_missing_column() -> None:
    # after "cc1: warning: command-line option ...", gcc 12 writes "cc1: warning: unused variable ..."
    # into the JSON messages, and column -1 for <command-line>
    _, result = _parse("gcc_json/shape_mixed")
    assert not [r for r in result.build_errors if r.message.startswith("cc1")]
    redefined = [r for r in result.build_errors if r.file_path == "<command-line>"]
    assert [(r.line, r.col, r.notes[0].message) for r in redefined] == [
        (0, 0, "this is the location of the previous definition")] * 2


# ----------------------------------------------------------------------- fuzz: new paths

DEV_LINES = [line for log in LOGS for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]
SHAPES = [
    "3647 warnings generated.", "73 warnings and 1 error generated.", "2 errors generated.",
    "Suppressed 5852 warnings (5852 in non-user code).", "Error while processing /w/a.c.",
    "/usr/bin/ld: NOTE: This behaviour is deprecated and will be removed in a future version of the linker",
    "loslib.c:(.text+0x15f): warning: the use of `tmpnam' is dangerous, better use `mkstemp'",
    "loslib.o:loslib.c:function os_tmpname: warning: the use of `tmpnam' is dangerous, better use `mkstemp'",
    "/w/loslib.c:174: warning: the use of `tmpnam' is dangerous, better use `mkstemp'",
    "ld.lld: error: undefined hidden symbol: luaH_getn", ">>> referenced by lapi.c", ">>>               lapi.o:(x)",
    "ld.lld: error: too many errors emitted, stopping now (use -error-limit=0 to see all errors)",
    "clang -Wall -c b.c -o b.o", "x.c:1:2: note: expanded from macro 'M'", "cc1: note: unrecognized option",
    "  ╰─> [57 lines of output]", "      [end of output]", "  Running command Building wheel for x",
    "      x.c:3:5: error: y", "  error: subprocess-exited-with-error", "  ERROR: Failed building wheel for x",
    "warning: no previously-included files matching '*.pyc' found anywhere in distribution",
    '<command-line>: warning: "X" redefined', "<command-line>: note: this is the location of the previous definition",
    "cc1: sorry, unimplemented: ‘-mfentry’ isn’t supported", "x.c:1:1: sorry, unimplemented: SSE instructions",
    "x.c: Assembler messages:", "x.c:4: Error: no such instruction: `frobnicate'", "hand.s:5: Warning: careful",
    "lto-wrapper: warning: using serial compilation of 5 LTRANS jobs", "lto1: all warnings being treated as errors",
    "lto-wrapper: fatal error: gcc returned 1 exit status", "/usr/bin/ld: error: lto-wrapper failed",
    "make: *** [Makefile:6: x.o] Error 1", "In function ‘strcpy’,", "    inlined from ‘f’ at x.c:3:5,",
    "    inlined from ‘g’ at x.c:9:1:", "In member function ‘int A::f() const’,",
    "make[1]: *** [/tmp/cc1.mk:2: /tmp/cc2.ltrans0.ltrans.o] Error 1", "lto-wrapper: fatal error: make returned 2 exit status",
    "\x1b[01m\x1b[Kx.c:3:5:\x1b[m\x1b[K \x1b[01;31m\x1b[Kerror: \x1b[m\x1b[Ky",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(DEV_LINES), st.sampled_from(SHAPES), st.text(max_size=60)), max_size=50),
       st.sampled_from(["auto", "gcc", "clang", "clang_tidy", "linker"]))
def test_shapes_in_any_order_never_raise_and_stream_the_same_counts(lines: list[str], tool: str) -> None:
    text = "\n".join(lines)
    whole = parse_text(text, tool=tool, cwd="/w")
    assert whole.uncounted_errors >= 0 and whole.uncounted_warnings >= 0
    stream = iter_parse_text(text, tool=tool, cwd="/w")
    out = io.StringIO()
    write_jsonl(stream, out)
    summary = json.loads(out.getvalue().splitlines()[-1])["summary"]
    assert (summary["error_count"], summary["warning_count"]) == (whole.error_count, whole.warning_count)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LOGS), st.sampled_from(LOGS), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))
def test_interleaved_and_truncated_real_logs_never_raise(a: Path, b: Path, seed: int, cut: float) -> None:
    # two real logs merged as make -j merges them (whole lines, and now and then a line cut
    # and run into the other's), then cut at any byte
    rng = random.Random(seed)
    left, right = a.read_text(errors="replace").splitlines(), b.read_text(errors="replace").splitlines()
    merged: list[str] = []
    while left or right:
        source = left if (left and (not right or rng.random() < 0.5)) else right
        line = source.pop(0)
        if rng.random() < 0.05 and (left or right):
            other = left or right
            split = rng.randrange(len(line) + 1)
            merged.append(line[:split] + other.pop(0))
        else:
            merged.append(line)
    data = "\n".join(merged).encode()
    data = data[: int(len(data) * cut)]
    result = parse_text(data, cwd="/tmp/whetstone-dev")
    assert result.uncounted_errors >= 0 and result.uncounted_warnings >= 0
    assert result.warning_count >= sum(r.severity == "warning" for r in result.build_errors)


def test_messages_gcc_wrapped_under_message_length_read_whole() -> None:
    # gcc -fmessage-length=80: the message, its [-Wflag] (" [" then "   -Wsign-compare]") and the
    # function of "In function " + "   ‘name’:" each go on 3 spaces in on the next line
    label, result = _parse("gcc/shape_message_length")
    first = result.build_errors[0]
    assert first.message == "comparison of integer expressions of different signedness: ‘long long int’ and ‘long long unsigned int’"
    assert first.error_code == "-Wsign-compare"
    assert {r.function for r in result.build_errors} == {"a_function_with_a_rather_long_name_to_make_the_messages_wrap"}
    assert (result.reported_error_count, result.warning_count) == (label["error_count"], label["warning_count"])
