"""More mutant operators for the validated search: slips a one-token swap does not undo.

A wrong returned value (another name of the function, ``not x`` <-> ``x``, ``None`` <-> a name), two
positional arguments of a call swapped, the exception class of an ``except`` clause (those the module
raises or handles, ``Exception`` and the common builtins), a misspelled attribute (the nearest
attribute name the module knows, by edit distance) and a ``while`` loop that never moves its
variable (``i += 1`` restored).  They run beside :mod:`.mutants`' collector and add to its list
through its ``_add``; what the module knows (exception classes, attribute names) comes from one
``ast`` pass per module text, cached.
"""

from __future__ import annotations

import ast
import builtins
import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import PositionProvider

# the specific ones first: a broader class also passes a weak test, but is rarely what was written
BUILTIN_EXCEPTIONS = ("ValueError", "TypeError", "KeyError", "IndexError", "AttributeError", "Exception",
                      "LookupError", "RuntimeError")
PRIOR = {
    "return-not": 0.74,  # `return x` <-> `return not x`
    "return-name": 0.66,  # `return a` -> `return b` (a name of the function), `return None` -> `return a`
    "return-none": 0.45,  # `return x` -> `return None`
    "return-seen-none": 0.86,  # `return None` -> `return x` when the failing test got None
    "swap-args": 0.72,  # f(a, b) -> f(b, a), neighbours; farther pairs a little lower
    "swap-operands": 0.6,  # a - b -> b - a
    "except-raised": 0.89,  # except IndexError -> except KeyError, the class the failing test saw escape
    "except-type": 0.7,  # except KeyError -> except IndexError (a class the module raises or handles)
    "except-builtin": 0.62,
    "attr-name": 0.84,  # obj.lenght -> obj.length: the attribute is known nowhere else, its neighbour is
    "loop-step": 0.62,  # `while i < n:` whose body never moves i: `i += 1` at its end
}
MAX_SWAPS = 3
MAX_EXCEPT = 8
_NON_COMMUTATIVE = (cst.Subtract, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power, cst.LeftShift, cst.RightShift)


@dataclass
class ModuleFacts:
    exceptions: list[str] = field(default_factory=list)  # raised or handled in the module, most used first
    attributes: Counter[str] = field(default_factory=Counter)  # attribute names read or written
    defined: set[str] = field(default_factory=set)  # defined: methods, class attributes, self.x =, top-level names


@functools.lru_cache(maxsize=64)
def module_facts(code: str) -> ModuleFacts:
    facts = ModuleFacts()
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return facts
    excs: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            facts.attributes[node.attr] += 1
            if isinstance(node.ctx, ast.Store):
                facts.defined.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            facts.defined.add(node.name)
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    for target in _targets(stmt):
                        facts.defined.add(target)
                if any(_name_of(b).endswith(("Error", "Exception", "Warning")) for b in node.bases):
                    excs[node.name] += 1
        elif isinstance(node, ast.Raise) and node.exc is not None:
            name = _name_of(node.exc.func if isinstance(node.exc, ast.Call) else node.exc)
            if name:
                excs[name] += 1
        elif isinstance(node, ast.ExceptHandler) and node.type is not None:
            for part in node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]:
                if _name_of(part):
                    excs[_name_of(part)] += 1
    for stmt in tree.body:
        facts.defined.update(_targets(stmt))
    facts.exceptions = [n for n, _c in excs.most_common() if _exception_like(n)]
    return facts


