"""Every real captured build log parses to exactly its hand-checked records.

The logs are the exact bytes gcc 12, clang 14, GNU ld, gold, lld, mold, cmake 3.25
and make 4.3 printed (tests/fixtures/build/capture.py regenerates them); the
labels next to them were checked line by line against the logs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_whetstone.parse import parse_text

FIXTURES = Path(__file__).parent / "fixtures" / "build"
LOGS = sorted(FIXTURES.glob("*/*.log"))
FIELDS = ("tool", "severity", "file_path", "line", "col", "error_code", "message", "error_type", "is_lint",
          "symbol", "function", "translation_unit", "notes", "fixits")


def test_corpus_is_complete() -> None:
    groups = {log.parent.name for log in LOGS}
    assert {"gcc", "clang", "ld", "gold", "lld", "mold", "cmake", "make"} <= groups
    for group in ("gcc", "clang", "ld", "gold", "lld", "mold", "cmake", "make"):
        assert len([log for log in LOGS if log.parent.name == group]) >= 10, group
    for log in LOGS:
        assert log.with_suffix(".json").exists(), f"{log} has no label file"


@pytest.mark.parametrize("log", LOGS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_records_exact(log: Path) -> None:
    label = json.loads(log.with_suffix(".json").read_text())
    result = parse_text(log.read_bytes(), cwd=label["cwd"], tool=label.get("tool", "auto"))
    got = [{k: r.to_dict()[k] for k in FIELDS} for r in result.build_errors]
    want = [{k: r[k] for k in FIELDS} for r in label["records"]]
    assert got == want


def test_colour_is_stripped_and_parses_like_plain() -> None:
    plain = parse_text((FIXTURES / "gcc" / "undeclared.log").read_bytes())
    colour = parse_text((FIXTURES / "gcc" / "color.log").read_bytes())
    assert [(r.file_path, r.line, r.col, r.message) for r in plain.build_errors] == [
        (r.file_path, r.line, r.col, r.message) for r in colour.build_errors[:2]
    ]
    assert all("\x1b" not in r.message for r in colour.build_errors)


def test_interleaved_make_j2_keeps_every_diagnostic_with_its_file() -> None:
    text = (FIXTURES / "make" / "parallel_j2_interleaved.log").read_text()
    result = parse_text(text, cwd="/tmp/whetstone-fixtures/make_parallel_j2_interleaved")
    errors = [r for r in result.build_errors if r.severity == "error"]
    assert len(errors) == text.count(": error: ") == 160
    for rec in errors:
        # gcc's "In function 'aN':" lines of the two jobs interleave; each error keeps its own.
        prefix = rec.file_path[4]  # big_a.c / big_b.c
        assert rec.symbol.startswith(f"{prefix}_missing_")
        assert rec.function == f"{prefix}{rec.symbol.rsplit('_', 1)[1]}"
    assert result.error_count == 160  # make's "*** [...] Error 1" lines add nothing
