"""Execution spectra of C/C++ and JS tests: the functions a failing test ran, ranked against the passing ones.

The static ranking (:mod:`.native_tests`) sees what a test calls by name, two calls deep; a fault in
an internal reached another way never becomes a suspect.  A run of the failing tests and their
neighbours under callgrind (:mod:`.callgrind`, run by :mod:`..candidates.native_spectra_cxx`), or
JS under V8's coverage (:mod:`.v8coverage`, :mod:`..candidates.native_spectra_js`), says what really
ran, per test (JS: the failing tests together against the passing tests of their files).  Each line (with debug info) or function (from symbol names alone) gets
the Ochiai score ``ef / sqrt(F * (ef + ep))`` -- failing tests that ran it against passing ones -- and
a function scores its best line.  The scores are blended into the static ranking: what the failing
test ran joins the suspects, what it provably did not run drops.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..records import Suspect
from .callgrind import Executed, plain_name
from .native_names import C_EXTS, is_test_file
from .native_tests import MAX_SUSPECTS, Func, Workspace, family_of, functions_of_file

W_SPECTRUM = 0.5  # how far the spectrum scales a static suspect's score (0: not at all)
W_SPECTRUM_LINES = 0.8  # ... when its file's lines were profiled: a line only the failing tests ran says more
W_JOIN = 0.5  # a function only the spectrum names: this times its spectrum score
NOT_RUN = 0.2  # a static suspect the failing test provably did not run keeps this share of its score
UNKNOWN = 0.5  # a suspect the profile cannot speak for (no debug info, possibly inlined)
CRASH_FRAMES = 4  # the project functions a crashed test's innermost frames name go first, at most these


@dataclass
class TestRun:
    """One test as it ran under the profiler."""

    name: str
    failed: bool
    executed: Executed


@dataclass
class _Seen:
    """What one test ran, as workspace functions and lines."""

    functions: set[tuple[str, str, int]] = field(default_factory=set)
    lines: set[tuple[str, int]] = field(default_factory=set)
    files_with_lines: set[str] = field(default_factory=set)


class Spectrum:
    """Per-test executed functions and lines of a workspace's C/C++ sources, and their Ochiai scores."""

    def __init__(self, runs: Iterable[TestRun], ws: Workspace) -> None:
        self.ws = ws
        self._funcs: dict[str, list[Func]] = {}
        self._rel: dict[str, str | None] = {}
        self._line_keys: dict[tuple[str, int], list[tuple[str, str, int]]] = {}  # (file, line) -> its functions
        self._name_keys: dict[str, list[tuple[str, str, int]]] = {}  # a profiled symbol -> its functions
        self.funcs_by_key: dict[tuple[str, str, int], Func] = {}
        self.seen: dict[str, _Seen] = {}
        self.failed: set[str] = set()
        runs = list(runs)
        self.crashed: dict[str, list[tuple[str, str, int]]] = {}  # failing test -> its crash's functions, innermost first
        names = {name for run in runs for name in run.executed.functions}
        names |= {name for run in runs for name, line in run.executed.frames if not line}
        self._by_short = self._definitions({short for short in map(_short, names) if short})
        for run in runs:
            self.seen[run.name] = self._map(run.executed)
            if run.failed:
                self.failed.add(run.name)
                if run.executed.frames:
                    self.crashed[run.name] = self._frames(run.executed.frames)
        self.profiled_files: set[str] = set().union(*(s.files_with_lines for s in self.seen.values()))
        self.debug_info = bool(self.profiled_files)
        self._lines_of: dict[str, list[tuple[int, list[int]]]] = {}  # file -> (line, [ef, ep])
        self._line_counts: dict[tuple[str, int], list[int]] = self._count(lambda s: s.lines)
        for (rel, line), counts in self._line_counts.items():
            self._lines_of.setdefault(rel, []).append((line, counts))
        self._func_counts = self._count(lambda s: s.functions)

    # ----------------------------------------------------------------- mapping

    def _relative(self, path: str) -> str | None:
        if path not in self._rel:
            rel = self.ws.find(path)
            self._rel[path] = rel if rel and family_of(rel) and not is_test_file(rel) else None
        return self._rel[path]

    def _functions(self, rel: str) -> list[Func]:
        if rel not in self._funcs:
            self._funcs[rel] = functions_of_file(self.ws.root, rel)
        return self._funcs[rel]

    def _map(self, executed: Executed) -> _Seen:
        """One test's run as workspace functions and lines.  Tests share most of what they ran: each
        line's functions and each symbol's are found once for the whole profile (jsonnet's 44 tests
        named 12,580 symbols, about 300 of them distinct)."""
        seen = _Seen()
        for path, lines in executed.lines.items():
            rel = self._relative(path)
            if rel is None:
                continue
            seen.files_with_lines.add(rel)
            for line in lines:
                keys = self._at_line(rel, line)
                if keys:
                    seen.functions.update(keys)
                    seen.lines.add((rel, line))
        for name in executed.functions:
            seen.functions.update(self._named(name))
        return seen

    def _named(self, name: str) -> list[tuple[str, str, int]]:
        """The workspace functions a profiled symbol names, found once for every test that ran it."""
        keys = self._name_keys.get(name)
        if keys is None:
            plain, short = plain_name(name), _short(name)
            keys = self._name_keys[name] = self._keys(
                fn for fn in self._by_short.get(short, []) if _same_function(fn, plain)) if short else []
        return keys

    def _at_line(self, rel: str, line: int) -> list[tuple[str, str, int]]:
        """The functions of ``rel`` that hold ``line``, found once for every test that ran it."""
        keys = self._line_keys.get((rel, line))
        if keys is None:
            keys = self._line_keys[(rel, line)] = self._keys(
                fn for fn in self._functions(rel) if fn.line_start <= line <= fn.line_end)
        return keys

    def _keys(self, funcs: Iterable[Func]) -> list[tuple[str, str, int]]:
        """The keys of ``funcs``, each function recorded in ``funcs_by_key``."""
        keys = []
        for fn in funcs:
            key = (fn.file_path, fn.qualname, fn.line_start)
            self.funcs_by_key[key] = fn
            keys.append(key)
        return keys

    def _frames(self, frames: list[tuple[str, int]]) -> list[tuple[str, str, int]]:
        """The workspace functions a crash's frames are in, innermost first, each once (a test file's
        and the libraries' left out)."""
        out: list[tuple[str, str, int]] = []
        for where, line in frames:
            if line:
                rel = self._relative(where)
                found = [fn for fn in self._functions(rel) if fn.line_start <= line <= fn.line_end] if rel else []
                found = sorted(found, key=lambda fn: fn.line_end - fn.line_start)[:1]  # a lambda's, not its host's
            else:
                plain, short = plain_name(where), _short(where)
                found = [fn for fn in self._by_short.get(short, []) if _same_function(fn, plain)][:1]
            for fn in found:
                key = (fn.file_path, fn.qualname, fn.line_start)
                self.funcs_by_key[key] = fn
                if key not in out:
                    out.append(key)
            if len(out) >= CRASH_FRAMES:
                break
        return out

    def _definitions(self, shorts: set[str]) -> dict[str, list[Func]]:
        """The workspace's functions named like what ran, by short name.  Only files that mention one
        of the names before a ``(`` are parsed: a generated data header or a vendored library the
        tests never entered costs a byte search, not a parse."""
        out: dict[str, list[Func]] = {}
        if not shorts:
            return out
        pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in sorted(shorts)) + rb")\s*\(")
        for rel in self.ws.files:
            if Path(rel).suffix not in C_EXTS or is_test_file(rel):
                continue
            try:
                data = (self.ws.root / rel).read_bytes()
            except OSError:
                continue
            if not pattern.search(data):
                continue
            for fn in self._functions(rel):
                if fn.short in shorts:
                    out.setdefault(fn.short, []).append(fn)
        return out

    def _count(self, pick) -> dict:  # type: ignore[no-untyped-def]
        counts: dict = {}
        for name, seen in self.seen.items():
            slot = 0 if name in self.failed else 1
            for element in pick(seen):
                counts.setdefault(element, [0, 0])[slot] += 1
        return counts

    def add_lines(self, rel: str, lines_by_test: dict[str, set[int]]) -> None:
        """Lines of ``rel`` each test ran, measured another way than the profile (a schema's reach:
        :mod:`..candidates.native_search_spectrum`), for a file whose lines the profile has not.  A
        test measured there that the profile did not run passes.  One the profile ran but that was not
        measured (another binary's) is taken to have run every measured line of each function it
        entered: a test nobody measured never makes a line look rarer among passing tests than it is,
        and lines tell apart only what the tests measured saw.  Each function a test ran a line of is one
        it ran."""
        if rel in self.profiled_files or not self.failed & lines_by_test.keys():
            return
        counts: dict[int, list[int]] = {}
        lines_of_fn: dict[tuple[str, str, int], set[int]] = {}
        keys_of = {line: self._at_line(rel, line) for line in set().union(*lines_by_test.values())}
        for line, keys in keys_of.items():
            for key in keys:
                lines_of_fn.setdefault(key, set()).add(line)
        for test, lines in lines_by_test.items():
            seen = self.seen.setdefault(test, _Seen())
            for line in lines:
                counts.setdefault(line, [0, 0])[0 if test in self.failed else 1] += 1
                seen.functions.update(keys_of.get(line, ()))
        for test, seen in self.seen.items():
            if test not in lines_by_test:
                for line in set().union(*(lines_of_fn.get(key, set()) for key in seen.functions)):
                    counts[line][0 if test in self.failed else 1] += 1
        for line, pair in counts.items():
            self._line_counts[(rel, line)] = pair
        self._lines_of[rel] = sorted(counts.items())
        self.profiled_files.add(rel)

    # ----------------------------------------------------------------- scores

    def _ochiai(self, counts: list[int] | None) -> float:
        if not counts or not counts[0] or not self.failed:
            return 0.0
        ef, ep = counts
        return ef / math.sqrt(len(self.failed) * (ef + ep))

    def score(self, key: tuple[str, str, int]) -> float | None:
        """The function's spectrum score: its best line's with debug info, else its own; None when the
        profile cannot tell whether any test ran it."""
        fn = self.funcs_by_key.get(key)
        rel = key[0]
        if rel in self.profiled_files:  # its file's lines were profiled: its best line (0: none ran)
            if fn is None:
                return 0.0
            return max((self._ochiai(c) for line, c in self._lines_of.get(rel, [])
                        if fn.line_start <= line <= fn.line_end), default=0.0)
        if key in self._func_counts:
            return self._ochiai(self._func_counts[key])
        if not self.debug_info and Path(rel).suffix.lower() in {".h", ".hh", ".hpp", ".hxx", ".inl"}:
            return None  # a header function may have been inlined away: no symbol says it ran
        return 0.0 if self._func_counts else None

    def best_line(self) -> tuple[str, int] | None:
        """The line scored highest (the first of a tie, by file and line); None without lines."""
        scored = [(-self._ochiai(counts), rel, line) for (rel, line), counts in self._line_counts.items()]
        return min(scored)[1:] if scored else None

    def line_score(self, rel: str, line: int) -> float | None:
        """One line's Ochiai score; None when its file's lines were not profiled."""
        if rel not in self.profiled_files:
            return None
        return self._ochiai(self._line_counts.get((rel, line)))

    def ran_in(self, test: str) -> set[tuple[str, str, int]]:
        seen = self.seen.get(test)
        return set(seen.functions) if seen else set()

    def describe(self, key: tuple[str, str, int]) -> str:
        counts = self._func_counts.get(key, [0, 0])
        return (f"ran in {counts[0]} of {len(self.failed)} failing and {counts[1]} of "
                f"{len(self.seen) - len(self.failed)} passing tests")


