"""The one constructor every candidate generator uses."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..records import BuildErrorRecord, FixCandidate, TestFailureRecord, TextEdit, rank_candidates
from .hashing import record_hashes

Generator = Callable[[TestFailureRecord, Path], list[FixCandidate]]


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
    if mutation_type == "manual":
        return FixCandidate.manual(target_id, description, confidence=confidence, source=source, details=mutation)
    return FixCandidate.edit(target_id, description, edits, mutation_type=mutation_type, confidence=confidence,
                             source=source, details=mutation)


def per_failure(
    failures: Sequence[TestFailureRecord],
    workspace: Path,
    generators: Sequence[Generator],
    manual: Callable[[TestFailureRecord], FixCandidate],
) -> list[FixCandidate]:
    """Run each generator on each failure, add its manual fallback, de-duplicate and rank."""
    out: list[FixCandidate] = []
    for failure in failures:
        failure.ensure_id()
        produced: list[FixCandidate] = []
        for generator in generators:
            try:
                produced.extend(generator(failure, workspace))
            except Exception:  # noqa: BLE001 - a generator bug must not lose the others
                continue
        produced.append(manual(failure))
        seen: set[str] = set()
        for cand in produced:
            if cand.candidate_id not in seen:
                seen.add(cand.candidate_id)
                out.append(record_hashes(cand, workspace))
    return rank_candidates(out)
