"""The always-last, machine-readable verdict block.

An agent greps for the sentinel and reads the one JSON line after it; since
it is printed last (from a ``finally`` path), a truncated tail keeps it.
Nested runs (``WHETSTONE_NESTED`` set by an outer run) print no sentinel of
their own: they report into the outer run's session instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import IO

from .records import TestFailureRecord, Verdict, dumps

BEGIN = "===WHETSTONE-RESULT==="
END = "===END-WHETSTONE-RESULT==="
ENV_NESTED = "WHETSTONE_NESTED"

# What an agent should do next, per failure class.
RETRY_FOR = {
    None: None,
    "compile-error": "fix-source",
    "link-error": "fix-source",
    "test-failure": "fix-source",
    "nondeterminism": "rerun",
    "setup-error": "fix-env",
    "oom": "escalate",
    "timeout": "rerun",
}


def status_for(failure: str | None) -> str:
    if failure is None:
        return "pass"
    return "warn" if failure == "nondeterminism" else "fail"


def make_verdict(
    target: str,
    failure: str | None,
    *,
    phase: str = "",
    first_error: str | None = None,
    counts: dict[str, int] | None = None,
    report: str | None = None,
) -> Verdict:
    return Verdict(
        target=target,
        status=status_for(failure),
        failure=failure,
        phase=phase,
        first_error=first_error,
        retry=RETRY_FOR.get(failure, "escalate"),
        counts=dict(counts or {}),
        report=report,
    )


def render(verdict: Verdict) -> str:
    return f"{BEGIN}\n{dumps(verdict.to_dict())}\n{END}\n"


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
        import json

        return Verdict.from_dict(json.loads(body))
    except (ValueError, TypeError):
        return None


def failure_class(records: Sequence[TestFailureRecord], exitstatus: int) -> str | None:
    """The verdict's failure class for a test run from native records (see DESIGN.md)."""
    live = [r for r in records if not r.flaky]
    if not records:
        return None if exitstatus in (0, 5) else "setup-error"
    if not live:
        return "nondeterminism"
    return live_failure_class(live)


def live_failure_class(live: Sequence[TestFailureRecord]) -> str:
    """The class of a run whose (non-flaky) test failures are ``live``: shared by native and parsed runs."""
    if all(r.failure_type == "infra" for r in live):
        return "setup-error"  # collection, import and fixture errors: the tests never ran
    if all(r.failure_type == "timeout" for r in live):
        return "timeout"
    return "test-failure"


def first_error(records: Sequence[TestFailureRecord]) -> str | None:
    """The verdict's pointer for a test run: the top suspect (at the failing line if inside it)."""
    ordered = [r for r in records if not r.flaky] or list(records)
    for r in ordered:
        if r.suspects:
            s = r.suspects[0]
            line = s.line_start
            if r.impl_file == s.file_path and s.line_start <= r.impl_line <= s.line_end:
                line = r.impl_line
            return f"{s.file_path}:{line}"
        if r.file_path:
            return f"{r.file_path}:{r.line}" if r.line else r.file_path
    return None
