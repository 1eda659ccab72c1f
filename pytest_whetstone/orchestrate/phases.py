"""Starting a loop session and running one of its phases (build, tests, ...)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from ..config import Config, ConfigError, load_config
from ..records import Verdict
from ..store import events
from ..store.location import ensure_layout
from ..store.sessions import Session, new_session_id, open_session, workspace_of
from .state import LoopConfig, PhaseSpec, loop_fold


class LoopError(Exception):
    """A step that cannot run (unknown or finished session); one clear line."""


# --------------------------------------------------------------------------- phase running


@dataclass
class PhaseOutcome:
    exit_code: int
    verdict: Verdict
    timed_out: bool = False
    interrupted: bool = False
    count: int = 0  # failures the runner counted in the output


class PhaseRunner(Protocol):
    def __call__(self, phase: PhaseSpec, session: Session, timeout: float | None, cwd: Path, *,
                 wall_left_s: float | None = None) -> PhaseOutcome: ...


# The loop's own search: a test phase that finds no validated fix leaves the loop nothing to apply, so
# the search may use the wall time the user gave the loop, not only the single run's budget.
LOOP_SEARCH_WALL_SHARE = 0.5  # of the wall time left when the test phase starts
LOOP_SEARCH_MAX_FACTOR = 6.0  # at most this many times budgets.search_budget_s


def loop_search_budget(configured_s: float, wall_left_s: float | None) -> float:
    """Seconds for the C/C++/JS search of a loop's test phase: half the wall time left, at least the
    configured budget (when the wall allows it), at most ``LOOP_SEARCH_MAX_FACTOR`` times it."""
    if configured_s <= 0:
        return 0.0
    if wall_left_s is None:
        return configured_s
    floor = min(configured_s, 0.8 * max(0.0, wall_left_s))
    return max(floor, min(LOOP_SEARCH_MAX_FACTOR * configured_s, LOOP_SEARCH_WALL_SHARE * wall_left_s))


def run_phase(phase: PhaseSpec, session: Session, timeout: float | None, cwd: Path, *,
              wall_left_s: float | None = None) -> PhaseOutcome:
    """Run one phase with the runner: recorded into the session, quiet, no verdict block of its own."""
    from ..runner import load_config_quietly, run_command

    search = phase.kind == "test"  # the loop wants validated fixes for C/C++/JS test failures
    config = load_config_quietly(cwd)
    if search:
        budgets = replace(config.budgets, search_budget_s=loop_search_budget(config.budgets.search_budget_s,
                                                                             wall_left_s))
        config = replace(config, budgets=budgets)
    out = run_command(
        phase.command, phase=phase.name, timeout=timeout, cwd=cwd, store=session.store,
        session_id=session.session_id, shell=True, echo=False, emit_verdict=False, config=config,
        search=search,
    )
    # a signal stopped the phase (Ctrl-C, SIGTERM): run_command judged it; the loop stops there
    interrupted = bool(out.facts.interrupted)
    result = out.result
    count = result.error_count + len([t for t in result.test_failures if not t.flaky])
    return PhaseOutcome(out.exit_code, out.verdict, out.timed_out, interrupted, count)


# --------------------------------------------------------------------------- starting


def plan_phases(build: str | None, test: str | None, config: Config) -> list[PhaseSpec]:
    """Build, then tests, with the config file's extra phases in between / after (by kind)."""
    if not build and not test:
        return [PhaseSpec(p.name, p.command, p.kind, "config") for p in config.phases]
    taken = {"build"} if build else set()
    taken |= {"tests", "test"} if test else set()
    extra = [PhaseSpec(p.name, p.command, p.kind, "config") for p in config.phases if p.name not in taken]
    phases: list[PhaseSpec] = [PhaseSpec("build", build, "build", "cli")] if build else []
    phases += [p for p in extra if p.kind == "build"]
    phases += [PhaseSpec("tests", test, "test", "cli")] if test else []
    phases += [p for p in extra if p.kind == "test"]
    phases += [p for p in extra if p.kind not in ("build", "test")]
    return phases


def start_loop(
    store: Path,
    *,
    build: str | None = None,
    test: str | None = None,
    max_attempts: int | None = None,
    max_wall_s: float | None = None,
    goal: str = "build and tests pass",
    goal_type: str = "",
    cwd: Path | None = None,
    dry_run: bool = False,
    config: Config | None = None,
    session_id: str | None = None,
) -> Session:
    """Create a loop session (status pending); the caller steps it."""
    cwd = (cwd or Path.cwd()).resolve()
    if not cwd.is_dir():
        raise LoopError(f"workspace {cwd} is not a directory")
    if config is None:
        try:
            config = load_config(start=cwd)
        except ConfigError as exc:
            raise LoopError(str(exc)) from exc
    phases = plan_phases(build, test, config)
    if not phases:
        raise LoopError("nothing to run: give --build and/or --test (or phases in whetstone.json5)")
    if max_attempts is not None and max_attempts < 0:
        raise LoopError("--max-attempts must be 0 or more")
    if max_wall_s is not None and max_wall_s <= 0:
        raise LoopError("--max-wall must be a positive number of seconds")
    kinds = {p.kind for p in phases}
    loop = LoopConfig(
        phases=phases,
        max_attempts=config.budgets.max_attempts if max_attempts is None else max_attempts,
        max_wall_s=config.budgets.max_wall_s if max_wall_s is None else max_wall_s,
        timeout_s=config.budgets.timeout_s,
        goal=goal,
        goal_type=goal_type or ("build_and_test" if {"build", "test"} <= kinds else ("test" if "test" in kinds else "build")),
        workspace=str(workspace_of(store)),
        cwd=str(cwd),
        dry_run=dry_run,
    )
    ensure_layout(store)
    session = open_session(
        store, session_id or new_session_id(), meta={"command": "whetstone fix", "cwd": str(cwd)}
    )
    if loop_fold(session.events()).started:
        raise LoopError(f"session {session.session_id} already has a loop")
    session.append(events.LOOP_STARTED, loop.to_dict())
    return session
