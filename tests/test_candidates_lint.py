"""Candidates for lint that -Werror turned into build errors, against the real gcc/g++ (12) and clang (14).

Each class is compiled for real; the top candidate is applied to a copy and the
copy recompiled: its diagnostic must be gone and nothing new may appear.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.candidates import generate
from pytest_whetstone.candidates.lint import generate_lint_candidates, lint_flag
from pytest_whetstone.candidates.tu_check import TuCheck, check_in_translation_unit
from pytest_whetstone.edits import apply_edits_text
from pytest_whetstone.parse import parse_text
from pytest_whetstone.records import BuildErrorRecord

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("g++") is None, reason="needs gcc")

C_SOURCE = """\
#include <stdio.h>

static int add(int a, int b, int unused_param) {
    int tmp = 3;
    return a + b;
}

static int helper(void) { return 1; }

int main(void) {
    unsigned n = 3;
    int i;
    for (i = 0; i < n; i++)
        printf("%d\\n", add(i, 1, 0));
    return 0;
}
"""

CPP_SOURCE = """\
#include <vector>

int count(const std::vector<int>& v, int unused) {
    int total = 0;
    int spare = v.size() > 2 ? 1 : 0;
    for (int i = 0; i < v.size(); ++i)
        total += v[i];
    return total;
}

int main() { return count({1, 2}, 0) == 3 ? 0 : 1; }
"""

FLAGS = ["-Wall", "-Wextra", "-Werror"]
_needs_clang = pytest.mark.skipif(shutil.which("clang") is None, reason="needs clang (14)")
NO_RECORDED_COMMAND = TuCheck()


def _compile(ws: Path, name: str, compiler: str, extra: list[str] | None = None) -> list[BuildErrorRecord]:
    # -c, not -fsyntax-only: gcc reports an unused function only when it compiles
    proc = subprocess.run([compiler, *FLAGS, *(extra or []), "-c", name, "-o", "/dev/null"], cwd=ws,
                          capture_output=True, text=True)
    tool = "clang" if compiler.startswith("clang") else "gcc"
    return [e for e in parse_text(proc.stderr, tool=tool).build_errors if e.is_failure]


def _no_gate(*_: object) -> TuCheck:
    return NO_RECORDED_COMMAND


def _recompiles_clean_of(ws: Path, name: str, compiler: str, record: BuildErrorRecord, edits: list, extra=None) -> bool:
    text = (ws / name).read_text()
    (ws / name).write_text(apply_edits_text(text, edits, name))
    try:
        after = _compile(ws, name, compiler, extra)
    finally:
        (ws / name).write_text(text)
    before = {(e.message, e.error_code) for e in _compile(ws, name, compiler, extra)}
    keys = {(e.message, e.error_code) for e in after}
    return (record.message, record.error_code) not in keys and keys <= before


@pytest.mark.parametrize(
    ("flag", "name", "compiler", "source", "extra"),
    [
        ("unused-variable", "t.c", "gcc", C_SOURCE, None),
        ("unused-parameter", "t.c", "gcc", C_SOURCE, None),
        ("unused-function", "t.c", "gcc", C_SOURCE, None),
        ("sign-compare", "t.c", "gcc", C_SOURCE, None),
        ("unused-variable", "t.cc", "g++", CPP_SOURCE, ["-std=c++17"]),
        ("unused-parameter", "t.cc", "g++", CPP_SOURCE, ["-std=c++17"]),
        ("sign-compare", "t.cc", "g++", CPP_SOURCE, ["-std=c++17"]),
        pytest.param("unused-parameter", "t.c", "clang", C_SOURCE, None, marks=_needs_clang),
        pytest.param("sign-compare", "t.c", "clang", C_SOURCE, None, marks=_needs_clang),
        pytest.param("unused-variable", "t.cc", "clang++", CPP_SOURCE, ["-std=c++17"], marks=_needs_clang),
    ],
)
def test_every_candidate_of_a_class_is_one_the_compiler_accepts(
    tmp_path: Path, flag: str, name: str, compiler: str, source: str, extra: list[str] | None
) -> None:
    (tmp_path / name).write_text(source)
    records = _compile(tmp_path, name, compiler, extra)
    record = next(r for r in records if lint_flag(r) == flag)
    assert record.is_lint and record.is_failure  # lint, and the compiler failed the build on it
    cands = generate_lint_candidates([record], tmp_path, gate=_no_gate)
    assert cands, flag
    accepted = [c for c in cands if _recompiles_clean_of(tmp_path, name, compiler, record, c.edits, extra)]
    assert cands[0] in accepted, [c.description for c in cands]
    assert all(c.mutation.get("file_hashes") for c in cands)


def test_lint_that_stays_a_warning_gets_no_candidate(tmp_path: Path) -> None:
    (tmp_path / "t.c").write_text(C_SOURCE)
    proc = subprocess.run(["gcc", "-Wall", "-Wextra", "-fsyntax-only", "t.c"], cwd=tmp_path, capture_output=True, text=True)
    records = parse_text(proc.stderr, tool="gcc").build_errors
    assert records and not any(r.is_failure for r in records)
    assert generate_lint_candidates(records, tmp_path) == []


def test_generate_offers_them_through_the_one_entry_point(tmp_path: Path) -> None:
    (tmp_path / "t.c").write_text(C_SOURCE)
    records = _compile(tmp_path, "t.c", "gcc")
    cands = generate(records, [], tmp_path)
    automatic = [c for c in cands if c.edits]
    assert {lint_flag(r) for r in records} == {str(c.mutation.get("lint")) for c in automatic}
    assert any(c.mutation_type == "manual" for c in cands)  # the manual fallback stays


def test_the_check_recompiles_with_the_recorded_command_on_a_scratch_copy(tmp_path: Path) -> None:
    """Through ccwrap the command is recorded; the check uses it and never touches the file."""
    if shutil.which("ccwrap") is None:
        pytest.skip("needs ccwrap on PATH")
    (tmp_path / ".git").mkdir()
    (tmp_path / "t.c").write_text(C_SOURCE)
    from pytest_whetstone.runner import run_command
    from pytest_whetstone.store.sessions import find_store

    store = find_store(tmp_path)
    run_command(f"ccwrap gcc {' '.join(FLAGS)} -c t.c -o t.o", cwd=tmp_path, store=store, shell=True,
                echo=False, emit_verdict=False)
    records = _compile(tmp_path, "t.c", "gcc")
    before = (tmp_path / "t.c").read_bytes()
    cands = generate_lint_candidates(records, tmp_path)
    assert (tmp_path / "t.c").read_bytes() == before
    assert cands and all(c.validated for c in cands), [c.description for c in cands]
    assert "recompiled with its build command" in cands[0].description
    # a candidate the compiler rejects is dropped: an edit that leaves the diagnostic in place
    unused = next(r for r in records if lint_flag(r) == "unused-variable")
    bogus = cands[0]
    bogus.edits = [e for e in bogus.edits]
    bogus.edits[0].new_text = "/* nothing */"
    bogus.edits[0].end = bogus.edits[0].start
    verdict = check_in_translation_unit(bogus, unused, records, tmp_path)
    assert verdict.ran and not verdict.passed and "remains" in verdict.detail
