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

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..locate.cfamily import holds_cxx
from ..locate.jsfamily import text_of as _text  # any tree-sitter node's text
from ..records import TextEdit
from .mutant import PRIOR, Mutant, line_firsts
from .native_mutant_tree import (
    DECLARATIONS,
    NUMBERS,
    Source,
    in_error,
    nodes_on,
    operator_of,
    parse,
    short,
)
from .native_mutants_ints import FILE_INTS_UP_TO, file_ints, int_of, number_mutants
from .native_mutants_refs import bound_arguments, declared_types, same_lvalues
from .native_operand_types import (
    Operands,
    bool_members,
    bool_names,
    declared_kinds,
    file_scope,
    numeric_names,
)

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
# replacement the operands' declared types refuse (`%` of a double, `/` of a pointer) is not made
# (:mod:`.native_operand_types`), any other the compiler rejects
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
_ARG_LISTS = {"argument_list", "arguments"}
_CONDITIONS = {"if_statement", "while_statement", "do_statement"}
MAX_MUTANTS = 800  # per function: a huge function must not make a huge plan (nor its file a schema past MAX_SCHEMA_MUTANTS)
# generated at most, per function: only generated code (a table of thousands of literals) comes near it.  A
# bound of a few times MAX_MUTANTS cut a 740-line function (voro++'s `nplane`) off at its last hundred
# lines, before any of them was ranked
GENERATED_MAX = 25 * MAX_MUTANTS


def mutants_in(
    rel: str, data: bytes, first: int, last: int, *, expected: str = "", actual: str = "", qualname: str = "",
    limit: int | None = MAX_MUTANTS, workspace: Path | None = None,
) -> list[Mutant]:
    """Mutants of the code on lines [first, last] of ``data`` (workspace-relative ``rel``), best first.

    ``expected`` / ``actual``: the values the failing assertion compared, when known: a returned literal
    becomes the expected value, and a literal that *is* the actual value is the likeliest slip of all.
    ``limit``: at most this many (:func:`capped`); None: every one generated, for a caller that ranks
    them by more than their priors before it cuts them.  ``workspace``: where the headers ``rel`` includes
    by quoted name are read from, for the types their declarations give (:mod:`.native_operand_types`)."""
    out = _generate(rel, data, first, last, expected, actual, qualname, workspace=workspace)
    return out if limit is None else capped(out, limit)


def value_mutants(rel: str, data: bytes, first: int, last: int, *, expected: str, actual: str = "",
                  qualname: str = "") -> list[Mutant]:
    """Only the mutants ``expected`` and ``actual`` make (what :func:`mutants_in` adds for them): the search
    generates a function's other mutants once, and these for each failing test (:func:`with_values`)."""
    return _generate(rel, data, first, last, expected, actual, qualname, values_only=True) if expected else []


def with_values(mutants: list[Mutant], values: list[Mutant]) -> list[Mutant]:
    """:func:`mutants_in` with the test's values, from its mutants without them and :func:`value_mutants`:
    a value's edit displaces the same edit of another kind, as it does in one generation."""
    if not values:
        return list(mutants)
    taken = {m.key for m in values}
    out = values + [m for m in mutants if m.key not in taken]
    out.sort(key=_best_first)
    return out


def _best_first(m: Mutant) -> tuple[float, int, int]:
    return -m.prior, m.line, m.edit.start.col


class _Found:
    """The mutants generated so far, each edit once (its first kind keeps it)."""

    def __init__(self, rel: str, qualname: str) -> None:
        self.rel = rel
        self.where = f" in {qualname}" if qualname else ""
        self.out: list[Mutant] = []
        self.seen: set[tuple[int, int, int, int, str]] = set()
        self.lines: tuple[int, int] | None = None  # the whole expression of the node being mutated

    def add(self, kind: str, description: str, edit: TextEdit, prior: float | None = None) -> None:
        key = (edit.start.line, edit.start.col, edit.end.line, edit.end.col, edit.new_text)
        if key in self.seen:
            return
        self.seen.add(key)
        self.out.append(Mutant(kind, f"{description}{self.where} ({self.rel}:{edit.start.line})", edit,
                               edit.start.line, PRIOR.get(kind, 0.5) if prior is None else prior, self.lines))


