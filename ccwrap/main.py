"""ccwrap in pure Python: the fallback when no C compiler was available at install time.

Behaves exactly like ``shim.c`` (same resolution, recursion guard, fix-it
handling, relay, spool format and exit status); it only costs more CPU per
call (interpreter start-up).  Imports nothing outside the standard library.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
from typing import Any, NoReturn

from . import args as _args
from . import store as _store

DEPTH_ENV = "WHETSTONE_CCWRAP_DEPTH"
MAX_CAPTURE = 16 * 1024 * 1024
LAUNCHERS = frozenset(["ccache", "sccache", "distcc", "icecc", "buildcache"])
FIXIT_MARK = b'fix-it:"'
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


class _Exit(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _is_ccwrap_name(path: str) -> bool:
    return os.path.basename(path) in ("ccwrap", "ccwrap++")


def _self_stat() -> os.stat_result | None:
    try:
        return os.stat(sys.argv[0]) if os.sep in sys.argv[0] else None
    except OSError:
        return None


_SELF: os.stat_result | None = None


def _is_ccwrap_file(path: str) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    if _SELF is not None and (st.st_dev, st.st_ino) == (_SELF.st_dev, _SELF.st_ino):
        return True
    return _is_ccwrap_name(os.path.realpath(path))


def _executable_file(path: str) -> bool:
    try:
        return os.access(path, os.X_OK) and stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def find_program(name: str) -> tuple[str | None, bool]:
    """Like execvp's search, skipping any ccwrap; returns (path, skipped_a_ccwrap)."""
    if "/" in name:
        return (name if _executable_file(name) else None), False
    skipped = False
    for directory in (os.environ.get("PATH") or "/usr/local/bin:/usr/bin:/bin").split(":"):
        cand = os.path.join(directory or ".", name)
        if _executable_file(cand):
            if not _is_ccwrap_file(cand):
                return cand, skipped
            skipped = True
    return None, skipped


def _norm_name(path: str) -> str:
    name = os.path.basename(path)
    head, dash, tail = name.rpartition("-")
    if dash and tail and all(c in "0123456789." for c in tail):
        name = head
    return name.rpartition("-")[2]


def family_of(word: str, resolved: str | None) -> str:
    """"gcc", "clang", "cc" (gcc-compatible, unknown which) or "" (leave it alone)."""
    name = _norm_name(word)
    if name in ("gcc", "g++"):
        return "gcc"
    if name in ("clang", "clang++"):
        return "clang"
    if name not in ("cc", "c++"):
        return ""
    path = resolved or find_program(word)[0] or word
    real = _norm_name(os.path.realpath(path))
    if real in ("gcc", "g++"):
        return "gcc"
    if real in ("clang", "clang++"):
        return "clang"
    return "cc" if real in ("cc", "c++") or real in LAUNCHERS else ""


def _looks_like_program(arg: str) -> bool:
    if arg.startswith(("-", "@")) or _args.has_input_ext(arg):
        return False
    return _executable_file(arg) if "/" in arg else find_program(arg)[0] is not None


