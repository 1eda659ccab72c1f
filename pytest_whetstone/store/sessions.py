"""Sessions are append-only JSONL event logs; all state is a pure fold over them (:mod:`.fold`).

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
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..schema import SCHEMA_VERSION, dumps
from . import events
from .location import ENV_DIR, ENV_SESSION, STORE_DIRNAME, check_session_id, resolve_store, workspace_of

if TYPE_CHECKING:
    from .fold import SessionState

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


class Session:
    """A handle for appending events to one session file.  A plain class, not a dataclass: it is
    opened before a run's command starts, when only what that needs is loaded."""

    __slots__ = ("store", "session_id")

    def __init__(self, store: Path, session_id: str) -> None:
        self.store = store
        self.session_id = session_id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Session) and (self.store, self.session_id) == (other.store, other.session_id)

    def __hash__(self) -> int:
        return hash((self.store, self.session_id))

    def __repr__(self) -> str:
        return f"Session(store={self.store!r}, session_id={self.session_id!r})"

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
        from .fold import fold  # the record types load only for a reader of the state

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


def warn_line(message: str) -> None:
    """The one-line warning Whetstone prints when its own analysis fails."""
    try:
        sys.stderr.write(f"whetstone: warning: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
