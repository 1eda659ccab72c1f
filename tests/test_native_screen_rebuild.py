"""A schema built before the spectrum is built once more when the plan after it asks for many mutants
the schema was never offered (:data:`.native_screen.REBUILD_MIN`), and once more for the plan the
schema's per-test lines make (:data:`.native_screen.MAX_REBUILDS`): in a file of many functions the
early plan holds only some of them, and each mutant left out would cost a compile of its own."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from test_native_schema import CompilingTrial
from test_native_search import GEO_CC, GEO_TEST, _failure, _tree_hashes, build_make_geo

from pytest_whetstone.candidates.mutant import Mutant
from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_screen import MAX_REBUILDS, REBUILD_MIN, Screen
from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.candidates.native_trial import TrialOutcome
from pytest_whetstone.records import Suspect

FUNCS = 12
SOURCE = "".join(f"int f{k}(int a, int b) {{\n  return a < b ? a + {k} : b - {k};\n}}\n" for k in range(FUNCS))


def _mutants_of(k: int) -> list[Mutant]:
    return mutants_in("many.cc", SOURCE.encode(), 3 * k + 1, 3 * k + 3)


class Trial(CompilingTrial):
    def __init__(self, broken_after: int = 0) -> None:
        self.compiles = 0
        self.broken_after = broken_after  # compiles after this many fail (0: none fail)

    def prepare_schema(self, rel: str, text: str) -> str:
        self.compiles += 1
        return "error: no" if self.broken_after and self.compiles > self.broken_after else ""

    def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                   only: set[str] | None = None, spins: int = 0) -> TrialOutcome:
        return TrialOutcome(failing={"F1": "x"})


def _screen() -> Screen:
    return Screen(TrialOutcome(failing={"F1": "x"}, seconds=0.01), lambda rel: SOURCE, deadline=1e12, timeout_s=5.0)


def test_a_later_plan_s_new_mutants_are_screened_after_one_more_compile() -> None:
    early = _mutants_of(0) + _mutants_of(1)
    later = _mutants_of(0) + _mutants_of(7) + _mutants_of(9)
    assert len(_mutants_of(7) + _mutants_of(9)) >= REBUILD_MIN
    screen, trial = _screen(), Trial()
    screen.add(early)
    screen.prepare(trial)  # type: ignore[arg-type]
    assert trial.compiles == 1 and screen.covers(early[0]) and not screen.covers(later[-1])
    screen.add(later)
    screen.prepare(trial)  # type: ignore[arg-type]
    assert trial.compiles == 2 and all(screen.covers(m) for m in early + later)
    assert any("built again for" in note for note in screen.notes), screen.notes
    assert screen.stats()["per_file"]["many.cc"][0] and len(screen.stats()["per_file"]["many.cc"][0]) == 2
    # once more, for the plan the schema's per-test lines make; a fourth plan's newcomers are compiled alone
    screen.add(later + _mutants_of(10) + _mutants_of(11))
    screen.prepare(trial)  # type: ignore[arg-type]
    assert trial.compiles == 3 and screen.covers(_mutants_of(11)[0]) and screen.covers(early[0])
    screen.add(later + _mutants_of(3) + _mutants_of(4))
    screen.prepare(trial)  # type: ignore[arg-type]
    assert trial.compiles == 3 and not screen.covers(_mutants_of(4)[0])


def test_a_few_newcomers_are_not_worth_a_compile() -> None:
    screen, trial = _screen(), Trial()
    screen.add(_mutants_of(0))
    screen.prepare(trial)  # type: ignore[arg-type]
    few = _mutants_of(5)[: REBUILD_MIN - 1]
    screen.add(_mutants_of(0) + few)
    screen.prepare(trial)  # type: ignore[arg-type]
    assert trial.compiles == 1 and not screen.covers(few[0]) and screen.covers(_mutants_of(0)[0])


def test_a_rebuild_that_does_not_compile_keeps_the_schema_it_had() -> None:
    screen, trial = _screen(), Trial(broken_after=1)
    screen.add(_mutants_of(0))
    screen.prepare(trial)  # type: ignore[arg-type]
    screen.add(_mutants_of(0) + _mutants_of(7) + _mutants_of(9))
    screen.prepare(trial)  # type: ignore[arg-type]
    assert trial.compiles == 2
    assert screen.covers(_mutants_of(0)[0]) and not screen.covers(_mutants_of(7)[0])


class HeldTrial(Trial):
    """A trial whose schema compiles wait for ``go``, so a test sees a rebuild under way."""

    def __init__(self, broken_after: int = 0) -> None:
        super().__init__(broken_after)
        self.go = threading.Event()
        self.go.set()

    def prepare_schema(self, rel: str, text: str) -> str:
        assert self.go.wait(10)
        return super().prepare_schema(rel, text)


def test_a_rebuild_in_the_background_leaves_the_old_schema_screening_on_the_other_trial() -> None:
    """One trial builds the schema again while the other goes on screening what the old one holds; the
    mutants only the new one holds wait for it (no compile of their own), and it is swapped in once built."""
    screen, first, second = _screen(), HeldTrial(), HeldTrial()
    screen.add(_mutants_of(0))
    screen.prepare([first, second], background=True)  # type: ignore[list-item]
    assert screen.rebuild is None and screen.busy() is None  # a first build is never in the background
    new = _mutants_of(7) + _mutants_of(9)
    screen.add(_mutants_of(0) + new)
    second.go.clear()
    screen.prepare([first, second], background=True)  # type: ignore[list-item]
    assert screen.busy() is second
    assert screen.will_cover(new[0]) and not screen.covers(new[0])
    assert screen.covers(_mutants_of(0)[0]) and not screen.will_cover(_mutants_of(0)[0])
    assert screen.outcome(_mutants_of(0)[0], first) is not None  # type: ignore[arg-type]
    assert not screen.settle(wait=False)  # still building: nothing swapped
    second.go.set()
    assert screen.settle(wait=True)
    assert screen.busy() is None and screen.covers(new[0]) and not screen.will_cover(new[0])
    assert (first.compiles, second.compiles) == (1, 1)


@pytest.mark.parametrize("background", [True, False])
def test_a_rebuild_that_fails_keeps_the_old_schema_and_counts_among_the_rebuilds(background: bool) -> None:
    screen, first, second = _screen(), Trial(), Trial()
    screen.add(_mutants_of(0))
    screen.prepare([first, second])  # type: ignore[list-item]
    first.broken_after = first.compiles or -1  # from now on their compiles fail
    second.broken_after = second.compiles or -1
    for _ in range(MAX_REBUILDS + 2):
        screen.add(_mutants_of(0) + _mutants_of(7) + _mutants_of(9))
        screen.prepare([first, second], background=background)  # type: ignore[list-item]
        screen.settle(wait=True)
        assert screen.covers(_mutants_of(0)[0]) and not screen.covers(_mutants_of(7)[0])
    assert first.compiles + second.compiles == 1 + MAX_REBUILDS


def test_what_one_schema_could_not_hold_is_built_again_in_the_background_once_per_schema(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A file past what one schema holds: the queue's mutants of it that the schema does not hold are
    offered to a schema built again on the last trial (the first goes on screening what the old one
    holds), the queue's order first; once swapped in, the new schema may be offered what it cannot hold
    in turn, the old one only once."""
    from pytest_whetstone.candidates import native_schema

    monkeypatch.setattr(native_schema, "MAX_SCHEMA_MUTANTS", 40)
    everything = [m for k in range(FUNCS) for m in _mutants_of(k)]
    screen, first, second = _screen(), HeldTrial(), HeldTrial()
    screen.add(everything)
    screen.prepare([first, second])  # type: ignore[list-item]
    held = [m for m in everything if screen.covers(m)]
    past = [m for m in everything if not screen.covers(m)]
    assert len(held) == 40 and len(past) >= 40 + REBUILD_MIN
    assert screen.may_build_past(past[0], 2) and not screen.may_build_past(held[0], 2)
    assert not screen.may_build_past(past[0], 1)  # one trial: nothing to screen while it builds
    second.go.clear()
    screen.build_past("many.cc", held[-5:] + past, [first, second], room=2.0)  # type: ignore[list-item]
    assert screen.busy() is second and screen.will_cover(past[0]) and screen.covers(held[0])
    assert not screen.may_build_past(past[-1], 2)  # under way
    second.go.set()
    assert screen.settle(wait=True)
    now = [m.key for m in everything if screen.covers(m)]
    assert len(now) == 40 and past[0].key in now  # only the queue's: none of the mutants tried already
    assert not set(now) & {m.key for m in held[:-5]}
    assert not screen.covers(past[-1]) and screen.may_build_past(past[-1], 2)
    assert any("past what it held" in note for note in screen.notes), screen.notes
    assert (first.compiles, second.compiles) == (1, 1)


