"""The catch-all: error-looking lines that no other parser claimed.

A line becomes a ``tool="unknown"`` record when it says ``error:``/``Error:``/
``fatal:``/``fatal error`` or an upper-case ``ERROR``/``FATAL``/``FAILED`` as a word.
Precision matters more than recall here, so these never count: the words inside a
flag, path or identifier (``-Werror``, ``error.c``, ``ERROR_CODE``), compiler and
build command lines echoed by make, and "no errors" style tallies (``0 errors``,
``errors: 0``).  It runs last.
"""

from __future__ import annotations

import re

from ..lazy_pattern import lazy_pattern
from ..records import BuildErrorRecord
from .base import LineParser
from .pipframe import explained, pip_summary

_ERROR = lazy_pattern(
    r"(?<![\w./=+-])(?:(?:[Ee]rror|ERROR|[Ff]atal(?: [Ee]rror)?|FATAL(?: ERROR)?)\s*:(?!:)"
    r"|(?:ERROR|FATAL|FAILED)(?![\w./=+-]))"
)
_TALLY = lazy_pattern(
    r"(?:\b(?:0|no|zero) (?:errors?|failures?|failed)\b|\b(?:errors?|failures?|failed)\s*[:=]\s*0\b"
    r"|\b0 (?:ERRORS?|FAILED)\b|\bFAILED\s*[:=]\s*0\b|\bwithout errors?\b)",
    re.I,
)
_COMMAND = lazy_pattern(
    r"\s*(?:\+ )?(?:cd \S+ && )?(?:\S*/)?(?:[\w.+-]*-)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|ld|ar|as|nm"
    r"|cmake|make|gmake|ninja|python[\d.]*|sh|bash|env|ccache|ccwrap|libtool|install|cp|mv|rm|mkdir|echo)"
    r"(?:-[\d.]+)?\s+-"
)
_LOC = lazy_pattern(r"(?P<file>[^\s:]+?):(?P<line>\d+)(?::(?P<col>\d+))?:")


def looks_like_error(line: str) -> bool:
    if "rror" not in line and "RROR" not in line and "atal" not in line and "ATAL" not in line \
            and "FAILED" not in line:
        return False
    if not _ERROR.search(line):
        return False
    if _TALLY.search(line) or _COMMAND.match(line):
        return False
    return True


class UnknownParser(LineParser):
    name = "unknown"
    priority = 1000

    def feed(self, line: str) -> bool:
        if not looks_like_error(line):
            return False
        text = line.strip()
        if pip_summary(text) and explained(self.result, text):
            return True  # "ERROR: Failed building wheel for x": the build's own records said why
        rec = BuildErrorRecord(tool="unknown", severity="error", message=text[:2000], raw=line[:4000])
        m = _LOC.match(text)
        if m:
            rec.file_path = self.ctx.resolve(m.group("file"))
            rec.line = int(m.group("line"))
            rec.col = int(m.group("col") or 0)
        self.result.build_errors.append(rec)
        return True


LINE_PARSERS = [UnknownParser]
