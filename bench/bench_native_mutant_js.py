"""Cost of one JavaScript mutant in the native trial, beside a full test run of the same project.

Two small projects from tests/fixtures (Jest 29: jest_cart and js_trial/jest_ledger; node:test:
js_trial/node_stock) are copied into bench/_work/mutant_js (Jest installed there with npm once).  For
each, the full run is the user's command in the project (``npx jest --ci``, ``node --test``); the trial
is ``native_trial_js.js_trial`` on the failures that run recorded: its one-off scratch copy, the
baseline, then every mutant of a fixed list (one-token swaps inside the faulty function) through
``run_failing`` (only the failing tests) and a few through ``run_wider`` (the whole suite).

    python bench/bench_native_mutant_js.py [--repeat 3] [--out bench/results/native_mutant_js.md]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from pytest_whetstone.candidates.native_trial_js import js_trial
from pytest_whetstone.parse import parse_text

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
WORK = ROOT / "bench" / "_work" / "mutant_js"


@dataclass
class Project:
    name: str
    fixture: Path
    command: list[str]
    source: str  # the mutated file
    mutants: list[tuple[str, str]]  # (old, new): one replacement each
    install: str = ""


PROJECTS = [
    Project("Jest: jest_cart", FIXTURES / "native_projects" / "jest_cart", ["npx", "jest", "--ci"], "src/cart.js", [
        ("items.length - 1", "items.length"), ("items.length - 1", "items.length + 1"), ("i < items", "i <= items"),
        ("let total = 0", "let total = 1"), ("total += ", "total -= "), ("i++", "i--;break;"),
        ("total >= 100", "total > 100"), ("? 0 : 5", "? 0 : 7"), ("? 0 : 5", "? 5 : 0"), ("code === 'HALF'", "code !== 'HALF'"),
        ("total / 2", "total * 2"), ("item.price * item.qty", "item.price + item.qty"),
    ], install="jest@29"),
    Project("Jest: jest_ledger", FIXTURES / "js_trial" / "jest_ledger", ["npx", "jest", "--ci"], "src/ledger.js", [
        ("entries.length - 1", "entries.length"), ("entries.length - 1", "entries.length - 2"),
        ("i < entries", "i <= entries"), ("let sum = 0", "let sum = 1"), ("sum += ", "sum -= "),
        ("amount * rate(code) * 100", "amount * rate(code) * 10"), ("/ 100", "/ 10"), ("return sum;", "return -sum;"),
        ("let i = 0", "let i = 1"), ("Math.round", "Math.floor"),
    ], install="jest@29"),
    Project("node:test: node_stock", FIXTURES / "js_trial" / "node_stock", ["node", "--test"], "lib/stock.js", [
        ("level - count", "level + count"), ("level - count", "count - level"), ("level - count", "level * count"),
        ("level - count", "level - count - 1"), ("return level", "return -level"), ("< threshold", "<= threshold"),
        ("< threshold", "> threshold"), ("[name]", "[name] + 1"),
    ]),
]


@dataclass
class Figures:
    name: str
    full_s: list[float] = field(default_factory=list)
    copy_s: float = 0.0
    baseline_s: float = 0.0
    failing_s: list[float] = field(default_factory=list)
    wider_s: list[float] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)
    note: str = ""


def prepare(p: Project) -> Path:
    proj = WORK / p.fixture.name
    if not proj.exists():
        shutil.copytree(p.fixture, proj)
    if p.install and not (proj / "node_modules" / ".bin" / "jest").exists():
        subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefer-offline", p.install],
                       cwd=proj, check=True, capture_output=True, timeout=300)
    return proj


def measure(p: Project, repeat: int) -> Figures:
    fig = Figures(p.name)
    proj = prepare(p)
    out = ""
    for _ in range(repeat):
        t0 = time.monotonic()
        done = subprocess.run(p.command, cwd=proj, capture_output=True, text=True, timeout=300)
        fig.full_s.append(time.monotonic() - t0)
        out = done.stdout + done.stderr
    failures = parse_text(out).test_failures
    t0 = time.monotonic()
    trial, why = js_trial(failures, proj, command=" ".join(p.command), timeout_s=10.0)
    fig.copy_s = time.monotonic() - t0
    if trial is None:
        fig.note = why
        return fig
    try:
        base = trial.baseline()
        fig.baseline_s = base.seconds
        src = (proj / p.source).read_text(encoding="utf-8")
        for i, (old, new) in enumerate(p.mutants):
            text = src.replace(old, new, 1)
            o = trial.run_failing(p.source, text)
            fig.failing_s.append(o.seconds)
            kind = ("error" if o.error else "fixes" if o.passed and not o.failing
                    else "changes" if o.failing != base.failing else "same")
            fig.outcomes[kind] = fig.outcomes.get(kind, 0) + 1
            if i < 3:
                t0 = time.monotonic()
                trial.run_wider(p.source, text)
                fig.wider_s.append(time.monotonic() - t0)
    finally:
        trial.close()
    return fig


def report(figs: list[Figures], repeat: int) -> str:
    import platform

    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# Cost of one JS mutant (native trial)",
        "",
        "`python bench/bench_native_mutant_js.py` — per project: the full test run (the user's command, "
        f"median of {repeat}), the trial's one-off scratch copy and baseline, then each mutant of a fixed "
        "list through `run_failing` (only the failing tests: Jest `--runTestsByPath <file> -t <title>`, "
        "`node --test --test-name-pattern`) and the first three through `run_wider` (the whole suite).",
        f"node {node}, Jest 29, {platform.machine()}, 2 shared cores.",
        "",
        "| project | full run s | copy s | baseline s | mutants | median run_failing s | max s | median run_wider s "
        "| run_failing / full | outcomes |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in figs:
        if f.note:
            lines.append(f"| {f.name} | {statistics.median(f.full_s):.2f} | — | — | 0 | — | — | — | — | {f.note} |")
            continue
        full = statistics.median(f.full_s)
        med = statistics.median(f.failing_s)
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(f.outcomes.items()))
        lines.append(
            f"| {f.name} | {full:.2f} | {f.copy_s:.2f} | {f.baseline_s:.2f} | {len(f.failing_s)} | {med:.2f} "
            f"| {max(f.failing_s):.2f} | {statistics.median(f.wider_s):.2f} | {med / full:.2f} | {outcomes} |")
    every = [s for f in figs for s in f.failing_s]
    if every:
        lines += ["", f"All mutants: median run_failing {statistics.median(every):.2f} s over {len(every)} mutants."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="projects whose name contains this")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "native_mutant_js.md")
    args = ap.parse_args(argv)
    if not shutil.which("node") or not shutil.which("npm"):
        print("node and npm are needed", file=sys.stderr)
        return 2
    WORK.mkdir(parents=True, exist_ok=True)
    figs = [measure(p, args.repeat) for p in PROJECTS if args.only in p.name]
    text = report(figs, args.repeat)
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
