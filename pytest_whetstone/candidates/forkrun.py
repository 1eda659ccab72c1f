"""Fast mutant runs: a worker imports pytest and the code once, each mutant runs in a fork.

A fresh ``python -m pytest`` per mutant pays interpreter start, plugin loading,
the import of the code under test and the collection of its test module(s):
seconds on a large module.  The worker (a subprocess started in the scratch
copy, speaking JSON lines on stdin/stdout) pays that once: it runs one pytest
session whose test loop, instead of running the collected items, serves
requests.  For each request it forks; the child assigns the mutated
function's code object to the live function (``fn.__code__ = new``) and runs
the requested items, already collected, through pytest's own
``runtestprotocol`` — no configuration, no collection, no import per mutant —
and writes their outcomes as a small JUnit file.  A requested node id the
session did not collect (a stale or odd id) makes that child fall back to
``pytest.main`` on the ids.

The fast path is a filter, never the judge: :mod:`.search` confirms every
mutant it passes with a fresh subprocess run.  A mutant that cannot be patched
in place (module or class level, a def line with its defaults, decorators,
different free variables, a function the collection never imported) is
answered ``unpatchable`` and the search runs it the slow way.

POSIX only (``os.fork``); :func:`fork_available` says whether to try.
This file is run by path in the worker (``runpy.run_path``) so the worker
imports nothing of Whetstone and sees the same ``sys.path`` as ``python -m pytest``.
"""

from __future__ import annotations

import ast
import gc
import json
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import IO, Any

import pytest

PYTEST_ARGS = ["-q", "-p", "no:cacheprovider", "-p", "no:whetstone", "-o", "addopts="]
WORKER_NAME = "__whetstone_fork_worker__"
_UNPATCHABLE = 97  # child exit code: the code object could not be swapped in


def fork_available() -> bool:
    return hasattr(os, "fork") and hasattr(os, "setpgid") and sys.platform != "win32"


# --------------------------------------------------------------------------- worker side


def patch_plan(file: str, source: str, start_line: int, end_line: int) -> tuple[list[tuple[Any, Any]], str]:
    """[(live function, new code object)] for an edit at [start_line, end_line], or ([], reason)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [], "syntax"
    chain = _enclosing(tree, start_line)
    fn_index = next((i for i, n in enumerate(chain) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), -1)
    if fn_index < 0:
        return [], "module-level"
    if any(not isinstance(n, ast.ClassDef) for n in chain[:fn_index]):
        return [], "nested"  # unreachable: the first def in the chain is the outermost one
    fn = chain[fn_index]
    assert isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
    body_line = fn.body[0].lineno
    if start_line < body_line or body_line == fn.lineno or end_line > (fn.end_lineno or 0):
        return [], "header"  # defaults, annotations and decorators were evaluated at import
    first = min([d.lineno for d in fn.decorator_list] + [fn.lineno])
    qualname = ".".join([n.name for n in chain[:fn_index]] + [fn.name])  # type: ignore[attr-defined]
    live = _live_functions(file, fn.name, first)
    if not live:
        return [], "not-imported"
    filename = live[0].__code__.co_filename
    try:
        module_code = compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return [], "syntax"
    new = _find_code(module_code, fn.name, first, qualname)
    if new is None:
        return [], "no-code"
    plan = []
    for function in live:
        if function.__code__.co_freevars != new.co_freevars:
            return [], "freevars"
        plan.append((function, new))
    return plan, ""


def _enclosing(tree: ast.AST, line: int) -> list[ast.AST]:
    """Defs and classes whose span holds the line, outermost first."""
    chain: list[ast.AST] = []
    node: ast.AST = tree
    while True:
        inner = None
        for child in ast.iter_child_nodes(node):
            lo = getattr(child, "lineno", None)
            hi = getattr(child, "end_lineno", None)
            if lo is None or hi is None:
                continue
            decorators = getattr(child, "decorator_list", [])
            lo = min([d.lineno for d in decorators] + [lo])
            if lo <= line <= hi:
                inner = child
                break
        if inner is None:
            return chain
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            chain.append(inner)
        node = inner


_LIVE: dict[str, dict[tuple[str, int], list[Any]]] = {}


def _live_functions(file: str, name: str, first: int) -> list[Any]:
    """Function objects (possibly under decorators) whose code is `name` at `file:first`."""
    real = os.path.realpath(file)
    if real not in _LIVE:
        index: dict[tuple[str, int], list[Any]] = {}
        seen: dict[str, str] = {}
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType):
                co = obj.__code__
                path = seen.get(co.co_filename)
                if path is None:
                    path = seen[co.co_filename] = os.path.realpath(co.co_filename)
                if path == real:
                    index.setdefault((co.co_name, co.co_firstlineno), []).append(obj)
        _LIVE[real] = index
    return _LIVE[real].get((name, first), [])


def _find_code(code: types.CodeType, name: str, first: int, qualname: str) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_firstlineno == first:
                if getattr(const, "co_qualname", qualname) == qualname:
                    return const
            found = _find_code(const, name, first, qualname)
            if found is not None:
                return found
    return None


def _junit_key(node_id: str) -> tuple[str, str]:
    """(classname, name) as pytest's JUnit report names a node id (a/b/test_x.py::C::t)."""
    parts = node_id.split("::")
    module = parts[0].removesuffix(".py").replace("/", ".")
    return ".".join([module, *parts[1:-1]]), parts[-1]


