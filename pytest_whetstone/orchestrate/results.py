"""What one loop step and a whole loop run return (to the CLI, the MCP tools and the API)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..records import AuditEntry, EscalationReport, FixCandidate, GapModel, OrchestratorDecision, Verdict


@dataclass
class StepResult:
    session_id: str
    step_index: int
    action_taken: str
    rationale: str
    session_status: str
    gap: GapModel
    gap_before: GapModel
    decision: OrchestratorDecision
    candidate_applied: str | None = None
    would_apply: str | None = None
    reverted: str | None = None
    candidates: list[FixCandidate] = field(default_factory=list)
    escalation: EscalationReport | None = None
    phases: list[dict[str, Any]] = field(default_factory=list)
    duration_ms: int = 0
    description: str = ""
    gap_before_measured: bool = True  # False on the step that measures the gap the first time
    memory: dict[str, Any] | None = None  # what repository memory carried over this step (Recall.to_dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "step_index": self.step_index,
            "action_taken": self.action_taken,
            "rationale": self.rationale,
            "session_status": self.session_status,
            "gap": self.gap.to_dict(),
            "gap_before": self.gap_before.to_dict(),
            "gap_before_measured": self.gap_before_measured,
            "decision": self.decision.to_dict(),
            "candidate_applied": self.candidate_applied,
            "would_apply": self.would_apply,
            "reverted": self.reverted,
            "candidates": [c.to_dict() for c in self.candidates],
            "escalation": self.escalation.to_dict() if self.escalation else None,
            "phases": self.phases,
            "duration_ms": self.duration_ms,
            "description": self.description,
            "memory": self.memory,
        }


@dataclass
class LoopResult:
    session_id: str
    final_status: str
    steps_taken: int
    final_gap: GapModel
    audit_log: list[AuditEntry]
    escalation: EscalationReport | None
    verdict: Verdict
    steps: list[StepResult] = field(default_factory=list)

    def to_dict(self, include_audit: bool = True) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "final_status": self.final_status,
            "steps_taken": self.steps_taken,
            "final_gap": self.final_gap.to_dict(),
            "audit_log": [a.to_dict() for a in self.audit_log] if include_audit else None,
            "escalation": self.escalation.to_dict() if self.escalation else None,
            "verdict": self.verdict.to_dict(),
        }


# What the orchestrator tells its caller as it goes: (event kind, data).
Reporter = Callable[[str, dict[str, Any]], None]
