"""clang-tidy, tsc, gcc's JSON diagnostics, unittest and node's spec reporter: real runs where the
tool is here, the captured fixtures otherwise (see tests/fixtures/build/capture_more.sh,
tests/fixtures/tests/capture.sh)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_whetstone.parse import parse_text

FIXTURES = Path(__file__).parent / "fixtures"
BUILD_SRC = FIXTURES / "build" / "src_more"
ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}


def _run(argv: list[str], cwd: Path) -> str:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120, env=ENV)
    return proc.stdout + proc.stderr


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed")
def test_gcc_json_gives_what_the_text_form_gives(tmp_path: Path) -> None:
    shutil.copy(BUILD_SRC / "json_diag.c", tmp_path)
    argv = ["gcc", "-c", "-o", "/dev/null", "-Wall", "json_diag.c"]
    text = parse_text(_run(argv, tmp_path), cwd=str(tmp_path))
    as_json = parse_text(_run([*argv, "-fdiagnostics-format=json"], tmp_path), cwd=str(tmp_path))
    def shape(result):  # noqa: ANN001, ANN202
        return [(r.severity, r.file_path, r.line, r.col, r.message, r.error_code, [str(n) for n in r.notes])
                for r in result.build_errors]
    assert shape(as_json) == shape(text) and len(as_json.build_errors) == 3
    assert as_json.build_errors[0].notes[0].message == "declared here"


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=4000), st.binary(max_size=200))
def test_gcc_json_cut_or_junk_never_raises(cut: int, junk: bytes) -> None:
    doc = (FIXTURES / "build" / "gcc_json" / "errors.log").read_bytes()
    whole = parse_text(doc).build_errors
    part = parse_text(doc[:cut]).build_errors
    assert len(part) <= len(whole)
    parse_text(doc[:cut] + junk)


@pytest.mark.skipif(shutil.which("clang-tidy") is None, reason="clang-tidy is needed (Debian clang-tidy)")
def test_clang_tidy_checks_are_codes_and_style_checks_lint(tmp_path: Path) -> None:
    shutil.copy(BUILD_SRC / "tidy.c", tmp_path)
    out = _run(["clang-tidy", "-checks=-*,readability-*,cert-*", "tidy.c", "--"], tmp_path)
    result = parse_text(out, cwd=str(tmp_path))
    shown = re.findall(r"^\S+tidy\.c:\d+:\d+: warning: .* \[([\w.-]+)\]$", out, re.M)
    assert [r.error_code for r in result.build_errors] == shown and shown
    assert {r.tool for r in result.build_errors} == {"clang_tidy"}
    for r in result.build_errors:
        assert r.is_lint == r.error_code.startswith("readability-"), r.error_code
        assert r.file_path == "tidy.c"
    assert result.warning_count == len(shown)


def test_clang_tidy_error_counted_once() -> None:
    result = parse_text((FIXTURES / "build" / "clang_tidy" / "missing_include.log").read_bytes())
    assert result.reported_error_count == 1  # "1 error generated." comes before the diagnostic it counts
    [r] = result.build_errors
    assert (r.tool, r.error_code, r.error_type) == ("clang_tidy", "clang-diagnostic-error", "missing_include")


def test_tsc_plain_and_pretty_agree() -> None:
    def shape(name: str) -> list[tuple]:
        result = parse_text((FIXTURES / "build" / "tsc" / name).read_bytes())
        return [(r.tool, r.file_path, r.line, r.col, r.error_code, r.message) for r in result.build_errors]
    assert shape("plain.log") == shape("pretty.log")
    assert [s[4] for s in shape("plain.log")] == ["TS2339", "TS2322", "TS7006", "TS2551"]
    pretty = parse_text((FIXTURES / "build" / "tsc" / "pretty.log").read_bytes()).build_errors[-1]
    assert pretty.notes[0].line == 508 and pretty.notes[0].message == "'toUpperCase' is declared here."


def test_python_unittest_live(tmp_path: Path) -> None:
    for f in (FIXTURES / "tests" / "src" / "unittest").iterdir():
        shutil.copy(f, tmp_path)
    proc = subprocess.run([sys.executable, "-m", "unittest", "test_inventory"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    result = parse_text(proc.stderr)
    assert re.search(r"FAILED \(failures=4, errors=1, skipped=1, expected failures=1\)", proc.stderr)
    assert (result.fail_count, result.test_error_count, result.skip_count, result.xfail_count, result.pass_count) \
        == (4, 1, 1, 1, 1)
    by_name = {r.test_name: r for r in result.test_failures}
    assert (by_name["test_restock_counts"].expected_value, by_name["test_restock_counts"].actual_value) == ("3", "2")
    assert by_name["test_take_missing"].failure_type == "exception"
    assert by_name["test_take_missing"].impl_file == str(tmp_path / "inventory.py")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is needed")
def test_node_spec_reporter_live(tmp_path: Path) -> None:
    for f in (FIXTURES / "tests" / "src" / "spec").glob("slug*.js"):
        shutil.copy(f, tmp_path)
    out = _run(["node", "--test", "--test-reporter=spec", "slug.node.test.js"], tmp_path)
    said = re.search(r"^ℹ fail (\d+)$", out, re.M)
    assert said
    result = parse_text(out)
    assert result.fail_count == len(result.test_failures) == int(said.group(1))
    assert {r.test_suite for r in result.test_failures} == {"slug.node.test.js"}
    collapse = next(r for r in result.test_failures if r.test_name == "slugify > collapse > collapses runs")
    assert (collapse.expected_value, collapse.actual_value, collapse.line) == ("'a-b-c'", "'a-b---c'", 9)


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("make") is None, reason="gcc and make are needed")
def test_gcc_json_lines_inside_a_make_log_give_what_the_text_gives(tmp_path: Path) -> None:
    """make echoes each compile, then gcc's JSON array line: read as structure there too."""
    src = FIXTURES / "build" / "sarif" / "src"
    for name in ("undeclared.c", "warnings.c", "fixit.c"):
        shutil.copy(src / name, tmp_path)
    (tmp_path / "Makefile").write_text("all: undeclared.o warnings.o fixit.o\n")
    def build(flags: str) -> str:
        for obj in tmp_path.glob("*.o"):
            obj.unlink()
        return _run(["make", "-k", f"CFLAGS={flags}"], tmp_path)
    as_json = build("-Wall -Wextra -fdiagnostics-format=json")
    assert '\n[{"kind": ' in as_json
    def shape(text: str) -> list[tuple]:
        return [(r.severity, r.file_path, r.line, r.col, r.message, r.error_code, [str(n) for n in r.notes])
                for r in parse_text(text, cwd=str(tmp_path)).build_errors]
    assert shape(as_json) == shape(build("-Wall -Wextra")) and len(shape(as_json)) == 11
    counted = parse_text(as_json, cwd=str(tmp_path))
    assert (counted.reported_error_count, counted.warning_count) == (4, 7)  # make's Error 1 lines add nothing
