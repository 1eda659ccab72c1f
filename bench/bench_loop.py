"""Convergence of the orchestrated loop over the seeded-fault corpus of bench_fix_build (run by hand).

    python bench/bench_loop.py [--per-kind N] [--compilers gcc] [--max-attempts N]
    python bench/bench_loop.py --twice      # each fault seeded twice in a row: repository memory
    python bench/bench_loop.py --memory-scale  # memory cost per step with 20 / 200 / 1000 earlier sessions

Reuses bench_fix_build's real C projects (brotli from PyPI, LMDB from npm,
downloaded into bench/_work/) and its tree-sitter fault seeding.  For each
fault: write the mutated file, start a loop session with the project's real
`make` as the build phase, run ``FeedbackLoopOrchestrator.run_to_completion``
and record: converged (the build passes), fix attempts, steps, whether every
file is byte-identical to the original afterwards, and wall time.  The file
is restored after each fault.  Results: bench/results/loop.md.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_fix_build as corpus  # noqa: E402

from pytest_whetstone.orchestrate.loop import FeedbackLoopOrchestrator, start_loop  # noqa: E402
from pytest_whetstone.orchestrate.state import loop_fold  # noqa: E402
from pytest_whetstone.store.sessions import load_session  # noqa: E402


@dataclass
class Row:
    project: str
    cc: str
    kind: str
    what: str
    status: str
    reason: str
    attempts: int
    steps: int
    exact: bool
    seconds: float
    session_id: str = ""


@dataclass
class Memo:
    """What the second run of one fault did with the first run's memory."""

    first_applied_was_kept_before: bool  # run 2's first application is an edit set run 1 kept
    retried_reverted: int  # edit sets run 1 reverted that run 2 applied again
    kept_before: int


def run_one(project: corpus.Project, fault: corpus.Fault, cc: str, max_attempts: int,
            keep_store: bool = False) -> Row | None:
    path = project.root / fault.file
    store = project.root / ".whetstone"
    if not keep_store:
        shutil.rmtree(store, ignore_errors=True)
    os.environ["WHETSTONE_DIR"] = str(store)
    try:
        path.write_text(fault.mutated)
        code, _ = corpus.make(project, cc)
        if code == 0:
            return None
        t0 = time.monotonic()
        sid = start_loop(store, build="make -s", cwd=project.root, max_attempts=max_attempts).session_id
        result = FeedbackLoopOrchestrator(store).run_to_completion(sid, 300)
        seconds = time.monotonic() - t0
        state = loop_fold(load_session(store, sid).events())
        exact = path.read_text() == fault.original
        reason = result.escalation.escalation_reason if result.escalation else ""
        row = Row(project.name, cc, fault.kind, fault.what, result.final_status, reason, state.fix_attempts,
                  result.steps_taken, exact, seconds)
        row.session_id = sid
        return row
    finally:
        path.write_text(fault.original)
        (project.root / "Makefile").write_text(corpus._makefile_text[project.name, cc])
        os.environ.pop("WHETSTONE_DIR", None)


def _attempts(store: Path, sid: str) -> list[tuple[str, str]]:
    state = loop_fold(load_session(store, sid).events())
    return [(a.fingerprint, a.status) for a in state.attempts if a.judged]


