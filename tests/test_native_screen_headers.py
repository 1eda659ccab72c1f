"""A header's schema is built when its first mutant comes up (it recompiles every unit that includes it).
Two trials asking for two headers build both at once; two asking for the same header build it once, the
second waiting for it rather than compiling its mutant alone."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from test_native_schema import CompilingTrial

from pytest_whetstone.candidates.mutant import Mutant
from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_screen import Screen
from pytest_whetstone.candidates.native_trial import TrialOutcome

HEADER = "inline int clamp(int v, int lo, int hi) {\n  return v < lo ? lo : v > hi ? hi : v;\n}\n"
COMPILE_S = 0.4


class SlowCompiles(CompilingTrial):
    """Each schema compile takes COMPILE_S; the most compiles under way at once is recorded."""

    running = 0
    most = 0
    compiles: list[str] = []
    lock = threading.Lock()

    def prepare_schema(self, rel: str, text: str) -> str:
        cls = SlowCompiles
        with cls.lock:
            cls.running += 1
            cls.most = max(cls.most, cls.running)
            cls.compiles.append(rel)
        time.sleep(COMPILE_S)
        with cls.lock:
            cls.running -= 1
        return ""

    def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                   only: set[str] | None = None, spins: int = 0) -> TrialOutcome:
        return TrialOutcome(failing={"F1": "x"}, seconds=0.001)


def _mutants(rel: str) -> list[Mutant]:
    return mutants_in(rel, HEADER.encode(), 1, 3)


def _screen_and_trials() -> tuple[Screen, list[SlowCompiles]]:
    SlowCompiles.running = SlowCompiles.most = 0
    SlowCompiles.compiles = []
    screen = Screen(TrialOutcome(failing={"F1": "x"}, seconds=0.01), lambda rel: HEADER, deadline=1e12, timeout_s=5.0)
    screen.add(_mutants("a.h") + _mutants("b.h"))
    return screen, [SlowCompiles(), SlowCompiles()]


def test_two_trials_build_two_headers_schemata_at_once() -> None:
    screen, trials = _screen_and_trials()
    jobs = [(_mutants("a.h")[0], trials[0]), (_mutants("b.h")[0], trials[1])]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda job: screen.outcome(*job), jobs))
    assert all(o is not None and o.screened is False and "F1" in o.failing for o in outcomes)
    assert sorted(SlowCompiles.compiles) == ["a.h", "b.h"] and SlowCompiles.most == 2


def test_two_trials_asking_for_one_header_build_it_once_and_both_are_screened() -> None:
    screen, trials = _screen_and_trials()
    first, second = _mutants("a.h")[:2]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda job: screen.outcome(*job), [(first, trials[0]), (second, trials[1])]))
    assert all(o is not None and "F1" in o.failing for o in outcomes)  # neither left to a compile of its own
    assert SlowCompiles.compiles == ["a.h"] and SlowCompiles.most == 1


def test_a_header_s_schema_is_built_while_the_last_header_s_compile_fits() -> None:
    # one header's schema took COMPILE_S; the next is built while that is left (not four times it,
    # which left the next headers' mutants to a compile of their own each)
    screen, trials = _screen_and_trials()
    assert screen.outcome(_mutants("a.h")[0], trials[0]) is not None
    screen.deadline = time.monotonic() + 2 * COMPILE_S
    assert screen.outcome(_mutants("b.h")[0], trials[1]) is not None
    assert SlowCompiles.compiles == ["a.h", "b.h"]
    screen.add(_mutants("c.h"))
    screen.deadline = time.monotonic() + 0.5 * COMPILE_S  # less than the compile: left for lack of time
    assert screen.outcome(_mutants("c.h")[0], trials[0]) is None
    assert any("c.h: a header, left for lack of time" in note for note in screen.notes)


class Grouping(SlowCompiles):
    """Compiles several headers' schemata in one pass (every header in the same unit), or fails to."""

    errors_by_file: dict[str, tuple[set[int], set[tuple[int, int]]]] = {}

    def __init__(self, group_error: str = "") -> None:
        self.group_error = group_error
        self.groups: list[list[str]] = []

    def schema_units(self, rel: str) -> set[str]:
        return {"test.o"}

    def prepare_schemata(self, texts: dict[str, str]) -> str:
        self.groups.append(sorted(texts))
        return self.group_error


def test_headers_sharing_their_units_are_compiled_in_one_pass_with_their_ids_apart() -> None:
    screen, _trials = _screen_and_trials()
    trial = Grouping()
    assert screen.outcome(_mutants("a.h")[0], trial) is not None
    assert trial.groups == [["a.h", "b.h"]] and SlowCompiles.compiles == []  # no compile of a header alone
    a, b = screen.files["a.h"].schema, screen.files["b.h"].schema
    assert a is not None and b is not None and not set(a.ids.values()) & set(b.ids.values())
    assert screen.covers(_mutants("b.h")[0]) and any("compiled together" in n for n in screen.notes)


def test_a_pass_whose_errors_name_no_choice_leaves_each_header_to_its_own_schema() -> None:
    screen, _trials = _screen_and_trials()
    trial = Grouping(group_error="does not compile: somewhere else")
    assert screen.outcome(_mutants("a.h")[0], trial) is not None  # built alone after the failed pass
    assert trial.groups == [["a.h", "b.h"]] and SlowCompiles.compiles == ["a.h"]
    assert not screen.settled(_mutants("b.h")[0])  # left for when its first mutant comes up
