"""The feedback-loop tools: start a loop session, step it once, or run it to the end.

Thin over :mod:`pytest_whetstone.orchestrate.loop` (FeedbackLoopOrchestrator); the loop's
commands come from the caller and are run as given, in the workspace, with the
``timeout_s`` budget of ``whetstone.json5``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..records import rank_candidates
from ..store.sessions import Session
from .checks import (
    MAX_TIMEOUT_S,
    ToolError,
    as_dicts,
    check_command,
    check_text,
    find_tool_session,
    remember,
    session_lock,
    store_for,
    workspace_path,
)

GOAL_TYPES = ("build", "test", "build_and_test")


def _loop_module() -> Any:
    from ..orchestrate import loop  # imported on first use: the parse tools start without it

    return loop


def start_feedback_loop(
    goal: str,
    goal_type: str,
    workspace: str,
    build_command: str | None = None,
    test_command: str | None = None,
    max_attempts: int | None = None,
) -> dict[str, Any]:
    """whetstone_start_feedback_loop: {session_id, status: "pending"}; nothing runs yet."""
    text = check_text("goal", goal, allow_empty=False).strip()
    if goal_type not in GOAL_TYPES:
        raise ToolError(f"unknown goal_type {goal_type!r}; expected one of: {', '.join(GOAL_TYPES)}")
    ws = workspace_path(workspace)
    build = check_command("build_command", build_command) if build_command is not None else None
    test = check_command("test_command", test_command) if test_command is not None else None
    if goal_type in ("build", "build_and_test") and not build:
        raise ToolError(f"goal_type {goal_type!r} needs a build_command")
    if goal_type in ("test", "build_and_test") and not test:
        raise ToolError(f"goal_type {goal_type!r} needs a test_command")
    if max_attempts is not None and (isinstance(max_attempts, bool) or not isinstance(max_attempts, int)
                                     or max_attempts < 1):
        raise ToolError(f"max_attempts must be a positive integer, got {max_attempts!r}")
    loop = _loop_module()
    try:
        session = loop.start_loop(
            store_for(ws), build=build, test=test, max_attempts=max_attempts,
            goal=text, goal_type=goal_type, cwd=ws,
        )
    except loop.LoopError as exc:
        raise ToolError(str(exc)) from exc
    remember(session)
    return {"session_id": session.session_id, "status": session.state().status}


def _loop_session(session_id: str, workspace: str | None) -> tuple[Session, Any]:
    session = find_tool_session(session_id, workspace)
    loop = _loop_module()
    return session, loop


def step_feedback_loop(session_id: str, workspace: str | None = None) -> dict[str, Any]:
    """whetstone_step_feedback_loop: one orchestrator step {action_taken, session_status, gap, ...}."""
    session, loop = _loop_session(session_id, workspace)
    with session_lock(session.store, session.session_id):
        try:
            result = loop.FeedbackLoopOrchestrator(session.store).step(session.session_id)
        except loop.LoopError as exc:
            raise ToolError(str(exc)) from exc
    out: dict[str, Any] = {
        "action_taken": result.action_taken,
        "session_status": result.session_status,
        "gap": result.gap.to_dict(),
    }
    if result.candidates:
        out["candidates"] = as_dicts(rank_candidates(list(result.candidates)))
    if result.escalation is not None:
        out["escalation"] = result.escalation.to_dict()
    if result.memory:
        out["memory"] = result.memory  # what earlier sessions in this workspace carried over
    return out


Progress = Callable[[int, str], None]


def _step_reporter(progress: Progress | None) -> Callable[[str, dict[str, Any]], None]:
    """The orchestrator's reporter hook, turned into one progress call per finished step."""

    def report(kind: str, data: dict[str, Any]) -> None:
        result = data.get("result")
        if progress is None or kind != "step" or result is None:
            return
        gap = result.gap
        progress(
            result.step_index + 1,
            f"step {result.step_index}: {result.action_taken} -> {result.session_status}, "
            f"{gap.metric_type} {gap.current}",
        )

    return report


def run_feedback_loop(
    session_id: str,
    max_wall_seconds: float | None = None,
    include_audit: bool = False,
    workspace: str | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """whetstone_run_feedback_loop: step to convergence, escalation or the wall-time budget.

    ``progress(step_number, message)`` is called after every step (the MCP server turns it
    into progress notifications, so a client sees a long loop move).
    """
    if max_wall_seconds is not None and (isinstance(max_wall_seconds, bool)
                                         or not isinstance(max_wall_seconds, (int, float))
                                         or not 0 < max_wall_seconds <= MAX_TIMEOUT_S):
        raise ToolError(f"max_wall_seconds must be > 0 and <= {int(MAX_TIMEOUT_S)}, got {max_wall_seconds!r}")
    session, loop = _loop_session(session_id, workspace)
    with session_lock(session.store, session.session_id):
        orchestrator = loop.FeedbackLoopOrchestrator(session.store, reporter=_step_reporter(progress))
        try:
            # a finished loop answers with its final state and steps_taken 0
            result = orchestrator.run_to_completion(
                session.session_id, None if max_wall_seconds is None else float(max_wall_seconds)
            )
        except loop.LoopError as exc:
            raise ToolError(str(exc)) from exc
    out: dict[str, Any] = {
        "final_status": result.final_status,
        "steps_taken": result.steps_taken,
        "final_gap": result.final_gap.to_dict(),
    }
    if include_audit:
        out["audit_log"] = as_dicts(result.audit_log)
    if result.escalation is not None:
        out["escalation"] = result.escalation.to_dict()
    return out
