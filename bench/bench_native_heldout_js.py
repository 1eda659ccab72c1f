#!/usr/bin/env python3
"""Held-out JavaScript corpus: localization of seeded faults and the mutant search's fix, on npm
libraries the project was never developed against.

Libraries: npm packages that ship their own tests in the tarball and run them with tape (TAP):
qs, minimist, json-stable-stringify.  Each is fetched at bench time with ``npm pack`` into
bench/_work/heldout_js/ (never committed), unpacked, and its dependencies (dev ones too: tape and the
tests' helpers) installed there with ``npm install --ignore-scripts``.  The pristine suite must pass.

Faults are seeded with tree-sitter inside named functions the suite covers (node's own V8 coverage,
``NODE_V8_COVERAGE``), by the kinds a user meets: comparison swapped, arithmetic swapped, logical
swapped, off-by-one constant, true/false swapped, return value dropped, call arguments swapped,
negation dropped.  A fault is kept when the suite then fails (not by timeout).  Per kept fault, in a
fresh copy (node_modules symlinked):
  1. the suite plainly, then ``whetstone run -- <test command>``, timed (the default run's cost);
  2. ``whetstone report --format json``: the rank of the faulty function in the first failure's
     suspects (top-1/3/5);
  3. unless ``--localize-only``: :func:`fix_figures`: ``whetstone run --search``, the rank after the
     search, the top candidate applied (``whetstone apply``): does the suite pass, is the file restored?
     Then, unless ``--no-fix``, the faulty tree again and ``whetstone fix --test <command> --max-wall
     120`` (the loop, as the C/C++ held-out bench runs it): does the suite pass, is the file restored?

    python bench/bench_native_heldout_js.py [--per-kind 2] [--seed 7] [--label before] [--localize-only] [--no-fix]
                                            [--libs qs,minimist] [--max-faults N]

Only the summary goes to bench/results/native_heldout_js_<label>.md; the per-fault rows stay in
bench/_work/heldout_js/rows-<label>.jsonl (held out: not read while tuning).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))
from search_misses import KINDS as MISS_KINDS  # noqa: E402
from search_misses import miss_kind  # noqa: E402

from pytest_whetstone.locate import jsfamily  # noqa: E402 - the repo is on sys.path for a script

WORK = HERE / "_work" / "heldout_js"
RESULTS = HERE / "results"
SUITE_TIMEOUT = 120.0
FIX_MAX_WALL_S = 120.0  # `whetstone fix --max-wall`, as the C/C++ held-out bench runs it
FIX_TIMEOUT_S = 300.0  # the bench's own hard bound on one `whetstone fix`
FIX = True  # --no-fix: the search's top candidate only
TEST_GLOB = "test/**/*.js"

LIBS = {  # name: (npm spec, test command as a user types it)
    "qs": ("qs@6.17.1", ["npx", "tape", TEST_GLOB]),
    "minimist": ("minimist@1.2.8", ["npx", "tape", TEST_GLOB]),
    "json-stable-stringify": ("json-stable-stringify@1.3.0", ["npx", "tape", TEST_GLOB]),
}
SKIP_SOURCE_DIRS = {"test", "tests", "node_modules", "dist", "coverage", "example", "examples", "bench", ".github"}

COMPARISON = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "===": "!==", "!==": "===", "==": "!=", "!=": "=="}
ARITHMETIC = {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"}
LOGICAL = {"&&": "||", "||": "&&"}
KINDS = ("comparison", "arithmetic", "logical", "off_by_one", "boolean", "return_value", "swap_args", "negation")


@dataclass
class Fault:
    fault_id: str
    lib: str
    file: str  # package-relative
    kind: str
    start: int  # byte offsets of the replaced text
    end: int
    old: str
    new: str
    line: int
    truth: str  # qualname of the enclosing named function


# --------------------------------------------------------------------------- the libraries


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = SUITE_TIMEOUT) -> tuple[int, str, float]:
    t0 = time.perf_counter()
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
        return done.returncode, done.stdout + done.stderr, time.perf_counter() - t0
    except subprocess.TimeoutExpired:
        return -1, "timeout", time.perf_counter() - t0


def prepare(lib: str) -> Path | None:
    """The pristine package with its dependencies installed; None when its suite does not pass."""
    spec, command = LIBS[lib]
    pristine = WORK / lib / "pristine"
    if (pristine / "node_modules").is_dir() and (pristine / ".bench-ok").exists():
        return pristine
    shutil.rmtree(WORK / lib, ignore_errors=True)
    (WORK / lib).mkdir(parents=True)
    rc, out, _ = run(["npm", "pack", spec, "--pack-destination", str(WORK / lib)], WORK / lib, timeout=300)
    tarballs = list((WORK / lib).glob("*.tgz"))
    if rc != 0 or not tarballs:
        print(f"{lib}: npm pack failed: {out.strip()[-200:]}", file=sys.stderr)
        return None
    with tarfile.open(tarballs[0]) as tar:
        tar.extractall(WORK / lib, filter="data")
    (WORK / lib / "package").rename(pristine)
    trim_dev_dependencies(pristine)
    install = ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock"]
    rc, out, _ = run(install, pristine, timeout=600)
    if rc != 0 and "ETARGET" in out:  # the registry lacks a recent test helper: any version of its major
        relax_dev_ranges(pristine)
        rc, out, _ = run(install, pristine, timeout=600)
    if rc != 0:
        print(f"{lib}: npm install failed: {out.strip()[-200:]}", file=sys.stderr)
        return None
    rc, out, _ = run(command, pristine)
    if rc != 0:
        print(f"{lib}: the pristine suite fails ({out.strip()[-200:]}); skipped", file=sys.stderr)
        return None
    (pristine / ".bench-ok").write_text("ok\n")
    return pristine


_REQUIRE = re.compile(r"""(?:require\(\s*|from\s+|import\s+)['"]([^'"./][^'"]*)['"]""")


def trim_dev_dependencies(pristine: Path) -> None:
    """Keep only the dev dependencies the tests require (and the runner): a package's lint, bundling
    and release tooling is not needed to run its tests, and a registry may lack some of it."""
    meta = json.loads((pristine / "package.json").read_text())
    dev = meta.get("devDependencies") or {}
    needed = {"tape", "tap", "mocha", "jest"}
    for path in pristine.rglob("*.js"):
        rel = path.relative_to(pristine)
        if rel.parts[0] in ("test", "tests") and "node_modules" not in rel.parts:
            for spec in _REQUIRE.findall(path.read_text(errors="replace")):
                parts = spec.split("/")
                needed.add("/".join(parts[:2]) if spec.startswith("@") else parts[0])
    meta["devDependencies"] = {k: v for k, v in dev.items() if k in needed}
    meta.pop("scripts", None)  # never run a package's lifecycle scripts (install is --ignore-scripts too)
    (pristine / "package.json").write_text(json.dumps(meta, indent=2) + "\n")


def relax_dev_ranges(pristine: Path) -> None:
    meta = json.loads((pristine / "package.json").read_text())
    dev = meta.get("devDependencies") or {}
    for name, spec in dev.items():
        m = re.match(r"^[\^~=]?(\d+)\.(\d+)", spec)
        if m:
            dev[name] = f"^{m.group(1)}.{m.group(2)}.0" if m.group(1) == "0" else f"^{m.group(1)}.0.0"
    (pristine / "package.json").write_text(json.dumps(meta, indent=2) + "\n")


def workspace(pristine: Path, name: str) -> Path:
    """A fresh copy of the package without node_modules, which is symlinked."""
    ws = WORK / "runs" / name
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(pristine, ws, ignore=shutil.ignore_patterns("node_modules", ".whetstone", ".bench-*"))
    os.symlink(pristine / "node_modules", ws / "node_modules")
    return ws


def source_files(root: Path) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.js")):
        rel = path.relative_to(root)
        if set(rel.parts[:-1]) & SKIP_SOURCE_DIRS or rel.name.startswith(".") or "node_modules" in rel.parts:
            continue
        out.append(rel.as_posix())
    return out


# --------------------------------------------------------------------------- coverage (V8)


def covered(pristine: Path, command: list[str]) -> dict[str, list[tuple[int, int, int]]]:
    """rel file -> V8 block ranges (start, end, count) of one suite run."""
    cov = WORK / "coverage"
    shutil.rmtree(cov, ignore_errors=True)
    env = dict(os.environ, NODE_V8_COVERAGE=str(cov))
    run(command, pristine, env=env)
    prefix = pristine.resolve().as_uri() + "/"
    ranges: dict[str, list[tuple[int, int, int]]] = {}
    for path in cov.glob("*.json"):
        for script in json.loads(path.read_text()).get("result", []):
            url = script.get("url", "")
            if not url.startswith(prefix):
                continue
            rel = url[len(prefix):]
            for fn in script.get("functions", []):
                for r in fn.get("ranges", []):
                    ranges.setdefault(rel, []).append((r["startOffset"], r["endOffset"], r["count"]))
    return ranges


def is_covered(ranges: list[tuple[int, int, int]], offset: int) -> bool:
    """The innermost range holding the offset ran at least once."""
    inside = [r for r in ranges if r[0] <= offset < r[1]]
    return bool(inside) and min(inside, key=lambda r: r[1] - r[0])[2] > 0


# --------------------------------------------------------------------------- seeding faults


def sites(source: bytes) -> list[tuple[str, int, int, str, str, Any]]:
    """(kind, start, end, old, new, node) for every single-fault site of one file."""
    pf = jsfamily.parse_source(source, "javascript")
    out: list[tuple[str, int, int, str, str, Any]] = []
    stack = [pf.tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        t = node.type
        if t == "binary_expression":
            op = node.child_by_field_name("operator")
            if op is None:
                continue
            text = jsfamily.text_of(op)
            for kind, table in (("comparison", COMPARISON), ("arithmetic", ARITHMETIC), ("logical", LOGICAL)):
                if text in table:
                    out.append((kind, op.start_byte, op.end_byte, text, table[text], node))
        elif t == "number":
            text = jsfamily.text_of(node)
            if text.isdigit() and len(text) < 6:
                new = str(int(text) + 1) if int(text) == 0 or node.start_byte % 2 else str(int(text) - 1)
                out.append(("off_by_one", node.start_byte, node.end_byte, text, new, node))
        elif t in ("true", "false"):
            out.append(("boolean", node.start_byte, node.end_byte, t, "false" if t == "true" else "true", node))
        elif t == "return_statement" and node.named_child_count == 1:
            value = node.named_children[0]
            if value.type in ("identifier", "member_expression", "call_expression", "binary_expression"):
                new = "undefined" if value.type != "binary_expression" else "null"
                out.append(("return_value", value.start_byte, value.end_byte, jsfamily.text_of(value), new, node))
        elif t == "call_expression":
            args = node.child_by_field_name("arguments")
            named = [a for a in args.named_children if a.type != "comment"] if args is not None else []
            if len(named) == 2 and jsfamily.text_of(named[0]) != jsfamily.text_of(named[1]) and named[0].type != "spread_element":
                a, b = named
                old = source[a.start_byte:b.end_byte].decode()
                between = source[a.end_byte:b.start_byte].decode()
                out.append(("swap_args", a.start_byte, b.end_byte, old, jsfamily.text_of(b) + between + jsfamily.text_of(a), node))
        elif t == "unary_expression":
            op = node.child_by_field_name("operator")
            if op is not None and jsfamily.text_of(op) == "!":
                arg = node.child_by_field_name("argument")
                if arg is not None and arg.type != "unary_expression":  # `!!x` is a cast, not a negation
                    out.append(("negation", node.start_byte, node.end_byte, jsfamily.text_of(node), jsfamily.text_of(arg), node))
    return out


def enclosing(node: Any) -> str:
    """The qualname of the innermost named function around a node ("" outside one)."""
    cur = node.parent
    while cur is not None:
        named = jsfamily.function_of(cur)
        if named and named[0]:
            return named[1]
        cur = cur.parent
    return ""


def build_corpus(lib: str, pristine: Path, per_kind: int, seed: int) -> list[Fault]:
    """Candidate faults (not yet checked against the suite), ``per_kind * 3`` per kind, shuffled."""
    ranges = covered(pristine, LIBS[lib][1])
    by_kind: dict[str, list[Fault]] = {k: [] for k in KINDS}
    for rel in source_files(pristine):
        source = (pristine / rel).read_bytes()
        for kind, start, end, old, new, node in sites(source):
            truth = enclosing(node)
            if not truth or not is_covered(ranges.get(rel, []), start):
                continue
            line = source[:start].count(b"\n") + 1
            fid = f"{lib}-{rel.replace('/', '_')}-{kind}-{start}"
            by_kind[kind].append(Fault(fid, lib, rel, kind, start, end, old, new, line, truth))
    rng = random.Random(f"{seed}-{lib}")
    out: list[Fault] = []
    for kind in KINDS:
        pool = by_kind[kind]
        rng.shuffle(pool)
        out += pool[: per_kind * 3]  # spares: a fault the suite does not detect is dropped
    return out


def apply_fault(ws: Path, fault: Fault) -> None:
    path = ws / fault.file
    data = path.read_bytes()
    assert data[fault.start:fault.end].decode() == fault.old, fault.fault_id
    path.write_bytes(data[: fault.start] + fault.new.encode() + data[fault.end:])


# --------------------------------------------------------------------------- per fault


def whetstone(args: list[str], cwd: Path, store: Path, timeout: float = SUITE_TIMEOUT) -> tuple[int, str, float]:
    env = dict(os.environ, WHETSTONE_DIR=str(store), PYTHONPATH=str(REPO))
    env.pop("WHETSTONE_SESSION", None)
    return run([sys.executable, "-m", "pytest_whetstone", *args], cwd, env=env, timeout=timeout)


def localize(fault: Fault, ws: Path, command: list[str]) -> dict[str, Any]:
    """The default failing ``whetstone run`` against the plain run, and the truth's rank."""
    store = ws / ".whetstone"
    plain_rc, _out, plain_s = run(command, ws)
    _rc, _out, ws_s = whetstone(["run", "--", *command], ws, store)
    plain2_rc, _out, plain2_s = run(command, ws)
    row: dict[str, Any] = {"plain_s": round(min(plain_s, plain2_s), 3), "whetstone_s": round(ws_s, 3),
                           "rank": None, "suspects": 0}
    rc, out, _ = whetstone(["report", "--format", "json"], ws, store)
    try:
        report = json.loads(out[out.index("{"):]) if rc == 0 else {}
    except ValueError:
        report = {}
    failures = report.get("test_failures") or []
    if failures:
        suspects = failures[0].get("suspects") or []
        quals = [s.get("qualname") if s.get("file_path") == fault.file else "?" for s in suspects]
        row["rank"] = next((i + 1 for i, q in enumerate(quals) if q == fault.truth), None)
        row["suspects"] = len(suspects)
        row["failure_type"] = failures[0].get("failure_type")
    return row


def fix_figures(fault: Fault, ws: Path, command: list[str], original: Path) -> dict[str, Any]:
    """The fix side: ``whetstone run --search`` in the faulty workspace, the truth's rank after the
    search re-ranked the suspects, then its top candidate applied with ``whetstone apply`` and the suite
    run: does it pass, and is the faulty file byte-equal to the original again?"""
    store = ws / ".whetstone"
    faulty = _sources(ws)
    row = _search_and_apply(fault, ws, command, original, store)
    if FIX:
        row.update(_fix_loop(fault, ws, command, original, store, faulty))
    return row


def _sources(ws: Path) -> dict[Path, bytes]:
    """The workspace's own files (not its dependencies, not the store), to start the fix loop from the
    faulty tree whatever the applied candidate edited."""
    return {p: p.read_bytes() for p in ws.rglob("*")
            if p.is_file() and not {"node_modules", ".whetstone"} & set(p.relative_to(ws).parts)}


def _fix_loop(fault: Fault, ws: Path, command: list[str], original: Path, store: Path,
              faulty: dict[Path, bytes]) -> dict[str, Any]:
    """``whetstone fix --test <command>`` on the faulty tree again (the loop: search, apply, run the suite,
    keep or revert): does the suite pass afterwards, is the file byte-equal to the original?"""
    for path, data in faulty.items():
        if path.read_bytes() != data:
            path.write_bytes(data)
    rc, _out, fix_s = whetstone(["fix", "--test", shlex.join(command), "--max-wall", str(FIX_MAX_WALL_S)], ws, store,
                                timeout=FIX_TIMEOUT_S)
    passes = run(command, ws)[0] == 0
    return {"fix_s": round(fix_s, 3), "fix_pass": passes, "fix_timed_out": rc == -1,
            "fix_restored": (ws / fault.file).read_bytes() == (original / fault.file).read_bytes()}


def _search_and_apply(fault: Fault, ws: Path, command: list[str], original: Path, store: Path) -> dict[str, Any]:
    _rc, _out, search_s = whetstone(["run", "--search", "--", *command], ws, store)
    rc, out, _ = whetstone(["report", "--format", "json"], ws, store)
    try:
        report = json.loads(out[out.index("{"):]) if rc == 0 else {}
    except ValueError:
        report = {}
    row: dict[str, Any] = {"search_s": round(search_s, 3), "tests_pass": False, "restored": False,
                           "rank_after": None, "validated": False}
    failures = report.get("test_failures") or []
    if failures:
        quals = [s.get("qualname") if s.get("file_path") == fault.file else "?"
                 for s in failures[0].get("suspects") or []]
        row["rank_after"] = next((i + 1 for i, q in enumerate(quals) if q == fault.truth), None)
    row["search"] = _search_totals(store, report)
    row["search"]["miss"] = miss_kind(fault.file, (original / fault.file).read_bytes(), (ws / fault.file).read_bytes(),
                                      fault.line, row["search"].pop("event", {}))
    candidates = [c for c in report.get("candidates") or [] if c.get("edits")]
    if not candidates:
        return row
    top = candidates[0]
    row["validated"] = bool(top.get("validated"))
    whetstone(["apply", top["candidate_id"]], ws, store)
    rc, _out, _ = run(command, ws)
    row["tests_pass"] = rc == 0
    row["restored"] = (ws / fault.file).read_bytes() == (original / fault.file).read_bytes()
    return row


def _search_totals(store: Path, report: dict[str, Any]) -> dict[str, Any]:
    """What the summary adds up over the faults from the session's search event: why it stopped, mutants
    tried, screened and run alone by why, and its notes with file names taken out."""
    event: dict[str, Any] = {}
    try:
        for line in (store / "sessions" / f"{report.get('session_id')}.jsonl").read_text().splitlines():
            data = json.loads(line)
            if data.get("event") == "search":
                event = data.get("data") or {}
    except (OSError, ValueError):
        return {}
    notes = [re.sub(r"schema of \S+?:", "schema:", str(n)).split(" (")[0][:70] for n in event.get("notes") or []]
    return {"stopped": event.get("stopped", ""), "tried": event.get("tried", 0), "screened": event.get("screened", 0),
            "alone": event.get("alone") or {}, "notes": notes, "event": event}


def _totals(fixed: list[dict[str, Any]]) -> list[str]:
    """Totals over the faults only (no case is read): where the searches' time went."""
    from collections import Counter

    searches = [r.get("search") or {} for r in fixed]
    stopped = Counter(s.get("stopped") or "?" for s in searches)
    alone: dict[str, list[float]] = {}
    for s in searches:
        for why, (count, seconds) in (s.get("alone") or {}).items():
            got = alone.setdefault(why, [0, 0.0])
            got[0] += count
            got[1] += seconds
    notes = Counter(n for s in searches for n in set(s.get("notes") or []))
    misses = Counter(s.get("miss") or "no search" for s in searches)
    return ["", "Totals over the faults' searches: stopped " + ", ".join(f"{k} {v}" for k, v in stopped.most_common())
            + f"; mutants tried {sum(int(s.get('tried') or 0) for s in searches)}, screened "
            f"{sum(int(s.get('screened') or 0) for s in searches)}; run alone by why: "
            + (", ".join(f"{why} {c} / {t:.0f} s" for why, (c, t) in sorted(alone.items())) or "none") + ".",
            "", "Notes, by how many searches said them: " + "; ".join(f"{n} ({c})" for n, c in notes.most_common(8)) + ".",
            "", "Where the faulty function stood when the search stopped (search_misses.py): "
            + ", ".join(f"{kind} {misses.get(kind, 0)}" for kind in MISS_KINDS) + "."]


def measure(fault: Fault, pristine: Path, localize_only: bool) -> dict[str, Any] | None:
    """One fault's row, or None when the suite does not detect it."""
    command = LIBS[fault.lib][1]
    ws = workspace(pristine, "fault")
    try:
        apply_fault(ws, fault)
        rc, out, _ = run(command, ws)
        if rc == 0 or out == "timeout":
            return None
        row: dict[str, Any] = {**asdict(fault), **localize(fault, ws, command)}
        if not localize_only:
            row.update(fix_figures(fault, ws, command, pristine))
        return row
    finally:
        shutil.rmtree(ws, ignore_errors=True)


# --------------------------------------------------------------------------- summary


def _pct(rows: list[dict[str, Any]], pred: Any) -> str:
    n = sum(1 for r in rows if pred(r))
    return f"{n}/{len(rows)} ({100 * n / len(rows):.0f}%)" if rows else "-"


def summary(rows: list[dict[str, Any]], args: argparse.Namespace, libs: list[str], seconds: float) -> str:
    def top(k: int) -> Any:
        return lambda r: r.get("rank") is not None and r["rank"] <= k

    ratios = [r["whetstone_s"] / r["plain_s"] for r in rows if r.get("plain_s")]
    node = run(["node", "--version"], REPO)[1].strip()
    lines = [
        f"# Held-out JavaScript corpus ({args.label})",
        "",
        f"`python bench/bench_native_heldout_js.py --per-kind {args.per_kind} --seed {args.seed} --label {args.label}"
        f"{' --localize-only' if args.localize_only else ''}` on {time.strftime('%Y-%m-%d %H:%M')}, node {node}; "
        f"libraries: {', '.join(f'{LIBS[n][0]}' for n in libs)} (tape); {seconds:.0f} s in all.",
        "",
        "| figure | value |",
        "|---|---|",
        f"| faults kept (the suite detects them) | {len(rows)} |",
        f"| localization top-1 (first failure's suspects) | {_pct(rows, top(1))} |",
        f"| localization top-3 | {_pct(rows, top(3))} |",
        f"| localization top-5 | {_pct(rows, top(5))} |",
        f"| default failing `whetstone run` / plain run, median | {statistics.median(ratios):.2f}x |" if ratios else "",
    ]
    fixed = [r for r in rows if "tests_pass" in r]
    if fixed:
        def after(k: int) -> Any:
            return lambda r: r.get("rank_after") is not None and r["rank_after"] <= k

        searched = [r["search_s"] / r["plain_s"] for r in fixed if r.get("plain_s") and r.get("search_s")]
        lines += [f"| localization top-1 / top-3 after the search (`whetstone run --search`) | "
                  f"{_pct(fixed, after(1))} / {_pct(fixed, after(3))} |",
                  f"| the search's top candidate is validated | {_pct(fixed, lambda r: r.get('validated'))} |",
                  f"| top candidate applied: the suite passes | {_pct(fixed, lambda r: r['tests_pass'])} |",
                  f"| top candidate applied: original restored exactly | {_pct(fixed, lambda r: r.get('restored'))} |",
                  *([f"| `whetstone fix --max-wall {FIX_MAX_WALL_S:.0f}`: the suite passes | "
                     f"{_pct(fixed, lambda r: r['fix_pass'])} |",
                     f"| `whetstone fix`: original restored exactly | {_pct(fixed, lambda r: r.get('fix_restored'))} |",
                     f"| `whetstone fix` timed out ({FIX_TIMEOUT_S:.0f} s) | {_pct(fixed, lambda r: r.get('fix_timed_out'))} |",
                     f"| `whetstone fix` wall time, median | "
                     f"{statistics.median(r['fix_s'] for r in fixed):.1f} s |"]
                    if all("fix_pass" in r for r in fixed) else []),
                  f"| `whetstone run --search` / plain run, median | {statistics.median(searched):.1f}x |"
                  if searched else ""]
        lines += _totals(fixed)
    lines.append("")
    lines.append("Per library: " + ", ".join(f"{lib} {sum(1 for r in rows if r['lib'] == lib)} faults" for lib in libs)
                 + ". Per-fault rows: bench/_work/heldout_js/rows-" + args.label + ".jsonl (held out, not read while tuning).")
    return "\n".join(x for x in lines if x is not None) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-kind", type=int, default=2, help="faults kept per kind and library")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--label", default="run")
    ap.add_argument("--libs", default=",".join(LIBS))
    ap.add_argument("--max-faults", type=int, default=0, help="stop after this many kept faults (0: no limit)")
    ap.add_argument("--localize-only", action="store_true", help="skip the fix hook")
    ap.add_argument("--no-fix", action="store_true", help="skip `whetstone fix` (the search's top candidate only)")
    args = ap.parse_args(argv)
    global FIX
    FIX = not args.no_fix
    if not shutil.which("node") or not shutil.which("npm"):
        print("node and npm are needed", file=sys.stderr)
        return 2
    WORK.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    rows: list[dict[str, Any]] = []
    libs: list[str] = []
    rows_path = WORK / f"rows-{args.label}.jsonl"
    rows_path.unlink(missing_ok=True)
    for lib in [x for x in args.libs.split(",") if x]:
        pristine = prepare(lib)
        if pristine is None:
            continue
        libs.append(lib)
        kept: dict[str, int] = {}
        for fault in build_corpus(lib, pristine, args.per_kind, args.seed):
            if kept.get(fault.kind, 0) >= args.per_kind:
                continue
            if args.max_faults and len(rows) >= args.max_faults:
                break
            row = measure(fault, pristine, args.localize_only)
            if row is None:
                continue
            kept[fault.kind] = kept.get(fault.kind, 0) + 1
            rows.append(row)
            with rows_path.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"{len(rows)} faults measured", end="\r", file=sys.stderr)
    text = summary(rows, args, libs, time.monotonic() - t0)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"native_heldout_js_{args.label}.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
