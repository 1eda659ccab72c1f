"""The unmutated schema's run of the failing tests: whether a schema can be trusted, and at what price.

Before a file's schema screens a mutant (:mod:`.native_screen`), its run with no mutant switched on
must fail the failing tests as the real build did (:func:`plain_run`).  The schema is built fast
(-O0), so that run is slower than the real build, and it is bounded by a share of the time left
(SOUND_SHARE), not by all of it: double-conversion's bignum schema, a choice in every operation of
its arithmetic, ran the failing tests for 18 s at -O0 where the real build took 0.5 s, and that one
run spent the whole search.  A schema too slow to end within its share is compiled with the optimizer
at once (:func:`with_optimizer`); one that ended, slowly, is too when the budget holds the compile
(:func:`faster`).  A schema that cannot fail its tests in time either way is not used: its mutants are
compiled alone.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from .native_schema import Schema, read_reach
from .native_search_stats import trace_row
from .native_trial import TrialOutcome

SOUND_SHARE = 0.3  # of the time left, at most, for one unmutated schema run (at least a screened run's limit)
# a screened run expected this slow (screened_s), and this many times the real build's, is worth a compile
# with the optimizer (-O1): dense numeric code with a choice in every operation runs several times faster then,
# while most files' tests run in milliseconds either way and keep the cheaper -O0 compile
SLOW_RUN_S = 0.15
SLOW_RUN_FACTOR = 3.0
OPTIMIZED_COMPILES = 4  # the time left must hold this many -O0 compiles of the file for one with the optimizer
# Failing tests that ran SLOW_BASE_S or more in the real build: often a loop the fault made endless, cut by
# the address-space cap or ending only when memory ran out.  At -O0 the schema may take many times that to
# get there: its unmutated run is checked for not passing within the real build's time (or
# NEVER_ENDED_SOUND_S), and when it did not end by then a screened run gets a unit test's limit
# (:data:`.native_screen.NEVER_ENDED_RUN_S`), not a multiple of a run that never ended
SLOW_BASE_S = 1.0
NEVER_ENDED_SOUND_S = 1.0
# A screened run runs only the failing tests that cost little in the schema (at most twice the cheapest,
# or this many seconds) when the others cost at least PROBE_SAVES_S: a k-means test among quick ones set
# the price of every mutant.  A mutant that makes them pass is compiled alone and runs them all.
PROBE_FLOOR_S = 0.02
PROBE_SAVES_S = 0.05


class PlainRun(NamedTuple):
    """The unmutated schema's run of the failing tests."""

    failing: dict[str, str]  # failure id -> its signature there
    reached: set[int] | None  # the mutant ids those tests reached (None: not recorded)
    seconds: float
    test_s: dict[str, float]  # failure id -> its seconds there
    evaluations: int | None = None  # how many times mutated expressions ran in all (None: not recorded)
    runs: dict[int, int] | None = None  # a host's first id -> how many times its expression ran (HOST_SPIN_FLOOR)
    never_ended: bool = False  # the run was stopped at its limit (see SLOW_BASE_S)
    too_slow: bool = False  # stopped at its share of the time left, failing tests not passed: not usable as it is


class Screening(Protocol):
    """What these checks read of the screen (:class:`.native_screen.Screen`)."""

    base: TrialOutcome
    deadline: float
    timeout_s: float
    long_timeout_s: float
    files: dict[str, Any]
    notes: list[str]


def plain_run(screen: Screening, rel: str, schema: Schema, trial: Any) -> PlainRun | None:
    """With no mutant switched on, the schema fails the tests the unchanged code failed, and only
    those: their signatures there, the mutants those tests reached (None when it does not), and how
    long they took.  The words may differ (a crash at -O0); a screened fix is compiled alone with the
    real flags before it counts.  The unchanged code ends, so this one run may take longer than a
    screened one, up to its share of the time left (``too_slow`` when that stopped it).  Unless the
    failing tests were slow in the real build too (SLOW_BASE_S): then not passing within that time is
    failing as they did."""
    left = screen.deadline - time.monotonic()
    limit = max(screen.timeout_s, min(screen.long_timeout_s, SOUND_SHARE * left))
    slow = screen.base.seconds >= SLOW_BASE_S
    if slow:
        limit = min(limit, max(NEVER_ENDED_SOUND_S, screen.base.seconds))
    probe = screen.files[rel].probe if rel in screen.files else None  # a focused schema's binary
    failing = {fid: sig for fid, sig in screen.base.failing.items() if probe is None or fid in probe}
    with tempfile.TemporaryDirectory(prefix="whetstone-reach-") as scratch:
        path = Path(scratch) / "reached"
        plain = trial.run_schema(rel, schema.text, 0, limit, str(path), only=probe)
        reach = read_reach(path)
    trace_row({"plain": rel, "s": round(plain.seconds, 3), "limit": round(limit, 3), "timed_out": plain.timed_out,
               "tests_s": round(sum(plain.test_s.values()), 3), "error": plain.error[:120]})
    if plain.timed_out and not plain.passed:
        if slow:
            # what the failing tests reached before the clock stopped them is recorded as it happens; the
            # counts a bound on a mutant's loop needs are written only at the process's end
            return PlainRun(failing, reach.ids, plain.seconds, {}, never_ended=True)
        return PlainRun(failing, None, plain.seconds, {}, too_slow=True)
    if plain.error or set(plain.failing) != set(failing) or plain.passed:
        screen.notes.append(f"schema of {rel}: not used, it changes the unmutated tests "
                            f"({plain.error or 'other failures'})")
        return None
    return PlainRun(dict(plain.failing), reach.ids, plain.seconds, plain.test_s, reach.evaluations, reach.runs)


