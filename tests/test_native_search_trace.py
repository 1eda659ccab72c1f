"""The search's trace ($WHETSTONE_SEARCH_TRACE): one JSON line per mutant tried or skipped and per schema
compile, nothing at all when the variable is unset, and a path it cannot write costs the search nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_whetstone.candidates.mutant import Mutant
from pytest_whetstone.candidates.native_search_stats import trace_mutant, trace_row
from pytest_whetstone.candidates.native_trial import TrialOutcome
from pytest_whetstone.records import Position, TextEdit

MUTANT = Mutant("cmp-flip", "`<` -> `<=`", TextEdit("src/geo.cc", Position(9, 12), Position(9, 13), "<="), 9, 0.8)


def test_each_mutant_tried_or_skipped_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "trace.jsonl"
    monkeypatch.setenv("WHETSTONE_SEARCH_TRACE", str(path))
    trace_mutant("src/geo.cc", "inside", MUTANT, TrialOutcome(passed={"F1"}, seconds=0.004, screened=True))
    trace_mutant("src/geo.cc", "inside", MUTANT, skip="unreached")
    trace_row({"schema": "src/geo.cc", "s": 0.8, "mutants": 40, "error": ""})
    tried, skipped, schema = (json.loads(line) for line in path.read_text().splitlines())
    assert tried["qualname"] == "inside" and tried["line"] == 9 and tried["new"] == "<=" and tried["screened"]
    assert tried["passed"] == 1 and tried["s"] == 0.004 and "skip" not in tried
    assert skipped["skip"] == "unreached" and "screened" not in skipped
    assert schema["schema"] == "src/geo.cc" and all("at" in row for row in (tried, skipped, schema))


def test_unset_or_unwritable_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WHETSTONE_SEARCH_TRACE", raising=False)
    trace_mutant("src/geo.cc", "inside", MUTANT, skip="rejected")
    assert not list(tmp_path.iterdir())
    monkeypatch.setenv("WHETSTONE_SEARCH_TRACE", str(tmp_path / "no" / "such" / "dir" / "trace.jsonl"))
    trace_mutant("src/geo.cc", "inside", MUTANT, skip="rejected")  # no error: debugging only
    assert not (tmp_path / "no").exists()
