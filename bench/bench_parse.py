#!/usr/bin/env python3
"""Parser throughput on two large build logs, and ``whetstone parse`` memory on a small vs a large log.

Logs, each repeated until it reaches ~50 MB:

* fixtures: the real captured gcc/make logs from tests/fixtures/build concatenated
  (the real mix of diagnostics, source echoes, notes, make lines; the worst case:
  every line is a diagnostic or part of one);
* verbose build: a real verbose build (make echoing every compiler command line,
  ``-w`` directory lines, gcc ``-Wall -Wextra``) of brotli 1.2.1 and LMDB, whose
  sources bench/bench_fix_build.py downloads into bench/_work (reused here);
  mostly command lines, few diagnostics;
* warnings build: the same build with two dozen more warning flags (``-Wconversion``,
  ``-Wsign-conversion``, ``-Wpadded``, ``-Wshadow``, ...): thousands of real, varied
  diagnostics with notes, include chains and source echoes.

The fixtures log is repeated verbatim, so after the first copy every header line is
one the parser has seen (its per-line memo hits: the flattering case).  Each copy of
the two real builds names its own source tree (``/src/copyN/...``), as a large tree
of similar modules would: their lines do not repeat.

Each mode is timed several times, interleaved, in a fresh process each time, and
the median MB/s reported (CPU time of the parse only: the machine is shared, wall
time mostly measures waiting for a core).  Target: >= 20 MB/s.

``--baseline DIR`` also times another checkout of the package (a directory
holding ``pytest_whetstone/``, e.g. ``git archive HEAD pytest_whetstone | tar -x -C DIR``),
interleaved run by run with this one, for a before/after table.

Memory: peak RSS of a ``whetstone parse FILE > /dev/null`` process (records are
streamed out as they are completed) on a 5 MB and a 50 MB fixtures log, both output
formats: it must be flat.

Usage: python bench/bench_parse.py [--mb 50] [--runs 5] [--baseline DIR] [--logs fixtures,build,warnings]
       [--out bench/results/bench_parse.md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "build"
SOURCES = ["gcc/*.log", "make/parallel_j2*.log", "make/compile_error.log", "make/keep_going.log",
           "make/recursive.log", "mixed/make_ld_gcc.log"]

# Run in a fresh interpreter per measurement: argv = package root, log path, tool.
_TIME = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from pytest_whetstone.parse import parse_text
text = open(sys.argv[2], encoding="utf-8", errors="replace", newline="").read()
parse_text("x.c:1:1: error: y\n", sys.argv[3])  # imports and regex compiles are not the parse
cpu, wall = time.process_time(), time.perf_counter()
result = parse_text(text, sys.argv[3])
print(time.process_time() - cpu, time.perf_counter() - wall, len(result.build_errors))
"""
# `whetstone parse` itself, from the given package root: argv = root, log, format.  The peak
# RSS is the process's own VmHWM (ru_maxrss of a child can report the forking parent's size).
_CLI = r"""
import sys
sys.path.insert(0, sys.argv[1])
from pytest_whetstone.cli import main
code = main(["parse", "--format", sys.argv[3], sys.argv[2]])
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0].split()[1]
sys.stderr.write(f"VmHWM {hwm}\n")
sys.exit(code)
"""


def build_log(megabytes: float) -> str:
    """The fixtures log repeated to about ``megabytes`` (0: the unit once)."""
    parts = [p.read_text(encoding="utf-8", errors="replace") for pattern in SOURCES
             for p in sorted(FIXTURES.glob(pattern))]
    unit = "".join(part if part.endswith("\n") else part + "\n" for part in parts)
    return repeat_to(unit, megabytes)


