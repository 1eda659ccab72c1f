"""What one test costs under each execution-spectrum profiler, beside the plain test (development set).

    python bench/bench_spectrum.py [--project jsonnet|leveldb|exprcalc|hiredis] [--tests N] [--repeat R]
        [--debug-info] [--out bench/results/spectrum.md]

Builds the project as bench_native_fix.py does (scratch directory, ccwrap), picks its first gtest
binary with the most tests, and runs the first ``--tests`` of them one at a time, ``--repeat`` times
each, three ways, interleaved so the machine's drift falls on all three alike:

* plain: ``BINARY --gtest_filter=Suite.Name``;
* breakpoints: the same under ``bptrace`` (one-shot breakpoints at every function the binary defines),
  including writing the address file once per binary, as the search does;
* breakpoints + lines (``--debug-info``: the project built with ``-g``): the tracer also armed at the
  start of each run of one line's code in the line table, as the search arms a ``-g`` binary;
* callgrind: the same under ``valgrind --tool=callgrind`` with collection in the test body only.

Prints and writes the median seconds per test of each and the ratios to plain, and the whole-spectrum
time for those tests (what the search spends before its first mutant).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import bench_native_fix  # noqa: E402
from bench_native_fix import built_project  # noqa: E402
from native_fix_projects import PROJECTS  # noqa: E402

from pytest_whetstone.candidates import elf_lines  # noqa: E402
from pytest_whetstone.candidates.native_spectra_bp import function_entries, gtest_tests, line_starts, tracer  # noqa: E402


def _gtest_binaries(root: Path) -> list[tuple[Path, list[str]]]:
    out = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and os.access(path, os.X_OK) and path.suffix not in (".sh", ".py", ".so", ".a", ".o"):
            tests = gtest_tests(str(path), path.parent)
            if tests:
                out.append((path, tests))
    return sorted(out, key=lambda bt: -len(bt[1]))


def _time(args: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--project", default="jsonnet", choices=["jsonnet", "leveldb", "exprcalc", "hiredis"])
    ap.add_argument("--tests", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "results" / "spectrum.md"))
    ap.add_argument("--debug-info", action="store_true", help="build with -g and add the line breakpoints")
    args = ap.parse_args()
    bench_native_fix.DEBUG_INFO = args.debug_info
    tool = tracer()
    assert tool is not None, "the breakpoint tracer cannot run on this machine"
    assert shutil.which("valgrind"), "valgrind is needed for the callgrind column"
    project = PROJECTS[args.project]
    scratch = Path(tempfile.mkdtemp(prefix="bench-spectrum-"))
    proj, _env = built_project(project, scratch)
    binaries = _gtest_binaries(proj)
    assert binaries, "no gtest binary found"
    binary, tests = binaries[0]
    tests = tests[: args.tests]
    cwd = binary.parent
    setup_started = time.perf_counter()
    entries = function_entries(str(binary))
    addresses = scratch / "addresses"
    addresses.write_text("".join(f"{a:x}\n" for a in entries))
    setup_s = time.perf_counter() - setup_started
    lines_started = time.perf_counter()
    starts = line_starts(elf_lines.line_table(str(binary))) if args.debug_info else {}
    with_lines = scratch / "with-lines"
    with_lines.write_text("".join(f"{a:x}\n" for a in entries.keys() | starts.keys()))
    lines_setup_s = setup_s + time.perf_counter() - lines_started
    hits = scratch / "hits"
    cg_out = scratch / "cg.out"
    seconds: dict[str, list[float]] = {"plain": [], "breakpoints": [], "callgrind": []}
    if args.debug_info:
        seconds["breakpoints + lines"] = []
    per_test: dict[str, list[float]] = {k: [] for k in seconds}
    for test in tests:
        samples: dict[str, list[float]] = {k: [] for k in seconds}
        for _ in range(args.repeat):
            filt = f"--gtest_filter={test}"
            samples["plain"].append(_time([str(binary), filt], cwd))
            hits.unlink(missing_ok=True)
            samples["breakpoints"].append(_time([str(tool), str(addresses), str(hits), "--", str(binary), filt], cwd))
            if args.debug_info:
                hits.unlink(missing_ok=True)
                samples["breakpoints + lines"].append(
                    _time([str(tool), str(with_lines), str(hits), "--", str(binary), filt], cwd))
            samples["callgrind"].append(_time(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg_out}",
                                               "--toggle-collect=*::TestBody()", str(binary), filt], cwd))
        for k in seconds:
            per_test[k].append(statistics.median(samples[k]))
    for k in seconds:
        seconds[k] = per_test[k]
    med = {k: statistics.median(v) for k, v in seconds.items()}
    total = {k: sum(v) for k, v in seconds.items()}
    total["breakpoints"] += setup_s
    if args.debug_info:
        total["breakpoints + lines"] += lines_setup_s
    lines = [
        f"# Execution spectrum: one test under each profiler ({project.name})",
        "",
        f"`python bench/bench_spectrum.py --project {args.project} --tests {len(tests)} --repeat {args.repeat}"
        + (" --debug-info" if args.debug_info else "") + "`: "
        f"`{binary.relative_to(proj)}` ({len(binaries[0][1])} tests, {len(entries)} function entries given to the "
        f"tracer" + (f", and {len(starts)} line starts with `-g`" if args.debug_info else "")
        + f"), its first {len(tests)} tests one process each, each way {args.repeat} times, interleaved; "
        "medians per test, then the sum over the tests (the breakpoint column includes reading `nm` and writing "
        f"the address file once: {setup_s:.3f} s"
        + (f"; with lines, reading the line table too: {lines_setup_s:.3f} s" if args.debug_info else "") + ").",
        "",
        "| | median per test (s) | / plain | all tests (s) | / plain |",
        "|---|---|---|---|---|",
    ]
    for k in seconds:
        lines.append(f"| {k} | {med[k]:.4f} | {med[k] / med['plain']:.2f}x | {total[k]:.2f} | "
                     f"{total[k] / total['plain']:.2f}x |")
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.out).write_text(text)
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
