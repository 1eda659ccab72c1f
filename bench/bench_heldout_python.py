#!/usr/bin/env python3
"""Held-out Python corpus: localization, a default failing run's cost, and `whetstone fix`, on
libraries the project was never developed against.

Libraries (sdists from PyPI with their own pytest suites, fetched at bench time into
bench/_work/heldout/, never committed): boltons, cachetools, semver, parse, inflection.  Their own
pytest configuration asks for pytest-cov; each pristine copy gets a plain ``pytest.ini`` instead
(``pythonpath`` for the src layouts, ``testpaths``), nothing else changes.

Faults are seeded as in bench_fix_python.py (same site finder, deterministic RNG, lines the suite
covers, kept only when the whole suite then fails), by the kinds a user meets: comparison swapped,
dropped ``not``, wrong return value, arithmetic swapped, off-by-one, swapped arguments, changed
exception type in an ``except``, misspelled attribute, misspelled name.

Per fault, in a fresh copy of the library:
  1. the whole suite plainly and with ``-p whetstone`` (default options), timed: the ratio of a
     default failing run; the first failure's suspects give the rank of the mutated function
     (top-1/3/5), and the deepest implementation frame alone is the baseline;
  2. ``whetstone fix`` as bench_fix_python.py runs it, then the whole suite: passes, and the code
     is correct (every source file byte-equal to the original).

    python bench/bench_heldout_python.py [--per-kind 1] [--seed 5] [--budget 25] [--label before]

Only the summary goes to bench/results/heldout_python_<label>.md; the per-fault rows stay in
bench/_work/heldout/rows-<label>.jsonl (held out: not read while tuning).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import bench_fix_python as bfp  # noqa: E402 - bench/ is on sys.path as a script
from fix_python_sites import HELDOUT_KINDS  # noqa: E402
from sdist_suite import fetch_sdist  # noqa: E402

HELDOUT = {
    # name: (pip spec, extracted dir, package dir)
    "boltons": ("boltons==26.2.0", "boltons-26.2.0", "boltons"),
    "cachetools": ("cachetools==8.0.2", "cachetools-8.0.2", "src/cachetools"),
    "semver": ("semver==3.1.2", "semver-3.1.2", "src/semver"),
    "parse": ("parse==1.22.4", "parse-1.22.4", "parse"),
    "inflection": ("inflection==0.5.1", "inflection-0.5.1", "inflection"),
}
TESTPATHS = {"inflection": "test_inflection.py"}
WORK = HERE / "_work" / "heldout"
LABEL = ["run"]  # the run's label: its scratch directories are its own, so two labels can run at once


def prepare(lib: str) -> Path:
    """The pristine library in the bench's temp dir, with a plain pytest.ini (no pytest-cov options)."""
    spec, dirname, _pkg = HELDOUT[lib]
    src = fetch_sdist(spec, dirname, WORK, bfp.PY)
    pristine = bfp.TMP / "pristine-heldout" / dirname
    if not pristine.is_dir():
        pristine.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, pristine, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache"))
        for name in (".pytest.ini", "pytest.ini"):
            (pristine / name).unlink(missing_ok=True)
        (pristine / "pytest.ini").write_text(
            f"[pytest]\npythonpath = src .\ntestpaths = {TESTPATHS.get(lib, 'tests')}\n")
    return pristine


def _install() -> None:
    bfp.LIBS = HELDOUT  # type: ignore[assignment]
    bfp.KINDS = HELDOUT_KINDS  # type: ignore[assignment]
    bfp.WORK = WORK
    bfp.prepare = prepare


def truth_of(fault: bfp.Fault, pristine: Path) -> str:
    tree = ast.parse((pristine / fault.file).read_bytes())
    best = ""
    best_start = -1

    def walk(node: ast.AST, prefix: str) -> None:
        nonlocal best, best_start
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{child.name}"
                end = child.end_lineno or child.lineno
                if not isinstance(child, ast.ClassDef) and child.lineno <= fault.line <= end and child.lineno > best_start:
                    best, best_start = qual, child.lineno
                inner = qual + (".<locals>." if not isinstance(child, ast.ClassDef) else ".")
                walk(child, inner)
            else:
                walk(child, prefix)

    walk(tree, "")
    return best


def _first_failure(store: Path) -> dict | None:
    sessions = sorted((store / "sessions").glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    records: list[dict] = []
    for path in sessions[-1:]:
        for line in path.read_text().splitlines():
            event = json.loads(line)
            if event["event"] == "test_failures":
                records = event["data"]["records"]
    live = [r for r in records if not r.get("flaky") and r.get("outcome") != "error"] or records
    return live[0] if live else None


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    t0 = time.perf_counter()
    try:
        rc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            timeout=600, check=False).returncode
    except subprocess.TimeoutExpired:
        rc = -1
    return time.perf_counter() - t0, rc


