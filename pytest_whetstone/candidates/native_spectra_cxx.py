"""The failing C/C++ tests and their neighbours run under callgrind: what each test executed.

One valgrind run per test binary, on the user's own (unchanged) binary: the failing tests and the
other tests of their suites (``--gtest_filter=Suite.*``), collection switched on inside each test's
body only (``--toggle-collect=*::TestBody()``) and one profile part dumped after each
(``--dump-after``), so every part is one test, in the order gtest prints ``[ RUN ]``.  A test that
crashes the binary ends that run (it counts as failing, with what it ran up to the crash); the next
run starts without the tests already started.  Bounded by
wall time: at the deadline the group is killed and the parts dumped so far are read.  A binary that
is not a gtest binary is profiled whole, as its one test.  Valgrind is optional: without it the
search simply goes without a spectrum.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from ..locate.callgrind import Executed, read_file
from ..locate.ctest_sources import CtestCommand
from ..locate.native_spectrum import TestRun
from ..process import run_bounded

_RUN = re.compile(r"^\[ RUN      \] (\S+)", re.M)
_FAILED = re.compile(r"^\[  FAILED  \] (\S+) \(", re.M)
_ENDED = re.compile(r"^\[ {2}(?:     OK|FAILED |SKIPPED) \] (\S+) \(", re.M)
MIN_S = 1.0  # below this a valgrind start-up alone does not fit
MAX_RESTARTS = 3  # runs after a test crashed the binary, each without the tests already started


TEMP_VARS = ("TMPDIR", "TMP", "TEMP", "TEST_TMPDIR")  # where tests keep their files (TEST_TMPDIR: GoogleTest's TempDir())


def binary_env(scratch: Path) -> dict[str, str]:
    """The environment a test binary runs in when whetstone runs it: the user's, less the GoogleTest
    variables that would redirect its report or narrow its tests behind our back, with a temporary
    directory of its own under ``scratch``.  The search runs the same tests on two trials at once: a
    database a test keeps under ``$TEST_TMPDIR`` or a fixed name in ``$TMPDIR`` must not be shared,
    or one run's lock or leftovers fail the other's test, and a mutant that fixes it looks as if it
    did not."""
    tmp = scratch / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("GTEST_OUTPUT", "GTEST_FILTER")}
    env.update(dict.fromkeys(TEMP_VARS, str(tmp)))
    return env


class ProfiledBinary(Protocol):
    path: str
    tests: dict[str, str]  # failure id -> gtest name (ctest's, for a binary ctest runs once per test)
    gtest: bool
    ctest: dict[str, CtestCommand]  # a binary without GoogleTest: how ctest runs each of its tests

    @property
    def per_test(self) -> bool: ...


def profile_tests(
    binaries: Iterable[ProfiledBinary], scratch: Path, budget_s: float
) -> tuple[list[TestRun], dict[str, str], str]:
    """(runs, failure id -> the test name its run carries, one line when nothing could be profiled)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return [], {}, "valgrind not found: no execution spectrum"
    deadline = time.monotonic() + budget_s
    runs: list[TestRun] = []
    names: dict[str, str] = {}
    why = ""
    for index, binary in enumerate(b for b in binaries if b.tests):
        remaining = deadline - time.monotonic()
        if remaining < MIN_S:
            why = why or "no time left for an execution spectrum"
            break
        out_dir = scratch / f"spectrum{index}"
        out_dir.mkdir(parents=True, exist_ok=True)
        found, why_not = _profile(valgrind, binary, out_dir, remaining, binary_env(scratch))
        if not found:
            why = why or why_not
        runs += found
        for failure_id, name in binary.tests.items():
            names[failure_id] = name if binary.gtest else Path(binary.path).name
        shutil.rmtree(out_dir, ignore_errors=True)
    return runs, names, "" if runs else why