def run_twice(project: corpus.Project, fault: corpus.Fault, cc: str, max_attempts: int) -> tuple[Row, Row, Memo] | None:
    """The same fault seeded twice in a row, the store kept between the runs (repository memory)."""
    first = run_one(project, fault, cc, max_attempts)
    if first is None:
        return None
    second = run_one(project, fault, cc, max_attempts, keep_store=True)
    if second is None:  # make found nothing to rebuild (a fault in the Makefile alone): no second run
        return None
    store = project.root / ".whetstone"
    before, after = _attempts(store, first.session_id), _attempts(store, second.session_id)
    kept = {f for f, status in before if status == "kept"}
    reverted = {f for f, status in before if status != "kept"} - kept
    memo = Memo(bool(after) and after[0][0] in kept, len([f for f, _ in after if f in reverted]), len(kept))
    return first, second, memo


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-kind", type=int, default=2)
    parser.add_argument("--compilers", default="gcc")
    parser.add_argument("--max-attempts", type=int, default=4)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--work", default="/tmp/whetstone-bench-loop",
                        help="private copy of the corpus (bench_fix_build may be mutating bench/_work)")
    parser.add_argument("--twice", action="store_true",
                        help="seed each fault twice in a row, keeping the store: repository memory, run 1 vs run 2")
    parser.add_argument("--memory-scale", action="store_true",
                        help="cost of the repository memory per loop step with 20 / 200 / 1000 earlier sessions")
    parser.add_argument("--twice-python", action="store_true",
                        help="the same, on bench_fix_python's seeded faults (real libraries, real pytest)")
    parser.add_argument("--budget", type=float, default=30.0, help="search budget for --twice-python")
    parser.add_argument("--limit", type=int, default=8, help="faults for --twice-python (spread over kinds)")
    args = parser.parse_args()
    if args.twice_python:
        return twice_python(args)
    if args.memory_scale:
        import bench_memory

        return bench_memory.main()
    private = Path(args.work)
    private.mkdir(parents=True, exist_ok=True)
    for archive in [*corpus.WORK.glob("brotli-*.tar.gz"), *corpus.WORK.glob("node-lmdb-*.tgz")]:
        if not (private / archive.name).exists():
            shutil.copy2(archive, private / archive.name)  # pristine sources, extracted by fetch()
    corpus.WORK = private
    projects = corpus.fetch()
    rows: list[Row] = []
    twice: list[tuple[Row, Row, Memo]] = []
    started = time.monotonic()
    for cc in args.compilers.split(","):
        for project in projects:
            corpus.write_makefile(project, cc)
            corpus._makefile_text[project.name, cc] = (project.root / "Makefile").read_text()
            code, out = corpus.make(project, cc)
            if code != 0:
                print(f"{project.name} does not build cleanly with {cc}:\n{out[-2000:]}")
                return 1
            per_kind: dict[str, int] = {}
            for fault in corpus.seed(project, random.Random(args.seed), args.per_kind):
                if per_kind.get(fault.kind, 0) >= args.per_kind:
                    continue
                if args.twice:
                    pair = run_twice(project, fault, cc, args.max_attempts)
                    if pair is None:
                        continue
                    per_kind[fault.kind] = per_kind.get(fault.kind, 0) + 1
                    twice.append(pair)
                    one, two, memo = pair
                    print(f"{cc:5} {project.name:7} {one.kind:22} run1 {one.status:9} attempts={one.attempts} "
                          f"steps={one.steps} {one.seconds:5.1f}s | run2 {two.status:9} attempts={two.attempts} "
                          f"steps={two.steps} {two.seconds:5.1f}s first-was-kept={memo.first_applied_was_kept_before} "
                          f"retried-reverted={memo.retried_reverted}", flush=True)
                    continue
                row = run_one(project, fault, cc, args.max_attempts)
                if row is None:
                    continue
                per_kind[fault.kind] = per_kind.get(fault.kind, 0) + 1
                rows.append(row)
                print(f"{cc:5} {project.name:7} {row.kind:22} {row.status:9} {row.reason:16} attempts={row.attempts} "
                      f"steps={row.steps} exact={row.exact!s:5} {row.seconds:5.1f}s  {row.what}", flush=True)
    if args.twice:
        write_twice_report(twice, time.monotonic() - started, args)
        return 0
    write_report(rows, time.monotonic() - started, args)
    return 0


