"""Benchmark ccwrap's cost: (a) added CPU per compiler call, (b) a full make -j2 build.

(a) `gcc -c empty.c` run many times, interleaved in shuffled order, through: plain gcc, the native
    shim, the Python fallback (as installed: a `#!python` script) and ccache with a cold cache
    (CCACHE_RECACHE). CPU is user+sys of the whole process tree from os.wait4.
(b) `make -j2 -B` of a real multi-file C project (the Brotli C library, taken from the Brotli sdist
    on PyPI at bench time), CC=gcc vs CC=ccwrap (native), interleaved rounds.

Usage: python bench/bench_ccwrap.py [--calls N] [--rounds N] [--cflags FLAGS] [--out FILE] [--compare-rev REV]
(--compare-rev adds the native shim as it was at a git revision to (a), to see a change's cost;
the store exists throughout, so every call also records its command for the compile database.)
Writes bench/results/ccwrap.md (medians and ratios).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / "bench" / "_work" / "ccwrap"
sys.path.insert(0, str(REPO))

from ccwrap import native  # noqa: E402

BROTLI = "brotli==1.1.0"


def run_measured(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """(cpu seconds user+sys of the whole tree, wall seconds, exit status)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start, proc.returncode


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WHETSTONE_", "CCACHE_"))}
    env["PATH"] = ":".join(d for d in env.get("PATH", "").split(":") if d and not (Path(d) / "ccwrap").exists())
    env["WHETSTONE_DIR"] = str(WORK / "store")
    return env


def setup_bins() -> tuple[Path, Path]:
    native_dir = WORK / "native"
    if native.build(native_dir) is None:
        sys.exit("bench: could not build the native shim")
    py_dir = WORK / "python"
    py_dir.mkdir(parents=True, exist_ok=True)
    script = py_dir / "ccwrap"  # what setup.py installs without a C compiler (#!python, site on)
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(REPO)!r})\n"
                      "from ccwrap.main import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return native_dir / "ccwrap", script


def build_at_rev(rev: str) -> Path:
    """The native shim as it was at git revision `rev` (to measure a change's per-call cost)."""
    src = WORK / f"rev-{rev}"
    src.mkdir(parents=True, exist_ok=True)
    for name in (*native.SOURCES, "shim.h"):
        text = subprocess.run(["git", "show", f"{rev}:ccwrap/{name}"], cwd=REPO, check=True, capture_output=True).stdout
        (src / name).write_bytes(text)
    out = src / "ccwrap"
    subprocess.run(["gcc", *native.CFLAGS, "-o", str(out), *(str(src / n) for n in native.SOURCES)], check=True)
    return out


def per_call(calls: int, native_bin: Path, py_bin: Path, rev_bin: Path | None = None, rev: str = "") -> dict[str, list[float]]:
    work = WORK / "empty"
    work.mkdir(parents=True, exist_ok=True)
    (work / "empty.c").write_text("int empty;\n")
    env = clean_env()
    variants: dict[str, tuple[list[str], dict[str, str]]] = {
        "gcc (plain)": (["gcc", "-c", "empty.c", "-o", "empty.o"], env),
        "ccwrap native": ([str(native_bin), "gcc", "-c", "empty.c", "-o", "empty.o"], env),
        "ccwrap python fallback": ([str(py_bin), "gcc", "-c", "empty.c", "-o", "empty.o"], env),
    }
    if rev_bin is not None:
        variants[f"ccwrap native at {rev}"] = ([str(rev_bin), "gcc", "-c", "empty.c", "-o", "empty.o"], env)
    if shutil.which("ccache"):
        cache_env = dict(env, CCACHE_DIR=str(WORK / "ccache"), CCACHE_RECACHE="1")
        variants["ccache (cold)"] = (["ccache", "gcc", "-c", "empty.c", "-o", "empty.o"], cache_env)
    samples: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for _ in range(calls):
        random.shuffle(names)
        for name in names:
            cmd, venv = variants[name]
            cpu, _, rc = run_measured(cmd, work, venv)
            if rc != 0:
                sys.exit(f"bench: {name} failed")
            samples[name].append(cpu)
    return samples