# ----------------------------------------------------------------------------- the search, end to end

FILLERS = 50
MANY_CC = GEO_CC + """
int finish_value(int v);

int stage(int v) { return finish_value(v); }

int pipeline(int v) { return stage(v); }
""" + "".join(f"\nint filler_{k}(int v) {{ return v * {k} + 1; }}\n" for k in range(FILLERS)) + """
int finish_value(int v) {
  int total = 0;
  for (int i = 0; i < 3; ++i) total += v;
  return total - 1;  // seeded fault: total + 1
}
"""
MANY_TEST = GEO_TEST.replace('#include "geo.h"\n', '#include "geo.h"\n\nint pipeline(int v);\n').replace(
    "  EXPECT_FALSE(inside(1, 4, 4, 4));\n", "") + "TEST(Geo, Pipeline) { EXPECT_EQ(pipeline(2), 7); EXPECT_EQ(pipeline(5), 16); }\n"


def test_the_search_builds_a_big_file_s_schema_again_for_what_the_spectrum_found(tmp_path: Path) -> None:
    """The failing test calls ``pipeline``, which reaches ``finish_value`` through ``stage``; the file
    holds 50 more functions between them.  The schema built while the spectrum runs holds the suspect,
    its callee and the first functions of the file; the spectrum then names ``finish_value``, the plan
    asks for its mutants, the schema is built once more with them, and the fix is screened, compiled
    alone with the real flags and validated; the user's tree is untouched."""
    if not shutil.which("valgrind"):
        pytest.skip("valgrind not installed (no spectrum, so no early schema)")
    proj = build_make_geo(tmp_path / "geo", MANY_CC, MANY_TEST)
    before = _tree_hashes(proj)
    line = MANY_CC.splitlines().index("int pipeline(int v) { return stage(v); }") + 1
    failure = _failure(proj, "Pipeline", Suspect("src/geo.cc", "pipeline", line, line, 1.0))
    stats = NativeSearchStats()
    found = native_search_candidates([failure], proj, 90, store=proj / ".whetstone", stats=stats)
    assert _tree_hashes(proj) == before
    assert any("built again for" in note for note in stats.notes), stats.to_dict()
    assert "left-out" not in stats.alone, stats.to_dict()  # finish_value's mutants were screened
    top = found[0]
    assert top.validated and top.edits[0].new_text == "+", top


