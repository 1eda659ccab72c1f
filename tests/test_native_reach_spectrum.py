"""Lines from the schemata: a build without a line table still gets a line spectrum.

End to end: a gtest project built with ``make CXX=ccwrap++`` at ``-O0`` and no ``-g``, whose every
test enters every function (``grade`` calls ``bonus``, ``clamp_score`` and ``letter``), so the
breakpoint tracer's function entries score them all alike.  The fault is in a branch of ``bonus``
that only the failing test takes.  Run once per test with no mutant switched on, the schema of
``grade.cc`` records which of its expressions each test reached: the branch only the failing test
ran is the spectrum's best line, and the fix is found there.  With ``$WHETSTONE_REACH_S=0`` there
are no such runs.  Plus the scoring rule on its own: a test measured there counts per line, one the
profile ran elsewhere counts for every measured line of each function it entered; and with lines the
spectrum moves a suspect further than function entries alone do.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_native_search import build_make_project
from test_native_tests_e2e import whetstone as _whetstone

from pytest_whetstone.candidates.native_spectra_bp import tracer
from pytest_whetstone.locate.callgrind import Executed
from pytest_whetstone.locate.native_spectrum import Spectrum, rerank
from pytest_whetstone.locate.native_spectrum import TestRun as Run
from pytest_whetstone.locate.native_tests import Workspace
from pytest_whetstone.records import Suspect
from pytest_whetstone.store.sessions import load_session

GRADE_H = """\
#pragma once
char grade(int raw);
"""
# the fault: `v + 3` where `v + 2` was meant, in the branch only a raw score of 50 to 89 takes (on a line
# of its own: a line is reached when any expression on it is, and every test reaches `v >= 50`)
GRADE_CC = """\
#include "grade.h"

static int bonus(int v) {
  if (v >= 90) return v + 5;
  if (v >= 50)
    return v + 3;
  return v;
}

static int clamp_score(int v) {
  if (v < 0) return 0;
  if (v > 100) return 100;
  return v;
}

static char letter(int v) {
  if (v >= 95) return 'A';
  if (v >= 80) return 'B';
  if (v == 63) return 'X';
  return 'F';
}

char grade(int raw) {
  return letter(clamp_score(bonus(raw)));
}
"""
GRADE_TEST = """\
#include <gtest/gtest.h>
#include "grade.h"

