"""The one judge of a run, and the always-last, machine-readable verdict block.

Every face asks this module: ``whetstone run`` (its block), the pytest plugin,
``whetstone report`` in every format, the loop and the MCP tools.  So they can
never disagree.  The judge reads records (what the tools said) and a run's
facts (exit status, timeout, signal): the innermost evidence wins, so tests that
failed under ``make test`` are a test-failure at the failing assertion, not a
make error, and a non-zero exit that nothing explains says so instead of
inventing a class.

An agent greps for the sentinel and reads the one JSON line after it; since
it is printed last (from a ``finally`` path), a truncated tail keeps it.
Nested runs (``WHETSTONE_NESTED`` set by an outer run) print no sentinel of
their own: they report into the outer run's session instead.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import IO, Any

from .records import BuildErrorRecord, TestFailureRecord, Verdict, dumps
from .store.location import ENV_NESTED

BEGIN = "===WHETSTONE-RESULT==="
END = "===END-WHETSTONE-RESULT==="

# The closed set of failure classes, worst first (the order a merged report picks by).
FAILURES = (
    "interrupted",
    "oom",
    "timeout",
    "setup-error",
    "link-error",
    "compile-error",
    "test-failure",
    "nondeterminism",
)
# What an agent should do next, per failure class.
RETRY_FOR: dict[str | None, str | None] = {
    None: None,
    "compile-error": "fix-source",
    "link-error": "fix-source",
    "test-failure": "fix-source",
    "nondeterminism": "rerun",
    "setup-error": "fix-env",
    "oom": "escalate",
    "timeout": "rerun",
    "interrupted": "rerun",
}
# Output that says the process ran out of memory, whatever its exit code.
OOM_MARKERS = (
    "out of memory",
    "virtual memory exhausted",
    "std::bad_alloc",
    "cannot allocate memory",
    "memoryerror",
    "internal compiler error: killed",
    "fatal error: killed signal terminated program",
)
# Exceptions that mean the code under test does not load: a source error, not a broken environment.
_SOURCE_LOAD_ERRORS = frozenset({"SyntaxError", "IndentationError", "TabError", "NameError", "ImportError",
                                 "AttributeError", "TypeError", "ValueError"})
_BUILD_TOOLS = frozenset({"gcc", "clang", "clang_tidy", "cmake", "linker", "make", "unknown"})


@dataclass
class RunFacts:
    """What the process told us beside its output."""

    exit_code: int | None = 0  # None: not known (a stored session written before facts were kept)
    timed_out: bool = False
    interrupted: str = ""  # the signal's name, or "killed" when the run never finished
    launch_error: str = ""  # the command could not be started
    oom_output: bool = False  # the output said it ran out of memory

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunFacts:
        code = data.get("exit_code", 0)
        return cls(
            exit_code=code if isinstance(code, int) or code is None else 0,
            timed_out=bool(data.get("timed_out")),
            interrupted=str(data.get("interrupted") or ""),
            launch_error=str(data.get("launch_error") or ""),
            oom_output=bool(data.get("oom_output")),
        )

    @property
    def failed(self) -> bool:
        return bool(self.exit_code) or self.timed_out or bool(self.interrupted or self.launch_error)


@dataclass
class Judgement:
    status: str = "pass"  # pass | fail | warn
    failure: str | None = None
    phase: str = ""
    first_error: str | None = None
    retry: str | None = None


@dataclass
class Evidence:
    """Everything the judge reads for one run, or for a session as it stands now."""

    build_errors: Sequence[BuildErrorRecord] = ()
    test_failures: Sequence[TestFailureRecord] = ()
    facts: RunFacts = field(default_factory=RunFacts)
    phase: str = ""  # the phase the caller declared (--phase, a loop step)
    tools: Sequence[str] = ()  # whose output was seen (a test runner's output means the tests phase)
    requirements_gap: Sequence[Mapping[str, Any]] = ()  # what the loop's environment probe found missing
    ledger: Sequence[Mapping[str, Any]] = ()  # nested phases reported into this run


def oom_in_output(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in OOM_MARKERS)


def is_summary(record: BuildErrorRecord) -> bool:
    """make's and ninja's 'a recipe failed' lines: they only repeat what something inside said."""
    return record.tool == "make" and (
        record.message.startswith("recipe for target") or record.message.startswith("build stopped")
    )


def is_source_load_error(record: TestFailureRecord) -> bool:
    """A collection or import error raised in the code under test itself (pkg/mod.py does not load)."""
    return (
        record.outcome == "error"
        and bool(record.impl_file)
        and record.exception_type in _SOURCE_LOAD_ERRORS
        and "No module named" not in record.message
    )


def judge(evidence: Evidence) -> Judgement:
    """Status, failure class, phase, first error and retry advice: the innermost evidence wins."""
    facts = evidence.facts
    failing = [e for e in evidence.build_errors if e.is_failure]
    summaries = [e for e in failing if is_summary(e)]
    diagnostics = [e for e in failing if not is_summary(e)]
    inner = [e for e in diagnostics if e.tool != "make"]  # the compiler's, linker's, cmake's own
    live = [t for t in evidence.test_failures if not t.flaky]
    flaky = [t for t in evidence.test_failures if t.flaky]

    failure: str | None
    first = _first_build(inner or diagnostics) or _first_test(live) or _first_build(summaries)
    phase = evidence.phase or _failed_phase(evidence.ledger)
    if facts.interrupted:
        failure = "interrupted"
    elif facts.timed_out:
        failure = "timeout"
    elif _is_oom(facts, failing):
        failure = "oom"
    elif evidence.requirements_gap:
        failure, phase = "setup-error", phase or "environment"
        first = str(evidence.requirements_gap[0].get("name") or "") or None
    elif facts.launch_error and not failing and not live:
        failure = "setup-error"
    elif inner:
        failure = _build_class(inner)
        first = _first_build(inner)
    elif diagnostics:  # make's own errors only: no rule for a target, a Makefile syntax error
        failure = "setup-error"
    elif live:
        failure, first = _test_class(live)
    elif summaries and any(_missing_program(e) for e in summaries):
        failure = "setup-error"
    elif flaky:
        failure, first = "nondeterminism", _first_test(flaky)
    elif facts.failed or summaries:
        # failed, and nothing it printed says why: no invented class, the agent must look
        phase = phase or _guessed_phase(evidence)
        return Judgement("fail", None, phase, first, "escalate")
    else:
        return Judgement("pass", None, phase or _guessed_phase(evidence), None, None)
    if not phase:
        phase = _guessed_phase(evidence, failure)
    return Judgement(status_for(failure), failure, phase, first, RETRY_FOR.get(failure, "escalate"))


def _is_oom(facts: RunFacts, failing: Sequence[BuildErrorRecord]) -> bool:
    if facts.failed and (facts.oom_output or facts.exit_code == 137):
        return True
    return any(e.error_type == "resource_limit" and _says_memory(e.message) for e in failing)


def _says_memory(message: str) -> bool:
    text = message.lower()
    return any(w in text for w in ("memory", "bad_alloc", "killed signal", "cannot allocate"))


def _missing_program(record: BuildErrorRecord) -> bool:
    return record.message.endswith(("Error 127", "Error 126"))


def _build_class(errors: Sequence[BuildErrorRecord]) -> str:
    if all(e.error_type == "missing_dependency" for e in errors):
        return "setup-error"
    if all(e.tool == "linker" for e in errors):
        return "link-error"
    return "compile-error"


def _test_class(live: Sequence[TestFailureRecord]) -> tuple[str, str | None]:
    source = [t for t in live if is_source_load_error(t)]
    if source:
        return "compile-error", _at(source[0].impl_file, source[0].impl_line)
    if all(t.failure_type == "infra" for t in live):
        return "setup-error", _first_test(live)  # collection, import and fixture errors: the tests never ran
    if all(t.failure_type == "timeout" or t.outcome == "timeout" for t in live):
        return "timeout", _first_test(live)
    return "test-failure", _first_test(live)


def _at(path: str, line: int) -> str | None:
    if not path:
        return None
    return f"{path}:{line}" if line else path


def _first_build(errors: Sequence[BuildErrorRecord]) -> str | None:
    for e in errors:
        where = _at(e.file_path, e.line)
        if where:
            return where
    return None


def _first_test(records: Sequence[TestFailureRecord]) -> str | None:
    """The top suspect (at the failing line when it lies inside it), else where the code failed."""
    for r in records:
        if r.suspects:
            s = r.suspects[0]
            line = s.line_start
            if r.impl_file == s.file_path and s.line_start <= r.impl_line <= s.line_end:
                line = r.impl_line
            return f"{s.file_path}:{line}"
        where = _at(r.impl_file, r.impl_line) or _at(r.file_path, r.line)
        if where:
            return where
    return None


def _failed_phase(ledger: Sequence[Mapping[str, Any]]) -> str:
    for entry in ledger:
        if entry.get("status") == "fail":
            return str(entry.get("name") or "")
    return ""


def _guessed_phase(evidence: Evidence, failure: str | None = None) -> str:
    if failure in ("compile-error", "link-error") and evidence.build_errors:
        return "build"
    if evidence.test_failures or any(t not in _BUILD_TOOLS for t in evidence.tools):
        return "tests"
    if evidence.build_errors or evidence.tools:
        return "build"
    return "run"


def status_for(failure: str | None) -> str:
    if failure is None:
        return "pass"
    return "warn" if failure == "nondeterminism" else "fail"


# --------------------------------------------------------------------------- a stored session


def facts_of(verdict_event: Mapping[str, Any]) -> RunFacts:
    """A recorded verdict's run facts; sessions written before facts were kept get them back from its class."""
    facts = verdict_event.get("facts")
    if isinstance(facts, Mapping):
        return RunFacts.from_dict(facts)
    failure = verdict_event.get("failure")
    return RunFacts(
        exit_code=0 if verdict_event.get("status", "pass") != "fail" else 1,
        timed_out=failure == "timeout",
        interrupted="interrupted" if failure == "interrupted" else "",
        oom_output=failure == "oom",
    )


