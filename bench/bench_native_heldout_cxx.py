"""Held-out C++ benchmark of test-failure localization, the native mutant search and `whetstone fix`.

    PYTHONPATH=<tree under test> python bench/bench_native_heldout_cxx.py --label before|after [--faults N]

The corpus (bench/native_heldout_support.py): ninja 1.13.2 with its own GoogleTest tests and
marisa-trie 1.4.1, both CMake + Ninja through ``CMAKE_CXX_COMPILER_LAUNCHER=ccwrap`` with
``gtest_discover_tests`` run by ``ctest --test-dir build --output-on-failure``; Clipper 6.4.2 with
a plain Makefile, ``CXX=ccwrap++``, ``make check`` running one gtest binary per test file.  All
three are downloaded from PyPI into bench/_work/ at bench time.

For each seeded fault (kept only when it builds and makes at least one test fail):

1. the plain test command, timed;
2. ``whetstone run -- <test>`` (no search), timed, then ``whetstone report --format json``:
   the rank of the faulty function among the first failure's suspects;
3. ``whetstone run --search -- <test>`` (when the tree under test knows ``--search``): the rank
   after the search's re-ranking, the session's search event (``trial_median_s``, why it stopped),
   and the top candidate with edits applied with ``whetstone apply`` and rebuilt: do all tests
   pass, is every file byte-identical to the original?
4. ``whetstone fix --build <build> --test <test>`` on a restored copy with the same fault: do all
   tests pass afterwards, is the original restored exactly?

Only the summary goes to bench/results/native_heldout_cxx_<label>.md; the per-case table goes to
bench/_work/native_heldout_cxx/cases_<label>.md (not committed, not read).

The order of the faults is fixed by ``--seed``; ``--faults`` splits a count over the code bases and
``--max-minutes`` stops starting new faults (so a slower tree may measure a prefix of the same list).
The code bases run at once (``--jobs``).  Which candidates were not faults (no build, no failing
test) is remembered in bench/_work/native_heldout_cxx/screen.json, so a second run skips them.
``--cmake-link-launcher`` adds ``-DCMAKE_CXX_LINKER_LAUNCHER=ccwrap`` (off for the figures: the
documented CMake setup names the compiler launcher only).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from native_heldout_support import KINDS, WORK, CodeBase, Fault, corpus, seed  # noqa: E402
from search_misses import KINDS as MISS_KINDS  # noqa: E402
from search_misses import miss_kind  # noqa: E402

TEST_TIMEOUT_S = 300.0
FIX_MAX_WALL_S = 120.0  # `whetstone fix --max-wall`: the loop's own bound
FIX_TIMEOUT_S = 300.0  # the bench's hard bound around it


@dataclass
class Timed:
    code: int | None  # None: timed out
    seconds: float
    output: str


def _env(cb: CodeBase) -> dict[str, str]:
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"), "LC_ALL": "C.UTF-8",
           "WHETSTONE_DIR": str(cb.root / ".whetstone"), "TERM": "dumb"}
    for key in ("PYTHONPATH", "PYENV_VERSION", "TMPDIR"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


LOG: list[str] = []  # step timings, written next to the per-case table


def sh(cmd: str | list[str], cb: CodeBase, timeout: float | None = None) -> Timed:
    """Run in the code base's root as its own process group; the group is killed on timeout."""
    timeout = timeout if timeout is not None else cb.test_timeout_s
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, shell=isinstance(cmd, str), cwd=cb.root, env=_env(cb), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        code = None
    took = time.perf_counter() - started
    LOG.append(f"{cb.name} {took:7.2f}s exit {code} {cmd if isinstance(cmd, str) else ' '.join(cmd)}")
    return Timed(code, took, out.decode("utf-8", "replace"))


# --------------------------------------------------------------------------- one fault


@dataclass
class Case:
    fault: Fault
    plain_s: float = 0.0
    run_s: float = 0.0
    rank_plain: int | None = None
    search_s: float | None = None
    rank_search: int | None = None
    search: dict[str, Any] = field(default_factory=dict)
    top_has_edits: bool = False
    top_validated: bool = False
    top_pass: bool = False
    top_exact: bool = False
    apply_refused: str = ""
    fix_s: float = 0.0
    fix_pass: bool = False
    fix_exact: bool = False
    fix_note: str = ""
    miss: str = ""  # search_misses.miss_kind: why the search did or did not fix it (counts only are printed)