class Relay:
    """Echo the compiler's stderr as it comes, minus the fix-it lines ccwrap asked for."""

    def __init__(self, strip: bool) -> None:
        self.strip = strip
        self.state = 0  # 0 deciding at line start, 1 pass to EOL, 2 drop to EOL
        self.pend = bytearray()
        self.out_ok = True
        self.captured = bytearray()
        self.seen = 0
        self.truncated = False

    def _emit(self, data: bytes) -> None:
        view = memoryview(data)
        while view and self.out_ok:
            try:
                view = view[os.write(2, view) :]
            except InterruptedError:
                continue
            except OSError:
                self.out_ok = False  # like a compiler that lost its stderr

    def _classify(self) -> tuple[int, int, bool]:
        """(-1 no / 0 undecided, escape prefix length, marker complete)."""
        pend, i = self.pend, 0
        while i < len(pend) and pend[i] == 0x1B:
            j = i + 1
            if j >= len(pend):
                return 0, 0, False
            if pend[j] != 0x5B:
                return -1, 0, False
            j += 1
            while j < len(pend) and 0x20 <= pend[j] <= 0x3F:
                j += 1
            if j >= len(pend):
                return 0, 0, False
            if not 0x40 <= pend[j] <= 0x7E:
                return -1, 0, False
            i = j + 1
        rest = bytes(pend[i:])
        if rest.startswith(FIXIT_MARK):
            return 0, i, True
        return (0 if FIXIT_MARK.startswith(rest) else -1), i, False

    def feed(self, data: bytes) -> None:
        self.seen += len(data)
        room = MAX_CAPTURE - len(self.captured)
        if len(data) > room:
            self.truncated = True
        self.captured += data[: max(room, 0)]
        if not self.strip:
            self._emit(data)
            return
        out = bytearray()
        for byte in data:
            if self.state == 1:
                out.append(byte)
                if byte == 0x0A:
                    self.state = 0
                continue
            if self.state == 2:
                if byte == 0x0A:
                    self.state = 0
                continue
            self.pend.append(byte)
            verdict, esc_len, match = self._classify()
            if match:
                out += self.pend[:esc_len]  # clang's colour reset belongs to the line before
                self.pend.clear()
                self.state = 2
            elif verdict < 0 or byte == 0x0A or len(self.pend) >= 256:
                out += self.pend
                self.pend.clear()
                self.state = 0 if byte == 0x0A else 1
        self._emit(bytes(out))

    def finish(self) -> None:
        if self.pend:
            self._emit(bytes(self.pend))
            self.pend.clear()


def _warn_capture(what: str) -> None:
    try:
        os.write(2, f"ccwrap: warning: capture failed ({what}); build output unaffected\n".encode())
    except OSError:
        pass


def _exec_direct(path: str, cmd: list[str]) -> NoReturn:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # Python ignores it; the compiler must not
    try:
        os.execv(path, cmd)
    except OSError as exc:
        code = 127 if exc.errno == errno.ENOENT else 126
        raise _Exit(code, f"cannot run the compiler '{path}': {exc.strerror}") from None


def _build_command(argv: list[str]) -> tuple[list[str], str, int, int, bool]:
    """Returns (command, resolved compiler, compiler word index, depth, skipped a ccwrap)."""
    self_name = os.path.basename(argv[0])
    cxx = "++" in self_name
    masquerade = not _is_ccwrap_name(argv[0])
    raw_depth = os.environ.get(DEPTH_ENV, "")
    depth = int(raw_depth) if raw_depth.isdigit() else 0
    if depth >= 2:
        raise _Exit(
            2,
            f"recursive invocation: ccwrap is running itself ({depth} levels deep); "
            "set WHETSTONE_CC / WHETSTONE_CXX to the real compiler",
        )
    ai = 1
    while ai < len(argv) and _is_ccwrap_name(argv[ai]):
        cxx = cxx or "++" in os.path.basename(argv[ai])
        ai += 1
    if masquerade:
        cmd = [self_name]
    elif ai < len(argv) and _looks_like_program(argv[ai]):
        cmd = [argv[ai]]
        ai += 1
    else:
        env = os.environ.get("WHETSTONE_CXX" if cxx else "WHETSTONE_CC") or ("c++" if cxx else "cc")
        cmd = env.split()[:32] or ["c++" if cxx else "cc"]
    compiler, skipped = find_program(cmd[0])
    if compiler is None and skipped:
        raise _Exit(
            2,
            f"recursive invocation: '{cmd[0]}' on PATH is ccwrap itself and no real compiler follows "
            "it; set WHETSTONE_CC / WHETSTONE_CXX to the real compiler",
        )
    if compiler is None:
        where = "" if "/" in cmd[0] else " on PATH (set WHETSTONE_CC / WHETSTONE_CXX)"
        raise _Exit(127, f"cannot find the real compiler '{cmd[0]}'{where}")
    if _is_ccwrap_file(compiler):
        raise _Exit(
            2,
            f"recursive invocation: the compiler '{compiler}' is ccwrap itself; "
            "set WHETSTONE_CC / WHETSTONE_CXX to the real compiler",
        )
    cmd += argv[ai:]
    cw = 0
    while cw + 1 < len(cmd) and os.path.basename(cmd[cw]) in LAUNCHERS and not cmd[cw + 1].startswith("-"):
        cw += 1
    return cmd, compiler, cw, depth, skipped


