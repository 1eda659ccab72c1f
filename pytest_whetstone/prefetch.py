"""What a run's analysis needs, imported while its command runs.

`whetstone run` starts the command after importing only what opening the session and judging the run
need.  Meanwhile a second thread imports the parsers, then what a failure calls on: the locators and
the candidate generators, and last compiles the parsers' patterns (:mod:`.lazy_pattern`: a run whose
command ends first compiles only those its log calls on).  The command runs in its own process and
this one only waits on its pipes, so on a test command of a tenth of a second or more most of that cost
is hidden.  Each step is one module (or the parser registry); :meth:`Prefetch.stop` lets the step under
way finish and skips the rest (a step that yields stops at its next yield), so a run whose command
ended early waits for one step at most and then imports what it needs itself.  Nothing here changes what a run reports: the same modules load either
way, only sooner.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator

# In the order a run needs them: every run parses its output and folds in ccwrap's captures; a failing
# test command locates its failures and generates their candidates.  Left out (imported when needed):
# Python's locators (a pytest run reports through the plugin) and the build-error generators (a failing
# build runs for seconds; importing them meanwhile would only take CPU from a test command's tests).
STEPS = (
    "pytest_whetstone.parse:load_parsers",
    "pytest_whetstone.store.spool",
    "pytest_whetstone.report.agent",
    "pytest_whetstone.locate.cfamily",
    "pytest_whetstone.locate.native_tests",
    "pytest_whetstone.locate.ccwrap_sources",
    "pytest_whetstone.candidates",
    "pytest_whetstone.candidates.validate",
    "pytest_whetstone.candidates.native_tests",
    "pytest_whetstone.lazy_pattern:compile_pending",
)


class Prefetch:
    """The steps, run on a daemon thread from :meth:`start` until done or stopped."""

    def __init__(self, steps: tuple[str, ...] = STEPS) -> None:
        self._steps = steps
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="whetstone-prefetch", daemon=True)

    def start(self) -> Prefetch:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Skip the steps not begun; wait for the one under way (imports must not race the caller's)."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        for step in self._steps:
            if self._stopping.is_set():
                return
            module, _, call = step.partition(":")
            try:
                loaded = importlib.import_module(module)
                result = getattr(loaded, call)() if call else None
                if isinstance(result, Iterator):  # a step in pieces: stopped between two of them when asked
                    for _ in result:
                        if self._stopping.is_set():
                            return
            except Exception:  # noqa: BLE001 - the caller imports it again and meets the error itself
                return
