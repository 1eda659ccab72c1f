"""Development bench: C/C++ and JS test failures located and fixed by the native mutant search (by hand).

    python bench/bench_native_fix.py [--project exprcalc|textkit|jsonnet|hiredis|fasttext|kiwi|leveldb|cjson|
        traverse|object-inspect|deep-equal|function-bind|all] [--faults N] [--seed S]
        [--fault-list FILE] [--seeder ours|heldout] [--max-minutes M] [--out FILE]

The projects (bench/native_fix_projects.py), each laid out in a scratch directory:

* exprcalc (C++, ours): a tokenizer, a shunting-yard parser and an evaluator that calls both, a formatter;
  CMake + Ninja through ccwrap, a static library, three gtest binaries under ctest;
* textkit (JS, ours): a package whose ``main`` exports one anonymous function over helpers in another
  module, tested with ``node --test`` through ``require('../')``;
* jsonnet 0.20.0 (C++, third-party, PyPI sdist): its lexer, parser and string utilities as a static
  library, its own GoogleTest files core/lexer_test.cpp and core/parser_test.cpp, CMake + Ninja with ccwrap
  as the compiler launcher, ctest;
* hiredis 3.5.0 (C, third-party, vendored in the PyPI sdist): sds, the reply reader and the command
  formatter as a static library built by a plain Makefile, our gtest tests of its public API
  (bench/native_dev/hiredis), ``make check``;
* fasttext 0.9.3 (C++, third-party, PyPI sdist): its src/ (not main.cc) as a static library, faults in
  the vectors, matrices, dictionary, arguments, utilities, meter, product quantizer and quantized matrix;
  our gtest tests of its public API (bench/native_dev/fasttext), CMake with Unix Makefiles,
  RelWithDebInfo, ccwrap as the compiler launcher, ctest;
* kiwi (C++, third-party, the header-only solver in the PyPI sdist kiwisolver 1.4.7): faults in its headers
  (templates and inline members: the rows, the solver, the symbolics operators, strengths, AssocVector);
  our gtest tests (bench/native_dev/kiwi), three binaries that each compile the headers they include,
  CMake + Ninja, Debug, ccwrap as the compiler launcher, ctest;
* cjson 1.7.15 (C, third-party, Debian bookworm's upstream tarball): faults in its one big cJSON.c (115
  functions), built as a static library by its own CMake (``-DENABLE_CJSON_TEST=ON``, without its
  -Werror flags, valgrind or sanitizers), Ninja, ccwrap as the C compiler launcher; its own Unity tests
  under tests/ and test.c, one binary and one ctest test each;
* traverse 0.6.11, object-inspect 1.12.3, deep-equal 2.2.3, function-bind 1.1.2 (JS, third-party, npm
  tarballs with their own tape tests, run whole-file by ``tape '<glob>'``): faults in the package's
  main source file.

Faults are one-token slips seeded inside the library functions: a sample drawn with ``--seed`` from the
seeding kinds' mutants sorted by position (so the list does not move when the search's priors change);
``--fault-list FILE`` writes the sample there, or replays it when the file exists.  ``--seeder heldout``
draws them instead with the held-out benches' seeders (their kinds, written apart from the search's
operators: a dropped `!`, a doubled constant, `return undefined`...), so the development set has the
held-out faults' shapes without a held-out case being read (``native_fix_<project>_hkinds_faults.json``).  Those the suite does
not detect (or that do not compile, or hang) are dropped.  For each fault:

* ``whetstone run -- TEST``: the faulty function's rank among the first failure's suspects;
* ``whetstone run --search -- TEST``: its rank after the mutants re-ranked them, and whether the
  top candidate, applied with ``whetstone apply`` and rebuilt, makes every test pass and restores
  the original bytes;
* wall times: the plain test run, the default ``whetstone run`` and the search run, and the search's
  median cost per mutant.

``--max-minutes`` bounds the bench's wall time: no new fault is started past it.
This is the development set: the held-out figures come from elsewhere.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from native_fix_projects import PROJECTS, Project, materialize  # noqa: E402
from search_misses import functions_of, miss_kind  # noqa: E402

from pytest_whetstone.candidates.native_mutant_tree import Source as _Source  # noqa: E402
from pytest_whetstone.candidates.native_mutants import mutants_in  # noqa: E402
from pytest_whetstone.edits import apply_edits_text  # noqa: E402
from pytest_whetstone.process import run_bounded  # noqa: E402
from pytest_whetstone.records import Position, TextEdit  # noqa: E402

SEED_KINDS = {"cmp-boundary", "cmp-flip", "cmp-reverse", "remove-not", "off-by-one", "arith", "boolop",
              "bool-const", "swap-args", "int-const", "drop-one"}
BEGIN = "===WHETSTONE-RESULT==="
SKIP_DIRS = {"build", ".whetstone", "node_modules"}


@dataclass
class Fault:
    rel: str
    qualname: str
    kind: str
    edit: TextEdit
    description: str

    def to_dict(self) -> dict:
        e = self.edit
        return {"rel": self.rel, "qualname": self.qualname, "kind": self.kind, "description": self.description,
                "start": [e.start.line, e.start.col], "end": [e.end.line, e.end.col], "new_text": e.new_text}

    @staticmethod
    def from_dict(d: dict) -> Fault:
        edit = TextEdit(d["rel"], Position(*d["start"]), Position(*d["end"]), d["new_text"])
        return Fault(d["rel"], d["qualname"], d["kind"], edit, d["description"])


@dataclass
class Outcome:
    fault: Fault
    rank: int | None
    rank_after: int | None
    top_validated: bool
    passes: bool
    exact: bool
    plain_s: float
    run_s: float
    search_s: float
    trial_median_s: float | None
    trials: int
    stopped: str
    miss: str = ""  # search_misses.miss_kind
    phases: str = ""  # where the search's time went (the event's phases, seconds)
    rank_spectrum: int | None = None  # the faulty function's place as the spectrum left it, before the first mutant


def _env(proj: Path, project: Project) -> dict[str, str]:
    # the spectrum: its caps (0: none), its profiler; the screen's bound on a looping mutant's runs (0: none)
    keep = {"WHETSTONE_SPECTRUM_S", "WHETSTONE_SPECTRUM_TOOL", "WHETSTONE_REACH_S", "WHETSTONE_SPIN_FACTOR"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_") or k in keep}
    env["WHETSTONE_DIR"] = str(proj / ".whetstone")
    scripts = Path(sys.executable).parent
    if (scripts / "ccwrap").exists():  # the native shim itself, not a version manager's wrapper script
        env["PATH"] = f"{scripts}{os.pathsep}{env.get('PATH', '')}"
    if project.compiler_env:
        env.update(CC="ccwrap", CXX="ccwrap++")
    if DEBUG_INFO:  # CMake takes its first CMAKE_<LANG>_FLAGS from these at configure time
        env.update(CFLAGS="-g", CXXFLAGS="-g")
    return env


def sample_faults(proj: Path, project: Project, n: int, seed: int) -> list[Fault]:
    """Up to three seeded slips per library function, ``4 n`` of them drawn with ``seed`` (many go undetected:
    a third-party suite does not reach every function).

    The mutants are sorted by position before the draw: the search's own order (its priors) must not
    move the sample when the search is tuned."""
    rng = random.Random(seed)
    pool: list[Fault] = []
    for rel in project.lib:
        data = (proj / rel).read_bytes()
        for qualname, first, last in sorted(functions_of(rel, data), key=lambda f: (f[1], f[2], f[0])):
            if qualname in project.skip:
                continue
            mutants = sorted((m for m in mutants_in(rel, data, first, last, qualname=qualname)
                              if m.kind in SEED_KINDS), key=lambda m: (m.key, m.kind))
            rng.shuffle(mutants)
            pool += [Fault(rel, qualname, m.kind, m.edit, m.description) for m in mutants[:3]]
    rng.shuffle(pool)
    return pool[: n * 4]  # a longer draw keeps the shorter one as its prefix


def sample_heldout_kinds(proj: Path, project: Project, n: int, seed: int) -> list[Fault]:
    """``4 n`` faults drawn by the held-out benches' seeders (native_heldout_support.seed for C/C++,
    bench_native_heldout_js.sites for JS: their kinds, written independently of the search's operators)
    in this project's library files: faults shaped like the held-out ones, on code we develop against, so
    the search can be tuned without reading those."""
    rng = random.Random(seed)
    if all(rel.endswith(".js") for rel in project.lib):
        drawn = _js_heldout_kinds(proj, project, rng)
    else:
        from native_heldout_support import CodeBase
        from native_heldout_support import seed as heldout_seed

        cb = CodeBase(project.name, "", "", proj, "", "", "", list(project.lib), 0)
        drawn = [(f.file, f.kind, f.start, f.end, f.new) for f in heldout_seed(cb, rng)]
    out: list[Fault] = []
    for rel, kind, start_byte, end_byte, new_bytes in drawn:
        data = (proj / rel).read_bytes()
        line = data.count(b"\n", 0, start_byte) + 1
        holding = [fn for fn in functions_of(rel, data) if fn[1] <= line <= fn[2] and fn[0] not in project.skip]
        if not holding:
            continue
        qualname = min(holding, key=lambda fn: fn[2] - fn[1])[0]
        start, end = (_position(data, offset) for offset in (start_byte, end_byte))
        old = data[start_byte:end_byte].decode("utf-8", "replace")
        edit = TextEdit(rel, start, end, new_bytes.decode("utf-8", "replace"))
        out.append(Fault(rel, qualname, kind.replace(" ", "-").replace("_", "-"), edit, f"{old!r} -> {edit.new_text!r}"))
    return out[: n * 4]


def _js_heldout_kinds(proj: Path, project: Project, rng: random.Random) -> list[tuple[str, str, int, int, bytes]]:
    """The held-out JS bench's sites in the project's files, shuffled by kind, the kinds interleaved."""
    from bench_native_heldout_js import KINDS, sites
    from native_heldout_support import interleaved

    by_kind: dict[str, list[tuple[str, str, int, int, bytes]]] = {k: [] for k in KINDS}
    for rel in project.lib:
        for kind, start, end, _old, new, _node in sites((proj / rel).read_bytes()):
            by_kind[kind].append((rel, kind, start, end, new.encode()))
    return interleaved(by_kind, rng)


def _position(data: bytes, offset: int) -> Position:
    """The search's own position for a byte offset (a 1-based line, a column in characters)."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return _Source("", data).pos((data.count(b"\n", 0, offset), offset - line_start))


