"""A header included by more units than a mutant recompiles: the units the failing test's binary links
are the ones recompiled.  Each unit holds its own copy of the header's inline function and the linker
keeps the first it meets, so a recompiled unit the test binary never links changes nothing.

Real CMake + Ninja through ccwrap, GoogleTest, ctest: ten tools (``aa/tool*.cc``, compiled before the
test in the database's order) include the faulty header; the test binary links only its own file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_native_search_headers import CLAMP_H, TEST, cmake_ninja_project

from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.candidates.native_trial_cxx import MAX_UNITS_PER_HEADER, cxx_trial
from pytest_whetstone.records import Suspect, TestFailureRecord

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("cmake", "ninja", "ccwrap", "g++")), reason="cmake, ninja, ccwrap or g++ missing"
)

TOOLS = 10
CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(many CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(GTest REQUIRED)
enable_testing()
include_directories(.)
""" + "".join(f"add_executable(tool{i} aa/tool{i}.cc)\n" for i in range(TOOLS)) + """\
add_executable(clamp_test tests/clamp_test.cc)
target_link_libraries(clamp_test PRIVATE GTest::gtest_main)
include(GoogleTest)
gtest_discover_tests(clamp_test)
"""


@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    mid = '#pragma once\n#include "clamp.h"\nnamespace lib {\ninline int span(int lo, int hi) { return hi - lo; }\n}\n'
    files = {"CMakeLists.txt": CMAKE, "lib/clamp.h": CLAMP_H, "lib/all.h": '#pragma once\n#include "mid.h"\n',
             "lib/mid.h": mid, "tests/clamp_test.cc": TEST}
    files |= {f"aa/tool{i}.cc": f'#include "lib/clamp.h"\nint main() {{ return lib::width({i}, {i + 3}) > 0 ? 0 : 1; }}\n'
              for i in range(TOOLS)}
    return cmake_ninja_project(tmp_path / "many", files)


def _failure() -> TestFailureRecord:
    return TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Width", test_name="CountsBothEnds",
                             file_path="tests/clamp_test.cc", failure_type="assertion",
                             suspects=[Suspect("lib/clamp.h", "lib::width", 8, 10, 1.0)])


def test_the_units_the_failing_binary_links_are_recompiled_first(proj: Path) -> None:
    trial, why = cxx_trial([_failure()], proj, proj / ".whetstone")
    assert trial is not None, why
    try:
        units = trial._including_units((proj / "lib/clamp.h").resolve())
        assert len(units) == MAX_UNITS_PER_HEADER < TOOLS + 1
        assert units[0].sources[0].endswith("tests/clamp_test.cc"), [u.sources for u in units]
    finally:
        trial.close()


def test_a_fault_in_a_header_many_units_include_is_fixed(proj: Path) -> None:
    stats = NativeSearchStats()
    found = native_search_candidates([_failure()], proj, 90.0, store=proj / ".whetstone", stats=stats)
    assert found and found[0].validated and found[0].edits[0].file_path == "lib/clamp.h", stats.notes
    assert (proj / "lib/clamp.h").read_text() == CLAMP_H
