"""Which lines a test executed: coverage.py when no tracer is active, else a profile hook.

Coverage is measured only around the re-run of a failing test (or, opt-in, around every
test in ``sbfl`` mode), so passing suites pay nothing.  When another tracer already runs
(pytest-cov, a debugger, coverage under ``sys.monitoring``), starting a second coverage.py
tracer would replace theirs and corrupt their data, so we fall back to ``sys.setprofile``:
a separate hook that coverage does not use.  It records, per Python function that returns
(or raises), the line it left from: always a line inside the function's body, which is all
function-level localization needs.

Importing coverage.py and starting it the first time costs ~80 ms, more than re-running a few
small tests: until the blocks measured so far have taken ``LINE_TRACE_MAX_S`` (and for a test not
expected to take longer than that), a ``sys.settrace`` line tracer of our own records the same lines
(the ``line`` events of the workspace's files, as coverage.py's line mode does) at no start-up
cost; coverage.py takes over once it pays for itself.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
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


def _start(cov: Any) -> None:
    """``cov.start()``.  The first start builds coverage's collector, which keeps the caller's stack
    for coverage's own debug output (``inspect.stack()``: the source of every frame, each frame's module
    looked up among all of ``sys.modules``); under pytest's deep stack that is 30-80 ms and nothing
    here reads it, so that one start goes without."""
    collector = sys.modules.get("coverage.collector")
    saved = getattr(collector, "short_stack", None)
    if saved is None or getattr(cov, "_inited_for_start", True):
        cov.start()
        return
    collector.short_stack = lambda *args, **kwargs: ""  # type: ignore[union-attr]
    try:
        cov.start()
    finally:
        collector.short_stack = saved  # type: ignore[union-attr]


LINE_TRACE_MAX_S = 0.08  # time measured with the line tracer before coverage.py (~80 ms to start) takes over
LINE_TRACE_SLOWDOWN = 3.0  # a test under the line tracer, against its own run (coverage.py: ~1.5)


class _TraceLines:
    """Executed lines of the workspace's files through ``sys.settrace`` (``line`` events only), in the
    measuring thread and the threads started meanwhile."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root) + os.sep
        self.lines: dict[str, set[int]] = {}
        self._ok: dict[str, bool] = {}
        self.started = False

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        filename = frame.f_code.co_filename
        ok = self._ok.get(filename)
        if ok is None:
            ok = self._ok[filename] = os.path.realpath(filename).startswith(self.root)
        return self._line if ok else None  # frames outside the workspace run untraced

    def _line(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            lines = self.lines.get(frame.f_code.co_filename)
            if lines is None:
                lines = self.lines[frame.f_code.co_filename] = set()
            lines.add(frame.f_lineno)
        return self._line

    def start(self) -> bool:
        """Install the tracer; False (nothing installed) when ``sys.settrace`` does not take it: a
        suite that keeps Python-level tracers out, which coverage.py's C tracer does not need."""
        threading.settrace(self._call)  # threads the test starts too, as coverage.py does
        sys.settrace(self._call)
        if sys.gettrace() != self._call:
            threading.settrace(None)  # type: ignore[arg-type]  # None: the documented "no tracer"
            return False
        self.started = True
        return True

    def stop(self) -> None:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]  # None: the documented "no tracer"


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
        self._profiled: dict[str, dict[str, set[int]]] = {}  # key -> lines, measured without coverage.py
        self._result: dict[str, dict[str, set[int]]] | None = None
        self._line_traced_s = 0.0  # time the blocks measured with the line tracer took so far
        self.methods: dict[str, str] = {}

    def line_traced(self, expected_s: float | None) -> bool:
        """Would a test expected to run ``expected_s`` (None: unknown) be measured by the line tracer?"""
        return (self._cov is None and expected_s is not None
                and self._line_traced_s + max(0.0, expected_s) <= LINE_TRACE_MAX_S)

    def start_cost(self, expected_s: float | None) -> float:
        """Seconds of start-up that measuring such a test would add: coverage.py's import and first
        start, unless it is loaded already or the line tracer takes the test."""
        if self._cov is not None or self.line_traced(expected_s):
            return 0.0
        from .budget import COVERAGE_START_S

        return COVERAGE_START_S

    @contextlib.contextmanager
    def measure(self, key: str, expected_s: float | None = None) -> Iterator[str]:
        """Measure the block under ``key``; ``expected_s``, the test's own run time, lets a small
        test go to the line tracer (no coverage.py start-up)."""
        self._result = None
        tracer = _TraceLines(self.root)
        t0 = time.perf_counter()
        if not tracer_active() and self.line_traced(expected_s):
            if not tracer.start():
                self._line_traced_s = LINE_TRACE_MAX_S  # refused: coverage.py from now on
        if tracer.started:
            try:
                self.methods[key] = "trace"
                yield "trace"
            finally:
                tracer.stop()
                self._line_traced_s += time.perf_counter() - t0
                self._profiled[key] = tracer.lines
            return
        if not tracer_active():
            cov = self._coverage()
            if cov is not None:
                _start(cov)
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
