"""Lines a C/C++ build prints without a source location, for :class:`.gcc.GccParser`.

The driver and its helpers (``collect2``, ``lto-wrapper``, ``cc1``: "cc1: error: unrecognized
command-line option"), clang's cc1 speaking bare ("error: invalid value ..."), the summaries of
setuptools and pip that a compiler's errors may already explain, and the assembler gcc ran.  One
state machine still owns the records: these functions take the parser and use its own steps.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..lazy_pattern import lazy_pattern
from ..records import BuildErrorRecord
from .gcc_echo import hold_label
from .gcc_text import (
    _DRIVER_MISSING,
    _K_DIAG,
    _SEVERITY,
    _SOURCE_EXT,
    CHILD_FAILED,
    STDIN,
    _colon_facts,
    assembler_record,
    command_failed,
    find_symbol,
    split_flag,
)
from .notes import MAX_NOTES, make_note
from .pipframe import explained, pip_summary

if TYPE_CHECKING:
    from .gcc import GccParser

def open_record(self: GccParser, rec: BuildErrorRecord, printed_path: str) -> None:
    """``rec`` (a line of the driver, cc1 or the assembler) is the open record, with the context read
    before it (include chain, translation unit, function) as a located diagnostic gets it."""
    if self.pending_notes:
        rec.notes = [make_note(t, self.ctx) for t in self.pending_notes[:MAX_NOTES]]
        self.pending_notes = []
    tu = self.pending_tu or self.tu_of.get(printed_path, "")
    if tu and not tu.endswith(_SOURCE_EXT) and tu != STDIN:
        tu = self._unit_of_header(tu)
    if self.pending_tu:
        self._remember_tu(printed_path, tu)
    if tu:
        rec.translation_unit = self.ctx.resolve(tu)
    elif printed_path.endswith(_SOURCE_EXT) or printed_path == STDIN:
        rec.translation_unit = rec.file_path
    elif self.ctx.last_command:
        sole = self.ctx.sole_source()
        if sole:
            rec.translation_unit = self.ctx.resolve(sole)
    if printed_path:
        rec.function = self.scope.get(printed_path, "")
    if rec.severity != "note" and not rec.symbol:
        rec.symbol = find_symbol(rec.message)
    self.chain_style = ""
    self.rec = rec
    self.in_note = False
    self.wrap_at = None
    self.expect = "source" if printed_path and not printed_path.startswith("<") else ""


def tool_line(self: GccParser, m: re.Match[str], line: str) -> bool:
    """The driver or one of its helpers (collect2, lto-wrapper, cc1, lto1) speaking without a location."""
    prog = m.group("prog").rsplit("/", 1)[-1]
    sev = _SEVERITY[m.group("sev")]
    msg = m.group("msg")
    flavor = "clang" if "clang" in prog else "gcc"
    if prog.startswith("collect2") or (flavor == "clang" and msg.startswith("linker command failed")):
        self._finish()
        self._decide(flavor)
        self.ctx.summary_line()
        if not self.link_gate.explained(self.result):
            # The link failed but the linker's own message is missing: say so once.
            self._emit_now(BuildErrorRecord(tool="linker", severity="error", message=msg, raw=line))
        return True
    if sev == "note":
        if self.rec is not None:
            self._note(line.strip())
            return True
        if self._late_note(make_note(line.strip(), self.ctx), line.strip()):
            return True  # "cc1: note: ... may have been intended to silence earlier diagnostics"
    if prog.startswith("lto-wrapper") and sev == "error" and CHILD_FAILED.match(msg):
        self._finish()  # "gcc returned 1 exit status": lto1 said why above (as collect2 after ld)
        self.ctx.summary_line()
        if not self.lto_gate.explained(self.result):
            self._emit_now(BuildErrorRecord(tool="gcc", severity="error", message=msg, raw=line))
        return True
    self._finish()
    message, code = split_flag(msg)
    rec = BuildErrorRecord(tool=flavor, severity=sev, error_code=code, message=message, raw=line)
    missing = _DRIVER_MISSING.search(message)
    if missing and sev == "error":
        # An input file the command line names does not exist: the build's inputs are wrong.
        rec.error_type = "missing_dependency"
        rec.symbol = missing.group("a") or missing.group(2) or ""
    open_record(self, rec, "")
    self.rec_flavor = flavor
    self.tallied = False  # the driver's own line: no translation unit's tally counts it
    self._decide(flavor)
    return True

def bare_line(self: GccParser, m: re.Match[str], line: str) -> bool:
    # clang's cc1 speaks without a location ("error: invalid value 'c99x' in '-std=c99x'").
    if self.expect == "source" and hold_label(self, m, line):
        return True  # or is it the source echo of a line starting with a C label "error:"?
    sev = _SEVERITY[m.group("sev")]
    msg = m.group("msg")
    if sev == "note":
        if self.rec is not None:
            self._note(line.strip())
            return True
        if self._late_note(make_note(line.strip(), self.ctx), line.strip()):
            return True
    if msg.startswith("too many errors emitted"):
        self._finish()
        self.tallies.stopped()  # clang's -ferror-limit stop: no record, one error of its count
        self._decide("clang")  # only clang says it: the records before it are clang's
        return True
    tool = command_failed(msg)
    if tool:  # setuptools' summary: a record only when no error explains it
        self._finish()
        self.ctx.summary_line()
        if not self.command_gate.explained(self.result):
            self._emit_now(BuildErrorRecord(tool=tool, severity="error", message=msg, raw=line))
        return True
    if pip_summary(line):  # pip's: "error: subprocess-exited-with-error"
        self._finish()
        if not explained(self.result, line):
            self._emit_now(BuildErrorRecord(tool="unknown", severity="error", message=msg, raw=line))
        return True
    message, code = split_flag(msg)
    if sev == "warning" and not code:
        # a compiler speaks without a location only with its flag ("[-Wunknown-warning-option]");
        # setuptools' "warning: no previously-included files matching ..." is no diagnostic
        return False
    self._finish()
    rec = BuildErrorRecord(tool="clang", severity=sev, error_code=code, message=message, raw=line)
    open_record(self, rec, "")
    self.rec_flavor = "clang" if (code or self.flavor == "clang" or self.ctx.tool_hint == "clang") else ""
    self.tallied = True  # cc1 speaking without a location: its unit's tally counts it
    return True

def assembler_line(self: GccParser, m: re.Match[str], line: str) -> bool:
    """The assembler gcc ran, after its "x.c: Assembler messages:" line."""
    if not self.assembler:
        return False  # no "Assembler messages:" before it: not known to be the assembler's
    self._finish()
    open_record(self, assembler_record(m, line, self.ctx), m.group("file"))
    self.expect = ""
    self.rec_flavor = "gcc"
    self.tallied = False
    return True


def tidy_line(self: GccParser) -> bool:
    """clang-tidy's own lines ("Suppressed N warnings", "Error while processing"): the tallies
    before them were clang-tidy's, printed before the diagnostics they count."""
    self._finish()
    self.tallies.tidy_speaks()
    return True


# gcc -E's line markers: '# 1 "pp.c"', '# 0 "<built-in>"', '# 2 "pp.c" 2'
_LINEMARKER = lazy_pattern(r'# \d+ "')


def linemarker(self: GccParser, line: str) -> bool:
    """A line marker of ``gcc -E`` output: the preprocessed text is being printed, and its last line
    has no newline, so the next compile's first diagnostic may be glued onto it."""
    if _LINEMARKER.match(line):
        self.preprocessed = True
        return True
    return False


def unglued(self: GccParser, facts: Any, line: str) -> tuple[Any, str]:
    """A diagnostic header after ``gcc -E`` output: ``int main(void) { return 0; }pp2.c:2:5: warning: ...``
    is the preprocessed text's last line (which ends a declaration or a block, ``;`` or ``}``) and then
    the header.  A path of its own with ``;`` or ``}`` in it is only split while -E output is printed."""
    self.preprocessed = False
    path = facts[0]
    cut = max(path.rfind(";"), path.rfind("}")) + 1
    if cut <= 0 or cut >= len(path):
        return facts, line
    rest = line[cut:].lstrip()
    kind, found = _colon_facts(rest)
    if kind != _K_DIAG:
        return facts, line
    return found, rest
