"""Convergence of the orchestrated loop over the seeded-fault corpus of bench_fix_build (run by hand).

    python bench/bench_loop.py [--per-kind N] [--compilers gcc] [--max-attempts N]

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


def run_one(project: corpus.Project, fault: corpus.Fault, cc: str, max_attempts: int) -> Row | None:
    path = project.root / fault.file
    store = project.root / ".whetstone"
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
        return Row(project.name, cc, fault.kind, fault.what, result.final_status, reason, state.fix_attempts,
                   result.steps_taken, exact, seconds)
    finally:
        path.write_text(fault.original)
        (project.root / "Makefile").write_text(corpus._makefile_text[project.name, cc])
        os.environ.pop("WHETSTONE_DIR", None)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-kind", type=int, default=2)
    parser.add_argument("--compilers", default="gcc")
    parser.add_argument("--max-attempts", type=int, default=4)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--work", default="/tmp/whetstone-bench-loop",
                        help="private copy of the corpus (bench_fix_build may be mutating bench/_work)")
    args = parser.parse_args()
    private = Path(args.work)
    private.mkdir(parents=True, exist_ok=True)
    for archive in [*corpus.WORK.glob("brotli-*.tar.gz"), *corpus.WORK.glob("node-lmdb-*.tgz")]:
        if not (private / archive.name).exists():
            shutil.copy2(archive, private / archive.name)  # pristine sources, extracted by fetch()
    corpus.WORK = private
    projects = corpus.fetch()
    rows: list[Row] = []
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
                row = run_one(project, fault, cc, args.max_attempts)
                if row is None:
                    continue
                per_kind[fault.kind] = per_kind.get(fault.kind, 0) + 1
                rows.append(row)
                print(f"{cc:5} {project.name:7} {row.kind:22} {row.status:9} {row.reason:16} attempts={row.attempts} "
                      f"steps={row.steps} exact={row.exact!s:5} {row.seconds:5.1f}s  {row.what}", flush=True)
    write_report(rows, time.monotonic() - started, args)
    return 0


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
