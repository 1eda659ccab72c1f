"""What a gcc/clang output line says, independent of any parser state.

The line shapes (diagnostic header, "In function", tool line, fix-it, include chain,
source echo), the facts of a header line, the flag in brackets, the symbol a message
is about, the function an "In function" line names, and the C escapes of fix-it text:
pure functions of one string, memoised where a real build log repeats the same text
once per translation unit.  The state machine that groups lines into records is
:mod:`.gcc`.
"""

from __future__ import annotations

import dataclasses
import os
import re
from functools import lru_cache
from typing import Any

from ..lazy_pattern import lazy_pattern
from ..records import BuildErrorRecord, Position, TextEdit
from .base import SOURCE_EXT as _SOURCE_EXT
from .base import ParseContext

# GccParser._diagnostic (parse/gcc.py) builds its records positionally, three times cheaper than by keyword on
# the hot path of a big log; this pins the field order and defaults it relies on.
_POSITIONAL = ("error_id", "tool", "severity", "file_path", "line", "col", "error_code", "message",
               "context_lines", "ast_node_id", "error_type", "is_lint", "notes", "fixits", "symbol",
               "function", "translation_unit", "raw")
_DEFAULTS = BuildErrorRecord()
if (
    tuple(f.name for f in dataclasses.fields(BuildErrorRecord))[: len(_POSITIONAL)] != _POSITIONAL
    or (_DEFAULTS.error_id, _DEFAULTS.ast_node_id, _DEFAULTS.error_type, _DEFAULTS.is_lint) != ("", None, "unknown", False)
):
    raise ImportError("gcc parser: BuildErrorRecord's fields changed; update GccParser._diagnostic (parse/gcc.py)")
del _DEFAULTS

# clang's -fdiagnostics-show-category=name|id puts the category after the flag ("[-Wformat,Format String
# Issue]", "[-Wformat,3]"): a comma before a capital, '#' or digit starts it, and it is no part of the flag.
_FLAG = lazy_pattern(
    r"\s\[(?P<code>(?:-W|-f|-pedantic|-Werror)[\w+=.<>#-]*(?:,(?![A-Z#\d])[\w+=.<>#-]*)*(?:,-W[\w+=.#-]*)*"
    r"|[a-z][a-z0-9]*(?:-[a-zA-Z0-9.]+)+(?:,-?[a-z][a-zA-Z0-9.-]+)*)(?:,[A-Z#\d][^\]]*)?\]$"
)
# ... and alone ("[Semantic Issue]") on a diagnostic no flag controls: clang's category names
_CATEGORY = lazy_pattern(r"\s\[(?:[A-Z][\w@ -]*? Issue|ARC [\w@ ]+|Deprecations|#pragma message Directive)\]$")
_QUOTED = "[‘'`\"]([^’'`\"]+)[’'`\"]"
# (cheap substring test, pattern): the regex only runs when its trigger is present.
_SYMBOL_PATTERNS = [
    (trigger, lazy_pattern(p))
    for trigger, p in (
        ("undeclared", _QUOTED + r" undeclared"),
        ("not declared", _QUOTED + r" was not declared in this scope"),
        ("undeclared identifier", r"use of undeclared identifier " + _QUOTED),
        ("function", r"implicit(?:ly)? declar(?:ation of|ing library) function " + _QUOTED),
        ("undeclared", r"call to undeclared (?:library )?function " + _QUOTED),
        ("unknown type name", r"unknown type name " + _QUOTED),
        ("does not name", _QUOTED + r" does not name a type"),
        ("has not been", _QUOTED + r" has not been declared"),
        ("member named", r"(?:has )?no member named " + _QUOTED),
        ("undefined reference", r"undefined reference to " + _QUOTED),
        ("file not found", r"^" + _QUOTED + r" file not found"),
        ("No such file", r"^([^\s:]+\.[\w+]+): No such file or directory"),
    )
]
_NOT_MEMBER = lazy_pattern(_QUOTED + r" is not a member of " + _QUOTED)
_NO_TYPE_IN = lazy_pattern(r"no (?:type|template|member) named " + _QUOTED + r" in namespace " + _QUOTED)
_FUNC_NAME = lazy_pattern(r"([\w:~<>,]+?)\s*\(")


