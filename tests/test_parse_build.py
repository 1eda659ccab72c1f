"""Build-output parsers: seed 000 step 1360 floor tests plus the behaviours the
real logs need (paths, summaries, fix-its, gcc-vs-clang, the unknown catch-all).
Snippets are cut from the real captured logs in tests/fixtures/build/."""

from __future__ import annotations

from pathlib import Path

from pytest_whetstone.parse import parse_lines, parse_text
from pytest_whetstone.parse.gcc_text import find_symbol, split_flag, unescape_fixit
from pytest_whetstone.parse.unknown import looks_like_error
from pytest_whetstone.records import INCLUDED_FROM, Note

GCC_ERR = (
    "main.c: In function ‘main’:\n"
    "main.c:4:17: error: ‘count’ undeclared (first use in this function)\n"
    "    4 |     int total = count + 1;\n"
    "      |                 ^~~~~\n"
    "main.c:4:17: note: each undeclared identifier is reported only once for each function it appears in\n"
)
CLANG_ERR = (
    "main.c:4:17: error: use of undeclared identifier 'count'\n"
    "    int total = count + 1;\n"
    "                ^\n"
    "1 error generated.\n"
)


# ----------------------------------------------------------------- seed 000 floor


def test_gcc_error_parsed() -> None:
    [rec] = parse_text(GCC_ERR).build_errors
    assert (rec.tool, rec.severity, rec.file_path, rec.line, rec.col) == ("gcc", "error", "main.c", 4, 17)
    assert rec.message == "‘count’ undeclared (first use in this function)"
    assert rec.function == "main" and rec.symbol == "count" and rec.translation_unit == "main.c"
    assert rec.context_lines == ["    4 |     int total = count + 1;", "      |                 ^~~~~"]


def test_clang_error_parsed() -> None:
    [rec] = parse_text(CLANG_ERR).build_errors
    assert (rec.tool, rec.severity, rec.line, rec.col) == ("clang", "error", 4, 17)
    assert rec.message == "use of undeclared identifier 'count'"
    assert rec.context_lines == ["    int total = count + 1;", "                ^"]


def test_cmake_error_parsed() -> None:
    text = 'CMake Error at CMakeLists.txt:3 (add_frobnicated_target):\n  Unknown CMake command "add_frobnicated_target".\n\n\n'
    [rec] = parse_text(text).build_errors
    assert (rec.tool, rec.file_path, rec.line) == ("cmake", "CMakeLists.txt", 3)
    assert rec.message == 'Unknown CMake command "add_frobnicated_target".'
    assert rec.function == "add_frobnicated_target"


def test_linker_error_parsed() -> None:
    text = "ld.lld: error: undefined symbol: helper\n>>> referenced by main.c:5 (/w/main.c:5)\n>>>               /tmp/x.o:(main)\n"
    [rec] = parse_text(text, cwd="/w").build_errors
    assert (rec.tool, rec.file_path, rec.line, rec.symbol, rec.function) == ("linker", "main.c", 5, "helper", "main")


def test_warning_severity() -> None:
    [rec] = parse_text("warn.c:3:12: warning: unused function 'helper' [-Wunused-function]\n").build_errors
    assert rec.severity == "warning" and rec.error_code == "-Wunused-function"
    assert rec.message == "unused function 'helper'"


def test_standalone_note_severity() -> None:
    [rec] = parse_text("types.c:5:26: note: passing argument to parameter 'v' here\n").build_errors
    assert rec.severity == "note" and not rec.is_failure


def test_multi_line_grouped() -> None:
    text = (FIXTURES / "gcc" / "macro.log").read_text()
    records = parse_text(text).build_errors
    assert len(records) == 2  # notes, echoes and carets belong to their error
    assert [str(n) for n in records[1].notes] == [
        "macro.c:2:17: note: in definition of macro ‘CALL’",
        "macro.c:4:12: note: declared here",
    ]


def test_empty_input() -> None:
    assert parse_text("").build_errors == []
    assert parse_text(b"").build_errors == []
    assert parse_text("\n\n   \n").build_errors == []


def test_malformed_line_is_unknown() -> None:
    [rec] = parse_text("deploy step: error: upload rejected by server\n").build_errors
    assert rec.tool == "unknown" and rec.severity == "error"
    assert rec.message == "deploy step: error: upload rejected by server"


def test_deterministic_order() -> None:
    text = (FIXTURES / "make" / "parallel_j2.log").read_text()
    runs = [[r.to_json() for r in parse_text(text).build_errors] for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]
    lines = [r.line for r in parse_text(text).build_errors if r.file_path == "m2.c"]
    assert lines == [3, 4, 5, 5]  # the order the compiler printed


# ----------------------------------------------------------------- gcc / clang

FIXTURES = Path(__file__).parent / "fixtures" / "build"


