"""The one analysis model every report format renders (coverage.py's shape).

Built from a ``SessionState`` (one session folded, or several merged) plus
the loop's audit trail; each format module only lays it out.  Paths are
workspace-relative where the file lies inside the workspace.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..paths import relative_to_roots
from ..records import (
    AttemptRecord,
    AuditEntry,
    BuildErrorRecord,
    EscalationReport,
    FixCandidate,
    GapModel,
    TestFailureRecord,
    Verdict,
)
from ..store.fold import SessionState
from ..verdict import Evidence, Judgement, RunFacts, judge, make_verdict, phase_ledger, worst_facts

# Confidence from which a candidate is offered as a fix (SARIF `fixes`) without validation.
HIGH_CONFIDENCE = 0.7


@dataclass
class ReportModel:
    session_id: str
    status: str  # pass | fail | warn
    failure: str | None
    verdict: Verdict
    build_errors: list[BuildErrorRecord]
    test_failures: list[TestFailureRecord]
    candidates: list[FixCandidate]  # live ones, ranked (validated first, then confidence)
    counts: dict[str, int]
    workspace: Path | None = None
    session_status: str = "pending"
    attempts: list[AttemptRecord] = field(default_factory=list)
    gaps: list[GapModel] = field(default_factory=list)
    audit: list[AuditEntry] = field(default_factory=list)
    escalation: EscalationReport | None = None
    sources: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    phases: list[dict[str, Any]] = field(default_factory=list)  # the per-phase ledger

    @property
    def failing_errors(self) -> list[BuildErrorRecord]:
        return [e for e in self.build_errors if e.is_failure]

    @property
    def real_failures(self) -> list[TestFailureRecord]:
        return [f for f in self.test_failures if not f.flaky]

    @property
    def loop_ran(self) -> bool:
        return bool(self.audit) or len(self.gaps) > 1

    def candidates_for(self, target_id: str) -> list[FixCandidate]:
        return [c for c in self.candidates if c.target_id == target_id]

    def fix_candidates_for(self, target_id: str) -> list[FixCandidate]:
        """Candidates good enough to offer as a fix: validated, or confident, with edits."""
        return [
            c
            for c in self.candidates_for(target_id)
            if c.edits and (c.validated or c.confidence >= HIGH_CONFIDENCE)
        ]

    def gap_trend(self) -> list[int]:
        """The gap after each step: from the audit trail when a loop ran, else the attempts."""
        trend: list[int] = []
        if self.audit:
            first = self.audit[0].gap_before
            if first is not None:
                trend.append(first.current)
            trend += [a.gap_after.current for a in self.audit if a.gap_after is not None]
        else:
            trend = [g.current for g in self.gaps]
        return trend


def build_model(
    state: SessionState,
    *,
    workspace: Path | None = None,
    audit: list[AuditEntry] | None = None,
    report_path: str | None = None,
) -> ReportModel:
    roots = [str(workspace.resolve()), str(workspace.absolute())] if workspace is not None else []
    errors = [_rel_error(e, roots) for e in state.build_errors]
    failures = [_rel_failure(f, roots) for f in state.test_failures]
    candidates = [_rel_candidate(c, roots) for c in state.current_candidates()]
    judgement = judge_state(state, errors, failures)
    failure = judgement.failure
    counts = _counts(state, errors, failures, candidates)
    verdict = make_verdict(_target(state), judgement, counts=counts, report=report_path)
    return ReportModel(
        session_id=state.session_id,
        status=verdict.status,
        failure=failure,
        verdict=verdict,
        build_errors=errors,
        test_failures=failures,
        candidates=candidates,
        counts=counts,
        workspace=workspace,
        session_status=state.status,
        attempts=list(state.attempts),
        gaps=list(state.gaps),
        audit=list(audit or []),
        escalation=state.escalation,
        sources=[str(s) for s in state.meta.get("sources", []) if isinstance(s, str)],
        meta=state.meta,
        phases=phase_ledger(state.verdicts),
    )


# --------------------------------------------------------------------------- verdict parts


def judge_state(
    state: SessionState, errors: list[BuildErrorRecord], failures: list[TestFailureRecord]
) -> Judgement:
    """The session *now*, judged by the one judge: its current records and the facts of its last run(s)."""
    if state.status == "converged" and not any(e.is_failure for e in errors) and not failures:
        return judge(Evidence())
    verdicts = _final_verdicts(state)
    facts = worst_facts(verdicts) if verdicts else RunFacts(exit_code=None)
    if killed_runs(state):
        facts = RunFacts(exit_code=None, interrupted="killed")
    return judge(Evidence(
        build_errors=errors, test_failures=failures, facts=facts,
        requirements_gap=state.requirements_gap, ledger=phase_ledger(state.verdicts),
    ))


def killed_runs(state: SessionState) -> list[dict[str, Any]]:
    """Runs that started and never wrote their verdict, and whose process is gone (SIGKILL, a crash)."""
    return [r for r in state.unfinished_runs if not _alive(r.get("pid"))]


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _final_verdicts(state: SessionState) -> list[dict[str, Any]]:
    # A merged state holds each shard's last verdict; a single session, every verdict in order.
    return state.verdicts if "merged_from" in state.meta else state.verdicts[-1:]


def _target(state: SessionState) -> str:
    for verdict in reversed(state.verdicts):
        target = verdict.get("target")
        if isinstance(target, str) and target:
            return target
    target = state.meta.get("target")
    return target if isinstance(target, str) and target else "report"


def _counts(
    state: SessionState,
    errors: list[BuildErrorRecord],
    failures: list[TestFailureRecord],
    candidates: list[FixCandidate],
) -> dict[str, int]:
    counts = {k: v for k, v in state.counts.items() if isinstance(v, int)}
    counts.update(
        errors=sum(1 for e in errors if e.is_failure),
        warnings=sum(1 for e in errors if not e.is_failure and e.severity == "warning" and not e.is_lint),
        lint=sum(1 for e in errors if e.is_lint),
        test_failures=sum(1 for f in failures if not f.flaky),
        flaky=sum(1 for f in failures if f.flaky),
        candidates=len(candidates),
        validated=sum(1 for c in candidates if c.validated),
    )
    return counts


# --------------------------------------------------------------------------- paths


def _copy(record: Any) -> Any:
    return type(record).from_dict(record.to_dict())


def _rel_error(record: BuildErrorRecord, roots: list[str]) -> BuildErrorRecord:
    if not roots or not _any_abs(record.file_path, record.translation_unit, *(f.file_path for f in record.fixits)):
        return record
    out: BuildErrorRecord = _copy(record)
    out.file_path = relative_to_roots(out.file_path, roots)
    out.translation_unit = relative_to_roots(out.translation_unit, roots)
    for edit in out.fixits:
        edit.file_path = relative_to_roots(edit.file_path, roots)
    return out


def _rel_failure(record: TestFailureRecord, roots: list[str]) -> TestFailureRecord:
    paths = (record.file_path, record.impl_file, *(s.file_path for s in record.suspects))
    if not roots or not _any_abs(*paths):
        return record
    out: TestFailureRecord = _copy(record)
    out.file_path = relative_to_roots(out.file_path, roots)
    out.impl_file = relative_to_roots(out.impl_file, roots)
    for suspect in out.suspects:
        suspect.file_path = relative_to_roots(suspect.file_path, roots)
    return out


def _rel_candidate(record: FixCandidate, roots: list[str]) -> FixCandidate:
    if not roots or not _any_abs(*(e.file_path for e in record.edits)):
        return record
    out: FixCandidate = _copy(record)
    for edit in out.edits:
        edit.file_path = relative_to_roots(edit.file_path, roots)
    return out


def _any_abs(*paths: str) -> bool:
    return any(p and os.path.isabs(p) for p in paths)