def run(argv: list[str]) -> int:
    global _SELF
    _SELF = _self_stat()
    cmd, compiler, cw, depth, skipped = _build_command(argv)
    os.environ[DEPTH_ENV] = str(depth + 1)
    info = _args.scan(cmd[cw + 1 :])
    family = family_of(cmd[cw], compiler if cw == 0 else None)
    if skipped or not _is_ccwrap_name(argv[0]):
        cmd[0] = compiler  # gcc locates cc1 from argv[0]: it must not find ccwrap's directory
    if depth >= 1 or info.passthrough:
        _exec_direct(compiler, cmd)
    run_args = cmd[cw:]  # the command as the build ran it, for the compile database
    fixits = False
    if family and not info.user_fixits and not info.diag_format and not os.environ.get("GCC_EXTRA_DIAGNOSTIC_OUTPUT"):
        if family == "clang":
            if not info.records_switches:
                cmd.insert(cw + 1, "-fdiagnostics-parseable-fixits")
                fixits = True
        else:
            os.environ["GCC_EXTRA_DIAGNOSTIC_OUTPUT"] = "fixits-v1"
            fixits = True
        if fixits:
            ns = os.environ.get("CCACHE_NAMESPACE")
            os.environ["CCACHE_NAMESPACE"] = f"{ns}-whetstone-fixits" if ns else "whetstone-fixits"
    return _run_captured(argv, cmd, run_args, compiler, family, info, fixits)


def _open_pty() -> tuple[int, int] | None:
    try:
        import termios
        import tty

        master, slave = os.openpty()
        tty.setraw(slave)
        try:
            import fcntl

            size = fcntl.ioctl(2, termios.TIOCGWINSZ, b"\0" * 8)
            fcntl.ioctl(slave, termios.TIOCSWINSZ, size)
        except OSError:
            pass
        return master, slave
    except (OSError, ImportError):
        return None


def _own_group_kwargs(own_group: bool) -> dict[str, Any]:
    if not own_group:
        return {}
    if sys.version_info >= (3, 11):
        return {"process_group": 0}
    return {"preexec_fn": os.setpgrp}  # 3.10 has no process_group


def _run_captured(
    argv: list[str],
    cmd: list[str],
    run_args: list[str],
    compiler: str,
    family: str,
    info: _args.CmdInfo,
    fixits: bool,
) -> int:
    fds = _open_pty() if os.isatty(2) else None
    if fds is None:
        try:
            fds = os.pipe()
        except OSError as exc:
            _warn_capture(f"cannot create a pipe: {exc.strerror}")
            _exec_direct(compiler, cmd)
    rfd, wfd = fds
    forwarded: list[int] = []
    proc: subprocess.Popen[bytes] | None = None

    # The compiler leads a process group of its own (as in shim.c), so a signal sent to ccwrap alone
    # reaches cc1/as too; not when stdin is a terminal, where a background group would stop reading it.
    own_group = not os.isatty(0)

    def send(sig: int) -> None:
        if proc is None:
            return
        try:
            os.killpg(proc.pid, sig) if own_group else proc.send_signal(sig)
        except OSError:
            pass

    def forward(sig: int, _frame: object) -> None:
        forwarded.append(sig)
        send(sig)

    for signum in _FORWARDED:
        signal.signal(signum, forward)
    try:
        proc = subprocess.Popen(cmd, executable=compiler, stderr=wfd, **_own_group_kwargs(own_group))
    except OSError as exc:
        code = 127 if exc.errno == errno.ENOENT else 126
        raise _Exit(code, f"cannot run the compiler '{compiler}': {exc.strerror}") from None
    if forwarded:
        send(forwarded[0])
    os.close(wfd)
    relay = Relay(fixits)
    _relay_loop(relay, rfd, proc.pid)
    relay.finish()
    os.close(rfd)
    status = proc.wait()
    exit_code, sig = (status, 0) if status >= 0 else (0, -status)
    if not forwarded:
        try:
            _after_compile(argv, run_args, compiler, family or "unknown", info, relay, exit_code, sig, fixits)
        except Exception as exc:  # noqa: BLE001 - capture must never change the build
            _warn_capture(f"internal error: {exc}")
    if sig:
        _reraise(sig)
    return exit_code