def test_include_chain_gives_translation_unit() -> None:
    gcc = parse_text((FIXTURES / "gcc" / "include_chain.log").read_text()).build_errors[0]
    clang = parse_text((FIXTURES / "clang" / "include_chain.log").read_text()).build_errors[0]
    assert (gcc.file_path, gcc.translation_unit) == ("inner.h", "chain.c")
    assert (clang.file_path, clang.translation_unit) == ("inner.h", "chain.c")
    # Each level of the include chain is a note pointing at its #include line.
    assert [(n.file_path, n.line, n.message) for n in gcc.notes[:2]] == [
        ("outer.h", 1, INCLUDED_FROM), ("chain.c", 1, INCLUDED_FROM)]


def test_template_instantiation_context_attached() -> None:
    recs = parse_text((FIXTURES / "gcc" / "cxx_template.log").read_text()).build_errors
    assert recs[1].notes[1] == Note("note", "tmpl.cpp", 16, 23, "required from here")
    clang = parse_text((FIXTURES / "clang" / "cxx_template.log").read_text()).build_errors
    assert "in instantiation of function template specialization" in clang[1].notes[0].message


def test_fixits_become_text_edits() -> None:
    recs = parse_text((FIXTURES / "clang" / "fixits.log").read_text()).build_errors
    edit = recs[1].fixits[0]
    assert (edit.file_path, edit.start.line, edit.start.col, edit.end.col, edit.new_text) == (
        "fixit.c", 7, 14, 20, "verbose")
    gcc = parse_text((FIXTURES / "gcc" / "cxx_missing_header.log").read_text()).build_errors
    assert gcc[0].fixits[0].new_text == "#include <vector>\n"


def test_fixit_byte_columns_become_characters(tmp_path: Path) -> None:
    src = tmp_path / "u.c"
    src.write_text('const char *s = "é"; int x = y;\n', encoding="utf-8")
    # "y" is at byte column 31 (é is two bytes) but character column 30.
    text = 'u.c:1:31: error: ‘y’ undeclared here (not in a function)\nfix-it:"u.c":{1:31-1:32}:"z"\n'
    [rec] = parse_text(text, cwd=str(tmp_path)).build_errors
    assert (rec.fixits[0].start.col, rec.fixits[0].end.col) == (30, 31)


def test_unescape_fixit() -> None:
    assert unescape_fixit(r"#include <vector>\n") == "#include <vector>\n"
    assert unescape_fixit(r"say \"hi\"\\") == 'say "hi"\\'
    assert unescape_fixit(r"caf\303\251") == "café"


def test_split_flag_and_symbols() -> None:
    assert split_flag("unused variable 'u' [-Werror,-Wunused-variable]") == ("unused variable 'u'", "-Werror,-Wunused-variable")
    assert split_flag("invalid types ‘int[int]’ for array subscript") == ("invalid types ‘int[int]’ for array subscript", "")
    assert find_symbol("‘strin’ is not a member of ‘std’; did you mean ‘string’?") == "std::strin"
    assert find_symbol("implicit declaration of function ‘printf’") == "printf"


def test_tool_hint_breaks_gcc_clang_ties() -> None:
    text = "x.c:1:1: error: expected expression\n"  # nothing says who printed it
    assert parse_text(text).build_errors[0].tool == "gcc"
    assert parse_text(text, tool="clang").build_errors[0].tool == "clang"
    # Evidence beats the hint: clang's summary line settles it.
    assert parse_text(text + "1 error generated.\n", tool="gcc").build_errors[0].tool == "clang"


def test_driver_errors() -> None:
    recs = parse_text((FIXTURES / "gcc" / "driver_errors.log").read_text()).build_errors
    assert [(r.tool, r.message) for r in recs][0] == ("gcc", "nothere.c: No such file or directory")
    assert recs[0].error_type == "missing_dependency"


# ----------------------------------------------------------------- summaries


def test_link_summary_is_not_a_second_record() -> None:
    recs = parse_text((FIXTURES / "ld" / "undefined_ref.log").read_text()).build_errors
    assert len(recs) == 1 and recs[0].tool == "linker"


def test_link_summary_alone_still_reports_the_failure() -> None:
    [rec] = parse_text("collect2: error: ld returned 1 exit status\n").build_errors
    assert rec.tool == "linker" and rec.is_failure


def test_make_recipe_summary_only_when_unexplained() -> None:
    assert parse_text((FIXTURES / "make" / "compile_error.log").read_text()).error_count == 1
    [rec] = parse_text((FIXTURES / "make" / "silent_recipe.log").read_text()).build_errors
    assert (rec.tool, rec.file_path, rec.line) == ("make", "Makefile", 5)
    assert rec.message == "recipe for target 'check' failed: Error 1"


def test_cmake_summary_lines_are_not_records() -> None:
    recs = parse_text((FIXTURES / "cmake" / "unknown_command.log").read_text()).build_errors
    assert len(recs) == 1


# ----------------------------------------------------------------- make paths


