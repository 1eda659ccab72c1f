"""What a C/C++ mutant search runs per mutant: only the cheap failing tests, and never the other binaries.

A fault often fails a fast unit test and a slow randomized one at once; each mutant's first run then
covers the fast one (the probe), and a mutant that fixes it is checked on every test, the slow one too.
The baseline runs the failing tests only, not the other test binaries the wider check keeps for later.
Real g++, GoogleTest and make, through ccwrap.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from test_native_search import GEO_CC, _failure, build_make_geo
from test_native_tests_e2e import whetstone

from pytest_whetstone.candidates.native_probe import probe_tests
from pytest_whetstone.candidates.native_trial_cxx import cxx_trial
from pytest_whetstone.records import Suspect, TestFailureRecord
from pytest_whetstone.store.sessions import load_session

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap") and shutil.which("ccwrap++") and shutil.which("g++")), reason="ccwrap or g++ missing"
)

SLOW_GEO_TEST = """\
#include <gtest/gtest.h>
#include <chrono>
#include <thread>
#include "geo.h"

TEST(Geo, Manhattan) { EXPECT_EQ(manhattan(0, 0, 3, 4), 7); }
TEST(Geo, InsideExcludesFarEdge) {
  EXPECT_TRUE(inside(0, 0, 4, 4));
  EXPECT_FALSE(inside(1, 4, 4, 4));
}
TEST(Geo, InsideSweep) {  // a slow, thorough test of the same function
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  for (int y = 0; y < 10; ++y) EXPECT_EQ(inside(1, y, 4, 4), y < 4) << y;
}
"""
MARKED_MORE_TEST = """\
#include <gtest/gtest.h>
#include <fstream>
#include "geo.h"

