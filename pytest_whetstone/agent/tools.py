"""The plain-Python functions behind each agent tool: validated arguments in, a JSON-ready dict out.

The MCP server (``agent/server.py``) is a thin typed shell over these; the CLI can call
them too, so both speak one core API.  Every function either returns the dict shape the
seeds give for its tool or raises :class:`ToolError` with one clear line.  Bad input never
surfaces as a traceback.

Trust: commands (``build_command``, ``test_command``, the loop's commands) come from the
caller and are run as given, through ``/bin/sh``, in the named workspace, with a timeout.
The store is ``<workspace>/.whetstone`` unless ``$WHETSTONE_DIR`` says otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .. import core
from ..edits import EditError, apply_candidate_by_id
from ..parse import ParseResult
from ..records import BuildErrorRecord, FixCandidate, TestFailureRecord, rank_candidates
from ..store import events
from ..store.fold import fold
from ..store.sessions import Session
from .checks import (
    BUILD_TOOL_CHOICES,
    DEFAULT_TIMEOUT_S,
    REPORT_FORMATS,
    TEST_RUNNER_CHOICES,
    ToolError,
    as_dicts,
    check_choice,
    check_command,
    check_position,
    check_text,
    check_timeout,
    find_tool_session,
    manual_candidate,
    record_candidates,
    remember,
    session_id_of,
    session_lock,
    store_for,
    with_manual_fallbacks,
    workspace_config,
    workspace_path,
)
from .loop_tools import run_feedback_loop, start_feedback_loop, step_feedback_loop

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "ToolError",
    "parse_build_output",
    "suggest_build_fix",
    "run_build_iteration",
    "parse_test_output",
    "suggest_test_fix",
    "run_test_iteration",
    "run",
    "start_feedback_loop",
    "step_feedback_loop",
    "run_feedback_loop",
    "apply_candidate",
    "report",
]

# --------------------------------------------------------------------------- analysis helpers


def _matches_file(record_path: str, wanted: str, workspace: Path | None) -> bool:
    if not record_path:
        return False
    if workspace is not None and os.path.isabs(wanted):
        try:
            wanted = os.path.relpath(wanted, workspace) if Path(wanted).is_relative_to(workspace) else wanted
        except ValueError:
            pass
    a, b = os.path.normpath(record_path), os.path.normpath(wanted)
    return a == b or a.endswith(os.sep + b) or b.endswith(os.sep + a)


def _focus(
    errors: list[BuildErrorRecord],
    file: str | None,
    line: int | None,
    col: int | None,
    workspace: Path | None,
) -> list[BuildErrorRecord]:
    """The errors at (file, line, col), narrowing as far as something still matches.

    No error in that file: all errors (the caller still gets candidates for the build).
    """
    if not file:
        return errors
    chosen = [e for e in errors if _matches_file(e.file_path, file, workspace)]
    if line:
        chosen = [e for e in chosen if e.line == line] or chosen
        if col:
            chosen = [e for e in chosen if e.col == col] or chosen
    return chosen or errors


def _fail_count(result: ParseResult) -> int:
    failing = [f for f in result.test_failures if not f.flaky]
    return max(len(failing), result.fail_count)


# --------------------------------------------------------------------------- build tools


def parse_build_output(output: str, tool: str | None = None) -> dict[str, Any]:
    """whetstone_parse_build_output: {errors, warning_count, error_count}."""
    text = check_text("output", output)
    chosen = check_choice("tool", tool, BUILD_TOOL_CHOICES)
    result = core.parse(text, chosen)
    return {
        "errors": as_dicts(result.build_errors),
        "warning_count": result.warning_count,
        "error_count": result.error_count,
    }


def suggest_build_fix(
    build_output: str,
    session_id: str | None = None,
    file: str | None = None,
    line: int | None = None,
    col: int | None = None,
    workspace: str | None = None,
) -> dict[str, Any]:
    """whetstone_suggest_build_fix: {candidates, error_count}, ranked, manual fallback per error."""
    text = check_text("build_output", output_or(build_output))
    line, col = check_position("line", line), check_position("col", col)
    ws = workspace_path(workspace) if workspace else None
    session = find_tool_session(session_id, workspace, create=ws is not None) if session_id else None
    if ws is None and session is not None:
        ws = session.workspace
    config = workspace_config(ws)
    result = core.parse(text, "auto", workspace=ws, config=config)
    failing = [e for e in result.build_errors if e.is_failure]
    focus = _focus(failing, file, line, col, ws)
    if ws is not None:
        core.locate(focus, [], ws)
    candidates, _ = with_manual_fallbacks(core.candidates(focus, [], ws or Path.cwd(), config), focus)
    record_candidates(session, candidates)
    return {"candidates": as_dicts(candidates), "error_count": result.error_count}


def output_or(value: object) -> object:
    """None is read as empty output (some clients send null for an empty log)."""
    return "" if value is None else value


# --------------------------------------------------------------------------- test tools


def parse_test_output(output: str, runner: str | None = None) -> dict[str, Any]:
    """whetstone_parse_test_output: {failures, pass_count, fail_count}."""
    text = check_text("output", output)
    chosen = check_choice("runner", runner, TEST_RUNNER_CHOICES)
    result = core.parse(text, chosen)
    return {
        "failures": as_dicts(result.test_failures),
        "pass_count": result.pass_count,
        "fail_count": _fail_count(result),
    }


def suggest_test_fix(
    test_output: str,
    session_id: str | None = None,
    runner: str | None = None,
    workspace: str | None = None,
) -> dict[str, Any]:
    """whetstone_suggest_test_fix: {candidates, fail_count}, ranked, manual fallback per failure."""
    text = check_text("test_output", output_or(test_output))
    chosen = check_choice("runner", runner, TEST_RUNNER_CHOICES)
    ws = workspace_path(workspace) if workspace else None
    session = find_tool_session(session_id, workspace, create=ws is not None) if session_id else None
    if ws is None and session is not None:
        ws = session.workspace
    config = workspace_config(ws)
    result = core.parse(text, chosen, workspace=ws, config=config)
    failing = [f for f in result.test_failures if not f.flaky]
    if ws is not None:
        core.locate([], failing, ws)
    candidates, _ = with_manual_fallbacks(core.candidates([], failing, ws or Path.cwd(), config), failing)
    record_candidates(session, candidates)
    return {"candidates": as_dicts(candidates), "fail_count": _fail_count(result)}


# --------------------------------------------------------------------------- iterations


LOOP_EVENT = events.LOOP_STARTED  # written by orchestrate when a feedback loop owns the session


def _iteration(
    session_id: str,
    command: str,
    workspace: str,
    timeout_s: float | None,
    phase: str,
) -> tuple[Any, Session, list[FixCandidate], str]:
    """Run one command into the session; (outcome, session, candidates, the session's status after)."""
    sid = session_id_of(session_id)
    ws = workspace_path(workspace)
    seconds = check_timeout(timeout_s)
    store = store_for(ws)
    with session_lock(store, sid):
        mark = Session(store, sid).size()
        outcome = core.run(
            command,
            phase=phase,
            timeout=seconds,
            cwd=ws,
            store=store,
            session_id=sid,
            shell=True,
            echo=False,  # stdout is the MCP channel: the child's output must not reach it
            emit_verdict=False,
            agent=False,
            search=phase == "tests",  # a test iteration wants validated fixes, as the loop's test phase does
        )
        session = outcome.session
        if session is None:
            raise ToolError(f"could not open session {sid!r} in {store}")
        remember(session)
        candidates, status = _finish_iteration(session, outcome, command, seconds, mark)
    return outcome, session, candidates, status


def _finish_iteration(
    session: Session, outcome: Any, command: str, seconds: float, mark: int
) -> tuple[list[FixCandidate], str]:
    """Manual fallbacks for what the runner found, and the plain session's status.

    The log is read once: the whole of it folded for the status and the candidates' validation,
    the part after ``mark`` for which candidates this run produced."""
    result: ParseResult = outcome.result
    # a test command may compile first (make check): its compile errors need a way out too
    targets: list[BuildErrorRecord | TestFailureRecord] = [e for e in result.build_errors if e.is_failure]
    targets += [f for f in result.test_failures if not f.flaky]
    failed = outcome.timed_out or outcome.exit_code != 0 or outcome.verdict.status == "fail" or bool(targets)
    log = session.events()
    state = fold(log)
    new = session.events_since(mark) if mark else log
    found = {c.candidate_id: c for c in outcome.candidates}
    ids = {
        str(raw.get("candidate_id", ""))
        for event in new
        if event.get("event") == events.CANDIDATES
        for raw in (event.get("data") or {}).get("records", [])
        if isinstance(raw, dict)
    }
    for cand in state.candidates:
        if cand.candidate_id in ids:
            found[cand.candidate_id] = cand  # the fold's copy carries `validated`
    candidates, added = with_manual_fallbacks(list(found.values()) if failed else [], targets)
    if failed and not targets:
        # the command failed but printed nothing we recognise: still give the caller a next step
        added.append(manual_candidate(outcome.attempt_id, _unrecognised(command, outcome, seconds)))
        candidates = rank_candidates(candidates + added[-1:])
    record_candidates(session, added)
    status = state.status
    if not any(event.get("event") == LOOP_EVENT for event in log):
        # a plain iteration session converges on success and reopens when a later run fails
        if not failed and status != "converged":
            session.append(events.CONVERGED, {"by": "iteration"})
            status = "converged"
        elif failed and status in ("converged", "pending"):
            session.append(events.STATUS, {"status": "running"})
            status = "running"
    return candidates, status


def _unrecognised(command: str, outcome: Any, seconds: float) -> str:
    if outcome.timed_out:
        return f"`{command}` was stopped after the {seconds:g} s timeout; make it faster or raise timeout_s"
    return (
        f"`{command}` exited with status {outcome.exit_code} without a diagnostic Whetstone recognises; "
        "read its output (whetstone_report) and fix by hand"
    )


def _verdict_fields(outcome: Any) -> dict[str, Any]:
    """What the run's verdict block says, and the per-phase ledger: the tools never judge on their own."""
    v = outcome.verdict
    return {
        "status": v.status,
        "failure": v.failure,
        "phase": v.phase,
        "first_error": v.first_error,
        "retry": v.retry,
        "phases": outcome.phases,
        "report_path": v.report,
    }


def run_build_iteration(
    session_id: str, build_command: str, workspace: str, timeout_s: float | None = DEFAULT_TIMEOUT_S
) -> dict[str, Any]:
    """whetstone_run_build_iteration: {attempt_id, session_status, error_count, candidates} + the verdict."""
    command = check_command("build_command", build_command)
    return _iteration_result(*_iteration(session_id, command, workspace, timeout_s, "build"), "error_count")


def run_test_iteration(
    session_id: str, test_command: str, workspace: str, timeout_s: float | None = DEFAULT_TIMEOUT_S
) -> dict[str, Any]:
    """whetstone_run_test_iteration: {attempt_id, session_status, fail_count, candidates} + the verdict."""
    command = check_command("test_command", test_command)
    return _iteration_result(*_iteration(session_id, command, workspace, timeout_s, "tests"), "fail_count")


def _iteration_result(
    outcome: Any, _session: Session, candidates: list[FixCandidate], status: str, count_key: str
) -> dict[str, Any]:
    count = outcome.result.error_count if count_key == "error_count" else _fail_count(outcome.result)
    return {
        "attempt_id": outcome.attempt_id,
        "session_status": status,
        count_key: count,
        "candidates": as_dicts(candidates),
        "exit_code": outcome.exit_code,
        "timed_out": outcome.timed_out,
        **_verdict_fields(outcome),
    }


def run(
    command: str,
    workspace: str,
    phase: str | None = None,
    session_id: str | None = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    search: bool = False,
) -> dict[str, Any]:
    """whetstone_run: any command, as ``whetstone run`` runs it: {verdict, phases, build_errors,
    test_failures, candidates, exit_code, session_id}.  The verdict is exactly the block's.  ``search``:
    as ``whetstone run --search``."""
    cmd = check_command("command", command)
    ws = workspace_path(workspace)
    seconds = check_timeout(timeout_s)
    store = store_for(ws)
    sid = session_id_of(session_id) if session_id else None
    lock = session_lock(store, sid) if sid else None
    if lock is not None:
        lock.acquire()
    try:
        outcome = core.run(cmd, phase=check_text("phase", phase or ""), timeout=seconds, cwd=ws, store=store,
                           session_id=sid, shell=True, echo=False, emit_verdict=False, agent=False,
                           search=bool(search))
    finally:
        if lock is not None:
            lock.release()
    if outcome.session is not None:
        remember(outcome.session)
    return {
        "verdict": outcome.verdict.to_dict(),
        "phases": outcome.phases,
        "exit_code": outcome.exit_code,
        "session_id": outcome.session.session_id if outcome.session else None,
        "build_errors": as_dicts([e for e in outcome.result.build_errors if e.is_failure]),
        "test_failures": as_dicts(outcome.result.test_failures),
        "candidates": as_dicts(outcome.candidates),
    }


# --------------------------------------------------------------------------- edits and reports


def apply_candidate(
    session_id: str, candidate_id: str, workspace: str, dry_run: bool = False
) -> dict[str, Any]:
    """whetstone_apply_candidate: {diff, applied, journal_id?} through the one edit engine."""
    session = find_tool_session(session_id, workspace)
    cid = check_text("candidate_id", candidate_id, allow_empty=False).strip()
    try:
        with session_lock(session.store, session.session_id):
            diff_text, journal = apply_candidate_by_id(session.store, session.session_id, cid, bool(dry_run))
    except (EditError, FileNotFoundError, KeyError, OSError) as exc:
        raise ToolError(str(exc).strip("'\"")) from exc
    out: dict[str, Any] = {"diff": diff_text, "applied": journal is not None}
    if journal is not None:
        out["journal_id"] = journal.journal_id
    return out


def report(session_id: str | None = None, workspace: str = "", format: str | None = None) -> dict[str, Any]:
    """whetstone_report: {report} — the session's fix suggestion report as text."""
    fmt = format or "text"
    if fmt not in REPORT_FORMATS:
        raise ToolError(f"unknown format {fmt!r}; expected one of: {', '.join(REPORT_FORMATS)}")
    ws = workspace_path(workspace)
    store = store_for(ws, create=False)
    sid = session_id_of(session_id) if session_id else None
    if sid is not None:
        find_tool_session(sid, workspace)
    elif not (store / "sessions").is_dir():
        raise ToolError(f"no session in {ws}: run a build or test iteration first")
    try:
        text, code = core.report([store], sid, fmt, None)
    except (OSError, ValueError, KeyError) as exc:
        raise ToolError(f"could not build the report: {exc}") from exc
    if code != 0:  # run_report's usage errors: one "whetstone: error: ..." line
        message = text.strip().removeprefix("whetstone: error:").strip()
        raise ToolError(message or f"could not build the report (status {code})")
    return {"report": text}
