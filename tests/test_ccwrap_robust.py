"""ccwrap never changes a build: unwritable or full stores, memory and CPU limits, signals, recursion."""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "ccwrap"))
import ccwrap_support as cs  # noqa: E402

impl_dir = cs.impl_dir  # a shared pytest fixture
native_dir = cs.native_dir  # a shared pytest fixture
python_dir = cs.python_dir  # a shared pytest fixture

SLOW_FLAGS = ["-std=c++17", "-fconstexpr-loop-limit=2000000000", "-fconstexpr-ops-limit=4000000000"]
WARNING = re.compile(rb"^ccwrap: warning: capture failed \(.*\); build output unaffected\n\Z")


def _extra_lines(wrapped: bytes, plain: bytes) -> bytes:
    assert wrapped.startswith(plain), "the compiler's own output must come first, unchanged"
    return wrapped[len(plain) :]


@contextmanager
def _mounted(target: Path, *opts: str) -> Iterator[None]:
    target.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", *opts, str(target)], capture_output=True, check=False)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount here: {proc.stderr.decode(errors='replace').strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(target)], check=False)


@contextmanager
def _read_only(store_parent: Path) -> Iterator[None]:
    """A directory ccwrap cannot write into, for root too (read-only bind mount) or by mode."""
    if os.geteuid() != 0:
        store_parent.chmod(0o555)
        try:
            yield
        finally:
            store_parent.chmod(0o755)
        return
    with _mounted(store_parent, "--bind", str(store_parent)):
        proc = subprocess.run(["mount", "-o", "remount,ro,bind", str(store_parent)], capture_output=True, check=False)
        if proc.returncode != 0:
            pytest.skip("cannot remount read-only here")
        yield


def _compile_error(bindir: Path, work: Path, env: dict[str, str]) -> tuple[cs.Result, cs.Result]:
    plain = cs.run(["cc", "-c", "error.c"], work, env)
    wrapped = cs.run([str(bindir / "ccwrap"), "-c", "error.c"], work, env)
    return plain, wrapped


def test_read_only_store_passes_output_through_with_one_line(impl_dir: Path, tmp_path: Path) -> None:
    work = cs.copy_sources(tmp_path / "w", "error.c", "clean.c")
    ro = tmp_path / "ro"
    (ro / ".whetstone").mkdir(parents=True)
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(ro / ".whetstone"))
    with _read_only(ro):
        plain, wrapped = _compile_error(impl_dir, work, env)
        clean = cs.run([str(impl_dir / "ccwrap"), "-c", "clean.c"], work, env)
    assert wrapped.rc == plain.rc == 1
    assert wrapped.out == plain.out
    assert WARNING.match(_extra_lines(wrapped.err, plain.err))
    assert (clean.rc, clean.err) == (0, b"")  # nothing printed, nothing to capture: no warning


def test_store_path_through_a_file_warns_once(impl_dir: Path, tmp_path: Path) -> None:
    work = cs.copy_sources(tmp_path / "w", "error.c")
    (tmp_path / "afile").write_text("not a directory")
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(tmp_path / "afile" / "store"))
    plain, wrapped = _compile_error(impl_dir, work, env)
    assert wrapped.rc == plain.rc
    assert WARNING.match(_extra_lines(wrapped.err, plain.err))


def test_full_disk_passes_output_through_with_one_line(impl_dir: Path, tmp_path: Path) -> None:
    work = cs.copy_sources(tmp_path / "w", "error.c")
    disk = tmp_path / "disk"
    with _mounted(disk, "-t", "tmpfs", "-o", "size=64k", "tmpfs"):
        (disk / ".whetstone" / "spool" / "tu").mkdir(parents=True)
        fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
        try:  # fill it up
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        env = cs.base_env(impl_dir, WHETSTONE_DIR=str(disk / ".whetstone"))
        plain, wrapped = _compile_error(impl_dir, work, env)
        assert not list((disk / ".whetstone" / "spool").glob("*.json"))
        assert not list((disk / ".whetstone" / "spool").glob(".tmp-*"))  # no half-written file left
    assert wrapped.rc == plain.rc == 1
    assert WARNING.match(_extra_lines(wrapped.err, plain.err))


def _limit_as(kib: int) -> object:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (kib * 1024, kib * 1024))

    return apply


def _no_digits(data: bytes) -> bytes:
    return re.sub(rb"\d+", b"N", data)


