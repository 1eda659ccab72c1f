"""CandidateAutoSelector (seed 002, step 1390)."""

from __future__ import annotations

from pathlib import Path

from pytest_whetstone.orchestrate.select import CandidateAutoSelector, Selection, log_selection
from pytest_whetstone.records import FixCandidate, Position, TextEdit
from pytest_whetstone.store.sessions import find_store, open_session


def _auto(desc: str, conf: float, text: str, *, validated: bool = False, target: str = "E1") -> FixCandidate:
    return FixCandidate(
        target_id=target, description=desc, confidence=conf, mutation_type="rename", source="heuristic",
        validated=validated, edits=[TextEdit("a.c", Position(3, 5), Position(3, 9), text)],
    ).ensure_id()


def _manual(desc: str, conf: float) -> FixCandidate:
    return FixCandidate(target_id="E1", description=desc, confidence=conf, mutation_type="manual").ensure_id()


sel = CandidateAutoSelector()


def test_highest_confidence_selected() -> None:
    s = sel.select([_auto("low", 0.3, "a"), _auto("high", 0.9, "b"), _auto("mid", 0.6, "c")])
    assert s.action == "apply" and s.description == "high"


def test_validated_outranks_confidence() -> None:
    s = sel.select([_auto("guess", 0.95, "a"), _auto("proven", 0.8, "b", validated=True)])
    assert s.description == "proven" and s.validated


def test_already_tried_is_skipped_by_edit_hash_not_description() -> None:
    tried = _auto("first try", 0.9, "x")
    same_edits = _auto("same edit, other words", 0.95, "x")  # identical edits: the same candidate
    other = _auto("other", 0.5, "y")
    s = sel.select([tried, same_edits, other], tried=[tried.edits_fingerprint()])
    assert s.description == "other"
    assert same_edits.candidate_id in s.skipped_tried


def test_all_tried_escalates() -> None:
    a, b = _auto("a", 0.9, "a"), _auto("b", 0.8, "b")
    s = sel.select([a, b], tried=[a.edits_fingerprint(), b.edits_fingerprint()])
    assert (s.action, s.escalation_reason) == ("escalate", "all_auto_tried")


def test_manual_top_escalates_immediately() -> None:
    s = sel.select([_manual("rewrite the parser", 0.7), _auto("rename", 0.4, "a")])
    assert (s.action, s.escalation_reason) == ("escalate", "manual_required")
    assert "rewrite the parser" in s.rationale


def test_only_manual_left_after_auto_tried_is_all_auto_tried() -> None:
    a = _auto("a", 0.9, "a")
    s = sel.select([a, _manual("by hand", 0.1)], tried=[a.edits_fingerprint()])
    assert s.escalation_reason == "all_auto_tried"
    assert s.candidate_id  # names the manual candidate that is left


def test_empty_list_escalates() -> None:
    s = sel.select([])
    assert s.action == "escalate" and s.escalation_reason and "no fix candidate" in s.rationale


def test_confidence_tie_broken_deterministically() -> None:
    cands = [_auto(f"c{i}", 0.5, f"t{i}") for i in range(5)]
    picks = {sel.select(list(order)).candidate_id for order in (cands, cands[::-1], cands[2:] + cands[:2])}
    assert picks == {min(c.candidate_id for c in cands)}


def test_attempt_history_consulted_in_order() -> None:
    cands = [_auto("a", 0.9, "a"), _auto("b", 0.8, "b"), _auto("c", 0.7, "c")]
    tried: list[str] = []
    order = []
    for _ in range(3):
        s = sel.select(cands, tried)
        order.append(s.description)
        tried.append(s.fingerprint)
    assert order == ["a", "b", "c"]
    assert sel.select(cands, tried).action == "escalate"


def test_selection_logged_to_session(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    session = open_session(find_store(tmp_path))
    s = sel.select([_auto("a", 0.9, "a")])
    log_selection(session, s, step_index=3)
    decisions = session.state().decisions
    assert decisions[-1]["kind"] == "selection" and decisions[-1]["step_index"] == 3
    assert decisions[-1]["candidate_id"] == s.candidate_id
    assert Selection.from_dict(decisions[-1]["selection"]) == s


def test_selection_json_round_trip_and_deterministic_output() -> None:
    cands = [_auto("a", 0.9, "a"), _manual("m", 0.2)]
    one, two = sel.select(cands), CandidateAutoSelector().select(list(reversed(cands)))
    assert one.to_json() == two.to_json()
    assert Selection.from_json(one.to_json()) == one
    assert one.decision().action_type == "apply_candidate"
