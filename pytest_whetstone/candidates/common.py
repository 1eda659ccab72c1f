"""The one constructor every candidate generator uses."""

from __future__ import annotations

from ..records import BuildErrorRecord, FixCandidate, TestFailureRecord, TextEdit


def new_candidate(
    target: BuildErrorRecord | TestFailureRecord,
    description: str,
    confidence: float,
    mutation_type: str,
    edits: list[TextEdit],
    source: str,
    **mutation: object,
) -> FixCandidate:
    """A candidate tied to its error or failure, with a deterministic id."""
    target_id = target.error_id if isinstance(target, BuildErrorRecord) else target.failure_id
    return FixCandidate(
        target_id=target_id,
        description=description,
        confidence=round(confidence, 3),
        mutation_type=mutation_type,
        mutation={k: v for k, v in mutation.items() if v not in (None, "")},
        edits=edits,
        source=source,
    ).ensure_id()
