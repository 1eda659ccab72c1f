"""``whetstone run -- CMD``: run any build or test command, record it, end with the verdict.

The command's stdout and stderr stream through live and unchanged; a copy of
both (in arrival order) goes to a temporary file that is parsed afterwards
line by line, so memory does not grow with the log.  Children inherit
``WHETSTONE_SESSION``/``WHETSTONE_DIR`` (so ccwrap captures and nested runs
land in this session) and ``WHETSTONE_NESTED`` (so nested runs print no
verdict block of their own).
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from . import verdict as verdict_mod
from .audience import is_agent_environment
from .config import Config, load_config
from .launch import Launched, launch
from .paths import display_path
from .prefetch import Prefetch
from .process import Interrupted, command_text, signals_interrupt
from .records import (
    AttemptRecord,
    BuildErrorRecord,
    FixCandidate,
    GapModel,
    ObservationRecord,
    TestFailureRecord,
    Verdict,
)
from .report.agent import write_agent_report
from .report.common import failure_title
from .store import events
from .store.events import RunWriter
from .store.sessions import Session, now_iso, warn_line
from .verdict import Evidence, RunFacts

if TYPE_CHECKING:
    from .parse import ParseResult

# The parsers, locators and generators are imported while the command runs (.prefetch), or on first
# use: the command starts after only what opening the session and judging the run need.

_BUILD_TOOLS = {"gcc", "clang", "clang_tidy", "cmake", "linker", "make", "unknown"}
_RAW_KEEP = 64 * 1024  # bytes of raw output kept in the observation (head and tail)
_AGENT_TAIL_LINES = 40  # output an agent sees when nothing in it could be read as a record


@dataclass
class RunOutcome:
    exit_code: int
    verdict: Verdict
    session: Session | None
    result: ParseResult = field(default_factory=lambda: _parse_result())
    candidates: list[FixCandidate] = field(default_factory=list)
    timed_out: bool = False
    attempt_id: str = ""
    phases: list[dict[str, Any]] = field(default_factory=list)
    facts: RunFacts = field(default_factory=RunFacts)


def run_command(
    cmd: Sequence[str] | str,
    *,
    phase: str = "",
    timeout: float | None = None,
    cwd: Path | None = None,
    store: Path | None = None,
    session_id: str | None = None,
    shell: bool = False,
    echo: bool = True,
    emit_verdict: bool = True,
    config: Config | None = None,
    stdout: IO[str] | None = None,
    agent: bool | None = None,
    search: bool = False,
    launched: Launched | None = None,
) -> RunOutcome:
    """Run cmd, stream its output, record an attempt; the verdict is printed last.  ``search``: run the
    validated mutant search on C/C++/JS test failures (``budgets.search_budget_s``).  ``launched``: the
    command already started by :func:`.launch.launch` (the CLI starts it before importing this module)."""
    out = stdout or sys.stdout
    cwd = (cwd or Path.cwd()).resolve()
    agent = is_agent_environment() if agent is None else agent
    session: Session | None = launched.session if launched is not None else None
    outcome: RunOutcome | None = None
    started = launched.started if launched is not None else time.monotonic()
    with signals_interrupt():
        try:
            if launched is None:
                launched = launch(cmd, cwd=cwd, store=store, session_id=session_id, shell=shell,
                                  echo=echo and not agent, timeout=timeout, started=started, phase=phase)
                session = launched.session
            if launched.pending_signal == signal.SIGINT:  # it landed while the core loaded (cli): judged now
                raise KeyboardInterrupt
            if launched.pending_signal:
                raise Interrupted(launched.pending_signal)
            config = config if config is not None else load_config_quietly(cwd)
            outcome = _run_and_record(cmd, phase, cwd, launched, echo, config, agent, out, search)
            return outcome
        except KeyboardInterrupt:
            _stop(launched, signal.SIGINT)
            outcome = _aborted(cmd, phase, session, 130, RunFacts(exit_code=130, interrupted="SIGINT"))
            return outcome
        except Interrupted as exc:
            _stop(launched, exc.signum)
            outcome = _aborted(cmd, phase, session, 128 + exc.signum,
                               RunFacts(exit_code=128 + exc.signum, interrupted=str(exc)))
            return outcome
        finally:
            if outcome is None:
                # our own failure before the command could be judged; still end with a verdict
                _stop(launched, signal.SIGTERM)
                outcome = _aborted(cmd, phase, session, 2, RunFacts(exit_code=2, launch_error="whetstone failed"))
            if launched is not None:
                launched.log_path.unlink(missing_ok=True)
            if emit_verdict:
                verdict_mod.emit(outcome.verdict, out)


def _stop(launched: Launched | None, sig: int) -> None:
    """An interrupt (or our own failure) outside the wait for the command: its group is still stopped."""
    if launched is not None:
        launched.running.stop(sig)


def load_config_quietly(cwd: Path) -> Config:
    """The workspace's whetstone.json5, or the defaults after one warning line when it cannot be read."""
    from .config import ConfigError

    try:
        return load_config(start=cwd)
    except ConfigError as exc:
        warn_line(str(exc))
        return Config()