def localize(fault: bfp.Fault, plugin_args: list[str]) -> dict:
    pristine = prepare(fault.lib)
    ws = bfp.TMP / f"runs-heldout-{LABEL[0]}" / fault.fault_id
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(pristine, ws)
    original = (pristine / fault.file).read_bytes()
    (ws / fault.file).write_bytes(original[: fault.start] + fault.new.encode() + original[fault.end:])
    env = bfp.base_env()
    store = ws / ".whetstone"
    env["WHETSTONE_DIR"] = str(store)
    base = [bfp.PY, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    plain_s, _ = _timed([*base, "-p", "no:whetstone"], ws, env)
    ws_s, _ = _timed([*base, "-p", "whetstone", *plugin_args], ws, env)
    plain2_s, _ = _timed([*base, "-p", "no:whetstone"], ws, env)
    rec = _first_failure(store)
    truth = truth_of(fault, pristine)
    row: dict = {"plain_s": round(min(plain_s, plain2_s), 3), "whetstone_s": round(ws_s, 3), "truth": truth,
                 "rank": None, "deep_hit": False, "failure_type": None}
    if rec is not None:
        quals = [s["qualname"] if s["file_path"] == fault.file else "?" for s in rec.get("suspects", [])]
        row["rank"] = next((i + 1 for i, q in enumerate(quals) if q == truth), None)
        row["failure_type"] = rec.get("failure_type")
        if rec.get("impl_file") == fault.file and rec.get("impl_line"):
            sys.path.insert(0, str(HERE.parent))
            from pytest_whetstone.locate.python import enclosing_function

            fn = enclosing_function(str(ws / fault.file), int(rec["impl_line"]))
            row["deep_hit"] = bool(fn and fn.qualname == truth)
    shutil.rmtree(ws, ignore_errors=True)
    return row


def search_rank(fault: bfp.Fault, truth: str) -> int | None:
    """Rank of the truth in the first fix run's suspects as the search left them (re-ranked by its
    mutants when it ran): the last failure batch before that run's `search` event."""
    path = bfp.WORK / "sessions" / f"{fault.fault_id}.jsonl"
    try:
        events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError):
        return None
    batch: list[dict] = []
    for event in events:
        if event.get("event") == "test_failures":
            batch = event["data"]["records"]
        elif event.get("event") == "search" and batch:
            break
    live = [r for r in batch if not r.get("flaky") and r.get("outcome") != "error"] or batch
    if not live:
        return None
    quals = [s["qualname"] if s["file_path"] == fault.file else "?" for s in live[0].get("suspects", [])]
    return next((i + 1 for i, q in enumerate(quals) if q == truth), None)


def code_correct(row: dict) -> bool:
    return bool(row.get("byte_equal"))


def _pct(rows: list[dict], pred) -> str:  # type: ignore[no-untyped-def]
    n = sum(1 for r in rows if pred(r))
    return f"{n}/{len(rows)} ({100 * n / len(rows):.0f}%)" if rows else "-"


