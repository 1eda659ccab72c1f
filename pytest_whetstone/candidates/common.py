"""How every candidate generator makes its candidates: ``edit_for`` (edits) and ``manual_for`` (advice),
over ``FixCandidate.edit`` / ``FixCandidate.manual``, tied to the record they fix."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..records import BuildErrorRecord, FixCandidate, TestFailureRecord, TextEdit, rank_candidates
from .hashing import record_hashes

Generator = Callable[[TestFailureRecord, Path], list[FixCandidate]]


def _target_id(target: BuildErrorRecord | TestFailureRecord) -> str:
    return target.error_id if isinstance(target, BuildErrorRecord) else target.failure_id


def manual_for(
    target: BuildErrorRecord | TestFailureRecord, description: str, *, confidence: float, source: str = "rule",
    **details: object,
) -> FixCandidate:
    """Advice tied to its error or failure (no edits, never applied automatically)."""
    return FixCandidate.manual(_target_id(target), description, confidence=confidence, source=source,
                               details=details)


def edit_for(
    target: BuildErrorRecord | TestFailureRecord, description: str, edits: list[TextEdit], *,
    mutation_type: str, confidence: float, source: str, **details: object,
) -> FixCandidate:
    """Concrete edits tied to their error or failure, with a deterministic id."""
    if mutation_type == "manual":
        return manual_for(target, description, confidence=confidence, source=source, **details)
    return FixCandidate.edit(_target_id(target), description, edits, mutation_type=mutation_type,
                             confidence=confidence, source=source, details=details)


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
