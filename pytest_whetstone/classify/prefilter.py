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

import importlib
import re
from typing import Any

from .needles import KNOWN_NEEDLES

# Python's own regex parser: where a pattern's literal text is, exactly as re reads it.
_sre_parse: Any
_sre: Any
try:
    _sre_parse, _sre = importlib.import_module("re._parser"), importlib.import_module("re._constants")
except ImportError:  # Python 3.10 (later versions warn on these names)
    _sre_parse, _sre = importlib.import_module("sre_parse"), importlib.import_module("sre_constants")

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


def required_literals(pattern: str, flags: int = 0) -> tuple[str, ...] | None:
    """Strings of which every match of ``pattern`` contains at least one, or None when
    that cannot be told cheaply (then nothing can be skipped).

    Read off Python's own parse of the pattern: per alternative, the literal text it
    starts with (zero-width assertions skipped; a repeated character counted once, an
    optional one not at all), or the needles of the group or character set it starts with."""
    try:
        tree = _sre_parse.parse(pattern, flags & ~re.IGNORECASE)
    except (re.error, RecursionError):
        return None
    found = _sequence_needles(list(tree))
    if not found:
        return None
    # A needle holding a shorter one adds nothing to an "any of them" test.
    unique = sorted(set(found), key=lambda n: (len(n), n))
    return tuple(n for k, n in enumerate(unique) if not any(m in n for m in unique[:k]))


def _sequence_needles(items: list[tuple[Any, Any]]) -> list[str] | None:
    run: list[str] = []
    for op, av in items:
        if op is _sre.AT:
            continue  # ^, $, \\b: zero width
        if op is _sre.LITERAL:
            run.append(chr(av))
            continue
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            low, _, sub = av
            if low >= 1 and len(sub) == 1 and sub[0][0] is _sre.LITERAL:
                run.append(chr(sub[0][1]))  # "b+": one b is certain, the next character is not
            break
        if run:
            break
        if op is _sre.SUBPATTERN:
            return _sequence_needles(list(av[-1]))
        if op is _sre.BRANCH:
            found: list[str] = []
            for branch in av[1]:
                needles = _sequence_needles(list(branch))
                if not needles:
                    return None
                found.extend(needles)
            return found
        if op is _sre.IN and av and all(kind is _sre.LITERAL for kind, _ in av):
            return [chr(code) for _, code in av]  # "[ab]": one of its characters
        return None
    return ["".join(run)] if run else None


class FoldedPattern:
    """A pattern searched case-insensitively (or, with ``ignore_case=False``, as
    written: one interface for a list of both kinds); ``found(text)`` says whether
    it occurs.  Each part is made on first use: the classifier holds dozens of these,
    and a run that classifies nothing (a passing suite, most failing pytest runs) should
    not pay for compiling them (~70 ms for the classifier's tables).  The needles come
    first and from the pattern's parse alone: a text holding none of them (most texts,
    for most patterns) never compiles the regex at all.  The built-in patterns' needles are read from
    :mod:`.needles` (Python's regex parser takes 1-2 ms for each of the classifier's long alternations,
    in every process that classifies), others' computed."""

    __slots__ = ("pattern", "_flags", "_ignore_case", "_folded", "_lowered", "_needles")

    def __init__(self, pattern: str, flags: int = 0, *, ignore_case: bool = True) -> None:
        self.pattern = pattern
        self._flags = flags
        self._ignore_case = ignore_case
        self._folded: re.Pattern[str] | None = None
        self._lowered: re.Pattern[str] | None = None
        self._needles: tuple[str, ...] | None | bool = False  # False: not computed yet

    @property
    def folded(self) -> re.Pattern[str]:
        """The pattern as written, under ``re.IGNORECASE`` when case is ignored."""
        if self._folded is None:
            self._folded = re.compile(self.pattern, self._flags | (re.IGNORECASE if self._ignore_case else 0))
        return self._folded

    @property
    def lowered(self) -> re.Pattern[str] | None:
        """The pattern with its literals lower-cased, searched on lower-cased text (None: case counts)."""
        if not self._ignore_case:
            return None
        if self._lowered is None:
            self._lowered = re.compile(lower_literals(self.pattern), self._flags & ~re.IGNORECASE)
        return self._lowered

    @property
    def needles(self) -> tuple[str, ...] | None:
        """Substring tests (in C, far cheaper than the search on a long text) that rule a text out
        before the regex runs: at least one of them is in every match."""
        if self._needles is False:
            known = KNOWN_NEEDLES.get((self.needles_source, self._flags), False)
            self._needles = required_literals(self.needles_source, self._flags) if known is False else known
        return self._needles  # type: ignore[return-value]

    @property
    def flags(self) -> int:
        return self._flags

    @property
    def needles_source(self) -> str:
        """What the needles are read off: the pattern, its literals lowered when case is ignored."""
        return lower_literals(self.pattern) if self._ignore_case else self.pattern

    def found(self, text: str) -> bool:
        return self.found_in(text, lowered_for_search(text) if self._ignore_case else None)

    def found_in(self, text: str, lowered: str | None) -> bool:
        """``found(text)`` where ``lowered`` is ``lowered_for_search(text)`` (one lowering
        shared by several patterns)."""
        if self._ignore_case and lowered is not None:
            needles = self.needles
            if needles is not None and not any(needle in lowered for needle in needles):
                return False
            return self.lowered.search(lowered) is not None  # type: ignore[union-attr]
        if not self._ignore_case:
            needles = self.needles
            if needles is not None and not any(n in text for n in needles):
                return False
        return self.folded.search(text) is not None


def lowered_for_search(text: str) -> str | None:
    """``text.lower()``, or None when searching it would not be what re.I does."""
    if text.isascii() or _ODD_FOLDS.search(text) is None:
        return text.lower()
    return None