def _run_items(items: list[Any], junit: str) -> int:
    """Run collected items in this process; write their outcomes as JUnit testcases."""
    from xml.sax.saxutils import quoteattr

    from _pytest.runner import runtestprotocol

    class _Logged:
        """Failures reported through the hook, not returned: subtests (unittest subTest, pytest's
        `subtests` fixture) fail this way while the item's own call report passes."""

        def __init__(self) -> None:
            self.failed: set[str] = set()

        def pytest_runtest_logreport(self, report: Any) -> None:
            if report.failed:
                self.failed.add(report.nodeid)

    logged = _Logged()
    if items:
        items[0].config.pluginmanager.register(logged, "whetstone-fork-logged")
    cases = []
    failed = 0
    for item in items:
        reports = runtestprotocol(item, nextitem=None, log=False)
        bad = any(r.failed for r in reports) or item.nodeid in logged.failed
        failed += bad
        classname, name = _junit_key(item.nodeid)
        # how it failed, so the search can tell a mutant that changes the failure from one that does not
        body = f"<failure message={quoteattr(_crash_message(reports))}/>" if bad else ""
        cases.append(f"<testcase classname={quoteattr(classname)} name={quoteattr(name)}>{body}</testcase>")
    Path(junit).write_text(f"<testsuite>{''.join(cases)}</testsuite>", encoding="utf-8")
    return 1 if failed else 0


def _crash_message(reports: list[Any]) -> str:
    for report in reports:
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            text = getattr(crash, "message", None) or str(report.longrepr or "")
            return text.splitlines()[0][:300] if text else ""
    return ""


def _run_child(plan: list[tuple[Any, Any]], targets: list[str], junit: str, items: dict[str, Any]) -> None:
    """In the forked child: swap the code in, run the targets, never return."""
    code = 1
    try:
        os.setpgid(0, 0)  # so a timeout kills the tests' own subprocesses too
        try:
            for function, new in plan:
                function.__code__ = new
        except (ValueError, TypeError):
            code = _UNPATCHABLE
            raise
        chosen = [items.get(t) for t in targets]
        if chosen and all(item is not None for item in chosen):
            code = _run_items(chosen, junit)
        else:
            code = int(pytest.main([*targets, *PYTEST_ARGS, "--junitxml", junit]))
    except BaseException:  # noqa: BLE001 - the child must reach os._exit whatever happens
        code = code if code == _UNPATCHABLE else 99
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if 0 <= code < 90 else 98)


