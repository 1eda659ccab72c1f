"""The full agent report: ``.whetstone/reports/<target>.json``, one file per target.

Written after every run (``whetstone run``, ``pytest -p whetstone``, a loop), so
concurrent CI legs with different targets never clobber each other.  The
verdict's ``report`` field points at it.  A directory that cannot be written
costs one warning line; the verdict still prints.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..records import SCHEMA_VERSION, BuildErrorRecord, FixCandidate, TestFailureRecord, Verdict, dumps

TOP_CANDIDATES = 5
TOP_RECORDS = 20
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def report_name(target: str) -> str:
    """A file name for a target: safe characters only; a changed name keeps a hash of the original."""
    safe = _UNSAFE.sub("_", target).strip("._")[:80] or "run"
    if safe != target:
        safe += "-" + hashlib.sha1(target.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return safe + ".json"


def report_path(store: Path, target: str) -> Path:
    return store / "reports" / report_name(target)


def agent_report(
    verdict: Verdict,
    *,
    session_id: str,
    session_path: str,
    phases: Sequence[Mapping[str, Any]],
    duration_ms: int,
    build_errors: Sequence[BuildErrorRecord] = (),
    test_failures: Sequence[TestFailureRecord] = (),
    candidates: Sequence[FixCandidate] = (),
) -> dict[str, Any]:
    failing = [e for e in build_errors if e.is_failure]
    live = [t for t in test_failures if not t.flaky]
    return {
        "schema_version": SCHEMA_VERSION,
        "target": verdict.target,
        "status": verdict.status,
        "failure": verdict.failure,
        "phase": verdict.phase,
        "first_error": verdict.first_error,
        "retry": verdict.retry,
        "counts": dict(verdict.counts),
        "duration_ms": duration_ms,
        "phases": [dict(p) for p in phases],
        "session_id": session_id,
        "session": session_path,
        "build_errors": [_error(e) for e in failing[:TOP_RECORDS]],
        "test_failures": [_failure(t) for t in live[:TOP_RECORDS]],
        "candidates": [_candidate(c) for c in candidates[:TOP_CANDIDATES]],
    }


def write_agent_report(store: Path, verdict: Verdict, **fields: Any) -> Path | None:
    """Write the report atomically; None (after one warning line) when the directory cannot be written."""
    from ..store.sessions import warn_line

    path = report_path(store, verdict.target)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(dumps(agent_report(verdict, **fields)) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        warn_line(f"could not write the agent report {path}: {exc.strerror or exc}")
        return None
    return path


def _error(e: BuildErrorRecord) -> dict[str, Any]:
    return {
        "error_id": e.error_id, "tool": e.tool, "file_path": e.file_path, "line": e.line, "col": e.col,
        "error_type": e.error_type, "message": e.message[:500],
    }


def _failure(t: TestFailureRecord) -> dict[str, Any]:
    top = t.suspects[0] if t.suspects else None
    return {
        "failure_id": t.failure_id, "runner": t.runner, "test": t.node_id or f"{t.test_suite}::{t.test_name}",
        "failure_type": t.failure_type, "file_path": t.file_path, "line": t.line,
        "expected_value": t.expected_value, "actual_value": t.actual_value, "message": t.message[:500],
        "suspect": f"{top.file_path}:{top.line_start} {top.qualname}" if top else None,
    }


def _candidate(c: FixCandidate) -> dict[str, Any]:
    return {
        "candidate_id": c.candidate_id, "target_id": c.target_id, "description": c.description[:300],
        "confidence": c.confidence, "validated": c.validated, "applicability": c.applicability,
        "mutation_type": c.mutation_type,
        "edits": len(c.edits),
    }


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def agent_lines(
    build_errors: Sequence[BuildErrorRecord],
    test_failures: Sequence[TestFailureRecord],
    candidates: Sequence[FixCandidate],
) -> list[str]:
    """One line per failure record (class, place, expected/actual, first suspect), then the top candidates."""
    lines = []
    for e in build_errors:
        if not e.is_failure:
            continue
        where = f"{e.file_path}:{e.line}:{e.col}" if e.file_path else e.tool
        lines.append(_one_line(f"error {e.error_type} {where} {e.message}", 400))
    for t in test_failures:
        label = "flaky" if t.flaky else "fail"
        name = t.node_id or f"{t.test_suite}::{t.test_name}"
        text = f"{label} {t.failure_type} {name}"
        if t.file_path:
            text += f" at {t.file_path}:{t.line}"
        if t.expected_value or t.actual_value:
            text += f" expected {_one_line(t.expected_value, 80)} got {_one_line(t.actual_value, 80)}"
        elif t.message:
            text += f" {_one_line(t.message.splitlines()[0] if t.message else '', 160)}"
        if t.suspects:
            s = t.suspects[0]
            text += f" -> {s.file_path}:{s.line_start} {s.qualname}"
        lines.append(_one_line(text, 400))
    for c in [c for c in candidates if c.edits][:3]:
        mark = "validated" if c.validated else f"{c.confidence:.2f}"
        lines.append(_one_line(f"fix {c.candidate_id} ({mark}): {c.description}", 300))
    return lines
