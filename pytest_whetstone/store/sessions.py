"""Sessions are append-only JSONL event logs; all state is a pure fold over them.

Layout of the store (the nearest ``.whetstone/`` up from the working
directory, or ``$WHETSTONE_DIR``)::

    .whetstone/sessions/<session_id>.jsonl   one event per line
    .whetstone/sessions/LATEST              id of the most recently started session
    .whetstone/audits/<session_id>.jsonl    orchestrator audit trail
    .whetstone/spool/                       raw captures from ccwrap, ingested lazily

Writers append whole lines under an exclusive ``flock`` with a single
``write`` on an ``O_APPEND`` descriptor, so concurrent ccwrap processes of a
``make -j`` build or pytest-xdist workers never tear or interleave a line.
Readers skip corrupt lines with one warning each.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import secrets
import sys
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..records import (
    SCHEMA_VERSION,
    AttemptRecord,
    BuildErrorRecord,
    EscalationReport,
    FixCandidate,
    GapModel,
    ObservationRecord,
    TestFailureRecord,
    dumps,
    rank_candidates,
)
from . import events
from .location import ENV_DIR, ENV_SESSION, STORE_DIRNAME, check_session_id, resolve_store, workspace_of

__all__ = ["ENV_DIR", "ENV_SESSION", "STORE_DIRNAME", "workspace_of"]


class SessionWarning(UserWarning):
    """A session file had a line we could not read; the rest is used."""


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def new_session_id() -> str:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{secrets.token_hex(3)}"


def find_store(start: Path | None = None, *, create: bool = True) -> Path:
    """The store for a run started in ``start`` (see :func:`.location.resolve_store`)."""
    return resolve_store(start=start, create=create)


def append_line(path: Path, line: str) -> None:
    """Append one whole line atomically with respect to other writers."""
    append_lines(path, [line])


def append_lines(path: Path, lines: list[str]) -> None:
    """Append whole lines under one lock: other writers never interleave with them."""
    data = "".join(line.rstrip("\n") + "\n" for line in lines).encode("utf-8", "surrogateescape")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            view = memoryview(data)
            while view:  # a single write normally suffices; loop for short writes
                written = os.write(fd, view)
                view = view[written:]
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def read_jsonl(path: Path, offset: int = 0) -> Iterator[dict[str, Any]]:
    """Yield each JSON object of a JSONL file (from byte ``offset``), skipping corrupt lines with a warning."""
    with open(path, "rb") as handle:
        if offset:
            handle.seek(offset)
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except ValueError:
                warnings.warn(
                    f"{path}:{number}: skipped a corrupt session line", SessionWarning, stacklevel=2
                )
                continue
            if isinstance(value, dict):
                yield value
            else:
                warnings.warn(
                    f"{path}:{number}: skipped a session line that is not an object",
                    SessionWarning,
                    stacklevel=2,
                )


@dataclass
class Session:
    """A handle for appending events to one session file."""

    store: Path
    session_id: str

    @property
    def path(self) -> Path:
        return self.store / "sessions" / f"{self.session_id}.jsonl"

    @property
    def audit_path(self) -> Path:
        return self.store / "audits" / f"{self.session_id}.jsonl"

    @property
    def workspace(self) -> Path:
        return workspace_of(self.store)

    def append(self, event: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        entry = self._entry(event, data)
        append_line(self.path, dumps(entry))
        return entry

    def append_many(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        """Several events in one locked write (a run's events, see events.RunWriter)."""
        if events:
            append_lines(self.path, [dumps(self._entry(event, data)) for event, data in events])

    def _entry(self, event: str, data: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "event": event,
            "session_id": self.session_id,
            "ts": now_iso(),
            "pid": os.getpid(),
            "data": data or {},
        }

    def events(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return list(read_jsonl(self.path))

    def last_event(self, event: str, *, block: int = 1 << 16) -> dict[str, Any] | None:
        """The newest event of a kind, read backwards from the end of the log: the cost is the distance
        to it (about one run), not the length of the log."""
        try:
            handle = open(self.path, "rb")
        except OSError:
            return None
        needle = f'"event":"{event}"'.encode()
        with handle:
            end = handle.seek(0, os.SEEK_END)
            tail = b""
            while end > 0:
                start = max(0, end - block)
                handle.seek(start)
                chunk = handle.read(end - start) + tail
                lines = chunk.split(b"\n")
                tail = lines[0] if start > 0 else b""  # may be cut: joined with the next block
                for raw in reversed(lines[1:] if start > 0 else lines):
                    if needle in raw:
                        try:
                            value = json.loads(raw)
                        except ValueError:
                            continue
                        if isinstance(value, dict) and value.get("event") == event:
                            return value
                end = start
        return None

    def size(self) -> int:
        """The log's length in bytes: a mark to read only what was appended after it."""
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def events_since(self, mark: int) -> list[dict[str, Any]]:
        """The events appended after ``mark`` (from :meth:`size`), without re-reading the log."""
        if not self.path.exists():
            return []
        return list(read_jsonl(self.path, offset=mark))

    def state(self) -> SessionState:
        return fold(self.events())


def _write_latest(store: Path, session_id: str) -> None:
    latest = store / "sessions" / "LATEST"
    tmp = latest.with_name(f".LATEST.{os.getpid()}.{secrets.token_hex(2)}")
    tmp.write_text(session_id + "\n", encoding="utf-8")
    os.replace(tmp, latest)


def open_session(
    store: Path | None = None,
    session_id: str | None = None,
    *,
    meta: dict[str, Any] | None = None,
) -> Session:
    """Join $WHETSTONE_SESSION (or session_id) or start a new session."""
    store = store or find_store()
    sid = session_id or os.environ.get(ENV_SESSION) or new_session_id()
    check_session_id(sid)
    session = Session(store, sid)
    if not session.path.exists():
        session.append(events.SESSION_STARTED, dict(meta or {}))
        _write_latest(store, sid)
    return session


def latest_session_id(store: Path) -> str | None:
    latest = store / "sessions" / "LATEST"
    try:
        sid = latest.read_text(encoding="utf-8").strip()
    except OSError:
        sid = ""
    if sid and (store / "sessions" / f"{sid}.jsonl").exists():
        return sid
    files = sorted((store / "sessions").glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    return files[-1].stem if files else None


def load_session(store: Path, session_id: str | None = None) -> Session:
    sid = session_id or latest_session_id(store)
    if not sid:
        raise FileNotFoundError(f"no session in {store}")
    check_session_id(sid)
    session = Session(store, sid)
    if not session.path.exists():
        raise FileNotFoundError(f"unknown session {sid!r} in {store}")
    return session


# --------------------------------------------------------------------------- fold


def error_key(record: BuildErrorRecord) -> tuple[str, int, int, str, str]:
    """Identity of a diagnostic regardless of who reported it (ccwrap or a run's parse)."""
    return (record.file_path, record.line, record.col, record.severity, record.message)


@dataclass
class SessionState:
    """Everything known about a session, derived only from its events."""

    session_id: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    status: str = "pending"
    attempts: list[AttemptRecord] = field(default_factory=list)
    observations: list[ObservationRecord] = field(default_factory=list)
    gaps: list[GapModel] = field(default_factory=list)
    build_errors: list[BuildErrorRecord] = field(default_factory=list)
    test_failures: list[TestFailureRecord] = field(default_factory=list)
    candidates: list[FixCandidate] = field(default_factory=list)
    applied: list[dict[str, Any]] = field(default_factory=list)  # journal entries not undone
    tried_fingerprints: list[str] = field(default_factory=list)
    escalation: EscalationReport | None = None
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    environment: dict[str, Any] | None = None
    requirements_gap: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    unchecked_files: list[str] = field(default_factory=list)
    unfinished_runs: list[dict[str, Any]] = field(default_factory=list)  # started, no verdict yet (or killed)
    event_count: int = 0

    @property
    def terminal(self) -> bool:
        return self.status in ("converged", "escalated")

    def failing_errors(self) -> list[BuildErrorRecord]:
        return [e for e in self.build_errors if e.is_failure]

    def current_candidates(self) -> list[FixCandidate]:
        targets = {e.error_id for e in self.build_errors} | {
            f.failure_id for f in self.test_failures
        }
        live = [c for c in self.candidates if not c.target_id or c.target_id in targets]
        return rank_candidates(live)


class _Folder:
    """Accumulates events; build errors are kept per origin so later compiles supersede."""

    def __init__(self) -> None:
        self.state = SessionState()
        # origin -> errors; origin is "tu:<path>" for ccwrap captures or "run:<phase>" for runs.
        self.errors_by_origin: dict[str, list[BuildErrorRecord]] = {}
        self.failures_by_origin: dict[str, list[TestFailureRecord]] = {}
        self.candidates: dict[str, FixCandidate] = {}
        self.validated: set[str] = set()

    def feed(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        data = event.get("data") or {}
        if not isinstance(data, dict):
            return
        st = self.state
        st.event_count += 1
        try:
            handler = getattr(self, f"_on_{kind}", None)
            if handler is not None:
                handler(data, event)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            warnings.warn(f"skipped a malformed {kind!r} event: {exc}", SessionWarning, stacklevel=2)

    # -- handlers ------------------------------------------------------------
    def _on_session_started(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        self.state.session_id = str(event.get("session_id", ""))
        self.state.meta.update(data)

    def _on_meta(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        self.state.meta.update(data)

    def _on_build_errors(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        """A batch of diagnostics from one origin; replaces that origin's previous batch."""
        origin = str(data.get("origin", "run"))
        records = [BuildErrorRecord.from_dict(r) for r in data.get("records", [])]
        self.errors_by_origin[origin] = records
        self._drop_superseded_tus(origin, data)

    def _drop_superseded_tus(self, origin: str, data: dict[str, Any]) -> None:
        # A run that compiled cleanly supersedes every earlier per-TU capture it rebuilt.
        for tu in data.get("clean_tus", []) or []:
            self.errors_by_origin.pop(f"tu:{tu}", None)

    def _on_test_failures(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        origin = str(data.get("origin", "tests"))
        records = [TestFailureRecord.from_dict(r) for r in data.get("records", [])]
        if data.get("replace", True):
            self.failures_by_origin[origin] = records
        else:
            self.failures_by_origin.setdefault(origin, []).extend(records)

    def _on_test_failure(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        origin = str(data.get("origin", "tests"))
        record = TestFailureRecord.from_dict(data.get("record", {}))
        bucket = self.failures_by_origin.setdefault(origin, [])
        bucket[:] = [r for r in bucket if r.failure_id != record.failure_id]
        bucket.append(record)

    def _on_candidates(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        for raw in data.get("records", []):
            cand = FixCandidate.from_dict(raw)
            if cand.candidate_id in self.validated:
                cand.validated = True
            self.candidates[cand.candidate_id] = cand

    def _on_validated(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        cid = str(data.get("candidate_id", ""))
        self.validated.add(cid)
        if cid in self.candidates:
            self.candidates[cid].validated = True

    def _on_attempt(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        attempt = AttemptRecord.from_dict(data.get("attempt", data))
        st = self.state
        st.attempts.append(attempt)
        if attempt.gap_after is not None:
            st.gaps.append(attempt.gap_after)
        if st.status == "pending":
            st.status = "running"
        if attempt.phase or attempt.action:
            # the files this attempt re-checked are no longer unchecked
            if attempt.action in ("build", "test", "run"):
                st.unchecked_files = []

    def _on_observation(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        self.state.observations.append(ObservationRecord.from_dict(data.get("observation", data)))

    def _on_applied(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        st = self.state
        st.applied.append(data)
        fp = str(data.get("fingerprint", ""))
        if fp and fp not in st.tried_fingerprints:
            st.tried_fingerprints.append(fp)
        for path in data.get("files", []):
            if path not in st.unchecked_files:
                st.unchecked_files.append(path)

    def _on_reverted(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        journal_id = data.get("journal_id")
        self.state.applied = [a for a in self.state.applied if a.get("journal_id") != journal_id]

    def _on_decision(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        self.state.decisions.append(data)

    def _on_environment(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        self.state.environment = data.get("snapshot", data)
        self.state.requirements_gap = list(data.get("missing", []))

    def _on_escalated(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        self.state.status = "escalated"
        if "report" in data:
            self.state.escalation = EscalationReport.from_dict(data["report"])

    def _on_converged(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        self.state.status = "converged"

    def _on_status(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        status = str(data.get("status", ""))
        if status:
            self.state.status = status

    def _on_verdict(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        self.state.verdicts.append(data)
        attempt = data.get("attempt_id")
        runs = self.state.unfinished_runs
        if attempt:
            self.state.unfinished_runs = [r for r in runs if r.get("attempt_id") != attempt]
        elif runs:  # a run that ended before it could be judged still wrote a verdict: not killed
            self.state.unfinished_runs = [r for r in runs if r.get("host_pid") != event.get("pid")]

    def _on_run_started(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        self.state.unfinished_runs.append({**data, "host_pid": event.get("pid")})

    def _on_counts(self, data: dict[str, Any], event: dict[str, Any]) -> None:
        for key, value in data.items():
            if isinstance(value, int):
                self.state.counts[key] = value

    def finish(self) -> SessionState:
        st = self.state
        seen: set[tuple[str, int, int, str, str]] = set()
        errors: list[BuildErrorRecord] = []
        for origin in sorted(self.errors_by_origin):
            for record in self.errors_by_origin[origin]:
                key = error_key(record)
                if key in seen:
                    continue  # the same diagnostic seen by ccwrap and by a run's parse
                seen.add(key)
                errors.append(record)
        st.build_errors = sorted(errors, key=error_order)
        failures: dict[str, TestFailureRecord] = {}
        for origin in sorted(self.failures_by_origin):
            for failure in self.failures_by_origin[origin]:
                failures.setdefault(failure.failure_id or failure.node_id, failure)
        st.test_failures = list(failures.values())
        st.candidates = rank_candidates(list(self.candidates.values()))
        return st


def error_order(record: BuildErrorRecord) -> tuple[int, str, int, int]:
    """Errors first, then warnings, notes and lint; by file and position within each."""
    rank = {"error": 0, "warning": 1, "note": 2}.get(record.severity, 3)
    return (rank if not record.is_lint else 4, record.file_path, record.line, record.col)


def fold(events: Iterable[dict[str, Any]]) -> SessionState:
    """The IterationSession state: a pure function of the event sequence."""
    folder = _Folder()
    for event in events:
        folder.feed(event)
    return folder.finish()


def warn_line(message: str) -> None:
    """The one-line warning Whetstone prints when its own analysis fails."""
    try:
        sys.stderr.write(f"whetstone: warning: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
