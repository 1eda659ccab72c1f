#!/usr/bin/env python3
"""`whetstone fix` on seeded single faults in real Python libraries (issue 4, Python proof).

Downloads sdists that ship their tests (more-itertools, toolz) into bench/_work/fix_python/
(never committed) and runs everything in copies under the system temp directory, so no
conftest/pyproject of this repository is picked up.  Faults are seeded deterministically
(``--seed``): operator swaps, off-by-one on constants and range/slice bounds, negation
toggles, wrong constants, misspelled names, removed imports -- only on lines the suite
covers (coverage.py, one run per library), and a mutant is kept only when the whole suite
then has at least one failing test (no collection error, no hang); surviving mutants,
equivalent ones included, are discarded.

For each kept fault, in a fresh copy of the library:
  python -m pytest_whetstone fix --test "<python> -m pytest -p whetstone -x -q <failing module(s)>
         --whetstone-search-budget B" --max-attempts 4
then the WHOLE suite is run.  Measured:
  (a) suite passes and every source file is byte-equal to the original;
  (b) a validated candidate exists after the first `pytest -p whetstone` run (the session
      folded up to the first `candidates` event, i.e. what `load_session(...).state().candidates`
      shows after one run), and whether one of them restores the original bytes;
  (c) fix attempts (candidates applied) and wall time per fault.

    python bench/bench_fix_python.py [--per-kind 5] [--seed 11] [--budget 30] [--limit N]
    python bench/bench_fix_python.py --corpus-only

Entry-point plugin autoloading is off in every run (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, the
plugin is loaded by ``-p whetstone``): the libraries need none, and it halves pytest startup
on this machine.  Rows go to bench/_work/fix_python/rows.jsonl as they finish; the report
(bench/results/fix_python.md) is rewritten after each fault, so a cut-short run still reports.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import json
import keyword
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sdist_suite import fetch_sdist  # bench/ is on sys.path when run as a script

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work" / "fix_python"
RESULTS = HERE / "results" / "fix_python.md"
TMP = Path(tempfile.gettempdir()) / "whetstone-bench-fixpy"
PY = sys.executable

LIBS = {
    # name: (pip spec, extracted dir, package dir, extra source dirs to skip)
    "more-itertools": ("more-itertools==10.5.0", "more-itertools-10.5.0", "more_itertools"),
    "toolz": ("toolz==1.0.0", "toolz-1.0.0", "toolz"),
}
KINDS = ("operator", "off-by-one", "negation", "wrong-constant", "misspelled-name", "removed-import")
SUITE_TIMEOUT = 120.0
FIX_TIMEOUT = 420.0


def base_env() -> dict[str, str]:
    env = dict(os.environ)
    for key in ("WHETSTONE_SESSION", "WHETSTONE_DIR", "PYTEST_ADDOPTS", "WHETSTONE_PYTEST", "COVERAGE_PROCESS_START"):
        env.pop(key, None)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a stale .pyc of the same size and mtime would hide a mutant
    return env


# --------------------------------------------------------------------------- libraries


def prepare(lib: str) -> Path:
    """The pristine library in TMP (downloaded into WORK on first use)."""
    spec, dirname, _pkg = LIBS[lib]
    src = fetch_sdist(spec, dirname, WORK, PY)
    pristine = TMP / "pristine" / dirname
    if not pristine.is_dir():
        pristine.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, pristine, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache"))
    return pristine


def source_files(root: Path, pkg: str) -> list[str]:
    out = []
    for path in sorted((root / pkg).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "/tests/" in rel or path.name.startswith("test_") or path.name in ("_version.py", "conftest.py"):
            continue
        out.append(rel)
    return out


@dataclass
class SuiteRun:
    rc: int
    seconds: float
    failed: list[str]  # node-ish ids "file::name"
    modules: list[str]
    timed_out: bool = False


def run_suite(root: Path, targets: list[str] | None = None, *, stop_first: bool = False,
              timeout: float = SUITE_TIMEOUT) -> SuiteRun:
    junit = root / ".bench-junit.xml"
    junit.unlink(missing_ok=True)
    argv = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1",
            "--junitxml", str(junit), *(["-x"] if stop_first else []), *(targets or [])]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(argv, cwd=root, env=base_env(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return SuiteRun(-1, time.perf_counter() - t0, [], [], timed_out=True)
    seconds = time.perf_counter() - t0
    failed: list[str] = []
    modules: set[str] = set()
    try:
        tree = ET.parse(junit).getroot()
        for case in tree.iter("testcase"):
            if any(child.tag in ("failure", "error") for child in case):
                file = case.get("file", "")
                failed.append(f"{file}::{case.get('name', '')}")
                if file:
                    modules.add(file)
    except (OSError, ET.ParseError):
        pass
    junit.unlink(missing_ok=True)
    return SuiteRun(proc.returncode, seconds, failed, sorted(modules))


def covered_lines(root: Path, pkg: str) -> dict[str, set[int]]:
    """{relative source path: executed lines} for one plain run of the suite under coverage."""
    data_file = TMP / f"coverage-{root.name}"
    data_file.unlink(missing_ok=True)
    subprocess.run([PY, "-m", "coverage", "run", f"--data-file={data_file}", f"--source={pkg}", "-m", "pytest",
                    "-q", "-p", "no:cacheprovider"], cwd=root, env=base_env(), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600, check=False)
    import coverage

    data = coverage.CoverageData(basename=str(data_file))
    data.read()
    out: dict[str, set[int]] = {}
    for file in data.measured_files():
        try:
            rel = Path(file).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
        out[rel] = set(data.lines(file) or [])
    return out


# --------------------------------------------------------------------------- mutation sites


@dataclass
class Fault:
    fault_id: str
    lib: str
    file: str
    line: int
    kind: str
    subkind: str
    start: int  # byte offsets into the file
    end: int
    old: str
    new: str
    failing_modules: list[str] = field(default_factory=list)
    failing_tests: int = 0


Site = tuple[str, int, int, int, tuple[str, ...]]  # (subkind, line, start byte, end byte, replacements)


class _Sites:
    """Every candidate site of one source file, as byte-offset replacements."""

    CMP = {ast.Lt: ["<=", ">"], ast.LtE: ["<", ">="], ast.Gt: [">=", "<"], ast.GtE: [">", "<="],
           ast.Eq: ["!="], ast.NotEq: ["=="], ast.Is: ["is not"], ast.IsNot: ["is"],
           ast.In: ["not in"], ast.NotIn: ["in"]}
    ARITH = {ast.Add: ["-"], ast.Sub: ["+"], ast.Mult: ["+", "//"], ast.FloorDiv: ["*", "/", "%"],
             ast.Div: ["//", "*"], ast.Mod: ["//"], ast.BitAnd: ["|"], ast.BitOr: ["&"]}

    def __init__(self, lib: str, rel: str, data: bytes, covered: set[int]) -> None:
        self.lib, self.rel, self.data, self.covered = lib, rel, data, covered
        self.starts = [0]
        for line in data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.tree = ast.parse(data)
        self.idents = {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name)} | {
            n.attr for n in ast.walk(self.tree) if isinstance(n, ast.Attribute)} | set(dir(builtins))
        self.out: dict[str, list[Site]] = {k: [] for k in KINDS}
        self.docstrings = {id(n.body[0].value) for n in ast.walk(self.tree)
                           if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module))
                           and n.body and isinstance(n.body[0], ast.Expr)
                           and isinstance(n.body[0].value, ast.Constant)}

    def off(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.off(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.off(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def text(self, a: int, b: int) -> str:
        return self.data[a:b].decode("utf-8")

    def add(self, kind: str, sub: str, line: int, a: int, b: int, news: list[str]) -> None:
        if line in self.covered and news:
            self.out[kind].append((sub, line, a, b, tuple(news)))

    def collect(self) -> dict[str, list[Site]]:
        for fn in ast.walk(self.tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for stmt in fn.body:
                    for node in ast.walk(stmt):
                        self._visit(node)
        self._imports()
        for kind in self.out:  # one function may be walked twice when nested: keep each site once
            self.out[kind] = sorted(set(self.out[kind]))
        return self.out

    def _op_between(self, left: ast.AST, right: ast.AST, tokens: list[str]) -> tuple[int, int, str] | None:
        a, b = self.span(left)[1], self.span(right)[0]
        gap = self.text(a, b)
        for tok in sorted(tokens, key=len, reverse=True):
            m = re.search(r"(?<![=<>!])" + re.escape(tok).replace(r"\ ", r"\s+") + r"(?![=<>])", gap)
            if m:
                return a + m.start(), a + m.end(), m.group(0)
        return None

    def _visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                toks = {ast.Lt: ["<"], ast.LtE: ["<="], ast.Gt: [">"], ast.GtE: [">="], ast.Eq: ["=="],
                        ast.NotEq: ["!="], ast.Is: ["is not"] if isinstance(op, ast.IsNot) else ["is"],
                        ast.IsNot: ["is not"], ast.In: ["in"], ast.NotIn: ["not in"]}[type(op)]
                hit = self._op_between(left, right, toks)
                if hit:
                    self.add("operator", "compare", node.lineno, hit[0], hit[1], self.CMP[type(op)])
                left = right
        elif isinstance(node, ast.BinOp) and type(node.op) in self.ARITH:
            tok = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Div: "/", ast.Mod: "%",
                   ast.BitAnd: "&", ast.BitOr: "|"}[type(node.op)]
            a, b = self.span(node.left)[1], self.span(node.right)[0]
            i = self.text(a, b).find(tok)
            if i >= 0 and not (tok == "/" and self.text(a, b)[i:i + 2] == "//"):
                self.add("operator", "arith", node.lineno, a + i, a + i + len(tok), self.ARITH[type(node.op)])
        elif isinstance(node, ast.BoolOp) and len(node.values) == 2:
            tok = "and" if isinstance(node.op, ast.And) else "or"
            hit = self._op_between(node.values[0], node.values[1], [tok])
            if hit:
                self.add("operator", "boolean", node.lineno, hit[0], hit[1], ["or" if tok == "and" else "and"])
        elif isinstance(node, ast.Constant) and id(node) not in self.docstrings:
            a, b = self.span(node)
            src = self.text(a, b)
            if isinstance(node.value, bool):
                self.add("wrong-constant", "bool", node.lineno, a, b, [str(not node.value)])
            elif isinstance(node.value, int) and src.isdigit():
                n = node.value
                self.add("off-by-one", "constant", node.lineno, a, b, [str(n + 1)] + ([str(n - 1)] if n > 0 else []))
                far = [v for v in (0, 2, 10, n * 2, n + 3) if abs(v - n) > 1]
                self.add("wrong-constant", "int", node.lineno, a, b, [str(v) for v in dict.fromkeys(far)])
            elif isinstance(node.value, str) and 0 < len(node.value) <= 12 and src[:1] in "'\"" and "\\" not in src:
                q = src[0]
                self.add("wrong-constant", "str", node.lineno, a, b, [q + q, q + node.value[::-1] + q]
                         if len(set(node.value)) > 1 else [q + q])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            for arg in node.args[:2]:
                if not isinstance(arg, ast.Constant):
                    a, b = self.span(arg)
                    src = self.text(a, b)
                    wrap = f"({src})" if isinstance(arg, (ast.BinOp, ast.BoolOp, ast.IfExp)) else src
                    self.add("off-by-one", "range-bound", arg.lineno, a, b, [f"{wrap} + 1", f"{wrap} - 1"])
        elif isinstance(node, ast.Slice):
            for bound in (node.lower, node.upper):
                if bound is not None and not isinstance(bound, ast.Constant):
                    a, b = self.span(bound)
                    src = self.text(a, b)
                    wrap = f"({src})" if isinstance(bound, (ast.BinOp, ast.BoolOp, ast.IfExp)) else src
                    self.add("off-by-one", "slice-bound", bound.lineno, a, b, [f"{wrap} + 1", f"{wrap} - 1"])
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            a = self.span(node)[0]
            b = self.span(node.operand)[0]
            self.add("negation", "remove-not", node.lineno, a, b, [""])
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)) and not (
            isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
        ):
            a, b = self.span(node.test)
            src = self.text(a, b)
            paren = isinstance(node.test, (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda))
            self.add("negation", "add-not", node.test.lineno, a, b, [f"not ({src})" if paren else f"not {src}"])
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and len(node.id) >= 3 \
                and node.id not in ("True", "False", "None", "self", "cls"):
            a, b = self.span(node)
            news = [n for n in _misspell(node.id) if n not in self.idents and not keyword.iskeyword(n)]
            self.add("misspelled-name", "name", node.lineno, a, b, news)

    def _imports(self) -> None:
        for stmt in self.tree.body:  # module level only; each statement is executed on import
            if isinstance(stmt, (ast.Import, ast.ImportFrom)) and not (
                isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
            ):
                names = stmt.names
                if len(names) == 1:
                    a = self.off(stmt.lineno, 0)
                    end_line = stmt.end_lineno or stmt.lineno
                    b = self.starts[end_line] if end_line < len(self.starts) else len(self.data)
                    self.out["removed-import"].append(("statement", stmt.lineno, a, b, ("",)))
                    continue
                for i, alias in enumerate(names):
                    if alias.name == "*":
                        continue
                    a0, b0 = self.span(alias)
                    if i + 1 < len(names):
                        a, b = a0, self.span(names[i + 1])[0]
                    else:
                        a, b = self.span(names[i - 1])[1], b0
                    self.out["removed-import"].append(("name", alias.lineno, a, b, ("",)))


def _misspell(name: str) -> list[str]:
    out = []
    mid = len(name) // 2
    out.append(name[:mid] + name[mid + 1:])  # dropped letter
    if name[mid] != name[mid - 1]:
        out.append(name[: mid - 1] + name[mid] + name[mid - 1] + name[mid + 1:])  # swapped letters
    out.append(name[:mid] + name[mid] + name[mid:])  # doubled letter
    return [n for n in out if n.isidentifier() and n != name]


# --------------------------------------------------------------------------- corpus


def build_corpus(per_kind: int, seed: int, max_tries: int) -> list[Fault]:
    cache = WORK / f"corpus-s{seed}-k{per_kind}.json"
    if cache.exists():
        return [Fault(**f) for f in json.loads(cache.read_text())]
    faults: list[Fault] = []
    probes_path = WORK / f"probes-s{seed}.json"  # kill-check results, so an interrupted build resumes
    probes: dict[str, list] = json.loads(probes_path.read_text()) if probes_path.exists() else {}
    for lib, (_spec, _dirname, pkg) in LIBS.items():
        root = prepare(lib)
        clean = run_suite(root)
        if clean.rc != 0:
            raise SystemExit(f"{lib}: the unmodified suite does not pass (rc {clean.rc}, {clean.failed[:3]})")
        print(f"{lib}: clean suite passes in {clean.seconds:.1f}s; measuring coverage", flush=True)
        cov = covered_lines(root, pkg)
        sites: dict[str, list[tuple[str, str, int, int, int, tuple[str, ...]]]] = {k: [] for k in KINDS}
        for rel in source_files(root, pkg):
            data = (root / rel).read_bytes()
            per_file = _Sites(lib, rel, data, cov.get(rel, set())).collect()
            for kind, rows in per_file.items():
                sites[kind].extend((rel, *row) for row in rows)
        probe = TMP / "probe" / root.name
        shutil.rmtree(probe, ignore_errors=True)
        shutil.copytree(root, probe)
        for kind in KINDS:
            rng = random.Random(f"{seed}:{lib}:{kind}")
            pool = sorted(sites[kind])
            rng.shuffle(pool)
            kept = tried = 0
            for rel, sub, line, a, b, news in pool:
                if kept >= per_kind or tried >= max_tries:
                    break
                new = rng.choice(list(news))
                path = probe / rel
                original = path.read_bytes()
                mutated = original[:a] + new.encode() + original[b:]
                try:
                    ast.parse(mutated)
                except SyntaxError:
                    continue
                tried += 1
                key = f"{lib}|{rel}|{a}|{b}|{new}"
                if key not in probes:
                    path.write_bytes(mutated)
                    try:
                        run = run_suite(probe, timeout=max(30.0, 4 * clean.seconds))
                    finally:
                        path.write_bytes(original)
                    verdict = "killed" if run.rc == 1 and run.failed else (
                        "timeout" if run.timed_out else "survived" if run.rc == 0 else f"rc{run.rc}")
                    probes[key] = [verdict, run.modules, len(run.failed)]
                    probes_path.write_text(json.dumps(probes))
                    print(f"  {lib} {kind:<16} {rel}:{line} {original[a:b].decode()[:30]!r} -> {new[:30]!r}: "
                          f"{verdict} ({len(run.failed)} failing, {run.seconds:.1f}s)", flush=True)
                verdict, modules, n_failed = probes[key]
                if verdict != "killed":
                    continue
                kept += 1
                faults.append(Fault(f"{lib}-{kind}-{kept}", lib, rel, line, kind, sub, a, b,
                                    original[a:b].decode(), new, modules, n_failed))
        shutil.rmtree(probe, ignore_errors=True)
    cache.write_text(json.dumps([asdict(f) for f in faults], indent=1))
    return faults


# --------------------------------------------------------------------------- one fault


def plugin_budget_args(budget: float) -> list[str]:
    """How the plugin takes the search budget (checked in its source, so a rename shows up)."""
    text = (REPO / "pytest_whetstone" / "plugin.py").read_text()
    if "--whetstone-search-budget" in text:
        return ["--whetstone-search-budget", str(budget)]
    if "whetstone_search_budget" in text:
        return ["-o", f"whetstone_search_budget={budget}"]
    return []


def apply_edits(text: bytes, edits: list[dict]) -> bytes | None:
    """Apply a candidate's TextEdits (1-based line/col, col in characters) to one file's text."""
    s = text.decode("utf-8")
    lines = s.split("\n")
    spans = []
    for e in edits:
        def off(p: dict) -> int:
            return sum(len(x) + 1 for x in lines[: p["line"] - 1]) + p["col"] - 1
        spans.append((off(e["start"]), off(e["end"]), e.get("new_text", "")))
    for a, b, new in sorted(spans, reverse=True):
        if a < 0 or b > len(s):
            return None
        s = s[:a] + new + s[b:]
    return s.encode("utf-8")


def run_fault(fault: Fault, budget: float) -> dict:
    from pytest_whetstone.orchestrate.state import loop_fold
    from pytest_whetstone.session import fold, load_session

    pristine = prepare(fault.lib)
    ws = TMP / "runs" / fault.fault_id
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(pristine, ws)
    original = (pristine / fault.file).read_bytes()
    mutated = original[: fault.start] + fault.new.encode() + original[fault.end:]
    (ws / fault.file).write_bytes(mutated)
    store = ws / ".whetstone"
    env = base_env()
    env["WHETSTONE_DIR"] = str(store)
    search_log = TMP / "runs" / f"{fault.fault_id}.search.jsonl"
    search_log.unlink(missing_ok=True)
    env["WHETSTONE_SEARCH_LOG"] = str(search_log)  # SearchStats of every search run, one JSON line each
    test_cmd = " ".join([shlex.quote(PY), "-m", "pytest", "-p", "whetstone", "-x", "-q",
                         *map(shlex.quote, fault.failing_modules), *plugin_budget_args(budget)])
    argv = [PY, "-m", "pytest_whetstone", "fix", "--test", test_cmd, "--max-attempts", "4"]
    t0 = time.perf_counter()
    timed_out = False
    try:
        proc = subprocess.run(argv, cwd=ws, env=env, capture_output=True, text=True, timeout=FIX_TIMEOUT, check=False)
        out, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out, rc, timed_out = str(exc.stdout or ""), -1, True
    wall = time.perf_counter() - t0
    row: dict = {**asdict(fault), "rc": rc, "wall_s": round(wall, 2), "fix_timed_out": timed_out}
    try:
        row["search"] = [json.loads(x) for x in search_log.read_text().splitlines() if x.strip()]
    except (OSError, ValueError):
        row["search"] = []
    search_log.unlink(missing_ok=True)
    sid = re.search(r"whetstone fix: (?:session|resuming session) (\S+)", out)
    row.update(attempts=None, converged=False, validated_first=False, validated_true_fix=False,
               candidates_first=0, top_first="", applied=[])
    if sid:
        session = load_session(store, sid.group(1))
        events = session.events()
        state = loop_fold(events)
        row["converged"] = state.status == "converged"
        row["attempts"] = state.fix_attempts
        row["applied"] = [f"{a.candidate_id}:{a.status}:{a.description[:80]}" for a in state.attempts]
        first = next((i for i, e in enumerate(events) if e.get("event") == "candidates"), None)
        if first is not None:
            cands = fold(events[: first + 1]).candidates
            row["candidates_first"] = len(cands)
            row["top_first"] = f"{cands[0].source}/{cands[0].mutation_type}: {cands[0].description[:90]}" if cands else ""
            valid = [c for c in cands if c.validated]
            row["validated_first"] = bool(valid)
            for c in valid:
                if all(e.file_path == fault.file for e in c.edits):
                    fixed = apply_edits(mutated, [e.to_dict() for e in c.edits])
                    if fixed == original:
                        row["validated_true_fix"] = True
    suite = run_suite(ws)
    row["suite_passes"] = suite.rc == 0
    row["suite_failed"] = len(suite.failed)
    row["byte_equal"] = all((ws / rel).read_bytes() == (pristine / rel).read_bytes()
                            for rel in source_files(pristine, LIBS[fault.lib][2]))
    row["success"] = row["suite_passes"] and row["byte_equal"]
    row["tail"] = "\n".join(out.strip().splitlines()[-12:])
    if sid:  # keep the session for a look afterwards; the copy itself goes
        keep = WORK / "sessions"
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(store / "sessions" / f"{sid.group(1)}.jsonl", keep / f"{fault.fault_id}.jsonl")
    shutil.rmtree(ws, ignore_errors=True)
    return row


# --------------------------------------------------------------------------- report


def _pct(rows: list[dict], key: str) -> str:
    if not rows:
        return "-"
    n = sum(1 for r in rows if r.get(key))
    return f"{n}/{len(rows)} ({100 * n / len(rows):.0f}%)"


def search_summary(rows: list[dict]) -> list[str]:
    """What the first search of each fault did (from the SearchStats log)."""
    firsts = [r["search"][0] for r in rows if r.get("search")]
    if not firsts:
        return []
    stopped: dict[str, int] = {}
    modes: dict[str, int] = {}
    for f in firsts:
        stopped[f["stopped"]] = stopped.get(f["stopped"], 0) + 1
        modes[f["mode"] or "-"] = modes.get(f["mode"] or "-", 0) + 1
    tried = [f["tried"] for f in firsts if f["mode"]]
    per = [f["elapsed_s"] / f["tried"] for f in firsts if f["tried"]]
    return [
        "",
        f"First search per fault ({len(firsts)} of {len(rows)} faults ran one; the others' failures were "
        "NameErrors left to the interpreter hints, or had no suspect): "
        f"mode {', '.join(f'{k} {v}' for k, v in sorted(modes.items()))}; "
        f"stopped {', '.join(f'{k} {v}' for k, v in sorted(stopped.items()))}; "
        f"median mutants tried {statistics.median(tried) if tried else 0}, "
        f"fast runs {sum(f['fast_runs'] for f in firsts)}, subprocess runs {sum(f['subprocess_runs'] for f in firsts)}, "
        f"fallbacks {sum(f['fallbacks'] for f in firsts)}, filter passes {sum(f['fast_passed'] for f in firsts)}, "
        f"rejected at confirmation {sum(f['confirm_rejected'] for f in firsts)}, "
        f"timeouts {sum(f['timeouts'] for f in firsts)}, widened {sum(f['widened'] for f in firsts)}; "
        f"median wall per mutant tried {statistics.median(per):.2f} s (whole search incl. start and confirmation).",
    ]


def write_results(rows: list[dict], args: argparse.Namespace, corpus: list[Fault], budget_args: list[str]) -> None:
    groups = [("all", rows)] + [(k, [r for r in rows if r["kind"] == k]) for k in KINDS] + [
        (lib, [r for r in rows if r["lib"] == lib]) for lib in LIBS]
    lines = [
        "# `whetstone fix` on seeded Python faults (issue 4, Python proof)",
        "",
        f"Generated by `python bench/bench_fix_python.py --seed {args.seed} --per-kind {args.per_kind} "
        f"--budget {args.budget}{f' --limit {args.limit}' if args.limit else ''}` on "
        f"{time.strftime('%Y-%m-%d')}, Python {sys.version.split()[0]}, {os.cpu_count()} cores"
        f"{'; ' + args.note if args.note else ''}.",
        "",
        f"Libraries (sdists with their own suites, downloaded at bench time): "
        f"{', '.join(s for s, _d, _p in LIBS.values())}. Corpus: {len(corpus)} kept single mutations "
        f"(seeded RNG, only lines the suite covers, kept only when the whole suite then fails; "
        f"survivors/equivalents, hangs and collection errors discarded); {len(rows)} measured.",
        "",
        "Per fault, in a fresh copy: `python -m pytest_whetstone fix --test \"<python> -m pytest -p whetstone "
        f"-x -q <failing test module(s)> {' '.join(budget_args)}\" --max-attempts 4`, then the whole suite.",
        "",
        "- (a) **fixed exactly**: whole suite passes and every source file is byte-equal to the original "
        "(target ≥ 40%; a naive invert-the-operator search measured 14%).",
        "- suite passes: whole suite passes (an equivalent or different fix counts here, not in (a)).",
        "- (b) **validated after one run**: a `validated` candidate is in the session after the first "
        "`pytest -p whetstone` run; *restores original*: one of them gives back the original bytes.",
        "- (c) attempts = candidates applied by the loop; wall = the whole `whetstone fix` run.",
        "",
        "| group | n | (a) fixed exactly | suite passes | converged | (b) validated after one run "
        "| validated restores original | mean attempts | median wall (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, rs in groups:
        if not rs:
            continue
        att = [r["attempts"] for r in rs if r["attempts"] is not None]
        lines.append(
            f"| {name} | {len(rs)} | {_pct(rs, 'success')} | {_pct(rs, 'suite_passes')} | {_pct(rs, 'converged')} | "
            f"{_pct(rs, 'validated_first')} | {_pct(rs, 'validated_true_fix')} | "
            f"{statistics.mean(att):.2f} | {statistics.median(r['wall_s'] for r in rs):.1f} |"
            if att else f"| {name} | {len(rs)} | {_pct(rs, 'success')} | - | - | - | - | - | - |")
    lines += search_summary(rows)
    lines += ["", "## Faults", "",
              "| fault | site | mutation | failing tests | (a) | suite | valid. 1st | attempts | wall s "
              "| first search: mode, tried (fast/fallback), stopped, s | top candidate after first run |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        mut = f"`{r['old'][:25]}` → `{r['new'][:25]}`".replace("|", "\\|").replace("\n", " ")
        top = (r.get("top_first") or "").replace("|", "\\|").replace("\n", " ")
        first = (r.get("search") or [None])[0]
        srch = (f"{first['mode'] or '-'}, {first['tried']} ({first['fast_runs']}/{first['fallbacks']}), "
                f"{first['stopped']}, {first['elapsed_s']:.1f}" if first else "not run")
        lines.append(f"| {r['fault_id']} | {r['file']}:{r['line']} | {r['subkind']}: {mut} | {r['failing_tests']} | "
                     f"{'yes' if r['success'] else 'no'} | {'pass' if r['suite_passes'] else 'fail'} | "
                     f"{'yes' if r['validated_first'] else 'no'} | {r['attempts']} | {r['wall_s']} | {srch} | {top[:100]} |")
    out = Path(args.out) if args.out else RESULTS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")


def _first_failing_node(root: Path, modules: list[str]) -> str:
    """The node id of the first failing test (junit xunit1 file + classname + name)."""
    junit = root / ".cost-junit.xml"
    subprocess.run([PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-o", "junit_family=xunit1",
                    "--junitxml", str(junit), *modules], cwd=root, env=base_env(), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=SUITE_TIMEOUT, check=False)
    for case in ET.parse(junit).getroot().iter("testcase"):
        if any(child.tag in ("failure", "error") for child in case):
            file = case.get("file", "")
            module = file.removesuffix(".py").replace("/", ".")
            inner = case.get("classname", "")[len(module) + 1:]
            return "::".join([file, *([inner] if inner else []), case.get("name", "")])
    raise SystemExit("no failing test")


def measure_cost(corpus: list[Fault], repeats: int = 5) -> int:
    """Per-mutant cost of the search's filter run: a fresh `python -m pytest` on the failing test
    (the old way, and the fallback) against a fork of the worker with the function patched in.
    Same fault, same node id, runs interleaved; medians."""
    sys.path.insert(0, str(REPO))
    from pytest_whetstone.candidates.forkrun import ForkWorker
    from pytest_whetstone.candidates.search import _pytest_argv, _search_env

    lines = ["", f"## Per-mutant cost (`--measure-cost`, {time.strftime('%Y-%m-%d')}, median of {repeats}, interleaved)", "",
             "| library | fault | failing test | subprocess run (s) | fork run (s) | ratio | worker start (s) |",
             "|---|---|---|---|---|---|---|"]
    for lib in LIBS:
        fault = next(f for f in corpus if f.lib == lib and f.kind == "operator")
        ws = TMP / "cost" / lib
        shutil.rmtree(ws, ignore_errors=True)
        shutil.copytree(prepare(lib), ws)
        original = (ws / fault.file).read_bytes()
        mutated = original[: fault.start] + fault.new.encode() + original[fault.end:]
        (ws / fault.file).write_bytes(mutated)
        node = _first_failing_node(ws, fault.failing_modules)
        env = _search_env(ws)
        worker = ForkWorker(ws, PY, env, [node.split("::")[0]])
        if not worker.start(120):
            raise SystemExit(f"{lib}: the fork worker did not start")
        patch = {"file": str(ws / fault.file), "source": original.decode(), "start": fault.line, "end": fault.line}
        slow: list[float] = []
        fast: list[float] = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            subprocess.run(_pytest_argv(PY, ws / "j1.xml", [node]), cwd=ws, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            slow.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            reply = worker.run([node], ws / "j2.xml", 60, patch)
            fast.append(time.perf_counter() - t0)
            assert reply.get("status") == "ok", reply
        worker.close()
        a, b = statistics.median(slow), statistics.median(fast)
        lines.append(f"| {lib} | {fault.fault_id} | `{node}` | {a:.2f} | {b:.2f} | {a / b:.1f}x | {worker.ready_s:.2f} |")
        shutil.rmtree(ws, ignore_errors=True)
    print("\n".join(lines))
    (WORK / "cost.md").write_text("\n".join(lines) + "\n")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--per-kind", type=int, default=5, help="kept faults per library and mutation kind")
    ap.add_argument("--max-tries", type=int, default=25, help="mutants tried per library and kind")
    ap.add_argument("--budget", type=float, default=30.0, help="--whetstone-search-budget seconds")
    ap.add_argument("--limit", type=int, default=0, help="measure only the first N faults (spread over kinds)")
    ap.add_argument("--corpus-only", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated fault ids")
    ap.add_argument("--out", default="", help="results file (default bench/results/fix_python.md); e.g. a held-out seed")
    ap.add_argument("--note", default="", help="a note on the machine for the report (e.g. what else ran)")
    ap.add_argument("--measure-cost", action="store_true",
                    help="only measure the per-mutant cost: fresh subprocess vs fork worker, one fault per library")
    args = ap.parse_args()
    TMP.mkdir(parents=True, exist_ok=True)
    corpus = build_corpus(args.per_kind, args.seed, args.max_tries)
    print(f"corpus: {len(corpus)} faults", flush=True)
    if args.corpus_only:
        return 0
    if args.measure_cost:
        return measure_cost(corpus)
    chosen = corpus
    if args.only:
        wanted = set(args.only.split(","))
        chosen = [f for f in corpus if f.fault_id in wanted]
    elif args.limit:  # round-robin over (lib, kind) so a subset still covers every kind
        by_group: dict[tuple[str, str], list[Fault]] = {}
        for f in corpus:
            by_group.setdefault((f.lib, f.kind), []).append(f)
        order = [f for i in range(args.per_kind) for g in by_group.values() if i < len(g) for f in [g[i]]]
        chosen = order[: args.limit]
    budget_args = plugin_budget_args(args.budget)
    if not budget_args:
        print("warning: the plugin exposes no search budget option; running without one", flush=True)
    rows_path = WORK / "rows.jsonl"
    rows: list[dict] = []
    rows_path.write_text("")
    for i, fault in enumerate(chosen, 1):
        row = run_fault(fault, args.budget)
        rows.append(row)
        with rows_path.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        print(f"[{i}/{len(chosen)}] {fault.fault_id} {fault.file}:{fault.line} {fault.old!r}->{fault.new!r}: "
              f"{'FIXED' if row['success'] else 'suite ' + ('pass' if row['suite_passes'] else 'fail')} "
              f"validated_first={row['validated_first']} attempts={row['attempts']} {row['wall_s']}s", flush=True)
        write_results(rows, args, corpus, budget_args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
