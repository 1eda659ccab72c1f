#!/usr/bin/env python3
"""Localization accuracy on seeded single mutations in real libraries' own test suites.

Downloads sdists (more-itertools, toolz) into bench/_work/plugin/ (never committed), seeds
single mutations with a fixed RNG seed (operator swaps, off-by-one, wrong constants, negations,
misspelled names, removed imports), keeps those the suite detects, and for each runs the suite
plainly and with `-p whetstone`.  Reports top-1/3/5 of the mutated function among the first
failure's suspects, the same for "deepest traceback frame" alone, the time ratio, and FauxPy
(installed into its own virtualenv that sees this interpreter's packages, so its pytest plugin
never loads in the plain and whetstone runs, nor anywhere else on the machine) on a subset when
it installs and runs.

    python bench/bench_localize.py [--per-lib 20] [--seed 7] [--fauxpy 5]
    python bench/bench_localize.py --kinds value --per-lib 12 --seed 7 --fauxpy 0

``--kinds value`` seeds the value faults instead (the sites of bench_fix_python.py: comparison and
arithmetic swaps, a dropped ``not``, a wrong return value, off-by-one, swapped call arguments), the
faults whose failing test usually fails in its own assertion, so the traceback names the test and not
the function that computed the wrong value; those rows are counted apart as "value faults" (the first
failure's traceback has no implementation frame).  humanize (a src layout, a test module per area of
functions) is a development library for them; ``--libs`` picks libraries.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from sdist_suite import fetch_sdist, pin_rootdir  # noqa: E402 - bench/ is on sys.path as a script

from pytest_whetstone.locate.python import enclosing_function, function_index  # noqa: E402

WORK = HERE / "_work" / "localize"  # not shared with bench_plugin_overhead.py (we mutate sources)
RESULTS = HERE / "results" / "localize.md"

LIBS = {
    # name: (sdist spec, dir, package dir, tests)
    "more-itertools": ("more-itertools==10.5.0", "more-itertools-10.5.0", "more_itertools", "tests"),
    "toolz": ("toolz==1.0.0", "toolz-1.0.0", "toolz", "toolz/tests"),
    "humanize": ("humanize==4.11.0", "humanize-4.11.0", "src/humanize", "tests"),
}
CLASSIC_LIBS = ("more-itertools", "toolz")  # the corpus of bench/results/localize.md
SRC_DIRS = {"humanize": "src"}  # not installed: its tests import the package from here
TEST_NEEDS = {"humanize": ["freezegun"]}
VALUE_KINDS = ("compare", "remove-not", "wrong-return", "arith", "off-by-one", "swapped-args")


def lib_env(lib: str, root: Path, env: dict[str, str]) -> dict[str, str]:
    """``env`` with the library's source directory first on PYTHONPATH when it has a src layout."""
    src = SRC_DIRS.get(lib)
    if not src:
        return env
    rest = env.get("PYTHONPATH", "")
    return {**env, "PYTHONPATH": os.pathsep.join(p for p in (str(root / src), rest) if p)}


@dataclass
class Mutant:
    lib: str
    file: str  # relative to the library root
    line: int
    kind: str
    old: str
    new: str
    start: int  # character offsets in the file text
    end: int
    truth: set[str] = field(default_factory=set)  # qualnames counted as the faulty function


def prepare(lib: str) -> Path:
    spec, dirname, _pkg, _tests = LIBS[lib]
    root = fetch_sdist(spec, dirname, WORK)
    pin_rootdir(root)
    for need in TEST_NEEDS.get(lib, []):
        if importlib.util.find_spec(need) is None:
            subprocess.run([sys.executable, "-m", "pip", "-q", "install", need], check=True)
    return root


