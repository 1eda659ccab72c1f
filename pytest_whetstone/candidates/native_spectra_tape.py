"""tape's tests one by one under V8's coverage: a spectrum of tests, not of files.

tape runs a file's tests in one process and cannot select one by title, so without help the spectrum's
sides are whole files (:func:`.native_spectra_js.profile_tape`): the failing test files against the
suite's others, and nothing at all when every test file fails.  ``tape_coverage.cjs``, preloaded with
``--require``, cuts the process's coverage at each test's start and end (``v8.takeCoverage()`` writes
what ran since its last call and resets the counts) and logs whose each piece is.  Each test then is one
:class:`~..locate.native_spectrum.TestRun`: the failing tests against the passing tests of the same
files first, then of the other files while time is left.  When the hook cannot take (no tape module to
patch, a runner of its own), the file-level sides are used as before.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..locate.native_spectrum import TestRun
from ..locate.v8coverage import LineCounts, executed_in_workspace, read_reports

if TYPE_CHECKING:
    from .native_trial_js import JsTrial

PRELOAD = Path(__file__).with_name("tape_coverage.cjs")
LOG_ENV = "WHETSTONE_TAPE_TESTS"
PER_TEST_TOOL = "v8, per test"  # the search event's spectrum tool
MAX_PIECES = 2000  # per process: past this the spectrum has what it needs


def tape_tests_spectrum(trial: JsTrial, files: list[str], others: list[str],
                        budget_s: float) -> tuple[list[TestRun], dict[str, str]] | None:
    """Per-test runs of the failing files (and of the others while time is left) and the failure ids'
    run names; None when the tests could not be told apart or none of them passed."""
    deadline = time.monotonic() + budget_s
    started = time.monotonic()
    found = _per_test(trial, files, budget_s, "failing")
    if found is None or not any(failed for failed, _counts in found.values()):
        return None
    if others and deadline - time.monotonic() > 1.5 * (time.monotonic() - started):
        for name, (failed, counts) in (_per_test(trial, others, deadline - time.monotonic(), "others") or {}).items():
            found.setdefault(name, (failed, counts))
    if all(failed for failed, _counts in found.values()):
        return None
    tests = [TestRun(name, failed, executed_in_workspace(counts, trial.root, trial.workspace))
             for name, (failed, counts) in found.items()]
    failing = [t.name for t in tests if t.failed]
    names = {}
    for target in trial.targets:
        leaf = target.parts[-1].strip() if target.parts else ""
        names[target.fid] = leaf if leaf in failing else failing[0]
    return tests, names


def _per_test(trial: JsTrial, files: list[str], budget_s: float, label: str) -> dict[str, tuple[bool, LineCounts]] | None:
    """test name -> (it failed, its line counts) for one tape process over ``files`` with the hook."""
    coverage_dir, log = trial.work / f"v8-tests-{label}", trial.work / f"tape-tests-{label}.jsonl"
    options = f"{trial.env.get('NODE_OPTIONS', '')} --require {PRELOAD}".strip()
    error = trial.run_covered(files, [], coverage_dir, budget_s, extra_env={"NODE_OPTIONS": options, LOG_ENV: str(log)})
    if error and "did not load" not in error:
        return None
    pieces: dict[str, list[Path]] = {}
    shared: list[Path] = []  # what ran outside every test (loading the files): every test's too
    failed: dict[str, bool] = {}
    try:
        lines = log.read_text(encoding="utf-8").splitlines()[:MAX_PIECES]
    except OSError:
        return None
    for line in lines:
        try:
            cut = json.loads(line)
            piece = coverage_dir / f"piece-{int(cut['pid'])}-{int(cut['seq']):06d}.json"
        except (ValueError, KeyError, TypeError):
            continue
        name = cut.get("test")
        if not os.path.exists(piece):
            continue
        if not isinstance(name, str):
            shared.append(piece)  # a module's top-level code ran once, for every test after it
            continue
        pieces.setdefault(name, []).append(piece)
        if cut.get("ok") is not None:
            failed[name] = failed.get(name, False) or not cut["ok"]
    loading = read_reports(shared, trial.root)
    return {name: (failed.get(name, False), _plus(read_reports(paths, trial.root), loading))
            for name, paths in pieces.items()} or None


def _plus(counts: LineCounts, more: LineCounts) -> LineCounts:
    for path, lines in more.items():
        mine = counts.setdefault(path, {})
        for line, n in lines.items():
            mine[line] = mine.get(line, 0) + n
    return counts
