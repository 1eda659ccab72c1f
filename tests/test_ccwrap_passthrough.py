"""ccwrap is transparent: stdout, stderr, exit code and output files match the plain compiler.

Every case runs the plain compiler and ccwrap (native shim and Python fallback)
in the same directory on the same inputs and compares the bytes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "ccwrap"))
import ccwrap_support as cs  # noqa: E402

impl_dir = cs.impl_dir  # a shared pytest fixture
native_dir = cs.native_dir  # a shared pytest fixture
python_dir = cs.python_dir  # a shared pytest fixture

ALL_SOURCES = ("clean.c", "warn.c", "error.c", "fatal_include.c", "link_main.c", "template.cpp", "latin1.c")
RSP_FILES = {
    "args.rsp": "-Wall\n-c 'error.c' -o \"out.o\"\n",
    "pp.rsp": "-E warn.c",
    "fix.rsp": "-fdiagnostics-parseable-fixits -c error.c",
    "nested.rsp": "@args.rsp -Wextra",
}

# (id, form, args, files to compare afterwards, extra env)
CASES: list[tuple[str, str, list[str], list[str], dict[str, str]]] = [
    ("clean", "cc", ["-c", "clean.c", "-o", "out.o"], ["out.o"], {}),
    ("clean-g-O2", "cc", ["-g", "-O2", "-c", "clean.c", "-o", "out.o"], ["out.o"], {}),
    ("clean-lto", "cc", ["-flto", "-frandom-seed=ccwrap", "-c", "clean.c", "-o", "out.o"], ["out.o"], {}),
    ("record-switches", "cc", ["-frecord-gcc-switches", "-g", "-c", "clean.c", "-o", "out.o"], ["out.o"], {}),
    ("warnings", "cc", ["-Wall", "-g", "-c", "warn.c", "-o", "out.o"], ["out.o"], {}),
    ("errors-fixits", "cc", ["-c", "error.c", "-o", "out.o"], [], {}),
    ("fatal-include", "cc", ["-c", "fatal_include.c"], [], {}),
    ("link-error", "cc", ["link_main.o", "-o", "prog"], [], {}),
    ("link-ok", "cc", ["-Wall", "warn.c", "-o", "prog"], ["prog"], {}),
    ("color", "cc", ["-fdiagnostics-color=always", "-Wall", "-c", "error.c"], [], {}),
    ("preprocess", "cc", ["-E", "warn.c"], [], {}),
    ("deps-M", "cc", ["-M", "warn.c"], [], {}),
    ("deps-MD", "cc", ["-MD", "-MF", "out.d", "-Wall", "-c", "warn.c", "-o", "out.o"], ["out.d", "out.o"], {}),
    ("deps-MMD-error", "cc", ["-MMD", "-c", "error.c"], [], {}),
    ("version", "cc", ["--version"], [], {}),
    ("dumpmachine", "cc", ["-dumpmachine"], [], {}),
    ("print-search-dirs", "cc", ["-print-search-dirs"], [], {}),
    ("verbose-query", "cc", ["-v"], [], {}),
    ("no-input", "cc", [], [], {}),
    ("rsp", "cc", ["@args.rsp"], [], {}),
    ("rsp-nested", "cc", ["@nested.rsp"], [], {}),
    ("rsp-preprocess", "cc", ["@pp.rsp"], [], {}),
    ("rsp-missing", "cc", ["@no-such.rsp", "-c", "clean.c"], [], {}),
    ("user-fixits", "cc", ["-fdiagnostics-parseable-fixits", "-c", "error.c"], [], {}),
    ("user-fixits-rsp", "cc", ["@fix.rsp"], [], {}),
    ("user-fixits-env", "cc", ["-c", "error.c"], [], {"GCC_EXTRA_DIAGNOSTIC_OUTPUT": "fixits-v1"}),
    ("latin1", "cc", ["-c", "latin1.c", "-o", "out.o"], ["out.o"], {}),
    ("syntax-only", "cc", ["-fsyntax-only", "error.c"], [], {}),
    ("launch-gcc", "gcc", ["-Wall", "-c", "error.c"], [], {}),
    ("cxx-template", "cxx", ["-c", "template.cpp"], [], {}),
    ("launch-g++-color", "g++", ["-fdiagnostics-color=always", "-c", "template.cpp"], [], {}),
    ("clang-errors", "clang", ["-c", "error.c"], [], {}),
    ("clang-color", "clang", ["-fcolor-diagnostics", "-Wall", "-c", "error.c"], [], {}),
    ("clang-g", "clang", ["-g", "-O1", "-c", "clean.c", "-o", "out.o"], ["out.o"], {}),
    ("clang-record", "clang", ["-grecord-command-line", "-g", "-c", "warn.c", "-o", "out.o"], ["out.o"], {}),
    ("clang++-template", "clang++", ["-c", "template.cpp"], [], {}),
    ("clang-user-fixits", "clang", ["-fdiagnostics-parseable-fixits", "-c", "error.c"], [], {}),
    ("clang-link-error", "clang", ["link_main.o", "-o", "prog"], [], {}),
    ("clang-version", "clang", ["--version"], [], {}),
]


def _commands(form: str, bindir: Path, args: list[str]) -> tuple[list[str], list[str]]:
    if form == "cc":
        return ["cc", *args], [str(bindir / "ccwrap"), *args]
    if form == "cxx":
        return ["c++", *args], [str(bindir / "ccwrap++"), *args]
    return [form, *args], [str(bindir / "ccwrap"), form, *args]


def _collect(cwd: Path, names: list[str]) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for name in names:
        path = cwd / name
        out[name] = path.read_bytes() if path.exists() else None
        path.unlink(missing_ok=True)
    return out


@pytest.mark.parametrize(
    "form,args,compare,extra", [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_identical_to_plain_compiler(
    impl_dir: Path, tmp_path: Path, form: str, args: list[str], compare: list[str], extra: dict[str, str]
) -> None:
    work = cs.copy_sources(tmp_path / "w", *ALL_SOURCES)
    for name, text in RSP_FILES.items():
        (work / name).write_text(text)
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(tmp_path / "store"), **extra)
    if "link_main.o" in args:
        assert cs.run(["cc", "-c", "link_main.c"], work, env).rc == 0
    plain_cmd, wrapped_cmd = _commands(form, impl_dir, args)
    plain = cs.run(plain_cmd, work, env)
    plain_files = _collect(work, compare)
    wrapped = cs.run(wrapped_cmd, work, env)
    wrapped_files = _collect(work, compare)
    assert wrapped.err == plain.err
    assert wrapped.out == plain.out
    assert wrapped.rc == plain.rc
    assert wrapped_files == plain_files
    for name in compare:
        assert plain_files[name] is not None, f"{name} was not produced"


def test_stdin_source_identical(impl_dir: Path, tmp_path: Path) -> None:
    source = (cs.SRC / "error.c").read_bytes()
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(tmp_path / "store"))
    args = ["-x", "c", "-c", "-", "-o", "out.o"]
    plain = cs.run(["cc", *args], tmp_path, env, input=source)
    wrapped = cs.run([str(impl_dir / "ccwrap"), *args], tmp_path, env, input=source)
    assert (wrapped.rc, wrapped.out, wrapped.err) == (plain.rc, plain.out, plain.err)
    assert plain.rc == 1


@pytest.mark.parametrize("form", ["cc", "clang"])
def test_fixits_are_captured_but_not_shown(impl_dir: Path, tmp_path: Path, form: str) -> None:
    work = cs.copy_sources(tmp_path / "w", "error.c")
    store = tmp_path / "store"
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(store))
    _, wrapped_cmd = _commands(form, impl_dir, ["-c", "error.c"])
    wrapped = cs.run(wrapped_cmd, work, env)
    assert wrapped.rc == 1
    assert b"fix-it:" not in wrapped.err
    [entry] = cs.spool_entries(store)
    assert entry["fixits_added"] is True
    assert 'fix-it:"error.c":{6:' in str(entry["stderr"])  # the missing semicolon
    assert entry["sources"] == [str(work / "error.c")]
    assert entry["exit_code"] == 1 and entry["signal"] == 0
    assert entry["family"] == ("clang" if form == "clang" else "gcc")


def test_user_requested_fixits_are_kept(impl_dir: Path, tmp_path: Path) -> None:
    work = cs.copy_sources(tmp_path / "w", "error.c")
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(tmp_path / "store"))
    wrapped = cs.run([str(impl_dir / "ccwrap"), "-fdiagnostics-parseable-fixits", "-c", "error.c"], work, env)
    assert wrapped.err.count(b'fix-it:"error.c"') == 2
    [entry] = cs.spool_entries(tmp_path / "store")
    assert entry["fixits_added"] is False


def test_native_and_python_write_the_same_spool(native_dir: Path, python_dir: Path, tmp_path: Path) -> None:
    entries = []
    for bindir in (native_dir, python_dir):
        work = cs.copy_sources(tmp_path / "w", "latin1.c", "error.c")
        store = tmp_path / f"store-{bindir.name}"
        env = cs.base_env(bindir, WHETSTONE_DIR=str(store), WHETSTONE_SESSION="s-1")
        cs.run([str(bindir / "ccwrap"), "-Wall", "-c", "latin1.c", "error.c"], work, env)
        [entry] = cs.spool_entries(store)
        for key in ("time", "pid"):
            assert entry.pop(key)
        argv = entry.pop("argv")
        assert isinstance(argv, list) and argv[1:] == ["-Wall", "-c", "latin1.c", "error.c"]
        entries.append(entry)
    assert entries[0] == entries[1]
    entry = entries[0]
    assert "caf\ufffd latin-1 \ufffd bytes" in str(entry["stderr"])  # invalid UTF-8 -> U+FFFD
    assert entry["session"] == "s-1"
    assert entry["schema_version"] == "whetstone/1" and entry["kind"] == "ccwrap"
    assert entry["is_link"] is False and entry["output"] is None
    json.dumps(entry)  # plain JSON types only


def _run_on_pty(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    import os
    import pty
    import subprocess

    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the last writer closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=120), b"".join(chunks)


@pytest.mark.parametrize("compiler", ["cc", "clang"])
def test_terminal_output_identical(impl_dir: Path, tmp_path: Path, compiler: str) -> None:
    """On a terminal the compiler colours its output itself; through ccwrap it must do the same."""
    work = cs.copy_sources(tmp_path / "w", "error.c")
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(tmp_path / "store"), TERM="xterm-256color")
    plain = _run_on_pty([compiler, "-Wall", "-c", "error.c"], work, env)
    wrapped = _run_on_pty([str(impl_dir / "ccwrap"), compiler, "-Wall", "-c", "error.c"], work, env)
    assert wrapped == plain
    assert b"\x1b[" in plain[1]  # the compiler did colour: this really ran on a terminal
    [entry] = cs.spool_entries(tmp_path / "store")
    assert "\x1b[" in str(entry["stderr"])
