"""What a pytest run writes to its session: where the store is, the attempt and its observation.

Kept out of the hooks module so the hooks stay thin; imported only at the end of a session.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..records import AttemptRecord, GapModel, ObservationRecord, TestFailureRecord, stable_id
from ..store import location
from ..store.sessions import now_iso
from ..verdict import RunFacts


def resolve_store(store_opt: str | None, invocation_dir: Path) -> Path:
    """``--whetstone-dir`` (relative to where pytest was invoked), else the one resolver's order."""
    return location.resolve_store(store_opt or None, start=invocation_dir)


def run_records(
    session_id: str,
    started: float,
    args: Sequence[Any],
    exitstatus: int,
    failure: str | None,
    records: Sequence[TestFailureRecord],
    passed: int,
    duration_ms: int,
) -> tuple[AttemptRecord, ObservationRecord]:
    """The run as an attempt (what ran, how it ended) and an observation (what it measured)."""
    live = [r for r in records if not r.flaky]
    gap = GapModel(metric_type="test_failure_count", current=len(live), target=0)
    attempt = AttemptRecord(
        attempt_id="A" + stable_id(session_id, started, os.getpid()),
        session_id=session_id,
        action="test",
        phase="tests",
        command=" ".join(["pytest", *map(str, args)])[:2000],
        exit_code=exitstatus,
        outcome="success" if failure is None else "failure",
        gap_after=gap,
        started_at=now_iso(),
        duration_ms=duration_ms,
    )
    observation = ObservationRecord(
        observation_id="O" + stable_id(attempt.attempt_id),
        attempt_id=attempt.attempt_id,
        fail_count=len(live),
        pass_count=passed,
        record_ids=[r.failure_id for r in records],
        gap=gap,
        failure=failure,
    )
    return attempt, observation


# pytest's exit codes (pytest.ExitCode): 2 is an interrupted run, unless collection errors stopped it.
_INTERRUPTED, _INTERNAL_ERROR, _USAGE_ERROR, _NO_TESTS = 2, 3, 4, 5


def run_facts(exitstatus: int, *, collect_errors: int = 0) -> RunFacts:
    """How the pytest run ended, in the judge's terms."""
    if exitstatus == _INTERRUPTED and not collect_errors:
        return RunFacts(exit_code=exitstatus, interrupted="SIGINT")
    if exitstatus in (_INTERNAL_ERROR, _USAGE_ERROR):
        return RunFacts(exit_code=exitstatus, launch_error=f"pytest exited with status {exitstatus}")
    return RunFacts(exit_code=0 if exitstatus == _NO_TESTS else exitstatus)
