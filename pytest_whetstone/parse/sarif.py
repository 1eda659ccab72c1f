"""SARIF 2.1.0 in a log: a ``.sarif`` file, or the document a compiler prints among its lines.

clang's ``-fdiagnostics-format=sarif`` and gcc's ``sarif-stderr`` print one JSON
document per compilation on stderr, between the driver's own lines and the
``N errors generated.`` tally; CMake writes ``--sarif-output`` pretty-printed (one
member per line), gcc 15 too.  This parser claims a document's lines from its
first (``{"$schema": "...sarif..."``, or a pretty document's ``"$schema"`` /
``"version": "2.1.0"`` line after its ``{``) until its braces balance (JSON strings
never span lines, so counting brackets outside strings line by line is exact), then
reads it whole (``sarif_doc``): the structured form, not re-parsed text.

A document that stops early (a truncated file, a log cut mid-line, a non-JSON line
where the document should go on) gives every result complete before the cut, and
one warning line.  A document's lines are held until it ends, up to ``MAX_DOC``
characters; the dispatcher does not cut a SARIF line at ``MAX_LINE``.
"""

from __future__ import annotations

from ..lazy_pattern import lazy_pattern
from .base import MAX_LINE, LineParser, ParseContext, ParseResult
from .gcc_json import JSON_LINE_START
from .sarif_doc import load, records, sniff

# The most of one document held (characters); beyond, it is read as cut there.
MAX_DOC = 64 << 20
_STRING = lazy_pattern(r'"(?:[^"\\]|\\.)*"')
_CONTINUES = frozenset('"{}[]-0123456789')


def _depth(line: str) -> int:
    """Brackets opened minus closed on one line of JSON (strings skipped)."""
    if "{" not in line and "}" not in line and "[" not in line and "]" not in line:
        return 0  # most lines of a pretty-printed document: one member
    if '"' in line:
        line = _STRING.sub("", line)
    return line.count("{") + line.count("[") - line.count("}") - line.count("]")


def starts_document(line: str) -> bool:
    """The first line of a SARIF document: compact (``{"$schema":...``) or a pretty one's
    ``"$schema"`` / ``"version" : "2.1.0"`` member."""
    c0 = line[:1]
    if c0 == "{":
        return sniff(line)
    if c0 in ' \t"' and ('"$schema"' in line or '"version"' in line):
        member = line.lstrip()
        if member.startswith('"$schema"'):
            return "sarif" in member.lower()
        if member.startswith('"version"'):
            return '"2.1.0"' in member
    return False


def cut_long_line(raw: str) -> str:
    """A line longer than MAX_LINE cut to it (the dispatcher's rule), unless it is a SARIF
    document or a gcc JSON array a compiler printed on one line: read whole, up to MAX_DOC."""
    if (raw[:1] == "{" and starts_document(raw[:1024])) or raw.startswith(JSON_LINE_START):
        return raw[:MAX_DOC]
    return raw[:MAX_LINE]


class SarifParser(LineParser):
    name = "sarif"
    priority = 14  # after the build parsers that claim most lines (none of them claims a JSON line)

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.lines: list[str] = []
        self.size = 0
        self.depth = 0
        self.warned = False

    def feed(self, line: str) -> bool:
        if not self.lines:
            if not line or line[0] not in '{ \t"' or not starts_document(line):
                return False
            if line[0] != "{":
                self.lines.append("{")  # a pretty document whose "{" line went to another parser
                self.depth = 1
            self._add(line)
            return True
        stripped = line.lstrip()
        if not stripped or stripped[0] not in _CONTINUES:
            self._finish()  # the document stopped early: what came before is read
            return False
        self._add(line)
        return True

    def _add(self, line: str) -> None:
        if self.size + len(line) > MAX_DOC:
            line = line[: max(0, MAX_DOC - self.size)]
        self.lines.append(line)
        self.size += len(line) + 1
        self.depth += _depth(line)
        if self.depth <= 0 or self.size >= MAX_DOC:
            self._finish()

    def flush(self) -> None:
        if self.lines:
            self._finish()

    def _finish(self) -> None:
        text = "\n".join(self.lines)
        self.lines, self.size, self.depth = [], 0, 0
        doc, complete = load(text)
        errors = warnings = 0
        for record in records(doc, self.ctx):
            self.result.build_errors.append(record)
            errors += record.severity == "error"
            warnings += record.severity == "warning"
        # clang's "N errors generated." after the document counts these; the text parser must know.
        self.ctx.structured_errors += errors
        self.ctx.structured_warnings += warnings
        if not complete and not self.warned:
            self.warned = True
            _warn("a SARIF document in the log is cut short or malformed; read what came before the cut")


def _warn(message: str) -> None:
    from ..store.sessions import warn_line  # only when needed: not on the import path of every parse

    warn_line(message)


LINE_PARSERS = [SarifParser]
