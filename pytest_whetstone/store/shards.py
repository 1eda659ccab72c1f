"""Session shards on disk: finding them (files and folders, stores), their audit trails,
and reading their lines (orjson when installed), corrupt lines skipped with a warning."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ..records import AuditEntry
from .sanitize import sanitize
from .sessions import SessionWarning

_NOT_SESSION_DIRS = {"audits", "spool", "processing"}


class MergeError(ValueError):
    """A usage problem (no such file, nothing to merge); the message is one line."""


# --------------------------------------------------------------------------- files


def collect_session_files(paths: Iterable[Path]) -> list[Path]:
    """Session files named by paths: files as given, folders searched recursively.

    A folder that is a store (holds ``sessions/``) contributes its session files;
    JSONL files under ``audits/`` and ``spool/`` are never taken for sessions.
    Order: as given, files inside a folder sorted by path, duplicates dropped.
    """
    found: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            candidates = [path]
        elif path.is_dir():
            candidates = sorted(_walk_jsonl(path))
        else:
            raise MergeError(f"no such session file or folder: {path}")
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    return found


def _walk_jsonl(root: Path) -> Iterator[Path]:
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _NOT_SESSION_DIRS)
        for name in filenames:
            if name.endswith(".jsonl"):
                yield Path(directory) / name


def audit_path_for(session_file: Path) -> Path | None:
    """``<store>/audits/<id>.jsonl`` beside ``<store>/sessions/<id>.jsonl``, if present."""
    if session_file.parent.name != "sessions":
        return None
    audit = session_file.parent.parent / "audits" / session_file.name
    return audit if audit.is_file() else None


def read_audit(path: Path | None) -> list[AuditEntry]:
    """AuditEntry lines (bare, or wrapped as ``{"entry": {...}}``); bad lines skipped."""
    if path is None or not path.is_file():
        return []
    entries: list[AuditEntry] = []
    with warnings.catch_warnings():
        warnings.simplefilter("always", SessionWarning)
        for raw in read_events(path):
            data = raw.get("entry", raw.get("data", raw))
            if not isinstance(data, dict):
                continue
            try:
                entries.append(sanitize(AuditEntry.from_dict(data)))
            except (TypeError, ValueError, KeyError, AttributeError):
                warnings.warn(f"{path}: skipped a malformed audit entry", SessionWarning, stacklevel=2)
    return entries


# --------------------------------------------------------------------------- reading


def _json_loader() -> Callable[[bytes], Any]:
    """orjson when installed (about 2.5x faster on session lines), else the stdlib."""
    try:
        import orjson
    except ImportError:
        return json.loads

    def loads(raw: bytes) -> Any:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            return json.loads(raw)  # what orjson refuses (NaN, huge ints) the stdlib may take

    return loads


def read_events(path: Path) -> Iterator[dict[str, Any]]:
    """Like ``session.read_jsonl``: each object of a JSONL file, corrupt lines skipped with a warning."""
    loads = _json_loader()
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                value = loads(raw)
            except (ValueError, RecursionError):
                if raw.strip():
                    warnings.warn(f"{path}:{number}: skipped a corrupt session line", SessionWarning,
                                  stacklevel=2)
                continue
            if isinstance(value, dict):
                yield value
            else:
                warnings.warn(f"{path}:{number}: skipped a session line that is not an object",
                              SessionWarning, stacklevel=2)