TEST(More, ManhattanIsSymmetric) {
  std::ofstream("more_ran.txt", std::ios::app) << "ran\\n";  // in the binary's own directory
  EXPECT_EQ(manhattan(3, 4, 0, 0), 7);
}
"""


def _record(name: str, ms: int, *, crash: bool = False) -> TestFailureRecord:
    return TestFailureRecord(failure_id=f"F{name}", runner="gtest", test_suite="Geo", test_name=name, duration_ms=ms,
                             exception_type="crash" if crash else "", file_path="tests/geo_test.cc")


def test_the_probe_is_the_cheap_failing_tests_in_the_run_order() -> None:
    fast, slow, faster, crashed = _record("A", 50), _record("B", 3000), _record("C", 40), _record("D", 10, crash=True)
    assert probe_tests([fast, slow, faster, crashed]) == [fast, faster]
    assert probe_tests([slow, crashed]) == [slow]  # a crash may take its binary down: last
    assert probe_tests([fast, faster]) is None  # all cheap: all of them
    assert probe_tests([slow]) is None
    assert probe_tests([_record("A", 0), _record("B", 0)]) is None  # no durations: nothing to choose by


def _rebuild_with_our_tests(proj: Path) -> Path:
    import subprocess

    from test_native_tests_e2e import _env

    (proj / "tests/geo_test.cc").write_text(SLOW_GEO_TEST)
    (proj / "tests/more_test.cc").write_text(MARKED_MORE_TEST)
    done = subprocess.run(["make", "CXX=ccwrap++"], cwd=proj, env=_env(proj / ".whetstone"), capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return proj


@pytest.fixture()
def slow_geo(tmp_path: Path) -> Path:
    return _rebuild_with_our_tests(build_make_geo(tmp_path / "geo"))


def test_the_baseline_runs_only_the_failing_tests_not_the_other_binaries(slow_geo: Path) -> None:
    failure = _failure(slow_geo, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 9, 11, 1.0))
    trial, why = cxx_trial([failure], slow_geo, slow_geo / ".whetstone", timeout_s=10.0)
    assert trial is not None, why
    try:
        base = trial.baseline()
        assert set(base.failing) == {failure.failure_id} and not (slow_geo / "more_ran.txt").exists()
        assert trial.run_wider("src/geo.cc", GEO_CC.replace("y <= h", "y < h")).ok
        assert (slow_geo / "more_ran.txt").exists()  # the wider check does run the other binary
    finally:
        trial.close()


def test_a_search_runs_the_fast_failing_test_per_mutant_and_validates_on_the_slow_one(slow_geo: Path) -> None:
    verdict, out = whetstone(["run", "--search", "--", "./geo_test"], slow_geo, slow_geo / ".whetstone")
    assert verdict["failure"] == "test-failure", out
    report = json.loads((slow_geo / ".whetstone" / "reports" / Path(verdict["report"]).name).read_text())
    session = load_session(slow_geo / ".whetstone", report["session_id"])
    search = next(e["data"] for e in session.events() if e.get("event") == "search")
    assert "probe: 1 of 2 failing tests, the cheapest, run per mutant" in search["notes"], search
    validated = [c for c in session.state().current_candidates() if c.validated and c.source == "search"]
    fix = next(c for c in validated if c.edits[0].new_text == "<")
    assert fix.mutation["complete"] and len(fix.mutation["fixes"]) == 2, fix.mutation  # the slow test passes too
    assert (slow_geo / "src/geo.cc").read_text() == GEO_CC


def test_the_top_suspects_first_mutants_run_even_when_their_file_has_no_schema() -> None:
    """A file whose schema did not build (its mutants need a compile each) keeps the first few mutants of
    its top suspects in the first pass; the rest of it waits behind what the schemata screen."""
    from pytest_whetstone.candidates.mutant import Mutant
    from pytest_whetstone.candidates.native_plan import FIRST_PASS, _Plan
    from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search
    from pytest_whetstone.records import Position, TextEdit

    class _Screen:
        compile_s = [0.3]  # a schema compile: a mutant's own compile is priced at twice that

        def prepare(self, trial: object, background: bool = False) -> None: ...

        def covers(self, mutant: Mutant) -> bool:
            return mutant.edit.file_path == "lexer.cpp"  # parser.cpp's schema did not compile

        def will_cover(self, mutant: Mutant) -> bool:
            return False

        def settled(self, mutant: Mutant) -> bool:
            return not mutant.edit.file_path.endswith(".h")  # a header's schema waits for its first mutant

    failure = TestFailureRecord(test_name="Parser.Unary", suspects=[Suspect("parser.cpp", "op_is_unary", 1, 9, 0.9),
                                                                    Suspect("lexer.cpp", "lex", 10, 90, 0.5),
                                                                    Suspect("lexer.h", "peek", 1, 5, 0.45)])

    def plan(rel: str, index: int, rank: int) -> _Plan:
        edit = TextEdit(rel, Position(rank + 1, 1), Position(rank + 1, 2), "x")
        return _Plan(failure, rel, failure.suspects[index].qualname, Mutant("arith", f"{rel} {rank}", edit, rank + 1, 0.5),
                     index, rank)

    files = ("parser.cpp", "lexer.cpp", "lexer.h")
    plans = [plan(rel, index, rank) for rank in range(FIRST_PASS + 2) for index, rel in enumerate(files)]
    plans += [plan("lexer.cpp", 1, rank) for rank in range(FIRST_PASS + 2, 300)]
    search = _Search([object()], [failure], Path("."), time.monotonic() + 60, NativeSearchStats())  # type: ignore[list-item]
    search.screen = _Screen()  # type: ignore[assignment]
    queue, rest = search.first_pass(plans)
    alone = [p.rank for p in queue if p.rel == "parser.cpp"]
    assert alone == list(range(FIRST_PASS))  # op_is_unary's likeliest mutants, compiled alone, in the first pass
    assert [p.rel for p in queue[:FIRST_PASS]] == ["lexer.cpp"] * FIRST_PASS  # after the screened ones
    assert sorted(p.rank for p in rest if p.rel == "parser.cpp") == [FIRST_PASS, FIRST_PASS + 1]
    assert not [p for p in queue if p.rel == "lexer.h"]  # no compile of every unit that includes it, yet
    assert len(queue) + len(rest) == len(plans)

    # a big unit's compile (4 s, the time of hundreds of screened runs) does not go first with 60 s left
    _Screen.compile_s = [2.0]
    queue, rest = search.first_pass(plans)
    assert not [p for p in queue if p.rel == "parser.cpp"]
    assert sorted(p.rank for p in rest if p.rel == "parser.cpp") == list(range(FIRST_PASS + 2))


def test_a_mutant_compiled_alone_is_priced_by_what_its_compile_costs() -> None:
    """A header's mutant compiled alone recompiles several units with the real flags: when that does not
    fit the time left it is passed over (``priced_out``) while screened mutants, a test run each, go on."""
    from pytest_whetstone.candidates.mutant import Mutant
    from pytest_whetstone.candidates.native_plan import _Plan
    from pytest_whetstone.candidates.native_search import (
        ALONE_FACTOR,
        HEADER_ALONE_UNITS,
        NativeSearchStats,
        _Search,
    )
    from pytest_whetstone.records import Position, TextEdit

    class _Screen:
        compile_s = [0.5, 0.7, 0.6]

        def covers(self, mutant: Mutant) -> bool:
            return mutant.edit.file_path == "a.cc"

        def settled(self, mutant: Mutant) -> bool:  # whether its file's schema was attempted
            return mutant.edit.file_path != "c.h"

        def header_cost(self) -> float:
            return 3.5

    failure = TestFailureRecord(test_name="A.B", suspects=[Suspect("a.cc", "f", 1, 9, 0.9)])

    def plan(rel: str) -> _Plan:
        edit = TextEdit(rel, Position(1, 1), Position(1, 2), "x")
        return _Plan(failure, rel, "f", Mutant("arith", rel, edit, 1, 0.5), 0, 0)

    search = _Search([object()], [failure], Path("."), 0.0, NativeSearchStats())  # type: ignore[list-item]
    search.screen = _Screen()  # type: ignore[assignment]
    assert search.cost(plan("a.cc")) == 0.0  # screened: the budget's own check covers a test run
    assert search.cost(plan("b.cc")) == pytest.approx(ALONE_FACTOR * 0.6)
    assert search.cost(plan("b.h")) == pytest.approx(ALONE_FACTOR * 0.6 * HEADER_ALONE_UNITS)
    search.alone_s[True] += [9.0, 8.0, 11.0]  # what the header's mutants really took
    assert search.cost(plan("b.h")) == 9.0
    # a header whose schema is not built yet: its first mutant builds it, and the schema screens the rest
    assert search.cost(plan("c.h")) == 3.5


def test_a_function_whose_mutant_fixed_another_failing_test_joins_every_failures_suspects(tmp_path: Path) -> None:
    """The probe runs the cheap failing tests: the function a fix was found in may be a suspect of those
    only; the report's first failure (slow, not probed) must still name it first."""
    from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search
    from pytest_whetstone.locate.mutation import MutantEvidence

    first, probed = _record("Slow", 3000), _record("Fast", 5)
    first.suspects = [Suspect("src/geo.cc", "manhattan", 5, 7, 0.9), Suspect("src/geo.cc", "scale", 13, 15, 0.5)]
    inside = Suspect("src/geo.cc", "inside", 9, 11, 0.7)
    probed.suspects = [inside]
    (tmp_path / "src").mkdir()
    (tmp_path / "src/geo.cc").write_text(GEO_CC)
    search = _Search([object()], [first, probed], tmp_path, 0.0, NativeSearchStats(), probe=[probed])  # type: ignore[list-item]
    assert search.plans(probed)  # the probed failure's suspect is mutated
    search.evidence[("src/geo.cc", "inside")] = MutantEvidence("src/geo.cc", "inside", tried=3, fixed=1)
    search.evidence[("src/geo.cc", "manhattan")] = MutantEvidence("src/geo.cc", "manhattan", tried=6)
    search.finish([])
    assert [s.qualname for s in first.suspects][:1] == ["inside"]
    assert [s.qualname for s in probed.suspects][:1] == ["inside"]