def _aborted(cmd: Sequence[str] | str, phase: str, session: Session | None, code: int, facts: RunFacts) -> RunOutcome:
    judgement = verdict_mod.judge(Evidence(facts=facts, phase=phase or "run"))
    verdict = verdict_mod.make_verdict(_target(cmd), judgement, report=display_path(session.path) if session else None)
    if session is not None:
        try:
            session.append(events.VERDICT, {**verdict.to_dict(), "facts": facts.to_dict()})
        except OSError:
            pass
    return RunOutcome(exit_code=code, verdict=verdict, session=session, facts=facts)


def _target(cmd: Sequence[str] | str) -> str:
    text = command_text(cmd)
    return text if len(text) <= 120 else text[:117] + "..."


def _run_and_record(
    cmd: Sequence[str] | str,
    phase: str,
    cwd: Path,
    launched: Launched,
    echo: bool,
    config: Config,
    agent: bool,
    out: IO[str],
    search: bool = False,
) -> RunOutcome:
    session, started, log_path = launched.session, launched.started, launched.log_path
    attempt_id = launched.attempt_id  # its start was written before the command started (launch)
    prefetch = Prefetch()
    try:
        if launched.running.launch_error is None:
            prefetch.start()
        facts = launched.running.wait()
    finally:
        prefetch.stop()
    result = _analyse(log_path, cwd, session, config)
    raw_text, truncated = _raw_excerpt(log_path)
    facts.oom_output = verdict_mod.oom_in_output(raw_text)
    inner = session.events_since(launched.mark)
    native = _native_test_report(inner)
    if native is not None:
        # The pytest plugin reported natively from inside the command: its records (suspects,
        # expected/actual, flakiness, validated candidates) replace our parse of its text.
        result.test_failures = native[0]
    nested = [e.get("data") or {} for e in inner if e.get("event") == "verdict"]
    nested = [v for v in nested if isinstance(v, dict)]
    candidates = native[1] if native is not None else []
    # before the judge: the search's mutants may re-rank the suspects first_error names
    candidates += _candidates(result, session, config, tests=native is None,
                              search_budget_s=config.budgets.search_budget_s if search else 0.0,
                              command=command_text(cmd))
    judgement = verdict_mod.judge(Evidence(
        build_errors=result.build_errors, test_failures=result.test_failures, facts=facts, phase=phase,
        tools=sorted(result.tools), ledger=verdict_mod.phase_ledger(nested),
    ))
    phase = judgement.phase
    gap = _gap(result)
    duration_ms = int((time.monotonic() - started) * 1000)
    writer = RunWriter(session)
    _record(session, writer, attempt_id, cmd, phase, facts, result, gap, judgement.failure, raw_text, truncated,
            candidates, duration_ms, record_tests=native is None)
    counts = {
        "errors": result.error_count,
        "warnings": result.warning_count,
        "failed": result.fail_count or len([f for f in result.test_failures if not f.flaky]),
        "passed": result.pass_count,
        "skipped": result.skip_count,
    }
    target = _target(cmd)
    verdict = verdict_mod.make_verdict(target, judgement, counts=counts, report=display_path(session.path))
    own = {**verdict.to_dict(), "facts": facts.to_dict(), "attempt_id": attempt_id, "duration_ms": duration_ms}
    configured = [p.name for p in config.phases] if nested else []
    phases = verdict_mod.phase_ledger([*nested, own] if not nested else nested, configured)
    written = write_agent_report(
        session.store, verdict, session_id=session.session_id, session_path=display_path(session.path),
        phases=phases, duration_ms=duration_ms, build_errors=result.build_errors,
        test_failures=result.test_failures, candidates=candidates,
    )
    if written is not None:
        verdict.report = display_path(written)
        own["report"] = verdict.report
    writer.add(events.VERDICT, own)
    writer.write()
    if agent:
        _print_agent_lines(result, candidates, raw_text, verdict, out)
    elif echo:
        _print_summary(result, candidates, sys.stderr)
    return RunOutcome(facts.exit_code or 0, verdict, session, result, candidates, facts.timed_out, attempt_id, phases,
                      facts)