def split_flag(message: str) -> tuple[str, str]:
    """``"unused variable 'x' [-Wunused-variable]"`` -> (message, "-Wunused-variable"); clang's category
    (``[-Wformat,Format String Issue]``, a bare ``[Semantic Issue]``) is neither flag nor message."""
    if message.endswith("]"):
        # The flag holds no '[' and no whitespace, so the only place a match can start is
        # just before the last '[': one anchored match instead of a scan of the message.
        start = message.rfind("[") - 1
        m = _FLAG.match(message, start) if start >= 0 else None
        if m:
            return message[:start].rstrip(), m.group(1)  # "code", by index: cheaper
        if start >= 0 and (message.endswith(("Issue]", "Deprecations]", "Directive]")) or "[ARC " in message):
            if _CATEGORY.match(message, start):
                return message[:start].rstrip(), ""
    return message, ""


_LEAD_SUFFIXES = (" undeclared", " was not declared", " does not name a type", " has not been declared")


# Headers are compiled once per translation unit, so the same message and the same
# "In function" line repeat many times in a real build log: bounded caches.
@lru_cache(maxsize=4096)
def find_symbol(message: str) -> str:
    """The identifier/header/library an error is about, when its message names one."""
    if message[:1] in "‘'":
        # The commonest shapes, without a regex: "‘x’ undeclared ...", "'x' was not declared ..."
        end = message.find("’" if message[0] == "‘" else "'", 1)
        if end > 1 and message.startswith(_LEAD_SUFFIXES, end + 1):
            return message[1:end]
    if "in namespace" in message:
        m = _NO_TYPE_IN.search(message)
        if m:
            return f"{m.group(2)}::{m.group(1)}"
    if "is not a member of" in message:
        m = _NOT_MEMBER.search(message)
        if m:
            return f"{m.group(2)}::{m.group(1)}"
    for trigger, pattern in _SYMBOL_PATTERNS:
        if trigger in message:
            m = pattern.search(message)
            if m:
                return m.group(1)
    return ""


@lru_cache(maxsize=4096)
def function_name(signature: str) -> str:
    """``'int Account::deposit(int)'`` -> ``Account::deposit``; ``'main'`` -> ``main``."""
    text = signature.strip(" ‘’'`\"")
    if text.isidentifier():
        return text  # the commonest case (C): a bare name, which the search below returns too
    m = _FUNC_NAME.search(text)
    return (m.group(1) if m else text.split()[-1] if text.split() else "").strip()


def unescape_fixit(text: str) -> str:
    """Decode gcc/clang's C-style escaping of fix-it text (``\\n``, ``\\"``, ``\\ooo``)."""
    if "\\" not in text:
        return text
    out = bytearray()
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in "01234567":
                j = i + 1
                while j < n and j < i + 4 and text[j] in "01234567":
                    j += 1
                out.append(int(text[i + 1 : j], 8) & 0xFF)
                i = j
                continue
            out.extend({"n": b"\n", "t": b"\t", "r": b"\r"}.get(nxt, nxt.encode()))
            i += 2
            continue
        out.extend(ch.encode("utf-8", "surrogatepass"))
        i += 1
    return out.decode("utf-8", "replace")


