"""Among fixes the tests cannot tell apart, the search ranks first the one that reads like the project.

``x > 1`` where ``x > 0`` was meant: ``x >= 1`` and ``x > 0`` both make every test pass.  The search
tries the other edits of a fixed line before it stops, and ranks the validated ones by how natural
each makes its line under a token trigram model of the file and its neighbours
(``candidates/naturalness.py``); the original idiom, written elsewhere in the file, wins.  Real g++,
GoogleTest and make through ccwrap for the scenario.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from test_native_search import build_make_project
from test_native_tests_e2e import _session, whetstone

from pytest_whetstone.candidates.naturalness import (
    Naturalness,
    TrigramModel,
    edits_gain,
    rank_by_naturalness,
    tokens,
)
from pytest_whetstone.records import FixCandidate, Position, TextEdit

COUNTS_CC = """\
#include "counts.h"

int positives(const std::vector<int>& xs) {
  int n = 0;
  for (int x : xs) if (x > 1) ++n;
  return n;
}

int nonempty(const std::vector<std::string>& xs) {
  int n = 0;
  for (const auto& s : xs) if (s.size() > 0) ++n;
  return n;
}

bool any_positive(const std::vector<int>& xs) {
  for (int x : xs) if (x > 0) return true;
  return false;
}
"""
COUNTS_H = """\
#pragma once
#include <string>
#include <vector>
int positives(const std::vector<int>& xs);
int nonempty(const std::vector<std::string>& xs);
bool any_positive(const std::vector<int>& xs);
"""
COUNTS_TEST = """\
#include <gtest/gtest.h>
#include "counts.h"