def _wait(pid: int, timeout: float) -> tuple[str, int]:
    end = time.monotonic() + timeout
    delay = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return "ok", os.waitstatus_to_exitcode(status)
        if time.monotonic() >= end:
            for target in (-pid, pid):
                try:
                    os.kill(target, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            os.waitpid(pid, 0)
            return "timeout", -9
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


class _Server:
    """A pytest plugin: after collection, the test loop serves requests instead of running tests."""

    def __init__(self, proto: IO[str], requests: IO[str], started: float) -> None:
        self.proto = proto
        self.requests = requests  # a duplicate of stdin: pytest's capture replaces fd 0 and sys.stdin
        self.started = started
        self.served = False

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> bool:
        self.served = True
        seconds = round(time.perf_counter() - self.started, 3)
        if session.testsfailed:  # collection errors: the search runs without the worker
            _reply(self.proto, {"status": "ready", "rc": 2, "seconds": seconds})
            return True
        items = {item.nodeid: item for item in session.items}
        _reply(self.proto, {"status": "ready", "rc": 0 if items else 5, "seconds": seconds})
        for line in self.requests:
            try:
                request = json.loads(line)
            except ValueError:
                _reply(self.proto, {"status": "error", "detail": "bad request"})
                continue
            _reply(self.proto, _serve(request, items))
        return True


def worker_main(modules: list[str]) -> int:
    """Collect once, then serve run requests (one JSON object a line) until stdin closes."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (1, 2):
        os.dup2(devnull, fd)  # pytest's output must never reach the protocol pipe
    requests = os.fdopen(os.dup(0), "r")
    server = _Server(proto, requests, time.perf_counter())
    rc = int(pytest.main([*modules, *PYTEST_ARGS], plugins=[server]))
    if not server.served:  # pytest stopped before the test loop (usage or config error)
        _reply(proto, {"status": "ready", "rc": rc or 2, "seconds": round(time.perf_counter() - server.started, 3)})
    return 0


def _serve(request: dict[str, Any], items: dict[str, Any]) -> dict[str, Any]:
    plan: list[tuple[Any, Any]] = []
    patch = request.get("patch")
    if patch:
        plan, reason = patch_plan(patch["file"], patch["source"], patch["start"], patch["end"])
        if not plan:
            return {"status": "unpatchable", "detail": reason}
    t0 = time.perf_counter()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        _run_child(plan, list(request["targets"]), str(request["junit"]), items)
    status, code = _wait(pid, float(request.get("timeout", 60)))
    if status == "ok" and code == _UNPATCHABLE:
        status = "unpatchable"
    return {"status": status, "rc": code, "seconds": round(time.perf_counter() - t0, 3)}


def _reply(proto: IO[str], data: dict[str, Any]) -> None:
    proto.write(json.dumps(data) + "\n")
    proto.flush()


# --------------------------------------------------------------------------- search side


class ForkWorker:
    """The search's handle on one worker process in the scratch copy."""

    def __init__(self, root: Path, python: str, env: dict[str, str], modules: list[str]) -> None:
        self.root = root
        self.proc: subprocess.Popen[str] | None = None
        self.ready_s = 0.0
        self.collect_rc = -1
        code = f"import runpy, sys; runpy.run_path({str(Path(__file__).resolve())!r}, run_name={WORKER_NAME!r})"
        self.argv = [python, "-c", code, *modules]
        self.env = env

    def start(self, timeout: float) -> bool:
        """Start and wait for the collection; False when it fails or takes too long."""
        t0 = time.monotonic()
        try:
            self.proc = subprocess.Popen(
                self.argv, cwd=self.root, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, start_new_session=True,
            )
        except OSError:
            return False
        reply = self._read(timeout)
        if reply is None or reply.get("status") != "ready":
            self.close()
            return False
        self.ready_s = time.monotonic() - t0
        self.collect_rc = int(reply.get("rc", -1))
        return self.collect_rc in (0, 5)  # 5: nothing collected is still a working worker

    def run(self, targets: list[str], junit: Path, timeout: float, patch: dict[str, Any] | None = None) -> dict[str, Any]:
        """The worker's answer: status ok | timeout | unpatchable | dead."""
        if self.proc is None or self.proc.stdin is None or self.proc.poll() is not None:
            return {"status": "dead"}
        request = {"targets": targets, "junit": str(junit), "timeout": timeout, "patch": patch}
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except OSError:
            self.close()
            return {"status": "dead"}
        reply = self._read(timeout + 5.0)  # the worker kills a slow child itself; this is the backstop
        if reply is None:
            self.close()
            return {"status": "dead"}
        return reply

    def _read(self, timeout: float) -> dict[str, Any] | None:
        from ..process import read_json_line  # here: the worker runs this file by path, outside the package

        assert self.proc is not None and self.proc.stdout is not None
        return read_json_line(self.proc.stdout, timeout)

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


if __name__ == WORKER_NAME:
    sys.exit(worker_main(sys.argv[1:]))
