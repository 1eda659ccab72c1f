"""Validated search: try small edits at the top suspects in a scratch copy, keep what passes.

Never touches the user's tree: the workspace is copied once (without .git,
.whetstone, caches and virtualenvs) and each mutant is written into the copy
and restored afterwards.  A mutant is *validated* when the failing tests it
targets pass and the test module(s) of those failures show no new failure.
The whole search is bounded by ``budget_s`` seconds of wall time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from ..records import FixCandidate, TestFailureRecord, rank_candidates
from .hashing import record_hashes
from .mutants import Mutant, expected_value, mutants_for

IGNORE = shutil.ignore_patterns(
    ".git", ".whetstone", "__pycache__", "*.pyc", ".venv", "venv", ".tox", ".nox", "node_modules",
    ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", "*.egg-info",
)
MAX_SUSPECTS = 3
MAX_MUTANTS_PER_SUSPECT = 120


@dataclass
class SearchStats:
    tried: int = 0
    validated: int = 0
    runs: int = 0
    elapsed_s: float = 0.0
    stopped: str = ""  # "budget", "exhausted", "disabled", "no-suspects", "baseline-passes"
    notes: list[str] = field(default_factory=list)


def _pytest_argv(python: str, junit: Path, targets: list[str]) -> list[str]:
    return [
        python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:whetstone",
        "-o", "addopts=", "--junitxml", str(junit), *targets,
    ]


class _Runner:
    """Runs pytest in the scratch copy and reports per-test outcomes."""

    def __init__(self, root: Path, python: str, deadline: float, stats: SearchStats) -> None:
        self.root = root
        self.python = python
        self.deadline = deadline
        self.stats = stats
        self.junit = root / ".whetstone-search-junit.xml"
        env = dict(os.environ)
        env.pop("WHETSTONE_SESSION", None)
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # a stale .pyc must never hide a mutant
        paths = [str(root / "src"), str(root)] if (root / "src").is_dir() else [str(root)]
        env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [env.get("PYTHONPATH", "")] if p])
        env["WHETSTONE_DIR"] = str(root / ".whetstone-scratch-store")
        # Entry-point plugins (hypothesis, cov, ...) can cost seconds per run; the search
        # runs without them unless the failures only reproduce with them (see baseline).
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        self.env = env

    def with_plugins(self) -> None:
        self.env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)

    def run(self, targets: list[str]) -> dict[str, bool] | None:
        """{node id: passed} for the targets, or None on timeout/crash/out of budget."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0.5:
            return None
        try:
            self.junit.unlink()
        except FileNotFoundError:
            pass
        self.stats.runs += 1
        try:
            subprocess.run(
                _pytest_argv(self.python, self.junit, targets),
                cwd=self.root,
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=remaining,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None
        return _junit_outcomes(self.junit)


def _junit_outcomes(path: Path) -> dict[str, bool] | None:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    out: dict[str, bool] = {}
    for case in root.iter("testcase"):
        classname = case.get("classname", "")
        name = case.get("name", "")
        failed = any(child.tag in ("failure", "error") for child in case)
        out[_node_key(classname, name)] = not failed
    return out


def _node_key(classname: str, name: str) -> str:
    return f"{classname}::{name}"


def _key_of_node_id(node_id: str) -> str:
    """pytest node id -> the junit classname::name key (a/b/test_x.py::C::t -> a.b.test_x.C::t)."""
    parts = node_id.split("::")
    module = parts[0].removesuffix(".py").replace("/", ".")
    classname = ".".join([module, *parts[1:-1]])
    return _node_key(classname, parts[-1])


def _scratch_copy(workspace: Path) -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="whetstone-search-"))
    target = scratch / "ws"
    shutil.copytree(workspace, target, ignore=IGNORE, symlinks=True)
    return target


def _suspect_files(failure: TestFailureRecord, workspace: Path) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    for suspect in failure.suspects[:MAX_SUSPECTS]:
        if not suspect.file_path.endswith(".py") or suspect.line_start <= 0:
            continue
        path = Path(suspect.file_path)
        try:
            rel = (path if path.is_absolute() else workspace / path).resolve().relative_to(workspace.resolve())
        except ValueError:
            continue  # outside the workspace (site-packages): not ours to edit
        out.append((rel.as_posix(), suspect.line_start, max(suspect.line_end, suspect.line_start)))
    return out


def _apply_text(code: str, mutant: Mutant) -> str:
    lines = code.split("\n")
    e = mutant.edit

    def offset(line: int, col: int) -> int:
        return sum(len(x) + 1 for x in lines[: line - 1]) + col - 1

    return code[: offset(e.start.line, e.start.col)] + e.new_text + code[offset(e.end.line, e.end.col) :]


