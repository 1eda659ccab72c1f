"""A complete fix that reads worse than the code it replaces does not end the search.

Real g++, GoogleTest, make through ccwrap and the search.  The seeded fault starts a rehash loop at 2
instead of 0, so two items are lost.  The tests cannot tell the exact fix from two others that also
make them pass: ``items == buckets`` in the caller (no rehash for the sizes tested) and ``kept = 2``
(two items counted back).  Both read less naturally than the code they replace; ``i = 0`` reads like
the file's other loops.  One mutant at a time, ``kept = 2`` is found first; the search looks on, finds
``i = 0``, and ranks it first.  Two at a time, both come in one batch: every run of the batch is judged,
and ``i = 0`` still ranks first.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_native_search import MAKEFILE, build_make_project

from pytest_whetstone.candidates import native_search
from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.records import Suspect, TestFailureRecord

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make")), reason="ccwrap, g++ or make missing"
)

TABLE_H = """\
#pragma once
int fill(int items, int limit);
int insert_all(int items);
int spread(int items, int buckets);
"""
TABLE_CC = """\
#include "geo.h"

static int rehash(int items, int buckets) {
  int kept = 0;
  for (int i = 2; i < items; i++) {  // seeded fault: i = 0
    kept += (i % buckets) >= 0 ? 1 : 0;
  }
  return kept;
}

int fill(int items, int limit) {
  int used = 0;
  for (int i = 0; i < items; i++) {
    if (used < limit) {
      used += 1;
    }
  }
  return used;
}

int insert_all(int items) {
  int buckets = 4;
  int kept = items;
  if (items > buckets) {
    kept = rehash(items, buckets * 2);
  }
  return kept;
}

int spread(int items, int buckets) {
  int max = 0;
  for (int i = 0; i < buckets; i++) {
    int here = items / buckets + (i < items % buckets ? 1 : 0);
    if (here > max) {
      max = here;
    }
  }
  return max;
}
"""
TABLE_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

TEST(Table, KeepsEveryItem) {
  EXPECT_EQ(insert_all(10), 10);
  EXPECT_EQ(insert_all(2), 2);
}
TEST(Table, Fill) { EXPECT_EQ(fill(5, 3), 3); }
"""
MORE_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

TEST(More, Spread) { EXPECT_EQ(spread(10, 4), 3); }
"""


@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    return build_make_project(tmp_path / "table", {"Makefile": MAKEFILE, "src/geo.h": TABLE_H, "src/geo.cc": TABLE_CC,
                                                    "tests/geo_test.cc": TABLE_TEST, "tests/more_test.cc": MORE_TEST})


def _failure() -> TestFailureRecord:
    return TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Table", test_name="KeepsEveryItem",
                             file_path="tests/geo_test.cc", failure_type="assertion",
                             suspects=[Suspect("src/geo.cc", "insert_all", 21, 28, 1.0),
                                       Suspect("src/geo.cc", "rehash", 3, 9, 0.5)])


def test_a_fix_that_reads_worse_than_the_code_does_not_end_the_search(proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_search, "WORKERS", 1)  # one mutant at a time: the doubtful fix comes alone, first
    stats = NativeSearchStats()
    found = native_search_candidates([_failure()], proj, 90.0, store=proj / ".whetstone", stats=stats)
    complete = [c for c in found if c.validated and c.mutation.get("complete")]
    assert stats.doubted == 1, (str(stats.to_dict()), found)
    assert len(complete) >= 2, found
    top = found[0]
    assert top.edits[0].start.line == 5 and top.edits[0].new_text == "0", found
    assert top.mutation["naturalness"] > 0
    assert all(c.mutation["naturalness"] < 0 for c in complete[1:] if c is not top and "naturalness" in c.mutation)
    assert (proj / "src/geo.cc").read_text() == TABLE_CC


def test_fixes_found_in_one_batch_are_all_judged(proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_search, "WORKERS", 2)
    found = native_search_candidates([_failure()], proj, 90.0, store=proj / ".whetstone")
    top = found[0]
    assert top.edits[0].start.line == 5 and top.edits[0].new_text == "0", found
    assert (proj / "src/geo.cc").read_text() == TABLE_CC


WIDEN_H = """\
#pragma once
int widen(int v, int hi);
int label_width(int n);
int spread(int items, int buckets);
"""
WIDEN_CC = """\
#include "geo.h"

int widen(int v, int hi) {
  if (v > hi) return hi;
  return v * 3;  // seeded fault: v * 2
}

int label_width(int n) {
  int pad = 0;
  return widen(n, 100) - pad;
}

int spread(int items, int buckets) { return items / buckets; }
"""
WIDEN_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

TEST(Label, Width) { EXPECT_EQ(label_width(1), 2); }
TEST(Widen, Direct) { EXPECT_EQ(widen(4, 100), 8); }
TEST(Widen, High) { EXPECT_EQ(widen(500, 100), 100); }
"""
SPREAD_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

TEST(More, Spread) { EXPECT_EQ(spread(12, 4), 3); }
"""


def test_a_fix_of_some_failing_tests_only_does_not_end_the_search(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The callee's fault fails two tests; the caller's `pad = 1` makes one pass and leaves the other
    failing as before, which reads as complete (another fault's failure) and used to end a search that
    wanted one fix.  The search looks on, and the callee's `v * 2`, which makes both pass, ranks first."""
    proj = build_make_project(tmp_path / "widen", {"Makefile": MAKEFILE, "src/geo.h": WIDEN_H, "src/geo.cc": WIDEN_CC,
                                                   "tests/geo_test.cc": WIDEN_TEST, "tests/more_test.cc": SPREAD_TEST})
    monkeypatch.setattr(native_search, "WORKERS", 1)  # one mutant at a time: the caller's edit comes first
    # the failing tests in the run's order, whatever their suspects score: the caller's test leads the plan
    monkeypatch.setattr(native_search, "surest_first", list)
    label = TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Label", test_name="Width",
                              file_path="tests/geo_test.cc", failure_type="assertion",
                              suspects=[Suspect("src/geo.cc", "label_width", 8, 11, 1.0),
                                        Suspect("src/geo.cc", "widen", 3, 6, 0.5)])
    direct = TestFailureRecord(failure_id="F2", runner="gtest", test_suite="Widen", test_name="Direct",
                               file_path="tests/geo_test.cc", failure_type="assertion",
                               suspects=[Suspect("src/geo.cc", "widen", 3, 6, 1.0)])
    stats = NativeSearchStats()
    found = native_search_candidates([label, direct], proj, 90.0, store=proj / ".whetstone", stats=stats,
                                     max_validated=1)
    top = found[0]
    assert top.edits[0].start.line == 5 and top.edits[0].new_text == "2", (found, stats.to_dict())
    assert top.mutation["every"] and sorted(top.mutation["fixes"]) == ["F1", "F2"]
    assert stats.doubted >= 1
    assert (proj / "src/geo.cc").read_text() == WIDEN_CC
