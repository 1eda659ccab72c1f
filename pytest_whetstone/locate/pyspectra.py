"""Per-test coverage spectra for value faults, over the failing module's own tests.

A value fault (``assert f(x) == 3`` fails because ``f`` computed 2) leaves no implementation frame in
the traceback: it ends in the test's assertion.  The functions the failing test executed are then all
equally covered; what tells them apart is which of them the *passing* tests of the same module also
executed (spectrum-based localization, :mod:`.sbfl`).  At the end of a failing session this pass picks
the passing tests of the failing test's module(s) most likely to run the same functions (tests that name
those functions, the failing test's class and parametrized siblings, the cheapest first) and runs them in
one fork of the pytest process, each under coverage with its own context (:mod:`.pycoverage`: coverage.py,
or the profile hook when another tracer is active), reporting through a pipe, one JSON line per test, the
implementation functions it executed and whether it passed again.  Nothing is written, nothing is
reported to pytest (``runtestprotocol(log=False)``), the child's output goes to /dev/null, and the child
ends with ``os._exit``: outcomes, counts and pytest-cov's data are those of the run without it.

The pass draws on the failing run's allowance (:mod:`.budget`): it starts no test whose own duration no
longer fits, and the parent kills the child shortly after the budget ends; what was traced by then counts
and the evidence says the pass was cut short.  Skipped without ``os.fork`` or while another thread runs
(as the mutant pass, :mod:`.pymutants`), for the whole-suite ``sbfl`` mode (which has its spectrum), and on
xdist workers.
"""

from __future__ import annotations

import json
import os
import select
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..process import fork_isolated, kill_forked_child
from .sbfl import Spectrum, count_spectrum, functions_of

KEY_PREFIX = "whetstone-spectrum:"  # coverage context of a test traced by this pass
MAX_FAILING = 10  # failing tests of one module traced in the child when their re-run measured nothing
MAX_PASSING = 400  # passing tests considered per pass (the budget usually stops sooner)
PER_TEST_OVERHEAD_S = 0.002  # runtestprotocol, the coverage context switch and the pipe, per test
COVERAGE_SLOWDOWN = 1.5  # a test under line coverage, against its own run
KILL_GRACE_S = 0.1  # past the budget, the child is killed
SETUP_SHARE = 0.3  # of the budget: at most this long reading test bodies to order the passing tests
FORK_S = 0.01  # forking the pytest process and the child's first copy-on-write faults

Key = tuple[str, str]


def is_value_fault(cap: Any) -> bool:
    """A failing call whose traceback has no implementation frame: the test's own assertion (or its
    own code) failed on a value the implementation returned."""
    record = cap.record
    return (record.outcome == "failed" and not record.impl_file and not record.flaky and not cap.subtest
            and not cap.missing_name)


@dataclass
class ModuleSpectrum:
    """The spectrum of one test module, and how much of the planned pass it rests on."""

    path: str
    per_test: dict[str, set[Key]] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)
    planned_passing: int = 0

    @property
    def passing(self) -> int:
        return len(self.per_test) - len(self.failed & set(self.per_test))

    def spectrum(self) -> Spectrum:
        return count_spectrum(self.per_test, self.failed)

    def remark(self) -> str:
        if self.passing < self.planned_passing:
            return f"; cut short: {self.passing} of {self.planned_passing} passing tests traced"
        return ""


@dataclass
class PassResult:
    modules: dict[str, ModuleSpectrum] = field(default_factory=dict)
    elapsed_s: float = 0.0
    stopped: str = ""  # "", "budget", "killed", "error", or why it did not run

    @property
    def cut_short(self) -> bool:
        return any(m.passing < m.planned_passing for m in self.modules.values())

    def to_stats(self) -> dict[str, Any]:
        return {
            "modules": len(self.modules),
            "failing": sum(len(m.failed) for m in self.modules.values()),
            "passing_traced": sum(m.passing for m in self.modules.values()),
            "passing_planned": sum(m.planned_passing for m in self.modules.values()),
            "cut_short": self.cut_short,
            "elapsed_s": round(self.elapsed_s, 3),
            "stopped": self.stopped,
        }


# --------------------------------------------------------------------------- which tests


def module_of(item: Any) -> str:
    return str(getattr(item, "path", "") or getattr(item, "fspath", ""))


def _parent_id(nodeid: str) -> str:
    return nodeid.rsplit("::", 1)[0]


