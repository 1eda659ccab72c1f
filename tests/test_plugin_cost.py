"""What a failing `pytest -p whetstone` run pays for: no build tooling, no full tracebacks for its own
re-runs, no coverage.py for a few small tests, the default candidates shared and bounded."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from _pytest.runner import runtestprotocol

from pytest_whetstone.candidates.python_tests import generate_test_candidates
from pytest_whetstone.locate.budget import CANDIDATES_MIN_S, CANDIDATES_SHARE, candidates_budget
from pytest_whetstone.locate.pycoverage import LINE_TRACE_MAX_S, CoverageContexts
from pytest_whetstone.locate.pyreports import brief_failures, crash_message
from pytest_whetstone.records import TestFailureRecord
from pytest_whetstone.store.sessions import load_session

IMPL = """\
def total(xs):
    out = 0
    for x in xs:
        out += x
    return out + 1


def shout(s):
    return s.upper() + "!"


def first(xs):
    return xs[0] if lenn(xs) else None
"""

TESTS = """\
from pkg.impl import first, shout, total


def test_total():
    assert total([1, 2]) == 3


def test_shout():
    assert shout("a") == "A!"


def test_first():
    assert first([1]) == 1


def test_first_again():
    assert first([2]) == 2
"""

# Written at the very end of the run (after the plugin wrote its session): which modules were loaded.
CONFTEST = """\
import sys


def pytest_unconfigure(config):
    with open("modules.txt", "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
"""

BUILD_TOOLING = ("pytest_whetstone.parse", "pytest_whetstone.candidates.native_tests",
                 "pytest_whetstone.candidates.build", "pytest_whetstone.locate.cfamily",
                 "pytest_whetstone.locate.jsfamily", "pytest_whetstone.classify", "libcst", "tree_sitter")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("WHETSTONE_DIR", "WHETSTONE_SESSION", "WHETSTONE_NESTED", "WHETSTONE_PYTEST", "PYTEST_ADDOPTS")}
    env["WHETSTONE_MUTANT_PASS_S"] = "0"  # forks of its own would not change what the parent loaded
    return env


def _project(root: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "impl.py").write_text(IMPL)
    (root / "tests").mkdir()
    (root / "tests" / "test_impl.py").write_text(TESTS)
    (root / "conftest.py").write_text(CONFTEST)
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")


def test_a_failing_run_loads_no_build_tooling_and_no_coverage_for_small_tests(tmp_path: Path) -> None:
    _project(tmp_path)
    # pytest-cov, where installed, imports coverage.py itself: kept out so that only our own use counts
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:cov", "-p", "whetstone",
                           "--whetstone-search=0", "tests"], cwd=tmp_path, env=_env(), capture_output=True,
                          text=True, timeout=120)
    assert "3 failed, 1 passed" in proc.stdout, proc.stdout + proc.stderr
    loaded = set((tmp_path / "modules.txt").read_text().split())
    assert "pytest_whetstone.plugin.collector" in loaded  # the plugin did run
    assert not [m for m in loaded if m.startswith(BUILD_TOOLING)]
    assert "coverage" not in loaded  # three tiny re-runs: the line tracer measured them
    failures = {f.test_name: f for f in load_session(tmp_path / ".whetstone").state().test_failures}
    # the re-run's lines still rank the callee of a value fault, and the hints still name the fix
    assert failures["test_total"].suspects[0].qualname == "total"
    assert not failures["test_total"].flaky
    events = [e["data"] for e in load_session(tmp_path / ".whetstone").events() if e["event"] == "candidates"]
    renames = [c for c in events[-1]["records"] if c["mutation_type"] == "rename"]
    assert {c["target_id"] for c in renames} == {failures["test_first"].failure_id,
                                                 failures["test_first_again"].failure_id}
    assert len({c["candidate_id"] for c in renames}) == 2  # shared work, each failure its own candidate
    assert len({str(c["edits"]) for c in renames}) == 1


def test_importing_the_plugin_loads_no_parser() -> None:
    code = ("import sys, pytest_whetstone.plugin, pytest_whetstone.plugin.collector; "
            "print('\\n'.join(m for m in sys.modules if m.startswith('pytest_whetstone')))")
    proc = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert not [m for m in proc.stdout.split() if m.startswith(BUILD_TOOLING)]


def test_brief_failures_keep_the_outcome_and_the_crash_line(pytester: pytest.Pytester) -> None:
    item = pytester.getitem(textwrap.dedent("""
        def helper(x):
            raise ValueError(f"bad value {x!r}")

        def test_func():
            assert helper(3) == 4
    """))
    full = runtestprotocol(item, log=False)
    with brief_failures(item):
        brief = runtestprotocol(item, log=False)
    assert [r.outcome for r in brief] == [r.outcome for r in full]
    assert crash_message(brief) == crash_message(full) == "ValueError: bad value 3"
    assert "repr_failure" not in vars(item)  # the item is itself again


def test_the_line_tracer_records_what_coverage_records(tmp_path: Path) -> None:
    module = tmp_path / "subject.py"
    module.write_text(IMPL.replace("lenn", "len"))
    sys.path.insert(0, str(tmp_path))
    try:
        import subject  # noqa: PLC0415 - a module of the measured workspace
    finally:
        sys.path.remove(str(tmp_path))
    contexts = CoverageContexts(str(tmp_path))
    assert contexts.start_cost(0.001) == 0.0
    with contexts.measure("traced", 0.001) as method:
        subject.total([1, 2, 3])
    assert method == "trace"
    with contexts.measure("covered", LINE_TRACE_MAX_S * 2) as method:  # too long for the tracer
        subject.total([1, 2, 3])
    if method != "coverage":
        pytest.skip("another tracer is active: coverage.py cannot start here")
    traced, covered = contexts.lines_of("traced"), contexts.lines_of("covered")
    assert traced == covered == {str(module): {2, 3, 4, 5}}
    assert contexts.start_cost(0.001) == 0.0  # coverage.py is up: nothing more to start


def test_the_candidates_budget_and_its_knob(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WHETSTONE_CANDIDATES_S", raising=False)
    assert candidates_budget(0.5) == CANDIDATES_MIN_S
    assert candidates_budget(100.0) == pytest.approx(CANDIDATES_SHARE * 100.0)
    monkeypatch.setenv("WHETSTONE_CANDIDATES_S", "0")
    assert candidates_budget(100.0) == 0.0


def test_past_the_candidates_deadline_later_failures_get_their_fallback_alone(tmp_path: Path) -> None:
    (tmp_path / "impl.py").write_text(IMPL)

    def failure(name: str) -> TestFailureRecord:
        return TestFailureRecord(runner="pytest", test_name=name, node_id=f"test_impl.py::{name}",
                                 failure_type="exception", exception_type="NameError",
                                 message="NameError: name 'lenn' is not defined", impl_file="impl.py",
                                 impl_line=13).ensure_id()

    records = [failure("test_a"), failure("test_b")]
    both = generate_test_candidates(records, tmp_path)
    assert {c.target_id for c in both if c.edits} == {r.failure_id for r in records}
    late = generate_test_candidates(records, tmp_path, deadline=time.monotonic() - 1.0)
    assert {c.target_id for c in late if c.edits} == {records[0].failure_id}  # the first one always gets them
    assert {c.target_id for c in late if c.mutation_type == "manual"} == {r.failure_id for r in records}