def test_neighbours_take_turns_by_where_the_spectrum_placed_them() -> None:
    """Screened mutants take turns by function: a neighbour (a function of a suspect's file the failing
    test ran) gets the share of its place among the suspects, as a suspect does, so the one the spectrum
    put second is tried long before the fortieth, and before a low static suspect."""
    from pytest_whetstone.candidates.mutant import Mutant
    from pytest_whetstone.candidates.native_plan import _Plan
    from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search
    from pytest_whetstone.records import Position, TextEdit

    class _Screen:
        def covered(self) -> dict[str, set[tuple[str, int, int, int, int, str]]]:
            return {"a.cc": {p.mutant.key for p in rest}}

    names = ["top", "near", *(f"f{i}" for i in range(2, 40)), "far"]
    failure = TestFailureRecord(test_name="A.B", suspects=[Suspect("a.cc", n, 10 * i + 1, 10 * i + 9, 1 - i / 50)
                                                            for i, n in enumerate(names)])

    def plans(qualname: str, suspect_index: int, place: int) -> list[_Plan]:
        line = 10 * names.index(qualname) + 1
        return [_Plan(failure, "a.cc", qualname, Mutant("arith", f"{qualname} {r}", TextEdit(
            "a.cc", Position(line, r + 1), Position(line, r + 2), "x"), line, 0.5), suspect_index, r, place)
            for r in range(20)]

    search = _Search([object()], [failure], Path("."), time.monotonic() + 60, NativeSearchStats())  # type: ignore[list-item]
    search.screen = _Screen()  # type: ignore[assignment]
    rest = plans("top", 0, 0) + plans("f5", 5, 5) + plans("near", -1, 1) + plans("far", -1, 40)
    order = [p.qualname for p in search.ordered_rest(failure, rest)]
    first_20 = order[:20]
    assert first_20.count("near") > first_20.count("f5") > first_20.count("far")
    fifth = {name: [i for i, q in enumerate(order) if q == name][4] for name in ("near", "f5", "far")}
    assert fifth["far"] > fifth["f5"] > fifth["near"]


