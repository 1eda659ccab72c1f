"""EscalationReport composer (seed 002, step 1391), the setup script, and the audit trail (step 1394)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from _orchestrate_toys import Toy, make_workspace

from pytest_whetstone.config import Config
from pytest_whetstone.orchestrate import audit
from pytest_whetstone.orchestrate.escalate import compose, render_text, setup_script_text, write_setup_script
from pytest_whetstone.orchestrate.loop import FeedbackLoopOrchestrator, start_loop
from pytest_whetstone.orchestrate.state import loop_fold
from pytest_whetstone.records import AuditEntry, EscalationReport, GapModel
from pytest_whetstone.store.sessions import find_store, load_session


def _escalated(tmp_path: Path, prog: str, rules: dict, max_attempts: int = 8) -> tuple[EscalationReport, Path, str]:
    ws = make_workspace(tmp_path, prog)
    store = find_store(ws)
    sid = start_loop(store, build="make", test="make test", cwd=ws, config=Config(), max_attempts=max_attempts,
                     goal="the toy builds").session_id
    orch = FeedbackLoopOrchestrator(store, runner=Toy(rules=rules), probe=dict)
    result = orch.run_to_completion(sid, 30)
    assert result.escalation is not None
    return result.escalation, ws, sid


BAD = {"totl": [("aa", 0.9, "rename"), ("bb", 0.8, "rename"), ("fix by hand: declare totl", 0.3, "MANUAL")],
       "aa": [], "bb": []}


def test_report_constructable_with_session_goal_and_reason(tmp_path: Path) -> None:
    report, _, sid = _escalated(tmp_path, "x = totl\n", BAD)
    assert report.session_id == sid
    assert (report.goal, report.goal_type) == ("the toy builds", "build_and_test")
    assert report.escalation_reason in ("all_auto_tried", "no_progress", "repeated_failure")


def test_attempts_summary_accurate(tmp_path: Path) -> None:
    report, _, _ = _escalated(tmp_path, "x = totl\n", BAD)
    assert report.attempts_made == len(report.attempts_summary) == 2
    for s in report.attempts_summary:
        assert s.outcome == "reverted_no_progress"
        assert s.gap_before == GapModel("error_count", 1, 0) and s.gap_after == GapModel("error_count", 1, 0)


def test_top_remaining_candidates_are_untried_manual_first(tmp_path: Path) -> None:
    report, _, _ = _escalated(tmp_path, "x = totl\n", BAD)
    assert report.top_remaining_candidates
    top = report.top_remaining_candidates[0]
    assert top.mutation_type == "manual" and "declare totl" in top.description


def test_recommended_next_step_is_specific(tmp_path: Path) -> None:
    report, _, _ = _escalated(tmp_path, "x = totl\n", BAD)
    step = report.recommended_next_step
    assert "prog.txt:1" in step  # the file
    assert "'totl' undeclared" in step  # the failure
    assert "declare totl" in step  # the best untried manual candidate
    assert "whetstone fix --build make --test 'make test'" in step


def test_report_json_round_trip_and_text(tmp_path: Path) -> None:
    report, _, _ = _escalated(tmp_path, "x = totl\n", BAD)
    assert EscalationReport.from_json(report.to_json()) == report
    text = render_text(report, "why not")
    assert "escalated" in text and "next:" in text and "attempt 1:" in text


def test_empty_attempts_handled(tmp_path: Path) -> None:
    report, _, _ = _escalated(tmp_path, "x = totl\n", {"totl": [("only by hand", 0.4, "MANUAL")]})
    assert report.escalation_reason == "manual_required"
    assert report.attempts_made == 0 and report.attempts_summary == []
    assert "only by hand" in report.recommended_next_step


def test_final_gap_accurate(tmp_path: Path) -> None:
    report, _, _ = _escalated(tmp_path, "x = totl\ny = totl\nz = cnt\n", {"totl": [], "cnt": []})
    assert report.final_gap == GapModel("error_count", 3, 0)


def test_max_attempts_reason(tmp_path: Path) -> None:
    rules = {"totl": [("total", 0.9, "rename")], "cnt": [("ca", 0.9, "rename")], "ca": [("cb", 0.9, "rename")],
             "cb": []}
    report, _, _ = _escalated(tmp_path, "x = totl\ny = cnt\n", rules, max_attempts=1)
    assert report.escalation_reason == "max_attempts" and report.attempts_made == 1
    assert report.attempts_summary[0].outcome == "kept"


def test_deterministic_output(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, _, sid1 = _escalated(tmp_path / "a", "x = totl\n", BAD)
    two, _, sid2 = _escalated(tmp_path / "b", "x = totl\n", BAD)
    assert one.to_json().replace(sid1, "S") == two.to_json().replace(sid2, "S")


def test_compose_directly_from_state(tmp_path: Path) -> None:
    report, ws, sid = _escalated(tmp_path, "x = totl\n", BAD)
    state = loop_fold(load_session(ws / ".whetstone", sid).events())
    again = compose(state, "max_attempts", [])
    assert again.escalation_reason == "max_attempts" and again.attempts_made == 2


def test_infra_gap_writes_a_runnable_setup_script(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, "x = 1\n")
    (ws / "requirements.txt").write_text("surely-not-installed-pkg-xyz>=1.0\npytest\n")
    store = find_store(ws)
    sid = start_loop(store, build="no-such-tool-xyz all", cwd=ws, config=Config()).session_id
    orch = FeedbackLoopOrchestrator(store, runner=Toy(), probe=dict)
    result = orch.run_to_completion(sid, 30)
    report = result.escalation
    assert report is not None and report.escalation_reason == "infra_gap"
    script = Path(ws / report.setup_script) if not Path(report.setup_script).is_absolute() else Path(report.setup_script)
    script = script if script.exists() else Path.cwd() / report.setup_script
    assert script.exists() and script.stat().st_mode & 0o111
    text = script.read_text()
    assert "-m pip install 'surely-not-installed-pkg-xyz>=1.0'" in text
    assert "no-such-tool-xyz" in text
    assert subprocess.run(["sh", "-n", str(script)]).returncode == 0  # valid shell
    assert report.setup_script in report.recommended_next_step
    assert result.verdict.failure == "setup-error" and result.verdict.retry == "fix-env"


def test_setup_script_quotes_untrusted_names(tmp_path: Path) -> None:
    text = setup_script_text([{"kind": "python", "name": "x", "detail": "d", "install": {"pip": "x; rm -rf /"}},
                              {"kind": "header", "name": "z.h", "detail": "d", "install": {"apt": "zlib1g-dev"}}], "S")
    assert "'x; rm -rf /'" in text and "apt-get install -y zlib1g-dev" in text
    path = write_setup_script(tmp_path, "S", [])
    assert path.name == "S.sh" and path.parent.name == "setup"


# ----------------------------------------------------------------------------- audit trail


def test_audit_entry_constructable_and_round_trips() -> None:
    entry = AuditEntry(step_index=1, action_type="build_iteration", action_description="d", candidate_applied="C1",
                       gap_before=GapModel("error_count", 2, 0), gap_after=GapModel("error_count", 1, 0),
                       session_status_after="running", duration_ms=5)
    assert AuditEntry.from_json(entry.to_json()) == entry


def test_audit_appended_per_step_and_persisted_as_jsonl(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, "x = totl\n")
    store = find_store(ws)
    sid = start_loop(store, build="make", cwd=ws, config=Config()).session_id
    orch = FeedbackLoopOrchestrator(store, runner=Toy(rules={"totl": [("total", 0.9, "rename")]}), probe=dict)
    path = audit.audit_path(store, sid)
    for n in range(1, 4):
        orch.step(sid)
        lines = path.read_text().splitlines()
        assert len(lines) == n  # written before step returned
    import json

    rows = [json.loads(line) for line in lines]
    for row in rows:
        assert {"step_index", "action_type", "action_description", "candidate_applied", "gap_before", "gap_after",
                "session_status_after", "duration_ms"} <= set(row)
        assert row["gap_before"] is not None and row["gap_after"] is not None
        assert isinstance(row["duration_ms"], int) and row["duration_ms"] >= 0
    assert rows[1]["candidate_applied"] and rows[0]["candidate_applied"] is None
    assert rows[2]["session_status_after"] == "converged"


def test_audit_deterministic_shape(tmp_path: Path) -> None:
    def trail(sub: str) -> list[tuple[int, str, str]]:
        (tmp_path / sub).mkdir()
        ws = make_workspace(tmp_path / sub, "x = totl\n")
        store = find_store(ws)
        sid = start_loop(store, build="make", cwd=ws, config=Config()).session_id
        orch = FeedbackLoopOrchestrator(store, runner=Toy(rules={"totl": [("total", 0.9, "rename")]}), probe=dict)
        orch.run_to_completion(sid, 30)
        return [(a.step_index, a.action_type, a.session_status_after) for a in audit.read_audit(store, sid)]

    assert trail("a") == trail("b")


def test_next_step_repeats_what_was_typed_not_the_configured_phases(tmp_path: Path) -> None:
    """Phases from whetstone.json5 are read again by `whetstone fix`; the hint must not spell them as flags."""
    from pytest_whetstone.config import Phase

    ws = make_workspace(tmp_path, "x = totl\n")
    store = find_store(ws)
    config = Config(phases=[Phase("build", "make -j2", "build"), Phase("check", "make check", "test")])
    orch = FeedbackLoopOrchestrator(store, runner=Toy(rules=BAD), probe=dict)
    only_config = start_loop(store, cwd=ws, config=config).session_id
    report = orch.run_to_completion(only_config, 30).escalation
    assert report is not None and report.recommended_next_step.endswith("re-run `whetstone fix`.")
    typed = start_loop(store, test="make check", cwd=ws, config=config).session_id
    report = orch.run_to_completion(typed, 30).escalation
    assert report is not None and "re-run `whetstone fix --test 'make check'`" in report.recommended_next_step
    assert "--build" not in report.recommended_next_step
