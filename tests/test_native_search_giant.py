"""A fault in a huge function, found through the real build.

Real g++, GoogleTest, make through ccwrap and the search.  ``route`` holds far more mutants than the
800 a function keeps in the plan, and the fault drops a `!` in a branch only the failing tests take:
``if (flip) x = -x;`` for ``if (!flip) x = -x;``.  By prior the way back ranks past the cap, behind
the likelier kinds of every busy line.  The schema's record of what each test ran singles that line out,
and the plan's cut, made after that, keeps its edits; the fix is validated and restores the original
exactly, and the user's tree is untouched.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_native_search import MAKEFILE, _tree_hashes, build_make_project

from pytest_whetstone.candidates.native_mutants import MAX_MUTANTS, mutants_in
from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.edits import apply_edits_text
from pytest_whetstone.records import Suspect, TestFailureRecord

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make")), reason="ccwrap, g++ or make missing"
)

BUSY = 40  # lines of likely-kinded mutants before the branch
GEO_H = "#pragma once\nint route(int x, int mode, bool flip);\n"
ORIGINAL = ("#include \"geo.h\"\n\nint route(int x, int mode, bool flip) {\n"
            + "".join(f"  x = (x * {3 + k % 5} + mode + {k}) % {900 + k} + (x < {k + 7}) + (mode >= 2);\n"
                      for k in range(BUSY))
            + "  if (mode == 3) {\n    if (!flip) x = -x;\n  }\n  return x;\n}\n")
GEO_CC = ORIGINAL.replace("if (!flip)", "if (flip)")
FAULT_LINE = GEO_CC.splitlines().index("    if (flip) x = -x;") + 1
LAST_LINE = GEO_CC.count("\n")
GEO_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

TEST(Route, PlainStaysPositive) { EXPECT_GT(route(5, 1, false), 2); }
TEST(Route, PlainFlipStaysPositive) { EXPECT_GT(route(9, 1, true), 2); }
TEST(Route, ModeTwoStaysPositive) { EXPECT_GT(route(4, 2, false), 2); }
TEST(Route, ThreeMirrors) { EXPECT_LT(route(5, 3, false), 0); }
"""
MORE_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

TEST(More, Route) { EXPECT_GT(route(1, 0, true), 2); }
"""


def _failures() -> list[TestFailureRecord]:
    suspects = [Suspect("src/geo.cc", "route", 3, LAST_LINE, 1.0)]
    return [TestFailureRecord(failure_id=f"F{i}", runner="gtest", test_suite="Route", test_name=name,
                              file_path="tests/geo_test.cc", failure_type="assertion", suspects=list(suspects))
            for i, name in enumerate(("ThreeMirrors",))]


def test_the_way_back_ranks_past_the_cap_by_prior() -> None:
    every = mutants_in("src/geo.cc", GEO_CC.encode(), 3, LAST_LINE, limit=None)
    back = [i for i, m in enumerate(every) if apply_edits_text(GEO_CC, [m.edit]) == ORIGINAL]
    assert back and back[0] >= MAX_MUTANTS and every[back[0]].line == FAULT_LINE, (len(every), back)


def test_a_fault_in_a_huge_function_is_fixed_as_written(tmp_path: Path) -> None:
    proj = build_make_project(tmp_path / "route", {"Makefile": MAKEFILE, "src/geo.h": GEO_H, "src/geo.cc": GEO_CC,
                                                    "tests/geo_test.cc": GEO_TEST, "tests/more_test.cc": MORE_TEST})
    before = _tree_hashes(proj)
    stats = NativeSearchStats()
    found = native_search_candidates(_failures(), proj, 90.0, store=proj / ".whetstone", stats=stats)
    assert _tree_hashes(proj) == before
    assert found, {k: v for k, v in stats.to_dict().items() if k in ("stopped", "notes", "tried", "screened", "spectrum", "screen")}
    top = found[0]
    assert top.validated and apply_edits_text(GEO_CC, top.edits) == ORIGINAL, (stats.to_dict(), found[:3])
