"""The loop's own state: a pure fold over the session's events (seed 004, invariant "state is a fold").

The session fold (``session.fold``) knows records, candidates and applications;
this fold adds what only the orchestrator writes:

``loop_started``   the loop's configuration (phases, budgets, goal)
``environment``    the environment snapshot and the requirements it misses
``loop_check``     one iteration: the phases run in order up to the first failure
                   (``cut_by_wall``: the wall-time budget cut a phase short -- not a measurement)
``loop_intent``    written *before* an edit is applied (pre-images, hashes): a
                   write-ahead record so a killed process can roll a torn edit back
``applied``        (edit engine) the application's journal entry
``loop_judged``    the verdict on an edit once a check measured it: keep or revert
``reverted``       (edit engine) an undo
``loop_recovered`` a torn edit rolled back on resume
``loop_skipped``   a candidate that could not be applied (stale, refused)
``loop_step``      one orchestrator step finished (its audit entry)

Nothing here reads files or the clock; the same events always give the same state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..records import GapModel
from ..store.fold import SessionState, fold

# A timed-out phase counts as worse than any number of failures in it.
TIMEOUT_COUNT = 10**6


@dataclass
class PhaseSpec:
    name: str
    command: str
    kind: str = "build"  # build | test | other
    origin: str = ""  # cli (--build / --test) | config (whetstone.json5); "" in older sessions

    def to_dict(self) -> dict[str, str]:
        out = {"name": self.name, "command": self.command, "kind": self.kind}
        if self.origin:
            out["origin"] = self.origin
        return out


@dataclass
class LoopConfig:
    phases: list[PhaseSpec] = field(default_factory=list)
    max_attempts: int = 8
    max_wall_s: float = 600.0
    timeout_s: float = 120.0
    goal: str = "build and tests pass"
    goal_type: str = "build_and_test"
    workspace: str = ""
    cwd: str = ""
    dry_run: bool = False

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LoopConfig:
        phases = [
            PhaseSpec(str(p.get("name", "")), str(p.get("command", "")), str(p.get("kind", "build")),
                      str(p.get("origin", "")))
            for p in data.get("phases", []) or []
            if isinstance(p, dict)
        ]
        return cls(
            phases=phases,
            max_attempts=int(data.get("max_attempts", 8)),
            max_wall_s=float(data.get("max_wall_s", 600.0)),
            timeout_s=float(data.get("timeout_s", 120.0)),
            goal=str(data.get("goal", "")),
            goal_type=str(data.get("goal_type", "")),
            workspace=str(data.get("workspace", "")),
            cwd=str(data.get("cwd", "")),
            dry_run=bool(data.get("dry_run", False)),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "phases": [p.to_dict() for p in self.phases],
            "max_attempts": self.max_attempts,
            "max_wall_s": self.max_wall_s,
            "timeout_s": self.timeout_s,
            "goal": self.goal,
            "goal_type": self.goal_type,
            "workspace": self.workspace,
            "cwd": self.cwd,
            "dry_run": self.dry_run,
            # the two commands by name, as the seed's start tool stores them
            "build_command": next((p.command for p in self.phases if p.kind == "build"), ""),
            "test_command": next((p.command for p in self.phases if p.kind == "test"), ""),
        }

    @property
    def max_steps(self) -> int:
        """Hard cap on steps: probe, escalate, and per attempt a check plus a re-check after a revert."""
        return 4 + 2 * (max(self.max_attempts, 0) + 1)


@dataclass
class Failure:
    """A failing record as the loop needs it: identity, fingerprint, place."""

    record_id: str
    fingerprint: str
    location: str
    file_path: str = ""
    line: int = 0
    message: str = ""
    kind: str = "build"  # build | test
    failure_class: str = ""  # error_type / failure_type

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Failure:
        return cls(
            record_id=str(data.get("record_id", "")),
            fingerprint=str(data.get("fingerprint", "")),
            location=str(data.get("location", "")),
            file_path=str(data.get("file_path", "")),
            line=int(data.get("line", 0) or 0),
            message=str(data.get("message", "")),
            kind=str(data.get("kind", "build")),
            failure_class=str(data.get("failure_class", "")),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "record_id": self.record_id,
            "fingerprint": self.fingerprint,
            "location": self.location,
            "file_path": self.file_path,
            "line": self.line,
            "message": self.message,
            "kind": self.kind,
            "failure_class": self.failure_class,
        }


@dataclass
class Check:
    """One iteration's measurement of the workspace."""

    index: int  # position among the session's checks
    step_index: int
    passed: bool
    phase: str
    phase_index: int
    stage: int  # within a phase: 0 = earlier stage (compile / collection), 1 = later (link / tests)
    metric: str
    count: int
    failure: str | None = None
    first_error: str | None = None
    exit_code: int = 0
    timed_out: bool = False
    failures: list[Failure] = field(default_factory=list)
    requirements: list[dict[str, Any]] = field(default_factory=list)
    verdict: dict[str, Any] = field(default_factory=dict)
    candidate_ids: list[str] = field(default_factory=list)  # candidates recorded during this check

    @property
    def score(self) -> tuple[int, int, int]:
        """Larger is better: how far the phases got, then the stage, then fewer failures."""
        return (self.phase_index, self.stage, -self.count)

    @property
    def gap(self) -> GapModel:
        return GapModel(self.metric, 0 if self.passed else self.count, 0)

    @property
    def fingerprints(self) -> set[str]:
        return {f.fingerprint for f in self.failures}

    @property
    def record_ids(self) -> list[str]:
        return [f.record_id for f in self.failures]


