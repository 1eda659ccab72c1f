"""A schema whose unmutated tests run slowly: dense numeric code with a choice in every operation.

Real g++, GoogleTest and make through ccwrap (the Makefile project of ``test_native_search``, built at
-O0).  The failing test first runs a loop of a few million steps over a function whose every operator
and literal has mutants.  The schema is compiled at -O0 for speed; its unmutated run is then timed and,
being several times the real build's, the schema is compiled again with the optimizer, which is kept
because its run is faster.  Each screened run's limit follows the schema's own run, not the baseline's.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from test_native_search import GEO_CC, build_make_geo
from test_native_search import _failure as geo_failure

from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_schema import schema_text
from pytest_whetstone.candidates.native_screen import Screen
from pytest_whetstone.candidates.native_trial_cxx import cxx_trial
from pytest_whetstone.records import Suspect, TestFailureRecord

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make")), reason="ccwrap, g++ or make missing"
)

MIXING_GEO_CC = """\
#include "geo.h"

long mix(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) {
    s = s + (i * 3 + 1) % 7 + (i & 5) - (i >> 3) % 2;
  }
  return s;
}

int manhattan(int x1, int y1, int x2, int y2) {
  return (x1 > x2 ? x1 - x2 : x2 - x1) + (y1 > y2 ? y1 - y2 : y2 - y1);
}

bool inside(int x, int y, int w, int h) {
  return x >= 0 && y >= 0 && x < w && y <= h;  // seeded fault: y <= h
}

int scale(int value, int num, int den) {
  return value * num / den;
}
"""
MIXING_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"
long mix(long n);

TEST(Geo, Manhattan) { EXPECT_EQ(manhattan(0, 0, 3, 4), 7); }
TEST(Geo, InsideExcludesFarEdge) {
  EXPECT_NE(mix(30000000), 0);
  EXPECT_FALSE(inside(1, 4, 4, 4));
}
"""


@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    return build_make_geo(tmp_path / "geo", geo_cc=MIXING_GEO_CC, geo_test=MIXING_TEST)


def _failure() -> TestFailureRecord:
    return TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Geo", test_name="InsideExcludesFarEdge",
                             file_path="tests/geo_test.cc", failure_type="assertion",
                             suspects=[Suspect("src/geo.cc", "inside", 15, 17, 1.0)])


def _mutants() -> list:
    """The likeliest families only: with every operator of each family, the guards of mix's hot loop
    cost about as much at -O2 as at -O0, and the optimized build is (rightly) not kept."""
    data = MIXING_GEO_CC.encode()
    return [m for m in [*mutants_in("src/geo.cc", data, 3, 9, qualname="mix"),
                        *mutants_in("src/geo.cc", data, 15, 17, qualname="inside")]
            if not m.kind.endswith("-other")]


def _record_optimize(trial: Any) -> list[bool]:
    """What the screen asks of ``trial.optimize_schema`` (on or off, in order), passed on to it."""
    asked: list[bool] = []
    optimize = trial.optimize_schema

    def recorded(rel: str, on: bool) -> None:
        asked.append(on)
        optimize(rel, on)

    trial.optimize_schema = recorded
    return asked


def test_each_mutated_expression_numbers_its_mutants_consecutively() -> None:
    """One guard per expression names its first and last mutant (it reads the switch once and records
    the reach of all of them); every mutant keeps an id of its own."""
    schema = schema_text("src/geo.cc", MIXING_GEO_CC.encode(), _mutants())
    assert schema is not None
    ids = sorted(schema.ids.values())
    assert ids == list(range(1, len(ids) + 1))
    body = schema.text.split("#line 1\n", 1)[1]
    guards = [(int(lo), int(hi)) for lo, hi in re.findall(r"whetstone_enter_\((\d+), (\d+)\)", body)]
    covered = [i for lo, hi in guards for i in range(lo, hi + 1)]
    assert sorted(covered) == ids  # the guards' ranges split the ids between them, none twice
    assert len(guards) < len(ids)  # expressions with several mutants share one guard


def test_a_slow_schema_is_compiled_again_with_the_optimizer(proj: Path) -> None:
    trial, why = cxx_trial([_failure()], proj, proj / ".whetstone", timeout_s=20.0)
    assert trial is not None, why
    try:
        base = trial.baseline()
        assert set(base.failing) == {"F1"}
        screen = Screen(base, lambda rel: (proj / rel).read_text(), float("inf"), 20.0)
        mutants = _mutants()
        screen.add(mutants)
        asked = _record_optimize(trial)
        screen.prepare(trial)
        assert asked and asked[0] is True, (screen.notes, base.seconds)  # compiled again with the optimizer
        # kept only when its run is faster (the reach recorded per choice may cost as much at -O2 on some CPUs)
        kept = any("compiled with the optimizer" in note for note in screen.notes)
        assert kept == ("src/geo.cc" in trial._optimized), (screen.notes, asked)
        state = screen.files["src/geo.cc"]
        assert state.schema is not None and state.timeout_s >= screen.timeout_s
        exact = next(m for m in mutants if m.edit.new_text == "<" and m.line == 16)
        fixed = screen.outcome(exact, trial)
        assert fixed is not None and fixed.passed == {"F1"} and not fixed.error, fixed
    finally:
        trial.close()
    assert (proj / "src/geo.cc").read_text() == MIXING_GEO_CC


