"""Read one or many session files (CI shards, xdist workers, build hosts) into one state.

Each shard is folded on its own, streaming line by line (``session.fold`` over
``session.read_jsonl``), so a later compile of a translation unit supersedes
its earlier errors *within that shard*; the shards are then united:

- the same diagnostic seen by several shards (``session.error_key``, with the
  path made workspace-relative first, so two hosts with different checkout
  directories agree) is kept once;
- the same test failure (``failure_id``) is kept once, a real failure winning
  over a flaky one;
- candidates are united by id, validated when any shard validated them.

Memory holds one shard plus the union of distinct records, never every event
of every shard.  Session files are untrusted input: corrupt lines are skipped
with a warning, field values of the wrong type are coerced or dropped, and
nothing read is ever executed.
"""

from __future__ import annotations

import contextlib
import gc
import json
import operator
import os
import pickle
import subprocess
import sys
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..paths import relative_to_roots
from ..records import (
    BuildErrorRecord,
    FixCandidate,
    TestFailureRecord,
    rank_candidates,
    stable_id,
)
from .fold import SessionState, error_key, error_order, fold
from .sanitize import sanitize
from .sessions import SessionWarning
from .shards import MergeError, audit_path_for, collect_session_files, read_audit, read_events

__all__ = [
    "MergeError",
    "collect_session_files",
    "load_state",
    "merge_sessions",
    "read_audit",
    "audit_path_for",
    "sanitize",
]

# Directories of a store that hold JSONL files which are not sessions.



# --------------------------------------------------------------------------- paths


def _workspace_roots(state: SessionState, workspace: Path | None) -> list[str]:
    roots: list[str] = []
    if workspace is not None:
        roots.append(str(Path(workspace).resolve()))
        roots.append(str(Path(workspace).absolute()))
    for key in ("workspace", "root", "cwd"):
        value = state.meta.get(key)
        if isinstance(value, str) and os.path.isabs(value):
            roots.append(value)
    # Longest first so a nested root wins over its parent.
    return sorted(dict.fromkeys(roots), key=len, reverse=True)


# --------------------------------------------------------------------------- one shard


ErrorKey = tuple[str, int, int, str, str]
# session.error_key's fields, read straight from a raw record dict.
_RAW_KEY = operator.itemgetter("file_path", "line", "col", "severity", "message")
_RAWKEY_LIMIT = 500_000


class _Union:
    """Distinct records across shards; a record object is built only for a new key."""

    def __init__(self, workspace: Path | None) -> None:
        self.workspace = workspace
        self.errors: dict[ErrorKey, BuildErrorRecord] = {}
        self.failures: dict[str, TestFailureRecord] = {}
        # The raw (as written, absolute path) key of a diagnostic -> its kept record.
        self.rawkeys: dict[tuple[Any, ...], BuildErrorRecord] = {}
        self.rawkeys_roots: list[str] = []
        # error_id of a dropped duplicate -> the kept record's id, for candidate targets only.
        self.aliases: dict[str, str] = {}

    def add_shard(self, shard: _Shard, roots: list[str], targets: set[str]) -> None:
        rel = _PathCache(roots)
        rawkeys = self.rawkeys
        raw_key = _RAW_KEY
        if len(rawkeys) > _RAWKEY_LIMIT or roots != self.rawkeys_roots:
            # A cache only: raw paths mean something else under other roots, and shards
            # with ever-new checkout paths must not grow it without bound.
            rawkeys.clear()
            self.rawkeys_roots = roots
        for origin in sorted(shard.errors_by_origin):
            for raw in shard.errors_by_origin[origin]:
                # Hot loop (a million records over 100 shards): most are duplicates, and for
                # a duplicate one C-level key lookup is all the work; no record is built.
                try:
                    key = raw_key(raw)
                    kept = rawkeys[key]
                except (KeyError, TypeError):
                    new = self._new_error(raw, rel)
                    if new is None:
                        continue
                    kept = new
                    try:
                        rawkeys[raw_key(raw)] = kept
                    except (KeyError, TypeError):
                        pass
                if targets:
                    raw_id = raw.get("error_id")
                    if raw_id in targets and raw_id != kept.error_id:
                        self.aliases[raw_id] = kept.error_id
        seen: set[str] = set()
        for origin in sorted(shard.failures_by_origin):
            for raw in shard.failures_by_origin[origin]:
                self._add_failure(raw, rel, seen)

    def _new_error(self, raw: dict[str, Any], rel: _PathCache) -> BuildErrorRecord | None:
        try:
            record = sanitize(BuildErrorRecord.from_dict(raw))
        except (TypeError, ValueError, AttributeError):
            warnings.warn("skipped a malformed build error record", SessionWarning, stacklevel=2)
            return None
        _relativize_error(record, rel)
        kept: BuildErrorRecord = self.errors.setdefault(error_key(record), record)
        return kept

    def _add_failure(self, raw: dict[str, Any], rel: _PathCache, seen: set[str]) -> None:
        try:
            record = sanitize(TestFailureRecord.from_dict(raw))
        except (TypeError, ValueError, AttributeError):
            warnings.warn("skipped a malformed test failure record", SessionWarning, stacklevel=2)
            return
        key = record.failure_id or record.node_id or f"{record.test_suite}::{record.test_name}"
        if key in seen:
            return  # within one shard the first origin wins, as in session.fold
        seen.add(key)
        known = self.failures.get(key)
        if known is None or (known.flaky and not record.flaky):
            _relativize_failure(record, rel)
            self.failures[key] = record

    def build_errors(self) -> list[BuildErrorRecord]:
        return sorted(self.errors.values(), key=error_order)

    def test_failures(self) -> list[TestFailureRecord]:
        return list(self.failures.values())