def value_sites(root: Path, rel: str) -> list[Mutant]:
    """The value-fault sites of bench_fix_python.py (byte offsets turned into character offsets)."""
    from fix_python_sites import _Sites

    data = (root / rel).read_bytes()
    index = function_index(root / rel)
    every_line = set(range(1, data.count(b"\n") + 2))
    out: list[Mutant] = []
    for kind, rows in _Sites("", rel, data, every_line).collect().items():
        if kind not in VALUE_KINDS:
            continue
        for _sub, line, a, b, news in rows:
            fn = index.enclosing(line) if index else None
            if fn is None or not news:
                continue
            start, end = len(data[:a].decode()), len(data[:b].decode())
            new = news[(a + line) % len(news)]  # deterministic, whatever the shuffle
            out.append(Mutant("", rel, line, kind, data[a:b].decode(), new, start, end, {fn.qualname}))
    return out


def _offsets(text: str) -> list[int]:
    starts, pos = [0], 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


_SWAPS = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">", ast.Eq: "!=", ast.NotEq: "==",
          ast.Add: "-", ast.Sub: "+", ast.Mult: "+", ast.FloorDiv: "*", ast.Mod: "//"}
_TOKENS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
           ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}


def sites(root: Path, rel: str) -> list[Mutant]:
    text = (root / rel).read_text()
    tree = ast.parse(text)
    starts = _offsets(text)
    lines = text.splitlines()
    index = function_index(root / rel)
    out: list[Mutant] = []

    def off(line: int, col: int) -> int:
        # ast columns are UTF-8 byte offsets; convert on the line
        raw = lines[line - 1].encode()[:col].decode(errors="replace")
        return starts[line - 1] + len(raw)

    def add(kind: str, node: ast.AST, start: int, end: int, new: str) -> None:
        lineno: int = getattr(node, "lineno", 0)
        fn = index.enclosing(lineno) if index else None
        if fn is None:
            return
        out.append(Mutant("", rel, lineno, kind, text[start:end], new, start, end, {fn.qualname}))

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _SWAPS:
            a, b = node.left, node.comparators[0]
            if a.end_lineno == b.lineno == node.lineno:
                s, e = off(a.end_lineno, a.end_col_offset), off(b.lineno, b.col_offset)  # type: ignore[arg-type]
                if text[s:e].strip() == _TOKENS[type(node.ops[0])]:
                    add("operator swap", node, s, e, f" {_SWAPS[type(node.ops[0])]} ")
        elif isinstance(node, ast.BinOp) and type(node.op) in _SWAPS:
            a, b = node.left, node.right
            if a.end_lineno == b.lineno:
                s, e = off(a.end_lineno, a.end_col_offset), off(b.lineno, b.col_offset)  # type: ignore[arg-type]
                if text[s:e].strip() == _TOKENS[type(node.op)]:
                    add("operator swap", node, s, e, f" {_SWAPS[type(node.op)]} ")
        elif isinstance(node, ast.Constant) and type(node.value) is int and node.end_lineno == node.lineno:
            s, e = off(node.lineno, node.col_offset), off(node.lineno, node.end_col_offset)  # type: ignore[arg-type]
            if text[s:e] == str(node.value):
                kind = "off-by-one" if node.value in (0, 1) else "wrong constant"
                add(kind, node, s, e, str(node.value + 1))
        elif isinstance(node, (ast.If, ast.While)) and node.test.lineno == node.test.end_lineno:
            t = node.test
            s, e = off(t.lineno, t.col_offset), off(t.lineno, t.end_col_offset)  # type: ignore[arg-type]
            if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
                inner = t.operand
                add("negation", node, s, e, text[off(inner.lineno, inner.col_offset):e])
            else:
                add("negation", node, s, e, f"not ({text[s:e]})")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and len(node.id) > 3:
            if node.id in dir(__builtins__) or node.id in ("self", "cls"):
                continue
            s, e = off(node.lineno, node.col_offset), off(node.lineno, node.end_col_offset)  # type: ignore[arg-type]
            if text[s:e] == node.id:
                add("misspelled name", node, s, e, node.id[:-2] + node.id[-1] + node.id[-2])
    # removed imports: module-level single-line imports; truth = functions using the names
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno == node.end_lineno and index:
            names = {(a.asname or a.name).split(".")[0] for a in node.names}
            users = {q for q, used in index.names.items() if used & names}
            if users:
                s, e = starts[node.lineno - 1], starts[node.lineno]
                out.append(Mutant("", rel, node.lineno, "removed import", text[s:e], "\n", s, e, users))
    return out