def _generate(rel: str, data: bytes, first: int, last: int, expected: str, actual: str, qualname: str,
              values_only: bool = False, workspace: Path | None = None) -> list[Mutant]:
    """Every mutant of lines [first, last], best first (``values_only``: those of the test's values alone)."""
    root = parse(rel, data)
    if root is None:
        return []
    src = Source(rel, data)
    # in_error without its climb to the root: nodes_on leaves out every ERROR subtree, so a node's own
    # flags say the rest (a huge function's 100k nodes climbed a dozen levels each)
    body = [n for n in nodes_on(root, first, last) if not (n.has_error or n.is_missing)]
    found = _Found(rel, qualname)
    add = found.add
    if values_only:
        for node in body:
            if node.type in NUMBERS or node.type == "return_statement":
                found.lines = _expression_lines(node)
                _value_mutants(src, node, expected, actual, add)
        found.out.sort(key=_best_first)
        return found.out
    from ..locate import jsfamily

    # C/C++ is typed: `x + 1` for an enum, a class or a string does not compile, and in a schema it breaks
    # the file's compile where the type mismatch surfaces (often a template in a header); names the
    # function declares as integers or pointers keep their type under ± 1
    src.numeric = None if jsfamily.language_for(rel) else numeric_names(body)
    if src.numeric is not None:
        # a `!` on a value of another type breaks the compile (and a schema's, where C++ joins `!x` and `x`
        # in one `?:`): in C++ only what is declared bool, in C every integer and pointer, and calls
        src.truthy = bool_names(body) | bool_members(rel, data)
        src.any_call = rel.endswith(".c")
        if src.any_call:
            src.truthy |= src.numeric
        # an operator the operands' declared types refuse (`*` of a pointer) would only fail a schema's compile
        src.operands = Operands(declared_kinds(body), file_scope(workspace, rel, data), holds_cxx(rel, data))
    ints = sorted({v for n in body if n.type in NUMBERS for v in [int_of(_text(n))] if v is not None})
    # a small function's few constants may each be the wrong one; a big one's dozens would crowd out
    # every likelier mutant of the file (and its schema)
    literals = sum(n.type in NUMBERS for n in body)
    around = file_ints(rel, data, first, last) if 0 < literals <= FILE_INTS_UP_TO else []
    out = found.out
    types: dict[str, str] | None = None  # the names the function declares, when a call binds a reference
    for node in body:
        t = node.type
        found.lines = _expression_lines(node)
        _value_mutants(src, node, expected, actual, add)  # before the node's others: an equal edit is theirs
        if t == "binary_expression":
            _binary(src, node, add)
        elif t in ("update_expression",):
            op = operator_of(node)
            if op is not None and op.type in ("++", "--"):
                other = "--" if op.type == "++" else "++"
                add("arith", f"`{_text(op)}` -> `{other}`", src.edit(op, other))
        elif t in ("assignment_expression", "augmented_assignment_expression"):
            op = operator_of(node)
            if op is not None and op.type in _AUG:
                add("arith", f"`{op.type}` -> `{_AUG[op.type]}`", src.edit(op, _AUG[op.type]))
            elif op is not None and op.type == "=" and _truthy(src, node.child_by_field_name("left")):
                _negate(src, node.child_by_field_name("right"), "the value assigned", add, NEGATE_VALUE_PRIOR, bare=True)
        elif t in ("init_declarator", "variable_declarator"):
            if _truthy(src, node.child_by_field_name("declarator") or node.child_by_field_name("name")):
                _negate(src, node.child_by_field_name("value"), "the initial value", add, NEGATE_VALUE_PRIOR, bare=True)
        elif t == "unary_expression":
            op = operator_of(node)
            arg = node.child_by_field_name("argument")
            if op is not None and op.type == "!" and arg is not None:
                inner = _text(arg)
                if arg.type == "parenthesized_expression" and inner.startswith("(") and inner.endswith(")"):
                    inner = inner[1:-1]
                add("remove-not", f"drop the `!` of `{short(_text(node))}`", src.edit(node, inner))
        elif t in NUMBERS:
            number_mutants(src, node, ints, around, add)
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
                    within = inner[1:-1]  # `if( x )`: the padding stays where it is, the `!` goes on `x`
                    lead, trail = within[:len(within) - len(within.lstrip())], within[len(within.rstrip()):]
                    add("negate", f"negate the condition `{short(inner)}`",
                        src.edit(cond, f"({lead}{_negated(within.strip(), kind)}{trail})"))
        elif t in ("for_statement", "conditional_expression", "ternary_expression"):
            _negate(src, node.child_by_field_name("condition"), "the condition", add)
        elif t == "subscript_expression":
            index = node.child_by_field_name("index")
            indices = node.child_by_field_name("indices")  # C++: `a[i]` holds a subscript_argument_list
            if index is None and indices is not None and indices.named_child_count == 1:
                index = indices.named_children[0]
            _add_one(src, index, "the index", add)
        elif t == "return_statement":
            _return_other_name(src, node, add)
            returns = _return_type(node)
            if returns in ("bool", "_Bool", "int") or (returns is None and src.numeric is None):
                # a predicate's value: C's are often `int`s, JS's have no declared type
                _negate(src, next((c for c in node.named_children if c.type != "comment"), None), "the returned value",
                        add, None if returns in ("bool", "_Bool") else NEGATE_VALUE_PRIOR, bare=returns not in ("bool", "_Bool"))
        elif t in _ARG_LISTS:
            args = [c for c in node.named_children if c.type != "comment"]
            bound = bound_arguments(rel, data, node) if src.numeric is not None else frozenset()
            if bound and types is None:
                types = declared_types(body)  # once per function, when a call binds a reference
            for i, a in enumerate(args):  # a dropped `+ 1` / `- 1` of an argument (`Array(n + 1)`), a dropped `!`
                if i in bound:  # `int &ai`: a value there does not compile
                    continue
                _add_one(src, a, "the argument", add)
                _negate(src, a, "the argument", add, NEGATE_VALUE_PRIOR, bare=True)
            for i in range(len(args)):
                for j in range(i + 1, len(args)):
                    if (not ({i, j} & bound) or same_lvalues(args[i], args[j], types or {})) \
                            and not (src.operands is not None and src.operands.refuses_swap(args[i], args[j])):
                        _swap(src, args, i, j, add)  # a value, or a `double`, bound to `int &` does not compile
        if len(out) >= GENERATED_MAX:
            break
    out.sort(key=_best_first)
    return out