def test_a_compile_again_after_errors_lets_no_newcomer_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past what one schema holds, a round after errors holds only what the failed compile held, less
    what the errors left out: each newcomer let in where one was left out would bring errors of its own
    (a `%` of two doubles), each costing a compile of the whole file."""
    from pytest_whetstone.candidates import native_schema, native_screen

    monkeypatch.setattr(native_schema, "MAX_SCHEMA_MUTANTS", 10)
    held: list[set[tuple[str, int, int, int, int, str]]] = []
    real = native_screen.schema_text

    def spy(*args: object, **kwargs: object) -> native_schema.Schema | None:
        schema = real(*args, **kwargs)  # type: ignore[arg-type]
        held.append(set(schema.ids) if schema is not None else set())
        return schema
    monkeypatch.setattr(native_screen, "schema_text", spy)

    class Failing(Trial):
        def prepare_schema(self, rel: str, text: str) -> str:
            self.compiles += 1
            self.error_lines = {2} if self.compiles == 1 else set()  # the first function's line, no place named
            return "error: no" if self.compiles == 1 else ""

    mutants = [m for k in range(FUNCS) for m in _mutants_of(k)]
    assert len(mutants) > 10
    screen, trial = _screen(), Failing()
    screen.add(mutants)
    screen.prepare(trial)  # type: ignore[arg-type]
    assert trial.compiles == 2 and len(held) == 2
    assert held[1] and held[1] < held[0]  # the same mutants, less line 2's: none let in
    assert all(key[1] != 2 for key in held[1])


class FileHeldTrial(Trial):
    """A trial whose schema compile of a file waits for that file's event (none: it goes on at once)."""

    def __init__(self) -> None:
        super().__init__()
        self.hold: dict[str, threading.Event] = {}
        self.built: list[str] = []

    def prepare_schema(self, rel: str, text: str) -> str:
        if rel in self.hold:
            assert self.hold[rel].wait(10)
        self.built.append(rel)
        return super().prepare_schema(rel, text)


