"""``whetstone mcp``: the agent tools of seeds 000-002 over MCP (stdio), on the official SDK.

Each tool is a thin typed shell over :mod:`pytest_whetstone.agent.tools` (the same core the
CLI uses).  Input schemas come from the annotated signatures and output schemas from the
records (``records.py`` dataclasses), so clients get structured content they can validate.

Errors a caller can cause (missing or non-directory workspace, unknown session, stepping a
finished loop, malformed arguments) come back as tool errors (``isError``) with one clear
line; anything unexpected is logged to stderr and also returned as a tool error, so the
server never dies on a call.  While serving, stdout belongs to the protocol: the SDK points
fd 1 at stderr for everything else, and commands run with their output captured.

Commands given to the run/loop tools come from the caller and are run as given, through
``/bin/sh``, in the named workspace only, with a timeout (default 120 s).
"""

import logging
import sys
import traceback
from collections.abc import Callable
from typing import Annotated, Any, Literal

try:
    import anyio.from_thread
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError as McpToolError
    from mcp.types import ToolAnnotations
except ImportError as _exc:  # mcp missing, or mcp 1.x (FastMCP): say which extra to install
    raise ImportError(f"needs the official MCP SDK, mcp>=2.3 ({_exc})") from _exc
from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from .. import __version__
from ..records import (
    AuditEntry,
    BuildErrorRecord,
    EscalationReport,
    FixCandidate,
    GapModel,
    TestFailureRecord,
)
from . import tools as tools_api

SERVER_NAME = "whetstone"
_log = logging.getLogger("whetstone.mcp")

INSTRUCTIONS = """\
Whetstone turns build and test output into classified, located records and ranked fix candidates,
runs build/test commands as recorded iterations of a session, and drives a feedback loop
(build -> test -> apply best candidate -> re-run) to convergence or a structured escalation.
Typical use: whetstone_run_build_iteration / whetstone_run_test_iteration with a session id you
choose, read the candidates (highest confidence first; a manual one is always present), then
whetstone_apply_candidate (dry_run first) and run again; or whetstone_start_feedback_loop followed
by whetstone_step_feedback_loop / whetstone_run_feedback_loop. Commands you pass are run as given
with /bin/sh in the workspace you name, with a timeout."""

# --------------------------------------------------------------------------- output shapes


class ParseBuildOutputResult(TypedDict):
    errors: list[BuildErrorRecord]
    warning_count: int
    error_count: int


class SuggestBuildFixResult(TypedDict):
    candidates: list[FixCandidate]
    error_count: int


class PhaseEntry(TypedDict):
    name: str
    status: str  # pass | fail | warn | skipped
    counts: dict[str, int]
    first_error: str | None
    duration_ms: int


class VerdictBlock(TypedDict):
    schema_version: str
    target: str
    status: str
    failure: str | None
    phase: str
    first_error: str | None
    retry: str | None
    counts: dict[str, int]
    report: str | None


class RunResult(TypedDict):
    verdict: VerdictBlock
    phases: list[PhaseEntry]
    exit_code: int
    session_id: str | None
    build_errors: list[BuildErrorRecord]
    test_failures: list[TestFailureRecord]
    candidates: list[FixCandidate]


class _IterationVerdict(TypedDict):
    """What both iteration tools add: how the command ended and what the verdict judge said."""

    exit_code: NotRequired[int]
    timed_out: NotRequired[bool]
    failure: NotRequired[str | None]
    status: NotRequired[str]
    phase: NotRequired[str]
    first_error: NotRequired[str | None]
    retry: NotRequired[str | None]
    phases: NotRequired[list[PhaseEntry]]
    report_path: NotRequired[str | None]


class RunBuildIterationResult(_IterationVerdict):
    attempt_id: str
    session_status: str
    error_count: int
    candidates: list[FixCandidate]


class ParseTestOutputResult(TypedDict):
    failures: list[TestFailureRecord]
    pass_count: int
    fail_count: int


