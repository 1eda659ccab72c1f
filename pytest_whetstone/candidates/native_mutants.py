"""Small edits ("mutants") inside a C, C++ or JavaScript/TypeScript function, from tree-sitter nodes.

The same operator families as the Python search (:mod:`.mutants`), ranked by the same priors:
comparison swaps (``<``/``<=``, ``==``/``!=``, ``===``/``!==``), arithmetic swaps, ``&&``/``||``,
a ``!`` removed (and, lower, a condition negated), off-by-one on integer literals, a ``± 1``
dropped, ``++``/``--`` and ``+=``/``-=`` swapped, other constants (0, 1, the function's other
integers, true/false), a returned literal replaced by the expected value the test printed, and two
arguments of a call swapped.  Every mutant is one :class:`~..records.TextEdit` in file coordinates
(1-based lines, character columns), so a validated one is a candidate as it stands.

tree-sitter is error-tolerant; nodes inside an ``ERROR`` subtree are skipped, since an edit there
could not be trusted to mean what it says.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..locate.jsfamily import text_of as _text  # any tree-sitter node's text
from ..records import Position, TextEdit
from .mutant import PRIOR, Mutant

# Every relational operator may become every other one (the whole ROR family: a slip is not always
# the neighbouring operator); the likeliest slips keep their kinds and priors, the rest rank below.
_CMP: dict[str, list[tuple[str, str]]] = {
    "<": [("<=", "cmp-boundary"), (">", "cmp-reverse"), (">=", "cmp-negate"), ("!=", "cmp-other"), ("==", "cmp-other")],
    "<=": [("<", "cmp-boundary"), (">=", "cmp-reverse"), (">", "cmp-negate"), ("==", "cmp-other"), ("!=", "cmp-other")],
    ">": [(">=", "cmp-boundary"), ("<", "cmp-reverse"), ("<=", "cmp-negate"), ("!=", "cmp-other"), ("==", "cmp-other")],
    ">=": [(">", "cmp-boundary"), ("<=", "cmp-reverse"), ("<", "cmp-negate"), ("==", "cmp-other"), ("!=", "cmp-other")],
    "==": [("!=", "cmp-flip"), ("<=", "cmp-other"), (">=", "cmp-other"), ("<", "cmp-other"), (">", "cmp-other")],
    "!=": [("==", "cmp-flip"), ("<", "cmp-other"), (">", "cmp-other"), ("<=", "cmp-other"), (">=", "cmp-other")],
    "===": [("!==", "cmp-flip")],
    "!==": [("===", "cmp-flip")],
}
# likewise every arithmetic (and bitwise, and shift) operator may become the others of its family: the
# first ones listed are the likeliest slips ("arith"), the rest rank below them ("arith-other"); a
# replacement the types refuse (`%` of a double, `/` of a pointer) is the compiler's to reject
_ARITH: dict[str, list[str]] = {
    "+": ["-", "*"], "-": ["+"], "*": ["/", "+"], "/": ["*"], "%": ["/"],
    "&": ["|"], "|": ["&"], "^": ["|"], "<<": [">>"], ">>": ["<<"],
}
_ARITH_FAMILIES = (("+", "-", "*", "/", "%"), ("&", "|", "^"), ("<<", ">>"))
_ARITH_OTHER: dict[str, list[str]] = {
    op: [o for o in family if o != op and o not in _ARITH[op]] for family in _ARITH_FAMILIES for op in family
}
FAR_SWAP_PRIOR = 0.56  # two arguments of a call that are not neighbours, swapped
_LOGIC = {"&&": "||", "||": "&&"}
_AUG = {"+=": "-=", "-=": "+=", "*=": "/=", "/=": "*=", "<<=": ">>=", ">>=": "<<="}
_INT = re.compile(r"^([-+]?)(0[xX][0-9a-fA-F]+|0|[1-9]\d*)([uUlL]*)$")  # not octal: `010` is 8 in C
_NUMBERS = {"number_literal", "number"}
_ARG_LISTS = {"argument_list", "arguments"}
_CONDITIONS = {"if_statement", "while_statement", "do_statement"}
MAX_OTHER_INTS = 4
MAX_FILE_INTS = 3  # integers of the rest of the file a literal may become, the nearest first
FILE_INT_PRIOR = 0.45  # below the function's own integers: a constant written elsewhere in the file
SMALL_INT = 2  # every literal may also become this (after 0 and 1, which the constants family tries)
SMALL_INT_PRIOR = 0.43  # below the file's integers: a value written nearby is the likelier slip
FILE_INTS_UP_TO = 4  # integer literals in the function, at most, for its literals to get the file's integers
MAX_MUTANTS = 800  # per function: a huge function must not make a huge plan (nor its file a schema past MAX_SCHEMA_MUTANTS)
GENERATED_MAX = 4 * MAX_MUTANTS  # generated before the likeliest MAX_MUTANTS are kept


class _Source:
    """One file's bytes, and tree-sitter points turned into our positions."""

    def __init__(self, rel: str, data: bytes) -> None:
        self.rel = rel
        self.data = data
        self.lines = data.split(b"\n")
        self.numeric: set[str] | None = None  # C/C++: the names `x ± 1` may change (None: any, as in JS)

    def pos(self, point: tuple[int, int]) -> Position:
        row, byte_col = point
        raw = self.lines[row] if row < len(self.lines) else b""
        return Position(row + 1, len(raw[:byte_col].decode("utf-8", errors="replace")) + 1)

    def edit(self, node: Any, new_text: str) -> TextEdit:
        return TextEdit(self.rel, self.pos(node.start_point), self.pos(node.end_point), new_text)

    def span(self, start: Any, end: Any, new_text: str) -> TextEdit:
        return TextEdit(self.rel, self.pos(start.start_point), self.pos(end.end_point), new_text)


