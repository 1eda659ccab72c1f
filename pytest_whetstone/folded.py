"""Case-insensitive patterns that stay fast on long text.

Python's ``re.IGNORECASE`` folds the case of every character it compares, which
makes a wide alternation of literals several times slower than the same search
on lower-cased text (a 190-character compiler message against the classifier's
patterns: ~50 µs vs ~8 µs).  ``FoldedPattern`` keeps both: it searches the
lower-cased text with the lower-cased pattern, which is exactly what ``re.I``
does unless the text holds one of the four letters ``re.I`` matches to an ASCII
letter although ``str.lower`` does not map them to it (İ ı ſ K, checked in C);
such text takes the ``re.I`` pattern.  Only presence is answered: a match on the
lowered text has lowered groups.  Patterns must spell their letters literally
(an escape such as ``\x41`` is kept as written, not lowered).
"""

from __future__ import annotations

import re

# The non-ASCII letters that re.IGNORECASE matches to ASCII ones (Python's re docs).
_ODD_FOLDS = re.compile("[\u0130\u0131\u017f\u212a]")


def lower_literals(pattern: str) -> str:
    """``pattern`` with its literal characters lower-cased and every escape kept as
    written (``\\S``, ``\\W``, ``\\D``, ``\\B`` must not become their opposites)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            out.append(pattern[i : i + 2])
            i += 2
            continue
        out.append(ch.lower())
        i += 1
    return "".join(out)


_ZERO_WIDTH_ESCAPES = "bBAZ"
_QUANTIFIERS = "?*{"
_META = ".[]()|^$*+?{}\\"


def required_literals(pattern: str) -> tuple[str, ...] | None:
    """Strings of which every match of ``pattern`` contains at least one, or None when
    that cannot be told cheaply (then nothing can be skipped).

    Per top-level alternative: the literal text it starts with (zero-width ``\\b``,
    ``^``, ``$`` skipped, an optional last character dropped), or, when it starts with a
    group that is not optional, the literals of the group's own alternatives."""
    found = _alternatives_literals(pattern, 0, len(pattern))
    if not found:
        return None
    # A needle holding a shorter one adds nothing to an "any of them" test.
    unique = sorted(set(found), key=lambda n: (len(n), n))
    return tuple(n for k, n in enumerate(unique) if not any(m in n for m in unique[:k]))


def _alternatives_literals(pattern: str, start: int, end: int) -> list[str] | None:
    out: list[str] = []
    for a, b in _split_top(pattern, start, end):
        lits = _leading_literals(pattern, a, b)
        if not lits:
            return None
        out.extend(lits)
    return out


def _split_top(pattern: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the alternatives of ``pattern[start:end]`` at depth 0."""
    spans, depth, in_class, i, a = [], 0, False, start, start
    while i < end:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]" or pattern[i + 1 : i + 3] == "^]":
                i += 2 if pattern[i + 1] == "]" else 3  # a leading "]" is a member
                continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            spans.append((a, i))
            a = i + 1
        i += 1
    spans.append((a, end))
    return spans


def _group_end(pattern: str, i: int, end: int) -> int:
    """Index of the ")" closing the group opened at ``pattern[i]``, or -1."""
    depth, in_class = 0, False
    while i < end:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _leading_literals(pattern: str, i: int, end: int) -> list[str] | None:
    run: list[str] = []
    while i < end:
        ch = pattern[i]
        if ch in "^$":
            i += 1
            continue
        if ch == "\\" and i + 1 < end:
            nxt = pattern[i + 1]
            if nxt in _ZERO_WIDTH_ESCAPES:
                i += 2
                continue
            if nxt.isalnum():
                break  # a class (\\d, \\w, \\s) or a code (\\x41): not a literal character
            lit, width = nxt, 2
        elif ch == "(" and not run:
            close = _group_end(pattern, i, end)
            if close < 0 or pattern[close + 1 : close + 2] in tuple(_QUANTIFIERS):
                return None
            inner = i + 1
            if pattern.startswith("?:", inner):
                inner += 2
            elif pattern.startswith("?P<", inner):
                inner = pattern.index(">", inner) + 1
            elif pattern.startswith("?", inner):
                return None  # lookaround, flags, conditionals
            return _alternatives_literals(pattern, inner, close)
        elif ch in _META:
            break
        else:
            lit, width = ch, 1
        after = pattern[i + width : i + width + 1]
        if after and after in _QUANTIFIERS:
            break  # optional: this character is not required
        run.append(lit)
        if after == "+":
            break
        i += width
    return ["".join(run)] if run else None


class FoldedPattern:
    """A pattern searched case-insensitively (or, with ``ignore_case=False``, as
    written: one interface for a list of both kinds); ``found(text)`` says whether
    it occurs."""

    __slots__ = ("pattern", "folded", "lowered", "needles")

    def __init__(self, pattern: str, flags: int = 0, *, ignore_case: bool = True) -> None:
        self.pattern = pattern
        if ignore_case:
            self.folded: re.Pattern[str] = re.compile(pattern, flags | re.IGNORECASE)
            self.lowered: re.Pattern[str] | None = re.compile(lower_literals(pattern), flags & ~re.IGNORECASE)
            # Substring tests (in C, far cheaper than the search on a long text) that rule
            # a text out before the regex runs: at least one of them is in every match.
            self.needles = required_literals(self.lowered.pattern) if not flags & re.VERBOSE else None
        else:
            self.folded, self.lowered = re.compile(pattern, flags), None
            self.needles = required_literals(pattern) if not flags & re.VERBOSE else None

    def found(self, text: str) -> bool:
        return self.found_in(text, lowered_for_search(text) if self.lowered is not None else None)

    def found_in(self, text: str, lowered: str | None) -> bool:
        """``found(text)`` where ``lowered`` is ``lowered_for_search(text)`` (one lowering
        shared by several patterns)."""
        if lowered is not None and self.lowered is not None:
            needles = self.needles
            if needles is not None and not any(needle in lowered for needle in needles):
                return False
            return self.lowered.search(lowered) is not None
        if self.lowered is None and self.needles is not None and not any(n in text for n in self.needles):
            return False
        return self.folded.search(text) is not None


def lowered_for_search(text: str) -> str | None:
    """``text.lower()``, or None when searching it would not be what re.I does."""
    if text.isascii() or _ODD_FOLDS.search(text) is None:
        return text.lower()
    return None
