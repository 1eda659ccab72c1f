"""How every candidate generator makes its candidates: ``edit_for`` (edits) and ``manual_for`` (advice),
over ``FixCandidate.edit`` / ``FixCandidate.manual``, tied to the record they fix."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
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


class SharedWork:
    """What one candidate generation already worked out, for the failures that meet the same facts.

    Many failures of a run share their cause: thirty tests hit the same ``NameError`` at the same
    line, or assert on values of the same suspect.  A generator keyed by those facts runs once; the
    next failures get copies of its candidates tied to them (their own target and candidate ids)."""

    def __init__(self) -> None:
        self._done: dict[Hashable, list[FixCandidate]] | None = None  # None: outside a generation

    @contextlib.contextmanager
    def generation(self) -> Iterator[None]:
        """Share within this block only: the files may change before the next generation."""
        self._done = {}
        try:
            yield
        finally:
            self._done = None

    def get(self, key: Hashable, target: BuildErrorRecord | TestFailureRecord,
            make: Callable[[], list[FixCandidate]]) -> list[FixCandidate]:
        if self._done is None:
            return make()
        done = self._done.get(key)
        if done is None:
            done = self._done[key] = make()
            return done
        return [retarget(cand, target) for cand in done]


def retarget(candidate: FixCandidate, target: BuildErrorRecord | TestFailureRecord) -> FixCandidate:
    """A copy of ``candidate`` tied to ``target`` (same description and edits, its own ids)."""
    return dataclasses.replace(candidate, target_id=_target_id(target), candidate_id="",
                               mutation=dict(candidate.mutation), edits=list(candidate.edits)).ensure_id()


def per_failure(
    failures: Sequence[TestFailureRecord],
    workspace: Path,
    generators: Sequence[Generator],
    manual: Callable[[TestFailureRecord], FixCandidate],
    deadline: float | None = None,
) -> list[FixCandidate]:
    """Run each generator on each failure, add its manual fallback, de-duplicate and rank.  Past
    ``deadline`` (``time.monotonic()``) the failures not reached yet get their manual fallback alone."""
    out: list[FixCandidate] = []
    hashes: dict[str, str] = {}  # one hash per edited file, however many candidates edit it
    for index, failure in enumerate(failures):
        failure.ensure_id()
        produced: list[FixCandidate] = []
        late = deadline is not None and index > 0 and time.monotonic() > deadline
        for generator in () if late else generators:
            try:
                produced.extend(generator(failure, workspace))
            except Exception:  # noqa: BLE001 - a generator bug must not lose the others
                continue
        produced.append(manual(failure))
        seen: set[str] = set()
        for cand in produced:
            if cand.candidate_id not in seen:
                seen.add(cand.candidate_id)
                out.append(record_hashes(cand, workspace, hashes))
    return rank_candidates(out)
