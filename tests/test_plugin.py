"""The pytest plugin, driven through real pytest sessions (pytester)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# Imported here so pytester's sys.modules snapshot keeps them: coverage's C tracer must not be
# re-imported, and hypothesis' pytest plugin would otherwise re-import hypothesis (~5 s) per run.
import coverage  # noqa: F401
import hypothesis  # noqa: F401
import pytest

from pytest_whetstone.records import TestFailureRecord
from pytest_whetstone.store.fold import fold
from pytest_whetstone.store.sessions import load_session
from pytest_whetstone.verdict import BEGIN, END, parse_last

CALC = """
def helper(x):
    return x * 2 + 1


def double(x):
    return helper(x) - 1


def divide(a, b):
    return inner_div(a, b)


def inner_div(a, b):
    return a / b
"""

MIXED = """
import pytest
import unittest
from pkg.calc import double, divide


def test_double():
    assert double(2) == 5


def test_ok():
    assert double(1) == 2


def test_div():
    assert divide(1, 0) == 1


def test_ne():
    assert double(2) != 4


def test_lt():
    assert double(3) < 2


def test_in():
    assert 3 in [1, 2]


def test_literal_left():
    assert 5 == double(2)


def test_approx():
    assert double(0.15) == pytest.approx(0.4)


def test_raises():
    with pytest.raises(ValueError):
        double(3)


@pytest.mark.skip(reason="no")
def test_skipped():
    pass


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False


@pytest.mark.xfail(strict=True, reason="should fail")
def test_xpass_strict():
    pass


@pytest.mark.parametrize("v", ["a b", "x::y", "ü[1]", "-\\n-"])
def test_param(v):
    assert v == "z"


class TestU(unittest.TestCase):
    def test_eq(self):
        self.assertEqual(double(2), 7)


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def test_setup(broken):
    pass