def _in_error(node: Any) -> bool:
    """Inside an ``ERROR`` node, or in a statement tree-sitter could not parse whole."""
    cur = node
    while cur is not None:
        if cur.type == "ERROR" or cur.is_missing:
            return True
        if cur.type.endswith(("_statement", "declaration")):
            return bool(cur.has_error)
        cur = cur.parent
    return False


def _nodes(root: Any, first: int, last: int) -> Iterator[Any]:
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


def _operator(node: Any) -> Any:
    op = node.child_by_field_name("operator")
    if op is not None:
        return op
    named = [c for c in node.children if not c.is_named]
    return named[0] if named else None


@functools.lru_cache(maxsize=8)
def _parse(rel: str, data: bytes) -> Any:
    """The file's syntax tree: the plan asks for every function of a file in turn (up to ``NEIGHBOURS``),
    and a big file's parse is what each of those calls would cost."""
    from ..locate import cfamily, jsfamily

    if jsfamily.language_for(rel):
        return jsfamily.parse_source(data, jsfamily.language_for(rel) or "javascript").tree.root_node
    lang = cfamily.language_for(rel)
    if lang is None:
        return None
    return cfamily.parse_source(data, lang, header=Path(rel).suffix in cfamily.HEADER_EXTS).tree.root_node


