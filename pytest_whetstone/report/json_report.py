"""`--format json`: the documented shape (docs/reports.md), deterministic bytes.

Keys are the documented ones (more may be added later, never renamed);
objects are written with sorted keys, so the same state always gives the
same bytes; candidates come ranked (validated first, then confidence).
"""

from __future__ import annotations

import json
from typing import Any

from ..records import SCHEMA_VERSION, BuildErrorRecord, FixCandidate, TestFailureRecord
from .model import ReportModel

BUILD_ERROR_KEYS = (
    "error_id", "tool", "severity", "file_path", "line", "col", "error_code", "message",
    "error_type", "is_lint", "context_lines", "ast_node_id",
)
TEST_FAILURE_KEYS = (
    "failure_id", "runner", "test_suite", "test_name", "failure_type", "expected_value",
    "actual_value", "file_path", "line", "message", "ast_node_id", "suspects",
)
CANDIDATE_KEYS = (
    "candidate_id", "target_id", "description", "confidence", "mutation_type", "edits", "source",
    "validated",
)
# The verdict's own fields, so the report and the block of the same run can be compared key by key.
VERDICT_KEYS = ("target", "phase", "first_error", "retry", "counts")
TOP_KEYS = ("schema_version", "session_id", "status", "failure", *VERDICT_KEYS, "phases", "build_errors",
            "test_failures", "candidates")


def _pick(record: BuildErrorRecord | TestFailureRecord | FixCandidate, keys: tuple[str, ...]) -> dict[str, Any]:
    data = record.to_dict()
    return {k: data[k] for k in keys}


def to_data(model: ReportModel) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "session_id": model.session_id,
        "status": model.status,
        "failure": model.failure,
        **{key: getattr(model.verdict, key) for key in VERDICT_KEYS},
        "phases": model.phases,
        "build_errors": [_pick(e, BUILD_ERROR_KEYS) for e in model.build_errors],
        "test_failures": [_pick(f, TEST_FAILURE_KEYS) for f in model.test_failures],
        "candidates": [_pick(c, CANDIDATE_KEYS) for c in model.candidates],
    }


def render(model: ReportModel) -> str:
    return json.dumps(to_data(model), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
