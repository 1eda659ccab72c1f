"""Where bench_fix_python.py seeds its faults: the mutation sites of one source file, per kind
(operator swaps, off-by-one, negations, wrong constants, misspelled names, removed imports)."""

from __future__ import annotations

import ast
import builtins
import keyword
import re

KINDS = ("operator", "off-by-one", "negation", "wrong-constant", "misspelled-name", "removed-import")
# The held-out corpus (bench_heldout_python.py) seeds by the kinds a user meets: comparison and
# arithmetic swaps and dropped `not`s apart, plus four kinds the development corpus lacks.
HELDOUT_KINDS = ("compare", "remove-not", "wrong-return", "arith", "off-by-one", "swapped-args",
                 "except-type", "misspelled-attr", "misspelled-name")
_EXTRA = ("compare", "arith", "remove-not", "wrong-return", "swapped-args", "except-type", "misspelled-attr")
_EXCEPTIONS = ("ValueError", "KeyError", "IndexError", "TypeError", "AttributeError", "LookupError")

Site = tuple[str, int, int, int, tuple[str, ...]]  # (subkind, line, start byte, end byte, replacements)


class _Sites:
    """Every candidate site of one source file, as byte-offset replacements."""

    CMP = {ast.Lt: ["<=", ">"], ast.LtE: ["<", ">="], ast.Gt: [">=", "<"], ast.GtE: [">", "<="],
           ast.Eq: ["!="], ast.NotEq: ["=="], ast.Is: ["is not"], ast.IsNot: ["is"],
           ast.In: ["not in"], ast.NotIn: ["in"]}
    ARITH = {ast.Add: ["-"], ast.Sub: ["+"], ast.Mult: ["+", "//"], ast.FloorDiv: ["*", "/", "%"],
             ast.Div: ["//", "*"], ast.Mod: ["//"], ast.BitAnd: ["|"], ast.BitOr: ["&"]}

    def __init__(self, lib: str, rel: str, data: bytes, covered: set[int]) -> None:
        self.lib, self.rel, self.data, self.covered = lib, rel, data, covered
        self.starts = [0]
        for line in data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.tree = ast.parse(data)
        self.idents = {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name)} | {
            n.attr for n in ast.walk(self.tree) if isinstance(n, ast.Attribute)} | set(dir(builtins))
        self.out: dict[str, list[Site]] = {k: [] for k in (*KINDS, *_EXTRA)}
        self.docstrings = {id(n.body[0].value) for n in ast.walk(self.tree)
                           if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module))
                           and n.body and isinstance(n.body[0], ast.Expr)
                           and isinstance(n.body[0].value, ast.Constant)}

    def off(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.off(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.off(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def text(self, a: int, b: int) -> str:
        return self.data[a:b].decode("utf-8")

    def add(self, kind: str, sub: str, line: int, a: int, b: int, news: list[str]) -> None:
        if line in self.covered and news:
            self.out[kind].append((sub, line, a, b, tuple(news)))
            if sub in ("compare", "arith", "remove-not"):
                self.out[sub].append((sub, line, a, b, tuple(news)))

    def collect(self) -> dict[str, list[Site]]:
        for fn in ast.walk(self.tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for stmt in fn.body:
                    for node in ast.walk(stmt):
                        self._visit(node)
        self._imports()
        for kind in self.out:  # one function may be walked twice when nested: keep each site once
            self.out[kind] = sorted(set(self.out[kind]))
        return self.out

    def _op_between(self, left: ast.AST, right: ast.AST, tokens: list[str]) -> tuple[int, int, str] | None:
        a, b = self.span(left)[1], self.span(right)[0]
        gap = self.text(a, b)
        for tok in sorted(tokens, key=len, reverse=True):
            m = re.search(r"(?<![=<>!])" + re.escape(tok).replace(r"\ ", r"\s+") + r"(?![=<>])", gap)
            if m:
                return a + m.start(), a + m.end(), m.group(0)
        return None

    def _visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                toks = {ast.Lt: ["<"], ast.LtE: ["<="], ast.Gt: [">"], ast.GtE: [">="], ast.Eq: ["=="],
                        ast.NotEq: ["!="], ast.Is: ["is not"] if isinstance(op, ast.IsNot) else ["is"],
                        ast.IsNot: ["is not"], ast.In: ["in"], ast.NotIn: ["not in"]}[type(op)]
                hit = self._op_between(left, right, toks)
                if hit:
                    self.add("operator", "compare", node.lineno, hit[0], hit[1], self.CMP[type(op)])
                left = right
        elif isinstance(node, ast.BinOp) and type(node.op) in self.ARITH:
            tok = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Div: "/", ast.Mod: "%",
                   ast.BitAnd: "&", ast.BitOr: "|"}[type(node.op)]
            a, b = self.span(node.left)[1], self.span(node.right)[0]
            i = self.text(a, b).find(tok)
            if i >= 0 and not (tok == "/" and self.text(a, b)[i:i + 2] == "//"):
                self.add("operator", "arith", node.lineno, a + i, a + i + len(tok), self.ARITH[type(node.op)])
        elif isinstance(node, ast.BoolOp) and len(node.values) == 2:
            tok = "and" if isinstance(node.op, ast.And) else "or"
            hit = self._op_between(node.values[0], node.values[1], [tok])
            if hit:
                self.add("operator", "boolean", node.lineno, hit[0], hit[1], ["or" if tok == "and" else "and"])
        elif isinstance(node, ast.Constant) and id(node) not in self.docstrings:
            a, b = self.span(node)
            src = self.text(a, b)
            if isinstance(node.value, bool):
                self.add("wrong-constant", "bool", node.lineno, a, b, [str(not node.value)])
            elif isinstance(node.value, int) and src.isdigit():
                n = node.value
                self.add("off-by-one", "constant", node.lineno, a, b, [str(n + 1)] + ([str(n - 1)] if n > 0 else []))
                far = [v for v in (0, 2, 10, n * 2, n + 3) if abs(v - n) > 1]
                self.add("wrong-constant", "int", node.lineno, a, b, [str(v) for v in dict.fromkeys(far)])
            elif isinstance(node.value, str) and 0 < len(node.value) <= 12 and src[:1] in "'\"" and "\\" not in src:
                q = src[0]
                self.add("wrong-constant", "str", node.lineno, a, b, [q + q, q + node.value[::-1] + q]
                         if len(set(node.value)) > 1 else [q + q])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            for arg in node.args[:2]:
                if not isinstance(arg, ast.Constant):
                    a, b = self.span(arg)
                    src = self.text(a, b)
                    wrap = f"({src})" if isinstance(arg, (ast.BinOp, ast.BoolOp, ast.IfExp)) else src
                    self.add("off-by-one", "range-bound", arg.lineno, a, b, [f"{wrap} + 1", f"{wrap} - 1"])
        elif isinstance(node, ast.Slice):
            for bound in (node.lower, node.upper):
                if bound is not None and not isinstance(bound, ast.Constant):
                    a, b = self.span(bound)
                    src = self.text(a, b)
                    wrap = f"({src})" if isinstance(bound, (ast.BinOp, ast.BoolOp, ast.IfExp)) else src
                    self.add("off-by-one", "slice-bound", bound.lineno, a, b, [f"{wrap} + 1", f"{wrap} - 1"])
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            a = self.span(node)[0]
            b = self.span(node.operand)[0]
            self.add("negation", "remove-not", node.lineno, a, b, [""])
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)) and not (
            isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
        ):
            a, b = self.span(node.test)
            src = self.text(a, b)
            paren = isinstance(node.test, (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda))
            self.add("negation", "add-not", node.test.lineno, a, b, [f"not ({src})" if paren else f"not {src}"])
        elif isinstance(node, ast.Return) and node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None
        ):
            a, b = self.span(node.value)
            news = ["None"] if not isinstance(node.value, ast.Constant) else []
            if isinstance(node.value, ast.Compare):
                news.append(f"not ({self.text(a, b)})")
            self.add("wrong-return", "return", node.lineno, a, b, news)
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and node.lineno == node.end_lineno:
            first, second = node.args[0], node.args[1]
            if not any(isinstance(x, ast.Starred) for x in (first, second)):
                a, b = self.span(first)[0], self.span(second)[1]
                x, y = self.text(*self.span(first)), self.text(*self.span(second))
                if x != y:
                    sep = self.text(self.span(first)[1], self.span(second)[0])
                    self.add("swapped-args", "call", node.lineno, a, b, [y + sep + x])
        elif isinstance(node, ast.ExceptHandler) and isinstance(node.type, ast.Name) \
                and node.type.id.endswith(("Error", "Exception", "Iteration")):
            a, b = self.span(node.type)
            self.add("except-type", "except", node.type.lineno, a, b,
                     [e for e in _EXCEPTIONS if e != node.type.id][:3])
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and len(node.attr) >= 3:
            b = self.span(node)[1]
            a = b - len(node.attr.encode())
            if self.text(a, b) == node.attr:
                news = [n for n in _misspell(node.attr) if n not in self.idents and not keyword.iskeyword(n)]
                self.add("misspelled-attr", "attribute", node.end_lineno or node.lineno, a, b, news)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and len(node.id) >= 3 \
                and node.id not in ("True", "False", "None", "self", "cls"):
            a, b = self.span(node)
            news = [n for n in _misspell(node.id) if n not in self.idents and not keyword.iskeyword(n)]
            self.add("misspelled-name", "name", node.lineno, a, b, news)

    def _imports(self) -> None:
        for stmt in self.tree.body:  # module level only; each statement is executed on import
            if isinstance(stmt, (ast.Import, ast.ImportFrom)) and not (
                isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
            ):
                names = stmt.names
                if len(names) == 1:
                    a = self.off(stmt.lineno, 0)
                    end_line = stmt.end_lineno or stmt.lineno
                    b = self.starts[end_line] if end_line < len(self.starts) else len(self.data)
                    self.out["removed-import"].append(("statement", stmt.lineno, a, b, ("",)))
                    continue
                for i, alias in enumerate(names):
                    if alias.name == "*":
                        continue
                    a0, b0 = self.span(alias)
                    if i + 1 < len(names):
                        a, b = a0, self.span(names[i + 1])[0]
                    else:
                        a, b = self.span(names[i - 1])[1], b0
                    self.out["removed-import"].append(("name", alias.lineno, a, b, ("",)))


def _misspell(name: str) -> list[str]:
    out = []
    mid = len(name) // 2
    out.append(name[:mid] + name[mid + 1:])  # dropped letter
    if name[mid] != name[mid - 1]:
        out.append(name[: mid - 1] + name[mid] + name[mid - 1] + name[mid + 1:])  # swapped letters
    out.append(name[:mid] + name[mid] + name[mid:])  # doubled letter
    return [n for n in out if n.isidentifier() and n != name]


# --------------------------------------------------------------------------- corpus
