"""The class a fix proves: the compiler's own check of a candidate decides what the error was.

When the per-file gate re-checks a candidate and the whole unit compiles clean, what that edit
did is the best evidence of what was wrong, better than any wording: a ``;`` or ``}`` inserted is
a syntax error, an ``#include`` added or corrected a missing include, a name replaced by a near
name an undefined symbol, an ``&``/``*``, a type or an argument changed a type mismatch.
``fix_class`` reads that off the edits (and the text they replace); an edit that says none of
these (a build file, a rewritten line) proves nothing and leaves the record's class as it was.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..records import FixCandidate, TextEdit

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_CLOSERS = {";", "}", ")", "]"}
_INCLUDE_LINE = re.compile(r"^\s*#\s*include\b")
_BUILD_FILES = ("Makefile", "makefile", "GNUmakefile", "CMakeLists.txt", ".cmake", ".mk", ".am", ".in")


def _replaced(edit: TextEdit, lines: list[str]) -> str | None:
    """The text an edit replaces (None if it does not fit the file)."""
    s, e = edit.start, edit.end
    if not (0 < s.line <= len(lines) and 0 < e.line <= len(lines) + 1):
        return None
    if s.line == e.line:
        return lines[s.line - 1][s.col - 1 : e.col - 1]
    parts = [lines[s.line - 1][s.col - 1 :], *lines[s.line : e.line - 1]]
    if e.line <= len(lines):
        parts.append(lines[e.line - 1][: e.col - 1])
    return "\n".join(parts)


def _one_edit_class(old: str, new: str, line: str) -> str:
    o, n = old.strip(), new.strip()
    if "#include" in new or _INCLUDE_LINE.match(line):
        return "missing_include"
    if not o and n and set(n.replace(" ", "").replace("\n", "")) <= _CLOSERS:
        return "syntax_error"  # only closing punctuation inserted
    if _IDENTIFIER.fullmatch(o) and _IDENTIFIER.fullmatch(n) and o != n:
        return "undefined_symbol"  # a name for a name
    if o.lstrip("&*") == n.lstrip("&*") and o != n:
        return "type_mismatch"  # an address taken or a pointer dereferenced
    if o.startswith(",") and not n or n.startswith(",") and not o:
        return "type_mismatch"  # an argument dropped or supplied
    return ""


def fix_class(cand: FixCandidate, workspace: Path) -> str:
    """The error_type the candidate's edits show (all of them agreeing), or ""."""
    if not cand.edits:
        return ""
    if cand.mutation_type == "changeType":
        return "type_mismatch"
    found: set[str] = set()
    texts: dict[str, list[str] | None] = {}
    for edit in cand.edits:
        if edit.file_path.endswith(_BUILD_FILES):
            return ""
        if edit.file_path not in texts:
            path = Path(edit.file_path)
            try:
                texts[edit.file_path] = (path if path.is_absolute() else workspace / path).read_text(errors="replace").split("\n")
            except OSError:
                texts[edit.file_path] = None
        lines = texts[edit.file_path]
        old = _replaced(edit, lines) if lines is not None else None
        if old is None:
            return ""
        line = lines[edit.start.line - 1] if lines and edit.start.line <= len(lines) else ""
        found.add(_one_edit_class(old, edit.new_text, line))
    return found.pop() if len(found) == 1 else ""
