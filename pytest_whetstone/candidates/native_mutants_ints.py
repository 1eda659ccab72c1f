"""Integer constants a literal may have been meant to be (:mod:`.native_mutants`): off by one, 0 and 1,
the function's other integers, half or twice it, those written nearby in the file, a small integer."""

from __future__ import annotations

import functools
import re
from typing import Any

from ..locate.jsfamily import text_of as _text  # any tree-sitter node's text
from .native_mutant_tree import NUMBERS, Source, parse

_INT = re.compile(r"^([-+]?)(0[xX][0-9a-fA-F]+|0|[1-9]\d*)([uUlL]*)$")  # not octal: `010` is 8 in C
MAX_OTHER_INTS = 4
MAX_FILE_INTS = 3  # integers of the rest of the file a literal may become, the nearest first
FILE_INT_PRIOR = 0.45  # below the function's own integers: a constant written elsewhere in the file
SMALL_INT = 2  # every literal may also become this (after 0 and 1, which the constants family tries)
SMALL_INT_PRIOR = 0.43  # below the file's integers: a value written nearby is the likelier slip
TWICE_PRIOR = 0.44  # half or twice the literal: between the file's integers and a small integer
FILE_INTS_UP_TO = 4  # integer literals in the function, at most, for its literals to get the file's integers


def file_ints(rel: str, data: bytes, first: int, last: int) -> list[tuple[int, int]]:
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
    stack = [parse(rel, data)]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.type in NUMBERS:
            value = int_of(_text(node))
            if value is not None:
                out.append((node.start_point[0] + 1, value))
            continue
        stack.extend(node.children)
    return tuple(out)


def int_of(text: str) -> int | None:
    """The value of an integer literal (decimal or hex, signed as tree-sitter's C++ reads `-1`), or None."""
    m = _INT.match(text)
    if not m:
        return None
    digits = m.group(2)
    value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)
    return -value if m.group(1) == "-" else value


def int_text(value: int, like: str) -> str:
    """``value`` written as the literal ``like`` is: hex stays hex (its case kept), the suffix stays."""
    m = _INT.match(like)
    assert m is not None
    digits, suffix = m.group(2), m.group(3)
    if digits[:2] in ("0x", "0X") and value >= 0:
        hexa = f"{value:x}"
        return f"{digits[:2]}{hexa.upper() if digits[2:].isupper() else hexa}{suffix}"
    return f"{value}{suffix}"


def number_mutants(src: Source, node: Any, ints: list[int], around: list[tuple[int, int]], add: Any) -> None:
    text = _text(node)
    value = int_of(text)
    if value is None:
        return
    if node.parent is not None and node.parent.type in ("subscript_designator", "enumerator", "case_statement",
                                                         "preproc_def", "array_declarator"):
        return
    for new in (value + 1, value - 1):
        if new >= 0 or value < 0:
            add("off-by-one", f"`{value}` -> `{new}`", src.edit(node, int_text(new, text)))
    others = [v for v in (0, 1) if v != value] + [v for v in ints if v not in (value, value + 1, value - 1, 0, 1)]
    for new in others[: 2 + MAX_OTHER_INTS]:
        add("int-const", f"`{value}` -> `{new}`", src.edit(node, int_text(new, text)))
    near = set(others[: 2 + MAX_OTHER_INTS]) | {value, value + 1, value - 1}
    if value == 0:  # a sentinel written as zero (`r = 0` for `r = -1`)
        near.add(-1)
        add("int-const", "`0` -> `-1`", src.edit(node, int_text(-1, text)))
    if SMALL_INT not in near:  # the third most common literal after 0 and 1 (a pair, "\r\n", a half)
        near.add(SMALL_INT)
        add("int-const", f"`{value}` -> `{SMALL_INT}` (a small integer)", src.edit(node, int_text(SMALL_INT, text)),
            SMALL_INT_PRIOR)
    for new in ([value // 2] if value >= 4 and value % 2 == 0 else []) + ([value * 2] if value >= 2 else []):
        if new not in near:  # a size, a mask or a count a factor of two off (a shift's slip: 0x80 for 0x100)
            near.add(new)
            add("int-const", f"`{value}` -> `{new}` (a factor of two)", src.edit(node, int_text(new, text)),
                TWICE_PRIOR)
    for new in [v for _d, v in around if v not in near][:MAX_FILE_INTS]:
        add("int-const", f"`{value}` -> `{new}` (an integer of the file)", src.edit(node, int_text(new, text)),
            FILE_INT_PRIOR)
