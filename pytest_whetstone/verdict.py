"""The always-last, machine-readable verdict block.

An agent greps for the sentinel and reads the one JSON line after it; since
it is printed last (from a ``finally`` path), a truncated tail keeps it.
Nested runs (``WHETSTONE_NESTED`` set by an outer run) print no sentinel of
their own: they report into the outer run's session instead.
"""

from __future__ import annotations

import os
import sys
from typing import IO

from .records import Verdict, dumps

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
