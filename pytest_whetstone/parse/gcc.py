"""GCC and Clang diagnostics (C and C++), one streaming state machine for both.

A diagnostic is a header ``file:line[:col]: severity: message [-Wflag]`` followed by the
lines that belong to it: the source echo and caret (``context_lines``), notes, fix-its.  Lines
that come *before* a diagnostic and describe it ("In file included from", gcc's "In function
'f':", "In instantiation of", "required from here") are held for the next one.  Summary lines
(``collect2: error: ld returned 1 exit status``, ``compilation terminated.``, ...) are claimed
but are no records, and gcc vs clang is decided per diagnostic from what the compiler printed:
see docs/parsers.md for both; clang's tallies are :mod:`.tally`'s, messages printed over several
lines :mod:`.gcc_wrap`'s, what a source echo is (and is not) :mod:`.gcc_echo`'s.
"""

from __future__ import annotations

import re
from typing import Any

from ..lazy_pattern import lazy_pattern
from ..records import BuildErrorRecord, Note
from . import gcc_echo, gcc_inline, gcc_wrap
from .base import LineParser, ParseContext, ParseResult, RunError, SummaryGate
from .gcc_driver import assembler_line, bare_line, linemarker, tidy_line, tool_line, unglued
from .gcc_text import (
    _ASM_MESSAGES,
    _CARET,
    _COLON_MEMO,
    _COMMAND,
    _FIXIT,
    _GCC_ECHO,
    _GENERATED,
    _ICE_TAIL,
    _INCLUDED,
    _INCLUDED_MORE,
    _K_ASM,
    _K_BARE,
    _K_CONTEXT,
    _K_DIAG,
    _K_REMARK,
    _K_SCOPE,
    _K_TOOL,
    _SOURCE_EXT,
    STDIN,
    SourceLines,
    _colon_facts,
    _DiagFacts,
    command_compiler,
    looks_foreign,
    worded_by,
)
from .notes import MAX_NOTES as _MAX_NOTES
from .notes import make_note, note_at
from .tally import Tallies

# GccParser._diagnostic builds its records positionally: gcc_text pins the field order at import.

# "x.c: In function " / "x.cpp: In member function " as -fmessage-length leaves it, the name on the next line
_SCOPE_HEAD = lazy_pattern(r"[^:\s][^:]*: In (?:[\w ]*function|constructor|destructor|instantiation of) $")
_TIDY_STARTS = ("Error while processing ", "Suppressed ", "Use -header-filter=", "Found compiler error")
_REST_STARTS = (*_TIDY_STARTS, "compilation terminated", "# ")
_MAX_CONTEXT = 32
_MAX_RAW_LINES = 200
_MAX_UNDECIDED = 4096


