"""The validated mutant search for C/C++ test failures, end to end with real tools.

Projects built the way users build them, through ccwrap: CMake + Ninja + GoogleTest run by ctest
(the library is a static archive, so a mutated object is swapped in a scratch copy of it), and a
plain Makefile with one gtest binary per test file run by ``make check`` (objects linked directly).
``whetstone run --search`` must find validated candidates without writing a byte of the user's tree
or build outputs, and ``whetstone fix`` must converge; mutants that do not compile or loop cost one
bounded trial; a lost compile database is one clear line.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from test_native_tests_e2e import FIXTURES, _env, build_gtest_calc
from test_native_tests_e2e import whetstone as _whetstone

from pytest_whetstone.candidates.native_search import (
    NativeSearchStats,
    bound_failing_runs,
    native_search_candidates,
)
from pytest_whetstone.candidates.native_trial_cxx import CxxTrial, cxx_trial
from pytest_whetstone.edits import apply_candidate_by_id, undo_last
from pytest_whetstone.records import Suspect, TestFailureRecord
from pytest_whetstone.store.sessions import load_session

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap") and shutil.which("ccwrap++") and shutil.which("g++")), reason="ccwrap or g++ missing"
)


def _tree_hashes(root: Path) -> dict[str, str]:
    """Every file of the project and its build (not the store, not ctest's own Testing/ logs), by content."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not path.is_symlink() and rel.parts[0] != ".whetstone" and "Testing" not in rel.parts:
            out[str(rel)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def cmake_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_gtest_calc(tmp_path_factory.mktemp("search-cmake"))


MAKEFILE = """\
CXX ?= g++
CXXFLAGS = -std=c++17 -O0 -Isrc
LIBS = -lgtest -lgtest_main -pthread
TESTS = geo_test more_test
all: $(TESTS)
src/geo.o: src/geo.cc src/geo.h
\t$(CXX) $(CXXFLAGS) -c src/geo.cc -o src/geo.o
tests/geo_test.o: tests/geo_test.cc src/geo.h
\t$(CXX) $(CXXFLAGS) -c tests/geo_test.cc -o tests/geo_test.o
tests/more_test.o: tests/more_test.cc src/geo.h
\t$(CXX) $(CXXFLAGS) -c tests/more_test.cc -o tests/more_test.o
geo_test: src/geo.o tests/geo_test.o
\t$(CXX) -o geo_test tests/geo_test.o src/geo.o $(LIBS)
more_test: src/geo.o tests/more_test.o
\t$(CXX) -o more_test tests/more_test.o src/geo.o $(LIBS)
check: $(TESTS)
\t./geo_test && ./more_test
.PHONY: all check
"""
GEO_H = """\
#pragma once
int manhattan(int x1, int y1, int x2, int y2);
bool inside(int x, int y, int w, int h);
int scale(int value, int num, int den);
"""
GEO_CC = """\
#include "geo.h"

static int absval(int v) { return v < 0 ? -v : v; }

int manhattan(int x1, int y1, int x2, int y2) {
  return absval(x1 - x2) + absval(y1 - y2);
}

bool inside(int x, int y, int w, int h) {
  return x >= 0 && y >= 0 && x < w && y <= h;  // seeded fault: y <= h
}

int scale(int value, int num, int den) {
  return value * num / den;
}
"""
GEO_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

TEST(Geo, Manhattan) { EXPECT_EQ(manhattan(0, 0, 3, 4), 7); }
TEST(Geo, InsideExcludesFarEdge) {
  EXPECT_TRUE(inside(0, 0, 4, 4));
  EXPECT_FALSE(inside(1, 4, 4, 4));
}
TEST(Geo, Scale) { EXPECT_EQ(scale(10, 3, 2), 15); }
"""
MORE_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

TEST(More, ManhattanIsSymmetric) { EXPECT_EQ(manhattan(3, 4, 0, 0), 7); }
"""


def build_make_geo(proj: Path, geo_cc: str = GEO_CC, geo_test: str = GEO_TEST) -> Path:
    """The Makefile project with ``geo_cc`` as src/geo.cc and ``geo_test`` as tests/geo_test.cc, built
    through ccwrap (skips without make/gtest)."""
    return build_make_project(proj, {"Makefile": MAKEFILE, "src/geo.h": GEO_H, "src/geo.cc": geo_cc,
                                     "tests/geo_test.cc": geo_test, "tests/more_test.cc": MORE_TEST})


def build_make_project(proj: Path, files: dict[str, str]) -> Path:
    """``files`` (relative path -> text, a Makefile among them) written under ``proj`` and built with
    ``make CXX=ccwrap++`` (skips without make or GoogleTest)."""
    if not shutil.which("make"):
        pytest.skip("make not installed")
    for rel, text in files.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    build = subprocess.run(["make", "CXX=ccwrap++"], cwd=proj, env=_env(proj / ".whetstone"),
                           capture_output=True, text=True)
    if build.returncode != 0 and "gtest" in build.stdout + build.stderr:
        pytest.skip("GoogleTest (libgtest-dev) not installed")
    assert build.returncode == 0, build.stdout + build.stderr
    return proj


@pytest.fixture()
def make_project(tmp_path: Path) -> Path:
    return build_make_geo(tmp_path / "geo")


# --------------------------------------------------------------------------- whetstone run --search


def test_search_finds_validated_fixes_through_the_recorded_build_and_writes_nothing(cmake_project: Path) -> None:
    store = cmake_project / ".whetstone"
    before = _tree_hashes(cmake_project)
    verdict, out = _whetstone(["run", "--search", "--", "ctest", "--output-on-failure"], cmake_project / "build",
                              store)
    assert verdict["failure"] == "test-failure", out
    assert _tree_hashes(cmake_project) == before  # sources, objects, archive and binaries untouched
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())
    session = load_session(store, report["session_id"])
    validated = [c for c in session.state().current_candidates() if c.validated and c.source == "search"]
    fixes = {(c.edits[0].file_path, c.edits[0].new_text) for c in validated}
    assert ("src/stats.cc", "<=") in fixes and ("src/text.cc", "8080") in fixes, out
    for cand in validated:
        assert "breaks no other test of" in cand.description and cand.mutation["checked"]
    searches = [e["data"] for e in session.events() if e.get("event") == "search"]
    assert searches and searches[-1]["kind"] == "native" and searches[-1]["validated"] >= 2
    assert searches[-1]["trial_median_s"] is not None
    evidence = [e["data"] for e in session.events() if e.get("event") == "mutant_evidence"]
    assert any(ev["qualname"] == "calc::sum_range" and ev["fixed"] for ev in evidence[-1]["search"])


def test_default_run_does_not_search(cmake_project: Path) -> None:
    store = cmake_project / ".whetstone"
    verdict, _ = _whetstone(["run", "--", "ctest", "--output-on-failure"], cmake_project / "build", store)
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())
    session = load_session(store, report["session_id"])
    mark = max(i for i, e in enumerate(session.events()) if e.get("event") == "run_started")
    assert not [e for e in session.events()[mark:] if e.get("event") == "search"]


