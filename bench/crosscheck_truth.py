"""What a compiler says it emitted, from its structured output, and how our reading of its text compares.

The truth of bench/parse_crosscheck.py and tests/test_parse_crosscheck.py:

* gcc's ``-fdiagnostics-format=json`` (one array per unit; a top-level ``note`` entry belongs to
  the diagnostic before it, as gcc 12 prints some; gcc 12 also nests the diagnostics of one group,
  errors and warnings too, as ``children`` of the first: each is a diagnostic of its own), plus the driver's own lines, which gcc prints
  as text whatever the format (``gcc: error: ...``, ``cc1: warning: ...``);
* clang's ``--serialize-diagnostics`` file, read through libclang's ``clang_loadDiagnostics``.

Locations are compared as the text prints them.  Where the two forms differ by design the text's
side is mapped, never the truth: gcc's text puts a diagnostic inside a macro at the macro's
spelling and adds ``in expansion of macro`` notes, its JSON puts it at the expansion point; gcc's
text-only context (``in expansion of`` / ``in definition of macro``, include chains, template
backtraces) is not among the JSON's notes; clang's file keeps the ``expanded from macro`` notes of
a diagnostic but not those of its notes.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pytest_whetstone.parse import ParseResult, parse_text
from pytest_whetstone.records import INCLUDED_FROM

Where = tuple[str, int, int]


@dataclass
class Diag:
    severity: str  # "error" | "warning"
    file: str
    line: int
    col: int
    message: str
    notes: list[Where] = field(default_factory=list)
    also_at: list[Where] = field(default_factory=list)  # our side only: macro expansion points
    in_macro_arg: bool = False  # our side only: inside a macro's argument (gcc's JSON: the invocation's column)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Diag:
        return cls(**{**data, "notes": [tuple(n) for n in data.get("notes", [])],
                      "also_at": [tuple(n) for n in data.get("also_at", [])]})


def _norm(path: str) -> str:
    return os.path.normpath(path) if path else ""


# --------------------------------------------------------------------------- gcc JSON

# The driver and the programs it runs print these as text even under -fdiagnostics-format=json.
_DRIVER = re.compile(r"^(?:[\w./+-]*/)?(?:gcc|g\+\+|cc|c\+\+|cc1|cc1plus|lto1|lto-wrapper|collect2)(?:-\d+)?: "
                     r"(error|warning|fatal error|sorry, unimplemented|note): (.*)$")
_SUMMARY = re.compile(r"(?:all|some) warnings being treated as errors|ld returned \d+ exit status|\S+ returned \d+ exit status")


def _caret(diag: dict[str, Any], unit: str = "display-column") -> Where:
    locations = diag.get("locations") or []
    caret = (locations[0].get("caret") or {}) if locations and isinstance(locations[0], dict) else {}
    col = caret.get(unit, caret.get("column", 0)) or 0
    return _norm(str(caret.get("file", ""))), max(int(caret.get("line", 0) or 0), 0), max(int(col), 0)


def gcc_json_truth(output: str, max_errors: int = 0, byte_columns: bool = False) -> list[Diag]:
    """gcc 12 prints no JSON at all when ``-fmax-errors=N`` stops it, so such a compile is run
    without the flag and ``max_errors`` cuts each unit where gcc would have stopped: after the
    group (a top-level entry with its children) that holds the N-th error.  ``byte_columns``: the
    text's columns are bytes (``-fdiagnostics-column-unit=byte``), not display columns."""
    out: list[Diag] = []
    unit = "byte-column" if byte_columns else "display-column"
    for raw in output.splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            try:
                array = json.loads(line)
            except ValueError:
                continue
            errors = 0
            for diag in array:
                if max_errors and errors >= max_errors:
                    break
                errors += sum(1 for d in [diag, *(diag.get("children") or [])] if d.get("kind") not in ("note", "warning"))
                kind = str(diag.get("kind", ""))
                where = _caret(diag, unit)
                if kind == "note":
                    if out:
                        out[-1].notes.append(where)
                    continue
                out.append(Diag("warning" if kind == "warning" else "error", *where, str(diag.get("message", ""))))
                for child in diag.get("children") or []:
                    # gcc 12 nests the diagnostics of one group as children, errors too: each is
                    # one of its own, and the notes after it are its notes
                    if child.get("kind") == "note":
                        out[-1].notes.append(_caret(child, unit))
                    else:
                        out.append(Diag("warning" if child.get("kind") == "warning" else "error", *_caret(child, unit),
                                        str(child.get("message", ""))))
            continue
        m = _DRIVER.match(line)
        if m and m[1] == "note":
            if out:  # "lto-wrapper: note: see the '-flto' option documentation": its warning's
                out[-1].notes.append(("", 0, 0))
        elif m and not _SUMMARY.search(m[2]):
            out.append(Diag("warning" if m[1] == "warning" else "error", "", 0, 0, m[2]))
    return out


