"""The names of the events a session log holds, and the one writer of a run's events.

A session is a JSONL event log (see ``sessions.py``); its state is a pure fold over these events.
Every producer names them through these constants, and a run (``whetstone run``, a pytest session)
writes its events through :class:`RunWriter`, in one order, in one locked append.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .sessions import Session

SESSION_STARTED = "session_started"
META = "meta"
RUN_STARTED = "run_started"  # a run began; its verdict closes it (no verdict: the run was killed)
BUILD_ERRORS = "build_errors"
TEST_FAILURES = "test_failures"
TEST_FAILURE = "test_failure"
CANDIDATES = "candidates"
SEARCH = "search"  # what the validated search did
MUTANT_EVIDENCE = "mutant_evidence"  # what mutants at each suspect did to the failing tests
OBSERVATION = "observation"
ATTEMPT = "attempt"
COUNTS = "counts"
PLUGIN_STATS = "plugin_stats"
VERDICT = "verdict"
STATUS = "status"
CONVERGED = "converged"
ESCALATED = "escalated"
APPLIED = "applied"
REVERTED = "reverted"
DECISION = "decision"
ENVIRONMENT = "environment"
MEMORY_RECALLED = "memory_recalled"  # what repository memory carried into a loop step
# The loop's own events (orchestrate/state.py folds them).
LOOP_STARTED = "loop_started"
LOOP_STEP = "loop_step"
LOOP_INTENT = "loop_intent"
LOOP_APPLIED = "loop_applied"
LOOP_CHECK = "loop_check"
LOOP_JUDGED = "loop_judged"
LOOP_SKIPPED = "loop_skipped"
LOOP_RECOVERED = "loop_recovered"

# The order a run's events are written in: records before the candidates that target them, the
# verdict last (a reader that sees the verdict sees the whole run).
RUN_ORDER = (BUILD_ERRORS, TEST_FAILURES, CANDIDATES, SEARCH, MUTANT_EVIDENCE, OBSERVATION, ATTEMPT, COUNTS, PLUGIN_STATS,
             VERDICT)


class RunWriter:
    """Gathers one run's events and appends them together, in :data:`RUN_ORDER`."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._events: list[tuple[str, dict[str, Any]]] = []

    def add(self, event: str, data: dict[str, Any]) -> None:
        self._events.append((event, data))

    def write(self) -> None:
        rank = {name: index for index, name in enumerate(RUN_ORDER)}
        ordered = sorted(self._events, key=lambda item: rank.get(item[0], len(RUN_ORDER) - 1))
        self.session.append_many(ordered)
        self._events = []
