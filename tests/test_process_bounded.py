"""run_bounded: the quiet, bounded runs of the searches (test binaries, compiles), with the address
space capped where asked: on the process once started (Linux's prlimit(2), so Python spawns with vfork
and nothing else is exec'd first), else through util-linux's prlimit program, else a preexec function.
Real processes: a Python child maps more than the cap allows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_whetstone import process
from pytest_whetstone.process import MEMORY_LIMIT_BYTES, run_bounded

# Maps (without touching or reserving) more address space than the cap: refused under the cap, free
# without it where the kernel overcommits (its default).
MAP_OVER_CAP = ("import mmap; flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, 'MAP_NORESERVE', 0); "
                f"mmap.mmap(-1, {MEMORY_LIMIT_BYTES + (1 << 30)}, flags=flags); print('mapped')")


@pytest.fixture(params=["once-started", "prlimit", "preexec"])
def capped_by(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "once-started":
        if process._set_limit() is None:
            pytest.skip("a running process's limit cannot be set here (not Linux)")
        return str(request.param)
    monkeypatch.setattr(process, "_set_limit", lambda: None)
    if request.param == "prlimit":
        if process._prlimit() is None:
            pytest.skip("no prlimit on this machine")
    else:
        monkeypatch.setattr(process, "_prlimit", lambda: None)
    return str(request.param)


def test_the_cap_refuses_a_mapping_over_it(tmp_path: Path, capped_by: str) -> None:
    code, out = run_bounded([sys.executable, "-c", MAP_OVER_CAP], tmp_path, 30.0, limit_memory=True)
    assert code != 0 and b"mapped" not in out
    assert b"MemoryError" in out or b"Cannot allocate memory" in out, out[-500:]


def test_without_the_cap_the_same_mapping_is_made(tmp_path: Path) -> None:
    probe = subprocess.run([sys.executable, "-c", MAP_OVER_CAP], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip("this machine does not overcommit address space: the mapping fails even uncapped")
    code, out = run_bounded([sys.executable, "-c", MAP_OVER_CAP], tmp_path, 30.0)
    assert (code, out.strip()) == (0, b"mapped")


def test_capped_runs_keep_their_exit_status_output_and_directory(tmp_path: Path, capped_by: str) -> None:
    script = "import os, sys; print(os.getcwd()); sys.stdout.flush(); sys.exit(3)"
    code, out = run_bounded([sys.executable, "-c", script], tmp_path, 30.0, limit_memory=True)
    assert code == 3 and out.decode().strip() == str(tmp_path)


def test_a_capped_run_that_outlives_its_time_is_killed_with_its_group(tmp_path: Path, capped_by: str) -> None:
    marker = tmp_path / "child-alive"
    # the program leaves a child behind in its group: killed with it at the timeout
    child = f"import time; time.sleep(3); open({str(marker)!r}, 'w')"
    script = f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {child!r}]); time.sleep(30)"
    code, _out = run_bounded([sys.executable, "-c", script], tmp_path, 0.5, limit_memory=True)
    assert code is None
    subprocess.run(["sleep", "3.5"], check=True)
    assert not marker.exists()


def test_a_missing_or_unrunnable_program_raises_as_popen_would(tmp_path: Path, capped_by: str) -> None:
    with pytest.raises(FileNotFoundError):
        run_bounded([str(tmp_path / "no-such-binary")], tmp_path, 5.0, limit_memory=True)
    with pytest.raises(FileNotFoundError):
        run_bounded(["no-such-program-on-the-path-at-all"], tmp_path, 5.0, limit_memory=True)
    script = tmp_path / "not-executable.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    with pytest.raises(PermissionError):
        run_bounded([str(script)], tmp_path, 5.0, limit_memory=True)