def test_fix_loop_converges_on_a_cmake_gtest_project(tmp_path: Path) -> None:
    proj = build_gtest_calc(tmp_path)
    store = proj / ".whetstone"
    verdict, out = _whetstone(["fix", "--build", "cmake --build build", "--test",
                               "ctest --test-dir build --output-on-failure"], proj, store)
    assert verdict["status"] == "pass", out
    assert "i <= hi" in (proj / "src/stats.cc").read_text()
    assert "return 8080;" in (proj / "src/text.cc").read_text()


def test_make_check_project_objects_linked_directly(make_project: Path) -> None:
    store = make_project / ".whetstone"
    before = _tree_hashes(make_project)
    verdict, out = _whetstone(["run", "--search", "--", "make", "check"], make_project, store)
    assert verdict["failure"] == "test-failure", out
    assert _tree_hashes(make_project) == before
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())
    state = load_session(store, report["session_id"]).state()
    top = state.current_candidates()[0]
    assert top.validated and top.source == "search", out
    assert (top.edits[0].file_path, top.edits[0].new_text) == ("src/geo.cc", "<"), top.description
    failure = next(f for f in state.test_failures if f.test_name == "InsideExcludesFarEdge")
    assert failure.suspects[0].qualname == "inside"


# --------------------------------------------------------------------------- trials, bounded


def _failure(proj: Path, name: str, suspect: Suspect) -> TestFailureRecord:
    return TestFailureRecord(failure_id=f"F{name}", runner="gtest", test_suite="Geo", test_name=name,
                             file_path="tests/geo_test.cc", failure_type="assertion", suspects=[suspect])


