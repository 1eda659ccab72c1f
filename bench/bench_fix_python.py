#!/usr/bin/env python3
"""`whetstone fix` on seeded single faults in real Python libraries (issue 4, Python proof).

Downloads sdists that ship their tests (more-itertools, toolz) into bench/_work/fix_python/
(never committed) and runs everything in copies under the system temp directory, so no
conftest/pyproject of this repository is picked up.  Faults are seeded deterministically
(``--seed``): operator swaps, off-by-one on constants and range/slice bounds, negation
toggles, wrong constants, misspelled names, removed imports -- only on lines the suite
covers (coverage.py, one run per library), and a mutant is kept only when the whole suite
then has at least one failing test (no collection error, no hang); surviving mutants,
equivalent ones included, are discarded.

For each kept fault, in a fresh copy of the library:
  python -m pytest_whetstone fix --test "<python> -m pytest -p whetstone -x -q <failing module(s)>
         --whetstone-search-budget B" --max-attempts 4
then the WHOLE suite is run.  Measured:
  (a) suite passes and every source file is byte-equal to the original;
  (b) a validated candidate exists after the first `pytest -p whetstone` run (the session
      folded up to the first `candidates` event, i.e. what `load_session(...).state().candidates`
      shows after one run), and whether one of them restores the original bytes;
  (c) fix attempts (candidates applied) and wall time per fault.

    python bench/bench_fix_python.py [--per-kind 5] [--seed 11] [--budget 30] [--limit N]
    python bench/bench_fix_python.py --corpus-only

Entry-point plugin autoloading is off in every run (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, the
plugin is loaded by ``-p whetstone``): the libraries need none, and it halves pytest startup
on this machine.  Rows go to bench/_work/fix_python/rows.jsonl as they finish; the report
(bench/results/fix_python.md) is rewritten after each fault, so a cut-short run still reports.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fix_python_report import write_results  # bench/ is on sys.path when run as a script
from fix_python_sites import KINDS, _Sites
from sdist_suite import fetch_sdist

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work" / "fix_python"
RESULTS = HERE / "results" / "fix_python.md"
TMP = Path(tempfile.gettempdir()) / "whetstone-bench-fixpy"
PY = sys.executable

LIBS = {
    # name: (pip spec, extracted dir, package dir, extra source dirs to skip)
    "more-itertools": ("more-itertools==10.5.0", "more-itertools-10.5.0", "more_itertools"),
    "toolz": ("toolz==1.0.0", "toolz-1.0.0", "toolz"),
}
SUITE_TIMEOUT = 120.0
FIX_TIMEOUT = 420.0


def base_env() -> dict[str, str]:
    env = dict(os.environ)
    for key in ("WHETSTONE_SESSION", "WHETSTONE_DIR", "PYTEST_ADDOPTS", "WHETSTONE_PYTEST", "COVERAGE_PROCESS_START"):
        env.pop(key, None)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a stale .pyc of the same size and mtime would hide a mutant
    return env


# --------------------------------------------------------------------------- libraries


def prepare(lib: str) -> Path:
    """The pristine library in TMP (downloaded into WORK on first use)."""
    spec, dirname, _pkg = LIBS[lib]
    src = fetch_sdist(spec, dirname, WORK, PY)
    pristine = TMP / "pristine" / dirname
    if not pristine.is_dir():
        pristine.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, pristine, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache"))
    return pristine


def source_files(root: Path, pkg: str) -> list[str]:
    out = []
    for path in sorted((root / pkg).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "/tests/" in rel or path.name.startswith("test_") or path.name in ("_version.py", "conftest.py"):
            continue
        out.append(rel)
    return out


@dataclass
class SuiteRun:
    rc: int
    seconds: float
    failed: list[str]  # node-ish ids "file::name"
    modules: list[str]
    timed_out: bool = False


def run_suite(root: Path, targets: list[str] | None = None, *, stop_first: bool = False,
              timeout: float = SUITE_TIMEOUT) -> SuiteRun:
    junit = root / ".bench-junit.xml"
    junit.unlink(missing_ok=True)
    argv = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1",
            "--junitxml", str(junit), *(["-x"] if stop_first else []), *(targets or [])]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(argv, cwd=root, env=base_env(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return SuiteRun(-1, time.perf_counter() - t0, [], [], timed_out=True)
    seconds = time.perf_counter() - t0
    failed: list[str] = []
    modules: set[str] = set()
    try:
        tree = ET.parse(junit).getroot()
        for case in tree.iter("testcase"):
            if any(child.tag in ("failure", "error") for child in case):
                file = case.get("file", "")
                failed.append(f"{file}::{case.get('name', '')}")
                if file:
                    modules.add(file)
    except (OSError, ET.ParseError):
        pass
    junit.unlink(missing_ok=True)
    return SuiteRun(proc.returncode, seconds, failed, sorted(modules))


def covered_lines(root: Path, pkg: str) -> dict[str, set[int]]:
    """{relative source path: executed lines} for one plain run of the suite under coverage."""
    data_file = TMP / f"coverage-{root.name}"
    data_file.unlink(missing_ok=True)
    subprocess.run([PY, "-m", "coverage", "run", f"--data-file={data_file}", f"--source={pkg}", "-m", "pytest",
                    "-q", "-p", "no:cacheprovider"], cwd=root, env=base_env(), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600, check=False)
    import coverage

    data = coverage.CoverageData(basename=str(data_file))
    data.read()
    out: dict[str, set[int]] = {}
    for file in data.measured_files():
        try:
            rel = Path(file).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
        out[rel] = set(data.lines(file) or [])
    return out


# --------------------------------------------------------------------------- mutation sites


@dataclass
class Fault:
    fault_id: str
    lib: str
    file: str
    line: int
    kind: str
    subkind: str
    start: int  # byte offsets into the file
    end: int
    old: str
    new: str
    failing_modules: list[str] = field(default_factory=list)
    failing_tests: int = 0


def build_corpus(per_kind: int, seed: int, max_tries: int, kinds: tuple[str, ...] | None = None) -> list[Fault]:
    # read at call time: bench_heldout_python.py rebinds this module's KINDS to the held-out kinds
    tag = "" if kinds is None or kinds == KINDS else "-" + "-".join(kinds)
    kinds = KINDS if kinds is None else kinds
    cache = WORK / f"corpus-s{seed}-k{per_kind}{tag}.json"
    if cache.exists():
        return [Fault(**f) for f in json.loads(cache.read_text())]
    faults: list[Fault] = []
    probes_path = WORK / f"probes-s{seed}.json"  # kill-check results, so an interrupted build resumes
    probes: dict[str, list] = json.loads(probes_path.read_text()) if probes_path.exists() else {}
    for lib, (_spec, _dirname, pkg) in LIBS.items():
        root = prepare(lib)
        clean = run_suite(root)
        if clean.rc != 0:
            raise SystemExit(f"{lib}: the unmodified suite does not pass (rc {clean.rc}, {clean.failed[:3]})")
        print(f"{lib}: clean suite passes in {clean.seconds:.1f}s; measuring coverage", flush=True)
        cov = covered_lines(root, pkg)
        sites: dict[str, list[tuple[str, str, int, int, int, tuple[str, ...]]]] = {k: [] for k in kinds}
        for rel in source_files(root, pkg):
            data = (root / rel).read_bytes()
            per_file = _Sites(lib, rel, data, cov.get(rel, set())).collect()
            for kind, rows in per_file.items():
                if kind in sites:
                    sites[kind].extend((rel, *row) for row in rows)
        probe = TMP / "probe" / root.name
        shutil.rmtree(probe, ignore_errors=True)
        shutil.copytree(root, probe)
        for kind in kinds:
            rng = random.Random(f"{seed}:{lib}:{kind}")
            pool = sorted(sites[kind])
            rng.shuffle(pool)
            kept = tried = 0
            for rel, sub, line, a, b, news in pool:
                if kept >= per_kind or tried >= max_tries:
                    break
                new = rng.choice(list(news))
                path = probe / rel
                original = path.read_bytes()
                mutated = original[:a] + new.encode() + original[b:]
                try:
                    ast.parse(mutated)
                except SyntaxError:
                    continue
                tried += 1
                key = f"{lib}|{rel}|{a}|{b}|{new}"
                if key not in probes:
                    path.write_bytes(mutated)
                    try:
                        run = run_suite(probe, timeout=max(30.0, 4 * clean.seconds))
                    finally:
                        path.write_bytes(original)
                    verdict = "killed" if run.rc == 1 and run.failed else (
                        "timeout" if run.timed_out else "survived" if run.rc == 0 else f"rc{run.rc}")
                    probes[key] = [verdict, run.modules, len(run.failed)]
                    probes_path.write_text(json.dumps(probes))
                    print(f"  {lib} {kind:<16} {rel}:{line} {original[a:b].decode()[:30]!r} -> {new[:30]!r}: "
                          f"{verdict} ({len(run.failed)} failing, {run.seconds:.1f}s)", flush=True)
                verdict, modules, n_failed = probes[key]
                if verdict != "killed":
                    continue
                kept += 1
                faults.append(Fault(f"{lib}-{kind}-{kept}", lib, rel, line, kind, sub, a, b,
                                    original[a:b].decode(), new, modules, n_failed))
        shutil.rmtree(probe, ignore_errors=True)
    cache.write_text(json.dumps([asdict(f) for f in faults], indent=1))
    return faults


# --------------------------------------------------------------------------- one fault


def plugin_budget_args(budget: float) -> list[str]:
    """How the plugin takes the search budget (checked in its source, so a rename shows up: the options
    live in plugin/options.py; reading only plugin/__init__.py once made ``--budget`` a silent no-op)."""
    plugin = REPO / "pytest_whetstone" / "plugin"
    text = "".join(p.read_text() for p in sorted(plugin.glob("*.py")))
    if "--whetstone-search-budget" in text:
        return ["--whetstone-search-budget", str(budget)]
    if "whetstone_search_budget" in text:
        return ["-o", f"whetstone_search_budget={budget}"]
    return []


def apply_edits(text: bytes, edits: list[dict]) -> bytes | None:
    """Apply a candidate's TextEdits (1-based line/col, col in characters) to one file's text."""
    s = text.decode("utf-8")
    lines = s.split("\n")
    spans = []
    for e in edits:
        def off(p: dict) -> int:
            return sum(len(x) + 1 for x in lines[: p["line"] - 1]) + p["col"] - 1
        spans.append((off(e["start"]), off(e["end"]), e.get("new_text", "")))
    for a, b, new in sorted(spans, reverse=True):
        if a < 0 or b > len(s):
            return None
        s = s[:a] + new + s[b:]
    return s.encode("utf-8")


def run_fault(fault: Fault, budget: float) -> dict:
    from pytest_whetstone.orchestrate.state import loop_fold
    from pytest_whetstone.store.fold import fold
    from pytest_whetstone.store.sessions import load_session

    pristine = prepare(fault.lib)
    ws = TMP / "runs" / fault.fault_id
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(pristine, ws)
    original = (pristine / fault.file).read_bytes()
    mutated = original[: fault.start] + fault.new.encode() + original[fault.end:]
    (ws / fault.file).write_bytes(mutated)
    store = ws / ".whetstone"
    env = base_env()
    env["WHETSTONE_DIR"] = str(store)
    search_log = TMP / "runs" / f"{fault.fault_id}.search.jsonl"
    search_log.unlink(missing_ok=True)
    env["WHETSTONE_SEARCH_LOG"] = str(search_log)  # SearchStats of every search run, one JSON line each
    test_cmd = " ".join([shlex.quote(PY), "-m", "pytest", "-p", "whetstone", "-x", "-q",
                         *map(shlex.quote, fault.failing_modules), *plugin_budget_args(budget)])
    argv = [PY, "-m", "pytest_whetstone", "fix", "--test", test_cmd, "--max-attempts", "4"]
    t0 = time.perf_counter()
    timed_out = False
    try:
        proc = subprocess.run(argv, cwd=ws, env=env, capture_output=True, text=True, timeout=FIX_TIMEOUT, check=False)
        out, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out, rc, timed_out = str(exc.stdout or ""), -1, True
    wall = time.perf_counter() - t0
    row: dict = {**asdict(fault), "rc": rc, "wall_s": round(wall, 2), "fix_timed_out": timed_out}
    try:
        row["search"] = [json.loads(x) for x in search_log.read_text().splitlines() if x.strip()]
    except (OSError, ValueError):
        row["search"] = []
    search_log.unlink(missing_ok=True)
    sid = re.search(r"whetstone fix: (?:session|resuming session) (\S+)", out)
    row.update(attempts=None, converged=False, validated_first=False, validated_true_fix=False,
               candidates_first=0, top_first="", applied=[])
    if sid:
        session = load_session(store, sid.group(1))
        events = session.events()
        state = loop_fold(events)
        row["converged"] = state.status == "converged"
        row["attempts"] = state.fix_attempts
        row["applied"] = [f"{a.candidate_id}:{a.status}:{a.description[:80]}" for a in state.attempts]
        first = next((i for i, e in enumerate(events) if e.get("event") == "candidates"), None)
        if first is not None:
            cands = fold(events[: first + 1]).candidates
            row["candidates_first"] = len(cands)
            row["top_first"] = f"{cands[0].source}/{cands[0].mutation_type}: {cands[0].description[:90]}" if cands else ""
            valid = [c for c in cands if c.validated]
            row["validated_first"] = bool(valid)
            for c in valid:
                if all(e.file_path == fault.file for e in c.edits):
                    fixed = apply_edits(mutated, [e.to_dict() for e in c.edits])
                    if fixed == original:
                        row["validated_true_fix"] = True
    suite = run_suite(ws)
    row["suite_passes"] = suite.rc == 0
    row["suite_failed"] = len(suite.failed)
    row["byte_equal"] = all((ws / rel).read_bytes() == (pristine / rel).read_bytes()
                            for rel in source_files(pristine, LIBS[fault.lib][2]))
    row["success"] = row["suite_passes"] and row["byte_equal"]
    row["tail"] = "\n".join(out.strip().splitlines()[-12:])
    if sid:  # keep the session for a look afterwards; the copy itself goes
        keep = WORK / "sessions"
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(store / "sessions" / f"{sid.group(1)}.jsonl", keep / f"{fault.fault_id}.jsonl")
    shutil.rmtree(ws, ignore_errors=True)
    return row


# --------------------------------------------------------------------------- report


def _first_failing_node(root: Path, modules: list[str]) -> str:
    """The node id of the first failing test (junit xunit1 file + classname + name)."""
    junit = root / ".cost-junit.xml"
    subprocess.run([PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-o", "junit_family=xunit1",
                    "--junitxml", str(junit), *modules], cwd=root, env=base_env(), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=SUITE_TIMEOUT, check=False)
    for case in ET.parse(junit).getroot().iter("testcase"):
        if any(child.tag in ("failure", "error") for child in case):
            file = case.get("file", "")
            module = file.removesuffix(".py").replace("/", ".")
            inner = case.get("classname", "")[len(module) + 1:]
            return "::".join([file, *([inner] if inner else []), case.get("name", "")])
    raise SystemExit("no failing test")


def measure_cost(corpus: list[Fault], repeats: int = 5) -> int:
    """Per-mutant cost of the search's filter run: a fresh `python -m pytest` on the failing test
    (the old way, and the fallback) against a fork of the worker with the function patched in.
    Same fault, same node id, runs interleaved; medians."""
    sys.path.insert(0, str(REPO))
    from pytest_whetstone.candidates.forkrun import ForkWorker
    from pytest_whetstone.candidates.scratch_run import pytest_argv as _pytest_argv
    from pytest_whetstone.candidates.scratch_run import search_env as _search_env

    lines = ["", f"## Per-mutant cost (`--measure-cost`, {time.strftime('%Y-%m-%d')}, median of {repeats}, interleaved)", "",
             "| library | fault | failing test | subprocess run (s) | fork run (s) | ratio | worker start (s) |",
             "|---|---|---|---|---|---|---|"]
    for lib in LIBS:
        fault = next(f for f in corpus if f.lib == lib and f.kind == "operator")
        ws = TMP / "cost" / lib
        shutil.rmtree(ws, ignore_errors=True)
        shutil.copytree(prepare(lib), ws)
        original = (ws / fault.file).read_bytes()
        mutated = original[: fault.start] + fault.new.encode() + original[fault.end:]
        (ws / fault.file).write_bytes(mutated)
        node = _first_failing_node(ws, fault.failing_modules)
        env = _search_env(ws)
        worker = ForkWorker(ws, PY, env, [node.split("::")[0]])
        if not worker.start(120):
            raise SystemExit(f"{lib}: the fork worker did not start")
        patch = {"file": str(ws / fault.file), "source": original.decode(), "start": fault.line, "end": fault.line}
        slow: list[float] = []
        fast: list[float] = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            subprocess.run(_pytest_argv(PY, ws / "j1.xml", [node]), cwd=ws, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            slow.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            reply = worker.run([node], ws / "j2.xml", 60, patch)
            fast.append(time.perf_counter() - t0)
            assert reply.get("status") == "ok", reply
        worker.close()
        a, b = statistics.median(slow), statistics.median(fast)
        lines.append(f"| {lib} | {fault.fault_id} | `{node}` | {a:.2f} | {b:.2f} | {a / b:.1f}x | {worker.ready_s:.2f} |")
        shutil.rmtree(ws, ignore_errors=True)
    print("\n".join(lines))
    (WORK / "cost.md").write_text("\n".join(lines) + "\n")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--per-kind", type=int, default=5, help="kept faults per library and mutation kind")
    ap.add_argument("--max-tries", type=int, default=25, help="mutants tried per library and kind")
    ap.add_argument("--budget", type=float, default=30.0, help="--whetstone-search-budget seconds")
    ap.add_argument("--limit", type=int, default=0, help="measure only the first N faults (spread over kinds)")
    ap.add_argument("--corpus-only", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated fault ids")
    ap.add_argument("--out", default="", help="results file (default bench/results/fix_python.md); e.g. a held-out seed")
    ap.add_argument("--note", default="", help="a note on the machine for the report (e.g. what else ran)")
    ap.add_argument("--kinds", default="", help="comma-separated fault kinds (default: the development kinds; "
                    "any of fix_python_sites.HELDOUT_KINDS too, e.g. wrong-return,swapped-args,except-type)")
    ap.add_argument("--measure-cost", action="store_true",
                    help="only measure the per-mutant cost: fresh subprocess vs fork worker, one fault per library")
    args = ap.parse_args()
    TMP.mkdir(parents=True, exist_ok=True)
    kinds = tuple(args.kinds.split(",")) if args.kinds else KINDS
    corpus = build_corpus(args.per_kind, args.seed, args.max_tries, kinds if args.kinds else None)
    print(f"corpus: {len(corpus)} faults", flush=True)
    if args.corpus_only:
        return 0
    if args.measure_cost:
        return measure_cost(corpus)
    chosen = corpus
    if args.only:
        wanted = set(args.only.split(","))
        chosen = [f for f in corpus if f.fault_id in wanted]
    elif args.limit:  # round-robin over (lib, kind) so a subset still covers every kind
        by_group: dict[tuple[str, str], list[Fault]] = {}
        for f in corpus:
            by_group.setdefault((f.lib, f.kind), []).append(f)
        order = [f for i in range(args.per_kind) for g in by_group.values() if i < len(g) for f in [g[i]]]
        chosen = order[: args.limit]
    budget_args = plugin_budget_args(args.budget)
    if not budget_args:
        print("warning: the plugin exposes no search budget option; running without one", flush=True)
    rows_path = WORK / "rows.jsonl"
    rows: list[dict] = []
    rows_path.write_text("")
    for i, fault in enumerate(chosen, 1):
        row = run_fault(fault, args.budget)
        rows.append(row)
        with rows_path.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        print(f"[{i}/{len(chosen)}] {fault.fault_id} {fault.file}:{fault.line} {fault.old!r}->{fault.new!r}: "
              f"{'FIXED' if row['success'] else 'suite ' + ('pass' if row['suite_passes'] else 'fail')} "
              f"validated_first={row['validated_first']} attempts={row['attempts']} {row['wall_s']}s", flush=True)
        write_results(rows, args, corpus, budget_args, LIBS, kinds, Path(args.out) if args.out else RESULTS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