def test_entering_directory_resolves_paths() -> None:
    text = (FIXTURES / "make" / "recursive.log").read_text()
    recs = parse_text(text, cwd="/tmp/whetstone-fixtures/make_recursive").build_errors
    assert {r.file_path for r in recs} == {"lib/util.c"}
    no_cwd = parse_text(text).build_errors  # no workspace: absolute from make's directory
    assert no_cwd[0].file_path == "/tmp/whetstone-fixtures/make_recursive/lib/util.c"
    assert parse_text(GCC_ERR).build_errors[0].file_path == "main.c"  # nothing known: as printed


def test_workspace_relative_absolute_paths() -> None:
    text = "/w/src/a.c:1:2: error: expected ‘;’ before ‘}’ token\n/other/b.c:1:2: error: expected ‘;’ before ‘}’ token\n"
    recs = parse_text(text, cwd="/w").build_errors
    assert [r.file_path for r in recs] == ["src/a.c", "/other/b.c"]


def test_no_rule_and_no_makefile() -> None:
    [rec] = parse_text((FIXTURES / "make" / "no_rule.log").read_text()).build_errors
    assert (rec.error_type, rec.symbol) == ("missing_dependency", "missing.o")


def test_ninja_summaries() -> None:
    text = (
        "[1/2] Building C object CMakeFiles/app.dir/util.c.o\n"
        "FAILED: CMakeFiles/app.dir/util.c.o \n"
        "/usr/bin/cc -c /w/util.c -o CMakeFiles/app.dir/util.c.o\n"
        "/w/util.c:2:16: error: ‘y’ undeclared (first use in this function)\n"
        "ninja: build stopped: subcommand failed.\n"
    )
    recs = parse_text(text, cwd="/w").build_errors
    assert [(r.tool, r.file_path) for r in recs] == [("gcc", "util.c")]
    [alone] = parse_text("ninja: build stopped: subcommand failed.\n").build_errors
    assert alone.tool == "make"


# ----------------------------------------------------------------- unknown


def test_unknown_keeps_precision() -> None:
    assert not looks_like_error("gcc -Wall -Werror -c error.c -o error.o")
    assert not looks_like_error("cc -Werror=unused-variable -c main.c")
    assert not looks_like_error("Build finished: 0 errors, 2 warnings")
    assert not looks_like_error("errors: 0")
    assert not looks_like_error("compiling src/error_handling.c")
    assert not looks_like_error("#define ERROR_CODE 3")
    assert looks_like_error("fatal: not a git repository (or any of the parent directories): .git")
    assert looks_like_error("[ERROR] Failed to execute goal")
    assert looks_like_error("BUILD FAILED")
    assert looks_like_error("Error: Cannot find module 'left-pad'")


def test_unknown_record_keeps_location() -> None:
    [rec] = parse_text("gen.py:12:ERROR: template variable missing\n").build_errors
    assert (rec.tool, rec.file_path, rec.line) == ("unknown", "gen.py", 12)
    # gcc's column-less shape stays the compiler's.
    [gcc] = parse_text("script.c:12: error: bad thing\n").build_errors
    assert (gcc.tool, gcc.file_path, gcc.line, gcc.col) == ("gcc", "script.c", 12, 0)


def test_command_lines_claimed_not_reported() -> None:
    text = "gcc -Wall -Werror -c error.c -o error.o\ncc -o app main.o error.o\n"
    assert parse_text(text).build_errors == []


def test_parse_lines_streams_an_iterator() -> None:
    def gen():  # a generator: nothing is materialised up front
        yield from GCC_ERR.splitlines()

    assert len(parse_lines(gen()).build_errors) == 1


def test_tool_filter_gcc_only() -> None:
    text = GCC_ERR + "CMake Error at CMakeLists.txt:3 (project):\n  broken\n"
    recs = parse_text(text, tool="gcc").build_errors
    assert recs[0].tool == "gcc"
    assert all(r.tool != "cmake" for r in recs)


def test_clang_echo_at_column_one_and_note_echo_kept_apart() -> None:
    # clang's caret under column 1 is not indented ("^"), nor is the fix-it under it: the
    # note after them still belongs to the warning, and a note's echo is the note's own
    # (raw), not the warning's context.
    (rec,) = parse_text((FIXTURES / "clang" / "column_one.log").read_text()).build_errors
    assert (rec.severity, rec.line, rec.error_code) == ("warning", 2, "-Wmissing-prototypes")
    assert rec.context_lines == ["helper(int x)", "^"]
    assert len(rec.notes) == 1 and "declare 'static'" in rec.notes[0].message
    assert rec.raw.splitlines()[-3:] == ["int", "^", "static "]
    fixits = parse_text((FIXTURES / "clang" / "fixits.log").read_text()).build_errors
    member = next(r for r in fixits if "verbos" in r.message)
    assert member.context_lines == ["    return c.verbos + n;", "             ^~~~~~", "             verbose"]
    assert "struct config { int verbose; int level; };" in member.raw  # the note's echo
