"""Schema choices that keep the original expression's type (:mod:`.native_schema`).

A choice ``guard ? (m) : (orig)`` has the common type of its branches, so a mutant that widens its
expression widens the original too: `BitSize(value)` with a choice `value + 1` passed an `int` where
the code passes a `uint16_t`, the template's `sizeof` doubled, and the schema with no mutant switched on
failed an assertion the code never reaches.  Overloads, `auto`, `sizeof`, `printf`'s varargs and
template deduction all read that type.  Each mutated branch is therefore cast to the original's own type,
``(__typeof__(orig))(m)`` (GCC and Clang, C and C++), so the unmutated schema is the code as written.
A mutant's own run in the schema may then differ from its compile alone at the edge of the narrower type;
a screened fix is compiled alone before it counts, so that only costs a compile.

No cast where it could change what the expression is rather than its type: a branch that is itself a
name, a member or an element (an lvalue like the original: `p->x` for `p->y`), a call (a swapped
argument keeps its function, and a reference returned must not become a copy), an assignment or an
increment, a nested conditional, an address or a dereference, a string (an array has no cast), and
another literal for a literal.
Where only an expression's truth is read, the branches are ``!!(...)`` already (:func:`.native_schema._tests_truth`).
"""

from __future__ import annotations

import re

# hosts whose mutated text is an expression of the same kind and type as the original, or may be an
# lvalue the code assigns through: never cast
KEEPS_TYPE = frozenset({
    "call_expression", "assignment_expression", "update_expression", "conditional_expression",
    "pointer_expression", "string_literal", "condition_clause",
})
LITERALS = frozenset({"number_literal", "char_literal", "true", "false"})
_LITERAL = re.compile(rb"-?(?:[\w.]+|'(?:[^'\\]|\\.)+')")  # a number, a character or a truth value
# a name, or a chain of members and subscripts of one: an lvalue as the original may be
_NAME_PATH = re.compile(rb"[A-Za-z_]\w*(?:\s*(?:::|\.|->)\s*~?[A-Za-z_]\w*|\s*\[[^\[\]]*\])*")


def cast_for(host_type: str, original: bytes, choice: bytes) -> bytes:
    """The cast written before ``choice`` (a host's mutated text, one line) so its branch has the type of
    ``original`` (the host's text as written, one line); empty when none is wanted."""
    if host_type in KEEPS_TYPE or _NAME_PATH.fullmatch(choice.strip()) \
            or (host_type in LITERALS and _LITERAL.fullmatch(choice.strip())):  # `3` for `2`: the same type
        return b""
    return b"(__typeof__(" + original + b"))"
