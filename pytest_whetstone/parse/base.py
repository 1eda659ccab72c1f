"""The contract every output parser implements.

A parser is a small streaming state machine: the dispatcher offers it one
line at a time (without the trailing newline, ANSI colour already stripped)
and it answers whether it claimed the line.  Whatever it has completed it
hands to the shared :class:`ParseResult`.  Memory stays bounded by the size
of the record in progress, never by the size of the log.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from ..lazy_pattern import lazy_pattern
from ..records import BuildErrorRecord, TestFailureRecord

# CSI / OSC escape sequences (colour, hyperlinks) as compilers and test runners print them.
ANSI_RE = lazy_pattern(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
# Lines longer than this are cut before matching so a pathological line stays linear.
MAX_LINE = 8192


def strip_ansi(text: str) -> str:
    return ANSI_RE.sub("", text) if "\x1b" in text else text


@dataclass
class ParseResult:
    build_errors: list[BuildErrorRecord] = field(default_factory=list)
    test_failures: list[TestFailureRecord] = field(default_factory=list)
    pass_count: int = 0
    # Failed tests: the runner's own count where it prints one, else the failure records.
    fail_count: int = 0
    skip_count: int = 0  # skipped only (pytest's xfailed are xfail_count)
    # Tests that errored rather than failed (pytest "N errors": setup/teardown/collection;
    # unittest "errors=N"); their records are among test_failures too.
    test_error_count: int = 0
    xfail_count: int = 0  # expected failures (pytest xfailed, unittest expected failures)
    xpass_count: int = 0  # unexpected passes that did not fail the run (pytest xpassed)
    # Errors the tools' own tallies count beyond the error records ("9 errors generated" after
    # 8 diagnostics and clang's "too many errors emitted"): see reported_error_count.
    uncounted_errors: int = 0
    # Warnings a tally counted beyond the warning records (clang's "N warnings generated."
    # over diagnostics that make -j ran together on one line): see warning_count.
    uncounted_warnings: int = 0
    tools: list[str] = field(default_factory=list)  # formats seen, in order of first sight
    # Translation units a compiler built without a diagnostic (for superseding).
    clean_tus: list[str] = field(default_factory=list)
    # Streaming: build errors already handed on and removed from the front of
    # ``build_errors``, and the absolute index of the last of them with severity "error"
    # (what SummaryGate needs to know about records no longer in the list).
    drained: int = field(default=0, repr=False, compare=False)
    drained_error: int = field(default=-1, repr=False, compare=False)

    def saw(self, tool: str) -> None:
        if tool not in self.tools:
            self.tools.append(tool)

    @property
    def error_count(self) -> int:
        """Errors that fail the build: lint stays out even when -Werror made it an error."""
        return sum(1 for e in self.build_errors if e.is_failure)

    @property
    def reported_error_count(self) -> int:
        """Errors as the tools counted them (what their summary lines say): every
        diagnostic of severity error, lint included, plus errors only a tally counted."""
        return sum(1 for e in self.build_errors if e.severity == "error") + self.uncounted_errors

    @property
    def warning_count(self) -> int:
        """Warnings as the tools counted them (a -Werror warning is an error): the warning
        records, plus warnings only a tally counted."""
        return sum(1 for e in self.build_errors if e.severity == "warning") + self.uncounted_warnings

    def to_dict(self) -> dict[str, Any]:
        return {
            "build_errors": [e.to_dict() for e in self.build_errors],
            "test_failures": [f.to_dict() for f in self.test_failures],
            "error_count": self.error_count,
            "reported_error_count": self.reported_error_count,
            "warning_count": self.warning_count,
            "pass_count": self.pass_count,
            "fail_count": self.fail_count,
            "skip_count": self.skip_count,
            "test_error_count": self.test_error_count,
            "xfail_count": self.xfail_count,
            "xpass_count": self.xpass_count,
            "tools": list(self.tools),
        }


@dataclass
class ParseContext:
    """State shared by the parsers of one log: where relative paths resolve."""

    cwd: str = ""  # the directory the command ran in (absolute), if known
    # Directory stack from make's "Entering directory" lines.
    dir_stack: list[str] = field(default_factory=list)
    # The ``--tool`` the caller named ("auto" when none): breaks gcc-vs-clang ties.
    tool_hint: str = "auto"
    # 1-based number of the line being fed (maintained by the dispatcher).
    line_no: int = 0
    # The last compiler command line echoed (make recipes); its sources are read only
    # when a diagnostic needs them (most command lines are never asked).
    last_command: str = ""
    # Errors and warnings a structured reader (SARIF) recorded since clang's last "N errors
    # generated.": that tally counts them too, so the text parser must not take them for uncounted.
    structured_errors: int = 0
    structured_warnings: int = 0
    # Lines another parser owns that may land inside a record in progress (see
    # ``LineParser.interjects``); set by the dispatcher, None when no parser declares any.
    interjection: re.Pattern[str] | None = None
    # The run of summary lines the last one belongs to (first and last line numbers): a failure
    # reported up a chain of tools (lto-wrapper's make, lto-wrapper, ld, collect2, make) is one.
    summary_first: int = 0
    summary_last: int = 0
    _resolved: dict[tuple[str, str], str] = field(default_factory=dict, repr=False, compare=False)

    def summary_line(self) -> int:
        """The line being fed is a summary line (of any tool): the first line of the run of
        summaries it continues (one other line may lie between two of them, as in make's cascades)."""
        if self.line_no - self.summary_last > 2:
            self.summary_first = self.line_no
        self.summary_last = self.line_no
        return self.summary_first

    def sole_source(self) -> str:
        """The source file the last compiler command compiles, when it names exactly one."""
        return _sole_source(self.last_command) if self.last_command else ""

    @property
    def current_dir(self) -> str:
        return self.dir_stack[-1] if self.dir_stack else self.cwd

    def resolve(self, path: str) -> str:
        """A printed path made workspace-relative where possible.

        Relative paths are joined to the current make directory when one is
        known; paths inside ``cwd`` (the workspace) come back relative to it;
        with no directory known the path is only normalised (``./a.h`` -> ``a.h``).
        """
        if not path or path[0] == "<" or "\\" in path:
            return path  # <command-line>, <built-in>, Windows paths: as printed
        base = self.dir_stack[-1] if self.dir_stack else self.cwd
        key = (base, path)
        hit = self._resolved.get(key)
        if hit is not None:
            return hit
        full = path if (path[0] == "/" or not base) else posixpath.join(base, path)
        full = posixpath.normpath(full)
        if self.cwd and full[0] == "/":
            root = self.cwd.rstrip("/") or "/"
            if full == root:
                full = "."
            elif full.startswith(root + "/") or root == "/":
                full = full[len(root) :].lstrip("/")
        if len(self._resolved) > 4096:
            self._resolved.clear()  # bounded: memory must not grow with the log
        self._resolved[key] = full
        return full


# Suffixes of the files a compiler command compiles (not headers, not objects).
SOURCE_EXT = (".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".m", ".mm", ".cu", ".i", ".ii", ".s", ".S")


@functools.lru_cache(maxsize=64)
def _sole_source(command: str) -> str:
    sources = [tok for tok in command.split() if tok.endswith(SOURCE_EXT) and not tok.startswith("-")]
    return sources[0] if len(sources) == 1 else ""


class LineParser:
    """Base class: override ``feed`` (and ``flush`` when a record can span lines)."""

    name = "unknown"
    # Lower runs first in auto mode when no parser is active.
    priority = 50
    # Lines of this tool printed on the other stream than the records they may fall among: read
    # through two pipes, one may land inside another parser's multi-line record (make's ``*** [test]
    # Error 1`` on stderr inside a test binary's failure block on stdout).  Such a line is handed to
    # this parser and the record in progress goes on after it, when that record is a test runner's
    # (``runner``): a build tool's record must end first, since a summary weighs the records before it.
    interjects: re.Pattern[str] | None = None
    runner = False  # a test runner's parser: its records are test failures

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        self.result = result
        self.ctx = ctx

    def feed(self, line: str) -> bool:
        """Consume one line; True when this parser claimed it."""
        raise NotImplementedError

    def feed_run(self, lines: list[str], i: int, base: int) -> int:
        """Feed ``lines[i:]`` while they are claimed; the index of the first line that is
        not (``len(lines)`` when all were).  Exactly ``feed`` line by line: a parser may
        override it with a faster loop.  ``base + i + 1`` is line i's number in the log.
        An exception is re-raised as :class:`RunError` naming the line that raised."""
        feed = self.feed
        ctx = self.ctx
        n = len(lines)
        foreign = ctx.interjection if self.runner else None
        try:
            while i < n:
                ctx.line_no = base + i + 1
                if foreign is not None and foreign.match(lines[i]):
                    return i  # the dispatcher hands it to its owner; this record goes on after it
                if not feed(lines[i]):
                    return i
                i += 1
        except Exception as exc:  # noqa: BLE001 - the dispatcher drops this parser
            raise RunError(i) from exc
        return i

    def flush(self) -> None:
        """Finish any record in progress (end of input or another format took over)."""

    def holds(self) -> object | None:
        """The oldest record already in the result that this parser may still change
        (streaming hands on only the records before it); None when it changes none."""
        return None

    def finish(self) -> None:
        """The input has ended (after the last ``flush``): settle what waited for later lines."""


class RunError(Exception):
    """A parser raised inside ``feed_run``: ``index`` is the line it raised on."""

    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


class DocumentParser:
    """Whole-document formats (XML, JSON): parsed from the complete text."""

    name = "unknown"

    @staticmethod
    def sniff(head: str) -> bool:
        raise NotImplementedError

    def parse(self, text: str, result: ParseResult, ctx: ParseContext) -> None:
        raise NotImplementedError


class SummaryGate:
    """Decides whether a summary line ("ld returned 1 exit status", make's
    ``*** [...] Error 1``, cmake's "Configuring incomplete") is already explained by an error record.

    Summary lines repeat a failure some other record already reports; counting
    them would inflate error counts.  A summary becomes a record of its own only
    when no error record appeared since the previous summary of the same kind,
    so a failure whose real message was lost (truncated log, silent recipe) still
    shows up once.

    A tool that prints its summary on stdout and its errors on stderr (cmake) reaches a log through
    two pipes, and the summary may land first.  A summary record added by :meth:`add` is therefore
    provisional for ``REORDER_WINDOW`` lines: when the parser's own error record arrives in that
    window (:meth:`claim`), it explains the summary after all and the summary record is withdrawn.
    The parser holds the provisional record (:meth:`holding`), so streaming has not handed it on yet.
    """

    __slots__ = ("mark", "pending", "pending_line")

    REORDER_WINDOW = 400  # lines; a pipe's buffer of the other stream is at most this far ahead

    def __init__(self) -> None:
        self.mark = 0
        self.pending: BuildErrorRecord | None = None
        self.pending_line = 0

    def explained(self, result: ParseResult) -> bool:
        self.pending = None  # a later summary: the one before it stays a record
        records = result.build_errors
        base = result.drained  # indices are absolute: streaming drops records from the front
        start, self.mark = self.mark, base + len(records)
        if result.drained_error >= start:
            return True
        for index in range(max(start - base, 0), len(records)):
            if records[index].severity == "error":
                return True
        return False

    def add(self, result: ParseResult, record: BuildErrorRecord, line_no: int) -> None:
        """Append an unexplained summary's record, provisional for the window's lines."""
        result.build_errors.append(record)
        self.pending, self.pending_line = record, line_no

    def claim(self, result: ParseResult, line_no: int) -> None:
        """The parser just added an error record at ``line_no``: within the window it explains the
        provisional summary, which is withdrawn (and the error then explains no later summary)."""
        pending, self.pending = self.pending, None
        if pending is None or line_no > self.pending_line + self.REORDER_WINDOW:
            return
        records = result.build_errors
        index = next((k for k in range(len(records) - 1, -1, -1) if records[k] is pending), -1)
        if index >= 0:
            del records[index]
            self.mark = result.drained + len(records)

    def holding(self, line_no: int) -> BuildErrorRecord | None:
        """The provisional record while its window lasts (None once it is settled)."""
        if self.pending is not None and line_no > self.pending_line + self.REORDER_WINDOW:
            self.pending = None
        return self.pending

    def settle(self) -> None:
        """The input ended: a provisional record stays."""
        self.pending = None
