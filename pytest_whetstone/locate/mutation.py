"""Mutation-informed localization: re-rank suspects by what their mutants did to the failing tests.

The validated search runs mutants of the top suspects anyway (see ``candidates.search``); a
function where a mutant makes a failing test pass, or changes how it fails, is very likely the
fault (the MUSE / Metallaxis observation), one where no mutant changes anything is less likely.
The search (and the in-process pass of :mod:`.pymutants`) report per suspect
``{file, qualname, tried, fixed, changed, score}``; this module blends that score into the static
ranking.  The session keeps the evidence beside the records (a ``mutant_evidence`` event: failure id
-> those dicts, each with a one-line ``note``), so the suspect shape stays as documented.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from ..records import Suspect

W_MUTANTS = 0.7  # share of the blended score that mutant outcomes decide, where they exist
NEUTRAL = 0.25  # what an untried suspect is taken to score (between "changes nothing" and "changes")


@dataclass
class MutantEvidence:
    """What the mutants of one suspect function did to the failing tests."""

    file: str
    qualname: str
    tried: int = 0
    fixed: int = 0  # mutants that made a failing test pass
    changed: int = 0  # mutants that changed how a failing test fails

    def score(self) -> float:
        """1 when a mutant fixes a failing test, in between when mutants change the failure, 0 when
        no mutant changes anything (the failure does not depend on this function)."""
        if self.fixed:
            return 1.0
        if self.changed:
            # weak: any code on the failing path changes the value; it says no more than coverage
            # does, so it must not lift a suspect over one no mutant reached
            return NEUTRAL + 0.05 * self.changed / max(1, self.tried)
        return 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "score": round(self.score(), 3)}


def with_notes(evidence: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{**ev, "note": describe(ev)} for ev in evidence]


def describe(ev: Mapping[str, Any]) -> str:
    tried = int(ev.get("tried", 0))
    if ev.get("fixed"):
        return f"mutants: {ev['fixed']} of {tried} made a failing test pass"
    if ev.get("changed"):
        return f"mutants: {ev['changed']} of {tried} changed how the test fails"
    return f"mutants: none of {tried} changed the failure"


def rerank(suspects: list[Suspect], evidence: Iterable[Mapping[str, Any]]) -> list[Suspect]:
    """The suspects in a new order (scores blended, evidence described); unchanged without evidence."""
    by_key = {(str(e.get("file", "")), str(e.get("qualname", ""))): e for e in evidence if e.get("tried")}
    if not suspects or not any((s.file_path, s.qualname) in by_key for s in suspects):
        return suspects
    top = max((s.score for s in suspects), default=0.0) or 1.0
    out: list[Suspect] = []
    for s in suspects:
        ev = by_key.get((s.file_path, s.qualname))
        mut = float(ev.get("score", 0.0)) if ev is not None else NEUTRAL
        blended = (1 - W_MUTANTS) * (s.score / top) + W_MUTANTS * mut
        out.append(replace(s, score=round(blended, 4)))
    order = sorted(range(len(out)), key=lambda i: (-out[i].score, i))
    return [out[i] for i in order]


def lead_with_fix(suspects: list[Suspect], file_path: str, line: int) -> list[Suspect]:
    """The suspects with the one holding ``file_path:line`` (the top validated fix) first, scored as the
    first was: when several functions have validated fixes, the evidence ties them and the ranking of
    the fixes decides."""
    at = next((i for i, s in enumerate(suspects)
               if s.file_path == file_path and s.line_start <= line <= s.line_end), None)
    if not at:
        return suspects
    lead = replace(suspects[at], score=max(suspects[at].score, suspects[0].score))
    return [lead, *suspects[:at], *suspects[at + 1:]]
