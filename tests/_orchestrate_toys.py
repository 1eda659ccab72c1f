"""A tiny in-process "toolchain" for the orchestrator's unit tests.

The orchestrator's logic (policy, selection, keep/revert, escalation, audit)
is tested against this fast, deterministic phase runner; the real toolchains
(make + gcc/ccwrap, pytest) are exercised end to end in test_loop_e2e.py.

The toy language: ``prog.txt`` holds words.  The *build* phase reports one
error per occurrence of a known misspelling, with rename candidates taken from
the rule table; the *tests* phase fails while a line reads ``answer = N`` with
N != 42.  Records, candidates, attempts and verdicts are written to the
session in the same event shapes the real runner writes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_whetstone.candidates.hashing import record_hashes
from pytest_whetstone.orchestrate.loop import PhaseOutcome
from pytest_whetstone.orchestrate.state import PhaseSpec
from pytest_whetstone.records import (
    AttemptRecord,
    BuildErrorRecord,
    FixCandidate,
    GapModel,
    Position,
    TestFailureRecord,
    TextEdit,
)
from pytest_whetstone.store.sessions import Session
from pytest_whetstone.verdict import make_verdict

# (replacement, confidence, mutation_type); "MANUAL" makes a manual candidate.
Fix = tuple[str, float, str]


@dataclass
class Toy:
    # misspelling -> candidate fixes for it
    rules: dict[str, list[Fix]] = field(default_factory=dict)
    # answer value -> candidate fixes (replacement text for the number)
    answer_fixes: list[Fix] = field(default_factory=list)
    answer: int = 42
    runs: list[str] = field(default_factory=list)
    hook: Callable[[PhaseSpec], None] | None = None

    def __call__(self, phase: PhaseSpec, session: Session, timeout: float | None, cwd: Path, *,
                 wall_left_s: float | None = None) -> PhaseOutcome:
        self.runs.append(phase.name)
        if self.hook is not None:
            self.hook(phase)
        ws = session.workspace
        text = (ws / "prog.txt").read_text(encoding="utf-8")
        if phase.kind == "build":
            return self._build(phase, session, ws, text)
        return self._tests(phase, session, ws, text)

    def _build(self, phase: PhaseSpec, session: Session, ws: Path, text: str) -> PhaseOutcome:
        errors: list[BuildErrorRecord] = []
        cands: list[FixCandidate] = []
        for n, line in enumerate(text.splitlines(), start=1):
            for m in re.finditer(r"[A-Za-z_]+", line):
                word = m.group(0)
                if word not in self.rules:
                    continue
                err = BuildErrorRecord(
                    tool="gcc", file_path="prog.txt", line=n, col=m.start() + 1,
                    message=f"'{word}' undeclared", error_type="undefined_symbol", symbol=word,
                    raw=f"prog.txt:{n}:{m.start() + 1}: error: '{word}' undeclared",
                ).ensure_id()
                errors.append(err)
                for new, conf, kind in self.rules[word]:
                    cands.append(_candidate(ws, err.error_id, n, m.start() + 1, m.end() + 1, word, new, conf, kind))
        return self._record(phase, session, errors, [], cands)

    def _tests(self, phase: PhaseSpec, session: Session, ws: Path, text: str) -> PhaseOutcome:
        failures: list[TestFailureRecord] = []
        cands: list[FixCandidate] = []
        for n, line in enumerate(text.splitlines(), start=1):
            m = re.match(r"answer = (-?\d+)$", line)
            if m and int(m.group(1)) != self.answer:
                fail = TestFailureRecord(
                    runner="pytest", test_suite="test_prog", test_name="test_answer",
                    node_id="test_prog.py::test_answer", failure_type="assertion",
                    expected_value=str(self.answer), actual_value=m.group(1),
                    message=f"assert {m.group(1)} == {self.answer}", impl_file="prog.txt", impl_line=n,
                ).ensure_id()
                failures.append(fail)
                for new, conf, kind in self.answer_fixes:
                    cands.append(_candidate(ws, fail.failure_id, n, 10, 10 + len(m.group(1)), m.group(1), new, conf, kind))
        return self._record(phase, session, [], failures, cands)

    def _record(
        self, phase: PhaseSpec, session: Session, errors: list[BuildErrorRecord],
        failures: list[TestFailureRecord], cands: list[FixCandidate],
    ) -> PhaseOutcome:
        origin = f"run:{phase.name}"
        session.append("build_errors", {"origin": origin, "records": [e.to_dict() for e in errors], "clean_tus": []})
        if phase.kind == "test":
            session.append("test_failures", {"origin": origin, "records": [f.to_dict() for f in failures], "replace": True})
        if cands:
            session.append("candidates", {"records": [c.to_dict() for c in cands]})
        count = len(errors) + len(failures)
        metric = "test_failure_count" if phase.kind == "test" else "error_count"
        failure = None if not count else ("test-failure" if failures else "compile-error")
        first = errors[0] if errors else None
        first_error = f"{first.file_path}:{first.line}" if first else (f"prog.txt:{failures[0].impl_line}" if failures else None)
        attempt = AttemptRecord(attempt_id=f"A{len(self.runs)}", session_id=session.session_id,
                                action="test" if phase.kind == "test" else "build", phase=phase.name,
                                command=phase.command, exit_code=1 if count else 0,
                                outcome="failure" if count else "success", gap_after=GapModel(metric, count, 0))
        session.append("attempt", {"attempt": attempt.to_dict()})
        verdict = make_verdict(phase.command, failure, phase=phase.name, first_error=first_error)
        return PhaseOutcome(1 if count else 0, verdict, count=count)


def _candidate(ws: Path, target: str, line: int, c0: int, c1: int, old: str, new: str, conf: float, kind: str) -> FixCandidate:
    if kind == "MANUAL":
        cand = FixCandidate(target_id=target, description=f"rewrite {old!r} by hand ({new})",
                            confidence=conf, mutation_type="manual", source="rule")
    else:
        cand = FixCandidate(
            target_id=target, description=f"replace {old!r} with {new!r}", confidence=conf,
            mutation_type=kind, source="heuristic",
            edits=[TextEdit("prog.txt", Position(line, c0), Position(line, c1), new)],
        )
    return record_hashes(cand.ensure_id(), ws)


def make_workspace(tmp: Path, prog: str) -> Path:
    ws = tmp / "ws"
    ws.mkdir()
    (ws / ".git").mkdir()  # a project root marker: the store is created here
    (ws / "prog.txt").write_text(prog, encoding="utf-8")
    (ws / ".whetstone").mkdir()
    return ws
