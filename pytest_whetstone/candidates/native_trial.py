"""What a mutant search of C/C++/JS test failures asks of a test runner: the trial protocol.

A *trial* re-runs the failing tests of one workspace with one file's text replaced, outside the
user's tree (C/C++: the mutated unit recompiled into a scratch object and the test binary relinked
into a scratch path, :mod:`.native_trial_cxx`; JS: a scratch copy of the project, the failing test
files run there, :mod:`.native_trial_js`).  The search (:mod:`.native_search`) only speaks this
protocol, so a runner is one small module.

Failing tests are named by their records' ``failure_id``; a trial maps each record to what its
runner selects by (``Suite.Name`` for ``--gtest_filter``, a test file plus its title for Jest's
``-t``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..locate.native_tests import family_of
from ..records import TestFailureRecord


@dataclass
class TrialOutcome:
    """What one run of the failing tests said, with one file replaced (or none, for the baseline)."""

    passed: set[str] = field(default_factory=set)  # failure ids whose test now passes
    failing: dict[str, str] = field(default_factory=dict)  # failure id -> a short signature of how it fails
    error: str = ""  # the trial could not run the tests: did not compile/link, crashed, timed out
    seconds: float = 0.0
    screened: bool = False  # run through a schema (:mod:`.native_screen`), not compiled alone
    # screened, it made a failing test pass but broke another test the unmutated schema passes: rejected
    # without the compile of its own a candidate needs
    breaks_others: bool = False
    # the run was stopped at its time limit; ``passed`` then holds the failing tests that passed before it
    # (a fault that made them fail fast may, fixed, let them run longer than the limit allowed)
    timed_out: bool = False
    # the mutated file cannot be tried at all (no recorded command compiles it, no test binary holds its
    # code): true of every mutant of that file, so the search leaves the file, spending no more trials
    unbuildable: bool = False
    # seconds each failing test took, by failure id, where the runner says (gtest's XML report)
    test_s: dict[str, float] = field(default_factory=dict)
    # compiled alone, why: "fix-check" (a screened fix, built as it would be applied), "no-schema" (its
    # file has none), "left-out" (its file's schema does not hold it), "no-screen" (no schemata at all)
    alone: str = ""


@dataclass
class SuiteOutcome:
    """The wider check before a candidate is called validated."""

    ok: bool  # no test failed but the failing tests the trial was made for (run_failing judges those)
    covered: list[str] = field(default_factory=list)  # what ran: binaries / test files, for the candidate
    failed: list[str] = field(default_factory=list)  # names of tests that failed (at most a few)
    error: str = ""
    # failing tests outside the trial's focus (see ``focus``): failure id -> whether it passes now
    others: dict[str, bool] = field(default_factory=dict)
    # tests that still fail and failed in the user's own binary too, though the run never said so: a test
    # binary that died in a failing test never ran those after it (a fix of the first leaves them failing)
    unreported: list[str] = field(default_factory=list)


class Trial(Protocol):
    """One runner's way of re-running a workspace's failing tests with one file replaced."""

    def baseline(self) -> TrialOutcome:
        """The failing tests on the unchanged code: they must fail here as they did in the run."""
        ...

    timeout_s: float  # any one run of tests is stopped after this many seconds
    # the failing tests' runs are stopped after this many seconds (the search lowers it after the
    # baseline: a mutant that loops is stopped at a few times the baseline's run) ...
    failing_timeout_s: float
    # ... and never sooner than this: what starting the runner itself may take on a loaded machine
    FAILING_TIMEOUT_MIN_S: float

    def run_failing(self, rel: str, text: str, timeout_s: float | None = None) -> TrialOutcome:
        """Only the failing tests, with workspace-relative ``rel`` holding ``text``; each run stopped
        after ``timeout_s`` (None: ``failing_timeout_s``)."""
        ...

    def run_wider(self, rel: str, text: str) -> SuiteOutcome:
        """The rest: the whole test binary (C/C++) or the whole suite (JS), with the same change."""
        ...

    # Optional: ``focus(failure_ids)`` makes baseline / run_failing / the schemata run only those failing
    # tests (the cheap ones); run_wider still knows every failing test and reports the others in
    # ``SuiteOutcome.others``.

    def close(self) -> None:
        """Remove every scratch file; the user's tree was never written."""
        ...


def start_warm_up(trial: Trial, stop: threading.Event) -> threading.Thread | None:
    """The trial's warm-up (C/C++: compiling the test files of one-step links) in the background from
    the start, beside the baseline and the spectrum."""
    warm = getattr(trial, "warm", None)
    if warm is None:
        return None
    thread = threading.Thread(target=warm, args=(stop,), daemon=True, name="whetstone-warm")
    thread.start()
    return thread


def trial_family(failure: TestFailureRecord) -> str:
    """Which runner's trial re-runs this failure: "js", or "c" (C and C++)."""
    fam = family_of(failure.suspects[0].file_path) if failure.suspects else None
    return fam or "c"


def trial_for(
    family: str, failures: list[TestFailureRecord], workspace: Path, store: Path | None, command: str | None,
    timeout_s: float,
) -> tuple[Trial | None, str]:
    """A trial of ``family`` for these failures, or None and one line saying why not."""
    if family == "js":
        try:
            from .native_trial_js import js_trial
        except ImportError:
            return None, "no JavaScript trial runner is available"
        return js_trial(failures, workspace, command=command, timeout_s=timeout_s)
    from .native_trial_cxx import cxx_trial

    return cxx_trial(failures, workspace, store, timeout_s=timeout_s)
