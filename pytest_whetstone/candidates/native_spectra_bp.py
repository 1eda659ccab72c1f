"""The failing C/C++ tests and their neighbours, each run under one-shot breakpoints: what each test ran.

Callgrind (:mod:`.native_spectra_cxx`) runs a test 20-100 times slower, so within the search's few
seconds it profiles a handful of tests, and a spectrum of five failing tests and one passing one
ties every function they share.  ``bptrace.c`` (built once per machine with the C compiler the
project uses anyway) writes an ``int3`` at the entry of every function the test binary defines and
puts each back the first time it is hit, so a test runs at close to its own speed and says which
functions it entered.  That is cheap enough to run the failing tests, every other test of their
suites, then the binary's other tests, one process each (a crash ends only its own test), until
the spectrum's budget ends.  Function entries only: no lines, so the spectrum scores functions.

x86-64 Linux with ptrace allowed, ``nm`` and a C compiler; elsewhere (or when the tracer cannot run)
:func:`profile_tests` returns nothing and the search uses callgrind as before.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from ..locate.callgrind import Executed
from ..locate.native_spectrum import TestRun
from ..process import run_bounded
from .native_spectra_cxx import ProfiledBinary

SOURCE = Path(__file__).with_name("bptrace.c")
MAX_TESTS = 400  # per binary: past this the spectrum has what it needs, and the budget is better spent on mutants
MIN_S = 0.2  # a test's run below this much time left is not started
# A passing neighbour slower than this many times the slowest failing test (and than NEIGHBOUR_MIN_S)
# is stopped and left out: one long test must not use up the budget the others share.
NEIGHBOUR_FACTOR = 4.0
NEIGHBOUR_MIN_S = 1.0
_NM_LINE = re.compile(r"^([0-9a-fA-F]+) [TtWw] (.+)$")
# Code that is never the project's: the runtime, the standard library, the test framework.
_FOREIGN = re.compile(r"^(?:std::|__gnu_cxx::|__cxxabiv1::|testing::|_GLOBAL__|__|_init$|_fini$|_start$|"
                      r"frame_dummy$|register_tm_clones$|deregister_tm_clones$|main$|operator (?:new|delete))")
_FAILED = re.compile(r"^\[  FAILED  \] (\S+) \(", re.M)
_PASSED = re.compile(r"^\[ {7}OK \] (\S+) \(", re.M)


def tracer() -> Path | None:
    """The built tracer, built on first use into a per-user cache; None where it cannot run."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "amd64"):
        return None
    source = SOURCE.read_bytes()
    cache = Path(tempfile.gettempdir()) / f"whetstone-tools-{os.getuid()}"
    built = cache / f"bptrace-{hashlib.sha256(source).hexdigest()[:12]}"
    if built.is_file() and os.access(built, os.X_OK):
        return built
    wanted = [*os.environ.get("CC", "").split()[:1], "cc", "gcc", "clang"]
    compiler = next((c for c in wanted if shutil.which(c)), None)
    if compiler is None:
        return None
    try:
        cache.mkdir(mode=0o700, exist_ok=True)
        scratch = cache / f".{built.name}.{os.getpid()}"
        done = subprocess.run([compiler, "-O2", "-o", str(scratch), str(SOURCE)], capture_output=True, timeout=60)
        if done.returncode != 0:
            return None
        os.replace(scratch, built)  # atomic: a concurrent search sees the whole file or none
    except (OSError, subprocess.SubprocessError):
        return None
    return built


def function_entries(binary: str) -> dict[int, str]:
    """The binary's own function entries (file addresses) and their demangled names, from ``nm``."""
    try:
        done = subprocess.run(["nm", "--defined-only", "-C", binary], capture_output=True, text=True,
                              errors="replace", timeout=60)
    except (OSError, subprocess.SubprocessError):
        return {}
    out: dict[int, str] = {}
    for line in done.stdout.splitlines():
        m = _NM_LINE.match(line)
        if m and not _FOREIGN.match(m[2]):
            out.setdefault(int(m[1], 16), m[2])
    return out