def _same_function(fn: Func, plain: str) -> bool:
    """Whether a profiled symbol's plain name (``ns::Class::method``) names the workspace function:
    either may carry namespaces the other leaves out."""
    return fn.qualname == plain or plain.endswith("::" + fn.qualname) or fn.qualname.endswith("::" + plain)


def _short(name: str) -> str:
    """``ns::Class::method`` of a profiled symbol, or "" when it is not a plain identifier."""
    short = plain_name(name).rsplit("::", 1)[-1]
    return short if short and short.replace("_", "a").isalnum() else ""


def rerank(suspects: list[Suspect], spectrum: Spectrum, test: str) -> list[Suspect]:
    """The suspects scaled by the spectrum, joined by what the failing ``test`` ran.

    A static suspect keeps its place unless the spectrum says otherwise: its score is scaled between
    ``1 - W_SPECTRUM`` (ran as often in passing tests as in failing ones) and 1 (ran only in failing
    ones), ``W_SPECTRUM_LINES`` in place of ``W_SPECTRUM`` when its file's lines were profiled, and cut
    to ``NOT_RUN`` when the failing test provably did not run it.  A function only the
    spectrum names joins at ``W_JOIN`` times its score: above weak static suspects, below strong ones,
    so the first mutant pass reaches it."""
    ran = spectrum.ran_in(test)
    if test not in spectrum.seen or not (ran or suspects):
        return suspects
    top = max((s.score for s in suspects), default=0.0) or 1.0
    scored: list[tuple[float, int, Suspect]] = []
    known: set[tuple[str, str, int]] = set()
    for order, s in enumerate(suspects):
        key = (s.file_path, s.qualname, s.line_start)
        known.add(key)
        spec = spectrum.score(key)
        static = s.score / top
        if spec is None:
            factor = 1 - W_SPECTRUM + W_SPECTRUM * UNKNOWN
        elif key not in ran and spec == 0.0:
            factor = NOT_RUN
        else:
            weight = W_SPECTRUM_LINES if key[0] in spectrum.profiled_files else W_SPECTRUM
            factor = 1 - weight + weight * spec
        scored.append((round(static * factor, 4), order, s))
    joined = sorted((k for k in ran if k not in known), key=lambda k: (-(spectrum.score(k) or 0.0), k))
    for order, key in enumerate(joined, len(suspects)):
        fn = spectrum.funcs_by_key[key]
        score = round(W_JOIN * (spectrum.score(key) or 0.0), 4)
        scored.append((score, order, Suspect(fn.file_path, fn.qualname, fn.line_start, fn.line_end, score)))
    crashed = spectrum.crashed.get(test, [])
    if crashed:
        # the test crashed there: its innermost project frames go first (the fault, or what called it
        # with what the fault computed), the rest below them
        frames = set(crashed)
        scored = [(round(0.9 * score, 4), order, s) for score, order, s in scored
                  if (s.file_path, s.qualname, s.line_start) not in frames]
        for place, key in enumerate(crashed):
            fn = spectrum.funcs_by_key[key]
            score = round(1.0 - 0.02 * place, 4)
            scored.append((score, -1, Suspect(fn.file_path, fn.qualname, fn.line_start, fn.line_end, score)))
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [Suspect(s.file_path, s.qualname, s.line_start, s.line_end, score)
            for score, _order, s in scored[:MAX_SUSPECTS]]