def test_an_unmutated_schema_too_slow_for_its_share_of_the_time_left_is_not_waited_for(
        proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The unmutated schema's run is bounded by a share of the time left, not by all of it: mix's loop with a
    choice in every operation runs past that share at -O0, is stopped there and compiled again with the
    optimizer.  The optimized schema is kept when its run ends within its own share, else the schema is not
    used (its mutants are compiled alone); the notes say which."""
    from pytest_whetstone.candidates import native_screen, native_screen_plain

    monkeypatch.setattr(native_screen, "BASE_FACTOR", 0.5)  # a screened run's limit: 0.15 s, not five baselines
    monkeypatch.setattr(native_screen_plain, "SOUND_SHARE", 0.01)  # 0.3 s of the 30 s left
    trial, why = cxx_trial([_failure()], proj, proj / ".whetstone", timeout_s=20.0)
    assert trial is not None, why
    try:
        base = trial.baseline()
        screen = Screen(base, lambda rel: (proj / rel).read_text(), time.monotonic() + 30.0, 20.0)
        assert screen.timeout_s < 0.3
        screen.add(_mutants())
        asked = _record_optimize(trial)
        screen.prepare(trial)
        assert asked[:1] == [True], (screen.notes, asked)  # stopped at 0.3 s and compiled with the optimizer
        kept = any("compiled with the optimizer, its unmutated tests over" in note for note in screen.notes)
        assert kept == (screen.files["src/geo.cc"].schema is not None), screen.notes
        assert kept or any("their share of the time left" in note for note in screen.notes), screen.notes
    finally:
        trial.close()


SKIPPING_GEO_CC = """\
#include "geo.h"

int sum_to(int n) {
  int s = 0;
  for (int i = 0; i > n; i++) {  // seeded fault: `>` skips the loop
    s += i * 2 - i;
  }
  return s;
}

int manhattan(int x1, int y1, int x2, int y2) {
  return (x1 > x2 ? x1 - x2 : x2 - x1) + (y1 > y2 ? y1 - y2 : y2 - y1);
}

bool inside(int x, int y, int w, int h) {
  return x >= 0 && y >= 0 && x < w && y < h;
}

int scale(int value, int num, int den) {
  return value * num / den;
}
"""
SKIPPING_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"
int sum_to(int n);

TEST(Geo, Manhattan) { EXPECT_EQ(manhattan(0, 0, 3, 4), 7); }
TEST(Geo, SumTo) { EXPECT_EQ(sum_to(4), 6); }
"""


def test_code_a_fault_skips_is_no_evidence_against_its_function(tmp_path: Path) -> None:
    """The fault keeps the loop from starting: the loop body's mutants are never reached, yet the
    function ran.  They cost no run and, unlike the mutants of a function that never ran, say nothing
    against it: its evidence counts only the mutants that ran."""
    from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates

    proj = build_make_geo(tmp_path / "geo", geo_cc=SKIPPING_GEO_CC, geo_test=SKIPPING_TEST)
    failure = TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Geo", test_name="SumTo",
                                file_path="tests/geo_test.cc", failure_type="assertion",
                                suspects=[Suspect("src/geo.cc", "sum_to", 3, 9, 1.0)])
    stats = NativeSearchStats()
    found = native_search_candidates([failure], proj, 60.0, store=proj / ".whetstone", stats=stats)
    assert found and found[0].validated and found[0].edits[0].new_text in ("<", "i < n"), stats.to_dict()
    evidence = {e["qualname"]: e for e in stats.evidence}
    assert stats.unreached >= 1 and evidence["sum_to"]["tried"] <= stats.tried, stats.to_dict()
    assert (proj / "src/geo.cc").read_text() == SKIPPING_GEO_CC


SLEEPY_TEST = """\
#include <gtest/gtest.h>
#include <chrono>
#include <thread>
#include "geo.h"

TEST(Geo, Manhattan) { EXPECT_EQ(manhattan(0, 0, 3, 4), 7); }
TEST(Geo, InsideExcludesFarEdge) { EXPECT_FALSE(inside(1, 4, 4, 4)); }
TEST(Geo, InsideAfterAWhile) {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a test that costs, whatever the code
  EXPECT_FALSE(inside(2, 4, 4, 4));
}
"""


