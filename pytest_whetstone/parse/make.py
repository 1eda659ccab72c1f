"""GNU make (and ninja) output.

make keeps ``ParseContext.dir_stack`` from ``Entering directory`` / ``Leaving
directory`` lines for the whole log, so the compiler paths printed inside a
recursive make resolve to the right file.

Recipe-failure lines (``make: *** [Makefile:12: foo.o] Error 1``) are
summaries: they repeat a failure the compiler or linker already reported.  They
are *not* records when an error record appeared since the previous summary (or
when they continue a cascade of summaries: ``make[1]: *** ... Error 1`` then
``make: *** [all] Error 2``), nor when an error of the target's own translation unit came
before (``make -j`` prints a unit's summary after another unit's errors: ``[Makefile:6:
lmathlib.o]`` is explained by an error in ``lmathlib.c``).  Only a recipe that failed without any error of
its own (a silent ``false``, a script exiting 1, a truncated log) becomes one
``make`` record, so error counts are never inflated.

Real make errors are records: ``No rule to make target 'x', needed by 'y'.
Stop.`` (missing_dependency, symbol x), ``Makefile:3: *** missing separator.
Stop.`` (syntax_error), ``Makefile:5: warning: overriding recipe ...``.

ninja is handled by the same module (``[3/10] Building ...`` progress,
``FAILED: target`` and ``ninja: build stopped: subcommand failed.`` are
summaries; ``ninja: error: ...`` is a record).
"""

from __future__ import annotations

import re

from ..lazy_pattern import lazy_pattern
from ..records import BuildErrorRecord
from .base import LineParser, ParseContext, ParseResult, SummaryGate

_MAKE = lazy_pattern(r"(?:\S*/)?(?:g?make|mingw32-make|gmake)(?:\[(?P<level>\d+)\])?: (?P<rest>.*)")
_DIR = lazy_pattern(r"(?P<verb>Entering|Leaving) directory [`'‘\"](?P<dir>.*)['’\"]$")
_RECIPE = lazy_pattern(
    r"\*\*\* \[(?:(?P<file>[^\]]+?):(?P<line>\d+): )?(?P<target>[^\]]+)\] (?P<what>.+)$"
)
_NO_RULE = lazy_pattern(r"\*\*\* No rule to make target [`'‘](?P<target>[^'’]+)['’](?:, needed by [`'‘](?P<by>[^'’]+)['’])?")
_MAKEFILE_LOC = lazy_pattern(
    r"(?P<file>(?:[^:\s]*/)?(?:GNUmakefile|makefile|Makefile|[^:\s]+\.mk|[^:\s]+\.make)):(?P<line>\d+): "
    r"(?P<rest>\*\*\* .*|warning: .*)"
)
_ANY_LOC_STOP = lazy_pattern(r"(?P<file>[^:\s]+):(?P<line>\d+): (?P<rest>\*\*\* .*)")
_PROGRESS = lazy_pattern(r"\[\s*\d+%\] |\[\d+/\d+\] ")
_QUIET = (
    "Nothing to be done for",
    "*** Waiting for unfinished jobs",
    "Target ",
    "warning: jobserver unavailable",
)
_SYNTAX = ("missing separator", "missing endif", "extraneous", "invalid syntax", "unterminated",
           "recipe commences before first target", "missing `endef'", "missing 'endef'")


