"""After an edit that fixes some failing tests only, the other edits of its line come first.

Real g++, GoogleTest, make through ccwrap and the search.  The seeded fault drops a `!`:
``if (name || n < 0)`` for ``if (!name || n < 0)``.  ``||`` -> ``&&`` fixes one of the two failing tests
(a named entry is labelled again) but not the other (an unnamed one must read "none"), and ``n < 0`` ->
``n >= 0`` the other one only; the negation of ``name`` on the same line fixes both.  The partial
fixes do not end the search: the line's other edits are tried, and the complete fix ranks first.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_native_search import MAKEFILE, build_make_project
from test_native_search_doubt import MORE_TEST  # spread(10, 4) == 3

from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.records import Suspect, TestFailureRecord

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make")), reason="ccwrap, g++ or make missing"
)

GEO_H = """\
#pragma once
const char* label(const char* name, int n);
int spread(int items, int buckets);
"""
GEO_CC = """\
#include "geo.h"

const char* label(const char* name, int n) {
  if (name || n < 0) return "none";  // seeded fault: !name
  static char buf[32];
  int k = 0;
  for (int i = 0; i < n && name && name[i] && k < 31; i++) {
    buf[k++] = name[i] == 'a' ? 'A' : name[i];
  }
  buf[k] = 0;
  return buf;
}

int spread(int items, int buckets) { return (items + buckets - 1) / buckets; }
"""
GEO_TEST = """\
#include <gtest/gtest.h>
#include <string>
#include "geo.h"

TEST(Label, Named) { EXPECT_EQ(std::string(label("abc", 3)), "Abc"); }
TEST(Label, Unnamed) { EXPECT_EQ(std::string(label(nullptr, 2)), "none"); }
TEST(Label, Negative) { EXPECT_EQ(std::string(label("ab", -1)), "none"); }
"""
@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    return build_make_project(tmp_path / "weigh", {"Makefile": MAKEFILE, "src/geo.h": GEO_H, "src/geo.cc": GEO_CC,
                                                    "tests/geo_test.cc": GEO_TEST, "tests/more_test.cc": MORE_TEST})


def _failures() -> list[TestFailureRecord]:
    suspects = [Suspect("src/geo.cc", "label", 3, 12, 1.0)]
    return [TestFailureRecord(failure_id=f"F{i}", runner="gtest", test_suite="Label", test_name=name,
                              file_path="tests/geo_test.cc", failure_type="assertion", suspects=list(suspects))
            for i, name in enumerate(("Named", "Unnamed"))]


def test_the_line_of_a_partial_fix_is_searched_first_and_its_complete_fix_found(proj: Path) -> None:
    stats = NativeSearchStats()
    found = native_search_candidates(_failures(), proj, 90.0, store=proj / ".whetstone", stats=stats)
    every = [c for c in found if c.validated and c.mutation.get("complete") and c.mutation.get("every")]
    assert every, (stats.to_dict(), found)
    top = found[0]
    assert top in every and top.edits[0].start.line == 4 and top.edits[0].new_text == "!name", found
    assert any(c.edits[0].new_text == "&&" and not c.mutation.get("every") for c in found), found
    assert (proj / "src/geo.cc").read_text() == GEO_CC


def test_a_partial_fixs_line_takes_every_pending_edit_of_it_once_whatever_its_prior() -> None:
    from pytest_whetstone.candidates.native_mutants import mutants_in
    from pytest_whetstone.candidates.native_plan import _Plan, same_line

    failure = _failures()[0]
    plans = [_Plan(failure, "src/geo.cc", "label", m, 0, r)
             for r, m in enumerate(mutants_in("src/geo.cc", GEO_CC.encode(), 3, 12))]
    winner = next(p for p in plans if p.mutant.edit.new_text == "&&")
    near = same_line(winner, plans + plans, {winner.mutant.key})
    assert {p.mutant.line for p in near} == {4} and len(near) == len({p.mutant.key for p in near})
    assert any(p.mutant.edit.new_text == "!name" for p in near)
    assert len(near) == len([p for p in plans if p.mutant.line == 4]) - 1  # all of them but the winner
