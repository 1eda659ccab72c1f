"""Mutation-informed localization and the default run's search budget."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_whetstone.locate.budget import (
    ALLOWANCE,
    RESERVE_S,
    cheap_pass_budget,
    default_search_budget,
    rerun_allowed,
    rerun_cost,
)
from pytest_whetstone.locate.mutation import lead_with_fix, rerank, with_notes
from pytest_whetstone.records import Suspect
from pytest_whetstone.store.sessions import load_session

# The test calls `report`, which the static signals rank first (called by the test, name match);
# the fault is in the helper it calls.  Only running mutants tells the two apart.
SOURCE = '''
def _weights(n):
    return [i * 2 for i in range(1, n)]


def _evens(n):
    return [i * 2 for i in range(10) if i < n]


def report(n):
    values = _weights(n)
    label = "total"
    return label, sum(values)
'''
TEST = '''
from scores import report

def test_report():
    assert report(4) == ("total", 20)
'''
# the same shape with a comparison slip (`<` for `<=`): the first mutant of `_evens` undoes it
SOURCE_CMP = SOURCE.replace("values = _weights(n)", "values = _evens(n)")


def _events(root: Path) -> list[dict]:
    path = next((root / ".whetstone").rglob("*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_rerank_raises_what_mutants_fix_and_sinks_what_they_leave_alone() -> None:
    suspects = [Suspect("m.py", "caller", 1, 5, 0.6), Suspect("m.py", "helper", 6, 9, 0.25),
                Suspect("m.py", "other", 10, 12, 0.3)]
    evidence = [{"file": "m.py", "qualname": "caller", "tried": 6, "fixed": 0, "changed": 0, "score": 0.0},
                {"file": "m.py", "qualname": "helper", "tried": 3, "fixed": 1, "changed": 1, "score": 1.0}]
    ranked = rerank(suspects, evidence)
    assert [s.qualname for s in ranked] == ["helper", "other", "caller"]
    notes = [ev["note"] for ev in with_notes(evidence)]
    assert notes == ["mutants: none of 6 changed the failure", "mutants: 1 of 3 made a failing test pass"]
    assert rerank(suspects, []) == suspects  # no evidence: the static order stands


def test_default_budget_is_a_share_of_the_run() -> None:
    assert default_search_budget(2.0, 0.1, 20.0) == 0.0  # too short a run: no search at all
    assert default_search_budget(40.0, 2.0, 20.0) == pytest.approx(ALLOWANCE * 40 - RESERVE_S - 2.0)
    assert default_search_budget(400.0, 0.0, 20.0) == 20.0  # never above the configured budget


def test_default_run_shares_one_allowance() -> None:
    assert cheap_pass_budget(2.0, 0.0) == pytest.approx(2 * ALLOWANCE - RESERVE_S)  # what is left of the allowance
    assert cheap_pass_budget(2.0, 0.3) == 0.0  # re-runs took it: no pass at all
    assert cheap_pass_budget(2.0, 0.3, explicit=True) == 0.25  # asked for: the roomier rule
    assert rerun_allowed(0.0, 0.5, rerun_cost(0.01, True))  # a fast first failure of a short run
    assert not rerun_allowed(0.0, 0.5, rerun_cost(1.0, True))  # a slow one is not re-run by default
    assert rerun_allowed(0.0, 30.0, rerun_cost(1.0, True))  # ... unless the run is long
    assert not rerun_allowed(1.9, 30.0, rerun_cost(0.1, False))  # the share is spent
    assert rerun_allowed(1.9, 30.0, rerun_cost(0.1, False), explicit=True)


@pytest.mark.whetstone_search
def test_mutant_outcomes_reorder_the_suspects(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(scores=SOURCE, test_scores=TEST)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest_subprocess("-p", "whetstone", "--whetstone-search-budget", "60")
    result.assert_outcomes(failed=1)
    events = _events(pytester.path)
    batches = [e["data"]["records"] for e in events if e["event"] == "test_failures"]
    informed = batches[-1][0]["suspects"]  # the traceback and the test's calls say `report`
    assert informed[0]["qualname"] == "_weights"
    search = next(e["data"] for e in events if e["event"] == "search")
    by_name = {ev["qualname"]: ev for ev in search["evidence"]}
    assert by_name["_weights"]["fixed"] >= 1
    state = load_session(pytester.path / ".whetstone").state()
    assert state.test_failures[0].suspects[0].qualname == "_weights"  # the report reads the informed order


def test_default_failing_run_skips_the_search_when_short(pytester: pytest.Pytester,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("WHETSTONE_SEARCH", "WHETSTONE_SEARCH_BUDGET"):
        monkeypatch.delenv(key, raising=False)
    pytester.makepyfile(scores=SOURCE, test_scores=TEST)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest_subprocess("-p", "whetstone")
    result.assert_outcomes(failed=1)
    assert any(line.startswith("search: not run") for line in result.outlines)
    state = load_session(pytester.path / ".whetstone").state()
    assert state.test_failures[0].suspects  # localization and cheap candidates still run
    assert state.candidates and not any(c.source == "search" for c in state.candidates)


def test_default_run_reranks_by_an_in_process_mutant_pass(pytester: pytest.Pytester,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("WHETSTONE_SEARCH", "WHETSTONE_SEARCH_BUDGET"):
        monkeypatch.delenv(key, raising=False)
    # a loaded machine must not cut the pass short, nor skip the re-run whose coverage finds `_evens`
    monkeypatch.setenv("WHETSTONE_MUTANT_PASS_S", "10")
    monkeypatch.setenv("WHETSTONE_RERUN_S", "10")
    pytester.makepyfile(scores=SOURCE_CMP, test_scores=TEST)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest_subprocess("-p", "whetstone")
    result.assert_outcomes(failed=1)  # the forks' runs are not reported
    assert (pytester.path / "scores.py").read_text().strip() == SOURCE_CMP.strip()  # the file is untouched
    state = load_session(pytester.path / ".whetstone").state()
    failure = state.test_failures[0]
    assert failure.suspects[0].qualname == "_evens"
    evidence = next(e["data"] for e in _events(pytester.path) if e["event"] == "mutant_evidence")
    notes = {ev["qualname"]: ev["note"] for ev in evidence["in_process"][failure.failure_id]}
    assert "made a failing test pass" in notes["_evens"]


def test_the_plain_run_starts_with_the_process() -> None:
    """The interpreter's and pytest's start count in the run the user compares against; a process far
    older than any start-up (pytest driven in-process by a longer program) counts nothing."""
    from pytest_whetstone.locate.budget import STARTUP_MAX_S, process_startup_s

    age = process_startup_s()
    assert age == 0.0 or 0.0 < age <= STARTUP_MAX_S
    code = "import time; time.sleep(0.3); from pytest_whetstone.locate.budget import process_startup_s as f; print(f())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 0.25 <= float(out) <= STARTUP_MAX_S  # a fresh process: its own age


def test_the_function_of_the_top_fix_leads_the_suspects() -> None:
    suspects = [Suspect("a.cc", "caller", 10, 20, 0.9), Suspect("a.cc", "callee", 1, 8, 0.9),
                Suspect("b.cc", "other", 1, 5, 0.2)]
    led = lead_with_fix(suspects, "a.cc", 4)
    assert [s.qualname for s in led] == ["callee", "caller", "other"] and led[0].score == 0.9
    assert lead_with_fix(suspects, "a.cc", 12) == suspects  # already first
    assert lead_with_fix(suspects, "c.cc", 1) == suspects  # in no suspect: left as it is