def _of(rel: str, k: int) -> list[Mutant]:
    return mutants_in(rel, SOURCE.encode(), 3 * k + 1, 3 * k + 3)


def test_the_first_schemata_a_later_plan_adds_are_built_one_after_another_while_the_built_ones_screen() -> None:
    """The plan after the spectrum names files no schema was built for: with one built already, they are
    built on the last trial, one after another, while the first goes on screening; each file's mutants
    wait for its schema (none compiled alone, none built twice) and are screened once it is in, before
    the others' are."""
    screen, first, second = _screen(), FileHeldTrial(), FileHeldTrial()
    screen.add(_of("one.cc", 0))
    screen.prepare([first, second], background=True)  # type: ignore[list-item]
    assert screen.rebuild is None and first.built == ["one.cc"]  # nothing to screen meanwhile: built now
    second.hold = {"two.cc": threading.Event(), "three.cc": threading.Event()}
    screen.add(_of("two.cc", 1) + _of("three.cc", 2))
    screen.prepare([first, second], background=True)  # type: ignore[list-item]
    assert screen.busy() is second and first.built == ["one.cc"]
    two, three = _of("two.cc", 1)[0], _of("three.cc", 2)[0]
    assert screen.will_cover(two) and screen.will_cover(three) and not screen.covers(two)
    late = _of("two.cc", 5)[0]  # offered while its file is being built: waits for it too
    screen.add([late])
    assert screen.will_cover(late)
    assert screen.outcome(_of("one.cc", 0)[0], first) is not None  # type: ignore[arg-type]
    second.hold["two.cc"].set()
    for _ in range(200):
        if screen.settle(wait=False):
            break
        threading.Event().wait(0.05)
    assert screen.covers(two) and not screen.will_cover(two) and screen.will_cover(three)
    assert screen.busy() is second  # three.cc still building
    second.hold["three.cc"].set()
    assert screen.settle(wait=True)
    assert screen.busy() is None and screen.rebuild is None and screen.covers(three)
    assert first.built == ["one.cc"] and second.built == ["two.cc", "three.cc"]


def test_the_search_s_trial_builds_a_file_the_background_one_has_not_started() -> None:
    """The mutant next in order waits for a file the background trial has not started: the search's own
    trial builds that file (two cores, two files at once, as before any was built in the background) and
    it is swapped in at once; a file under way is not built twice, and with none left there is nothing
    to lend."""
    screen, first, second = _screen(), FileHeldTrial(), FileHeldTrial()
    screen.add(_of("one.cc", 0))
    screen.prepare([first, second], background=True)  # type: ignore[list-item]
    second.hold = {"two.cc": threading.Event()}
    screen.add(_of("two.cc", 1) + _of("three.cc", 2))
    screen.prepare([first, second], background=True)  # type: ignore[list-item]
    for _ in range(200):  # the background trial has started two.cc
        if "two.cc" not in screen.rebuild.todo:  # type: ignore[union-attr]
            break
        threading.Event().wait(0.02)
    assert not screen.lend(first, "two.cc")  # type: ignore[arg-type]  # under way: not built twice
    assert screen.lend(first, "three.cc")  # type: ignore[arg-type]
    assert first.built == ["one.cc", "three.cc"] and screen.covers(_of("three.cc", 2)[0])
    assert screen.will_cover(_of("two.cc", 1)[0])  # still building on the background trial
    assert not screen.lend(first)  # type: ignore[arg-type]
    second.hold["two.cc"].set()
    assert screen.settle(wait=True) and screen.rebuild is None and screen.covers(_of("two.cc", 1)[0])
    assert second.built == ["two.cc"]
