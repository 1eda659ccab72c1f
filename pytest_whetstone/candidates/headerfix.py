"""Header candidates found by looking at the project's own headers, for the gate to decide.

* an ``#include "x.h"`` of a file that does not exist: the existing headers on the unit's
  include path with the nearest names;
* names a removed project header declared (unknown type, implicit declaration, undeclared
  identifier): the project headers that declare them, included from the file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..records import BuildErrorRecord, FixCandidate
from .buildctx import _Ctx
from .cfile import edit, levenshtein, quoted, resolve
from .common import edit_for
from .includes import add_include_edit

HEADER_EXT = (".h", ".hh", ".hpp", ".hxx", ".H", ".inc", ".inl")
_MISSING = re.compile(r"([\w./+-]+): No such file or directory|" + quoted(r"([\w./+-]+)") + r" file not found")
_NAMES = [
    re.compile(r"unknown type name " + quoted(r"(\w+)")),
    re.compile(quoted(r"(\w+)") + r" (?:undeclared|was not declared|does not name a type|has not been declared)"),
    re.compile(r"use of undeclared identifier " + quoted(r"(\w+)")),
    re.compile(r"(?:implicit declaration of function|call to undeclared function) " + quoted(r"(\w+)")),
    re.compile(r"(?:incomplete|unknown) type " + quoted(r"(?:struct |union |enum |class )?(\w+)")),
    re.compile(r"(?:invalid use of incomplete|incomplete definition of) type " + quoted(r"(?:struct |union |enum |class )?(\w+)")),
]
MAX_HEADERS = 400


def _headers_under(directories: list[Path], limit: int = MAX_HEADERS) -> list[tuple[Path, str]]:
    """(path, name as it would be included from that directory) for headers on the path."""
    out: list[tuple[Path, str]] = []
    for base in directories:
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("build", "obj"))
            depth = Path(dirpath).relative_to(base).parts
            if len(depth) > 2:
                dirnames[:] = []
            for name in sorted(filenames):
                if name.endswith(HEADER_EXT):
                    path = Path(dirpath) / name
                    out.append((path, path.relative_to(base).as_posix()))
                    if len(out) >= limit:
                        return out
    return out


def _similarity(missing: str, candidate: str) -> tuple[int, int]:
    """Lower is nearer: the edit distance of the stems, then of the whole names."""
    a, b = Path(missing).stem.lower(), Path(candidate).stem.lower()
    prefix = len(os.path.commonprefix([a, b]))
    inside = 0 if (a in b or b in a) else 1
    return (min(levenshtein(a, b, 12), inside * 12 + max(len(a), len(b)) - prefix), levenshtein(missing, candidate, 20))


def missing_include_site(
    ctx: _Ctx, record: BuildErrorRecord, pattern: re.Pattern[str]
) -> tuple[str, str, int, list[str]] | None:
    """(the missing name, its source line, where the name stands in it, the file's lines) when the
    diagnostic names a file that does not exist and that name is written on the line it points at."""
    match = pattern.search(record.message)
    lines = ctx.lines(record.file_path)
    if not match or not lines or not (0 < record.line <= len(lines)):
        return None
    name = match.group(1) or match.group(2)
    text = lines[record.line - 1]
    pos = text.find(name)
    return (name, text, pos, lines) if pos >= 0 else None


def corrected_include(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """`#include "x.h"` that does not exist: the nearest existing headers on the include path."""
    site = missing_include_site(ctx, record, _MISSING)
    if site is None or "#" not in site[1][: site[2]]:
        return []
    name, text, pos, lines = site
    unit = record.translation_unit or record.file_path
    dirs = [resolve(record.file_path, ctx.workspace).parent, *ctx.include_dirs(unit)]
    already = set(re.findall(r'#\s*include\s*["<]([^">]+)[">]', "\n".join(lines)))
    scored: dict[str, tuple[int, int]] = {}
    for _path, spelled in _headers_under(dirs):
        if spelled in already or spelled == name:
            continue
        score = _similarity(name, spelled)
        if spelled not in scored or score < scored[spelled]:
            scored[spelled] = score
    rel = ctx.rel(record.file_path)
    best = sorted(scored, key=lambda s: (scored[s], s))[:6]
    return [
        edit_for(record, f"include {new!r} instead of the missing {name!r} ({rel}:{record.line}; it exists on the include path)",
              [edit(rel, record.line, pos + 1, record.line, pos + 1 + len(name), new)], mutation_type="rename", confidence=0.5 - 0.04 * i, source="heuristic",
              old=name, new=new, operator="include-on-path")
        for i, new in enumerate(best)
    ]


def _declares(text: str, name: str) -> bool:
    n = re.escape(name)
    return bool(re.search(
        rf"(?:struct|union|enum|class)\s+{n}\b|typedef\b[^;]*\b{n}\s*(?:;|\[|\))|#\s*define\s+{n}\b"
        rf"|^[^\n;{{}}#]*\b{n}\s*\([^;{{]*\)\s*(?:const\s*)?;|\b{n}\s*[,}}=]|}}\s*{n}\s*;",
        text, re.M))


def declaring_header(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """Names no header in scope declares: include the project headers that declare them."""
    name = ""
    for pattern in _NAMES:
        match = pattern.search(record.message)
        if match and match.groups():
            name = match.group(1)
            break
    lines = ctx.lines(record.file_path)
    if not name and lines and 0 < record.line <= len(lines) and re.search(r"storage size|incomplete type|isn.t known", record.message):
        tagged = re.search(r"\b(?:struct|union|enum|class)\s+(\w+)", lines[record.line - 1])
        name = tagged.group(1) if tagged else ""
    if not name or not lines:
        return []
    path = resolve(record.file_path, ctx.workspace)
    unit = record.translation_unit or record.file_path
    dirs = [path.parent, *ctx.include_dirs(unit)]
    included = set(re.findall(r'#\s*include\s*"([^"]+)"', "\n".join(lines)))
    found: list[str] = []
    seen_paths: set[Path] = set()
    for hpath, spelled in _headers_under(dirs):
        real = hpath.resolve()
        if real in seen_paths or real == path.resolve() or spelled in included:
            continue
        seen_paths.add(real)
        try:
            text = hpath.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if name in text and _declares(text, name):
            found.append(spelled)
    rel = ctx.rel(record.file_path)
    out: list[FixCandidate] = []
    for i, spelled in enumerate(sorted(found, key=lambda s: (s.count("/"), len(s)))[:4]):
        e = add_include_edit(rel, lines, f'"{spelled}"')
        if e is None:
            continue
        out.append(edit_for(record, f'add #include "{spelled}" to {rel} (it declares {name})', [e], mutation_type="addImport", confidence=0.55 - 0.05 * i,
                         source="heuristic", header=spelled, symbol=name, operator="declaring-header"))
    return out
