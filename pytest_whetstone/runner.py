"""``whetstone run -- CMD``: run any build or test command, record it, end with the verdict.

The command's stdout and stderr stream through live and unchanged; a copy of
both (in arrival order) goes to a temporary file that is parsed afterwards
line by line, so memory does not grow with the log.  Children inherit
``WHETSTONE_SESSION``/``WHETSTONE_DIR`` (so ccwrap captures and nested runs
land in this session) and ``WHETSTONE_NESTED`` (so nested runs print no
verdict block of their own).
"""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from . import verdict as verdict_mod
from .config import Config, load_config
from .parse import ParseResult, normalize_paths, parse_file
from .records import (
    AttemptRecord,
    BuildErrorRecord,
    FixCandidate,
    GapModel,
    ObservationRecord,
    TestFailureRecord,
    Verdict,
    stable_id,
)
from .store.sessions import ENV_DIR, ENV_SESSION, Session, find_store, now_iso, open_session, warn_line

# Output that says the process ran out of memory, whatever its exit code.
_OOM_MARKERS = (
    "out of memory",
    "virtual memory exhausted",
    "std::bad_alloc",
    "cannot allocate memory",
    "memoryerror",
    "internal compiler error: killed",
    "fatal error: killed signal terminated program",
)
_BUILD_TOOLS = {"gcc", "clang", "clang_tidy", "cmake", "linker", "make", "unknown"}
_RAW_KEEP = 64 * 1024  # bytes of raw output kept in the observation (head and tail)


@dataclass
class RunOutcome:
    exit_code: int
    verdict: Verdict
    session: Session | None
    result: ParseResult = field(default_factory=ParseResult)
    candidates: list[FixCandidate] = field(default_factory=list)
    timed_out: bool = False
    attempt_id: str = ""


def _command_text(cmd: Sequence[str] | str) -> str:
    return cmd if isinstance(cmd, str) else shlex.join(cmd)


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
) -> RunOutcome:
    """Run cmd, stream its output, record an attempt; the verdict is printed last."""
    out = stdout or sys.stdout
    cwd = (cwd or Path.cwd()).resolve()
    session: Session | None = None
    outcome: RunOutcome | None = None
    started = time.monotonic()
    try:
        config = config if config is not None else _load_config_quietly(cwd)
        store = store or find_store(cwd)
        session = open_session(store, session_id, meta={"command": _command_text(cmd), "cwd": str(cwd)})
        outcome = _run_and_record(cmd, phase, timeout, cwd, session, shell, echo, config, started)
        return outcome
    except KeyboardInterrupt:
        outcome = _aborted(cmd, phase, session, 130, "setup-error")
        return outcome
    finally:
        if outcome is None:
            # our own failure before the command could be judged; still end with a verdict
            outcome = _aborted(cmd, phase, session, 2, "setup-error")
        if emit_verdict:
            verdict_mod.emit(outcome.verdict, out)


def _load_config_quietly(cwd: Path) -> Config:
    from .config import ConfigError

    try:
        return load_config(start=cwd)
    except ConfigError as exc:
        warn_line(str(exc))
        return Config()


def _aborted(cmd: Sequence[str] | str, phase: str, session: Session | None, code: int, failure: str) -> RunOutcome:
    verdict = verdict_mod.make_verdict(
        _target(cmd), failure, phase=phase or "run", report=_report_path(session)
    )
    return RunOutcome(exit_code=code, verdict=verdict, session=session)


def _target(cmd: Sequence[str] | str) -> str:
    text = _command_text(cmd)
    return text if len(text) <= 120 else text[:117] + "..."


def _report_path(session: Session | None) -> str | None:
    if session is None:
        return None
    try:
        return os.path.relpath(session.path)
    except ValueError:
        return str(session.path)


def child_env(session: Session) -> dict[str, str]:
    env = dict(os.environ)
    env[ENV_SESSION] = session.session_id
    env[ENV_DIR] = str(session.store)
    env[verdict_mod.ENV_NESTED] = "1"
    return env


