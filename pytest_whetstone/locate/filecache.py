"""Parse a source file once per version: a small cache keyed on path, mtime, ctime and size (a write
changes the ctime even when a tool puts the old mtime back)."""

from __future__ import annotations

import stat
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


class ParseCache(Generic[T]):
    """Results of ``parse(path, source)`` for files up to ``max_bytes``; re-parsed when they change."""

    def __init__(self, parse: Callable[[Path, bytes], T], max_bytes: int, max_entries: int = 256) -> None:
        self._parse = parse
        self._max_bytes = max_bytes
        self._max_entries = max_entries
        self._entries: dict[Path, tuple[tuple[int, int, int], T]] = {}

    def get(self, path: Path) -> T | None:
        try:
            st = path.stat()
            if not stat.S_ISREG(st.st_mode) or st.st_size > self._max_bytes:
                return None
            key = (st.st_mtime_ns, st.st_ctime_ns, st.st_size)
            hit = self._entries.get(path)
            if hit and hit[0] == key:
                return hit[1]
            source = path.read_bytes()
        except OSError:
            return None
        parsed = self._parse(path, source)
        if len(self._entries) > self._max_entries:
            self._entries.clear()  # bounded; a fresh start is cheaper than LRU bookkeeping
        self._entries[path] = (key, parsed)
        return parsed

    def clear(self) -> None:
        self._entries.clear()


def kept(facts: dict[Hashable, Any], name: Hashable, read: Callable[[], T]) -> T:
    """``read()`` the first time a parse's ``facts`` are asked for ``name``, the kept value after: a walk
    of a tree made once per version of the file, however many failures ask for it."""
    if name not in facts:
        facts[name] = read()
    return cast(T, facts[name])
