"""Cheap Python facts for candidates: names on a line, literals in a function, names in scope.

libcst with metadata over a whole module took 48 s on a 4,800-line module; these answers need
only the function (or top-level block) around a line, parsed with ``ast`` by
:mod:`..locate.pysource`.  ``ast`` columns are UTF-8 byte offsets: every TextEdit here is
converted to 1-based character columns.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator

from ..locate.pysource import SourceFile, char_col, child_bodies
from ..records import Position, TextEdit

LITERAL_TYPES = (int, float, str, bytes)


def _pos(src: SourceFile, line: int, byte_col: int) -> Position:
    return Position(line, char_col(src.line(line), byte_col) + 1)


def _walk_no_fstrings(node: ast.AST, first: int = 0, last: int = 0) -> Iterator[ast.AST]:
    """ast.walk, but not into f-strings (their text parts are Constants that are not literals); with
    ``last``, not into nodes wholly outside lines [first, last] either (a class of many methods
    holds the one suspect)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if last and _outside(current, first, last):
            continue
        yield current
        if isinstance(current, ast.JoinedStr):
            continue
        stack.extend(ast.iter_child_nodes(current))


def _outside(node: ast.AST, first: int, last: int) -> bool:
    """Do all of ``node``'s lines (its decorators' included) fall outside [first, last]?"""
    start = getattr(node, "lineno", None)
    if start is None:
        return False  # no position (arguments, comprehensions): decided by its children
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        start = min(start, *(d.lineno for d in decorators))
    return (getattr(node, "end_lineno", None) or start) < first or start > last


def literal_edits(
    src: SourceFile, rel: str, line_start: int, line_end: int, actual: object, new_text: str
) -> list[TextEdit]:
    """Edits replacing every literal equal to ``actual`` that starts in [line_start, line_end]."""
    out: list[TextEdit] = []
    seen: set[tuple[int, int]] = set()
    for number in sorted({src.block_number(line_start), src.block_number(line_end)}):
        block = src.block(number)
        if block is None:
            continue
        for node in _walk_no_fstrings(block.tree, line_start, line_end):
            if not isinstance(node, ast.Constant) or type(node.value) not in LITERAL_TYPES:
                continue
            if not line_start <= node.lineno <= line_end or type(node.value) is not type(actual):
                continue
            if node.value != actual or (node.lineno, node.col_offset) in seen:
                continue
            seen.add((node.lineno, node.col_offset))
            end_line = node.end_lineno or node.lineno
            out.append(
                TextEdit(
                    file_path=rel,
                    start=_pos(src, node.lineno, node.col_offset),
                    end=_pos(src, end_line, node.end_col_offset or 0),
                    new_text=new_text,
                )
            )
    return sorted(out, key=lambda e: (e.start.line, e.start.col))


def name_edits(src: SourceFile, rel: str, old: str, new: str, line: int, kind: str) -> list[TextEdit]:
    """Rename ``old`` on ``line``: a variable ("name"), an attribute ("attr") or an imported name ("import")."""
    block = src.block_at(line)
    if block is None:
        return []
    stmt = src.statement(line)
    scope: ast.AST = stmt if stmt is not None else block.tree
    spots: set[tuple[int, int]] = set()
    size = len(old.encode("utf-8"))
    for node in ast.walk(scope):
        if kind == "name" and isinstance(node, ast.Name) and node.id == old and node.lineno == line:
            spots.add((line, node.col_offset))
        elif kind == "attr" and isinstance(node, ast.Attribute) and node.attr == old:
            if node.end_lineno == line and node.end_col_offset is not None:
                spots.add((line, node.end_col_offset - size))
        elif kind == "import" and isinstance(node, ast.alias) and node.name == old:
            if getattr(node, "lineno", None) == line:
                spots.add((line, node.col_offset))
    out = []
    for ln, col in sorted(spots):
        start = _pos(src, ln, col)
        out.append(TextEdit(rel, start, Position(ln, start.col + len(old)), new))
    return out


def visible_names(src: SourceFile, line: int) -> set[str]:
    """Names visible at ``line``: builtins, module-level bindings, the enclosing functions' locals."""
    names = set(dir(builtins))
    whole = src.whole()
    if whole is not None:
        names |= bound_names(whole.tree.body)
        tree_body = whole.tree.body
    else:
        block = src.block_at(line)
        if block is None:
            return names
        tree_body = block.tree.body
    # enclosing functions, outermost first
    body: list[ast.stmt] = tree_body
    while True:
        holder = next((n for n in body if n.lineno <= line <= (n.end_lineno or n.lineno)), None)
        if holder is None:
            break
        if isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = holder.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None:
                    names.add(arg.arg)
            names |= bound_names(holder.body, deep=True)
        body = [s for child in child_bodies(holder) for s in child]
        if not body:
            break
    return names


def bound_names(body: list[ast.stmt], deep: bool = False) -> set[str]:
    """Names a statement list binds (defs, classes, imports, assignments, loop and with targets)."""
    out: set[str] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            continue  # their insides are another scope
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    out.add(alias.asname or alias.name.split(".")[0])
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        if isinstance(node, ast.stmt) or deep or isinstance(node, (ast.expr, ast.ExceptHandler, ast.withitem, ast.match_case)):
            if isinstance(node, ast.Lambda):
                continue
            stack.extend(ast.iter_child_nodes(node))
    return out