# --------------------------------------------------------------------------- clang's diagnostics file


class _CXString(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("flags", ctypes.c_uint)]


class _CXSourceLocation(ctypes.Structure):
    _fields_ = [("ptr_data", ctypes.c_void_p * 2), ("int_data", ctypes.c_uint)]


_LIBCLANG = ("/usr/lib/llvm-14/lib/libclang.so.1", "/usr/lib/x86_64-linux-gnu/libclang-14.so.1", "libclang.so")
_lib: Any = None


def libclang() -> Any:
    """libclang, loaded once (None when the machine has none)."""
    global _lib
    if _lib is None:
        for name in _LIBCLANG:
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        else:
            return None
        p, u, s, loc = ctypes.c_void_p, ctypes.c_uint, _CXString, _CXSourceLocation
        for fn, res, args in (
            ("clang_loadDiagnostics", p, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(s)]),
            ("clang_getNumDiagnosticsInSet", u, [p]), ("clang_getDiagnosticInSet", p, [p, u]),
            ("clang_getDiagnosticSeverity", ctypes.c_int, [p]), ("clang_getDiagnosticLocation", loc, [p]),
            ("clang_getDiagnosticSpelling", s, [p]), ("clang_getChildDiagnostics", p, [p]),
            ("clang_getCString", ctypes.c_char_p, [s]), ("clang_disposeString", None, [s]),
            ("clang_getFileName", s, [p]), ("clang_disposeDiagnosticSet", None, [p]),
            ("clang_getSpellingLocation", None, [loc, ctypes.POINTER(p), ctypes.POINTER(u), ctypes.POINTER(u), ctypes.POINTER(u)]),
        ):
            getattr(lib, fn).restype = res
            getattr(lib, fn).argtypes = args
        _lib = lib
    return _lib


def _string(lib: Any, value: _CXString) -> str:
    text = lib.clang_getCString(value) or b""
    lib.clang_disposeString(value)
    return text.decode("utf-8", "replace")


def _location(lib: Any, diag: int) -> Where:
    f, line, col, offset = ctypes.c_void_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    lib.clang_getSpellingLocation(lib.clang_getDiagnosticLocation(diag), ctypes.byref(f), ctypes.byref(line),
                                  ctypes.byref(col), ctypes.byref(offset))
    name = _string(lib, lib.clang_getFileName(f)) if f.value else ""
    return _norm(name), line.value, col.value


