"""`whetstone fix`, `whetstone start`, `whetstone step`: the loop on the command line.

Progress goes to stdout, line-oriented (one line per phase and per step); on a
terminal a transient status line shows which phase is running.  The verdict
block is always the last thing printed.  Exit status: 0 converged, 1 not
converged (escalated, or a dry run that found something to fix), 2 usage or
setup errors, 130 interrupted (the unchecked edit is reverted first; the
session can be resumed).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import IO, Any

from .. import edits
from ..orchestrate.escalate import render_text
from ..orchestrate.judging import final_verdict
from ..orchestrate.ledger import file_ledger
from ..orchestrate.loop import FeedbackLoopOrchestrator, LoopError, start_loop
from ..orchestrate.results import StepResult
from ..orchestrate.state import loop_fold
from ..records import FixCandidate
from ..store.sessions import ENV_SESSION, latest_session_id, load_session
from ..verdict import emit

INTERRUPTED = 130


class Progress:
    """Reporter for the orchestrator: quiet lines everywhere, a live status line on a terminal."""

    def __init__(self, stream: IO[str], tty: bool | None = None) -> None:
        self.stream = stream
        self.tty = stream.isatty() if tty is None else tty
        self._status = ""
        self._phase_started = 0.0
        self._lock = threading.Lock()
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(data)

    def line(self, text: str) -> None:
        with self._lock:
            if self.tty and self._status:
                self.stream.write("\r\x1b[K")
            self.stream.write(text + "\n")
            if self.tty and self._status:
                self.stream.write(self._status)
            self.stream.flush()

    def _set_status(self, text: str) -> None:
        if not self.tty:
            return
        with self._lock:
            self._status = text[:200]
            self.stream.write("\r\x1b[K" + self._status)
            self.stream.flush()

    def _clear_status(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=1)
            self._ticker = None
        if self.tty and self._status:
            with self._lock:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self._status = ""

    def _tick(self, label: str) -> None:
        while not self._stop.wait(0.5):
            self._set_status(f"{label} ({time.monotonic() - self._phase_started:.0f}s)")

    def _on_phase_start(self, data: dict[str, Any]) -> None:
        self._phase_started = time.monotonic()
        label = f"step {data['step']}: running {data['phase']}: {data['command']}"
        if self.tty:
            self._stop.clear()
            self._set_status(label)
            self._ticker = threading.Thread(target=self._tick, args=(label,), daemon=True)
            self._ticker.start()

    def _on_phase_end(self, data: dict[str, Any]) -> None:
        self._clear_status()
        outcome = data["outcome"]
        seconds = time.monotonic() - self._phase_started
        if data["failed"]:
            what = outcome.verdict.failure or f"exit {outcome.exit_code}"
            where = f" at {outcome.verdict.first_error}" if outcome.verdict.first_error else ""
            self.line(f"whetstone fix: step {data['step']}: {data['phase']} failed: {what}{where} [{seconds:.1f}s]")
        else:
            self.line(f"whetstone fix: step {data['step']}: {data['phase']} passed [{seconds:.1f}s]")

    def _on_applied(self, data: dict[str, Any]) -> None:
        cand: FixCandidate = data["candidate"]
        self.line(f"whetstone fix: step {data['step']}: applied {cand.candidate_id} "
                  f"({cand.mutation_type}, {cand.confidence:.2f}{', validated' if cand.validated else ''}): "
                  f"{cand.description[:120]}")

    def _on_kept(self, data: dict[str, Any]) -> None:
        self.line(f"whetstone fix: kept {data['candidate_id']} (the gap shrank)")

    def _on_reverted(self, data: dict[str, Any]) -> None:
        why = {"worse": "it made the gap worse", "same": "no progress"}.get(data["why"], data["why"])
        self.line(f"whetstone fix: reverted {data['candidate_id']} ({why})")

    def _on_recalled(self, data: dict[str, Any]) -> None:
        self.line(f"whetstone fix: step {data['step']}: {data['recall'].describe()} (earlier sessions in this workspace)")

    def _on_skipped(self, data: dict[str, Any]) -> None:
        self.line(f"whetstone fix: skipped {data['candidate_id']}: {data['reason']}")

    def _on_recovered(self, data: dict[str, Any]) -> None:
        files = ", ".join(data["files"]) or "nothing to restore"
        self.line(f"whetstone fix: rolled back the interrupted edit {data['candidate_id']} ({files})")

    def _on_step(self, data: dict[str, Any]) -> None:
        result: StepResult = data["result"]
        if result.action_taken in ("build_iteration", "test_iteration", "phase_iteration") and not (
            result.candidate_applied or result.escalation or result.session_status == "converged"
        ) and not result.would_apply:
            return
        before = f"{result.gap_before.current} -> " if result.gap_before_measured else "first measured: "
        trend = f"gap {before}{result.gap.current} ({result.gap.metric_type})"
        self.line(f"whetstone fix: step {result.step_index}: {result.action_taken}: "
                  f"{result.description or result.rationale} [{trend}]")


def _resumable(store: Path, phases: list[tuple[str, str]], cwd: Path) -> str | None:
    """A loop session to continue: $WHETSTONE_SESSION, or the latest unfinished one with the same commands."""
    wanted = os.environ.get(ENV_SESSION)
    candidates = [wanted] if wanted else []
    latest = latest_session_id(store)
    if latest:
        candidates.append(latest)
    for sid in candidates:
        try:
            session = load_session(store, sid)
        except (FileNotFoundError, ValueError):
            continue
        state = loop_fold(session.events())
        if not state.started or state.terminal or state.config is None or state.config.dry_run:
            continue
        same = [(p.kind, p.command) for p in state.config.phases] == phases and state.config.cwd == str(cwd)
        if sid == wanted or same:
            return session.session_id
    return None


def cmd_fix(args: argparse.Namespace, store: Path) -> int:
    out = sys.stdout
    cwd = Path.cwd().resolve()
    build, test = getattr(args, "build", None), getattr(args, "test", None)
    dry_run = bool(getattr(args, "dry_run", False))
    progress = Progress(out)
    try:
        sid = None if dry_run else _resumable(store, _cli_phases(build, test), cwd)
        if sid is not None:
            progress.line(f"whetstone fix: resuming session {sid}")
        else:
            session = start_loop(store, build=build, test=test, max_attempts=args.max_attempts,
                                 max_wall_s=args.max_wall, goal=getattr(args, "goal", "") or "build and tests pass",
                                 cwd=cwd, dry_run=dry_run)
            sid = session.session_id
            progress.line(f"whetstone fix: session {sid}")
    except LoopError as exc:
        sys.stderr.write(f"whetstone fix: error: {exc}\n")
        return 2
    os.environ.setdefault("WHETSTONE_SEARCH", "1")  # the loop's test runs search in full (plugin default: a share)
    orchestrator = FeedbackLoopOrchestrator(store, reporter=progress)
    previous = _sigterm_as_interrupt()
    code = 1
    try:
        result = orchestrator.run_to_completion(sid, args.max_wall, dry_run=dry_run)
        code = _summarise(out, progress, orchestrator, sid, result.steps, dry_run)
    except KeyboardInterrupt:
        progress._clear_status()
        progress.line(f"whetstone fix: interrupted; unchecked edits were reverted. Resume with "
                      f"`whetstone step {sid}` or run the same `whetstone fix` again.")
        code = INTERRUPTED
    except LoopError as exc:
        progress._clear_status()
        sys.stderr.write(f"whetstone fix: error: {exc}\n")
        code = 2
    finally:
        signal.signal(signal.SIGTERM, previous)
        session = load_session(store, sid)
        emit(final_verdict(loop_fold(session.events()), session, interrupted=code == INTERRUPTED), out)
    return code


def _cli_phases(build: str | None, test: str | None) -> list[tuple[str, str]]:
    from ..config import ConfigError, load_config
    from ..orchestrate.loop import plan_phases

    try:
        config = load_config()
    except ConfigError:
        return []
    return [(p.kind, p.command) for p in plan_phases(build, test, config)]


def _summarise(
    out: IO[str], progress: Progress, orchestrator: FeedbackLoopOrchestrator, sid: str,
    steps: list[StepResult], dry_run: bool,
) -> int:
    session = load_session(orchestrator.store, sid)
    state = loop_fold(session.events())
    if dry_run:
        would = next((s.would_apply for s in steps if s.would_apply), None)
        if would:
            cand = next(c for c in state.session.candidates if c.candidate_id == would)
            progress.line(f"whetstone fix: dry run: would apply {would} ({cand.mutation_type}, "
                          f"{cand.confidence:.2f}): {cand.description[:160]}")
            try:
                out.write(edits.candidate_diff(cand, session.workspace))
            except edits.EditError as exc:
                progress.line(f"whetstone fix: (cannot show the diff: {exc})")
            return 1
        if state.status != "converged" and state.session.escalation is None:
            progress.line("whetstone fix: dry run: nothing to apply")
    if state.status == "converged":
        kept = [a for a in state.attempts if a.status == "kept"]
        progress.line(f"whetstone fix: converged after {len(steps)} step(s); {len(kept)} fix(es) kept:")
        for attempt in kept:
            progress.line(f"  {attempt.candidate_id}: {attempt.description[:140]} ({', '.join(attempt.files)})")
        return 0
    if state.session.escalation is not None:
        rationale = next((d.get("rationale", "") for d in reversed(state.session.decisions)
                          if d.get("action_type") == "escalate"), "")
        out.write(render_text(state.session.escalation, rationale))
        out.flush()
    return 1


def _sigterm_as_interrupt() -> Any:
    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        return signal.getsignal(signal.SIGTERM)


def cmd_start(args: argparse.Namespace, store: Path) -> int:
    try:
        session = start_loop(store, build=args.build, test=args.test, max_attempts=args.max_attempts,
                             goal=getattr(args, "goal", "") or "build and tests pass")
    except LoopError as exc:
        sys.stderr.write(f"whetstone start: error: {exc}\n")
        return 2
    sys.stdout.write(json.dumps({"session_id": session.session_id, "status": "pending"}) + "\n")
    return 0


def cmd_step(args: argparse.Namespace, store: Path) -> int:
    orchestrator = FeedbackLoopOrchestrator(store)
    try:
        result = orchestrator.step(args.session_id)
    except LoopError as exc:
        sys.stderr.write(f"whetstone step: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        orchestrator.abandon_pending(load_session(store, args.session_id), "interrupted")
        return INTERRUPTED
    sys.stdout.write(json.dumps(result.to_dict(), sort_keys=True) + "\n")
    return 0


def loop_status(store: Path, session_id: str | None) -> dict[str, Any]:
    """Extra fields for `whetstone status` on a loop session (empty for other sessions)."""
    session = load_session(store, session_id)
    state = loop_fold(session.events())
    if not state.started:
        return {}
    return {
        "loop": {
            "steps": state.step_count,
            "fix_attempts": state.fix_attempts,
            "max_attempts": state.config.max_attempts if state.config else None,
            "phases": [p.to_dict() for p in state.config.phases] if state.config else [],
            "gap": state.current_gap.to_dict(),
            "pending": state.pending.candidate_id if state.pending else None,
            "unchecked_files": state.unchecked_files,
            "ledger": file_ledger(state),
            "requirements_gap": state.requirements_gap,
            "memory": memory_status(store, session.session_id, state),
        }
    }


def memory_status(store: Path, session_id: str, state: Any) -> dict[str, Any]:
    """Repository memory as `whetstone status` shows it: totals, and what it knows of the failures now."""
    from ..orchestrate.memory import RepositoryMemory

    memory = RepositoryMemory(store)
    memory.refresh()
    view = state.view or (state.checks[-1] if state.checks else None)
    recall = memory.recall(view.failures if view else [], session_id)
    carried = [e.get("data", {}) for e in load_session(store, session_id).events()
               if e.get("event") == "memory_recalled"]
    return {**memory.summary(limit=5), "for_current_failures": recall.to_dict(), "carried_over": carried}
