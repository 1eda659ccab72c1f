"""Records: defaults per the seeds, exact JSON round-trip, deterministic bytes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_whetstone.records import (
    INCLUDED_FROM,
    SCHEMA_VERSION,
    AttemptRecord,
    AuditEntry,
    BuildErrorRecord,
    EscalationReport,
    FixCandidate,
    GapModel,
    Note,
    ObservationRecord,
    OrchestratorDecision,
    Position,
    Suspect,
    TestFailureRecord,
    TextEdit,
    Verdict,
    rank_candidates,
)

ALL = [
    BuildErrorRecord, TestFailureRecord, FixCandidate, AttemptRecord, ObservationRecord,
    GapModel, OrchestratorDecision, AuditEntry, EscalationReport, Verdict, TextEdit, Suspect,
]


def test_build_error_defaults_match_seed() -> None:
    record = BuildErrorRecord()
    assert record.severity == "error"
    assert record.tool == "unknown"
    assert record.context_lines == []
    assert record.ast_node_id is None
    assert record.error_type == "unknown"
    assert record.is_lint is False
    assert record.schema_version == SCHEMA_VERSION


def test_test_failure_defaults_match_seed() -> None:
    record = TestFailureRecord()
    assert record.failure_type == "unknown"
    assert record.runner == "unknown"
    assert record.expected_value == "" and record.actual_value == ""
    assert record.ast_node_id is None
    assert record.suspects == []


@pytest.mark.parametrize("cls", ALL)
def test_default_round_trip(cls: type) -> None:
    record = cls()
    assert cls.from_json(record.to_json()) == record


def test_nested_round_trip_is_exact() -> None:
    edit = TextEdit("src/a.c", Position(3, 1), Position(3, 1), "#include <stdio.h>\n")
    cand = FixCandidate(target_id="E1", description="add include", confidence=0.9,
                        mutation_type="addImport", edits=[edit], source="rule")
    cand.ensure_id()
    report = EscalationReport(session_id="s", final_gap=GapModel("error_count", 2, 0),
                              top_remaining_candidates=[cand])
    again = EscalationReport.from_json(report.to_json())
    assert again == report
    assert isinstance(again.top_remaining_candidates[0].edits[0].start, Position)
    failure = TestFailureRecord(suspects=[Suspect("m.py", "f", 1, 3, 0.5)])
    assert TestFailureRecord.from_json(failure.to_json()) == failure


def test_deterministic_bytes_sorted_keys() -> None:
    a = BuildErrorRecord(file_path="x.c", line=3, message="boom").ensure_id()
    b = BuildErrorRecord(message="boom", line=3, file_path="x.c").ensure_id()
    assert a.to_json() == b.to_json()
    keys = list(json.loads(a.to_json()).keys())
    assert keys == sorted(keys)


def test_ids_are_content_hashes() -> None:
    a = BuildErrorRecord(file_path="x.c", line=3, message="boom").ensure_id()
    b = BuildErrorRecord(file_path="x.c", line=4, message="boom").ensure_id()
    assert a.error_id and a.error_id != b.error_id
    assert BuildErrorRecord(file_path="x.c", line=3, message="boom").ensure_id().error_id == a.error_id


def test_unknown_keys_from_newer_writers_are_ignored() -> None:
    data = GapModel("error_count", 3, 0).to_dict() | {"future_field": 1}
    assert GapModel.from_dict(data) == GapModel("error_count", 3, 0)


def test_from_dict_rejects_non_objects() -> None:
    with pytest.raises(TypeError):
        GapModel.from_dict([1, 2])  # type: ignore[arg-type]


def test_lint_error_is_not_a_failure() -> None:
    assert BuildErrorRecord(severity="error").is_failure
    assert not BuildErrorRecord(severity="error", is_lint=True).is_failure
    assert not BuildErrorRecord(severity="warning").is_failure


def test_gap_converged() -> None:
    assert GapModel("error_count", 0, 0).converged
    assert not GapModel("test_failure_count", 2, 0).converged


def test_rank_candidates_validated_first_then_confidence_then_id() -> None:
    c1 = FixCandidate(candidate_id="b", confidence=0.9)
    c2 = FixCandidate(candidate_id="a", confidence=0.9)
    c3 = FixCandidate(candidate_id="c", confidence=0.5, validated=True)
    assert [c.candidate_id for c in rank_candidates([c1, c2, c3])] == ["c", "a", "b"]


def test_edits_fingerprint_ignores_description() -> None:
    edit = TextEdit("a.py", Position(1, 1), Position(1, 2), "x")
    a = FixCandidate(description="one", edits=[edit])
    b = FixCandidate(description="two", edits=[edit])
    assert a.edits_fingerprint() == b.edits_fingerprint()
    assert FixCandidate(description="m").edits_fingerprint() != FixCandidate(description="n").edits_fingerprint()


_notes = st.builds(Note, file_path=st.text(max_size=20), line=st.integers(0, 10**6), col=st.integers(0, 999),
                   message=st.text())


@given(st.text(), st.integers(min_value=0, max_value=10**6), st.lists(_notes, max_size=4))
def test_round_trip_any_text(message: str, line: int, notes: list[Note]) -> None:
    record = BuildErrorRecord(message=message, line=line, notes=notes).ensure_id()
    assert BuildErrorRecord.from_json(record.to_json()) == record


def test_candidates_speak_one_applicability() -> None:
    from pytest_whetstone.records import FixCandidate, Position, TextEdit

    advice = FixCandidate.manual("E1", "check the wiring")
    assert (advice.applicability, advice.mutation_type, advice.edits) == ("display-only", "manual", [])
    edit = TextEdit("a.c", Position(1, 1), Position(1, 1), "#include <stdio.h>\n")
    fix = FixCandidate.edit("E1", "add the include", [edit], mutation_type="addImport", confidence=0.9,
                            source="compiler-fixit", details={"header": "<stdio.h>", "empty": ""})
    assert fix.applicability == "automatic" and fix.mutation == {"header": "<stdio.h>"}
    proved = FixCandidate.edit("E1", "add the include", [edit], mutation_type="addImport", confidence=0.9,
                               source="search", validated=True)
    assert proved.applicability == "validated"
    assert FixCandidate.from_dict(fix.to_dict()) == fix and fix.candidate_id.startswith("C")


def test_old_string_notes_still_load() -> None:
    """A session written when notes were printed lines loads, each note located where it can be."""
    old = BuildErrorRecord(message="m").to_dict() | {"notes": [
        "macro.c:4:12: note: declared here", "In file included from outer.h:1,", "from chain.c:1:",
        "/usr/bin/ld.gold: /tmp/a.o: previous definition here"]}
    record = BuildErrorRecord.from_dict(old)
    assert record.notes == [
        Note("note", "macro.c", 4, 12, "declared here"),
        Note("note", "outer.h", 1, 0, INCLUDED_FROM),
        Note("note", "chain.c", 1, 0, INCLUDED_FROM),
        Note(message="/usr/bin/ld.gold: /tmp/a.o: previous definition here"),
    ]
    assert BuildErrorRecord.from_json(record.to_json()) == record
