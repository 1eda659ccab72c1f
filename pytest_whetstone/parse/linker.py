"""Linker messages: GNU ld (bfd), gold, lld and mold.

Shapes handled (all real output, see tests/fixtures/build{,_dev}/{ld,gold,lld,mold}):

- bfd:  ``/usr/bin/ld: x.o: in function `main':`` (context: the function of the
  records that follow), then ``x.c:(.text+0x15): undefined reference to `foo'``
  or, with debug info, ``/abs/x.c:5: undefined reference to `foo'``;
  ``multiple definition of `x'; y.o:(.data+0x0): first defined here``;
  ``cannot find -lfoo: No such file or directory``; glibc's link-time warnings
  (``x.c:(.text+0x15f): warning: the use of `tmpnam' is dangerous ...``, with -g at
  ``/abs/x.c:174:``); ``NOTE: This behaviour is deprecated ...`` (a note of the warning before).
- gold: ``x.o:x.c:function main: error: undefined reference to 'foo'`` (and ``warning:``),
  ``x.c:5: error: undefined reference to 'foo'``, ``ld.gold: error: cannot find -lfoo``,
  ``ld.gold: x.o: previous definition here`` (a note).
- lld / mold: ``ld.lld: error: undefined symbol: foo`` (lld: also ``undefined hidden symbol``)
  followed by ``>>> referenced by x.c:5 (/abs/x.c:5)`` and ``>>>   x.o:(main)`` lines;
  ``duplicate symbol``; ``unable to find library -lfoo`` / ``mold: fatal: library not found:
  foo``; lld's ``too many errors emitted, stopping now`` is a summary, no record.

Undefined references and symbols get ``error_type = undefined_symbol`` and the
symbol; a missing ``-l`` library gets ``missing_dependency`` and the library name.
Object files are not source locations: an undefined reference located only by an
object file keeps ``file_path`` empty (the object is in ``raw``); a multiple / duplicate
definition, which lives in the object, names it.  The other definition, further
references and ``note:`` lines are the record's notes, each with the file it names.
"""

from __future__ import annotations

import re

from ..lazy_pattern import lazy_pattern
from ..records import BuildErrorRecord, Note
from .base import LineParser, ParseContext, ParseResult, SummaryGate
from .gcc_text import _BINUTILS_QUOTED

_PROG = lazy_pattern(
    r"(?P<prog>(?:\S*/)?(?:[\w.-]+-)?(?:ld(?:\.bfd|\.gold|\.lld|\.mold)?|lld|ld64\.lld|gold|mold)(?:-\d+)?)"
    r": (?P<rest>.*)"
)
_IN_FUNCTION = lazy_pattern(r"(?P<obj>.+?): in function [`‘'](?P<func>.+)['’]:$")
# a section by its name and offset: ".text+0x15", also one the code named itself
# (``__attribute__((section("text_env")))``: "mdb.c:(text_env+0x159b)")
_SECTION_LOC = lazy_pattern(r"(?:(?P<file>[^\s:(][^:]*?):)?\((?P<sect>\.[^)]*|[\w.$]+\+0x[0-9a-fA-F]+)\): (?P<msg>.+)")
_LINE_LOC = lazy_pattern(r"(?P<file>[^\s:][^:]*?):(?P<line>\d+): (?:(?P<sev>error|warning): )?(?P<msg>.+)")
_GOLD_FUNC = lazy_pattern(
    r"(?P<obj>[^\s:][^:]*?):(?:(?P<file>[^:]+):)?function (?P<func>.+?): (?P<sev>error|warning): (?P<msg>.+)"
)
_REF = lazy_pattern(r">>> (?:referenced by|defined at) (?P<loc>.+)")
_REF_OBJ = lazy_pattern(r">>>\s+\S.*?:\((?P<func>[^)]+)\)$")
_LINKERISH = lazy_pattern(
    r"undefined reference to|multiple definition of|undefined (?:hidden |internal |protected )?symbol"
    r"|duplicate symbol|relocation \S+ against"
)
# lld names the visibility of a symbol no object defines: "undefined hidden symbol: luaH_new"
_UNDEFINED = lazy_pattern(r"undefined (?:reference to|(?:hidden |internal |protected )?symbol:?) [`‘']?(?P<sym>.+?)['’]?$")
_LLD_RECORD = lazy_pattern(r"(?:undefined (?:hidden |internal |protected )?symbol|duplicate symbol)")
_DUPLICATE = lazy_pattern(
    r"(?:multiple definition of [`‘'](?P<a>[^'’]+)['’]|duplicate symbol: (?:\S+\.o: )*(?P<b>\S.*))"
)
_MISSING_LIB = lazy_pattern(
    r"(?:cannot find -l(?P<a>[^\s:]+)|unable to find library -l(?P<b>\S+)|library not found: (?P<c>\S+))"
)
_MOLD_DUP = lazy_pattern(r"duplicate symbol: (?P<objs>(?:\S+\.o: )+)(?P<sym>\S.*)$")
_OBJ_PREFIX = lazy_pattern(r"^(\S+\.o): (?=multiple definition)")
# bfd: "a.o: warning: ...", under -flto "a.o (symbol from plugin): warning: ...", and two objects
# for --warn-common: "b.o and a.o: warning: multiple common of `x'"
_OBJ = r"\S+\.(?:o|obj|a|so|lo)(?:\([^)]*\))?(?: \(symbol from plugin\))?"
_OBJ_SEVERITY = lazy_pattern(rf"^({_OBJ}(?: and {_OBJ})?): (warning|error): ")
_OBJ_NOTE = lazy_pattern(r"(?P<obj>[^\s:][^:]*?)(?::[^:(]+)?(?::\([^)]*\))?: (?P<msg>.+)$")
_OBJECT_EXT = (".o", ".obj", ".a", ".so", ".lo", ".dylib")