def test_ulimit_v_failure_is_the_compilers(native_dir: Path, tmp_path: Path) -> None:
    """Under a memory limit that breaks cc1, ccwrap reports exactly what gcc reports."""
    work = cs.copy_sources(tmp_path / "w", "big.c")
    store = tmp_path / "store"
    env = cs.base_env(native_dir, WHETSTONE_DIR=str(store))
    args = ["-O2", "-c", "big.c", "-o", "big.o"]
    failing = None
    for kib in (40000, 44000, 48000, 52000, 36000):
        plain = cs.run(["cc", *args], work, env, preexec_fn=_limit_as(kib))
        if plain.rc != 0 and re.search(rb"memory|allocate", plain.err):
            failing = (kib, plain)
            break
    if failing is None:
        pytest.skip("no memory limit here makes cc1 fail cleanly")
    kib, plain = failing
    wrapped = cs.run([str(native_dir / "ccwrap"), *args], work, env, preexec_fn=_limit_as(kib))
    assert wrapped.rc == plain.rc
    # the compiler's own words: which allocation fails under the limit moves run to run (address-space
    # randomization, a busy machine), so two runs may word it differently; ccwrap adds nothing of its own
    if _no_digits(wrapped.err) != _no_digits(plain.err):
        assert re.search(rb"memory|allocate", wrapped.err)
        assert not re.search(rb"whetstone|Traceback", wrapped.err)
    [entry] = cs.spool_entries(store)
    assert entry["exit_code"] == plain.rc

    from pytest_whetstone.store.spool import entry_events

    [event] = entry_events(entry)
    assert any(r["error_type"] == "resource_limit" for r in event["records"])

    roomy = 400000
    ok_plain = cs.run(["cc", *args], work, env, preexec_fn=_limit_as(roomy))
    ok_wrapped = cs.run([str(native_dir / "ccwrap"), *args], work, env, preexec_fn=_limit_as(roomy))
    assert (ok_wrapped.rc, ok_wrapped.err) == (ok_plain.rc, ok_plain.err) == (0, b"")


def test_ulimit_t_kill_is_passed_through(native_dir: Path, tmp_path: Path) -> None:
    work = cs.copy_sources(tmp_path / "w", "slow.cpp")
    env = cs.base_env(native_dir, WHETSTONE_DIR=str(tmp_path / "store"))
    args = ["-DSPIN=3000000", *SLOW_FLAGS, "-c", "slow.cpp", "-o", "/dev/null"]

    def cpu_limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (1, 1))

    plain = cs.run(["c++", *args], work, env, preexec_fn=cpu_limit)
    wrapped = cs.run([str(native_dir / "ccwrap++"), *args], work, env, preexec_fn=cpu_limit)
    assert plain.rc != 0
    assert (wrapped.rc, wrapped.err) == (plain.rc, plain.err)
    [entry] = cs.spool_entries(tmp_path / "store")
    assert entry["exit_code"] == plain.rc


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False)
    return [int(p) for p in out.stdout.split()]


def _wait_for_cc1(pid: int, wrapped: bool, timeout: float = 60) -> list[int]:
    """Wait until cc1plus runs under the driver (so the signal lands mid-compile); returns the drivers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        drivers = _children(pid) if wrapped else [pid]
        if drivers and any(_children(d) for d in drivers):
            return drivers if wrapped else []
        time.sleep(0.05)
    pytest.fail("the compiler never started")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_reaches_the_compiler(impl_dir: Path, tmp_path: Path, sig: signal.Signals) -> None:
    work = cs.copy_sources(tmp_path / "w", "slow.cpp")
    store = tmp_path / "store"
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(store))
    args = ["-DSPIN=3000000", *SLOW_FLAGS, "-c", "slow.cpp", "-o", "slow.o"]
    results = []
    for cmd in (["c++", *args], [str(impl_dir / "ccwrap++"), *args]):
        proc = subprocess.Popen(cmd, cwd=work, env=env, stderr=subprocess.PIPE, start_new_session=True)
        try:
            first = _wait_for_cc1(proc.pid, wrapped=cmd[0] != "c++")
            proc.send_signal(sig)  # to the top process only: ccwrap must forward it
            proc.wait(timeout=60)
        finally:
            try:  # the driver leaves cc1plus orphaned (holding stderr), with or without ccwrap
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if proc.poll() is None:
                proc.wait()
        assert proc.stderr is not None
        err = proc.stderr.read()
        proc.stderr.close()
        for pid in first:  # ccwrap's child (the driver) is gone: the signal reached it
            assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
        results.append((proc.returncode, err))
    assert results[1] == results[0]
    assert results[0][0] == -sig  # the driver died of it; ccwrap re-raised it
    assert not (work / "slow.o").exists()
    assert cs.spool_entries(store) == []  # an interrupted build is not a diagnostic


def _link_ccwrap(bindir: Path, linkdir: Path, name: str) -> None:
    linkdir.mkdir(parents=True, exist_ok=True)
    (linkdir / name).symlink_to(bindir / "ccwrap")


def test_cc_symlinked_to_ccwrap_on_path_is_skipped(impl_dir: Path, tmp_path: Path) -> None:
    work = cs.copy_sources(tmp_path / "w", "error.c")
    _link_ccwrap(impl_dir, tmp_path / "shadow", "cc")
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(tmp_path / "store"))
    env["PATH"] = f"{tmp_path / 'shadow'}:{env['PATH']}"
    plain = cs.run(["/usr/bin/cc", "-c", "error.c"], work, cs.base_env(None))
    wrapped = cs.run([str(impl_dir / "ccwrap"), "-c", "error.c"], work, env)
    assert (wrapped.rc, wrapped.err) == (plain.rc, plain.err)
    masquerade = cs.run([str(tmp_path / "shadow" / "cc"), "-c", "error.c"], work, env)
    assert (masquerade.rc, masquerade.err) == (plain.rc, plain.err)


def test_path_with_only_ccwrap_as_cc_is_an_error(impl_dir: Path, tmp_path: Path) -> None:
    _link_ccwrap(impl_dir, tmp_path / "shadow", "cc")
    env = cs.base_env(impl_dir)
    env["PATH"] = f"{tmp_path / 'shadow'}:{impl_dir}"
    if impl_dir.name.startswith("ccwrap-python"):
        env["PATH"] += f":{Path(sys.executable).parent}"
    result = cs.run([str(impl_dir / "ccwrap"), "-c", "x.c"], tmp_path, env, timeout=30)
    assert result.rc == 2
    assert result.err.startswith(b"ccwrap: error: recursive invocation:")
    assert result.err.count(b"\n") == 1


def test_whetstone_cc_pointing_at_ccwrap_is_an_error(impl_dir: Path, tmp_path: Path) -> None:
    env = cs.base_env(impl_dir, WHETSTONE_CC=str(impl_dir / "ccwrap"))
    result = cs.run([str(impl_dir / "ccwrap"), "-c", "x.c"], tmp_path, env, timeout=30)
    assert result.rc == 2
    assert b"recursive invocation" in result.err


def test_wrapper_script_loop_is_stopped_by_the_env_marker(impl_dir: Path, tmp_path: Path) -> None:
    """A `cc` script that calls ccwrap again: the inode check cannot see it, the marker does."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    script = shadow / "cc"
    script.write_text(f"#!/bin/sh\nexec {impl_dir / 'ccwrap'} \"$@\"\n")
    script.chmod(0o755)
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(tmp_path / "store"))
    env["PATH"] = f"{shadow}:{env['PATH']}"
    started = time.monotonic()
    result = cs.run([str(impl_dir / "ccwrap"), "-c", "x.c"], tmp_path, env, timeout=60)
    assert time.monotonic() - started < 30
    assert result.rc == 2
    assert b"ccwrap: error: recursive invocation" in result.err


