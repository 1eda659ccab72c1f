"""Build-error classification (seed 000, step 1362) and lint-by-tag (seed 004)."""

from __future__ import annotations

import re

import pytest

from pytest_whetstone.classify import classify_build, is_lint
from pytest_whetstone.config import Config, Rule
from pytest_whetstone.parse import parse_text
from pytest_whetstone.records import BuildErrorRecord


def _one(text: str) -> BuildErrorRecord:
    records = parse_text(text).build_errors
    assert len(records) == 1, records
    return records[0]


def test_missing_include() -> None:
    assert _one("inc.c:2:10: fatal error: nothere.h: No such file or directory\n").error_type == "missing_include"
    assert _one("inc.c:2:10: fatal error: 'nothere.h' file not found\n").error_type == "missing_include"


def test_undefined_symbol() -> None:
    rec = _one("main.c:4:17: error: use of undeclared identifier 'count'\n")
    assert (rec.error_type, rec.symbol) == ("undefined_symbol", "count")


def test_undeclared_with_header_note_is_missing_include() -> None:
    text = (
        "nohdr.cpp:2:10: error: ‘vector’ is not a member of ‘std’\n"
        "nohdr.cpp:1:1: note: ‘std::vector’ is defined in header ‘<vector>’; did you forget to ‘#include <vector>’?\n"
    )
    assert _one(text).error_type == "missing_include"


def test_a_note_naming_only_the_header_is_enough() -> None:
    # the note's shape without its "did you forget" tail (gcc words it so for some symbols)
    text = (
        "m.cpp:3:24: error: ‘sqrt’ was not declared in this scope\n"
        "m.cpp:1:1: note: ‘std::sqrt’ is defined in header ‘<cmath>’\n"
    )
    assert _one(text).error_type == "missing_include"


def test_type_mismatch() -> None:
    rec = _one("types.c:8:10: error: initializing 'int *' with an expression of incompatible type 'double'\n")
    assert rec.error_type == "type_mismatch"
    assert _one("t.cpp:5:5: error: no matching function for call to 'log'\n").error_type == "type_mismatch"


def test_cmake_dependency() -> None:
    text = (
        "CMake Error at CMakeLists.txt:3 (find_package):\n"
        '  Could not find a package configuration file provided by "Frobnicator" with\n'
        "  any of the following names:\n\n    FrobnicatorConfig.cmake\n\n"
    )
    rec = _one(text)
    assert (rec.tool, rec.error_type, rec.symbol) == ("cmake", "missing_dependency", "Frobnicator")


def test_syntax_error() -> None:
    assert _one("syntax.c:2:18: error: expected ';' at end of declaration\n").error_type == "syntax_error"
    assert _one("Makefile:2: *** missing separator.  Stop.\n").error_type == "syntax_error"


def test_linker_undefined_reference_is_undefined_symbol() -> None:
    text = "/usr/bin/ld: /tmp/cc0nzkRy.o: in function `main':\nmain.c:(.text+0x16): undefined reference to `unused_api'\n"
    rec = _one(text)
    assert (rec.tool, rec.error_type, rec.symbol, rec.function) == ("linker", "undefined_symbol", "unused_api", "main")


def test_missing_library_is_missing_dependency() -> None:
    rec = _one("/usr/bin/ld: cannot find -lnotalib: No such file or directory\n")
    assert (rec.error_type, rec.symbol) == ("missing_dependency", "notalib")


def test_warning_not_misclassified() -> None:
    rec = _one("warn.c:6:9: warning: unused variable ‘unused_local’ [-Wunused-variable]\n")
    assert rec.severity == "warning"
    assert rec.error_type == "unknown"
    assert rec.is_lint and not rec.is_failure


def test_unknown_catch_all() -> None:
    rec = BuildErrorRecord(message="something odd happened")
    assert classify_build(rec).error_type == "unknown"


def test_deterministic() -> None:
    text = "a.c:1:1: error: expected ‘;’ before ‘}’ token\nb.c:2:2: error: ‘x’ undeclared (first use in this function)\n"
    first = [r.to_json() for r in parse_text(text).build_errors]
    for _ in range(3):
        assert [r.to_json() for r in parse_text(text).build_errors] == first


def test_classified_record_json_round_trip() -> None:
    rec = _one("main.c:4:17: error: use of undeclared identifier 'count'\n")
    again = BuildErrorRecord.from_json(rec.to_json())
    assert again == rec and again.error_type == "undefined_symbol"


def test_lint_flags_by_tag_not_severity() -> None:
    warn = _one("w.c:6:9: warning: unused variable ‘u’ [-Wunused-variable]\n")
    err = _one("w.c:6:9: error: unused variable ‘u’ [-Werror=unused-variable]\n")
    clang_err = _one("w.c:6:9: error: unused variable 'u' [-Werror,-Wunused-variable]\n")
    for rec in (warn, err, clang_err):
        assert rec.is_lint
    # lint stays a warning unless the compiler itself made it an error: then the build failed on it
    assert not warn.is_failure and err.is_failure and clang_err.is_failure
    real = _one("w.c:9:9: error: ‘x’ undeclared (first use in this function)\n")
    assert not real.is_lint and real.is_failure
    # -Werror alone, or a non-lint -Werror= flag, is not lint.
    assert not is_lint(BuildErrorRecord(severity="error", error_code="-Werror=implicit-function-declaration"))
    assert not is_lint(BuildErrorRecord(severity="error", error_code="-Werror"))