def faster(screen: Screening, rel: str, schema: Schema, trial: Any, sound: PlainRun,
           compile_s: float) -> PlainRun | None:
    """The run the schema is screened with: ``sound`` when it was quick enough at -O0, else the schema
    compiled with the optimizer when that run is sound and faster (:func:`with_optimizer`).  None: too
    slow to end within its share of the time left, with the optimizer too (the schema is not used)."""
    if not sound.too_slow and screened_s(sound) < max(SLOW_RUN_S, SLOW_RUN_FACTOR * screen.base.seconds):
        return sound
    run = with_optimizer(screen, rel, schema, trial, compile_s, sound)
    if run is not None:
        return run
    if not sound.too_slow:
        return sound
    screen.notes.append(f"schema of {rel}: not used, its unmutated tests ran past {sound.seconds:.2f} s, "
                        "their share of the time left")
    return None


def with_optimizer(screen: Screening, rel: str, schema: Schema, trial: Any, compile_s: float,
                   than: PlainRun) -> PlainRun | None:
    """The schema compiled with the optimizer, when the budget holds the compile (OPTIMIZED_COMPILES) and
    its unmutated run is sound and faster ``than`` the -O0 build's (or that one was too slow to end).
    Otherwise None, the -O0 build made again when it was usable.  Both runs are the ones that record the
    reach (its cost is one load per expression): no run is spent on timing alone."""
    optimize = getattr(trial, "optimize_schema", None)
    if optimize is None or screen.deadline - time.monotonic() < OPTIMIZED_COMPILES * compile_s:
        return None
    optimize(rel, True)
    started = time.monotonic()
    why = trial.prepare_schema(rel, schema.text)
    trace_row({"optimized": rel, "s": round(time.monotonic() - started, 3), "error": why[:120]})
    if not why:
        run = plain_run(screen, rel, schema, trial)
        if run is not None and not run.too_slow and (than.too_slow or screened_s(run) < screened_s(than)):
            screen.notes.append(f"schema of {rel}: compiled with the optimizer, its unmutated tests "
                                f"{'over ' if than.too_slow else ''}{than.seconds:.2f} -> {run.seconds:.2f} s")
            return run
    optimize(rel, False)
    if not than.too_slow:
        trial.prepare_schema(rel, schema.text)
    return None


def cheap_tests(test_s: dict[str, float]) -> set[str] | None:
    """The failing tests a screened run covers, by what each took in the unmutated schema: those within
    twice the cheapest (or PROBE_FLOOR_S), when leaving the rest out saves PROBE_SAVES_S (None: all)."""
    if len(test_s) < 2:
        return None
    limit = max(PROBE_FLOOR_S, 2 * min(test_s.values()))
    cheap = {fid for fid, seconds in test_s.items() if seconds <= limit}
    saved = sum(seconds for fid, seconds in test_s.items() if fid not in cheap)
    return cheap if cheap and saved >= PROBE_SAVES_S else None


def screened_s(sound: PlainRun) -> float:
    """What a screened run of this schema is expected to take: its cheap failing tests' time when a
    screened run covers only those (:func:`cheap_tests`), else the whole unmutated run's.  The optimizer
    is worth its compile only when that is slow: double-conversion's bignum tests took 2.5 s unmutated,
    the one test a screened run covers 0.01 s."""
    cheap = cheap_tests(sound.test_s)
    return sound.seconds if cheap is None else sum(sound.test_s[fid] for fid in cheap)