# file:line[:col][{ranges}]: severity: message
_DIAG = lazy_pattern(
    r"(?P<file>(?:[A-Za-z]:[\\/])?[^:\n]*):(?P<line>\d+):(?:(?P<col>\d+):)?(?:\{[^}]*\}:?)*"
    r" (?P<sev>fatal error|error|warning|note|remark|internal compiler error|sorry, unimplemented)"
    r": ?(?P<msg>.*)"
)
# clang -fdiagnostics-format=msvc: "file(line,col): severity: message" (the column is required: nvcc's
# EDG front end prints "x.cu(5): error: ..." too); =vi: "file +line[:col]: severity: message"
_DIAG_MSVC = lazy_pattern(
    r"(?P<file>(?:[A-Za-z]:[\\/])?[^:\n]*?)\((?P<line>\d+),(?P<col>\d+)\) ?:"
    r" (?P<sev>fatal error|error|warning|note|remark): ?(?P<msg>.*)"
)
_DIAG_VI = lazy_pattern(
    r"(?P<file>(?:[A-Za-z]:[\\/])?[^:\n]*?) \+(?P<line>\d+):(?:(?P<col>\d+):)?"
    r" (?P<sev>fatal error|error|warning|note|remark): ?(?P<msg>.*)"
)
# file:line:col:   required from here   (gcc context, indented by three spaces)
_CONTEXT_LOC = lazy_pattern(r"(?P<file>(?:[A-Za-z]:[\\/])?[^:\n]*?):(?P<line>\d+):(?:(?P<col>\d+):)?   +(?P<msg>\S.*)")
# The compiler driver and its helpers speaking without a source location.
_TOOL = lazy_pattern(
    r"(?P<prog>(?:\S*/)?(?:[\w.+-]*-)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|cc1|cc1plus|cc1obj|cpp"
    r"|collect2|lto-wrapper|lto1)(?:-\d+(?:\.\d+)*)?(?:\.exe)?): (?P<sev>fatal error|error|warning|note"
    r"|sorry, unimplemented): (?P<msg>.*)"
)
_TREATED_AS_ERRORS = lazy_pattern(r"(?:\S*/)?(?:cc1\w*|lto1): (?:all|some) warnings being treated as errors$")
# gcc's pseudo-files, no line: '<command-line>: warning: "X" redefined', '<built-in>: note: ...'
_PSEUDO = lazy_pattern(r"(?P<file><[\w -]+>): (?P<sev>fatal error|error|warning|note): (?P<msg>.*)")
# the assembler gcc runs ("x.c: Assembler messages:" first): "x.c:4: Error: no such instruction: ..."
_ASM = lazy_pattern(r"(?P<file>(?:[A-Za-z]:[\\/])?[^:\n]*?):(?P<line>\d+): (?P<sev>Error|Warning|Fatal error): (?P<msg>.*)")
_ASM_MESSAGES = ": Assembler messages:"
# a driver's summary of a child that failed after saying why: "lto-wrapper: fatal error: gcc returned 1 exit status"
CHILD_FAILED = lazy_pattern(r"\S+ returned \d+ exit status$")
_BARE = lazy_pattern(r"(?P<sev>fatal error|error|warning|note): (?P<msg>.*)")
_BARE_STARTS = ("fatal error: ", "error: ", "warning: ", "note: ")
# gcc: "x.c: In function 'main':", "x.cpp: In instantiation of '...':", "x.c: At top level:"
_SCOPE = lazy_pattern(
    r"(?P<file>(?:[A-Za-z]:[\\/])?[^:\n]*?): (?P<what>In (?:[\w ]*function|constructor|destructor"
    r"|copy constructor|instantiation of|substitution of|lambda function|member function)|At (?:top level"
    r"|global scope))(?P<rest>.*):$"
)
_INCLUDED = lazy_pattern(r"In file included from (?P<file>.+?):(?P<line>\d+)(?::\d+)?[:,]$")
_INCLUDED_MORE = lazy_pattern(r"\s+from (?P<file>.+?):(?P<line>\d+)(?::\d+)?[:,]$")
_GENERATED = lazy_pattern(r"\d+ (?:warnings?|errors?)(?: and \d+ errors?)? generated\.$")
_FIXIT = lazy_pattern(
    r'fix-it:"(?P<file>(?:[^"\\]|\\.)*)":\{(?P<l1>\d+):(?P<c1>\d+)-(?P<l2>\d+):(?P<c2>\d+)\}:"(?P<text>(?:[^"\\]|\\.)*)"'
)
# gcc >= 9 source echo: "   12 |   code", "      |   ^~~", "  +++ |+#include <x>", "  ......"
_GCC_ECHO = lazy_pattern(r" *(?:\d+ |\+\+\+ )?\|| +\.\.\.\.\.\.$")
_CARET = lazy_pattern(r" *[\^~][\^~ ]*$")
_COMMAND = lazy_pattern(
    r"(?:cd \S+ && )?(?:\S*/)?(?:(?:ccache|ccwrap|distcc|sccache)\s+)*(?:\S*/)?(?:[\w.+-]*-)?"
    r"(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+)(?:-\d+(?:\.\d+)*)?\s"
)
# Messages that are the linker's even when printed "file:line: error: ..." (gold -g).
_LINKERISH = lazy_pattern(
    r"(?:error: )?(?:undefined reference to|multiple definition of|first defined here|relocation \S+ against"
    r"|undefined (?:hidden |internal |protected )?symbol|duplicate symbol)"
)
_BINUTILS_QUOTED = lazy_pattern(r"`[^`'\s]+'")
_ICE_TAIL = ("Please submit a full bug report", "with preprocessed source", "Please include the complete",
             "See <", "0x")
