"""What capping a test process's address space costs per run (not a test; run by hand).

    python bench/bench_run_bounded.py [--rounds N] [--out bench/results/run_bounded.md]

A screened mutant is one run of a test binary, a few milliseconds, and each run is capped at 4 GiB of
address space (:func:`pytest_whetstone.process.run_bounded`).  A small C program (gcc, a few lines of
output, exit 0) is run, interleaved round after round, four ways:

* ``plain``: ``subprocess.run`` with no cap, the floor;
* ``once-started``: ``run_bounded(limit_memory=True)`` as it is on Linux, the cap set on the started
  process with prlimit(2);
* ``prlimit``: the same through util-linux's ``prlimit`` program, which sets the cap and execs the test;
* ``preexec``: the same through a preexec function (Python then forks the whole interpreter).

Medians in milliseconds and the ratios to ``plain`` go to the output file.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pytest_whetstone import process  # noqa: E402

PROGRAM = '#include <stdio.h>\nint main(void) { for (int i = 0; i < 20; i++) printf("line %d\\n", i); return 0; }\n'


def _ways(binary: str, cwd: Path) -> dict[str, object]:
    def plain() -> None:
        subprocess.run([binary], cwd=cwd, capture_output=True, check=True)

    def bounded(set_limit: bool, tool: bool) -> object:
        def run() -> None:
            saved = process._set_limit, process._prlimit
            if not set_limit:
                process._set_limit = lambda: None  # type: ignore[assignment]
            if not tool:
                process._prlimit = lambda: None  # type: ignore[assignment]
            try:
                code, _out = process.run_bounded([binary], cwd, 10.0, limit_memory=True)
                assert code == 0
            finally:
                process._set_limit, process._prlimit = saved  # type: ignore[assignment]
        return run

    ways: dict[str, object] = {"plain": plain, "once-started": bounded(True, True)}
    if process._prlimit() is not None:
        ways["prlimit"] = bounded(False, True)
    ways["preexec"] = bounded(False, False)
    return ways


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--out", default=str(HERE / "results" / "run_bounded.md"))
    args = ap.parse_args()
    if shutil.which("gcc") is None:
        sys.exit("gcc is needed to build the test program")
    with tempfile.TemporaryDirectory(prefix="whetstone-bench-") as tmp:
        cwd = Path(tmp)
        (cwd / "t.c").write_text(PROGRAM)
        subprocess.run(["gcc", "-O2", "-o", "t", "t.c"], cwd=cwd, check=True)
        ways = _ways(str(cwd / "t"), cwd)
        times: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.rounds):
            for name, run in ways.items():
                started = time.perf_counter()
                run()  # type: ignore[operator]
                times[name].append(time.perf_counter() - started)
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    lines = ["# A capped test process's run, per way of capping it", "",
             f"`python bench/bench_run_bounded.py --rounds {args.rounds}`; Python {sys.version.split()[0]}; "
             "a C program printing 20 lines.", "",
             "| way | median ms | / plain |", "|---|---|---|"]
    lines += [f"| {name} | {ms:.2f} | {ms / medians['plain']:.2f}x |" for name, ms in medians.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