def brotli_project(cflags: str) -> Path:
    root = WORK / "brotli"
    src = root / "src"
    if not src.exists():
        dl = WORK / "download"
        dl.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", BROTLI, "--no-binary", ":all:", "--no-deps",
                        "-d", str(dl), "-q"], check=True)
        [sdist] = list(dl.glob("*.tar.gz"))
        with tarfile.open(sdist) as tar:
            tar.extractall(root / "x")  # noqa: S202 - a pinned PyPI sdist
        [top] = list((root / "x").iterdir())
        shutil.copytree(top / "c", src)
    sources = sorted(p.relative_to(src) for p in src.rglob("*.c") if "tools" not in p.parts)
    objs = " ".join(str(s.with_suffix(".o")) for s in sources)
    (src / "Makefile").write_text(
        f"CFLAGS ?= {cflags}\nOBJS := {objs}\nlibbrotli.a: $(OBJS)\n\tar rcs $@ $(OBJS)\n"
        "%.o: %.c\n\t$(CC) $(CFLAGS) -Iinclude -c $< -o $@\n"
    )
    return src


def full_build(rounds: int, native_bin: Path, cflags: str) -> tuple[dict[str, list[float]], dict[str, list[float]], int]:
    src = brotli_project(cflags)
    env = clean_env()
    variants = {"gcc (plain)": "CC=gcc", "ccwrap native": f"CC={native_bin} gcc"}
    cpu: dict[str, list[float]] = {k: [] for k in variants}
    wall: dict[str, list[float]] = {k: [] for k in variants}
    names = list(variants)
    for _ in range(rounds):
        random.shuffle(names)
        for name in names:
            c, w, rc = run_measured(["make", "-j2", "-B", variants[name]], src, env)
            if rc != 0:
                sys.exit(f"bench: make with {name} failed")
            cpu[name].append(c)
            wall[name].append(w)
    return cpu, wall, len(list(src.rglob("*.o")))


def ms(value: float) -> str:
    return f"{value * 1000:.1f} ms"


def report(calls: dict[str, list[float]], cpu: dict[str, list[float]], wall: dict[str, list[float]],
           nobj: int, args: argparse.Namespace) -> str:
    base = statistics.median(calls["gcc (plain)"])
    lines = [
        "# ccwrap benchmark",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, load average at start "
        f"{os.getloadavg()[0]:.1f}; {platform.platform()}; "
        f"{subprocess.run(['gcc', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}.",
        "Written by `python bench/bench_ccwrap.py` "
        f"(--calls {args.calls} --rounds {args.rounds} --cflags '{args.cflags}'"
        f"{' --compare-rev ' + args.compare_rev if args.compare_rev else ''}). "
        "CPU = user+sys of the whole process tree (os.wait4), runs interleaved in shuffled order.",
        "",
        f"## (a) Added CPU per call: `gcc -c empty.c` (prints nothing), {args.calls} calls each",
        "",
        "| variant | median CPU | added vs plain gcc |",
        "|---|---|---|",
    ]
    for name, samples in calls.items():
        med = statistics.median(samples)
        lines.append(f"| {name} | {ms(med)} | {'-' if name == 'gcc (plain)' else '+' + ms(med - base)} |")
    ratio_cpu = statistics.median(cpu["ccwrap native"]) / statistics.median(cpu["gcc (plain)"])
    ratio_wall = statistics.median(wall["ccwrap native"]) / statistics.median(wall["gcc (plain)"])
    lines += [
        "",
        f"## (b) Full build: `make -j2 -B` of the Brotli C library ({nobj} translation units, "
        f"`{args.cflags}`, from the {BROTLI} sdist), {args.rounds} rounds each",
        "",
        "| variant | median CPU | median wall |",
        "|---|---|---|",
    ]
    for name in cpu:
        lines.append(f"| {name} | {statistics.median(cpu[name]):.2f} s | {statistics.median(wall[name]):.2f} s |")
    lines += [
        "",
        f"CPU ratio ccwrap/plain: **{ratio_cpu:.3f}**; wall ratio: **{ratio_wall:.3f}** "
        "(targets: ≤ 10 ms added per call, CPU ratio ≤ 1.05).",
        "",
        "Notes: the native shim is what `pip install` puts on PATH as `ccwrap`; the Python fallback is only "
        "installed when no C compiler is available. Under pyenv, `ccwrap` on PATH is pyenv's bash shim, "
        "which adds its own ~70 ms per call: point CC at the real binary "
        "(`$(pyenv prefix)/bin/ccwrap`) or use a virtualenv. The machine is shared, so absolute numbers "
        "are noisy; the interleaving keeps the comparison fair.",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cflags", default="-O2")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "ccwrap.md")
    parser.add_argument("--compare-rev", default="", metavar="REV", help="also measure the native shim at this git revision")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    native_bin, py_bin = setup_bins()
    rev_bin = build_at_rev(args.compare_rev) if args.compare_rev else None
    calls = per_call(args.calls, native_bin, py_bin, rev_bin, args.compare_rev)
    cpu, wall, nobj = full_build(args.rounds, native_bin, args.cflags)
    text = report(calls, cpu, wall, nobj, args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
