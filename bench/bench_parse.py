#!/usr/bin/env python3
"""Parser throughput on a large GCC log.

The log is the real captured gcc/make logs from tests/fixtures/build
concatenated until it reaches ~50 MB (so it has the real mix of diagnostics,
source echoes, notes, make lines).  Each mode is timed several times,
interleaved, and the median MB/s reported.  Target: >= 20 MB/s.

Usage: python bench/bench_parse.py [--mb 50] [--runs 5] [--out bench/results/bench_parse.md]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_whetstone.parse import parse_text  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "build"
SOURCES = ["gcc/*.log", "make/parallel_j2*.log", "make/compile_error.log", "make/keep_going.log",
           "make/recursive.log", "mixed/make_ld_gcc.log"]


def build_log(megabytes: float) -> str:
    parts = [p.read_text(encoding="utf-8", errors="replace") for pattern in SOURCES
             for p in sorted(FIXTURES.glob(pattern))]
    unit = "".join(part if part.endswith("\n") else part + "\n" for part in parts)
    target = int(megabytes * 1_000_000)
    return unit * max(1, target // len(unit.encode()))


def run(text: str, tool: str) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = parse_text(text, tool=tool)
    return time.perf_counter() - wall, time.process_time() - cpu, len(result.build_errors)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "bench_parse.md"))
    args = ap.parse_args()
    text = build_log(args.mb)
    size_mb = len(text.encode()) / 1_000_000
    modes = ["auto", "gcc"]
    times: dict[str, list[float]] = {m: [] for m in modes}
    cpus: dict[str, list[float]] = {m: [] for m in modes}
    counts: dict[str, int] = {}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    for _ in range(args.runs):
        for mode in modes:  # interleaved, so drift on a shared machine hits both alike
            elapsed, cpu, n = run(text, mode)
            times[mode].append(elapsed)
            cpus[mode].append(cpu)
            counts[mode] = n
    lines = [
        "# Parser throughput",
        "",
        f"Log: {size_mb:.1f} MB, {text.count(chr(10))} lines, concatenated from the real gcc/make fixtures.",
        f"Runs: {args.runs} per mode, interleaved; Python {sys.version.split()[0]}; "
        f"{os.cpu_count()} CPUs, load average {load:.1f} at start (a shared machine: CPU-time MB/s is the",
        "steadier figure; wall MB/s includes waiting for a core).",
        f"Records per MB: {counts['auto'] / size_mb:.0f} (every line of these logs is a diagnostic or belongs to one).",
        "",
        "| mode | median wall s | median MB/s (wall) | median MB/s (CPU time) | records |",
        "|---|---|---|---|---|",
    ]
    for mode in modes:
        med = statistics.median(times[mode])
        cpu = statistics.median(cpus[mode])
        lines.append(f"| `--tool {mode}` | {med:.2f} | {size_mb / med:.1f} | {size_mb / cpu:.1f} | {counts[mode]} |")
    report = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
