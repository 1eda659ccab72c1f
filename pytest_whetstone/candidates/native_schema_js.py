"""Where a JavaScript mutant may become a run-time choice of a schema (:mod:`.native_schema`).

A JS schema is the file's own text with each mutated expression written as

    a < b   ->   (whetstone_enter_(7, 8, 7) ? (a <= b) : whetstone_now_ === 8 ? (a > b) : (a < b))

and run by a harness that keeps one node process for many mutants (:mod:`.native_js_screen`), the
choice read from the global ``whetstone_now_``.  No prelude is added and no line is added, so every
line and column node names is the user's.  An expression may stand there only where its value is
all that is used:

* not an assignment's target, an update's or a ``delete``'s operand, nor a bare name under ``typeof``
  (a choice is a value, not a reference);
* not the callee of a method call (``(c ? a.g : a.f)()`` loses ``this``), nor an optional chain's link
  that a later ``.x`` relies on to stop;
* not an object key, and not a string that is a directive (``'use strict'`` wrapped is no directive).

A choice written at the start of a statement is written without the outer parenthesis (a ``(`` there
would call the previous line when it has no semicolon); inside a larger expression that starts a
statement it is kept out unless the statement before ends with ``;`` or a block.  A host over several
lines is written on its first line only when that cannot change what it means: no comment, string,
template, regular expression or block inside it.
"""

from __future__ import annotations

from typing import Any

from ..locate import jsfamily

_HOSTS = {
    "binary_expression", "unary_expression", "update_expression", "assignment_expression",
    "augmented_assignment_expression", "call_expression", "parenthesized_expression", "ternary_expression",
    "number", "true", "false", "null", "undefined", "string", "template_string", "member_expression",
    "subscript_expression", "new_expression",
}
_NAME_PARENTS = {"arguments", "array", "spread_element", "return_statement", "template_substitution"}
_STOP = {"statement_block", "program", "class_body", "function_declaration", "function_expression", "function",
         "arrow_function", "method_definition", "generator_function", "generator_function_declaration",
         "class_declaration", "class"}
_ONE_LINE_BLOCKERS = {"comment", "string", "template_string", "regex", "statement_block", "class_body"}
# statements that end in their own block: a "(" after one starts a new statement
_BLOCK_ENDED = {"if_statement", "for_statement", "for_in_statement", "while_statement", "function_declaration",
                "generator_function_declaration", "class_declaration", "try_statement", "switch_statement",
                "statement_block", "empty_statement"}
SCHEMA_SUFFIXES = {".js", ".cjs"}  # what the harness's require hook loads (no TypeScript loader, no ESM)


def holds_js(rel: str) -> bool:
    return jsfamily.language_for(rel) == "javascript"


def host(root: Any, lo: int, hi: int) -> tuple[Any, bool] | None:
    """The expression that holds bytes ``lo``..``hi`` and may be a choice, with whether it is written bare
    (it is a whole expression statement), or None."""
    node = root.descendant_for_byte_range(lo, hi)
    while node is not None:
        if node.type in _STOP or node.type.endswith(("_statement", "declaration")):
            return None
        if node.start_byte <= lo and node.end_byte >= hi and _is_host(node):
            if not _flattens(node):
                return None
            start = _statement_start(node)
            if start is None:
                return node, False
            if start.parent is not None and node == _expression_of(start):
                return node, True
            return (node, False) if _after_statement_end(start) else None
        node = node.parent
    return None


def _is_host(node: Any) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if node.type not in _HOSTS and not (node.type == "identifier" and _reads_value(node, parent)):
        return False
    ptype = parent.type
    if ptype in ("assignment_expression", "augmented_assignment_expression", "for_in_statement") \
            and parent.child_by_field_name("left") == node:
        return False
    if ptype == "update_expression" or (ptype == "unary_expression" and _operator(parent) in ("delete", "typeof")
                                        and (node.type == "identifier" or _operator(parent) == "delete")):
        return False
    if ptype in ("pair", "method_definition", "field_definition", "public_field_definition") \
            and parent.child_by_field_name("key") == node:
        return False
    if ptype == "call_expression" and parent.child_by_field_name("function") == node \
            and node.type in ("member_expression", "subscript_expression", "parenthesized_expression"):
        return False
    if ptype in ("member_expression", "subscript_expression", "call_expression") and b"?." in (node.text or b"") \
            and parent.child_by_field_name("object" if ptype != "call_expression" else "function") == node:
        return False
    return not (node.type == "string" and ptype == "expression_statement")


def _reads_value(node: Any, parent: Any) -> bool:
    ptype = parent.type
    if ptype in _NAME_PARENTS or ptype.endswith("_expression"):
        return True
    field = {"variable_declarator": "value", "pair": "value", "assignment_pattern": "right"}.get(ptype)
    return field is not None and parent.child_by_field_name(field) == node


def _operator(node: Any) -> str:
    op = node.child_by_field_name("operator")
    return op.type if op is not None else ""


def _flattens(node: Any) -> bool:
    text = node.text or b""
    if b"\n" not in text:
        return True
    stack = list(node.children)
    while stack:
        cur = stack.pop()
        if cur.type in _ONE_LINE_BLOCKERS:
            return False
        stack.extend(cur.children)
    return True


def _statement_start(node: Any) -> Any:
    """The expression statement ``node`` starts, if it starts one."""
    cur = node.parent
    while cur is not None and cur.start_byte == node.start_byte:
        if cur.type == "expression_statement":
            return cur
        if cur.type in _STOP or cur.type.endswith(("_statement", "declaration")):
            return None
        cur = cur.parent
    return None


def _expression_of(statement: Any) -> Any:
    named = [c for c in statement.children if c.is_named and c.type != "comment"]
    return named[0] if named else None


def _after_statement_end(statement: Any) -> bool:
    """Whether the statement before ``statement`` cannot run on into a ``(`` (none, or it ends in ``;`` or
    in its own block)."""
    prev = statement.prev_named_sibling
    while prev is not None and prev.type == "comment":
        prev = prev.prev_named_sibling
    if prev is None:
        return statement.parent is not None and statement.parent.type in ("program", "statement_block", "switch_case",
                                                                          "switch_default")
    text = (prev.text or b"").rstrip()
    return text.endswith(b";") or (prev.type in _BLOCK_ENDED and text.endswith(b"}"))


def guard(first: int, mid: int, last: int) -> str:
    """The test before one choice: the first of a host also marks the host's ids as reached."""
    return f"whetstone_enter_({first}, {last}, {mid})" if mid == first else f"whetstone_now_ === {mid}"
