"""The files of a workspace for the native locators: listed once, looked up by name and trailing path,
and each file's functions read once per version of the file (C/C++ and JS/TS, with tree-sitter).

The C/C++ function index of the whole workspace is kept across runs in the store
(:mod:`.index_cache`), so a failing run parses only the files it reads closely.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from . import callgraph, cfamily, jsfamily
from .index_cache import IndexCache
from .native_names import C_EXTS, is_test_file

SKIP_DIRS = paths.SKIP_DIRS
MAX_FILES = 6000
GTEST_MACROS = {"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P", "GTEST_TEST", "FRIEND_TEST"}
# a test's definition: every macro above but FRIEND_TEST, which names a test inside a class
_GTEST_DEF = re.compile(r"\b(?:" + "|".join(sorted(GTEST_MACROS - {"FRIEND_TEST"}))
                        + r")\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")


class Workspace:
    """The files of one workspace, listed once, and lookups by name and trailing path."""

    def __init__(self, root: Path, store: Path | None = None) -> None:
        self.root = Path(root).resolve()
        self.store = store  # where the function index is kept across runs (none: parsed every time)
        self._files: list[str] | None = None
        self._by_name: dict[str, list[str]] = {}
        self._by_stem: dict[str, list[str]] | None = None
        self._js_funcs: dict[str, list[Func]] | None = None
        self._c_index: cfamily.FunctionIndex | None = None
        self._c_by_short: dict[str, list[cfamily.FunctionDef]] = {}  # the index by short name
        self._listed: dict[str, list[cfamily.FunctionDef] | None] = {}  # a C/C++ file's functions, read once
        self._cache: IndexCache | None = None  # the functions kept in the store, read once
        self._funcs: dict[str, list[Func]] = {}  # a C/C++ file's functions as the locators take them
        self._gtests: dict[tuple[str, str], str] = {}  # (suite, name) -> the first file defining it
        self._gtest_scanned = 0  # how many of ``files`` the gtest definitions were read from
        self.related: dict[str, list[str]] = {}  # a test file -> its implementation files (the locator's)

    @property
    def files(self) -> list[str]:
        if self._files is None:
            out: list[str] = []
            for dirpath, dirnames, filenames in os.walk(self.root):
                if "CMakeCache.txt" in filenames:  # a build tree: generated files only
                    dirnames[:] = []
                    continue
                dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
                rel_dir = os.path.relpath(dirpath, self.root)
                for name in sorted(filenames):
                    suffix = Path(name).suffix
                    if suffix in C_EXTS or suffix.lower() in jsfamily.SOURCE_EXTS:
                        out.append(name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/"))
                if len(out) >= MAX_FILES:
                    break
            self._files = out
            for rel in out:
                self._by_name.setdefault(Path(rel).name, []).append(rel)
        return self._files

    def rel(self, path: Path) -> str:
        return paths.relative_posix(path, self.root)

    def find(self, printed: str) -> str | None:
        """A path as a tool printed it -> workspace-relative path of that file, if it is here."""
        if not printed:
            return None
        p = Path(printed)
        full = p if p.is_absolute() else self.root / p
        try:
            if full.is_file():
                rel = full.resolve().relative_to(self.root).as_posix()
                return rel
        except (OSError, ValueError):
            pass
        # Another checkout's path (CI log, build dir): match trailing components.
        self.files  # noqa: B018 - fills _by_name
        same = self._by_name.get(p.name, [])
        if not same:
            return None
        parts = p.parts

        def common(rel: str) -> int:
            rp = Path(rel).parts
            n = 0
            while n < min(len(rp), len(parts)) and rp[-1 - n] == parts[-1 - n]:
                n += 1
            return n

        ranked = sorted(same, key=lambda r: (-common(r), r))
        if len(ranked) == 1 or common(ranked[0]) > common(ranked[1]):
            return ranked[0]
        return None

    def by_stem(self, stem: str, exts: set[str]) -> list[str]:
        if self._by_stem is None:  # every failure asks: the non-test files by lower-case stem, listed once
            self._by_stem = {}
            for r in self.files:
                if not is_test_file(r):
                    self._by_stem.setdefault(Path(r).stem.lower(), []).append(r)
        return [r for r in self._by_stem.get(stem.lower(), []) if Path(r).suffix.lower() in exts]

    def gtest_file(self, suite: str, name: str) -> str | None:
        """The first C/C++ file (in listing order) defining ``TEST(suite, name)`` or its kin.  Each file is
        read once however many failures ask: the files are scanned in order only as far as the answer."""
        key = (suite, name)
        files = self.files
        while key not in self._gtests and self._gtest_scanned < len(files):
            rel = files[self._gtest_scanned]
            self._gtest_scanned += 1
            if Path(rel).suffix not in C_EXTS:
                continue
            try:
                text = (self.root / rel).read_text("utf-8", errors="replace")
            except OSError:
                continue
            if "TEST" in text:
                for m in _GTEST_DEF.finditer(text):
                    self._gtests.setdefault((m.group(1), m.group(2)), rel)
        return self._gtests.get(key)

    def c_index(self) -> cfamily.FunctionIndex:
        if self._c_index is None:
            index = cfamily.FunctionIndex.__new__(cfamily.FunctionIndex)
            index.workspace = self.root
            index.functions = []
            for rel in self.files:
                listed = None if is_test_file(rel) else self._listing(rel)  # a test defines no suspect
                if listed is not None:
                    index.functions.extend(listed)
            self.save()
            self._c_index = index
            for f in index.functions:
                self._c_by_short.setdefault(f.short, []).append(f)
        return self._c_index

    def functions(self, rel: str) -> list[Func]:
        """A file's functions; a C/C++ file's as the store kept them across runs while the file is unchanged
        (an unchanged header is not parsed again), else read from its parse."""
        if rel not in self._funcs:
            listed = self._listing(rel) if family_of(rel) == "c" else None
            if listed is None:
                return functions_of_file(self.root, rel)
            self._funcs[rel] = [Func(f.file_path, f.qualname, f.line_start, f.line_end, f.short)
                                for f in listed if f.short not in GTEST_MACROS]
        return list(self._funcs[rel])

    def body_calls(self, fn: callgraph.FunctionLike) -> list[callgraph.Call]:
        """The calls a C/C++ function's body makes: as the store kept them while its file is unchanged (an
        unchanged header is not parsed again for its inline functions), else read from its parse and kept."""
        if self._listing(fn.file_path) is None:  # not a file the store keeps
            return callgraph.body_calls(self.root, fn, "c")
        cache = self._kept()
        calls = cache.calls(fn.file_path, fn.line_start, fn.line_end)
        if calls is None:
            calls = callgraph.body_calls(self.root, fn, "c")
            cache.put_calls(fn.file_path, fn.line_start, fn.line_end, calls)
        return calls

    def _listing(self, rel: str) -> list[cfamily.FunctionDef] | None:
        """The functions of a C/C++ file (None: not one, or generated), once per run: what the store kept
        for this version of the file, else read from its parse and kept."""
        if rel not in self._listed:
            path = self.root / rel
            listed = None
            if Path(rel).suffix in C_EXTS and not cfamily.looks_generated(path):
                cache = self._kept()
                listed = cache.get(rel, path)
                if listed is None:
                    pf = cfamily.parse_file(path)
                    listed = cfamily.functions_in(pf, rel) if pf is not None else []
                    cache.put(rel, path, listed)
            self._listed[rel] = listed
        return self._listed[rel]

    def save(self) -> None:
        """Keep in the store what this run listed that it did not hold (a no-op when nothing changed)."""
        if self._cache is not None:
            self._cache.save()

    def _kept(self) -> IndexCache:
        if self._cache is None:
            self._cache = IndexCache(self.store)
        return self._cache

    def c_named(self, short: str) -> list[cfamily.FunctionDef]:
        """The workspace's C/C++ functions whose short name is ``short`` (the index, built once)."""
        self.c_index()
        return self._c_by_short.get(short, [])

    def js_functions(self) -> dict[str, list[Func]]:
        """Functions of every non-test JS/TS file, by short name."""
        if self._js_funcs is None:
            table: dict[str, list[Func]] = {}
            for rel in self.files:
                if Path(rel).suffix.lower() in jsfamily.SOURCE_EXTS and not is_test_file(rel):
                    for fn in functions_of_file(self.root, rel):
                        table.setdefault(fn.short, []).append(fn)
            self._js_funcs = table
        return self._js_funcs