def _run_and_record(
    cmd: Sequence[str] | str,
    phase: str,
    timeout: float | None,
    cwd: Path,
    session: Session,
    shell: bool,
    echo: bool,
    config: Config,
    started: float,
) -> RunOutcome:
    attempt_id = "A" + stable_id(session.session_id, time.time_ns(), os.getpid())
    events_before = len(session.events())
    with tempfile.NamedTemporaryFile(prefix="whetstone-run-", suffix=".log", delete=False) as log:
        log_path = Path(log.name)
    try:
        exit_code, timed_out, launch_error = _execute(cmd, cwd, session, shell, echo, timeout, log_path)
        result = _analyse(log_path, cwd, session, config)
        raw_text, truncated = _raw_excerpt(log_path)
    finally:
        log_path.unlink(missing_ok=True)
    native = _native_test_report(session, events_before)
    if native is not None:
        # The pytest plugin reported natively from inside the command: its records (suspects,
        # expected/actual, flakiness, validated candidates) replace our parse of its text.
        result.test_failures = native[0]
    failure, first_error = judge(result, exit_code, timed_out, launch_error, raw_text, phase)
    phase = phase or _guess_phase(result)
    gap = _gap(result)
    candidates = native[1] if native is not None else []
    candidates += _candidates(result, session, config, tests=native is None)
    _record(session, attempt_id, cmd, phase, exit_code, timed_out, result, gap, failure, raw_text, truncated,
            candidates, started, record_tests=native is None)
    counts = {
        "errors": result.error_count,
        "warnings": result.warning_count,
        "failed": result.fail_count or len([f for f in result.test_failures if not f.flaky]),
        "passed": result.pass_count,
        "skipped": result.skip_count,
    }
    verdict = verdict_mod.make_verdict(
        _target(cmd), failure, phase=phase, first_error=first_error, counts=counts,
        report=_report_path(session),
    )
    session.append("verdict", verdict.to_dict())
    if echo:
        _print_summary(result, candidates, sys.stderr)
    return RunOutcome(exit_code, verdict, session, result, candidates, timed_out, attempt_id)


def _execute(
    cmd: Sequence[str] | str,
    cwd: Path,
    session: Session,
    shell: bool,
    echo: bool,
    timeout: float | None,
    log_path: Path,
) -> tuple[int, bool, str]:
    """Run the command in its own process group; tee its output; return (exit, timed_out, error)."""
    args: Any = cmd if not shell else _command_text(cmd)
    try:
        proc = subprocess.Popen(
            args,
            cwd=str(cwd),
            env=child_env(session),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL if not sys.stdin or not sys.stdin.isatty() else None,
            shell=shell,
            start_new_session=True,
        )
    except FileNotFoundError as exc:
        message = f"whetstone: command not found: {exc.filename or _command_text(cmd)}\n"
        _write_err(message, log_path)
        return 127, False, message.strip()
    except PermissionError as exc:
        message = f"whetstone: cannot execute: {exc.filename or _command_text(cmd)}\n"
        _write_err(message, log_path)
        return 126, False, message.strip()
    except (OSError, ValueError) as exc:
        message = f"whetstone: cannot run command: {exc}\n"
        _write_err(message, log_path)
        return 2, False, message.strip()
    deadline = time.monotonic() + timeout if timeout else None
    timed_out = False
    with open(log_path, "ab") as log:
        try:
            timed_out = _pump(proc, log, echo, deadline)
        except KeyboardInterrupt:
            _signal_group(proc, signal.SIGINT)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
            raise
    code = proc.wait()
    if timed_out:
        return 124, True, ""
    return (128 - code if code < 0 else code), False, ""


def _write_err(message: str, log_path: Path) -> None:
    sys.stderr.write(message)
    sys.stderr.flush()
    with open(log_path, "ab") as log:
        log.write(message.encode())


def _pump(proc: subprocess.Popen[bytes], log: IO[bytes], echo: bool, deadline: float | None) -> bool:
    assert proc.stdout is not None and proc.stderr is not None
    sel = selectors.DefaultSelector()
    targets = {
        proc.stdout.fileno(): sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None,
        proc.stderr.fileno(): sys.stderr.buffer if hasattr(sys.stderr, "buffer") else None,
    }
    sel.register(proc.stdout, selectors.EVENT_READ)
    sel.register(proc.stderr, selectors.EVENT_READ)
    open_streams = 2
    while open_streams:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if deadline is not None and wait == 0.0:
            _terminate_group(proc)
            return True
        for key, _ in sel.select(timeout=wait if wait is not None else 1.0):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            log.write(chunk)
            target = targets.get(key.fd)
            if echo and target is not None:
                try:
                    target.write(chunk)
                    target.flush()
                except (OSError, ValueError):
                    pass
    if deadline is not None:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _terminate_group(proc)
            return True
    return False


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _terminate_group(proc: subprocess.Popen[bytes]) -> None:
    _signal_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        _signal_group(proc, signal.SIGKILL)
        proc.wait()


