"""Per-file gate cost on a real project's translation units (not a test; run by hand).

    python bench/bench_gate.py [--rounds N]

Builds the Brotli C library (brotli 1.1.0 sdist from PyPI, downloaded at bench time into
bench/_work/gate/) through the native ccwrap into a scratch store, then for every translation
unit measures, interleaved: the plain recorded compile (``gcc -c``), and the gate re-checking
the unit with an edit (a comment appended, so the scratch mirror is exercised), and re-checking
after an edit of a header included by many units (a sample of them).  Writes
bench/results/gate.md (medians; target: gate median ≤ 0.5 s per unit).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from ccwrap import native  # noqa: E402
from pytest_whetstone.build.compdb import CompileDatabase  # noqa: E402
from pytest_whetstone.build.gate import Gate, syntax_only_args  # noqa: E402

WORK = HERE / "_work" / "gate"
BROTLI = "brotli==1.1.0"


def project() -> Path:
    src = WORK / "brotli"
    if not src.exists():
        dl = WORK / "download"
        dl.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", BROTLI, "--no-binary", ":all:", "--no-deps", "-d", str(dl), "-q"], check=True)
        [sdist] = list(dl.glob("*.tar.gz"))
        with tarfile.open(sdist) as tar:
            tar.extractall(WORK / "x", filter="data")
        [top] = list((WORK / "x").iterdir())
        top.joinpath("c").rename(src)
    sources = sorted(p.relative_to(src) for p in src.rglob("*.c") if "tools" not in p.parts)
    objs = " ".join(str(s.with_suffix(".o")) for s in sources)
    (src / "Makefile").write_text(
        f"OBJS := {objs}\nlibbrotli.a: $(OBJS)\n\tar rcs $@ $(OBJS)\n"
        "%.o: %.c\n\t$(CC) -O2 -MMD -Iinclude -c $< -o $@\n"
    )
    return src


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    src = project()
    bindir = WORK / "bin"
    if native.build(bindir) is None:
        sys.exit("cannot build the native ccwrap")
    store = WORK / "store"
    store.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, WHETSTONE_DIR=str(store))
    subprocess.run(["make", "-s", "-B", "-j2", f"CC={bindir / 'ccwrap'} gcc"], cwd=src, env=env, check=True)
    db = CompileDatabase.from_store(store)
    units = db.sources()
    plain: list[float] = []
    raw: list[float] = []
    gated: list[float] = []
    with Gate(src, db) as gate:
        for _ in range(args.rounds):
            order = list(units)
            random.shuffle(order)
            for source in order:
                command = db.for_source(source)[0]
                t0 = time.perf_counter()
                subprocess.run(command.arguments[:-1] + [str(WORK / "plain.o")] if command.arguments[-2] == "-o" else command.arguments,
                               cwd=command.directory, check=True, capture_output=True)
                plain.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                subprocess.run(syntax_only_args(command, source, None, src), cwd=command.directory, capture_output=True, check=True)
                raw.append(time.perf_counter() - t0)
                text = Path(source).read_text() + "\n/* edited */\n"
                t0 = time.perf_counter()
                result = gate.check({source: text})
                gated.append(time.perf_counter() - t0)
                if not result.ok:
                    sys.exit(f"gate failed on an unbroken unit {source}: {result.message or result.errors[:1]}")
        header = src / "common" / "platform.h"
        users = db.including(header, limit=10_000)
        header_times: list[float] = []
        for _ in range(args.rounds * 3):
            t0 = time.perf_counter()
            result = gate.check({header: header.read_text() + "\n"})
            header_times.append(time.perf_counter() - t0)
        sampled = len(result.units)
    lines = [
        "# Per-file gate cost",
        "",
        f"Written by `python bench/bench_gate.py --rounds {args.rounds}`: the Brotli C library ({BROTLI} sdist, "
        f"{len(units)} translation units, `-O2`), built through ccwrap; machine: {os.cpu_count()} CPUs shared, "
        f"load average at start {os.getloadavg()[0]:.1f}; "
        f"{subprocess.run(['gcc', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}.",
        "",
        "| what | median wall | p90 wall |",
        "|---|---|---|",
        f"| plain recorded compile (`gcc -O2 -c`) of one unit | {statistics.median(plain):.3f} s | {sorted(plain)[int(len(plain) * 0.9)]:.3f} s |",
        f"| the same command in syntax-only mode, run bare | {statistics.median(raw):.3f} s | {sorted(raw)[int(len(raw) * 0.9)]:.3f} s |",
        f"| gate: one edited unit, syntax-only, parsed | {statistics.median(gated):.3f} s | {sorted(gated)[int(len(gated) * 0.9)]:.3f} s |",
        f"| gate: edited `common/platform.h` (included by {len(users)} units; {sampled} checked) | {statistics.median(header_times):.3f} s | {max(header_times):.3f} s |",
        "",
        f"Gate/plain compile ratio (medians): **{statistics.median(gated) / statistics.median(plain):.2f}** (target: gate median ≤ 0.5 s per unit).",
        "",
    ]
    out = HERE / "results" / "gate.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
