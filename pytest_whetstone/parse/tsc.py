"""The TypeScript compiler, ``tsc``: its plain and ``--pretty`` diagnostics.

Plain: ``src/a.ts(4,49): error TS2339: Property 'cost' does not exist ...`` and the
elaboration chain indented under it (each line a note).  ``--pretty``:
``src/a.ts:4:49 - error TS2339: ...``, the chain, then the code frame (the record's
context lines) and related information (``  lib.d.ts:508:5`` + frame + ``'x' is
declared here.``: a note at that place).  ``Found N errors`` closes the run.
Records: tool ``tsc``, ``error_code`` the ``TSnnnn`` code.
"""

from __future__ import annotations

import re

from ..lazy_pattern import lazy_pattern
from ..records import BuildErrorRecord, Note
from .base import LineParser, ParseContext, ParseResult

_PLAIN = lazy_pattern(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+),(?P<col>\d+)\): (?P<sev>error|warning|message) "
                    r"(?P<code>TS\d+): (?P<msg>.*)$")
_PRETTY = lazy_pattern(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+) - (?P<sev>error|warning|message) "
                     r"(?P<code>TS\d+): (?P<msg>.*)$")
_RELATED = lazy_pattern(r"^  (?P<file>\S+):(?P<line>\d+):(?P<col>\d+)$")
_FRAME = lazy_pattern(r"^\s*\d+ |^\s+~+\s*$|^\s*$")
_FOUND = lazy_pattern(r"^Found (\d+) errors?\b")
_MAX_NOTES = 64


class TscParser(LineParser):
    name = "tsc"
    priority = 11  # before gcc: tsc's "file:4:49 - error TS..." is not gcc's

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.rec: BuildErrorRecord | None = None
        self.related: Note | None = None  # a related location waiting for its message
        self.in_chain = False  # reading the elaboration lines right under the header
        self.seen = 0

    def feed(self, line: str) -> bool:
        if line[:1] not in (" ", "") and ("error TS" in line or "warning TS" in line or "message TS" in line):
            m = _PLAIN.match(line) or _PRETTY.match(line)
            if m:
                self._open(m, line)
                return True
        if line.startswith("Found ") and (self.rec is not None or self.seen):
            m = _FOUND.match(line)
            if m:
                self._close()
                self.result.uncounted_errors += max(0, int(m.group(1)) - self.seen)
                self.seen = 0
                return True
        rec = self.rec
        if rec is None:
            return False
        if not line:
            self.in_chain = False
            return True
        if line.startswith("  "):
            self._body(rec, line)
            return True
        if _FRAME.match(line):  # the code frame of --pretty ("4   return ...")
            if len(rec.context_lines) < 32:
                rec.context_lines.append(line)
            return True
        self._close()
        return False

    def flush(self) -> None:
        self._close()

    def _open(self, m: re.Match[str], line: str) -> None:
        self._close()
        sev = {"error": "error", "warning": "warning"}.get(m.group("sev"), "note")
        self.rec = BuildErrorRecord(
            tool="tsc", severity=sev, file_path=self.ctx.resolve(m.group("file")), line=int(m.group("line")),
            col=int(m.group("col")), error_code=m.group("code"), message=m.group("msg"), raw=line)
        self.in_chain = True
        if sev == "error":
            self.seen += 1

    def _body(self, rec: BuildErrorRecord, line: str) -> None:
        if len(rec.raw) < 16384:
            rec.raw += "\n" + line
        if self.in_chain:
            # "  Type 'number' is not assignable to type 'string'.": why, one level deeper
            if len(rec.notes) < _MAX_NOTES:
                rec.notes.append(Note(message=line.strip()))
            return
        m = _RELATED.match(line)
        if m:
            self.related = Note("note", self.ctx.resolve(m.group("file")), int(m.group("line")),
                                int(m.group("col")), "")
            return
        stripped = line.strip()
        if self.related is not None and stripped and not _FRAME.match(stripped) and not _FRAME.match(line[4:]):
            self.related.message = stripped
            if len(rec.notes) < _MAX_NOTES:
                rec.notes.append(self.related)
            self.related = None

    def _close(self) -> None:
        rec = self.rec
        if rec is None:
            return
        self.rec = None
        self.related = None
        self.in_chain = False
        self.result.build_errors.append(rec)


LINE_PARSERS = [TscParser]