def test_a_mutant_that_does_not_compile_or_loops_costs_one_bounded_trial(make_project: Path) -> None:
    failure = _failure(make_project, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 9, 11, 1.0))
    trial, why = cxx_trial([failure], make_project, make_project / ".whetstone", timeout_s=20.0)
    assert trial is not None, why
    try:
        base = trial.baseline()
        assert failure.failure_id in base.failing and not base.error
        bound_failing_runs([trial], base.seconds)  # as the search does: a few times the baseline, not 20 s
        assert trial.failing_timeout_s < 3.0
        broken = trial.run_failing("src/geo.cc", GEO_CC.replace("return x >= 0", "return x >= 0 +"))
        assert broken.error.startswith("does not compile"), broken.error
        looping = GEO_CC.replace("bool inside(int x, int y, int w, int h) {",
                                 "bool inside(int x, int y, int w, int h) {\n  for (volatile int i = 0; ; ++i) {}")
        started = time.monotonic()
        hung = trial.run_failing("src/geo.cc", looping)
        assert "timed out" in hung.error and time.monotonic() - started < 10
        fixed = trial.run_failing("src/geo.cc", GEO_CC.replace("y <= h", "y < h"))
        assert fixed.passed == {failure.failure_id} and not fixed.error
    finally:
        trial.close()
    assert (make_project / "src/geo.cc").read_text() == GEO_CC


ONE_STEP_MAKEFILE = """\
CXX ?= g++
CXXFLAGS = -std=c++17 -O0 -Isrc
LIBS = -lgtest -lgtest_main -pthread
all: geo_test more_test
src/geo.o: src/geo.cc src/geo.h
\t$(CXX) $(CXXFLAGS) -c src/geo.cc -o src/geo.o
libgeo.a: src/geo.o
\tar rcs libgeo.a src/geo.o
geo_test: tests/geo_test.cc libgeo.a
\t$(CXX) $(CXXFLAGS) tests/geo_test.cc libgeo.a $(LIBS) -o geo_test
more_test: tests/more_test.cc libgeo.a
\t$(CXX) $(CXXFLAGS) tests/more_test.cc libgeo.a $(LIBS) -o more_test
check: all
\t./geo_test && ./more_test
.PHONY: all check
"""


def _one_step_trial(make_project: Path) -> tuple[CxxTrial, TestFailureRecord]:
    """The project rebuilt with ONE_STEP_MAKEFILE through ccwrap, and a trial of its failing test."""
    (make_project / "Makefile").write_text(ONE_STEP_MAKEFILE)
    env = _env(make_project / ".whetstone")
    for built in ("geo_test", "more_test", "src/geo.o"):
        (make_project / built).unlink(missing_ok=True)
    build = subprocess.run(["make", "CXX=ccwrap++"], cwd=make_project, env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    failure = _failure(make_project, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 9, 11, 1.0))
    trial, why = cxx_trial([failure], make_project, make_project / ".whetstone", timeout_s=10.0)
    assert trial is not None, why
    return trial, failure


def test_a_test_binary_compiled_and_linked_in_one_step_compiles_its_test_file_once(make_project: Path) -> None:
    """`g++ tests/x_test.cc libgeo.a -lgtest -o x_test`: each relink would compile the test file again
    (seconds with gtest); it is compiled once per trial (with the recorded flags, fast: no optimizer, no
    debug info) and then only linked."""
    trial, failure = _one_step_trial(make_project)
    try:
        assert trial.run_failing("src/geo.cc", GEO_CC.replace("x >= 0", "x > 0")).failing
        assert trial.run_failing("src/geo.cc", GEO_CC.replace("y <= h", "y < h")).passed == {failure.failure_id}
        assert trial.run_wider("src/geo.cc", GEO_CC.replace("y <= h", "y < h")).ok
        compiled = trial.link_objects.made  # (binary, test file) -> its scratch object
        assert sorted(Path(src).name for _binary, src in compiled) == ["geo_test.cc", "more_test.cc"]
        assert all(obj and Path(obj).exists() for obj in compiled.values())
        other, why = cxx_trial([failure], make_project, make_project / ".whetstone", timeout_s=10.0)
        assert other is not None, why
        try:
            other.share_with(trial)  # the search's second worker links the same objects
            fixed = other.run_failing("src/geo.cc", GEO_CC.replace("y <= h", "y < h"))
            assert fixed.passed == {failure.failure_id} and other.link_objects.made is compiled and len(compiled) == 2
        finally:
            other.close()
    finally:
        trial.close()
    assert (make_project / "src/geo.cc").read_text() == GEO_CC