def mutants_in(
    rel: str, data: bytes, first: int, last: int, *, expected: str = "", actual: str = "", qualname: str = ""
) -> list[Mutant]:
    """Mutants of the code on lines [first, last] of ``data`` (workspace-relative ``rel``), best first.

    ``expected`` / ``actual``: the values the failing assertion compared, when known: a returned literal
    becomes the expected value, and a literal that *is* the actual value is the likeliest slip of all."""
    root = _parse(rel, data)
    if root is None:
        return []
    src = _Source(rel, data)
    body = [n for n in _nodes(root, first, last) if not _in_error(n)]
    from ..locate import jsfamily

    # C/C++ is typed: `x + 1` for an enum, a class or a string does not compile, and in a schema it breaks
    # the file's compile where the type mismatch surfaces (often a template in a header); names the
    # function declares as integers or pointers keep their type under ± 1
    src.numeric = None if jsfamily.language_for(rel) else _numeric_names(body)
    ints = sorted({v for n in body if n.type in _NUMBERS for v in [_int_of(_text(n))] if v is not None})
    # a small function's few constants may each be the wrong one; a big one's dozens would crowd out
    # every likelier mutant of the file (and its schema)
    literals = sum(n.type in _NUMBERS for n in body)
    around = _file_ints(rel, data, first, last) if 0 < literals <= FILE_INTS_UP_TO else []
    out: list[Mutant] = []
    seen: set[tuple[int, int, int, int, str]] = set()
    lines: tuple[int, int] | None = None  # the whole expression of the node being mutated

    def add(kind: str, description: str, edit: TextEdit, prior: float | None = None) -> None:
        key = (edit.start.line, edit.start.col, edit.end.line, edit.end.col, edit.new_text)
        if key in seen:
            return
        seen.add(key)
        where = f" in {qualname}" if qualname else ""
        out.append(Mutant(kind, f"{description}{where} ({rel}:{edit.start.line})", edit, edit.start.line,
                          PRIOR.get(kind, 0.5) if prior is None else prior, lines))

    for node in body:
        t = node.type
        lines = _expression_lines(node)
        if t == "binary_expression":
            _binary(src, node, add)
        elif t in ("update_expression",):
            op = _operator(node)
            if op is not None and op.type in ("++", "--"):
                other = "--" if op.type == "++" else "++"
                add("arith", f"`{_text(op)}` -> `{other}`", src.edit(op, other))
        elif t in ("assignment_expression", "augmented_assignment_expression"):
            op = _operator(node)
            if op is not None and op.type in _AUG:
                add("arith", f"`{op.type}` -> `{_AUG[op.type]}`", src.edit(op, _AUG[op.type]))
        elif t == "unary_expression":
            op = _operator(node)
            arg = node.child_by_field_name("argument")
            if op is not None and op.type == "!" and arg is not None:
                inner = _text(arg)
                if arg.type == "parenthesized_expression" and inner.startswith("(") and inner.endswith(")"):
                    inner = inner[1:-1]
                add("remove-not", f"drop the `!` of `{_short(_text(node))}`", src.edit(node, inner))
        elif t in _NUMBERS:
            # a literal the test got becomes the one it expected, unless it is compared with: a comparison
            # yields a truth value, never the number itself (`x == 0` whose result is 0 is a coincidence)
            if expected and _same_value(_text(node), actual) and re.fullmatch(r"-?\d+(?:\.\d+)?", expected.strip()) \
                    and not _compared(node):
                add("return-expected", f"`{_text(node)}` -> `{expected.strip()}` (the value the test got -> the one "
                    "it expected)", src.edit(node, expected.strip()), PRIOR["return-expected"] + 0.12)
            _number(src, node, ints, around, add)
        elif t in ("true", "false"):
            other = "false" if t == "true" else "true"
            add("bool-const", f"`{t}` -> `{other}`", src.edit(node, other))
        elif t in _CONDITIONS:
            cond = node.child_by_field_name("condition")
            if cond is not None:
                inner = _text(cond)
                if inner.startswith("(") and inner.endswith(")") and not inner[1:].lstrip().startswith("!"):
                    # `if (x)` -> `if (!x)`, as the `!` is written; `if (a < b)` -> `if (!(a < b))`
                    kind = cond.named_children[0].type if cond.named_child_count == 1 else ""
                    add("negate", f"negate the condition `{_short(inner)}`",
                        src.edit(cond, f"({_negated(inner[1:-1], kind)})"))
        elif t in ("for_statement", "conditional_expression", "ternary_expression"):
            _negate(src, node.child_by_field_name("condition"), "the condition", add)
        elif t == "subscript_expression":
            index = node.child_by_field_name("index")
            indices = node.child_by_field_name("indices")  # C++: `a[i]` holds a subscript_argument_list
            if index is None and indices is not None and indices.named_child_count == 1:
                index = indices.named_children[0]
            _add_one(src, index, "the index", add)
        elif t == "return_statement":
            if expected:
                _return_expected(src, node, expected, actual, add)
            _return_other_name(src, node, add)
            if _returns_bool(node):
                _negate(src, next((c for c in node.named_children if c.type != "comment"), None), "the returned value",
                        add)
        elif t in _ARG_LISTS:
            args = [c for c in node.named_children if c.type != "comment"]
            for a in args:  # a dropped `+ 1` / `- 1` of an argument (`Array(n + 1)`)
                _add_one(src, a, "the argument", add)
            for i in range(len(args)):
                for j in range(i + 1, len(args)):
                    _swap(src, args, i, j, add)
        if len(out) >= GENERATED_MAX:
            break
    out.sort(key=lambda m: (-m.prior, m.line, m.edit.start.col))
    return out[:MAX_MUTANTS]  # a huge function keeps its likeliest mutants, not its first lines'


