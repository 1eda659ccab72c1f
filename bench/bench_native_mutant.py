"""Cost of one C++ mutant trial beside a rebuild and a full test run (not a test; run by hand).

    python bench/bench_native_mutant.py [--rounds N] [--out bench/results/native_mutant.md]

The development project tests/fixtures/native_projects/gtest_calc (CMake + Ninja, a static library,
two gtest binaries discovered by ctest) is copied into a scratch directory and built through ccwrap.
Interleaved, round after round, it times:

* ``trial``: one mutant through the recorded build (the unit recompiled into a scratch object, the
  archive copied with the object swapped, the test binary relinked in scratch space, the failing test
  run with ``--gtest_filter``): ``CxxTrial.run_failing``;
* ``wider``: the same, then the whole binary (``run_wider``), what a validated candidate costs more;
* ``incremental``: what a user's edit costs without Whetstone: the source touched, ``cmake --build``
  (one unit, the archive, two links), then ``ctest``;
* ``rebuild``: a clean ``cmake --build --clean-first`` then ``ctest``;
* ``ctest``: the full test run alone.

Medians and ratios go to the output file.
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
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from pytest_whetstone.candidates.native_trial_cxx import cxx_trial  # noqa: E402
from pytest_whetstone.records import Suspect, TestFailureRecord  # noqa: E402

PROJECT = REPO / "tests" / "fixtures" / "native_projects" / "gtest_calc"


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=env, capture_output=True, check=False)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--out", default=str(HERE / "results" / "native_mutant.md"))
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-native-mutant-"))
    proj = scratch / "calc"
    shutil.copytree(PROJECT, proj)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_")}
    env.update(WHETSTONE_DIR=str(proj / ".whetstone"), CC="ccwrap", CXX="ccwrap++")
    subprocess.run(["cmake", "-S", ".", "-B", "build", "-G", "Ninja"], cwd=proj, env=env, capture_output=True,
                   check=True)
    subprocess.run(["cmake", "--build", "build"], cwd=proj, env=env, capture_output=True, check=True)
    failure = TestFailureRecord(failure_id="F1", runner="gtest", test_suite="SumRangeTest",
                                test_name="IncludesUpperBound", file_path="tests/stats_test.cc",
                                suspects=[Suspect("src/stats.cc", "calc::sum_range", 5, 11, 1.0)])
    trial, why = cxx_trial([failure], proj, proj / ".whetstone")
    assert trial is not None, why
    original = (proj / "src/stats.cc").read_text()
    times: dict[str, list[float]] = {k: [] for k in ("trial", "wider", "incremental", "rebuild", "ctest")}
    try:
        for i in range(args.rounds):
            mutated = original.replace("i < hi", "i <= hi") + f"// round {i}\n"  # a new text: nothing cached
            t0 = time.perf_counter()
            out = trial.run_failing("src/stats.cc", mutated)
            times["trial"].append(time.perf_counter() - t0)
            assert out.passed == {"F1"}, out
            mutated += "//\n"
            t0 = time.perf_counter()
            trial.run_failing("src/stats.cc", mutated)
            trial.run_wider("src/stats.cc", mutated)  # reuses the binaries run_failing built
            times["wider"].append(time.perf_counter() - t0)
            os.utime(proj / "src/stats.cc")
            times["incremental"].append(_run(["cmake", "--build", "build"], proj, env)
                                        + _run(["ctest", "--test-dir", "build"], proj, env))
            times["rebuild"].append(_run(["cmake", "--build", "build", "--clean-first"], proj, env)
                                    + _run(["ctest", "--test-dir", "build"], proj, env))
            times["ctest"].append(_run(["ctest", "--test-dir", "build"], proj, env))
    finally:
        trial.close()
        shutil.rmtree(scratch, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    lines = [
        "# One C++ mutant trial beside a rebuild and a test run",
        "",
        f"`python bench/bench_native_mutant.py --rounds {args.rounds}`: the gtest_calc project (CMake + Ninja, "
        "a static library, two gtest binaries under ctest), built through ccwrap; medians of interleaved rounds; "
        f"g++ {subprocess.run(['g++', '-dumpfullversion'], capture_output=True, text=True).stdout.strip()}, "
        f"{os.cpu_count()} cores.",
        "",
        "| what | median s | / trial |",
        "|---|---|---|",
    ]
    for key in times:
        lines.append(f"| {key} | {med[key]:.3f} | {med[key] / med['trial']:.2f}x |")
    lines += ["", "`trial`: compile one unit into a scratch object, swap it into a scratch copy of the archive, "
              "relink the test binary into scratch space, run the failing test with --gtest_filter. `wider`: "
              "that plus the whole binary. `incremental`: touch the source, `cmake --build`, `ctest`. "
              "`rebuild`: `cmake --build --clean-first`, `ctest`."]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
