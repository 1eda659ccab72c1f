"""The arguments of a C++ call that bind a non-const lvalue reference (``bool remap(int &ai, int &aj, ...)``).

A mutant that makes such an argument a value (``ai + 1``, ``!ai``) cannot compile.  In a schema it costs
more than its own compile: gcc reports one bad argument of a call per compile, so voro++'s ``remap`` call of
ten out-parameters took a round of the whole file for each (:mod:`.native_screen`).  The file's own
declarations and definitions say which parameters these are; a name declared several ways (overloads)
counts a parameter when any of them binds it so.
"""

from __future__ import annotations

import functools
from typing import Any

from ..locate.jsfamily import text_of as _text
from .native_mutant_tree import declared, nodes_on, parse

_PARAMETERS = ("parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration")
_NAMED = ("identifier", "field_identifier")
_LVALUES = {"identifier", "field_expression", "subscript_expression", "pointer_expression", "qualified_identifier"}


@functools.lru_cache(maxsize=8)
def out_parameters(rel: str, data: bytes) -> dict[str, frozenset[int]]:
    """Function name (unqualified) -> the indexes of its parameters that bind a non-const lvalue reference."""
    root = parse(rel, data)
    if root is None:
        return {}
    out: dict[str, set[int]] = {}
    for node in nodes_on(root, 1, root.end_point[0] + 1):
        if node.type != "function_declarator":
            continue
        name = _short_name(node.child_by_field_name("declarator"))
        params = node.child_by_field_name("parameters")
        if not name or params is None:
            continue
        for index, param in enumerate(c for c in params.named_children if c.type in _PARAMETERS):
            if _binds_lvalue(param):
                out.setdefault(name, set()).add(index)
    return {name: frozenset(indexes) for name, indexes in out.items()}


def bound_arguments(rel: str, data: bytes, arguments: Any) -> frozenset[int]:
    """The indexes of ``arguments`` (a call's argument list) that bind a non-const lvalue reference."""
    call = arguments.parent
    if call is None or call.type != "call_expression":
        return frozenset()
    name = _short_name(call.child_by_field_name("function"))
    return out_parameters(rel, data).get(name, frozenset()) if name else frozenset()


def same_lvalues(a: Any, b: Any, types: dict[str, str]) -> bool:
    """Whether ``a`` and ``b`` may each bind the other's non-const reference: both lvalues, and not two names
    declared with different ``types`` (``int a``, ``double d``; :func:`declared_types`)."""
    if not {a.type, b.type} <= _LVALUES:
        return False
    if a.type != "identifier" or b.type != "identifier":
        return True
    ta, tb = types.get(_text(a)), types.get(_text(b))
    return ta is None or tb is None or ta == tb


def declared_types(body: list[Any]) -> dict[str, str]:
    """Name -> the type its declaration in ``body`` gives it (pointers marked; a reference is its type)."""
    return {name: _text(kind) + "*" * pointers
            for name, kind, pointers in declared(body, ("init_declarator", "pointer_declarator", "reference_declarator"))
            if kind is not None}


def _short_name(node: Any) -> str:
    """``remap`` of ``remap``, ``C::remap``, ``c.remap``, ``p->remap`` and ``remap<int>``."""
    while node is not None and node.type not in _NAMED:
        field = {"qualified_identifier": "name", "field_expression": "field", "template_function": "name"}.get(node.type)
        node = node.child_by_field_name(field) if field else None
    return _text(node) if node is not None else ""


def _binds_lvalue(param: Any) -> bool:
    declarator = param.child_by_field_name("declarator")
    if declarator is None or declarator.type not in ("reference_declarator", "abstract_reference_declarator"):
        return False
    if not declarator.children or declarator.children[0].type != "&":  # `&&` binds a value
        return False
    return not any(c.type == "type_qualifier" and _text(c) == "const" for c in param.children)