def run_pytest(root: Path, tests: str, extra: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    before = os.times()
    t0 = time.perf_counter()
    # pytest-timeout bounds mutants that loop forever (a negated `while`): they fail as timeouts
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout=15", *extra, tests],
            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, timeout=600,
        )
    except subprocess.TimeoutExpired:
        return 600.0, 600.0, -1
    wall = time.perf_counter() - t0
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu, proc.returncode


def first_failure(store: Path) -> dict | None:
    sessions = sorted((store / "sessions").glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    if not sessions:
        return None
    records: list[dict] = []
    for line in sessions[-1].read_text().splitlines():
        event = json.loads(line)
        if event["event"] == "test_failures":
            records = event["data"]["records"]
    live = [r for r in records if not r["flaky"] and r["outcome"] != "error"] or records
    return live[0] if live else None


def plugin_stats(store: Path) -> dict:
    out: dict = {}
    for path in (store / "sessions").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            if event["event"] == "plugin_stats":
                out = event["data"]
    return out


def analysis_ms(store: Path) -> list[float]:
    """Per failing test: capture + classification + static localization (plugin_stats), in ms."""
    out: list[float] = []
    for path in (store / "sessions").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            if event["event"] == "plugin_stats":
                out = [float(x) for x in event["data"].get("analysis_ms", [])]
    return out


def rank_of(quals: list[str], truth: set[str]) -> int | None:
    for i, q in enumerate(quals):
        if q in truth:
            return i + 1
    return None


SPECTRUM_WEIGHTS = (0.15, 0.3, 0.5, 0.8)
ASSERTED_WEIGHTS = (0.0, 0.15, 0.3)


def replay(log: Path, store: Path, rec: dict, root: Path, truth: Mutant) -> dict[str, int | None]:
    """Rank the first failure again from its logged evidence ($WHETSTONE_LOCATE_LOG) with other spectrum
    formulas and weights (the mutated file still in place), then with the run's own mutant evidence:
    variant name -> rank of the faulty function.  Mutants of suspects the run did not try count neutral."""
    from pytest_whetstone.locate import python as lp
    from pytest_whetstone.locate.mutation import rerank

    entries = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    entry = next((e for e in entries if e["failure_id"] == rec["failure_id"]), None)
    if entry is None:
        return {}
    ev = lp.evidence_from(entry["evidence"])
    mutants: list[dict] = []
    for path in (store / "sessions").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            if event["event"] == "mutant_evidence":
                mutants = event["data"].get("in_process", {}).get(rec["failure_id"], [])
    saved = (lp.W_SPECTRUM, lp.SPECTRUM_FORMULA, lp.W_ASSERTED)
    out: dict[str, int | None] = {}

    def rank(name: str, evidence: object) -> None:
        suspects = lp.rank_suspects(evidence, str(root))  # type: ignore[arg-type]
        for suffix, ranked in (("-static", suspects), ("", rerank(suspects, mutants))):
            quals = [s.qualname if s.file_path == truth.file else "?" for s in ranked]
            out[name + suffix] = rank_of(quals, truth.truth)

    try:
        for asserted in ASSERTED_WEIGHTS:
            lp.W_ASSERTED = asserted
            if ev.spectrum_scope == "module" and ev.spectrum:
                for formula in ("ochiai", "dstar"):
                    for weight in SPECTRUM_WEIGHTS:
                        lp.SPECTRUM_FORMULA, lp.W_SPECTRUM = formula, weight
                        rank(f"{formula}-{weight}-a{asserted}", ev)
            rank(f"no-spectrum-a{asserted}", lp.Evidence(**{**ev.__dict__, "spectrum": None}))
    finally:
        lp.W_SPECTRUM, lp.SPECTRUM_FORMULA, lp.W_ASSERTED = saved
    return out


FAUXPY_VENV = WORK / "fauxpy-venv"
FAUXPY_PYTHON = str(FAUXPY_VENV / "bin" / "python")


def _install_fauxpy() -> bool:
    """FauxPy pins old pytest plugins and registers itself with every pytest run: keep it apart."""
    if not (FAUXPY_VENV / "bin" / "python").exists():
        made = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(FAUXPY_VENV)])
        if made.returncode != 0:
            return False
    return subprocess.run([FAUXPY_PYTHON, "-m", "pip", "-q", "install", "fauxpy"]).returncode == 0