@dataclass
class Attempt:
    """One fix attempt: an automatic candidate applied by the loop."""

    intent_id: str
    step_index: int
    candidate_id: str
    fingerprint: str  # FixCandidate.edits_fingerprint()
    target_id: str
    target_fingerprint: str
    target_location: str
    files: dict[str, dict[str, Any]]  # rel -> {pre, post}
    pre_images: dict[str, str | None]
    check_index: int  # the check that motivated it (its baseline)
    gap_before: GapModel | None = None
    description: str = ""
    journal_id: str = ""  # set once the engine journaled it
    status: str = "intent"  # intent | pending | kept | reverted | recovered
    verdict: str = ""  # progress | same | worse | interrupted | recovered
    persisted: bool | None = None  # did the target failure survive (None: not re-checked)
    gap_after: GapModel | None = None
    judged_by: int = -1  # the check that judged it
    revert_done: bool = False

    @property
    def judged(self) -> bool:
        return self.verdict in ("progress", "same", "worse")

    @property
    def counts_as_tried(self) -> bool:
        return self.judged or self.status in ("pending", "intent")


@dataclass
class LoopState:
    session: SessionState
    config: LoopConfig | None = None
    started: bool = False
    environment_verified: bool = False
    environment: dict[str, Any] | None = None
    env_missing: list[dict[str, Any]] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # fingerprints refused by the engine
    steps: list[dict[str, Any]] = field(default_factory=list)
    # The check that describes the workspace as it is now (None: must re-check first).
    view: Check | None = None
    foreign_changes: int = 0  # applications / undos the loop did not make

    @property
    def status(self) -> str:
        return self.session.status

    @property
    def terminal(self) -> bool:
        return self.session.terminal

    @property
    def step_count(self) -> int:
        return len(self.steps)

    @property
    def pending(self) -> Attempt | None:
        for attempt in reversed(self.attempts):
            if attempt.status == "pending":
                return attempt
        return None

    @property
    def torn(self) -> list[Attempt]:
        """Intents whose application never got journaled: a kill mid-apply may have left them half done."""
        return [a for a in self.attempts if a.status == "intent"]

    @property
    def unfinished_reverts(self) -> list[Attempt]:
        return [a for a in self.attempts if a.status == "reverted" and not a.revert_done]

    @property
    def fix_attempts(self) -> int:
        return len([a for a in self.attempts if a.judged or a.status == "pending"])

    @property
    def verdicts(self) -> list[str]:
        return [a.verdict for a in self.attempts if a.judged]

    @property
    def tried_fingerprints(self) -> set[str]:
        tried = {a.fingerprint for a in self.attempts if a.counts_as_tried}
        tried.update(self.skipped)
        # applications made outside the loop (`whetstone apply`) count too
        loop_journals = {a.journal_id for a in self.attempts}
        for applied in self.session.applied:
            if applied.get("journal_id") not in loop_journals and applied.get("fingerprint"):
                tried.add(str(applied["fingerprint"]))
        return tried

    @property
    def requirements_gap(self) -> list[dict[str, Any]]:
        missing = list(self.env_missing)
        seen = {(m.get("kind"), m.get("name")) for m in missing}
        for extra in self.view.requirements if self.view else []:
            key = (extra.get("kind"), extra.get("name"))
            if key not in seen:
                seen.add(key)
                missing.append(extra)
        return missing

    @property
    def gap_measured(self) -> bool:
        """False until a check (or the environment probe) has measured anything."""
        return bool(self.requirements_gap or self.view or self.checks)

    @property
    def current_gap(self) -> GapModel:
        if self.requirements_gap:
            return GapModel("requirements", len(self.requirements_gap), 0)
        check = self.view or (self.checks[-1] if self.checks else None)
        if check is None:
            return GapModel("error_count", 0, 0)
        return check.gap

    @property
    def unchecked_files(self) -> list[str]:
        """Files edited since the last check that measured them: never counted as clean."""
        out: list[str] = []
        for attempt in self.attempts:
            if attempt.status in ("pending", "intent"):
                out.extend(f for f in attempt.files if f not in out)
        return out


