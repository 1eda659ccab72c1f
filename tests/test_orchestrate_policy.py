"""OrchestratorPolicy (seed 002, step 1389): the decision table, one rule per test."""

from __future__ import annotations

import pytest

from pytest_whetstone.orchestrate.policy import ACTIONS, OrchestratorPolicy, PolicyInput
from pytest_whetstone.records import GapModel, OrchestratorDecision


def _inp(**kw: object) -> PolicyInput:
    base = dict(environment_verified=True, needs_check=False, failing_phase="build", failing_kind="build",
                gap=GapModel("error_count", 2, 0), fix_attempts=1, max_attempts=8, verdicts=["progress"])
    base.update(kw)
    return PolicyInput(**base)  # type: ignore[arg-type]


policy = OrchestratorPolicy()


def test_probe_environment_first_when_no_snapshot() -> None:
    d = policy.decide(PolicyInput())
    assert d.action_type == "probe_environment"
    # even with a failing build known, an unprobed environment comes first
    assert policy.decide(_inp(environment_verified=False)).action_type == "probe_environment"


def test_requirements_gap_escalates_with_infra_gap() -> None:
    d = policy.decide(_inp(requirements_gap=[{"kind": "python", "name": "requests"}]))
    assert (d.action_type, d.escalation_reason) == ("escalate", "infra_gap")
    assert "requests" in d.rationale and "setup script" in d.rationale


def test_build_failure_gives_build_iteration() -> None:
    assert policy.decide(_inp()).action_type == "build_iteration"


def test_test_failure_gives_test_iteration() -> None:
    d = policy.decide(_inp(failing_phase="tests", failing_kind="test", gap=GapModel("test_failure_count", 1, 0)))
    assert d.action_type == "test_iteration"


def test_other_phase_kind_gives_phase_iteration() -> None:
    assert policy.decide(_inp(failing_phase="lint", failing_kind="other")).action_type == "phase_iteration"


def test_zero_gap_converges() -> None:
    d = policy.decide(_inp(last_passed=True, gap=GapModel("test_failure_count", 0, 0)))
    assert d.action_type == "converge"


def test_converge_beats_max_attempts_reached_on_the_last_try() -> None:
    d = policy.decide(_inp(last_passed=True, fix_attempts=8, max_attempts=8))
    assert d.action_type == "converge"


def test_max_attempts_escalates() -> None:
    d = policy.decide(_inp(fix_attempts=3, max_attempts=3))
    assert (d.action_type, d.escalation_reason) == ("escalate", "max_attempts")


def test_unchecked_edit_is_checked_before_any_limit() -> None:
    # seed 004: an unchecked edit is neither good nor bad; measure it first
    d = policy.decide(_inp(pending_edit=True, fix_attempts=3, max_attempts=3, verdicts=["worse", "worse"]))
    assert d.action_type == "build_iteration"
    assert "unchecked" in d.rationale


def test_worsening_trend_two_consecutive_escalates() -> None:
    d = policy.decide(_inp(verdicts=["progress", "worse", "worse"]))
    assert (d.action_type, d.escalation_reason) == ("escalate", "worsening_trend")
    # one worse attempt is not a trend
    assert policy.decide(_inp(verdicts=["worse", "progress", "worse"])).action_type == "build_iteration"


def test_consecutive_no_progress_escalates() -> None:
    d = policy.decide(_inp(verdicts=["progress", "same", "worse", "same"]))
    assert (d.action_type, d.escalation_reason) == ("escalate", "no_progress")
    assert policy.decide(_inp(verdicts=["same", "same"])).action_type == "build_iteration"


def test_repeated_failure_breaks_the_loop() -> None:
    d = policy.decide(_inp(repeated_failure="the same failure survived 2 edits to a.c"))
    assert (d.action_type, d.escalation_reason) == ("escalate", "repeated_failure")


def test_needs_check_runs_the_first_phase_kind() -> None:
    d = policy.decide(_inp(needs_check=True, failing_kind="", first_kind="test"))
    assert d.action_type == "test_iteration"


def test_hard_step_cap_escalates_before_anything() -> None:
    d = policy.decide(_inp(step_index=20, max_steps=20, environment_verified=False))
    assert (d.action_type, d.escalation_reason) == ("escalate", "max_attempts")


def test_max_attempts_zero_checks_once_then_escalates() -> None:
    assert policy.decide(_inp(max_attempts=0, fix_attempts=0, needs_check=True)).action_type == "build_iteration"
    d = policy.decide(_inp(max_attempts=0, fix_attempts=0, needs_check=False))
    assert d.escalation_reason == "max_attempts"


@pytest.mark.parametrize("kw", [
    {}, {"environment_verified": False}, {"last_passed": True}, {"verdicts": ["worse", "worse"]},
    {"requirements_gap": [{"name": "x"}]}, {"pending_edit": True}, {"fix_attempts": 9},
])
def test_decision_has_rationale_and_confidence_in_range(kw: dict[str, object]) -> None:
    d = policy.decide(_inp(**kw))
    assert d.action_type in ACTIONS
    assert len(d.rationale) > 10
    assert 0.0 <= d.confidence <= 1.0
    if d.action_type == "escalate":
        assert d.escalation_reason


def test_decision_json_round_trip() -> None:
    d = policy.decide(_inp(verdicts=["worse", "worse"]))
    assert OrchestratorDecision.from_json(d.to_json()) == d


def test_deterministic_for_same_inputs() -> None:
    a = [policy.decide(_inp(verdicts=v)).to_json() for v in (["same"], ["worse", "worse"], [])]
    b = [OrchestratorPolicy().decide(_inp(verdicts=v)).to_json() for v in (["same"], ["worse", "worse"], [])]
    assert a == b
