"""addDependency edits: link a library through the project's Makefile or CMakeLists.txt.

Only when the build file is found and the place to edit is unambiguous;
otherwise the caller falls back to a manual candidate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..records import TextEdit
from .cfile import edit, insert, read_lines

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_ASSIGN = re.compile(r"^\s*(?:override\s+)?(LDLIBS|LIBS|LDADD|LDFLAGS)\s*(?::=|\+=|\?=|=)(.*)$")
_RECIPE_LINK = re.compile(r"^\t.*\$[({](?:CC|CXX|LINK\.\w+)[)}].*-o\b")
_ANY_ASSIGN = re.compile(r"^\s*[A-Za-z_][\w.]*\s*(?::=|\+=|\?=|=)")
_CMAKE_TARGET = re.compile(r"^\s*add_(executable|library)\s*\(\s*([\w.+-]+)", re.I)
_CMAKE_TLL = re.compile(r"^\s*target_link_libraries\s*\(\s*([\w.+-]+)", re.I)


@dataclass
class LinkEdit:
    edits: list[TextEdit]
    build_file: str
    description: str


def _continued_end(lines: list[str], index: int) -> int:
    while index < len(lines) - 1 and lines[index].rstrip().endswith("\\"):
        index += 1
    return index


def makefile_edit(workspace: Path, rel_dir: str, lib: str) -> LinkEdit | None:
    directory = workspace / rel_dir if rel_dir else workspace
    found = [directory / name for name in MAKEFILES if (directory / name).is_file()]
    if not found:
        return None
    path = found[0]  # make reads GNUmakefile, makefile, Makefile in that order
    rel = path.relative_to(workspace).as_posix()
    lines = read_lines(path)
    if lines is None:
        return None
    flag = f"-l{lib}"
    if any(re.search(rf"(?<![\w-]){re.escape(flag)}\b", line) for line in lines):
        return None  # already linked somewhere: the problem is elsewhere (order, target)
    recipes = [i for i, line in enumerate(lines) if _RECIPE_LINK.match(line)]
    recipe_text = "\n".join(lines[i] for i in recipes)
    assigns: dict[str, int] = {}
    for index, line in enumerate(lines):
        match = _ASSIGN.match(line)
        if match and not line.startswith("\t"):
            assigns[match.group(1)] = index  # the last assignment of each
    for var in ("LDLIBS", "LIBS", "LDADD"):
        used = not recipes or re.search(rf"\$[({{]{var}[)}}]", recipe_text)
        if var in assigns and used:
            end = _continued_end(lines, assigns[var])
            text = lines[end]
            return LinkEdit(
                [insert(rel, end + 1, len(text.rstrip()) + 1, f" {flag}")],
                rel,
                f"add {flag} to {var} in {rel}",
            )
    if recipes:
        vars_used = [v for v in ("LDLIBS", "LIBS", "LDADD") if re.search(rf"\$[({{]{v}[)}}]", recipe_text)]
        if vars_used:
            return _new_assignment(lines, rel, vars_used[0], flag)
        if len(recipes) == 1:  # the one link line: libraries go last
            index = recipes[0]
            text = lines[index]
            return LinkEdit(
                [insert(rel, index + 1, len(text.rstrip()) + 1, f" {flag}")],
                rel,
                f"append {flag} to the link command in {rel}",
            )
        return None
    return _new_assignment(lines, rel, "LDLIBS", flag)  # make's implicit link rule reads LDLIBS


def _new_assignment(lines: list[str], rel: str, var: str, flag: str) -> LinkEdit:
    last = -1
    for index, line in enumerate(lines):
        if _ANY_ASSIGN.match(line) and not line.startswith("\t"):
            last = _continued_end(lines, index)
        elif line and not line.startswith(("#", " ", "\t")) and ":" in line and last >= 0:
            break  # the first rule after the variable block
    line_no = last + 2 if last >= 0 else 1
    return LinkEdit([insert(rel, line_no, 1, f"{var} += {flag}\n")], rel, f"add `{var} += {flag}` to {rel}")


def cmake_edit(workspace: Path, rel_dir: str, lib: str, source_hint: str = "") -> LinkEdit | None:
    directory = workspace / rel_dir if rel_dir else workspace
    path = directory / "CMakeLists.txt"
    if not path.is_file():
        return None
    rel = path.relative_to(workspace).as_posix()
    lines = read_lines(path)
    if lines is None:
        return None
    targets = [(i, m.group(2)) for i, line in enumerate(lines) if (m := _CMAKE_TARGET.match(line))]
    if not targets:
        return None
    if len(targets) > 1:
        hint = Path(source_hint).name if source_hint else ""
        chosen = [t for t in targets if hint and hint in _statement(lines, t[0])]
        if len(chosen) != 1:
            return None
        targets = chosen
    index, target = targets[0]
    for j, line in enumerate(lines):
        match = _CMAKE_TLL.match(line)
        if match and match.group(1) == target:
            statement = _statement(lines, j)
            if re.search(rf"(?<![\w-]){re.escape(lib)}(?![\w-])", statement):
                return None
            end = j
            while end < len(lines) - 1 and ")" not in lines[end]:
                end += 1
            close = lines[end].rindex(")")
            return LinkEdit(
                [edit(rel, end + 1, close + 1, end + 1, close + 1, f" {lib}")],
                rel,
                f"add {lib} to target_link_libraries({target}) in {rel}",
            )
    end = index
    while end < len(lines) - 1 and ")" not in lines[end]:
        end += 1
    return LinkEdit(
        [insert(rel, end + 2, 1, f"target_link_libraries({target} PRIVATE {lib})\n")],
        rel,
        f"add target_link_libraries({target} PRIVATE {lib}) to {rel}",
    )


def _statement(lines: list[str], index: int) -> str:
    out = []
    for line in lines[index : index + 30]:
        out.append(line)
        if ")" in line:
            break
    return "\n".join(out)


def link_library_edit(workspace: Path, lib: str, source_hint: str = "") -> LinkEdit | None:
    """Edit the build file nearest the failing source (then the workspace root)."""
    dirs: list[str] = []
    if source_hint and not Path(source_hint).is_absolute():
        parent = Path(source_hint).parent.as_posix()
        while parent not in ("", "."):
            dirs.append(parent)
            parent = Path(parent).parent.as_posix()
    dirs.append("")
    for rel_dir in dirs:
        if (workspace / rel_dir / "CMakeLists.txt").is_file():
            return cmake_edit(workspace, rel_dir, lib, source_hint)
        if any((workspace / rel_dir / name).is_file() for name in MAKEFILES):
            return makefile_edit(workspace, rel_dir, lib)
    return None
