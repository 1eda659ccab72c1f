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


class FoldedPattern:
    """A pattern searched case-insensitively (or, with ``ignore_case=False``, as
    written: one interface for a list of both kinds); ``found(text)`` says whether
    it occurs."""

    __slots__ = ("pattern", "folded", "lowered")

    def __init__(self, pattern: str, flags: int = 0, *, ignore_case: bool = True) -> None:
        self.pattern = pattern
        if ignore_case:
            self.folded: re.Pattern[str] = re.compile(pattern, flags | re.IGNORECASE)
            self.lowered: re.Pattern[str] | None = re.compile(lower_literals(pattern), flags & ~re.IGNORECASE)
        else:
            self.folded, self.lowered = re.compile(pattern, flags), None

    def found(self, text: str) -> bool:
        return self.found_in(text, lowered_for_search(text) if self.lowered is not None else None)

    def found_in(self, text: str, lowered: str | None) -> bool:
        """``found(text)`` where ``lowered`` is ``lowered_for_search(text)`` (one lowering
        shared by several patterns)."""
        if lowered is not None and self.lowered is not None:
            return self.lowered.search(lowered) is not None
        return self.folded.search(text) is not None


def lowered_for_search(text: str) -> str | None:
    """``text.lower()``, or None when searching it would not be what re.I does."""
    if text.isascii() or _ODD_FOLDS.search(text) is None:
        return text.lower()
    return None
