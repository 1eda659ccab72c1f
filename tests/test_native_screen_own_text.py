"""A trial that reads the file's text afresh on every run (JS) screens each mutant as its own text when that
runs faster than the schema's choice, measured once per file on two unmutated runs of each; a compiled trial
always switches the schema's choice on, and a mutant the schema could not hold runs as its own text.

Scripted trials (the real harness's timings are in test_native_js_screen.py and docs/native-search-js.md)."""

from __future__ import annotations

from test_native_schema import CompilingTrial

from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_screen import OWN_TEXT_ID, OWN_TEXT_SHARE, Screen
from pytest_whetstone.candidates.native_trial import TrialOutcome
from pytest_whetstone.records import Position, TextEdit

SOURCE = "function f(a, b) {\n  if (a < b) return a + b;\n  return a - b;\n}\nmodule.exports = { f };\n"
FAILING = {"F1": "expected 3, got 4"}


class LoadsText(CompilingTrial):
    """Runs take ``schema_s`` on the schema's text and ``own_s`` on any other; every run is recorded."""

    loads_text = True
    screens_in_process = True

    def __init__(self, schema_s: float, own_s: float) -> None:
        self.schema_s, self.own_s = schema_s, own_s
        self.runs: list[tuple[bool, int]] = []  # (the schema's text, the choice switched on)

    def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                   only: set[str] | None = None, spins: int = 0) -> TrialOutcome:
        schema = "whetstone_now_" in text
        self.runs.append((schema, mutant_id))
        return TrialOutcome(failing=dict(FAILING), seconds=self.schema_s if schema else self.own_s)


def _screen(trial: CompilingTrial) -> tuple[Screen, list]:  # type: ignore[type-arg]
    screen = Screen(TrialOutcome(failing=dict(FAILING), seconds=0.05), lambda rel: SOURCE, deadline=1e12,
                    timeout_s=30.0)
    mutants = mutants_in("f.js", SOURCE.encode(), 1, 4)
    screen.add(mutants)
    screen.prepare(trial)  # type: ignore[arg-type]
    return screen, mutants


def test_a_faster_own_text_is_what_each_screened_mutant_runs() -> None:
    trial = LoadsText(schema_s=0.2, own_s=0.05)
    screen, mutants = _screen(trial)
    assert screen.files["f.js"].own_text
    assert sum(1 for schema, _ in trial.runs if not schema) == 2  # the decision: two unmutated own-text runs
    trial.runs.clear()
    held = next(m for m in mutants if m.key in screen.files["f.js"].schema.ids)  # type: ignore[union-attr]
    assert screen.outcome(held, trial) is not None  # type: ignore[arg-type]
    # its own text behind its one choice (not the schema's hundreds): switched on, so not the unmutated code
    assert trial.runs == [(False, 1)]
    assert any("own texts" in note for note in screen.notes)


def test_a_schema_that_runs_as_fast_keeps_its_choices() -> None:
    trial = LoadsText(schema_s=0.05, own_s=0.05 * OWN_TEXT_SHARE + 0.001)
    screen, mutants = _screen(trial)
    state = screen.files["f.js"]
    assert not state.own_text
    trial.runs.clear()
    held = next(m for m in mutants if m.key in state.schema.ids)  # type: ignore[union-attr]
    screen.outcome(held, trial)  # type: ignore[arg-type]
    assert trial.runs == [(True, state.schema.ids[held.key])]  # type: ignore[union-attr]
    # a mutant the schema could not hold still runs in the harness, as its own text, not as a process of its own
    outside = type(held)("test", "b -> 7", TextEdit("f.js", Position(3, 14), Position(3, 15), "7"), 3, 0.5)
    assert outside.key not in state.schema.ids  # type: ignore[union-attr]
    trial.runs.clear()
    assert screen.outcome(outside, trial) is not None  # type: ignore[arg-type]
    assert trial.runs == [(False, OWN_TEXT_ID)]


def test_a_compiled_trial_always_switches_the_choice_on() -> None:
    class Compiled(LoadsText):
        loads_text = False

    trial = Compiled(schema_s=0.2, own_s=0.01)
    screen, mutants = _screen(trial)
    state = screen.files["f.js"]
    assert not state.own_text and all(schema for schema, _ in trial.runs)
    held = next(m for m in mutants if m.key in state.schema.ids)  # type: ignore[union-attr]
    trial.runs.clear()
    screen.outcome(held, trial)  # type: ignore[arg-type]
    assert trial.runs == [(True, state.schema.ids[held.key])]  # type: ignore[union-attr]
