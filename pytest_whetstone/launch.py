"""``whetstone run``'s first step: start the command, then load what judging it needs.

Before the command starts, only what it depends on is loaded and done: the store and the session it
writes into (its id goes to the child's environment, so ccwrap's captures and nested runs land
there), the mark after which the session's new events are this run's, and the process that tees
its output.  The record types, the configuration, the parsers, locators and generators load while
the command runs (:mod:`.runner`, :mod:`.prefetch`): on a test command of a tenth of a second most
of that cost is hidden, where it used to come before the command.  This module and everything it
imports stay light (no dataclasses, no record types).
"""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from .process import Running, command_text, start
from .store.events import RUN_STARTED
from .store.location import ENV_DIR, ENV_NESTED, ENV_SESSION
from .store.sessions import Session, find_store, open_session


class Launched:
    """A command started for a run: its session, the mark its events follow, its log, its process and the
    attempt its start event names."""

    __slots__ = ("session", "mark", "log_path", "running", "started", "attempt_id", "pending_signal")

    def __init__(self, session: Session, mark: int, log_path: Path, running: Running, started: float,
                 attempt_id: str) -> None:
        self.session = session
        self.mark = mark
        self.log_path = log_path
        self.running = running
        self.started = started
        self.attempt_id = attempt_id
        # a signal that landed while the core loaded (the command already running): the run acts on it once
        # it can judge it, so the verdict still comes last (0: none)
        self.pending_signal = 0


def child_env(session: Session) -> dict[str, str]:
    env = dict(os.environ)
    env[ENV_SESSION] = session.session_id
    env[ENV_DIR] = str(session.store)
    env[ENV_NESTED] = "1"
    return env


def launch(
    cmd: Sequence[str] | str,
    *,
    cwd: Path,
    store: Path | None,
    session_id: str | None,
    shell: bool,
    echo: bool,
    timeout: float | None,
    started: float | None = None,
    phase: str = "",
) -> Launched:
    """Open (or join) the session, write the run's start, then start the command; the caller waits on
    ``running``.  The start is written first: a run killed outright (SIGKILL) a moment after its command
    started must still read as killed, not as a session with no run in it."""
    started = time.monotonic() if started is None else started
    session = open_session(store or find_store(cwd), session_id,
                           meta={"command": command_text(cmd), "cwd": str(cwd)})
    mark = session.size()
    with tempfile.NamedTemporaryFile(prefix="whetstone-run-", suffix=".log", delete=False) as log:
        log_path = Path(log.name)
    # last before the command: nothing here raises after it (start reports a launch error, it does not
    # raise), so no start is left without the attempt that closes it
    attempt_id = "A" + secrets.token_hex(6)
    session.append(RUN_STARTED, {"attempt_id": attempt_id, "pid": os.getpid(), "phase": phase,
                                 "command": command_text(cmd)})
    running = start(cmd, cwd, child_env(session), shell, echo, timeout, log_path)
    return Launched(session, mark, log_path, running, started, attempt_id)