def test_a_functions_mutants_take_their_turns_by_what_the_failing_tests_ran_line_by_line() -> None:
    """With a line spectrum, a big function's mutants on a line only the failing tests ran go before
    likelier kinds on lines every test runs (screened or not)."""
    from pytest_whetstone.candidates.native_mutants import mutants_in
    from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search

    class _Spectrum:
        def line_score(self, rel: str, line: int) -> float | None:
            return 1.0 if line == 3 else 0.2

    text = "int f(int a, int b) {\n  int s = a + b + 7;\n  if (a) s = b;\n  return s;\n}\n"
    mutants = mutants_in("f.c", text.encode(), 1, 5)
    assert mutants[0].line != 3
    search = _Search([object()], [], Path("."), time.monotonic() + 60, NativeSearchStats())  # type: ignore[list-item]
    search.spectrum = _Spectrum()
    assert search.by_line(mutants)[0].line == 3
    assert sorted(search.by_line(mutants), key=id) == sorted(mutants, key=id)


def test_an_overload_of_a_suspect_is_a_neighbour_of_its_own(tmp_path: Path) -> None:
    """Two C++ overloads share a qualified name: the one that is not a suspect still joins the plan."""
    from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search

    (tmp_path / "a.cc").write_text("int f(int x) {\n  return x + 1;\n}\n\nbool f(int x, int y) {\n  return x < y;\n}\n")
    failure = TestFailureRecord(test_name="A.B", suspects=[Suspect("a.cc", "f", 1, 3, 0.9)])
    search = _Search([object()], [failure], tmp_path, time.monotonic() + 60, NativeSearchStats())  # type: ignore[list-item]
    search.screen = object()  # type: ignore[assignment]
    lines = {p.mutant.line for p in search.neighbour_plans(failure)}
    assert lines and all(5 <= line <= 7 for line in lines)


def test_fixes_of_some_failing_tests_only_do_not_end_the_search() -> None:
    """With one fault the edit that fixes every failing test is the fault's: partial fixes (7 of 8) are
    kept, a few more than wanted, while the search looks on; complete ones end it."""
    from pytest_whetstone.candidates.native_partial import PARTIAL_KEPT, enough
    from pytest_whetstone.records import FixCandidate

    partial = [FixCandidate(description=f"p{i}", mutation={"complete": False}) for i in range(3)]
    complete = [FixCandidate(description=f"c{i}", mutation={"complete": True}) for i in range(3)]
    assert not enough(partial, 3)
    assert enough(complete, 3) and not enough(complete[:2] + partial[:1], 3)
    assert enough(partial * 3, 3) and len(partial * 3) >= 3 + PARTIAL_KEPT


