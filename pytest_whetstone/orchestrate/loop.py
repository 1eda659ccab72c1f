"""FeedbackLoopOrchestrator (seed 002, steps 1392-1393): one step per call, or run to completion.

A step: load the session and fold it (nothing else holds state), finish what a
killed process left half done, ask the policy, then do exactly one action:

* ``probe_environment`` -- snapshot the toolchain and the requirements gap;
* ``build_iteration`` / ``test_iteration`` -- run the phases in order up to the
  first failure (sense), judge the edit the previous step applied (keep it if
  the gap shrank, revert it through the edit engine otherwise), then select
  and apply the next candidate (act);
* ``converge`` / ``escalate`` -- end the session (escalation with a report and,
  for a requirements gap, a setup script).

Every step is in the audit trail and the session (``loop_step``) before it
returns.  Edits go only through ``edits.apply`` / ``edits.undo``; a
``loop_intent`` event is written before each application so that a process
killed mid-apply is rolled back by the next step (the workspace then holds the
kept improvements or the original content, never a torn edit).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import edits
from ..paths import display_path
from ..records import (
    AuditEntry,
    FixCandidate,
    OrchestratorDecision,
    rank_candidates,
    stable_id,
)
from ..store import events
from ..store.sessions import Session, load_session, warn_line
from . import audit
from .env import (
    build_requirements_gap,
    executables_gap,
    find_packages,
    import_requirements_gap,
    probe_environment,
    requirements_gap,
)
from .escalate import compose, wall_spent, write_setup_script
from .gatecheck import gate_refusal
from .judging import _metric, _stage, assess_progress, final_verdict
from .ledger import failure_of_build, failure_of_test, file_ledger
from .memory import Recall, RepositoryMemory
from .phases import LoopError, PhaseOutcome, PhaseRunner, plan_phases, run_phase, start_loop
from .policy import OrchestratorPolicy, PolicyInput
from .results import LoopResult, Reporter, StepResult
from .select import CandidateAutoSelector, log_selection
from .state import TIMEOUT_COUNT, Attempt, Check, LoopConfig, LoopState, PhaseSpec, loop_fold

# Starting a loop and running a phase live in phases.py; re-exported as this module's API.
__all__ = [
    "FeedbackLoopOrchestrator",
    "LoopError",
    "LoopResult",
    "PhaseOutcome",
    "PhaseRunner",
    "StepResult",
    "final_verdict",
    "assess_progress",
    "plan_phases",
    "run_phase",
    "start_loop",
]

ITERATIONS = ("build_iteration", "test_iteration", "phase_iteration")


def _quiet(kind: str, data: dict[str, Any]) -> None:
    return None


class FeedbackLoopOrchestrator:
    def __init__(
        self,
        store: Path,
        *,
        runner: PhaseRunner = run_phase,
        probe: Callable[[], dict[str, Any]] = probe_environment,
        policy: OrchestratorPolicy | None = None,
        selector: CandidateAutoSelector | None = None,
        reporter: Reporter = _quiet,
        memory: RepositoryMemory | None | bool = True,
    ) -> None:
        self.store = store
        self.runner = runner
        self.probe = probe
        self.policy = policy or OrchestratorPolicy()
        self.selector = selector or CandidateAutoSelector()
        self.report = reporter
        # what earlier sessions in this workspace learned (True: the store's own, made on first use)
        self._memory: RepositoryMemory | None = None if memory is True or memory is False else memory
        self._use_memory = memory is not False

    @property
    def memory(self) -> RepositoryMemory | None:
        if self._memory is None and self._use_memory:
            self._memory = RepositoryMemory(self.store)
        return self._memory

    # -- public API ------------------------------------------------------------
    def state(self, session_id: str) -> LoopState:
        return loop_fold(self._session(session_id).events())

    def step(
        self,
        session_id: str,
        *,
        dry_run: bool = False,
        deadline: float | None = None,
        force: tuple[str, str] | None = None,
    ) -> StepResult:
        """One action; the audit entry is written before this returns (also when it raises)."""
        session = self._session(session_id)
        state = loop_fold(session.events())
        if not state.started:
            raise LoopError(f"session {session_id} is not a loop session (create one with `whetstone start`)")
        if state.terminal:
            raise LoopError(f"session {session_id} is already {state.status}; start a new one")
        started = time.monotonic()
        step_index = state.step_count
        if self._recover(session, state):
            state = loop_fold(session.events())
        gap_before = state.current_gap
        if force is not None:
            decision = OrchestratorDecision("escalate", force[1], 1.0, escalation_reason=force[0])
        else:
            decision = self.policy.decide(PolicyInput.from_state(state))
        self._log_decision(session, decision, step_index, "policy")
        result = StepResult(
            session_id=session.session_id, step_index=step_index, action_taken=decision.action_type,
            rationale=decision.rationale, session_status=state.status, gap=gap_before, gap_before=gap_before,
            decision=decision, gap_before_measured=state.gap_measured,
        )
        self.report("decision", {"step": step_index, "decision": decision})
        error: BaseException | None = None
        try:
            if decision.action_type == "probe_environment":
                self._probe(session, state, result)
            elif decision.action_type == "escalate":
                self._escalate(session, state, decision.escalation_reason, decision.rationale, result)
            elif decision.action_type == "converge":
                self._converge(session, state, result)
            else:
                self._iterate(session, state, step_index, result, dry_run, deadline)
        except BaseException as exc:
            error = exc
            raise
        finally:
            self._finish_step(session, result, started, error)
        return result

    def run_to_completion(
        self,
        session_id: str,
        max_wall_s: float | None = None,
        *,
        dry_run: bool = False,
        escalate_on_wall: bool = True,
    ) -> LoopResult:
        """Step until converged or escalated, or until the wall time is spent; never loops forever."""
        session = self._session(session_id)
        state = loop_fold(session.events())
        if not state.started or state.config is None:
            raise LoopError(f"session {session_id} is not a loop session")
        wall = state.config.max_wall_s if max_wall_s is None else max_wall_s
        deadline = time.monotonic() + max(wall, 0.0)
        # Independent of the policy's own cap: the driver itself can never spin.
        ceiling = state.config.max_steps + 3
        steps: list[StepResult] = []
        try:
            for _ in range(ceiling):
                state = loop_fold(session.events())
                if state.terminal:
                    break
                if time.monotonic() >= deadline:
                    if escalate_on_wall:
                        steps.append(self.step(session_id, force=("max_wall", wall_spent(wall, state))))
                    break
                result = self.step(session_id, dry_run=dry_run, deadline=deadline)
                steps.append(result)
                if dry_run and (result.would_apply or result.action_taken == "converge"):
                    break
            else:
                state = loop_fold(session.events())
                if not state.terminal:
                    steps.append(self.step(session_id, force=("max_attempts", f"driver ceiling of {ceiling} steps")))
        except BaseException:
            # Ctrl-C or a crash: put back an edit no check has measured, keep the rest; resumable.
            self.abandon_pending(session, "interrupted")
            raise
        return self._loop_result(session, steps)

    def abandon_pending(self, session: Session, why: str) -> str | None:
        """Revert the edit no check has measured yet (if any); returns its candidate id."""
        state = loop_fold(session.events())
        pending = state.pending
        if pending is None:
            return None
        session.append(events.LOOP_JUDGED, {
            "intent_id": pending.intent_id, "journal_id": pending.journal_id, "verdict": why,
            "action": "revert", "persisted": None, "gap_after": None, "check_index": -1,
        })
        self._undo(session, pending)
        self.report("reverted", {"candidate_id": pending.candidate_id, "why": why})
        return pending.candidate_id

    # -- actions ---------------------------------------------------------------
    def _probe(self, session: Session, state: LoopState, result: StepResult) -> None:
        config = state.config
        assert config is not None
        workspace = session.workspace
        snapshot = self.probe()
        commands = [p.command for p in config.phases]
        missing = requirements_gap(workspace, commands, Path(config.cwd or workspace))
        session.append(events.ENVIRONMENT, {
            "snapshot": snapshot, "missing": missing, "requires": {"find_package": find_packages(workspace)},
        })
        result.description = (
            f"environment probed; {len(missing)} missing requirement(s)" if missing else "environment probed; nothing missing"
        )

    def _converge(self, session: Session, state: LoopState, result: StepResult) -> None:
        kept = [a.candidate_id for a in state.attempts if a.status == "kept"]
        session.append(events.CONVERGED, {"gap": state.current_gap.to_dict(), "kept": kept})
        result.description = f"converged with {len(kept)} fix(es) kept"

    def _escalate(
        self, session: Session, state: LoopState, reason: str, rationale: str, result: StepResult
    ) -> None:
        if state.pending is not None:
            self.abandon_pending(session, "interrupted")
            state = loop_fold(session.events())
        setup = ""
        if reason == "infra_gap":
            path = write_setup_script(session.store, session.session_id, state.requirements_gap)
            setup = display_path(path)
        report = compose(state, reason, self._live_candidates(state), setup)
        session.append(events.ESCALATED, {"report": report.to_dict(), "rationale": rationale, "ledger": file_ledger(state)})
        result.escalation = report
        result.description = f"escalated: {reason}"

    def _iterate(
        self,
        session: Session,
        state: LoopState,
        step_index: int,
        result: StepResult,
        dry_run: bool,
        deadline: float | None,
    ) -> None:
        config = state.config
        assert config is not None
        pending = state.pending
        check_data = self._run_phases(session, config, step_index, result, deadline)
        session.append(events.LOOP_CHECK, check_data)
        state = loop_fold(session.events())
        if check_data.get("cut_by_wall"):
            # nothing was measured: the pending edit (if any) is put back by the escalation, unjudged
            why = wall_spent(config.max_wall_s, state, check_data.get("phase"))
            self._log_decision(session, OrchestratorDecision("escalate", why, 1.0, escalation_reason="max_wall"),
                               step_index, "post_check")
            self._escalate(session, state, "max_wall", why, result)
            result.rationale = why
            result.description = f"{check_data.get('phase')} cut short by the wall-time budget; escalated (max_wall)"
            return
        check = state.checks[-1]
        notes = [f"{check.phase} {'passed' if check.passed else 'failed'}" + ("" if check.passed else f" ({check.count})")]
        if pending is not None:
            reverted = self._assess(session, state, pending, check)
            state = loop_fold(session.events())
            if reverted:
                result.reverted = pending.candidate_id
                notes.append(f"reverted {pending.candidate_id}")
            else:
                notes.append(f"kept {pending.candidate_id}")
        post = self.policy.decide(PolicyInput.from_state(state))
        self._log_decision(session, post, step_index, "post_check")
        if post.action_type == "converge":
            self._converge(session, state, result)
            notes.append(events.CONVERGED)
        elif post.action_type == "escalate":
            self._escalate(session, state, post.escalation_reason, post.rationale, result)
            result.rationale = post.rationale
            notes.append(f"escalated ({post.escalation_reason})")
        elif state.view is not None and not state.view.passed:
            notes.append(self._select_and_apply(session, state, step_index, result, dry_run))
        result.candidates = rank_candidates(self._live_candidates(state))[:5]
        result.description = "; ".join(n for n in notes if n)

    def _run_phases(
        self, session: Session, config: LoopConfig, step_index: int, result: StepResult, deadline: float | None
    ) -> dict[str, Any]:
        cwd = Path(config.cwd or session.workspace)
        outcome: PhaseOutcome | None = None
        index = 0
        for index, phase in enumerate(config.phases):
            timeout = config.timeout_s
            capped = False
            if deadline is not None and deadline - time.monotonic() < timeout:
                timeout, capped = max(1.0, deadline - time.monotonic()), True
            self.report("phase_start", {"phase": phase.name, "command": phase.command, "step": step_index})
            t0 = time.monotonic()
            mark = len(session.events())
            wall_left = None if deadline is None else max(0.0, deadline - time.monotonic())
            outcome = self.runner(phase, session, timeout, cwd, wall_left_s=wall_left)
            if outcome.interrupted:
                raise KeyboardInterrupt
            failed = outcome.exit_code != 0 or outcome.verdict.failure not in (None, "nondeterminism")
            result.phases.append({
                "phase": phase.name, "exit_code": outcome.exit_code, "failure": outcome.verdict.failure,
                "passed": not failed, "duration_ms": int((time.monotonic() - t0) * 1000),
            })
            self.report("phase_end", {"phase": phase.name, "outcome": outcome, "failed": failed, "step": step_index})
            if outcome.timed_out and capped:
                # the wall-time budget ran out, not the phase: this measured nothing about the code
                return {"step_index": step_index, "phase": phase.name, "phase_index": index, "cut_by_wall": True,
                        "passed": False, "timed_out": True, "exit_code": outcome.exit_code}
            if failed:
                data = self._check_data(session, config, step_index, index, phase, outcome, cwd)
                # the candidates made from *this* run: older ones may carry stale positions and hashes
                data["candidate_ids"] = sorted({
                    str(c.get("candidate_id")) for e in session.events()[mark:] if e.get("event") == "candidates"
                    for c in (e.get("data") or {}).get("records", []) if isinstance(c, dict)
                })
                return data
        last = config.phases[-1]
        return {
            "step_index": step_index, "passed": True, "phase": last.name, "phase_index": len(config.phases),
            "stage": 0, "metric": _metric(last.kind), "count": 0, "failure": None, "first_error": None,
            "exit_code": 0, "timed_out": False, "failures": [], "requirements": [],
            "verdict": outcome.verdict.to_dict() if outcome else {},
        }

    def _check_data(
        self, session: Session, config: LoopConfig, step_index: int, index: int, phase: PhaseSpec,
        outcome: PhaseOutcome, cwd: Path,
    ) -> dict[str, Any]:
        sstate = session.state()
        errors = sstate.failing_errors()
        tests = [t for t in sstate.test_failures if not t.flaky]
        workspace = session.workspace
        if phase.kind == "build":
            tests = []
        elif phase.kind == "test" and tests:
            errors = []
        failures = [failure_of_build(e) for e in errors] + [failure_of_test(t) for t in tests]
        count = max(len(failures), outcome.count, 1)
        stage = _stage(errors, tests, outcome)
        if outcome.timed_out:
            count, stage = TIMEOUT_COUNT, 0
        requirements = build_requirements_gap(errors, workspace) + import_requirements_gap(tests, workspace)
        if outcome.exit_code in (126, 127) and not failures:
            requirements += executables_gap([phase.command], cwd, workspace)
        return {
            "step_index": step_index, "passed": False, "phase": phase.name, "phase_index": index,
            "stage": stage, "metric": _metric(phase.kind), "count": count, "failure": outcome.verdict.failure,
            "first_error": outcome.verdict.first_error, "exit_code": outcome.exit_code,
            "timed_out": outcome.timed_out, "failures": [f.to_dict() for f in failures],
            "requirements": requirements, "verdict": outcome.verdict.to_dict(),
        }

    def _assess(self, session: Session, state: LoopState, attempt: Attempt, check: Check) -> bool:
        """Keep an edit that shrank the gap; revert one that did not.  True when reverted."""
        baseline = state.checks[attempt.check_index] if 0 <= attempt.check_index < len(state.checks) else None
        verdict, persisted = assess_progress(baseline, check, attempt)
        action = "keep" if verdict == "progress" else "revert"
        session.append(events.LOOP_JUDGED, {
            "intent_id": attempt.intent_id, "journal_id": attempt.journal_id, "verdict": verdict,
            "action": action, "persisted": persisted, "gap_after": check.gap.to_dict(), "check_index": check.index,
        })
        if action == "revert":
            self._undo(session, attempt)
            self.report("reverted", {"candidate_id": attempt.candidate_id, "why": verdict})
            return True
        self.report("kept", {"candidate_id": attempt.candidate_id})
        return False

    def _select_and_apply(
        self, session: Session, state: LoopState, step_index: int, result: StepResult, dry_run: bool
    ) -> str:
        view = state.view
        assert view is not None
        candidates = self._live_candidates(state)
        recall = self._recall(session, view, candidates, step_index)
        if recall:
            result.memory = recall.to_dict()
        candidates += recall.replay
        tried = set(state.tried_fingerprints) | recall.exhausted
        by_id = {c.candidate_id: c for c in candidates}
        for _ in range(len(candidates) + 1):
            selection = self.selector.select(candidates, tried, prefer=recall.preferred, avoid=recall.avoided)
            log_selection(session, selection, step_index)
            if selection.action != "apply":
                self._escalate(session, loop_fold(session.events()), selection.escalation_reason,
                               selection.rationale, result)
                result.rationale = selection.rationale
                return f"escalated ({selection.escalation_reason})"
            candidate = by_id[selection.candidate_id]
            if dry_run:
                result.would_apply = candidate.candidate_id
                return f"would apply {candidate.candidate_id}"
            refused = self._gate(session, candidate)
            if refused:
                session.append(events.LOOP_SKIPPED, {
                    "candidate_id": candidate.candidate_id, "fingerprint": candidate.edits_fingerprint(),
                    "reason": refused, "by": "gate",
                })
                tried.add(candidate.edits_fingerprint())
                self.report("skipped", {"candidate_id": candidate.candidate_id, "reason": refused})
                continue
            try:
                self._apply(session, state, candidate, view, step_index)
            except edits.EditError as exc:
                session.append(events.LOOP_SKIPPED, {
                    "candidate_id": candidate.candidate_id, "fingerprint": candidate.edits_fingerprint(),
                    "reason": str(exc),
                })
                tried.add(candidate.edits_fingerprint())
                self.report("skipped", {"candidate_id": candidate.candidate_id, "reason": str(exc)})
                continue
            result.candidate_applied = candidate.candidate_id
            self.report("applied", {"candidate": candidate, "step": step_index})
            note = f"; {recall.describe()}" if recall else ""
            return f"applied {candidate.candidate_id}{note}"
        return "no applicable candidate"

    def _gate(self, session: Session, candidate: FixCandidate) -> str:
        """Why the per-file gate refuses a C/C++ edit, before anything is written ("" to go ahead)."""
        try:
            return gate_refusal(candidate, session.workspace, session.store)
        except Exception as exc:  # noqa: BLE001 - the gate is a shortcut; the full build still judges
            warn_line(f"per-file gate not used: {exc}")
            return ""

    def _recall(self, session: Session, view: Check, live: list[FixCandidate], step_index: int) -> Recall:
        """What earlier sessions learned about the failing records; written to the session when anything."""
        memory = self.memory
        if memory is None or not view.failures:
            return Recall()
        try:
            memory.refresh()
            recall = memory.recall(view.failures, session.session_id)
        except Exception as exc:  # noqa: BLE001 - memory is advice: the loop goes on without it
            warn_line(f"memory: not used this step: {exc}")
            return Recall()
        fresh = {c.edits_fingerprint() for c in live}
        recall.replay = [c for c in recall.replay if c.edits_fingerprint() not in fresh]
        if recall.replay:
            session.append(events.CANDIDATES, {"origin": "memory", "records": [c.to_dict() for c in recall.replay]})
        if recall:
            session.append(events.MEMORY_RECALLED, {"step_index": step_index, **recall.to_dict()})
            self.report("recalled", {"step": step_index, "recall": recall})
        return recall

    def _apply(self, session: Session, state: LoopState, candidate: FixCandidate, view: Check, step_index: int) -> None:
        workspace = session.workspace
        plans = edits.plan(candidate.edits, workspace)  # validates; EditError before any intent
        target = next((f for f in view.failures if f.record_id == candidate.target_id), None)
        intent_id = "I" + stable_id(session.session_id, candidate.candidate_id, step_index, secrets.token_hex(4))
        session.append(events.LOOP_INTENT, {
            "intent_id": intent_id, "step_index": step_index, "candidate_id": candidate.candidate_id,
            "fingerprint": candidate.edits_fingerprint(), "target_id": candidate.target_id,
            "target_fingerprint": target.fingerprint if target else "",
            "target_location": target.location if target else "",
            "files": {p.rel: {"pre": p.before_hash, "post": p.after_hash} for p in plans},
            # text for the torn-edit rollback; a non-UTF-8 file's stray bytes read as U+FFFD, which the edit
            # engine refuses to write, so such a file is left for `whetstone undo` (its journal keeps the bytes)
            "pre_images": {p.rel: None if p.before is None else p.before.decode("utf-8", "replace") for p in plans},
            "check_index": view.index, "gap_before": view.gap.to_dict(),
            "description": candidate.description[:300],
            "candidate": candidate.to_dict(),  # what repository memory can offer again
        })
        try:
            entry = edits.apply(candidate, workspace, session)
        except BaseException as exc:
            # the engine wrote nothing (or put it back): close the intent so it is not "torn"
            session.append(events.LOOP_RECOVERED, {"intent_id": intent_id, "files": [], "reason": f"refused: {exc}"})
            raise
        session.append(events.LOOP_APPLIED, {"intent_id": intent_id, "journal_id": entry.journal_id})

    # -- recovery --------------------------------------------------------------
    def _recover(self, session: Session, state: LoopState) -> bool:
        """Finish what a killed process left: roll back torn applications, complete decided reverts."""
        changed = False
        for attempt in state.torn:
            restored = self._roll_back_torn(session, attempt)
            session.append(events.LOOP_RECOVERED, {"intent_id": attempt.intent_id, "files": restored,
                                              "reason": "application interrupted"})
            self.report("recovered", {"candidate_id": attempt.candidate_id, "files": restored})
            changed = True
        for attempt in state.unfinished_reverts:
            self._undo(session, attempt)
            changed = True
        return changed

    def _roll_back_torn(self, session: Session, attempt: Attempt) -> list[str]:
        workspace = session.workspace
        restored: list[str] = []
        for rel, hashes in sorted(attempt.files.items()):
            try:
                path, rel = edits.resolve_in_workspace(rel, workspace)
                current = path.read_bytes() if path.exists() else None
            except (edits.EditError, OSError) as exc:
                warn_line(f"cannot check {rel} after an interrupted edit: {exc}")
                continue
            now = None if current is None else edits.sha256_bytes(current)
            if now == hashes.get("pre"):
                continue  # never written
            if now != hashes.get("post"):
                warn_line(f"{rel} changed during an interrupted edit; left as it is")
                continue
            pre = attempt.pre_images.get(rel)
            try:
                if pre is None:
                    path.unlink()
                else:
                    edits.apply(edits.whole_file_replacement(rel, current or b"", pre), workspace, None,
                                expected_hashes={rel: now} if now else None)
            except (edits.EditError, OSError) as exc:
                warn_line(f"cannot roll back {rel}: {exc}")
                continue
            restored.append(rel)
        return restored

    def _undo(self, session: Session, attempt: Attempt) -> None:
        try:
            edits.undo(session, attempt.journal_id)
        except edits.EditError as exc:
            warn_line(f"cannot revert {attempt.candidate_id}: {exc}")
            # mark it handled so later steps do not retry forever; the ledger shows it
            session.append(events.LOOP_RECOVERED, {"intent_id": attempt.intent_id, "files": [],
                                              "reason": f"revert failed: {exc}"})

    # -- helpers ---------------------------------------------------------------
    def _session(self, session_id: str) -> Session:
        try:
            return load_session(self.store, session_id)
        except (FileNotFoundError, ValueError) as exc:
            raise LoopError(str(exc)) from exc

    def _live_candidates(self, state: LoopState) -> list[FixCandidate]:
        check = state.view or (state.checks[-1] if state.checks else None)
        if check is None:
            return []
        targets = set(check.record_ids)
        fresh = set(check.candidate_ids)
        return [c for c in state.session.candidates if c.target_id in targets and c.candidate_id in fresh]

    def _log_decision(self, session: Session, decision: OrchestratorDecision, step_index: int, kind: str) -> None:
        session.append(events.DECISION, {"kind": kind, "step_index": step_index, **decision.to_dict()})

    def _finish_step(self, session: Session, result: StepResult, started: float, error: BaseException | None) -> None:
        state = loop_fold(session.events())
        result.session_status = state.status
        result.gap = state.current_gap
        result.duration_ms = int((time.monotonic() - started) * 1000)
        description = result.description or result.action_taken
        if error is not None:
            description = f"{description} (interrupted: {type(error).__name__})"
        entry = AuditEntry(
            step_index=result.step_index,
            action_type=result.action_taken,
            action_description=description,
            candidate_applied=result.candidate_applied,
            gap_before=result.gap_before,
            gap_after=result.gap,
            session_status_after=result.session_status,
            duration_ms=result.duration_ms,
            rationale=result.rationale,
        )
        try:
            audit.append_entry(session.store, session.session_id, entry)
            session.append(events.LOOP_STEP, entry.to_dict())
        except OSError as exc:
            warn_line(f"could not write the audit trail: {exc}")
        self.report("step", {"result": result})

    def _loop_result(self, session: Session, steps: list[StepResult]) -> LoopResult:
        state = loop_fold(session.events())
        return LoopResult(
            session_id=session.session_id,
            final_status=state.status,
            steps_taken=len(steps),
            final_gap=state.current_gap,
            audit_log=audit.read_audit(session.store, session.session_id),
            escalation=state.session.escalation,
            verdict=final_verdict(state, session),
            steps=steps,
        )