def test_the_warm_up_compiles_the_one_step_test_files_before_a_mutant_asks_for_them(make_project: Path) -> None:
    """The search warms a trial up in the background: the failing test's file first, then the others (for
    a fix's wider check); stopped, it compiles nothing more, and a mutant's link uses what it made."""
    trial, failure = _one_step_trial(make_project)
    try:
        stopped = threading.Event()
        stopped.set()
        trial.warm(stopped)
        assert trial.link_objects.made == {}
        trial.warm(threading.Event())
        made = trial.link_objects.made
        assert [Path(src).name for _binary, src in made] == ["geo_test.cc", "more_test.cc"]
        objects = dict(made)
        assert trial.run_wider("src/geo.cc", GEO_CC.replace("y <= h", "y < h")).ok
        assert trial.link_objects.made == objects  # linked, not compiled again
    finally:
        trial.close()


def test_the_wider_check_runs_the_other_test_binaries_that_link_the_code(make_project: Path) -> None:
    failure = _failure(make_project, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 9, 11, 1.0))
    trial, why = cxx_trial([failure], make_project, make_project / ".whetstone", timeout_s=10.0)
    assert trial is not None, why
    try:
        good = GEO_CC.replace("y <= h", "y < h")
        assert trial.run_wider("src/geo.cc", good).ok
        # fixes the failing test, breaks a test in another binary: not validated
        bad = good.replace("absval(x1 - x2) + absval(y1 - y2)", "absval(x2) + absval(y2)")
        assert trial.run_failing("src/geo.cc", bad).passed == {failure.failure_id}
        wider = trial.run_wider("src/geo.cc", bad)
        assert not wider.ok and "More.ManhattanIsSymmetric" in wider.failed
        assert set(wider.covered) == {"geo_test", "more_test"}
    finally:
        trial.close()


def test_a_shared_library_is_relinked_in_scratch_space(tmp_path: Path) -> None:
    proj = build_gtest_calc(tmp_path, "-DBUILD_SHARED_LIBS=ON")
    assert list((proj / "build").glob("libcalc.so*"))
    before = _tree_hashes(proj)
    verdict, out = _whetstone(["run", "--search", "--", "ctest", "--output-on-failure"], proj / "build",
                              proj / ".whetstone")
    assert _tree_hashes(proj) == before
    report = json.loads((proj / ".whetstone" / "reports" / Path(verdict["report"]).name).read_text())
    state = load_session(proj / ".whetstone", report["session_id"]).state()
    validated = {(c.edits[0].file_path, c.edits[0].new_text) for c in state.current_candidates()
                 if c.validated and c.source == "search"}
    assert ("src/stats.cc", "<=") in validated, out


def test_a_test_that_passes_when_rerun_alone_is_not_searched(make_project: Path) -> None:
    passing = _failure(make_project, "Manhattan", Suspect("src/geo.cc", "manhattan", 5, 7, 1.0))
    stats = NativeSearchStats()
    found = native_search_candidates([passing], make_project, 20, store=make_project / ".whetstone", stats=stats)
    assert found == [] and stats.stopped == "baseline-passes" and stats.tried == 0


def test_without_recorded_commands_one_clear_line_and_no_candidates(make_project: Path, tmp_path: Path) -> None:
    failure = _failure(make_project, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 9, 11, 1.0))
    stats = NativeSearchStats()
    empty = tmp_path / "empty-store"
    empty.mkdir()
    assert native_search_candidates([failure], make_project, 20, store=empty, stats=stats) == []
    assert stats.stopped == "no-trial" and "ccwrap" in stats.notes[0] and len(stats.notes) == 1


def test_a_recorded_compiler_that_is_gone_is_reported_not_crashed(make_project: Path) -> None:
    store = make_project / ".whetstone"
    for path in (store / "commands").glob("*.json"):
        data = json.loads(path.read_text())
        data["arguments"][0] = "/nonexistent/g++"
        path.write_text(json.dumps(data))
    failure = _failure(make_project, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 9, 11, 1.0))
    stats = NativeSearchStats()
    assert native_search_candidates([failure], make_project, 10, store=store, stats=stats) == []
    assert stats.tried >= 1 and stats.errors == stats.tried  # every trial said why; none crashed the search