def test_a_fix_of_tests_a_validated_fix_already_makes_pass_is_not_checked_again() -> None:
    """Neighbours of one fault that each make the same one of several failing tests pass are validated
    once: each validation is a compile and a whole suite's run.  A fix that makes another test pass (a
    second fault's) is checked, and so is one that makes every failing test it ran pass."""
    from pytest_whetstone.candidates.native_partial import PartialGate
    from pytest_whetstone.candidates.native_trial import TrialOutcome

    base = {"F1": "x", "F2": "y", "F3": "z"}
    gate = PartialGate()
    first = TrialOutcome(passed={"F1"}, failing={"F2": "y", "F3": "other"})
    assert not gate.weak(base, first)  # nothing validated yet
    gate.validated(base, first)
    assert gate.weak(base, TrialOutcome(passed={"F1"}, failing={"F2": "w", "F3": "z"}))
    assert not gate.weak(base, TrialOutcome(passed={"F2"}, failing={"F1": "x", "F3": "z"}))  # another test
    assert not gate.weak(base, TrialOutcome(passed={"F1", "F2", "F3"}))  # every one: a complete fix
    assert not gate.weak(base, TrialOutcome(passed={"F1"}))  # a screened run that covered F1 alone
    assert not gate.weak(base, TrialOutcome(failing={"F1": "x"}))  # no fix at all


def test_a_partial_fix_passed_over_counts_for_its_function_without_a_validation() -> None:
    """Its function earns its turns as when each such fix was validated; no candidate, no wider check."""
    from pytest_whetstone.candidates.mutant import Mutant
    from pytest_whetstone.candidates.native_plan import _Plan
    from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search
    from pytest_whetstone.candidates.native_trial import TrialOutcome
    from pytest_whetstone.records import Position, TextEdit

    class _NoWider:
        def run_wider(self, rel: str, text: str) -> None:
            raise AssertionError("a partial fix of tests a validated fix makes pass is not checked wide")

    failure = TestFailureRecord(failure_id="F1", test_name="A.B", suspects=[Suspect("a.cc", "f", 1, 9, 0.9)])
    edit = TextEdit("a.cc", Position(1, 1), Position(1, 2), "x")
    plan = _Plan(failure, "a.cc", "f", Mutant("arith", "a.cc", edit, 1, 0.5), 0, 0)
    search = _Search([object()], [failure], Path("."), 0.0, NativeSearchStats())  # type: ignore[list-item]
    search.base = TrialOutcome(failing={"F1": "x", "F2": "y"})
    search.partials.fixed = {"F1"}  # a fix of F1 was validated already
    outcome = TrialOutcome(passed={"F1"}, failing={"F2": "other"})
    assert search.judge(plan, "x", outcome, _NoWider(), 2) is None  # type: ignore[arg-type]
    evidence = search.evidence[("a.cc", "f")]
    assert (evidence.fixed, evidence.tried) == (1, 1) and search.partials.passed_over == 1


THREE_BINARIES_MAKEFILE = """\
CXX ?= g++
CXXFLAGS = -std=c++17 -O0 -Isrc
LIBS = -lgtest -lgtest_main -pthread
TESTS = a_test b_test c_test
all: $(TESTS)
src/geo.o: src/geo.cc src/geo.h
\t$(CXX) $(CXXFLAGS) -c src/geo.cc -o src/geo.o
tests/%.o: tests/%.cc src/geo.h
\t$(CXX) $(CXXFLAGS) -c $< -o $@
%_test: tests/%_test.o src/geo.o
\t$(CXX) -o $@ $^ $(LIBS)
check: $(TESTS)
\t./a_test && ./b_test && ./c_test
.PHONY: all check
.SECONDARY:
"""


