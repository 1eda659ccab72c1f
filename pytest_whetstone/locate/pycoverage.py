"""Which lines a test executed: coverage.py when no tracer is active, else a profile hook.

Coverage is measured only around the re-run of a failing test (or, opt-in, around every
test in ``sbfl`` mode), so passing suites pay nothing.  When another tracer already runs
(pytest-cov, a debugger, coverage under ``sys.monitoring``), starting a second coverage.py
tracer would replace theirs and corrupt their data, so we fall back to ``sys.setprofile``:
a separate hook that coverage does not use.  It records, per Python function that returns
(or raises), the line it left from: always a line inside the function's body, which is all
function-level localization needs.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator
from types import FrameType
from typing import Any


def tracer_active() -> bool:
    """Is some tracer (coverage, pytest-cov, a debugger) already installed?"""
    if sys.gettrace() is not None:
        return True
    coverage = sys.modules.get("coverage")  # not imported: then none of it is active (and importing costs ~46 ms)
    try:
        if coverage is not None and coverage.Coverage.current() is not None:
            return True
    except Exception:  # coverage too old: then nothing of it is active either
        pass
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        try:
            if monitoring.get_tool(monitoring.COVERAGE_ID) is not None:
                return True
        except Exception:
            pass
    return False


class _ProfileLines:
    """Lines where functions returned, collected through sys.setprofile."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root) + os.sep
        self.lines: dict[str, set[int]] = {}
        self._previous: Any = None
        self._ok: dict[str, bool] = {}

    def _hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "return":
            return
        filename = frame.f_code.co_filename
        ok = self._ok.get(filename)
        if ok is None:
            ok = self._ok[filename] = os.path.realpath(filename).startswith(self.root)
        if ok:
            self.lines.setdefault(filename, set()).add(frame.f_lineno)

    def start(self) -> None:
        self._previous = sys.getprofile()
        sys.setprofile(self._hook)

    def stop(self) -> None:
        sys.setprofile(self._previous)


class CoverageContexts:
    """Executed lines per key (a test id), measured only inside ``measure(key)`` blocks.

    One coverage.py object is reused for every block (creating one costs ~10 ms, a
    start/stop ~2 ms), with one dynamic context per key.  When another tracer is active
    at the time of a block, that block is measured with the profile hook instead.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self._cov: Any = None
        self._profiled: dict[str, dict[str, set[int]]] = {}
        self._result: dict[str, dict[str, set[int]]] | None = None
        self.methods: dict[str, str] = {}

    @contextlib.contextmanager
    def measure(self, key: str) -> Iterator[str]:
        self._result = None
        if not tracer_active():
            cov = self._coverage()
            if cov is not None:
                cov.start()
                try:
                    cov.switch_context(key)
                    self.methods[key] = "coverage"
                    yield "coverage"
                finally:
                    cov.stop()
                return
        if sys.getprofile() is None:
            prof = _ProfileLines(self.root)
            prof.start()
            try:
                self.methods[key] = "profile"
                yield "profile"
            finally:
                prof.stop()
                self._profiled[key] = prof.lines
            return
        self.methods[key] = "none"
        yield "none"

    def _coverage(self) -> Any:
        if self._cov is None:
            try:
                import coverage

                self._cov = coverage.Coverage(
                    data_file=None,
                    config_file=False,
                    include=[os.path.join(os.path.realpath(self.root), "*")],
                )
            except Exception:  # coverage unusable here: the profile hook will do
                self._cov = False
        return self._cov or None

    def lines_of(self, key: str) -> dict[str, set[int]]:
        """{file: executed lines} of one measured key (a query of that context alone)."""
        if key in self._profiled:
            return self._profiled[key]
        if not self._cov or self.methods.get(key) != "coverage":
            return {}
        import re

        out: dict[str, set[int]] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = self._cov.get_data()
            data.set_query_contexts(["^" + re.escape(key) + "$"])
            try:
                for filename in data.measured_files():
                    lines = data.lines(filename)
                    if lines:
                        out[filename] = set(lines)
            finally:
                data.set_query_contexts(None)
        return out

    def result(self) -> dict[str, dict[str, set[int]]]:
        """{key: {file: executed lines}} for every measured key."""
        if self._result is not None:
            return self._result
        out: dict[str, dict[str, set[int]]] = {k: dict(v) for k, v in self._profiled.items()}
        if self._cov:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "no data collected" and friends: not the user's business
                data = self._cov.get_data()
                for filename in data.measured_files():
                    for line, contexts in (data.contexts_by_lineno(filename) or {}).items():
                        for ctx in contexts:
                            if ctx:
                                out.setdefault(ctx, {}).setdefault(filename, set()).add(line)
        self._result = out
        return out
