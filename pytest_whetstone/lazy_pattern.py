"""Regular expressions compiled on first use, or ahead of it while a command runs.

The parsers hold some two hundred patterns; compiling them all takes about 30 ms, more than parsing a
short test run's log.  Each module-level pattern is made by :func:`lazy_pattern`: it compiles when a
log first reaches it, so a run pays only for the patterns its output calls on, and
:func:`compile_pending` (a prefetch step of `whetstone run`, :mod:`.prefetch`) compiles the rest while
the command runs, a pattern at a time, until asked to stop.

After its first use a pattern's methods are the compiled pattern's own bound methods, stored on the
instance: a call costs what it costs on an ``re.Pattern``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any, cast

# What callers use of a pattern: set on the instance from the compiled pattern at the first use.
_FORWARDED = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split", "groupindex", "groups",
              "scanner")

_PENDING: list[LazyPattern] = []
_LOCK = threading.Lock()  # the prefetch thread compiles while the main thread may use a pattern


class LazyPattern:
    """``re.compile(pattern, flags)``, deferred: the first attribute read compiles it."""

    __slots__ = ("pattern", "_flags", *_FORWARDED)

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:  # only reached while not compiled (slots unset)
        return getattr(self.compile(), name)

    def compile(self) -> re.Pattern[str]:
        compiled = re.compile(self.pattern, self._flags)
        with _LOCK:
            for attr in _FORWARDED:
                setattr(self, attr, getattr(compiled, attr))
        return compiled

    @property
    def flags(self) -> int:
        return re.compile(self.pattern, self._flags).flags  # re's own cache: compiled once

    def __repr__(self) -> str:
        return f"lazy_pattern({self.pattern!r}, {self._flags})"


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern compiled on first use (typed as the compiled pattern it stands for)."""
    lazy = LazyPattern(pattern, flags)
    with _LOCK:
        _PENDING.append(lazy)
    return cast("re.Pattern[str]", lazy)


def compile_pending() -> Iterator[None]:
    """Compile the patterns not used yet, yielding after each one: the caller stops when it must."""
    while True:
        with _LOCK:
            if not _PENDING:
                return
            lazy = _PENDING.pop()
        try:
            object.__getattribute__(lazy, "match")
        except AttributeError:
            lazy.compile()
        yield