class _Shard:
    """One session file: record events kept raw per origin, the rest folded by session.fold.

    The record events follow ``session._Folder`` exactly (a ``build_errors``
    batch replaces its origin's previous batch and drops the ``tu:`` origins
    named in ``clean_tus``; ``test_failures`` replaces or extends; a
    ``test_failure`` replaces the same id); tests check both agree.
    """

    def __init__(self) -> None:
        self.errors_by_origin: dict[str, list[dict[str, Any]]] = {}
        self.failures_by_origin: dict[str, list[dict[str, Any]]] = {}

    def siphon(self, events: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Take the record events out of the stream; pass every other event on."""
        for event in events:
            kind = event.get("event")
            data = event.get("data")
            if kind in ("build_errors", "test_failures", "test_failure") and isinstance(data, dict):
                self._take(kind, data)
                # The fold still counts the event (event_count) but gets no records.
                yield {"event": f"{kind}:merged", "data": {}}
            else:
                yield event

    def _take(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "build_errors":
            self.errors_by_origin[str(data.get("origin", "run"))] = _dicts(data.get("records"))
            clean = data.get("clean_tus") or []
            for tu in clean if isinstance(clean, list) else []:
                self.errors_by_origin.pop(f"tu:{tu}", None)
        elif kind == "test_failures":
            origin = str(data.get("origin", "tests"))
            records = _dicts(data.get("records"))
            if data.get("replace", True):
                self.failures_by_origin[origin] = records
            else:
                self.failures_by_origin.setdefault(origin, []).extend(records)
        else:
            record = data.get("record", {})
            if not isinstance(record, dict):
                return
            bucket = self.failures_by_origin.setdefault(str(data.get("origin", "tests")), [])
            fid = record.get("failure_id", "")
            bucket[:] = [r for r in bucket if r.get("failure_id", "") != fid]
            bucket.append(record)


class _PathCache:
    """relative_to_roots() memoised: shards repeat the same few paths thousands of times."""

    def __init__(self, roots: list[str]) -> None:
        self.roots = roots
        self.cache: dict[str, str] = {}

    def __call__(self, path: Any) -> Any:
        if not isinstance(path, str):
            return path
        rel = self.cache.get(path)
        if rel is None:
            rel = self.cache[path] = relative_to_roots(path, self.roots)
        return rel


def _relativize_error(record: BuildErrorRecord, rel: _PathCache) -> None:
    record.file_path = rel(record.file_path)
    record.translation_unit = rel(record.translation_unit)
    for edit in record.fixits:
        edit.file_path = rel(edit.file_path)


def _relativize_failure(record: TestFailureRecord, rel: _PathCache) -> None:
    record.file_path = rel(record.file_path)
    record.impl_file = rel(record.impl_file)
    for suspect in record.suspects:
        suspect.file_path = rel(suspect.file_path)


def _read_shard(path: Path, workspace: Path | None, union: _Union) -> SessionState:
    """Fold one file; its records go into union, the rest of its state is returned."""
    shard = _Shard()
    try:
        state = fold(shard.siphon(read_events(path)))
    except OSError as exc:
        raise MergeError(f"cannot read session file {path}: {exc.strerror or exc}") from exc
    _clean_state(state)
    roots = _workspace_roots(state, workspace)
    union.add_shard(shard, roots, {c.target_id for c in state.candidates if c.target_id})
    rel = _PathCache(roots)
    for candidate in state.candidates:
        candidate.target_id = union.aliases.get(candidate.target_id, candidate.target_id)
        for edit in candidate.edits:
            edit.file_path = rel(edit.file_path)
    if not state.session_id:
        state.session_id = path.stem
    return state


def load_state(path: Path, workspace: Path | None = None) -> SessionState:
    """Fold one session file (streaming) into a state with clean, relative records."""
    merger = _Merger(workspace)
    merger.add_file(path)
    state = merger.result()
    state.session_id = merger.ids[0]
    state.meta = merger.first_meta
    state.verdicts = merger.all_verdicts
    return state


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _clean_state(state: SessionState) -> None:
    for record in (*state.candidates, *state.attempts, *state.observations):
        sanitize(record)
    state.candidates = rank_candidates(state.candidates)
    state.gaps = [sanitize(g) for g in state.gaps]
    if state.escalation is not None:
        sanitize(state.escalation)
    state.verdicts = [v for v in state.verdicts if isinstance(v, dict)]
    state.counts = {k: v for k, v in state.counts.items() if isinstance(v, int) and not isinstance(v, bool)}


# --------------------------------------------------------------------------- many shards


_STATUS_RANK = {"escalated": 0, "failed": 1, "running": 2, "pending": 3, "converged": 4}
# Below this much input a second process costs more than it saves.
_PARALLEL_MIN_FILES = 8
_PARALLEL_MIN_BYTES = 32 << 20


class _Merger:
    """Accumulates shards in order; two mergers of consecutive chunks absorb into one."""

    def __init__(self, workspace: Path | None) -> None:
        self.workspace = workspace
        self.union = _Union(workspace)
        self.candidates: dict[str, FixCandidate] = {}
        self.rest = SessionState()  # attempts, gaps, counts, ... of every shard, concatenated
        self.ids: list[str] = []
        self.statuses: list[str] = []
        self.sources: list[str] = []
        self.first_meta: dict[str, Any] = {}
        self.all_verdicts: list[dict[str, Any]] = []

    def add_file(self, path: Path) -> None:
        shard = _read_shard(path, self.workspace, self.union)
        if not self.ids:  # a single-session report keeps these whole
            self.first_meta = dict(shard.meta)
            self.all_verdicts = list(shard.verdicts)
        self.sources.append(str(path))
        self._add_state(shard)

    def _add_state(self, shard: SessionState) -> None:
        self.ids.append(shard.session_id)
        self.statuses.append(shard.status)
        for cand in shard.candidates:
            self._add_candidate(cand)
        if shard.verdicts:
            shard.verdicts = [shard.verdicts[-1]]  # each shard's final word
        _extend_rest(self.rest, shard)

    def _add_candidate(self, cand: FixCandidate) -> None:
        known = self.candidates.get(cand.candidate_id)
        if known is None:
            self.candidates[cand.candidate_id] = cand
        elif cand.validated:
            known.validated = True

    def absorb(self, other: _Merger) -> None:
        """Take in a merger of the shards that come after this one's (same result as serial)."""
        aliases: dict[str, str] = {}
        for key, record in other.union.errors.items():
            kept = self.union.errors.setdefault(key, record)
            if kept is not record and kept.error_id != record.error_id:
                aliases[record.error_id] = kept.error_id
        for fkey, failure in other.union.failures.items():
            known = self.union.failures.get(fkey)
            if known is None or (known.flaky and not failure.flaky):
                self.union.failures[fkey] = failure
        for cand in other.candidates.values():
            cand.target_id = aliases.get(cand.target_id, cand.target_id)
            self._add_candidate(cand)
        _extend_rest(self.rest, other.rest)
        self.ids.extend(other.ids)
        self.statuses.extend(other.statuses)
        self.sources.extend(other.sources)

    def result(self) -> SessionState:
        state = SessionState()
        rest = self.rest
        for name in ("attempts", "observations", "gaps", "applied", "decisions", "requirements_gap",
                     "unchecked_files", "escalation", "verdicts", "counts", "event_count", "environment",
                     "unfinished_runs"):
            setattr(state, name, getattr(rest, name))
        state.status = _merged_status(self.statuses)
        state.build_errors = self.union.build_errors()
        state.test_failures = self.union.test_failures()
        state.candidates = rank_candidates(list(self.candidates.values()))
        state.session_id = "merged-" + stable_id(*sorted(self.ids), length=10)
        state.meta = {"merged_from": list(self.ids), "sources": list(self.sources)}
        return state

    def __getstate__(self) -> dict[str, Any]:
        self.union.rawkeys = {}  # a cache; not worth pickling back to the parent
        return self.__dict__


def _extend_rest(rest: SessionState, shard: SessionState) -> None:
    """Everything but records: lists concatenate, counts add up, the first escalation wins."""
    rest.attempts.extend(shard.attempts)
    rest.observations.extend(shard.observations)
    rest.gaps.extend(shard.gaps)
    rest.applied.extend(shard.applied)
    rest.decisions.extend(shard.decisions)
    rest.requirements_gap.extend(shard.requirements_gap)
    rest.unchecked_files.extend(f for f in shard.unchecked_files if f not in rest.unchecked_files)
    rest.verdicts.extend(shard.verdicts)
    rest.unfinished_runs.extend(shard.unfinished_runs)
    if rest.escalation is None:
        rest.escalation = shard.escalation
    if rest.environment is None:
        rest.environment = shard.environment
    for key, value in shard.counts.items():
        rest.counts[key] = rest.counts.get(key, 0) + value
    rest.event_count += shard.event_count


def _merge_chunk(paths: list[str], workspace: str | None) -> _Merger:
    """Worker: merge consecutive shards (run in a child process)."""
    with _gc_paused(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SessionWarning)
        merger = _Merger(Path(workspace) if workspace else None)
        for path in paths:
            merger.add_file(Path(path))
    merger.warnings = [str(w.message) for w in caught]  # type: ignore[attr-defined]
    return merger


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Merging allocates millions of short-lived dicts and no cycles; the cyclic GC
    would re-scan everything kept so far again and again (measured: 2x the time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def merge_sessions(paths: Iterable[Path], workspace: Path | None = None, *,
                   jobs: int | None = None) -> SessionState:
    """One state from several session files or folders, de-duplicated across shards.

    ``jobs``: processes to use (default: up to 2 when the input is large enough to pay for them).
    """
    files = collect_session_files(paths)
    if not files:
        raise MergeError("no session files to merge")
    if len(files) == 1:
        state = load_state(files[0], workspace)
        state.meta.setdefault("sources", [str(files[0])])
        return state
    workers = _worker_count(files, jobs)
    if workers > 1:
        merged = _merge_parallel(files, workspace, workers)
    else:
        merged = _Merger(workspace)
        with _gc_paused():
            for path in files:
                merged.add_file(path)
    return merged.result()


def _worker_count(files: list[Path], jobs: int | None) -> int:
    if jobs is not None:
        return max(1, min(jobs, len(files)))
    if len(files) < _PARALLEL_MIN_FILES:
        return 1
    try:
        size = sum(p.stat().st_size for p in files)
    except OSError:
        return 1
    return min(2, os.cpu_count() or 1) if size >= _PARALLEL_MIN_BYTES else 1


def _merge_parallel(files: list[Path], workspace: Path | None, workers: int) -> _Merger:
    """Merge consecutive chunks in child interpreters, then absorb them in order.

    Plain ``python -c`` children (not multiprocessing): they
    need nothing from the parent's ``__main__`` and cannot inherit its threads.
    The pickle read back is one our own child wrote, never a session's content.
    """
    size = -(-len(files) // workers)
    chunks = [[str(p) for p in files[i : i + size]] for i in range(0, len(files), size)]
    request = {"workspace": str(workspace) if workspace is not None else None}
    procs = []
    for chunk in chunks:
        proc = subprocess.Popen(
            [sys.executable, "-c", "import sys, pytest_whetstone.store.merge as m; sys.exit(m._child_main())"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({**request, "paths": chunk}).encode())
        proc.stdin.close()
        procs.append(proc)
    parts: list[_Merger] = []
    for proc, chunk in zip(procs, chunks, strict=True):
        assert proc.stdout is not None
        data = proc.stdout.read()
        if proc.wait() != 0 or not data:
            # A child that failed (out of memory, killed): do its chunk here instead.
            parts.append(_merge_chunk(chunk, request["workspace"]))
            continue
        parts.append(pickle.loads(data))
    merged = parts[0]
    for part in parts[1:]:
        merged.absorb(part)
    for part in parts:
        for message in getattr(part, "warnings", []):
            warnings.warn(message, SessionWarning, stacklevel=3)
    return merged


def _child_main() -> int:
    request = json.loads(sys.stdin.buffer.read())
    merger = _merge_chunk(list(request["paths"]), request.get("workspace"))
    sys.stdout.buffer.write(pickle.dumps(merger, protocol=pickle.HIGHEST_PROTOCOL))
    return 0


def _merged_status(statuses: list[str]) -> str:
    if statuses and all(s == "converged" for s in statuses):
        return "converged"
    ranked = sorted((s for s in statuses if s != "converged"), key=lambda s: _STATUS_RANK.get(s, 2))
    return ranked[0] if ranked else "pending"