def capped(mutants: list[Mutant], limit: int = MAX_MUTANTS, lines: Callable[[int], bool] | None = None) -> list[Mutant]:
    """The first ``limit`` of ``mutants`` (best first), in their order, with each line's first among them
    (of the ``lines`` that pass, when given): a huge function keeps its likeliest mutants, not its first
    lines', yet no line of it goes unmutated.  A line with no mutant in the plan has none in its file's
    schema either, so the schema's record of what each test ran (:mod:`.native_search_spectrum`) would
    never score it, and a fault there (a `!` dropped, whose way back ranks in the thousands by prior
    alone) could not rise."""
    if len(mutants) <= limit:
        return mutants
    keep = {id(m) for m in line_firsts(mutants, lines)[:limit]}
    for mutant in mutants:
        if len(keep) >= limit:
            break
        keep.add(id(mutant))
    return [m for m in mutants if id(m) in keep]


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
        if top.end_point[0] - top.start_point[0] >= EXPRESSION_LINES:
            # only grows from here: no climb to the top of a module's function expression for every node
            return None
    first, last = top.start_point[0] + 1, top.end_point[0] + 1
    return (first, last) if 1 < last - first + 1 <= EXPRESSION_LINES else None


def _swap(src: Source, args: list[Any], i: int, j: int, add: Any) -> None:
    """Arguments ``i`` and ``j`` of a call swapped (neighbours rank above a farther pair)."""
    a, b = args[i], args[j]
    ta, tb = _text(a), _text(b)
    if ta == tb or "\n" in ta + tb:
        return
    add("swap-args", f"swap the arguments `{short(ta)}` and `{short(tb)}`",  # what lies between stays
        src.span(a, b, f"{tb}{_between(src, a, b)}{ta}"), 0.6 if j == i + 1 else FAR_SWAP_PRIOR)


