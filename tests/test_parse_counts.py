"""Counts say what the tools said: real gcc/clang/pytest runs against their own summary lines."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from cfamily_support import compile_output

from pytest_whetstone.parse import iter_parse_text, parse_text

FIXTURES = Path(__file__).parent / "fixtures"
SOURCE = "int main(void) {\n  int unused = 1;\n  int other = 2;\n  return 0;\n}\n"
MANY = "".join(f"int f{i}(void) {{ return undefined_{i}; }}\n" for i in range(6))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed")
def test_werror_warnings_count_as_errors_and_stay_lint(tmp_path: Path) -> None:
    (tmp_path / "w.c").write_text(SOURCE)
    code, out = compile_output(tmp_path, ["gcc", "-c", "-Wall", "-Werror", "w.c"])
    assert code != 0 and "cc1: all warnings being treated as errors" in out
    result = parse_text(out, cwd=str(tmp_path))
    printed = len(re.findall(r"^w\.c:\d+:\d+: error:", out, re.M))
    assert printed == 2
    assert result.reported_error_count == printed and result.warning_count == 0
    assert all(r.is_lint for r in result.build_errors)
    # the build failed on them: they fail the gate too (lint that stays a warning never does)
    assert result.error_count == printed and all(r.is_failure for r in result.build_errors)


@pytest.mark.skipif(shutil.which("clang") is None, reason="clang is needed")
def test_clang_error_limit_counts_as_clang_does(tmp_path: Path) -> None:
    (tmp_path / "m.c").write_text(MANY)
    code, out = compile_output(tmp_path, ["clang", "-c", "-std=c99", "-ferror-limit=3", "m.c"])
    said = re.search(r"^(\d+) errors? generated\.$", out, re.M)
    assert code != 0 and said and "too many errors emitted" in out
    result = parse_text(out, cwd=str(tmp_path))
    assert result.reported_error_count == int(said.group(1))  # clang counts the "too many" stop
    stream = iter_parse_text(out, cwd=str(tmp_path))
    list(stream)
    assert stream.summary()["reported_error_count"] == int(said.group(1))


def test_collect2_is_not_an_error_of_its_own() -> None:
    text = (FIXTURES / "build" / "ld" / "undefined_ref.log").read_text()
    assert "collect2: error: ld returned 1 exit status" in text
    result = parse_text(text)
    assert result.reported_error_count == len(re.findall(r"undefined reference", text))


@pytest.mark.parametrize(("log", "counts"), [
    ("default.log", dict(fail_count=15, pass_count=3, skip_count=1, xfail_count=1, test_error_count=0)),
    ("setup_errors.log", dict(fail_count=0, pass_count=2, test_error_count=3)),
    ("collect_continue.log", dict(fail_count=1, pass_count=1, test_error_count=1)),
    ("collect_error.log", dict(fail_count=0, test_error_count=1)),
])
def test_pytest_counts_match_its_summary_line(log: str, counts: dict[str, int]) -> None:
    text = (FIXTURES / "tests" / "pytest" / log).read_text()
    result = parse_text(text)
    assert {k: getattr(result, k) for k in counts} == counts
    assert len(result.test_failures) == result.fail_count + result.test_error_count


def test_pytest_xpassed_counted_apart(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="""
        import pytest
        @pytest.mark.xfail
        def test_xpass(): pass
        @pytest.mark.xfail
        def test_xfail(): assert 0
        def test_ok(): pass
        def test_bad(): assert 1 == 2
    """)
    out = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:whetstone")
    text = "\n".join(out.outlines)
    assert re.search(r"1 failed, 1 passed, 1 xfailed, 1 xpassed", text)
    result = parse_text(text)
    assert (result.fail_count, result.pass_count, result.xfail_count, result.xpass_count, result.skip_count) == \
        (1, 1, 1, 1, 0)


@pytest.mark.parametrize(("log", "errors", "warnings"), [
    ("mixed/setuptools_clang.log", 1, 3),  # clang: "3 warnings and 1 error generated."
    ("mixed/setuptools_gcc.log", 1, 4),
    ("mixed/setuptools_link.log", 4, 1),
])
def test_setuptools_command_failed_is_a_summary(log: str, errors: int, warnings: int) -> None:
    """"error: command '/usr/bin/gcc' failed with exit code 1" repeats the compiler's (or the
    linker's) failure, as collect2's line does: not an error of its own."""
    text = (FIXTURES / "build" / log).read_text()
    assert "error: command '/usr/bin/" in text
    result = parse_text(text)
    assert (result.reported_error_count, result.warning_count) == (errors, warnings)
    silent = text.split("\n", 1)[0] + "\nerror: command '/usr/bin/gcc' failed with exit code 1\n"
    [alone] = parse_text(silent).build_errors  # nothing explains it: a record, once
    assert (alone.tool, alone.severity) == ("gcc", "error")


def test_recursive_make_failure_counts_once() -> None:
    """make[1]: *** ... Error 1, "not remade because of errors", "Leaving directory", then the
    parent's make: *** [all] Error 2: one failure, already reported by the compiler's errors."""
    for log, said in (("make/recursive_clang.log", (8, 5)), ("make/recursive_j2.log", (9, 6))):
        text = (FIXTURES / "build" / log).read_text()
        assert "make: *** [Makefile:3: all] Error 2" in text and "not remade because of errors" in text
        result = parse_text(text)
        assert (result.reported_error_count, result.warning_count) == said
        assert not [r for r in result.build_errors if r.tool == "make"]


def test_bfd_object_warning_is_a_warning() -> None:
    result = parse_text((FIXTURES / "build" / "ld" / "relocation_warning.log").read_text())
    assert [(r.severity, r.message[:20]) for r in result.build_errors] == [
        ("warning", "relocation against `"), ("error", "undefined reference "), ("error", "undefined reference "),
        ("warning", "creating DT_TEXTREL ")]


# Sources whose diagnostics stress the tally: errors past -fmax-errors, C compiled as C++ (-fpermissive
# errors with their notes), C89 pedantic errors, the analyzer's warnings with their event paths.
TALLY_SOURCES = {
    "many.cpp": ("#include <string>\n#include <vector>\n"
                 "template <class T> struct S { void f() { T t; t.nope(); } };\n"
                 "int main() { S<int> s; s.f(); std::vector<int> v; v.push_back(\"x\"); std::string q = 3;\n"
                 "  int unused; undefined(); int a = b; c(); d(); return 0; }\n"),
    "c_as_cxx.c": ("#include <stdlib.h>\nstruct P { int a; int b; };\nstatic struct P p = { .b = 2, .a = 1 };\n"
                   "char narrow[] = { 300, 1 };\nint main(void) {\n  char *s = malloc(3);\n  int n = 1;\n"
                   "  if (n) goto out;\n  int k = 3;\nout:\n  free(s);\n  return k + p.a + narrow[0];\n}\n"),
    "c89.c": ("#include <stdint.h>\nint main(void) { long long a = 1LL; for (int i = 0; i < 3; i++) a += i;"
              " // comment\n  return (int)a; }\n"),
    "leak.c": ("#include <stdlib.h>\nint *f(void) { int x = 1; int *p = &x; return p; }\n"
               "void g(void) { char *p = malloc(3); if (p) p[0] = 1; }\nint main(void) { g(); return *f(); }\n"),
}
_PRINTED = re.compile(r"^(?:[^\s:][^:]*:\d+:\d+|(?:gcc|g\+\+|cc1|cc1plus|clang|clang\+\+)): "
                      r"(fatal error|error|warning): ", re.M)


@pytest.mark.parametrize("argv", [
    ["g++", "-c", "-fmax-errors=3", "many.cpp"],
    ["g++", "-c", "-Wfatal-errors", "many.cpp"],
    ["g++", "-x", "c++", "-c", "-Wall", "c_as_cxx.c"],
    ["gcc", "-c", "-std=c89", "-pedantic-errors", "c89.c"],
    ["gcc", "-c", "-std=c89", "-pedantic", "c89.c"],
    ["gcc", "-c", "-fanalyzer", "leak.c"],
    ["clang", "-c", "-std=c89", "-pedantic-errors", "c89.c"],
    ["clang++", "-c", "-ferror-limit=3", "many.cpp"],
], ids=lambda argv: " ".join(argv[1:-1]) + " " + argv[-1] + " (" + argv[0] + ")")
def test_a_compilers_counts_are_its_own_tally(tmp_path: Path, argv: list[str]) -> None:
    """One per printed error/warning (gcc prints no tally), or clang's ``N errors generated``."""
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is needed")
    for name, text in TALLY_SOURCES.items():
        (tmp_path / name).write_text(text)
    code, out = compile_output(tmp_path, [*argv[:-1], "-o", "/dev/null", argv[-1]])
    printed = [m.group(1) for m in _PRINTED.finditer(out)]
    said = re.search(r"^(\d+) errors? generated\.$", out, re.M)
    errors = int(said.group(1)) if said else sum(kind != "warning" for kind in printed)
    assert printed, out
    result = parse_text(out, cwd=str(tmp_path))
    assert (result.reported_error_count, result.warning_count) == (errors, printed.count("warning")), out