def test_ccwrap_ccwrap_collapses(impl_dir: Path, tmp_path: Path) -> None:
    """CC=ccwrap plus CMAKE_C_COMPILER_LAUNCHER=ccwrap gives `ccwrap ccwrap ...`: one wrapper."""
    work = cs.copy_sources(tmp_path / "w", "error.c")
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(tmp_path / "store"))
    plain = cs.run(["cc", "-c", "error.c"], work, env)
    wrapped = cs.run([str(impl_dir / "ccwrap"), str(impl_dir / "ccwrap"), "-c", "error.c"], work, env)
    assert (wrapped.rc, wrapped.err) == (plain.rc, plain.err)
    assert len(cs.spool_entries(tmp_path / "store")) == 1


def test_missing_compiler_is_a_clear_error(impl_dir: Path, tmp_path: Path) -> None:
    env = cs.base_env(impl_dir, WHETSTONE_CC="no-such-compiler-xyz")
    result = cs.run([str(impl_dir / "ccwrap"), "-c", "x.c"], tmp_path, env)
    assert result.rc == 127
    assert result.err == (
        b"ccwrap: error: cannot find the real compiler 'no-such-compiler-xyz' on PATH "
        b"(set WHETSTONE_CC / WHETSTONE_CXX)\n"
    )


def test_closed_stderr_does_not_crash(impl_dir: Path, tmp_path: Path) -> None:
    work = cs.copy_sources(tmp_path / "w", "error.c")
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(tmp_path / "store"))
    plain = subprocess.run(["cc", "-c", "error.c"], cwd=work, env=env, stderr=subprocess.DEVNULL, check=False)
    wrapped = subprocess.run(
        [str(impl_dir / "ccwrap"), "-c", "error.c"], cwd=work, env=env, stderr=subprocess.DEVNULL, check=False
    )
    assert wrapped.returncode == plain.returncode == 1


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_nothing_of_the_compile_outlives_the_wrapper(impl_dir: Path, tmp_path: Path, sig: signal.Signals) -> None:
    """`kill PID` of ccwrap alone: cc1plus and as stop with the driver, within 3 s (the driver alone
    would leave cc1plus running); the exit status is the compiler's."""
    work = cs.copy_sources(tmp_path / "w", "slow.cpp")
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(tmp_path / "store"))
    args = ["-DSPIN=3000000", *SLOW_FLAGS, "-c", "slow.cpp", "-o", "slow.o"]
    proc = subprocess.Popen([str(impl_dir / "ccwrap++"), *args], cwd=work, env=env, stdin=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        drivers = _wait_for_cc1(proc.pid, wrapped=True)
        inner = [child for d in drivers for child in _children(d)]
        proc.send_signal(sig)
        proc.wait(timeout=60)
        deadline = time.monotonic() + 3.0
        while any(_running(p) for p in inner) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_running(p) for p in inner), "the compiler proper outlived the wrapper"
        assert proc.returncode == -sig
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False
