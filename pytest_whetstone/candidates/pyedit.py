"""Python edits through libcst: positions, renames, imports, and code -> TextEdit diffs.

libcst keeps formatting and comments; edits are produced either straight
from node positions (renames) or by diffing the libcst-transformed module
against the original (imports), trimmed to the smallest span that changed.
libcst positions are 1-based lines and 0-based character columns; TextEdit
columns are 1-based characters, hence the ``+ 1`` everywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..records import Position, TextEdit


def read_source(path: Path) -> str | None:
    try:
        data = path.read_bytes()
        if b"\x00" in data:
            return None
        # newline="" semantics: keep \r\n exactly as in the file.
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def parse(code: str) -> MetadataWrapper | None:
    try:
        return MetadataWrapper(cst.parse_module(code))
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None


def offset_to_pos(code: str, offset: int) -> Position:
    line = code.count("\n", 0, offset) + 1
    start = code.rfind("\n", 0, offset) + 1
    return Position(line, offset - start + 1)


def diff_edits(file_path: str, old: str, new: str) -> list[TextEdit]:
    """The one smallest edit turning old into new ([] when equal)."""
    if old == new:
        return []
    limit = min(len(old), len(new))
    a = 0
    while a < limit and old[a] == new[a]:
        a += 1
    b = 0
    while b < limit - a and old[len(old) - 1 - b] == new[len(new) - 1 - b]:
        b += 1
    # Prefer whole-line edits for inserted lines: back up to the start of the line.
    if old[a : len(old) - b] == "" and new[a : len(new) - b].endswith("\n"):
        while a > 0 and old[a - 1] != "\n" and new[len(new) - b - 1] == old[a - 1]:
            a -= 1
            b += 1
    return [
        TextEdit(
            file_path=file_path,
            start=offset_to_pos(old, a),
            end=offset_to_pos(old, len(old) - b),
            new_text=new[a : len(new) - b],
        )
    ]


def name_positions(wrapper: MetadataWrapper, name: str, line: int | None, kind: str) -> list[tuple[int, int]]:
    """(line, 1-based col) of Name nodes (kind "name") or attribute names ("attr") called name."""
    positions = wrapper.resolve(PositionProvider)
    found: list[tuple[int, int]] = []

    class Finder(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            if kind == "attr" and node.attr.value == name:
                pos = positions[node.attr].start
                found.append((pos.line, pos.column + 1))

        def visit_Name(self, node: cst.Name) -> None:
            if kind == "name" and node.value == name and node in positions:
                pos = positions[node].start
                found.append((pos.line, pos.column + 1))

        def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
            if kind == "import" and isinstance(node.name, cst.Name) and node.name.value == name:
                pos = positions[node.name].start
                found.append((pos.line, pos.column + 1))

    wrapper.visit(Finder())
    if kind == "name":
        # Attribute names are Names too; drop those so x.total is not renamed for total.
        attr_positions = set(name_positions(wrapper, name, None, "attr"))
        found = [p for p in found if p not in attr_positions]
    return sorted(p for p in set(found) if line is None or p[0] == line)


def rename_edits(file_path: str, code: str, old: str, new: str, line: int | None, kind: str) -> list[TextEdit]:
    wrapper = parse(code)
    if wrapper is None:
        return []
    return [
        TextEdit(file_path=file_path, start=Position(ln, col), end=Position(ln, col + len(old)), new_text=new)
        for ln, col in name_positions(wrapper, old, line, kind)
    ]


def add_import_edits(file_path: str, code: str, module: str, name: str | None) -> list[TextEdit]:
    """`import module` / `from module import name` at the right place, never duplicated."""
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor

    try:
        tree = cst.parse_module(code)
    except cst.ParserSyntaxError:
        return []
    context = CodemodContext()
    AddImportsVisitor.add_needed_import(context, module, name)
    new_tree = AddImportsVisitor(context).transform_module(tree)
    return diff_edits(file_path, code, new_tree.code)


def scope_names(code: str, line: int) -> set[str]:
    """Names visible at a line: module globals, the enclosing functions' locals, builtins."""
    import builtins

    wrapper = parse(code)
    names = set(dir(builtins))
    if wrapper is None:
        return names
    from libcst.metadata import ScopeProvider

    positions = wrapper.resolve(PositionProvider)
    scopes = wrapper.resolve(ScopeProvider)
    for node, scope in scopes.items():
        if scope is None or node not in positions:
            continue
        pos = positions[node]
        if isinstance(node, cst.Name) and pos.start.line <= line <= pos.end.line:
            current: Any = scope
            while current is not None:
                names.update(a.name for a in current.assignments)
                parent = getattr(current, "parent", None)
                current = None if parent is current else parent
            break
    if len(names) == len(dir(builtins)):
        for scope in set(s for s in scopes.values() if s is not None):
            if type(scope).__name__ == "GlobalScope":
                names.update(a.name for a in scope.assignments)
    return names


class FunctionSlice:
    """Lines [first, last] of a module, dedented so libcst can parse them on their own.

    Parsing one function instead of a ~5,000-line module is what keeps mutant
    generation in milliseconds.  ``to_file`` maps a (line, 0-based column) of the
    slice back to the file's (line, 1-based column): each line remembers how many
    leading characters were removed (lines inside a multi-line string that are
    indented less than the def keep theirs).
    """

    def __init__(self, code: str, first: int, last: int) -> None:
        lines = code.split("\n")
        self.first = max(1, first)
        body = lines[self.first - 1 : max(self.first, last)]
        head = body[0] if body else ""
        indent = head[: len(head) - len(head.lstrip(" \t"))]
        self.removed: list[int] = []
        out: list[str] = []
        for line in body:
            cut = len(indent) if indent and line.startswith(indent) else 0
            self.removed.append(cut)
            out.append(line[cut:])
        self.source = "\n".join(out) + "\n"

    def to_file(self, line: int, col0: int) -> Position:
        index = min(max(line - 1, 0), len(self.removed) - 1) if self.removed else 0
        cut = self.removed[index] if self.removed else 0
        return Position(line + self.first - 1, col0 + cut + 1)

    def parse(self) -> cst.Module | None:
        try:
            return cst.parse_module(self.source)
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            return None