def _report(cb: CodeBase) -> dict[str, Any]:
    out = sh(["whetstone", "report", "--format", "json"], cb, 120)
    try:
        return json.loads(out.output[out.output.index("{"):])
    except ValueError:
        return {}


def _rank(report: dict[str, Any], fault: Fault) -> int | None:
    failures = report.get("test_failures") or []
    if not failures:
        return None
    for i, s in enumerate(failures[0].get("suspects") or []):
        if s.get("file_path") != fault.file:
            continue
        lo = int(s.get("line_start") or s.get("line") or 0)
        hi = int(s.get("line_end") or lo)
        if lo <= fault.line <= hi or lo == fault.fn_start:
            return i + 1
    return None


PHASES = ("setup", "baseline", "spectrum", "schemata", "plans", "mutants", "wider")  # NativeSearchStats.phases


def _search_event(cb: CodeBase, session_id: str) -> dict[str, Any]:
    path = cb.root / ".whetstone" / "sessions" / f"{session_id}.jsonl"
    found: dict[str, Any] = {}
    try:
        for line in path.read_text().splitlines():
            event = json.loads(line)
            data = event.get("data") or {}
            if event.get("event") == "search" and data.get("kind") == "native":
                found = data
    except (OSError, ValueError):
        pass
    return found


class Runner:
    def __init__(self, cb: CodeBase, snapshot: dict[str, bytes], search: bool) -> None:
        self.cb = cb
        self.snapshot = snapshot
        self.search = search

    def restore(self) -> None:
        for rel, data in self.snapshot.items():
            path = self.cb.root / rel
            if not path.exists() or path.read_bytes() != data:
                path.write_bytes(data)

    def exact(self) -> bool:
        return all((self.cb.root / rel).exists() and (self.cb.root / rel).read_bytes() == data
                   for rel, data in self.snapshot.items())

    def build_and_test(self) -> bool:
        built = sh(self.cb.build_cmd, self.cb, 900)
        return built.code == 0 and sh(self.cb.test_cmd, self.cb).code == 0

    def screen(self, fault: Fault) -> Timed | None:
        """The fault written and built, the plain test run timed; None when it is not a fault."""
        path = self.cb.root / fault.file
        path.write_bytes(fault.apply(self.snapshot[fault.file]))
        if sh(self.cb.build_cmd, self.cb, 900).code != 0:
            return None
        plain = sh(self.cb.test_cmd, self.cb)
        return plain if plain.code not in (0, None) else None

    def measure(self, fault: Fault, plain: Timed) -> Case:
        case = Case(fault, plain_s=plain.seconds)
        run = sh(["whetstone", "run", "--", *self.cb.test_cmd.split()], self.cb, self.cb.test_timeout_s + 120)
        case.run_s = run.seconds
        case.rank_plain = _rank(_report(self.cb), fault)
        if self.search:
            self._search(case)
        self.restore()
        self._fix(case)
        self.restore()
        return case

    def _search(self, case: Case) -> None:
        run = sh(["whetstone", "run", "--search", "--", *self.cb.test_cmd.split()], self.cb, self.cb.test_timeout_s + 300)
        case.search_s = run.seconds
        report = _report(self.cb)
        case.rank_search = _rank(report, case.fault)
        sid = str(report.get("session_id") or "")
        case.search = _search_event(self.cb, sid) if sid else {}
        fault = case.fault
        original = self.snapshot[fault.file]
        case.miss = miss_kind(fault.file, original, fault.apply(original), fault.line, case.search)
        top = next((c for c in report.get("candidates") or [] if c.get("edits")), None)
        if top is None:
            return
        case.top_has_edits = True
        case.top_validated = bool(top.get("validated"))
        applied = sh(["whetstone", "apply", str(top["candidate_id"]), "--session", sid], self.cb, 120)
        if applied.code != 0:
            case.apply_refused = _note_shape(applied.output.strip().splitlines()[-1] if applied.output.strip() else "exit")
            return
        case.top_pass = self.build_and_test()
        case.top_exact = self.exact()

    def _fix(self, case: Case) -> None:
        fault = case.fault
        (self.cb.root / fault.file).write_bytes(fault.apply(self.snapshot[fault.file]))
        fix = sh(["whetstone", "fix", "--build", self.cb.build_cmd, "--test", self.cb.test_cmd,
                  "--max-wall", str(FIX_MAX_WALL_S)], self.cb, FIX_TIMEOUT_S)
        case.fix_s = fix.seconds
        refused = [ln for ln in fix.output.splitlines() if "refus" in ln]
        if refused:
            case.fix_note = "apply refused: " + _note_shape(refused[0][refused[0].index("refus"):])
        if fix.code is None:
            case.fix_note = "timed out"
            self._drop_open_session(fix.output)
        case.fix_exact = self.exact()
        case.fix_pass = self.build_and_test()

    def _drop_open_session(self, output: str) -> None:
        """A loop session the bench killed would be resumed by the next `whetstone fix`: remove it."""
        for line in output.splitlines():
            if line.startswith("whetstone fix: session "):
                sid = line.split()[-1]
                (self.cb.root / ".whetstone" / "sessions" / f"{sid}.jsonl").unlink(missing_ok=True)


