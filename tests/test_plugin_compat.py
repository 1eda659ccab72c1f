"""The plugin together with pytest-xdist, pytest-cov, pytest-timeout, -x, --lf, unittest and doctest."""

from __future__ import annotations

import json
import textwrap

# Imported here so pytester's sys.modules snapshot keeps them: coverage's C tracer must not be
# re-imported, and hypothesis' pytest plugin would otherwise re-import hypothesis (~5 s) per run.
import coverage  # noqa: F401
import hypothesis  # noqa: F401
import pytest
from test_plugin import make_project, records_of, run

from pytest_whetstone.verdict import END, parse_last


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WHETSTONE_DIR", "WHETSTONE_SESSION", "WHETSTONE_NESTED", "WHETSTONE_PYTEST", "PYTEST_ADDOPTS"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    return make_project(pytester)

def test_stop_on_first_failure(project: pytest.Pytester) -> None:
    result = run(project, "-x", "tests")
    result.assert_outcomes(passed=0, failed=1)
    assert list(records_of(project.path)) == ["tests/test_mixed.py::test_double"]


def test_last_failed(project: pytest.Pytester) -> None:
    project.runpytest("-p", "whetstone", "tests")
    result = project.runpytest("-p", "whetstone", "--lf", "tests")
    plain = project.runpytest("-p", "no:whetstone", "--lf", "tests")
    assert result.parseoutcomes() == plain.parseoutcomes()
    assert len(records_of(project.path)) == 15


CLASSES = """
import os
import pytest


def test_output(capsys):
    print("hello")
    assert capsys.readouterr().out == "bye\\n"


def test_missing(tmp_path):
    assert (tmp_path / "report.txt").exists()


def test_missing_open(tmp_path):
    open(tmp_path / "out.json").read()


def test_exc():
    {}["k"]


@pytest.mark.timeout(0.5)
def test_slow():
    import time
    time.sleep(5)


def add(a, b):
    '''
    >>> add(1, 2)
    4
    '''
    return a + b
"""


def test_classifications(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_classes=CLASSES)
    result = run(pytester, "--doctest-modules", "-p", "timeout", "--timeout-method=signal")
    recs = {n.split("::")[-1]: r for n, r in records_of(pytester.path).items()}
    assert recs["test_output"].failure_type == "wrong_output"
    assert recs["test_output"].expected_value == "'bye\\n'"
    assert recs["test_missing"].failure_type == "missing_output"
    assert recs["test_missing_open"].failure_type == "missing_output"
    assert recs["test_exc"].failure_type == "exception" and recs["test_exc"].exception_type == "KeyError"
    assert recs["test_slow"].failure_type == "timeout" and recs["test_slow"].outcome == "timeout"
    doc = recs["test_classes.add"]
    assert (doc.failure_type, doc.expected_value, doc.actual_value) == ("wrong_output", "4", "3")
    result.assert_outcomes(failed=6)


def test_timeouts_only_give_timeout_verdict(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_t="import time, pytest\n\n@pytest.mark.timeout(0.3)\ndef test_slow():\n    time.sleep(3)\n"
    )
    result = run(pytester, "-p", "timeout", "--timeout-method=signal")
    verdict = parse_last(result.stdout.str())
    assert verdict is not None and verdict.failure == "timeout"


def _subprocess(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # hypothesis' plugin imports hypothesis at the end of every run (seconds): not what we test
    return pytester.runpytest_subprocess(
        "-p", "whetstone", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args, timeout=120
    )


def test_xdist_one_session_no_duplicates(project: pytest.Pytester) -> None:
    result = _subprocess(project, "-n", "2", "tests")
    result.assert_outcomes(failed=14, passed=1, skipped=1, xfailed=1, errors=1)  # as plain pytest counts it
    sessions = list((project.path / ".whetstone" / "sessions").glob("*.jsonl"))
    assert len(sessions) == 1
    events = [json.loads(line) for line in sessions[0].read_text().splitlines()]
    (batch,) = [e for e in events if e["event"] == "test_failures"]
    ids = [r["node_id"] for r in batch["data"]["records"]]
    assert len(ids) == len(set(ids)) == 15
    by_id = {r["node_id"]: r for r in batch["data"]["records"]}
    assert by_id["tests/test_mixed.py::test_div"]["ast_node_id"] == "pkg/calc.py::inner_div"
    assert by_id["tests/test_mixed.py::test_double"]["expected_value"] == "5"
    assert result.outlines[-1] == END


def test_pytest_cov_data_untouched(project: pytest.Pytester) -> None:
    args = ("--cov=pkg", "--cov-report=term-missing", "tests")
    plain = project.runpytest_subprocess("-p", "no:whetstone", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args)
    ours = _subprocess(project, *args)
    line = [ln for ln in plain.outlines if ln.startswith("pkg/calc.py")]
    assert line and line == [ln for ln in ours.outlines if ln.startswith("pkg/calc.py")]
    assert ours.parseoutcomes() == plain.parseoutcomes()
    r = records_of(project.path)["tests/test_mixed.py::test_double"]
    assert r.suspects and r.suspects[0].qualname in ("double", "helper")


def test_unittest_and_doctest_items(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_u=textwrap.dedent(
            """
            import unittest

            class T(unittest.TestCase):
                def test_list(self):
                    self.assertListEqual([1, 2], [1, 3])

                def test_in(self):
                    self.assertIn(5, [1, 2])
            """
        )
    )
    run(pytester)
    recs = records_of(pytester.path)
    assert recs["test_u.py::T::test_list"].expected_value == "[1, 3]"
    assert recs["test_u.py::T::test_in"].expected_value == "contains 5"
