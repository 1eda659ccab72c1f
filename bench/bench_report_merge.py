"""Benchmark: merging many shard sessions into one report state.

Generates N shard session files of R records each (as the writers produce
them: ccwrap-style per-translation-unit ``build_errors`` batches and pytest
``test_failures`` batches, with candidates), where most diagnostics are shared
between shards (the same header warning seen by every CI shard) and some are
shard-specific; then times ``merge_sessions`` and measures peak memory
(tracemalloc) and RSS growth, for 1, 10 and 100 shards, to show time grows
with the input and memory stays flat in the number of shards.

    python bench/bench_report_merge.py [--shards 100] [--records 10000] [--repeat 3]

Writes bench/results/report_merge.md.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKSPACE = "/home/runner/work/proj/proj"
SHARED_POOL = 2_000  # distinct diagnostics every shard draws its shared ones from
TU_BATCH = 10  # records per per-TU build_errors event


def _error(i: int, shard: int | None) -> dict:
    file = f"{WORKSPACE}/src/mod{i % 97}.c" if shard is None else f"{WORKSPACE}/src/shard{shard}/f{i % 50}.c"
    msg = (
        f"unused variable 'tmp{i}' [-Wunused-variable]"
        if i % 3
        else f"implicit declaration of function 'helper{i}'; did you mean 'helper{i + 1}'?"
    )
    return {
        "error_id": "E" + hashlib.sha256(f"{file}:{i}".encode()).hexdigest()[:12],
        "tool": "gcc",
        "severity": "warning" if i % 3 else "error",
        "file_path": file,
        "line": 10 + i % 400,
        "col": 5 + i % 30,
        "error_code": "-Wunused-variable" if i % 3 else "-Wimplicit-function-declaration",
        "message": msg,
        "context_lines": [f"   {10 + i % 400} |     int tmp{i} = compute({i});", "      |         ^~~~"],
        "error_type": "unknown" if i % 3 else "undefined_symbol",
        "is_lint": bool(i % 3),
        "schema_version": "whetstone/1",
    }


def _failure(i: int, shard: int) -> dict:
    return {
        "failure_id": "T" + hashlib.sha256(f"{shard}:{i}".encode()).hexdigest()[:12],
        "runner": "pytest",
        "test_suite": f"tests/test_mod{i % 40}.py",
        "test_name": f"test_case_{shard}_{i}",
        "failure_type": "assertion",
        "expected_value": str(i),
        "actual_value": str(i + 1),
        "file_path": f"{WORKSPACE}/tests/test_mod{i % 40}.py",
        "line": 20 + i % 200,
        "message": f"assert {i + 1} == {i}",
        "suspects": [
            {"file_path": f"{WORKSPACE}/pkg/mod{i % 40}.py", "qualname": f"func{i % 17}",
             "line_start": 3, "line_end": 12, "score": 0.8}
        ],
        "node_id": f"tests/test_mod{i % 40}.py::test_case_{shard}_{i}",
        "schema_version": "whetstone/1",
    }


def _event(kind: str, sid: str, data: dict) -> str:
    return json.dumps(
        {"schema_version": "whetstone/1", "event": kind, "session_id": sid,
         "ts": "2026-01-01T00:00:00.000+00:00", "pid": 4242, "data": data},
        sort_keys=True, separators=(",", ":"),
    )


def write_shard(path: Path, shard: int, records: int, unique_fraction: float, rng: random.Random) -> None:
    sid = f"shard{shard:03d}"
    n_unique = int(records * unique_fraction)
    n_failures = n_unique // 2
    n_unique_errors = n_unique - n_failures
    shared = [_error(rng.randrange(SHARED_POOL), None) for _ in range(records - n_unique)]
    own = [_error(i, shard) for i in range(n_unique_errors)]
    errors = shared + own
    with open(path, "w", encoding="utf-8") as out:
        out.write(_event("session_started", sid, {"workspace": WORKSPACE, "target": "ci"}) + "\n")
        for start in range(0, len(errors), TU_BATCH):
            batch = errors[start:start + TU_BATCH]
            origin = f"tu:{WORKSPACE}/src/tu{shard}_{start // TU_BATCH}.c"
            out.write(_event("build_errors", sid, {"origin": origin, "records": batch}) + "\n")
        fails = [_failure(i, shard) for i in range(n_failures)]
        for start in range(0, len(fails), 100):
            out.write(_event("test_failures", sid, {"origin": f"pytest:{start}", "records": fails[start:start + 100],
                                                    "replace": True}) + "\n")
        cands = [{"candidate_id": f"C{i}", "target_id": _error(i * 3, None)["error_id"],
                  "description": f"declare helper{i * 3}", "confidence": 0.5, "mutation_type": "manual"}
                 for i in range(0, 50)]
        out.write(_event("candidates", sid, {"records": cands}) + "\n")
        out.write("this line is corrupt {\n")
        out.write(_event("verdict", sid, {"status": "fail", "failure": "compile-error"}) + "\n")


def generate(root: Path, shards: int, records: int, unique_fraction: float) -> list[Path]:
    rng = random.Random(1234)
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for shard in range(shards):
        path = root / f"shard{shard:03d}.jsonl"
        write_shard(path, shard, records, unique_fraction, rng)
        paths.append(path)
    return paths


_CHILD = r"""
import gc, json, resource, sys, time, tracemalloc, warnings
from pathlib import Path
from pytest_whetstone.store.merge import merge_sessions
paths = [Path(p) for p in sys.argv[2:]]
mode = sys.argv[1]
warnings.simplefilter("ignore")
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if mode == "trace":
    tracemalloc.start()