def _test_list(binary: ProfiledBinary, cwd: Path, env: dict[str, str]) -> list[str]:
    """The failing tests, then the other tests of their suites, then the rest of the binary's."""
    failing = list(dict.fromkeys(binary.tests.values()))
    try:
        code, raw = run_bounded([binary.path, "--gtest_list_tests"], cwd, 10, env)
    except OSError:
        return failing
    listed: list[str] = []
    suite = ""
    for line in raw.decode("utf-8", "replace").splitlines() if code == 0 else []:
        if not line.strip() or line.startswith("Running main"):
            continue
        if not line.startswith(" "):
            suite = line.split("#", 1)[0].strip()
        elif suite:
            listed.append(suite + line.split("#", 1)[0].strip())
    suites = {name.split(".", 1)[0] + "." for name in failing}
    same = [t for t in listed if t.startswith(tuple(suites)) and t not in failing]
    rest = [t for t in listed if t not in failing and t not in same]
    return [*failing, *same, *rest][:MAX_TESTS]


def profile_tests(
    binaries: Iterable[ProfiledBinary], scratch: Path, budget_s: float
) -> tuple[list[TestRun], dict[str, str], str]:
    """(runs, failure id -> the test name its run carries, one line when nothing could be profiled)."""
    tool = tracer()
    if tool is None:
        return [], {}, "no breakpoint tracer on this machine"
    deadline = time.monotonic() + budget_s
    env = {k: v for k, v in os.environ.items() if k not in ("GTEST_OUTPUT", "GTEST_FILTER")}
    runs: list[TestRun] = []
    names: dict[str, str] = {}
    why = ""
    for index, binary in enumerate(b for b in binaries if b.tests):
        entries = function_entries(binary.path)
        if not entries:
            why = why or f"nm read no functions from {Path(binary.path).name}"
            continue
        out_dir = scratch / f"bp{index}"
        out_dir.mkdir(parents=True, exist_ok=True)
        addresses = out_dir / "addresses"
        addresses.write_text("".join(f"{a:x}\n" for a in entries))
        cwd = Path(binary.path).parent
        tests = _test_list(binary, cwd, env) if binary.gtest else [Path(binary.path).name]
        failing = set(binary.tests.values()) if binary.gtest else set(tests)
        slowest = 0.0  # of the failing tests: a passing neighbour may take a few times that, no more
        for number, test in enumerate(tests):
            left = deadline - time.monotonic()
            if left < MIN_S:
                why = why or "no time left for the breakpoint spectrum"
                break
            cap = left if test in failing else min(left, max(NEIGHBOUR_MIN_S, NEIGHBOUR_FACTOR * slowest))
            started = time.monotonic()
            run = _run_one(tool, binary, test, entries, addresses, out_dir / f"hits{number}", cwd, env, cap)
            if test in failing:
                slowest = max(slowest, time.monotonic() - started)
            if run is not None:
                runs.append(run)
        for failure_id, name in binary.tests.items():
            names[failure_id] = name if binary.gtest else Path(binary.path).name
        shutil.rmtree(out_dir, ignore_errors=True)
    if runs and not any(r.failed for r in runs):
        why = "no failing test failed under the breakpoint tracer"
        return [], {}, why
    return runs, names, "" if runs else why or "the breakpoint tracer profiled no test"


def _run_one(tool: Path, binary: ProfiledBinary, test: str, entries: dict[int, str], addresses: Path,
             hits: Path, cwd: Path, env: dict[str, str], timeout: float) -> TestRun | None:
    """One test in its own process; None when it did not run to an end we can read."""
    args = [str(tool), str(addresses), str(hits), "--", binary.path]
    if binary.gtest:
        args.append(f"--gtest_filter={test}")
    try:
        code, raw = run_bounded(args, cwd, timeout, env)
    except OSError:
        return None
    if code is None or code in (125, 126, 127):
        return None  # timed out, or the tracer itself could not start the binary
    output = raw.decode("utf-8", "replace")
    if binary.gtest:
        failed = test in _FAILED.findall(output) or (code != 0 and test not in _PASSED.findall(output))
        if not failed and test not in _PASSED.findall(output):
            return None  # filtered out, skipped or disabled: it ran nothing of its own
    else:
        failed = code != 0
    try:
        seen = {int(h, 16) for h in hits.read_text().split()}
    except (OSError, ValueError):
        seen = set()
    return TestRun(test, failed, Executed(functions={entries[a] for a in seen if a in entries}))
