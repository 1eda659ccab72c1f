"""A failing test command run plain and through `whetstone run`, on the development projects.

The projects of bench/native_fix_projects.py (exprcalc: CMake + ctest; textkit: node --test; jsonnet:
CMake + ctest over its own GoogleTest files; hiredis: a Makefile's ``make check``) and the Jest fixture
tests/fixtures/native_projects/jest_cart, each laid out in a scratch directory, configured, built
through ccwrap and given one seeded fault (the first of the project's sample, seed 7, that its tests
detect), then timed: the plain test command and ``python -m pytest_whetstone run -- <command>``,
interleaved run by run, bytecode cached first.  Prints medians, the median of the per-pair ratios and
the added seconds; then, from the same number of runs with the command between two clock stamps,
`whetstone run`'s own time before the command started and after it ended, and the added CPU seconds
(user + system of everything waited for, less the plain command's).  ``--compare-tree`` times another
checkout the same way, in the same rounds.

    python bench/bench_run_tests.py [--runs 7] [--projects exprcalc,textkit,...] [--compare-tree DIR]
        [--keep DIR] [--out bench/results/run_tests.md]

``--keep DIR`` lays the projects out in DIR (kept, and reused when already there: a second call skips
the build) so a run can be profiled or its session compared by hand.  Jest is installed into the
scratch copy with npm (``jest@29``); without network or cache that project is skipped.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
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

from bench_native_fix import Fault, _env, faults  # noqa: E402
from native_fix_projects import PROJECTS, Project, materialize  # noqa: E402

from pytest_whetstone.edits import apply_edits_text  # noqa: E402
from pytest_whetstone.process import run_bounded  # noqa: E402

JEST = Project("jest_cart", ["src/cart.js"], None, ["npx", "--no-install", "jest", "--ci"],
               about="tests/fixtures/native_projects/jest_cart (JS, Jest 29, two seeded faults of its own)")
FAULT_LISTS = {"jsonnet": HERE / "results" / "native_fix_jsonnet_faults.json",
               "hiredis": HERE / "results" / "native_fix_hiredis_faults.json"}
FAULT_COUNT = {"jsonnet": 16, "hiredis": 8}


@dataclass
class Prepared:
    project: Project
    proj: Path
    env: dict[str, str]
    fault: str


def _sh(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def _builds(project: Project, proj: Path, env: dict[str, str]) -> bool:
    return project.build is None or _sh(project.build, proj, env).returncode == 0


def _fails(project: Project, proj: Path, env: dict[str, str]) -> bool:
    code, _out = run_bounded(project.test, proj, 60, env)
    return code not in (None, 0)


def _seed(project: Project, proj: Path, env: dict[str, str]) -> str:
    """Seed the first sampled fault the tests detect; its description (the tree is left faulty and built)."""
    name = project.name
    for fault in faults(proj, project, FAULT_COUNT.get(name, 8), 7, str(FAULT_LISTS.get(name, ""))):
        path = proj / fault.rel
        original = path.read_text()
        path.write_text(apply_edits_text(original, [fault.edit]))
        if _builds(project, proj, env) and _fails(project, proj, env):
            return _describe(fault)
        path.write_text(original)
    raise SystemExit(f"{name}: no sampled fault is detected")


def _describe(fault: Fault) -> str:
    return f"{fault.description} ({fault.kind})"


def prepare(name: str, root: Path) -> Prepared | None:
    if name == JEST.name:
        return _prepare_jest(root)
    project = PROJECTS[name]
    proj = root / name
    env = _env(proj, project)
    marker = proj / ".bench-fault"
    if marker.exists():
        return Prepared(project, proj, env, marker.read_text())
    if proj.exists():
        shutil.rmtree(proj)
    materialize(project, proj)
    if project.configure:
        _sh(project.configure, proj, env)
    assert _builds(project, proj, env), f"{name} does not build"
    assert not _fails(project, proj, env), f"{name}: the tests fail before any fault"
    fault = _seed(project, proj, env)
    marker.write_text(fault)
    return Prepared(project, proj, env, fault)


def _prepare_jest(root: Path) -> Prepared | None:
    proj = root / JEST.name
    env = _env(proj, JEST)
    if not (proj / "node_modules" / ".bin" / "jest").exists():
        if not proj.exists():
            shutil.copytree(REPO / "tests" / "fixtures" / "native_projects" / "jest_cart", proj)
        got = _sh(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefer-offline", "jest@29"], proj, env)
        if got.returncode != 0:
            print(f"jest_cart skipped: npm install jest@29 failed ({got.stderr.strip()[-200:]})", file=sys.stderr)
            return None
    if not _fails(JEST, proj, env):
        return None
    return Prepared(JEST, proj, env, "the fixture's own two faults")


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _time(cmd: list[str], cwd: Path, env: dict[str, str], cpu: list[float] | None = None) -> float:
    """Wall seconds of the command; its CPU seconds (with every process it waited for) appended to ``cpu``."""
    start, used = time.perf_counter(), _cpu()
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    if cpu is not None:
        cpu.append(_cpu() - used)
    return time.perf_counter() - start


def _stamped(cmd: list[str], stamps: Path) -> list[str]:
    """The command between two clock readings written to ``stamps`` (when it started, when it ended)."""
    quoted = " ".join(shlex.quote(a) for a in cmd)
    return ["sh", "-c", f"date +%s.%N > {stamps}; {quoted}; rc=$?; date +%s.%N >> {stamps}; exit $rc"]


def _split(cmd: list[str], cwd: Path, env: dict[str, str], stamps: Path) -> tuple[float, float]:
    """`whetstone run` of the stamped command: (seconds before the command started, seconds after it ended)."""
    start = time.time()
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    end = time.time()
    began, ended = (float(x) for x in stamps.read_text().split())
    return began - start, end - ended


def _tree_env(env: dict[str, str], tree: Path) -> dict[str, str]:
    out = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out["PYTHONPATH"] = str(tree)
    return out


def measure(prep: Prepared, trees: dict[str, Path], runs: int) -> dict[str, list[float]]:
    cmd = prep.project.test
    wrapped = [sys.executable, "-m", "pytest_whetstone", "run", "--", *cmd]
    envs = {t: _tree_env(prep.env, tree) for t, tree in trees.items()}
    for t in trees:  # warm-up: bytecode written, the store and the build's caches filled
        _time(wrapped, prep.proj, envs[t])
    times: dict[str, list[float]] = {"plain": [], "plain cpu": []} | {t: [] for t in trees} | {f"{t} cpu": [] for t in trees}
    for _ in range(runs):
        times["plain"].append(_time(cmd, prep.proj, prep.env, times["plain cpu"]))
        for t in trees:
            times[t].append(_time(wrapped, prep.proj, envs[t], times[f"{t} cpu"]))
    stamps = Path(tempfile.mkdtemp(prefix="whetstone-stamps-")) / "t"
    stamped = [sys.executable, "-m", "pytest_whetstone", "run", "--", *_stamped(cmd, stamps)]
    for _ in range(runs):
        for t in trees:
            before, after = _split(stamped, prep.proj, envs[t], stamps)
            times.setdefault(f"{t} before", []).append(before)
            times.setdefault(f"{t} after", []).append(after)
    shutil.rmtree(stamps.parent, ignore_errors=True)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--projects", default="exprcalc,textkit,jsonnet,hiredis,jest_cart")
    parser.add_argument("--compare-tree", type=Path, default=None, help="another checkout to time the same way")
    parser.add_argument("--keep", type=Path, default=None, help="lay the projects out here and keep them")
    parser.add_argument("--out", type=Path, default=None, help="write the table here too")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="whetstone-bench-run-tests-"))
    root.mkdir(parents=True, exist_ok=True)
    trees = {"this tree": REPO} | ({"compared tree": args.compare_tree} if args.compare_tree else {})
    head = ("| project | failing command | plain | " + " | ".join(f"`whetstone run`, {t}" for t in trees)
            + " | ratio to plain | added |" + (" compared tree: ratio to plain | added |" if args.compare_tree else "")
            + "".join(f" {t}: before the command / after it | {t}: added CPU |" for t in trees))
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    print("\n".join(lines), flush=True)
    faults_seeded: list[str] = []
    try:
        for name in args.projects.split(","):
            prep = prepare(name, root)
            if prep is None:
                continue
            faults_seeded.append(f"{name}: {prep.fault}")
            times = measure(prep, trees, args.runs)
            med = {k: statistics.median(v) for k, v in times.items()}
            row = (f"| {name} | `{' '.join(prep.project.test)}` | {med['plain']:.3f} s | "
                   + " | ".join(f"{med[t]:.3f} s" for t in trees) + " |")
            for t in trees:
                ratio = statistics.median(a / b for a, b in zip(times[t], times["plain"], strict=True))
                added = statistics.median(a - b for a, b in zip(times[t], times["plain"], strict=True))
                row += f" {ratio:.2f}x | {added:+.3f} s |"
            for t in trees:
                row += f" {statistics.median(times[t + ' before']):.3f} / {statistics.median(times[t + ' after']):.3f} s |"
                cpu = statistics.median(a - b for a, b in zip(times[f"{t} cpu"], times["plain cpu"], strict=True))
                row += f" {cpu:+.3f} s |"
            lines.append(row)
            print(row, flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    if args.out:
        command = f"python bench/bench_run_tests.py --runs {args.runs} --projects {args.projects}"
        if args.compare_tree:
            command += " --compare-tree <checkout>"
        text = ["# `whetstone run` of a failing test command against the plain command", "",
                f"`{command}`: 2 cores shared with other work; medians of {args.runs} interleaved whole-process "
                "runs after one warm-up each; ratio and added time are medians of the per-round pairs. Before / after: "
                "the same runs again with the command between two clock readings, `whetstone run`'s own time before the "
                "command started and after it ended (medians). Added CPU: user + system seconds of `whetstone run` and "
                "everything it waited for, less the plain command's, median of the per-round pairs (what load does "
                "not blur).", "",
                *lines, "", "Seeded faults: " + "; ".join(faults_seeded) + ".", "",
                f"Load average at the end: {os.getloadavg()[0]:.1f}."]
        args.out.write_text("\n".join(text) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
