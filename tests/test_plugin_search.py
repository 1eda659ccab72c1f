"""The plugin's validated search: on by option, off by option or environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_whetstone.store.sessions import load_session

SOURCE = '''
def sum_to(n):
    total = 0
    for i in range(1, n):
        total += i
    return total
'''
TEST = '''
from series import sum_to

def test_sum_to_ten():
    assert sum_to(10) == 55

def test_sum_to_three():
    assert sum_to(3) == 6
'''


def _project(pytester: pytest.Pytester) -> Path:
    pytester.makepyfile(series=SOURCE, test_series=TEST)
    pytester.makeini("[pytest]\npythonpath = .\n")
    return pytester.path


@pytest.mark.whetstone_search
def test_search_finds_and_validates_the_off_by_one(pytester: pytest.Pytester) -> None:
    root = _project(pytester)
    result = pytester.runpytest_subprocess("-p", "whetstone", "--whetstone-search-budget", "60")
    result.assert_outcomes(failed=2)  # outcomes untouched: the search runs in a scratch copy
    state = load_session(root / ".whetstone").state()
    top = state.candidates[0]
    assert top.validated and top.source == "search"
    assert top.edits and top.edits[0].file_path == "series.py"
    assert "range(1, n)" in (root / "series.py").read_text()  # the user's tree is untouched
    # what the search did is in the session and in one terminal line
    events = [json.loads(line) for line in next((root / ".whetstone").rglob("*.jsonl")).read_text().splitlines()]
    search = [e["data"] for e in events if e.get("event") == "search"]
    assert len(search) == 1 and search[0]["tried"] >= 1 and search[0]["validated"] >= 1
    assert any(line.startswith("search: ") and " validated " in line for line in result.outlines)


def test_search_off_by_environment(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(pytester)
    monkeypatch.setenv("WHETSTONE_SEARCH", "0")
    pytester.runpytest_subprocess("-p", "whetstone").assert_outcomes(failed=2)
    state = load_session(root / ".whetstone").state()
    assert state.candidates and not any(c.validated for c in state.candidates)


@pytest.mark.whetstone_search
def test_search_off_by_option(pytester: pytest.Pytester) -> None:
    root = _project(pytester)
    pytester.runpytest_subprocess("-p", "whetstone", "--whetstone-search=0").assert_outcomes(failed=2)
    state = load_session(root / ".whetstone").state()
    assert not any(c.source == "search" for c in state.candidates)