_SEVERITY = {
    "fatal error": "error",
    "error": "error",
    "internal compiler error": "error",
    "sorry, unimplemented": "error",
    "warning": "warning",
    "remark": "remark",  # clang's -Rpass: no record and no note (the parser claims and drops it)
    "note": "note",
}
# What a diagnostic header says, independent of parser state:
# (path, line, col, severity, message, flag, is_ice, flavor, symbol, linker's, stripped line,
#  path is a source file, a source echo may follow, the message may go on (gcc_wrap.every_line)).
_DiagFacts = tuple[str, int, int, str, str, str, bool, str, str, bool, str, bool, bool, bool]
# A compile read from standard input (``gcc -x c -``): gcc names the unit "<stdin>".
STDIN = "<stdin>"
_LINKERISH_STARTS = ("error: ", "undefined ", "multiple definition of", "first defined here", "relocation ",
                     "duplicate symbol")
# Which of the "file: ..." shapes a line has, and what it says, depends on the line alone:
# memoised (bounded), since the same diagnostic from a header and the same "In function"
# line repeat once per translation unit.  Lines longer than _MEMO_LINE are not kept.
_K_NONE, _K_DIAG, _K_SCOPE, _K_TOOL, _K_CONTEXT, _K_TREATED, _K_BARE, _K_ASM, _K_REMARK = range(9)
_COLON_MEMO: dict[str, tuple[int, Any]] = {}
_MEMO_MAX = 8192
_MEMO_LINE = 1024


def _colon_facts(line: str) -> tuple[int, Any]:
    """The first of the line shapes (in the parser's order) the line has, with its facts.

    Each regex runs only when a substring it cannot match without is present
    (checked in C, far cheaper than a failing match)."""
    found: tuple[int, Any] = (_K_NONE, None)
    if " error" in line or " warning" in line or " note" in line or " remark" in line or " sorry" in line:
        m = _DIAG.match(line)
        flavor = ""
        if m is not None and " +" in m.group(1):
            vi = _DIAG_VI.match(line)  # "run.c +9:17: error:", not the file "run.c +9" at line 17
            if vi is not None:
                m, flavor = vi, "clang"
        elif m is None:
            # only clang writes these two formats (-fdiagnostics-format=msvc|vi)
            m = _DIAG_MSVC.match(line) if "): " in line else _DIAG_VI.match(line) if " +" in line else None
            flavor = "clang"
        if m:
            found = (_K_REMARK if m.group("sev") == "remark" else _K_DIAG, _diag_facts(m, line, flavor))
    if not found[0] and ("error: " in line or "warning: " in line or "note: " in line or "unimplemented: " in line):
        m = _TOOL.match(line)
        if m:
            found = (_K_TOOL, m)
        elif line[0] == "<":
            m = _PSEUDO.match(line)
            if m:
                found = (_K_DIAG, _pseudo_facts(m, line))
    if not found[0] and (": Error: " in line or ": Warning: " in line or ": Fatal error: " in line):
        m = _ASM.match(line)
        if m:
            found = (_K_ASM, m)
    if not found[0] and line[-1] == ":" and (": In " in line or ": At " in line):
        m = _SCOPE.match(line)
        if m:
            found = (_K_SCOPE, _scope_facts(m))
    if not found[0] and ":   " in line:
        m = _CONTEXT_LOC.match(line)
        if m:
            found = (_K_CONTEXT, m)
    if not found[0] and line.endswith("warnings being treated as errors") and _TREATED_AS_ERRORS.match(line):
        found = (_K_TREATED, None)
    if not found[0] and line.startswith(_BARE_STARTS):
        m = _BARE.match(line)
        if m:
            found = (_K_BARE, m)
    if len(line) <= _MEMO_LINE:
        if len(_COLON_MEMO) >= _MEMO_MAX:
            _COLON_MEMO.clear()
        _COLON_MEMO[line] = found
    return found