def _targets(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


def _name_of(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _exception_like(name: str) -> bool:
    builtin = getattr(builtins, name, None)
    if isinstance(builtin, type):
        return issubclass(builtin, BaseException)
    return name.endswith(("Error", "Exception", "Exit", "Interrupt")) or name in ("StopIteration",)


def edit_distance(a: str, b: str, limit: int = 2) -> int:
    """Levenshtein distance (with adjacent transpositions), cut off above ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


# methods of the builtin types: `s.rslpit` means `s.rsplit` even when no other line of the module calls it
_BUILTIN_METHODS = frozenset(n for t in (str, bytes, list, dict, set, tuple, int, float, frozenset)
                             for n in dir(t) if not n.startswith("_"))


def near_attributes(attr: str, facts: ModuleFacts) -> list[str]:
    """Known attribute names one or two edits from ``attr``, nearest and most used first; none when
    ``attr`` itself is defined or used elsewhere in the module (then it is no misspelling)."""
    if attr in facts.defined or facts.attributes.get(attr, 0) > 1 or len(attr) < 3:
        return []
    known = set(facts.attributes) | facts.defined | _BUILTIN_METHODS
    scored = [(d, -facts.attributes.get(k, 0), k) for k in known if k != attr
              and (d := edit_distance(attr, k)) <= (1 if len(attr) < 5 else 2)]
    return [k for _d, _n, k in sorted(scored)[:3]]


class MoreOps(cst.CSTVisitor):
    """Adds this module's operators to a :class:`mutants._Collector` (its ``_add``, ``_inside``, names)."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, collector: Any, facts: ModuleFacts, raised: str = "", got_none: bool = False) -> None:
        super().__init__()
        self.c = collector
        self.facts = facts
        self.got_none = got_none  # the failing test saw None (an assertion's actual value, 'NoneType' in the error)
        self.returns: list[str] = []  # the function's returned expressions (other branches: stand-ins for None)
        self.inner_defs: list[str] = []  # functions defined inside it (a decorator's `return wrapper`)
        self.raised = raised.rsplit(".", 1)[-1] if _exception_like(raised.rsplit(".", 1)[-1]) else ""

    def _inside(self, node: cst.CSTNode) -> bool:
        pos = self.get_metadata(PositionProvider, node)
        return bool(self.c.first <= pos.start.line and pos.end.line <= self.c.last)

    def _add(self, kind: str, node: cst.CSTNode, new: cst.CSTNode | str, what: str, prior: float | None = None,
             pos: Any = None) -> None:
        pos = pos if pos is not None else self.get_metadata(PositionProvider, node)
        self.c._add(kind, node, new, what, PRIOR[kind] if prior is None else prior, pos)

    # -- a wrong returned value ------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        pos = self.get_metadata(PositionProvider, node)
        if self.c.first < pos.start.line <= self.c.last:
            self.inner_defs.append(node.name.value)

    def visit_Module(self, node: cst.Module) -> None:
        """Every returned expression of the function first: `return None` may have been one of them."""
        code_for = cst.Module([]).code_for_node
        returns: list[str] = []

        class Returns(cst.CSTVisitor):
            def visit_Return(inner, ret: cst.Return) -> None:  # noqa: N805 - the outer self is the op
                if ret.value is not None and self._inside(ret):
                    text = code_for(ret.value)
                    if text != "None" and "\n" not in text:
                        returns.append(text)

        node.visit(Returns())
        self.returns = list(dict.fromkeys(returns))

    def visit_Return(self, node: cst.Return) -> None:
        if not self._inside(node):
            return
        value = node.value
        names = [n for n in reversed(self.c.names) if n != "self"]  # the latest bound first
        if value is None or (isinstance(value, cst.Name) and value.value == "None"):
            prior = PRIOR["return-seen-none"] if self.got_none else PRIOR["return-name"]
            stand_ins = list(dict.fromkeys([*self.inner_defs[::-1], *names[:6], *self.returns[:4]]))
            for rank, text in enumerate(stand_ins):
                if value is None:
                    self._add("return-name", node, f"return {text}", f"return {text[:40]}", prior - 0.005 * rank)
                else:
                    self._add("return-name", value, text, f"return {text[:40]} instead of None", prior - 0.005 * rank)
            return
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not):
            inner = value.expression
            if inner.lpar:  # `return not (a == b)` most likely was `return a == b`: the parentheses go too
                self._add("return-not", value, inner.with_changes(lpar=[], rpar=[]),
                          "return without 'not' and its parentheses", 0.905)
            return  # remove-not covers the rest
        if isinstance(value, cst.Name) and value.value in ("True", "False"):
            return  # bool-const covers it
        code = cst.Module([]).code_for_node(value)
        if isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Comparison, cst.Subscript)):
            # a truth value expected: `not` is the likeliest slip; otherwise it rarely is
            boolish = isinstance(self.c.expected, bool) or isinstance(value, cst.Comparison)
            wrapped = f"not ({code})" if isinstance(value, cst.Comparison) else f"not {code}"
            self._add("return-not", value, wrapped, f"return not {code[:40]}", None if boolish else 0.5)
        if isinstance(value, cst.Name):
            for name in names:
                if name != value.value:
                    self._add("return-name", value, name, f"return {name} instead of {value.value}")
        elif isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name):
            for other in self._sibling_attributes(value):
                self._add("return-name", value.attr, other, f"return .{other} instead of .{value.attr.value}",
                          PRIOR["return-name"] - 0.06)
        self._add("return-none", value, "None", f"return None instead of {code[:40]}")

    def _sibling_attributes(self, node: cst.Attribute) -> list[str]:
        """Other attributes the module reads on objects: the likeliest stand-ins for a wrong one."""
        own = node.attr.value
        return [a for a, _n in self.facts.attributes.most_common(12) if a != own and not a.startswith("__")][:4]

    # -- swapped arguments -----------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if not self._inside(node):
            return
        positional = [i for i, a in enumerate(node.args) if a.keyword is None and not a.star]
        if len(positional) < 2:
            return
        pairs = [(positional[k], positional[k + 1]) for k in range(len(positional) - 1)]
        pairs += [(positional[0], positional[-1])] if len(positional) > 2 else []
        for n, (i, j) in enumerate(pairs[:MAX_SWAPS]):
            args = list(node.args)
            a, b = args[i], args[j]
            args[i] = a.with_changes(value=b.value)
            args[j] = b.with_changes(value=a.value)
            prior = PRIOR["swap-args"] - (0.04 if n >= len(positional) - 1 else 0.0)
            self._add("swap-args", node, node.with_changes(args=args), f"swap arguments {i + 1} and {j + 1}", prior)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not self._inside(node) or not isinstance(node.operator, _NON_COMMUTATIVE):
            return
        swapped = node.with_changes(left=node.right, right=node.left)
        self._add("swap-operands", node, swapped, "swap the operands")

    # -- the exception class of an except clause --------------------------------
    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        kind = node.type
        if kind is None or not isinstance(kind, (cst.Name, cst.Attribute)) or not self._inside(kind):
            return
        current = kind.value if isinstance(kind, cst.Name) else kind.attr.value
        choices = [(self.raised, "except-raised")] if self.raised else []
        choices += [(e, "except-type") for e in self.facts.exceptions]
        choices += [(e, "except-builtin") for e in BUILTIN_EXCEPTIONS]
        seen = {current}
        for n, (name, op) in enumerate(choices):
            if name in seen or len(seen) > MAX_EXCEPT:
                continue
            seen.add(name)
            self._add("except-type", kind, name, f"catch {name} instead of {current}", PRIOR[op] - 0.002 * n)

    # -- a misspelled attribute ------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self._inside(node):
            return
        for rank, name in enumerate(near_attributes(node.attr.value, self.facts)):
            self._add("attr-name", node.attr, name, f"use .{name} instead of .{node.attr.value}",
                      PRIOR["attr-name"] - 0.02 * rank)

    # -- a loop that never moves its variable --------------------------------------
    def visit_While(self, node: cst.While) -> None:
        if not self._inside(node) or not isinstance(node.body, cst.IndentedBlock) or not node.body.body:
            return
        var, step = _loop_variable(node.test)
        if not var or _assigns(node.body, var):
            return
        last = node.body.body[-1]
        if not isinstance(last, cst.SimpleStatementLine) or last.trailing_whitespace.comment is not None:
            return  # a compound last statement or a trailing comment: no clean place for the step
        end = self.get_metadata(PositionProvider, last).end
        column = self.get_metadata(PositionProvider, node.body.body[0]).start.column
        self._add("loop-step", last, f"\n{' ' * column}{var} {step} 1", f"add '{var} {step} 1' at the end of the loop",
                  pos=_Span(end, end))


