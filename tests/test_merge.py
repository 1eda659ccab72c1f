"""Merging shard sessions: de-dup across shards, the fold's semantics, hostile input, memory."""

from __future__ import annotations

import json
import tracemalloc
import warnings
from pathlib import Path

import pytest
from report_support import write_events

from pytest_whetstone.records import BuildErrorRecord, FixCandidate, TestFailureRecord, dumps
from pytest_whetstone.report import run_report
from pytest_whetstone.store.fold import fold
from pytest_whetstone.store.merge import (
    MergeError,
    collect_session_files,
    load_state,
    merge_sessions,
    read_audit,
    sanitize,
)
from pytest_whetstone.store.sessions import SessionWarning, read_jsonl


def ev(kind: str, data: dict, sid: str = "s1") -> dict:
    return {"schema_version": "whetstone/1", "event": kind, "session_id": sid, "ts": "t", "pid": 1, "data": data}


def err(root: str, name: str, line: int, msg: str, severity: str = "error", **kw) -> dict:
    rec = BuildErrorRecord(tool="gcc", severity=severity, file_path=f"{root}/src/{name}", line=line, col=3,
                           message=msg, **kw).ensure_id()
    return rec.to_dict()


def fail(test: str, flaky: bool = False, root: str = "/ci") -> dict:
    return TestFailureRecord(runner="pytest", test_suite="tests/test_a.py", test_name=test,
                             node_id=f"tests/test_a.py::{test}", file_path=f"{root}/tests/test_a.py", line=4,
                             failure_type="assertion", flaky=flaky).ensure_id().to_dict()


def shard(path: Path, sid: str, root: str, errors: list[dict], failures: list[dict], **extra) -> Path:
    events = [ev("session_started", {"workspace": root}, sid),
              ev("build_errors", {"origin": f"tu:{root}/src/a.c", "records": errors}, sid),
              ev("test_failures", {"origin": "pytest", "records": failures}, sid)]
    for kind, data in extra.get("more", []):
        events.append(ev(kind, data, sid))
    write_events(path, events)
    return path


def test_the_same_error_from_several_shards_is_kept_once(tmp_path):
    # Two hosts with different checkout directories see the same header warning and error.
    a = shard(tmp_path / "a.jsonl", "a", "/home/ci/w1",
              [err("/home/ci/w1", "a.c", 3, "boom"), err("/home/ci/w1", "util.h", 9, "unused", "warning")],
              [fail("test_x"), fail("test_flaky", flaky=True)])
    b = shard(tmp_path / "b.jsonl", "b", "/builds/w2",
              [err("/builds/w2", "a.c", 3, "boom"), err("/builds/w2", "b.c", 1, "only on b")],
              [fail("test_x"), fail("test_flaky"), fail("test_y")],
              more=[("counts", {"passed": 7}), ("verdict", {"failure": "test-failure"})])
    state = merge_sessions([a, b])
    assert [(e.file_path, e.line, e.message) for e in state.build_errors] == [
        ("src/a.c", 3, "boom"), ("src/b.c", 1, "only on b"), ("src/util.h", 9, "unused")]
    names = sorted(f.test_name for f in state.test_failures)
    assert names == ["test_flaky", "test_x", "test_y"]
    # a real failure on one shard wins over the same test being flaky on another
    assert not next(f for f in state.test_failures if f.test_name == "test_flaky").flaky
    assert state.meta["merged_from"] == ["a", "b"] and state.session_id.startswith("merged-")
    assert state.counts == {"passed": 7}


def test_candidates_follow_their_deduplicated_target(tmp_path):
    e1 = err("/w1", "a.c", 3, "boom")
    e2 = err("/w2", "a.c", 3, "boom")
    assert e1["error_id"] != e2["error_id"]  # the ids hash the absolute paths
    cand = FixCandidate(target_id=e2["error_id"], description="fix it", confidence=0.8,
                        mutation_type="manual").ensure_id()
    a = shard(tmp_path / "a.jsonl", "a", "/w1", [e1], [])
    b = shard(tmp_path / "b.jsonl", "b", "/w2", [e2], [],
              more=[("candidates", {"records": [cand.to_dict()]}), ("validated", {"candidate_id": cand.candidate_id})])
    state = merge_sessions([a, b])
    assert len(state.build_errors) == 1
    live = state.current_candidates()
    assert [c.candidate_id for c in live] == [cand.candidate_id]
    assert live[0].target_id == state.build_errors[0].error_id and live[0].validated