"""


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WHETSTONE_DIR", "WHETSTONE_SESSION", "WHETSTONE_NESTED", "WHETSTONE_PYTEST", "PYTEST_ADDOPTS"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    return make_project(pytester)


def make_project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.mkpydir("pkg")
    (pytester.path / "pkg" / "calc.py").write_text(CALC)
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_mixed.py").write_text(MIXED)
    pytester.syspathinsert()
    return pytester


def records_of(path: Path) -> dict[str, TestFailureRecord]:
    from pytest_whetstone.store.sessions import find_store

    store = find_store(path, create=False)
    state = load_session(store).state()
    return {r.node_id: r for r in state.test_failures}


def events_of(path: Path) -> list[dict[str, Any]]:
    store = path / ".whetstone"
    return load_session(store).events()


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "whetstone", "-p", "no:cacheprovider", *args)


def test_records_carry_every_field(project: pytest.Pytester) -> None:
    result = run(project, "tests")
    recs = records_of(project.path)
    r = recs["tests/test_mixed.py::test_div"]
    assert r.runner == "pytest"
    assert r.test_suite == "tests/test_mixed.py"
    assert r.test_name == "test_div"
    assert r.file_path == "tests/test_mixed.py"
    assert r.line == 16  # the failing line of the test
    assert r.impl_file == "pkg/calc.py" and r.impl_line == 15  # deepest frame outside tests
    assert r.exception_type == "ZeroDivisionError"
    assert r.message == "division by zero"
    assert r.outcome == "failed" and r.failure_type == "exception"
    assert r.flaky is False
    assert r.suspects[0].qualname == "inner_div"
    assert r.suspects[0].file_path == "pkg/calc.py"
    assert (r.suspects[0].line_start, r.suspects[0].line_end) == (14, 15)
    assert r.ast_node_id == "pkg/calc.py::inner_div"
    assert r.failure_id.startswith("T") and r.raw
    u = recs["tests/test_mixed.py::TestU::test_eq"]
    assert u.test_suite == "tests/test_mixed.py::TestU" and u.test_name == "test_eq"
    assert result.ret == 1


EXPECTED_ACTUAL = {
    "test_double": ("5", "4"),
    "test_ne": ("!= 4", "4"),
    "test_lt": ("< 2", "6"),
    "test_in": ("contains 3", "[1, 2]"),
    "test_literal_left": ("5", "4"),  # `assert 5 == f()`: the literal is the expectation
    "test_approx": ("0.4 ± 4.0e-07", "0.30000000000000004"),
    "test_raises": ("ValueError", "no exception raised"),
    "TestU::test_eq": ("7", "4"),
}


def test_expected_and_actual(project: pytest.Pytester) -> None:
    run(project, "tests")
    recs = records_of(project.path)
    for test, pair in EXPECTED_ACTUAL.items():
        r = recs[f"tests/test_mixed.py::{test}"]
        assert (r.expected_value, r.actual_value) == pair, test
        assert r.failure_type == "assertion", test


def test_xpass_strict_param_ids_and_setup_error(project: pytest.Pytester) -> None:
    run(project, "tests")
    recs = records_of(project.path)
    assert recs["tests/test_mixed.py::test_xpass_strict"].outcome == "xpass-strict"
    ids = [n for n in recs if "test_param" in n]
    assert len(ids) == 4 and "tests/test_mixed.py::test_param[x::y]" in ids
    assert recs["tests/test_mixed.py::test_param[x::y]"].actual_value == "'x::y'"
    setup = recs["tests/test_mixed.py::test_setup"]
    assert (setup.outcome, setup.failure_type, setup.exception_type) == ("error", "infra", "RuntimeError")
    assert "tests/test_mixed.py::test_xfail" not in recs and "tests/test_mixed.py::test_ok" not in recs


def test_outcomes_identical_to_plain_pytest(project: pytest.Pytester) -> None:
    plain = project.runpytest("-p", "no:whetstone", "-p", "no:cacheprovider", "tests", "--junitxml=plain.xml")
    ours = run(project, "tests", "--junitxml=ours.xml")
    assert ours.parseoutcomes() == plain.parseoutcomes()
    assert ours.ret == plain.ret == 1
    assert (project.path / "ours.xml").read_text().count("<testcase") == (
        project.path / "plain.xml"
    ).read_text().count("<testcase")
    for tag in ("<failure", "<error", "<skipped"):
        assert (project.path / "ours.xml").read_text().count(tag) == (project.path / "plain.xml").read_text().count(tag)
    # pytest's own report is unchanged: only our section and the verdict are added
    # (the header's "plugins:" list names us when loaded; timings differ)
    plain_lines = [ln for ln in plain.outlines if " in " not in ln and not ln.startswith("plugins:") and "xml file" not in ln]
    ours_lines = [ln for ln in ours.outlines if " in " not in ln and not ln.startswith("plugins:") and "xml file" not in ln]
    start = ours_lines.index(next(ln for ln in ours_lines if "whetstone" in ln and ln.startswith("-")))
    end = next(i for i, ln in enumerate(ours_lines) if "short test summary" in ln)
    assert ours_lines[:start] + ours_lines[end:-3] == plain_lines


def test_verdict_block_is_last(project: pytest.Pytester) -> None:
    result = run(project, "tests")
    assert result.outlines[-3] == BEGIN and result.outlines[-1] == END
    verdict = parse_last(result.stdout.str())
    assert verdict is not None
    assert (verdict.status, verdict.failure, verdict.retry) == ("fail", "test-failure", "fix-source")
    assert verdict.first_error == "pkg/calc.py:6"  # first failure test_double -> double
    assert verdict.counts["failed"] == 14 and verdict.counts["error"] == 1 and verdict.counts["passed"] == 1
    assert verdict.report == ".whetstone/reports/pytest.json"
    report = json.loads((project.path / verdict.report).read_text())
    assert (report["status"], report["failure"], report["first_error"]) == ("fail", "test-failure", "pkg/calc.py:6")
    assert report["session"].startswith(".whetstone/sessions/") and report["phases"][0]["name"] == "tests"


def test_verdict_on_success_and_session_events(project: pytest.Pytester) -> None:
    project.makepyfile(test_good="from pkg.calc import double\n\ndef test_a():\n    assert double(1) == 2\n")
    result = run(project, "test_good.py")
    assert result.ret == 0
    assert result.outlines[-3] == BEGIN
    verdict = parse_last(result.stdout.str())
    assert verdict is not None and verdict.status == "pass" and verdict.failure is None
    events = [e["event"] for e in events_of(project.path)]
    for name in ("session_started", "attempt", "observation", "test_failures", "counts", "verdict"):
        assert name in events
    state = fold(events_of(project.path))
    assert state.attempts[0].action == "test" and state.attempts[0].phase == "tests"
    assert state.observations[0].gap is not None
    assert state.observations[0].gap.metric_type == "test_failure_count"
    assert state.observations[0].gap.current == 0


def test_summary_line_per_failure(project: pytest.Pytester) -> None:
    result = run(project, "tests/test_mixed.py::test_double")
    result.stdout.fnmatch_lines(
        ["*- whetstone -*", "ASSERTION*test_mixed.py::test_double*expected 5 got 4*-> pkg/calc.py:6 double"]
    )


FLAKY = """
from pathlib import Path