# --------------------------------------------------------------------------- the code bases


def prepare(cb: CodeBase) -> tuple[float, float] | str:
    """Configure and build once (the full build, timed), check the tests pass: (build s, test s) or why not."""
    (cb.root / ".whetstone").mkdir(parents=True, exist_ok=True)
    if cb.style == "cmake":
        conf = sh(f"cmake -S . -B build -G Ninja -DCMAKE_CXX_COMPILER_LAUNCHER=ccwrap -DCMAKE_BUILD_TYPE=Debug {cb.cmake_args}", cb, 600)
        if conf.code != 0:
            return "configure failed: " + conf.output[-1500:]
    built = sh(cb.build_cmd, cb, 1800)
    if built.code != 0:
        return "build failed: " + built.output[-3000:]
    tests = sh(cb.test_cmd, cb, TEST_TIMEOUT_S)
    # a mutant that loops: bounded by a multiple of the clean run
    cb.test_timeout_s = max(20.0, 10 * tests.seconds)
    if tests.code != 0:
        return "tests fail on the original: " + tests.output[-3000:]
    return built.seconds, tests.seconds


def _cache() -> dict[str, bool]:
    try:
        return json.loads((WORK / "screen.json").read_text())
    except (OSError, ValueError):
        return {}


def run_codebase(cb: CodeBase, search: bool, seed_value: int, cache: dict[str, bool], deadline: float) -> tuple[list[Case], dict[str, Any]]:
    """Every fault of one code base (in a worker process: the cache updates and the step log ride in info)."""
    LOG.clear()
    info: dict[str, Any] = {"screened": 0, "rejected": 0}
    cases, info = _run_codebase(cb, search, seed_value, cache, deadline, info)
    info["log"] = list(LOG)
    info["cache"] = {k: v for k, v in cache.items() if k.startswith(cb.name + ":")}
    return cases, info


def _run_codebase(cb: CodeBase, search: bool, seed_value: int, cache: dict[str, bool], deadline: float,
                  info: dict[str, Any]) -> tuple[list[Case], dict[str, Any]]:
    prepared = prepare(cb)
    if isinstance(prepared, str):
        print(f"{cb.name}: {prepared}", file=sys.stderr)
        info["error"] = prepared.splitlines()[0]
        return [], info
    info["full_build_s"], info["clean_test_s"] = prepared
    snapshot = {rel: (cb.root / rel).read_bytes() for rel in cb.sources}
    runner = Runner(cb, snapshot, search)
    cases: list[Case] = []
    for fault in seed(cb, random.Random(f"{seed_value}:{cb.name}")):
        if len(cases) >= cb.quota or time.monotonic() > deadline:
            break
        if cache.get(fault.key) is False:
            continue
        info["screened"] += 1
        plain = runner.screen(fault)
        cache[fault.key] = plain is not None
        if plain is None:
            info["rejected"] += 1
            runner.restore()
            continue
        try:
            cases.append(runner.measure(fault, plain))
        except Exception as exc:  # noqa: BLE001 - one broken case must not lose the others
            info["bench_errors"] = info.get("bench_errors", 0) + 1
            LOG.append(f"{cb.name} bench error: {exc!r}")
            runner.restore()
        print(f"{cb.name}: {len(cases)}/{cb.quota} measured", flush=True)
    runner.restore()
    sh(cb.build_cmd, cb, 900)
    return cases, info


# --------------------------------------------------------------------------- the summary


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}% ({n}/{d})" if d else "-"


def _top(cases: list[Case], attr: str, k: int) -> str:
    return _pct(sum(1 for c in cases if getattr(c, attr) is not None and getattr(c, attr) <= k), len(cases))


