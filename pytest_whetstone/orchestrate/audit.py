"""The loop's audit trail (seed 002, step 1394): ``.whetstone/audits/<session_id>.jsonl``.

One AuditEntry per orchestrator step, appended as one whole line (the same
locked append as session events) before ``step`` returns, so the trail is
inspectable while the loop runs and survives a kill right after the step.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from ..records import AuditEntry, dumps
from ..store.sessions import SessionWarning, append_line, read_jsonl


def audit_path(store: Path, session_id: str) -> Path:
    return store / "audits" / f"{session_id}.jsonl"


def append_entry(store: Path, session_id: str, entry: AuditEntry) -> Path:
    path = audit_path(store, session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    append_line(path, dumps(entry.to_dict()))
    return path


def read_audit(store: Path, session_id: str) -> list[AuditEntry]:
    path = audit_path(store, session_id)
    if not path.exists():
        return []
    entries: list[AuditEntry] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SessionWarning)
        for data in read_jsonl(path):
            try:
                entries.append(AuditEntry.from_dict(data))
            except (TypeError, ValueError):
                continue
    return entries
