"""The order the native search takes its remaining mutants in, and when it re-orders them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pytest_whetstone.candidates import native_plan
from pytest_whetstone.candidates.mutant import Mutant
from pytest_whetstone.candidates.native_plan import ORDER_SPACING, OrderClock, _Plan, rose
from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search
from pytest_whetstone.locate.mutation import MutantEvidence
from pytest_whetstone.records import Position, Suspect, TestFailureRecord, TextEdit


def _failure(names: list[str]) -> TestFailureRecord:
    return TestFailureRecord(test_name="A.B", suspects=[Suspect("a.cc", n, 10 * i + 1, 10 * i + 9, 1 - i / 10)
                                                         for i, n in enumerate(names)])


def _plans(failure: TestFailureRecord, qualname: str, index: int, priors: list[float]) -> list[_Plan]:
    line = 10 * index + 1
    return [_Plan(failure, "a.cc", qualname, Mutant("arith", f"{qualname} {r}", TextEdit(
        "a.cc", Position(line, r + 1), Position(line, r + 2), "x"), line, prior), index, r, index)
        for r, prior in enumerate(priors)]


def _search(failure: TestFailureRecord) -> _Search:
    return _Search([object()], [failure], Path("."), time.monotonic() + 60, NativeSearchStats())  # type: ignore[list-item]


def test_mutants_no_schema_covers_come_after_the_screened_ones_by_weight() -> None:
    """A mutant no schema holds costs a compile: after every screened one, the likeliest first; the
    screened ones take turns by function."""
    failure = _failure(["f", "g"])
    f, g = _plans(failure, "f", 0, [0.5, 0.5, 0.5]), _plans(failure, "g", 1, [0.9, 0.4, 0.7])
    covered = {p.mutant.key for p in f + g[:1]}

    class _Screen:
        def covered(self) -> dict[str, set[tuple[str, int, int, int, int, str]]]:
            return {"a.cc": covered}

    search = _search(failure)
    search.screen = _Screen()  # type: ignore[assignment]
    order = [p.mutant.description for p in search.ordered_rest(failure, g[::-1] + f)]
    assert order[:4] == ["g 0", "f 0", "f 1", "f 2"]  # turns: a function's k-th at k / its share, ties by prior
    assert order[4:] == ["g 2", "g 1"]  # then by weight


def test_without_turns_the_rest_goes_by_weight_then_by_suspect() -> None:
    failure = _failure(["f", "g"])
    search = _search(failure)
    rest = _plans(failure, "g", 1, [0.9, 0.5]) + _plans(failure, "f", 0, [0.5, 0.9])
    order = [p.mutant.description for p in search.ordered_rest(failure, rest)]
    # equal priors: the higher static suspect (f) first
    assert order == ["f 1", "g 0", "f 0", "g 1"]


def test_a_function_whose_mutants_change_nothing_gives_its_turns_away() -> None:
    failure = _failure(["f", "g"])
    search = _search(failure)

    class _Screen:
        def covered(self) -> dict[str, set[tuple[str, int, int, int, int, str]]]:
            return {"a.cc": {p.mutant.key for p in rest}}

    search.screen = _Screen()  # type: ignore[assignment]
    rest = _plans(failure, "f", 0, [0.5] * 6) + _plans(failure, "g", 1, [0.5] * 6)
    before = [p.qualname for p in search.ordered_rest(failure, rest)][:4]
    search.evidence[("a.cc", "f")] = MutantEvidence("a.cc", "f", tried=6)
    after = [p.qualname for p in search.ordered_rest(failure, rest)][:4]
    assert before.count("f") > after.count("f")


def test_evidence_that_lifts_a_function_rose_at_once() -> None:
    """A mutant that changed or fixed a failing test lifts its function above where the last re-order
    left it (an untried one stands at NEUTRAL); more mutants that changed nothing do not."""
    changed = MutantEvidence("a.cc", "f", tried=2, changed=1)
    nothing = MutantEvidence("a.cc", "f", tried=3)
    fixed = MutantEvidence("a.cc", "f", tried=3, fixed=1)
    key = ("a.cc", "f")
    assert rose({}, {key: (2, changed.score())})
    assert not rose({}, {key: (3, nothing.score())})
    assert not rose({key: (2, 0.0)}, {key: (3, 0.0)})
    assert rose({key: (2, changed.score())}, {key: (3, fixed.score())})
    assert rose({key: (3, 0.0)}, {key: (4, MutantEvidence("a.cc", "f", tried=4, changed=1).score())})


def test_a_share_of_changing_mutants_that_only_ticks_up_waits_for_the_clock() -> None:
    """3 of 5 mutants changed the failure, then 4 of 6: the function stands a hair higher, which moves
    the order no more than a tick down would (a big function most of whose mutants change the failure
    re-ordered thousands of plans after nearly every batch)."""
    key = ("a.cc", "f")
    before = MutantEvidence("a.cc", "f", tried=5, changed=3).score()
    after = MutantEvidence("a.cc", "f", tried=6, changed=4).score()
    assert after > before and not rose({key: (5, before)}, {key: (6, after)})


def test_a_re_order_that_only_moves_functions_down_waits_for_its_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first re-order is due at once; after one that took 10 ms, the next only once the batches since
    took ORDER_SPACING times that."""
    now = [100.0]
    monkeypatch.setattr(native_plan.time, "monotonic", lambda: now[0])
    clock = OrderClock()
    assert clock.due()
    with clock:
        now[0] += 0.010
    now[0] += 0.010 * ORDER_SPACING / 2
    assert not clock.due()
    now[0] += 0.011 * ORDER_SPACING / 2
    assert clock.due()
