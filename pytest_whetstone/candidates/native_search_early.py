"""The search's start, kept off its critical path: the schemata the static ranking points at, built while
the spectrum runs, and the token model's order of the mutants worked out while those compiles end.

The early schemata need which mutants there are, not their order within a function: the static plan
that picks them is made without the token model (:meth:`.native_plan.Planner.natural_bonus`, a few
tenths of a second a big function: voro++'s `cell.cc` took 2 s of plan before anything else could
start).  The main thread then waits for those compiles anyway; meanwhile it scores the planned
functions' mutants under the model, the spectrum's suspects first, so the plan made after the
spectrum finds them scored.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..records import TestFailureRecord
from .native_search_spectrum import spectrum_cap

if TYPE_CHECKING:
    from .native_search import _Search

WARM_CHUNK = 256  # mutants scored at a time while the compiles end: the wait stops within one chunk


def early_schemata(search: _Search, failure: TestFailureRecord, stop: threading.Event) -> threading.Thread | None:
    """While the spectrum runs (one core) on the first trial, the other trials build the schemata of the
    files the static ranking points at, until ``stop``: the plan after the spectrum mostly mutates the
    same files, and a file built keeps its schema (every function's mutants: no spectrum filters the
    neighbours yet).  Nothing without a spectrum or a second trial."""
    screen, others = search.screen, search.trials[1:]
    if screen is None or not others or getattr(search.trial, "profile", None) is None or spectrum_cap() <= 0:
        return None
    with search.stats.timed("plans"):
        search.plain_order = True  # which mutants, not their order: the model scores them while the compiles run
        try:
            search.plans(failure)  # adds the static plan's mutants to the screen; made again after the spectrum
        finally:
            search.plain_order = False
    thread = threading.Thread(target=screen.prepare, args=(list(others), stop), daemon=True,
                              name="whetstone-early-schemata")
    thread.start()
    return thread


def score_while(search: _Search, failure: TestFailureRecord, done: Callable[[], bool]) -> None:
    """Until ``done``: the token model's score of every mutant generated so far (the static plan's
    functions), the functions of ``failure``'s suspects first, in their order after the spectrum."""
    place = {(s.file_path, s.qualname): i for i, s in enumerate(failure.suspects)}
    # generated's keys: (file, first line, last line, qualname, text) (Planner.every_mutant)
    functions = sorted(search.generated.items(), key=lambda item: place.get((item[0][0], item[0][3]), len(place)))
    for _key, mutants in functions:
        for start in range(0, len(mutants), WARM_CHUNK):
            if done():
                return
            search.natural_bonus(mutants[start:start + WARM_CHUNK])
