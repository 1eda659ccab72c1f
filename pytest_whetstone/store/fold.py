"""A session's state: a pure fold over its events (see :mod:`.sessions` for the log itself)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..records import (
    AttemptRecord,
    BuildErrorRecord,
    EscalationReport,
    FixCandidate,
    GapModel,
    ObservationRecord,
    TestFailureRecord,
    rank_candidates,
)
from .sessions import SessionWarning


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