def read_dia(path: Path) -> list[Diag]:
    """The diagnostics of one clang ``--serialize-diagnostics`` file (notes as their locations)."""
    lib = libclang()
    if lib is None or not path.exists():
        return []
    err, msg = ctypes.c_int(), _CXString()
    dset = lib.clang_loadDiagnostics(str(path).encode(), ctypes.byref(err), ctypes.byref(msg))
    if not dset:
        return []
    out: list[Diag] = []
    for i in range(lib.clang_getNumDiagnosticsInSet(dset)):
        d = lib.clang_getDiagnosticInSet(dset, i)
        severity = lib.clang_getDiagnosticSeverity(d)  # 1 note, 2 warning, 3 error, 4 fatal
        if severity == 1:  # a note at top level belongs to the diagnostic before it
            if out:
                out[-1].notes.append(_location(lib, d))
            continue
        if severity < 1:
            continue
        diag = Diag("warning" if severity == 2 else "error", *_location(lib, d), _string(lib, lib.clang_getDiagnosticSpelling(d)))
        children = lib.clang_getChildDiagnostics(d)
        for j in range(lib.clang_getNumDiagnosticsInSet(children) if children else 0):
            child = lib.clang_getDiagnosticInSet(children, j)
            # the include stack is stored as notes; the text prints it as context lines
            if not _string(lib, lib.clang_getDiagnosticSpelling(child)).startswith("in file included from "):
                diag.notes.append(_location(lib, child))
        out.append(diag)
    lib.clang_disposeDiagnosticSet(dset)
    return out


# clang's lines with no location that its diagnostics file misses: the driver's own (``clang:
# error: no such file``) and the frontend's before the file is opened (``error: unknown warning
# option '-Wx' [-Werror,-Wunknown-warning-option]``)
_CLANG_BARE = re.compile(r"^(?:(?:[\w./+-]*/)?clang(?:\+\+)?(?:-\d+)?: )?(error|warning|fatal error): (.*?)(?: \[[^\]]*\])?$")
_CLANG_SUMMARY = re.compile(r"linker command failed|too many errors emitted")


def clang_bare_truth(text: str, truth: list[Diag]) -> list[Diag]:
    """The bare lines of ``text`` that ``truth`` (the diagnostics files) does not hold."""
    held = Counter(d.message.strip() for d in truth if not d.file)
    out: list[Diag] = []
    for raw in text.splitlines():
        m = _CLANG_BARE.match(re.sub(r"\x1b\[[0-9;]*m", "", raw).strip())
        if not m or _CLANG_SUMMARY.search(m[2]):
            continue
        if held[m[2].strip()]:
            held[m[2].strip()] -= 1
            continue
        out.append(Diag("warning" if m[1] == "warning" else "error", "", 0, 0, m[2]))
    return out


# --------------------------------------------------------------------------- our side

# gcc's text-only context: no JSON note stands for these lines
_GCC_TEXT_ONLY = re.compile(r"(?:in (?:expansion|definition) of macro|In (?:instantiation|substitution) of|required from|"
                            r"required by substitution|inlined from|In (?:member )?function|At global scope|At top level)")
_MACRO_NOTE = re.compile(r"in expansion of macro")
_MACRO_ARG = re.compile(r"in definition of macro")


def ours(text: str) -> ParseResult:
    return parse_text(text, "auto")


def our_diags(result: ParseResult, root: str = "") -> list[Diag]:
    """Our records as the truth states them; paths under ``root`` (the directory the build ran in,
    where the compiler was asked for absolute paths) made relative to it, as the truth has them."""
    prefix = root.rstrip("/") + "/" if root else ""

    def _norm(path: str) -> str:
        path = globals()["_norm"](path)
        return path[len(prefix):] if prefix and path.startswith(prefix) else path

    out: list[Diag] = []
    for rec in result.build_errors:
        notes: list[Where] = []
        also: list[Where] = []
        in_arg = False
        after_note = False  # clang: "expanded from macro" under a note is that note's backtrace
        for n in rec.notes:
            where = (_norm(n.file_path), n.line, n.col)
            if n.message == INCLUDED_FROM:
                continue
            if rec.tool == "clang":
                expanded = n.message.startswith("expanded from macro")
                if expanded and after_note:
                    continue  # clang's diagnostics file keeps no macro backtrace of a note
                after_note = after_note or not expanded
            if rec.tool == "gcc" and _GCC_TEXT_ONLY.match(n.message):
                if _MACRO_NOTE.match(n.message):
                    also.append(where)
                in_arg = in_arg or bool(_MACRO_ARG.match(n.message))
                continue
            notes.append(where)
        file = _norm(rec.file_path) if rec.line or rec.file_path.startswith("<") else ""
        out.append(Diag(rec.severity if rec.severity in ("error", "warning") else "error", file,
                        rec.line, rec.col, rec.message, notes, also, in_arg))
    return out


