"""The failing JS tests under V8's coverage: what they ran, and what the passing tests beside them ran.

Two runs in the trial's scratch copy, both with ``NODE_V8_COVERAGE``: the failing tests alone (the
title filter the trial already uses), then their whole test files.  Per line, the second run's count
less the first's is what the passing tests of those files executed; the two make a two-sided
spectrum (the failing tests, the passing ones) for :mod:`..locate.native_spectrum`.  Works for every
runner the trial drives, since V8 itself counts (``node --test``, mocha, tape, Jest, vitest).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..locate.callgrind import Executed
from ..locate.native_spectrum import TestRun
from ..locate.v8coverage import LineCounts, difference, read_dir

if TYPE_CHECKING:
    from .native_trial_js import JsTrial

FAILING, PASSING = "the failing tests", "the passing tests of their files"


def profile_js(trial: JsTrial, budget_s: float) -> tuple[list[TestRun], dict[str, str], str]:
    if not trial.filter or trial.kind == "tape":
        # tape runs whole files: the "failing tests alone" run would be the file run again, two
        # runs of the search's time for a spectrum with nothing on its passing side
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
    runs = [TestRun(FAILING, True, _in_workspace(failing, trial.root, trial.workspace)),
            TestRun(PASSING, False, _in_workspace(passing, trial.root, trial.workspace))]
    return runs, {t.fid: FAILING for t in trial.targets}, ""


def _in_workspace(counts: LineCounts, root: Path, workspace: Path) -> Executed:
    """Scratch-copy paths as the user's own (the suspects name the workspace's files)."""
    out = Executed()
    for path, lines in counts.items():
        try:
            rel = Path(path).relative_to(root.resolve())
        except ValueError:
            continue
        out.lines[str(workspace / rel)] = set(lines)
    return out
