"""A header-only C++ library: every suspect lives in a header.

Real CMake + Ninja through ccwrap as the compiler launcher, GoogleTest, ctest.  The test includes
``lib/all.h``, which includes ``lib/mid.h``, which includes ``lib/clamp.h`` where the seeded fault is
(``width``):
Ninja folds the compiler's depfiles into its own log, so the units that include ``clamp.h`` are found
through the chain of ``#include`` lines.  A header no unit includes (``lib/unused.h``) ranks first: no
trial can build it, so the search says so once and goes on without spending its trials there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_native_tests_e2e import _env, cmake_build

from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.locate import cfamily
from pytest_whetstone.records import Suspect, TestFailureRecord

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("cmake", "ninja", "ccwrap", "g++")), reason="cmake, ninja, ccwrap or g++ missing"
)

CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(hdr CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(GTest REQUIRED)
enable_testing()
add_executable(clamp_test tests/clamp_test.cc)
target_include_directories(clamp_test PRIVATE .)
target_link_libraries(clamp_test PRIVATE GTest::gtest_main)
include(GoogleTest)
gtest_discover_tests(clamp_test)
"""
CLAMP_H = """\
#pragma once
namespace lib {
inline int clamp(int v, int lo, int hi) {
  if (v < lo) return lo;
  if (v > hi) return hi;
  return v;
}
inline int width(int lo, int hi) {
  return hi + lo + 1;  // seeded fault: `+ lo`
}
}  // namespace lib
"""
MID_H = '#pragma once\n#include "clamp.h"\nnamespace lib {\ninline int span(int lo, int hi) { return hi - lo; }\n}\n'
ALL_H = '#pragma once\n#include "mid.h"\n'
UNUSED_H = "#pragma once\nnamespace lib {\ninline int clamp_all(int v) { return v < 0 ? 0 : v; }\n}\n"
TEST = """\
#include <gtest/gtest.h>
#include "lib/all.h"

TEST(Clamp, Inside) { EXPECT_EQ(lib::clamp(5, 0, 10), 5); }
TEST(Clamp, AboveTakesHi) { EXPECT_EQ(lib::clamp(15, 0, 10), 10); }
TEST(Width, CountsBothEnds) { EXPECT_EQ(lib::width(2, 7), 6); }
TEST(Span, Width) { EXPECT_EQ(lib::span(2, 7), 5); }
"""


@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    root = cmake_ninja_project(tmp_path / "hdr", {"CMakeLists.txt": CMAKE, "lib/clamp.h": CLAMP_H, "lib/mid.h": MID_H,
                                                  "lib/all.h": ALL_H, "lib/unused.h": UNUSED_H,
                                                  "tests/clamp_test.cc": TEST})
    assert not list((root / "build").rglob("*.d"))  # Ninja keeps the dependencies in its own log
    return root