def faults(proj: Path, project: Project, n: int, seed: int, fault_list: str, seeder: str = "ours") -> list[Fault]:
    """The sample, replayed from ``fault_list`` when that file holds one for this project, else drawn (and
    written there when a file is named)."""
    stored: dict = {}
    key = f"{project.name} n={n} seed={seed}" + ("" if seeder == "ours" else f" seeder={seeder}")
    if fault_list and Path(fault_list).exists():
        stored = json.loads(Path(fault_list).read_text())
        if key in stored:
            return [Fault.from_dict(d) for d in stored[key]]
    drawn = (sample_faults if seeder == "ours" else sample_heldout_kinds)(proj, project, n, seed)
    if fault_list:
        stored[key] = [f.to_dict() for f in drawn]
        Path(fault_list).write_text(json.dumps(stored, indent=1) + "\n")
    return drawn


PLAIN_ONLY = False
DEBUG_INFO = False


def _sh(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _whetstone(args: list[str], proj: Path, env: dict[str, str]) -> tuple[dict, dict, float]:
    t0 = time.perf_counter()
    proc = _sh([sys.executable, "-m", "pytest_whetstone", *args], proj, env)
    took = time.perf_counter() - t0
    lines = proc.stdout.splitlines()
    verdict = json.loads(lines[len(lines) - 1 - lines[::-1].index(BEGIN) + 1]) if BEGIN in lines else {}
    report = json.loads(_sh([sys.executable, "-m", "pytest_whetstone", "report", "--format", "json"], proj,
                            env).stdout or "{}")
    return verdict, report, took


def _rank(report: dict, fault: Fault) -> int | None:
    failures = report.get("test_failures") or []
    if not failures:
        return None
    for i, s in enumerate(failures[0].get("suspects") or []):
        if s["file_path"] == fault.rel and s["qualname"] == fault.qualname:
            return i + 1
    return None


def _place(ranked: list[str], fault: Fault) -> int | None:
    """The fault's place among the search event's ``file::qualname`` suspects, from 1 (None: not there)."""
    name = f"{fault.rel}::{fault.qualname}"
    return ranked.index(name) + 1 if name in ranked else None


def _print_suspects(report: dict, fault: Fault) -> None:
    """The first failure's suspects, for reading a development project's ranking (never a held-out one)."""
    failures = report.get("test_failures") or []
    first = failures[0] if failures else {}
    print(f"  fault {fault.rel}::{fault.qualname} ({fault.kind}); first failure {first.get('test_suite')}."
          f"{first.get('test_name')} {first.get('file_path')}:{first.get('line')}")
    for i, s in enumerate(first.get("suspects") or []):
        print(f"    {i + 1}. {s['file_path']}::{s['qualname']} {s.get('score')}")


def _search_event(proj: Path, report: dict) -> dict:
    path = proj / ".whetstone" / "sessions" / f"{report.get('session_id')}.jsonl"
    found: dict = {}
    try:
        for line in path.read_text().splitlines():
            event = json.loads(line)
            if event.get("event") == "search":
                found = event.get("data") or {}
    except (OSError, ValueError):
        pass
    return found


def _builds(project: Project, proj: Path, env: dict[str, str]) -> bool:
    return project.build is None or _sh(project.build, proj, env).returncode == 0


def _sources(proj: Path) -> dict[Path, bytes]:
    """Every source file of the scratch tree (not the build's output): a candidate may edit any of them."""
    return {p: p.read_bytes() for p in proj.rglob("*")
            if p.is_file() and not SKIP_DIRS.intersection(p.relative_to(proj).parts)}


def _restore(proj: Path, saved: dict[Path, bytes]) -> None:
    for path, data in saved.items():
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)


