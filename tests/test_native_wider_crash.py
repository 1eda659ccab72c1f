"""A fix that kills a later test of the same binary is not validated, though the binary died before too.

Real g++, GoogleTest, ``assert`` and make through ccwrap.  The seeded fault gives ``slots`` a capacity of
4 for 8, so ``Pool.Slots`` aborts in ``check``'s assert, and gtest never runs ``Pool.Half`` after it.
Turning the assert's ``n < cap`` into ``n > cap`` makes ``Pool.Slots`` pass and ``Pool.Half`` abort:
the binary dies either way, and only reading which test it died in, and running on past it, tells the
two apart.  The seeded constant's restoring edit breaks nothing and is validated (a death test keeps
``n != cap`` from passing too).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_native_search import build_make_project

from pytest_whetstone.candidates.native_cxx_whole import run_whole
from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.candidates.native_trial_cxx import cxx_trial
from pytest_whetstone.records import Suspect, TestFailureRecord

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make")), reason="ccwrap, g++ or make missing"
)

MAKEFILE = """\
CXX ?= g++
CXXFLAGS = -std=c++17 -O0 -Isrc
pool_test: src/pool.o tests/pool_test.o
\t$(CXX) -o pool_test tests/pool_test.o src/pool.o -lgtest -lgtest_main -pthread
src/pool.o: src/pool.cc src/pool.h
\t$(CXX) $(CXXFLAGS) -c src/pool.cc -o src/pool.o
tests/pool_test.o: tests/pool_test.cc src/pool.h
\t$(CXX) $(CXXFLAGS) -c tests/pool_test.cc -o tests/pool_test.o
check: pool_test
\t./pool_test
.PHONY: check
"""
POOL_H = """\
#pragma once
int check(int n, int cap);
int slots(int n);
int half(int n);
"""
POOL_CC = """\
#include <cassert>
#include "pool.h"

int check(int n, int cap) {
  assert(n < cap);
  return n;
}

int slots(int n) { return check(n, 4); }  // seeded fault: 8

int half(int n) { return check(n / 2, 4); }
"""
POOL_TEST = """\
#include <gtest/gtest.h>
#include "pool.h"

TEST(Pool, Slots) { EXPECT_EQ(slots(6), 6); }
TEST(Pool, Half) { EXPECT_EQ(half(2), 1); }
TEST(Pool, Last) { EXPECT_EQ(half(6), 3); }
TEST(Pool, OverCapacityDies) { EXPECT_DEATH(half(20), ""); }
"""
TRADED = POOL_CC.replace("assert(n < cap)", "assert(n > cap)")


def pool_project(root: Path, header: str, source: str, test: str) -> Path:
    """The pool project (MAKEFILE) with these texts, built through ccwrap."""
    return build_make_project(root, {"Makefile": MAKEFILE, "src/pool.h": header, "src/pool.cc": source,
                                     "tests/pool_test.cc": test})


def slots_failure(line: int) -> list[TestFailureRecord]:
    """``Pool.Slots`` crashed, ``slots`` (at ``line`` of src/pool.cc) its suspect."""
    return [TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Pool", test_name="Slots",
                              file_path="tests/pool_test.cc", failure_type="crash",
                              suspects=[Suspect("src/pool.cc", "slots", line, line, 1.0)])]


@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    return pool_project(tmp_path / "pool", POOL_H, POOL_CC, POOL_TEST)


def _failures() -> list[TestFailureRecord]:
    return slots_failure(9)


def test_the_user_binary_is_read_test_by_test_past_the_test_it_dies_in(proj: Path) -> None:
    trial, why = cxx_trial(_failures(), proj, proj / ".whetstone")
    assert trial is not None, why
    try:
        binary = trial.binaries[0]
        code, verdicts = run_whole(trial._execute, binary, binary.path)
        assert code not in (0, None)
        assert verdicts["Pool.Slots"] and verdicts["Pool.Slots"].startswith("crashed")
        assert verdicts["Pool.Half"] is None and verdicts["Pool.Last"] is None  # run after the death
        code, first = run_whole(trial._execute, binary, binary.path, resumes=0)  # the screen's: one run
        assert first == {"Pool.Slots": verdicts["Pool.Slots"]}
        # a death in a test that was passing already rejects: nothing past it is run
        assert run_whole(trial._execute, binary, binary.path, known=set())[1] == first
        assert run_whole(trial._execute, binary, binary.path, known={"Pool.Slots"})[1] == verdicts
    finally:
        trial.close()


def test_a_fix_that_kills_a_later_test_fails_the_wider_check(proj: Path) -> None:
    trial, why = cxx_trial(_failures(), proj, proj / ".whetstone")
    assert trial is not None, why
    try:
        traded = trial.run_wider("src/pool.cc", TRADED)
        assert not traded.ok and "Pool.Half" in traded.failed, traded
        restored = trial.run_wider("src/pool.cc", POOL_CC.replace("check(n, 4)", "check(n, 8)"))
        assert restored.ok, restored
    finally:
        trial.close()
    assert (proj / "src/pool.cc").read_text() == POOL_CC


def test_the_search_validates_the_restoring_edit_not_the_trade(proj: Path) -> None:
    stats = NativeSearchStats()
    found = native_search_candidates(_failures(), proj, 60.0, store=proj / ".whetstone", stats=stats)
    validated = [c for c in found if c.validated]
    assert validated, (stats.to_dict(), found)
    assert validated[0].edits[0].new_text == "8", validated
    assert not any(c.edits[0].new_text == ">" and c.edits[0].start.line == 5 for c in validated), validated
    assert (proj / "src/pool.cc").read_text() == POOL_CC