def test_a_single_shard_reads_exactly_as_the_session_fold(tmp_path):
    root = "/w"
    first = [err(root, "a.c", 3, "old error"), err(root, "a.c", 5, "same diag")]
    events = [
        ev("session_started", {}),
        ev("build_errors", {"origin": f"tu:{root}/src/a.c", "records": first}),
        ev("build_errors", {"origin": f"tu:{root}/src/b.c", "records": [err(root, "b.c", 1, "b error")]}),
        ev("build_errors", {"origin": "run:build", "records": [err(root, "a.c", 5, "same diag")]}),
        # a later clean compile of a.c supersedes its errors; b.c's batch is replaced
        ev("build_errors", {"origin": "run:build2", "records": [], "clean_tus": [f"{root}/src/a.c"]}),
        ev("build_errors", {"origin": f"tu:{root}/src/b.c", "records": [err(root, "b.c", 2, "b new")]}),
        ev("test_failures", {"origin": "p", "records": [fail("t1"), fail("t2")]}),
        ev("test_failures", {"origin": "p", "records": [fail("t3")], "replace": False}),
        ev("test_failure", {"origin": "p", "record": {**fail("t1"), "message": "again"}}),
        ev("test_failures", {"origin": "q", "records": [fail("t2")]}),
    ]
    path = tmp_path / "s1.jsonl"
    write_events(path, events)
    expected = fold(read_jsonl(path))
    got = load_state(path)  # no workspace: paths stay as written
    assert [e.to_dict() for e in got.build_errors] == [e.to_dict() for e in expected.build_errors]
    assert [f.to_dict() for f in got.test_failures] == [f.to_dict() for f in expected.test_failures]
    assert [e.message for e in got.build_errors] == ["same diag", "b new"]
    assert got.event_count == expected.event_count