def _between(src: Source, a: Any, b: Any) -> str:
    return src.data[a.end_byte:b.start_byte].decode("utf-8", errors="replace")


def _binary(src: Source, node: Any, add: Any) -> None:
    op = operator_of(node)
    if op is None:
        return
    sym = op.type
    whole = short(_text(node))
    right = node.child_by_field_name("right")
    left = node.child_by_field_name("left")
    typed = src.operands

    def builds(new: str) -> bool:
        return typed is None or not typed.refuses(node, new)

    for new, kind in _CMP.get(sym, []):
        if builds(new):
            add(kind, f"`{sym}` -> `{new}` in `{whole}`", src.edit(op, new))
    concat = sym == "+" and any(side is not None and side.type in _STRINGS for side in (left, right))
    for new in [] if concat else _ARITH.get(sym, []):  # `'\n' + s` joins strings: `-` or `*` makes NaN
        if builds(new):
            add("arith", f"`{sym}` -> `{new}` in `{whole}`", src.edit(op, new))
    for new in [] if concat else _ARITH_OTHER.get(sym, []):
        if builds(new):
            add("arith-other", f"`{sym}` -> `{new}` in `{whole}`", src.edit(op, new))
    if sym in _LOGIC:
        add("boolop", f"`{sym}` -> `{_LOGIC[sym]}` in `{whole}`", src.edit(op, _LOGIC[sym]))
        for side in (left, right):  # a dropped `!` on one operand
            _negate(src, side, "the operand", add)
    if sym in ("+", "-") and right is not None and left is not None and _text(right) == "1":
        add("drop-one", f"drop the `{sym} 1` of `{whole}`", src.edit(node, _text(left)))
    if sym in _CMP and right is not None and right.type not in NUMBERS | _NOT_NUMERIC \
            and not re.search(r"[-+]\s*1$", _text(right)):
        # a bound one off: `i < n` -> `i < n - 1` / `i < n + 1`
        for sign in ("-", "+"):
            add("bound", f"`{short(_text(right))}` -> `{short(_text(right))} {sign} 1` in `{whole}`",
                src.edit(right, f"{_text(right)} {sign} 1"))


_NOT_NUMERIC = {"string", "string_literal", "template_string", "raw_string_literal", "regex", "null", "undefined",
                "nullptr", "true", "false", "char_literal", "concatenated_string"}
# a `!` dropped from a value the place does not say is a truth value (an argument, a value assigned or
# initialized, a returned `int` or JS value): below a condition's negation, where a `!` is most often written
NEGATE_VALUE_PRIOR = 0.47
ADD_ONE_PRIOR = 0.55  # below the operator slips: any argument or index may take it
_STRINGS = {"string", "template_string"}  # JS only: C's string_literal never meets a `+` that is not arithmetic


def _add_one(src: Source, node: Any, what: str, add: Any) -> None:
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
        add("bound", f"`{short(text)}` -> `{short(text)} {sign} 1` in {what}", src.edit(node, f"{text} {sign} 1"),
            ADD_ONE_PRIOR)


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
    op = operator_of(parent) if parent is not None and parent.type == "binary_expression" else None
    return op is not None and op.type in _CMP