t0 = time.perf_counter(); c0 = time.process_time()
state = merge_sessions(paths, jobs=1 if mode in ("serial", "trace") else None)
wall = time.perf_counter() - t0; cpu = time.process_time() - c0
peak = tracemalloc.get_traced_memory()[1] if mode == "trace" else 0
rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"wall": wall, "cpu": cpu, "peak": peak, "rss_growth_kb": rss1 - rss0,
                  "errors": len(state.build_errors), "failures": len(state.test_failures)}))
"""


def measure(paths: list[Path], mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, mode, *map(str, paths)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", type=int, default=100)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--unique", type=float, default=0.02,
                        help="fraction of each shard's records seen by no other shard")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="whetstone-merge-bench-"))
    try:
        t0 = time.perf_counter()
        paths = generate(work / "shards", args.shards, args.records, args.unique)
        gen = time.perf_counter() - t0
        size_mb = sum(p.stat().st_size for p in paths) / 1e6
        rows = []
        counts = sorted({1, max(1, args.shards // 10), args.shards})
        for n in counts:
            walls, cpus = [], []
            for _ in range(args.repeat):  # timing runs without tracemalloc (it slows Python 2-3x)
                r = measure(paths[:n], "time")
                walls.append(r["wall"])
                cpus.append(r["cpu"])
            serial = [measure(paths[:n], "serial")["wall"] for _ in range(args.repeat)] if n >= 8 else walls
            traced = measure(paths[:n], "trace")
            rows.append({"shards": n, "records": n * args.records, "wall": statistics.median(walls),
                         "cpu": statistics.median(cpus), "serial": statistics.median(serial), "peak_mb": traced["peak"] / 1e6,
                         "rss_mb": r["rss_growth_kb"] / 1024, "errors": r["errors"],
                         "failures": r["failures"]})
            print(rows[-1], flush=True)
        write_results(args, rows, size_mb, gen)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept", work)
    return 0


def write_results(args: argparse.Namespace, rows: list[dict], size_mb: float, gen: float) -> None:
    lines = [
        "# Merging shard sessions (`whetstone report` over CI shards)",
        "",
        f"Generated by `python bench/bench_report_merge.py --shards {args.shards} --records {args.records}"
        f" --unique {args.unique}` on {os.cpu_count()} cores, Python {sys.version.split()[0]}.",
        "",
        f"Each shard: {args.records:,} records (per-TU `build_errors` batches of {TU_BATCH} plus `test_failures`"
        f" batches), {args.unique:.0%} of them seen by no other shard, the rest drawn from a pool of"
        f" {SHARED_POOL:,} diagnostics every shard shares (the same header warnings on every CI shard);"
        " one corrupt line per shard. All shards together:"
        f" {size_mb:.0f} MB of JSONL (generated in {gen:.1f} s).",
        "",
        "| shards | records read | distinct errors kept | failures kept | wall (median) | CPU of the parent"
        " (median) | wall, one process | peak traced memory | RSS growth |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['shards']} | {r['records']:,} | {r['errors']:,} | {r['failures']:,} | {r['wall']:.2f} s"
            f" | {r['cpu']:.2f} s | {r['serial']:.2f} s | {r['peak_mb']:.1f} MB | {r['rss_mb']:.1f} MB |"
        )
    lines += [
        "",
        f"Median of {args.repeat} runs, each in a fresh interpreter; peak memory from a separate one-process"
        " run under tracemalloc (Python allocations only), RSS growth = max RSS after minus before the merge.",
        "From 8 files and 32 MB on, merge_sessions splits the files over two worker processes"
        " (`wall`); `wall, one process` is `jobs=1`. The machine's 2 cores were shared with other"
        " work during the run (see the load below), so walls are upper bounds.",
        "Memory grows with the number of *distinct* records kept, not with the number of shards read:"
        " each shard is folded alone, streaming line by line, and dropped before the next is read.",
        f"Load average at the end of the run: {os.getloadavg()[0]:.1f} (2 cores).",
        "",
    ]
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "report_merge.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    gc.collect()
    sys.exit(main())
