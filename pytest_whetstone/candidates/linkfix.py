"""Link-level candidates from the project's own symbol index, for the gate to relink.

* an undefined reference whose near-name is defined (tree-sitter definitions, ``nm`` of the
  recorded objects) and called nowhere: the definition was renamed, restore its name;
* an undefined reference to a function the project defines in a source the link does not
  take: add that source to the list that builds the library (Makefile, CMake), written the
  way its neighbours are.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from ..locate.cfamily import iter_sources, parse_file
from ..records import BuildErrorRecord, FixCandidate
from .buildctx import _Ctx
from .cfile import edit, insert, levenshtein, quoted, resolve
from .common import edit_for

_UNDEFINED = re.compile(r"undefined (?:reference to|symbol:?) " + quoted(r"([^'\u2019]+)") + "|undefined symbol: (\\S+)")
_BUILD_FILES = ("Makefile", "makefile", "GNUmakefile", "CMakeLists.txt")


def undefined_name(record: BuildErrorRecord) -> str:
    match = _UNDEFINED.search(record.message)
    if not match:
        return ""
    full = (match.group(1) or match.group(2) or "").split("(")[0].strip()
    return full.rsplit("::", 1)[-1]


def _defined_in_objects(ctx: _Ctx) -> set[str]:
    """Symbols the recorded objects define (nm; C++ names demangled to their last component)."""
    objects = [c.output for c in ctx.compdb.commands if c.is_compile and c.output and os.path.exists(c.output)]
    if not objects:
        return set()
    try:
        proc = subprocess.run(["nm", "-C", "--defined-only", *objects[:400]], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return set()
    out: set[str] = set()
    for line in proc.stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] in "TtDdBbRrWw":
            out.add(parts[2].split("(")[0].rsplit("::", 1)[-1])
    return out


def _references(ctx: _Ctx, name: str, limit: int = 300) -> int:
    needle = re.compile(r"\b" + re.escape(name) + r"\b")
    count = 0
    for path in iter_sources(ctx.workspace)[:limit]:
        try:
            count += len(needle.findall(path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return count


def restore_definition(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """The near-name of an undefined symbol is defined but used nowhere else: rename it back."""
    name = undefined_name(record)
    if not name or not re.fullmatch(r"[A-Za-z_]\w*", name):
        return []
    defined = ctx.index.names() | _defined_in_objects(ctx)
    limit = 1 if len(name) < 6 else 2
    near = sorted((levenshtein(name, d, limit), d) for d in defined if d != name and abs(len(d) - len(name)) <= limit)
    out: list[FixCandidate] = []
    for dist, other in near[:3]:
        if dist > limit:
            break
        refs = _references(ctx, other)
        for fn in ctx.index.find(other)[:2]:
            path = resolve(fn.file_path, ctx.workspace)
            pf = parse_file(path)
            if pf is None:
                continue
            row = fn.line_start - 1
            for r in range(row, min(fn.line_end, row + 4)):
                m = re.search(r"\b" + re.escape(other) + r"\b", pf.lines[r])
                if m:
                    col = m.start() + 1
                    prior = 0.7 if refs <= 1 else 0.4
                    out.append(edit_for(record, f"rename the definition {other}() at {fn.file_path}:{r + 1} back to {name} "
                                     f"(the name the code calls; {other} is referenced {refs} time(s))", [edit(fn.file_path, r + 1, col, r + 1, col + len(other), name)],
                                     mutation_type="rename", confidence=prior - 0.05 * (dist - 1), source="heuristic",
                                     old=other, new=name, operator="restore-definition"))
                    break
    return out


def _listed_sources(text: str) -> list[tuple[int, int, str]]:
    """(offset, end, token) for every source-file token in a build file."""
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"(?<![\w./$-])[\w./+-]+\.(?:c|cc|cpp|cxx|c\+\+|C|m|mm|S)(?![\w.])", text)]


def add_source(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """A function the project defines in a source the link leaves out: list that source."""
    name = undefined_name(record)
    if not name:
        return []
    defs = ctx.index.find(name)
    out: list[FixCandidate] = []
    for fn in defs[:2]:
        source = resolve(fn.file_path, ctx.workspace).resolve()
        for build_file in _build_files(ctx.workspace):
            text = build_file.read_text(encoding="utf-8", errors="replace")
            base = build_file.parent.resolve()
            listed = _listed_sources(text)
            spelled_all = {t: (base / t).resolve() for _s, _e, t in listed}
            if source in spelled_all.values():
                continue  # listed already: not what is missing
            siblings = [(s, e, t) for s, e, t in listed if spelled_all[t].parent == source.parent]
            if not siblings:
                continue
            try:
                spelled = os.path.relpath(source, base)
            except ValueError:
                continue
            new_edit = _insert_sorted(ctx, build_file, text, siblings, spelled)
            if new_edit is None:
                continue
            out.append(edit_for(record, f"add {spelled} to the sources in {ctx.rel(str(build_file))} (it defines {name})", [new_edit],
                             mutation_type="addDependency", confidence=0.6, source="heuristic", added_sources=[str(source)], build_file=ctx.rel(str(build_file)),
                             operator="add-source"))
    return out


def _build_files(workspace: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(workspace):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("build", "obj", "node_modules"))
        if len(Path(dirpath).relative_to(workspace).parts) >= 3:
            dirnames[:] = []
        out += [Path(dirpath) / f for f in sorted(filenames) if f in _BUILD_FILES or f.endswith(".mk")]
    return out[:20]


def _insert_sorted(ctx: _Ctx, build_file: Path, text: str, siblings: list[tuple[int, int, str]], spelled: str):  # type: ignore[no-untyped-def]
    """Insert `spelled` among its siblings in sorted place, one per line if they are."""
    rel = ctx.rel(str(build_file))
    after = [t for t in siblings if t[2] > spelled]
    before = [t for t in siblings if t[2] < spelled]
    if after:
        start, _end, _tok = min(after, key=lambda t: t[0])
        line, col = _pos(text, start)
        line_text = text.split("\n")[line - 1]
        multiline = line_text.rstrip().endswith("\\")
        indent = _lead(text.split("\n")[line]) if multiline and line < len(text.split("\n")) else ""
        new = f"{spelled} \\\n{indent or chr(9)}" if multiline else f"{spelled} "
        return insert(rel, line, col, new)
    if before:
        _start, end, _tok = max(before, key=lambda t: t[1])
        line, col = _pos(text, end)
        lines = text.split("\n")
        prev_cont = line >= 2 and lines[line - 2].rstrip().endswith("\\")
        if prev_cont:
            indent = _lead(lines[line - 1])
            return insert(rel, line, col, f" \\\n{indent}{spelled}")
        return insert(rel, line, col, f" {spelled}")
    return None


def _lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _pos(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1

