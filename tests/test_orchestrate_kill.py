"""`whetstone fix` interrupted mid-step (SIGKILL, SIGINT), nested runs, dry runs: real make + gcc."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_loop_e2e import CALC, FIXED, MAKEFILE, _build_args, _c_project, _env, _fix, _sha, pytestmark  # noqa: F401

from pytest_whetstone.verdict import BEGIN


def _wait_for(path: Path, proc: subprocess.Popen[str], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "phase never started"
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_mid_step_leaves_whole_edits_and_resumes(tmp_path: Path, sig: int) -> None:
    ws = _c_project(tmp_path / "k")
    states = {
        "original": hashlib.sha256(CALC.encode()).hexdigest(),
        "include kept": hashlib.sha256(CALC.replace("#include <stdio.h>\n", "#include <stdio.h>\n#include <stdbool.h>\n").encode()).hexdigest(),
        "both": hashlib.sha256(FIXED.encode()).hexdigest(),
    }
    # the tests phase only starts once the build passes, i.e. with the second fix applied and unchecked
    proc = subprocess.Popen([sys.executable, "-m", "pytest_whetstone", "fix", *_build_args()], cwd=ws,
                            env=_env(SLOW="30"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    _wait_for(ws / "tests-started", proc)
    time.sleep(0.3)
    os.killpg(proc.pid, sig) if sig == signal.SIGKILL else proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    subprocess.run(["pkill", "-KILL", "-g", str(proc.pid)], check=False)  # only our own process group
    now = _sha(ws / "calc.c")
    assert now in states.values(), "a half-applied edit was left behind"
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and now == states["include kept"]  # unchecked edit reverted, kept one stays
        assert out.rstrip().endswith("===END-WHETSTONE-RESULT===")
    (ws / "tests-started").unlink()
    again = _fix(ws, *_build_args())
    assert "resuming session" in again.stdout and again.returncode == 0, again.stdout + again.stderr
    assert (ws / "calc.c").read_text() == FIXED


def test_nested_whetstone_run_prints_one_sentinel(tmp_path: Path) -> None:
    ws = _c_project(tmp_path / "n")
    (ws / "Makefile").write_text(MAKEFILE.replace("\t./calc", f"\t{sys.executable} -m pytest_whetstone run --phase tests -- ./calc"))
    proc = _fix(ws, *_build_args())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(BEGIN) == 1


def test_dry_run_changes_nothing(tmp_path: Path) -> None:
    ws = _c_project(tmp_path / "dry")
    proc = _fix(ws, *_build_args(), "--dry-run")
    assert proc.returncode == 1 and "would apply" in proc.stdout and "+#include <stdbool.h>" in proc.stdout
    assert (ws / "calc.c").read_text() == CALC