def _base_name(nodeid: str) -> str:
    return nodeid.split("[", 1)[0]


def _test_names(item: Any, cache: dict[tuple[str, int], frozenset[str]]) -> frozenset[str]:
    """Names the test function's body refers to (parsed once per function, not per parameter)."""
    from .pysource import source_file
    from .python import referenced_names

    location = getattr(item, "location", None)
    path = module_of(item)
    line = (location[1] or 0) + 1 if location else 0
    key = (path, line)
    names = cache.get(key)
    if names is None:
        src = source_file(path) if line else None
        node = src.function_node(line) if src is not None else None
        names = cache[key] = frozenset(referenced_names(node)) if node is not None else frozenset()
    return names


def order_passing(
    candidates: Iterable[Any],
    failing_ids: Iterable[str],
    suspect_names: set[str],
    durations: Mapping[str, float],
    deadline: float | None = None,
) -> list[Any]:
    """The passing tests most likely to run the failing tests' functions first, cheapest first among
    equals: a passing test that runs none of them adds nothing to their spectrum.  Past ``deadline``
    (``time.monotonic()``) test bodies are no longer read: the rest are ordered by their names alone,
    so reading a large test module cannot take the time meant for tracing."""
    failing = list(failing_ids)
    parents = {_parent_id(n) for n in failing if "::" in n}
    bases = {_base_name(n) for n in failing}
    cache: dict[tuple[str, int], frozenset[str]] = {}
    scored = []
    for index, item in enumerate(candidates):
        nodeid = item.nodeid
        read = deadline is None or time.monotonic() < deadline
        relevance = len(_test_names(item, cache) & suspect_names) if read else 0
        relevance += 2 if _base_name(nodeid) in bases else 0
        relevance += 1 if "::" in nodeid and _parent_id(nodeid) in parents else 0
        scored.append((-relevance, durations.get(nodeid, 0.0), index, item))
    scored.sort(key=lambda row: row[:3])
    return [row[3] for row in scored[:MAX_PASSING]]


def suspect_names(functions: Iterable[Key]) -> set[str]:
    """The leaf names of functions (what a test body would call them by)."""
    out = set()
    for _file, qual in functions:
        leaf = qual.rsplit(".", 1)[-1]
        if leaf and not leaf.startswith("<"):
            out.add(leaf)
            if leaf == "__init__" and "." in qual:  # a class is called by its own name
                out.add(qual.rsplit(".", 2)[-2])
    return out


# --------------------------------------------------------------------------- the fork


def trace_in_fork(
    plan: list[tuple[Any, float]],
    contexts: Any,
    workspace: str,
    budget_s: float,
) -> tuple[list[dict[str, Any]], str]:
    """Run ``plan`` ((item, expected seconds), in order) in one fork under ``contexts``
    (a pycoverage.CoverageContexts); one dict ``{id, passed, functions}`` per test that finished.

    The child starts no test that would end past the budget; the parent kills it (with its process
    group) just after the budget, so a test slower under coverage than its own run, or one that hangs,
    costs no more: it is left out, with the tests after it."""
    t0 = time.monotonic()
    soft = t0 + budget_s
    hard = soft + KILL_GRACE_S
    pid, read_fd = fork_isolated(lambda write_fd: _child(plan, contexts, workspace, soft, write_fd))
    rows: list[dict[str, Any]] = []
    said: str | None = None  # the child's own last word: "" (done) or "budget"
    ended = False
    buffer = b""
    try:
        while said is None:
            left = hard - time.monotonic()
            if left <= 0:
                break
            ready, _w, _x = select.select([read_fd], [], [], left)
            if not ready:
                break
            chunk = os.read(read_fd, 65536)
            if not chunk:
                ended = True
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(row, dict):
                    continue
                if "stop" in row:
                    said = str(row["stop"])
                elif "error" not in row:
                    rows.append(row)
    finally:
        os.close(read_fd)
        kill_forked_child(pid)
    stopped = said if said is not None else ("error" if ended else "killed")
    return rows, stopped