def fauxpy_rank(root: Path, pkg: str, tests: str, m: Mutant, env: dict[str, str]) -> tuple[int | None, float, str]:
    out_dir = WORK / "fauxpy_out"
    shutil.rmtree(out_dir, ignore_errors=True)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [FAUXPY_PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:whetstone", tests,
             "--src", pkg, "--family", "sbfl", "--granularity", "function", "--top-n", "5"],
            cwd=root, capture_output=True, text=True, env=env, timeout=1200,
        )
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, "timeout"
    wall = time.perf_counter() - t0
    text = proc.stdout + proc.stderr
    if "Traceback" in text and "FauxPy" not in text:
        return None, wall, "crash"
    # FauxPy prints its ranking as "path | name | start-end | score" rows
    quals: list[str] = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 4 and "-" in parts[2] and parts[0].endswith(".py"):
            start = parts[2].split("-")[0]
            fn = enclosing_function(str(root / parts[0]), int(start)) if start.isdigit() else None
            quals.append(fn.qualname if fn and parts[0] == m.file else "?")
    return rank_of(quals, m.truth), wall, "ok" if quals else "no ranking"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-lib", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default="", help="results file (default bench/results/localize.md)")
    parser.add_argument("--fauxpy", type=int, default=5, help="mutants per library to also run FauxPy on (0: skip)")
    parser.add_argument("--kinds", choices=("classic", "value"), default="classic",
                        help="classic: the kinds of localize.md; value: the value faults (see the docstring)")
    parser.add_argument("--libs", default="", help="comma-separated libraries (default: more-itertools,toolz "
                        "for classic, every library for value)")
    parser.add_argument("--skip", default="", help="comma-separated libraries whose mutants are not run (their "
                        "draws still are, so the others' mutants are those of the whole run: a run split in two)")
    parser.add_argument("--work", default="", help="working directory (default bench/_work/localize); "
                        "two runs at once need two")
    args = parser.parse_args()
    if args.work:
        global WORK
        WORK = Path(args.work).resolve()
    # a SIGTERM must still restore the mutated file (the `finally` below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rng = random.Random(args.seed)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    for key in ("WHETSTONE_DIR", "WHETSTONE_SESSION", "WHETSTONE_NESTED", "WHETSTONE_PYTEST"):
        env.pop(key, None)
    fauxpy_ok = False
    if args.fauxpy:
        fauxpy_ok = _install_fauxpy()
    rows: list[dict] = []
    libs = args.libs.split(",") if args.libs else list(CLASSIC_LIBS if args.kinds == "classic" else LIBS)
    base_env = env
    for lib in libs:
        _spec, _dirname, pkg, tests = LIBS[lib]
        root = prepare(lib)
        env = lib_env(lib, root, base_env)
        for cache in root.rglob("__pycache__"):
            shutil.rmtree(cache, ignore_errors=True)
        files = sorted(str(p.relative_to(root)) for p in (root / pkg).glob("*.py")
                       if "test" not in p.name and p.name not in ("__init__.py", "_version.py"))
        seed_sites = value_sites if args.kinds == "value" else sites
        pool = [m for f in files for m in seed_sites(root, f)]
        for m in pool:
            m.lib = lib
        by_kind: dict[str, list[Mutant]] = {}
        for m in pool:
            by_kind.setdefault(m.kind, []).append(m)
        for bucket in by_kind.values():
            rng.shuffle(bucket)
        kinds = sorted(by_kind)
        if lib in args.skip.split(","):
            continue
        killed = tried = 0
        faux_done = 0
        while killed < args.per_lib and tried < args.per_lib * 6 and any(by_kind.values()):
            kind = kinds[tried % len(kinds)]
            tried += 1
            if not by_kind[kind]:
                continue
            m = by_kind[kind].pop()
            print(f"# {lib} {m.kind} {m.file}:{m.line}", flush=True)
            path = root / m.file
            original = path.read_text()
            path.write_text(original[: m.start] + m.new + original[m.end :])
            try:
                store = WORK / "store"
                shutil.rmtree(store, ignore_errors=True)
                locate_log = WORK / "locate.jsonl"
                locate_log.unlink(missing_ok=True)
                p_wall, p_cpu, p_code = run_pytest(root, tests, ["-p", "no:whetstone"], env)
                if p_code != 1:
                    continue  # survived (0) or broke collection (2): not a localization case
                w_wall, w_cpu, _ = run_pytest(root, tests, ["-p", "whetstone", f"--whetstone-dir={store}",
                                                   "--whetstone-candidates=0", "--whetstone-search=0"],
                                              {**env, "WHETSTONE_LOCATE_LOG": str(locate_log)})
                rec = first_failure(store)
                if rec is None:
                    continue
                killed += 1
                quals = [s["qualname"] for s in rec["suspects"] if s["file_path"] == m.file]
                quals_all = [s["qualname"] if s["file_path"] == m.file else "?" for s in rec["suspects"]]
                deep = ""
                if rec["impl_file"] == m.file:
                    fn = enclosing_function(str(path), rec["impl_line"])
                    deep = fn.qualname if fn else ""
                row = {
                    "lib": lib, "kind": m.kind, "file": m.file, "line": m.line, "truth": sorted(m.truth),
                    "rank": rank_of(quals_all, m.truth), "deep_hit": deep in m.truth,
                    "value_fault": not rec["impl_file"] and rec["failure_type"] == "assertion",
                    "plain_s": p_wall, "whetstone_s": w_wall, "plain_cpu": p_cpu, "whetstone_cpu": w_cpu,
                    "top": quals[:3],
                }
                row["variants"] = replay(locate_log, store, rec, root, m)
                row["spectra"] = plugin_stats(store).get("spectra")
                per_failure = analysis_ms(store)
                if per_failure:
                    row.update(first_ms=per_failure[0], median_ms=statistics.median(per_failure))
                if fauxpy_ok and faux_done < args.fauxpy:
                    faux_done += 1
                    fr, fw, status = fauxpy_rank(root, pkg, tests, m, env)
                    row.update(fauxpy_rank=fr, fauxpy_s=fw, fauxpy_status=status)
                rows.append(row)
                print(json.dumps(row), flush=True)
            finally:
                path.write_text(original)
    write_results(rows, args)
    return 0