# Failures the interpreter's own hints address (missing names and modules).
_HINTED = frozenset({"NameError", "UnboundLocalError", "ImportError", "ModuleNotFoundError"})


def search_candidates(
    failures: list[TestFailureRecord],
    workspace: Path,
    budget_s: float = 20.0,
    *,
    python: str | None = None,
    stats: SearchStats | None = None,
    max_validated: int = 3,
    per_failure: int = 1,
) -> list[FixCandidate]:
    """Validated candidates found within the budget (possibly none)."""
    stats = stats if stats is not None else SearchStats()
    start = time.monotonic()
    workspace = Path(workspace)
    if budget_s <= 0:
        stats.stopped = "disabled"
        return []
    failing = [
        f
        for f in failures
        if f.runner in ("pytest", "unknown")
        and f.node_id
        and f.suspects
        and f.exception_type not in _HINTED  # small edits cannot add an import; the hints do
    ]
    if not failing:
        stats.stopped = "no-suspects"
        return []
    deadline = start + budget_s
    scratch = _scratch_copy(workspace)
    found: list[FixCandidate] = []
    try:
        runner = _Runner(scratch, python or sys.executable, deadline, stats)
        failing_keys = {_key_of_node_id(f.node_id) for f in failing}
        modules = sorted({f.node_id.split("::")[0] for f in failing})
        baseline = runner.run(modules)
        if baseline is not None and not (failing_keys <= set(baseline)):
            runner.with_plugins()  # collection needed an entry-point plugin
            stats.notes.append("running with entry-point plugins")
            baseline = runner.run(modules)
        if baseline is None:
            stats.stopped = "budget"
            return []
        broken_before = {k for k, ok in baseline.items() if not ok}
        if not (failing_keys & broken_before):
            stats.stopped = "baseline-passes"
            stats.notes.append("the failing tests pass in a clean copy (flaky or environment-dependent)")
            return []
        seen: set[tuple[str, int, int, int, int, str]] = set()
        for failure in failing:
            mine = 0
            for rel, first, last in _suspect_files(failure, workspace):
                if mine >= per_failure:
                    break
                path = scratch / rel
                try:
                    original = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                focus = failure.impl_line if failure.impl_file.endswith(rel) else 0
                mutants = mutants_for(original, rel, first, last, expected_value(failure.expected_value), focus)
                for mutant in mutants[:MAX_MUTANTS_PER_SUSPECT]:
                    if mine >= per_failure:
                        break
                    if mutant.key in seen:
                        continue
                    seen.add(mutant.key)
                    if time.monotonic() >= deadline:
                        stats.stopped = "budget"
                        return rank_candidates(found)
                    stats.tried += 1
                    cand = _try(runner, path, original, mutant, failure, failing, modules, broken_before)
                    if cand is not None:
                        found.append(record_hashes(cand, workspace))
                        stats.validated += 1
                        mine += 1
                        if len(found) >= max_validated:
                            stats.stopped = "enough"
                            return rank_candidates(found)
        stats.stopped = stats.stopped or "exhausted"
        return rank_candidates(found)
    finally:
        stats.elapsed_s = round(time.monotonic() - start, 3)
        shutil.rmtree(scratch.parent, ignore_errors=True)


def _try(
    runner: _Runner,
    path: Path,
    original: str,
    mutant: Mutant,
    failure: TestFailureRecord,
    failing: list[TestFailureRecord],
    modules: list[str],
    broken_before: set[str],
) -> FixCandidate | None:
    try:
        mutated = _apply_text(original, mutant)
    except (IndexError, ValueError):
        return None
    try:
        path.write_text(mutated, encoding="utf-8")
        target_ids = [f.node_id for f in failing]
        first = runner.run(target_ids)
        if first is None:
            return None
        fixed = [f for f in failing if first.get(_key_of_node_id(f.node_id))]
        if failure not in fixed:
            return None
        second = runner.run(modules)
        if second is None:
            return None
        newly_broken = {k for k, ok in second.items() if not ok} - broken_before
        if newly_broken:
            return None
    finally:
        path.write_text(original, encoding="utf-8")
    confidence = 0.8 + 0.15 * mutant.prior
    return FixCandidate(
        target_id=failure.failure_id,
        description=f"{mutant.description} (validated: makes {len(fixed)} failing test(s) pass, breaks none)",
        confidence=round(min(confidence, 0.97), 3),
        mutation_type="rename" if mutant.kind == "name" else "replaceNode",
        mutation={"kind": mutant.kind, "fixes": [f.failure_id for f in fixed]},
        edits=[mutant.edit],
        source="search",
        validated=True,
    ).ensure_id()