TEST(Grade, Top) { EXPECT_EQ(grade(96), 'A'); }
TEST(Grade, Capped) { EXPECT_EQ(grade(99), 'A'); }
TEST(Grade, Low) { EXPECT_EQ(grade(10), 'F'); }
TEST(Grade, Negative) { EXPECT_EQ(grade(-4), 'F'); }
TEST(Grade, Middle) { EXPECT_EQ(grade(60), 'F'); }
"""
MAKEFILE = """\
CXXFLAGS ?= -O0
grade_test: tests/grade_test.o src/grade.o
\t$(CXX) -o $@ $^ -lgtest -lgtest_main -pthread
tests/grade_test.o: tests/grade_test.cc src/grade.h
\t$(CXX) $(CXXFLAGS) -Isrc -c -o $@ $<
src/grade.o: src/grade.cc src/grade.h
\t$(CXX) $(CXXFLAGS) -c -o $@ $<
check: grade_test
\t./grade_test
"""

needs_tools = pytest.mark.skipif(
    not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make")) or tracer() is None
    or (os.cpu_count() or 1) < 2,
    reason="ccwrap, g++ or make missing, no breakpoint tracer here, or one core (no schema is built early)",
)


def _project(root: Path) -> Path:
    return build_make_project(root / "grade", {"Makefile": MAKEFILE, "src/grade.h": GRADE_H, "src/grade.cc": GRADE_CC,
                                               "tests/grade_test.cc": GRADE_TEST})


def _search(proj: Path, extra: dict[str, str]) -> tuple[dict, object]:
    store = proj / ".whetstone"
    verdict, out = _whetstone(["run", "--search", "--", "make", "check"], proj, store,
                              extra_env={"WHETSTONE_SPECTRUM_TOOL": "bptrace", **extra})
    assert verdict["failure"] == "test-failure", out
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())
    session = load_session(store, report["session_id"])
    return [e["data"] for e in session.events() if e.get("event") == "search"][-1], session.state()


@needs_tools
def test_the_lines_each_test_reached_in_the_schema_lead_the_first_pass_to_the_fault(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    without, _ = _search(proj, {"WHETSTONE_REACH_S": "0"})
    assert "reach" not in without["spectrum"] and without["spectrum"]["debug_info"] is False, without

    search, state = _search(proj, {})
    reach = search["spectrum"]["reach"]
    assert reach["files"] == 1 and reach["runs"] == 5, search["spectrum"]  # each test of the binary, one run each
    assert reach["line"] == "src/grade.cc:6", search["spectrum"]  # the branch only the failing test took
    top = state.current_candidates()[0]
    assert top.validated and top.edits[0].start.line == 6, top.description
    assert (proj / "src/grade.cc").read_text() == GRADE_CC  # nothing written before apply


def _spectrum(tmp_path: Path, runs: list[Run]) -> Spectrum:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/grade.cc").write_text(GRADE_CC)
    return Spectrum(runs, Workspace(tmp_path))


def _entered(*names: str) -> Executed:
    return Executed(functions=set(names))


def test_measured_lines_score_per_line_and_an_unmeasured_test_counts_for_every_line_it_could_have_run(
        tmp_path: Path) -> None:
    every = ("bonus(int)", "clamp_score(int)", "letter(int)", "grade(int)")
    spectrum = _spectrum(tmp_path, [Run("Grade.Middle", True, _entered(*every)),
                                    Run("Grade.Low", False, _entered(*every)),
                                    Run("Other.Binary", False, _entered("letter(int)"))])
    bonus, letter = ("src/grade.cc", "bonus", 3), ("src/grade.cc", "letter", 16)
    assert spectrum.line_score("src/grade.cc", 6) is None  # no line table: function entries only

    spectrum.add_lines("src/grade.cc", {"Grade.Middle": {4, 5, 6, 11, 12, 13, 17, 18, 19, 24},
                                        "Grade.Low": {4, 5, 7, 11, 12, 13, 17, 18, 19, 20, 24},
                                        "Grade.Extra": {4, 5, 7}})
    assert spectrum.line_score("src/grade.cc", 6) == 1.0  # the failing test alone ran it
    assert spectrum.line_score("src/grade.cc", 7) == 0.0  # passing tests alone
    # letter's lines: the failing test, the passing one measured, and the one measured nowhere that
    # entered letter (another binary's): it counts for each of them
    assert spectrum.line_score("src/grade.cc", 17) == pytest.approx(1 / 3 ** 0.5)
    assert spectrum.score(bonus) == 1.0 > spectrum.score(letter)  # type: ignore[operator]
    assert spectrum.best_line() == ("src/grade.cc", 6)
    assert bonus in spectrum.ran_in("Grade.Middle")
    assert "Grade.Extra" in spectrum.seen and "Grade.Extra" not in spectrum.failed  # measured there only: passing

    again = dict(spectrum._line_counts)
    spectrum.add_lines("src/grade.cc", {"Grade.Middle": {7}})  # a file already scored by lines stays as it is
    assert spectrum._line_counts == again


def test_with_lines_the_spectrum_moves_a_suspect_further_than_with_function_entries_alone(tmp_path: Path) -> None:
    """The entry point every test runs keeps the lead on function entries; once lines say that only the
    failing test took a branch of its callee, the callee leads (the static ranking: 1.0 against 0.7)."""
    every = _entered("bonus(int)", "clamp_score(int)", "letter(int)", "grade(int)")
    static = [Suspect("src/grade.cc", "grade", 23, 25, 1.0), Suspect("src/grade.cc", "bonus", 3, 8, 0.7)]

    def first(with_lines: bool) -> str:
        spectrum = Spectrum([Run("Grade.Middle", True, every), Run("Grade.Low", False, every),
                             Run("Grade.Top", False, every)], Workspace(tmp_path))
        if with_lines:
            spectrum.add_lines("src/grade.cc", {"Grade.Middle": {6, 24}, "Grade.Low": {7, 24}, "Grade.Top": {4, 24}})
        return rerank(static, spectrum, "Grade.Middle")[0].qualname

    (tmp_path / "src").mkdir()
    (tmp_path / "src/grade.cc").write_text(GRADE_CC)
    assert first(with_lines=False) == "grade"
    assert first(with_lines=True) == "bonus"