def _pct(rows: list[dict], pred) -> str:  # type: ignore[no-untyped-def]
    return f"{100 * sum(1 for r in rows if pred(r)) / len(rows):.0f}%" if rows else "n/a"


def write_results(rows: list[dict], args: argparse.Namespace) -> None:
    def top(k: int):  # type: ignore[no-untyped-def]
        return lambda r: r["rank"] is not None and r["rank"] <= k

    ratio = statistics.median(r["whetstone_s"] / r["plain_s"] for r in rows) if rows else 0.0
    total_ratio = sum(r["whetstone_s"] for r in rows) / max(1e-9, sum(r["plain_s"] for r in rows))
    libs = sorted({r["lib"] for r in rows})
    lines = [
        "# Localization accuracy on seeded faults",
        "",
        f"Generated by `bench/bench_localize.py --kinds {args.kinds} --per-lib {args.per_lib} --seed {args.seed}` on "
        f"{time.strftime('%Y-%m-%d')}; libraries: {', '.join(libs)} (sdists, their own test suites).",
        "Whetstone runs with `--whetstone-candidates=0 --whetstone-search=0`: this measures capture,",
        "re-run and localization, not fix generation. A fault counts when the plain suite fails (exit 1). Truth = the function holding the mutated line",
        "(for a removed import: any function using the removed name). Ranked list = the first failure's suspects.",
        "",
        f"Mutants detected and analysed: {len(rows)}",
        "",
        "| method | top-1 | top-3 | top-5 | time vs plain run |",
        "|---|---|---|---|---|",
        f"| whetstone (default: auto) | {_pct(rows, top(1))} | {_pct(rows, top(3))} | {_pct(rows, top(5))} "
        f"| median {ratio:.2f}x, total {total_ratio:.2f}x |",
        f"| deepest traceback frame alone | {_pct(rows, lambda r: r['deep_hit'])} | "
        f"{_pct(rows, lambda r: r['deep_hit'])} | {_pct(rows, lambda r: r['deep_hit'])} | - |",
    ]
    value = [r for r in rows if r.get("value_fault")]
    if value:
        lines.append(f"| whetstone, value faults only ({len(value)}: an assertion in the test, no implementation "
                     f"frame) | {_pct(value, top(1))} | {_pct(value, top(3))} | {_pct(value, top(5))} | - |")
    faux = [r for r in rows if "fauxpy_status" in r]
    if faux:
        ok = [r for r in faux if r["fauxpy_status"] == "ok"]
        fr = statistics.median(r["fauxpy_s"] / r["plain_s"] for r in faux)
        lines.append(
            f"| FauxPy sbfl/function ({len(faux)} mutants; {len(ok)} ranked, "
            f"{sum(1 for r in faux if r['fauxpy_status'] != 'ok')} crashed/empty) | "
            f"{_pct(faux, lambda r: r.get('fauxpy_rank') == 1)} | "
            f"{_pct(faux, lambda r: (r.get('fauxpy_rank') or 99) <= 3)} | "
            f"{_pct(faux, lambda r: (r.get('fauxpy_rank') or 99) <= 5)} | median {fr:.1f}x |"
        )
    else:
        lines.append("| FauxPy | not run (install failed or --fauxpy 0) | | | |")
    timed = [r for r in rows if "first_ms" in r]
    if timed:
        lines += ["", "Per failing test (capture + classification + static localization, re-run excluded; "
                  "`plugin_stats.analysis_ms`): first failure of a run median "
                  f"{statistics.median(r['first_ms'] for r in timed):.1f} ms (worst {max(r['first_ms'] for r in timed):.1f}),"
                  f" every failure median {statistics.median(r['median_ms'] for r in timed):.1f} ms."]
    names = sorted({name for r in rows for name in r.get("variants") or {}})
    if names:
        with_spectrum = [r for r in rows if any(n.startswith(("ochiai", "dstar")) for n in r.get("variants") or {})]
        lines += ["", f"## Spectrum variants, re-ranked from the logged evidence ({len(with_spectrum)} failures with "
                  "a module spectrum; `-static`: before the mutant pass's re-ranking)", "",
                  "| variant | top-1 | top-3 | top-5 |", "|---|---|---|---|"]
        for name in names:
            sub = [r for r in with_spectrum if name in (r.get("variants") or {})]
            ranks = [r["variants"][name] for r in sub]
            cells = [f"{100 * sum(1 for x in ranks if x is not None and x <= k) / len(ranks):.0f}%" if ranks else "n/a"
                     for k in (1, 3, 5)]
            lines.append(f"| {name} | {' | '.join(cells)} |")
    lines += ["", "## Per kind", "", "| kind | n | top-1 | top-5 |", "|---|---|---|---|"]
    for kind in sorted({r["kind"] for r in rows}):
        sub = [r for r in rows if r["kind"] == kind]
        lines.append(f"| {kind} | {len(sub)} | {_pct(sub, top(1))} | {_pct(sub, top(5))} |")
    lines += ["", "## Mutants", "", "| lib | kind | file:line | truth | rank | deepest frame | plain s | whetstone s |",
              "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['lib']} | {r['kind']} | {r['file']}:{r['line']} | {', '.join(r['truth'])[:40]} | "
                     f"{r['rank'] or '-'} | {'hit' if r['deep_hit'] else '-'} | {r['plain_s']:.1f} | {r['whetstone_s']:.1f} |")
    out = Path(args.out) if args.out else RESULTS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:14]))


if __name__ == "__main__":
    raise SystemExit(main())