_WITHIN_EXPRESSION = {"argument_list", "arguments", "parenthesized_expression", "condition_clause",
                      "subscript_argument_list", "initializer_list"}
EXPRESSION_LINES = 6  # a longer expression (a lambda, a table) gives its mutants their own line as siblings' scope


def _expression_lines(node: Any) -> tuple[int, int] | None:
    """The first and last line of the whole expression ``node`` is part of, when it spans several lines
    (a condition ``a != x ||`` continued by ``!ok`` on the next line): a fix's siblings are the other
    edits there, not only on its line."""
    if node.type.endswith("_statement"):  # a statement's mutants edit its condition
        node = node.child_by_field_name("condition")
        if node is None:
            return None
    top = node
    while top.parent is not None and (top.parent.type.endswith("_expression") or top.parent.type in _WITHIN_EXPRESSION):
        top = top.parent
    first, last = top.start_point[0] + 1, top.end_point[0] + 1
    return (first, last) if 1 < last - first + 1 <= EXPRESSION_LINES else None


def _swap(src: _Source, args: list[Any], i: int, j: int, add: Any) -> None:
    """Arguments ``i`` and ``j`` of a call swapped (neighbours rank above a farther pair)."""
    a, b = args[i], args[j]
    ta, tb = _text(a), _text(b)
    if ta == tb or "\n" in ta + tb:
        return
    add("swap-args", f"swap the arguments `{_short(ta)}` and `{_short(tb)}`",  # what lies between stays
        src.span(a, b, f"{tb}{_between(src, a, b)}{ta}"), 0.6 if j == i + 1 else FAR_SWAP_PRIOR)


def _between(src: _Source, a: Any, b: Any) -> str:
    return src.data[a.end_byte:b.start_byte].decode("utf-8", errors="replace")


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _binary(src: _Source, node: Any, add: Any) -> None:
    op = _operator(node)
    if op is None:
        return
    sym = op.type
    whole = _short(_text(node))
    right = node.child_by_field_name("right")
    left = node.child_by_field_name("left")
    for new, kind in _CMP.get(sym, []):
        add(kind, f"`{sym}` -> `{new}` in `{whole}`", src.edit(op, new))
    concat = sym == "+" and any(side is not None and side.type in _STRINGS for side in (left, right))
    for new in [] if concat else _ARITH.get(sym, []):  # `'\n' + s` joins strings: `-` or `*` makes NaN
        add("arith", f"`{sym}` -> `{new}` in `{whole}`", src.edit(op, new))
    for new in [] if concat else _ARITH_OTHER.get(sym, []):
        add("arith-other", f"`{sym}` -> `{new}` in `{whole}`", src.edit(op, new))
    if sym in _LOGIC:
        add("boolop", f"`{sym}` -> `{_LOGIC[sym]}` in `{whole}`", src.edit(op, _LOGIC[sym]))
        for side in (left, right):  # a dropped `!` on one operand
            _negate(src, side, "the operand", add)
    if sym in ("+", "-") and right is not None and left is not None and _text(right) == "1":
        add("drop-one", f"drop the `{sym} 1` of `{whole}`", src.edit(node, _text(left)))
    if sym in _CMP and right is not None and right.type not in _NUMBERS | _NOT_NUMERIC \
            and not re.search(r"[-+]\s*1$", _text(right)):
        # a bound one off: `i < n` -> `i < n - 1` / `i < n + 1`
        for sign in ("-", "+"):
            add("bound", f"`{_short(_text(right))}` -> `{_short(_text(right))} {sign} 1` in `{whole}`",
                src.edit(right, f"{_text(right)} {sign} 1"))


_NOT_NUMERIC = {"string", "string_literal", "template_string", "raw_string_literal", "regex", "null", "undefined",
                "nullptr", "true", "false", "char_literal", "concatenated_string"}
ADD_ONE_PRIOR = 0.55  # below the operator slips: any argument or index may take it
_STRINGS = {"string", "template_string"}  # JS only: C's string_literal never meets a `+` that is not arithmetic


