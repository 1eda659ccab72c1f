"""A fix whose tests run longer than the fault let them: a screened run stopped at its limit after a
failing test had passed gets the trial's own time limit.

Real g++, GoogleTest and make through ccwrap.  Two tests fail on the seeded fault: one quick, one that
asserts first and then works for a second and a half.  The fault fails both at once, so the baseline is
fast and a screened run's limit is its floor (RUN_FLOOR_S).  With the exact fix the quick test passes and
the long one runs its whole course: gtest's own output says the quick one passed before the limit
stopped the run, so the run is given the longer limit, and both pass.  A mutant that loops makes no test
pass before the limit: it is not run again.  (A single long failing test gives no such sign: its fix is
still left to the limit of a run compiled alone.)
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_native_schema import CompilingTrial
from test_native_search import build_make_geo

from pytest_whetstone.candidates.mutant import Mutant
from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_screen import (
    ENDED_FACTOR,
    IN_PROCESS_FLOOR_S,
    LONGER_S,
    RUN_FLOOR_S,
    RUN_MARGIN_S,
    Screen,
)
from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.candidates.native_trial import TrialOutcome
from pytest_whetstone.candidates.native_trial_cxx import cxx_trial
from pytest_whetstone.records import Position, Suspect, TestFailureRecord, TextEdit

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make")), reason="ccwrap, g++ or make missing"
)

SLOW_GEO_CC = """\
#include "geo.h"

static bool spin() { volatile int k = 0; for (;;) { k = k + 1; } return false; }

int manhattan(int x1, int y1, int x2, int y2) {
  return (x1 > x2 ? x1 - x2 : x2 - x1) + (y1 > y2 ? y1 - y2 : y2 - y1);
}

bool inside(int x, int y, int w, int h) {
  return x >= 0 && y >= 0 && x < w && y <= h;  // seeded fault: y <= h
}

int scale(int value, int num, int den) {
  return spin() ? 0 : value * num / den;
}
"""
SLOW_TEST = """\
#include <gtest/gtest.h>
#include <chrono>
#include <thread>
#include "geo.h"

TEST(Geo, Manhattan) { EXPECT_EQ(manhattan(0, 0, 3, 4), 7); }
TEST(Geo, InsideExcludesFarEdge) { EXPECT_FALSE(inside(1, 4, 4, 4)); }
TEST(Geo, InsideSettles) {
  ASSERT_FALSE(inside(2, 4, 4, 4));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the rest of a long test
  EXPECT_TRUE(inside(0, 0, 4, 4));
}
"""
INSIDE_LINE = 10


@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    return build_make_geo(tmp_path / "geo", geo_cc=SLOW_GEO_CC, geo_test=SLOW_TEST)


def _failures() -> list[TestFailureRecord]:
    return [TestFailureRecord(failure_id=fid, runner="gtest", test_suite="Geo", test_name=name,
                              file_path="tests/geo_test.cc", failure_type="assertion",
                              suspects=[Suspect("src/geo.cc", "inside", 9, 11, 1.0)])
            for fid, name in (("F1", "InsideExcludesFarEdge"), ("F2", "InsideSettles"))]


def _mutant(old: str, new: str) -> Mutant:
    line = SLOW_GEO_CC.splitlines()[INSIDE_LINE - 1]
    col = line.index(old) + 1
    return Mutant("test", f"{old} -> {new}", TextEdit("src/geo.cc", Position(INSIDE_LINE, col),
                                                      Position(INSIDE_LINE, col + len(old)), new), INSIDE_LINE, 0.9)


def test_a_run_stopped_while_the_failing_test_passed_gets_the_longer_limit(proj: Path) -> None:
    trial, why = cxx_trial(_failures(), proj, proj / ".whetstone", timeout_s=10.0)
    assert trial is not None, why
    try:
        base = trial.baseline()
        assert set(base.failing) == {"F1", "F2"} and base.seconds < RUN_FLOOR_S
        exact, loops = _mutant("y <= h", "y < h"), _mutant("x >= 0", "spin()")
        screen = Screen(base, lambda rel: (proj / rel).read_text(), float("inf"), 10.0)
        assert screen.timeout_s == RUN_FLOOR_S
        screen.add([exact, loops])
        screen.prepare(trial)
        looped = screen.outcome(loops, trial)
        assert looped is not None and looped.timed_out and not looped.passed and screen.longer == 0, looped
        fixed = screen.outcome(exact, trial)
        assert fixed is not None and fixed.passed == {"F1", "F2"} and not fixed.error and screen.longer == 1, fixed
    finally:
        trial.close()
    assert (proj / "src/geo.cc").read_text() == SLOW_GEO_CC


def test_the_search_validates_the_fix_of_a_test_the_fault_cut_short(proj: Path) -> None:
    stats = NativeSearchStats()
    found = native_search_candidates(_failures(), proj, 60.0, store=proj / ".whetstone", stats=stats)
    assert found and found[0].validated and found[0].edits[0].new_text in ("<", "y < h"), (found, stats)
    assert stats.schema.get("longer", 0) >= 1
    assert (proj / "src/geo.cc").read_text() == SLOW_GEO_CC


SOURCE = "int f(int a, int b) {\n  if (a < b) return a + b;\n  return a - b;\n}\n"
FAILING = {"F1": "expected 3, got 4"}


def _scripted(run: Callable[[int, float], TrialOutcome], in_process: bool = False) -> CompilingTrial:
    """A trial whose schemata compile and whose screened runs say what ``run(mutant_id, limit)`` says."""

    class Trial(CompilingTrial):
        screens_in_process = in_process

        def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                       only: set[str] | None = None, spins: int = 0) -> TrialOutcome:
            return run(mutant_id, timeout_s)

    return Trial()


def _screen(trial: CompilingTrial, base_s: float = 0.01, deadline: float = 1e12) -> tuple[Screen, list[Mutant]]:
    """A screen of SOURCE's mutants, its schema built on ``trial``; the baseline failed in ``base_s``."""
    screen = Screen(TrialOutcome(failing=dict(FAILING), seconds=base_s), lambda rel: SOURCE, deadline=deadline,
                    timeout_s=30.0)
    mutants = mutants_in("f.cc", SOURCE.encode(), 1, 4)
    screen.add(mutants)
    screen.prepare(trial)  # type: ignore[arg-type]
    return screen, mutants