def _parse_result() -> ParseResult:
    from .parse import ParseResult

    return ParseResult()


def _analyse(log_path: Path, cwd: Path, session: Session, config: Config) -> ParseResult:
    from .parse import normalize_paths, parse_file

    try:
        result = parse_file(str(log_path), "auto", cwd=str(cwd), config=config)
        normalize_paths(result, str(cwd), str(session.workspace))
    except Exception as exc:  # noqa: BLE001 - analysis must never break the run
        warn_line(f"could not parse the output: {exc}")
        return _parse_result()
    _ingest_ccwrap(session)
    _locate(result, session)
    return result


def _ingest_ccwrap(session: Session) -> None:
    """Fold in what ccwrap captured during the run (deduplicated against our parse by the fold)."""
    from .store.spool import ingest_spool  # imported when needed: a passing run stays light

    try:
        ingest_spool(session.store)
    except Exception as exc:  # noqa: BLE001
        warn_line(f"could not read ccwrap captures: {exc}")


def _locate(result: ParseResult, session: Session) -> None:
    locate_records(result.build_errors, result.test_failures, session.workspace, store=session.store)


def locate_records(
    build_errors: list[BuildErrorRecord],
    test_failures: list[TestFailureRecord],
    workspace: Path,
    *,
    store: Path | None = None,
) -> None:
    """Place records in the source: C/C++ scopes, native (gtest, Jest) suspects, and static Python
    suspects for failures read from a pytest text log.  Best effort: one warning line per failure."""
    if not build_errors and not test_failures:
        return  # nothing to place: a passing run never loads the locators
    from .locate.cfamily import locate_build_errors
    from .locate.native_tests import locate_native_failures

    try:
        locate_build_errors(build_errors, workspace)
    except Exception as exc:  # noqa: BLE001
        warn_line(f"could not locate errors in the source: {exc}")
    try:
        locate_native_failures(test_failures, workspace, store=store)
    except Exception as exc:  # noqa: BLE001
        warn_line(f"could not locate test failures in the source: {exc}")
    for failure in test_failures:
        if failure.suspects or not failure.impl_file.endswith(".py"):
            continue
        from .locate.python import locate_python_failure  # only for a Python failure left unplaced

        try:
            locate_python_failure(failure, workspace)
        except Exception as exc:  # noqa: BLE001
            warn_line(f"could not locate a suspect for {failure.test_name}: {exc}")


def _native_test_report(
    events: list[dict[str, Any]],
) -> tuple[list[TestFailureRecord], list[FixCandidate]] | None:
    """Failures and candidates the pytest plugin recorded during this run, if it did."""
    failures: list[TestFailureRecord] | None = None
    candidates: list[FixCandidate] = []
    try:
        for event in events:
            data = event.get("data") or {}
            if event.get("event") == "test_failures" and str(data.get("origin", "")).startswith("pytest:"):
                failures = [TestFailureRecord.from_dict(r) for r in data.get("records", [])]
                candidates = []
            elif event.get("event") == "candidates" and failures is not None:
                candidates.extend(FixCandidate.from_dict(c) for c in data.get("records", []))
    except (TypeError, ValueError, AttributeError) as exc:
        warn_line(f"could not read the plugin's records: {exc}")
        return None
    return None if failures is None else (failures, candidates)


