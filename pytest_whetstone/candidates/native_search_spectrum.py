"""The search's execution spectrum (:mod:`.native_search`): what the failing tests and their neighbours
ran, and, for a C/C++ build without a line table, which lines each of them ran, read from the
schemata's own record of the expressions a run reached.

The profiler (:mod:`.native_spectra_bp`, callgrind, V8) sees lines only where the build carries
debug info.  Most builds do not (CMake's default build type, a Makefile's ``-O2``), and then a function
that every test enters scores the same whether the failing test took a branch no passing test takes or
not.  A schema (:mod:`.native_schema`) records, per process, each mutated expression that ran; run
once per test with no mutant switched on, it says which lines of the file each test ran, at the cost
of one short process a test.  Those lines score as a profile's would (Ochiai over the tests measured),
and the suspects are ranked again from their static ranking.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ..locate.native_tests import family_of
from ..records import Suspect, TestFailureRecord

if TYPE_CHECKING:
    from .native_schema import Schema
    from .native_search import _Search

SPECTRUM_SHARE = 0.35  # of the search's time, at most, for the execution spectrum before the mutants
SPECTRUM_MAX_S = 8.0
# JS runners that load the user's files as they are, so V8's offsets are the file's own (Jest and vitest
# run them transformed): a line their coverage says the failing tests never ran is skipped (see unreached)
AS_WRITTEN_RUNNERS = {"node-test", "tape", "mocha"}
REACH_SHARE = 0.1  # of the search's remaining time, at most, for the schemata's per-test lines
REACH_MAX_S = 3.0
REACH_TESTS = 200  # tests measured per file: the failing ones and the spectrum's first, then the failing binaries' others
# one test's run on the unmutated schema is stopped (and left out) after a screened mutant's limit there
# (a few times the failing tests' run), or this long: a slow passing test costs what many mutants would
REACH_RUN_S = 1.0
RANKED = 10  # suspects the search event lists as the spectrum left them


def spectrum_cap() -> float:
    """At most this many seconds for the execution spectrum: ``$WHETSTONE_SPECTRUM_S`` (0: none)."""
    try:
        return max(0.0, float(os.environ.get("WHETSTONE_SPECTRUM_S", SPECTRUM_MAX_S)))
    except ValueError:
        return SPECTRUM_MAX_S


def _reach_cap() -> float:
    """At most this many seconds for the schemata's per-test lines: ``$WHETSTONE_REACH_S`` (0: none)."""
    try:
        return max(0.0, float(os.environ.get("WHETSTONE_REACH_S", REACH_MAX_S)))
    except ValueError:
        return REACH_MAX_S


def locate_by_spectrum(search: _Search, live: list[TestFailureRecord]) -> None:
    """Re-rank the suspects by what the failing tests and their neighbours executed (C/C++ under the
    breakpoint tracer or callgrind, JS under V8's coverage), so the first pass mutates what really ran;
    one note when it cannot."""
    profile = getattr(search.trial, "profile", None)
    if profile is None:
        return
    budget = min(spectrum_cap(), search.remaining() * SPECTRUM_SHARE)
    if budget <= 0:
        return
    tool = "v8" if family_of(search.failures[0].suspects[0].file_path) == "js" else "callgrind"
    started = time.monotonic()
    runs, names, why = profile(budget)
    tool = getattr(search.trial, "spectrum_tool", "") or tool
    seconds = round(time.monotonic() - started, 3)
    if not runs:
        search.stats.notes.append(f"spectrum: {why}")
        search.stats.spectrum = {"tool": tool, "tests": 0, "seconds": seconds}
        return
    from ..locate.native_spectrum import Spectrum
    from ..locate.native_tests import Workspace

    spectrum = Spectrum(runs, Workspace(search.workspace))
    search.stats.spectrum = {"tool": tool, "tests": len(runs), "failing": len(spectrum.failed),
                             "debug_info": spectrum.debug_info, "seconds": seconds}
    if not spectrum.failed:
        search.stats.notes.append("spectrum: no failing test was profiled in time")
        return
    search.spectrum, search.spectrum_names = spectrum, names
    search.lines_complete = (tool == "v8" and getattr(search.trial, "kind", "") in AS_WRITTEN_RUNNERS
                             and all(names.get(f.failure_id) in spectrum.failed for f in live))
    for failure in live:
        search.static_suspects[failure.failure_id] = list(failure.suspects)
    _rerank(search, live)


def lines_from_schemata(search: _Search, live: list[TestFailureRecord]) -> bool:
    """Once, when the first plan's schemata are built: for each file with a sound schema whose lines
    the profile has not, the lines each test of the failing binaries ran there, from the schema's reach
    record; the suspects ranked again with them (True: the plan is to be made again).  Bounded by
    REACH_SHARE of the time left; the ``search`` event's spectrum says how many files and tests
    (``reach``)."""
    spectrum, screen = search.spectrum, search.screen
    if spectrum is None or screen is None or not search.static_suspects or "reach" in search.stats.spectrum:
        return False
    files = [(rel, state.schema, min(REACH_RUN_S, state.timeout_s)) for rel, state in screen.files.items()
             if state.schema is not None and state.reached is not None and rel not in spectrum.profiled_files]
    each = [t for t in search.free_trials() if hasattr(t, "reach_each")]
    if not files or not each or _reach_cap() <= 0:
        return False
    with search.stats.timed("spectrum"):
        return _measure(search, live, files, each)


def _measure(search: _Search, live: list[TestFailureRecord], files: list[tuple[str, Schema, float]],
             each: list[Any]) -> bool:
    spectrum = search.spectrum
    started = time.monotonic()
    deadline = started + min(_reach_cap(), search.remaining() * REACH_SHARE)
    tests = {name: name in spectrum.failed for name in spectrum.seen if name}
    measured, runs = 0, 0
    for rel, schema, limit in files:
        lines_of = {mid: key[1] for key, mid in schema.ids.items()}
        with ThreadPoolExecutor(max_workers=len(each)) as pool:  # the trials take turns through the tests
            found = list(pool.map(lambda i, rel=rel, text=schema.text, limit=limit: each[i].reach_each(
                rel, text, tests, limit, deadline, REACH_TESTS, (i, len(each))), range(len(each))))
        reach = {name: ids for part in found for name, ids in part.items()}
        lines = {name: {lines_of[mid] for mid in ids if mid in lines_of} for name, ids in reach.items()}
        runs += len(lines)
        if any(name in spectrum.failed for name in lines):
            spectrum.add_lines(rel, lines)
            measured += 1
    best = spectrum.best_line() if measured else None
    search.stats.spectrum["reach"] = {"files": measured, "of": len(files), "tests": len(tests), "runs": runs,
                                      "seconds": round(time.monotonic() - started, 3),
                                      "line": f"{best[0]}:{best[1]}" if best else ""}
    if measured:
        _rerank(search, live)
    return bool(measured)


def _rerank(search: _Search, live: list[TestFailureRecord]) -> None:
    """Each failure's static suspects ranked by the spectrum as it stands (never a ranking ranked again)."""
    from ..locate.native_spectrum import rerank

    for failure in live:
        test = search.spectrum_names.get(failure.failure_id)
        static: list[Suspect] | None = search.static_suspects.get(failure.failure_id)
        if test is not None and static is not None:
            failure.place_suspects(rerank(static, search.spectrum, test))
    if live and live[0].suspects:  # what the first pass starts with: the first failure's leading suspects
        search.stats.spectrum["ranked"] = [f"{s.file_path}::{s.qualname}" for s in live[0].suspects[:RANKED]]