def measure(project: Project, proj: Path, fault: Fault, env: dict[str, str]) -> Outcome | None:
    path = proj / fault.rel
    saved = _sources(proj)
    original = saved[path]
    path.write_text(apply_edits_text(original.decode(), [fault.edit]))
    try:
        if not _builds(project, proj, env):
            return None
        t0 = time.perf_counter()
        code, _out = run_bounded(project.test, proj, 60, env)  # kills the test's whole process group
        if code is None or code == 0:
            return None  # not detected, or the fault makes the suite hang: not what this bench measures
        plain = time.perf_counter() - t0
        test = project.test
        _v, report, run_s = _whetstone(["run", "--", *test], proj, env)
        rank = _rank(report, fault)
        if PLAIN_ONLY:
            _print_suspects(report, fault)
            return Outcome(fault, rank, None, False, False, False, plain, run_s, 0.0, None, 0, "")
        _v, report, search_s = _whetstone(["run", "--search", "--", *test], proj, env)
        rank_after = _rank(report, fault)
        stats = _search_event(proj, report)
        cands = report.get("candidates") or []
        top = cands[0] if cands else None
        passes = exact = False
        if top and top.get("edits"):
            _sh([sys.executable, "-m", "pytest_whetstone", "apply", top["candidate_id"]], proj, env)
            passes = _builds(project, proj, env) and _sh(project.test, proj, env).returncode == 0
            exact = all(p.read_bytes() == data for p, data in saved.items() if p.exists())
        faulty = apply_edits_text(original.decode(), [fault.edit]).encode()
        miss = miss_kind(fault.rel, original, faulty, fault.edit.start.line, stats)
        return Outcome(fault, rank, rank_after, bool(top and top.get("validated")), passes, exact, plain, run_s,
                       search_s, stats.get("trial_median_s"), len(stats.get("trial_s") or []),
                       str(stats.get("stopped") or ""), miss,
                       " ".join(f"{k} {v:.1f}" for k, v in (stats.get("phases") or {}).items() if v >= 0.05)
                       + f"; runs {sum(stats.get('trial_s') or []):.1f} s, {stats.get('timeouts', 0)} timed out"
                       + f" ({(stats.get('schema') or {}).get('spun', 0)} by their count)",
                       _place((stats.get("spectrum") or {}).get("ranked") or [], fault))
    finally:
        _restore(proj, saved)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--project", default="all", choices=[*PROJECTS, "all"])
    ap.add_argument("--faults", type=int, default=24, help="per project")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--fault-list", default="", help="JSON file: replay the sample stored there, or store it")
    ap.add_argument("--seeder", default="ours", choices=["ours", "heldout"],
                    help="ours: the search's own operators; heldout: the held-out C/C++ or JS bench's seeder")
    ap.add_argument("--max-minutes", type=float, default=0.0, help="start no new fault past this (0: no bound)")
    ap.add_argument("--out", default=str(HERE / "results" / "native_fix.md"),
                    help="bench/results/native_fix_<project>.md by convention")
    ap.add_argument("--plain-only", action="store_true",
                    help="the plain run's ranking only, with each fault's suspects printed (no search, no fix)")
    ap.add_argument("--debug-info", action="store_true",
                    help="build the CMake projects with -g (CFLAGS/CXXFLAGS at configure), as a Debug build has it")
    args = ap.parse_args()
    global PLAIN_ONLY, DEBUG_INFO
    PLAIN_ONLY = args.plain_only
    DEBUG_INFO = args.debug_info
    started = time.monotonic()
    deadline = started + args.max_minutes * 60 if args.max_minutes > 0 else float("inf")
    outcomes: list[Outcome] = []
    names = list(PROJECTS) if args.project == "all" else [args.project]
    cut = False
    for name in names:
        got, stopped = run_project(PROJECTS[name], args.faults, args.seed, args.fault_list, deadline, args.seeder)
        outcomes += got
        cut = cut or stopped
    write(outcomes, args, [PROJECTS[n] for n in names], time.monotonic() - started, cut)