@dataclass
class Func:
    file_path: str
    qualname: str
    line_start: int
    line_end: int
    short: str

    def contains(self, rel: str, line: int) -> bool:
        return rel == self.file_path and self.line_start <= line <= self.line_end


def family_of(rel: str) -> str | None:
    suffix = Path(rel).suffix
    if suffix in C_EXTS or suffix.lower() in {e.lower() for e in cfamily.CPP_EXTS}:
        return "c"
    if suffix.lower() in jsfamily.SOURCE_EXTS:
        return "js"
    return None


# (root, rel) -> (the parse the list was read from, the list): a file's functions are read from its tree
# once per version of the file (the parse caches hand back the same object while the file is unchanged),
# not once per failure that looks at it.
_FUNCS: dict[tuple[Path, str], tuple[object, list[Func]]] = {}


def functions_of_file(root: Path, rel: str) -> list[Func]:
    fam = family_of(rel)
    if fam == "c":
        pf = cfamily.parse_file(root / rel)
        if pf is None:
            return []
        return _memo(root, rel, pf, lambda: [
            Func(f.file_path, f.qualname, f.line_start, f.line_end, f.short)
            for f in cfamily.functions_in(pf, rel)
            if f.short not in GTEST_MACROS
        ])
    if fam == "js":
        pj = jsfamily.parse_file(root / rel)
        if pj is None:
            return []
        return _memo(root, rel, pj, lambda: [Func(f.file_path, f.qualname, f.line_start, f.line_end, f.name)
                                              for f in jsfamily.functions_in(pj, rel)])
    return []


def _memo(root: Path, rel: str, parsed: object, read: Callable[[], list[Func]]) -> list[Func]:
    hit = _FUNCS.get((root, rel))
    if hit is None or hit[0] is not parsed:
        if len(_FUNCS) > 512:
            _FUNCS.clear()  # bounded, as the parse caches are
        hit = _FUNCS[(root, rel)] = (parsed, read())
    return list(hit[1])
