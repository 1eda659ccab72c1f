"""The test source behind a ctest test that failed without naming a file.

A test binary that crashes before its framework prints (Unity buffers its lines; a plain ``main``
prints nothing), a test that times out, or one that only returns non-zero leaves ctest's own line and
no file or line: nothing to locate from.  ctest knows which executable each test runs
(``ctest --show-only=json-v1``), and the recorded build knows which sources that executable was linked
from; the one of them that holds the test's own code (a test file by name or directory, or the
executable's namesake) is the failure's file, read as a whole by the locator.

This asks the real tools rather than guessing from names: one ``ctest`` call per build directory and,
where ccwrap saw only the compiles, one ``ninja -t commands`` (or CMake's ``link.txt``) per executable,
only for the failures that need it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..build.compdb import Command, CompileDatabase
from ..build.linkinfo import link_for_output
from .native_names import is_test_file

TIMEOUT_S = 10.0
MAX_BUILD_DIRS = 3


@dataclass(frozen=True)
class CtestCommand:
    """How ctest runs one test: its executable (realpath), the words after it, and where; and the build
    directory that lists it."""

    executable: str
    args: tuple[str, ...]
    cwd: str
    build_dir: str


def test_sources(db: CompileDatabase, workspace: Path, names: set[str]) -> dict[str, str]:
    """ctest test name -> workspace-relative source of its own code, for the names found."""
    found: dict[str, str] = {}
    root = os.path.realpath(workspace)
    for name, command in ctest_commands(db, workspace, names).items():
        rel = _own_source(db, command, root)
        if rel is not None:
            found[name] = rel
    return found


def ctest_commands(db: CompileDatabase, workspace: Path, names: set[str] | None = None) -> dict[str, CtestCommand]:
    """ctest test name -> how ctest runs it, for ``names`` (None: every test of the build directories
    whose executable the build or the workspace holds)."""
    ctest = shutil.which("ctest")
    if ctest is None or names is not None and not names or not db:
        return {}
    root = os.path.realpath(workspace)
    found: dict[str, CtestCommand] = {}
    for build_dir in _build_dirs(db)[:MAX_BUILD_DIRS]:
        for name, command in _tests(ctest, build_dir, root).items():
            if (names is None or name in names) and name not in found:
                found[name] = command
        if names is not None and len(found) == len(names):
            break
    return found


def _build_dirs(db: CompileDatabase) -> list[str]:
    """The top directories holding a ``CTestTestfile.cmake`` above the recorded commands' directories
    (in the workspace or out of it: ``cmake -B ../build``)."""
    tops: list[str] = []
    for directory in dict.fromkeys(os.path.realpath(c.directory) for c in db.commands):
        top = None
        here = directory
        while os.path.isfile(os.path.join(here, "CTestTestfile.cmake")):
            top, parent = here, os.path.dirname(here)
            if parent == here:
                break
            here = parent
        if top is not None and top not in tops:
            tops.append(top)
    return tops


def _tests(ctest: str, build_dir: str, root: str) -> dict[str, CtestCommand]:
    """Each test's command as ctest itself would run it: its executable is the first word of its command
    that is an executable file of the build or the workspace (past a wrapper such as valgrind or
    ``cmake -E env``), its arguments the words after it, its directory its WORKING_DIRECTORY."""
    try:
        proc = subprocess.run([ctest, "--show-only=json-v1"], cwd=build_dir, capture_output=True, text=True,
                              timeout=TIMEOUT_S, check=False)
        if proc.returncode != 0:
            return {}
        tests = json.loads(proc.stdout).get("tests") or []
    except (OSError, subprocess.TimeoutExpired, ValueError, AttributeError):
        return {}
    out: dict[str, CtestCommand] = {}
    for test in tests:
        command = test.get("command") if isinstance(test, dict) else None
        if not isinstance(command, list):
            continue
        properties = test.get("properties") if isinstance(test.get("properties"), list) else []
        cwd = next((str(p.get("value")) for p in properties
                    if isinstance(p, dict) and p.get("name") == "WORKING_DIRECTORY"), build_dir)
        for at, word in enumerate(command):
            path = os.path.realpath(os.path.join(build_dir, str(word)))
            if path.startswith((build_dir + os.sep, root + os.sep)) and os.path.isfile(path) \
                    and os.access(path, os.X_OK):
                out[str(test.get("name", ""))] = CtestCommand(path, tuple(str(a) for a in command[at + 1:]), cwd, build_dir)
                break
    return out


def _own_source(db: CompileDatabase, command: CtestCommand, root: str) -> str | None:
    """The workspace source of the test's own code, when that is plain: of the sources compiled into its
    executable's own objects, the test file its arguments name (``cctest test-bignum``: test-bignum.cc),
    else the one named after the executable, else its only test file, else its namesake, else its only
    source.  An executable of many test files, none named after it or by an argument (a gtest runner of
    a whole suite), names none: its test is not known from the executable alone."""
    binary = command.executable
    link = db.link_making(binary) or link_for_output(binary, command.build_dir)
    if link is None:
        return None
    sources = [rel for src in _linked_sources(db, link)
               if not (rel := os.path.relpath(src, root)).startswith("..")]
    stem = Path(binary).name.split(".")[0]
    named = [rel for rel in sources if Path(rel).name.split(".")[0] == stem]
    tests = [rel for rel in sources if is_test_file(rel)]
    argued = {Path(a).name.split(".")[0] for a in command.args if not a.startswith("-")}
    by_argument = [rel for rel in sources if Path(rel).name.split(".")[0] in argued]
    for pool in (by_argument if len(by_argument) == 1 else [], [rel for rel in named if rel in tests],
                 tests if len(tests) == 1 else [], named):
        if pool:
            return pool[0]
    return sources[0] if len(sources) == 1 and not tests else None


def _linked_sources(db: CompileDatabase, link: Command) -> list[str]:
    """The sources compiled into the link's own objects (not its archives: a library is not the test)."""
    out: list[str] = [os.path.realpath(os.path.join(link.directory, s)) for s in link.sources]
    for arg in link.arguments[1:]:
        if arg.startswith("-"):
            continue
        compile_ = db.compile_making(os.path.join(link.directory, arg))
        if compile_ is not None:
            out += [os.path.realpath(os.path.join(compile_.directory, s)) for s in compile_.sources]
    return list(dict.fromkeys(out))
