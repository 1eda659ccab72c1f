"""GNU make deletes the intermediate objects of chained pattern rules once the test binary is made
(``%_test: tests/%_test.o``, ``tests/%.o: tests/%.cc``), so the link the build recorded names objects
that are gone.  The trial compiles each from its own recorded compile into its scratch, once, and
relinks; the user's tree stays as make left it.  Real g++, GoogleTest and make, through ccwrap."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_native_search import GEO_CC, GEO_H, GEO_TEST, MORE_TEST, _failure, _tree_hashes, build_make_project

from pytest_whetstone.candidates.native_trial_cxx import cxx_trial
from pytest_whetstone.records import Suspect

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap") and shutil.which("ccwrap++") and shutil.which("g++")), reason="ccwrap or g++ missing"
)

CHAINED_MAKEFILE = """\
CXX ?= g++
CXXFLAGS = -std=c++17 -O0 -Isrc
LIBS = -lgtest -lgtest_main -pthread
TESTS = geo_test more_test
all: $(TESTS)
src/geo.o: src/geo.cc src/geo.h
\t$(CXX) $(CXXFLAGS) -c src/geo.cc -o src/geo.o
tests/%.o: tests/%.cc src/geo.h
\t$(CXX) $(CXXFLAGS) -c $< -o $@
%_test: tests/%_test.o src/geo.o
\t$(CXX) -o $@ $^ $(LIBS)
check: $(TESTS)
\t./geo_test && ./more_test
.PHONY: all check
"""


def test_a_link_whose_intermediate_objects_make_deleted_is_relinked_from_their_recorded_compiles(
        tmp_path: Path) -> None:
    proj = build_make_project(tmp_path / "geo", {"Makefile": CHAINED_MAKEFILE, "src/geo.h": GEO_H,
                                                 "src/geo.cc": GEO_CC, "tests/geo_test.cc": GEO_TEST,
                                                 "tests/more_test.cc": MORE_TEST})
    assert not (proj / "tests/geo_test.o").exists()  # make removed it: the recorded link names a lost object
    before = _tree_hashes(proj)
    failure = _failure(proj, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 9, 11, 1.0))
    trial, why = cxx_trial([failure], proj, proj / ".whetstone", timeout_s=10.0)
    assert trial is not None, why
    try:
        assert failure.failure_id in trial.baseline().failing
        still = trial.run_failing("src/geo.cc", GEO_CC.replace("x >= 0", "x > 0"))
        assert still.failing and not still.error, still
        fixed = trial.run_failing("src/geo.cc", GEO_CC.replace("y <= h", "y < h"))
        assert fixed.passed == {failure.failure_id} and not fixed.error, fixed
        assert trial.run_wider("src/geo.cc", GEO_CC.replace("y <= h", "y < h")).ok
        lost = [obj for (_binary, real), obj in trial.link_objects.made.items() if real.endswith("_test.o")]
        assert len(lost) == 2 and all(lost)  # each test object compiled once, for its own binary
    finally:
        trial.close()
    assert _tree_hashes(proj) == before
