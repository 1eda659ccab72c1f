"""Development bench: C++ and JS test failures located and fixed by the native mutant search (by hand).

    python bench/bench_native_fix.py [--project exprcalc|textkit|all] [--faults N] [--seed S] [--out FILE]

Two development projects in bench/native_dev/, copied into a scratch directory:

* exprcalc (C++): a tokenizer, a shunting-yard parser and an evaluator that calls both, a formatter;
  CMake + Ninja through ccwrap, a static library, three gtest binaries under ctest;
* textkit (JS): a package whose ``main`` exports one anonymous function over helpers in another
  module, tested with ``node --test`` through ``require('../')``.

Faults are one-token slips seeded inside the library functions (a seeded sample); those the suite
does not detect are dropped.  For each fault:

* ``whetstone run -- ctest``: the faulty function's rank among the first failure's suspects;
* ``whetstone run --search -- ctest``: its rank after the mutants re-ranked them, and whether the
  top candidate, applied with ``whetstone apply`` and rebuilt, makes every test pass and restores
  the original bytes;
* wall times: the plain ctest run, the default ``whetstone run`` and the search run.

This is the development set: the held-out figures come from bench/bench_native_heldout_cxx.py.
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

from pytest_whetstone.candidates.native_mutants import mutants_in  # noqa: E402
from pytest_whetstone.edits import apply_edits_text  # noqa: E402
from pytest_whetstone.locate import cfamily, jsfamily  # noqa: E402
from pytest_whetstone.process import run_bounded  # noqa: E402


@dataclass
class Project:
    name: str
    lib: list[str]
    build: list[str] | None
    test: list[str]
    configure: list[str] | None = None


PROJECTS = {
    "exprcalc": Project("exprcalc", ["src/tokenizer.cc", "src/parser.cc", "src/evaluator.cc", "src/format.cc"],
                        ["cmake", "--build", "build"], ["ctest", "--test-dir", "build", "--output-on-failure"],
                        ["cmake", "-S", ".", "-B", "build", "-G", "Ninja"]),
    "textkit": Project("textkit", ["lib/index.js", "lib/helpers.js"], None, ["node", "--test", "test/"]),
}
SEED_KINDS = {"cmp-boundary", "cmp-flip", "cmp-reverse", "remove-not", "off-by-one", "arith", "boolop",
              "bool-const", "swap-args", "int-const", "drop-one"}
BEGIN = "===WHETSTONE-RESULT==="


@dataclass
class Fault:
    rel: str
    qualname: str
    kind: str
    text: str  # the file's faulty text
    description: str


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


def _env(proj: Path) -> dict[str, str]:
    keep = {"WHETSTONE_SPECTRUM_S"}  # the execution spectrum's cap: 0 measures the search without it
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_") or k in keep}
    env.update(WHETSTONE_DIR=str(proj / ".whetstone"), CC="ccwrap", CXX="ccwrap++")
    return env


def _functions(rel: str, data: bytes) -> list[tuple[str, int, int]]:
    if rel.endswith(".js"):
        pj = jsfamily.parse_source(data)
        return [(f.qualname, f.line_start, f.line_end) for f in jsfamily.functions_in(pj, rel)]
    pf = cfamily.parse_source(data, "cpp")
    return [(f.qualname, f.line_start, f.line_end) for f in cfamily.functions_in(pf, rel)]


def faults(proj: Path, project: Project, n: int, seed: int) -> list[Fault]:
    rng = random.Random(seed)
    pool: list[Fault] = []
    for rel in project.lib:
        data = (proj / rel).read_bytes()
        for qualname, first, last in _functions(rel, data):
            mutants = [m for m in mutants_in(rel, data, first, last, qualname=qualname) if m.kind in SEED_KINDS]
            rng.shuffle(mutants)
            for m in mutants[:3]:
                text = apply_edits_text(data.decode(), [m.edit])
                pool.append(Fault(rel, qualname, m.kind, text, m.description))
    rng.shuffle(pool)
    return pool[: n * 2]  # some will not be detected


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


def measure(project: Project, proj: Path, fault: Fault, env: dict[str, str], original: bytes) -> Outcome | None:
    path = proj / fault.rel
    path.write_text(fault.text)
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
        _v, report, search_s = _whetstone(["run", "--search", "--", *test], proj, env)
        rank_after = _rank(report, fault)
        stats = _search_event(proj, report)
        cands = report.get("candidates") or []
        top = cands[0] if cands else None
        passes = exact = False
        if top and top.get("edits"):
            _sh([sys.executable, "-m", "pytest_whetstone", "apply", top["candidate_id"]], proj, env)
            passes = _builds(project, proj, env) and _sh(project.test, proj, env).returncode == 0
            exact = path.read_bytes() == original
        return Outcome(fault, rank, rank_after, bool(top and top.get("validated")), passes, exact, plain, run_s,
                       search_s, stats.get("trial_median_s"))
    finally:
        path.write_bytes(original)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--project", default="all", choices=[*PROJECTS, "all"])
    ap.add_argument("--faults", type=int, default=24, help="per project")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default=str(HERE / "results" / "native_fix.md"), help="bench/results/native_fix_<project>.md by convention")
    args = ap.parse_args()
    outcomes: list[Outcome] = []
    for name in (PROJECTS if args.project == "all" else [args.project]):
        outcomes += run_project(PROJECTS[name], args.faults, args.seed)
    write(outcomes, args)


def run_project(project: Project, n: int, seed: int) -> list[Outcome]:
    scratch = Path(tempfile.mkdtemp(prefix="bench-native-fix-"))
    proj = scratch / project.name
    shutil.copytree(HERE / "native_dev" / project.name, proj)
    env = _env(proj)
    if project.configure:
        _sh(project.configure, proj, env)
    assert _builds(project, proj, env)
    outcomes: list[Outcome] = []
    try:
        for fault in faults(proj, project, n, seed):
            if len(outcomes) >= n:
                break
            original = (proj / fault.rel).read_bytes()
            out = measure(project, proj, fault, env, original)
            _builds(project, proj, env)
            if out is not None:
                outcomes.append(out)
                print(f"{project.name:9} {fault.qualname:28} {fault.kind:13} rank {out.rank} -> {out.rank_after} "
                      f"passes={out.passes} exact={out.exact}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return outcomes


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f}%)" if n else "0/0"


def write(outcomes: list[Outcome], args: argparse.Namespace) -> None:
    n = len(outcomes)

    def top(k: int, after: bool) -> int:
        return sum(1 for o in outcomes if (o.rank_after if after else o.rank) and (o.rank_after if after else o.rank) <= k)

    med = statistics.median
    trials = [o.trial_median_s for o in outcomes if o.trial_median_s]
    lines = [
        "# Native search on C++ and JS test failures (development set)",
        "",
        f"`python bench/bench_native_fix.py --project {args.project} --faults {args.faults} --seed {args.seed}`: "
        "bench/native_dev/exprcalc (C++: CMake + Ninja through ccwrap, static library, three gtest binaries, ctest) "
        "and bench/native_dev/textkit (JS: an anonymous exported function over helpers, node --test); one seeded "
        f"one-token fault at a time; {n} faults the suites detect.",
        "",
        "| | default run | with the search |",
        "|---|---|---|",
        f"| localization top-1 | {_pct(top(1, False), n)} | {_pct(top(1, True), n)} |",
        f"| localization top-3 | {_pct(top(3, False), n)} | {_pct(top(3, True), n)} |",
        f"| localization top-5 | {_pct(top(5, False), n)} | {_pct(top(5, True), n)} |",
        f"| top candidate validated | | {_pct(sum(o.top_validated for o in outcomes), n)} |",
        f"| top candidate: all tests pass | | {_pct(sum(o.passes for o in outcomes), n)} |",
        f"| top candidate: original restored exactly | | {_pct(sum(o.exact for o in outcomes), n)} |",
        "",
        f"Wall time, medians: plain test run {med([o.plain_s for o in outcomes]):.3f} s, `whetstone run` "
        f"{med([o.run_s for o in outcomes]):.3f} s, `whetstone run --search` {med([o.search_s for o in outcomes]):.3f} s; "
        f"median cost per mutant {med(trials):.3f} s." if n and trials else "",
        "",
        "| function | fault | rank | rank after search | passes | exact |",
        "|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        lines.append(f"| `{o.fault.qualname}` | {o.fault.kind} | {o.rank} | {o.rank_after} | {o.passes} | {o.exact} |")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:14]))


if __name__ == "__main__":
    main()