def _med(values: list[float], fmt: str = "{:.2f}") -> str:
    return fmt.format(statistics.median(values)) if values else "n/a"


def _note_shape(note: str) -> str:
    """A note without the names of one case's tests, files or numbers: what kind of reason it is."""
    note = re.sub(r"^whetstone \w+: ", "", note.strip())
    note = re.sub(r"[\w./-]+\.(?:cc|cpp|h|hpp|c)\b(?::\d+)?", "<file>", note)
    note = re.sub(r"(?<!UTF-)\d+(?:\.\d+)?", "N", note)
    for cut in (" of ", " in "):
        if cut in note:
            return note.split(cut)[0] + cut.rstrip() + " ..."
    return note[:90]


def summary(label: str, tree: str, search: bool, results: dict[str, tuple[list[Case], dict[str, Any]]], bases: list[CodeBase],
            elapsed: float, jobs: int) -> str:
    lines = [f"# Held-out C++ test-failure benchmark — {label}", "",
             f"`python bench/bench_native_heldout_cxx.py --label {label}` with the whetstone CLI of `{tree}`; wall time {elapsed / 60:.1f} min.",
             "Code bases (downloaded from PyPI at bench time): " + "; ".join(f"{b.name}: {b.version}, {'CMake + Ninja, ctest' if b.style == 'cmake' else 'Makefile, make check'}" for b in bases) + ".",
             f"`whetstone fix` ran with `--max-wall {FIX_MAX_WALL_S:.0f}` (and a {FIX_TIMEOUT_S:.0f} s hard bound). "
             f"{jobs} code base(s) measured at once on a shared 2-core machine: wall times include that contention.",
             "CMake configured with " + ("`-DCMAKE_CXX_COMPILER_LAUNCHER=ccwrap " + bases[0].cmake_args + "`" if bases else "") + ".",
             "" if search else "This tree has no `whetstone run --search`: search figures are n/a.", ""]
    every = [c for cases, _ in results.values() for c in cases]
    groups = [(name, cases) for name, (cases, _) in results.items()] + [("all", every)]
    lines += ["## Localization (rank of the faulty function among the first failure's suspects)", "",
              "| code base | faults | plain run top-1 | top-3 | top-5 | after the search top-1 | top-3 | top-5 |",
              "|---|---|---|---|---|---|---|---|"]
    for name, cases in groups:
        s = [_top(cases, "rank_search", k) for k in (1, 3, 5)] if search else ["n/a"] * 3
        lines.append(f"| {name} | {len(cases)} | {_top(cases, 'rank_plain', 1)} | {_top(cases, 'rank_plain', 3)} | {_top(cases, 'rank_plain', 5)} | {' | '.join(s)} |")
    lines += ["", "## Fixes", "",
              "| code base | search: top candidate has edits | validated | applied: all tests pass | applied: original restored exactly | `whetstone fix`: all tests pass | fix: original restored exactly | fix timed out |",
              "|---|---|---|---|---|---|---|---|"]
    for name, cases in groups:
        n = len(cases)
        if search:
            s = [_pct(sum(c.top_has_edits for c in cases), n), _pct(sum(c.top_validated for c in cases), n),
                 _pct(sum(c.top_pass for c in cases), n), _pct(sum(c.top_exact for c in cases), n)]
        else:
            s = ["n/a"] * 4
        lines.append(f"| {name} | {' | '.join(s)} | {_pct(sum(c.fix_pass for c in cases), n)} | {_pct(sum(c.fix_exact for c in cases), n)} | {sum(c.fix_note == 'timed out' for c in cases)} |")
    refusals = Counter(c.apply_refused for c in every if c.apply_refused)
    fix_notes = Counter(c.fix_note for c in every if c.fix_note)
    if refusals or fix_notes:
        lines += ["", "`whetstone apply` of the search's top candidate failed: " + ("; ".join(f"\"{k}\" {v}" for k, v in refusals.most_common(3)) or "never")
                  + ". `whetstone fix` notes: " + ("; ".join(f"\"{k}\" {v}" for k, v in fix_notes.most_common(3)) or "none") + "."]
    lines += ["", "## Wall times (medians over the faults; seconds)", "",
              "| code base | full build | plain test run | `whetstone run` | run / plain | `whetstone run --search` | search elapsed (event) | per mutant (trial_median_s) | mutants tried | `whetstone fix` |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for name, cases in groups:
        info = results.get(name, ([], {}))[1]
        full = f"{info['full_build_s']:.1f}" if "full_build_s" in info else ("/".join(f"{results[b.name][1].get('full_build_s', 0):.0f}" for b in bases) if name == "all" else "n/a")
        ratio = _med([c.run_s / c.plain_s for c in cases if c.plain_s > 0])
        if search:
            srch = [_med([c.search_s for c in cases if c.search_s is not None]),
                    _med([float(c.search["elapsed_s"]) for c in cases if c.search.get("elapsed_s") is not None]),
                    _med([float(c.search["trial_median_s"]) for c in cases if c.search.get("trial_median_s") is not None], "{:.3f}"),
                    _med([float(c.search.get("tried", 0)) for c in cases if c.search], "{:.0f}")]
        else:
            srch = ["n/a"] * 4
        lines.append(f"| {name} | {full} | {_med([c.plain_s for c in cases])} | {_med([c.run_s for c in cases])} | {ratio} | {' | '.join(srch)} | {_med([c.fix_s for c in cases])} |")
    if search:
        lines += ["", "## What the search did (counts over the faults)", ""]
        for name, cases in groups:
            stopped = Counter(str(c.search.get("stopped") or "(no search event)") for c in cases)
            notes = Counter(_note_shape(str(c.search["notes"][0])) for c in cases if c.search.get("notes"))
            lines.append(f"- **{name}**: stopped " + ", ".join(f"{k} {v}" for k, v in stopped.most_common())
                         + ("; first notes: " + "; ".join(f"\"{k}\" {v}" for k, v in notes.most_common(4)) if notes else ""))
        # where the searches' time went (the event's phases, medians over the faults; totals only)
        lines += ["", "| code base | " + " | ".join(PHASES) + " |", "|---|" + "---|" * len(PHASES)]
        for name, cases in groups:
            lines.append(f"| {name} | " + " | ".join(
                _med([float((c.search.get("phases") or {}).get(phase, 0.0)) for c in cases if c.search]) for phase in PHASES)
                + " |")
        lines += _alone_table(groups)
        lines += ["", "Where the faulty function stood when the search stopped (search_misses.py; counts):", "",
                  "| code base | " + " | ".join(MISS_KINDS) + " |", "|---|" + "---|" * len(MISS_KINDS)]
        for name, cases in groups:
            got = Counter(c.miss for c in cases)
            lines.append(f"| {name} | " + " | ".join(str(got.get(k, 0)) for k in MISS_KINDS) + " |")
    lines += ["", "## Faults", ""]
    for name, (cases, info) in results.items():
        lines.append(f"- **{name}**: {len(cases)} kept of {info.get('screened', 0)} screened (the rest did not build or no test failed)"
                     + (f"; error: {info['error']}" if info.get("error") else "")
                     + (f"; {info['bench_errors']} case(s) lost to a bench error" if info.get("bench_errors") else ""))
    kinds = Counter(c.fault.kind for c in every)
    lines.append("- per kind: " + ", ".join(f"{k} {kinds.get(k, 0)}" for k in KINDS))
    per_kind_fix = {k: sum(c.fix_pass for c in every if c.fault.kind == k) for k in KINDS}
    lines.append("- `whetstone fix` all tests pass, per kind: " + ", ".join(f"{k} {per_kind_fix[k]}/{kinds.get(k, 0)}" for k in KINDS))
    return "\n".join(lines) + "\n"


def _alone_table(groups: list[tuple[str, list[Case]]]) -> list[str]:
    """Mutants screened, timed out, the seconds their runs took (the event's ``trial_s``), and compiled alone
    by why (the event's ``alone``), summed over the faults: totals
    only, so where the searches' trials go is known without reading a case."""
    whys = sorted({why for _n, cases in groups for c in cases for why in (c.search.get("alone") or {})})
    lines = ["", "Mutants (totals over the faults): tried, screened, timed out (of those, ended by their expression's count),"
             " the seconds of their runs, the schemata's choices (held / left out as lines / rejected), and compiled"
             " alone by why (count / seconds):", "",
             "| code base | tried | screened | timed out (by count) | runs s | schema choices | " + " | ".join(whys) + " |",
             "|---|---|---|---|---|---|" + "---|" * len(whys)]
    for name, cases in groups:
        cells = []
        for why in whys:
            got = [(c.search.get("alone") or {}).get(why) for c in cases]
            cells.append(f"{sum(int(g[0]) for g in got if g)} / {sum(float(g[1]) for g in got if g):.0f}")
        tried = sum(int(c.search.get("tried") or 0) for c in cases)
        screened = sum(int(c.search.get("screened") or 0) for c in cases)
        timeouts = sum(int(c.search.get("timeouts") or 0) for c in cases)
        runs_s = sum(float(s) for c in cases for s in c.search.get("trial_s") or [])
        schemata = [c.search.get("schema") or {} for c in cases]
        spun = sum(int(sch.get("spun") or 0) for sch in schemata)
        held = "/".join(str(sum(int(sch.get(k) or 0) for sch in schemata)) for k in ("mutants", "dropped", "rejected"))
        lines.append(f"| {name} | {tried} | {screened} | {timeouts} ({spun}) | {runs_s:.0f} | {held} | "
                     + " | ".join(cells) + " |")
    return lines


def cases_table(results: dict[str, tuple[list[Case], dict[str, Any]]]) -> str:
    rows = ["| code base | kind | where | plain rank | search rank | stopped | top pass | top exact | fix pass | fix exact | run/plain |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, (cases, _) in results.items():
        for c in cases:
            rows.append(f"| {name} | {c.fault.kind} | {c.fault.file}:{c.fault.line} | {c.rank_plain} | {c.rank_search} | "
                        f"{c.search.get('stopped', '')} | {c.top_pass} | {c.top_exact} | {c.fix_pass} | {c.fix_exact} | "
                        f"{c.run_s / c.plain_s:.2f} |")
    return "\n".join(rows) + "\n"


def _tree() -> str:
    proc = subprocess.run([sys.executable, "-c", "import pytest_whetstone, os; print(os.path.dirname(os.path.dirname(pytest_whetstone.__file__)))"],
                          capture_output=True, text=True, env=dict(os.environ), cwd="/")  # not this checkout's package
    return proc.stdout.strip() or "?"


def _knows_search() -> bool:
    proc = subprocess.run(["whetstone", "run", "--help"], capture_output=True, text=True, env=dict(os.environ))
    return "--search" in proc.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True, help="before / after: names the summary file")
    parser.add_argument("--faults", type=int, default=48, help="faults in all (split over the code bases)")
    parser.add_argument("--codebases", default="ninja,marisa,clipper")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--max-minutes", type=float, default=17.0, help="no new fault starts after this")
    parser.add_argument("--cmake-link-launcher", action="store_true",
                        help="also -DCMAKE_CXX_LINKER_LAUNCHER=ccwrap (so ccwrap records CMake's links); off for the figures")
    parser.add_argument("--jobs", type=int, default=3, help="code bases measured at once (each in its own process)")
    parser.add_argument("--out", default=None, help="summary path (default bench/results/native_heldout_cxx_<label>.md)")
    args = parser.parse_args()
    started = time.monotonic()
    names = args.codebases.split(",")
    quotas = {n: args.faults // len(names) + (1 if i < args.faults % len(names) else 0) for i, n in enumerate(names)}
    tree, search = _tree(), _knows_search()
    print(f"whetstone from {tree}; --search {'known' if search else 'unknown'}", flush=True)
    bases = corpus(quotas)
    for cb in bases:
        cb.cmake_args = "-DCMAKE_CXX_LINKER_LAUNCHER=ccwrap" if args.cmake_link_launcher else ""
    cache = _cache()
    deadline = started + args.max_minutes * 60
    results: dict[str, tuple[list[Case], dict[str, Any]]] = {}
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {}
        for i, cb in enumerate(bases):
            # one at a time: each code base gets its share of the time; at once: all of it
            share = deadline if args.jobs > 1 else started + (deadline - started) * (i + 1) / len(bases)
            futures[cb.name] = pool.submit(run_codebase, cb, search, args.seed, dict(cache), share)
        for name, future in futures.items():
            try:
                results[name] = future.result()
            except Exception as exc:  # noqa: BLE001 - the other code bases still count
                results[name] = ([], {"error": repr(exc)[:200]})
    for _, info in results.values():
        cache.update(info.pop("cache", {}))
        LOG.extend(info.pop("log", []))
    (WORK / "screen.json").write_text(json.dumps(cache, indent=0, sort_keys=True))
    text = summary(args.label, tree, search, results, bases, time.monotonic() - started, args.jobs)
    out = Path(args.out) if args.out else HERE / "results" / f"native_heldout_cxx_{args.label}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    (WORK / f"cases_{args.label}.md").write_text(cases_table(results))
    (WORK / f"steps_{args.label}.log").write_text("\n".join(LOG) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