class _Span:
    def __init__(self, start: Any, end: Any) -> None:
        self.start, self.end = start, end


def _loop_variable(test: cst.BaseExpression) -> tuple[str, str]:
    """(variable, '+=' or '-=') for `while i < n` / `while n > i` / `while i >= 0`; ('', '') otherwise."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return "", ""
    op = test.comparisons[0].operator
    right = test.comparisons[0].comparator
    if isinstance(test.left, cst.Name):
        if isinstance(op, (cst.LessThan, cst.LessThanEqual, cst.NotEqual)):
            return test.left.value, "+="
        if isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
            return test.left.value, "-="
    if isinstance(right, cst.Name):
        if isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
            return right.value, "+="
        if isinstance(op, (cst.LessThan, cst.LessThanEqual)):
            return right.value, "-="
    return "", ""


def _assigns(body: cst.CSTNode, var: str) -> bool:
    """Does the loop body (re)bind ``var`` anywhere (assignment, augmented assignment, for target, walrus)?"""
    found = False

    class Finder(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            nonlocal found
            if node.value == var and id(node) in targets:
                found = True

    targets: set[int] = set()

    class Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            targets.update(id(n) for n in _names(node.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            targets.update(id(n) for n in _names(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            targets.update(id(n) for n in _names(node.target))

        def visit_For(self, node: cst.For) -> None:
            targets.update(id(n) for n in _names(node.target))

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            targets.update(id(n) for n in _names(node.target))

    body.visit(Targets())
    body.visit(Finder())
    return found


def _names(node: cst.CSTNode) -> list[cst.Name]:
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for el in node.elements for n in _names(el.value)]
    return []
