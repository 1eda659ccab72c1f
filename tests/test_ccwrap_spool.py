"""Spool ingestion: claims are atomic, every entry becomes per-origin build_errors events."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "ccwrap"))
import ccwrap_support as cs  # noqa: E402

native_dir = cs.native_dir  # a shared pytest fixture

from pytest_whetstone.store import spool as spool_mod  # noqa: E402
from pytest_whetstone.store.sessions import load_session, open_session  # noqa: E402
from pytest_whetstone.store.spool import entry_events, ingest_spool, origins_of  # noqa: E402


def _entry(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "schema_version": "whetstone/1", "kind": "ccwrap", "argv": ["ccwrap", "-c", "a.c"],
        "compiler": "/usr/bin/cc", "family": "gcc", "cwd": "/work", "exit_code": 0, "signal": 0,
        "stderr": "", "stdout": "", "stderr_truncated": False, "fixits_added": True, "clean": False,
        "sources": ["/work/a.c"], "output": "/work/a.o", "is_link": False, "session": "",
        "time": "2024-01-01T00:00:00.000+00:00", "pid": 1,
    }
    base.update(over)
    return base


def _write(store: Path, name: str, entry: dict[str, Any] | str) -> Path:
    path = store / "spool" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(entry if isinstance(entry, str) else json.dumps(entry))
    return path


def _real_entry(native_dir: Path, tmp_path: Path, *args: str, source: str = "error.c") -> dict[str, Any]:
    work = cs.copy_sources(tmp_path / "w", source, "link_main.c", "clean.c")
    store = tmp_path / "cap"
    cs.run([str(native_dir / "ccwrap"), *args], work, cs.base_env(native_dir, WHETSTONE_DIR=str(store)))
    [entry] = cs.spool_entries(store)
    return entry


def test_real_compile_errors_become_one_tu_batch(native_dir: Path, tmp_path: Path) -> None:
    entry = _real_entry(native_dir, tmp_path, "-c", "error.c")
    [event] = entry_events(entry)
    source = str(tmp_path / "w" / "error.c")
    assert event["origin"] == f"tu:{source}"
    assert "clean_tus" not in event
    errors = [r for r in event["records"] if r["severity"] == "error"]
    assert len(errors) >= 2 and all(r["translation_unit"] == source for r in event["records"])
    assert any(r["fixits"] for r in errors)  # the fix-its ccwrap asked for reached the records


def test_link_errors_get_a_link_origin(native_dir: Path, tmp_path: Path) -> None:
    entry = _real_entry(native_dir, tmp_path, "link_main.c", "clean.c", "-o", "prog")
    events = entry_events(entry)
    work = tmp_path / "w"
    assert [e["origin"] for e in events] == [
        f"tu:{work / 'link_main.c'}", f"tu:{work / 'clean.c'}", f"link:{work / 'prog'}"
    ]
    undefined = [(e["origin"], r) for e in events for r in e["records"] if "helper_not_defined" in r["message"]]
    assert len(undefined) == 1  # filed once: under the TU whose object references it, or the link
    assert undefined[0][0] in (f"tu:{work / 'link_main.c'}", f"link:{work / 'prog'}")


def test_origins_without_sources() -> None:
    assert origins_of(_entry(sources=[], output=None, is_link=True)) == ["link:/work"]
    assert origins_of(_entry(sources=[], output="/work/prog", is_link=True)) == ["link:/work/prog"]


def test_failure_without_a_diagnostic_is_still_an_error() -> None:
    [event] = entry_events(_entry(exit_code=1, stderr=""))
    [record] = event["records"]
    assert record["severity"] == "error" and record["error_type"] == "unknown"
    assert record["message"] == "cc exited with status 1 without a diagnostic"
    assert record["file_path"] == "/work/a.c"


@pytest.mark.parametrize(
    "over",
    [
        {"signal": 9, "exit_code": 0, "stderr": ""},
        {"exit_code": 1, "stderr": "virtual memory exhausted: Cannot allocate memory\n"},
        {"exit_code": 1, "stderr": "cc: fatal error: Killed signal terminated program cc1\ncompilation terminated.\n"},
    ],
)
def test_resource_failures_are_classified(over: dict[str, Any]) -> None:
    [event] = entry_events(_entry(**over))
    assert any(r["error_type"] == "resource_limit" and r["severity"] == "error" for r in event["records"])


def test_clean_entry_clears_the_tu(tmp_path: Path) -> None:
    store = tmp_path / ".whetstone"
    _write(store, "1.json", _entry(exit_code=1, stderr="a.c:1:1: error: expected ';' before '}' token\n"))
    _write(store, "2.json", _entry(clean=True))
    ingest_spool(store)
    state = load_session(store).state()
    assert state.build_errors == []
    events = [e for e in load_session(store).events() if e["event"] == "build_errors"]
    assert [len(e["data"]["records"]) for e in events] == [1, 0]
    assert events[1]["data"]["clean_tus"] == ["/work/a.c"]


def test_sessions_named_latest_or_new(tmp_path: Path) -> None:
    store = tmp_path / ".whetstone"
    _write(store, "1.json", _entry(session="named-1", stderr="a.c:1:1: warning: x\n"))
    _write(store, "2.json", _entry(sources=["/work/b.c"], stderr="b.c:2:1: warning: y\n"))
    assert ingest_spool(store) == ["named-1"]  # #2 names none: it joins the latest session
    assert len(load_session(store, "named-1").state().build_errors) == 2
    open_session(store, "later")
    _write(store, "3.json", _entry(stderr="a.c:3:1: warning: z\n"))
    assert ingest_spool(store) == ["later"]


def test_bad_files_are_kept_aside_with_one_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / ".whetstone"
    _write(store, "1.json", "{not json")
    _write(store, "2.json", json.dumps({"kind": "other"}))
    _write(store, "3.json", _entry(argv="not a list"))
    _write(store, ".tmp-123.json", "{half")  # a writer still at work: not ours to touch
    assert ingest_spool(store) == []
    err = capsys.readouterr().err
    assert err.count("whetstone: warning: skipped spool file") == 3
    assert sorted(p.name for p in (store / "spool" / "bad").iterdir()) == ["1.json", "2.json", "3.json"]
    assert (store / "spool" / ".tmp-123.json").exists()


def test_parser_failure_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pytest_whetstone.parse as parse_pkg

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("parser broke")

    monkeypatch.setattr(parse_pkg, "parse_text", boom)
    [event] = entry_events(_entry(exit_code=1, stderr="a.c:4:2: error: 'x' undeclared\n"))
    [record] = event["records"]
    assert (record["file_path"], record["line"], record["col"], record["severity"]) == ("a.c", 4, 2, "error")


def test_claimed_files_are_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another ingester renamed the file first: this one must skip it, not fail."""
    store = tmp_path / ".whetstone"
    _write(store, "1.json", _entry(stderr="a.c:1:1: warning: w\n"))
    real_rename = spool_mod.os.rename

    def racing_rename(src: str, dst: str) -> None:
        real_rename(src, str(dst) + ".other")  # the competitor wins
        real_rename(src, dst)

    monkeypatch.setattr(spool_mod.os, "rename", racing_rename)
    assert ingest_spool(store) == []


def test_concurrent_ingesters_never_double_ingest(tmp_path: Path) -> None:
    store = tmp_path / ".whetstone"
    open_session(_mk(store), "s")
    for i in range(120):
        _write(store, f"{i:04d}.json", _entry(session="s", sources=[f"/work/f{i}.c"], stderr=f"f{i}.c:1:1: warning: w{i}\n"))
    code = "import sys; from pathlib import Path; from pytest_whetstone.store.spool import ingest_spool; ingest_spool(Path(sys.argv[1]))"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(store)], cwd=cs.REPO) for _ in range(4)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    events = [e for e in load_session(store, "s").events() if e["event"] == "build_errors"]
    assert sorted(e["data"]["origin"] for e in events) == sorted(f"tu:/work/f{i}.c" for i in range(120))
    assert len(load_session(store, "s").state().build_errors) == 120


def _mk(store: Path) -> Path:
    for sub in ("sessions", "audits", "spool"):
        (store / sub).mkdir(parents=True, exist_ok=True)
    return store