class GccParser(LineParser):
    """gcc, g++, clang, clang++ diagnostics and driver messages."""

    name = "gcc"
    priority = 13

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.rec: BuildErrorRecord | None = None
        self.raw: list[str] = []  # lines of the open record, joined into rec.raw when it closes
        self.ice = False  # the open record is an internal compiler error (claims the bug-report text)
        self.rec_flavor = ""  # evidence from the open record: "gcc" | "clang" | ""
        self.in_note = False  # echo lines now belong to a note of the open record
        self.expect = ""  # clang echo: "source" -> "caret" -> "hint"
        self.flavor = ""  # sticky: the last flavour proven by evidence
        self.pending_notes: list[str] = []  # include chain / instantiation context
        self.tallies = Tallies(result, ctx)  # clang's "N warnings and M errors generated."
        self.tallied = False  # the open record is a compiler's diagnostic (a driver's line is not)
        self.pending_tu = ""
        self.chain_style = ""  # "gcc" ("from" continuation lines) or "clang"
        self.scope: dict[str, str] = {}  # file -> function named by gcc's "In function"
        self.tu_of: dict[str, str] = {}  # header -> translation unit (from include chains)
        self.undecided: list[BuildErrorRecord] = []
        self.last: BuildErrorRecord | None = None
        # -fmessage-length=N: gcc breaks a long message after a space (or " [" before its flag)
        # and goes on in the next line, 3 spaces in; the piece printed last, while one may follow
        self.wrap_tail = ""
        self.wrap_raw = 0  # len(self.raw) right after that piece: a source echo since ends the message
        self.wrap_at: tuple[Any, ...] | None = None  # facts of the header that opened the message (every-line)
        self.may_go_on = False  # the message printed so far may go on in a header of its own (every-line)
        self.unjoin: tuple[Any, ...] | None = None  # a clang wrap that may have been the source echo
        self.held: tuple[Any, ...] | None = None  # a line taken as clang's echo that may be message text
        self.label: tuple[re.Match[str], str] | None = None  # "error: x;" where the echo is due: echo or cc1?
        self.preprocessed = False  # gcc -E's output is being printed (its last line lacks a newline)
        self.odd = False  # the open record holds a line (held, label) or is a remark: see _finish
        self.scope_head = ""  # "x.c: In function " wrapped before the name
        self.link_gate = SummaryGate()
        self.command_gate = SummaryGate()
        self.lto_gate = SummaryGate()
        self.sources = SourceLines()
        self.assembler = False  # gcc ran the assembler and it spoke ("x.c: Assembler messages:")
        self.inline_func = ""  # "In function 'strcpy'," of an inline chain: where the next diagnostic is
        self.aside: tuple[str, str, list[str], str] | None = None  # a chain another job's lines cut off

    # ------------------------------------------------------------------ feeding

    def feed(self, line: str) -> bool:
        if not line:
            return False
        c0 = line[0]
        if c0 == " ":
            bar = line.find("|", 0, 16)
            if bar > 0 and line[bar - 1] == " " and (line[:bar].strip() or "0").isdigit():
                # gcc's source echo / caret line ("    4 |   code", "      |   ^~~"): the hot path
                rec = self.rec
                if rec is not None:
                    if not self.rec_flavor:
                        self.rec_flavor = "gcc"
                    if not self.in_note and len(rec.context_lines) < _MAX_CONTEXT:
                        rec.context_lines.append(line)
                    if len(self.raw) < _MAX_RAW_LINES:
                        self.raw.append(line)
                return True
            return self._indented(line)
        if c0 == "\t":
            return self._indented(line)
        if c0 == "f" and line.startswith("fix-it:"):
            return self._fixit(line)
        if c0 == "I" and line.startswith("In file included from "):
            return self._include(line)
        if c0 == "I" and line.endswith(",") and gcc_inline.head(self, line):
            return True
        if ": " in line:
            kind, facts = _COLON_MEMO.get(line) or _colon_facts(line)
            if kind:
                return self._colon_line(kind, facts, line)
        elif c0.isdigit() and line.endswith("generated.") and _GENERATED.match(line):
            self._finish()
            self._decide("clang")
            self.tallies.said(line)
            return True
        return self._feed_rest(line)

    def _colon_line(self, kind: int, facts: Any, line: str) -> bool:
        """A line of one of the "file: ..." shapes (``_colon_facts`` found which)."""
        if kind == _K_DIAG:
            return self._diagnostic(facts, line)
        if kind == _K_SCOPE:
            return self._scope(facts)
        if kind == _K_TOOL:
            return tool_line(self, facts, line)
        if kind == _K_CONTEXT:
            return self._context(facts, line)
        if kind == _K_BARE:
            return bare_line(self, facts, line)
        if kind == _K_ASM:
            return assembler_line(self, facts, line)
        if kind == _K_REMARK:
            return gcc_echo.remark(self, facts, line)
        self._decide("gcc")  # _K_TREATED: "cc1: all warnings being treated as errors"
        self.ctx.summary_line()
        return True

    def _feed_rest(self, line: str) -> bool:
        """``feed`` for a line of none of the shapes tested before."""
        if line.startswith(_REST_STARTS):
            if line[0] != "#":
                if line[0] != "c":
                    return tidy_line(self)
                self._decide("gcc")  # "compilation terminated."
                self.ctx.summary_line()
                return True
            if linemarker(self, line):
                return False  # gcc -E's output: no parser's
        if line.endswith(_ASM_MESSAGES):
            self._finish()
            self.assembler = True  # its "x.c:4: Error: ..." lines follow
            return True
        if line.endswith(" ") and _SCOPE_HEAD.match(line):
            # -fmessage-length: "x.c: In function " and the name 3 spaces in on the next line
            self._finish()
            self.scope_head = line
            return True
        if self.rec is not None:
            expect = self.expect
            if expect == "source" and not looks_foreign(line):
                return gcc_wrap.source_or_text(self, line)  # clang's echo (a note's: raw only), or text
            if (expect == "caret" or expect == "label") and _CARET.match(line):
                # clang's caret under column 1 of its echo, not indented ("^" alone)
                if self.label is not None:
                    gcc_echo.label_is_echo(self)
                self._echo_line(line)
                self.rec_flavor = self.rec_flavor or "clang"
                self.expect = "hint0"
                return True
            if expect == "caret" and line.endswith("]") and gcc_wrap.flag_closes(self, line):
                return True
            if expect == "hint0" and not looks_foreign(line) and not _COMMAND.match(line):
                # the fix-it text clang prints under such a caret ("static ")
                self._echo_line(line)
                self.expect = ""
                return True
            if self.ice and line.startswith(_ICE_TAIL):
                self._add_raw(line)
                return True
        if (" -c " in line or " -o " in line or " -E " in line) and _COMMAND.match(line):
            self.ctx.last_command = line  # its sources are read when a diagnostic needs them
            return True
        return False

    def feed_run(self, lines: list[str], i: int, base: int) -> int:
        """``feed`` over ``lines[i:]`` while claimed, in one loop: the source echo (about half
        the lines of a log with diagnostics) inlined, and headers already seen (memoised)
        dispatched without re-testing the line.  ctx.line_no is kept but on the echo lines."""
        n = len(lines)
        feed = self.feed
        ctx = self.ctx
        memo_get = _COLON_MEMO.get
        colon_facts = _colon_facts
        diagnostic = self._diagnostic
        try:
            while i < n:
                line = lines[i]
                c0 = line[:1]
                if c0 == " ":
                    bar = line.find("|", 0, 16)
                    if bar > 0 and line[bar - 1] == " " and (line[:bar].strip() or "0").isdigit():
                        rec = self.rec
                        if rec is not None:
                            if not self.rec_flavor:
                                self.rec_flavor = "gcc"
                            if not self.in_note and len(rec.context_lines) < _MAX_CONTEXT:
                                rec.context_lines.append(line)
                            raw = self.raw
                            if len(raw) < _MAX_RAW_LINES:
                                raw.append(line)
                        i += 1
                        continue
                elif c0 != "\t" and c0 != "f" and c0 != "I":
                    # feed's branches for these first characters come before the memo
                    ctx.line_no = base + i + 1
                    hit = memo_get(line)
                    if hit is None and ": " in line:
                        hit = colon_facts(line)
                    if hit is not None:
                        kind = hit[0]
                        if kind == _K_DIAG:
                            if not diagnostic(hit[1], line):
                                return i
                        elif kind == _K_SCOPE:
                            self._scope(hit[1])
                        elif not (self._colon_line(kind, hit[1], line) if kind else self._feed_rest(line)):
                            return i
                        i += 1
                        continue
                ctx.line_no = base + i + 1
                if not feed(line):
                    return i
                i += 1
        except Exception as exc:  # noqa: BLE001 - the dispatcher drops this parser
            raise RunError(i) from exc
        return i

    def holds(self) -> object | None:
        # Records still waiting for evidence of gcc vs clang change their tool, and a
        # fix-it line attaches to the last record even after it closed.
        return self.undecided[0] if self.undecided else self.last

    def flush(self) -> None:
        self._finish()
        self.pending_notes = []
        self.pending_tu = ""
        self.expect = ""
        self.inline_func, self.aside = "", None

    # ------------------------------------------------------------------ line kinds

    def _indented(self, line: str) -> bool:
        if _GCC_ECHO.match(line):
            if self.rec is not None:
                self.rec_flavor = self.rec_flavor or "gcc"
                if self.in_note:
                    self._add_raw(line)
                else:
                    self._add_context(line)
            return True
        if self.chain_style == "gcc" and line.lstrip().startswith("from "):
            m = _INCLUDED_MORE.match(line)
            if m:
                self.pending_notes.append(line.strip())
                self.pending_tu = m.group("file")  # gcc lists the outermost file last
                return True
        if self.scope_head:
            return gcc_wrap.scope_rest(self, line)
        if line.startswith("    inlined from ") and gcc_inline.inlined_from(self, line):
            return True
        if self.rec is None:
            return bool(_CARET.match(line))
        if self.wrap_tail and line.startswith("   ") and len(self.raw) == self.wrap_raw \
                and gcc_wrap.continues(self, line):
            return gcc_wrap.wrapped(self, line)
        self.wrap_tail = ""
        if _CARET.match(line):
            if self.unjoin is not None:
                gcc_wrap.undo(self)
            if self.label is not None:
                gcc_echo.label_is_echo(self)
            self._echo_line(line)
            self.rec_flavor = self.rec_flavor or gcc_echo.caret_flavor(self, line)
            self.expect = "hint"
            return True
        if self.expect == "source" and line.startswith("      ") and line[6:7] not in (" ", "\t", "") \
                and gcc_wrap.clang_piece(self, line):
            return True  # clang -fmessage-length: 6 spaces in
        if self.expect == "source" or self.expect == "hint":
            # clang's echoed source line, or the fix-it hint printed under the caret.
            if self.in_note:
                self._add_raw(line)
            else:
                self._add_context(line)
            self.expect = "caret" if self.expect == "source" else ""
            return True
        return False

    def _diagnostic(self, facts: _DiagFacts, line: str) -> bool:
        # The hot path of a big log: gcc_driver.open_record inlined, the record built in one call.
        if self.preprocessed:
            facts, line = unglued(self, facts, line)
        path, line_no, col, sev, message, code, ice, flavor, symbol, linkerish, stripped, is_source, echo, more = facts
        if linkerish:
            return False  # gold prints "x.c:5: error: undefined reference": the linker's
        if sev == "note" and self.rec is None and self._late_note(
                note_at(self.ctx, path, line_no, col, f"{message} [{code}]" if code else message), stripped):
            return True
        if self.rec is not None:
            if self.may_go_on and gcc_wrap.every_line(self, facts, line):
                return True
            if sev == "note":
                if self.pending_notes:
                    self._chain_to_note(path)
                if self.held is not None:
                    gcc_wrap.settle(self)
                rec = self.rec
                if len(rec.notes) < _MAX_NOTES:
                    rec.notes.append(note_at(self.ctx, path, line_no, col, f"{message} [{code}]" if code else message))
                self._add_raw(stripped)
                self.in_note = True
                self.expect = "source"
                self.wrap_tail = line  # as printed: "stripped" lost the space a wrap leaves
                self.wrap_raw = len(self.raw)
                self.wrap_at = facts
                self.may_go_on = more
                return True
            self._finish()
        if self.aside is not None and not self.inline_func:
            gcc_inline.take_back(self, path)
        ctx = self.ctx
        file_path = ctx.resolve(path)
        notes: list[Note] = []
        if self.pending_notes:
            notes = [make_note(t, ctx) for t in self.pending_notes[:_MAX_NOTES]]
            self.pending_notes = []
        tu = self.pending_tu
        if tu:
            if not tu.endswith(_SOURCE_EXT) and tu != STDIN:
                tu = self._unit_of_header(tu)
            self._remember_tu(path, tu)
        else:
            tu = self.tu_of.get(path, "")
        if tu:
            unit = ctx.resolve(tu)
        elif is_source:
            unit = file_path
        else:
            sole = ctx.sole_source()
            unit = ctx.resolve(sole) if sole else ""
        # A note with no diagnostic to attach to (truncated log) is a record of its own.
        # Positional (see _POSITIONAL): error_id, tool, severity, file_path, line, col,
        # error_code, message, context_lines, ast_node_id, error_type, is_lint, notes,
        # fixits, symbol, function, translation_unit, raw.
        self.rec = BuildErrorRecord(
            "", "gcc", sev, file_path, line_no, col, code, message, [], None, "unknown", False, notes, [],
            symbol, self.inline_func or (self.scope.get(path, "") if path else ""), unit, line,
        )
        self.inline_func = ""
        self.ice = ice
        self.chain_style = ""
        self.wrap_tail = line
        self.wrap_raw = len(self.raw)
        self.wrap_at = facts
        self.may_go_on = more
        self.in_note = False
        self.expect = "source" if echo else ""
        self.rec_flavor = flavor
        self.tallied = True
        return True

    def _late_note(self, note: Note, stripped: str) -> bool:
        """A note after its record was closed (make -j put another job's line between them)
        still belongs to the last diagnostic, not a record of its own."""
        last = self.last
        if last is None or last.severity == "note" or last.tool not in ("gcc", "clang", "clang_tidy"):
            return False
        if self.pending_notes:
            last.notes.extend(make_note(t, self.ctx) for t in self.pending_notes[:_MAX_NOTES])
            self.pending_notes, self.pending_tu, self.chain_style, self.inline_func = [], "", "", ""
        if len(last.notes) < _MAX_NOTES:
            last.notes.append(note)
        if last.raw.count("\n") < _MAX_RAW_LINES:
            last.raw += "\n" + stripped
        return True

    def _chain_to_note(self, printed_path: str) -> None:
        """The include chain (or instantiation context) printed before a note of the open
        record: context of that note, kept with the record's notes."""
        assert self.rec is not None
        room = _MAX_NOTES - len(self.rec.notes)
        self.rec.notes.extend(make_note(t, self.ctx) for t in self.pending_notes[: max(0, room)])
        self.pending_notes, self.inline_func = [], ""
        if self.pending_tu:
            self._remember_tu(printed_path, self.pending_tu)
        self.chain_style = ""

    def _unit_of_header(self, header: str) -> str:
        """gcc cuts an include chain it printed before short, at a header (``map:60``): the
        unit that header belongs to, else the one source the compile command names."""
        return self.tu_of.get(header) or self.ctx.sole_source() or header

    def _remember_tu(self, printed_path: str, unit: str) -> None:
        """The include chain just read named ``unit`` as the translation unit that reached
        ``printed_path`` (a header): remember it (bounded), and the chain is used up."""
        if printed_path:
            if len(self.tu_of) > 1024:
                self.tu_of.clear()
            self.tu_of[printed_path] = unit
        self.pending_tu = ""

    def _note(self, text: str) -> None:
        assert self.rec is not None
        if self.held is not None:
            gcc_wrap.settle(self)
        if len(self.rec.notes) < _MAX_NOTES:
            self.rec.notes.append(make_note(text, self.ctx))
        self._add_raw(text)
        self.in_note = True
        self.expect = "source"

    def _scope(self, facts: tuple[str, str, str]) -> bool:
        self._finish()
        kind, path, value = facts
        if self.inline_func and kind != "chain":
            gcc_inline.set_aside(self, path)
        if kind == "chain":
            self.pending_notes.append(value)
        else:
            if kind == "function" and len(self.scope) > 1024:
                self.scope.clear()
            self.scope[path] = value
        self.flavor = "gcc"  # _decide("gcc"), inlined
        if self.undecided:
            self._decide("gcc")
        return True

    def _context(self, m: re.Match[str], line: str) -> bool:
        # gcc: "t.cpp:16:23:   required from here" (before the error it explains).
        if self.pending_notes or self.rec is None:
            self.pending_notes.append(line.strip())
        else:
            self._note(line.strip())
        self._decide("gcc")
        return True

    def _include(self, line: str) -> bool:
        m = _INCLUDED.match(line)
        if not m:
            return False
        # The open record stays open: gcc prints an include chain before a *note* too (a
        # candidate declared in a header), and the note belongs to it.  The next error or
        # warning closes it, as it would have closed it here.
        if self.pending_notes and self.chain_style == "clang":
            pass  # clang: one line per level, outermost first; keep the first as the root
        else:
            self.pending_tu = m.group("file")
        self.chain_style = "gcc" if line.endswith(",") else "clang"
        if self.chain_style == "clang" and not self.pending_tu:
            self.pending_tu = m.group("file")
        self.pending_notes.append(line.strip())
        return True

    def _fixit(self, line: str) -> bool:
        m = _FIXIT.match(line)
        if not m:
            return False
        target = self.rec or self.last
        if target is None:
            return True
        target.fixits.append(self.sources.fixit_edit(m, self.ctx))
        if target is self.rec:
            self._add_raw(line)
        return True

    # ------------------------------------------------------------------ helpers

    def _add_context(self, line: str) -> None:
        rec = self.rec
        assert rec is not None
        if len(rec.context_lines) < _MAX_CONTEXT:
            rec.context_lines.append(line)
        if len(self.raw) < _MAX_RAW_LINES:
            self.raw.append(line)

    def _echo_line(self, line: str) -> None:
        """A line of the source echo: the record's context, or only its raw text under a note."""
        if self.in_note:
            self._add_raw(line)
        else:
            self._add_context(line)

    def _add_raw(self, line: str) -> None:
        if self.rec is not None and len(self.raw) < _MAX_RAW_LINES:
            self.raw.append(line)

    def _finish(self) -> None:
        rec = self.rec
        if rec is None:
            return
        if self.odd:  # a line held for what follows, or a remark: gcc_echo.finish_odd
            gcc_echo.finish_odd(self, rec)
            return
        self.rec = None
        if self.raw:
            rec.raw = "\n".join([rec.raw, *self.raw])
            self.raw = []
        self.ice = False
        self.in_note = False
        self.expect = ""
        flavor = self.rec_flavor or worded_by(rec.message)
        if flavor:
            self.flavor = flavor  # _decide(flavor), inlined
            if self.undecided:
                self._decide(flavor)
            rec.tool = flavor
        elif self.ctx.last_command and (said := command_compiler(self.ctx.last_command)) and \
                self.ctx.tool_hint not in ("gcc", "clang"):
            rec.tool = said  # the record says nothing, the compile command make echoed does
        else:
            hint = self.ctx.tool_hint
            rec.tool = hint if hint in ("gcc", "clang") else self.flavor or "gcc"
            if len(self.undecided) >= _MAX_UNDECIDED:
                self.undecided.clear()
            self.undecided.append(rec)
        if rec.error_code[:1].isalpha():
            self.result.saw("clang_tidy")
            rec.tool = "clang_tidy"  # a check name ([bugprone-...], [clang-diagnostic-error]), not a -W flag
            self.tallies.tidy_speaks()
        elif self.tallied and flavor != "gcc":
            self.tallies.record(rec.severity)
        self.result.build_errors.append(rec)
        self.last = rec

    def _emit_now(self, rec: BuildErrorRecord) -> None:
        self.result.build_errors.append(rec)
        self.last = rec

    def _decide(self, flavor: str) -> None:
        """Evidence of which compiler is talking: settle the records that had none."""
        self.flavor = flavor
        if self.undecided:
            for rec in self.undecided:
                if rec.tool in ("gcc", "clang"):
                    rec.tool = flavor
            self.undecided.clear()


LINE_PARSERS = [GccParser]
