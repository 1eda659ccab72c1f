"""One node process that runs a project's tape test files once per mutant of a JS schema.

A tape run of the failing test files is a node process that loads tape and the packages it needs
before the first test: 0.3 to 1 s, against a few milliseconds for the tests themselves.  The harness
(``js_screen.cjs``, next to this file) pays that once per trial: for each run it loads the mutated
file's schema text in place of the file (so mutants of several files take turns in one process), sets
the global the choices read, drops the project's modules from
the require cache, loads the test files again and answers with the TAP they printed, which the trial
reads exactly as it reads a tape process's output (:mod:`.native_trial_js`).  A mutant that crashes,
or whose tests do not end, ends the process (the harness's own timer, or a kill at the deadline when
a loop never yields); the next mutant starts a fresh one.

The harness is a screen, never the judge: a mutant that makes a failing test pass there is run as
an ordinary tape process before it counts (:mod:`.native_search`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..process import read_json_line

HARNESS = Path(__file__).with_name("js_screen.cjs")
START_S = 15.0  # loading tape and the packages, once per process
# past a run's own limit, the harness is taken to be stuck in a loop and killed.  Its own timer ends a run
# at the limit, and a run that ends so ends its process too (js_screen.cjs): the grace only has to cover
# the answer's way here, not a verdict that could still change (it was a second: each loop that never
# yields cost that second more)
DEADLINE_GRACE_S = 0.25


@dataclass
class ScreenRun:
    """One mutant's run in the harness: what its tests printed, as a tape process would have."""

    tap: str = ""
    rc: int = 0  # 0: the tests ended; 1: a crash, a load error or a timeout
    error: str = ""  # "crashed", "timed out", or why the harness could not run
    seconds: float = 0.0
    timed_out: bool = False
    # the tests that failed (or were running at a crash), each by its path of names from the top-level test
    # joined by \x1f
    tops: list[str] = field(default_factory=list)


def tape_index(root: Path) -> Path | None:
    """tape's entry point as the project's test files load it, when tape is installed."""
    index = root / "node_modules" / "tape" / "index.js"
    return index if index.is_file() else None


class TapeScreen:
    """The harness for one trial's scratch copy: one process for every file's schema, started again only
    after a run ended it."""

    def __init__(self, root: Path, work: Path, files: list[str], requires: list[str], node_flags: list[str],
                 env: dict[str, str]) -> None:
        self.root, self.work = root, work
        self.files = [str(root / f) for f in files]
        self.requires, self.node_flags, self.env = requires, node_flags, env
        self.proc: subprocess.Popen[bytes] | None = None
        self.answers: Any = None  # the read end of the answer pipe
        self.starts = 0  # processes started: the first, plus one per run that ended its process
        self.start_s: list[float] = []
        self.written = ""  # the text the target's file holds now (a schema's runs share one write)

    def run(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
            files: list[str] | None = None, only: set[str] | None = None, spins: int = 0) -> ScreenRun:
        """Mutant ``mutant_id`` of the schema ``text`` (at ``rel``) over the test files (or only ``files``),
        every test or ``only`` the tests on those paths (a test runs when its path leads to one); past
        ``spins`` runs of the mutant's expression the run ends as timed out (0: no such bound)."""
        if self.proc is None or self.proc.poll() is not None:
            why = self._start()
            if why:
                return ScreenRun(rc=1, error=why)
        assert self.proc is not None and self.proc.stdin is not None
        request: dict[str, Any] = {"id": mutant_id, "target": str(self.root / rel), "schema": str(self._schema(text)),
                                   "timeout_ms": max(1, int(timeout_s * 1000)), "reached": reached}
        if files is not None:
            request["files"] = [str(self.root / f) for f in files]
        if only is not None:
            request["only"] = sorted(only)
        if spins > 0:
            request["spins"] = spins
        started = time.monotonic()
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            self.close()
            return ScreenRun(rc=1, error="crashed")
        answer = self._read(timeout_s + DEADLINE_GRACE_S)
        seconds = time.monotonic() - started
        if answer is None:  # a loop that never yields, or the process died with the run
            dead = self.proc is not None and self.proc.poll() is not None
            self.close()
            if dead:
                return ScreenRun(rc=1, error="crashed", seconds=seconds)
            return ScreenRun(rc=1, error="timed out", seconds=seconds, timed_out=True)
        if answer.get("exit"):
            self.close()
        error = str(answer.get("error") or "")
        return ScreenRun(tap=str(answer.get("tap") or ""), rc=int(answer.get("rc") or 0), error=error,
                         seconds=seconds, timed_out=error == "timed out", tops=[str(t) for t in answer.get("tops") or []])

    def _schema(self, text: str) -> Path:
        """The file the harness reads the target's text from (afresh, each run: a schema, or one mutant's
        own text), written when the text changes."""
        path = self.work / "schema" / "target.js"
        if text != self.written or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", errors="surrogateescape")
            self.written = text
        return path

    def _start(self) -> str:
        """A fresh process: "" or why it could not start."""
        self.close()
        tape = tape_index(self.root)
        node = shutil.which("node")
        if tape is None or node is None:
            return "tape is not installed" if node else "node is not on PATH"
        read_end, write_end = os.pipe()
        config = self.work / "screen.json"
        config.write_text(json.dumps({"root": str(self.root), "files": self.files, "requires": self.requires,
                                      "tape": str(tape), "fd": write_end}), encoding="utf-8")
        started = time.monotonic()
        try:
            self.proc = subprocess.Popen([node, *self.node_flags, str(HARNESS), str(config)], cwd=self.root,
                                         env=self.env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, pass_fds=(write_end,), start_new_session=True)
        except OSError as exc:
            os.close(read_end)
            return f"cannot run node: {exc}"
        finally:
            os.close(write_end)
        self.answers = os.fdopen(read_end, "rb")
        self.starts += 1
        ready = self._read(START_S)
        if not ready or not ready.get("ready"):
            self.close()
            return "the screen harness did not start"
        self.start_s.append(round(time.monotonic() - started, 3))
        return ""

    def _read(self, timeout: float) -> dict[str, Any] | None:
        return None if self.answers is None else read_json_line(self.answers, timeout)

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
            if proc.stdin is not None:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
        if self.answers is not None:
            self.answers.close()
            self.answers = None