def _analyse(log_path: Path, cwd: Path, session: Session, config: Config) -> ParseResult:
    try:
        result = parse_file(str(log_path), "auto", cwd=str(cwd), config=config)
        normalize_paths(result, str(cwd), str(session.workspace))
    except Exception as exc:  # noqa: BLE001 - analysis must never break the run
        warn_line(f"could not parse the output: {exc}")
        return ParseResult()
    _ingest_ccwrap(session)
    _locate(result, session)
    return result


def _ingest_ccwrap(session: Session) -> None:
    """Fold in what ccwrap captured during the run (deduplicated against our parse by the fold)."""
    try:
        from .store.spool import ingest_spool
    except ImportError:
        return
    try:
        ingest_spool(session.store)
    except Exception as exc:  # noqa: BLE001
        warn_line(f"could not read ccwrap captures: {exc}")


def _locate(result: ParseResult, session: Session) -> None:
    try:
        from .locate.cfamily import locate_build_errors
    except ImportError:
        return
    try:
        locate_build_errors(result.build_errors, session.workspace)
    except Exception as exc:  # noqa: BLE001
        warn_line(f"could not locate errors in the source: {exc}")
    try:
        from .locate.native_tests import locate_native_failures

        locate_native_failures(result.test_failures, session.workspace, store=session.store)
    except Exception as exc:  # noqa: BLE001
        warn_line(f"could not locate test failures in the source: {exc}")


def _native_test_report(
    session: Session, since: int
) -> tuple[list[TestFailureRecord], list[FixCandidate]] | None:
    """Failures and candidates the pytest plugin recorded during this run, if it did."""
    failures: list[TestFailureRecord] | None = None
    candidates: list[FixCandidate] = []
    try:
        for event in session.events()[since:]:
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


def _candidates(result: ParseResult, session: Session, config: Config, *, tests: bool = True) -> list[FixCandidate]:
    if not (result.build_errors or (tests and result.test_failures)):
        return []
    try:
        from .candidates import generate
    except ImportError:
        return []
    try:
        failing = [e for e in result.build_errors if e.is_failure]
        live = [t for t in result.test_failures if not t.flaky] if tests else []
        from .candidates.validate import ValidationStats

        stats = ValidationStats()
        out = list(generate(failing, live, session.workspace, config, build_stats=stats))
        if stats.errors:
            session.append("build_validation", stats.to_dict())  # what the gate checked, for the record
        return out
    except Exception as exc:  # noqa: BLE001
        warn_line(f"could not generate fix candidates: {exc}")
        return []


def _raw_excerpt(log_path: Path) -> tuple[str, bool]:
    size = log_path.stat().st_size
    with open(log_path, "rb") as handle:
        if size <= 2 * _RAW_KEEP:
            return handle.read().decode("utf-8", "replace"), False
        head = handle.read(_RAW_KEEP)
        handle.seek(size - _RAW_KEEP)
        tail = handle.read()
    return head.decode("utf-8", "replace") + "\n[... truncated ...]\n" + tail.decode("utf-8", "replace"), True


def _has_test_output(result: ParseResult) -> bool:
    return any(tool not in _BUILD_TOOLS for tool in result.tools) or bool(result.test_failures)


def _guess_phase(result: ParseResult) -> str:
    if _has_test_output(result):
        return "tests"
    if result.build_errors or any(t in _BUILD_TOOLS for t in result.tools):
        return "build"
    return "run"


def _gap(result: ParseResult) -> GapModel:
    if _has_test_output(result):
        failing = len([f for f in result.test_failures if not f.flaky])
        return GapModel("test_failure_count", max(failing, result.fail_count if failing else 0), 0)
    return GapModel("error_count", result.error_count, 0)