class SuggestTestFixResult(TypedDict):
    candidates: list[FixCandidate]
    fail_count: int


class RunTestIterationResult(_IterationVerdict):
    attempt_id: str
    session_status: str
    fail_count: int
    candidates: list[FixCandidate]


class StartFeedbackLoopResult(TypedDict):
    session_id: str
    status: str


class StepFeedbackLoopResult(TypedDict):
    action_taken: str
    session_status: str
    gap: GapModel
    candidates: NotRequired[list[FixCandidate]]
    escalation: NotRequired[EscalationReport]
    memory: NotRequired[dict[str, Any]]


class RunFeedbackLoopResult(TypedDict):
    final_status: str
    steps_taken: int
    final_gap: GapModel
    audit_log: NotRequired[list[AuditEntry]]
    escalation: NotRequired[EscalationReport]


class ApplyCandidateResult(TypedDict):
    diff: str
    applied: bool
    journal_id: NotRequired[str]


class ReportResult(TypedDict):
    report: str


# --------------------------------------------------------------------------- argument types

BuildTool = Literal["auto", "gcc", "clang", "cmake", "linker", "make"]
TestRunner = Literal["auto", "gtest", "pytest", "jest", "tap", "junit", "ctest"]
ReportFormat = Literal["text", "json", "sarif", "github", "html"]
GoalType = Literal["build", "test", "build_and_test"]

Workspace = Annotated[str, Field(description="Absolute path of the project directory; commands run here.")]
SessionId = Annotated[
    str, Field(description="A session id of your choosing (no '/', not starting with '.'); a new id starts a session.")
]
Timeout = Annotated[float, Field(gt=0, description="Seconds before the command's process group is killed.")]


def _call(fn: Callable[..., dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
    """Run one core function; every failure becomes a tool error with a readable message."""
    try:
        return fn(**kwargs)
    except tools_api.ToolError as exc:
        raise McpToolError(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - the server must answer, never die
        _log.error("%s failed:\n%s", fn.__name__, traceback.format_exc())
        raise McpToolError(f"internal error in {fn.__name__}: {type(exc).__name__}: {exc}") from exc


def _progress_to(ctx: Context) -> Callable[[int, str], None]:
    """Progress notifications from the worker thread a sync tool runs in (no-op without a token)."""

    def send(step: int, message: str) -> None:
        try:
            anyio.from_thread.run(ctx.report_progress, float(step), None, message)
        except Exception as exc:  # noqa: BLE001 - progress is a courtesy; the loop goes on
            _log.debug("progress notification failed: %s", exc)

    return send


# Hints for clients: parse/report only read; suggest/start write the store; run/step/apply run commands or edit.
_READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
_RECORDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_RUNS = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=True)


def build_server() -> MCPServer:
    """The server with every Whetstone tool registered (no transport attached)."""
    server: MCPServer = MCPServer(
        name=SERVER_NAME,
        title="Whetstone",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )

    @server.tool(name="whetstone_parse_build_output", annotations=_READ_ONLY)
    def parse_build_output(
        output: Annotated[str, Field(description="Raw build output (compiler, linker, cmake, make).")],
        tool: Annotated[BuildTool | None, Field(description="Restrict parsing to one tool; default auto.")] = None,
    ) -> ParseBuildOutputResult:
        """Parse raw build output into classified BuildErrorRecords with error and warning counts."""
        return _call(tools_api.parse_build_output, output=output, tool=tool)  # type: ignore[return-value]

    @server.tool(name="whetstone_suggest_build_fix", annotations=_RECORDS)
    def suggest_build_fix(
        build_output: Annotated[str, Field(description="Raw build output holding the error(s).")],
        session_id: Annotated[str | None, Field(description="Record the candidates in this session.")] = None,
        file: Annotated[str | None, Field(description="Focus on errors in this file.")] = None,
        line: Annotated[int | None, Field(ge=0, description="Focus on errors at this line.")] = None,
        col: Annotated[int | None, Field(ge=0, description="Focus on errors at this column.")] = None,
        workspace: Annotated[str | None, Field(description="Project directory, for locating sources.")] = None,
    ) -> SuggestBuildFixResult:
        """Ranked fix candidates for build errors (highest confidence first; a manual fallback per error)."""
        return _call(  # type: ignore[return-value]
            tools_api.suggest_build_fix, build_output=build_output, session_id=session_id,
            file=file, line=line, col=col, workspace=workspace,
        )

    @server.tool(name="whetstone_run_build_iteration", annotations=_RUNS)
    def run_build_iteration(
        session_id: SessionId,
        build_command: Annotated[str, Field(description="Shell command that builds the project (run as given).")],
        workspace: Workspace,
        timeout_s: Timeout = tools_api.DEFAULT_TIMEOUT_S,
    ) -> RunBuildIterationResult:
        """Run the build in the workspace, record the attempt in the session, return the fix candidates."""
        return _call(  # type: ignore[return-value]
            tools_api.run_build_iteration, session_id=session_id, build_command=build_command,
            workspace=workspace, timeout_s=timeout_s,
        )

    @server.tool(name="whetstone_parse_test_output", annotations=_READ_ONLY)
    def parse_test_output(
        output: Annotated[str, Field(description="Raw test runner output (gtest, pytest, Jest, TAP, ...).")],
        runner: Annotated[TestRunner | None, Field(description="The runner's format; default auto.")] = None,
    ) -> ParseTestOutputResult:
        """Parse raw test output into classified TestFailureRecords with pass and fail counts."""
        return _call(tools_api.parse_test_output, output=output, runner=runner)  # type: ignore[return-value]

    @server.tool(name="whetstone_suggest_test_fix", annotations=_RECORDS)
    def suggest_test_fix(
        test_output: Annotated[str, Field(description="Raw test output holding the failure(s).")],
        session_id: Annotated[str | None, Field(description="Record the candidates in this session.")] = None,
        runner: Annotated[TestRunner | None, Field(description="The runner's format; default auto.")] = None,
        workspace: Annotated[str | None, Field(description="Project directory, for locating sources.")] = None,
    ) -> SuggestTestFixResult:
        """Ranked fix candidates for test failures (highest confidence first; a manual fallback per failure)."""
        return _call(  # type: ignore[return-value]
            tools_api.suggest_test_fix, test_output=test_output, session_id=session_id,
            runner=runner, workspace=workspace,
        )

    @server.tool(name="whetstone_run_test_iteration", annotations=_RUNS)
    def run_test_iteration(
        session_id: SessionId,
        test_command: Annotated[str, Field(description="Shell command that runs the tests (run as given).")],
        workspace: Workspace,
        timeout_s: Timeout = tools_api.DEFAULT_TIMEOUT_S,
    ) -> RunTestIterationResult:
        """Run the tests in the workspace, record the attempt in the session, return the fix candidates."""
        return _call(  # type: ignore[return-value]
            tools_api.run_test_iteration, session_id=session_id, test_command=test_command,
            workspace=workspace, timeout_s=timeout_s,
        )

    @server.tool(name="whetstone_run", annotations=_RUNS)
    def run(
        command: Annotated[str, Field(description="Any build or test command (run as given, through /bin/sh).")],
        workspace: Workspace,
        phase: Annotated[str | None, Field(description="Phase name for the verdict (build, tests, ...).")] = None,
        session_id: Annotated[str | None, Field(description="Record into this session (default: a new one).")] = None,
        timeout_s: Timeout = tools_api.DEFAULT_TIMEOUT_S,
        search: Annotated[bool, Field(description="Search validated fixes for failing C/C++/JS tests "
                                      "(through the recorded build or a scratch copy; the user's files are "
                                      "not written).")] = False,
    ) -> RunResult:
        """Run any command as `whetstone run` does: exactly its verdict block, the per-phase ledger, the
        failing records and the fix candidates."""
        return _call(  # type: ignore[return-value]
            tools_api.run, command=command, workspace=workspace, phase=phase, session_id=session_id,
            timeout_s=timeout_s, search=search,
        )

    @server.tool(name="whetstone_start_feedback_loop", annotations=_RECORDS)
    def start_feedback_loop(
        goal: Annotated[str, Field(description="What done means, in words (for the audit and escalation).")],
        goal_type: Annotated[GoalType, Field(description="What must pass: build, test or build_and_test.")],
        workspace: Workspace,
        build_command: Annotated[str | None, Field(description="Build command (shell, run as given).")] = None,
        test_command: Annotated[str | None, Field(description="Test command (shell, run as given).")] = None,
        max_attempts: Annotated[int | None, Field(ge=1, description="Fix attempts before escalating.")] = None,
    ) -> StartFeedbackLoopResult:
        """Create a feedback-loop session with its commands; it does not run anything yet (step it)."""
        return _call(  # type: ignore[return-value]
            tools_api.start_feedback_loop, goal=goal, goal_type=goal_type, workspace=workspace,
            build_command=build_command, test_command=test_command, max_attempts=max_attempts,
        )

    @server.tool(name="whetstone_step_feedback_loop", annotations=_RUNS)
    def step_feedback_loop(
        session_id: SessionId,
        workspace: Annotated[str | None, Field(description="The loop's workspace (needed after a restart).")] = None,
    ) -> StepFeedbackLoopResult:
        """Run exactly one orchestrator step (probe, build, test, apply, judge, converge or escalate)."""
        return _call(  # type: ignore[return-value]
            tools_api.step_feedback_loop, session_id=session_id, workspace=workspace
        )

    @server.tool(name="whetstone_run_feedback_loop", annotations=_RUNS)
    def run_feedback_loop(
        session_id: SessionId,
        ctx: Context,
        max_wall_seconds: Annotated[int | None, Field(gt=0, description="Wall-time budget in seconds.")] = None,
        include_audit: Annotated[bool, Field(description="Include the audit log (one entry per step).")] = False,
        workspace: Annotated[str | None, Field(description="The loop's workspace (needed after a restart).")] = None,
    ) -> RunFeedbackLoopResult:
        """Step the loop until it converges, escalates or runs out of wall time (progress per step)."""
        return _call(  # type: ignore[return-value]
            tools_api.run_feedback_loop, session_id=session_id, max_wall_seconds=max_wall_seconds,
            include_audit=include_audit, workspace=workspace, progress=_progress_to(ctx),
        )

    @server.tool(name="whetstone_apply_candidate", annotations=_RUNS)
    def apply_candidate(
        session_id: SessionId,
        candidate_id: Annotated[str, Field(description="A candidate id from a suggest/run result.")],
        workspace: Workspace,
        dry_run: Annotated[bool, Field(description="Only show the diff.")] = False,
    ) -> ApplyCandidateResult:
        """Apply one candidate's edits atomically (journaled, undoable with `whetstone undo`); returns the diff."""
        return _call(  # type: ignore[return-value]
            tools_api.apply_candidate, session_id=session_id, candidate_id=candidate_id,
            workspace=workspace, dry_run=dry_run,
        )

    @server.tool(name="whetstone_report", annotations=_READ_ONLY)
    def report(
        workspace: Workspace,
        session_id: Annotated[str | None, Field(description="Session id; default the latest.")] = None,
        format: Annotated[ReportFormat | None, Field(description="text (default), json, sarif, github, html.")] = None,
    ) -> ReportResult:
        """The session's fix suggestion report: errors, failures, candidates, verdict."""
        return _call(  # type: ignore[return-value]
            tools_api.report, session_id=session_id, workspace=workspace, format=format
        )

    return server


def main() -> int:
    """Serve on stdio until the client closes the connection."""
    try:
        server = build_server()
        server.run("stdio")
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
