"""A test that ``#include``s the source file it tests (to reach its static functions: cJSON's tests, unity
builds) holds its own copy of that code: a mutant of the source is compiled into that test's unit too,
or the test binary never sees it.  Real g++, GoogleTest, ar and make through ccwrap."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_native_search import _failure, _tree_hashes, build_make_project

from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.records import Suspect

MAKEFILE = """\
CXX ?= g++
CXXFLAGS = -std=c++17 -O0 -Isrc
LIBS = -lgtest -lgtest_main -pthread
all: geo_test
src/geo.o: src/geo.cc
\t$(CXX) $(CXXFLAGS) -c src/geo.cc -o src/geo.o
libgeo.a: src/geo.o
\tar rcs libgeo.a src/geo.o
tests/geo_test.o: tests/geo_test.cc src/geo.cc
\t$(CXX) $(CXXFLAGS) -c tests/geo_test.cc -o tests/geo_test.o
geo_test: tests/geo_test.o libgeo.a
\t$(CXX) -o geo_test tests/geo_test.o libgeo.a $(LIBS)
check: geo_test
\t./geo_test
.PHONY: all check
"""
GEO_CC = """\
static bool inside(int x, int y, int w, int h) {
  return x >= 0 && y >= 0 && x < w && y <= h;  // seeded fault: y <= h
}

int count_inside(const int *xs, const int *ys, int n, int w, int h) {
  int count = 0;
  for (int i = 0; i < n; ++i) count += inside(xs[i], ys[i], w, h) ? 1 : 0;
  return count;
}
"""
GEO_TEST = """\
#include <gtest/gtest.h>
#include "../src/geo.cc"

TEST(Geo, InsideExcludesFarEdge) {
  EXPECT_TRUE(inside(0, 0, 4, 4));
  EXPECT_FALSE(inside(1, 4, 4, 4));
}
"""


@pytest.mark.parametrize("through", ["", "common.h"])
def test_a_fix_in_a_source_the_test_includes_is_found_and_validated(tmp_path: Path, through: str) -> None:
    """The test includes the source directly, or through a header of its own (no dependency file says so)."""
    files = {"Makefile": MAKEFILE, "src/geo.cc": GEO_CC, "tests/geo_test.cc": GEO_TEST}
    if through:
        files["tests/geo_test.cc"] = GEO_TEST.replace('#include "../src/geo.cc"', f'#include "{through}"')
        files[f"tests/{through}"] = '#pragma once\n#include "../src/geo.cc"\n'
    proj = build_make_project(tmp_path / "geo", files)
    before = _tree_hashes(proj)
    failure = _failure(proj, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 1, 3, 1.0))
    stats = NativeSearchStats()
    found = native_search_candidates([failure], proj, 60, store=proj / ".whetstone", stats=stats)
    assert _tree_hashes(proj) == before
    assert found and found[0].validated and found[0].edits[0].new_text == "<", stats.to_dict()
