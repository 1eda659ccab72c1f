"""The fix loop on one seeded fault, shared by bench_fix_build.py and bench_fix_build_heldout.py.

Runs what `whetstone fix --build '<cmd>'` runs (``start_loop`` + ``run_to_completion``, the core calls
behind the CLI) on the workspace as the fault left it, then rebuilds once more and compares every file
with the original.  The store keeps the commands ccwrap recorded (so the loop's per-file gate and the
validated candidates see them, as for a user's ``CC=ccwrap`` build); the loop's own session and the
repository memory are dropped afterwards, so one fault never learns from another.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pytest_whetstone.orchestrate.loop import FeedbackLoopOrchestrator, start_loop
from pytest_whetstone.orchestrate.state import loop_fold
from pytest_whetstone.process import Interrupted
from pytest_whetstone.store.sessions import load_session


@dataclass
class LoopOutcome:
    converged: bool
    passes: bool  # the build passes afterwards (a rebuild outside the loop)
    exact: bool  # every file byte-identical to the original
    attempts: int
    seconds: float
    reason: str  # the escalation reason when it did not converge


def run_loop(
    root: Path,
    store: Path,
    build: str,
    originals: dict[Path, bytes],
    rebuild: Callable[[], int],
    *,
    max_wall: float = 300.0,
    max_attempts: int | None = None,
) -> LoopOutcome:
    """The loop on ``root`` as it is now; ``originals`` are the files as they were before the fault."""
    saved = {k: os.environ.get(k) for k in ("WHETSTONE_DIR", "LC_ALL", "WHETSTONE_SESSION")}
    os.environ["WHETSTONE_DIR"] = str(store)
    os.environ["LC_ALL"] = "C.UTF-8"
    os.environ.pop("WHETSTONE_SESSION", None)
    cwd = Path.cwd()
    os.chdir(root)  # as `whetstone fix` runs: in the workspace (relative paths in the output resolve there)
    t0 = time.monotonic()
    sid = ""
    try:
        sid = start_loop(store, build=build, cwd=root, max_attempts=max_attempts, max_wall_s=max_wall).session_id
        result = FeedbackLoopOrchestrator(store).run_to_completion(sid, max_wall)
        seconds = time.monotonic() - t0
        state = loop_fold(load_session(store, sid).events())
        converged = result.final_status == "converged"
        reason = result.escalation.escalation_reason if result.escalation else ""
        attempts = state.fix_attempts
    except Interrupted:
        raise  # the bench itself was stopped: not a finding
    except Exception as exc:  # a loop crash is a bench finding, not a bench failure
        seconds, converged, reason, attempts = time.monotonic() - t0, False, f"crash: {type(exc).__name__}: {exc}"[:120], 0
    finally:
        os.chdir(cwd)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    passes = rebuild() == 0
    exact = all(p.exists() and p.read_bytes() == data for p, data in originals.items())
    shutil.rmtree(store / "memory", ignore_errors=True)
    if sid:
        for f in (store / "sessions").glob(sid + "*"):
            f.unlink(missing_ok=True)
    return LoopOutcome(converged, passes, exact, attempts, seconds, reason)


def summary_rows(outcomes: list[tuple[str, LoopOutcome]]) -> list[str]:
    """Markdown rows: per compiler and all -- converged, build passes, exact, median seconds."""

    def pct(n: int, d: int) -> str:
        return f"{100 * n / d:.0f}% ({n}/{d})" if d else "-"

    rows = ["| compiler | faults | `whetstone fix` converges | build passes after | original restored exactly | median s / fault |",
            "|---|---|---|---|---|---|"]
    for cc in sorted({c for c, _ in outcomes}) + ["all"]:
        rs = [o for c, o in outcomes if cc in ("all", c)]
        secs = sorted(o.seconds for o in rs)
        med = secs[len(secs) // 2] if secs else 0.0
        rows.append(f"| {cc} | {len(rs)} | {pct(sum(o.converged for o in rs), len(rs))} | {pct(sum(o.passes for o in rs), len(rs))} "
                    f"| {pct(sum(o.exact for o in rs), len(rs))} | {med:.1f} |")
    return rows


def tool_versions() -> str:
    def first(argv: list[str]) -> str:
        return subprocess.run(argv, capture_output=True, text=True).stdout.splitlines()[0]

    return f"{first(['gcc', '--version'])}; {first(['clang', '--version'])}"