def test_corrupt_and_malformed_lines_never_crash(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = err("/w", "a.c", 3, "boom")
    lines = [
        dumps(ev("session_started", {"workspace": "/w"})),
        "{not json",
        "\x00\xff garbage",
        "[]",
        '"a string"',
        dumps(ev("build_errors", {"origin": "x", "records": [
            good,
            {"file_path": "/w/src/a.c", "line": "12", "col": None, "message": "str line"},
            {"file_path": ["list"], "line": {"a": 1}, "message": 5},
            {"file_path": "/w/src/c.c", "line": 1e400, "col": "nan", "message": "inf line",
             "fixits": [{"start": {"line": "x"}, "file_path": "/w/src/c.c"}]},
            "not a dict",
        ]})),
        dumps(ev("build_errors", {"origin": "y", "records": "nope", "clean_tus": "nope"})),
        dumps(ev("test_failures", {"origin": "z", "records": [{"failure_id": 5, "suspects": "x",
                                                               "flaky": "yes", "line": [1]}]})),
        dumps(ev("candidates", {"records": [{"candidate_id": "C1", "confidence": "high", "edits": "x"}]})),
        dumps(ev("verdict", ["not", "a", "dict"])),
        '{"event": "attempt", "data": {"attempt": {"gap_after": {"current": "3"}}}}',
    ]
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogateescape") + b"\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state = merge_sessions([path])
    msgs = [str(w.message) for w in caught if issubclass(w.category, SessionWarning)]
    assert sum("skipped a corrupt session line" in m for m in msgs) == 2
    assert sum("not an object" in m for m in msgs) == 2
    by_msg = {e.message: e for e in state.build_errors}
    assert by_msg["str line"].line == 12 and by_msg["str line"].col == 0
    assert by_msg["boom"].file_path == "src/a.c"
    assert by_msg["inf line"].line == 0
    for e in state.build_errors:
        assert isinstance(e.line, int) and isinstance(e.file_path, str) and isinstance(e.message, str)
    for f in state.test_failures:
        assert isinstance(f.failure_id, str) and isinstance(f.flaky, bool) and f.line == 0
    # and every format renders it
    store = tmp_path / "store"
    (store / "sessions").mkdir(parents=True)
    (store / "sessions" / "bad.jsonl").write_bytes(path.read_bytes())
    for fmt in ("text", "json", "sarif", "github", "html"):
        text, code = run_report([store], "bad", fmt)
        assert code == 0, text


def test_sanitize_coerces_field_types():
    rec = BuildErrorRecord(line="7", col=2.9, message=None, is_lint=1, context_lines=["a", 3],  # type: ignore[arg-type]
                           notes="x")  # type: ignore[arg-type]
    sanitize(rec)
    assert (rec.line, rec.col, rec.message, rec.is_lint, rec.context_lines, rec.notes) == (7, 2, "", True,
                                                                                          ["a", "3"], [])
    cand = FixCandidate(confidence=float("nan"), mutation="x")  # type: ignore[arg-type]
    sanitize(cand)
    assert cand.confidence == 0.0 and cand.mutation == {}


def test_folders_collect_sessions_but_not_audits_or_spool(tmp_path):
    for host in ("h1", "h2"):
        store = tmp_path / "artifacts" / host / ".whetstone"
        for sub in ("sessions", "audits", "spool"):
            (store / sub).mkdir(parents=True)
        shard(store / "sessions" / f"{host}.jsonl", host, "/w", [err("/w", "a.c", 1, host)], [])
        (store / "audits" / f"{host}.jsonl").write_text('{"step_index": 0, "action_type": "build"}\n')
        (store / "spool" / "x.jsonl").write_text("{}\n")
    files = collect_session_files([tmp_path / "artifacts"])
    assert [f.name for f in files] == ["h1.jsonl", "h2.jsonl"]
    assert len(merge_sessions([tmp_path / "artifacts"]).build_errors) == 2
    audit = read_audit(tmp_path / "artifacts" / "h1" / ".whetstone" / "audits" / "h1.jsonl")
    assert audit[0].action_type == "build"
    with pytest.raises(MergeError):
        collect_session_files([tmp_path / "nope"])


def test_run_report_merges_shards_and_filters_by_session(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a = shard(tmp_path / "a.jsonl", "a", "/w", [err("/w", "a.c", 3, "boom")], [fail("t")])
    b = shard(tmp_path / "b.jsonl", "b", "/w", [err("/w", "a.c", 3, "boom")], [fail("t")])
    text, code = run_report([a, b], None, "json")
    data = json.loads(text)
    assert code == 0 and len(data["build_errors"]) == 1 and len(data["test_failures"]) == 1
    text, code = run_report([tmp_path], "b", "text")
    assert code == 0 and "session b" in text
    text, code = run_report([a, b], "zzz", "text")
    assert code == 2


def _shards(root: Path, n: int, records: int) -> list[Path]:
    paths = []
    for i in range(n):
        errors = [err("/w", f"f{j % 20}.c", j, f"shared warning {j}", "warning") for j in range(records)]
        errors.append(err("/w", "own.c", i, f"only shard {i}"))
        paths.append(shard(root / f"s{i:03d}.jsonl", f"s{i}", "/w", errors, [fail(f"t{i}")]))
    return paths


def test_parallel_merge_gives_the_serial_result(tmp_path):
    paths = _shards(tmp_path, 6, 50)
    serial = merge_sessions(paths, jobs=1)
    parallel = merge_sessions(paths, jobs=2)
    assert dumps([e.to_dict() for e in serial.build_errors]) == dumps([e.to_dict() for e in parallel.build_errors])
    assert [f.failure_id for f in serial.test_failures] == [f.failure_id for f in parallel.test_failures]
    assert serial.session_id == parallel.session_id and serial.meta == parallel.meta
    assert len(serial.build_errors) == 50 + 6


def test_memory_is_flat_in_the_number_of_shards(tmp_path):
    paths = _shards(tmp_path, 40, 300)

    def peak(files: list[Path]) -> int:
        tracemalloc.start()
        try:
            merge_sessions(files, jobs=1)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    few, many = peak(paths[:4]), peak(paths)
    # ten times the input, (almost) the same memory: one shard at a time plus the distinct records
    assert many < few * 1.6, (few, many)