WARNING_FLAGS = ("-Wconversion -Wsign-conversion -Wshadow -Wcast-qual -Wpedantic -Wdouble-promotion -Wformat=2"
                 " -Wmissing-prototypes -Wstrict-prototypes -Wcast-align -Wpadded -Wswitch-default"
                 " -Wunused-macros -Wredundant-decls -Wjump-misses-init -Wlogical-op -Wduplicated-cond"
                 " -Wnull-dereference -Wstack-protector -Wtraditional-conversion -Wbad-function-cast")
WORK_ROOT = str(ROOT / "bench" / "_work")


def verbose_build_log(tmp: Path, extra_flags: str = "") -> str:
    """The output of a real verbose build (commands echoed, -Wall -Wextra and ``extra_flags``)
    of brotli and LMDB; source paths start with WORK_ROOT, build directories with ``tmp``."""
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_fix_build import fetch  # the download helper and its cache (bench/_work)

    parts: list[str] = []
    for project in fetch():
        build = tmp / f"build-{project.name}"
        build.mkdir()
        objs = " ".join(f"obj/{src[:-2]}.o" for src in project.sources)
        incs = " ".join(f"-I$(SRC)/{inc}" for inc in project.includes)
        (build / "Makefile").write_text(
            f"SRC = {project.root}\nCC = gcc\nCFLAGS = -O0 -g -Wall -Wextra {extra_flags} {incs}\nOBJS = {objs}\n\n"
            f"prog: $(OBJS)\n\t$(CC) -o $@ $(OBJS) {'-lm' if project.libm else ''}\n\n"
            "obj/%.o: $(SRC)/%.c\n\t@mkdir -p $(dir $@)\n\t$(CC) $(CFLAGS) -c $< -o $@\n"
        )
        proc = subprocess.run(["make", "-w", "-k"], cwd=build, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}, timeout=1200)
        parts.append(proc.stdout)
        shutil.rmtree(build)
    return "".join(parts)