def test_a_latin1_source_is_searched_and_fixed_byte_for_byte(make_project: Path) -> None:
    store = make_project / ".whetstone"
    geo = make_project / "src" / "geo.cc"
    geo.write_bytes(b"// (c) Fran\xe7ois, Latin-1 as old sources are\n" + GEO_CC.encode())
    assert subprocess.run(["make", "CXX=ccwrap++"], cwd=make_project, env=_env(store),
                          capture_output=True).returncode == 0
    verdict, out = _whetstone(["run", "--search", "--", "make", "check"], make_project, store)
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())
    state = load_session(store, report["session_id"]).state()
    top = state.current_candidates()[0]
    assert top.validated and top.source == "search", out
    before = geo.read_bytes()
    apply_candidate_by_id(store, report["session_id"], top.candidate_id)
    after = geo.read_bytes()
    assert after != before and after.startswith(b"// (c) Fran\xe7ois, Latin-1")  # the stray byte kept
    assert subprocess.run(["make", "CXX=ccwrap++", "check"], cwd=make_project, env=_env(store),
                          capture_output=True).returncode == 0
    undo_last(store, report["session_id"])
    assert geo.read_bytes() == before


def test_the_mcp_run_tool_searches_when_asked(make_project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_whetstone.agent import tools

    monkeypatch.setenv("WHETSTONE_DIR", str(make_project / ".whetstone"))
    plain = tools.run("make check", str(make_project))
    assert not any(c["validated"] for c in plain["candidates"])
    searched = tools.run("make check", str(make_project), search=True)
    assert searched["verdict"]["failure"] == "test-failure"
    top = searched["candidates"][0]
    assert top["validated"] and top["source"] == "search" and top["edits"][0]["file_path"] == "src/geo.cc"


TEXTKIT = Path(__file__).parent.parent / "bench" / "native_dev" / "textkit"


@pytest.mark.skipif(not shutil.which("node"), reason="node not installed")
def test_node_test_failure_in_a_helper_behind_require_is_fixed(tmp_path: Path) -> None:
    proj = tmp_path / "textkit"
    shutil.copytree(TEXTKIT, proj)
    helpers = proj / "lib" / "helpers.js"
    original = helpers.read_bytes()
    helpers.write_text(original.decode().replace("if (pending && out.length > 0) {", "if (pending && out.length > 1) {"))
    store = proj / ".whetstone"
    before = _tree_hashes(proj)
    verdict, out = _whetstone(["run", "--search", "--", "node", "--test", "test/"], proj, store)
    assert verdict["failure"] == "test-failure", out
    assert _tree_hashes(proj) == before  # the search ran in a scratch copy
    assert verdict["first_error"].startswith("lib/helpers.js:"), out  # the search found the helper
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())
    top = load_session(store, report["session_id"]).state().current_candidates()[0]
    assert top.validated and top.source == "search", out
    apply_candidate_by_id(store, report["session_id"], top.candidate_id)
    assert subprocess.run(["node", "--test", "test/"], cwd=proj, capture_output=True).returncode == 0


@pytest.mark.parametrize("shared", [False, True], ids=["static", "shared"])
@pytest.mark.parametrize("generator", ["Ninja", "Unix Makefiles"])
def test_with_only_the_compiler_launcher_the_link_comes_from_the_build(tmp_path: Path, generator: str,
                                                                        shared: bool) -> None:
    if generator == "Ninja" and not shutil.which("ninja"):
        pytest.skip("ninja not installed")
    if not (shutil.which("cmake") and shutil.which("ctest")):
        pytest.skip("cmake/ctest not installed")
    proj = tmp_path / "calc"
    shutil.copytree(FIXTURES / "gtest_calc", proj)
    store = proj / ".whetstone"
    env = _env(store)  # no CC/CXX: ccwrap only launches the compiles, as CMAKE_CXX_COMPILER_LAUNCHER does
    configure = subprocess.run(["cmake", "-S", str(proj), "-B", str(proj / "build"), "-G", generator,
                                "-DCMAKE_CXX_COMPILER_LAUNCHER=ccwrap", f"-DBUILD_SHARED_LIBS={'ON' if shared else 'OFF'}"],
                               env=env, capture_output=True, text=True)
    if configure.returncode != 0 and "GTest" in configure.stderr:
        pytest.skip("GoogleTest (libgtest-dev) not found by CMake")
    assert configure.returncode == 0, configure.stderr
    assert subprocess.run(["cmake", "--build", str(proj / "build")], env=env, capture_output=True).returncode == 0
    before = _tree_hashes(proj)
    verdict, out = _whetstone(["run", "--search", "--", "ctest", "--test-dir", "build", "--output-on-failure"],
                              proj, store)
    assert _tree_hashes(proj) == before
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())
    validated = {(c.edits[0].file_path, c.edits[0].new_text)
                 for c in load_session(store, report["session_id"]).state().current_candidates()
                 if c.validated and c.source == "search"}
    assert ("src/stats.cc", "<=") in validated, out
