"""Which failing tests a C/C++ or JS mutant's first run covers (:mod:`.native_search`)."""

from __future__ import annotations

from ..records import TestFailureRecord

PROBE_FLOOR_MS = 250  # failing tests this cheap are always run by the search's trials
PROBE_MAX = 8  # failing tests a mutant's first run covers, at most


def probe_tests(failures: list[TestFailureRecord]) -> list[TestFailureRecord] | None:
    """The failing tests each mutant runs first, when the run said how long they took and some cost far
    more than others (None: all of them).  A mutant's screen costs one run of them, so one slow
    randomized test among fast ones would set the price of every mutant; a crashed test, which may
    take its whole binary down with it, comes last.  A mutant that makes them pass is then checked on
    every test (:meth:`.native_search._Search.judge`)."""
    if len(failures) < 2 or not any(f.duration_ms for f in failures):
        return None

    def cost(f: TestFailureRecord) -> float:
        # gtest's crash record, or ctest's own record of a test that died on a signal ("SegFault", "Subprocess aborted")
        crashed = f.exception_type == "crash" or (f.runner == "ctest" and bool(f.exception_type))
        return float("inf") if crashed else f.duration_ms
    ordered = sorted(failures, key=cost)
    limit = max(PROBE_FLOOR_MS, 2 * cost(ordered[0]))
    chosen = {id(f) for f in ordered[:PROBE_MAX] if cost(f) <= limit} or {id(ordered[0])}
    if len(chosen) == len(failures):
        return None
    return [f for f in failures if id(f) in chosen]  # in the run's order: the first failure leads