def _profile(valgrind: str, binary: ProfiledBinary, out_dir: Path, timeout: float, env: dict[str, str]
             ) -> tuple[list[TestRun], str]:
    base = [valgrind, "--tool=callgrind", "--compress-pos=no"]
    cwd = Path(binary.path).parent
    deadline = time.monotonic() + timeout
    if not binary.gtest:
        out_file = out_dir / "cg.out"
        try:
            code, _raw = run_bounded([*base, f"--callgrind-out-file={out_file}", binary.path], cwd, timeout, env)
        except OSError as exc:
            return [], f"cannot run valgrind: {exc.strerror}"
        if code is None:
            return [], f"{Path(binary.path).name} under valgrind took over {timeout:.0f} s"
        return [TestRun(Path(binary.path).name, code != 0, read_file(out_file))], ""
    suites = sorted({name.split(".", 1)[0] for name in binary.tests.values() if "." in name})
    wanted = sorted(set(binary.tests.values()) | {f"{s}.*" for s in suites})
    runs: list[TestRun] = []
    done: list[str] = []  # tests started so far: a test that crashes the binary ends one run, not the spectrum
    why = ""
    for attempt in range(MAX_RESTARTS + 1):
        remaining = deadline - time.monotonic()
        if remaining < MIN_S:
            why = why or f"{Path(binary.path).name} under valgrind took over {timeout:.0f} s"
            break
        out_file = out_dir / f"cg{attempt}.out"
        selection = ":".join(wanted) + ("-" + ":".join(done) if done else "")
        args = [*base, f"--callgrind-out-file={out_file}", "--toggle-collect=*::TestBody()",
                "--dump-after=*::TestBody()", binary.path, f"--gtest_filter={selection}"]
        try:
            code, raw = run_bounded(args, cwd, remaining, env)
        except OSError as exc:
            return runs, f"cannot run valgrind: {exc.strerror}"
        output = raw.decode("utf-8", "replace")
        started = _RUN.findall(output)
        ended = set(_ENDED.findall(output))
        # a test that started and never ended crashed the binary (its part is dumped as the crash
        # unwinds): a failure, and what it ran up to the crash counts
        failed = set(_FAILED.findall(output)) | ({n for n in started if n not in ended} if code is not None else set())
        parts = sorted(out_dir.glob(f"cg{attempt}.out.*"),
                       key=lambda p: int(p.suffix[1:]) if p.suffix[1:].isdigit() else 0)
        runs += _align(started, [read_file(part) for part in parts], failed)
        done += started
        if code is None:
            why = f"{Path(binary.path).name} under valgrind took over {timeout:.0f} s"
            break
        if not started or all(name in ended for name in started):
            if not started and not runs:
                why = f"valgrind profiled no test of {Path(binary.path).name}: {output.strip()[-120:]}"
            break  # every selected test ran to its end
    return runs, "" if runs else why


def _body_class(test: str) -> str:
    """``Prefix/Suite.Name/3``, ``Suite/0.Name`` -> ``Suite_Name_Test``: the class gtest generates for
    a test's body (parameter and type indices dropped, an instantiation prefix too)."""
    suite, _, name = test.partition(".")
    words = [w for w in suite.split("/") if not w.isdigit()]
    return f"{words[-1] if words else suite}_{name.split('/')[0]}_Test"


def _align(started: list[str], parts: list[Executed], failed: set[str]) -> list[TestRun]:
    """Each dumped part to the test whose body it followed (a test skipped before its body dumps
    nothing, so position alone could shift every later test)."""
    runs: list[TestRun] = []
    i = 0
    for part in parts:
        m = re.search(r"--dump-after=(?:.*::)?([A-Za-z_]\w*?)(?:<.*>)?::TestBody\(\)", part.trigger)
        if m:
            j = next((k for k in range(i, len(started)) if _body_class(started[k]) == m[1]), None)
            if j is None:
                continue  # not a test we can name: leave it out rather than guess
            i = j
        if i >= len(started):
            break
        runs.append(TestRun(started[i], started[i] in failed, part))
        i += 1
    return runs
