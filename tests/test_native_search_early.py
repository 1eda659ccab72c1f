"""The search's start: the static plan that picks the early schemata's mutants is made without the token
model, and the model scores the planned mutants while the main thread waits for those compiles."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search
from pytest_whetstone.candidates.native_search_early import WARM_CHUNK, early_schemata, score_while
from pytest_whetstone.records import Suspect, TestFailureRecord

# a function of many lines, each with a few mutants: more than one chunk of them
SOURCE = "int f(int a, int b) {\n" + "".join(f"  if (a < {i}) b = b + {i};\n" for i in range(1, 60)) + "  return b;\n}\n"


def _search(root: Path, failure: TestFailureRecord) -> _Search:
    return _Search([object(), object()], [failure], root, time.monotonic() + 60,  # type: ignore[list-item]
                   NativeSearchStats())


def _failure() -> TestFailureRecord:
    return TestFailureRecord(test_name="A.B", suspects=[Suspect("f.c", "f", 1, SOURCE.count("\n"), 1.0)])


class _Screen:
    def __init__(self) -> None:
        self.added: list[object] = []
        self.prepared = threading.Event()

    def add(self, mutants: list[object]) -> None:
        self.added += mutants

    def prepare(self, trials: list[object], stop: threading.Event) -> None:
        self.prepared.set()


class _Trial:
    def profile(self, budget_s: float) -> None:  # a trial that takes a spectrum
        raise AssertionError("not taken here")


def test_the_static_plan_picks_the_mutants_without_the_token_model(tmp_path: Path) -> None:
    (tmp_path / "f.c").write_text(SOURCE)
    failure = _failure()
    search = _search(tmp_path, failure)
    search.trial = _Trial()  # type: ignore[assignment]
    search.screen = screen = _Screen()  # type: ignore[assignment]
    thread = early_schemata(search, failure, threading.Event())
    assert thread is not None
    thread.join(10)
    assert screen.prepared.is_set() and screen.added  # the early schemata get the planned mutants
    assert search.natural == {}  # none scored yet: which mutants, not their order
    assert not search.plain_order  # the plan after the spectrum reads the model again
    assert "plans" in search.stats.phases


def test_the_model_scores_the_planned_mutants_until_the_compiles_end(tmp_path: Path) -> None:
    (tmp_path / "f.c").write_text(SOURCE)
    failure = _failure()
    search = _search(tmp_path, failure)
    search.plain_order = True
    search.plans(failure)
    search.plain_order = False
    mutants = [m for generated in search.generated.values() for m in generated]
    assert len(mutants) > WARM_CHUNK
    score_while(search, failure, lambda: len(search.natural) >= WARM_CHUNK)  # the compiles end after one chunk
    assert len(search.natural) == WARM_CHUNK
    score_while(search, failure, lambda: False)
    assert set(search.natural) == {m.key for m in mutants}
    # the same scores the plan would have worked out itself
    assert search.natural_bonus(mutants) == _search(tmp_path, failure).natural_bonus(mutants)