_TALLY_ONLY = re.compile(r"too many errors emitted")
NOTES_KEPT = 64  # pytest_whetstone/parse/gcc.py's bound on one record's notes


def _pair_columns(mine: Counter[Where], truth: Counter[Where]) -> None:
    """Take out of both the notes that differ only in column: gcc's JSON puts a note inside a
    macro's argument at the macro's invocation, its text at the argument."""
    for where in list((truth - mine).elements()):
        other = next((m for m in (mine - truth) if m[:2] == where[:2]), None)
        if other is not None:
            mine[other] -= 1
            truth[where] -= 1
    mine += Counter()  # drop the zeros
    truth += Counter()


def _take(pool: list[Diag], d: Diag) -> bool:
    """Remove from ``pool`` (ours) the record that stands for ``d`` (the truth's): the same severity
    at the same place, or at a macro expansion point it names (gcc's JSON puts a diagnostic inside a
    macro's argument, or inside a system header's macro such as ``assert`` where the text names no
    macro, at the invocation: the same line, another column), or on the same line when the text
    printed no column (clang's -fno-show-column)."""
    spot = (d.file, d.line, d.col)
    for pass_ in (0, 1, 2, 3, 4):
        for i, o in enumerate(pool):
            if o.severity != d.severity:
                continue
            if (pass_ == 0 and (o.file, o.line, o.col) == spot) or (pass_ == 1 and spot in o.also_at) \
                    or (pass_ == 2 and not d.file and not o.line and o.message.strip() == d.message.strip()) \
                    or (pass_ == 3 and o.in_macro_arg and (o.file, o.line) == spot[:2]) \
                    or (pass_ == 4 and (o.file, o.line) == spot[:2] and (o.message == d.message or not o.col)):
                del pool[i]
                return True
    return False


def compare(result: ParseResult, truth: list[Diag], root: str = "") -> list[str]:
    """Every way our reading of the text differs from the compiler's own account, one line each."""
    problems: list[str] = []
    errors = sum(1 for d in truth if d.severity == "error")
    warnings = sum(1 for d in truth if d.severity == "warning")
    if result.reported_error_count != errors:
        problems.append(f"error count: ours {result.reported_error_count}, compiler {errors}")
    if result.warning_count != warnings:
        problems.append(f"warning count: ours {result.warning_count}, compiler {warnings}")
    mine = our_diags(result, root)
    my_notes = Counter(n for d in mine for n in d.notes)
    true_notes = Counter(n for d in truth for n in d.notes)
    # the parser keeps at most NOTES_KEPT notes a record (include lines among them): past that
    # the notes cannot be compared, the records and counts still are
    capped = any(len(rec.notes) >= NOTES_KEPT for rec in result.build_errors)
    if capped:
        my_notes = true_notes = Counter()
    elif any(d.in_macro_arg or d.also_at or (d.line and not d.col) for d in mine):
        _pair_columns(my_notes, true_notes)
    if sum(my_notes.values()) != sum(true_notes.values()):
        problems.append(f"note count: ours {sum(my_notes.values())}, compiler {sum(true_notes.values())}")
    pool = list(mine)
    for d in truth:
        if _TALLY_ONLY.match(d.message) and result.uncounted_errors:
            continue  # clang's "too many errors emitted": counted from its tally, no record of its own
        if not _take(pool, d):
            problems.append(f"missing: {d.severity} {d.file}:{d.line}:{d.col}: {d.message[:100]}")
    for o in pool:
        problems.append(f"extra: {o.severity} {o.file}:{o.line}:{o.col}: {o.message[:100]}")
    for where, n in (true_notes - my_notes).items():
        problems.append(f"note missing: {where[0]}:{where[1]}:{where[2]} x{n}")
    for where, n in (my_notes - true_notes).items():
        problems.append(f"note extra: {where[0]}:{where[1]}:{where[2]} x{n}")
    return problems