def _add_one(src: _Source, node: Any, what: str, add: Any) -> None:
    """``x`` -> ``x + 1`` / ``x - 1`` for a name or a member used as an argument or index (in C/C++, a name
    the function declares with an integer or pointer type)."""
    if node is None or node.type not in ("identifier", "member_expression", "field_expression"):
        return
    if src.numeric is not None and (node.type != "identifier" or _text(node) not in src.numeric):
        return
    text = _text(node)
    if "\n" in text:
        return
    for sign in ("+", "-"):
        add("bound", f"`{_short(text)}` -> `{_short(text)} {sign} 1` in {what}", src.edit(node, f"{text} {sign} 1"),
            ADD_ONE_PRIOR)


_INTEGER_WORDS = {"unsigned", "signed", "short", "long", "int", "char", "size_t", "ssize_t", "ptrdiff_t", "off_t",
                  "intptr_t", "uintptr_t", "intmax_t", "uintmax_t", "int8_t", "int16_t", "int32_t", "int64_t",
                  "uint8_t", "uint16_t", "uint32_t", "uint64_t", "const", "volatile", "register", "static"}
_DECLARATIONS = {"declaration", "parameter_declaration", "optional_parameter_declaration"}


def _numeric_names(body: list[Any]) -> set[str]:
    """Names the nodes declare as an integer (``int n``, ``size_t i = 0``, ``unsigned long k``) or a pointer."""
    names: set[str] = set()
    for node in body:
        if node.type not in _DECLARATIONS:
            continue
        kind = node.child_by_field_name("type")
        words = _text(kind).replace("std::", "").split() if kind is not None else []
        integer = bool(words) and all(w in _INTEGER_WORDS for w in words)
        for decl in node.children_by_field_name("declarator"):
            pointer = False
            while decl is not None and decl.type in ("init_declarator", "pointer_declarator"):
                pointer = pointer or decl.type == "pointer_declarator"
                decl = decl.child_by_field_name("declarator")
            if decl is not None and decl.type == "identifier" and (integer or pointer):
                names.add(_text(decl))
    return names


_NEGATE_BARE = {"identifier", "call_expression", "field_expression", "parenthesized_expression", "member_expression",
                "pointer_expression",  # `!*p`
                "subscript_expression"}
_NEGATE_NOT = {"unary_expression", "number_literal", "number", "string_literal", "string", "null", "nullptr", "true",
               "false", "assignment_expression", "comma_expression", "sequence_expression", "ERROR"}


def _compared(node: Any) -> bool:
    """Whether the node is an operand of a comparison (``<``, ``==``, ...)."""
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    op = _operator(parent) if parent is not None and parent.type == "binary_expression" else None
    return op is not None and op.type in _CMP


def _negate(src: _Source, node: Any, what: str, add: Any) -> None:
    """``!x`` for a value used as a truth value (an operand of ``&&``/``||``, a condition, a returned
    bool): the slip of a dropped ``!``, ranked below the flips that restore code more often, as likely as
    the whole condition negated (and so a sibling of a fix there: :func:`.native_plan.sibling_plans`)."""
    if node is None or node.type in _NEGATE_NOT or _in_error(node):
        return
    op = _operator(node) if node.type == "binary_expression" else None
    if op is not None and op.type in _CMP:
        return  # `!(a < b)`: the comparison flips say it, and restore the code
    text = _text(node)
    if "\n" in text:
        return
    add("negate", f"negate {what} `{_short(text)}`", src.edit(node, _negated(text, node.type)))


def _negated(text: str, kind: str) -> str:
    """``text`` (an expression of node type ``kind``) with a `!` as people write it: `!x`, `!f(x)`, `!*p`,
    and `!(a < b)` only where the parentheses are needed."""
    return f"!{text}" if kind in _NEGATE_BARE else f"!({text})"


RETURN_NAMES = 6  # other names in scope a returned name may become, the nearest declared first
RETURN_NAME_PRIOR = 0.5  # below the operator slips: any name in scope may be the one meant
_DECLARATOR_WRAPPERS = {"init_declarator", "pointer_declarator", "reference_declarator", "array_declarator"}
_FUNCTIONS = {"function_definition", "lambda_expression", "function_declaration", "method_definition", "arrow_function",
              "function_expression", "generator_function_declaration"}
