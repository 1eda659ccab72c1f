"""gcc's ``-fdiagnostics-format=json``: the structured form read as such, not re-parsed text.

Each compilation prints one line holding a JSON array of diagnostics (``kind``,
``message``, ``option``, ``locations[].caret``, ``children`` = its notes).  A log of
such lines (one per translation unit) gives one record per diagnostic, with its
children (and, as gcc 12 prints them, the ``note`` entries that follow it) as
located notes; columns are gcc's display columns, as in its text
output.  Objects are decoded one at a time, so a truncated array still gives every
diagnostic complete before the cut.  A log that only starts with such a line is read as a
document; the same lines inside a build log (make echoing the compile commands) are read
by the line parser.  (SARIF, gcc 13+'s other structured form, is ``sarif``.)
"""

from __future__ import annotations

import json
from typing import Any

from ..lazy_pattern import lazy_pattern
from ..records import BuildErrorRecord, Note
from .base import DocumentParser, LineParser, ParseContext, ParseResult
from .gcc_text import find_symbol

_DECODER = json.JSONDecoder()
# How a compilation's array line starts (gcc 12 writes "kind" first; a clean one is "[]").
JSON_LINE_START = ('[{"kind": ', '[{"kind":')
_MAX_NOTES = 64


def iter_array(line: str) -> Any:
    """The objects of one JSON array line, up to the first that does not decode."""
    pos = line.find("[") + 1
    n = len(line)
    while 0 < pos < n:
        while pos < n and line[pos] in " ,\t\r\n":
            pos += 1
        if pos >= n or line[pos] == "]":
            return
        try:
            obj, pos = _DECODER.raw_decode(line, pos)
        except ValueError:
            return  # cut here (a truncated log)
        if isinstance(obj, dict):
            yield obj


def _where(diag: dict[str, Any]) -> tuple[str, int, int]:
    locations = diag.get("locations") or []
    if not locations or not isinstance(locations[0], dict):
        return "", 0, 0
    caret = locations[0].get("caret") or {}
    col = caret.get("display-column", caret.get("column", 0))
    # gcc writes -1 where it has no column (``<command-line>``): 0, as the text form reads
    return str(caret.get("file", "")), max(int(caret.get("line", 0) or 0), 0), max(int(col or 0), 0)


# gcc 12 leaks the prefix of a driver-level diagnostic ("cc1: warning: command-line option ...
# is valid for C++") into the messages after it: "cc1: warning: unused variable 'x'"
_LEAKED_PREFIX = lazy_pattern(r"(?:cc1\w*|lto1): (?:warning|error|note|fatal error): ")


def _message(diag: dict[str, Any]) -> str:
    message = str(diag.get("message", ""))
    leaked = _LEAKED_PREFIX.match(message) if message.startswith(("cc1", "lto1")) else None
    return message[leaked.end():] if leaked else message


class GccJsonParser(DocumentParser):
    name = "gcc"

    @staticmethod
    def sniff(head: str) -> bool:
        return head.startswith(JSON_LINE_START) or head == "[]"

    def parse(self, text: str, result: ParseResult, ctx: ParseContext) -> None:
        for line in text.splitlines():
            if line.startswith("["):
                read_line(line, result, ctx)


def read_line(line: str, result: ParseResult, ctx: ParseContext) -> None:
    """The diagnostics of one compilation's JSON array line, into ``result``."""
    last: BuildErrorRecord | None = None
    for diag in iter_array(line):
        record = _record(diag, ctx)
        if record.severity == "note" and last is not None:
            # gcc 12 prints a diagnostic's notes as the entries after it, as in its text form
            if len(last.notes) < _MAX_NOTES:
                last.notes.append(Note("note", record.file_path, record.line, record.col, record.message))
            continue
        result.build_errors.append(record)
        last = record


class GccJsonLineParser(LineParser):
    """The same arrays among other lines: a build (make, ninja, setuptools) whose compiles
    print ``-fdiagnostics-format=json``, one array line per compilation."""

    name = "gcc"
    priority = 14  # after the build parsers that claim most lines (none of them claims a JSON line)

    def feed(self, line: str) -> bool:
        if line[:1] != "[" or not line.startswith(JSON_LINE_START):
            return False
        read_line(line, self.result, self.ctx)
        return True


def _record(diag: dict[str, Any], ctx: ParseContext) -> BuildErrorRecord:
    kind = str(diag.get("kind", ""))
    severity = "error" if "error" in kind else "warning" if kind == "warning" else "note"
    path, line, col = _where(diag)
    notes: list[Note] = []
    for child in diag.get("children") or []:
        if isinstance(child, dict) and len(notes) < _MAX_NOTES:
            cpath, cline, ccol = _where(child)
            notes.append(Note("note", ctx.resolve(cpath) if cpath else "", cline, ccol,
                              _message(child)))
    message = _message(diag)
    return BuildErrorRecord(
        tool="gcc", severity=severity, file_path=ctx.resolve(path) if path else "", line=line, col=col,
        error_code=str(diag.get("option", "")), message=message, notes=notes,
        symbol=find_symbol(message) if severity != "note" else "",
        translation_unit=ctx.resolve(path) if path.endswith((".c", ".cc", ".cpp", ".cxx")) else "",
        raw=json.dumps(diag, ensure_ascii=False)[:16384],
    )



DOC_PARSERS = [GccJsonParser]
LINE_PARSERS = [GccJsonLineParser]
