"""A search that spent its plan with time left widens it: past the ten suspects, to every function the
failing test ran, the spectrum's likeliest first, a few mutants of each in turn, once per failure
(a decoder two calls below the test, in another file, that every test runs ranks past the suspects)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_whetstone.candidates.native_plan import Planner
from pytest_whetstone.candidates.naturalness import Naturalness
from pytest_whetstone.locate.native_workspace import Func
from pytest_whetstone.records import Suspect, TestFailureRecord

CODING_C = """\
int decode_len(const unsigned char *p, int n) {
  if (n < 1) return -1;
  return p[0] > 127 ? -1 : p[0];
}

int checked_add(int a, int b) { return a + b; }

int never_ran(int x) { return x * 2; }
"""
BATCH_C = "int batch_count(const unsigned char *p) { return p[0] + 1; }\n"
TEST_C = "int test_helper(int x) { return x == 3; }\n"


class _Planner(Planner):
    def __init__(self, root: Path, spectrum: object) -> None:
        self.workspace, self.screen, self.spectrum = root, None, spectrum
        self.spectrum_names = {"F1": "Batch.Corrupt"}
        self.evidence, self.planned, self.later, self.widened, self.turns, self.trials = {}, {}, [], set(), False, []
        self.naturalness, self.natural, self.generated = Naturalness(root), {}, {}

    def original(self, rel: str) -> str | None:
        return (self.workspace / rel).read_text()


def test_the_plan_widens_once_to_what_the_failing_test_ran_likeliest_first(tmp_path: Path) -> None:
    (tmp_path / "coding.c").write_text(CODING_C)
    (tmp_path / "batch.c").write_text(BATCH_C)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/batch_test.c").write_text(TEST_C)
    funcs = {("coding.c", "decode_len", 1): Func("coding.c", "decode_len", 1, 4, "decode_len"),
             ("coding.c", "checked_add", 6): Func("coding.c", "checked_add", 6, 6, "checked_add"),
             ("batch.c", "batch_count", 1): Func("batch.c", "batch_count", 1, 1, "batch_count"),
             ("tests/batch_test.c", "test_helper", 1): Func("tests/batch_test.c", "test_helper", 1, 1, "test_helper")}
    scores = {("coding.c", "decode_len", 1): 0.4, ("coding.c", "checked_add", 6): 0.7,
              ("batch.c", "batch_count", 1): 0.9, ("tests/batch_test.c", "test_helper", 1): 1.0}
    spectrum = SimpleNamespace(ran_in=lambda test: set(funcs) if test == "Batch.Corrupt" else set(),
                               score=scores.get, funcs_by_key=funcs, line_score=lambda rel, line: None)
    planner = _Planner(tmp_path, spectrum)
    planner.planned[("batch.c", "batch_count")] = funcs[("batch.c", "batch_count", 1)]  # a suspect the plan held
    failure = TestFailureRecord(failure_id="F1", runner="gtest", test_name="Corrupt",
                                suspects=[Suspect("batch.c", "batch_count", 1, 1, 1.0)])
    widened = planner.take_later(failure)
    names = [p.qualname for p in widened]
    assert set(names) == {"checked_add", "decode_len"}  # not the planned one, not the test's own code
    assert names[0] == "checked_add" and names[1] == "decode_len"  # the likelier first, then turns
    assert all(p.suspect_index == -1 for p in widened)
    assert ("coding.c", "decode_len") in planner.planned
    assert planner.take_later(failure) == []  # once per failure (and nothing past the cap: small functions)
    assert planner.take_later(failure) == []


# 38 lines of arithmetic: 1,165 mutants, past the cap (MAX_MUTANTS: 800 by each of two orders, 860 kept)
BIG_C = "int big(int a, int b) {\n" + "".join(f"  a = a * {k} + b - {k + 1};\n" for k in range(2, 40)) + "  return a;\n}\n"
OTHER_C = BIG_C.replace("int big(", "int other(")


def test_what_the_cap_left_out_comes_last_the_functions_whose_mutants_changed_the_failure_first(tmp_path: Path) -> None:
    """A huge function's plan keeps its likeliest mutants (MAX_MUTANTS); once every other plan is spent,
    the rest of them, those of a function whose mutants changed the failure before those of one whose
    mutants changed nothing, in turn."""
    from pytest_whetstone.locate.mutation import MutantEvidence

    (tmp_path / "big.c").write_text(BIG_C)
    (tmp_path / "other.c").write_text(OTHER_C)
    planner = _Planner(tmp_path, None)
    big, other = Suspect("big.c", "big", 1, 40, 0.5), Suspect("other.c", "other", 1, 40, 1.0)
    failure = TestFailureRecord(failure_id="F1", runner="gtest", test_name="Big", suspects=[other, big])
    planned = {p.mutant.key for p in planner.plans(failure)}
    every = {m.key for s in (big, other) for m in planner.every_mutant(failure, s, BIG_C if s is big else OTHER_C)}
    assert 0 < len(planned) < len(every)
    planner.evidence[("big.c", "big")] = MutantEvidence("big.c", "big", tried=5, changed=2)
    planner.evidence[("other.c", "other")] = MutantEvidence("other.c", "other", tried=5)
    planner.later = []
    past = planner.take_later(failure)  # no spectrum: nothing the test ran to widen to, so at once
    assert [p.qualname for p in past[:4]] == ["big", "other", "big", "other"]
    assert not {p.mutant.key for p in past} & planned and {p.mutant.key for p in past} | planned == every
    assert planner.take_later(failure) == []  # once per failure


def test_a_functions_mutants_are_generated_once_per_search_each_failures_values_added(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan is made two or three times per failing test: a function's mutants are generated once, and each
    caller gets its own list, with its failure's value mutants."""
    from pytest_whetstone.candidates import native_plan

    (tmp_path / "coding.c").write_text(CODING_C)
    calls: list[str] = []
    real = native_plan.mutants_in
    monkeypatch.setattr(native_plan, "mutants_in", lambda *a, **k: calls.append(k["qualname"]) or real(*a, **k))
    planner = _Planner(tmp_path, None)
    fn = Func("coding.c", "decode_len", 1, 4, "decode_len")
    quiet = TestFailureRecord(failure_id="F1", runner="gtest", test_name="A")
    valued = TestFailureRecord(failure_id="F2", runner="gtest", test_name="B", expected_value="0", actual_value="-1")
    first = planner.every_mutant(quiet, fn, CODING_C)
    first.clear()  # a caller's cut does not reach the cache
    again = planner.every_mutant(quiet, fn, CODING_C)
    valued_mutants = planner.every_mutant(valued, fn, CODING_C)
    assert calls == ["decode_len"]
    assert again and not any(m.kind == "return-expected" for m in again)
    assert [m.edit.new_text for m in valued_mutants if m.kind == "return-expected"] == ["0", "0"]  # both `-1`s
