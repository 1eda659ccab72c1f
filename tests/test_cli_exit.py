"""The installed ``whetstone`` command ends without the interpreter's teardown, and loses nothing by it:
the command's exit status, every byte of output with the verdict block last, the atexit callbacks
(a coverage tracer's data), and a live non-daemon thread still ends the usual way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Runs the console entry point in a fresh interpreter, as the installed script does.
CONSOLE = "import sys; from pytest_whetstone.cli import console; sys.argv[0] = 'whetstone'; console()"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_") and k not in ("AGENT", "AI_AGENT")}
    env["WHETSTONE_DIR"] = str(tmp_path / ".whetstone")
    return env


@pytest.mark.parametrize("status", [0, 3, 8])
def test_the_commands_status_and_output_come_through_with_the_verdict_last(tmp_path: Path, status: int) -> None:
    lines = "".join(f"line {i}\\n" for i in range(2000))  # more than one pipe buffer: all flushed
    proc = subprocess.run([sys.executable, "-c", CONSOLE, "run", "--", "sh", "-c", f"printf '{lines}'; exit {status}"],
                          cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert proc.returncode == status
    out = proc.stdout.splitlines()
    assert out[:2000] == [f"line {i}" for i in range(2000)]
    assert out[-1] == "===END-WHETSTONE-RESULT===" and out[-3] == "===WHETSTONE-RESULT==="


def test_atexit_callbacks_still_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = (f"import atexit, pathlib; atexit.register(lambda: pathlib.Path({str(marker)!r}).write_text('yes')); "
            + CONSOLE)
    proc = subprocess.run([sys.executable, "-c", code, "run", "--", "true"], cwd=tmp_path, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert marker.read_text() == "yes"


def test_a_live_non_daemon_thread_is_waited_for(tmp_path: Path) -> None:
    marker = tmp_path / "thread"
    code = ("import threading, time, pathlib; "
            f"threading.Thread(target=lambda: (time.sleep(0.5), pathlib.Path({str(marker)!r}).write_text('done'))).start(); "
            + CONSOLE)
    proc = subprocess.run([sys.executable, "-c", code, "run", "--", "true"], cwd=tmp_path, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert marker.read_text() == "done"


def test_a_usage_error_keeps_its_status(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", CONSOLE, "run"], cwd=tmp_path, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "no command given" in proc.stderr
