"""The failing JS tests under V8's coverage: what they ran, and what the passing tests beside them ran.

Two runs in the trial's scratch copy, both with ``NODE_V8_COVERAGE``: the failing tests alone (the
title filter the trial already uses), then their whole test files.  Per line, the second run's count
less the first's is what the passing tests of those files executed; the two make a two-sided
spectrum (the failing tests, the passing ones) for :mod:`..locate.native_spectrum`.  Works for every
runner the trial drives, since V8 itself counts (``node --test``, mocha, Jest, vitest).

tape cannot select a test by title: a hook cuts its process's coverage test by test
(:mod:`.native_spectra_tape`); where it cannot, the sides are files: the failing test files in one
process, then the suite's other test files (the command's paths and globs, expanded) in another.
"""

from __future__ import annotations

import glob
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..locate.native_spectrum import TestRun
from ..locate.v8coverage import difference, executed_in_workspace, read_dir
from .native_spectra_tape import PER_TEST_TOOL, tape_tests_spectrum

if TYPE_CHECKING:
    from .native_trial_js import JsTrial

FAILING, PASSING = "the failing tests", "the passing tests of their files"
FAILING_FILES, OTHER_FILES = "the failing test files", "the suite's other test files"
JS_TEST_EXTS = (".js", ".mjs", ".cjs", ".ts")
MAX_OTHER_FILES = 200


def profile_js(trial: JsTrial, budget_s: float) -> tuple[list[TestRun], dict[str, str], str]:
    if trial.kind == "tape":
        return profile_tape(trial, budget_s)
    if not trial.filter:
        # the "failing tests alone" run would be the file run again, two runs of the search's time
        # for a spectrum with nothing on its passing side
        return [], {}, "the failing tests cannot be run alone (title filter): no execution spectrum"
    deadline = time.monotonic() + budget_s
    files = sorted({t.file for t in trial.targets})
    failing_dir, whole_dir = trial.work / "v8-failing", trial.work / "v8-files"
    started = time.monotonic()
    error = trial.run_covered(files, trial.targets, failing_dir, budget_s)
    if error:
        return [], {}, f"the failing tests under coverage: {error}"
    if deadline - time.monotonic() < 1.5 * (time.monotonic() - started):
        return [], {}, "no time left for the passing tests' coverage"
    error = trial.run_covered(files, [], whole_dir, deadline - time.monotonic())
    if error:
        return [], {}, f"the test files under coverage: {error}"
    failing = read_dir(failing_dir, trial.root)
    passing = difference(read_dir(whole_dir, trial.root), failing)
    if not failing:
        return [], {}, "V8 reported no coverage of the project's sources"
    runs = [TestRun(FAILING, True, executed_in_workspace(failing, trial.root, trial.workspace)),
            TestRun(PASSING, False, executed_in_workspace(passing, trial.root, trial.workspace))]
    return runs, {t.fid: FAILING for t in trial.targets}, ""


def profile_tape(trial: JsTrial, budget_s: float) -> tuple[list[TestRun], dict[str, str], str]:
    """The failing tests against the passing ones, test by test (:mod:`.native_spectra_tape`); where the
    tests cannot be told apart, the failing test files against the suite's other test files, each side
    one tape process."""
    deadline = time.monotonic() + budget_s
    files = sorted({t.file for t in trial.targets})
    if any(glob.has_magic(f) for f in files):
        return [], {}, "the failing test is known only by the suite's glob: no execution spectrum"
    others = [f for f in suite_files(trial.root, trial.command.paths) if f not in files][:MAX_OTHER_FILES]
    per_test = tape_tests_spectrum(trial, files, others, budget_s)
    if per_test is not None:
        # what an earlier test of the same process ran can still set up the failing one's state: a line
        # the failing test did not run is not proof that a mutant there cannot change it (lines_complete)
        trial.spectrum_tool = PER_TEST_TOOL
        return per_test[0], per_test[1], ""
    if not others:
        return [], {}, "no other test file to set the failing files against: no execution spectrum"
    failing_dir, others_dir = trial.work / "v8-failing", trial.work / "v8-others"
    started = time.monotonic()
    error = trial.run_covered(files, [], failing_dir, budget_s)
    if error:
        return [], {}, f"the failing test files under coverage: {error}"
    if deadline - time.monotonic() < 1.5 * (time.monotonic() - started):
        return [], {}, "no time left for the other test files' coverage"
    error = trial.run_covered(others, [], others_dir, deadline - time.monotonic())
    if error and "did not load" not in error:
        return [], {}, f"the other test files under coverage: {error}"
    if not trial.last_result.passed:  # helpers, fixtures: what they load says nothing about passing tests
        return [], {}, "the other test files ran no passing test: no execution spectrum"
    failing = read_dir(failing_dir, trial.root)
    if not failing:
        return [], {}, "V8 reported no coverage of the project's sources"
    runs = [TestRun(FAILING_FILES, True, executed_in_workspace(failing, trial.root, trial.workspace)),
            TestRun(OTHER_FILES, False, executed_in_workspace(read_dir(others_dir, trial.root), trial.root, trial.workspace))]
    return runs, {t.fid: FAILING_FILES for t in trial.targets}, ""


def suite_files(root: Path, paths: list[str]) -> list[str]:
    """The test files the command's paths name (files, directories, globs), relative to ``root``."""
    out: list[str] = []
    for path in paths:
        if glob.has_magic(path):
            hits = sorted(glob.glob(path, root_dir=root, recursive=True))
        elif (root / path).is_dir():
            hits = sorted(p.relative_to(root).as_posix() for p in (root / path).rglob("*"))
        else:
            hits = [path]
        out += [h for h in hits if h.endswith(JS_TEST_EXTS) and "node_modules" not in h and (root / h).is_file()]
    return list(dict.fromkeys(out))
