"""EscalationReport composer (seed 002, step 1391) and the setup script for a requirements gap.

When the loop stops without converging, a human (or the calling agent) gets
one structured summary: what the goal was, what was tried and how each try
went, the gap left, the best candidates nobody tried, why the loop stopped,
and one *specific* next step naming the file, the failure and the best untried
manual candidate.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

from ..records import AttemptSummary, EscalationReport, FixCandidate, GapModel, rank_candidates
from .select import is_automatic
from .state import Attempt, Failure, LoopState

TOP_REMAINING = 5

_OUTCOME = {
    ("kept", "progress"): "kept",
    ("reverted", "worse"): "reverted_worse",
    ("reverted", "same"): "reverted_no_progress",
    ("reverted", "interrupted"): "interrupted",
    ("recovered", "recovered"): "rolled_back",
}


def attempt_summary(attempt: Attempt) -> AttemptSummary:
    if attempt.status in ("pending", "intent"):
        outcome = "unchecked"
    else:
        outcome = _OUTCOME.get((attempt.status, attempt.verdict), f"{attempt.status}_{attempt.verdict}".strip("_"))
    return AttemptSummary(
        action=f"apply {attempt.candidate_id}: {attempt.description[:120]}".strip(),
        outcome=outcome,
        candidate_id=attempt.candidate_id,
        gap_before=attempt.gap_before,
        gap_after=attempt.gap_after,
    )


def remaining_candidates(candidates: list[FixCandidate], tried: set[str], limit: int = TOP_REMAINING) -> list[FixCandidate]:
    """The best untried candidates: manual ones first (they are what a human can act on)."""
    untried = [c for c in rank_candidates(candidates) if c.edits_fingerprint() not in tried]
    manual = [c for c in untried if not is_automatic(c)]
    auto = [c for c in untried if is_automatic(c)]
    return (manual + auto)[:limit]


def first_failure(state: LoopState) -> Failure | None:
    check = state.view or (state.checks[-1] if state.checks else None)
    if check is None or not check.failures:
        return None
    return check.failures[0]


def _where(failure: Failure) -> str:
    if failure.file_path:
        return f"{failure.file_path}:{failure.line}" if failure.line else failure.file_path
    return failure.location


def recommended_next_step(
    state: LoopState,
    reason: str,
    remaining: list[FixCandidate],
    setup_script: str = "",
) -> str:
    config = state.config
    rerun = _rerun_hint(state, reason)
    if reason in ("max_wall", "wall_time") and config is not None:
        failure = first_failure(state)
        where = f" while {_where(failure)} still fails ({failure.failure_class})" if failure else ""
        return (f"The wall-time budget of {config.max_wall_s:g}s ran out{where} after {state.fix_attempts} fix "
                f"attempt(s); the files keep the fixes kept so far: {rerun} to continue with more time.")
    if reason == "infra_gap":
        gaps = state.requirements_gap
        names = ", ".join(f"{g.get('kind')} {g.get('name')}" for g in gaps[:6]) or "the missing pieces"
        script = f"`sh {setup_script}`" if setup_script else "the setup steps below"
        return f"Install what the project needs ({names}): review and run {script}, then {rerun}."
    failure = first_failure(state)
    manual = next((c for c in remaining if not is_automatic(c)), None)
    auto = next((c for c in remaining if is_automatic(c)), None)
    if failure is None:
        check = state.view or (state.checks[-1] if state.checks else None)
        if check is not None and not check.passed:
            what = f"phase {check.phase!r} fails ({check.failure or 'exit ' + str(check.exit_code)})"
            phase_cmd = next((p.command for p in (config.phases if config else []) if p.name == check.phase), "")
            return f"{what} but no failure record was recognised: run `{phase_cmd}` and read its output, then {rerun}."
        return f"Inspect the session log, then {rerun}."
    message = (failure.message.strip().splitlines() or [""])[0][:160]
    parts = [f"Fix {_where(failure)}: {failure.failure_class} '{message}'"]
    if manual is not None:
        hint = (manual.description.strip().splitlines() or [""])[0]
        parts.append(f"by hand; best untried suggestion ({manual.candidate_id}): {hint[:200]}")
    elif auto is not None:
        parts.append(f"e.g. review and apply {auto.candidate_id} (`whetstone apply {auto.candidate_id}`): "
                     f"{auto.description[:160]}")
    else:
        parts.append("by hand (no untried suggestion is left)")
    if reason in ("worsening_trend", "no_progress", "repeated_failure", "all_auto_tried"):
        tried = state.fix_attempts
        parts.append(f"({tried} automatic attempt{'s' if tried != 1 else ''} did not clear it)")
    return " ".join(parts) + f"; then {rerun}."


def rerun_command(state: LoopState, reason: str = "") -> str:
    """The command a person can paste to run the loop again: what was typed, not what the config adds."""
    config = state.config
    if config is None:
        return "whetstone fix"
    words = ["whetstone", "fix"]
    for phase in config.phases:
        if phase.origin == "config":
            continue  # `whetstone fix` reads whetstone.json5's phases again by itself
        if phase.kind == "build" and "--build" not in words:
            words += ["--build", phase.command]
        elif phase.kind == "test" and "--test" not in words:
            words += ["--test", phase.command]
    if reason in ("max_wall", "wall_time"):
        words += ["--max-wall", f"{max(config.max_wall_s * 2, 60):g}"]
    command = shlex.join(words)
    if config.cwd and config.workspace and os.path.normpath(config.cwd) != os.path.normpath(config.workspace):
        command = f"cd {shlex.quote(config.cwd)} && {command}"
    return command


def _rerun_hint(state: LoopState, reason: str = "") -> str:
    return f"re-run `{rerun_command(state, reason)}`"


def compose(
    state: LoopState,
    reason: str,
    candidates: list[FixCandidate],
    setup_script: str = "",
) -> EscalationReport:
    config = state.config
    remaining = remaining_candidates(candidates, state.tried_fingerprints)
    gap = state.current_gap
    return EscalationReport(
        session_id=state.session.session_id,
        goal=config.goal if config else "",
        goal_type=config.goal_type if config else "",
        attempts_made=state.fix_attempts,
        final_gap=GapModel(gap.metric_type, gap.current, gap.target),
        attempts_summary=[attempt_summary(a) for a in state.attempts],
        top_remaining_candidates=remaining,
        escalation_reason=reason,
        recommended_next_step=recommended_next_step(state, reason, remaining, setup_script),
        setup_script=setup_script,
    )


def render_text(report: EscalationReport, rationale: str = "") -> str:
    """The human-readable form of the report."""
    gap = report.final_gap
    lines = [
        f"whetstone: escalated ({report.escalation_reason}) after {report.attempts_made} fix attempt(s)",
        f"  session: {report.session_id}",
        f"  goal: {report.goal}",
    ]
    if rationale:
        lines.append(f"  why: {rationale}")
    if gap is not None:
        lines.append(f"  gap left: {gap.current} ({gap.metric_type})")
    for i, summary in enumerate(report.attempts_summary, start=1):
        before = summary.gap_before.current if summary.gap_before else "?"
        after = summary.gap_after.current if summary.gap_after else "?"
        lines.append(f"  attempt {i}: {summary.outcome:<22} gap {before} -> {after}  {summary.action[:100]}")
    for cand in report.top_remaining_candidates:
        kind = "manual" if not is_automatic(cand) else cand.mutation_type
        first = (cand.description.strip().splitlines() or [""])[0]
        lines.append(f"  untried {cand.candidate_id} ({kind}, {cand.confidence:.2f}): {first[:120]}")
    if report.setup_script:
        lines.append(f"  setup script: {report.setup_script}")
    lines.append(f"  next: {report.recommended_next_step}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- setup script


def setup_script_text(gaps: list[dict[str, Any]], session_id: str) -> str:
    """A runnable, reviewable shell script: pip and apt-get lines for every gap entry."""
    pip = sorted({str(g["install"]["pip"]) for g in gaps if g.get("install", {}).get("pip")})
    apt = sorted({str(g["install"]["apt"]) for g in gaps if g.get("install", {}).get("apt")})
    unknown = [g for g in gaps if not g.get("install")]
    lines = [
        "#!/bin/sh",
        f"# Written by whetstone for session {session_id}: install what the project is missing.",
        "# Review it, then run it yourself; whetstone never installs anything.",
        "set -eu",
    ]
    for gap in gaps:
        lines.append(f"# - {gap.get('kind')} {gap.get('name')}: {str(gap.get('detail', ''))[:160]}".replace("\n", " "))
    if apt:
        lines += [
            'SUDO=""',
            'if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi',
            "$SUDO apt-get update",
            "$SUDO apt-get install -y " + " ".join(shlex.quote(p) for p in apt),
        ]
    if pip:
        lines.append(f"{shlex.quote(sys.executable)} -m pip install " + " ".join(shlex.quote(p) for p in pip))
    for gap in unknown:
        lines.append(f"echo {shlex.quote('no known package provides ' + str(gap.get('name')) + '; install it by hand')} >&2")
    return "\n".join(lines) + "\n"


def write_setup_script(store: Path, session_id: str, gaps: list[dict[str, Any]]) -> Path:
    directory = store / "setup"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{session_id}.sh"
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(setup_script_text(gaps, session_id), encoding="utf-8")
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)
    return path


def wall_spent(wall: float, state: LoopState, phase: object = None) -> str:
    """The rationale of a max_wall escalation: the budget, where it ran out, the gap as last measured."""
    gap = state.current_gap
    where = f" while {phase!s} ran" if phase else ""
    measured = f"gap {gap.current} ({gap.metric_type})" if state.checks else "nothing measured yet"
    return f"wall time of {wall:g}s spent{where}; {measured}, {state.fix_attempts} fix attempt(s) made"
