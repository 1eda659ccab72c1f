"""Screening C/C++ mutants through one schema per file (:mod:`.native_schema`).

The search (:mod:`.native_search`) asks :meth:`Screen.outcome` before it compiles a mutant alone.
Every source file's schema is compiled and linked once, before the first mutant, the files spread
over the search's trials (which share what they build); a header's when its first mutant is asked for.  Lines the
compiler rejects are left out and the schema is compiled again, a bounded number of times.  Before
it is trusted, the schema with no mutant switched on must fail exactly as the unchanged code did.
A screened mutant that changes nothing costs one test run.  One that makes a failing test pass is
compiled alone by the search, so every candidate is checked as it would be applied.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from ..build.gate import HEADER_EXT
from ..edits import EditError, apply_edits_text
from .mutant import Mutant
from .native_schema import Key, Schema, held_by, schema_text
from .native_schema_errors import blamed, moved_failures, not_constants
from .native_screen_group import build_together
from .native_screen_plain import cheap_tests, faster, plain_run
from .native_screen_rebuild import Rebuild
from .native_screen_state import FileState
from .native_search_stats import trace_row
from .native_trial import TrialOutcome

# per file: the first schema, then without what the compiler blamed.  Templates take more: gcc reports a
# function template's body errors only for instantiations that compile as far as the body, so each round
# of blamed call sites (`StringToIeee(length, buffer)`) uncovers the next (double-conversion's
# string-to-double.cc compiled at the sixth)
MAX_COMPILES = 8
HEADER_UNITS = 4  # a header's schema is taken to cost this many source compiles, until one was built
HEADER_COMPILES = 1  # ... then this many of the longest header schema compile (a second, after errors, is
# started only while twice the first's time is left: _prepare)
# A screened run's limit: at least RUN_FLOOR_S, else BASE_FACTOR times the baseline's (of the tests it
# covers), or a few times the unmutated schema's run (built at -O0, numeric code runs many times slower
# than the real build: a limit from the baseline alone would time every one of its runs out), or
# ENDED_FACTOR times the longest run of the file's mutants that ended (a mutant that lets the failing test
# go further shows how long it takes).
# A mutant that loops costs the whole limit, and loops are what mutated conditions make: with tests that
# fail in milliseconds, a one-second floor spent most of the screening on the few mutants that looped, and
# at 0.4 s a third of the screened runs' time still went to them.  The floor and margin cover a process's
# start on a busy machine; a fix stopped after its failing tests passed gets the longer limit anyway.
RUN_FLOOR_S = 0.15
RUN_MARGIN_S = 0.1
BASE_FACTOR = 5.0
IN_PROCESS_FLOOR_S = 0.4  # a screened run in a warm JS process: a collection pause, no process start
SCHEMA_RUN_FACTOR = 5.0
ENDED_FACTOR = 3.0
# A screened run stopped after a failing test had passed runs again for at most this long: a test the
# fault cut short runs its course in that time, and a mutant that loops after the tests it fixed (a
# jsonnet lexer mutant: the failing tests passed, then one never ended) costs this, not the search's
# whole remaining time
LONGER_S = 3.0
# Failing tests spread over this many test binaries or more (a fault in code every test runs: cJSON's
# parse_value fails a dozen Unity binaries) cost a process each per screened run, however short their
# tests: a screened run then covers the binary with the most of them, and a mutant that makes those
# pass is compiled alone and runs them all, as with the cheap tests above
PROBE_PROCESSES = 3
# A screened run also ends once its mutant's expression has run SPIN_FACTOR times as often as every mutated
# expression of the file together did in the unmutated run of the failing tests, and at least SPIN_FLOOR
# times (the schema counts, :data:`.native_schema.PRELUDE`): a mutated loop condition or step that never ends
# is stopped within milliseconds, where the time limit would wait for its whole floor.  Only a fix whose
# tests run far past where the fault stopped them (an ASSERT before a long loop) could reach the bound:
# when a failing test had passed by then, the run is given the longer limit without it, as a timed-out one is.
SPIN_FACTOR = float(os.environ.get("WHETSTONE_SPIN_FACTOR") or 10)  # 0: no such bound (a benchmark's control)
SPIN_FLOOR = 1_000_000
# The same bound from the mutant's own expression's count in that run, when the schema recorded it, at
# least HOST_SPIN_FLOOR times: a loop whose turn runs many other mutated expressions (a polygon walk at
# -O0) ran a million turns of its own only after the clock had stopped it
HOST_SPIN_FLOOR = int(os.environ.get("WHETSTONE_HOST_SPIN_FLOOR") or 100_000)
WIDER_MAX_S = 5.0  # whole binaries slower than this on the unmutated schema are not screened whole
# A schema built before the spectrum holds the mutants of every function of the suspects' files up to a
# count (:meth:`.native_plan.Planner.neighbour_plans`): in a file of hundreds, the functions the failing
# test ran are mostly not among them, and each such mutant would cost a compile of its own.  A file whose
# plan after the spectrum asks for at least REBUILD_MIN mutants its schema was never offered is built once
# more, with those first, when the time left holds REBUILD_ROOM of its compiles: once for the plan made
# after the spectrum, once more for the plan its per-test lines made (a huge function's cap then keeps the
# lines only the failing tests ran: voro++'s 740-line `nplane`, whose ways back rank in the thousands by prior).
REBUILD_MIN = 10
REBUILD_ROOM = 4
MAX_REBUILDS = 2
# a screened run's limit when the unmutated schema's run of failing tests slow in the real build did not
# end (:data:`.native_screen_plain.SLOW_BASE_S`): what a fixed unit test takes, not a multiple of a run
# that never ended
NEVER_ENDED_RUN_S = 0.5
OWN_TEXT_SHARE = 0.85  # a mutant runs as its own text when that is this much faster than the schema
# the choice a mutant's own text runs with: no choice to switch on, yet no unmutated run (0 is that: the
# trial reads it as the code as written, e.g. to choose which tests a run covers)
OWN_TEXT_ID = -1


class SchemaTrial(Protocol):
    error_lines: set[int]
    error_points: set[tuple[int, ...]]

    def prepare_schema(self, rel: str, text: str) -> str: ...

    def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                   only: set[str] | None = None, spins: int = 0) -> TrialOutcome: ...


class Screen:
    def __init__(self, base: TrialOutcome, original: Any, deadline: float, timeout_s: float) -> None:
        self.base = base
        self.original = original  # rel -> the file's text (None: unreadable)
        self.deadline = deadline
        self.timeout_s = min(timeout_s, _from_base(base.seconds))
        self.long_timeout_s = timeout_s  # a run that was passing the failing tests when it was stopped
        self.longer = 0  # runs given that longer limit
        self.spun = 0  # screened runs the bound on their mutant's expression ended (see SPIN_FACTOR)
        self.files: dict[str, FileState] = {}
        self.lock = threading.Lock()
        self.notes: list[str] = []
        self.rebuild: Rebuild | None = None  # schemata built again in the background (see prepare)

    def base_limit(self, tests: set[str]) -> float:
        """A screened run's least limit when it covers ``tests`` alone: a few times what they took in the
        baseline (all the failing tests' limit when it did not time each)."""
        if not all(fid in self.base.test_s for fid in tests):
            return self.timeout_s
        return min(self.timeout_s, _from_base(sum(self.base.test_s[fid] for fid in tests)))

    @property
    def compile_s(self) -> list[float]:
        """Every schema compile so far, file by file (a file's schema stays in ``files`` once tried)."""
        return [t for state in list(self.files.values()) for t in state.compile_s]

    def add(self, mutants: list[Mutant]) -> None:
        """Mutants the search may ask for; a file's schema holds those known when it is first asked for,
        or when it is built again for a plan that asks for many it was never offered (REBUILD_MIN)."""
        asked: dict[str, list[Mutant]] = {}
        for mutant in mutants:
            state = self.files.setdefault(mutant.edit.file_path, FileState())
            if state.ready:
                asked.setdefault(mutant.edit.file_path, []).append(mutant)
            elif mutant.key not in state.keys:
                state.keys.add(mutant.key)
                state.mutants.append(mutant)
        for rel, wanted in asked.items():
            self.files[rel].asked = wanted

    def outcome(self, mutant: Mutant, trial: SchemaTrial) -> TrialOutcome | None:
        """The failing tests with ``mutant`` switched on in its file's schema, or None when it is not in
        one (the search then compiles it alone)."""
        rel = mutant.edit.file_path
        state = self.files.get(rel)
        if state is None:
            return None
        with state.building:
            with self.lock:
                if not state.ready and is_header(rel) and self.compile_s \
                        and self.deadline - time.monotonic() < self.header_cost():
                    state.ready = True
                    self.notes.append(f"schema of {rel}: a header, left for lack of time")
            if not state.ready and not (is_header(rel) and build_together(self, rel, state, trial)):
                self._prepare(rel, state, trial)
        if mutant.key in state.rejected:  # it would not compile alone either: a trial spent on nothing
            return TrialOutcome(error="does not compile (its text, in the schema)", screened=True)
        on = self._switched_on(rel, state, mutant, trial)
        if on is None:
            return None
        text, mid = on
        limit = min(self.long_timeout_s, max(state.timeout_s, ENDED_FACTOR * state.longest_ended_s))
        spins = self._spins(state, mutant)
        outcome = trial.run_schema(rel, text, mid, limit, only=state.probe, spins=spins)
        if not outcome.timed_out:
            state.longest_ended_s = max(state.longest_ended_s, outcome.seconds)
        elif spins and outcome.seconds < limit:
            self.spun += 1
        if outcome.timed_out and set(outcome.passed) & set(self.base.failing):
            # the failing tests failed fast and now pass, until the limit stopped them: the fault may have
            # cut them short, and its fix lets them run their whole course (a loop stops at no test's end)
            longer = min(self.long_timeout_s, self.deadline - time.monotonic(), max(LONGER_S, limit))
            if longer > limit:
                self.longer += 1
                outcome = trial.run_schema(rel, text, mid, longer, only=state.probe)
        # a test failing as it did in the unmutated schema failed as in the real build: say it in the
        # real build's words, so the search's "changed" evidence compares like with like
        for fid, sig in outcome.failing.items():
            if fid in self.base.failing and state.plain.get(fid) == sig:
                outcome.failing[fid] = self.base.failing[fid]
        return outcome

    def header_cost(self) -> float:
        """What one more header's schema is expected to take: read off the headers' schemata built so far
        when there are some (leveldb's `skiplist.h`: 3.1 s; four times that had the next headers' mutants
        compiled alone at 3.3 s each, where their schemata would have screened them all), else a few
        source files' compiles (nothing known before any schema was compiled: 0)."""
        headers = [t for rel, state in list(self.files.items()) if is_header(rel) for t in state.compile_s]
        return HEADER_COMPILES * max(headers) if headers else HEADER_UNITS * max(self.compile_s, default=0.0)

    @staticmethod
    def _spins(state: FileState, mutant: Mutant) -> int:
        """A screened run's bound on ``mutant``'s expression: the file's (SPIN_FACTOR), or tighter, from its
        own host's count in the unmutated run (HOST_SPIN_FLOOR)."""
        schema = state.schema
        own = state.runs.get(schema.host_of.get(schema.ids.get(mutant.key, 0), -1), 0) if schema is not None else 0
        if not state.spins or not own:
            return state.spins
        return min(state.spins, int(max(HOST_SPIN_FLOOR, SPIN_FACTOR * own)))

    def breaks_others(self, mutant: Mutant, trial: SchemaTrial) -> bool:
        """Whether ``mutant``, switched on in its file's schema, fails a test of the whole binaries that
        the unmutated schema passes: a screened fix of the failing tests that only trades them for
        another costs those runs, not a compile of its own and the wider check after it.  False when
        it cannot tell (no schema, a trial without whole runs, a run that timed out)."""
        rel = mutant.edit.file_path
        state = self.files.get(rel)
        run = getattr(trial, "run_schema_wider", None)
        on = None if state is None or run is None else self._switched_on(rel, state, mutant, trial)
        if state is None or state.schema is None or run is None or on is None:
            return False
        schema = state.schema
        with self.lock:
            if not state.wider_tried:  # the unmutated schema, once: what fails there is no mutant's doing
                state.wider_tried = True
                started = time.monotonic()
                plain = run(rel, schema.text, 0, min(WIDER_MAX_S, (self.deadline - time.monotonic()) / 4))
                state.wider_s = time.monotonic() - started
                state.wider_failed = None if plain.error else set(plain.failed)
        if state.wider_failed is None:
            return False  # too slow to be worth it, or it could not run: the compile alone decides
        outcome = run(rel, *on, max(_floor(trial, RUN_FLOOR_S), 3 * state.wider_s))
        return not outcome.error and bool(set(outcome.failed) - state.wider_failed)

    def _own_text(self, rel: str, state: FileState, trial: SchemaTrial) -> bool:
        """Whether this file's mutants run faster as their own texts than as the schema's choices, for a
        trial that reads the file's text afresh on every run (JS).  A schema's choices slow every run they
        stand in (deep-equal's failing file: 76 ms as written, 165 ms as a schema of 800 choices), but node
        keeps the compiled code of a text it has seen, and a mutant's text is new each run (traverse: the
        same time either way).  Two runs of each, unmutated, decide: the schema's, and a text node has
        not seen (the file as written, one newline added, as a mutant's would be)."""
        text = self.original(rel)
        if not getattr(trial, "loads_text", False) or text is None or state.schema is None:
            return False
        runs: dict[str, list[float]] = {"schema": [], "own": []}
        for k in range(2):
            for kind, run_text in (("schema", state.schema.text), ("own", text + "\n" * (k + 1))):
                outcome = trial.run_schema(rel, run_text, 0, state.timeout_s, only=state.probe)
                if outcome.error:
                    return False
                runs[kind].append(outcome.seconds)
        own, schema = min(runs["own"]), min(runs["schema"])
        if own >= OWN_TEXT_SHARE * schema:
            return False
        self.notes.append(f"schema of {rel}: mutants run as their own texts ({own:.3f} s, the schema {schema:.3f} s)")
        return True

    def _switched_on(self, rel: str, state: FileState, mutant: Mutant, trial: SchemaTrial) -> tuple[str, int] | None:
        """What a screened run of ``mutant`` loads, and the choice it switches on (None: it cannot be
        screened).  A compiled trial switches the mutant on in the schema it built; a trial that reads the
        file's text afresh on every run (JS) runs the mutant's own text when that is faster
        (:meth:`_own_text`): behind a schema of that one choice, so the harness can count its runs
        (SPIN_FACTOR), or as plain text when the schema could not hold it (else it would be run alone)."""
        schema = state.schema
        if schema is None:
            return None
        if getattr(trial, "loads_text", False) and (state.own_text or mutant.key not in schema.ids):
            text = self.original(rel)
            if text is None:
                return None
            if mutant.key in schema.ids:  # its own text behind its one choice: as fast, and a loop's count ends it
                one = schema_text(rel, text.encode("utf-8", "surrogateescape"), [mutant])
                if one is not None and mutant.key in one.ids:
                    return one.text, one.ids[mutant.key]
            try:
                return apply_edits_text(text, [mutant.edit], rel), OWN_TEXT_ID
            except EditError:
                return None
        mid = schema.ids.get(mutant.key)
        return None if mid is None else (schema.text, mid)

    def prepare(self, trials: SchemaTrial | list[SchemaTrial], stop: threading.Event | None = None,
                background: bool = False) -> None:
        """Build every pending source file's schema now, one file per trial at a time (the search's
        trials share what they build, so two cores compile two files at once).  A header's recompiles
        every unit that includes it: it is built when its first mutant comes up, after what the sources
        screen, and only while the budget holds a few source compiles (:meth:`outcome`).  Once ``stop``
        is set, no further file is started (the rest wait for the next call).  ``background``: the last
        trial builds them (and schemata built again for a later plan) one after another while the others
        screen what is built (:mod:`.native_screen_rebuild`); with nothing built, the first is built now."""
        self.settle(wait=True)
        trials = trials if isinstance(trials, list) else [trials]
        now: list[tuple[str, FileState]] | None = None  # the files built now (None: every one due)
        with self.lock:
            fresh = {rel: (state, new) for rel, state in self.files.items() if (new := self._again(rel, state)) is not None}
            pending = [(rel, state) for rel, state in self.files.items() if not state.ready and not is_header(rel)]
            if background and (fresh or pending) and len(trials) >= 2:
                # the plan's first file now when nothing is built to screen meanwhile; the others, one after
                # another on the last trial, each swapped in as it ends
                now = pending[:1] if not any(s.schema is not None for s in self.files.values()) else []
                later = {rel: (state, replace(state, mutants=list(state.mutants), keys=set(state.keys),
                                              building=threading.Lock())) for rel, state in pending[len(now):]}
                if later or fresh:
                    self._rebuild({**later, **fresh}, trials[-1])
                fresh, trials = {}, trials[:1]
        if now != []:
            self._prepare_now(trials, fresh, stop, now)

    def may_build_past(self, mutant: Mutant, trials: int) -> bool:
        """Whether :meth:`build_past` would build ``mutant``'s file again: a source file whose schema was
        built and does not hold it, not offered more since, no rebuild under way, two trials or more."""
        state = self.files.get(mutant.edit.file_path)
        return (trials >= 2 and state is not None and state.schema is not None and not state.past_offered
                and not is_header(mutant.edit.file_path) and not self.covers(mutant) and self.busy() is None)

    def build_past(self, rel: str, mutants: list[Mutant], trials: list[SchemaTrial], room: float) -> None:
        """Build ``rel``'s schema again on the last trial, while the others screen, with ``mutants`` first
        (the queue's next of the file, which its schema does not hold: a file past what one schema holds),
        when they are REBUILD_MIN or more and the time left holds ``room`` of its compiles.  Once per
        schema: a new one may be offered what it does not hold in turn."""
        self.settle(wait=True)  # one that ended: swapped in before the next starts, and offered these
        self.files[rel].past_offered = True
        self.add(mutants)
        with self.lock:
            new = self._again(rel, self.files[rel], room, past=True)
            if new is not None:
                self._rebuild({rel: (self.files[rel], new)}, trials[-1])

    def _rebuild(self, fresh: dict[str, tuple[FileState, FileState]], trial: SchemaTrial) -> None:
        self.rebuild = Rebuild(self._prepare, self.notes, fresh, trial, self.deadline)
        self.rebuild.start()

    def busy(self) -> object | None:
        """The trial a background rebuild is using (None: none is under way)."""
        rebuild = self.rebuild
        return rebuild.trial if rebuild is not None and not rebuild.done.is_set() else None

    def will_cover(self, mutant: Mutant) -> bool:
        """Whether a schema being built again will screen ``mutant``, which the one in use does not."""
        rebuild = self.rebuild
        return rebuild is not None and not self.covers(mutant) and rebuild.will_cover(mutant)

    def lend(self, trial: SchemaTrial, rel: str | None = None) -> bool:
        """``trial`` builds ``rel`` (or the next file) if a background build has not started it (True: built)."""
        return self.rebuild is not None and self.rebuild.lend(trial, rel) and self.settle(wait=False)

    def settle(self, wait: bool) -> bool:
        """Swap in the schemata a background build made, each file's once its build has ended (``wait``: all
        of them, once the build ends): True when one was, so the mutants waiting for it take their places
        again."""
        rebuild = self.rebuild
        if rebuild is None:
            return False
        states = rebuild.finish() if wait else rebuild.take()
        with self.lock:
            self.files.update(states)
            if rebuild.over():
                self.rebuild = None
        return bool(states)

    def _prepare_now(self, trials: list[SchemaTrial], fresh: dict[str, tuple[FileState, FileState]],
                     stop: threading.Event | None, only: list[tuple[str, FileState]] | None = None) -> None:
        free: queue.SimpleQueue[SchemaTrial] = queue.SimpleQueue()
        for trial in trials:
            free.put(trial)

        again: dict[str, FileState] = {}  # files built again: their schema until then, kept if that fails

        def build(item: tuple[str, FileState]) -> None:
            if stop is not None and stop.is_set():
                return
            trial = free.get()
            try:
                self._prepare(*item, trial)
            except Exception as exc:  # noqa: BLE001 - one file's schema must not end the search (a thread's)
                self.notes.append(f"schema of {item[0]}: {type(exc).__name__}: {exc}"[:200])
            finally:
                free.put(trial)
                rel = item[0]
                if rel in again and item[1].schema is None:
                    again[rel].rebuilds = item[1].rebuilds  # a build that failed counts: not tried on and on
                    self.files[rel] = again[rel]

        with self.lock:
            for rel, (state, new) in fresh.items():
                again[rel], self.files[rel] = state, new
            pending = only if only is not None else [
                (rel, state) for rel, state in self.files.items() if not state.ready and not is_header(rel)]
            if free.qsize() < 2 or len(pending) < 2:
                for item in pending:
                    build(item)
                return
            with ThreadPoolExecutor(max_workers=free.qsize()) as pool:
                list(pool.map(build, pending))

    def _again(self, rel: str, state: FileState, room: float = REBUILD_ROOM, past: bool = False) -> FileState | None:
        """A fresh state for ``rel``'s schema to be built again with the mutants its latest plan asks for
        that it was never offered (None: not worth a compile, see REBUILD_MIN).  The plan's mutants come
        first, so a file past what one schema holds keeps what the plan wants now.  ``past``: asked for
        mutants it does not hold, offered or not, and holding only those asked (:meth:`build_past`)."""
        if not state.ready or state.rebuilds >= MAX_REBUILDS or state.schema is None or is_header(rel) or not state.asked:
            return None
        known = (state.schema.ids.keys() | state.rejected | state.apart) if past else state.keys
        new = [m for m in state.asked if m.key not in known and m.edit.start.line not in state.skipped]
        if len(new) < REBUILD_MIN or self.deadline - time.monotonic() < room * max(state.compile_s, default=0.0):
            return None
        first = {m.key for m in state.asked}
        # past what it held: the queue's mutants of the file are what is left to try there, and the slots of
        # mutants tried already (each line's first among them) would push those out
        kept = [] if past else [m for m in state.mutants if m.key not in first]
        mutants = list({m.key: m for m in state.asked + kept}.values())
        why = "past what it held" if past else "the plan after the spectrum added"
        self.notes.append(f"schema of {rel}: built again for {len(new)} mutants {why}")
        return FileState(mutants=mutants, keys={m.key for m in mutants}, rejected=set(state.rejected), apart=set(state.apart),
                          compile_s=state.compile_s, rebuilds=state.rebuilds + 1, skipped=state.skipped)

    def forget_pending(self) -> None:
        """Drop the files whose schema was not started: a plan made before the spectrum named them, and the
        plan made after it names its own."""
        with self.lock:
            self.files = {rel: state for rel, state in self.files.items() if state.ready}

    def settled(self, mutant: Mutant) -> bool:
        """Whether the mutant's file had its schema attempted (a header waits until its first mutant
        comes up), so :meth:`covers` says for good whether the mutant needs a compile of its own."""
        state = self.files.get(mutant.edit.file_path)
        return state is not None and state.ready

    def rejects(self, mutant: Mutant) -> bool:
        """Whether its file's schema compile already showed the mutant's own text does not compile."""
        state = self.files.get(mutant.edit.file_path)
        return state is not None and mutant.key in state.rejected

    def unreached(self, mutant: Mutant) -> bool:
        """Whether the failing tests never ran the mutant's expression in its file's schema: switching it
        on cannot change how they end (the schema holds no mutant where a constant is wanted, so every
        one stands in code that runs only when reached)."""
        state = self.files.get(mutant.edit.file_path)
        if state is None or state.schema is None or state.reached is None:
            return False
        mid = state.schema.ids.get(mutant.key)
        return mid is not None and mid not in state.reached

    def reached_between(self, rel: str, first: int, last: int) -> bool:
        """Whether the failing tests reached any of the schema's mutants on lines ``first``..``last`` of
        ``rel`` (a function's): False when none, or when the schema did not record its reach."""
        state = self.files.get(rel)
        if state is None or state.schema is None or state.reached is None:
            return False
        reached = state.reached
        return any(first <= key[1] <= last and mid in reached for key, mid in state.schema.ids.items())

    def left_out(self, mutant: Mutant) -> str:
        """Why :meth:`outcome` did not screen the mutant: its file has no schema, or the schema does not
        hold it (a choice left out as a whole line, or one the file's schema could not type)."""
        state = self.files.get(mutant.edit.file_path)
        return "no-schema" if state is None or state.schema is None else "left-out"

    def covers(self, mutant: Mutant) -> bool:
        """Whether the mutant costs a test run (screened) or nothing (rejected), not a compile."""
        state = self.files.get(mutant.edit.file_path)
        return state is not None and (mutant.key in state.rejected
                                      or (state.schema is not None and mutant.key in state.schema.ids))

    def covered(self) -> dict[str, set[Key]]:
        """Per file, the keys :meth:`covers` says yes to now, or that wait for a schema being built (they take
        their turns as screened mutants): one set lookup per plan when the search re-orders thousands."""
        out = {rel: state.rejected | (set(state.schema.ids) if state.schema is not None else set())
               for rel, state in self.files.items()}
        for rel, keys in (self.rebuild.waiting() if self.rebuild is not None else {}).items():
            out[rel] = out.get(rel, set()) | keys
        return out

    def stats(self) -> dict[str, Any]:
        built = [s for s in self.files.values() if s.schema is not None]
        return {"files": len(built), "mutants": sum(len(s.schema.ids) for s in built if s.schema),
                "reached": sum(len(s.reached) for s in built if s.reached is not None),
                "unrecorded": sum(s.reached is None for s in built),
                "dropped": sum(s.dropped for s in self.files.values()),
                "rejected": sum(len(s.rejected) for s in self.files.values()),
                "longer": self.longer, "spun": self.spun, "compile_s": [round(s, 3) for s in self.compile_s],
                # per file: its schema compiles (seconds), the mutants it was asked to hold, whether one was built
                "per_file": {rel: [[round(t, 3) for t in s.compile_s], len(s.mutants), s.schema is not None]
                             for rel, s in self.files.items() if s.ready}}

    def _prepare(self, rel: str, state: FileState, trial: SchemaTrial) -> None:
        state.ready = True
        text = self.original(rel)
        if text is None:
            return
        data = text.encode("utf-8", "surrogateescape")
        skip: frozenset[int] = state.skipped  # a rebuild starts from the lines its first build left out
        last = 0.0  # this file's last compile: a header's recompiles every unit that includes it
        risky = True
        self.focus(rel, state, trial)
        last_schema: Schema | None = None  # the last one compiled: the next holds none it did not
        for _ in range(MAX_COMPILES):
            schema = schema_text(rel, data, held_by(state.mutants, last_schema), skip_lines=skip,
                                 skip=frozenset(state.rejected | state.apart), risky=risky)
            if schema is None:
                return
            last_schema = schema
            if last and self.deadline - time.monotonic() < 2 * last:
                self.notes.append(f"schema of {rel}: no time for another compile")
                return
            started = time.monotonic()
            why = trial.prepare_schema(rel, schema.text)
            last = time.monotonic() - started
            state.compile_s.append(last)
            trace_row({"schema": rel, "s": round(last, 3), "mutants": len(schema.ids), "error": why[:300],
                       "error_lines": len(trial.error_lines), "error_points": len(trial.error_points)})
            if not why:
                moved = self.adopt(rel, state, schema, skip, trial, last)
                if not moved:
                    return
                skip = skip | moved  # its unmutated run failed elsewhere: those lines' choices changed it
                continue
            if risky and not_constants(schema, trial.error_lines):
                risky = False
                continue
            own, apart, lines = blamed(schema, trial.error_lines, trial.error_points)
            if not own and not apart and not lines:
                self.notes.append(f"schema of {rel}: {why[:160]}")
                return
            state.rejected |= own
            state.apart |= apart
            skip = skip | lines
        self.notes.append(f"schema of {rel}: its choices still did not compile after {MAX_COMPILES} compiles")

    def focus(self, rel: str, state: FileState, trial: SchemaTrial) -> None:
        """With the failing tests spread over PROBE_PROCESSES binaries or more, decided before the build: the
        schema is compiled and linked for one binary alone (the one holding most of them)."""
        groups: list[set[str]] = getattr(trial, "processes", list)()
        if len(groups) >= PROBE_PROCESSES and state.probe is None:
            state.probe = max(groups, key=len)
            getattr(trial, "focus_schema", lambda _rel, _tests: None)(rel, state.probe)
            self.notes.append(f"schema of {rel}: the failing tests of 1 of {len(groups)} test binaries per "
                              "screened mutant")

    def adopt(self, rel: str, state: FileState, schema: Schema, skip: frozenset[int], trial: SchemaTrial,
              compile_s: float, mend: bool = True) -> frozenset[int]:
        """A schema that compiled: used when its unmutated failing tests fail as in the real build
        (:func:`.native_screen_plain.plain_run`), with the limits its screened runs get from that run.
        Failing at a line the build's failure did not name, the line is returned instead, its choices left
        out of the next compile (:func:`.native_schema_errors.moved_failures`; not ``mend``: headers
        compiled together)."""
        sound = plain_run(self, rel, schema, trial)
        if sound is None:
            return frozenset()
        moved = moved_failures(schema, rel, sound.failing, self.base.failing) - skip \
            if mend and not sound.too_slow else set()
        if moved and self.deadline - time.monotonic() > 2 * compile_s:
            self.notes.append(f"schema of {rel}: its unmutated tests failed at line {min(moved)}, the build's did not")
            return frozenset(moved)
        sound = faster(self, rel, schema, trial, sound, compile_s)
        if sound is None:
            return frozenset()
        state.schema, state.plain, state.reached = schema, sound.failing, sound.reached
        state.skipped = skip
        floor = self.timeout_s
        focused, state.probe = state.probe, cheap_tests(sound.test_s) or state.probe
        if state.probe is not None and state.probe != focused:
            self.notes.append(f"schema of {rel}: {len(state.probe)} of {len(sound.test_s)} failing "
                              "tests per screened mutant, the cheap ones there")
            # a screened run's limits come from what it runs: the cheap tests' own counts and times, not those
            # of tests it leaves out (double-conversion: 2.6 s unmutated, its cheap test's runs 0.01 s)
            cheap = plain_run(self, rel, schema, trial)
            if cheap is not None and not (cheap.too_slow or cheap.never_ended):
                sound = cheap
            else:  # the whole run's counts, less the left-out tests' time
                left_out = sum(t for fid, t in sound.test_s.items() if fid not in state.probe)
                sound = sound._replace(seconds=sound.seconds - left_out)
            floor = self.base_limit(state.probe)
        # a run that never ended counted nothing: a mutant's own expression run a million times is in the
        # loop that still does not end (the fix's runs a few times)
        state.spins = 0 if SPIN_FACTOR <= 0 else SPIN_FLOOR if sound.never_ended \
            else int(max(SPIN_FLOOR, SPIN_FACTOR * sound.evaluations)) if sound.evaluations else 0
        state.runs = sound.runs or {}
        # a trial whose screened runs share one warm process (JS) pays no process start per run: the
        # baseline's time, a process's, says nothing of a run's there
        state.timeout_s = min(self.long_timeout_s, _floor(trial, NEVER_ENDED_RUN_S) if sound.never_ended
                              else max(_floor(trial, floor), SCHEMA_RUN_FACTOR * sound.seconds + RUN_MARGIN_S))
        state.dropped = len(state.mutants) - len(schema.ids) - len(state.rejected)
        state.own_text = self._own_text(rel, state, trial)
        return frozenset()


def _from_base(seconds: float) -> float:
    """A screened run's limit from what its failing tests took in the real build (BASE_FACTOR)."""
    return max(RUN_FLOOR_S, BASE_FACTOR * seconds + RUN_MARGIN_S)


def _floor(trial: SchemaTrial, per_process: float) -> float:
    """A screened run's least limit: ``per_process`` where each run starts a process, IN_PROCESS_FLOOR_S in a
    warm one (JS), where a process's start says nothing of a run's."""
    return IN_PROCESS_FLOOR_S if getattr(trial, "screens_in_process", False) else per_process


def is_header(rel: str) -> bool:
    return Path(rel).suffix in HEADER_EXT