def test_a_mutant_that_lets_the_failing_test_run_longer_raises_the_file_s_limit() -> None:
    """Runs that end set the limit of the next: a looping mutant costs the floor while every mutant
    fails fast, and a few times the longest run once one went further."""
    limits: list[float] = []

    def run(mutant_id: int, limit: float) -> TrialOutcome:
        if mutant_id:
            limits.append(limit)
        return TrialOutcome(failing=dict(FAILING), seconds=0.3 if mutant_id == 1 else 0.01)

    trial = _scripted(run)
    screen, mutants = _screen(trial)
    ids = screen.files["f.cc"].schema.ids  # type: ignore[union-attr]
    first = next(m for m in mutants if ids[m.key] == 1)
    other = next(m for m in mutants if ids[m.key] == 2)
    for mutant in (other, first, other):
        screen.outcome(mutant, trial)  # type: ignore[arg-type]
    assert limits[0] == limits[1] == pytest.approx(RUN_FLOOR_S) and limits[2] == pytest.approx(ENDED_FACTOR * 0.3)


def test_an_in_process_screen_s_limit_follows_the_schema_s_run_not_the_baseline_s_process() -> None:
    """JS: the baseline is a whole node process (0.5 s), a screened run a few milliseconds of tests in a
    warm one: a looping mutant costs the floor, not five process starts."""
    limits: list[float] = []

    def run(mutant_id: int, limit: float) -> TrialOutcome:
        if mutant_id:
            limits.append(limit)
        return TrialOutcome(failing=dict(FAILING), seconds=0.01)

    for in_process, expected in ((True, IN_PROCESS_FLOOR_S), (False, 5 * 0.5 + RUN_MARGIN_S)):  # the latter: a process a run
        limits.clear()
        trial = _scripted(run, in_process)
        screen, mutants = _screen(trial, base_s=0.5)
        screen.outcome(mutants[0], trial)  # type: ignore[arg-type]
        assert limits == [pytest.approx(expected)]


def test_a_schema_that_raises_is_one_note_not_a_crashed_search() -> None:
    source = "int f(int a, int b) {\n  return a - b;\n}\n"

    class Broken(CompilingTrial):
        def prepare_schema(self, rel: str, text: str) -> str:
            raise OSError("disk full")

    screen = Screen(TrialOutcome(failing={"F1": "x"}, seconds=0.01), lambda rel: source, deadline=1e12, timeout_s=10.0)
    screen.add(mutants_in("a.cc", source.encode(), 1, 3) + mutants_in("b.cc", source.encode(), 1, 3))
    screen.prepare([Broken(), Broken()])  # type: ignore[list-item]  # two files, two trials: threads
    assert sorted(screen.notes) == ["schema of a.cc: OSError: disk full", "schema of b.cc: OSError: disk full"]


def test_a_mutant_that_loops_after_the_tests_it_fixed_costs_a_bounded_run_again() -> None:
    """The failing test passed, then the run never ended: it runs once more for LONGER_S at most, not for
    all the time the search has left."""
    limits: list[float] = []

    def run(mutant_id: int, limit: float) -> TrialOutcome:
        if not mutant_id:
            return TrialOutcome(failing=dict(FAILING), seconds=0.01)
        limits.append(limit)
        return TrialOutcome(passed={"F1"}, error=f"timed out after {limit:g} s", timed_out=True, seconds=limit)

    trial = _scripted(run)
    screen, mutants = _screen(trial, deadline=time.monotonic() + 60.0)
    outcome = screen.outcome(mutants[0], trial)  # type: ignore[arg-type]
    assert outcome is not None and outcome.timed_out and screen.longer == 1
    assert limits == [pytest.approx(RUN_FLOOR_S), LONGER_S]
