"""Honest validation: an edit that makes a weak failing test pass but breaks another test module
that imports the changed module is never validated, and each candidate says what its check ran."""

from __future__ import annotations

import pytest

from pytest_whetstone.store.sessions import load_session

CALC = '''
def ratio(a, b):
    return a * b
'''
# the fault is `a * b` for `a / b`.  This test fails on it (8 != 2); the search's first mutant,
# `a // b`, and the true fix `a / b` both make it pass
WEAK = '''
from calc import ratio

def test_ratio():
    assert ratio(4, 2) == 2
'''
# passes on the fault and on `a / b`, fails on `a // b`
OTHER = '''
from calc import ratio

def test_ratio_of_a_fraction():
    assert ratio(2.5, 1) == 2.5
'''


@pytest.mark.whetstone_search
def test_an_edit_that_breaks_an_importing_module_is_not_validated(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(calc=CALC, test_weak=WEAK, test_other=OTHER)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest_subprocess("-p", "whetstone", "--whetstone-search-budget", "60")
    result.assert_outcomes(failed=1, passed=1)
    session = load_session(pytester.path / ".whetstone")
    search = next(e["data"] for e in session.events() if e.get("event") == "search")
    assert search["confirm_rejected"] >= 1  # `a // b` passed the failing test, then broke the other module
    state = session.state()
    found = [c for c in state.candidates if c.source == "search"]
    assert found, "the search should find the division"
    for cand in found:
        new = cand.edits[0].new_text
        assert cand.validated
        assert "//" not in new and "/" in new, cand.description  # `a // b` breaks test_other.py
        assert "test_other.py" in cand.mutation["checked"] and not cand.mutation["unchecked"]
        assert "other modules that import it" in cand.description