class MakeParser(LineParser):
    name = "make"
    priority = 10
    interjects = lazy_pattern(r"(?:\S*/)?(?:g?make|mingw32-make)(?:\[\d+\])?: \*\*\* ")  # stderr, a failed recipe

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.gate = SummaryGate()
        self.last_summary_line = -10

    def feed(self, line: str) -> bool:
        c0 = line[:1]
        if c0 == "[":
            if _PROGRESS.match(line):
                # progress is on stdout, the summaries on stderr: read through two pipes, it may
                # fall between a sub-make's summary and its parent's
                self._continue_cascade()
                return True
            return False
        if ": " not in line:
            return False
        if c0 in ("m", "g", "/") and "make" in line[:48]:
            m = _MAKE.match(line)
            if m:
                return self._make(m.group("rest"), line, m.group("level"))
        if c0 == "n" and line.startswith("ninja: "):
            return self._ninja(line[7:], line)
        if c0 == "F" and line.startswith("FAILED: "):
            self.last_summary_line = self.ctx.line_no
            self.ctx.summary_line()
            return True
        if "*** " in line or "warning: " in line:
            m = _MAKEFILE_LOC.match(line) or _ANY_LOC_STOP.match(line)
            if m:
                self._located(m.group("file"), int(m.group("line")), m.group("rest"), line)
                return True
        return False

    # ------------------------------------------------------------------ make

    def _make(self, rest: str, line: str, level: str | None) -> bool:
        d = _DIR.match(rest)
        if d:
            self._directory(d.group("verb"), d.group("dir"))
            self._continue_cascade()
            return True
        if rest.startswith("*** ["):
            m = _RECIPE.match(rest)
            if m:
                self._recipe(m, line)
                return True
        if rest.endswith(" not remade because of errors."):
            # make -k -j: the failed recipe's summary may lie far above (another unit kept
            # printing); this line says that make failed on it, so the parent's summary next is
            # the same failure
            self.last_summary_line = self.ctx.line_no
            self.ctx.summary_line()
            return True
        if rest.startswith(_QUIET) or rest.endswith("is up to date."):
            self._continue_cascade()
            return True
        m = _NO_RULE.match(rest)
        if m:
            rec = self._emit("error", "", 0, rest.lstrip("* ").strip(), line)
            rec.error_type = "missing_dependency"
            rec.symbol = m.group("target")
            return True
        if rest.startswith("*** "):
            rec = self._emit("error", "", 0, rest[4:].strip(), line)
            if "no makefile found" in rest:
                rec.error_type = "missing_dependency"
            return True
        if rest.startswith("warning: "):
            self._emit("warning", "", 0, rest[9:].strip(), line)
            return True
        m = _MAKEFILE_LOC.match(rest) or _ANY_LOC_STOP.match(rest)
        if m:
            self._located(m.group("file"), int(m.group("line")), m.group("rest"), line)
            return True
        return True  # any other "make: ..." line is make talking; nothing to report

    def _directory(self, verb: str, path: str) -> None:
        stack = self.ctx.dir_stack
        if verb == "Entering":
            if len(stack) < 256:
                stack.append(path)
        elif stack:
            if stack[-1] == path:
                stack.pop()
            elif path in stack:
                stack.remove(path)  # -j output can leave directories out of order

    def _continue_cascade(self) -> None:
        """make's own lines right after a failed recipe ("Target 'all' not remade because of
        errors.", "Leaving directory", "Waiting for unfinished jobs") keep the cascade going:
        the parent make's ``*** [all] Error 2`` after them reports the same failure."""
        if self.last_summary_line and self.ctx.line_no - self.last_summary_line <= 2:
            self.last_summary_line = self.ctx.line_no
            self.ctx.summary_line()

    def _recipe(self, m: re.Match[str], line: str) -> None:
        # a cascade: make's own summary just before, or a run of other tools' summaries since it
        # (lto-wrapper's make failed an LTRANS job, then lto-wrapper, ld and collect2 said so)
        first = self.ctx.summary_line()
        cascade = self.ctx.line_no - self.last_summary_line <= 2 or first <= self.last_summary_line
        self.last_summary_line = self.ctx.line_no
        target, what = m.group("target"), m.group("what")
        if self.gate.explained(self.result) or cascade or self._unit_failed(target):
            return
        path = m.group("file") or ""
        self._emit("error", path, int(m.group("line") or 0), f"recipe for target '{target}' failed: {what}", line)

    def _unit_failed(self, target: str) -> bool:
        """An error of the object's translation unit is among the records still held
        (``lmathlib.o``, ``CMakeFiles/t.dir/src/a.c.o`` -> a unit whose stem is ``lmathlib``, ``a``)."""
        name = target.rsplit("/", 1)[-1]
        if not name.endswith((".o", ".obj", ".lo")):
            return False
        stem = name.rsplit(".", 1)[0]
        stem = stem.rsplit(".", 1)[0] if "." in stem else stem  # a.c.o -> a
        records = self.result.build_errors
        for rec in records[-1 : -257 : -1]:
            if rec.severity == "error" and rec.tool != "make":
                unit = (rec.translation_unit or rec.file_path).rsplit("/", 1)[-1]
                if unit.rsplit(".", 1)[0] == stem:
                    return True
        return False

    def _located(self, path: str, line_no: int, rest: str, line: str) -> None:
        if rest.startswith("warning: "):
            self._emit("warning", path, line_no, rest[9:].strip(), line)
            return
        message = rest[4:].strip() if rest.startswith("*** ") else rest
        rec = self._emit("error", path, line_no, message, line)
        if any(word in message for word in _SYNTAX):
            rec.error_type = "syntax_error"

    # ------------------------------------------------------------------ ninja

    def _ninja(self, rest: str, line: str) -> bool:
        if rest.startswith("build stopped"):
            first = self.ctx.summary_line()
            cascade = self.ctx.line_no - self.last_summary_line <= 2 or first <= self.last_summary_line
            self.last_summary_line = self.ctx.line_no
            if not self.gate.explained(self.result) and not cascade:
                self._emit("error", "", 0, rest, line)
            return True
        if rest.startswith("Entering directory"):
            d = _DIR.match(rest)
            if d:
                self._directory("Entering", d.group("dir"))
            return True
        if rest.startswith("error: "):
            rec = self._emit("error", "", 0, rest[7:].strip(), line)
            if "missing and no known rule" in rest:
                rec.error_type = "missing_dependency"
            return True
        if rest.startswith("warning: "):
            self._emit("warning", "", 0, rest[9:].strip(), line)
        return True

    def _emit(self, sev: str, path: str, line_no: int, message: str, raw: str) -> BuildErrorRecord:
        rec = BuildErrorRecord(
            tool="make",
            severity=sev,
            file_path=self.ctx.resolve(path) if path else "",
            line=line_no,
            message=message,
            raw=raw,
        )
        self.result.build_errors.append(rec)
        return rec


LINE_PARSERS = [MakeParser]