def cmake_ninja_project(root: Path, files: dict[str, str]) -> Path:
    """``files`` written under ``root``, configured with CMake + Ninja (ccwrap as the compiler launcher)
    and built; skips when CMake finds no GoogleTest."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return cmake_build(root, _env(root / ".whetstone"), "-G", "Ninja", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccwrap")


def test_a_fault_in_a_header_only_library_is_found_through_the_include_chain(
    proj: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the order by prior alone (no naturalness): the fix comes after the mutants this test watches
    monkeypatch.setattr("pytest_whetstone.candidates.native_plan.W_NATURAL", 0.0)
    failure = TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Width", test_name="CountsBothEnds",
                                file_path="tests/clamp_test.cc", failure_type="assertion",
                                suspects=[Suspect("lib/unused.h", "lib::clamp_all", 3, 3, 1.0),
                                          Suspect("lib/mid.h", "lib::span", 4, 4, 0.9),
                                          Suspect("lib/clamp.h", "lib::width", 8, 10, 0.8)])
    stats = NativeSearchStats()
    found = native_search_candidates([failure], proj, 90.0, store=proj / ".whetstone", stats=stats)
    assert found and found[0].validated and found[0].edits[0].file_path == "lib/clamp.h", {k: v for k, v in stats.to_dict().items() if k != "trial_s"}
    assert found[0].edits[0].new_text in ("-", "hi - lo")
    assert failure.suspects[0].qualname == "lib::width"
    assert sum("no recorded command compiles lib/unused.h" in note for note in stats.notes) == 1, stats.notes
    assert stats.errors == 0  # the file no trial can build cost no trial
    assert (proj / "lib/clamp.h").read_text() == CLAMP_H


def test_functions_returning_a_reference_are_listed() -> None:
    source = b"""struct A {
  int v;
  const int &r() const { return v; }
  int &m() { return v; }
};
const int &g(const A &a) { return a.r(); }
int &&h(int &&x) { return static_cast<int &&>(x); }
"""
    parsed = cfamily.parse_source(source, "cpp")
    assert sorted(f.qualname for f in cfamily.functions_in(parsed, "a.cc")) == ["A::m", "A::r", "g", "h"]


def test_a_header_mutant_compiled_alone_is_priced_by_the_units_that_include_it(proj: Path) -> None:
    """Alone, a header's mutant recompiles the units that include it: one here (the test file, through
    `all.h` and `mid.h`), not the eight a header included everywhere is capped at."""
    from pytest_whetstone.candidates.native_trial_cxx import cxx_trial

    failure = TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Width", test_name="CountsBothEnds",
                                file_path="tests/clamp_test.cc", failure_type="assertion",
                                suspects=[Suspect("lib/clamp.h", "lib::width", 8, 10, 1.0)])
    trial, why = cxx_trial([failure], proj, proj / ".whetstone")
    assert trial is not None, why
    try:
        assert trial.units_including("lib/clamp.h") == 1
        assert trial.units_including("lib/unused.h") == 0
    finally:
        trial.close()


def test_two_headers_one_unit_includes_get_their_schemata_in_one_compile(
    proj: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mid.h` and `clamp.h` are both compiled as part of the test file: the schema the first one needs is
    compiled with the second one's in the same pass, and either's mutants are screened on that build."""
    # the order by prior alone (no naturalness): the fix comes after the mutants this test watches
    monkeypatch.setattr("pytest_whetstone.candidates.native_plan.W_NATURAL", 0.0)
    import json

    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("WHETSTONE_SEARCH_TRACE", str(trace))
    failure = TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Width", test_name="CountsBothEnds",
                                file_path="tests/clamp_test.cc", failure_type="assertion",
                                suspects=[Suspect("lib/mid.h", "lib::span", 4, 4, 1.0),
                                          Suspect("lib/clamp.h", "lib::width", 8, 10, 0.9)])
    stats = NativeSearchStats()
    found = native_search_candidates([failure], proj, 90.0, store=proj / ".whetstone", stats=stats)
    assert found and found[0].validated and found[0].edits[0].file_path == "lib/clamp.h"
    rows = [json.loads(line) for line in trace.read_text().splitlines()]
    compiles = [r["schema"] for r in rows if "schema" in r]
    assert compiles and all(c in ("lib/mid.h+lib/clamp.h", "lib/clamp.h+lib/mid.h") for c in compiles), compiles
    # no mutant of either header was compiled alone: screened, or known unreached from the schema's record
    # (the failing test never calls `span`)
    mutants = [r for r in rows if "file" in r]
    assert {r["file"] for r in mutants} == {"lib/mid.h", "lib/clamp.h"}
    assert all(r.get("screened") or r.get("alone") == "fix-check" or r.get("skip") in ("unreached", "rejected")
               for r in mutants), [r for r in mutants if not r.get("screened")]
    assert any("compiled together" in note for note in stats.notes), stats.notes
    assert (proj / "lib/clamp.h").read_text() == CLAMP_H and (proj / "lib/mid.h").read_text() == MID_H
