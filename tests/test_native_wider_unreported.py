"""A fix of the test a binary died in that leaves the tests behind it failing does not pass for a fix of
every failing test.

Real g++, GoogleTest, ``assert`` and make through ccwrap.  The seeded fault gives the pool a capacity of
4 for 8: ``Pool.Slots`` aborts in ``check``'s assert, and gtest never runs ``Pool.Capacity`` after it,
which fails as well.  The run reports one failing test.  Passing 8 to ``check`` in ``slots`` makes
``Pool.Slots`` pass and breaks nothing, yet ``Pool.Capacity`` still fails: the user's own binary, read
past the test it died in, fails it too, so it is no breakage, but the fix is not one of every failing
test (the search looks on for the edit that fixes both).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import test_native_wider_crash as crash

from pytest_whetstone.candidates.mutant import Mutant
from pytest_whetstone.candidates.native_candidate import validated_candidate
from pytest_whetstone.candidates.native_trial import TrialOutcome
from pytest_whetstone.candidates.native_trial_cxx import cxx_trial
from pytest_whetstone.records import Position, TestFailureRecord, TextEdit

pytestmark = crash.pytestmark  # ccwrap, g++ and make

POOL_H = """\
#pragma once
int slots(int n);
int capacity();
"""
POOL_CC = """\
#include <cassert>
#include "pool.h"

static const int CAP = 4;  // seeded fault: 8

static int check(int n, int cap) {
  assert(n < cap);
  return n;
}

int slots(int n) { return check(n, CAP); }

int capacity() { return CAP; }
"""
POOL_TEST = """\
#include <gtest/gtest.h>
#include "pool.h"

TEST(Pool, Slots) { EXPECT_EQ(slots(6), 6); }
TEST(Pool, Capacity) { EXPECT_EQ(capacity(), 8); }
TEST(Pool, Small) { EXPECT_EQ(slots(1), 1); }
"""
SLOTS_ONLY = POOL_CC.replace("check(n, CAP)", "check(n, 8)")
RESTORED = POOL_CC.replace("CAP = 4", "CAP = 8")


@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    return crash.pool_project(tmp_path / "pool", POOL_H, POOL_CC, POOL_TEST)


def _failures() -> list[TestFailureRecord]:
    return crash.slots_failure(11)


def _candidate(proj: Path, wider: object) -> dict[str, Any]:
    mutant = Mutant("int-const", "an edit", TextEdit("src/pool.cc", Position(4, 1), Position(4, 2), "x"), 4, 0.55)
    base = {"F1": "crashed"}
    outcome = TrialOutcome(passed={"F1"})
    cand = validated_candidate(mutant, base, outcome, wider, ["F1"], 1, proj)  # type: ignore[arg-type]
    return {"every": cand.mutation["every"], "complete": cand.mutation["complete"],
            "description": cand.description, "confidence": cand.confidence}


def test_the_tests_behind_the_death_left_failing_are_said_and_the_fix_is_not_of_every_test(proj: Path) -> None:
    trial, why = cxx_trial(_failures(), proj, proj / ".whetstone")
    assert trial is not None, why
    try:
        partial = trial.run_wider("src/pool.cc", SLOTS_ONLY)
        assert partial.ok and partial.unreported == ["Pool.Capacity"], partial  # fails in the user's binary too
        whole = trial.run_wider("src/pool.cc", RESTORED)
        assert whole.ok and whole.unreported == [], whole
    finally:
        trial.close()
    assert (proj / "src/pool.cc").read_text() == POOL_CC
    left, every = _candidate(proj, partial), _candidate(proj, whole)
    assert left["complete"] and not left["every"]  # the search looks on (native_partial.enough)
    assert every["every"]
    assert "Pool.Capacity" in left["description"] and left["confidence"] < every["confidence"]
