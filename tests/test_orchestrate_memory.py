"""Repository memory: a later session starts from what earlier ones in the workspace kept and reverted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _orchestrate_toys import Toy, make_workspace

from pytest_whetstone.config import Config
from pytest_whetstone.orchestrate.loop import FeedbackLoopOrchestrator, start_loop
from pytest_whetstone.orchestrate.memory import INDEX, MEMORY_DIR, RepositoryMemory
from pytest_whetstone.orchestrate.state import loop_fold
from pytest_whetstone.store.sessions import find_store, load_session

PROG = "x = totl\n"
# two wrong renames rank above the right one: the first session reverts both, keeps the third
RULES = {"totl": [("aa", 0.9, "rename"), ("bb", 0.85, "rename"), ("total", 0.8, "rename")], "aa": [], "bb": []}


def _run(ws: Path, toy: Toy) -> tuple[str, list[tuple[str, str]]]:
    """One loop session to the end; (status, [(candidate description, outcome)])."""
    store = find_store(ws)
    sid = start_loop(store, build="make", test="make test", cwd=ws, config=Config()).session_id
    orch = FeedbackLoopOrchestrator(store, runner=toy, probe=dict)
    result = orch.run_to_completion(sid, 60)
    state = loop_fold(load_session(store, sid).events())
    return result.final_status, [(a.description, a.status) for a in state.attempts]


def test_the_second_session_applies_what_worked_first_and_skips_what_was_reverted(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, PROG)
    status, first = _run(ws, Toy(rules=RULES))
    assert status == "converged"
    assert [o for _, o in first] == ["reverted", "reverted", "kept"]
    (ws / "prog.txt").write_text(PROG)  # the same fault, seeded again
    status, second = _run(ws, Toy(rules=RULES))
    assert status == "converged"
    assert second == [("replace 'totl' with 'total'", "kept")]  # first step, and nothing reverted before
    store = find_store(ws)
    sid = load_session(store).session_id
    events = load_session(store, sid).events()
    recalled = [e["data"] for e in events if e["event"] == "memory_recalled"]
    assert recalled and recalled[0]["preferred"] and len(recalled[0]["avoided"]) == 2
    audit = (store / "audits" / f"{sid}.jsonl").read_text()
    assert "memory: 1 fix(es) that worked before, 2 reverted before" in audit
    steps = [json.loads(line) for line in audit.splitlines()]
    assert any("memory:" in s["action_description"] for s in steps)


def test_a_fix_that_worked_is_offered_again_even_when_no_generator_proposes_it(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, PROG)
    assert _run(ws, Toy(rules=RULES))[0] == "converged"
    (ws / "prog.txt").write_text(PROG)
    status, second = _run(ws, Toy(rules={"totl": [("aa", 0.9, "rename")], "aa": []}))
    assert status == "converged"
    assert len(second) == 1 and second[0][1] == "kept" and second[0][0].startswith("worked before for this failure")


def test_a_remembered_fix_is_not_offered_for_a_file_that_changed(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, PROG)
    assert _run(ws, Toy(rules=RULES))[0] == "converged"
    (ws / "prog.txt").write_text("# edited since\n" + PROG)
    status, second = _run(ws, Toy(rules={"totl": [("aa", 0.9, "rename")], "aa": []}))
    assert status == "escalated" and not any(d.startswith("worked before") for d, _ in second)


def test_refresh_folds_only_new_events_and_rebuild_agrees(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, PROG)
    _run(ws, Toy(rules=RULES))
    store = find_store(ws)
    memory = RepositoryMemory(store)
    assert memory.refresh() > 0  # what the loop's own last step did not fold yet
    assert memory.refresh() == 0  # nothing new: nothing read
    session = load_session(store)
    session.append("observation", {"note": "one more"})
    session.append("observation", {"note": "and another"})
    assert memory.refresh() == 2
    again = RepositoryMemory(store)
    again.refresh()  # a new process reads the index, not the logs
    assert again.folded_events == 0 and again.summary()["fixes_that_worked"] == 1
    rebuilt = RepositoryMemory(store)
    every_event = sum(len(p.read_text().splitlines()) for p in (store / "sessions").glob("*.jsonl"))
    assert rebuilt.rebuild() == every_event
    assert {k: v.to_dict() for k, v in rebuilt.entries.items()} == {k: v.to_dict() for k, v in memory.entries.items()}


def test_a_rewritten_log_rebuilds_the_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_workspace(tmp_path, PROG)
    _run(ws, Toy(rules=RULES))
    store = find_store(ws)
    memory = RepositoryMemory(store)
    memory.refresh()
    log = load_session(store).path
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(line for line in lines if '"loop_judged"' not in line))  # history rewritten
    fresh = RepositoryMemory(store)
    fresh.refresh()
    assert "was rewritten" in capsys.readouterr().err
    assert fresh.summary()["fixes_that_worked"] == 0 and not fresh.entries


def _hostile_session(store: Path, name: str, workspace: str, edit_path: str, corrupt: bool = False) -> None:
    edits = [{"file_path": edit_path, "start": {"line": 1, "col": 1}, "end": {"line": 1, "col": 1}, "new_text": "pwned\n"}]
    events = [
        {"event": "loop_started", "data": {"workspace": workspace, "phases": []}},
        {"event": "loop_intent", "data": {
            "intent_id": "I1", "candidate_id": "Cx", "fingerprint": "Fe", "target_fingerprint": "Ftarget",
            "files": {edit_path: {"pre": "0" * 64}},
            "candidate": {"candidate_id": "Cx", "mutation_type": "insertNode", "edits": edits, "confidence": 1.0}}},
        {"event": "loop_judged", "data": {"intent_id": "I1", "verdict": "progress", "action": "keep"}},
    ]
    text = "".join(json.dumps(e) + "\n" for e in events)
    if corrupt:
        text = text.replace('{"event": "loop_judged"', '{"event": "loop_judged" <<garbage', 1) + "not json at all\n"
    (store / "sessions" / name).write_text(text)


def test_corrupt_foreign_and_escaping_sessions_are_skipped_with_one_warning_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path, PROG)
    store = find_store(ws)
    (store / "sessions").mkdir(exist_ok=True)
    _hostile_session(store, "a-other-checkout.jsonl", "/somewhere/else", "prog.txt")
    _hostile_session(store, "b-escapes.jsonl", str(ws.resolve()), "../outside.txt")
    _hostile_session(store, "c-absolute.jsonl", str(ws.resolve()), str(tmp_path / "abs.txt"))
    _hostile_session(store, "d-corrupt.jsonl", str(ws.resolve()), "prog.txt", corrupt=True)
    memory = RepositoryMemory(store)
    memory.refresh()
    err = capsys.readouterr().err
    for name in ("a-other-checkout", "b-escapes", "c-absolute", "d-corrupt"):
        assert err.count(f"{name}.jsonl") == 1, err
    assert "another checkout" in err and "outside the workspace" in err
    assert all(o.candidate is None for o in memory.entries.values())  # nothing that could be replayed
    memory.refresh()
    assert capsys.readouterr().err == ""  # warned once, not on every step
    status, _ = _run(ws, Toy(rules=RULES))
    assert status == "converged"
    assert not (tmp_path / "outside.txt").exists() and not (tmp_path / "abs.txt").exists()


def test_a_deleted_or_garbled_index_is_rebuilt_from_the_logs(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, PROG)
    _run(ws, Toy(rules=RULES))
    store = find_store(ws)
    RepositoryMemory(store).refresh()
    (store / MEMORY_DIR / "state.json").write_text("{not json")
    memory = RepositoryMemory(store)
    memory.refresh()
    assert memory.summary()["fixes_that_worked"] == 1
    (store / MEMORY_DIR / INDEX).unlink()
    (store / MEMORY_DIR / "state.json").unlink()
    memory = RepositoryMemory(store)
    memory.refresh()
    assert memory.summary()["fixes_that_worked"] == 1 and memory.summary()["reverted"] == 2


def test_the_index_stays_small_however_many_sessions_repeat_the_same_facts(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, PROG)
    _run(ws, Toy(rules=RULES))
    store = find_store(ws)
    template = load_session(store)
    text = template.path.read_text()
    for i in range(300):
        sid = f"20260101T000000Z-{i:06d}"
        (store / "sessions" / f"{sid}.jsonl").write_text(text.replace(template.session_id, sid))
    memory = RepositoryMemory(store)
    memory.refresh()
    lines = (store / MEMORY_DIR / INDEX).read_text().splitlines()
    assert len(lines) <= 2 * len(memory.entries) + 256
    worked = [o for o in memory.entries.values() if o.kept]
    assert len(worked) == 1 and worked[0].kept == 301 and len(worked[0].sessions) <= 4
    again = RepositoryMemory(store)
    again.refresh()
    assert {k: v.to_dict() for k, v in again.entries.items()} == {k: v.to_dict() for k, v in memory.entries.items()}


def test_an_edit_reverted_on_the_very_same_files_is_not_applied_again(tmp_path: Path) -> None:
    """Nothing else left: a candidate reverted on identical content would measure the same; it is not retried."""
    ws = make_workspace(tmp_path, PROG)
    only_wrong = {"totl": [("aa", 0.9, "rename"), ("fix by hand", 0.2, "MANUAL")], "aa": []}
    status, first = _run(ws, Toy(rules=only_wrong))
    assert status == "escalated" and [o for _, o in first] == ["reverted"]
    status, second = _run(ws, Toy(rules=only_wrong))  # the files are as the first run left them
    assert status == "escalated" and second == []
    (ws / "prog.txt").write_text("# changed\n" + PROG)  # other content: worth one more try, last
    status, third = _run(ws, Toy(rules=only_wrong))
    assert [o for _, o in third] == ["reverted"]


def test_the_step_result_says_what_memory_carried_over(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, PROG)
    _run(ws, Toy(rules=RULES))
    (ws / "prog.txt").write_text(PROG)
    store = find_store(ws)
    sid = start_loop(store, build="make", test="make test", cwd=ws, config=Config()).session_id
    orch = FeedbackLoopOrchestrator(store, runner=Toy(rules=RULES), probe=dict)
    orch.step(sid)  # probe
    result = orch.step(sid).to_dict()
    assert result["memory"] is not None and len(result["memory"]["preferred"]) == 1
    assert result["memory"]["outcomes"][0]["failure"].startswith("F")
