"""Pure judgements of the loop: did a check make progress over the baseline, how far a failing
phase got, and the loop's verdict block."""

from __future__ import annotations

from ..paths import display_path
from ..records import BuildErrorRecord, TestFailureRecord, Verdict
from ..store.sessions import Session
from ..verdict import Evidence, Judgement, RunFacts, judge, make_verdict
from .phases import PhaseOutcome
from .state import Attempt, Check, LoopState


def assess_progress(baseline: Check | None, check: Check, attempt: Attempt) -> tuple[str, bool | None]:
    """(progress | same | worse, did the target failure persist -- None when the check never reached it)."""
    if check.passed:
        return "progress", False
    if baseline is None:
        return "same", None
    if check.phase_index < baseline.phase_index or (
        check.phase_index == baseline.phase_index and check.stage < baseline.stage
    ):
        return "worse", None  # an earlier phase or stage broke: the target was not even reached
    if check.score > baseline.score:
        if check.phase_index > baseline.phase_index or check.stage > baseline.stage:
            return "progress", False
        return "progress", (attempt.target_fingerprint in check.fingerprints) if attempt.target_fingerprint else None
    persisted = attempt.target_fingerprint in check.fingerprints if attempt.target_fingerprint else None
    if check.score < baseline.score:
        return "worse", persisted
    # Same count: the edit counts only if its target went away and nothing new appeared in its place.
    if persisted is False and not any(f.location == attempt.target_location for f in check.failures):
        return "progress", False
    return "same", persisted


def final_verdict(state: LoopState, session: Session, *, interrupted: bool = False) -> Verdict:
    """The verdict block of a loop: the judge's word on its last check, or on the environment probe."""
    report = display_path(session.path)
    check = state.view or (state.checks[-1] if state.checks else None)
    if interrupted:  # Ctrl-C or SIGTERM: the unchecked edit was reverted; a re-run resumes
        stopped = judge(Evidence(facts=RunFacts(exit_code=130, interrupted="SIGINT"),
                                 phase=check.phase if check else ""))
        return make_verdict("whetstone fix", stopped, report=report, counts={"attempts": state.fix_attempts})
    if state.status == "escalated" and state.session.escalation is not None and (
        state.session.escalation.escalation_reason == "infra_gap"
    ):
        return make_verdict("whetstone fix", judge(Evidence(requirements_gap=state.requirements_gap)),
                            report=report, counts={"missing": len(state.requirements_gap)})
    counts = {"attempts": state.fix_attempts, "kept": len([a for a in state.attempts if a.status == "kept"])}
    if check is None:
        ran = judge(Evidence(facts=RunFacts(exit_code=0 if state.status == "converged" else 1)))
        return make_verdict("whetstone fix", ran, report=report, counts=counts)
    if check.passed and state.status != "escalated":
        return make_verdict("whetstone fix", None, phase=check.phase, report=report, counts=counts)
    counts["failing"] = check.count if not check.timed_out else 0
    if check.failure is None:  # the check failed and nothing it printed says why
        judgement = Judgement("fail", None, check.phase, check.first_error, "escalate")
        return make_verdict("whetstone fix", judgement, counts=counts, report=report)
    return make_verdict("whetstone fix", check.failure, phase=check.phase, first_error=check.first_error,
                        counts=counts, report=report)


def _stage(errors: list[BuildErrorRecord], tests: list[TestFailureRecord], outcome: PhaseOutcome) -> int:
    """How far a failing phase got: a fatal error (compilation aborted) < compile errors < link errors only;
    collection / setup errors < failing tests.  An edit that moves the failure to an earlier stage is worse
    even when it prints fewer errors (a fatal error hides the rest)."""
    if tests:
        return 0 if outcome.verdict.failure == "setup-error" else 1
    if any("fatal error" in (e.raw or e.message) or "compilation terminated" in e.raw for e in errors):
        return 0
    if errors and all(e.tool == "linker" for e in errors):
        return 2
    return 1


def _metric(kind: str) -> str:
    return "test_failure_count" if kind == "test" else "error_count"