def built_project(project: Project, scratch: Path) -> tuple[Path, dict[str, str]]:
    """The project laid out in ``scratch``, configured and built through ccwrap: (its root, its env)."""
    proj = scratch / project.name
    materialize(project, proj)
    env = _env(proj, project)
    if project.configure:
        _sh(project.configure, proj, env)
    assert _builds(project, proj, env), f"{project.name} does not build"
    return proj, env


def run_project(project: Project, n: int, seed: int, fault_list: str, deadline: float,
                seeder: str = "ours") -> tuple[list[Outcome], bool]:
    """The project's outcomes, and whether the time limit cut its list short."""
    if time.monotonic() >= deadline:
        return [], True
    scratch = Path(tempfile.mkdtemp(prefix="bench-native-fix-"))
    proj, env = built_project(project, scratch)
    assert _sh(project.test, proj, env).returncode == 0, f"{project.name}: the tests fail before any fault"
    outcomes: list[Outcome] = []
    try:
        for fault in faults(proj, project, n, seed, fault_list, seeder):
            if len(outcomes) >= n:
                break
            if time.monotonic() >= deadline:
                print(f"{project.name}: time limit reached after {len(outcomes)} faults", flush=True)
                return outcomes, True
            out = measure(project, proj, fault, env)
            _builds(project, proj, env)
            if out is not None:
                outcomes.append(out)
                print(f"{project.name:9} {fault.qualname:28} {fault.kind:13} rank {out.rank} -> {out.rank_spectrum} -> {out.rank_after} "
                      f"validated={out.top_validated} passes={out.passes} exact={out.exact} "
                      f"search {out.search_s:.1f}s {out.stopped} [{out.miss}] ({out.phases})", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return outcomes, False


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f}%)" if n else "0/0"


