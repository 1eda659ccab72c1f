"""CandidateAutoSelector (seed 002, step 1390): which fix to apply next, or why none.

Rules, in order:

* rank: validated first, then confidence, then the candidate id (``records.rank_candidates``),
  so ties are broken the same way on every machine;
* repository memory (``memory.py``): an edit set kept for the same failure in an
  earlier session goes first; one reverted for it goes after the other automatic
  candidates (tried only when nothing else is left);
* never re-apply what this session already tried, by the hash of its *edits*
  (``FixCandidate.edits_fingerprint``) -- two candidates with different
  descriptions but the same edits are one candidate;
* the top untried candidate is manual -> escalate ``manual_required`` (manual
  candidates are never applied automatically);
* no untried automatic candidate left -> escalate ``all_auto_tried`` (also for an
  empty list).

Every selection is written to the session as a ``decision`` event by the caller
(:func:`log_selection`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from ..records import FixCandidate, OrchestratorDecision, Record, rank_candidates
from ..store import events
from ..store.sessions import Session


def is_automatic(candidate: FixCandidate) -> bool:
    return candidate.applicability != "display-only"


@dataclass
class Selection(Record):
    action: str = "escalate"  # apply | escalate
    candidate_id: str = ""
    fingerprint: str = ""
    confidence: float = 0.0
    validated: bool = False
    description: str = ""
    rationale: str = ""
    escalation_reason: str = ""
    considered: list[str] = field(default_factory=list)  # candidate ids in rank order
    skipped_tried: list[str] = field(default_factory=list)

    _nested: ClassVar[dict[str, type[Record]]] = {}

    def decision(self) -> OrchestratorDecision:
        if self.action == "apply":
            return OrchestratorDecision(
                "apply_candidate", self.rationale, round(self.confidence, 4), candidate_id=self.candidate_id
            )
        return OrchestratorDecision(
            "escalate", self.rationale, 1.0, candidate_id=self.candidate_id, escalation_reason=self.escalation_reason
        )


class CandidateAutoSelector:
    def select(
        self,
        candidates: Iterable[FixCandidate],
        tried: Iterable[str] = (),
        *,
        prefer: Iterable[str] = (),
        avoid: Iterable[str] = (),
    ) -> Selection:
        """``prefer`` / ``avoid``: edit fingerprints that earlier sessions kept / reverted for these failures."""
        tried_set = set(tried)
        ranked = remembered_order(_unique(rank_candidates([c.ensure_id() for c in candidates])), set(prefer), set(avoid))
        considered = [c.candidate_id for c in ranked]
        untried = [c for c in ranked if c.edits_fingerprint() not in tried_set]
        skipped = [c.candidate_id for c in ranked if c.edits_fingerprint() in tried_set]
        auto_tried = any(is_automatic(c) for c in ranked if c.edits_fingerprint() in tried_set)
        if not ranked:
            return Selection(
                rationale="no fix candidate was generated for the remaining failures",
                escalation_reason="all_auto_tried",
            )
        if not untried:
            return Selection(
                rationale=f"all {len(ranked)} candidates were already tried (in this session, or reverted before on these very files)",
                escalation_reason="all_auto_tried",
                considered=considered,
                skipped_tried=skipped,
            )
        top = untried[0]
        if not is_automatic(top):
            any_auto_left = any(is_automatic(c) for c in untried)
            reason = "all_auto_tried" if auto_tried and not any_auto_left else "manual_required"
            why = (
                "every automatic candidate was tried; what is left needs a human"
                if reason == "all_auto_tried"
                else f"the best remaining candidate is manual ({top.confidence:.2f}): {top.description[:160]}"
            )
            return Selection(
                candidate_id=top.candidate_id,
                fingerprint=top.edits_fingerprint(),
                confidence=top.confidence,
                description=top.description,
                rationale=why,
                escalation_reason=reason,
                considered=considered,
                skipped_tried=skipped,
            )
        rank_note = "validated, " if top.validated else ""
        if top.edits_fingerprint() in set(prefer):
            rank_note = "worked before for this failure, " + rank_note
        return Selection(
            action="apply",
            candidate_id=top.candidate_id,
            fingerprint=top.edits_fingerprint(),
            confidence=top.confidence,
            validated=top.validated,
            description=top.description,
            rationale=(
                f"highest ranked untried candidate ({rank_note}confidence {top.confidence:.2f}, "
                f"{top.mutation_type}, {top.source}): {top.description[:160]}"
            ),
            considered=considered,
            skipped_tried=skipped,
        )


def remembered_order(ranked: list[FixCandidate], prefer: set[str], avoid: set[str]) -> list[FixCandidate]:
    """Repository memory on top of the rank: what worked before first; what was reverted
    before last among the automatic candidates (still before a manual one, so it is tried
    when nothing else is left rather than never)."""
    if not prefer and not avoid:
        return ranked
    first = [c for c in ranked if is_automatic(c) and c.edits_fingerprint() in prefer]
    last = [c for c in ranked if is_automatic(c) and c.edits_fingerprint() in avoid and c not in first]
    rest = [c for c in ranked if c not in first and c not in last]
    cut = next((i for i, c in enumerate(rest) if not is_automatic(c)), len(rest))
    return first + rest[:cut] + last + rest[cut:]


def _unique(ranked: list[FixCandidate]) -> list[FixCandidate]:
    """One candidate per edit set (the best ranked one)."""
    seen: set[str] = set()
    out: list[FixCandidate] = []
    for cand in ranked:
        key = cand.edits_fingerprint()
        if key in seen:
            continue
        seen.add(key)
        out.append(cand)
    return out


def log_selection(session: Session, selection: Selection, step_index: int) -> None:
    """Every selection is in the session log (seed: "selection logged to session")."""
    session.append(events.DECISION,
        {"kind": "selection", "step_index": step_index, **selection.decision().to_dict(),
         "selection": selection.to_dict()},
    )