def write_summary(rows: list[dict], args: argparse.Namespace, n_corpus: int) -> None:
    def top(k: int):  # type: ignore[no-untyped-def]
        return lambda r: r.get("rank") is not None and r["rank"] <= k

    ratios = [r["whetstone_s"] / r["plain_s"] for r in rows if r.get("plain_s")]
    rows_all, rows = rows, [r for r in rows if "plain_s" in r]
    fixed = [r for r in rows_all if "success" in r]
    lines = [
        f"# Held-out Python corpus ({args.label})",
        "",
        f"`python bench/bench_heldout_python.py --per-kind {args.per_kind} --seed {args.seed} --budget {args.budget} "
        f"--label {args.label}` on {time.strftime('%Y-%m-%d %H:%M')}, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores shared with other work{'; ' + args.note if args.note else ''}.",
        "",
        f"The `-p whetstone` run of each fault: `{' '.join(['-p whetstone', *args.plugin_args.split()])}`.",
        "",
        f"Libraries: {', '.join(s for s, _d, _p in HELDOUT.values())}; kinds: {', '.join(HELDOUT_KINDS)}. "
        f"Corpus {n_corpus} kept faults, {len(rows)} measured. Per-fault rows are kept out of this file (held out).",
        "",
        "| measure | all |",
        "|---|---|",
        f"| localization top-1 (function, first failure's suspects, default run) | {_pct(rows, top(1))} |",
        f"| top-3 | {_pct(rows, top(3))} |",
        f"| top-5 | {_pct(rows, top(5))} |",
        f"| deepest implementation frame alone, top-1 | {_pct(rows, lambda r: r.get('deep_hit'))} |",
        f"| default failing run / plain failing run (whole suite), median | "
        f"{statistics.median(ratios):.2f}x (max {max(ratios):.2f}x) |" if ratios else "| ratio | - |",
        f"| localization top-1 / top-5 in the first `whetstone fix` run (search on: mutant outcomes) | "
        f"{_pct(fixed, lambda r: r.get('search_rank') == 1)} / "
        f"{_pct(fixed, lambda r: (r.get('search_rank') or 99) <= 5)} |",
        f"| `whetstone fix`: whole suite passes, code correct (byte-equal) | {_pct(fixed, code_correct)} |",
        f"| `whetstone fix`: whole suite passes | {_pct(fixed, lambda r: r.get('suite_passes'))} |",
        f"| `whetstone fix` converged | {_pct(fixed, lambda r: r.get('converged'))} |",
        f"| validated candidate after the first run | {_pct(fixed, lambda r: r.get('validated_first'))} |",
        "",
        "| kind | n | top-1 | top-5 | fixed (correct) |",
        "|---|---|---|---|---|",
    ]
    for kind in HELDOUT_KINDS:
        sub = [r for r in rows_all if r["kind"] == kind]
        loc = [r for r in sub if "plain_s" in r]
        if sub:
            lines.append(f"| {kind} | {len(sub)} | {_pct(loc, top(1))} | {_pct(loc, top(5))} | "
                         f"{_pct([r for r in sub if 'success' in r], code_correct)} |")
    lines += ["", "| library | n | top-1 | top-5 | fixed (correct) |", "|---|---|---|---|---|"]
    for lib in HELDOUT:
        sub = [r for r in rows_all if r["lib"] == lib]
        loc = [r for r in sub if "plain_s" in r]
        if sub:
            lines.append(f"| {lib} | {len(sub)} | {_pct(loc, top(1))} | {_pct(loc, top(5))} | "
                         f"{_pct([r for r in sub if 'success' in r], code_correct)} |")
    out = HERE / "results" / f"heldout_python_{args.label}.md"
    out.write_text("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--per-kind", type=int, default=1)
    ap.add_argument("--max-tries", type=int, default=12)
    ap.add_argument("--budget", type=float, default=25.0)
    ap.add_argument("--label", default="before")
    ap.add_argument("--note", default="")
    ap.add_argument("--no-fix", action="store_true", help="localization and cost only")
    ap.add_argument("--fix-only", action="store_true", help="only the `whetstone fix` subset, no localization runs")
    ap.add_argument("--plugin-args", default="", help="extra options of the `-p whetstone` run (localization)")
    ap.add_argument("--fix-limit", type=int, default=0,
                    help="run `whetstone fix` only on the first N faults, taken round-robin over the kinds")
    ap.add_argument("--corpus-only", action="store_true")
    args = ap.parse_args()
    _install()
    LABEL[0] = args.label
    bfp.TMP.mkdir(parents=True, exist_ok=True)
    corpus = bfp.build_corpus(args.per_kind, args.seed, args.max_tries)
    print(f"corpus: {len(corpus)} faults", flush=True)
    if args.corpus_only:
        return 0
    bfp.TMP = bfp.TMP / args.label  # scratch copies and kept sessions of this label only
    bfp.WORK = WORK / args.label
    bfp.TMP.mkdir(parents=True, exist_ok=True)
    rows_path = WORK / f"rows-{args.label}.jsonl"
    rows_path.write_text("")
    rows: list[dict] = []
    by_kind: dict[str, list[bfp.Fault]] = {}
    for f in corpus:
        by_kind.setdefault(f.kind, []).append(f)
    round_robin = [g[i] for i in range(max(map(len, by_kind.values()), default=0)) for g in by_kind.values() if i < len(g)]
    fix_ids = {f.fault_id for f in round_robin[: args.fix_limit or len(round_robin)]}
    for i, fault in enumerate(corpus, 1):
        if args.fix_only and fault.fault_id not in fix_ids:
            continue
        row = {"fault_id": fault.fault_id, "lib": fault.lib, "kind": fault.kind,
               **({"truth": truth_of(fault, prepare(fault.lib))} if args.fix_only
                  else localize(fault, args.plugin_args.split()))}
        if not args.no_fix and fault.fault_id in fix_ids:
            fix = bfp.run_fault(fault, args.budget)
            row.update({k: fix[k] for k in ("suite_passes", "byte_equal", "success", "converged",
                                             "validated_first", "attempts", "wall_s")})
            row["search_rank"] = search_rank(fault, row["truth"])
        rows.append(row)
        with rows_path.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        print(f"[{i}/{len(corpus)}] done", flush=True)  # no per-case outcome on screen: held out
        write_summary(rows, args, len(corpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