TEST(Counts, Positives) { EXPECT_EQ(positives({-1, 0, 1, 2}), 2); }
TEST(Counts, Nonempty) { EXPECT_EQ(nonempty({"", "a"}), 1); }
TEST(Counts, AnyPositive) { EXPECT_TRUE(any_positive({0, 3})); }
"""
MAKEFILE = """\
CXX ?= g++
CXXFLAGS = -std=c++17 -O0 -Isrc
LIBS = -lgtest -lgtest_main -pthread
all: counts_test
src/counts.o: src/counts.cc src/counts.h
\t$(CXX) $(CXXFLAGS) -c src/counts.cc -o src/counts.o
tests/counts_test.o: tests/counts_test.cc src/counts.h
\t$(CXX) $(CXXFLAGS) -c tests/counts_test.cc -o tests/counts_test.o
counts_test: src/counts.o tests/counts_test.o
\t$(CXX) -o counts_test tests/counts_test.o src/counts.o $(LIBS)
check: counts_test
\t./counts_test
.PHONY: all check
"""


def test_the_model_prefers_the_files_own_idiom() -> None:
    model = TrigramModel([COUNTS_CC])
    faulty = "  for (int x : xs) if (x > 1) ++n;"
    natural = model.log_prob("  for (int x : xs) if (x > 0) ++n;", without=faulty)
    assert natural > model.log_prob("  for (int x : xs) if (x >= 1) ++n;", without=faulty)
    assert tokens("a->b <= c && d::e") == ["a", "->", "b", "<=", "c", "&&", "d", "::", "e"]


def test_the_less_natural_of_two_complete_fixes_loses_confidence(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/counts.cc").write_text(COUNTS_CC)

    line = COUNTS_CC.splitlines()[4]

    def fix(old: str, new: str) -> FixCandidate:
        col = line.index(old) + 1  # 1-based columns
        return FixCandidate(edits=[TextEdit("src/counts.cc", Position(5, col), Position(5, col + len(old)), new)],
                            confidence=0.93, validated=True, mutation={"complete": True}).ensure_id()

    boundary, constant = fix(">", ">="), fix("1)", "0)")
    assert "x >= 1" in _applied(boundary) and "x > 0" in _applied(constant)
    rank_by_naturalness([boundary, constant], tmp_path)
    assert constant.confidence == 0.93 and boundary.confidence < 0.93
    assert constant.mutation["naturalness"] > boundary.mutation["naturalness"]


def test_a_fix_of_every_failing_test_is_not_doubted_beside_a_natural_fix_of_fewer(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/counts.cc").write_text(COUNTS_CC)
    line = COUNTS_CC.splitlines()[4]

    def fix(old: str, new: str, fixes: list[str]) -> FixCandidate:
        col = line.index(old) + 1
        return FixCandidate(edits=[TextEdit("src/counts.cc", Position(5, col), Position(5, col + len(old)), new)],
                            confidence=0.9, validated=True, mutation={"complete": True, "fixes": fixes}).ensure_id()

    # the natural one fixes one failing test of four (the others fail as before); the other fixes all four
    every, one = fix(">", ">=", ["F1", "F2", "F3", "F4"]), fix("1)", "0)", ["F1"])
    rank_by_naturalness([every, one], tmp_path)
    assert every.mutation["naturalness"] < 0 <= one.mutation["naturalness"]
    assert every.confidence > 0.9 - 0.05  # a tie-break's worth, not the doubt's


def _applied(cand: FixCandidate) -> str:
    from pytest_whetstone.edits import apply_edits_text

    return apply_edits_text(COUNTS_CC, cand.edits).splitlines()[4]


@pytest.mark.skipif(not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make")),
                    reason="ccwrap, g++ or make missing")
def test_the_search_tries_the_fixed_lines_other_edits_and_ranks_the_idiom_first(tmp_path: Path) -> None:
    proj = build_make_project(tmp_path / "counts", {"Makefile": MAKEFILE, "src/counts.h": COUNTS_H,
                                                    "src/counts.cc": COUNTS_CC, "tests/counts_test.cc": COUNTS_TEST})
    store = proj / ".whetstone"
    verdict, out = whetstone(["run", "--search", "--", "make", "check"], proj, store)
    assert verdict["status"] == "fail", out
    state = _session(store, verdict).state()
    validated = [c for c in state.candidates if c.validated]
    assert len(validated) >= 2, json.dumps([c.description for c in state.candidates])
    top = validated[0]
    assert top.edits[0].new_text == "0" and "naturalness" in top.mutation, top.description
    assert (proj / "src/counts.cc").read_text() == COUNTS_CC  # the search wrote nothing


def test_an_edit_over_two_lines_is_scored_line_by_line(tmp_path: Path) -> None:
    source = "int f(int a,\n      int b);\nint g() {\n  return f(first,\n           second);\n}\n"
    (tmp_path / "x.cc").write_text(source)
    swap = FixCandidate(candidate_id="S", edits=[TextEdit("x.cc", Position(4, 12), Position(5, 18),
                                                          "second,\n           first")])
    model = TrigramModel([source])
    value = Naturalness(tmp_path).gain(swap)
    assert value is not None and math.isfinite(value)  # leaving out two lines as one "line" hit log(0)
    assert model.log_prob("return f(first,\n           second);", without="  return f(first,\n           second);") < 0
    one_line = FixCandidate(candidate_id="O", edits=[TextEdit("x.cc", Position(4, 12), Position(4, 17), "third")])
    assert Naturalness(tmp_path).gain(one_line) == edits_gain(model, source, one_line.edits)


def test_each_mutant_s_gain_matches_its_own_and_a_minified_line_is_not_scored(tmp_path: Path) -> None:
    """The search orders mutants by their gains, computed a line at a time: each is the gain of its edit
    alone; a minified bundle's one long line is not scored (read once per mutant, it cost minutes)."""
    from pytest_whetstone.candidates.naturalness import MAX_SCORED_LINE, Naturalness

    body = "".join(f"  total += values[{i}] * {i};\n" for i in range(12))
    (tmp_path / "sum.c").write_text("int sum(const int *values) {\n  int total = 0;\n" + body + "  return total;\n}\n")
    long_line = "var a=" + "+".join(f"f({i})" for i in range(MAX_SCORED_LINE // 4)) + ";\n"
    (tmp_path / "bundle.js").write_text(long_line)
    edits = [TextEdit("sum.c", Position(5, 20), Position(5, 21), "4"), TextEdit("sum.c", Position(5, 25), Position(5, 26), "3"),
             TextEdit("sum.c", Position(6, 16), Position(6, 17), "-"), TextEdit("bundle.js", Position(1, 8), Position(1, 9), "+")]
    nat = Naturalness(tmp_path)
    gains = nat.mutant_gains(edits)
    alone = Naturalness(tmp_path)
    for edit, gain in zip(edits[:3], gains[:3], strict=True):
        assert gain is not None and math.isclose(gain, alone.edits_gain([edit]) or 0.0)
    assert gains[3] is None and len(long_line) > MAX_SCORED_LINE