def twice_python(args: argparse.Namespace) -> int:
    """Each of bench_fix_python's faults fixed by `whetstone fix` twice in a row in one copy (store kept)."""
    import json
    import re
    import subprocess

    import bench_fix_python as pyc

    pyc.TMP.mkdir(parents=True, exist_ok=True)
    corpus = pyc.build_corpus(args.per_kind, 11, 25)
    groups: dict[tuple[str, str], list[pyc.Fault]] = {}
    for f in corpus:
        groups.setdefault((f.lib, f.kind), []).append(f)
    chosen = [f for i in range(args.per_kind) for g in groups.values() if i < len(g) for f in [g[i]]][: args.limit]
    rows = []
    started = time.monotonic()
    for fault in chosen:
        pristine = pyc.prepare(fault.lib)
        ws = pyc.TMP / "twice" / fault.fault_id
        shutil.rmtree(ws, ignore_errors=True)
        shutil.copytree(pristine, ws)
        original = (pristine / fault.file).read_bytes()
        mutated = original[: fault.start] + fault.new.encode() + original[fault.end:]
        env = pyc.base_env()
        env["WHETSTONE_DIR"] = str(ws / ".whetstone")
        test_cmd = " ".join([shlex_quote(pyc.PY), "-m", "pytest", "-p", "whetstone", "-x", "-q",
                             *map(shlex_quote, fault.failing_modules), *pyc.plugin_budget_args(args.budget)])
        runs = []
        for _ in range(2):
            (ws / fault.file).write_bytes(mutated)
            t0 = time.monotonic()
            proc = subprocess.run([pyc.PY, "-m", "pytest_whetstone", "fix", "--test", test_cmd, "--max-attempts", "4"],
                                  cwd=ws, env=env, capture_output=True, text=True, timeout=pyc.FIX_TIMEOUT)
            seconds = time.monotonic() - t0
            sid = re.search(r"whetstone fix: session (\S+)", proc.stdout)
            state = loop_fold(load_session(ws / ".whetstone", sid.group(1)).events()) if sid else None
            runs.append({"status": state.status if state else "error", "steps": state.step_count if state else 0,
                         "attempts": state.fix_attempts if state else 0, "seconds": round(seconds, 2),
                         "tried": [(a.fingerprint, a.status) for a in state.attempts if a.judged] if state else []})
        one, two = runs
        kept = {f for f, st in one["tried"] if st == "kept"}
        reverted = {f for f, st in one["tried"] if st != "kept"} - kept
        row = {"fault": fault.fault_id, "kind": fault.kind, "run1": one, "run2": two,
               "first_was_kept": bool(two["tried"]) and two["tried"][0][0] in kept,
               "retried_reverted": len([f for f, _ in two["tried"] if f in reverted]), "kept_before": len(kept)}
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k not in ("run1", "run2")}),
              f"run1 {one['status']} steps={one['steps']} attempts={one['attempts']} {one['seconds']}s |",
              f"run2 {two['status']} steps={two['steps']} attempts={two['attempts']} {two['seconds']}s", flush=True)
        shutil.rmtree(ws, ignore_errors=True)
    write_twice_python_report(rows, time.monotonic() - started, args)
    return 0


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def write_twice_python_report(rows: list[dict], elapsed: float, args: argparse.Namespace) -> None:
    def total(run: str, key: str) -> float:
        return sum(r[run][key] for r in rows)

    def med(run: str) -> float:
        return statistics.median([r[run]["seconds"] for r in rows]) if rows else 0.0

    kept_before = [r for r in rows if r["kept_before"] and r["run1"]["status"] == "converged"]
    lines = [
        "# Repository memory on Python faults: seeded twice in a row (bench/bench_loop.py --twice-python)",
        "",
        f"Corpus: bench_fix_python's seeded faults (seed 11, {len(rows)} faults spread over kinds), `whetstone fix "
        f"--test 'pytest -p whetstone -x -q <failing modules> --whetstone-search-budget {args.budget:g}' "
        f"--max-attempts 4`, in one copy of the library per fault, the store kept between the two runs; "
        f"{elapsed:.0f} s in all.",
        "",
        "| | run 1 (cold) | run 2 (memory) |",
        "|---|---|---|",
        f"| converged | {len([r for r in rows if r['run1']['status'] == 'converged'])}/{len(rows)} | "
        f"{len([r for r in rows if r['run2']['status'] == 'converged'])}/{len(rows)} |",
        f"| fix attempts (sum) | {total('run1', 'attempts'):.0f} | {total('run2', 'attempts'):.0f} |",
        f"| steps (sum) | {total('run1', 'steps'):.0f} | {total('run2', 'steps'):.0f} |",
        f"| median wall time per fault | {med('run1'):.1f} s | {med('run2'):.1f} s |",
        f"| total wall time | {total('run1', 'seconds'):.1f} s | {total('run2', 'seconds'):.1f} s |",
        "",
        f"- run 2's first application is the fix run 1 kept: {len([r for r in kept_before if r['first_was_kept']])}"
        f"/{len(kept_before)} faults where run 1 converged with a kept fix",
        f"- edit sets run 1 reverted that run 2 applied again: {sum(r['retried_reverted'] for r in rows)}",
    ]
    out = HERE / "results" / "loop_memory_python.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


