"""Fix candidates for gtest / ctest / Jest / TAP failures (seed 001 step 1373)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.candidates import generate
from pytest_whetstone.candidates.native_tests import generate_native_candidates, split_native
from pytest_whetstone.edits import apply_edits_text
from pytest_whetstone.parse import parse_text
from pytest_whetstone.records import FixCandidate, TestFailureRecord, rank_candidates

FIXTURES = Path(__file__).parent / "fixtures" / "native_projects"


def _copy(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copytree(FIXTURES / name, dest)
    return dest


def _from_log(log: str, ws: Path) -> tuple[list[TestFailureRecord], list[FixCandidate]]:
    failures = parse_text((FIXTURES / "logs" / log).read_text()).test_failures
    return failures, generate([], failures, ws)


def _applied(ws: Path, cand: FixCandidate) -> str:
    (rel,) = {e.file_path for e in cand.edits}
    return apply_edits_text((ws / rel).read_text(), cand.edits, rel)


def test_assertion_literal_becomes_the_expected_value(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "gtest_calc")
    failures, cands = _from_log("ctest_calc.log", ws)
    port = next(f for f in failures if f.test_name == "DefaultPort")
    (fix,) = [c for c in cands if c.target_id == port.failure_id and c.mutation_type == "replaceNode"]
    assert 0.4 <= fix.confidence <= 0.7 and fix.source == "heuristic"
    assert "8008" in fix.description and "8080" in fix.description and "calc::default_port" in fix.description
    assert "  return 8080;  // seeded fault" in _applied(ws, fix)
    assert fix.mutation["file_hashes"].keys() == {"src/text.cc"}


def test_off_by_one_gets_a_boundary_flip_and_a_quoted_logic_change(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "gtest_calc")
    failures, cands = _from_log("ctest_calc.log", ws)
    upper = next(f for f in failures if f.test_name == "IncludesUpperBound")
    mine = [c for c in cands if c.target_id == upper.failure_id]
    (flip,) = [c for c in mine if c.mutation.get("kind") == "boundary"]
    assert "for (int i = lo; i <= hi; ++i)" in _applied(ws, flip)
    (logic,) = [c for c in mine if c.mutation.get("kind") == "logic-change"]
    assert "expected 10, got 6" in logic.description and "calc::sum_range (src/stats.cc:5)" in logic.description
    assert logic.confidence > flip.confidence  # a guess at an operator stays below the quoted rule


def test_js_literal_keeps_its_quote_style(tmp_path: Path) -> None:
    (tmp_path / "greet.js").write_text("function greet() {\n  return 'hi';\n}\nmodule.exports = { greet };\n")
    (tmp_path / "greet.test.js").write_text(
        "const { greet } = require('./greet');\ntest('greets', () => {\n  expect(greet()).toBe('hello');\n});\n"
    )
    failure = TestFailureRecord(runner="jest", test_suite="greet.test.js", test_name="greets",
                                failure_type="assertion", file_path="greet.test.js", line=3,
                                expected_value='"hello"', actual_value='"hi"').ensure_id()
    cands = generate_native_candidates([failure], tmp_path)
    (fix,) = [c for c in cands if c.edits]
    assert "  return 'hello';" in _applied(tmp_path, fix)


def test_no_literal_match_means_no_value_edit(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "tap_slug")
    _, cands = _from_log("node_tap_slug.log", ws)
    assert not [c for c in cands if c.mutation.get("kind") == "value-correction"]
    assert any("expected hello-world, got hello_world" in c.description and "slugify" in c.description for c in cands)


@pytest.mark.skipif(not shutil.which("g++"), reason="g++ not installed")
def test_asan_crash_gets_a_guard_at_the_crashing_frame_that_compiles(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "crash_cpp")
    failures, cands = _from_log("ctest_asan_crash.log", ws)
    top = rank_candidates([c for c in cands if c.target_id == failures[0].failure_id])[0]
    assert top.mutation_type == "insertNode" and top.confidence == 0.3
    patched = _applied(ws, top)
    assert "  if (!head_) {\n    return 0;\n  }\n  return head_->value;" in patched
    (ws / "src" / "queue.cc").write_text(patched)
    check = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Isrc", "src/queue.cc"], cwd=ws,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    assert any(c.mutation_type == "manual" and "src/queue.cc:25" in c.description for c in cands)


def test_crash_without_a_trace_is_a_manual_guard_naming_the_suspect(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "crash_cpp")
    _, cands = _from_log("ctest_segfault.log", ws)
    guard = [c for c in cands if c.mutation.get("kind") == "guard"]
    assert guard and not any(c.edits for c in cands)
    assert "q::Queue::front_value" in guard[0].description and "-fsanitize=address" in guard[0].description


def test_not_run_names_the_missing_executable(tmp_path: Path) -> None:
    _, cands = _from_log("ctest_not_run.log", tmp_path)
    top = cands[0]
    assert top.mutation_type == "manual" and "ghost_test_binary" in top.description
    assert top.confidence > 0.1


@pytest.mark.parametrize(
    "failure, needle",
    [
        (TestFailureRecord(runner="jest", test_suite="a.test.js", test_name="Test suite failed to run",
                           failure_type="infra", message="Cannot find module 'lodash' from 'a.test.js'"), "lodash"),
        (TestFailureRecord(runner="gtest", test_suite="DbTest", test_name="SetUpTestSuite or TearDownTestSuite",
                           failure_type="infra", message="connection refused"), "DbTest"),
        (TestFailureRecord(runner="ctest", test_name="late", failure_type="infra",
                           message="Not Run: Failed test dependencies: early"), "early"),
    ],
)
def test_infra_is_manual_naming_the_missing_piece(tmp_path: Path, failure: TestFailureRecord, needle: str) -> None:
    cands = generate_native_candidates([failure.ensure_id()], tmp_path)
    assert all(c.mutation_type == "manual" for c in cands)
    assert needle in cands[0].description and cands[0].mutation["kind"] == "fixture-setup"


def test_timeout_is_manual_and_prominent(tmp_path: Path) -> None:
    failure = TestFailureRecord(runner="ctest", test_name="slow", failure_type="timeout", outcome="timeout",
                                message="Timeout").ensure_id()
    cands = generate_native_candidates([failure], tmp_path)
    assert [c.mutation.get("kind") for c in cands] == ["timeout", "manual"]
    assert cands[0].confidence == 0.2


def test_every_failure_has_one_manual_fallback_and_candidates_round_trip(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "jest_cart")
    failures, cands = _from_log("jest_cart.log", ws)
    for failure in failures:
        mine = [c for c in cands if c.target_id == failure.failure_id]
        assert [c.mutation.get("kind") for c in mine].count("manual") == 1
        assert mine[-1].mutation["kind"] == "manual" and mine[-1].confidence == 0.1
    assert cands == rank_candidates(cands)
    again = [FixCandidate.from_dict(json.loads(c.to_json())) for c in cands]
    assert again == cands
    assert [c.candidate_id for c in _from_log("jest_cart.log", ws)[1]] == [c.candidate_id for c in cands]


def test_dispatch_sends_native_runners_here_and_python_to_the_python_generator(tmp_path: Path) -> None:
    native = TestFailureRecord(runner="gtest", test_suite="A", test_name="B", failure_type="assertion").ensure_id()
    python = TestFailureRecord(runner="pytest", test_name="test_x", node_id="t.py::test_x",
                               file_path="t.py", failure_type="assertion").ensure_id()
    assert split_native([native, python]) == ([native], [python])
    cands = generate([], [native, python], tmp_path)
    fallbacks = [c for c in cands if c.mutation.get("kind") == "manual"]
    assert sorted(c.target_id for c in fallbacks) == sorted([native.failure_id, python.failure_id])