def _location(record: BuildErrorRecord | TestFailureRecord) -> str | None:
    if isinstance(record, TestFailureRecord):
        if record.suspects:
            top = record.suspects[0]
            return f"{top.file_path}:{top.line_start}"
        if record.impl_file:
            return f"{record.impl_file}:{record.impl_line}"
    if record.file_path:
        return f"{record.file_path}:{record.line}" if record.line else record.file_path
    return None


def judge(
    result: ParseResult,
    exit_code: int,
    timed_out: bool,
    launch_error: str,
    raw_text: str,
    phase: str = "",
) -> tuple[str | None, str | None]:
    """The verdict's failure class and first-error pointer for one command run."""
    failing = [e for e in result.build_errors if e.is_failure]
    tests = [t for t in result.test_failures if not t.flaky]
    flaky = [t for t in result.test_failures if t.flaky]
    first = failing[0] if failing else None
    first_error = _location(first) if first else (_location(tests[0]) if tests else None)
    if timed_out:
        return "timeout", first_error
    if launch_error or exit_code in (126, 127) and not failing and not tests:
        return "setup-error", first_error
    lowered = raw_text.lower()
    if exit_code != 0 and (exit_code == 137 or any(m in lowered for m in _OOM_MARKERS)) or any(
        e.error_type == "resource_limit" and "memory" in e.message.lower() for e in failing
    ):
        return "oom", first_error
    if failing:
        if all(e.error_type == "missing_dependency" for e in failing):
            return "setup-error", first_error
        if all(e.tool == "linker" for e in failing if e.tool != "make"):
            return "link-error", first_error
        return "compile-error", first_error
    if tests:
        return verdict_mod.live_failure_class(tests), first_error
    if exit_code != 0:
        # failed without a record we understand: say which phase, let the agent look
        if (phase or _guess_phase(result)) in ("tests", "test"):
            return "test-failure", first_error
        if result.tools or phase in ("build", "compile"):
            return "compile-error", first_error
        return "setup-error", first_error
    if flaky:
        return "nondeterminism", _location(flaky[0])
    return None, None


def _record(
    session: Session,
    attempt_id: str,
    cmd: Sequence[str] | str,
    phase: str,
    exit_code: int,
    timed_out: bool,
    result: ParseResult,
    gap: GapModel,
    failure: str | None,
    raw_text: str,
    truncated: bool,
    candidates: list[FixCandidate],
    started: float,
    record_tests: bool = True,
) -> None:
    previous = session.state().gaps
    action = "test" if gap.metric_type == "test_failure_count" else "build"
    attempt = AttemptRecord(
        attempt_id=attempt_id,
        session_id=session.session_id,
        action=action,
        phase=phase,
        command=_command_text(cmd),
        exit_code=exit_code,
        outcome="timeout" if timed_out else ("success" if failure in (None, "nondeterminism") else "failure"),
        gap_before=previous[-1] if previous else None,
        gap_after=gap,
        started_at=now_iso(),
        duration_ms=int((time.monotonic() - started) * 1000),
    )
    origin = f"run:{phase}"
    session.append("build_errors", {
        "origin": origin,
        "records": [e.to_dict() for e in result.build_errors],
        "clean_tus": result.clean_tus,
    })
    if record_tests and (result.test_failures or action == "test"):
        session.append("test_failures", {
            "origin": origin, "records": [t.to_dict() for t in result.test_failures], "replace": True,
        })
    if candidates and record_tests:
        session.append("candidates", {"records": [c.to_dict() for c in candidates]})
    elif candidates:
        own = [c for c in candidates if c.target_id not in {t.failure_id for t in result.test_failures}]
        if own:
            session.append("candidates", {"records": [c.to_dict() for c in own]})
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
    session.append("observation", {"observation": observation.to_dict()})
    session.append("attempt", {"attempt": attempt.to_dict()})
    session.append("counts", {
        "errors": result.error_count, "warnings": result.warning_count,
        "passed": result.pass_count, "failed": result.fail_count, "skipped": result.skip_count,
    })


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
        lines.append(f"  {test.failure_type}: {test.test_suite}.{test.test_name}{detail}"[:200])
    best = [c for c in candidates if c.mutation_type != "manual"][:3]
    for cand in best:
        lines.append(f"  fix {cand.candidate_id} ({cand.confidence:.2f}): {cand.description[:140]}")
    try:
        stream.write("\n".join(lines) + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass
