"""The contract every output parser implements.

A parser is a small streaming state machine: the dispatcher offers it one
line at a time (without the trailing newline, ANSI colour already stripped)
and it answers whether it claimed the line.  Whatever it has completed it
hands to the shared :class:`ParseResult`.  Memory stays bounded by the size
of the record in progress, never by the size of the log.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..records import BuildErrorRecord, TestFailureRecord

# CSI / OSC escape sequences (colour, hyperlinks) as compilers and test runners print them.
ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
# Lines longer than this are cut before matching so a pathological line stays linear.
MAX_LINE = 8192


def strip_ansi(text: str) -> str:
    return ANSI_RE.sub("", text) if "\x1b" in text else text


@dataclass
class ParseResult:
    build_errors: list[BuildErrorRecord] = field(default_factory=list)
    test_failures: list[TestFailureRecord] = field(default_factory=list)
    pass_count: int = 0
    fail_count: int = 0
    skip_count: int = 0
    tools: list[str] = field(default_factory=list)  # formats seen, in order of first sight
    # Translation units a compiler built without a diagnostic (for superseding).
    clean_tus: list[str] = field(default_factory=list)

    def saw(self, tool: str) -> None:
        if tool not in self.tools:
            self.tools.append(tool)

    @property
    def error_count(self) -> int:
        return sum(1 for e in self.build_errors if e.is_failure)

    @property
    def warning_count(self) -> int:
        return sum(1 for e in self.build_errors if e.severity == "warning" or e.is_lint)

    def to_dict(self) -> dict[str, Any]:
        return {
            "build_errors": [e.to_dict() for e in self.build_errors],
            "test_failures": [f.to_dict() for f in self.test_failures],
            "error_count": self.error_count,
            "warning_count": self.warning_count,
            "pass_count": self.pass_count,
            "fail_count": self.fail_count,
            "skip_count": self.skip_count,
            "tools": list(self.tools),
        }


@dataclass
class ParseContext:
    """State shared by the parsers of one log: where relative paths resolve."""

    cwd: str = ""  # the directory the command ran in (absolute), if known
    # Directory stack from make's "Entering directory" lines.
    dir_stack: list[str] = field(default_factory=list)

    @property
    def current_dir(self) -> str:
        return self.dir_stack[-1] if self.dir_stack else self.cwd


class LineParser:
    """Base class: override ``feed`` (and ``flush`` when a record can span lines)."""

    name = "unknown"
    # Lower runs first in auto mode when no parser is active.
    priority = 50

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        self.result = result
        self.ctx = ctx

    def feed(self, line: str) -> bool:
        """Consume one line; True when this parser claimed it."""
        raise NotImplementedError

    def flush(self) -> None:
        """Finish any record in progress (end of input or another format took over)."""


class DocumentParser:
    """Whole-document formats (XML, JSON): parsed from the complete text."""

    name = "unknown"

    @staticmethod
    def sniff(head: str) -> bool:
        raise NotImplementedError

    def parse(self, text: str, result: ParseResult, ctx: ParseContext) -> None:
        raise NotImplementedError
