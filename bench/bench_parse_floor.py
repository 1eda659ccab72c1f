#!/usr/bin/env python3
"""The CPython floor of parsing a diagnostic-dense gcc log: what the least a parser must do per
record costs, next to what ``parse_text`` costs, on the same log.

Log: the warnings build of bench/bench_parse.py (brotli + LMDB with two dozen warning flags,
real gcc output), each copy with its own source paths, repeated to ``--mb``.

The floor is a deliberately incomplete parser: one regex ``finditer`` over the whole text
that matches a diagnostic header and its source echo lines, and per match only what every
record needs (its fields from the match groups, the record object, its id, its
classification).  No notes, include chains, "In function" scopes, gcc-vs-clang decisions,
path resolution, make directories or other formats.  Whatever a complete parser does, it
cannot cost less than this per record, so MB/s here is an upper bound for any pure-Python
design that builds these records.

Each variant runs in a fresh process, interleaved, ``--runs`` times; medians of CPU time.

Usage: python bench/bench_parse_floor.py [--mb 20] [--runs 3] [--out bench/results/parse_floor.md]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_parse import WARNING_FLAGS, WORK_ROOT, copies_to, verbose_build_log  # noqa: E402

_FLOOR = r"""
import re, sys, time, gc
sys.path.insert(0, sys.argv[1])
from pytest_whetstone.classify import classify_build
from pytest_whetstone.records import BuildErrorRecord
text = open(sys.argv[2], encoding="utf-8").read()
HEADER = re.compile(
    r"^([^\n:]+):(\d+):(?:(\d+):)? (error|warning|note|fatal error): ([^\n]*)\n((?: *\d* \|[^\n]*\n)*)", re.M)
gc.disable()
cpu = time.process_time()
records = []
for m in HEADER.finditer(text):
    path, line, col, sev, msg, echo = m.groups()
    code = ""
    if msg[-1:] == "]":
        cut = msg.rfind(" [")
        if cut > 0:
            msg, code = msg[:cut], msg[cut + 2 : -1]
    rec = BuildErrorRecord("", "gcc", "error" if sev == "fatal error" else sev, path, int(line), int(col or 0),
                           code, msg, echo.splitlines(), None, "unknown", False, [], [], "", "", path, m.group(0))
    rec.ensure_id()
    classify_build(rec)
    records.append(rec)
print(time.process_time() - cpu, len(records))
"""
_FULL = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from pytest_whetstone.parse import parse_text
text = open(sys.argv[2], encoding="utf-8").read()
parse_text("x.c:1:1: error: y\n", "gcc")
cpu = time.process_time()
result = parse_text(text, "gcc")
print(time.process_time() - cpu, len(result.build_errors))
"""


def _run(code: str, log: Path) -> tuple[float, int]:
    out = subprocess.run([sys.executable, "-c", code, str(ROOT), str(log)], capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), int(out[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--mb", type=float, default=20.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "parse_floor.md"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_floor_") as tmp_name:
        tmp = Path(tmp_name)
        unit = verbose_build_log(tmp, WARNING_FLAGS)
        log = tmp / "warnings.log"
        text = copies_to(unit, args.mb, (WORK_ROOT, str(tmp)))
        log.write_text(text, encoding="utf-8")
        size_mb = len(text.encode()) / 1_000_000
        del text, unit
        times: dict[str, list[float]] = {"floor": [], "parse_text": []}
        counts: dict[str, int] = {}
        for _ in range(args.runs):
            for name, code in (("floor", _FLOOR), ("parse_text", _FULL)):
                cpu, n = _run(code, log)
                times[name].append(cpu)
                counts[name] = n
    lines = [
        "# The CPython floor of a diagnostic-dense gcc log",
        "",
        f"Log: the warnings build (real gcc 12 output, paths differ per copy), {size_mb:.1f} MB; "
        f"{args.runs} runs each, interleaved, fresh processes; Python {sys.version.split()[0]}.",
        "",
        "| variant | records | median CPU s | MB/s | µs per record |",
        "|---|---|---|---|---|",
    ]
    for name, label in (("floor", "floor: one regex pass, record + id + classification only"),
                        ("parse_text", "`parse_text(log, 'gcc')`: the whole parser")):
        med = statistics.median(times[name])
        lines.append(f"| {label} | {counts[name]} | {med:.2f} | {size_mb / med:.1f} | "
                     f"{med / max(1, counts[name]) * 1e6:.1f} |")
    lines += ["", "The floor reads headers and their source echo only (no include chains, scopes, path",
              "resolution, gcc-vs-clang decisions or other formats) and makes every `note:` line a record",
              "of its own instead of attaching it to its diagnostic, hence more records.  Its MB/s bounds",
              "what any pure-Python parser that builds, identifies and classifies these records can",
              "reach on this log."]
    report = "\n".join(lines) + "\n"
    Path(args.out).write_text(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