def _diag_facts(m: re.Match[str], line: str, flavor: str = "") -> _DiagFacts:
    path, line_no, col, word, msg = m.groups()
    sev = _SEVERITY[word]
    linkerish = sev != "note" and (
        (msg.startswith(_LINKERISH_STARTS) and bool(_LINKERISH.match(msg)))
        # binutils quote `so' (compilers do not): gold's glibc link-time warning at "file:line:"
        or (not col and "`" in msg and bool(_BINUTILS_QUOTED.search(msg))))
    message, code = split_flag(msg)
    if flavor:
        pass
    elif "‘" in msg or "(first use in this function)" in msg or code.startswith("-Werror="):
        flavor = "gcc"
    elif code.startswith("-Werror,") or line[m.start(4) - 3] == "}":
        flavor = "clang"  # "[-Werror,-Wx]"; "x.c:3:5:{3:5-3:9}: error:" (-fdiagnostics-print-source-range-info)
    symbol = find_symbol(message) if sev != "note" else ""
    return (path, int(line_no), int(col) if col else 0, sev, message, code,
            word == "internal compiler error", flavor, symbol, linkerish, line.strip(),
            path.endswith(_SOURCE_EXT) or path == STDIN, bool(path) and not path.startswith("<"), goes_on(msg))


def goes_on(text: str) -> bool:
    """A message printed so far that a wrapping compiler may go on with: it broke after a space or
    " [" (before the flag), or inside a ‘quote’ (gcc -fmessage-length; see gcc_wrap)."""
    return text.endswith((" ", "[")) or ("‘" in text and text.count("‘") > text.count("’"))


def _pseudo_facts(m: re.Match[str], line: str) -> _DiagFacts:
    """A diagnostic at one of gcc's pseudo-files (no line, no column, no source echo)."""
    path, word, msg = m.groups()
    message, code = split_flag(msg)
    sev = _SEVERITY[word]
    return (path, 0, 0, sev, message, code, False, "gcc", find_symbol(message) if sev != "note" else "", False,
            line.strip(), False, False, False)


def assembler_record(m: re.Match[str], line: str, ctx: ParseContext) -> BuildErrorRecord:
    """The assembler gcc ran (``_ASM`` matched): "x.c:4: Error: no such instruction: `frobnicate'",
    at the line of the source the assembly came from; no column, no source echo."""
    sev = "warning" if m.group("sev") == "Warning" else "error"
    return BuildErrorRecord(tool="gcc", severity=sev, file_path=ctx.resolve(m.group("file")),
                            line=int(m.group("line")), message=m.group("msg"), raw=line)


def _scope_facts(m: re.Match[str]) -> tuple[str, str, str]:
    path, what = m.group("file"), m.group("what")
    if what.startswith("In instantiation") or what.startswith("In substitution"):
        return ("chain", path, m.group(0))
    if what.startswith("At "):
        return ("top", path, "")
    return ("function", path, function_name(m.group("rest")))

# the driver could not find an input file: gcc's "x.c: No such file", clang's "no such file or directory: 'x.c'"
_DRIVER_MISSING = lazy_pattern(
    r"(?:(?P<a>[^\s:]+): No such file or directory$|no such file or directory: " + _QUOTED + r")"
)


_FOREIGN_STARTS = ("make", "gmake", "ninja:", "CMake", "-- ", "[", "/usr/bin/ld", "collect2", "ld", "FAILED:", ">>>",
                   "mold:", "===", "PASS", "FAIL", "ok ", "not ok")


def looks_foreign(line: str) -> bool:
    """A line that cannot be clang's echo of a source line."""
    return line.startswith(_FOREIGN_STARTS)


_COMPILER_WORDS = lazy_pattern(r"(?:^|\s)(?:\S*/)?(?:[\w.+-]*-)?(clang\+\+|clang|g\+\+|gcc|cc|c\+\+)(?:-\d+(?:\.\d+)*)?\s")


@lru_cache(maxsize=64)
def command_compiler(command: str) -> str:
    """"clang" or "gcc" when the echoed compile command names one (``clang-14 -c x.c``,
    ``ccache g++ ...``), "" for ``cc`` / ``c++`` (either may be either) or no command."""
    m = _COMPILER_WORDS.search(command)
    if m is None:
        return ""
    word = m.group(1)
    return "clang" if word.startswith("clang") else "gcc" if word in ("gcc", "g++") else ""