def write_twice_report(pairs: list[tuple[Row, Row, Memo]], elapsed: float, args: argparse.Namespace) -> None:
    def med(values: list[float]) -> float:
        return statistics.median(values) if values else 0.0

    firsts = [p[0] for p in pairs]
    seconds = [p[1] for p in pairs]
    memos = [p[2] for p in pairs]
    kept_before = [m for m, one in zip(memos, firsts, strict=True) if m.kept_before and one.status == "converged"]
    lines = [
        "# Repository memory: the same fault seeded twice in a row (bench/bench_loop.py --twice)",
        "",
        f"Corpus: bench_fix_build's real C projects (seed {args.seed}, up to {args.per_kind} per kind), compilers "
        f"{args.compilers}, `--max-attempts {args.max_attempts}`, build `make -s`; the store is kept between the two "
        f"runs of a fault and cleared before the next fault; {elapsed:.0f} s in all.",
        "",
        "| | run 1 (cold) | run 2 (memory) |",
        "|---|---|---|",
        f"| converged | {len([r for r in firsts if r.status == 'converged'])}/{len(firsts)} | "
        f"{len([r for r in seconds if r.status == 'converged'])}/{len(seconds)} |",
        f"| fix attempts (sum) | {sum(r.attempts for r in firsts)} | {sum(r.attempts for r in seconds)} |",
        f"| steps (sum) | {sum(r.steps for r in firsts)} | {sum(r.steps for r in seconds)} |",
        f"| median wall time per fault | {med([r.seconds for r in firsts]):.2f} s | {med([r.seconds for r in seconds]):.2f} s |",
        f"| total wall time | {sum(r.seconds for r in firsts):.1f} s | {sum(r.seconds for r in seconds):.1f} s |",
        "",
        f"- run 2's first application is the fix run 1 kept: {len([m for m in kept_before if m.first_applied_was_kept_before])}"
        f"/{len(kept_before)} faults where run 1 converged with a kept fix",
        f"- edit sets run 1 reverted that run 2 applied again: {sum(m.retried_reverted for m in memos)}",
        "",
        "| kind | faults | run 1 attempts | run 2 attempts | run 1 steps | run 2 steps |",
        "|---|---|---|---|---|---|",
    ]
    for kind in sorted({r.kind for r in firsts}):
        ps = [p for p in pairs if p[0].kind == kind]
        lines.append(f"| {kind} | {len(ps)} | {sum(p[0].attempts for p in ps)} | {sum(p[1].attempts for p in ps)} | "
                     f"{sum(p[0].steps for p in ps)} | {sum(p[1].steps for p in ps)} |")
    out = HERE / "results" / "loop_memory.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


def write_report(rows: list[Row], elapsed: float, args: argparse.Namespace) -> None:
    def pct(n: int, d: int) -> str:
        return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "0/0"

    converged = [r for r in rows if r.status == "converged"]
    lines = [
        "# Loop convergence on seeded faults (bench/bench_loop.py)",
        "",
        f"Corpus: bench_fix_build's real C projects and fault seeding (seed {args.seed}, up to {args.per_kind} per kind),"
        f" compilers {args.compilers}, `--max-attempts {args.max_attempts}`, build phase `make -s`; {elapsed:.0f} s in all.",
        "",
        f"- converged: {pct(len(converged), len(rows))}",
        f"- converged with every file byte-identical to the original: {pct(len([r for r in converged if r.exact]), len(rows))}",
        f"- mean fix attempts when converged: {statistics.mean([r.attempts for r in converged]) if converged else 0:.2f}"
        f" (all faults: {statistics.mean([r.attempts for r in rows]) if rows else 0:.2f})",
        f"- median wall time per fault: {statistics.median([r.seconds for r in rows]) if rows else 0:.1f} s",
        "",
        "| kind | faults | converged | exact | mean attempts | escalations |",
        "|---|---|---|---|---|---|",
    ]
    for kind in sorted({r.kind for r in rows}):
        rs = [r for r in rows if r.kind == kind]
        conv = [r for r in rs if r.status == "converged"]
        reasons = ", ".join(sorted({r.reason for r in rs if r.reason})) or "-"
        lines.append(f"| {kind} | {len(rs)} | {len(conv)} | {len([r for r in conv if r.exact])} | "
                     f"{statistics.mean([r.attempts for r in rs]):.2f} | {reasons} |")
    out = HERE / "results" / "loop.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    sys.exit(main())
