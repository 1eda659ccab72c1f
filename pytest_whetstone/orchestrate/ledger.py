"""Failure fingerprints, the repair ledger and the same-fingerprint loop breaker (seed 004, #309).

A failure's fingerprint is its class + its place + its message with the
incidental parts (numbers, addresses, quoted literals' digits) normalised, so
"assert 5 == 6" and "assert 7 == 6" in the same test are the same failure.
The place is the enclosing function (``ast_node_id``) when known, because
line numbers move as soon as an edit inserts a line above.

The breaker: a failure whose fingerprint survived two *different* edits to the
same file, each re-checked (never on the absence of evidence: an edit whose
check never got as far as the failure is "unchecked" and does not count),
stops the loop with ``repeated_failure``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..records import BuildErrorRecord, TestFailureRecord, stable_id
from .state import Attempt, Failure, LoopState

_HEX = re.compile(r"0x[0-9a-fA-F]+")
_NUM = re.compile(r"(?<![A-Za-z_])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_SPACE = re.compile(r"\s+")
_TMP = re.compile(r"/tmp/[^\s:'\"]+")


def normalize_message(message: str) -> str:
    text = message.strip().splitlines()[0] if message.strip() else ""
    text = _TMP.sub("<tmp>", text)
    text = _HEX.sub("<addr>", text)
    text = _NUM.sub("N", text)
    return _SPACE.sub(" ", text).lower()[:300]


def failure_of_build(record: BuildErrorRecord) -> Failure:
    # the place, not the symbol: a wrong rename moves the error to another name at the same place
    location = record.ast_node_id or (record.file_path or record.tool)
    cls = record.error_type or "unknown"
    return Failure(
        record_id=record.error_id,
        fingerprint="F" + stable_id(cls, location, normalize_message(record.message)),
        location=location,
        file_path=record.file_path,
        line=record.line,
        message=record.message[:500],
        kind="build",
        failure_class=cls,
    )


def failure_of_test(record: TestFailureRecord) -> Failure:
    location = record.node_id or f"{record.test_suite}::{record.test_name}"
    cls = record.failure_type or "unknown"
    message = record.message or f"{record.exception_type}"
    where = record.impl_file or record.file_path
    line = record.impl_line if record.impl_file else record.line
    return Failure(
        record_id=record.failure_id,
        fingerprint="F" + stable_id(cls, location, normalize_message(message)),
        location=location,
        file_path=where,
        line=line,
        message=message[:500],
        kind="test",
        failure_class=cls,
    )



@dataclass
class RepeatedFailure:
    fingerprint: str
    file: str
    message: str
    location: str
    edits: list[str]

    def describe(self) -> str:
        return (
            f"the same failure ({self.message[:120]!r} at {self.location}) survived "
            f"{len(self.edits)} different edits to {self.file}"
        )


def repeated_failure(state: LoopState, threshold: int = 2) -> RepeatedFailure | None:
    """The loop breaker: a checked, persisting failure after `threshold` different edits to one file."""
    by_key: dict[tuple[str, str], list[Attempt]] = {}
    for attempt in state.attempts:
        if attempt.persisted is not True:  # unchecked or cleared: no evidence of a loop
            continue
        for path in attempt.files:
            by_key.setdefault((attempt.target_fingerprint, path), []).append(attempt)
    for (fingerprint, path), attempts in sorted(by_key.items()):
        distinct = sorted({a.fingerprint for a in attempts})
        if len(distinct) >= threshold:
            failure = _failure_named(state, fingerprint)
            return RepeatedFailure(
                fingerprint=fingerprint,
                file=path,
                message=failure.message if failure else fingerprint,
                location=failure.location if failure else attempts[-1].target_location,
                edits=distinct,
            )
    return None


def _failure_named(state: LoopState, fingerprint: str) -> Failure | None:
    for check in reversed(state.checks):
        for failure in check.failures:
            if failure.fingerprint == fingerprint:
                return failure
    return None


def file_ledger(state: LoopState) -> dict[str, dict[str, Any]]:
    """Per edited file: how many edits, the last outcome, and whether it is unchecked now."""
    ledger: dict[str, dict[str, Any]] = {}
    for attempt in state.attempts:
        for path in attempt.files:
            entry = ledger.setdefault(path, {"edits": 0, "kept": 0, "reverted": 0, "state": "checked"})
            entry["edits"] += 1
            if attempt.status == "kept":
                entry["kept"] += 1
            elif attempt.status in ("reverted", "recovered"):
                entry["reverted"] += 1
            entry["last"] = attempt.verdict or attempt.status
            entry["state"] = "unchecked" if attempt.status in ("pending", "intent") else "checked"
    return ledger