def test_flaky(tmp_path_factory):
    counter = Path(__file__).with_name("count.txt")
    n = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(n + 1))
    assert n >= 1
"""


def test_flaky_detected_by_rerun(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_f=FLAKY)
    result = run(pytester)
    result.assert_outcomes(failed=1)  # the re-run does not change the outcome
    assert (pytester.path / "count.txt").read_text() == "2"
    (r,) = records_of(pytester.path).values()
    assert r.flaky is True and r.failure_type == "assertion"
    verdict = parse_last(result.stdout.str())
    assert verdict is not None
    assert (verdict.status, verdict.failure, verdict.retry) == ("warn", "nondeterminism", "rerun")
    assert verdict.counts["flaky"] == 1
    result.stdout.fnmatch_lines(["FLAKY*test_f.py::test_flaky*"])


def test_rerun_zero_disables_rerun(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_f=FLAKY)
    run(pytester, "--whetstone-rerun=0")
    assert (pytester.path / "count.txt").read_text() == "1"
    (r,) = records_of(pytester.path).values()
    assert r.flaky is False


def test_rerun_ini_twin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_f=FLAKY)
    pytester.makeini("[pytest]\nwhetstone_rerun = 0\n")
    run(pytester)
    assert (pytester.path / "count.txt").read_text() == "1"


def test_inert_when_not_enabled(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:cacheprovider", "tests")
    assert not (project.path / ".whetstone").exists()
    assert BEGIN not in result.stdout.str()
    assert not [ln for ln in result.outlines if "- whetstone -" in ln or ln.startswith("whetstone:")]
    blocked = project.runpytest("-p", "no:whetstone", "--co", "-q", "tests")
    assert not (project.path / ".whetstone").exists() and blocked.ret == 0


@pytest.mark.parametrize("how", ["flag", "ini", "env", "addopts"])
def test_enable_switches(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    args = ["-p", "no:cacheprovider", "tests/test_mixed.py::test_ok"]
    if how == "flag":
        args.append("--whetstone")
    elif how == "ini":
        project.makeini("[pytest]\nwhetstone = true\n")
    elif how == "env":
        monkeypatch.setenv("WHETSTONE_PYTEST", "1")
    else:
        monkeypatch.setenv("PYTEST_ADDOPTS", "-p whetstone")
    result = project.runpytest(*args)
    assert result.outlines[-1] == END
    assert (project.path / ".whetstone" / "sessions").is_dir()


def test_whetstone_dir_option(project: pytest.Pytester) -> None:
    run(project, "--whetstone-dir", "store", "tests/test_mixed.py::test_ok")
    assert list((project.path / "store" / "sessions").glob("*.jsonl"))
    assert not (project.path / ".whetstone").exists()


def test_analysis_error_is_one_warning_line(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    import pytest_whetstone.plugin.capture as capture

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("injected failure\nsecond line")

    monkeypatch.setattr(capture, "build_record", boom)
    result = run(project, "tests")
    warnings = [ln for ln in result.outlines + result.errlines if "whetstone: warning" in ln]
    assert len(warnings) == 1 and "injected failure" in warnings[0]
    result.assert_outcomes(failed=14, passed=1, skipped=1, xfailed=1, errors=1)
    assert result.ret == 1
    assert result.outlines[-1] == END


def test_collection_error_is_setup_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_broken="import no_such_module_xyz\n\ndef test_a():\n    pass\n")
    result = run(pytester)
    assert result.ret == 2
    (r,) = records_of(pytester.path).values()
    assert (r.failure_type, r.outcome) == ("infra", "error")
    assert "no_such_module_xyz" in r.message
    verdict = parse_last(result.stdout.str())
    assert verdict is not None and (verdict.failure, verdict.retry) == ("setup-error", "fix-env")


def test_fix_candidates_are_optional(project: pytest.Pytester) -> None:
    # whether or not a candidate generator is installed, the run completes and writes a session
    result = run(project, "tests/test_mixed.py::test_double")
    assert not [ln for ln in result.outlines if "whetstone: warning" in ln]
    events = [e["event"] for e in events_of(project.path)]
    assert "test_failures" in events


def test_odd_ids_survive_json(project: pytest.Pytester) -> None:
    run(project, "tests")
    recs = records_of(project.path)
    odd = [n for n in recs if "test_param[-" in n]
    assert odd, recs.keys()
    r = recs[odd[0]]
    assert TestFailureRecord.from_json(r.to_json()) == r
