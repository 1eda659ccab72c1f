"""FeedbackLoopOrchestrator.step / run_to_completion (seed 002, steps 1392-1393) and the seed-004 lessons.

Driven by the in-process toy toolchain of ``_orchestrate_toys`` through the real
session store and the real edit engine; the real toolchains are in test_loop_e2e.py.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest
from _orchestrate_toys import Toy, make_workspace

from pytest_whetstone.config import Config
from pytest_whetstone.orchestrate import audit
from pytest_whetstone.orchestrate.loop import FeedbackLoopOrchestrator, LoopError, start_loop
from pytest_whetstone.orchestrate.state import loop_fold
from pytest_whetstone.store.sessions import find_store, load_session

GOOD = {"totl": [("total", 0.9, "rename")], "cnt": [("count", 0.8, "rename")]}


def _setup(tmp_path: Path, prog: str, toy: Toy, *, build: bool = True, test: bool = True,
           max_attempts: int = 8) -> tuple[FeedbackLoopOrchestrator, str, Path]:
    ws = make_workspace(tmp_path, prog)
    store = find_store(ws)
    session = start_loop(store, build="echo build" if build else None, test="echo test" if test else None,
                         cwd=ws, config=Config(), max_attempts=max_attempts)
    orch = FeedbackLoopOrchestrator(store, runner=toy, probe=lambda: {"python": {"version": "toy"}})
    return orch, session.session_id, ws


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ----------------------------------------------------------------------------- step


def test_step_runs_and_probes_first(tmp_path: Path) -> None:
    orch, sid, _ = _setup(tmp_path, "x = totl\n", Toy(rules=GOOD))
    r = orch.step(sid)
    assert r.action_taken == "probe_environment"
    assert orch.state(sid).environment_verified
    assert r.session_status == "pending"


def test_step_action_matches_policy_and_applies_mutation(tmp_path: Path) -> None:
    toy = Toy(rules=GOOD)
    orch, sid, ws = _setup(tmp_path, "x = totl\n", toy)
    orch.step(sid)
    r = orch.step(sid)
    assert r.action_taken == "build_iteration" and toy.runs == ["build"]
    assert r.candidate_applied and (ws / "prog.txt").read_text() == "x = total\n"
    state = orch.state(sid)
    assert state.pending is not None and state.unchecked_files == ["prog.txt"]


def test_step_records_attempt_in_session(tmp_path: Path) -> None:
    orch, sid, _ = _setup(tmp_path, "x = totl\n", Toy(rules=GOOD))
    orch.step(sid)
    orch.step(sid)
    state = orch.state(sid)
    assert len(state.checks) == 1 and state.fix_attempts == 1
    assert state.session.attempts and state.session.attempts[-1].phase == "build"
    assert state.attempts[0].gap_before is not None and state.attempts[0].gap_before.current == 1


def test_step_converges_when_gap_is_zero(tmp_path: Path) -> None:
    orch, sid, _ = _setup(tmp_path, "x = fine\nanswer = 42\n", Toy(rules=GOOD))
    orch.step(sid)
    r = orch.step(sid)
    assert r.session_status == "converged" and r.gap.current == 0


def test_step_escalates_at_max_attempts(tmp_path: Path) -> None:
    toy = Toy(rules={"totl": [("tot", 0.9, "rename"), ("tota", 0.8, "rename"), ("totx", 0.7, "rename")],
                     "tot": [], "tota": [], "totx": []})
    toy.rules["tot"] = toy.rules["tota"] = toy.rules["totx"] = []
    orch, sid, _ = _setup(tmp_path, "x = totl\n", toy, max_attempts=1)
    results = [orch.step(sid) for _ in range(3)]
    assert results[-1].session_status == "escalated"
    assert results[-1].escalation is not None and results[-1].escalation.escalation_reason == "max_attempts"
    assert orch.state(sid).fix_attempts == 1


def test_worsening_trend_triggers_escalation_and_reverts(tmp_path: Path) -> None:
    # every candidate replaces the error with two new ones
    toy = Toy(rules={"totl": [("aa bb", 0.9, "rename"), ("cc dd", 0.8, "rename"), ("total", 0.1, "rename")],
                     "aa": [], "bb": [], "cc": [], "dd": []})
    orch, sid, ws = _setup(tmp_path, "x = totl\n", toy)
    before = _sha(ws / "prog.txt")
    result = orch.run_to_completion(sid, 30)
    assert result.final_status == "escalated"
    assert result.escalation is not None and result.escalation.escalation_reason == "worsening_trend"
    assert _sha(ws / "prog.txt") == before  # both bad edits were reverted
    outcomes = [s.outcome for s in result.escalation.attempts_summary]
    assert outcomes == ["reverted_worse", "reverted_worse"]


def test_escalation_report_present_when_escalated(tmp_path: Path) -> None:
    toy = Toy(rules={"totl": [("rewrite it", 0.9, "MANUAL")]})
    orch, sid, _ = _setup(tmp_path, "x = totl\n", toy)
    orch.step(sid)
    r = orch.step(sid)
    assert r.session_status == "escalated" and r.escalation is not None
    assert r.escalation.escalation_reason == "manual_required"
    assert orch.state(sid).session.escalation == r.escalation


def test_step_result_includes_gap_and_candidates(tmp_path: Path) -> None:
    orch, sid, _ = _setup(tmp_path, "x = totl\ny = cnt\n", Toy(rules=GOOD))
    orch.step(sid)
    r = orch.step(sid)
    assert (r.gap_before.current, r.gap.current) == (0, 2)
    assert r.gap_before_measured is False  # the first check measures; "0" before it is no reading
    assert r.gap.metric_type == "error_count"
    assert {c.description for c in r.candidates} >= {"replace 'totl' with 'total'"}
    assert r.to_dict()["gap"]["current"] == 2
    assert orch.step(sid).gap_before_measured is True


def test_terminal_session_step_is_an_error(tmp_path: Path) -> None:
    orch, sid, _ = _setup(tmp_path, "answer = 42\n", Toy())
    orch.run_to_completion(sid, 30)
    with pytest.raises(LoopError, match="already converged"):
        orch.step(sid)
    with pytest.raises(LoopError, match="unknown session"):
        orch.step("nope")


def test_step_deterministic_output(tmp_path: Path) -> None:
    def run(sub: str) -> list[tuple[str, str | None, int, str]]:
        (tmp_path / sub).mkdir()
        orch, sid, _ = _setup(tmp_path / sub, "x = totl\ny = cnt\nanswer = 41\n",
                              Toy(rules=GOOD, answer_fixes=[("42", 0.5, "replaceNode")]))
        out = []
        for _ in range(6):
            r = orch.step(sid)
            out.append((r.action_taken, r.candidate_applied, r.gap.current, r.session_status))
            if r.session_status in ("converged", "escalated"):
                break
        return out

    assert run("a") == run("b")


# ----------------------------------------------------------------------------- run_to_completion


def test_run_returns_on_convergence(tmp_path: Path) -> None:
    toy = Toy(rules=GOOD, answer_fixes=[("40", 0.6, "replaceNode"), ("42", 0.5, "replaceNode")])
    orch, sid, ws = _setup(tmp_path, "x = totl\ny = cnt\nanswer = 41\n", toy)
    result = orch.run_to_completion(sid, 30)
    assert result.final_status == "converged" and result.final_gap.current == 0
    assert (ws / "prog.txt").read_text() == "x = total\ny = count\nanswer = 42\n"
    assert result.verdict.status == "pass"


def test_run_returns_on_escalation(tmp_path: Path) -> None:
    orch, sid, _ = _setup(tmp_path, "x = totl\n", Toy(rules={"totl": []}))
    result = orch.run_to_completion(sid, 30)
    assert result.final_status == "escalated" and result.escalation is not None
    assert result.verdict.status == "fail" and result.verdict.phase == "build"


def test_run_respects_wall_time(tmp_path: Path) -> None:
    names = [f"t{c}" for c in "abcdefgh"]
    toy = Toy(rules={"totl": [(n, 0.9 - i / 100, "rename") for i, n in enumerate(names)]})
    for n in names:
        toy.rules[n] = [("totl", 0.9, "rename")]  # each fix just swaps the misspelling
    toy.hook = lambda phase: time.sleep(0.3)
    orch, sid, _ = _setup(tmp_path, "x = totl\n", toy)
    t0 = time.monotonic()
    result = orch.run_to_completion(sid, 1.0)
    assert time.monotonic() - t0 < 5
    assert result.final_status == "escalated"
    assert result.escalation is not None and result.escalation.escalation_reason in ("max_wall", "no_progress")


def test_audit_log_one_entry_per_step(tmp_path: Path) -> None:
    orch, sid, ws = _setup(tmp_path, "x = totl\ny = cnt\n", Toy(rules=GOOD))
    result = orch.run_to_completion(sid, 30)
    assert [a.step_index for a in result.audit_log] == list(range(result.steps_taken))
    assert audit.read_audit(ws / ".whetstone", sid) == result.audit_log


def test_fix_attempts_never_exceed_max_attempts(tmp_path: Path) -> None:
    names = [f"w{c}" for c in "abcdefghij"]
    toy = Toy(rules={"totl": [(n, 0.9 - i / 100, "rename") for i, n in enumerate(names)]})
    for n in names:
        toy.rules[n] = []  # each fix leaves one (different) error: no progress
    orch, sid, _ = _setup(tmp_path, "x = totl\n", toy, max_attempts=2)
    result = orch.run_to_completion(sid, 30)
    assert orch.state(sid).fix_attempts <= 2
    assert result.steps_taken <= loop_fold(load_session(orch.store, sid).events()).config.max_steps  # type: ignore[union-attr]


def test_gap_trend_visible_in_audit_log(tmp_path: Path) -> None:
    orch, sid, _ = _setup(tmp_path, "a totl\nb cnt\nc totl\n", Toy(rules=GOOD))
    result = orch.run_to_completion(sid, 30)
    trend = [a.gap_after.current for a in result.audit_log if a.gap_after is not None]
    assert trend[0] == 0 and trend[1] == 3 and trend[-1] == 0  # probe, first check, converged
    assert trend[1:] == sorted(trend[1:], reverse=True) and result.final_status == "converged"


def test_escalation_report_in_last_audit_entry(tmp_path: Path) -> None:
    orch, sid, _ = _setup(tmp_path, "x = totl\n", Toy(rules={"totl": [("by hand", 0.5, "MANUAL")]}))
    result = orch.run_to_completion(sid, 30)
    last = result.audit_log[-1]
    assert last.session_status_after == "escalated" and "escalated" in last.action_description
    assert last.rationale


def test_run_deterministic_for_deterministic_inputs(tmp_path: Path) -> None:
    def run(sub: str) -> list[tuple[str, str | None, str]]:
        (tmp_path / sub).mkdir()
        orch, sid, _ = _setup(tmp_path / sub, "x = totl\ny = cnt\n", Toy(rules=GOOD))
        res = orch.run_to_completion(sid, 30)
        return [(a.action_type, a.candidate_applied, a.session_status_after) for a in res.audit_log]

    assert run("a") == run("b")


def test_session_persisted_at_end_and_resumable_view(tmp_path: Path) -> None:
    orch, sid, ws = _setup(tmp_path, "x = totl\n", Toy(rules=GOOD))
    orch.run_to_completion(sid, 30)
    again = loop_fold(load_session(ws / ".whetstone", sid).events())
    assert again.status == "converged" and [a.status for a in again.attempts] == ["kept"]


def test_no_infinite_loop_possible_even_with_a_policy_that_never_ends(tmp_path: Path) -> None:
    from pytest_whetstone.orchestrate.policy import OrchestratorPolicy
    from pytest_whetstone.records import OrchestratorDecision

    class Forever(OrchestratorPolicy):
        def decide(self, inp):  # type: ignore[no-untyped-def,override]
            return OrchestratorDecision("build_iteration", "again and again", 0.5)

    toy = Toy(rules={"totl": []})
    ws = make_workspace(tmp_path, "x = totl\n")
    store = find_store(ws)
    sid = start_loop(store, build="echo b", cwd=ws, config=Config(), max_attempts=2).session_id
    orch = FeedbackLoopOrchestrator(store, runner=toy, probe=dict, policy=Forever())
    result = orch.run_to_completion(sid, 30)
    assert result.final_status == "escalated" and result.steps_taken <= 4 + 2 * 3 + 4


# ----------------------------------------------------------------------------- seed 004 lessons


def test_loop_breaker_same_fingerprint_after_two_edits_to_one_place(tmp_path: Path) -> None:
    # the candidates change another word of the same file; the error stays exactly the same
    toy = Toy(rules={"totl": []})
    ws = make_workspace(tmp_path, "x = totl\nkeep a\n")
    store = find_store(ws)
    sid = start_loop(store, build="echo b", cwd=ws, config=Config()).session_id
    from pytest_whetstone.records import FixCandidate, Position, TextEdit

    def runner(phase, session, timeout, cwd, **_kw):  # type: ignore[no-untyped-def]
        out = toy(phase, session, timeout, cwd)
        state = session.state()
        target = state.failing_errors()[0].error_id
        cands = [FixCandidate(target_id=target, description=f"touch {w}", confidence=c, mutation_type="replaceNode",
                              edits=[TextEdit("prog.txt", Position(2, 6), Position(2, 7), w)]).ensure_id()
                 for w, c in (("b", 0.9), ("c", 0.8), ("d", 0.7))]
        session.append("candidates", {"records": [c.to_dict() for c in cands]})
        return out

    orch = FeedbackLoopOrchestrator(store, runner=runner, probe=dict)
    result = orch.run_to_completion(sid, 30)
    assert result.escalation is not None
    assert result.escalation.escalation_reason == "repeated_failure"
    assert result.escalation.attempts_made == 2
    assert (ws / "prog.txt").read_text() == "x = totl\nkeep a\n"


def test_unchecked_edit_is_not_clean_and_is_reverted_on_interrupt(tmp_path: Path) -> None:
    toy = Toy(rules=GOOD)
    orch, sid, ws = _setup(tmp_path, "x = totl\n", toy)
    original = _sha(ws / "prog.txt")
    orch.step(sid)
    orch.step(sid)  # applies the fix; nothing has re-checked it
    state = orch.state(sid)
    assert state.unchecked_files == ["prog.txt"] and state.pending is not None
    assert state.status != "converged"

    def interrupt(phase):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    toy.hook = interrupt
    with pytest.raises(KeyboardInterrupt):
        orch.run_to_completion(sid, 30)
    assert _sha(ws / "prog.txt") == original  # back to the original: the edit was never measured
    state = orch.state(sid)
    assert state.unchecked_files == [] and not state.terminal
    toy.hook = None
    assert orch.run_to_completion(sid, 30).final_status == "converged"  # resumes from the log
    assert (ws / "prog.txt").read_text() == "x = total\n"


def test_torn_application_is_rolled_back_on_resume(tmp_path: Path) -> None:
    """The state a SIGKILL between the intent and the journal leaves: file written, no `applied` event."""
    orch, sid, ws = _setup(tmp_path, "x = totl\n", Toy(rules=GOOD))
    orch.step(sid)
    orch.step(sid)
    session = load_session(ws / ".whetstone", sid)
    events = session.events()
    # rewrite the log without the journal entry, as if the process died inside edits.apply
    cut = [e for e in events if e["event"] not in ("applied", "loop_applied")]
    session.path.write_text("".join(__import__("json").dumps(e) + "\n" for e in cut))
    assert (ws / "prog.txt").read_text() == "x = total\n"
    assert loop_fold(session.events()).torn
    r = orch.step(sid)  # recovery first, then a fresh check of the original
    assert r.action_taken == "build_iteration"
    state = orch.state(sid)
    assert [a.status for a in state.attempts][0] == "recovered"
    assert orch.run_to_completion(sid, 30).final_status == "converged"


def test_edit_that_made_gap_worse_is_reverted_before_next_step(tmp_path: Path) -> None:
    toy = Toy(rules={"totl": [("aa bb", 0.9, "rename"), ("total", 0.5, "rename")], "aa": [], "bb": []})
    orch, sid, ws = _setup(tmp_path, "x = totl\n", toy)
    orch.step(sid)
    orch.step(sid)
    assert (ws / "prog.txt").read_text() == "x = aa bb\n"
    r = orch.step(sid)
    assert r.reverted and (ws / "prog.txt").read_text() == "x = totl\n"
    assert orch.state(sid).attempts[0].verdict == "worse"
    assert orch.run_to_completion(sid, 30).final_status == "converged"


def test_stale_candidate_refused_by_engine_is_skipped(tmp_path: Path) -> None:
    toy = Toy(rules=GOOD)
    orch, sid, ws = _setup(tmp_path, "x = totl\n", toy)
    orch.step(sid)
    # someone edits the file between the check and the apply: the candidate's hashes no longer match
    toy.hook = lambda phase: None
    real = toy._build

    def build_then_touch(phase, session, ws_, text):  # type: ignore[no-untyped-def]
        out = real(phase, session, ws_, text)
        (ws_ / "prog.txt").write_text(text + "\n")
        return out

    toy._build = build_then_touch  # type: ignore[method-assign]
    r = orch.step(sid)
    assert r.candidate_applied is None
    assert any(e["event"] == "loop_skipped" for e in load_session(ws / ".whetstone", sid).events())


def test_undo_through_engine_restores_bytes(tmp_path: Path) -> None:
    orch, sid, ws = _setup(tmp_path, "x = totl\r\nno newline", Toy(rules={"totl": [("aa bb", 0.9, "rename")],
                                                                         "aa": [], "bb": []}))
    before = (ws / "prog.txt").read_bytes()
    orch.step(sid)
    orch.step(sid)
    orch.step(sid)
    assert (ws / "prog.txt").read_bytes() == before
    assert orch.state(sid).attempts[0].status == "reverted"


def test_the_loop_search_budget_follows_the_wall_time_left() -> None:
    from pytest_whetstone.orchestrate.phases import loop_search_budget

    assert loop_search_budget(20.0, None) == 20.0  # outside a loop: the configured budget
    assert loop_search_budget(20.0, 100.0) == 50.0  # half of what is left
    assert loop_search_budget(20.0, 10_000.0) == 120.0  # at most six times the configured budget
    assert loop_search_budget(20.0, 30.0) == 20.0  # never below the configured budget while the wall allows it
    assert loop_search_budget(20.0, 5.0) == 4.0  # but within what the wall has left
    assert loop_search_budget(0.0, 100.0) == 0.0  # a search turned off stays off


def test_a_test_phase_hands_its_search_the_loop_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pytest_whetstone.runner as runner_mod
    from pytest_whetstone.orchestrate.phases import run_phase
    from pytest_whetstone.orchestrate.state import PhaseSpec

    seen: list[tuple[bool, float]] = []
    real = runner_mod.run_command

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append((kwargs["search"], kwargs["config"].budgets.search_budget_s))
        return real(*args, **kwargs)

    monkeypatch.setattr(runner_mod, "run_command", spy)
    ws = tmp_path / "w"
    ws.mkdir()
    store = find_store(ws)
    sid = start_loop(store, test="true", cwd=ws, config=Config()).session_id
    from pytest_whetstone.store.sessions import open_session

    session = open_session(store, sid)
    run_phase(PhaseSpec("tests", "true", "test"), session, 10.0, ws, wall_left_s=200.0)
    run_phase(PhaseSpec("build", "true", "build"), session, 10.0, ws, wall_left_s=200.0)
    assert seen == [(True, 100.0), (False, 20.0)]
