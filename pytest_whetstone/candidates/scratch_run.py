"""Running the failing tests of a scratch copy: the copy itself, ``python -m pytest`` subprocesses with a
JUnit report, and the fork worker's bookkeeping (:mod:`.forkrun`).  The validated search (``search.py``)
decides what to run; this module only runs it, bounded by the search's deadline."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .forkrun import ForkWorker

if TYPE_CHECKING:
    from .search import SearchStats

IGNORE = shutil.ignore_patterns(
    ".git", ".whetstone", "__pycache__", "*.pyc", ".venv", "venv", ".tox", ".nox", "node_modules",
    ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", "*.egg-info",
)


def pytest_argv(python: str, junit: Path, targets: list[str], stop_first: bool = False) -> list[str]:
    return [
        python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:whetstone",
        "-o", "addopts=", *(["-x"] if stop_first else []), "--junitxml", str(junit), *targets,
    ]


def search_env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("WHETSTONE_SESSION", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a stale .pyc must never hide a mutant
    paths = [str(root / "src"), str(root)] if (root / "src").is_dir() else [str(root)]
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [env.get("PYTHONPATH", "")] if p])
    env["WHETSTONE_DIR"] = str(root / ".whetstone-scratch-store")
    # Entry-point plugins (hypothesis, cov, ...) can cost seconds per run; the search
    # runs without them unless the failures only reproduce with them (see baseline).
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


class Runner:
    """Runs pytest in the scratch copy (fresh subprocess) and reports per-test outcomes."""

    def __init__(self, root: Path, python: str, deadline: float, stats: SearchStats) -> None:
        self.root = root
        self.python = python
        self.deadline = deadline
        self.stats = stats
        self.junit = root / ".whetstone-search-junit.xml"
        self.env = search_env(root)
        self.last_s = 0.0

    def with_plugins(self) -> None:
        self.env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def run(self, targets: list[str], stop_first: bool = False) -> dict[str, bool] | None:
        """{junit key: passed} for the targets, or None on timeout/crash/out of budget."""
        remaining = self.remaining()
        if remaining <= 0.5:
            return None
        self.junit.unlink(missing_ok=True)
        self.stats.runs += 1
        self.stats.subprocess_runs += 1
        t0 = time.monotonic()
        try:
            subprocess.run(
                pytest_argv(self.python, self.junit, targets, stop_first),
                cwd=self.root, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                timeout=remaining, check=False,
            )
        except subprocess.TimeoutExpired:
            return None
        finally:
            self.last_s = time.monotonic() - t0
        return junit_outcomes(self.junit)


class FastFilter:
    """The fork worker, with the bookkeeping the search needs."""

    def __init__(self, runner: Runner, modules: list[str]) -> None:
        self.runner = runner
        self.worker = ForkWorker(runner.root, runner.python, runner.env, modules)
        self.junit = runner.root / ".whetstone-fast-junit.xml"
        self.alive = False
        self.timeout = 5.0

    def start(self) -> bool:
        budget = self.runner.remaining() - 1.0
        self.alive = budget > 1.0 and self.worker.start(budget)
        self.runner.stats.worker_start_s = round(self.worker.ready_s, 3)
        return self.alive

    def run(self, targets: list[str], patch: dict[str, Any] | None) -> tuple[str, dict[str, bool] | None, float]:
        """(status, outcomes, seconds); status ok | timeout | unpatchable | dead | budget."""
        timeout = min(self.timeout, self.runner.remaining())
        if timeout <= 0.2:
            return "budget", None, 0.0
        self.junit.unlink(missing_ok=True)
        reply = self.worker.run(targets, self.junit, timeout, patch)
        status = str(reply.get("status", "dead"))
        if status == "dead":
            self.alive = False
            self.runner.stats.notes.append("the fork worker died; the rest runs in subprocesses")
            return status, None, 0.0
        if status in ("ok", "timeout"):
            self.runner.stats.runs += 1
            self.runner.stats.fast_runs += 1
        outcomes = junit_outcomes(self.junit) if status == "ok" else None
        return status, outcomes, float(reply.get("seconds", 0.0))

    def close(self) -> None:
        self.worker.close()
        self.alive = False


def junit_outcomes(path: Path) -> dict[str, bool] | None:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    out: dict[str, bool] = {}
    for case in root.iter("testcase"):
        classname = case.get("classname", "")
        name = case.get("name", "")
        failed = any(child.tag in ("failure", "error") for child in case)
        key = node_key(classname, name)
        out[key] = out.get(key, True) and not failed  # a test reported twice fails if either failed
    return out


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def junit_failures(path: Path) -> dict[str, str]:
    """{junit key: failure message} of the failed cases (addresses blanked: they differ run to run)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return {}
    out: dict[str, str] = {}
    for case in root.iter("testcase"):
        for child in case:
            if child.tag in ("failure", "error"):
                key = node_key(case.get("classname", ""), case.get("name", ""))
                out.setdefault(key, _ADDRESS.sub("0x", child.get("message", "") or child.get("type", "")))
    return out


def node_key(classname: str, name: str) -> str:
    return f"{classname}::{name}"


def key_of_node_id(node_id: str) -> str:
    """pytest node id -> the junit classname::name key (a/b/test_x.py::C::t -> a.b.test_x.C::t)."""
    parts = node_id.split("::")
    module = parts[0].removesuffix(".py").replace("/", ".")
    classname = ".".join([module, *parts[1:-1]])
    return node_key(classname, parts[-1])


def scratch_copy(workspace: Path) -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="whetstone-search-"))
    target = scratch / "ws"
    shutil.copytree(workspace, target, ignore=IGNORE, symlinks=True)
    return target
