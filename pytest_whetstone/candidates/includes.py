"""`#include` fixes: where a new include goes, and which header a symbol needs."""

from __future__ import annotations

import re
from pathlib import Path

from ..records import TextEdit
from .cfile import insert

_INCLUDE = re.compile(r"^\s*#\s*include\s*([<\"])([^>\"]+)[>\"]")
_IF = re.compile(r"^\s*#\s*if(?:n?def)?\b")
_ENDIF = re.compile(r"^\s*#\s*endif\b")
_GUARD_IFNDEF = re.compile(r"^\s*#\s*ifndef\s+(\w+)")
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s*$")
_PRAGMA_ONCE = re.compile(r"^\s*#\s*pragma\s+once\b")


def included_headers(lines: list[str]) -> set[str]:
    """Headers already included, as `<x>` / `"x"`."""
    out: set[str] = set()
    for line in lines:
        match = _INCLUDE.match(line)
        if match:
            close = ">" if match.group(1) == "<" else '"'
            out.add(f"{match.group(1)}{match.group(2).strip()}{close}")
    return out


def _guard_end(lines: list[str]) -> int:
    """Index of the line after an include guard's #define or a #pragma once (0 if none)."""
    for index, line in enumerate(lines[:200]):
        stripped = line.strip()
        if not stripped or stripped.startswith(("//", "/*", "*")):
            continue
        if _PRAGMA_ONCE.match(line):
            return index + 1
        guard = _GUARD_IFNDEF.match(line)
        if guard:
            for j in range(index + 1, min(index + 4, len(lines))):
                define = _DEFINE.match(lines[j])
                if define and define.group(1) == guard.group(1):
                    return j + 1
        return 0
    return 0


def _leading_comment_end(lines: list[str], start: int) -> int:
    index = start
    in_block = False
    while index < len(lines):
        stripped = lines[index].strip()
        if in_block:
            in_block = "*/" not in stripped
            index += 1
            continue
        if stripped.startswith("/*"):
            in_block = "*/" not in stripped[2:]
            index += 1
            continue
        if stripped.startswith("//"):
            index += 1
            continue
        break
    return index


def include_insertion_line(lines: list[str], *, system: bool = True) -> int:
    """The 1-based line before which a new #include goes.

    After the last top-level #include (a system header after the last system
    include when there is one), inside include guards / after #pragma once,
    else after the file's leading comment.
    """
    guard_end = _guard_end(lines)
    depth = 0
    last_any = last_system = -1
    for index, line in enumerate(lines):
        if index < guard_end:
            continue
        if _IF.match(line):
            depth += 1
        elif _ENDIF.match(line):
            depth = max(depth - 1, 0)
        match = _INCLUDE.match(line)
        if match and depth == 0:  # the guard's own #ifndef is skipped above
            last_any = index
            if match.group(1) == "<":
                last_system = index
    chosen = last_system if (system and last_system >= 0) else last_any
    if chosen >= 0:
        return chosen + 2
    return _leading_comment_end(lines, guard_end) + 1


def _sorted_place(lines: list[str], header: str) -> int:
    """When the file's includes of the same kind form a sorted run, the 1-based line that keeps
    it sorted (0 when they are not sorted, or the new one would go after them all)."""
    kind = header[0]
    name = header[1:-1]
    run: list[tuple[int, str]] = []
    for index, line in enumerate(lines):
        match = _INCLUDE.match(line)
        if match and match.group(1) == kind:
            if run and index - run[-1][0] > 2:
                break  # only the first block
            run.append((index, match.group(2).strip()))
        elif run and line.strip() and not line.lstrip().startswith(("//", "/*", "*")):
            if index - run[-1][0] > 2:
                break
    names = [n for _i, n in run]
    if len(run) < 2 or names != sorted(names):
        return 0
    for index, other in run:
        if other > name:
            return index + 1
    return 0


def add_include_edit(file_path: str, lines: list[str], header: str) -> TextEdit | None:
    """The edit inserting `#include header`, or None when the file already includes it."""
    if header in included_headers(lines):
        return None
    line = _sorted_place(lines, header) or include_insertion_line(lines, system=header.startswith("<"))
    if line > len(lines):  # file without a trailing newline or empty: append at the end
        last = len(lines)
        if last == 0 or (last == 1 and lines[0] == ""):
            return insert(file_path, 1, 1, f"#include {header}\n")
        return insert(file_path, last, len(lines[-1]) + 1, f"\n#include {header}")
    return insert(file_path, line, 1, f"#include {header}\n")


def find_headers(workspace: Path, name: str, limit: int = 20) -> list[Path]:
    """Files in the workspace whose path ends with the included name (for -I hints)."""
    from ..locate.cfamily import SKIP_DIRS

    found: list[Path] = []
    base = Path(name).name
    for path in sorted(workspace.rglob(base)):
        if any(part in SKIP_DIRS for part in path.relative_to(workspace).parts):
            continue
        if path.as_posix().endswith(name):
            found.append(path)
            if len(found) >= limit:
                break
    return found