def _negate(src: Source, node: Any, what: str, add: Any, prior: float | None = None, *, bare: bool = False) -> None:
    """``!x`` for a value used as a truth value (an operand of ``&&``/``||``, a condition, a returned
    bool): the slip of a dropped ``!``, ranked below the flips that restore code more often, as likely as
    the whole condition negated (and so a sibling of a fix there: :func:`.native_plan.sibling_plans`).
    ``bare``: only a value that may be a truth value as it stands (a name, a call, a member, ``a && b``),
    where the place does not say it is one (an argument, a value assigned or returned)."""
    if node is None or node.type in _NEGATE_NOT or in_error(node):
        return
    op = operator_of(node) if node.type == "binary_expression" else None
    if op is not None and (op.type in _CMP or (bare and op.type not in _LOGIC)):
        return  # `!(a < b)`: the comparison flips say it, and restore the code
    if bare and op is None and not _truthy(src, node):
        return
    text = _text(node)
    if "\n" in text:
        return
    add("negate", f"negate {what} `{short(text)}`", src.edit(node, _negated(text, node.type)), prior)


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
_SCOPED_DECLARATIONS = DECLARATIONS | _JS_DECLARATIONS
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
    elif node.type in DECLARATIONS:
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


def _return_other_name(src: Source, node: Any, add: Any) -> None:
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


def _return_type(node: Any) -> str | None:
    """The declared return type of the C/C++ function around ``node`` ("" for a lambda's; None in JS,
    which declares none)."""
    cur = node.parent
    while cur is not None and cur.type not in _FUNCTIONS:
        cur = cur.parent
    if cur is None or cur.type != "function_definition":
        return None if cur is None or cur.type != "lambda_expression" else ""
    kind = cur.child_by_field_name("type")
    return "" if kind is None else _text(kind)


def _truthy(src: Source, node: Any) -> bool:
    """Whether ``node``'s value may take a `!` (see :attr:`.Source.truthy`): a name, a member or a call
    (the function's name) of those, ``a && b``, in JS any name, member or call."""
    while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node is None:
        return False
    if node.type == "binary_expression":
        op = operator_of(node)
        return op is not None and op.type in _LOGIC
    if src.truthy is None:
        return node.type in _NEGATE_BARE
    if node.type == "call_expression":
        if src.any_call:
            return True
        node = node.child_by_field_name("function")
    while node is not None and node.type in ("field_expression", "qualified_identifier", "member_expression"):
        node = node.child_by_field_name("field") or node.child_by_field_name("name")
    return node is not None and node.type in ("identifier", "field_identifier") and _text(node) in src.truthy


def _value_mutants(src: Source, node: Any, expected: str, actual: str, add: Any) -> None:
    """The mutants the test's ``expected`` / ``actual`` values make of ``node`` (none without them)."""
    if not expected:
        return
    if node.type in NUMBERS:
        _literal_expected(src, node, expected, actual, add)
    elif node.type == "return_statement":
        _return_expected(src, node, expected, actual, add)


def _literal_expected(src: Source, node: Any, expected: str, actual: str, add: Any) -> None:
    """A literal the test got becomes the one it expected, unless it is compared with: a comparison yields
    a truth value, never the number itself (`x == 0` whose result is 0 is a coincidence)."""
    if _same_value(_text(node), actual) and re.fullmatch(r"-?\d+(?:\.\d+)?", expected.strip()) \
            and not _compared(node):
        add("return-expected", f"`{_text(node)}` -> `{expected.strip()}` (the value the test got -> the one "
            "it expected)", src.edit(node, expected.strip()), PRIOR["return-expected"] + 0.12)


def _return_expected(src: Source, node: Any, expected: str, actual: str, add: Any) -> None:
    value = next((c for c in node.named_children if c.type != "comment"), None)
    if value is None or value.type not in (*NUMBERS, "true", "false", "string_literal", "string"):
        return
    literal = expected.strip()
    if not literal or "\n" in literal or len(literal) > 60 or literal == _text(value):
        return
    if value.type in NUMBERS and not re.fullmatch(r"-?\d+(?:\.\d+)?", literal):
        return
    if value.type in ("true", "false") and literal not in ("true", "false"):
        return
    if value.type in ("string_literal", "string") and not (literal[:1] == literal[-1:] and literal[:1] in "\"'"):
        literal = '"' + literal.replace("\\", "\\\\").replace('"', '\\"') + '"'
    prior = PRIOR["return-expected"] + (0.12 if _same_value(_text(value), actual) else 0.0)
    add("return-expected", f"return `{short(literal)}` instead of `{short(_text(value))}`",
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