def worst_facts(events: Iterable[Mapping[str, Any]]) -> RunFacts:
    """One run's facts for several (a merged report): the first that explains a failure, worst kind first."""
    all_facts = [facts_of(v) for v in events]
    for pick in (
        lambda f: bool(f.interrupted),
        lambda f: f.timed_out,
        lambda f: f.oom_output,
        lambda f: bool(f.launch_error),
        lambda f: f.failed,
    ):
        for f in all_facts:
            if pick(f):
                return f
    return all_facts[-1] if all_facts else RunFacts()


def phase_ledger(
    verdict_events: Iterable[Mapping[str, Any]], configured: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """One entry per phase, the last verdict of each, in the order they first ran; configured phases
    that never ran are ``skipped``."""
    entries: dict[str, dict[str, Any]] = {}
    for v in verdict_events:
        name = v.get("phase")
        if not isinstance(name, str) or not name:
            continue
        counts = v.get("counts")
        entries[name] = {
            "name": name,
            "status": v.get("status") if v.get("status") in ("pass", "fail", "warn") else "fail",
            "counts": dict(counts) if isinstance(counts, Mapping) else {},
            "first_error": v.get("first_error"),
            "duration_ms": int(v.get("duration_ms") or 0),
        }
    ledger = list(entries.values())
    ledger += [{"name": n, "status": "skipped", "counts": {}, "first_error": None, "duration_ms": 0}
               for n in configured if n not in entries]
    return ledger


# --------------------------------------------------------------------------- the block


def make_verdict(
    target: str,
    judgement: Judgement | str | None,
    *,
    phase: str = "",
    first_error: str | None = None,
    counts: dict[str, int] | None = None,
    report: str | None = None,
) -> Verdict:
    """The block for a judgement (or, for callers that already know it, a bare failure class)."""
    if not isinstance(judgement, Judgement):
        judgement = Judgement(status_for(judgement), judgement, phase, first_error,
                              RETRY_FOR.get(judgement, "escalate"))
    return Verdict(
        target=target,
        status=judgement.status,
        failure=judgement.failure,
        phase=judgement.phase or phase,
        first_error=judgement.first_error if judgement.first_error is not None else first_error,
        retry=judgement.retry,
        counts=dict(counts or {}),
        report=report,
    )


def render(verdict: Verdict) -> str:
    line = dumps(verdict.to_dict())
    if "===" in line:
        # a hostile test name or message must never spell the sentinel: '=' only occurs inside strings
        line = line.replace("=", "\\u003d")
    return f"{BEGIN}\n{line}\n{END}\n"


def is_nested() -> bool:
    return bool(os.environ.get(ENV_NESTED))


def emit(verdict: Verdict, stream: IO[str] | None = None, *, force: bool = False) -> bool:
    """Print the block unless this process runs nested inside another Whetstone run."""
    if is_nested() and not force:
        return False
    out = stream or sys.stdout
    try:
        out.flush()
        out.write(render(verdict))
        out.flush()
    except (OSError, ValueError):
        return False
    return True


def parse_last(text: str) -> Verdict | None:
    """Read the last verdict block in text (consumers read the last occurrence)."""
    idx = text.rfind(BEGIN)
    if idx < 0:
        return None
    body = text[idx + len(BEGIN) :].lstrip("\r\n").split("\n", 1)[0]
    try:
        return Verdict.from_dict(json.loads(body))
    except (ValueError, TypeError):
        return None
