"""The C/C++ function index kept across runs, so a failing run does not re-parse an unchanged tree.

Locating a test failure names functions across the whole workspace (what the test calls, what those
call), so every C/C++ file's functions are listed.  Parsing each file with tree-sitter is most of a
default run's own cost on a real code base; the list of a file changes only when the file does.  The
files a failure reads closely (the headers a test includes, its own helpers) are listed the same way,
and the calls of each function body a failure read (what the call graph follows).  Each
file's functions are kept in the store (``cache/c_functions.json``) under the file's size and CRC-32
(reading a file is far cheaper than parsing it, and a checksum does not trust modification times that
tools preserve); a file whose bytes differ is parsed again.  A missing, unreadable or
corrupt cache is an empty one: it only costs the parse it would have saved.
"""

from __future__ import annotations

import json
import os
import tempfile
import zlib
from pathlib import Path
from typing import Any

from .cfamily import FunctionDef

CACHE_FILE = "c_functions.json"
VERSION = 3  # 2: functions returning a reference (`T &f()`) are listed; 3: the calls of bodies read
MAX_FILES = 20000


class IndexCache:
    def __init__(self, store: Path | None) -> None:
        self.path = store / "cache" / CACHE_FILE if store is not None else None
        self.entries: dict[str, list[Any]] = {}  # rel -> [size, CRC-32, functions, {"first:last": calls}]
        self.changed = False
        self._fresh: set[str] = set()  # files whose entry this run found (or made) current
        if self.path is not None:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                if isinstance(data, dict) and data.get("version") == VERSION and isinstance(data.get("files"), dict):
                    self.entries = data["files"]
            except (OSError, ValueError):
                pass

    def get(self, rel: str, path: Path) -> list[FunctionDef] | None:
        """The file's functions as last listed, if the file has not changed since."""
        entry = self.entries.get(rel)
        if self.path is None or not isinstance(entry, list) or len(entry) != 4 or not isinstance(entry[3], dict):
            return None
        try:
            if _key(path) != entry[:2]:
                return None
            listed = [FunctionDef(name, qualname, rel, start, end) for name, qualname, start, end in entry[2]]
        except (OSError, TypeError, ValueError):
            return None
        self._fresh.add(rel)
        return listed

    def put(self, rel: str, path: Path, functions: list[FunctionDef]) -> None:
        if self.path is None or len(self.entries) >= MAX_FILES:
            return
        try:
            key = _key(path)
        except OSError:
            return
        self.entries[rel] = [*key, [[f.name, f.qualname, f.line_start, f.line_end] for f in functions], {}]
        self._fresh.add(rel)
        self.changed = True

    def calls(self, rel: str, first: int, last: int) -> list[tuple[str, str, int]] | None:
        """The calls of the body on lines ``first``-``last`` of ``rel`` as kept, if this run found the file
        unchanged (:meth:`get`) or listed it anew (:meth:`put`)."""
        if rel not in self._fresh:
            return None
        kept = self.entries[rel][3].get(f"{first}:{last}")
        try:
            return [(str(short), str(text), int(line)) for short, text, line in kept] if isinstance(kept, list) else None
        except (TypeError, ValueError):
            return None

    def put_calls(self, rel: str, first: int, last: int, calls: list[tuple[str, str, int]]) -> None:
        if rel in self._fresh:
            self.entries[rel][3][f"{first}:{last}"] = [list(call) for call in calls]
            self.changed = True

    def save(self) -> None:
        """Written whole through a temporary file, so a reader never sees half of it."""
        if self.path is None or not self.changed:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".c_functions.")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"version": VERSION, "files": self.entries}, out, separators=(",", ":"))
            os.replace(tmp, self.path)
            self.changed = False
        except OSError:
            pass


def _key(path: Path) -> list[int]:
    data = path.read_bytes()
    return [len(data), zlib.crc32(data)]
