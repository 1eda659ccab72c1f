"""Small edits ("mutants") at a Python function, ordered by how likely each undoes a slip.

Operators: comparison swaps (< <= > >= == != is in), arithmetic swaps
(+ - * / // % & | << >>), and<->or, removing an existing ``not`` (and, lower,
adding one), off-by-one on integer constants and on range()/slice bounds,
dropping a ``± 1``, other constants (0, 1, -1, the function's other integers;
'' and the other string literals of the function and module; True<->False), a
returned literal replaced by the assertion's expected value, and name
replacements from the function's own scope; :mod:`.mutant_ops` adds wrong return values,
swapped arguments, except classes, misspelled attributes and a missing loop step.

libcst parses only the suspect function (:class:`pyedit.FunctionSlice`), not
the whole module: on a 5,000-line module that is milliseconds instead of
seconds.  Each mutant is one TextEdit in file coordinates.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..records import Position, TextEdit
from .mutant import PRIOR, Mutant
from .pyedit import FunctionSlice

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
    cst.Add: [cst.Subtract(), cst.Multiply()],
    cst.Subtract: [cst.Add()],
    cst.Multiply: [cst.FloorDivide(), cst.Add(), cst.Divide()],
    cst.Divide: [cst.FloorDivide(), cst.Multiply()],
    cst.FloorDivide: [cst.Divide(), cst.Modulo(), cst.Multiply()],
    cst.Modulo: [cst.FloorDivide()],
    cst.BitAnd: [cst.BitOr()],
    cst.BitOr: [cst.BitAnd()],
    cst.LeftShift: [cst.RightShift()],
    cst.RightShift: [cst.LeftShift()],
    cst.Power: [cst.Multiply()],
}
_AUG_SWAPS: dict[type[cst.BaseAugOp], list[cst.BaseAugOp]] = {
    cst.AddAssign: [cst.SubtractAssign()],
    cst.SubtractAssign: [cst.AddAssign()],
    cst.MultiplyAssign: [cst.FloorDivideAssign()],
    cst.FloorDivideAssign: [cst.MultiplyAssign()],
}

def _signs_for(value: cst.BaseExpression, signs: tuple[str, ...] = ("+", "-")) -> tuple[str, ...]:
    """The +1/-1 to try on ``value``: on ``e + 1`` only ``+`` (``e + 1 - 1`` is ``e``, which
    the drop-one mutant writes as the original text)."""
    if isinstance(value, cst.BinaryOperation) and isinstance(value.right, cst.Integer) and value.right.value == "1":
        if isinstance(value.operator, cst.Add):
            return tuple(s for s in signs if s == "+")
        if isinstance(value.operator, cst.Subtract):
            return tuple(s for s in signs if s == "-")
    return signs


MAX_STRINGS = 6
MAX_OTHER_INTS = 4


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


# (line, 0-based col) of the parsed text -> file Position
Mapper = Callable[[int, int], Position]


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(
        self, rel: str, first: int, last: int, expected: object, names: list[str], strings: list[str], to_file: Mapper
    ) -> None:
        super().__init__()
        self.rel, self.first, self.last = rel, first, last  # in parsed-text lines
        self.expected = expected
        self.names = names
        self.strings = strings
        self.ints: list[int] = []
        self.to_file = to_file
        self.out: list[Mutant] = []
        self.if_tests: set[int] = set()
        self.step_ones: set[int] = set()  # the `1` of `e + 1` / `e - 1`: the drop-one mutant covers `1 -> 0`
        self.returned: set[int] = set()  # ids of returned expressions

    def _inside(self, node: cst.CSTNode) -> bool:
        pos = self.get_metadata(PositionProvider, node)
        return self.first <= pos.start.line and pos.end.line <= self.last

    def _add(
        self, kind: str, node: cst.CSTNode, new: cst.CSTNode | str, what: str, prior: float | None = None, pos: Any = None
    ) -> None:
        pos = pos if pos is not None else self.get_metadata(PositionProvider, node)
        text = new if isinstance(new, str) else _code(new)
        start = self.to_file(pos.start.line, pos.start.column)
        edit = TextEdit(
            file_path=self.rel, start=start, end=self.to_file(pos.end.line, pos.end.column), new_text=text
        )
        p = PRIOR[kind] if prior is None else prior
        self.out.append(Mutant(kind, f"{what} at {self.rel}:{start.line}", edit, start.line, p))

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
                reverse = not boundary and old[0] in "<>" and new[0] in "<>"
                self._add(
                    "cmp-boundary" if boundary else "cmp-flip",
                    node,
                    node.with_changes(comparisons=targets),
                    f"change {old!r} to {new!r}",
                    PRIOR["cmp-reverse"] if reverse else None,
                )

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not self._inside(node):
            return
        for new_op in _BIN_SWAPS.get(type(node.operator), []):
            new_op = _keep_ws(node.operator, new_op)
            old, new = _code(node.operator).strip(), _code(new_op).strip()
            self._add("arith", node, node.with_changes(operator=new_op), f"change {old!r} to {new!r}")
        right = node.right
        if isinstance(node.operator, (cst.Add, cst.Subtract)) and isinstance(right, cst.Integer) and right.value == "1":
            left = _code(node.left)
            sign = _code(node.operator).strip()
            self._add("drop-one", node, left, f"drop '{sign} 1' from {left[:40]!r}")
            self.step_ones.add(id(right))

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
        if not (self._inside(node) and isinstance(node.operator, cst.Not)):
            return
        inner = node.expression
        # `not a in b` / `not a is None` is unidiomatic (pycodestyle E713/E714): the `not` is the slip,
        # so dropping it outranks flipping the comparison inside
        bonus = 0.03 if isinstance(inner, cst.Comparison) else 0.0
        if id(node) in self.returned and isinstance(inner, (cst.Name, cst.Attribute)):
            bonus = 0.03  # `return not flag`: the `not` on the returned value itself is the slip
        self._add("remove-not", node, inner, "remove 'not'", PRIOR["remove-not"] + bonus)
        if id(node) in self.if_tests and (inner.lpar or inner.rpar):
            # `if not (a or b):` most likely came from `if a or b:`; the parentheses go too
            bare = inner.with_changes(lpar=[], rpar=[])
            self._add("remove-not", node, bare, "remove 'not' and its parentheses", PRIOR["remove-not"] + 0.005)

    # -- constants ----------------------------------------------------------
    def visit_Integer(self, node: cst.Integer) -> None:
        if not self._inside(node):
            return
        try:
            value = int(node.value.replace("_", ""), 0)
        except ValueError:
            return
        for delta in (1, -1):
            if value + delta == 0 and id(node) in self.step_ones:
                continue  # `e - 0` would pass where `e` was meant; dropping the step writes `e`
            if value + delta >= 0:
                self._add("off-by-one", node, str(value + delta), f"change {value} to {value + delta}")
        others = [0, 1, -1] + [v for v in dict.fromkeys(self.ints) if v != value][:MAX_OTHER_INTS]
        if id(node) in self.step_ones:
            others = [v for v in others if v != 0]
        near = {value + 1} | ({value - 1} if value >= 1 else set())
        for other in dict.fromkeys(others):
            if other != value and other not in near:
                self._add("int-const", node, str(other), f"change {value} to {other}")

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if not self._inside(node) or node.prefix.lower() not in ("", "u"):
            return
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return
        if not isinstance(value, str) or "\n" in node.value:
            return
        quote = node.quote if node.quote in ("'", '"') else "'"
        choices = ([""] if value else []) + [s for s in self.strings if s != value]
        for other in choices[: MAX_STRINGS + 1]:
            text = quote + other + quote if quote not in other and "\\" not in other and other.isprintable() else repr(other)
            self._add("str-const", node, text, f"change {node.value[:30]} to {text[:30]}")

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
            self._plus_minus(arg.value, "range bound")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self._inside(node):
            return
        for element in node.slice:
            sl = element.slice
            if isinstance(sl, cst.Slice):
                for bound in (sl.lower, sl.upper):
                    if bound is not None and not isinstance(bound, cst.Integer):
                        self._plus_minus(bound, "slice bound")

    def _plus_minus(self, value: cst.BaseExpression, what: str) -> None:
        code = _code(value)
        wrapped = f"({code})" if isinstance(value, (cst.BooleanOperation, cst.IfExp, cst.Lambda)) else code
        for sign in _signs_for(value):
            self._add("off-by-one", value, f"{wrapped} {sign} 1", f"change {what} {code[:40]!r} by {sign}1")

    # -- conditions and returns --------------------------------------------
    def _negate_test(self, test: cst.BaseExpression) -> None:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            self.if_tests.add(id(test))
            return  # visit_UnaryOperation removes it
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(
            test.comparisons[0].operator, (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot, cst.In, cst.NotIn)
        ):
            return  # the operator flip is the same condition and restores the code
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
        if value is not None:
            self.returned.add(id(value))
        if value is None or not self._inside(node) or self.expected is _NO_VALUE:
            return  # without a literal expected value there is nothing to aim for
        if not isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.Name, cst.UnaryOperation)):
            if isinstance(self.expected, int) and not isinstance(self.expected, bool):
                code = _code(value)
                wrapped = f"({code})" if isinstance(value, (cst.BooleanOperation, cst.IfExp, cst.Comparison)) else code
                for sign in _signs_for(value, ("-", "+")):
                    self._add("off-by-one", value, f"{wrapped} {sign} 1", f"return {code[:40]} {sign} 1", PRIOR["bound"])
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
                self.c._add("name", node, other, f"use {other!r} instead of {node.value!r}", pos=pos)


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


def _function_facts(wrapper: MetadataWrapper, first: int, last: int) -> tuple[list[str], list[str], list[int]]:
    """Local names, string literals and integer literals of the function spanning [first, last]."""
    positions = wrapper.resolve(PositionProvider)
    names: list[str] = []
    strings: list[str] = []
    ints: list[int] = []

    def inside(node: cst.CSTNode) -> bool:
        pos = positions.get(node)
        return pos is not None and first <= pos.start.line <= last

    class Finder(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            pos = positions.get(node)
            if pos is None or pos.start.line > first or pos.end.line < last:
                return
            for param in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params):
                names.append(param.name.value)

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if inside(node) and isinstance(node.target, cst.Name):
                names.append(node.target.value)

        def visit_For(self, node: cst.For) -> None:
            if inside(node) and isinstance(node.target, cst.Name):
                names.append(node.target.value)

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            if inside(node) and node.prefix.lower() in ("", "u"):
                value = _literal(node.value)
                if isinstance(value, str) and _short(value):
                    strings.append(value)

        def visit_Integer(self, node: cst.Integer) -> None:
            if inside(node):
                try:
                    ints.append(int(node.value.replace("_", ""), 0))
                except ValueError:
                    pass

    wrapper.visit(Finder())
    return [n for n in dict.fromkeys(names) if n != "self"][:8], list(dict.fromkeys(strings)), ints


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _short(value: str) -> bool:
    return len(value) <= 24 and "\n" not in value and value.isprintable()


def module_strings(code: str) -> list[str]:
    """The module's short string literals (docstrings excluded), most frequent first."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and n.body
        and isinstance(n.body[0], ast.Expr)
    }
    counts: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                docstrings.add(id(part))  # f-string pieces are not literals one can swap in
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if _short(node.value):
                counts[node.value] += 1
    return [s for s, _n in counts.most_common(MAX_STRINGS * 2)]