# --------------------------------------------------------------------------- the linker's own lines

# The linker prints no structured form; its truth is its lines, read by this rule of its own:
# a line the linker prints (``/usr/bin/ld: ...``, ``ld.lld: ...``, ``mold: ...``, gold's unprefixed
# ``obj:src:function f: error: ...``) is one diagnostic when it says ``error:`` / ``fatal:`` /
# ``warning:`` or names an undefined reference or symbol, a multiple or duplicate definition or a
# missing library (bfd prints those without a severity; its ``more undefined references to `x'
# follow`` after five stands for at least one more: one error); a line with the linker's name and
# no severity is an error (bfd labels its warnings: ``hidden symbol `x' isn't defined``, ``final
# link failed: bad value``, which names a reason of its own, unlike ``lto-wrapper failed``).  Not diagnostics: ``in function`` context,
# ``>>>`` lines, bfd's ``NOTE:``, lines that point at the other side of a diagnostic before them
# (``first defined here``, gold's ``previous definition here``, bfd's ``warning: previous common is
# here``: ld says ``warning:`` twice for one multiple common), and the summaries (``lto-wrapper
# failed``, lld's ``too many errors emitted``).
_LD_PROG = re.compile(r"^(?:\S*/)?(?:[\w.-]+-)?(?:ld(?:\.bfd|\.gold|\.lld|\.mold)?|ld64\.lld|lld|gold|mold)(?:-\d+)?: (.*)$")
_GOLD_FUNCTION = re.compile(r"^[^\s:]+\.(?:o|a|so)(?:\([^)]*\))?:[^:]*:function .+?: (error|warning): (.*)$")
_LD_SEVERITY = re.compile(r"(?:^|: )(error|fatal|warning): ")
_LD_UNSAID_ERROR = re.compile(r"undefined references? to|multiple definition of|cannot find -l|undefined (?:hidden |internal )?symbol"
                              r"|duplicate symbol|library not found")
# bfd's lines after its ``in function`` context, unprefixed: ``x.c:(.text+0x15): ...``, with debug
# info ``/abs/x.c:5: undefined reference to ...`` (no column: a compiler would print one)
_BFD_LOCATED = re.compile(r"^(?:[^\s:(][^:]*:)?(?P<where>\([^)]*\)|\d+): (.*)$")
_LD_NOT_A_DIAGNOSTIC = re.compile(r"(?:: in function [`‘'].*[’']:$|^NOTE: |previous definition here$|previous common is here$"
                                  r"|(?:common|definition) is here$|lto-wrapper failed$|too many errors emitted)")


def linker_truth(text: str) -> list[Diag]:
    out: list[Diag] = []
    for raw in text.splitlines():
        line = re.sub(r"\x1b\[[0-9;]*[mK]", "", raw).strip()
        m = _LD_PROG.match(line)
        b = None if m else _BFD_LOCATED.match(line)
        if m:
            rest = m[1]
        elif b is not None and ((b[2].startswith("warning: ") and b["where"].startswith("(")) or _LD_UNSAID_ERROR.search(b[2])):
            rest = b[2]  # a line number without a column and a warning: a compiler's -fno-show-column shape
        else:
            g = _GOLD_FUNCTION.match(line)
            if g is None:
                continue
            out.append(Diag(g[1], "", 0, 0, g[2]))
            continue
        if _LD_NOT_A_DIAGNOSTIC.search(rest):
            continue
        sev = _LD_SEVERITY.search(rest)
        if sev is not None:
            out.append(Diag("warning" if sev[1] == "warning" else "error", "", 0, 0, rest))
        elif m or _LD_UNSAID_ERROR.search(rest):
            # the linker names it: bfd labels its warnings, its errors it prints bare ("hidden
            # symbol `x' isn't defined", "final link failed: bad value": a reason of its own)
            out.append(Diag("error", "", 0, 0, rest))
    return out
