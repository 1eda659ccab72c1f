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


def _console(tmp_path: Path, *args: str, before: str = "") -> subprocess.CompletedProcess[str]:
    """``whetstone ARGS`` through the console entry point, after the Python statements ``before``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_") and k not in ("AGENT", "AI_AGENT")}
    env["WHETSTONE_DIR"] = str(tmp_path / ".whetstone")
    return subprocess.run([sys.executable, "-c", before + CONSOLE, *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("status", [0, 3, 8])
def test_the_commands_status_and_output_come_through_with_the_verdict_last(tmp_path: Path, status: int) -> None:
    lines = "".join(f"line {i}\\n" for i in range(2000))  # more than one pipe buffer: all flushed
    proc = _console(tmp_path, "run", "--", "sh", "-c", f"printf '{lines}'; exit {status}")
    assert proc.returncode == status
    out = proc.stdout.splitlines()
    assert out[:2000] == [f"line {i}" for i in range(2000)]
    assert out[-1] == "===END-WHETSTONE-RESULT===" and out[-3] == "===WHETSTONE-RESULT==="


def test_atexit_callbacks_still_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    proc = _console(tmp_path, "run", "--", "true",
                    before=f"import atexit, pathlib; atexit.register(lambda: pathlib.Path({str(marker)!r}).write_text('yes')); ")
    assert proc.returncode == 0
    assert marker.read_text() == "yes"


def test_a_live_non_daemon_thread_is_waited_for(tmp_path: Path) -> None:
    marker = tmp_path / "thread"
    proc = _console(tmp_path, "run", "--", "true",
                    before="import threading, time, pathlib; threading.Thread(target=lambda: (time.sleep(0.5), "
                    f"pathlib.Path({str(marker)!r}).write_text('done'))).start(); ")
    assert proc.returncode == 0
    assert marker.read_text() == "done"


def test_a_usage_error_keeps_its_status(tmp_path: Path) -> None:
    proc = _console(tmp_path, "run")
    assert proc.returncode == 2
    assert "no command given" in proc.stderr