def _versions() -> str:
    """The tools' versions, one line each (first line of ``--version``)."""
    out = []
    for tool in (["cmake", "--version"], ["ninja", "--version"], ["make", "--version"], ["gcc", "--version"],
                 ["g++", "--version"], ["node", "--version"], ["valgrind", "--version"]):
        try:
            first = subprocess.run(tool, capture_output=True, text=True, timeout=30).stdout.splitlines()[:1]
        except (OSError, subprocess.SubprocessError):
            first = []
        out.append(f"{tool[0]} {first[0] if first else '(not found)'}")
    gtest = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libgtest-dev"], capture_output=True, text=True)
    out.append(f"libgtest-dev {gtest.stdout or '(not found)'}")
    out.append(f"python {sys.version.split()[0]}")
    return "; ".join(out)


def write(outcomes: list[Outcome], args: argparse.Namespace, projects: list[Project], wall_s: float,
          cut: bool) -> None:
    n = len(outcomes)

    def top(k: int, after: bool) -> int:
        return sum(1 for o in outcomes if (r := o.rank_after if after else o.rank) and r <= k)

    def spectrum_top(k: int) -> int:
        return sum(1 for o in outcomes if o.rank_spectrum and o.rank_spectrum <= k)

    med = statistics.median
    trials = [o.trial_median_s for o in outcomes if o.trial_median_s]
    command = (f"python bench/bench_native_fix.py --project {args.project} --faults {args.faults} --seed {args.seed}"
               + (f" --fault-list {args.fault_list}" if args.fault_list else "")
               + (f" --seeder {args.seeder}" if args.seeder != "ours" else "")
               + (f" --max-minutes {args.max_minutes:g}" if args.max_minutes else "")
               + (" --debug-info" if args.debug_info else ""))
    lines = [
        "# Native search on C/C++ and JS test failures (development set)",
        "",
        f"`{command}`: " + "; ".join(p.about for p in projects) + f". One seeded one-token fault at a time; {n} "
        "faults the suites detect" + (" (the time limit cut the list short)" if cut else "") + ".",
        "",
        "| | default run | with the search |",
        "|---|---|---|",
        f"| localization top-1 | {_pct(top(1, False), n)} | {_pct(top(1, True), n)} |",
        f"| localization top-3 | {_pct(top(3, False), n)} | {_pct(top(3, True), n)} |",
        f"| localization top-5 | {_pct(top(5, False), n)} | {_pct(top(5, True), n)} |",
        f"| after the spectrum, before the first mutant: top-1 / top-3 | | {_pct(spectrum_top(1), n)} / "
        f"{_pct(spectrum_top(3), n)} |",
        f"| top candidate validated | | {_pct(sum(o.top_validated for o in outcomes), n)} |",
        f"| top candidate: all tests pass | | {_pct(sum(o.passes for o in outcomes), n)} |",
        f"| top candidate: original restored exactly | | {_pct(sum(o.exact for o in outcomes), n)} |",
        "",
        f"Wall time, medians: plain test run {med([o.plain_s for o in outcomes]):.3f} s, `whetstone run` "
        f"{med([o.run_s for o in outcomes]):.3f} s, `whetstone run --search` {med([o.search_s for o in outcomes]):.3f} s; "
        f"median cost per mutant {med(trials):.3f} s." if n and trials else "",
        "",
        f"Bench wall time {wall_s / 60:.1f} min. Tools: {_versions()}.",
        "",
        "| project | function | fault | rank | rank after search | validated | passes | exact | search s | mutants "
        "| s per mutant | stopped | the faulty function |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        per = f"{o.trial_median_s:.2f}" if o.trial_median_s else ""
        lines.append(f"| {o.fault.rel.split('/')[-1]} | `{o.fault.qualname}` | {o.fault.kind} | {o.rank} | "
                     f"{o.rank_after} | {o.top_validated} | {o.passes} | {o.exact} | {o.search_s:.1f} | {o.trials} "
                     f"| {per} | {o.stopped} | {o.miss} |")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:19]))


if __name__ == "__main__":
    main()
