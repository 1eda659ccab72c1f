"""The failing C/C++ tests and their neighbours, each run under one-shot breakpoints: what each test ran.

Callgrind (:mod:`.native_spectra_cxx`) runs a test 20-100 times slower, so within the search's few
seconds it profiles a handful of tests, and a spectrum of five failing tests and one passing one
ties every function they share.  ``bptrace.c`` (built once per machine with the C compiler the
project uses anyway) writes an ``int3`` at the entry of every function the test binary defines --
and, when the binary carries a DWARF line table (``-g``, :mod:`.elf_lines`), at the start of each
run of one source line's code -- and puts each back the first time it is hit, so a test runs at
close to its own speed and says which functions it entered and which lines it ran.  That is cheap
enough to run the failing tests, every other test of their suites, the test binaries with no
failure (whole), then the failing binaries' other tests, one process each (a crash ends only its
own test), until the spectrum's budget ends.  Without ``-g``, function entries only: the spectrum
scores functions, and a function inlined into its caller is not seen.  The project's own shared
libraries (``ldd``: outside the system's directories) are armed too, once the program reaches its
entry point and the loader has mapped them.

x86-64 Linux with ptrace allowed, ``nm`` and a C compiler; elsewhere (or when the tracer cannot run)
:func:`profile_tests` returns nothing and the search uses callgrind as before.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import os
import platform
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..locate.callgrind import Executed
from ..locate.ctest_sources import CtestCommand
from ..locate.native_spectrum import TestRun
from ..process import run_bounded
from . import elf_lines, native_spectra_cxx
from .elf_lines import SYSTEM_DIRS
from .native_spectra_cxx import _FAILED, ProfiledBinary

SOURCE = Path(__file__).with_name("bptrace.c")
MAX_TESTS = 400  # per binary: past this the spectrum has what it needs, and the budget is better spent on mutants
MIN_S = 0.2  # a test's run below this much time left is not started
# A passing neighbour slower than this many times the slowest failing test (and than NEIGHBOUR_MIN_S)
# is stopped and left out: one long test must not use up the budget the others share.
NEIGHBOUR_FACTOR = 4.0
NEIGHBOUR_MIN_S = 1.0
# A failing test still running after this share of the time left (and at least FAILING_CUT_MIN_S) is
# stopped by the tracer itself, which keeps what the test ran until then: a loop the fault made long or
# endless has run by then what it will run, and a run stopped from outside would leave no hits at all
FAILING_CUT_SHARE = 0.5
FAILING_CUT_MIN_S = 1.0
CUT_GRACE_S = 0.5  # for the tracer to stop the program and write its hits
_NM_LINE = re.compile(r"^([0-9a-fA-F]+) [TtWw] (.+)$")
# Code that is never the project's: the runtime, the standard library, the test framework.
_FOREIGN = re.compile(r"^(?:std::|__gnu_cxx::|__cxxabiv1::|testing::|_GLOBAL__|__|_init$|_fini$|_start$|"
                      r"frame_dummy$|register_tm_clones$|deregister_tm_clones$|main$|operator (?:new|delete))")
_LDD_LINE = re.compile(r"=> (/\S+) \(0x", re.M)
_PASSED = re.compile(r"^\[ {7}OK \] (\S+) \(", re.M)


@functools.lru_cache(maxsize=1)
def tracer() -> Path | None:
    """The tracer, built on first use into a per-user cache, once it has traced ``true``; None where
    it cannot run (another platform, no compiler, ptrace not permitted)."""
    built = _built()
    if built is None:
        return None
    true = shutil.which("true")
    try:
        probe = subprocess.run([str(built), os.devnull, os.devnull, "--", true or "/bin/true"],
                               capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return built if probe.returncode == 0 else None


def _built() -> Path | None:
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "amd64"):
        return None
    source = SOURCE.read_bytes()
    cache = Path(tempfile.gettempdir()) / f"whetstone-tools-{os.getuid()}"
    built = cache / f"bptrace-{hashlib.sha256(source).hexdigest()[:12]}"
    if built.is_file() and os.access(built, os.X_OK) and built.stat().st_uid == os.getuid():
        return built
    # the system compiler, never $CC: that may be ccwrap, which would record this build as the project's
    compiler = next((c for c in ("cc", "gcc", "clang") if shutil.which(c)), None)
    if compiler is None:
        return None
    try:
        cache.mkdir(mode=0o700, exist_ok=True)
        info = cache.stat()
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            return None  # not ours alone: never run a program another user could have put there
        scratch = cache / f".{built.name}.{os.getpid()}"
        done = subprocess.run([compiler, "-O2", "-o", str(scratch), str(SOURCE)], capture_output=True, timeout=60)
        if done.returncode != 0:
            return None
        os.replace(scratch, built)  # atomic: a concurrent search sees the whole file or none
    except (OSError, subprocess.SubprocessError):
        return None
    return built


def project_libraries(binary: str) -> list[str]:
    """The shared libraries the binary loads from outside the system's directories (``ldd``): the
    project's own, whose functions the tracer (armed in the executable only) would wrongly call unrun."""
    try:
        done = subprocess.run(["ldd", binary], capture_output=True, text=True, errors="replace", timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    found = [m[1] for m in _LDD_LINE.finditer(done.stdout)]
    return [path for path in found if not path.startswith(SYSTEM_DIRS)]


def function_entries(binary: str) -> dict[int, str]:
    """The binary's own function entries (file addresses) and their demangled names, from ``nm``."""
    return _own(function_symbols(binary))


def _own(symbols: dict[int, str]) -> dict[int, str]:
    """The symbols that are the project's code, not the runtime's, the standard library's or the test
    framework's."""
    return {address: name for address, name in symbols.items() if not _FOREIGN.match(name)}


def function_symbols(binary: str) -> dict[int, str]:
    """Every function symbol the binary defines (file address -> demangled name), the runtime's too."""
    try:
        done = subprocess.run(["nm", "--defined-only", "-C", binary], capture_output=True, text=True,
                              errors="replace", timeout=60)
    except (OSError, subprocess.SubprocessError):
        return {}
    out: dict[int, str] = {}
    for line in done.stdout.splitlines():
        m = _NM_LINE.match(line)
        if m:
            out.setdefault(int(m[1], 16), m[2])
    return out


def gtest_tests(binary: str, cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    """Every test a GoogleTest binary lists (``--gtest_list_tests``), as ``Suite.Name``; [] for
    anything else."""
    try:
        code, raw = run_bounded([binary, "--gtest_list_tests"], cwd, 10, env)
    except OSError:
        return []
    listed: list[str] = []
    suite = ""
    for line in raw.decode("utf-8", "replace").splitlines() if code == 0 else []:
        if not line.strip() or line.startswith("Running main"):
            continue
        if not line.startswith(" "):
            suite = line.split("#", 1)[0].strip()
        elif suite:
            listed.append(suite + line.split("#", 1)[0].strip())
    return listed


@dataclass
class _Job:
    binary: ProfiledBinary
    test: str  # ``Suite.Name`` (a ctest test's name with ``command``), or "" for the whole binary
    failing: bool
    command: CtestCommand | None = None  # how ctest runs this test of a binary without GoogleTest

    @property
    def name(self) -> str:
        return self.test or Path(self.binary.path).name


def _jobs(binaries: list[ProfiledBinary], env: dict[str, str]) -> list[_Job]:
    """What to run, most telling first: the failing tests (a failing binary without GoogleTest whole),
    the other tests of their suites, the test binaries with no failure (whole: the passing side of a
    project whose tests are one binary each), then the failing binaries' other tests."""
    failing = [b for b in binaries if b.tests]
    first: list[_Job] = []
    same: list[_Job] = []
    rest: list[_Job] = []
    for binary in failing:
        if not binary.gtest and binary.per_test:  # ctest runs it once per test: its own words for each
            named = set(binary.tests.values())
            first += [_Job(binary, name, True, binary.ctest[name]) for name in sorted(named)]
            same += [_Job(binary, name, False, c) for name, c in sorted(binary.ctest.items()) if name not in named]
            continue
        if not binary.gtest:
            first.append(_Job(binary, "", True))
            continue
        wanted = list(dict.fromkeys(binary.tests.values()))
        first += [_Job(binary, t, True) for t in wanted]
        suites = tuple({t.split(".", 1)[0] + "." for t in wanted})
        others = [t for t in gtest_tests(binary.path, Path(binary.path).parent, env) if t not in wanted][:MAX_TESTS]
        same += [_Job(binary, t, False) for t in others if t.startswith(suites)]
        rest += [_Job(binary, t, False) for t in others if not t.startswith(suites)]
    whole = [_Job(b, "", False) for b in binaries if not b.tests]
    return [*first, *same, *whole, *rest]


def profile_with_best(
    binaries: Iterable[ProfiledBinary], scratch: Path, budget_s: float, wanted: str = ""
) -> tuple[list[TestRun], dict[str, str], str, str]:
    """(runs, failure id -> test name, one line when nothing could be profiled, the profiler used).

    The tracer first: it sees what callgrind sees (functions, and lines with debug info) at a few
    per cent of the cost, so the spectrum holds many more tests.  Callgrind where it cannot run (no
    ptrace, another platform, no compiler or ``nm``) or profiled nothing; ``wanted`` (``bptrace`` /
    ``callgrind``) allows that one only."""
    binaries = list(binaries)
    deadline = time.monotonic() + budget_s
    order = [wanted] if wanted in ("bptrace", "callgrind") else ["bptrace", "callgrind"]
    whys: list[str] = []
    for tool in order:
        profile = profile_tests if tool == "bptrace" else native_spectra_cxx.profile_tests
        runs, names, why = profile(binaries, scratch, max(0.0, deadline - time.monotonic()))
        if runs:
            return runs, names, why, tool
        whys.append(why)
    return [], {}, "; ".join(w for w in whys if w), order[0]


def profile_tests(
    binaries: Iterable[ProfiledBinary], scratch: Path, budget_s: float
) -> tuple[list[TestRun], dict[str, str], str]:
    """(runs, failure id -> the test name its run carries, one line when nothing could be profiled)."""
    tool = tracer()
    if tool is None:
        return [], {}, "no breakpoint tracer on this machine"
    deadline = time.monotonic() + budget_s
    env = native_spectra_cxx.binary_env(scratch)
    binaries = list(binaries)
    names = {failure_id: name if binary.per_test else Path(binary.path).name
             for binary in binaries for failure_id, name in binary.tests.items()}
    runs: list[TestRun] = []
    why = ""
    prepared: dict[str, _Armed | None] = {}  # per binary: what the tracer arms in it
    slowest = 0.0  # of the failing tests: a passing neighbour may take a few times that, no more
    scratch.mkdir(parents=True, exist_ok=True)
    out_dir = Path(tempfile.mkdtemp(prefix="bp", dir=scratch))
    try:
        for number, job in enumerate(_jobs(binaries, env)):
            left = deadline - time.monotonic()
            if left < MIN_S:
                why = why or "no time left for the breakpoint spectrum"
                break
            if job.binary.path not in prepared:
                prepared[job.binary.path] = _prepare(job.binary, out_dir / f"addresses{len(prepared)}")
            ready = prepared[job.binary.path]
            if ready is None:
                why = why or f"nm read no functions from {Path(job.binary.path).name}"
                continue
            cap = min(left, max(FAILING_CUT_MIN_S, FAILING_CUT_SHARE * left)) if job.failing \
                else min(left, max(NEIGHBOUR_MIN_S, NEIGHBOUR_FACTOR * slowest))
            started = time.monotonic()
            run = _run_one(tool, job, ready, out_dir / f"hits{number}", env, cap, cut=job.failing)
            if job.failing:
                slowest = max(slowest, time.monotonic() - started)
            if run is not None:
                runs.append(run)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    if runs and not any(r.failed for r in runs):
        return [], {}, "no failing test failed under the breakpoint tracer"
    return runs, names, "" if runs else why or "the breakpoint tracer profiled no test"


@dataclass
class _Armed:
    """What the tracer arms for one test binary, and what each address means.  Addresses are keyed by
    object: "" for the executable, a shared library's real path for the project's own libraries."""

    entries: dict[tuple[str, int], str]  # function entry -> its name
    lines: dict[tuple[str, int], tuple[str, int]]  # code address -> (source file, line), with debug info
    addresses: Path  # the tracer's ADDRS file
    # per object, sorted: every function symbol's address and name ("" for the runtime's, the standard
    # library's, the test framework's), and where each line's code begins: what a crash frame is in
    symbols: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    line_index: dict[str, list[tuple[int, tuple[str, int]]]] = field(default_factory=dict)

    def frame(self, obj: str, address: int) -> tuple[str, int] | None:
        """A crash frame's (source file, line) with debug info, else (function name, 0); None when the
        address is in no function of the project's."""
        symbols = self.symbols.get(obj, [])
        at = bisect.bisect_right(symbols, (address, "\uffff")) - 1
        if at < 0 or not symbols[at][1]:
            return None  # before the first function, or in the runtime's / a library's own code
        index = self.line_index.get(obj, [])
        row = bisect.bisect_right(index, (address, ("\uffff", 0))) - 1
        if row >= 0 and index[row][0] >= symbols[at][0]:
            return index[row][1]
        return symbols[at][1], 0


def _prepare(binary: ProfiledBinary, addresses: Path) -> _Armed | None:
    """The executable's functions (and lines, with ``-g``), and those of the shared libraries it loads
    from outside the system's directories (``ldd``): the project's own, armed when the program starts."""
    objects = ["", *dict.fromkeys(os.path.realpath(lib) for lib in project_libraries(binary.path))]
    entries: dict[tuple[str, int], str] = {}
    lines: dict[tuple[str, int], tuple[str, int]] = {}
    text: list[str] = []
    symbols: dict[str, list[tuple[int, str]]] = {}
    line_index: dict[str, list[tuple[int, tuple[str, int]]]] = {}
    for obj in objects:
        path = obj or binary.path
        every = function_symbols(path)
        found = _own(every)
        if not found and not obj:
            return None
        starts = line_starts(elf_lines.line_table(path))
        entries.update(((obj, a), name) for a, name in found.items())
        lines.update(((obj, a), where) for a, where in starts.items())
        symbols[obj] = sorted((a, name if a in found else "") for a, name in every.items())
        line_index[obj] = sorted(starts.items())
        text += [f"@{obj}\n"] if obj else []
        text += [f"{a:x}\n" for a in found.keys() | starts.keys()]
    addresses.write_text("".join(text))
    return _Armed(entries, lines, addresses, symbols, line_index)


def read_hits(text: str) -> set[tuple[str, int]]:
    """The tracer's HITS: (object, address), the object "" for the executable, else the library's path
    from the "@PATH" line before its addresses."""
    obj = ""
    out: set[tuple[str, int]] = set()
    for line in text.splitlines():
        if line.startswith("@"):
            obj = line[1:]
        elif line.strip():
            try:
                out.add((obj, int(line, 16)))
            except ValueError:
                continue
    return out


def read_crash(text: str) -> list[tuple[str, int]]:
    """The tracer's crash frames ("!ADDR" or "!ADDR PATH" lines), innermost first: (object, address)."""
    out: list[tuple[str, int]] = []
    for line in text.splitlines():
        if line.startswith("!"):
            address, _, obj = line[1:].partition(" ")
            try:
                out.append((obj, int(address, 16)))
            except ValueError:
                continue
    return out


def line_starts(table: dict[int, tuple[str, int]]) -> dict[int, tuple[str, int]]:
    """The addresses where each run of code of one line begins: a line's code entered at its start
    says it ran, so the rest of the run needs no breakpoint (each hit is a trap, ~50 us)."""
    out: dict[int, tuple[str, int]] = {}
    previous = None
    for address in sorted(table):
        if table[address] != previous:
            out[address] = previous = table[address]
    return out


def _run_one(tool: Path, job: _Job, armed: _Armed, hits: Path, env: dict[str, str], timeout: float,
             cut: bool = False) -> TestRun | None:
    """One test (or a whole binary) in its own process; None when it did not run to an end we can read.
    ``cut``: the tracer stops the program at ``timeout`` and keeps its hits (exit 124: a failing test
    that did not end, failed as it did in the real run; a passing one is no side then)."""
    args = [str(tool), str(armed.addresses), str(hits), "--", job.binary.path]
    cwd = Path(job.binary.path).parent
    if job.command is not None:
        args += job.command.args
        cwd = Path(job.command.cwd)
    elif job.test:
        args.append(f"--gtest_filter={job.test}")
    if cut:
        env = {**env, "BPTRACE_LIMIT_MS": str(max(1, int(timeout * 1000)))}
        timeout += CUT_GRACE_S
    try:
        code, raw = run_bounded(args, cwd, timeout, env)
    except OSError:
        return None
    if code is None or code in (125, 126, 127):
        return None  # timed out, or the tracer itself could not start the binary
    if job.test and job.command is None:
        output = raw.decode("utf-8", "replace")
        passed = job.test in _PASSED.findall(output)
        reported = job.test in _FAILED.findall(output)
        failed = reported or (code != 0 and not passed)
        if not failed and not passed:
            return None  # filtered out, skipped or disabled: it ran nothing of its own
        if failed and not reported and not job.failing:
            return None  # a neighbour that died here, where the run saw none fail: flaky, or disturbed
    elif job.failing:
        failed = code != 0
    elif code != 0:
        return None  # a binary with no recorded failure that fails: not a side we can name
    else:
        failed = False
    if job.failing and not failed:
        return None  # the recorded failure did not happen under the tracer: evidence of neither side
    try:
        text = hits.read_text()
    except OSError:
        text = ""
    seen = read_hits(text)
    lines: dict[str, set[int]] = {}
    for address in seen & armed.lines.keys():
        path, line = armed.lines[address]
        lines.setdefault(path, set()).add(line)
    frames = [f for obj, address in read_crash(text) if failed for f in [armed.frame(obj, address)] if f is not None]
    return TestRun(job.name, failed, Executed(lines=lines, functions={armed.entries[a] for a in seen & armed.entries.keys()},
                                              frames=frames))