# Wordings only clang uses, where gcc says the same thing otherwise (gcc's words after each): evidence of
# the compiler for a diagnostic that shows nothing else (clang -fno-caret-diagnostics prints no caret, no
# tally), as gcc's "(first use in this function)" and ‘curly quotes’ are gcc's.
_CLANG_WORDING = lazy_pattern(
    r"use of undeclared identifier"  # "'x' undeclared", "was not declared in this scope"
    r"|implicitly declaring library function|call to undeclared (?:library )?function"  # "implicit declaration of"
    r"|format specifies type"  # "format '%d' expects argument of type"
    r"|^no member named .+ in '"  # "'struct s' has no member named 'x'"
    r"|using the result of an assignment as a condition"  # "suggest parentheses around assignment"
    r"|non-void function does not return a value|control may reach end of non-void"  # "control reaches end"
    r"|is uninitialized when used here"  # "'x' is used uninitialized"
    r"|comparison of integers of different signs"  # "comparison of integer expressions of different signedness"
    r"|expression result unused"  # "statement with no effect", "value computed is not used"
    r"|implicit conversion (?:loses|changes signedness|from .+ to .+ changes value)"  # "conversion from ... may change"
    r"|type specifier missing, defaults to"  # "type defaults to 'int'"
    r"|too (?:few|many) arguments to function call"  # "too few arguments to function 'f'"
    r"|incompatible (?:pointer to integer|integer to pointer) conversion"  # "makes integer from pointer"
    r"|static(?:_assert| assertion) failed due to requirement"  # "static assertion failed"
)


@lru_cache(maxsize=1024)
def worded_by(message: str) -> str:
    """"clang" when the message is in wording only clang uses, else "" (gcc's wording is read with the
    rest of a header's facts)."""
    return "clang" if _CLANG_WORDING.search(message) else ""


_COMMAND_FAILED = lazy_pattern(r"failed with exit (?:code|status) -?\d+$")
_COMPILER_WORD = lazy_pattern(r"\b(?:g?cc|g\+\+|c\+\+)\b")


def command_failed(message: str) -> str:
    """The tool of setuptools'/distutils' "command '/usr/bin/gcc' failed with exit code 1" (a
    summary repeating the compiler's failure, as collect2's line is), "" for any other message."""
    if not message.startswith(("command '", "Setup script exited with error: command '")):
        return ""
    if not _COMMAND_FAILED.search(message):
        return ""
    return "clang" if "clang" in message else "gcc" if _COMPILER_WORD.search(message) else "unknown"


class SourceLines:
    """A few recently read source files, to turn fix-it byte columns into characters."""

    def __init__(self) -> None:
        self.files: dict[str, list[bytes] | None] = {}

    def fixit_edit(self, m: re.Match[str], ctx: ParseContext) -> TextEdit:
        """The edit of one ``fix-it:"file":{l1:c1-l2:c2}:"text"`` line (``_FIXIT`` matched), its
        byte columns made character columns when the file can be read."""
        printed = unescape_fixit(m.group("file"))
        l1, c1, l2, c2 = (int(m.group(k)) for k in ("l1", "c1", "l2", "c2"))
        disk = printed if printed.startswith("/") else (
            os.path.join(ctx.current_dir, printed) if ctx.current_dir else "")
        if disk:
            c1, c2 = self.char_col(disk, l1, c1), self.char_col(disk, l2, c2)
        return TextEdit(ctx.resolve(printed), Position(l1, c1), Position(l2, c2), unescape_fixit(m.group("text")))

    def char_col(self, path: str, line: int, byte_col: int) -> int:
        if byte_col <= 1:
            return byte_col
        if path not in self.files:
            if len(self.files) > 8:
                self.files.clear()
            try:
                if os.path.getsize(path) > 4_000_000:
                    raise OSError
                with open(path, "rb") as handle:
                    self.files[path] = handle.read().split(b"\n")
            except (OSError, ValueError):
                self.files[path] = None
        lines = self.files[path]
        if lines is None or not 1 <= line <= len(lines):
            return byte_col
        prefix = lines[line - 1][: byte_col - 1]
        if prefix.isascii():
            return byte_col
        return len(prefix.decode("utf-8", "replace")) + 1
