"""A screened fix that trades the failing test for another one is rejected through the schema.

Real g++, GoogleTest and make through ccwrap: the failing test wants ``inside(1, 4, 4, 4)`` false, a
neighbour in the same binary wants ``inside(0, 0, 4, 4)`` true.  ``return false`` makes the failing
test pass and breaks the neighbour; the schema's run of the whole binary says so before the mutant is
compiled alone (the search counts it as a wider rejection, no compile spent).  The exact fix breaks
nothing there, and is still compiled alone before it is validated.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_native_search import GEO_CC, GEO_H, MAKEFILE, build_make_geo, build_make_project

from pytest_whetstone.candidates.mutant import Mutant
from pytest_whetstone.candidates.native_screen import Screen
from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.candidates.native_trial_cxx import cxx_trial
from pytest_whetstone.records import Position, Suspect, TestFailureRecord, TextEdit

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make")), reason="ccwrap, g++ or make missing"
)

NEIGHBOURED_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

TEST(Geo, InsideOrigin) { EXPECT_TRUE(inside(0, 0, 4, 4)); }
TEST(Geo, InsideExcludesFarEdge) { EXPECT_FALSE(inside(1, 4, 4, 4)); }
"""


@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    return build_make_geo(tmp_path / "geo", geo_test=NEIGHBOURED_TEST)


def _failure() -> TestFailureRecord:
    return TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Geo", test_name="InsideExcludesFarEdge",
                             file_path="tests/geo_test.cc", failure_type="assertion",
                             suspects=[Suspect("src/geo.cc", "inside", 9, 11, 1.0)])


def _mutant(old: str, new: str) -> Mutant:
    line = GEO_CC.splitlines()[9]
    col = line.index(old) + 1
    return Mutant("test", f"{old} -> {new}", TextEdit("src/geo.cc", Position(10, col), Position(10, col + len(old)), new),
                  10, 0.9)


def test_the_schema_says_which_screened_fix_breaks_a_neighbour(proj: Path) -> None:
    trial, why = cxx_trial([_failure()], proj, proj / ".whetstone", timeout_s=10.0)
    assert trial is not None, why
    try:
        base = trial.baseline()
        trades = _mutant("x >= 0 && y >= 0 && x < w && y <= h", "false")
        exact = _mutant("y <= h", "y < h")
        screen = Screen(base, lambda rel: (proj / rel).read_text(), float("inf"), 5.0)
        screen.add([trades, exact])
        screen.prepare(trial)
        for mutant in (trades, exact):
            outcome = screen.outcome(mutant, trial)
            assert outcome is not None and outcome.passed == {"F1"}, outcome
        assert screen.breaks_others(trades, trial)
        assert not screen.breaks_others(exact, trial)
    finally:
        trial.close()
    assert (proj / "src/geo.cc").read_text() == GEO_CC


def test_the_search_still_validates_the_exact_fix_through_its_own_compile(proj: Path) -> None:
    stats = NativeSearchStats()
    found = native_search_candidates([_failure()], proj, 60.0, store=proj / ".whetstone", stats=stats)
    assert found and found[0].validated and found[0].edits[0].new_text in ("<", "y < h"), found
    assert stats.screened > 0
    # where the time went, for the session's search event: each phase at most the whole search
    assert {"setup", "baseline", "plans", "mutants", "wider"} <= set(stats.phases)
    assert all(0 <= seconds <= stats.elapsed_s for seconds in stats.phases.values())
    assert stats.to_dict()["phases"].keys() == stats.phases.keys()
    assert (proj / "src/geo.cc").read_text() == GEO_CC


BROKEN_MORE_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

TEST(More, ManhattanIsSymmetric) { EXPECT_EQ(manhattan(3, 4, 0, 0), 7); }
TEST(More, SomeoneElsesBug) { EXPECT_EQ(manhattan(0, 0, 0, 0), 1); }
"""


def test_a_test_that_failed_before_the_change_is_no_breakage_of_the_fix(tmp_path: Path) -> None:
    """The other binary has a failing test of its own that the search was not given (another bug, or a
    failure the run could not place): the wider check runs the user's binary once, unchanged, and a
    test failing there is not counted against the fix."""
    proj = build_make_project(tmp_path / "geo", {"Makefile": MAKEFILE, "src/geo.h": GEO_H, "src/geo.cc": GEO_CC,
                                                 "tests/geo_test.cc": NEIGHBOURED_TEST,
                                                 "tests/more_test.cc": BROKEN_MORE_TEST})
    stats = NativeSearchStats()
    found = native_search_candidates([_failure()], proj, 60, store=proj / ".whetstone", stats=stats)
    assert found and found[0].validated and found[0].edits[0].new_text == "<", stats.to_dict()
