#!/usr/bin/env python3
"""Per-failure cost of the pytest plugin on real libraries, and what its default candidates restore.

For seeded single mutations (the generator of bench_localize.py) in more-itertools (more.py,
~5,000 lines; tests/test_more.py ~6,000 lines) and toolz, runs the library's own suite once with
``-p whetstone --whetstone-search=0`` (candidates on: the default) and reads the session's
``plugin_stats``: ``analysis_ms`` per failing test (capture + classification + static
localization, lazy imports included, the re-run excluded) and ``candidates_ms`` (the default,
unvalidated candidate generation for all failures).  Also reports, per mutation kind, how often
a default candidate's edits turn the mutated file back into the original bytes.

Sources are bytecode-compiled once into a private cache (PYTHONPYCACHEPREFIX, as an installed
package would be); the library's own cache entries are dropped before each run so a mutant is
never served stale bytecode.

    python bench/bench_plugin_failure.py [--per-lib 8] [--seed 3] [--label after]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from bench_localize import CLASSIC_LIBS, LIBS, Mutant, lib_env, prepare, sites  # noqa: E402

from pytest_whetstone.edits import apply_edits_text  # noqa: E402
from pytest_whetstone.records import FixCandidate  # noqa: E402

WORK = HERE / "_work" / "failure"
RESULTS = HERE / "results" / "plugin_failure.md"


def import_sites(root: Path, rel: str) -> list[Mutant]:
    """Removed imports as bench_fix_python.py seeds them: a one-name statement, or one name of a list."""
    import ast

    text = (root / rel).read_text()
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    lines = text.splitlines(keepends=True)

    def off(line: int, col: int) -> int:
        return starts[line - 1] + len(lines[line - 1].encode()[:col].decode(errors="replace"))

    out: list[Mutant] = []
    for stmt in ast.parse(text).body:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)) or getattr(stmt, "module", "") == "__future__":
            continue
        if len(stmt.names) == 1:
            a, b = starts[stmt.lineno - 1], starts[stmt.end_lineno or stmt.lineno]
            out.append(Mutant("", rel, stmt.lineno, "removed import name", text[a:b], "", a, b))
            continue
        for i, alias in enumerate(stmt.names):
            a0, b0 = off(alias.lineno, alias.col_offset), off(alias.end_lineno or alias.lineno, alias.end_col_offset or 0)
            if i + 1 < len(stmt.names):
                nxt = stmt.names[i + 1]
                a, b = a0, off(nxt.lineno, nxt.col_offset)
            else:
                prev = stmt.names[i - 1]
                a, b = off(prev.end_lineno or prev.lineno, prev.end_col_offset or 0), b0
            out.append(Mutant("", rel, alias.lineno, "removed import name", text[a:b], "", a, b))
    return out


def run(root: Path, tests: str, store: Path, env: dict[str, str],
        options: tuple[str, ...] = ("-p", "whetstone", "--whetstone-search=0")) -> tuple[float, int]:
    shutil.rmtree(store, ignore_errors=True)
    prefix = Path(env["PYTHONPYCACHEPREFIX"])
    shutil.rmtree(prefix / root.resolve().relative_to("/"), ignore_errors=True)  # no stale mutant bytecode
    # without the plugin its options do not exist: pytest would stop at once with a usage error
    own = [] if "no:whetstone" in options else [f"--whetstone-dir={store}"]
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout=15", *options, *own, tests],
        cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, timeout=900,
    )
    return time.perf_counter() - t0, proc.returncode


def side_by_side(root: Path, tests: str, env: dict[str, str], search: bool = True, before: str = "",
                 rounds: int = 1) -> dict:
    """The same failing suite without the plugin, with `-p whetstone` as installed (defaults) and with
    `--whetstone-search=1` (unless ``search`` is false), interleaved; and the search's own time to its
    first validated candidate.  ``before``: another source tree (first on PYTHONPATH) whose default run
    is interleaved with the others, so both trees meet the same load; ``rounds``: medians over that many."""
    store = WORK / "store-sbs"
    plains, defaults, befores = [], [], []
    spectra = None
    for _ in range(max(1, rounds)):
        plains.append(run(root, tests, store, env, ("-p", "no:whetstone"))[0])
        defaults.append(run(root, tests, store, env, ("-p", "whetstone"))[0])
        spectra = (session_events(store).get("plugin_stats") or [{}])[-1].get("spectra")
        if before:
            old_env = {**env, "PYTHONPATH": os.pathsep.join(p for p in (before, env.get("PYTHONPATH", "")) if p)}
            befores.append(run(root, tests, store, old_env, ("-p", "whetstone"))[0])
    plains.append(run(root, tests, store, env, ("-p", "no:whetstone"))[0])
    base = statistics.median(plains) if rounds > 1 else min(plains)
    default = statistics.median(defaults)
    out = {"plain_s": base, "default_s": default, "default_ratio": default / base, "spectra": spectra}
    if before:
        out.update(before_s=statistics.median(befores), before_ratio=statistics.median(befores) / base)
    if search:
        searched, _ = run(root, tests, store, env, ("-p", "whetstone", "--whetstone-search=1"))
        stats = (session_events(store).get("search") or [{}])[-1]
        out.update(search_s=searched, search_ratio=searched / base, first_validated_s=stats.get("first_validated_s"),
                   search_elapsed_s=stats.get("elapsed_s"))
    return out


def session_events(store: Path) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for path in (store / "sessions").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            out.setdefault(event["event"], []).append(event["data"])
    return out


GEN = """
import json, sys, time
from pathlib import Path
from pytest_whetstone.records import TestFailureRecord
from pytest_whetstone.candidates.python_tests import generate_test_candidates
records = []
for path in Path(sys.argv[1]).glob("sessions/*.jsonl"):
    for line in path.read_text().splitlines():
        event = json.loads(line)
        if event["event"] == "test_failures":
            records = [TestFailureRecord.from_dict(r) for r in event["data"]["records"]]