def _candidates(result: ParseResult, session: Session, config: Config, *, tests: bool = True,
                search_budget_s: float = 0.0, command: str | None = None) -> list[FixCandidate]:
    failing = [e for e in result.build_errors if e.is_failure]
    live = [t for t in result.test_failures if not t.flaky] if tests else []
    return generate_candidates(failing, live, session.workspace, config, session=session,
                               search_budget_s=search_budget_s, command=command)


def generate_candidates(
    errors: list[BuildErrorRecord],
    failures: list[TestFailureRecord],
    workspace: Path,
    config: Config,
    *,
    session: Session | None = None,
    search_budget_s: float = 0.0,
    command: str | None = None,
) -> list[FixCandidate]:
    """Candidates for failing records; an error inside a generator is one warning line, not a crash.
    With a search budget, C/C++/JS test failures also get the validated mutant search."""
    if not errors and not failures:
        return []
    from .candidates import generate
    from .candidates.validate import ValidationStats

    try:
        stats = ValidationStats()
        native = None
        if search_budget_s > 0:  # the search's machinery (threads, trials, schemata) loads only when it runs
            from .candidates.native_search_stats import NativeSearchStats

            native = NativeSearchStats()
        out = list(generate(errors, failures, workspace, config, build_stats=stats, search_budget_s=search_budget_s,
                            native_stats=native, store=session.store if session is not None else None,
                            command=command))
        if stats.errors and session is not None:
            session.append("build_validation", stats.to_dict())  # what the gate checked, for the record
        if native is not None and native.stopped and native.stopped != "disabled" and session is not None:
            _record_native_search(session, native)
        return out
    except Exception as exc:  # noqa: BLE001
        warn_line(f"could not generate fix candidates: {exc}")
        return []


def _record_native_search(session: Session, stats: Any) -> None:
    """What the native search did (statistics, per-suspect mutant evidence), and one line when it gave up."""
    from .locate.mutation import with_notes

    data = stats.to_dict()
    session.append(events.SEARCH, {"kind": "native", **data})
    if data.get("evidence"):
        session.append(events.MUTANT_EVIDENCE, {"search": with_notes(data["evidence"])})
    if stats.notes and not stats.validated:
        warn_line(f"the fix search did not run through: {stats.notes[0]}")


def _raw_excerpt(log_path: Path) -> tuple[str, bool]:
    size = log_path.stat().st_size
    with open(log_path, "rb") as handle:
        if size <= 2 * _RAW_KEEP:
            return handle.read().decode("utf-8", "replace"), False
        head = handle.read(_RAW_KEEP)
        handle.seek(size - _RAW_KEEP)
        tail = handle.read()
    return head.decode("utf-8", "replace") + "\n[... truncated ...]\n" + tail.decode("utf-8", "replace"), True


def _gap(result: ParseResult) -> GapModel:
    if any(tool not in _BUILD_TOOLS for tool in result.tools) or result.test_failures:
        failing = len([f for f in result.test_failures if not f.flaky])
        return GapModel("test_failure_count", max(failing, result.fail_count if failing else 0), 0)
    return GapModel("error_count", result.error_count, 0)