def _child(plan: list[tuple[Any, float]], contexts: Any, workspace: str, soft: float, fd: int) -> None:
    from _pytest.runner import runtestprotocol

    from .pyreports import brief_failures

    items = [item for item, _e in plan]
    for index, (item, expected) in enumerate(plan):
        if time.monotonic() + expected + contexts.start_cost(expected) > soft:
            os.write(fd, b'{"stop": "budget"}\n')
            return
        key = KEY_PREFIX + item.nodeid
        nextitem = items[index + 1] if index + 1 < len(items) else None  # keeps shared fixtures up
        try:
            with contexts.measure(key, expected) as method, brief_failures(item):
                reports = runtestprotocol(item, nextitem=nextitem, log=False)
        except Exception as exc:  # a test that breaks pytest's protocol here says nothing either way
            os.write(fd, (json.dumps({"id": item.nodeid, "error": f"{type(exc).__name__}: {exc}"[:200]}) + "\n").encode())
            continue
        passed = bool(reports) and all(r.passed for r in reports) and any(r.when == "call" for r in reports)
        functions = sorted(functions_of(contexts.lines_of(key), workspace)) if method != "none" else []
        row = {"id": item.nodeid, "passed": passed, "functions": functions, "measured": method != "none"}
        os.write(fd, (json.dumps(row) + "\n").encode())
    os.write(fd, b'{"stop": ""}\n')


# --------------------------------------------------------------------------- the pass


def run_pass(
    value_caps: list[Any],
    session_items: list[Any],
    passed_durations: Mapping[str, float],
    contexts: Any,
    workspace: str,
    budget_s: float,
) -> PassResult:
    """Spectra for the modules of ``value_caps`` (plugin ``Captured`` objects of value faults)."""
    from .python import real_path

    t0 = time.monotonic()
    result = PassResult()
    by_id = {item.nodeid: item for item in session_items}
    failing: dict[str, list[Any]] = {}  # module -> its value-fault captures
    for cap in value_caps:
        item = by_id.get(cap.record.node_id)
        if item is not None and len(failing.setdefault(module_of(item), [])) < MAX_FAILING:
            failing[module_of(item)].append(cap)
    plan: list[tuple[Any, float]] = []  # the failing tests the re-run did not measure come first
    passing: list[tuple[Any, float]] = []
    for path, caps in failing.items():
        ids = {cap.record.node_id for cap in caps}
        candidates = [item for item in session_items
                      if item.nodeid in passed_durations and item.nodeid not in ids and module_of(item) == path]
        if not candidates:
            continue  # no passing test to compare with: a spectrum would say nothing
        spec = result.modules[path] = ModuleSpectrum(path, failed=ids)
        for cap in caps:
            if cap.covered:  # measured on its re-run already
                spec.per_test[cap.record.node_id] = {
                    (real_path(f), q) for f, q in functions_of(cap.covered, workspace)}
            elif sum(e for _i, e in plan) + (cost := _expected(cap.record.duration_ms / 1000.0)) <= budget_s / 2:
                plan.append((by_id[cap.record.node_id], cost))
            # else: re-tracing it would leave too little for the passing tests; it stays out
        executed: set[Key] = set().union(*spec.per_test.values()) if spec.per_test else set()
        names = suspect_names(executed) | suspect_names(k for cap in caps for k in cap.called)
        ordered = order_passing(candidates, ids, names, passed_durations, deadline=t0 + SETUP_SHARE * budget_s)
        spec.planned_passing = len(ordered)
        passing.extend((item, _expected(passed_durations.get(item.nodeid, 0.0))) for item in ordered)
    plan += passing
    if not plan:
        return result
    left = budget_s - (time.monotonic() - t0)
    if left < FORK_S + plan[0][1] + contexts.start_cost(plan[0][1]):  # not even one test would be traced
        result.stopped = "budget"
        result.elapsed_s = time.monotonic() - t0
        return result
    rows, result.stopped = trace_in_fork(plan, contexts, workspace, left)
    module_by_id = {item.nodeid: module_of(item) for item, _e in plan}
    for row in rows:
        nodeid = str(row.get("id", ""))
        traced = result.modules.get(module_by_id.get(nodeid, ""))
        if traced is None or not row.get("measured"):
            continue
        if bool(row.get("passed")) == (nodeid in traced.failed):  # its outcome changed here: not evidence
            traced.failed.discard(nodeid)
            continue
        traced.per_test[nodeid] = {(real_path(str(f)), str(q)) for f, q in row.get("functions", [])}
    for spec in result.modules.values():
        spec.failed &= set(spec.per_test)
    result.elapsed_s = time.monotonic() - t0
    return result


def _expected(duration_s: float) -> float:
    return COVERAGE_SLOWDOWN * max(0.0, duration_s) + PER_TEST_OVERHEAD_S
