"""What C/C++ declarations say of names' types (:mod:`.native_mutants`): which are integers or pointers
(``x ± 1`` keeps their type), which are `bool` (a `!` on them compiles), and what an operator's operands
are, so that mutants the language refuses are not made.

An operator swapped in an expression of pointers or floating-point values often does not compile: `*`,
`/` and `%` of a pointer (`pts + 3` -> `pts * 3`), `%`, the bitwise and the shift operators of a
`double`, the sum of two pointers, an integer minus a pointer, an ordered comparison of a pointer with
a null constant.  The compiler would refuse each, but only inside a whole compile of the file's schema:
one such choice fails that compile, the next holds its error lines out, and gcc's recovery masks a
second error in the same declaration (`double *ptsp=pts+3,*ptse=pts+3*p;`), so a big file paid a failed
compile round or two of a second or more each before its first mutant ran (one 20 s search on voro++:
seven failed rounds over three files, 6.8 s of compiles; a whole file's schema now compiles in fewer
rounds: `wall.cc` 5 -> 1, double-conversion's `string-to-double.cc` 5 -> 3, `bench/bench_schema_rounds.py`).

The types come only from declarations that say them outright: a primitive type (`double`, `unsigned
long`) and its pointer and array declarators, of the function's parameters and locals, and of the
members and file-scope names of its file and the headers it includes by quoted name (theirs too).  A name declared
twice with different kinds, `auto`, a typedef'd or template type (which may hide a pointer), a call's
value: unknown, and an unknown operand refuses nothing.  What is left the compiler still judges, as
before; this only spares it the cases the declarations settle.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from ..locate.jsfamily import text_of as _text
from .native_mutant_tree import DECLARATIONS, declared, nodes_on, parse


class Kind(NamedTuple):
    """An operand's type as far as declarations say: ``pointers`` levels of pointer (or array) over a base
    that is ``primitive`` (`int`, `double`: the levels are exact) or not (a typedef may hide more), and
    ``floating`` when the base is `float` or `double`."""
    pointers: int
    primitive: bool
    floating: bool = False

    def pointer(self) -> bool | None:
        """Whether a value of this kind is a pointer; None when the declaration does not say."""
        return True if self.pointers > 0 else (False if self.primitive else None)

    def real(self) -> bool:
        """Whether it is, surely, a `float` or `double` value (not a pointer to one)."""
        return self.pointers == 0 and self.primitive and self.floating


_INTEGER_WORDS = {"unsigned", "signed", "short", "long", "int", "char", "size_t", "ssize_t", "ptrdiff_t", "off_t",
                  "intptr_t", "uintptr_t", "intmax_t", "uintmax_t", "int8_t", "int16_t", "int32_t", "int64_t",
                  "uint8_t", "uint16_t", "uint32_t", "uint64_t", "const", "volatile", "register", "static"}
_QUALIFIERS = {"const", "volatile", "static", "register", "constexpr", "mutable", "inline", "extern", "thread_local"}
_INTEGRAL = (_INTEGER_WORDS - _QUALIFIERS) | {"bool", "_Bool"}
_FLOATING = {"float", "double"}
_INT_ONLY = {"%", "&", "|", "^", "<<", ">>"}  # built-in only for integers (and enums)
_NOT_POINTER = _INT_ONLY | {"*", "/"}  # never built in with a pointer operand
_ORDERED = {"<", "<=", ">", ">="}
_NULLS = {"0", "NULL", "nullptr", "0L", "0UL", "0u", "0U"}
_FLOAT_LITERAL = re.compile(r"(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][-+]?\d+)?[fFlL]?|\d+\.?[fF]")
_QUOTED_INCLUDE = re.compile(rb'^\s*#\s*include\s*"([^"\n]+)"', re.M)
INCLUDED_FILES = 32  # the headers read for one file's declarations, at most (nearest first)
_DECLARATOR_STEPS = ("init_declarator", "pointer_declarator", "array_declarator", "reference_declarator")
_STRINGS = {"string_literal", "concatenated_string", "raw_string_literal"}
# the C library's functions of doubles (also as `std::`): `sqrt(x) % 2` does not compile
_REAL_FUNCTIONS = {"sqrt", "cbrt", "fabs", "pow", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "asin",
                   "acos", "atan", "atan2", "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc", "fmod", "hypot"}


def _base(type_node: Any) -> tuple[bool, bool] | None:
    """(primitive, floating) of a declaration's type node; None for `auto` (the declarator does not say
    whether it is a pointer)."""
    if type_node is None or type_node.type in ("placeholder_type_specifier", "decltype", "auto"):
        return None
    words = [w for w in _text(type_node).replace("std::", "").split() if w not in _QUALIFIERS]
    if not words:
        return None
    floating = bool(_FLOATING & set(words))
    return all(w in _INTEGRAL or w in _FLOATING for w in words), floating


def declared_kinds(nodes: Iterable[Any], kinds: tuple[str, ...] = tuple(DECLARATIONS)) -> dict[str, Kind | None]:
    """Name -> its kind, for the names the declarations among ``nodes`` (of node types ``kinds``) declare,
    read through pointers, arrays, references and an initializer (a function, or a pointer to one, is
    not a name's value); None for a name two of them declare differently."""
    out: dict[str, Kind | None] = {}
    for name, type_node, pointers in declared(nodes, _DECLARATOR_STEPS, kinds):
        base = _base(type_node)
        if base is not None:
            _agree(out, name, Kind(pointers, *base))
    return out


class Scope(NamedTuple):
    """What a file and the headers it includes declare outside any function: the kinds of members and
    file-scope names, and the names of function-like macros (whose arguments have no parameter types)."""
    kinds: dict[str, Kind | None]
    macros: frozenset[str]


@functools.lru_cache(maxsize=4 * INCLUDED_FILES)  # a file and its headers, for a few files of one search
def _file_scope(path: str, data: bytes) -> tuple[Scope, tuple[str, ...]]:
    """What one file declares outside any function, and the headers it includes by quoted name."""
    root = parse(path, data)
    if root is None:
        return Scope({}, frozenset()), ()
    stack, scoped, macros = [root], [], set()
    while stack:  # members, and names declared outside any function (a function's own are its locals)
        node = stack.pop()
        if node.type in ("field_declaration", "declaration"):
            scoped.append(node)
        elif node.type == "preproc_function_def" and (name := node.child_by_field_name("name")) is not None:
            macros.add(_text(name))
        elif node.type not in ("function_definition", "compound_statement", "lambda_expression"):
            stack.extend(node.named_children)
    kinds = declared_kinds(scoped, ("field_declaration", "declaration"))
    return Scope(kinds, frozenset(macros)), tuple(m.decode("utf-8", "replace") for m in _QUOTED_INCLUDE.findall(data))


def _agree(into: dict[str, Kind | None], name: str, kind: Kind | None) -> None:
    """``name``'s kind in ``into``: ``kind`` while every declaration of it says the same, else None."""
    into[name] = kind if into.get(name, kind) == kind else None


def file_scope(workspace: Path | None, rel: str, data: bytes) -> Scope:
    """What file ``rel`` (bytes ``data``) and the headers it includes by quoted name, theirs too (up to
    INCLUDED_FILES), declare outside any function, each header found beside the file that includes it
    or at the top of ``workspace``: what a `.cc` file's own header declares of its class and of the
    classes that class uses.  Kept for the next function of the same file while no header it read has
    changed: a search generates hundreds of functions' mutants, and reading leveldb's `db_impl.cc`'s 26
    headers again took 2.4 ms each time."""
    if workspace is None:
        return _file_scope(rel, data)[0]
    key = (str(workspace), rel, data)
    kept = _SCOPES.get(key)
    if kept is not None and all(_stamp(path) == stamp for path, stamp in kept[1]):
        return kept[0]
    scope, read = _with_headers(workspace, rel, data)
    _SCOPES[key] = (scope, tuple((path, _stamp(path)) for path in read))
    while len(_SCOPES) > SCOPES_KEPT:
        del _SCOPES[next(iter(_SCOPES))]
    return scope


SCOPES_KEPT = 8
_SCOPES: dict[tuple[str, str, bytes], tuple[Scope, tuple[tuple[Path, tuple[int, int] | None], ...]]] = {}


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _with_headers(workspace: Path, rel: str, data: bytes) -> tuple[Scope, list[Path]]:
    """:func:`file_scope` read anew, and the headers it read."""
    scope, includes = _file_scope(rel, data)
    kinds, macros = dict(scope.kinds), set(scope.macros)
    seen = {Path(rel)}
    read: list[Path] = []
    todo = [(Path(rel).parent, name) for name in includes]
    while todo and len(seen) < INCLUDED_FILES:
        near, name = todo.pop(0)
        for header in (near / name, Path(name)):
            if header in seen or not (workspace / header).is_file():
                continue
            seen.add(header)
            read.append(workspace / header)
            try:
                more, nested = _file_scope(header.as_posix(), (workspace / header).read_bytes())
            except OSError:
                continue
            for declared_name, kind in more.kinds.items():
                _agree(kinds, declared_name, kind)
            macros |= more.macros
            todo += [(header.parent, n) for n in nested]
            break
    return Scope(kinds, frozenset(macros)), read


class Operands:
    """The kinds of a function's operands, from its own declarations and its file's (:func:`file_scope`)."""

    def __init__(self, local: dict[str, Kind | None], scope: Scope, cxx: bool) -> None:
        self.local = local
        self.scope = scope.kinds
        self.macros = scope.macros
        self.cxx = cxx  # C++ refuses an ordered comparison of a pointer with a null constant; C warns

    def kind(self, node: Any) -> Kind | None:
        """The kind of expression ``node``, when its declarations say it."""
        t = node.type
        if t == "identifier":
            name = _text(node)
            return self.local[name] if name in self.local else self.scope.get(name)
        if t == "field_expression":
            field = node.child_by_field_name("field")
            return self.scope.get(_text(field)) if field is not None else None
        if t == "parenthesized_expression" and node.named_child_count == 1:
            return self.kind(node.named_children[0])
        if t == "number_literal":
            text = _text(node)
            return Kind(0, True, not text.lower().startswith("0x") and bool(_FLOAT_LITERAL.fullmatch(text)))
        if t == "this" or t in _STRINGS:
            return Kind(1, False)
        if t == "char_literal":
            return Kind(0, True)
        if t in ("true", "false"):  # C's are macros for 1 and 0, and 0 is a null pointer constant
            return Kind(0, True) if self.cxx else None
        if t == "call_expression":
            called = node.child_by_field_name("function")
            name = _text(called).removeprefix("std::") if called is not None else ""
            return Kind(0, True, True) if name in _REAL_FUNCTIONS else None
        if t == "subscript_expression":
            return self._pointed_to(node.child_by_field_name("argument"))
        if t == "pointer_expression":
            op = node.child_by_field_name("operator")
            if op is not None and op.type == "&":
                return Kind(1, False)
            return self._pointed_to(node.child_by_field_name("argument"))
        if t == "binary_expression":
            return self._binary_kind(node)
        return None

    def _pointed_to(self, of: Any) -> Kind | None:
        """The kind of what pointer expression ``of`` points to (`p[i]`, `*p`)."""
        inner = self.kind(of) if of is not None else None
        return inner._replace(pointers=inner.pointers - 1) if inner is not None and inner.pointers > 0 else None

    def _binary_kind(self, node: Any) -> Kind | None:
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is None or left is None or right is None or op.type not in ("+", "-", "*", "/"):
            return None
        lk, rk = self.kind(left), self.kind(right)
        if op.type in ("+", "-"):  # a pointer moved by an integer stays that pointer
            for a, b in ((lk, rk), (rk, lk)):
                if a is not None and a.pointers > 0 and b is not None and b.pointer() is False:
                    return a if op.type == "+" or a is lk else None
        if op.type == "-" and lk is not None and rk is not None and lk.pointers > 0 and rk.pointers > 0:
            return Kind(0, True)  # the distance of two pointers
        if lk is not None and rk is not None and lk.pointers == rk.pointers == 0 and lk.primitive and rk.primitive:
            return Kind(0, True, lk.floating or rk.floating)
        return None

    def refuses(self, node: Any, new: str) -> bool:
        """Whether binary expression ``node`` with its operator replaced by ``new`` does not compile, as far
        as its operands' declarations say."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return False
        lk, rk = self.kind(left), self.kind(right)
        lp = lk.pointer() if lk is not None else None
        rp = rk.pointer() if rk is not None else None
        if new in _NOT_POINTER and (lp or rp):
            return True
        if new in _INT_ONLY and any(k is not None and k.real() for k in (lk, rk)):
            return True
        if new == "+" and lp and rp:
            return True
        if new == "-" and rp and lp is False:
            return True
        return self.cxx and new in _ORDERED and bool((lp and _text(right) in _NULLS) or (rp and _text(left) in _NULLS))

    def refuses_swap(self, a: Any, b: Any) -> bool:
        """Whether two arguments of a call swapped do not compile, as far as their declarations say: a
        pointer (a string) where a number went, or a number where a pointer went.  Each parameter took
        its own argument, so one that took a pointer is a pointer, and no number converts to it (a
        template's or the variadic tail's parameters would take either: rare beside `fprintf(fp, "%g",
        x)`'s named ones).  A null constant converts to any pointer; a macro's arguments have no types."""
        call = a.parent.parent if a.parent is not None else None
        called = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
        if called is not None and _text(called) in self.macros:
            return False
        ka, kb = self.kind(a), self.kind(b)
        if ka is None or kb is None or _text(a) in _NULLS or _text(b) in _NULLS:
            return False
        pa, pb = ka.pointer(), kb.pointer()
        return (pa is True and pb is False) or (pa is False and pb is True)


_BOOL_WORDS = {"bool", "_Bool", "const", "static", "volatile", "mutable"}


def bool_names(nodes: Iterable[Any]) -> set[str]:
    """Names the declarations among ``nodes`` declare ``bool`` (``bool done = false``, a field, a function)."""
    names: set[str] = set()
    for node in nodes:
        if node.type not in DECLARATIONS and node.type not in ("field_declaration", "function_definition"):
            continue
        kind = node.child_by_field_name("type")
        words = _text(kind).split() if kind is not None else []
        if not words or not set(words) <= _BOOL_WORDS or not {"bool", "_Bool"} & set(words):
            continue
        for decl in node.children_by_field_name("declarator"):
            while decl is not None and decl.type in ("init_declarator", "function_declarator", "qualified_identifier"):
                decl = decl.child_by_field_name("declarator") or decl.child_by_field_name("name")
            if decl is not None and decl.type in ("identifier", "field_identifier"):
                names.add(_text(decl))
    return names


@functools.lru_cache(maxsize=8)
def bool_members(rel: str, data: bytes) -> frozenset[str]:
    """The names of the ``bool`` members and functions the file declares (``e->in_cache = x``, ``!IsEmpty()``)."""
    root = parse(rel, data)
    if root is None:
        return frozenset()
    kinds = ("field_declaration", "declaration", "function_definition")
    return frozenset(bool_names(n for n in nodes_on(root, 1, root.end_point[0] + 1) if n.type in kinds))


def numeric_names(body: list[Any]) -> set[str]:
    """Names the nodes declare as an integer (``int n``, ``size_t i = 0``, ``unsigned long k``) or a pointer."""
    names: set[str] = set()
    for name, kind, pointers in declared(body):
        words = _text(kind).replace("std::", "").split() if kind is not None else []
        if pointers or (words and all(w in _INTEGER_WORDS for w in words)):
            names.add(name)
    return names
