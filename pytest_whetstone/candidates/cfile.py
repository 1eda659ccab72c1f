"""Small helpers shared by the C/C++ candidate generators: source lines, tokens, edits."""

from __future__ import annotations

import re
from pathlib import Path

from ..locate.cfamily import diag_col_to_char
from ..records import BuildErrorRecord, Position, TextEdit
from .distance import levenshtein

# gcc quotes with ‘…’ in a UTF-8 locale and '…' otherwise; clang always '…'.
Q_OPEN = "[\u2018'`\"]"
Q_CLOSE = "[\u2019'\"]"
IDENT = re.compile(r"[A-Za-z_]\w*")


def quoted(body: str) -> str:
    """A regex fragment for a quoted capture, whichever quotes the compiler used."""
    return f"{Q_OPEN}{body}{Q_CLOSE}"


def resolve(file_path: str, workspace: Path) -> Path:
    p = Path(file_path)
    return p if p.is_absolute() else workspace / p


def read_lines(path: Path) -> list[str] | None:
    """Lines without newlines ('\\r' stripped), or None for unreadable/binary files."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return [line.rstrip("\r") for line in text.split("\n")]


def record_char_col(record: BuildErrorRecord, lines: list[str], expect: str = "") -> int:
    """The record's column as a character column on its line (0 when unknown)."""
    if record.line <= 0 or record.line > len(lines) or record.col <= 0:
        return 0
    return diag_col_to_char(lines[record.line - 1], record.col, record.tool, expect)


def identifier_at(line_text: str, col: int) -> tuple[int, int, str] | None:
    """(start col, end col exclusive, name) of the identifier at/after a 1-based column."""
    for match in IDENT.finditer(line_text):
        start, end = match.start() + 1, match.end() + 1
        if start <= col < end or start >= col:
            return start, end, match.group()
    return None


def edit(file_path: str, line: int, col: int, end_line: int, end_col: int, text: str) -> TextEdit:
    return TextEdit(file_path=file_path, start=Position(line, col), end=Position(end_line, end_col), new_text=text)


def insert(file_path: str, line: int, col: int, text: str) -> TextEdit:
    return edit(file_path, line, col, line, col, text)


def near_names(name: str, pool: set[str] | list[str], max_distance: int | None = None) -> list[str]:
    """Names in pool closest to name (distance 1, or 2 for names of 6+ characters)."""
    if max_distance is None:
        max_distance = 1 if len(name) < 6 else 2
    scored = sorted(
        (levenshtein(name, other, max_distance), other) for other in set(pool) if other != name
    )
    if not scored or scored[0][0] > max_distance:
        return []
    best = scored[0][0]
    return [other for dist, other in scored if dist == best]


def prev_token_end(lines: list[str], line: int, col: int) -> tuple[int, int] | None:
    """Position just after the last non-blank, non-comment character before (line, col)."""
    row, limit = line, col - 1
    while row >= 1:
        text = lines[row - 1][: limit if row == line else None]
        stripped = _strip_line_comment(text).rstrip()
        # a directive (#ifndef, #endif) or a comment alone on a line is not the previous token
        if stripped and not (row != line and stripped.lstrip().startswith(("#", "/*"))):
            return row, len(stripped) + 1
        row -= 1
    return None


def _strip_line_comment(text: str) -> str:
    # Good enough for locating a missing ';': drop a trailing // comment outside strings.
    in_str: str | None = None
    for index, ch in enumerate(text):
        if in_str:
            if ch == in_str and text[index - 1] != "\\":
                in_str = None
        elif ch in "\"'":
            in_str = ch
        elif text.startswith("//", index):
            return text[:index]
    return text