_JS_DECLARATIONS = {"lexical_declaration", "variable_declaration"}
_SCOPED_DECLARATIONS = _DECLARATIONS | _JS_DECLARATIONS
_PARAMETER_LISTS = {"parameter_list", "formal_parameters"}


def _names_in_scope(node: Any) -> list[str]:
    """The names declared before ``node`` in the blocks around it, the nearest first, then its function's
    parameters (C/C++ declarations, JS variable declarators and parameters): a name declared in a block
    the node is not in, or after it, would not compile there."""
    names: list[str] = []
    cur = node
    while cur.parent is not None and cur.type not in _FUNCTIONS:
        for child in reversed(cur.parent.children):
            if child.end_byte <= node.start_byte and child.type in _SCOPED_DECLARATIONS:
                names += _declared_by(child)
        cur = cur.parent
    if cur.type in _FUNCTIONS:
        for lst in _descendants(cur.child_by_field_name("declarator") or cur, _PARAMETER_LISTS, cur):
            for param in lst.named_children:
                names += _declared_by(param)
    return list(dict.fromkeys(names))


def _descendants(node: Any, types: set[str], function: Any) -> Iterator[Any]:
    """Nodes of ``types`` under ``node``, not inside the function's body."""
    body = function.child_by_field_name("body")
    stack = [node]
    while stack:
        cur = stack.pop()
        if body is not None and cur.id == body.id:
            continue
        if cur.type in types:
            yield cur
            continue
        stack.extend(cur.children)


def _declared_by(node: Any) -> list[str]:
    """The names one declaration, declarator list or parameter declares."""
    if node.type in _JS_DECLARATIONS:
        found = [c.child_by_field_name("name") for c in node.named_children if c.type == "variable_declarator"]
    elif node.type in _DECLARATIONS:
        found = node.children_by_field_name("declarator")
    elif node.type == "assignment_pattern":
        found = [node.child_by_field_name("left")]
    else:
        found = [node]
    out: list[str] = []
    for decl in found:
        while decl is not None and decl.type in _DECLARATOR_WRAPPERS:
            decl = decl.child_by_field_name("declarator") or next(
                (c for c in decl.named_children if c.type == "identifier"), None)
        if decl is not None and decl.type == "identifier":
            out.append(_text(decl))
    return out


def _return_other_name(src: _Source, node: Any, add: Any) -> None:
    """``return a`` -> ``return b``, another name in scope there: the wrong variable returned (one of
    another type is the compiler's to reject); in JS ``return undefined`` / ``return null`` too, where a
    value was meant."""
    value = next((c for c in node.named_children if c.type != "comment"), None)
    if value is None or value.type not in ("identifier", "undefined", "null"):
        return
    current = _text(value)
    for rank, name in enumerate([n for n in _names_in_scope(node) if n != current][:RETURN_NAMES]):
        add("return-name", f"return `{name}` instead of `{current}`", src.edit(value, name),
            RETURN_NAME_PRIOR - 0.005 * rank)


def _returns_bool(node: Any) -> bool:
    cur = node.parent
    while cur is not None and cur.type not in _FUNCTIONS:
        cur = cur.parent
    if cur is None or cur.type != "function_definition":
        return False  # C/C++ only: JS has no declared return type
    kind = cur.child_by_field_name("type")
    return kind is not None and _text(kind) in ("bool", "_Bool")


def _file_ints(rel: str, data: bytes, first: int, last: int) -> list[tuple[int, int]]:
    """(distance in lines from [first, last], value) of every integer literal outside those lines, the
    nearest first: a wrong constant's right value is often written a few lines away (the field's
    offset in its setter, the size in the next function)."""
    found: dict[int, int] = {}
    for line, value in _int_literals(rel, data):
        if not first <= line <= last:
            distance = first - line if line < first else line - last
            found[value] = min(distance, found.get(value, distance))
    return sorted((d, v) for v, d in found.items())


@functools.lru_cache(maxsize=8)
def _int_literals(rel: str, data: bytes) -> tuple[tuple[int, int], ...]:
    """(line, value) of every integer literal of the file, walked once for all its functions."""
    out: list[tuple[int, int]] = []
    stack = [_parse(rel, data)]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.type in _NUMBERS:
            value = _int_of(_text(node))
            if value is not None:
                out.append((node.start_point[0] + 1, value))
            continue
        stack.extend(node.children)
    return tuple(out)