def _relay_loop(relay: Relay, rfd: int, pid: int) -> None:
    """Relay until EOF, or until the compiler itself exited (an orphaned cc1 may hold the pipe)."""
    import select

    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = -1
    poller = select.poll()
    poller.register(rfd, select.POLLIN)
    if pidfd >= 0:
        poller.register(pidfd, select.POLLIN)
    draining = False
    try:
        while True:
            ready = {} if draining else dict(poller.poll())
            if draining or ready.get(rfd):
                try:
                    chunk = os.read(rfd, 65536)
                except (BlockingIOError, OSError):
                    break  # drained, or EIO once the pty's last writer closed
                if not chunk:
                    break
                relay.feed(chunk)
                if not relay.out_ok:
                    break
            elif pidfd >= 0 and ready.get(pidfd):
                os.set_blocking(rfd, False)
                draining = True
    finally:
        if pidfd >= 0:
            os.close(pidfd)


def _after_compile(
    argv: list[str],
    run_args: list[str],
    compiler: str,
    family: str,
    info: _args.CmdInfo,
    relay: Relay,
    exit_code: int,
    sig: int,
    fixits: bool,
) -> None:
    try:
        cwd = os.getcwd()
    except OSError as exc:
        if relay.seen or exit_code or sig:
            _warn_capture(f"cannot read the working directory: {exc.strerror}")
        return
    printed = bool(relay.seen or exit_code or sig)
    store = _store.find_store(cwd, create=printed)
    if store is None:
        return
    sources = [_args.abs_normpath(cwd, s) for s in info.sources]
    output = _args.abs_normpath(cwd, info.output) if info.output and info.output != "-" else None
    if not sig and (sources or info.is_link):
        command = {
            "directory": cwd, "arguments": run_args, "compiler": compiler, "family": family,
            "sources": sources, "output": output, "is_link": info.is_link, "exit_code": exit_code,
        }
        try:
            _store.write_command(store, command)
        except OSError:
            pass  # best effort: a store that cannot take it fails the spool write below, with its line
    origins = _args.origins(info, cwd)
    markers = [_store.marker_path(store, o) for o in origins]
    if not printed and not any(os.path.exists(m) for m in markers):
        return
    entry = {
        "argv": argv,
        "compiler": compiler,
        "family": family,
        "cwd": cwd,
        "exit_code": exit_code,
        "signal": sig,
        "truncated": relay.truncated,
        "fixits_added": fixits,
        "clean": not printed,
        "sources": sources,
        "output": output,
        "is_link": info.is_link,
    }
    try:
        os.makedirs(os.path.join(store, "spool", "tu"), exist_ok=True)
    except OSError as exc:
        _warn_capture(f"{store}: {exc.strerror}")
        return
    try:
        _store.write_spool(store, entry, bytes(relay.captured))
    except OSError as exc:
        _warn_capture(f"cannot write the spool file: {exc.strerror}")
        return
    for marker in markers:
        try:
            if printed:
                os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
            else:
                os.unlink(marker)
        except OSError:
            pass


def _reraise(sig: int) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, OSError, ValueError):
        pass
    signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)


def _entry(argv: list[str]) -> int:
    try:
        return run(argv)
    except _Exit as exc:
        sys.stderr.write(f"ccwrap: error: {exc}\n")
        return exc.code


def main() -> int:
    return _entry(list(sys.argv))


def main_cxx() -> int:
    argv = list(sys.argv)
    if not _is_ccwrap_name(argv[0]) or "++" not in os.path.basename(argv[0]):
        argv[0] = os.path.join(os.path.dirname(argv[0]), "ccwrap++")
    return _entry(argv)


if __name__ == "__main__":
    sys.exit(main())
