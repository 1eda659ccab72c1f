"""The syntax trees the C, C++ and JavaScript mutants are made from (:mod:`.native_mutants`): a file's
parse, kept for the plan's next function of the same file, and tree-sitter points turned into our
positions."""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..records import Position, TextEdit

if TYPE_CHECKING:
    from .native_operand_types import Operands

NUMBERS = {"number_literal", "number"}

class Source:
    """One file's bytes, and tree-sitter points turned into our positions."""

    def __init__(self, rel: str, data: bytes) -> None:
        self.rel = rel
        self.data = data
        self.lines = data.split(b"\n")
        self.numeric: set[str] | None = None  # C/C++: the names `x ± 1` may change (None: any, as in JS)
        # C/C++: the names (variables, members, functions) whose values a `!` may be put on where the place
        # does not say it is a truth value (None: any, as in JS); ``any_call``: any call's (C: an int or a pointer)
        self.truthy: set[str] | None = None
        self.any_call = False
        self.operands: Operands | None = None  # C/C++: what declarations say of operands' types

    def pos(self, point: tuple[int, int]) -> Position:
        row, byte_col = point
        raw = self.lines[row] if row < len(self.lines) else b""
        return Position(row + 1, len(raw[:byte_col].decode("utf-8", errors="replace")) + 1)

    def edit(self, node: Any, new_text: str) -> TextEdit:
        return self.span(node, node, new_text)

    def span(self, start: Any, end: Any, new_text: str) -> TextEdit:
        return TextEdit(self.rel, self.pos(start.start_point), self.pos(end.end_point),
                        apart(self.data[start.start_byte - 1:start.start_byte], new_text,
                              self.data[end.end_byte:end.end_byte + 1]))


# Two characters that read as one token (or open a comment) once side by side: `a-*p` with `-` -> `/`
# must not become `a/*p`, which opens a comment and hides the rest of the file from the compiler.  Not the
# pairs valid code writes as two tokens (C's `a**p`, `1.*x`, C++'s `x<::y`): a restoring mutant stays exact.
_JOINED = {"//", "/*", "*/", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<=", ">=", "==", "!=",
           "&&", "||", "<<", ">>", "->", "::", ":>", "<%", "%>", "%:", "??", "=>"}


def apart(before: bytes, new_text: str, after: bytes) -> str:
    """``new_text`` with a space on a side where it would join its neighbour into another token."""
    if new_text and before and before.decode("latin-1") + new_text[0] in _JOINED:
        new_text = " " + new_text
    if new_text and after and new_text[-1] + after.decode("latin-1") in _JOINED:
        new_text += " "
    return new_text


DECLARATIONS = {"declaration", "parameter_declaration", "optional_parameter_declaration"}


def declared(body: Iterable[Any], through: tuple[str, ...] = ("init_declarator", "pointer_declarator"),
             kinds: Collection[str] = DECLARATIONS) -> Iterator[tuple[str, Any, int]]:
    """(name, its type node or None, its pointer levels) for each name the declarations among ``body``
    (of node types ``kinds``) declare, read through the declarator kinds ``through`` (``int *p = q`` ->
    ``p``, ``int``, 1; an array declarator, when read through, is one level too)."""
    for node in body:
        if node.type not in kinds:
            continue
        kind = node.child_by_field_name("type")
        for decl in node.children_by_field_name("declarator"):
            pointers = 0
            while decl is not None and decl.type in through:
                pointers += decl.type in ("pointer_declarator", "array_declarator")
                decl = decl.child_by_field_name("declarator") or next(
                    (c for c in decl.named_children if c.type in ("identifier", "field_identifier")), None)  # `&x` has no field
            if decl is not None and decl.type in ("identifier", "field_identifier"):
                yield decl.text.decode("utf-8", "replace"), kind, pointers


def in_error(node: Any) -> bool:
    """Holding a parse error, or inside an ``ERROR`` node.  A node parsed whole beside an error in the
    same statement is kept: tree-sitter's C++ grammar cannot read some valid code (``this->operator()(a,
    b)``), and the compiler, not the grammar, says whether a mutant there builds (kiwi's
    ``AssocVector::insert``: its whole condition was left unmutated)."""
    if node.has_error:
        return True
    cur = node
    while cur is not None:
        if cur.type == "ERROR" or cur.is_missing:
            return True
        cur = cur.parent
    return False


def nodes_on(root: Any, first: int, last: int) -> Iterator[Any]:
    """Nodes of ``root`` on lines [first, last] (1-based), in source order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.end_point[0] + 1 < first or node.start_point[0] + 1 > last:
            continue
        if node.type == "ERROR":
            continue
        yield node
        stack.extend(reversed(node.children))


def operator_of(node: Any) -> Any:
    op = node.child_by_field_name("operator")
    if op is not None:
        return op
    named = [c for c in node.children if not c.is_named]
    return named[0] if named else None


@functools.lru_cache(maxsize=8)
def parse(rel: str, data: bytes) -> Any:
    """The file's syntax tree: the plan asks for every function of a file in turn (up to ``NEIGHBOURS``),
    and a big file's parse is what each of those calls would cost."""
    from ..locate import cfamily, jsfamily

    if jsfamily.language_for(rel):
        return jsfamily.parse_source(data, jsfamily.language_for(rel) or "javascript").tree.root_node
    lang = cfamily.language_for(rel)
    if lang is None:
        return None
    return cfamily.parse_source(data, lang, header=Path(rel).suffix in cfamily.HEADER_EXTS).tree.root_node


def short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
