#!/usr/bin/env python3
"""CPU overhead of `pytest -p whetstone` on real passing suites (>= 1,000 tests).

Downloads sdists of real pure-Python libraries into bench/_work/plugin/ (never committed),
builds a dedicated virtualenv there holding only pytest, what the suites need, the comparison
plugins and this checkout (so plugins installed elsewhere on the machine load in no
configuration and do not dilute the ratio), and runs each suite interleaved: plain pytest (`-p no:whetstone`), `-p whetstone`, and for
comparison `--junitxml`, pytest-json-report and pytest-reportlog (pip-installed at run time).
Reports the median CPU time (user+sys of the child), the ratio of medians to plain pytest and
the median of per-round paired ratios (each configuration against the plain run of the same
round, which cancels slow drifts in machine load).

    python bench/bench_plugin_overhead.py [--rounds 5] [--suites dateutil,more-itertools]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work" / "plugin"
RESULTS = HERE / "results" / "plugin_overhead.md"

SUITES = {
    # name: (sdist spec, extracted dir, test path inside it [+ arguments], extra pip packages)
    # dateutil's conftest marks items `no_cover`, which pytest-cov registers (filterwarnings=error).
    "dateutil": ("python-dateutil==2.9.0.post0", "python-dateutil-2.9.0.post0", "tests",
                 ["freezegun", "six", "hypothesis", "pytest-cov"]),
    "more-itertools": ("more-itertools==10.5.0", "more-itertools-10.5.0", "tests", []),
    "mistune": ("mistune==3.0.2", "mistune-3.0.2", "tests", []),
}

CONFIGS = {
    "plain": ["-p", "no:whetstone"],
    "whetstone": ["-p", "whetstone"],
    "junitxml": ["-p", "no:whetstone", "--junitxml={tmp}/junit.xml"],
    "json-report": ["-p", "no:whetstone", "--json-report", "--json-report-file={tmp}/report.json"],
    "reportlog": ["-p", "no:whetstone", "--report-log={tmp}/log.jsonl"],
}


ROOT = HERE.parent
VENV = WORK / "venv"
PYTHON = str(VENV / "bin" / "python")


def pip(*args: str) -> None:
    subprocess.run([PYTHON, "-m", "pip", "-q", "--disable-pip-version-check", *args], check=True)


def make_venv(source: Path) -> None:
    if not (VENV / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    # a regular (non-editable) install: what users get, without an import-hook finder
    pip("install", "pytest", "pytest-json-report", "pytest-reportlog")
    pip("install", str(source))  # dependencies
    pip("install", "--force-reinstall", "--no-deps", str(source))  # this checkout, even if the version is unchanged


def prepare(name: str) -> Path:
    spec, dirname, _tests, extra = SUITES[name]
    target = WORK / dirname
    if not target.is_dir():
        sdists = WORK / "sdists"
        sdists.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "-q", "download", "--no-binary", ":all:", "--no-deps",
                        spec, "-d", str(sdists)], check=True)
        archive = next(sdists.glob(dirname + ".tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(WORK)  # noqa: S202 - a registry sdist we just downloaded
    if extra:
        pip("install", *extra)
    # the library itself, so a copy pulled in by an extra (freezegun -> dateutil) is this version
    pip("install", "--no-deps", "--force-reinstall", str(target))
    # an empty ini pins rootdir to the library, so no enclosing checkout's pytest config applies
    if not any((target / n).exists() for n in ("pytest.ini",)) and "[tool:pytest]" not in _read(
        target / "setup.cfg"
    ) and "[pytest]" not in _read(target / "tox.ini") and "[tool.pytest" not in _read(target / "pyproject.toml"):
        (target / "pytest.ini").write_text("[pytest]\n")
    return target


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def cpu_run(cmd: list[str], cwd: Path) -> tuple[float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--suites", default=",".join(SUITES))
    parser.add_argument("--source", default=str(ROOT), help="the whetstone source tree to install (default: this one)")
    args = parser.parse_args()
    make_venv(Path(args.source))
    version = subprocess.run([PYTHON, "-m", "pytest", "--version"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# Plugin overhead on passing suites",
        "",
        f"Interleaved runs, {args.rounds} rounds; CPU = user+sys of the pytest process; ratio = median / median(plain);",
        "paired = median over rounds of (this run / the plain run of the same round).",
        f"Python {sys.version.split()[0]}, {version}, a dedicated virtualenv (only pytest, the suites' needs,",
        f"the comparison plugins, whetstone); load average at start {os.getloadavg()[0]:.1f};",
        f"generated by bench/bench_plugin_overhead.py on {time.strftime('%Y-%m-%d')}.",
        "",
        "| suite | tests | config | median CPU s | ratio | paired ratio | spread (min-max s) | exit codes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in args.suites.split(","):
        root = prepare(name)
        tests = SUITES[name][2]
        tmp = WORK / "tmp"
        tmp.mkdir(exist_ok=True)
        count = subprocess.run(
            [PYTHON, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *tests.split()],
            cwd=root, capture_output=True, text=True,
        ).stdout.strip().splitlines()
        n_tests = sum(1 for line in count if "::" in line)
        samples: dict[str, list[float]] = {c: [] for c in CONFIGS}
        codes: dict[str, set[int]] = {c: set() for c in CONFIGS}
        for rnd in range(args.rounds):
            order = list(CONFIGS) if rnd % 2 == 0 else list(reversed(CONFIGS))
            for config in order:
                extra = [a.format(tmp=tmp) for a in CONFIGS[config]]
                cmd = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, *tests.split()]
                cpu, code = cpu_run(cmd, root)
                samples[config].append(cpu)
                codes[config].add(code)
                print(f"{name} round {rnd} {config}: {cpu:.2f}s (exit {code})", flush=True)
        base = statistics.median(samples["plain"])
        for config in CONFIGS:
            med = statistics.median(samples[config])
            paired = statistics.median(x / p for x, p in zip(samples[config], samples["plain"], strict=True))
            spread = f"{min(samples[config]):.2f}-{max(samples[config]):.2f}"
            lines.append(
                f"| {name} | {n_tests} | {config} | {med:.2f} | {med / base:.3f} | {paired:.3f} | {spread} "
                f"| {sorted(codes[config])} |"
            )
    lines += [
        "",
        "Target: whetstone ratio <= 1.03 (the plugin only registers its collector when enabled, and on a",
        "passing run does nothing per test beyond a dict update in pytest_runtest_logreport).",
    ]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
