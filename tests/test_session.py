"""Session store: discovery, locked appends, corrupt lines, the fold."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from pytest_whetstone.agent.checks import store_for
from pytest_whetstone.records import AttemptRecord, BuildErrorRecord, FixCandidate, GapModel
from pytest_whetstone.store.fold import fold
from pytest_whetstone.store.location import resolve_store
from pytest_whetstone.store.sessions import (
    SessionWarning,
    find_store,
    latest_session_id,
    load_session,
    open_session,
)


def test_find_store_prefers_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHETSTONE_DIR", str(tmp_path / "custom"))
    store = find_store(tmp_path)
    assert store == (tmp_path / "custom").resolve()
    assert (store / "sessions").is_dir()


def test_find_store_nearest_upwards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WHETSTONE_DIR", raising=False)
    (tmp_path / ".whetstone").mkdir()
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_store(deep) == (tmp_path / ".whetstone").resolve()


def test_find_store_creates_at_project_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WHETSTONE_DIR", raising=False)
    (tmp_path / "whetstone.json5").write_text("{}")
    deep = tmp_path / "src"
    deep.mkdir()
    assert find_store(deep) == (tmp_path / ".whetstone").resolve()


def test_config_store_key_is_honoured_by_every_face(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WHETSTONE_DIR", raising=False)
    (tmp_path / "whetstone.json5").write_text('{store: "build/ws-store"}')
    (tmp_path / "src").mkdir()
    expected = (tmp_path / "build" / "ws-store").resolve()
    assert find_store(tmp_path / "src") == expected  # runs, ccwrap ingestion
    assert store_for(tmp_path) == expected  # the MCP tools
    assert resolve_store("../elsewhere", start=tmp_path / "src") == (tmp_path / "elsewhere").resolve()  # --dir


def test_dir_option_does_not_touch_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WHETSTONE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    from pytest_whetstone.cli import main

    assert main(["--dir", str(tmp_path / "s"), "run", "--", "true"]) == 0
    assert "WHETSTONE_DIR" not in os.environ and (tmp_path / "s" / "sessions").is_dir()


def test_join_session_from_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHETSTONE_SESSION", "joined-1")
    store = find_store(tmp_path / "s")
    first = open_session(store)
    second = open_session(store)
    assert first.session_id == second.session_id == "joined-1"
    assert [e["event"] for e in first.events()] == ["session_started"]


def test_latest_and_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WHETSTONE_SESSION", raising=False)
    store = find_store(tmp_path / "s")
    s1 = open_session(store)
    s2 = open_session(store, "second")
    assert latest_session_id(store) == s2.session_id
    assert load_session(store).session_id == "second"
    assert load_session(store, s1.session_id).session_id == s1.session_id
    with pytest.raises(FileNotFoundError):
        load_session(store, "nope")
    with pytest.raises(ValueError):
        open_session(store, "../escape")


def test_corrupt_lines_are_skipped_with_warning(tmp_path: Path) -> None:
    store = find_store(tmp_path / "s")
    session = open_session(store, "c1")
    session.append("counts", {"passed": 3})
    with open(session.path, "ab") as handle:
        handle.write(b'{"event": "counts", "data": {"passed"\n')  # torn line
        handle.write(b"\xff\xfe binary junk\n")
        handle.write(b"[1, 2]\n")
    session.append("counts", {"failed": 1})
    with pytest.warns(SessionWarning):
        state = session.state()
    assert state.counts == {"passed": 3, "failed": 1}


def _writer(args: tuple[str, int]) -> None:
    store, index = args
    os.environ.pop("WHETSTONE_SESSION", None)
    session = open_session(Path(store), "concurrent")
    session.append("counts", {f"w{index}": index, "pad": "x" * 3000})


def test_200_concurrent_writers_give_200_intact_events(tmp_path: Path) -> None:
    store = find_store(tmp_path / "s")
    open_session(store, "concurrent")
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(8) as pool:
        pool.map(_writer, [(str(store), i) for i in range(200)])
    session = load_session(store, "concurrent")
    events = [e for e in session.events() if e["event"] == "counts"]
    assert len(events) == 200
    assert sorted(next(k for k in e["data"] if k != "pad") for e in events) == sorted(f"w{i}" for i in range(200))
    # every line is whole JSON: no torn or interleaved writes
    assert all(line.endswith(b"}") for line in session.path.read_bytes().splitlines())


def _event(kind: str, data: dict) -> dict:
    return {"event": kind, "session_id": "s", "data": data}


def test_fold_is_pure_and_supersedes_per_tu() -> None:
    err_a = BuildErrorRecord(file_path="a.c", line=1, message="x", tool="gcc").ensure_id()
    err_b = BuildErrorRecord(file_path="b.c", line=2, message="y", tool="gcc").ensure_id()
    events = [
        _event("session_started", {"goal": "g"}),
        _event("build_errors", {"origin": "tu:/w/a.c", "records": [err_a.to_dict()]}),
        _event("build_errors", {"origin": "tu:/w/b.c", "records": [err_b.to_dict()]}),
    ]
    state = fold(events)
    assert [e.file_path for e in state.build_errors] == ["a.c", "b.c"]
    # a clean recompile of a.c supersedes its earlier errors
    events.append(_event("build_errors", {"origin": "tu:/w/a.c", "records": []}))
    assert [e.file_path for e in fold(events).build_errors] == ["b.c"]
    assert fold(events) == fold(list(events))


def test_fold_dedupes_ccwrap_and_run_views_of_one_error() -> None:
    err = BuildErrorRecord(file_path="a.c", line=1, col=2, message="x", tool="gcc").ensure_id()
    events = [
        _event("build_errors", {"origin": "tu:/w/a.c", "records": [err.to_dict()]}),
        _event("build_errors", {"origin": "run:build", "records": [err.to_dict()]}),
    ]
    assert len(fold(events).build_errors) == 1


def test_fold_attempts_gaps_status_and_tried() -> None:
    attempt = AttemptRecord(attempt_id="a1", gap_after=GapModel("error_count", 2, 0))
    cand = FixCandidate(target_id="", description="d", confidence=0.5).ensure_id()
    events = [
        _event("attempt", {"attempt": attempt.to_dict()}),
        _event("candidates", {"records": [cand.to_dict()]}),
        _event("validated", {"candidate_id": cand.candidate_id}),
        _event("applied", {"journal_id": "j1", "fingerprint": "fp", "files": ["a.c"]}),
    ]
    state = fold(events)
    assert state.status == "running"
    assert [g.current for g in state.gaps] == [2]
    assert state.candidates[0].validated
    assert state.tried_fingerprints == ["fp"]
    assert state.unchecked_files == ["a.c"]
    events.append(_event("reverted", {"journal_id": "j1"}))
    events.append(_event("escalated", {}))
    state = fold(events)
    assert state.applied == [] and state.status == "escalated" and state.terminal


def test_malformed_event_data_is_skipped() -> None:
    with pytest.warns(SessionWarning):
        state = fold([_event("attempt", {"attempt": {"gap_after": "not a gap"}})])
    assert state.attempts == []


def test_last_event_reads_backwards_across_blocks(tmp_path: Path) -> None:
    session = open_session(find_store(tmp_path), "s1")
    session.append("attempt", {"n": 1})
    session.append("observation", {"raw": "x" * 200_000})  # larger than a block
    session.append("attempt", {"n": 2})
    session.append("observation", {"raw": "y" * 70_000})
    last = session.last_event("attempt", block=4096)
    assert last is not None and last["data"] == {"n": 2}
    assert session.last_event("verdict") is None