def _int_of(text: str) -> int | None:
    """The value of an integer literal (decimal or hex, signed as tree-sitter's C++ reads `-1`), or None."""
    m = _INT.match(text)
    if not m:
        return None
    digits = m.group(2)
    value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)
    return -value if m.group(1) == "-" else value


def _int_text(value: int, like: str) -> str:
    """``value`` written as the literal ``like`` is: hex stays hex (its case kept), the suffix stays."""
    m = _INT.match(like)
    assert m is not None
    digits, suffix = m.group(2), m.group(3)
    if digits[:2] in ("0x", "0X") and value >= 0:
        hexa = f"{value:x}"
        return f"{digits[:2]}{hexa.upper() if digits[2:].isupper() else hexa}{suffix}"
    return f"{value}{suffix}"


def _number(src: _Source, node: Any, ints: list[int], around: list[tuple[int, int]], add: Any) -> None:
    text = _text(node)
    value = _int_of(text)
    if value is None:
        return
    if node.parent is not None and node.parent.type in ("subscript_designator", "enumerator", "case_statement",
                                                         "preproc_def", "array_declarator"):
        return
    for new in (value + 1, value - 1):
        if new >= 0 or value < 0:
            add("off-by-one", f"`{value}` -> `{new}`", src.edit(node, _int_text(new, text)))
    others = [v for v in (0, 1) if v != value] + [v for v in ints if v not in (value, value + 1, value - 1, 0, 1)]
    for new in others[: 2 + MAX_OTHER_INTS]:
        add("int-const", f"`{value}` -> `{new}`", src.edit(node, _int_text(new, text)))
    near = set(others[: 2 + MAX_OTHER_INTS]) | {value, value + 1, value - 1}
    if value == 0:  # a sentinel written as zero (`r = 0` for `r = -1`)
        near.add(-1)
        add("int-const", "`0` -> `-1`", src.edit(node, _int_text(-1, text)))
    if SMALL_INT not in near:  # the third most common literal after 0 and 1 (a pair, "\r\n", a half)
        near.add(SMALL_INT)
        add("int-const", f"`{value}` -> `{SMALL_INT}` (a small integer)", src.edit(node, _int_text(SMALL_INT, text)),
            SMALL_INT_PRIOR)
    for new in [v for _d, v in around if v not in near][:MAX_FILE_INTS]:
        add("int-const", f"`{value}` -> `{new}` (an integer of the file)", src.edit(node, _int_text(new, text)),
            FILE_INT_PRIOR)


def _return_expected(src: _Source, node: Any, expected: str, actual: str, add: Any) -> None:
    value = next((c for c in node.named_children if c.type != "comment"), None)
    if value is None or value.type not in (*_NUMBERS, "true", "false", "string_literal", "string"):
        return
    literal = expected.strip()
    if not literal or "\n" in literal or len(literal) > 60 or literal == _text(value):
        return
    if value.type in _NUMBERS and not re.fullmatch(r"-?\d+(?:\.\d+)?", literal):
        return
    if value.type in ("true", "false") and literal not in ("true", "false"):
        return
    if value.type in ("string_literal", "string") and not (literal[:1] == literal[-1:] and literal[:1] in "\"'"):
        literal = '"' + literal.replace("\\", "\\\\").replace('"', '\\"') + '"'
    prior = PRIOR["return-expected"] + (0.12 if _same_value(_text(value), actual) else 0.0)
    add("return-expected", f"return `{_short(literal)}` instead of `{_short(_text(value))}`",
        src.edit(value, literal), prior)


def _same_value(literal: str, printed: str) -> bool:
    """The literal is the value the test printed (``8008`` / ``8008``, ``"ab"`` / ``ab``, ``2u`` / ``2``)."""
    a, b = literal.strip(), printed.strip()
    if not a or not b:
        return False
    if a[:1] in "\"'" and a[-1:] == a[:1]:
        a = a[1:-1]
    if b[:1] in "\"'" and b[-1:] == b[:1]:
        b = b[1:-1]
    return a.rstrip("uUlLfF") == b if re.fullmatch(r"-?\d[\d.]*[uUlLfF]*", a) else a == b
