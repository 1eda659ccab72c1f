"""What every agent tool shares: argument checks, the workspace's store, sessions, manual fallbacks.

Bad input raises :class:`ToolError` with one line the caller can act on; nothing here
runs a command or edits a file.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config import Config, ConfigError, load_config
from ..records import BuildErrorRecord, FixCandidate, TestFailureRecord, rank_candidates
from ..store import events
from ..store.location import ENV_DIR, STORE_DIRNAME, check_session_id, resolve_store
from ..store.sessions import Session, open_session

BUILD_TOOL_CHOICES = ("auto", "gcc", "clang", "cmake", "linker", "make")
TEST_RUNNER_CHOICES = ("auto", "gtest", "pytest", "jest", "tap", "junit", "ctest")
REPORT_FORMATS = ("text", "json", "sarif", "github", "html")
DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 24 * 3600.0
MAX_OUTPUT_CHARS = 64 * 1024 * 1024  # a pasted log larger than this is a mistake, not a log
# Confidence of the manual fallback we add when a generator left an error without one.

# session id -> store, for tools that take only a session id (step / run loop).
_KNOWN_STORES: dict[str, Path] = {}


class ToolError(ValueError):
    """Bad input or an impossible request: the message is shown to the caller as is."""


# --------------------------------------------------------------------------- validation


def check_text(name: str, value: object, *, allow_empty: bool = True) -> str:
    if not isinstance(value, str):
        raise ToolError(f"{name} must be a string, got {type(value).__name__}")
    if len(value) > MAX_OUTPUT_CHARS:
        raise ToolError(f"{name} is too large ({len(value)} characters; limit {MAX_OUTPUT_CHARS})")
    if not allow_empty and not value.strip():
        raise ToolError(f"{name} must not be empty")
    return value


def check_choice(name: str, value: str | None, choices: Sequence[str]) -> str:
    value = value or "auto"
    if value not in choices:
        raise ToolError(f"unknown {name} {value!r}; expected one of: {', '.join(choices)}")
    return value


def check_command(name: str, value: object) -> str:
    cmd = check_text(name, value, allow_empty=False)
    if "\x00" in cmd:
        raise ToolError(f"{name} must not contain NUL bytes")
    return cmd


def check_timeout(value: float | None) -> float:
    if value is None:
        return DEFAULT_TIMEOUT_S
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ToolError("timeout_s must be a number of seconds")
    if not 0 < value <= MAX_TIMEOUT_S:
        raise ToolError(f"timeout_s must be > 0 and <= {int(MAX_TIMEOUT_S)} seconds, got {value}")
    return float(value)


def check_position(name: str, value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ToolError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def workspace_path(workspace: object) -> Path:
    """The caller's workspace: it must name an existing directory."""
    if not isinstance(workspace, str) or not workspace.strip():
        raise ToolError("workspace is required: the directory to run in")
    path = Path(workspace).expanduser()
    if not path.exists():
        raise ToolError(f"workspace does not exist: {workspace}")
    if not path.is_dir():
        raise ToolError(f"workspace is not a directory: {workspace}")
    return path.resolve()


def session_id_of(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolError("session_id is required")
    try:
        return check_session_id(value.strip())
    except ValueError as exc:
        raise ToolError(str(exc)) from None


# --------------------------------------------------------------------------- stores and sessions


def store_for(workspace: Path, *, create: bool = True) -> Path:
    """The named workspace's store (``$WHETSTONE_DIR`` and the config's ``store`` first)."""
    return resolve_store(workspace=workspace, create=create)


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def session_lock(store: Path, session_id: str) -> threading.Lock:
    """One run / step / apply at a time per session, even when a client sends calls concurrently."""
    key = str(store / "sessions" / session_id)
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


def remember(session: Session) -> None:
    _KNOWN_STORES[session.session_id] = session.store


def _lookup_store(sid: str) -> Path | None:
    """Where a session given only by id lives: one we saw, $WHETSTONE_DIR, or the cwd's store."""
    known = _KNOWN_STORES.get(sid)
    if known is not None:
        return known
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env).expanduser().resolve()
    here = Path.cwd().resolve()
    for directory in (here, *here.parents):
        store = directory / STORE_DIRNAME
        if (store / "sessions" / f"{sid}.jsonl").is_file():
            return store
    return None


def find_tool_session(session_id: object, workspace: str | None = None, *, create: bool = False) -> Session:
    """The session named by id (in the workspace's store when given); created only when asked."""
    sid = session_id_of(session_id)
    if workspace:
        store: Path | None = store_for(workspace_path(workspace), create=create)
    else:
        store = _lookup_store(sid)
    if store is None:
        raise ToolError(f"unknown session {sid!r}: pass the workspace it belongs to")
    path = store / "sessions" / f"{sid}.jsonl"
    if not path.is_file():
        if not create:
            raise ToolError(f"unknown session {sid!r} in {store}")
        try:
            session = open_session(store, sid, meta={"origin": "mcp"})
        except (OSError, ValueError) as exc:
            raise ToolError(f"cannot create session {sid!r}: {exc}") from exc
    else:
        session = Session(store, sid)
    remember(session)
    return session


def workspace_config(workspace: Path | None) -> Config:
    if workspace is None:
        return Config()
    try:
        return load_config(start=workspace)
    except ConfigError as exc:
        raise ToolError(f"bad configuration: {exc}") from exc


# --------------------------------------------------------------------------- candidates


def _where(record: BuildErrorRecord | TestFailureRecord) -> str:
    if isinstance(record, TestFailureRecord):
        name = record.node_id or ".".join(p for p in (record.test_suite, record.test_name) if p)
        return name or record.file_path or "the failing test"
    if record.file_path:
        return f"{record.file_path}:{record.line}" if record.line else record.file_path
    return record.tool


def manual_candidate(target_id: str, description: str) -> FixCandidate:
    return FixCandidate.manual(target_id, description)


def with_manual_fallbacks(
    candidates: list[FixCandidate],
    targets: Sequence[BuildErrorRecord | TestFailureRecord],
) -> tuple[list[FixCandidate], list[FixCandidate]]:
    """Every target keeps at least one manual candidate, so a loop is never stuck.

    Returns (all candidates ranked, the manual ones added here).
    """
    manual_for = {c.target_id for c in candidates if c.mutation_type == "manual"}
    added: list[FixCandidate] = []
    for target in targets:
        tid = target.error_id if isinstance(target, BuildErrorRecord) else target.failure_id
        if tid in manual_for:
            continue
        manual_for.add(tid)
        message = target.message.strip().splitlines()[0] if target.message.strip() else ""
        kind = target.error_type if isinstance(target, BuildErrorRecord) else target.failure_type
        text = f"Fix by hand at {_where(target)} ({kind})" + (f": {message[:200]}" if message else "")
        added.append(manual_candidate(tid, text))
    return rank_candidates(list(candidates) + added), added


def as_dicts(records: Sequence[Any]) -> list[dict[str, Any]]:
    return [r.to_dict() for r in records]


def record_candidates(session: Session | None, candidates: list[FixCandidate]) -> None:
    if session is not None and candidates:
        session.append(events.CANDIDATES, {"records": as_dicts(candidates)})
