"""Running one command as its own process group: output teed live to a log, bounded, and stopped whole.

SIGTERM and SIGHUP raise :class:`Interrupted` while a run is in progress (SIGINT raises
KeyboardInterrupt); either way the child's whole process group gets the signal, then SIGKILL after
a grace time, and the caller still judges the run and prints its verdict.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import selectors
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .verdict import RunFacts  # imported when a run ends: it loads the record types

KILL_GRACE_S = 3.0  # how long an interrupted child's process group gets before SIGKILL


class Interrupted(Exception):
    """SIGTERM or SIGHUP reached ``whetstone run``: stop the child, still judge and print the verdict."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def command_text(cmd: Sequence[str] | str) -> str:
    return cmd if isinstance(cmd, str) else shlex.join(cmd)


@contextlib.contextmanager
def signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Interrupted` (SIGINT already raises KeyboardInterrupt).

    Only the main thread can own signal handlers; a run started from a worker thread (an MCP tool)
    keeps the process's handlers as they are."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, _frame: Any) -> None:
        raise Interrupted(signum)

    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[sig] = signal.signal(sig, _raise)
        except (OSError, ValueError):
            pass
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class Running:
    """A command started by :func:`start`: its output is teed by a thread of its own, so the caller
    can do other work (import what the analysis needs) while it runs; :meth:`wait` says how it ended."""

    def __init__(self, proc: subprocess.Popen[bytes] | None, timeout: float | None, log_path: Path, echo: bool,
                 launch_error: tuple[int, str] | None = None) -> None:
        self.proc = proc
        self.launch_error = launch_error
        self._deadline = time.monotonic() + timeout if timeout else None
        self._timed_out = False
        self._failure: BaseException | None = None
        self._pump = threading.Thread(target=self._tee, args=(log_path, echo), name="whetstone-tee", daemon=True)
        if proc is not None:
            self._pump.start()

    def _tee(self, log_path: Path, echo: bool) -> None:
        assert self.proc is not None
        try:
            with open(log_path, "ab") as log:
                self._timed_out = _pump(self.proc, log, echo, self._deadline)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread by wait()
            self._failure = exc

    def wait(self) -> RunFacts:
        """Wait for the command and its output; an interrupt stops its process group (the run is judged)."""
        from .verdict import RunFacts  # loaded while the command ran

        if self.proc is None:
            code, message = self.launch_error or (2, "whetstone: cannot run command")
            return RunFacts(exit_code=code, launch_error=message)
        try:
            while self._pump.is_alive():
                self._pump.join(0.5)  # in slices: a signal's handler runs in this (the main) thread
        except KeyboardInterrupt:
            self.stop(signal.SIGINT)
            return RunFacts(exit_code=130, interrupted="SIGINT")
        except Interrupted as exc:
            self.stop(exc.signum)
            return RunFacts(exit_code=128 + exc.signum, interrupted=str(exc))
        if self._failure is not None:
            self.stop(signal.SIGTERM)
            raise self._failure
        code = self.proc.wait()
        if self._timed_out:
            return RunFacts(exit_code=124, timed_out=True)
        return RunFacts(exit_code=128 - code if code < 0 else code)

    def stop(self, sig: int) -> None:
        """Stop the command's process group (an interrupt reached us): ``sig``, then SIGKILL after a grace."""
        if self.proc is not None and self.proc.poll() is None:
            _stop_group(self.proc, sig)
        if self._pump.is_alive():
            self._pump.join(1.0)  # its last lines into the log before it is read


def start(
    cmd: Sequence[str] | str,
    cwd: Path,
    env: dict[str, str],
    shell: bool,
    echo: bool,
    timeout: float | None,
    log_path: Path,
) -> Running:
    """Start the command in its own process group and tee its output to the terminal and ``log_path``."""
    args: Any = cmd if not shell else command_text(cmd)
    try:
        proc = subprocess.Popen(
            args,
            cwd=str(cwd),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL if not sys.stdin or not sys.stdin.isatty() else None,
            shell=shell,
            start_new_session=True,
        )
    except FileNotFoundError as exc:
        return _not_started(127, f"whetstone: command not found: {exc.filename or command_text(cmd)}\n", log_path)
    except PermissionError as exc:
        return _not_started(126, f"whetstone: cannot execute: {exc.filename or command_text(cmd)}\n", log_path)
    except (OSError, ValueError) as exc:
        return _not_started(2, f"whetstone: cannot run command: {exc}\n", log_path)
    return Running(proc, timeout, log_path, echo)


def _not_started(code: int, message: str, log_path: Path) -> Running:
    _write_err(message, log_path)
    return Running(None, None, log_path, False, launch_error=(code, message.strip()))


def _write_err(message: str, log_path: Path) -> None:
    sys.stderr.write(message)
    sys.stderr.flush()
    with open(log_path, "ab") as log:
        log.write(message.encode())


class _LineLog:
    """The log of two streams, written a whole line at a time: a read of one pipe may end inside a
    line, and the other stream's next read must not land inside it (the parsers read the log)."""

    HELD = 1 << 20  # a line longer than this is written in pieces anyway

    def __init__(self, log: IO[bytes]) -> None:
        self.log = log
        self.partial: dict[int, bytes] = {}

    def write(self, fd: int, chunk: bytes) -> None:
        data = self.partial.pop(fd, b"") + chunk
        cut = data.rfind(b"\n") + 1 if len(data) <= self.HELD else len(data)
        if cut:
            self.log.write(data[:cut])
        if cut < len(data):
            self.partial[fd] = data[cut:]

    def close(self, fd: int) -> None:
        rest = self.partial.pop(fd, b"")
        if rest:
            self.log.write(rest + b"\n")

    def close_all(self) -> None:
        for fd in list(self.partial):
            self.close(fd)


def _pump(proc: subprocess.Popen[bytes], log: IO[bytes], echo: bool, deadline: float | None) -> bool:
    lines = _LineLog(log)
    try:
        return _pump_lines(proc, lines, echo, deadline)
    finally:
        lines.close_all()


def _pump_lines(proc: subprocess.Popen[bytes], log: _LineLog, echo: bool, deadline: float | None) -> bool:
    assert proc.stdout is not None and proc.stderr is not None
    sel = selectors.DefaultSelector()
    targets = {
        proc.stdout.fileno(): sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None,
        proc.stderr.fileno(): sys.stderr.buffer if hasattr(sys.stderr, "buffer") else None,
    }
    sel.register(proc.stdout, selectors.EVENT_READ)
    sel.register(proc.stderr, selectors.EVENT_READ)
    open_streams = 2
    while open_streams:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if deadline is not None and wait == 0.0:
            _terminate_group(proc)
            return True
        for key, _ in sel.select(timeout=wait if wait is not None else 1.0):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                log.close(key.fd)
                open_streams -= 1
                continue
            log.write(key.fd, chunk)
            target = targets.get(key.fd)
            if echo and target is not None:
                try:
                    target.write(chunk)
                    target.flush()
                except (OSError, ValueError):
                    pass
    if deadline is not None:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _terminate_group(proc)
            return True
    return False


def isolate_forked_child() -> None:
    """In a child of ``os.fork``: a process group of its own (so it is killed whole, with whatever
    the tests it runs start) and stdin/stdout/stderr on /dev/null (the user's terminal stays clean)."""
    os.setpgid(0, 0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)


def fork_isolated(body: Callable[[int], None]) -> tuple[int, int]:
    """Fork a child that isolates itself, runs ``body(write_fd)`` and exits without returning;
    (its pid, the read end of its pipe) to the parent."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        try:
            os.close(read_fd)
            isolate_forked_child()
            body(write_fd)
        finally:
            os._exit(0)
    os.close(write_fd)
    return pid, read_fd


def kill_forked_child(pid: int) -> None:
    """SIGKILL a forked child's group and the child itself, then reap it."""
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    os.waitpid(pid, 0)


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _terminate_group(proc: subprocess.Popen[bytes]) -> None:
    _stop_group(proc, signal.SIGTERM)


def _stop_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    """Pass the signal to the child's whole process group; SIGKILL what is left after the grace time."""
    _signal_group(proc, sig)
    try:
        proc.wait(timeout=KILL_GRACE_S)
    except subprocess.TimeoutExpired:
        _signal_group(proc, signal.SIGKILL)
        proc.wait()


MEMORY_LIMIT_BYTES = 4 << 30  # a mutant that exhausts memory hits this, not the machine


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    import resource

    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


@functools.lru_cache(maxsize=1)
def _prlimit() -> str | None:
    import shutil  # not on the path of `whetstone run`'s start

    return shutil.which("prlimit")


@functools.lru_cache(maxsize=1)
def _set_limit() -> Callable[[int], None] | None:
    """What caps a started process's address space (Linux's prlimit(2), from Python's ``resource``): it
    runs its program by then, before any test of it could have allocated much; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import resource

    prlimit = getattr(resource, "prlimit", None)
    if prlimit is None:
        return None

    def cap(pid: int) -> None:
        with contextlib.suppress(OSError, ValueError):  # a process that has ended already needs no cap
            prlimit(pid, resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    return cap


def _memory_capped(args: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """The command and how its address space gets capped, when it cannot be capped once started
    (:func:`_set_limit`, on Linux: no other program, no fork).  util-linux's ``prlimit`` sets the limit
    and execs the command (same process, same group), so Python spawns it with vfork; a preexec function
    makes Python fork the whole interpreter instead, 8 ms a spawn for a search process of 150 MB
    against 1.5 ms (a mutant's screened run is a few milliseconds of tests).  Without ``prlimit``, the
    preexec function.  A command that is not there still raises here, as Popen would."""
    tool = _prlimit()
    if tool is None:
        return args, _limit_memory
    import shutil

    program = args[0]
    found = program if os.sep in program else shutil.which(program)
    if found is None or not os.path.exists(found):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
    if not os.access(found, os.X_OK) or os.path.isdir(found):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)
    return [tool, f"--as={MEMORY_LIMIT_BYTES}", "--", *args], None


def run_bounded(
    args: Sequence[str], cwd: Path | str, timeout: float, env: dict[str, str] | None = None, *, limit_memory: bool = False
) -> tuple[int | None, bytes]:
    """Run quietly as a process group with stdin closed; (exit code or None on timeout, stdout+stderr).

    On timeout the whole group is killed, so a test binary's children do not outlive it.
    ``limit_memory`` caps the address space (not for programs that reserve huge mappings, such as
    sanitizer builds).  OSError propagates: the caller says in one line why it could not run."""
    cap = _set_limit() if limit_memory else None  # capped once started: no prlimit program exec'd first
    argv, preexec = _memory_capped(list(args)) if limit_memory and cap is None else (list(args), None)
    proc = subprocess.Popen(
        argv, cwd=str(cwd), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=preexec,
    )
    if cap is not None:
        cap(proc.pid)
    try:
        out, _ = proc.communicate(timeout=max(0.1, timeout))
    except subprocess.TimeoutExpired:
        _signal_group(proc, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out or b""
    return proc.returncode, out or b""


def dir_stamp(directory: Path) -> int:
    """The directory's modification time: it moves when an entry is created, removed or renamed."""
    try:
        return directory.stat().st_mtime_ns
    except OSError:
        return 0


def read_json_line(stream: IO[Any], timeout: float) -> dict[str, Any] | None:
    """One JSON object a worker wrote as a line on ``stream``, waiting at most ``timeout`` seconds for it
    to start; None when nothing came, the stream ended, or the line is not an object."""
    import json
    import select

    ready, _w, _x = select.select([stream], [], [], max(timeout, 0.0))
    if not ready:
        return None
    line = stream.readline()
    try:
        data = json.loads(line) if line else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