def _symbol_and_type(message: str) -> tuple[str, str]:
    m = _UNDEFINED.search(message)
    if m:
        sym = m.group("sym").split("; ")[0].strip("`'‘’")
        return sym, "undefined_symbol"
    m = _MISSING_LIB.search(message)
    if m:
        return m.group("a") or m.group("b") or m.group("c") or "", "missing_dependency"
    m = _DUPLICATE.search(message)
    if m:
        return (m.group("a") or m.group("b") or "").strip(), ""
    return "", ""


class LinkerParser(LineParser):
    name = "linker"
    priority = 14

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.rec: BuildErrorRecord | None = None  # open lld/mold record taking ">>>" lines
        self.function = ""  # from bfd's "in function `f':"
        self.refs = 0
        self.lto_gate = SummaryGate()

    def feed(self, line: str) -> bool:
        if not line:
            if self.rec is not None:
                self._close()
                return True  # lld separates records with a blank line
            return False
        c0 = line[0]
        if c0 == ">" and line.startswith(">>> ") or line.startswith(">>>  "):
            cut = line.find(">>> ", 4)
            if cut > 0:
                # mold writes several ">>>" lines without their newlines between them
                for part in [line[:cut], *(">>> " + p for p in line[cut + 4 :].split(">>> "))]:
                    self._reference(part)
                return True
            return self._reference(line)
        if ": " not in line:
            return False
        m = _PROG.match(line)
        if m:
            return self._prog(m.group("rest"), line)
        if c0 == " ":
            return False
        m = _SECTION_LOC.match(line)
        if m:
            self._section_record("error", m, line)
            return True
        m = _GOLD_FUNC.match(line)
        if m:
            # gold: "x.o:x.c:function f: error: undefined reference to 'g'", and the glibc
            # link-time warnings: "x.o:x.c:function f: warning: the use of `tmpnam' is dangerous"
            self._record(m.group("sev"), m.group("file") or "", 0, m.group("msg"), line, m.group("func"))
            return True
        m = _IN_FUNCTION.match(line)
        if m:
            self._close()
            self.function = m.group("func")
            return True
        m = _LINE_LOC.match(line)
        # binutils quote a name `so' (compilers do not): a glibc link-time warning at "file:line:" (-g)
        if m and (_LINKERISH.match(m.group("msg")) or (m.group("sev") and _BINUTILS_QUOTED.search(m.group("msg")))):
            self._record(m.group("sev") or "error", m.group("file"), int(m.group("line")), m.group("msg"), line)
            return True
        return False

    def flush(self) -> None:
        self._close()
        self.function = ""

    # ------------------------------------------------------------------ kinds

    def _prog(self, rest: str, line: str) -> bool:
        m = _IN_FUNCTION.match(rest)
        if m:
            self._close()
            self.function = m.group("func")
            return True
        sev = "error"
        if rest.startswith("error: "):
            rest = rest[7:]
        elif rest.startswith("fatal: "):
            rest = rest[7:]
        elif rest.startswith("warning: "):
            sev, rest = "warning", rest[9:]
        elif rest.startswith(("note: ", "NOTE: ")) or rest.endswith("previous definition here"):
            if self.rec is not None or self.result.build_errors:
                target = self.rec or self.result.build_errors[-1]
                if target.tool == "linker" and len(target.notes) < 64:
                    target.notes.append(self._object_note(rest[6:]) if rest[:6].lower() == "note: "
                                        else self._object_note(rest))
                    return True
            sev = "note"
        elif len(rest.split()) < 2:
            return True  # a cut-off line ("mold: erro"): nothing to report
        if rest.startswith("too many errors emitted"):
            self._close()
            return True  # lld's --error-limit stop: a summary of the errors above, not one of its own
        if rest == "lto-wrapper failed":
            # bfd's summary of the LTO step, which said why above: a record only if nothing did
            self.ctx.summary_line()
            if not self.lto_gate.explained(self.result):
                self._record(sev, "", 0, rest, line, "-")
            self._close()
            return True
        m = _SECTION_LOC.match(rest)
        if m:
            self._section_record(sev, m, line)
            return True
        m = _LINE_LOC.match(rest)
        if m and _LINKERISH.match(m.group("msg")):
            self._record(m.group("sev") or sev, m.group("file"), int(m.group("line")), m.group("msg"), line)
            return True
        obj = _OBJ_PREFIX.match(rest) or _OBJ_SEVERITY.match(rest)  # gold: "x.o: multiple definition of 'y'"
        if obj and obj.lastindex == 2:
            sev = obj.group(2)  # bfd: "a.o: warning: relocation against `x' in read-only section"
        self._record(sev, obj.group(1) if obj else "", 0, rest[obj.end():] if obj else rest, line, "-")
        if _LLD_RECORD.match(rest):
            self.refs = 0  # its ">>>" lines follow
        else:
            self._close()
        return True

    def _reference(self, line: str) -> bool:
        rec = self.rec
        if rec is None:
            return True  # the rest of a record whose header was cut off
        rec.raw += "\n" + line
        m = _REF.match(line)
        if m:
            self.refs += 1
            if self.refs == 1:
                loc = m.group("loc")
                inner = loc.rfind(" (")
                if inner > 0 and loc.endswith(")"):
                    loc = loc[inner + 2 : -1]  # prefer the full path lld gives in parentheses
                path, _, lineno = loc.rpartition(":")
                if not (lineno.isdigit() and path):
                    path, lineno = loc, "0"
                if "(" in path:  # "Scrt1.o:(.text)": an object, not a source
                    path = ""
                if path.endswith(_OBJECT_EXT) or ("." not in path and "/" not in path):
                    path = ""  # an object, or a name cut off by truncation
                rec.file_path = self.ctx.resolve(path) if path else ""
                rec.line = int(lineno)
            elif len(rec.notes) < 64:
                rec.notes.append(self._reference_note(m.group("loc"), line))
            return True
        m = _REF_OBJ.match(line)
        if m and self.refs == 1 and not rec.function and rec.message.startswith("undefined"):
            func = m.group("func")
            if not func.startswith("."):
                rec.function = func
        return True

    def _reference_note(self, loc: str, line: str) -> Note:
        """A second ``>>> referenced by`` / ``defined at`` line: where else the symbol is."""
        inner = loc.rfind(" (")
        if inner > 0 and loc.endswith(")"):
            loc = loc[inner + 2 : -1]
        path, _, lineno = loc.rpartition(":")
        if not (lineno.isdigit() and path):
            path, lineno = loc, "0"
        said = "also defined here" if "defined at" in line else "also referenced here"
        return Note("note", self.ctx.resolve(path), int(lineno), 0, said)

    def _object_note(self, text: str) -> Note:
        """``y.o:(.data+0x0): first defined here``, ``y.o: previous definition here``."""
        m = _OBJ_NOTE.match(text)
        if m is None:
            return Note(message=text)
        return Note("note", self.ctx.resolve(m.group("obj")), 0, 0, m.group("msg"))

    # ------------------------------------------------------------------ records

    def _section_record(self, sev: str, m: re.Match[str], raw: str) -> None:
        # "in function" context covers code relocations only, not data definitions.
        sect = m.group("sect")
        in_code = sect.startswith(".text") or not sect.startswith(".")  # a section the code named holds code
        msg = m.group("msg")
        if msg.startswith("warning: "):
            # bfd's glibc link-time warning: "x.c:(.text+0x15f): warning: the use of `tmpnam' is dangerous"
            sev, msg = "warning", msg[9:]
        self._record(sev, m.group("file") or "", 0, msg, raw, "" if in_code else "-")

    def _record(self, sev: str, path: str, line_no: int, message: str, raw: str, func: str = "") -> None:
        self._close()
        duplicate = message.startswith(("multiple definition", "duplicate symbol"))
        if "(" in path or (path.endswith(_OBJECT_EXT) and not duplicate):
            path = ""
        symbol, error_type = _symbol_and_type(message)
        notes: list[Note] = []
        head, sep, tail = message.partition("; ")
        if sep and "first defined here" in tail:
            message, notes = head, [self._object_note(tail)]  # the message free of temporary object names
        m = _MOLD_DUP.match(message)
        if m:
            # mold: "duplicate symbol: a.o: b.o: sym": the record in a.o, the other definition in b.o
            objs = m.group("objs").rstrip(": ").split(": ")
            message = f"duplicate symbol: {m.group('sym')}"
            path = path or objs[0]
            notes = [Note("note", self.ctx.resolve(o), 0, 0, "also defined here") for o in objs[1:]]
        rec = BuildErrorRecord(
            tool="linker",
            severity=sev,
            file_path=self.ctx.resolve(path) if path else "",
            line=line_no,
            message=message,
            symbol=symbol,
            function="" if func == "-" else (func or self.function),
            notes=notes,
            raw=raw,
        )
        if error_type:
            rec.error_type = error_type
        self.result.build_errors.append(rec)
        self.rec = rec

    def _close(self) -> None:
        self.rec = None
        self.refs = 0


LINE_PARSERS = [LinkerParser]
