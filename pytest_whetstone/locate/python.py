"""Python localization: which implementation function is at fault for a failing test.

Signals, combined into one score per function (see :func:`rank_suspects`):

* traceback frames that fall in implementation code (the deepest weighs most);
* the functions the failing test executed (coverage on its re-run), weighted by a
  spectrum (Ochiai or DStar, :mod:`.sbfl`) when passing-test data exists: the whole suite's in
  ``sbfl`` mode, the failing module's tests for a value fault (:mod:`.pyspectra`);
* the functions the test body calls, resolved through its imports / live namespace;
* the naming convention (``test_foo.py`` <-> ``foo.py``, ``test_bar`` <-> ``bar``).

Function spans come from the stdlib ``ast`` module, not libcst: on a 1,800-line module
libcst's parse plus PositionProvider took ~0.9 s against ~25 ms for ``ast``, which would
break the 50 ms per-failure budget; we only need spans and qualified names here, which
``ast`` gives exactly (``lineno``/``end_lineno``).  Edits (which must keep formatting) use libcst
elsewhere.
"""

from __future__ import annotations

import ast
import functools
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from .. import paths
from ..records import Suspect, TestFailureRecord
from .pysource import FuncSpan, count_innermost, source_file
from .sbfl import ochiai, suspiciousness

__all__ = ["Evidence", "ochiai", "rank_suspects"]

MODULE_QUALNAME = "<module>"

# Weights of the signals; tuned on bench/bench_localize.py (see bench/results/localize.md).
W_TRACE = 0.50
W_COVER = 0.30
W_CALLED = 0.15
W_NAME = 0.10
W_ASSERTED = 0.15  # a value fault: the functions whose value the failing assertion checks
TRACE_DECAY = 0.5
# A value fault's spectrum over its module's tests: DStar at 0.5 ranked best of Ochiai / DStar at
# 0.15-0.8 on bench/bench_localize.py --kinds value (bench/results/localize_value.md)
W_SPECTRUM = 0.50
SPECTRUM_FORMULA = "dstar"


@dataclass
class FunctionIndex:
    """Every function and class of a whole file (see :mod:`.pysource` for the per-block path)."""

    path: str
    functions: list[FuncSpan] = field(default_factory=list)
    nodes: dict[str, ast.AST] = field(default_factory=dict)
    _names: dict[str, set[str]] | None = None

    @property
    def names(self) -> dict[str, set[str]]:
        """Names referenced per function qualname (for "which function uses this name")."""
        if self._names is None:
            self._names = {q: referenced_names(n) for q, n in self.nodes.items() if not isinstance(n, ast.ClassDef)}
        return self._names

    def enclosing(self, line: int) -> FuncSpan | None:
        """The innermost function (not class) whose span holds ``line``."""
        best: FuncSpan | None = None
        for fn in self.functions:
            if fn.is_class or not fn.line_start <= line <= fn.line_end:
                continue
            if best is None or fn.line_start >= best.line_start:
                best = fn
        return best

    def by_qualname(self, qualname: str) -> FuncSpan | None:
        for fn in self.functions:
            if fn.qualname == qualname:
                return fn
        return None

    def functions_in_lines(self, lines: Iterable[int]) -> dict[str, int]:
        """qualname -> how many of ``lines`` fall in it (innermost function only)."""
        return count_innermost(self.functions, lines, {})