def repeat_to(unit: str, megabytes: float) -> str:
    return unit * max(1, int(megabytes * 1_000_000) // len(unit.encode()))


def copies_to(unit: str, megabytes: float, roots: tuple[str, ...]) -> str:
    """``unit`` repeated to about ``megabytes``, each copy with ``roots`` renamed to its own
    ``/src/copyN/...`` (so no line of one copy repeats in another)."""
    parts: list[str] = []
    size, k = 0, 0
    while size < megabytes * 1_000_000 or not parts:
        part = unit
        for j, root in enumerate(roots):
            part = part.replace(root, f"/src/copy{k}/r{j}")
        parts.append(part)
        size += len(part.encode())
        k += 1
    return "".join(parts)


def _rss_mb(code: str, *args: str) -> float:
    """Peak RSS (MB) of a child process running code (it reports its VmHWM), stdout discarded."""
    proc = subprocess.run([sys.executable, "-c", code, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, check=True)
    return int(proc.stderr.rsplit("VmHWM", 1)[1].split()[0]) / 1024


def _run(code: str, *args: str) -> list[float]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return [float(x) for x in out.stdout.split()]


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline", default="", help="another package root to time against (before/after)")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--memory-only", action="store_true", help="skip the timing (memory table only)")
    ap.add_argument("--logs", default="fixtures,build,warnings",
                    help="which logs to time: fixtures, build, warnings (comma-separated)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "bench_parse.md"))
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_parse_"))
    units = {"fixtures": lambda: build_log(0.0), "build": lambda: verbose_build_log(tmp),
             "warnings": lambda: verbose_build_log(tmp, WARNING_FLAGS)}
    names = {"fixtures": "fixtures (gcc/make fixtures concatenated, repeated verbatim)",
             "build": "verbose build (brotli + LMDB, make, -Wall -Wextra; paths differ per copy)",
             "warnings": "warnings build (the same with two dozen more warning flags; paths differ per copy)"}
    logs: dict[str, Path] = {}
    sizes: dict[str, tuple[float, int, int]] = {}
    for name in ([] if args.memory_only else args.logs.split(",")):
        unit = units[name]()
        text = repeat_to(unit, args.mb) if name == "fixtures" else copies_to(unit, args.mb, (WORK_ROOT, str(tmp)))
        logs[name] = tmp / f"{name}.log"
        logs[name].write_text(text, encoding="utf-8")
        sizes[name] = (len(text.encode()) / 1_000_000, text.count("\n"), len(unit.encode()))
        del text, unit
    roots = {"after": str(ROOT)}
    if args.baseline:
        roots = {"before": str(Path(args.baseline).resolve()), **roots}
    modes = ["auto", "gcc"]
    cpu: dict[tuple[str, str, str], list[float]] = {}
    wall: dict[tuple[str, str, str], list[float]] = {}
    counts: dict[tuple[str, str, str], int] = {}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    for _ in range(args.runs):
        for name, log in logs.items():
            for mode in modes:  # interleaved, so drift on a shared machine hits every variant alike
                for who, root in roots.items():
                    c, w, n = _run(_TIME, root, str(log), mode)
                    cpu.setdefault((name, who, mode), []).append(c)
                    wall.setdefault((name, who, mode), []).append(w)
                    counts[(name, who, mode)] = int(n)
    lines = [
        "# Parser throughput",
        "",
        f"Runs: {args.runs} per log, mode and variant, interleaved, a fresh process each; Python {sys.version.split()[0]};",
        f"{os.cpu_count()} CPUs, load average {load:.1f} at start (a shared machine: CPU-time MB/s is the",
        "steadier figure; wall MB/s includes waiting for a core).",
        "",
    ]
    for name in logs:
        size_mb, n_lines, unit_bytes = sizes[name]
        lines += [
            f"## Log: {names[name]}",
            "",
            f"{size_mb:.1f} MB, {n_lines} lines (a {unit_bytes / 1000:.0f} KB unit repeated); "
            f"records per MB: {counts[(name, 'after', 'auto')] / size_mb:.0f}.",
            "",
            "| variant | mode | median CPU s | median MB/s (CPU time) | best MB/s (CPU) | median MB/s (wall) | records |",
            "|---|---|---|---|---|---|---|",
        ]
        for mode in modes:
            for who in roots:
                cs, ws = cpu[(name, who, mode)], wall[(name, who, mode)]
                lines.append(
                    f"| {who} | `--tool {mode}` | {statistics.median(cs):.2f} | {size_mb / statistics.median(cs):.1f} "
                    f"| {size_mb / min(cs):.1f} | {size_mb / statistics.median(ws):.1f} | {counts[(name, who, mode)]} |"
                )
        if args.baseline:
            lines.append("")
            for mode in modes:
                ratio = statistics.median(cpu[(name, "before", mode)]) / statistics.median(cpu[(name, "after", mode)])
                lines.append(f"Speed-up `--tool {mode}` (median CPU time, before / after): {ratio:.2f}x")
        lines.append("")
    if not args.no_memory:
        lines += ["## Memory: peak RSS of `whetstone parse FILE > /dev/null`", "",
                  "| log | --format | peak RSS MB |", "|---|---|---|"]
        unit = build_log(0.0)
        for megabytes in (5.0, 50.0):
            path = tmp / "m.log"
            path.write_text(repeat_to(unit, megabytes), encoding="utf-8")
            for fmt in ("json", "jsonl"):
                lines.append(f"| fixtures, {megabytes:.0f} MB | {fmt} | {_rss_mb(_CLI, str(ROOT), str(path), fmt):.1f} |")
            path.unlink()
        lines += ["", "Flat: records are written out as they are completed (`iter_parse_file`), and the",
                  "parser holds nothing else that grows (input read in 256 KB blocks; caches and memos",
                  "bounded; test failures, which sort after the counts in the JSON document, wait in a",
                  "temporary file spooled to disk past 1 MB)."]
    for path in tmp.iterdir():
        path.unlink()
    tmp.rmdir()
    report = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
