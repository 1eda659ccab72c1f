"""Fix candidates for test failures (Python first; other runners get the rules).

1. The interpreter's own hints: NameError / AttributeError / ImportError with
   a near name in scope ("Did you mean") -> rename through libcst; a NameError
   for a module, a well-known stdlib name or a project symbol -> addImport.
2. Seed 001 rules per failure_type, at the top suspect.
3. (search.py) validated small edits, when the caller gives a budget.
Every candidate has ``target_id`` = the failure's id; each failure gets one
manual fallback.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths
from ..locate.pysource import SourceFile, source_file
from ..records import FixCandidate, Suspect, TestFailureRecord
from . import pyimports, pyscan
from .common import SharedWork, edit_for, manual_for, per_failure
from .distance import levenshtein

if TYPE_CHECKING:
    from ..config import Config

_NAME_ERROR = re.compile(r"(?:NameError|UnboundLocalError)?:?\s*(?:name|local variable) '(\w+)' is not defined|cannot access (?:local|free) variable '(\w+)'")
_ATTR_ERROR = re.compile(r"(?:module '([\w.]+)'|'(\w+)' object|type object '(\w+)') has no attribute '(\w+)'")
_IMPORT_ERROR = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
_DID_YOU_MEAN = re.compile(r"Did you mean:? '?([\w.]+)'?\??")
_HINT_PATTERNS = (_NAME_ERROR, _ATTR_ERROR, _IMPORT_ERROR, _DID_YOU_MEAN)

# NameError names that almost always mean a missing import: name -> (module, name or None).
WELL_KNOWN: dict[str, tuple[str, str | None]] = {
    "Path": ("pathlib", "Path"),
    "PurePath": ("pathlib", "PurePath"),
    "defaultdict": ("collections", "defaultdict"),
    "OrderedDict": ("collections", "OrderedDict"),
    "Counter": ("collections", "Counter"),
    "deque": ("collections", "deque"),
    "namedtuple": ("collections", "namedtuple"),
    "dataclass": ("dataclasses", "dataclass"),
    "field": ("dataclasses", "field"),
    "partial": ("functools", "partial"),
    "reduce": ("functools", "reduce"),
    "lru_cache": ("functools", "lru_cache"),
    "wraps": ("functools", "wraps"),
    "chain": ("itertools", "chain"),
    "islice": ("itertools", "islice"),
    "datetime": ("datetime", "datetime"),
    "timedelta": ("datetime", "timedelta"),
    "date": ("datetime", "date"),
    "Decimal": ("decimal", "Decimal"),
    "Fraction": ("fractions", "Fraction"),
    "Enum": ("enum", "Enum"),
    "Any": ("typing", "Any"),
    "Optional": ("typing", "Optional"),
    "Callable": ("typing", "Callable"),
    "Iterable": ("typing", "Iterable"),
    "Iterator": ("typing", "Iterator"),
    "sqrt": ("math", "sqrt"),
    "pi": ("math", "pi"),
    "floor": ("math", "floor"),
    "ceil": ("math", "ceil"),
    "randint": ("random", "randint"),
    "choice": ("random", "choice"),
    "sleep": ("time", "sleep"),
    "pprint": ("pprint", "pprint"),
    "deepcopy": ("copy", "deepcopy"),
    "contextmanager": ("contextlib", "contextmanager"),
    "suppress": ("contextlib", "suppress"),
    "StringIO": ("io", "StringIO"),
    "BytesIO": ("io", "BytesIO"),
    "np": ("numpy", None),
    "pd": ("pandas", None),
}
_STDLIB = pyimports.STDLIB




def _rel(path: Path, workspace: Path) -> str:
    return paths.relative_posix(path, workspace)


def _where(failure: TestFailureRecord, workspace: Path) -> tuple[Path, str, int] | None:
    """The implementation frame (else the test's own location) as (path, rel, line)."""
    for file_path, line in ((failure.impl_file, failure.impl_line), (failure.file_path, failure.line)):
        if file_path and line > 0 and file_path.endswith(".py"):
            path = Path(file_path)
            path = path if path.is_absolute() else workspace / path
            if path.is_file():
                return path, _rel(path, workspace), line
    return None


def _texts(failure: TestFailureRecord) -> str:
    return "\n".join(t for t in (failure.message, failure.raw) if t)


# --------------------------------------------------------------------------- hints


_SHARED = SharedWork()  # per generation (generate_test_candidates): failures with the same facts


def interpreter_hints(failure: TestFailureRecord, workspace: Path) -> list[FixCandidate]:
    where = _where(failure, workspace)
    if where is None:
        return []
    text = _texts(failure)
    # all this generator reads of the failure: where it failed and what the interpreter said
    facts = tuple(m.groups() if m else None for m in (p.search(text) for p in _HINT_PATTERNS))
    return _SHARED.get(("hints", where, facts), failure, lambda: _hints(failure, workspace, where, text))


def _hints(failure: TestFailureRecord, workspace: Path, where: tuple[Path, str, int], text: str) -> list[FixCandidate]:
    path, rel, line = where
    src = source_file(path)
    if src is None:
        return []
    hinted = _DID_YOU_MEAN.search(text)
    out: list[FixCandidate] = []
    match = _NAME_ERROR.search(text)
    if match:
        name = match.group(1) or match.group(2)
        out.extend(_name_error(failure, workspace, path, rel, line, src, name, hinted.group(1) if hinted else ""))
    match = _ATTR_ERROR.search(text)
    if match and not out:
        owner = match.group(1) or match.group(2) or match.group(3)
        attr = match.group(4)
        suggestion = hinted.group(1) if hinted else _attr_suggestion(match.group(1), attr)
        if suggestion:
            edits = pyscan.name_edits(src, rel, attr, suggestion, line, "attr")
            if edits:
                out.append(
                    edit_for(
                        failure,
                        f"rename attribute {attr!r} to {suggestion!r} at {rel}:{line} ({owner} has no {attr!r})",
                        edits,
                        mutation_type="rename",
                        confidence=0.75,
                        source="interpreter-hint",
                        old=attr,
                        new=suggestion,
                    )
                )
        elif match.group(1):
            out.extend(_missing_export(failure, workspace, path, match.group(1), attr))
    match = _IMPORT_ERROR.search(text)
    if match:
        name, module = match.group(1), match.group(2)
        suggestion = hinted.group(1) if hinted else _module_attr_suggestion(module, name)
        if suggestion:
            edits = pyscan.name_edits(src, rel, name, suggestion, line, "import")
            if edits:
                out.append(
                    edit_for(
                        failure,
                        f"import {suggestion!r} from {module} instead of the missing {name!r} ({rel}:{line})",
                        edits,
                        mutation_type="rename",
                        confidence=0.75,
                        source="interpreter-hint",
                        old=name,
                        new=suggestion,
                    )
                )
    return out


def _name_error(
    failure: TestFailureRecord,
    workspace: Path,
    path: Path,
    rel: str,
    line: int,
    src: SourceFile,
    name: str,
    hint: str,
) -> list[FixCandidate]:
    out: list[FixCandidate] = []
    visible = pyscan.visible_names(src, line)
    suggestion = hint or _closest(name, visible)
    if suggestion and suggestion != name:
        edits = pyscan.name_edits(src, rel, name, suggestion, line, "name")
        if edits:
            distance = levenshtein(name, suggestion, 4)
            out.append(
                edit_for(
                    failure,
                    f"rename {name!r} to {suggestion!r} at {rel}:{line} (name not defined; {suggestion!r} is)",
                    edits,
                    mutation_type="rename",
                    confidence=(0.8 if hint else 0.7) - 0.1 * max(distance - 1, 0),
                    source="interpreter-hint",
                    old=name,
                    new=suggestion,
                )
            )
    if name in visible:
        return out  # bound somewhere in scope (e.g. later in the function): an import is not the fix
    # an existing `from M import ...` list, the project's own way of importing it, `import name`
    fixes = pyimports.import_fixes(name, path, rel, workspace)
    target: tuple[str, str | None] | None = None
    confidence = 0.0
    if not fixes:
        if name in WELL_KNOWN:
            target, confidence = WELL_KNOWN[name], 0.75
        else:
            project = pyimports.project_definer(workspace, name, exclude=path)
            if project:
                target, confidence = (project, name), 0.6
    if target is not None:
        edit = pyimports.statement_edit(path, rel, target[0], target[1], workspace)
        if edit is not None:
            stmt = f"import {target[0]}" if target[1] is None else f"from {target[0]} import {target[1]}"
            fixes.append(pyimports.ImportFix(f"add `{stmt}` to {rel} ({name!r} is not defined)", confidence, [edit], target[0], target[1]))
    for fix in fixes:
        out.append(
            edit_for(
                failure,
                fix.description,
                fix.edits,
                mutation_type="addImport",
                confidence=fix.confidence,
                source="interpreter-hint",
                module=fix.module,
                name=fix.name,
            )
        )
    return out


def _missing_export(failure: TestFailureRecord, workspace: Path, importer: Path, module: str, attr: str) -> list[FixCandidate]:
    """``module 'pkg.sub' has no attribute 'x'`` for a project module that neither defines nor
    imports ``x``: import it there (a re-export dropped from an import list is the usual cause)."""
    target = pyimports.module_file(module, 0, importer, workspace)
    if target is None or pyimports.module_defines(target, attr):
        return []
    rel = _rel(target, workspace)
    return [
        edit_for(failure, f"{fix.description} (module {module!r} has no {attr!r})", fix.edits,
              mutation_type="addImport", confidence=round(0.9 * fix.confidence, 3), source="interpreter-hint", module=fix.module, name=fix.name)
        for fix in pyimports.import_fixes(attr, target, rel, workspace)
    ]


def _closest(name: str, pool: set[str]) -> str:
    """The nearest name within a third of the length (at least one edit: `sq` -> `seq`)."""
    best, best_d = "", max(2, len(name) // 3 + 1)
    for other in sorted(pool):
        if other == name or other.startswith("__"):
            continue
        d = levenshtein(name, other, best_d)
        if d < best_d:
            best, best_d = other, d
    return best


def _attr_suggestion(module: str | None, attr: str) -> str:
    if module:
        return _module_attr_suggestion(module, attr)
    return ""


def _module_attr_suggestion(module: str, name: str) -> str:
    """For stdlib modules only: importing the user's modules here could run their code."""
    if module.split(".")[0] not in _STDLIB:
        return ""
    try:
        mod = __import__(module, fromlist=["_"])
    except Exception:  # noqa: BLE001
        return ""
    return _closest(name, {n for n in dir(mod) if not n.startswith("_")})


# --------------------------------------------------------------------------- rules


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL


_NOT_LITERAL = object()


def value_correction(failure: TestFailureRecord, workspace: Path) -> list[FixCandidate]:
    """A literal in the top suspect equal to the actual value -> the expected value.

    Only the suspect's own top-level block is parsed (``ast``), never the whole module.
    """
    if not failure.suspects or not failure.expected_value or not failure.actual_value:
        return []
    expected, actual = _literal(failure.expected_value), _literal(failure.actual_value)
    if expected is _NOT_LITERAL or actual is _NOT_LITERAL or type(expected) is not type(actual):
        return []
    top = failure.suspects[0]
    if not top.file_path.endswith(".py") or top.line_start <= 0:
        return []
    key = ("value", top.file_path, top.qualname, top.line_start, top.line_end, failure.expected_value,
           failure.actual_value)
    return _SHARED.get(key, failure, lambda: _value_correction(failure, workspace, top, expected, actual))


def _value_correction(failure: TestFailureRecord, workspace: Path, top: Suspect, expected: object,
                      actual: object) -> list[FixCandidate]:
    path = Path(top.file_path)
    path = path if path.is_absolute() else workspace / path
    src = source_file(path)
    if src is None:
        return []
    rel = _rel(path, workspace)
    hits = pyscan.literal_edits(src, rel, top.line_start, max(top.line_start, top.line_end), actual, repr(expected))
    if len(hits) != 1:
        return []
    return [
        edit_for(
            failure,
            f"change the value {failure.actual_value} to {failure.expected_value} in {top.qualname} ({rel}:{hits[0].start.line})",
            hits,
            mutation_type="replaceNode",
            confidence=0.55,
            source="heuristic",
            kind="value-correction",
        )
    ]


def rule_candidates(failure: TestFailureRecord, workspace: Path) -> list[FixCandidate]:
    kind = failure.failure_type
    top = failure.suspects[0] if failure.suspects else None
    at = f"{top.qualname} ({top.file_path}:{top.line_start})" if top else (failure.file_path or failure.test_name)
    out: list[FixCandidate] = []
    if kind == "assertion":
        out.extend(value_correction(failure, workspace))
        gap = ""
        if failure.expected_value or failure.actual_value:
            gap = f": expected {failure.expected_value[:80]}, got {failure.actual_value[:80]}"
        out.append(
            manual_for(
                failure,
                f"correct the value or logic in {at}{gap}",
                confidence=0.5 if top else 0.4,
                kind="logic-change",
                suspect=top.to_dict() if top else None,
            )
        )
    elif kind == "exception":
        exc = failure.exception_type or "the exception"
        line = f"{failure.impl_file}:{failure.impl_line}" if failure.impl_file else at
        out.append(
            manual_for(
                failure,
                f"add a guard or precondition for {exc} at {line} (check the inputs that reach it)",
                confidence=0.3,
                kind="guard",
                exception=failure.exception_type,
            )
        )
    elif kind == "timeout":
        out.append(
            manual_for(
                failure,
                f"the test timed out: look for a loop that never ends, a blocking call or a slow algorithm in {at}",
                confidence=0.2,
                kind="timeout",
            )
        )
    elif kind == "wrong_output":
        out.append(
            manual_for(
                failure,
                f"output differs from the snapshot/golden file: fix {at} or, if the new output is right, regenerate the snapshot",
                confidence=0.2,
                kind="snapshot",
            )
        )
    elif kind == "missing_output":
        out.append(
            manual_for(
                failure,
                f"expected output was not produced: check the output path and that {at} writes it",
                confidence=0.2,
                kind="output-path",
            )
        )
    elif kind == "infra":
        out.append(
            manual_for(
                failure,
                f"test setup failed: fix the fixture/setup or environment of {failure.test_name or failure.node_id}",
                confidence=0.2,
                kind="fixture-setup",
            )
        )
    return out


def manual(failure: TestFailureRecord) -> FixCandidate:
    name = failure.node_id or f"{failure.test_suite}::{failure.test_name}"
    return manual_for(
        failure,
        f"investigate {name} by hand: {failure.message[:200]}",
        confidence=0.1,
        kind="manual",
    )


def generate_test_candidates(
    failures: list[TestFailureRecord], workspace: Path, config: Config | None = None, deadline: float | None = None,
) -> list[FixCandidate]:
    """Ranked candidates for test failures: hints, rules, one manual fallback each (past ``deadline``,
    ``time.monotonic()``, the fallback alone: see ``common.per_failure``)."""
    pyimports.reset_project_scan()  # one project scan per generation, shared by its failures
    with _SHARED.generation():
        return per_failure(failures, Path(workspace), (interpreter_hints, rule_candidates), manual, deadline)
