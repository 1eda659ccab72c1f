"""Small edits ("mutants") at a Python function, ordered by how likely each is the fix.

Operators: comparison swaps (< <= > >= == != is in), arithmetic swaps
(+ - * / // %), off-by-one on integer constants and on range()/slice bounds,
negation toggles (add/remove ``not``), and<->or, True<->False, a returned
literal replaced by the assertion's expected value, and name replacements
from the function's own scope.  Each mutant is one TextEdit made from the
libcst node's position, so formatting elsewhere is untouched.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..records import Position, TextEdit

_N = TypeVar("_N", bound=cst.CSTNode)

_CMP_SWAPS: dict[type[cst.BaseCompOp], list[cst.BaseCompOp]] = {
    cst.LessThan: [cst.LessThanEqual(), cst.GreaterThan()],
    cst.LessThanEqual: [cst.LessThan(), cst.GreaterThanEqual()],
    cst.GreaterThan: [cst.GreaterThanEqual(), cst.LessThan()],
    cst.GreaterThanEqual: [cst.GreaterThan(), cst.LessThanEqual()],
    cst.Equal: [cst.NotEqual()],
    cst.NotEqual: [cst.Equal()],
    cst.Is: [cst.IsNot()],
    cst.IsNot: [cst.Is()],
    cst.In: [cst.NotIn()],
    cst.NotIn: [cst.In()],
}
_BIN_SWAPS: dict[type[cst.BaseBinaryOp], list[cst.BaseBinaryOp]] = {
    cst.Add: [cst.Subtract()],
    cst.Subtract: [cst.Add()],
    cst.Multiply: [cst.FloorDivide(), cst.Divide()],
    cst.Divide: [cst.FloorDivide(), cst.Multiply()],
    cst.FloorDivide: [cst.Divide(), cst.Modulo()],
    cst.Modulo: [cst.FloorDivide()],
}
_AUG_SWAPS: dict[type[cst.BaseAugOp], list[cst.BaseAugOp]] = {
    cst.AddAssign: [cst.SubtractAssign()],
    cst.SubtractAssign: [cst.AddAssign()],
    cst.MultiplyAssign: [cst.FloorDivideAssign()],
}

# Prior likelihood of each kind of slip (seeded-fault studies: boundary and
# off-by-one errors dominate, then wrong operators, then wrong names).
PRIOR = {
    "cmp-boundary": 0.9,
    "off-by-one": 0.85,
    "return-expected": 0.8,
    "cmp-flip": 0.7,  # `a == b` for `a != b` restores the code; `not a != b` only passes
    "negate": 0.6,
    "arith": 0.6,
    "boolop": 0.55,
    "bool-const": 0.5,
    "name": 0.4,
}


@dataclass
class Mutant:
    kind: str
    description: str
    edit: TextEdit
    line: int
    prior: float

    @property
    def key(self) -> tuple[str, int, int, int, int, str]:
        e = self.edit
        return (e.file_path, e.start.line, e.start.col, e.end.line, e.end.col, e.new_text)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, rel: str, first: int, last: int, expected: object, names: list[str]) -> None:
        super().__init__()
        self.rel, self.first, self.last = rel, first, last
        self.expected = expected
        self.names = names
        self.out: list[Mutant] = []

    def _inside(self, node: cst.CSTNode) -> bool:
        pos = self.get_metadata(PositionProvider, node)
        return self.first <= pos.start.line and pos.end.line <= self.last

    def _add(self, kind: str, node: cst.CSTNode, new: cst.CSTNode | str, what: str) -> None:
        pos = self.get_metadata(PositionProvider, node)
        text = new if isinstance(new, str) else _code(new)
        edit = TextEdit(
            file_path=self.rel,
            start=Position(pos.start.line, pos.start.column + 1),
            end=Position(pos.end.line, pos.end.column + 1),
            new_text=text,
        )
        self.out.append(Mutant(kind, f"{what} at {self.rel}:{pos.start.line}", edit, pos.start.line, PRIOR[kind]))

    # -- operators ----------------------------------------------------------
    def visit_Comparison(self, node: cst.Comparison) -> None:
        if not self._inside(node):
            return
        for index, target in enumerate(node.comparisons):
            for new_op in _CMP_SWAPS.get(type(target.operator), []):
                new_op = _keep_ws(target.operator, new_op)
                targets = list(node.comparisons)
                targets[index] = target.with_changes(operator=new_op)
                old, new = _code(target.operator).strip(), _code(new_op).strip()
                boundary = {old, new} in ({"<", "<="}, {">", ">="})
                self._add(
                    "cmp-boundary" if boundary else "cmp-flip",
                    node,
                    node.with_changes(comparisons=targets),
                    f"change {old!r} to {new!r}",
                )

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not self._inside(node):
            return
        for new_op in _BIN_SWAPS.get(type(node.operator), []):
            new_op = _keep_ws(node.operator, new_op)
            old, new = _code(node.operator).strip(), _code(new_op).strip()
            self._add("arith", node, node.with_changes(operator=new_op), f"change {old!r} to {new!r}")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not self._inside(node):
            return
        for new_op in _AUG_SWAPS.get(type(node.operator), []):
            new_op = _keep_ws(node.operator, new_op)
            old, new = _code(node.operator).strip(), _code(new_op).strip()
            self._add("arith", node, node.with_changes(operator=new_op), f"change {old!r} to {new!r}")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if not self._inside(node):
            return
        new_op = cst.Or() if isinstance(node.operator, cst.And) else cst.And()
        new_op = _keep_ws(node.operator, new_op)
        self._add("boolop", node, node.with_changes(operator=new_op), f"change {_code(node.operator).strip()!r} to {_code(new_op).strip()!r}")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if self._inside(node) and isinstance(node.operator, cst.Not):
            self._add("negate", node, node.expression, "remove 'not'")

    # -- constants ----------------------------------------------------------
    def visit_Integer(self, node: cst.Integer) -> None:
        if not self._inside(node):
            return
        try:
            value = int(node.value.replace("_", ""), 0)
        except ValueError:
            return
        for delta in (1, -1):
            if value + delta >= 0:
                self._add("off-by-one", node, str(value + delta), f"change {value} to {value + delta}")

    def visit_Name(self, node: cst.Name) -> None:
        if not self._inside(node):
            return
        if node.value in ("True", "False"):
            flipped = "False" if node.value == "True" else "True"
            self._add("bool-const", node, flipped, f"change {node.value} to {flipped}")

    def visit_Call(self, node: cst.Call) -> None:
        # range(n) -> range(n + 1) / range(n - 1): off-by-one on bounds that are not literals.
        if not self._inside(node) or not (isinstance(node.func, cst.Name) and node.func.value == "range"):
            return
        for arg in node.args[:2]:
            if isinstance(arg.value, cst.Integer):
                continue  # the Integer visitor covers literals
            for sign in ("+", "-"):
                self._add("off-by-one", arg.value, f"{_code(arg.value)} {sign} 1", f"change range bound {_code(arg.value)!r} by {sign}1")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self._inside(node):
            return
        for element in node.slice:
            sl = element.slice
            if isinstance(sl, cst.Slice):
                for bound in (sl.lower, sl.upper):
                    if bound is not None and not isinstance(bound, cst.Integer):
                        for sign in ("+", "-"):
                            self._add("off-by-one", bound, f"{_code(bound)} {sign} 1", f"change slice bound {_code(bound)!r} by {sign}1")

    # -- conditions and returns --------------------------------------------
    def _negate_test(self, test: cst.BaseExpression) -> None:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return  # visit_UnaryOperation removes it
        code = _code(test)
        needs_parens = isinstance(test, (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr))
        self._add("negate", test, f"not ({code})" if needs_parens else f"not {code}", f"negate {code[:40]!r}")

    def visit_If(self, node: cst.If) -> None:
        if self._inside(node.test):
            self._negate_test(node.test)

    def visit_While(self, node: cst.While) -> None:
        if self._inside(node.test):
            self._negate_test(node.test)

    def visit_Return(self, node: cst.Return) -> None:
        value = node.value
        if value is None or not self._inside(node) or self.expected is _NO_VALUE:
            return  # without a literal expected value there is nothing to aim for
        if not isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.Name, cst.UnaryOperation)):
            if isinstance(self.expected, int) and not isinstance(self.expected, bool):
                code = _code(value)
                wrapped = f"({code})" if isinstance(value, (cst.BooleanOperation, cst.IfExp, cst.Comparison)) else code
                for sign in ("-", "+"):
                    self._add("off-by-one", value, f"{wrapped} {sign} 1", f"return {code[:40]} {sign} 1")
            return
        try:
            current = ast.literal_eval(_code(value))
        except (ValueError, SyntaxError):
            return
        if current != self.expected:
            self._add("return-expected", value, repr(self.expected), f"return {self.expected!r}")


class _NameSwapper(cst.CSTVisitor):
    """Replace each loaded local name by each other local name of the same function."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, collector: _Collector) -> None:
        super().__init__()
        self.c = collector
        self.in_attr = 0
        self.targets: set[int] = set()  # ids of Name nodes being assigned, never replaced

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.targets.add(id(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.targets.add(id(node.target))

    def visit_For(self, node: cst.For) -> None:
        self.targets.add(id(node.target))

    def visit_Param(self, node: cst.Param) -> None:
        self.targets.add(id(node.name))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.targets.add(id(node.keyword))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        node.value.visit(self)
        self.in_attr += 1

    def leave_Attribute(self, original_node: cst.Attribute) -> None:
        self.in_attr -= 1

    def visit_Name(self, node: cst.Name) -> None:
        if self.in_attr or node.value not in self.c.names or id(node) in self.targets:
            return
        pos = self.get_metadata(PositionProvider, node)
        if not (self.c.first < pos.start.line <= self.c.last):
            return  # not the def line (parameters)
        for other in self.c.names:
            if other != node.value:
                edit = TextEdit(
                    file_path=self.c.rel,
                    start=Position(pos.start.line, pos.start.column + 1),
                    end=Position(pos.end.line, pos.end.column + 1),
                    new_text=other,
                )
                self.c.out.append(Mutant("name", f"use {other!r} instead of {node.value!r} at {self.c.rel}:{pos.start.line}", edit, pos.start.line, PRIOR["name"]))


def _keep_ws(old: cst.CSTNode, new: _N) -> _N:
    """Carry the operator's whitespace over so `a < b` becomes `a <= b`, not `a<=b`."""
    changes: dict[str, Any] = {}
    for attr in ("whitespace_before", "whitespace_after", "whitespace_between"):
        if hasattr(old, attr) and hasattr(new, attr):
            changes[attr] = getattr(old, attr)
    try:
        return new.with_changes(**changes)
    except (TypeError, AttributeError):
        return new


_NO_VALUE = object()


def _function_names(tree: cst.Module, wrapper: MetadataWrapper, first: int, last: int) -> list[str]:
    positions = wrapper.resolve(PositionProvider)
    names: list[str] = []

    class Finder(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            pos = positions.get(node)
            if pos is None or pos.start.line > first or pos.end.line < last:
                return
            for param in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params):
                names.append(param.name.value)

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            pos = positions.get(node)
            if pos is not None and first <= pos.start.line <= last and isinstance(node.target, cst.Name):
                names.append(node.target.value)

        def visit_For(self, node: cst.For) -> None:
            pos = positions.get(node)
            if pos is not None and first <= pos.start.line <= last and isinstance(node.target, cst.Name):
                names.append(node.target.value)

    wrapper.visit(Finder())
    return [n for n in dict.fromkeys(names) if n != "self"][:8]


def mutants_for(
    code: str, rel: str, first: int, last: int, expected: object = _NO_VALUE, focus_line: int = 0
) -> list[Mutant]:
    """Mutants inside lines [first, last] of the module, most likely first."""
    try:
        tree = cst.parse_module(code)
    except cst.ParserSyntaxError:
        return []
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    names = _function_names(tree, wrapper, first, last)
    collector = _Collector(rel, first, last, expected, names)
    wrapper.visit(collector)
    wrapper.visit(_NameSwapper(collector))
    unique: dict[tuple[str, int, int, int, int, str], Mutant] = {}
    for mutant in collector.out:
        unique.setdefault(mutant.key, mutant)

    def order(m: Mutant) -> tuple[float, int, int]:
        near = 0.1 if focus_line and m.line == focus_line else 0.0
        return (-(m.prior + near), m.line, m.edit.start.col)

    return sorted(unique.values(), key=order)


def expected_value(text: str) -> object:
    """The assertion's expected value when it is a Python literal, else a sentinel."""
    if not text:
        return _NO_VALUE
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return _NO_VALUE


NO_VALUE = _NO_VALUE