class _LoopFolder:
    def __init__(self, session: SessionState) -> None:
        self.state = LoopState(session=session)
        self.by_intent: dict[str, Attempt] = {}
        self.by_journal: dict[str, Attempt] = {}

    def feed(self, event: dict[str, Any]) -> None:
        data = event.get("data") or {}
        if not isinstance(data, dict):
            return
        handler = getattr(self, f"_on_{event.get('event')}", None)
        if handler is None:
            return
        try:
            handler(data)
        except (TypeError, ValueError, KeyError, AttributeError):
            pass  # the session fold already warned about malformed events

    def _on_loop_started(self, data: dict[str, Any]) -> None:
        self.state.started = True
        self.state.config = LoopConfig.from_dict(data)

    def _on_environment(self, data: dict[str, Any]) -> None:
        self.state.environment_verified = True
        self.state.environment = data.get("snapshot", data)
        self.state.env_missing = [m for m in data.get("missing", []) if isinstance(m, dict)]

    def _on_loop_check(self, data: dict[str, Any]) -> None:
        st = self.state
        if data.get("cut_by_wall"):
            return  # the wall-time budget cut a phase short: it measured nothing
        check = Check(
            index=len(st.checks),
            step_index=int(data.get("step_index", 0)),
            passed=bool(data.get("passed")),
            phase=str(data.get("phase", "")),
            phase_index=int(data.get("phase_index", 0)),
            stage=int(data.get("stage", 0)),
            metric=str(data.get("metric", "error_count")),
            count=int(data.get("count", 0)),
            failure=data.get("failure"),
            first_error=data.get("first_error"),
            exit_code=int(data.get("exit_code", 0) or 0),
            timed_out=bool(data.get("timed_out")),
            failures=[Failure.from_dict(f) for f in data.get("failures", []) if isinstance(f, dict)],
            requirements=[r for r in data.get("requirements", []) if isinstance(r, dict)],
            verdict=dict(data.get("verdict") or {}),
            candidate_ids=[str(c) for c in data.get("candidate_ids", []) or []],
        )
        st.checks.append(check)
        st.view = check

    def _on_loop_intent(self, data: dict[str, Any]) -> None:
        gap = data.get("gap_before")
        attempt = Attempt(
            intent_id=str(data["intent_id"]),
            step_index=int(data.get("step_index", 0)),
            candidate_id=str(data.get("candidate_id", "")),
            fingerprint=str(data.get("fingerprint", "")),
            target_id=str(data.get("target_id", "")),
            target_fingerprint=str(data.get("target_fingerprint", "")),
            target_location=str(data.get("target_location", "")),
            files={str(k): dict(v) for k, v in (data.get("files") or {}).items()},
            pre_images={str(k): v for k, v in (data.get("pre_images") or {}).items()},
            check_index=int(data.get("check_index", -1)),
            gap_before=GapModel.from_dict(gap) if isinstance(gap, dict) else None,
            description=str(data.get("description", "")),
        )
        self.state.attempts.append(attempt)
        self.by_intent[attempt.intent_id] = attempt

    def _on_applied(self, data: dict[str, Any]) -> None:
        journal_id = str(data.get("journal_id", ""))
        # the engine's journal entry for the loop's latest intent on this candidate
        for attempt in reversed(self.state.attempts):
            if attempt.status == "intent" and attempt.candidate_id == data.get("candidate_id"):
                attempt.status = "pending"
                attempt.journal_id = journal_id
                self.by_journal[journal_id] = attempt
                return
        self.state.foreign_changes += 1
        self.state.view = None  # someone else edited the workspace: measure again

    def _on_loop_applied(self, data: dict[str, Any]) -> None:
        attempt = self.by_intent.get(str(data.get("intent_id", "")))
        if attempt is not None and attempt.status == "intent":
            attempt.status = "pending"
            attempt.journal_id = str(data.get("journal_id", ""))
            self.by_journal[attempt.journal_id] = attempt

    def _on_loop_judged(self, data: dict[str, Any]) -> None:
        attempt = self.by_intent.get(str(data.get("intent_id", "")))
        if attempt is None:
            return
        attempt.verdict = str(data.get("verdict", ""))
        attempt.status = "kept" if data.get("action") == "keep" else "reverted"
        persisted = data.get("persisted")
        attempt.persisted = None if persisted is None else bool(persisted)
        gap = data.get("gap_after")
        attempt.gap_after = GapModel.from_dict(gap) if isinstance(gap, dict) else None
        attempt.judged_by = int(data.get("check_index", -1))
        if attempt.status == "reverted":
            self.state.view = None  # the check measured the edit, which is now gone

    def _on_reverted(self, data: dict[str, Any]) -> None:
        attempt = self.by_journal.get(str(data.get("journal_id", "")))
        if attempt is None:
            self.state.foreign_changes += 1
            self.state.view = None
            return
        attempt.revert_done = True
        if attempt.status == "pending":  # an undo nobody judged (interrupt, `whetstone undo`)
            attempt.status = "reverted"
            attempt.verdict = attempt.verdict or "interrupted"
        self.state.view = None

    def _on_loop_recovered(self, data: dict[str, Any]) -> None:
        attempt = self.by_intent.get(str(data.get("intent_id", "")))
        if attempt is not None:
            attempt.status = "recovered"
            attempt.verdict = "recovered"
            attempt.revert_done = True
        self.state.view = None

    def _on_loop_skipped(self, data: dict[str, Any]) -> None:
        fingerprint = str(data.get("fingerprint", ""))
        if fingerprint and fingerprint not in self.state.skipped:
            self.state.skipped.append(fingerprint)

    def _on_loop_step(self, data: dict[str, Any]) -> None:
        self.state.steps.append(data)


def loop_fold(events: list[dict[str, Any]]) -> LoopState:
    """LoopState from a session's events (pure)."""
    folder = _LoopFolder(fold(events))
    for event in events:
        folder.feed(event)
    return folder.state
