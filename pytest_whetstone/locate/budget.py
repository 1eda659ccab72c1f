"""What a default failing run may spend beyond the plain run: one allowance, drawn phase by phase.

A failing ``pytest -p whetstone`` should cost at most about 1.3x the same run without the plugin.
Capture, localization and the cheap candidates always run (milliseconds each, plus a fixed
``RESERVE_S`` for their imports and the session).  What is left of ``ALLOWANCE`` x the plain run goes,
in order, to re-running failing tests (flakiness, coverage; a share of the projected run, decided
per test from its own duration), re-running passing tests of a value fault's module for its spectrum
(:mod:`.pyspectra`; a share of the run), the in-process mutant pass (:mod:`.pymutants`) and the
validated search.  The plain run is estimated as the session's wall time less what the plugin itself spent.
``--whetstone-search=1`` and ``whetstone fix`` skip these rules: they ask for the work.

The plain run the user compares against is the whole process: the interpreter's and pytest's start and
the imports of every plugin (often half a second or more) come before the plugin is configured, and
count (:func:`process_startup_s`); so do the plugin's own option reading and set-up.
"""

from __future__ import annotations

import os

from .pycoverage import LINE_TRACE_SLOWDOWN

ALLOWANCE = 0.2  # of the plain run (the whole process): what the passes and the search may add; fixed costs, overshoot and noise fill the rest of the 1.3x
RESERVE_S = 0.12  # the session's writing, the default candidates and their lazy imports

RERUN_SHARE = 0.06  # of the projected run: re-running the failing tests
RERUN_FIRST_S = 0.2  # a fast first failure is re-run even in a very short run (flakiness, coverage); its
# duration often holds pytest's one-time cost of explaining the first failed assert, which a re-run does not pay
COVERAGE_START_S = 0.08  # importing coverage.py (~60 ms) and its first start, paid by the first re-run
RERUN_EXPLICIT_MIN_S = 2.0  # asked-for analysis: at least this, or 30% of the run
RERUN_EXPLICIT_SHARE = 0.3

SPECTRA_SHARE = 0.12  # of the plain run: passing tests traced for a value fault's spectrum
SPECTRA_SHORT_RUN_S = 2.0  # a run shorter than this still gets SPECTRA_FLOOR_S (a few cheap tests)
SPECTRA_FLOOR_S = 0.1
SPECTRA_EXPLICIT_MAX_S = 3.0

CHEAP_MIN_S = 0.15  # below this a mutant pass cannot compare two suspects
CHEAP_MAX_S = 3.0

CANDIDATES_SHARE = 0.05  # of the plain run: the default (unvalidated) candidates of all its failures
CANDIDATES_MIN_S = 0.1

STARTUP_MAX_S = 5.0  # a process older than this when pytest configured us was not started for this run

FLOOR_S = 3.0  # a search worker's start alone takes about 1 s (docs/fixes.md): below this nothing gets tried


def process_startup_s() -> float:
    """Seconds this process ran before now (call it when the plugin is configured: the interpreter's
    start, pytest's and its plugins' imports), from Linux's /proc; 0.0 when unknown, or when the process
    is too old to have been started for this run (pytest driven in-process by a longer program)."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            stat = fh.read()
        with open("/proc/uptime", "rb") as fh:
            uptime = float(fh.read().split()[0])
        ticks = os.sysconf("SC_CLK_TCK")
        # the command name (field 2) may hold spaces and parentheses: count fields after its last ')'
        start_ticks = int(stat[stat.rindex(b")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return 0.0
    age = uptime - start_ticks / ticks
    return age if 0.0 < age <= STARTUP_MAX_S else 0.0


def left(run_s: float, spent_s: float) -> float:
    """Seconds of the allowance still free after ``spent_s`` (re-runs, analysis, the mutant pass)."""
    return ALLOWANCE * max(0.0, run_s) - RESERVE_S - max(0.0, spent_s)


def rerun_allowed(spent_s: float, projected_run_s: float, expected_s: float, explicit: bool = False) -> bool:
    """May one more failing test be re-run?  ``expected_s``: its own duration (plus coverage's start, the
    first time); ``projected_run_s``: the run's wall time projected from the share of items done.
    ``$WHETSTONE_RERUN_S`` sets the re-runs' total outright (0 re-runs nothing)."""
    fixed = _fixed("WHETSTONE_RERUN_S")
    if fixed is not None:
        return spent_s + expected_s <= fixed
    if explicit:
        return spent_s <= max(RERUN_EXPLICIT_MIN_S, RERUN_EXPLICIT_SHARE * projected_run_s)
    return spent_s + expected_s <= max(RERUN_FIRST_S, RERUN_SHARE * projected_run_s)


def rerun_cost(duration_s: float, first: bool, line_traced: bool = False) -> float:
    """What re-running a test of this duration under coverage is expected to cost (``first``: coverage.py
    starts with it; ``line_traced``: the line tracer measures it instead, see locate/pycoverage.py)."""
    if line_traced:
        return LINE_TRACE_SLOWDOWN * max(0.0, duration_s) + 0.005
    return 1.3 * max(0.0, duration_s) + 0.005 + (COVERAGE_START_S if first else 0.0)


def spectra_budget(run_s: float, spent_s: float, explicit: bool = False) -> float:
    """Seconds for tracing a value fault's module tests (0: skip); ``$WHETSTONE_SPECTRA_S`` sets it
    outright (0 turns the pass off)."""
    fixed = _fixed("WHETSTONE_SPECTRA_S")
    if fixed is not None:
        return fixed
    run_s = max(0.0, run_s)
    if explicit:
        return max(2 * SPECTRA_FLOOR_S, min(SPECTRA_EXPLICIT_MAX_S, 0.15 * run_s))
    share = min(SPECTRA_SHARE * run_s, left(run_s, spent_s))
    if run_s < SPECTRA_SHORT_RUN_S:
        share = max(share, SPECTRA_FLOOR_S)
    return max(0.0, share)


def _fixed(name: str) -> float | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        return max(0.0, float(text))
    except ValueError:
        return None


def candidates_budget(run_s: float) -> float:
    """Seconds for the default candidates of a failing run: past them, the failures not reached yet get
    their manual fallback alone (the first failure always gets every generator).  Failures that share
    a location share the work, so this binds only runs with very many distinct failures.
    ``$WHETSTONE_CANDIDATES_S`` sets it outright."""
    fixed = _fixed("WHETSTONE_CANDIDATES_S")
    if fixed is not None:
        return fixed
    return max(CANDIDATES_MIN_S, CANDIDATES_SHARE * max(0.0, run_s))


def default_search_budget(run_s: float, spent_s: float, configured_s: float) -> float:
    """Seconds for the search in a default run (0: do not start it)."""
    share = left(run_s, spent_s)
    if share < FLOOR_S:
        return 0.0
    return min(configured_s, share)


def cheap_pass_budget(run_s: float, spent_s: float, explicit: bool = False) -> float:
    """Seconds for the in-process mutant pass of a failing run (0: skip it); the forks need no
    start-up, but each runs the failing test once.  ``$WHETSTONE_MUTANT_PASS_S`` sets it outright
    (0 turns the pass off)."""
    fixed = _fixed("WHETSTONE_MUTANT_PASS_S")
    if fixed is not None:
        return fixed
    if explicit:  # the search follows and wants the pass's ranking: the old, roomier rule
        return max(0.25, min(CHEAP_MAX_S, 0.1 * max(0.0, run_s) - max(0.0, spent_s)))
    share = min(CHEAP_MAX_S, left(run_s, spent_s))
    return share if share >= CHEAP_MIN_S else 0.0
