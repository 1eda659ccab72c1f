"""A cheap mutant pass inside the failing pytest process, for localization only.

The validated search (``candidates.search``) runs mutants in a scratch copy; in a default run there is
rarely time to start it.  Here, at the end of the session, a few likeliest mutants of each top suspect
run in a fork of this very process: the fork swaps the mutated function's code object into the live
function (as the search's fork worker does, :func:`candidates.forkrun.patch_plan`), re-runs the failing
item through pytest's ``runtestprotocol`` and reports passed / how it failed through a pipe, then ends
with ``os._exit``.  Nothing is written: not the user's files (the edit lives only in the child's
memory), not the terminal (the child's stdout/stderr go to /dev/null), not pytest's reports (``log=False``).
What the mutants did re-ranks the suspects (:mod:`.mutation`); no candidate comes from here.

Skipped when ``os.fork`` is missing, when another thread runs (a fork copies only the calling thread,
so a lock held elsewhere could hang the child), for timeouts, subtests and xdist workers; bounded by a
budget in seconds and a per-mutant timeout (the child is killed with its process group).
"""

from __future__ import annotations

import ast
import copy
import json
import os
import re
import select
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..process import fork_isolated, kill_forked_child
from ..records import TestFailureRecord

PER_SUSPECT = 6  # likeliest mutants per suspect
SUSPECTS = 5
MAX_FAILURES = 3  # failures whose suspects get a pass (the first ones of the run)
# missing names and modules: no one-token mutant reaches them (the interpreter's hints do)
HINTED = frozenset({"NameError", "UnboundLocalError", "ImportError", "ModuleNotFoundError"})
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def usable() -> bool:
    return hasattr(os, "fork") and hasattr(os, "setpgid") and threading.active_count() == 1


def cheap_pass(record: TestFailureRecord, item: Any, workspace: str, budget_s: float) -> list[dict[str, Any]]:
    """Evidence dicts ``{file, qualname, tried, fixed, changed, score}`` for the record's top suspects."""
    from .mutation import MutantEvidence

    deadline = time.monotonic() + budget_s
    t0 = time.monotonic()
    base = _run_fork(item, [], min(budget_s, max(0.5, 5 * record.duration_ms / 1000.0)))  # within the budget too
    if base is None or base[0]:
        return []  # the failure does not reproduce in a fork: nothing to compare with
    base_message = base[1]
    run_s = time.monotonic() - t0  # what one fork of this test costs
    timeout = max(0.2, 4 * run_s)  # a mutant that loops is cut here
    evidence: list[MutantEvidence] = []
    root = Path(workspace)
    queues: list[tuple[MutantEvidence, Iterator[list[tuple[Any, Any]]]]] = []
    for suspect in record.suspects[:SUSPECTS]:
        if suspect.line_start <= 0 or not suspect.file_path.endswith(".py") or "<locals>" in suspect.qualname:
            continue
        path = Path(suspect.file_path) if os.path.isabs(suspect.file_path) else root / suspect.file_path
        focus = record.impl_line if record.impl_file and path.as_posix().endswith(record.impl_file) else 0
        queues.append((MutantEvidence(suspect.file_path, suspect.qualname), _plans(str(path), suspect.qualname, focus)))
    # round-robin: every suspect's likeliest mutant first, so a short budget still compares them all
    while queues and deadline - time.monotonic() >= run_s:
        ev, plans = queues.pop(0)
        plan = next(plans, None)
        if plan is None:
            continue
        queues.append((ev, plans))
        outcome = _run_fork(item, plan, min(timeout, max(run_s, deadline - time.monotonic())))
        if outcome is None:
            continue  # a timeout or a crash says nothing either way
        ev.tried += 1
        if outcome[0]:
            ev.fixed += 1
        elif outcome[1] != base_message:
            ev.changed += 1
        if ev not in evidence:
            evidence.append(ev)
    if any(ev.tried == 0 for ev, _plans in queues):
        # the budget ended before every suspect had a mutant: "changed" would favour the ones
        # reached first, so only what fixed the test counts
        evidence = [ev for ev in evidence if ev.fixed]
    return [ev.to_dict() for ev in evidence]


# --------------------------------------------------------------------------- mutants as code objects

_CMP_SWAP: dict[type, type] = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                               ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot,
                               ast.IsNot: ast.Is}
_BIN_SWAP: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
                               ast.Div: ast.Mult, ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd}
_Site = tuple[int, int, Callable[[], Callable[[], None]]]  # (priority, line, apply -> undo)


def _sites(fn: ast.AST) -> list[_Site]:
    """One-token mutations inside a function, as in-place AST changes (apply returns its undo)."""
    out: list[_Site] = []

    def setter(node: ast.AST, name: str, value: Any) -> Callable[[], Callable[[], None]]:
        def apply() -> Callable[[], None]:
            old = getattr(node, name)
            setattr(node, name, value)
            return lambda: setattr(node, name, old)
        return apply

    for node in ast.walk(fn):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP_SWAP:
            out.append((0, line, setter(node, "ops", [_CMP_SWAP[type(node.ops[0])]()])))
        elif isinstance(node, ast.BinOp) and type(node.op) in _BIN_SWAP:
            out.append((1, line, setter(node, "op", _BIN_SWAP[type(node.op)]())))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((0, line, setter(node, "operand", ast.UnaryOp(ast.Not(), node.operand))))  # `not x` -> `not not x`
        elif isinstance(node, ast.BoolOp):
            out.append((2, line, setter(node, "op", ast.Or() if isinstance(node.op, ast.And) else ast.And())))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            out.append((1, line, setter(node, "value", node.value + 1)))
            if node.value > 0:
                out.append((2, line, setter(node, "value", node.value - 1)))
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
            out.append((3, line, setter(node, "test", ast.UnaryOp(ast.Not(), node.test))))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            for i, arg in enumerate(node.args[:2]):
                if not isinstance(arg, ast.Constant):
                    for op in (ast.Add(), ast.Sub()):
                        args = list(node.args)
                        args[i] = ast.BinOp(arg, op, ast.Constant(1))
                        out.append((1, line, setter(node, "args", args)))
        elif isinstance(node, ast.Slice):
            for name in ("lower", "upper"):
                bound = getattr(node, name)
                if bound is not None and not isinstance(bound, ast.Constant):
                    for op in (ast.Add(), ast.Sub()):
                        out.append((1, line, setter(node, name, ast.BinOp(bound, op, ast.Constant(1)))))
        elif isinstance(node, ast.Return) and node.value is not None:
            out.append((4, line, setter(node, "value", ast.Constant(None))))
    return out


def _chain(tree: ast.Module, qualname: str) -> list[ast.AST] | None:
    """The class/def nodes from the module down to `qualname` (no nested functions)."""
    nodes: list[ast.AST] = []
    body: list[ast.stmt] = tree.body
    for part in qualname.split("."):
        found = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and n.name == part), None)
        if found is None:
            return None
        nodes.append(found)
        body = found.body
    return nodes if isinstance(nodes[-1], (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _plans(file: str, qualname: str, focus: int) -> Iterator[list[tuple[Any, Any]]]:
    """Patch plans (live function, mutated code) for the likeliest few mutants of one function."""
    from ..candidates.forkrun import _find_code, _live_functions

    try:
        tree = ast.parse(Path(file).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return
    chain = _chain(tree, qualname)
    if chain is None:
        return
    fn = chain[-1]
    assert isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
    first = min([d.lineno for d in fn.decorator_list] + [fn.lineno])
    live = _live_functions(file, fn.name, first)
    if not live:
        return
    # compile just the path to the function (its classes hold only it): cheap on a large module
    wrapped: ast.stmt = fn
    for outer in reversed(chain[:-1]):
        shell = copy.copy(outer)
        shell.body = [wrapped]  # type: ignore[attr-defined]
        wrapped = shell  # type: ignore[assignment]
    module = ast.Module(body=[wrapped], type_ignores=[])
    body_sites = [s for s in _sites(fn) if s[1] >= fn.body[0].lineno]
    body_sites.sort(key=lambda s: (s[1] != focus if focus else 0, s[0], s[1]))
    filename = live[0].__code__.co_filename
    for _prio, _line, apply in body_sites[:PER_SUSPECT]:
        undo = apply()
        try:
            code = compile(ast.fix_missing_locations(module), filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, TypeError, RecursionError):
            continue
        finally:
            undo()
        new = _find_code(code, fn.name, first, qualname)
        if new is None or any(f.__code__.co_freevars != new.co_freevars for f in live):
            continue
        yield [(f, new) for f in live]


def _run_fork(item: Any, plan: list[tuple[Any, Any]], timeout: float) -> tuple[bool, str] | None:
    """(passed, failure message) of the item in a fork with `plan` swapped in; None on timeout/crash."""
    def child(write_fd: int) -> None:
        for function, new in plan:
            function.__code__ = new
        os.write(write_fd, json.dumps(_run_item(item)).encode())

    pid, read_fd = fork_isolated(child)
    try:
        ready, _w, _x = select.select([read_fd], [], [], timeout)
        data = b""
        if ready:
            while chunk := os.read(read_fd, 65536):
                data += chunk
    finally:
        os.close(read_fd)
        kill_forked_child(pid)
    try:
        passed, message = json.loads(data.decode()) if data else (None, "")
    except ValueError:
        return None
    return None if passed is None else (bool(passed), str(message))


def _run_item(item: Any) -> list[Any]:
    from _pytest.runner import runtestprotocol

    from .pyreports import brief_failures, crash_message

    with brief_failures(item):
        reports = runtestprotocol(item, nextitem=None, log=False)
    if any(r.failed for r in reports):
        return [False, _ADDRESS.sub("0x", crash_message(reports))]
    return [bool(reports) and any(r.when == "call" for r in reports), ""]