def _three_binaries(makefile: str, include: str) -> tuple[dict[str, str], list[TestFailureRecord]]:
    """The project's files, a test file per binary (``include`` names the code), and the failures of the
    seeded `y <= h`: one in a_test, two in b_test, one in c_test."""
    from test_native_search import GEO_H

    files = {"Makefile": makefile, "src/geo.h": GEO_H, "src/geo.cc": GEO_CC}
    failures = []
    for name, count in (("a", 1), ("b", 2), ("c", 1)):
        body = "".join(f"TEST(Geo{name.upper()}, Edge{k}) {{ EXPECT_FALSE(inside({k}, 4, 4, 4)); }}\n" for k in range(count))
        files[f"tests/{name}_test.cc"] = f"#include <gtest/gtest.h>\n{include}\n\n{body}"
        failures += [TestFailureRecord(failure_id=f"F{name}{k}", runner="gtest", test_suite=f"Geo{name.upper()}",
                                       test_name=f"Edge{k}", file_path=f"tests/{name}_test.cc", failure_type="assertion",
                                       suspects=[Suspect("src/geo.cc", "inside", 9, 11, 1.0)]) for k in range(count)]
    return files, failures


def test_failing_tests_over_three_binaries_screen_one_binary_and_validate_on_all(tmp_path: Path) -> None:
    """The fault fails a test in each of three binaries: a screened run starts the binary with the most
    failing tests only (a note says so), and the fix is compiled alone and checked on all three."""
    from test_native_search import _tree_hashes, build_make_project

    from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates

    files, failures = _three_binaries(THREE_BINARIES_MAKEFILE, '#include "geo.h"')
    proj = build_make_project(tmp_path / "geo", files)
    before = _tree_hashes(proj)
    stats = NativeSearchStats()
    found = native_search_candidates(failures, proj, 60, store=proj / ".whetstone", stats=stats)
    assert _tree_hashes(proj) == before
    assert any("the failing tests of 1 of 3 test binaries" in note for note in stats.notes), stats.notes
    top = found[0]
    assert top.validated and top.edits[0].new_text == "<" and top.mutation.get("every"), top


INCLUDING_MAKEFILE = THREE_BINARIES_MAKEFILE.replace("%_test: tests/%_test.o src/geo.o", "%_test: tests/%_test.o")


def test_a_source_the_test_files_include_is_built_as_a_schema_for_the_probed_binary_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test files `#include` the source (to reach its static functions, as cJSON's do): a schema of it
    recompiles the units that include it.  With the failing tests spread over three binaries, the
    screened runs start one, so the schema is compiled for the source and that binary's unit only (two
    compiles, not four); the fix is still compiled alone and checked on all three."""
    from test_native_search import build_make_project

    from pytest_whetstone.build.gate import Gate
    from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates

    files, failures = _three_binaries(INCLUDING_MAKEFILE, '#include "../src/geo.cc"')
    proj = build_make_project(tmp_path / "geo", files)
    schema_units: list[str] = []
    compile_object = Gate.compile_object

    def counted(self: Gate, source: str, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if "-O0" in (args[3] if len(args) > 3 else kwargs.get("extra_args", ())):  # a schema's compile
            schema_units.append(Path(source).name)
        return compile_object(self, source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Gate, "compile_object", counted)
    stats = NativeSearchStats()
    found = native_search_candidates(failures, proj, 60, store=proj / ".whetstone", stats=stats)
    assert any("the failing tests of 1 of 3 test binaries" in note for note in stats.notes), stats.notes
    assert sorted(set(schema_units)) == ["b_test.cc"], schema_units  # the probed binary's unit, nothing else
    top = found[0]
    assert top.validated and top.edits[0].new_text == "<" and top.mutation.get("every"), top


def test_the_plan_starts_from_the_failing_test_whose_localization_is_surest() -> None:
    from pytest_whetstone.candidates.native_search import surest_first

    def failure(name: str, top: float) -> TestFailureRecord:
        return TestFailureRecord(failure_id=name, runner="gtest", test_suite="S", test_name=name,
                                 file_path="t.cc", failure_type="assertion",
                                 suspects=[Suspect("a.h", name.lower(), 1, 2, top)] if top else [])

    reads_a_global, calls_it, also_calls_it, none = (failure("ReadsAGlobal", 0.47), failure("CallsIt", 0.51),
                                                    failure("AlsoCallsIt", 0.51), failure("NoSuspect", 0.0))
    ordered = surest_first([reads_a_global, calls_it, none, also_calls_it])
    assert [f.failure_id for f in ordered] == ["CallsIt", "AlsoCallsIt", "ReadsAGlobal", "NoSuspect"]
