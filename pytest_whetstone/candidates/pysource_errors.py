"""Candidates for an error in the code under test that stops its import (collection errors):
``SyntaxError``/``IndentationError``, and ``NameError``/``ImportError`` raised at import time.

Takes a :class:`TestFailureRecord` whose ``file_path``/``line`` (or ``impl_file``/``impl_line``) point at
the source file and line.  Never returns nothing for such a record:

* a syntax error: Python's own hint first (``expected ':'``, ``'(' was never closed``, ``Did you mean``),
  then small repairs at the reported line (a missing colon or closing bracket, a misspelled keyword,
  the indentation of the line before, a stray character at the column, a line dropped) -- each one
  kept only when the whole file then compiles (``compile()``, nothing executed);
* a missing name or module: the interpreter's hints (``candidates.python_tests.interpreter_hints``:
  the closest defined name, a restored import);
* otherwise, one manual candidate at the file and line.
"""

from __future__ import annotations

import difflib
import keyword
import re
from pathlib import Path

from .. import paths
from ..records import FixCandidate, Position, TestFailureRecord, TextEdit

SYNTAX = frozenset({"SyntaxError", "IndentationError", "TabError"})
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_NEVER_CLOSED = re.compile(r"'([(\[{])' was never closed")
_DID_YOU_MEAN = re.compile(r"[Dd]id you mean '?([^'?]+)'?\?")
MAX_REPAIRS = 4


def source_error_candidates(record: TestFailureRecord, workspace: Path, column: int = 0) -> list[FixCandidate]:
    """Candidates for the import-stopping error at the record's source file and line (``column``: the
    SyntaxError's offset when known)."""
    workspace = Path(workspace)
    where = _where(record, workspace)
    if where is None:
        return []
    path, rel, line = where
    out: list[FixCandidate] = []
    if record.exception_type in SYNTAX or "SyntaxError" in record.message:
        out = syntax_repairs(record, path, rel, line, column)
    else:
        from .python_tests import interpreter_hints

        out = interpreter_hints(record, workspace)
    if not out:
        out.append(FixCandidate.manual(
            record.failure_id,
            f"fix the {record.exception_type or 'error'} at {rel}:{line} that stops the import "
            f"({_first_line(record.message)})",
            confidence=0.1,
        ))
    return out


def syntax_repairs(record: TestFailureRecord, path: Path, rel: str, line: int, column: int = 0) -> list[FixCandidate]:
    """One-line repairs at ``line`` that make the file compile, Python's own hint first."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return []
    out: list[FixCandidate] = []
    seen: set[str] = set()
    for new_line, why, confidence in _line_repairs(lines, line, record.message, column):
        if new_line in seen or new_line == lines[line - 1]:
            continue
        seen.add(new_line)
        candidate = lines[: line - 1] + [new_line] + lines[line:]
        if not _compiles("\n".join(candidate), str(path)):
            continue
        old = lines[line - 1]
        edit = TextEdit(rel, Position(line, 1), Position(line, len(old) + 1), new_line)
        out.append(FixCandidate(
            target_id=record.failure_id,
            description=f"{why} at {rel}:{line} (the file then compiles)",
            confidence=confidence, mutation_type="replaceNode",
            mutation={"kind": "syntax", "checked": "compile()"}, edits=[edit], source="interpreter-hint",
        ).ensure_id())
        if len(out) >= MAX_REPAIRS:
            break
    return out


def _line_repairs(lines: list[str], line: int, message: str, column: int) -> list[tuple[str, str, float]]:
    old = lines[line - 1]
    body = old.rstrip()
    stripped = body.lstrip()
    indent = old[: len(old) - len(old.lstrip())]
    out: list[tuple[str, str, float]] = []
    # Python's own hints
    if "expected ':'" in message:
        out.append((body + ":", "add the missing ':'", 0.8))
    never = _NEVER_CLOSED.search(message)
    if never:
        out.append((body + _CLOSERS[never.group(1)], f"close the '{never.group(1)}'", 0.75))
    hinted = _DID_YOU_MEAN.search(message)
    if hinted:
        words = re.findall(r"[A-Za-z_]\w*", stripped)
        if words:
            out.append((old.replace(words[0], hinted.group(1).strip(), 1), f"write {hinted.group(1).strip()!r}", 0.75))
    # generic repairs, checked by compile() like the hints
    out.append((body + ":", "add a ':' at the end of the line", 0.6))
    for opener, closer in _CLOSERS.items():
        if body.count(opener) > body.count(closer):
            out.append((body + closer * (body.count(opener) - body.count(closer)), f"close the '{opener}'", 0.6))
    for closer in _CLOSERS.values():
        if body.endswith(closer):
            out.append((body[:-1], f"drop the extra {closer!r}", 0.5))
    words = re.findall(r"[A-Za-z_]\w*", stripped)
    for word in words[:3]:
        if not keyword.iskeyword(word):
            close = difflib.get_close_matches(word, keyword.kwlist, n=1, cutoff=0.75)
            if close:
                out.append((old.replace(word, close[0], 1), f"write the keyword {close[0]!r} for {word!r}", 0.6))
    previous = next((x for x in reversed(lines[: line - 1]) if x.strip()), "")
    prev_indent = previous[: len(previous) - len(previous.lstrip())]
    for new_indent in (prev_indent, prev_indent + "    ", prev_indent[:-4] if len(prev_indent) >= 4 else ""):
        if new_indent != indent:
            out.append((new_indent + stripped, "re-indent the line", 0.5))
    if 0 < column <= len(old):
        out.append((old[: column - 1] + old[column:], f"remove the {old[column - 1]!r} at column {column}", 0.4))
    out.append(("", "remove the line", 0.2))
    return out


def _compiles(source: str, filename: str) -> bool:
    try:
        compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _where(record: TestFailureRecord, workspace: Path) -> tuple[Path, str, int] | None:
    for file_path, line in ((record.impl_file, record.impl_line), (record.file_path, record.line)):
        if file_path and line > 0 and file_path.endswith(".py"):
            path = Path(file_path)
            path = path if path.is_absolute() else workspace / path
            if path.is_file():
                return path, paths.relative_posix(path, workspace), line
    return None


def _first_line(text: str) -> str:
    return (text or "").strip().splitlines()[0][:120] if (text or "").strip() else "see the message"