def _record(
    session: Session,
    writer: RunWriter,
    attempt_id: str,
    cmd: Sequence[str] | str,
    phase: str,
    facts: RunFacts,
    result: ParseResult,
    gap: GapModel,
    failure: str | None,
    raw_text: str,
    truncated: bool,
    candidates: list[FixCandidate],
    duration_ms: int,
    record_tests: bool = True,
) -> None:
    previous = _last_gap(session)
    action = "test" if gap.metric_type == "test_failure_count" else "build"
    attempt = AttemptRecord(
        attempt_id=attempt_id,
        session_id=session.session_id,
        action=action,
        phase=phase,
        command=command_text(cmd),
        exit_code=facts.exit_code or 0,
        outcome=_attempt_outcome(facts, failure),
        gap_before=previous,
        gap_after=gap,
        started_at=now_iso(),
        duration_ms=duration_ms,
    )
    origin = f"run:{phase}"
    writer.add(events.BUILD_ERRORS, {
        "origin": origin,
        "records": [e.to_dict() for e in result.build_errors],
        "clean_tus": result.clean_tus,
    })
    if record_tests and (result.test_failures or action == "test"):
        writer.add(events.TEST_FAILURES, {
            "origin": origin, "records": [t.to_dict() for t in result.test_failures], "replace": True,
        })
    if candidates and record_tests:
        writer.add(events.CANDIDATES, {"records": [c.to_dict() for c in candidates]})
    elif candidates:
        own = [c for c in candidates if c.target_id not in {t.failure_id for t in result.test_failures}]
        if own:
            writer.add(events.CANDIDATES, {"records": [c.to_dict() for c in own]})
    observation = ObservationRecord(
        observation_id="O" + attempt_id[1:],
        attempt_id=attempt_id,
        raw_text=raw_text,
        raw_truncated=truncated,
        error_count=result.error_count,
        warning_count=result.warning_count,
        fail_count=gap.current if action == "test" else 0,
        pass_count=result.pass_count,
        record_ids=[e.error_id for e in result.build_errors] + [t.failure_id for t in result.test_failures],
        gap=gap,
        failure=failure,
    )
    writer.add(events.OBSERVATION, {"observation": observation.to_dict()})
    writer.add(events.ATTEMPT, {"attempt": attempt.to_dict()})
    writer.add(events.COUNTS, {
        "errors": result.error_count, "warnings": result.warning_count,
        "passed": result.pass_count, "failed": result.fail_count, "skipped": result.skip_count,
    })


def _last_gap(session: Session) -> GapModel | None:
    """The gap the previous attempt measured (read from the end of the log, not by folding it)."""
    last = session.last_event(events.ATTEMPT)
    gap = ((last or {}).get("data") or {}).get("attempt", {}).get("gap_after")
    try:
        return GapModel.from_dict(gap) if isinstance(gap, dict) else None
    except (TypeError, ValueError):
        return None


def _attempt_outcome(facts: RunFacts, failure: str | None) -> str:
    if facts.timed_out:
        return "timeout"
    if failure in (None, "nondeterminism") and not facts.failed:
        return "success"
    return "oom" if failure == "oom" else "failure"


def _print_summary(result: ParseResult, candidates: list[FixCandidate], stream: IO[str]) -> None:
    failing = [e for e in result.build_errors if e.is_failure]
    tests = [t for t in result.test_failures if not t.flaky]
    if not failing and not tests:
        return
    lines = [f"whetstone: {len(failing)} error(s), {len(tests)} failing test(s)"]
    for error in failing[:5]:
        where = f"{error.file_path}:{error.line}" if error.file_path else error.tool
        lines.append(f"  {where}: {error.error_type}: {error.message[:160]}")
    for test in tests[:5]:
        detail = f" expected {test.expected_value!r} got {test.actual_value!r}" if test.expected_value else ""
        lines.append(f"  {test.failure_type}: {failure_title(test, '.')}{detail}"[:200])
    best = [c for c in candidates if c.mutation_type != "manual"][:3]
    for cand in best:
        lines.append(f"  fix {cand.candidate_id} ({cand.confidence:.2f}): {cand.description[:140]}")
    try:
        stream.write("\n".join(lines) + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def _print_agent_lines(
    result: ParseResult, candidates: list[FixCandidate], raw_text: str, verdict: Verdict, out: IO[str]
) -> None:
    """What an agent needs and nothing else: a line per failure record, the top candidates.

    When the run failed and nothing in its output could be read as a record, the tail of the output
    is shown instead: a condensed report must never hide the body of a failure."""
    from .report.agent import agent_lines

    lines = agent_lines(result.build_errors, result.test_failures, candidates)
    if not lines and verdict.status == "fail":
        tail = raw_text.rstrip("\n").splitlines()[-_AGENT_TAIL_LINES:]
        lines = [f"output (last {len(tail)} lines):", *tail]
    try:
        out.write("".join(line + "\n" for line in lines))
        out.flush()
    except (OSError, ValueError):
        pass