def test_a_screened_run_covers_the_failing_tests_that_cost_little_in_the_schema(tmp_path: Path) -> None:
    """Two tests fail on the fault, one quick and one that takes 0.3 s whatever the code: the unmutated
    schema's run times each, and a screened mutant runs the quick one alone; the exact fix passes it
    there (the search then compiles it alone, where every failing test runs)."""
    proj = build_make_geo(tmp_path / "geo", geo_cc=GEO_CC, geo_test=SLEEPY_TEST)
    failures = [TestFailureRecord(failure_id=fid, runner="gtest", test_suite="Geo", test_name=name,
                                  file_path="tests/geo_test.cc", failure_type="assertion",
                                  suspects=[Suspect("src/geo.cc", "inside", 9, 11, 1.0)])
                for fid, name in (("F1", "InsideExcludesFarEdge"), ("F2", "InsideAfterAWhile"))]
    trial, why = cxx_trial(failures, proj, proj / ".whetstone", timeout_s=20.0)
    assert trial is not None, why
    try:
        base = trial.baseline()
        assert set(base.failing) == {"F1", "F2"} and base.test_s["F2"] >= 0.3 > base.test_s["F1"]
        screen = Screen(base, lambda rel: (proj / rel).read_text(), float("inf"), 20.0)
        mutants = mutants_in("src/geo.cc", GEO_CC.encode(), 9, 11, qualname="inside")
        screen.add(mutants)
        screen.prepare(trial)
        assert screen.files["src/geo.cc"].probe == {"F1"}, screen.notes
        assert any("1 of 2 failing tests" in note for note in screen.notes)
        exact = next(m for m in mutants if m.edit.new_text == "<" and "y <= h" in m.description)
        started = time.monotonic()
        fixed = screen.outcome(exact, trial)
        assert fixed is not None and fixed.passed == {"F1"} and "F2" not in fixed.failing, fixed
        assert time.monotonic() - started < 0.3  # the slow test did not run
        # its limit comes from the quick test's own times, not from the slow one's
        assert screen.files["src/geo.cc"].timeout_s < 1.0, screen.files["src/geo.cc"].timeout_s
    finally:
        trial.close()
    assert (proj / "src/geo.cc").read_text() == GEO_CC


WRAPPING_GEO_CC = """\
#include "geo.h"

unsigned countdown(unsigned n) {
  unsigned c = 0;
  for (unsigned k = n; k != 0; k += 2) {  // seeded fault: `+=` for `-=` runs k up until it wraps
    c++;
  }
  return c;
}

""" + SKIPPING_GEO_CC[SKIPPING_GEO_CC.index("int manhattan"):]  # the other functions, as written
WRAPPING_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"
unsigned countdown(unsigned n);

TEST(Geo, Manhattan) { EXPECT_EQ(manhattan(0, 0, 3, 4), 7); }
TEST(Geo, Countdown) { EXPECT_EQ(countdown(6), 3u); }
"""


def test_a_fault_that_makes_the_failing_test_run_long_is_screened_at_a_unit_tests_pace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fault turns a three-step loop into two thousand million steps: the failing test takes most of a
    second in the real build (-O0 here; SLOW_BASE_S lowered to match) and longer as a schema.  The unmutated schema is checked for not passing within the real
    build's time, not waited for to its end, and each screened run gets what a fixed unit test needs
    (NEVER_ENDED_RUN_S), not five times a run that only ended because the counter wrapped; a mutant in the
    loop that still does not end is stopped once its expression has run a million times."""
    from pytest_whetstone.candidates import native_screen_plain
    from pytest_whetstone.candidates.native_screen import NEVER_ENDED_RUN_S

    monkeypatch.setattr(native_screen_plain, "SLOW_BASE_S", 0.2)
    monkeypatch.setattr(native_screen_plain, "NEVER_ENDED_SOUND_S", 0.2)
    proj = build_make_geo(tmp_path / "geo", geo_cc=WRAPPING_GEO_CC, geo_test=WRAPPING_TEST)
    failure = geo_failure(proj, "Countdown", Suspect("src/geo.cc", "countdown", 3, 9, 1.0))
    trial, why = cxx_trial([failure], proj, proj / ".whetstone", timeout_s=30.0)
    assert trial is not None, why
    try:
        base = trial.baseline()
        assert set(base.failing) == {failure.failure_id} and base.seconds >= 0.2, base
        screen = Screen(base, lambda rel: (proj / rel).read_text(), float("inf"), 30.0)
        mutants = mutants_in("src/geo.cc", WRAPPING_GEO_CC.encode(), 3, 9, qualname="countdown")
        screen.add(mutants)
        started = time.monotonic()
        screen.prepare(trial)
        state = screen.files["src/geo.cc"]
        assert state.schema is not None, screen.notes
        assert time.monotonic() - started < base.seconds + 10  # the unmutated schema was not run to its end
        assert state.timeout_s == NEVER_ENDED_RUN_S, (state.timeout_s, screen.notes)  # slower than the real build
        other = next(m for m in mutants if m.edit.new_text == "--")  # `c--`: the loop still wraps
        started = time.monotonic()
        cut = screen.outcome(other, trial)
        assert cut is not None and not cut.passed and cut.timed_out, cut
        # stopped by its own expression's count (a million turns), not at the time limit
        assert screen.spun == 1 and time.monotonic() - started < NEVER_ENDED_RUN_S, cut
        exact = next(m for m in mutants if m.edit.new_text == "-=")
        fixed = screen.outcome(exact, trial)
        assert fixed is not None and fixed.passed == {failure.failure_id} and not fixed.error, fixed
    finally:
        trial.close()
    assert (proj / "src/geo.cc").read_text() == WRAPPING_GEO_CC