def mutants_for(
    code: str, rel: str, first: int, last: int, expected: object = _NO_VALUE, focus_line: int = 0, raised: str = "",
    got_none: bool = False,
) -> list[Mutant]:
    """Mutants inside lines [first, last] of the module, most likely first (``raised``: the exception
    class the failing test saw, which an ``except`` clause may have meant to catch; ``got_none``: the
    test saw None where a value was due)."""
    sliced = FunctionSlice(code, first, last)
    tree = sliced.parse()
    if tree is not None:  # parse only the function; map positions back to the file
        lo, hi, to_file = 1, last - first + 1, sliced.to_file
    else:
        try:
            tree = cst.parse_module(code)
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            return []
        lo, hi = first, last

        def to_file(line: int, col0: int) -> Position:
            return Position(line, col0 + 1)

    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    names, own_strings, ints = _function_facts(wrapper, lo, hi)
    strings = list(dict.fromkeys(own_strings + module_strings(code)))
    collector = _Collector(rel, lo, hi, expected, names, strings, to_file)
    collector.ints = ints
    wrapper.visit(collector)
    wrapper.visit(_NameSwapper(collector))
    from .mutant_ops import MoreOps, module_facts

    wrapper.visit(MoreOps(collector, module_facts(code), raised, got_none))
    unique: dict[tuple[str, int, int, int, int, str], Mutant] = {}
    for mutant in sorted(collector.out, key=lambda m: -m.prior):
        unique.setdefault(mutant.key, mutant)

    def order(m: Mutant) -> tuple[float, int, int, int]:
        near = focus_bonus(raised) if focus_line and m.line == focus_line else 0.0
        distance = abs(m.line - focus_line) if focus_line else 0
        return (-(m.prior + near), distance, m.line, m.edit.start.col)

    return sorted(unique.values(), key=order)


def focus_bonus(raised: str) -> float:
    """How much a mutant on the failing line (the deepest implementation frame) gains: more when an
    exception other than an assertion started there (the slip is most often on that very line)."""
    return 0.2 if raised and raised.rsplit(".", 1)[-1] not in ("AssertionError", "") else 0.1


def expected_value(text: str) -> object:
    """The assertion's expected value when it is a Python literal, else a sentinel."""
    if not text:
        return _NO_VALUE
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return _NO_VALUE


NO_VALUE = _NO_VALUE
