"""OrchestratorPolicy (seed 002, step 1389): (session state, gap, last outcome) -> the next action.

The table, in the order it is applied:

==  ========================================================  =====================
 1  the hard step cap is reached                              escalate (max_attempts)
 2  the environment has not been probed                       probe_environment
 3  a requirements gap (missing package, header, executable)  escalate (infra_gap) + setup script
 4  an applied edit has not been re-checked                    iteration (check it first)
 5  the last check passed every phase                         converge
 6  fix attempts >= max_attempts                              escalate (max_attempts)
 7  the last 2+ attempts each made the gap worse              escalate (worsening_trend)
 8  one failure survived two different edits to one file      escalate (repeated_failure)
 9  the last 3 attempts made no progress                      escalate (no_progress)
10  nothing measures the workspace as it is now               iteration (first phase's kind)
11  a build phase fails                                       build_iteration
12  a test phase fails                                        test_iteration
==  ========================================================  =====================

Rule 4 comes before 5-9 on purpose: an unchecked edit is neither a success nor
a failure (seed 004), so the loop measures it before judging anything.  The
decision is a pure function of :class:`PolicyInput`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..records import GapModel, OrchestratorDecision
from .ledger import repeated_failure
from .state import LoopState

WORSENING_RUN = 2  # consecutive attempts that made things worse
NO_PROGRESS_RUN = 3  # consecutive attempts that did not help

ACTIONS = (
    "probe_environment",
    "build_iteration",
    "test_iteration",
    "phase_iteration",
    "converge",
    "escalate",
)


@dataclass
class PolicyInput:
    status: str = "pending"
    environment_verified: bool = False
    requirements_gap: list[dict[str, Any]] = field(default_factory=list)
    pending_edit: bool = False
    needs_check: bool = True  # no check describes the workspace as it is now
    last_passed: bool = False
    failing_phase: str = ""
    failing_kind: str = ""
    first_kind: str = "build"
    gap: GapModel | None = None
    fix_attempts: int = 0
    max_attempts: int = 8
    verdicts: list[str] = field(default_factory=list)  # progress | same | worse, oldest first
    repeated_failure: str = ""
    step_index: int = 0
    max_steps: int = 100

    @classmethod
    def from_state(cls, state: LoopState) -> PolicyInput:
        config = state.config
        phases = config.phases if config else []
        view = state.view
        failing_kind = ""
        if view is not None and not view.passed and 0 <= view.phase_index < len(phases):
            failing_kind = phases[view.phase_index].kind
        breaker = repeated_failure(state)
        return cls(
            status=state.status,
            environment_verified=state.environment_verified,
            requirements_gap=state.requirements_gap,
            pending_edit=state.pending is not None or bool(state.torn),
            needs_check=view is None,
            last_passed=bool(view and view.passed),
            failing_phase=view.phase if view is not None and not view.passed else "",
            failing_kind=failing_kind,
            first_kind=phases[0].kind if phases else "build",
            gap=state.current_gap,
            fix_attempts=state.fix_attempts,
            max_attempts=config.max_attempts if config else 8,
            verdicts=state.verdicts,
            repeated_failure=breaker.describe() if breaker else "",
            step_index=state.step_count,
            max_steps=config.max_steps if config else 100,
        )


def _iteration_for(kind: str) -> str:
    return {"build": "build_iteration", "test": "test_iteration"}.get(kind, "phase_iteration")


def _trailing(verdicts: list[str], accepted: set[str]) -> int:
    run = 0
    for verdict in reversed(verdicts):
        if verdict not in accepted:
            break
        run += 1
    return run


class OrchestratorPolicy:
    """Maps a PolicyInput to an OrchestratorDecision (action_type, rationale, confidence)."""

    def __init__(self, worsening_run: int = WORSENING_RUN, no_progress_run: int = NO_PROGRESS_RUN) -> None:
        self.worsening_run = worsening_run
        self.no_progress_run = no_progress_run

    def decide(self, inp: PolicyInput) -> OrchestratorDecision:
        gap = inp.gap.current if inp.gap is not None else 0
        if inp.step_index >= inp.max_steps:
            return _escalate("max_attempts", f"hard step cap reached ({inp.step_index} of {inp.max_steps} steps)")
        if not inp.environment_verified:
            return OrchestratorDecision(
                "probe_environment", "no environment snapshot yet: probe the toolchain and requirements first", 1.0
            )
        if inp.requirements_gap:
            names = ", ".join(str(m.get("name", "?")) for m in inp.requirements_gap[:5])
            return _escalate(
                "infra_gap",
                f"requirements gap of {len(inp.requirements_gap)} ({names}): write a setup script "
                "for a human to run; the loop never installs anything itself",
            )
        if inp.pending_edit:
            return OrchestratorDecision(
                _iteration_for(inp.failing_kind or inp.first_kind),
                "an applied edit is unchecked: re-run the phases to measure it before deciding anything",
                0.9,
            )
        if inp.last_passed and not inp.needs_check:
            return OrchestratorDecision("converge", "gap is zero: every phase passed on the current workspace", 1.0)
        if inp.fix_attempts >= inp.max_attempts and (inp.fix_attempts > 0 or not inp.needs_check):
            return _escalate(
                "max_attempts", f"{inp.fix_attempts} fix attempts made (max {inp.max_attempts}); gap still {gap}"
            )
        worse = _trailing(inp.verdicts, {"worse"})
        if worse >= self.worsening_run:
            return _escalate("worsening_trend", f"the last {worse} attempts each made the gap worse (reverted)")
        if inp.repeated_failure:
            return _escalate("repeated_failure", f"loop breaker: {inp.repeated_failure}")
        stalled = _trailing(inp.verdicts, {"same", "worse"})
        if stalled >= self.no_progress_run:
            return _escalate("no_progress", f"the last {stalled} attempts made no progress on a gap of {gap}")
        if inp.needs_check:
            return OrchestratorDecision(
                _iteration_for(inp.first_kind),
                "nothing has measured the workspace as it is now: run the phases in order",
                0.9,
            )
        confidence = 0.8 if not inp.verdicts or inp.verdicts[-1] == "progress" else 0.6
        if inp.failing_kind == "test":
            return OrchestratorDecision(
                "test_iteration", f"tests failing in phase {inp.failing_phase!r} (gap {gap}): iterate on them", confidence
            )
        return OrchestratorDecision(
            _iteration_for(inp.failing_kind or "build"),
            f"phase {inp.failing_phase!r} failing (gap {gap}): iterate on it",
            confidence,
        )


def _escalate(reason: str, rationale: str) -> OrchestratorDecision:
    return OrchestratorDecision("escalate", rationale, 1.0, escalation_reason=reason)
