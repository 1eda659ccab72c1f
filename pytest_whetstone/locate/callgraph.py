"""A static call graph of C/C++ and JS/TS functions, for suspects beyond what a test calls directly.

A test often drives an entry point (``Evaluator::evaluate``, a module's exported function) whose fault
sits in a callee (the tokenizer, a helper).  These helpers read, with tree-sitter, the calls inside a
function's body and the names a JS test binds its modules to (``const parse = require('../')``,
``import parse from './parse'``), so the locator can add callees, a few levels deep, to the suspects;
the mutant search then decides between caller and callee.  Resolution is by name, so it is an
over-approximation, bounded by depth and count.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from . import cfamily, jsfamily
from .filecache import kept

Call = tuple[str, str, int]  # (short name, callee text, 1-based line)
MAX_DEPTH = 2
MAX_CALLEES = 12
_C_FUNCTIONS = {"function_definition"}
_JS_FUNCTIONS = {"function_declaration", "generator_function_declaration", "arrow_function", "function_expression",
                 "function", "generator_function", "method_definition"}


class FunctionLike(Protocol):
    file_path: str
    line_start: int
    line_end: int


_F = TypeVar("_F", bound=FunctionLike)


def c_calls(node: Any) -> list[Call]:
    """Calls inside a C/C++ node, skipping ALL_CAPS macros (EXPECT_EQ) but not their arguments."""
    out: list[Call] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        checked = _assertion_of_message(cur)
        if checked is not None:
            stack.append(checked)  # ASSERT_TRUE(x) << "..." << e.toString(): the message is not the check
            continue
        if cur.type == "call_expression":
            callee = cur.child_by_field_name("function")
            if callee is not None:
                if callee.type == "template_function":
                    callee = callee.child_by_field_name("name") or callee
                text = " ".join(cfamily._text(callee).split())
                short = ""
                if callee.type == "field_expression":
                    fld = callee.child_by_field_name("field")
                    short = cfamily._text(fld) if fld is not None else ""
                elif callee.type in ("identifier", "qualified_identifier"):
                    short = text.rsplit("::", 1)[-1]
                if short and not short.isupper():
                    out.append((short, text, cur.start_point[0] + 1))
        stack.extend(reversed(cur.named_children))
    return out


def names_definition(qualname: str, text: str) -> bool:
    """Whether a call written ``text`` may reach the definition ``qualname`` (same short name assumed):
    ``ns::f`` / ``Class::f`` must agree with it; ``obj.f`` / ``f`` match by name alone."""
    if "::" not in text:
        return True
    wanted = text.split("<")[0]
    return qualname.endswith(wanted) or wanted.endswith(qualname)


def _assertion_of_message(node: Any) -> Any:
    """The ``ASSERT_*(...)`` call of ``ASSERT_*(...) << message...``, None for anything else."""
    if node.type != "binary_expression" or cfamily._text(node.child_by_field_name("operator") or node) != "<<":
        return None
    left = node
    while left is not None and left.type == "binary_expression" and \
            cfamily._text(left.child_by_field_name("operator") or left) == "<<":
        left = left.child_by_field_name("left")
    if left is None or left.type != "call_expression":
        return None
    callee = left.child_by_field_name("function")
    name = cfamily._text(callee) if callee is not None else ""
    return left if name.isupper() and name.startswith(("ASSERT_", "EXPECT_", "CHECK")) else None


def _function_node(root: Any, first: int, last: int, types: set[str]) -> Any:
    """The function node spanning exactly lines [first, last] (1-based), if any."""
    stack = [root]
    while stack:
        node = stack.pop()
        start, end = node.start_point[0] + 1, node.end_point[0] + 1
        if end < first or start > last:
            continue
        if node.type in types and start == first and end == last:
            return node
        stack.extend(node.named_children)
    return None


def body_calls(root: Path, fn: FunctionLike, family: str) -> list[Call]:
    """The calls a function's body makes (its own nested functions included), read once per version of
    the file however many failures ask."""
    parsed = cfamily.parse_file(root / fn.file_path) if family == "c" else jsfamily.parse_file(root / fn.file_path)
    if parsed is None:
        return []

    def read() -> list[Call]:
        if family == "c":
            node = _function_node(parsed.tree.root_node, fn.line_start, fn.line_end, _C_FUNCTIONS)
            return c_calls(node) if node is not None else []
        node = _function_node(parsed.tree.root_node, fn.line_start, fn.line_end, _JS_FUNCTIONS)
        return jsfamily.calls_in(node) if node is not None else []

    return kept(parsed.facts, ("calls", fn.line_start, fn.line_end), read)


def callees(
    root: Path, family: str, start: Iterable[_F], lookup: Callable[[str, str], list[_F]],
    *, max_depth: int = MAX_DEPTH, limit: int = MAX_CALLEES, calls_of: Callable[[_F], list[Call]] | None = None,
) -> list[tuple[_F, int]]:
    """Functions reached from ``start`` through calls, breadth first: (function, depth >= 1).

    ``lookup(short, text)`` names the project functions a call may reach; ``calls_of(fn)`` reads a body's
    calls (default :func:`body_calls`)."""
    seen = {(f.file_path, f.line_start) for f in start}
    frontier = list(start)
    out: list[tuple[_F, int]] = []
    for depth in range(1, max_depth + 1):
        following: list[_F] = []
        for fn in frontier:
            for short, text, _line in (calls_of(fn) if calls_of is not None else body_calls(root, fn, family)):
                for target in lookup(short, text):
                    key = (target.file_path, target.line_start)
                    if key in seen:
                        continue
                    seen.add(key)
                    out.append((target, depth))
                    following.append(target)
                    if len(out) >= limit:
                        return out
        frontier = following
    return out


# --------------------------------------------------------------------------- JS modules


def module_bindings(pj: jsfamily.ParsedJs) -> dict[str, str]:
    """Local names bound to a whole module: ``const x = require('s')``, ``import x from 's'``,
    ``import * as x from 's'`` -> {x: s}."""
    return dict(kept(pj.facts, "bindings", lambda: _read_bindings(pj)))


def _read_bindings(pj: jsfamily.ParsedJs) -> dict[str, str]:
    out: dict[str, str] = {}
    stack = [pj.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "variable_declarator":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            spec = _required(value)
            if name is not None and name.type == "identifier" and spec:
                out[jsfamily.text_of(name)] = spec
        elif node.type == "import_statement":
            spec = jsfamily.string_value(node.child_by_field_name("source")) or ""
            clause = next((c for c in node.named_children if c.type == "import_clause"), None)
            if spec and clause is not None:
                for part in clause.named_children:
                    if part.type == "identifier":
                        out[jsfamily.text_of(part)] = spec
                    elif part.type == "namespace_import":
                        ident = next((c for c in part.named_children if c.type == "identifier"), None)
                        if ident is not None:
                            out[jsfamily.text_of(ident)] = spec
        stack.extend(node.named_children)
    return out


def _required(node: Any) -> str:
    """'s' of ``require('s')`` (also ``require('s').default``)."""
    if node is None:
        return ""
    if node.type == "member_expression":
        node = node.child_by_field_name("object")
        if node is None:
            return ""
    if node.type != "call_expression":
        return ""
    callee = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if callee is None or jsfamily.text_of(callee) != "require" or args is None or not args.named_children:
        return ""
    return jsfamily.string_value(args.named_children[0]) or ""


def default_export_names(pj: jsfamily.ParsedJs) -> set[str]:
    """Names of the function a module exports as a whole: ``module.exports = f`` / ``= function f``,
    ``export default f``; an anonymous function is named as :func:`.jsfamily.function_of` names it."""
    return set(kept(pj.facts, "default_exports", lambda: _read_default_exports(pj)))


def _read_default_exports(pj: jsfamily.ParsedJs) -> set[str]:
    out: set[str] = set()
    stack = [pj.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and jsfamily.text_of(left) in ("module.exports", "exports"):
                out |= _value_names(right, "exports")
        elif node.type == "export_statement" and any(c.type == "default" for c in node.children):
            value = node.child_by_field_name("declaration") or node.child_by_field_name("value")
            if value is not None:
                out |= _value_names(value, "default")
        stack.extend(node.named_children)
    return out


def _value_names(value: Any, anonymous: str) -> set[str]:
    if value.type == "identifier":
        return {jsfamily.text_of(value)}
    name = value.child_by_field_name("name")
    names = {anonymous}
    if name is not None:
        names.add(jsfamily.text_of(name))
    return names


def resolve_package(spec: str, from_file: Path) -> Path | None:
    """``require('../')`` / ``require('./lib')``: a directory's package.json ``main``, then the file rules."""
    if not spec.startswith("."):
        return None
    base = (from_file.parent / spec).resolve()
    manifest = base / "package.json"
    if base.is_dir() and manifest.is_file():
        try:
            main = json.loads(manifest.read_text(encoding="utf-8")).get("main")
        except (OSError, ValueError, AttributeError):
            main = None
        if isinstance(main, str) and main:
            target = jsfamily.resolve_import(main if main.startswith(".") else "./" + main, manifest)
            if target is not None:
                return target
    return jsfamily.resolve_import(spec, from_file)
