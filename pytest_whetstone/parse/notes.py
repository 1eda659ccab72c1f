"""A note line as the compilers print it, made a located ``Note`` record.

Parsers collect the lines that explain a diagnostic (``note:`` lines, include chains,
``In instantiation of``, ``required from here``); this module reads where each one
points and what it says, so consumers need not re-parse text.
"""

from __future__ import annotations

from functools import lru_cache

from ..lazy_pattern import lazy_pattern
from ..records import INCLUDED_FROM, Note
from .base import ParseContext

MAX_NOTES = 64  # notes kept per record (a template error's candidates can run to hundreds)
_NOTE = lazy_pattern(
    r"(?P<file>(?:[A-Za-z]:[\\/])?[^:\n]*?):(?P<line>\d+):(?:(?P<col>\d+):)?(?:\{[^}]*\}:?)* note: ?(?P<msg>.*)$"
)
_INCLUDE = lazy_pattern(r"(?:In file included from|from) (?P<file>.+?):(?P<line>\d+)(?::(?P<col>\d+))?[:,]?$")
_SCOPE = lazy_pattern(r"(?P<file>(?:[A-Za-z]:[\\/])?[^:\n]*?): (?P<msg>In (?:instantiation|substitution) of .*):$")
_CONTEXT = lazy_pattern(r"(?P<file>(?:[A-Za-z]:[\\/])?[^:\n]*?):(?P<line>\d+):(?:(?P<col>\d+):)?   +(?P<msg>\S.*)$")
# a level of gcc's inline chain: "inlined from 'f' at x.c:5:3," -> x.c, 5, 3, "inlined from 'f'"
_INLINED = lazy_pattern(r"(?P<msg>inlined from .+?) at (?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+)[,:]$")
_UNLOCATED = lazy_pattern(r"(?:\S+: )?note: (?P<msg>.*)$")


@lru_cache(maxsize=4096)
def note_shape(text: str) -> tuple[str, int, int, str]:
    """(printed path, line, col, message) of one stripped note line; path "" when it names none."""
    for pattern in (_NOTE, _INCLUDE, _CONTEXT, _INLINED):
        m = pattern.match(text)
        if m:
            msg = m.groupdict().get("msg") or INCLUDED_FROM
            return m["file"], int(m["line"]), int(m["col"] or 0), msg
    m = _SCOPE.match(text)
    if m:
        return m["file"], 0, 0, m["msg"]
    m = _UNLOCATED.match(text)
    return "", 0, 0, m["msg"] if m else text


def make_note(text: str, ctx: ParseContext) -> Note:
    path, line, col, message = note_shape(text)
    return Note("note", ctx.resolve(path) if path else "", line, col, message)


def note_at(ctx: ParseContext, path: str, line: int, col: int, message: str) -> Note:
    return Note("note", ctx.resolve(path) if path else "", line, col, message)
