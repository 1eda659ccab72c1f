"""Signal handling of the plugin: the re-run of a failing test kept invisible and bounded, and termination
signals turned into an interrupt so the verdict still prints."""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest


@contextlib.contextmanager
def quiet_live_logging(config: pytest.Config) -> Iterator[None]:
    """Silence live (log_cli) and file logging during the re-run: they would add output."""
    plugin = config.pluginmanager.get_plugin("logging-plugin")
    handlers = [getattr(plugin, name, None) for name in ("log_cli_handler", "log_file_handler")]
    saved = [(h, h.level) for h in handlers if isinstance(h, logging.Handler)]
    for handler, _level in saved:
        handler.setLevel(logging.CRITICAL + 10)
    try:
        yield
    finally:
        for handler, level in saved:
            handler.setLevel(level)


@contextlib.contextmanager
def alarm(seconds: float) -> Iterator[None]:
    """Whetstone's own timeout around a re-run (main thread, SIGALRM free), else a no-op."""
    usable = (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN, None)
    )
    if not usable:
        yield
        return
    from .capture import RerunTimeout

    def handler(signum: int, frame: Any) -> None:
        raise RerunTimeout(f"Whetstone re-run exceeded {seconds:.0f}s")

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def interrupt_on_termination() -> Callable[[], None]:
    """SIGTERM and SIGHUP end the run as Ctrl-C does, so pytest finishes its session and the verdict
    still prints; only where the signal still has its default action (a handler of the suite's own
    stays).  Returns what puts the old handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is signal.SIG_DFL:
            previous[sig] = signal.signal(sig, interrupt)

    def restore() -> None:
        for sig, handler in previous.items():
            if signal.getsignal(sig) is interrupt:
                signal.signal(sig, handler)

    return restore