def referenced_names(node: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
    return out


def module_ast(path: str | os.PathLike[str]) -> ast.Module | None:
    """The whole parsed module (cached by mtime and size); None when unreadable or not Python."""
    src = source_file(path)
    block = src.whole() if src is not None else None
    return block.tree if block is not None else None


def function_index(path: str | os.PathLike[str]) -> FunctionIndex | None:
    """Functions of a whole Python file (cached by mtime and size); None when unreadable."""
    src = source_file(path)
    block = src.whole() if src is not None else None
    if block is None:
        return None
    return FunctionIndex(os.fspath(path), block.functions, block.nodes)


def enclosing_function(path: str, line: int) -> FuncSpan | None:
    """Innermost function holding ``line``; parses only the top-level block around it."""
    src = source_file(path)
    return src.enclosing(line) if src is not None else None


def statement_at(path: str, line: int) -> ast.stmt | None:
    """The innermost statement of ``path`` that spans ``line`` (parsing only its block)."""
    src = source_file(path)
    return src.statement(line) if src is not None else None


# --------------------------------------------------------------------------- what is "implementation"

_EXCLUDED: list[tuple[str, ...]] = []


def _excluded_roots() -> tuple[str, ...]:
    """stdlib and site-packages roots (computed on first use: sysconfig costs a few ms to import)."""
    if not _EXCLUDED:
        import sysconfig

        _EXCLUDED.append(
            tuple(
                sorted(
                    {
                        os.path.realpath(p) + os.sep
                        for key in ("stdlib", "platstdlib", "purelib", "platlib")
                        if (p := sysconfig.get_paths().get(key))
                    }
                    | {os.path.realpath(p) + os.sep for p in sys.path if "site-packages" in p or "dist-packages" in p}
                )
            )
        )
    return _EXCLUDED[0]


# Whetstone's own package (it runs inside the test process: never a suspect).
_OWN_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep


def is_test_file(path: str) -> bool:
    """Test modules and their helpers (conftest, files under a tests/ directory)."""
    base = os.path.basename(path)
    if base == "conftest.py" or base.startswith("test_") or base.endswith(("_test.py", "_tests.py")):
        return True
    parts = set(Path(path).parts[:-1])
    return bool(parts & {"tests", "test", "testing"})


_IMPL_CACHE: dict[tuple[str, str | None], bool] = {}


def is_impl_file(path: str, workspace: str | None = None) -> bool:
    """Implementation code: a real .py file of the project, not a test, not stdlib or site-packages."""
    key = (path, workspace)
    cached = _IMPL_CACHE.get(key)
    if cached is None:
        cached = _IMPL_CACHE[key] = _is_impl_file(path, workspace)
    return cached


def _is_impl_file(path: str, workspace: str | None) -> bool:
    if not path or path.startswith("<") or not path.endswith(".py"):
        return False
    real = real_path(path)
    if "site-packages" in real or "dist-packages" in real or real.startswith(_OWN_PACKAGE):
        return False
    if workspace is not None:
        ws = real_path(workspace) + os.sep
        if not real.startswith(ws):
            return False
        rel = real[len(ws):]
        if is_test_file(rel):
            return False
        return True
    if any(real.startswith(root) for root in _excluded_roots()):
        return False
    return not is_test_file(real)


# A run resolves the same few files again and again (every frame of every failure): once each.
real_path = functools.lru_cache(maxsize=4096)(os.path.realpath)


@functools.lru_cache(maxsize=4096)
def relpath(path: str, workspace: str | None) -> str:
    if not workspace:
        return path
    rel = paths.relative_posix(path, workspace)
    return path if os.path.isabs(rel) else rel


# --------------------------------------------------------------------------- what the test calls


def called_functions(
    test_file: str, test_line: int, namespace: Mapping[str, Any] | None, workspace: str | None
) -> list[tuple[str, str]]:
    """(file, qualname) of implementation functions the test body calls, in call order.

    Names are resolved through the live namespace of the test module when given (the
    imports as they actually bound), else through the module's own import statements.
    """
    src = source_file(test_file)
    body = src.function_node(test_line) if src is not None else None
    if body is None:
        return []
    if namespace is not None:
        ns: Mapping[str, Any] = namespace
    else:
        tree = module_ast(test_file)
        ns = _static_namespace(tree) if tree is not None else {}
    out: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for node in ast.walk(body):
        if not isinstance(node, ast.Call):
            continue
        for target in _resolve(node.func, ns):
            if target not in seen and is_impl_file(target[0], workspace):
                seen.add(target)
                out.append(target)
    return out


def asserted_functions(
    test_file: str, test_line: int, fail_line: int, namespace: Mapping[str, Any] | None, workspace: str | None
) -> list[tuple[str, str]]:
    """(file, qualname) of the functions whose value the failing statement checks: those it calls
    itself (``assert f(x) == 3``), then those called where the names it reads were last assigned
    before it in the same function (``y = f(x)`` ... ``assert y == 3``), one step back."""
    src = source_file(test_file)
    stmt = src.statement(fail_line) if src is not None and fail_line else None
    body = (src.function_node(fail_line) or src.function_node(test_line)) if src is not None else None
    if stmt is None or body is None:
        return []
    reads = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    last: dict[str, ast.stmt] = {}
    for node in ast.walk(body):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.lineno < stmt.lineno:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for name in (n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                if name in reads and (name not in last or last[name].lineno < node.lineno):
                    last[name] = node
    ns = namespace if namespace is not None else _static_namespace(module_ast(test_file) or ast.Module([], []))
    out: list[tuple[str, str]] = []
    for node in [stmt, *sorted(last.values(), key=lambda n: -n.lineno)]:
        for call in ast.walk(node):
            if isinstance(call, ast.Call):
                for target in _resolve(call.func, ns):
                    if target not in out and is_impl_file(target[0], workspace):
                        out.append(target)
    return out


def _resolve(expr: ast.expr, ns: Mapping[str, Any]) -> list[tuple[str, str]]:
    chain: list[str] = []
    while isinstance(expr, ast.Attribute):
        chain.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return []
    chain.append(expr.id)
    chain.reverse()
    obj: Any = ns.get(chain[0], _MISSING)
    for attr in chain[1:]:
        if obj is _MISSING:
            break
        try:
            obj = getattr(obj, attr, _MISSING)
        except Exception:  # a property that raises: not resolvable statically
            obj = _MISSING
    if obj is _MISSING:
        return []
    return _targets_of(obj)


_MISSING = object()


def _targets_of(obj: Any) -> list[tuple[str, str]]:
    if isinstance(obj, _StaticRef):
        return [(obj.file, obj.qualname)]
    if isinstance(obj, type):
        out = []
        for name in ("__init__", "__new__", "__call__", "__post_init__"):
            member = obj.__dict__.get(name)
            if member is not None:
                out.extend(_targets_of(member))
        return out
    func = getattr(obj, "__func__", obj)  # bound methods
    func = getattr(func, "__wrapped__", func)  # functools.wraps decorators
    code = getattr(func, "__code__", None)
    if code is None:
        return []
    return [(code.co_filename, getattr(code, "co_qualname", getattr(func, "__qualname__", code.co_name)))]


class _StaticRef(NamedTuple):
    file: str
    qualname: str


class _StaticModule:
    """Stands for a module found by path when no live namespace is available."""

    def __init__(self, file: str) -> None:
        self.file = file

    def __getattr__(self, name: str) -> Any:
        src = source_file(self.file)
        found = src.node_of(name) if src is not None else None
        if found is None:
            raise AttributeError(name)
        return _StaticRef(self.file, found[0].qualname)


def _static_namespace(tree: ast.Module) -> dict[str, Any]:
    import importlib.util

    ns: dict[str, Any] = {}

    def find(module: str) -> str | None:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            return None
        return spec.origin if spec and spec.origin and spec.origin.endswith(".py") else None

    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            origin = find(node.module)
            for alias in node.names:
                sub = find(f"{node.module}.{alias.name}")
                if sub:
                    ns[alias.asname or alias.name] = _StaticModule(sub)
                elif origin:
                    target = getattr(_StaticModule(origin), alias.name, None)
                    if target is not None:
                        ns[alias.asname or alias.name] = target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                origin = find(alias.name)
                if origin and alias.asname:
                    ns[alias.asname] = _StaticModule(origin)
    return ns


# --------------------------------------------------------------------------- ranking


@dataclass
class Evidence:
    """Everything known about one failing test, for ranking."""

    test_file: str
    test_line: int
    test_name: str
    # (file, line) of traceback frames, shallowest first (as pytest prints them)
    frames: list[tuple[str, int]] = field(default_factory=list)
    # file -> executed lines of the failing test (re-run coverage), when measured
    covered_lines: dict[str, set[int]] | None = None
    # (file, qualname) -> (failed, passed) counts from a spectrum, when one exists
    spectrum: dict[tuple[str, str], tuple[int, int]] | None = None
    total_failed: int = 1
    # "suite" (sbfl mode: every test traced) or "module" (a value fault: its module's tests, pyspectra)
    spectrum_scope: str = "suite"
    total_passed: int = 0  # passing tests in the spectrum (for the evidence note)
    spectrum_remark: str = ""  # e.g. that the budget cut the pass short
    # (file, qualname) the test body calls
    called: list[tuple[str, str]] = field(default_factory=list)
    # (file, qualname) whose value the failing statement checks (a value fault; asserted_functions)
    asserted: list[tuple[str, str]] = field(default_factory=list)
    # names referenced by an exception (NameError 'x' / ImportError) - hints for removed imports
    missing_name: str = ""


def evidence_dict(ev: Evidence) -> dict[str, Any]:
    """``ev`` as plain JSON data (sets sorted, spectrum keys as lists), and back with :func:`evidence_from`:
    what ``$WHETSTONE_LOCATE_LOG`` records so the benches can re-rank with other weights."""
    data = dict(ev.__dict__)
    data["covered_lines"] = {f: sorted(v) for f, v in ev.covered_lines.items()} if ev.covered_lines else None
    data["spectrum"] = [[f, q, a, b] for (f, q), (a, b) in ev.spectrum.items()] if ev.spectrum else None
    return data


def evidence_from(data: Mapping[str, Any]) -> Evidence:
    ev = Evidence(**{k: v for k, v in data.items() if k in Evidence.__dataclass_fields__})
    ev.frames = [(str(f), int(n)) for f, n in ev.frames]
    ev.called = [(str(f), str(q)) for f, q in ev.called]
    ev.asserted = [(str(f), str(q)) for f, q in ev.asserted]
    ev.covered_lines = {f: set(v) for f, v in ev.covered_lines.items()} if ev.covered_lines else None
    ev.spectrum = {(f, q): (a, b) for f, q, a, b in data["spectrum"]} if data.get("spectrum") else None
    return ev


def log_evidence(ev: Evidence, failure_id: str) -> None:
    """Append ``ev`` to ``$WHETSTONE_LOCATE_LOG`` (one JSON line) when that is set."""
    target = os.environ.get("WHETSTONE_LOCATE_LOG", "")
    if target:
        import json

        with open(target, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"failure_id": failure_id, "evidence": evidence_dict(ev)}) + "\n")


