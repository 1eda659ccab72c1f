"""`whetstone run` against the plain command, and against another checkout of the package.

Times whole processes, interleaved run by run, and prints medians and the median of the per-pair
ratios (so drift of a shared machine cancels).  Cases: a command that passes (`true`), a compile
that fails (gcc on a one-line error).  Bytecode is cached for both trees first, as an install has it.

    python bench/bench_run.py [--runs 9] [--compare-tree /path/to/other/checkout]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BAD_C = "int main(void) {\n    return nope;\n}\n"


def _env(tree: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_") and k != "PYTHONDONTWRITEBYTECODE"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return env


def _time(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--compare-tree", type=Path, default=None, help="another checkout to time the same way")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="whetstone-bench-run-") as tmp:
        work = Path(tmp)
        (work / ".git").mkdir()
        (work / "bad.c").write_text(BAD_C)
        cases = {"passing (`true`)": ["true"], "failing compile (gcc)": ["gcc", "-c", "bad.c", "-o", "/dev/null"]}
        trees = {"this tree": REPO} | ({"compared tree": args.compare_tree} if args.compare_tree else {})
        print("| case | plain | " + " | ".join(f"`whetstone run`, {t}" for t in trees) + " | ratio to plain |"
              + (" ratio to compared tree |" if args.compare_tree else ""))
        print("|---|---|" + "---|" * len(trees) + "---|" + ("---|" if args.compare_tree else ""))
        for label, cmd in cases.items():
            runs: dict[str, list[float]] = {"plain": []} | {t: [] for t in trees}
            wrapped = {t: [sys.executable, "-m", "pytest_whetstone", "run", "--", *cmd] for t in trees}
            for t, tree in trees.items():  # warm-up: bytecode written, caches filled
                _time(wrapped[t], work, _env(tree))
            for _ in range(args.runs):
                runs["plain"].append(_time(cmd, work, _env(None)))
                for t, tree in trees.items():
                    runs[t].append(_time(wrapped[t], work, _env(tree)))
            med = {k: statistics.median(v) for k, v in runs.items()}
            to_plain = statistics.median(a / b for a, b in zip(runs["this tree"], runs["plain"], strict=True))
            row = f"| {label} | {med['plain'] * 1000:.0f} ms | " + " | ".join(f"{med[t] * 1000:.0f} ms" for t in trees)
            row += f" | {to_plain:.2f}x |"
            if args.compare_tree:
                pair = statistics.median(a / b for a, b in zip(runs["this tree"], runs["compared tree"], strict=True))
                row += f" {pair:.2f}x |"
            print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