def test_parse_result_counts_exclude_lint_warnings() -> None:
    text = (
        "w.c:6:9: error: unused variable ‘u’ [-Werror=unused-variable]\n"
        "w.c:7:1: error: ‘y’ undeclared (first use in this function)\n"
    )
    result = parse_text(text)
    assert result.error_count == 2  # -Werror made the unused variable fail the build too
    assert parse_text("w.c:6:9: warning: unused variable ‘u’ [-Wunused-variable]\n").error_count == 0


def test_user_rule_wins() -> None:
    cfg = Config(rules=[Rule(pattern=re.compile("frobnicate"), error_type="resource_limit")])
    rec = BuildErrorRecord(message="cannot frobnicate: expected ';'")
    assert classify_build(rec, cfg).error_type == "resource_limit"


def test_cmake_deprecation_warnings_are_lint_dev_warnings_are_not() -> None:
    text = (
        "CMake Warning (dev) at CMakeLists.txt:4 (message):\n  fix the build before release\n"
        "This warning is for project developers.  Use -Wno-dev to suppress it.\n\n"
        "CMake Deprecation Warning at CMakeLists.txt:5 (message):\n  old_option is deprecated\n\n"
    )
    records = parse_text(text).build_errors
    assert [(r.error_code, r.is_lint) for r in records] == [("-Wdev", False), ("-Wdeprecated", True)]


STYLE_PROGRAM = """\
#include <stdlib.h>
int _Reserved(int);
static void take_short(short s) { (void)s; }
static float half(void) { return 0.5f; }
enum color { RED, GREEN };
static int pick(enum color c) {
    switch (c) { case RED: return 1; case GREEN: return 2; default: return 0; }
}
int main(int argc, char **argv) {
    (void)argv;
    take_short(3);
    int late = argc;
    return (int)half() + pick(RED) + late;
}
"""


def _compiler_output(tmp_path, argv: list[str]) -> str:
    import shutil

    from cfamily_support import compile_output

    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    (tmp_path / "style.c").write_text(STYLE_PROGRAM)
    return compile_output(tmp_path, [*argv, "-c", "style.c", "-o", "style.o"])[1]


def test_style_warnings_of_real_compilers_follow_the_one_lint_list(tmp_path) -> None:
    # gcc's traditional-C conversion warning, clang -Weverything's reserved-name and C89
    # declaration-order warnings are on the list (lint, not failures); a bad function cast
    # and a default label in a covered switch may hide a defect: not lint.
    gcc = _compiler_output(tmp_path, ["gcc", "-std=c99", "-Wtraditional-conversion", "-Wbad-function-cast"])
    clang = _compiler_output(tmp_path, ["clang", "-std=c99", "-Weverything"])
    records = [r for r in parse_text(gcc + clang).build_errors if r.severity == "warning"]
    codes = {r.error_code: r.is_lint for r in records}
    for code in ("-Wtraditional-conversion", "-Wreserved-identifier", "-Wdeclaration-after-statement"):
        assert codes.get(code) is True, (code, codes)
    for code in ("-Wbad-function-cast", "-Wcovered-switch-default"):
        assert codes.get(code) is False, (code, codes)


@pytest.mark.parametrize(("code", "lint"), [
    ("-Wunused-but-set-variable", True), ("-Werror=unused-variable", True), ("-Werror,-Wsign-compare", True),
    ("-Wimplicit-int-conversion", True), ("-Wint-conversion", True), ("-Wformat=", False),
    ("-Wformat-nonliteral", False), ("-Wmissing-field-initializers", False), ("-Wanalyzer-malloc-leak", False),
    ("-Wcpp", False), ("-W#warnings", False), ("-Wunknown-warning-option", False), ("-Wpadded", True),
    ("-Wimplicit-fallthrough=", True), ("-Wvla", True), ("-Wundef", True), ("readability-magic-numbers", True),
    ("bugprone-narrowing-conversions", True), ("bugprone-easily-swappable-parameters", False),
    ("misc-unused-parameters", True), ("TS6133", False), ("", False),
])
def test_lint_is_the_flag_on_the_one_list(code: str, lint: bool) -> None:
    for severity in ("warning", "error"):  # by tag, never by severity or wording
        record = BuildErrorRecord(severity=severity, error_code=code, message="unused variable 'x' is deprecated")
        assert is_lint(record) is lint, (code, severity)
        assert classify_build(record).is_lint is lint


def test_lint_the_tool_made_an_error_fails_the_build() -> None:
    # -Werror=, -Werror,-W, -pedantic-errors, a permissive error (gcc 14's -Wint-conversion),
    # clang-tidy's -warnings-as-errors: the build failed on them
    for code in ("-Werror=unused-variable", "-Werror,-Wshadow", "-Wpedantic", "-Wint-conversion",
                 "readability-magic-numbers,-warnings-as-errors"):
        record = classify_build(BuildErrorRecord(severity="error", error_code=code))
        assert record.is_lint and record.is_failure, code
    # lint a configuration rule declared, with no flag of the tool's own, does not
    assert not BuildErrorRecord(severity="error", is_lint=True).is_failure