live = [r for r in records if not r.flaky and r.outcome != "error"][: int(sys.argv[3])]
t0 = time.perf_counter()
generate_test_candidates(live, Path(sys.argv[2]))
print((time.perf_counter() - t0) * 1000 / max(1, len(live)))
"""


def standalone_ms(store: Path, root: Path, env: dict[str, str], limit: int = 5) -> float | None:
    """Default candidate generation per failure, timed in a fresh process (same code for any tree)."""
    try:
        proc = subprocess.run([sys.executable, "-c", GEN, str(store), str(root), str(limit)], capture_output=True,
                              text=True, env=env, timeout=1800)
        return float(proc.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        return None


def restores(cands: list[dict], mutated: str, original: str, rel: str) -> tuple[bool, bool]:
    """(some default candidate restores the file exactly, the top-ranked one with edits does)."""
    any_hit = top_hit = False
    first = True
    for cand in cands:
        fc = FixCandidate.from_dict(cand)
        if not fc.edits or any(e.file_path != rel for e in fc.edits):
            continue
        try:
            hit = apply_edits_text(mutated, fc.edits) == original
        except Exception:  # noqa: BLE001 - overlapping or out-of-range edits: not a restore
            hit = False
        any_hit = any_hit or hit
        if first:
            top_hit, first = hit, False
    return any_hit, top_hit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-lib", type=int, default=8)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--label", default="after")
    parser.add_argument("--kinds", default="", help="comma-separated mutation kinds (default: all)")
    parser.add_argument("--libs", default=",".join(CLASSIC_LIBS), help="comma-separated libraries of bench_localize")
    parser.add_argument("--side-by-side", action="store_true",
                        help="also time each failing suite plainly, with default options and with the search on")
    parser.add_argument("--no-search-run", action="store_true", help="side by side without the search-on run")
    parser.add_argument("--before", default="", help="side by side: also time the default run of this source tree "
                        "(a `git archive` of the old commit's pytest_whetstone, put first on PYTHONPATH), interleaved")
    parser.add_argument("--rounds", type=int, default=1, help="side by side: medians over this many interleaved rounds")
    parser.add_argument("--work", default="", help="working directory (default bench/_work/failure); two runs "
                        "at once (say before and after a change, under the same load) need two")
    args = parser.parse_args()
    if args.work:
        global WORK
        WORK = Path(args.work).resolve()
    rng = random.Random(args.seed)
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(WORK / "pyc"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for key in ("WHETSTONE_DIR", "WHETSTONE_SESSION", "WHETSTONE_NESTED", "WHETSTONE_PYTEST", "WHETSTONE_SEARCH"):
        env.pop(key, None)
    rows: list[dict] = []
    base_env = env
    for lib in args.libs.split(","):
        _spec, dirname, pkg, tests = LIBS[lib]
        src_root = prepare(lib)
        root = WORK / dirname
        env = lib_env(lib, root, base_env)
        if not root.is_dir():
            shutil.copytree(src_root, root, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        files = sorted(str(p.relative_to(root)) for p in (root / pkg).glob("*.py")
                       if "test" not in p.name and p.name not in ("__init__.py", "_version.py"))
        by_kind: dict[str, list[Mutant]] = {}
        for m in (m for f in files for m in [*sites(root, f), *import_sites(root, f)]):
            by_kind.setdefault(m.kind, []).append(m)
        kinds = sorted(k for k in by_kind if not args.kinds or k in args.kinds.split(","))
        for bucket in by_kind.values():
            rng.shuffle(bucket)
        for tree in (HERE.parent, *([Path(args.before)] if args.before else [])):
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "pytest_whetstone")],
                           env=env, check=False)
        run(root, tests, WORK / "store", env)  # warm-up: pytest, plugins and pyc of the suite's tools
        done = tried = 0
        while done < args.per_lib and tried < args.per_lib * 8 and any(by_kind.get(k) for k in kinds):
            kind = kinds[tried % len(kinds)]
            tried += 1
            if not by_kind[kind]:
                continue
            m = by_kind[kind].pop()
            path = root / m.file
            original = path.read_text()
            mutated = original[: m.start] + m.new + original[m.end:]
            path.write_text(mutated)
            try:
                wall, code = run(root, tests, WORK / "store", env)
                if code != 1:
                    continue
                events = session_events(WORK / "store")
                stats = (events.get("plugin_stats") or [{}])[-1]
                analysis = stats.get("analysis_ms") or []
                if not analysis:
                    continue
                cands = [c for batch in events.get("candidates", []) for c in batch["records"]]
                n_fail = len(analysis)
                any_hit, top_hit = restores(cands, mutated, original, m.file)
                row = {
                    "lib": lib, "kind": m.kind, "where": f"{m.file}:{m.line}", "failures": n_fail,
                    "first_ms": analysis[0], "median_ms": statistics.median(analysis), "max_ms": max(analysis),
                    "candidates_ms": stats.get("candidates_ms"),
                    "cand_per_failure_ms": (stats.get("candidates_ms") or 0.0) / n_fail,
                    "standalone_cand_ms": standalone_ms(WORK / "store", root, env),
                    "candidates": len(cands), "restores": any_hit, "top_restores": top_hit, "wall_s": wall,
                }
                if args.side_by_side:
                    row.update(side_by_side(root, tests, env, search=not args.no_search_run, before=args.before,
                                            rounds=args.rounds))
                rows.append(row)
                done += 1
                print(json.dumps(row), flush=True)
            finally:
                path.write_text(original)
    write(rows, args)
    return 0


def write(rows: list[dict], args: argparse.Namespace) -> None:
    def med(key: str, digits: int = 1) -> str:
        values = [r[key] for r in rows if r.get(key) is not None]
        return f"{statistics.median(values):.{digits}f}" if values else "n/a"

    def mx(key: str, digits: int = 1) -> str:
        values = [r[key] for r in rows if r.get(key) is not None]
        return f"{max(values):.{digits}f}" if values else "n/a"

    lines = [
        f"# Plugin cost per failing test ({args.label})",
        "",
        f"Generated by `bench/bench_plugin_failure.py --per-lib {args.per_lib} --seed {args.seed} --label {args.label}`"
        f" on {time.strftime('%Y-%m-%d')}; {len(rows)} detected mutants in {args.libs}, each suite run with",
        "`-p whetstone --whetstone-search=0` (default candidates on). Figures from the session's `plugin_stats`.",
        "",
        "| figure | median over mutants | worst mutant |",
        "|---|---|---|",
        f"| first failure: capture + classify + static localization (ms, lazy imports included) | {med('first_ms')} | {mx('first_ms')} |",
        f"| every failure, median (ms) | {med('median_ms')} | {mx('median_ms')} |",
        f"| default candidate generation per failure, in the plugin (ms) | {med('cand_per_failure_ms')} | {mx('cand_per_failure_ms')} |",
        f"| default candidate generation per failure, standalone (ms; first <=5 failures) | {med('standalone_cand_ms')} | {mx('standalone_cand_ms')} |",
    ]
    timed = [r for r in rows if "default_ratio" in r]
    if timed:
        lines.append(f"| failing run with default options / the same run without the plugin (x) | "
                     f"{med('default_ratio', 2)} | {mx('default_ratio', 2)} |")
    if any("before_ratio" in r for r in rows):
        lines.append(f"| the same with the `--before` tree, interleaved (x) | {med('before_ratio', 2)} | "
                     f"{mx('before_ratio', 2)} |")
    timed = [r for r in rows if "search_ratio" in r]
    if timed:
        found = [r["first_validated_s"] for r in timed if r.get("first_validated_s") is not None]
        lines += [
            f"| failing run with `--whetstone-search=1` / without the plugin (x) | {med('search_ratio', 2)} | {mx('search_ratio', 2)} |",
            f"| the search's time to its first validated candidate (s; {len(found)} of {len(timed)} found one) | "
            f"{statistics.median(found):.1f} | {max(found):.1f} |" if found else "| search time to a validated fix | none found | |",
        ]
    lines += [
        "",
        "| kind | mutants | a default candidate restores the original bytes | the top one does |",
        "|---|---|---|---|",
    ]
    for kind in sorted({r["kind"] for r in rows}):
        sub = [r for r in rows if r["kind"] == kind]
        lines.append(f"| {kind} | {len(sub)} | {sum(r['restores'] for r in sub)} | {sum(r['top_restores'] for r in sub)} |")
    lines += ["", "| lib | kind | where | failures | first ms | median ms | candidates ms (all) | standalone ms/failure | restores | wall s | ratio | before ratio |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['lib']} | {r['kind']} | {r['where']} | {r['failures']} | {r['first_ms']:.1f} | "
                     f"{r['median_ms']:.1f} | {r['candidates_ms'] if r['candidates_ms'] is not None else '-'} | "
                     f"{'-' if r['standalone_cand_ms'] is None else format(r['standalone_cand_ms'], '.1f')} | "
                     f"{'yes' if r['restores'] else '-'} | {r['wall_s']:.1f} | "
                     f"{format(r['default_ratio'], '.2f') if 'default_ratio' in r else '-'} | "
                     f"{format(r['before_ratio'], '.2f') if 'before_ratio' in r else '-'} |")
    out = RESULTS.with_name(f"plugin_failure_{args.label}.md") if args.label != "after" else RESULTS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:16]))


if __name__ == "__main__":
    raise SystemExit(main())