def rank_suspects(ev: Evidence, workspace: str | None, max_n: int = 5) -> list[Suspect]:
    scores: dict[tuple[str, str], float] = {}

    def add(key: tuple[str, str], value: float) -> None:
        scores[key] = scores.get(key, 0.0) + value

    # 1. traceback frames in implementation code, deepest first
    impl_frames = [(f, ln) for f, ln in ev.frames if is_impl_file(f, workspace)]
    for depth, (file, line) in enumerate(reversed(impl_frames)):
        fn = enclosing_function(file, line)
        add((file, fn.qualname if fn else MODULE_QUALNAME), W_TRACE * (TRACE_DECAY**depth))

    # 2. coverage of the failing test, weighted by the spectrum where it exists
    covered: dict[tuple[str, str], int] = {}
    if ev.covered_lines:
        for file, lines in ev.covered_lines.items():
            if not is_impl_file(file, workspace):
                continue
            src = source_file(file)
            if src is None:
                continue
            for qual, count in src.functions_in_lines(lines).items():
                covered[(file, qual)] = count
    notes: dict[tuple[str, str], str] = {}
    if ev.spectrum:
        module = ev.spectrum_scope == "module"
        formula = SPECTRUM_FORMULA if module else "ochiai"
        for key, (failed, passed) in ev.spectrum.items():
            if failed and is_impl_file(key[0], workspace):
                value = suspiciousness(formula, failed, passed, ev.total_failed)
                add(key, (W_SPECTRUM if module else W_COVER) * value)
                if module:
                    notes[key] = (f"{formula} {value:.2f} over {ev.total_failed} failing / {ev.total_passed} passing "
                                  f"tests (run by {failed} / {passed}){ev.spectrum_remark}")
    elif covered:
        # No passing data: every executed function is equally covered; prefer smaller
        # call sets slightly (a function executed by the test at all is the evidence).
        for key in covered:
            add(key, W_COVER * 0.5)

    # 3. what the test body calls (direct callees first)
    for rank, key in enumerate(ev.called):
        if is_impl_file(key[0], workspace):
            add(key, W_CALLED * (0.85**rank))

    for rank, key in enumerate(ev.asserted):
        add(key, W_ASSERTED * (0.85**rank))

    # 4. naming convention as a tie-breaker
    test_stem = _strip_test(Path(ev.test_file).stem)
    test_words = _strip_test(ev.test_name.split("[", 1)[0])
    for key in list(scores):
        file, qual = key
        bonus = 0.0
        if test_stem and Path(file).stem == test_stem:
            bonus += 0.4
        leaf = qual.rsplit(".", 1)[-1]
        if leaf and leaf != MODULE_QUALNAME and leaf.lower().strip("_") in test_words.lower():
            bonus += 0.6
        add(key, W_NAME * bonus)

    # a missing name (removed import): functions that reference it
    if ev.missing_name:
        for key in list(scores):
            src = source_file(key[0])
            found = src.node_of(key[1]) if src is not None else None
            if found is not None and ev.missing_name in referenced_names(found[1]):
                add(key, 0.05)

    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    out: list[Suspect] = []
    for (file, qual), score in ranked[: max(0, max_n)]:
        src = source_file(file)
        found = src.node_of(qual) if src is not None and qual != MODULE_QUALNAME else None
        span = found[0] if found else None
        out.append(
            Suspect(
                file_path=relpath(file, workspace),
                qualname=qual,
                line_start=span.line_start if span else 0,
                line_end=span.line_end if span else 0,
                score=round(score, 4),
                evidence=notes.get((file, qual), ""),
            )
        )
    return out


def _strip_test(name: str) -> str:
    for prefix in ("test_", "tests_", "Test"):
        if name.startswith(prefix):
            name = name[len(prefix):]
    for suffix in ("_test", "_tests"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def ast_node_id(suspect: Suspect | None) -> str | None:
    return f"{suspect.file_path}::{suspect.qualname}" if suspect else None


def locate_python_failure(failure: TestFailureRecord, workspace: Path) -> None:
    """Static suspects for a failure read from a text log (no re-run): from the implementation frame."""
    impl = Path(failure.impl_file)
    impl = impl if impl.is_absolute() else workspace / impl
    if not impl.is_file():
        return
    evidence = Evidence(
        test_file=str(workspace / failure.file_path) if failure.file_path else "",
        test_line=failure.line,
        test_name=failure.test_name,
        frames=[(str(impl), failure.impl_line)],
    )
    failure.suspects = rank_suspects(evidence, str(workspace))
    if failure.suspects and not failure.ast_node_id:
        failure.ast_node_id = ast_node_id(failure.suspects[0])
