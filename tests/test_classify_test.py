"""classify_test: failure_type for TestFailureRecords (seed 001 step 1371 floor and beyond)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_whetstone.classify import classify_result, classify_test
from pytest_whetstone.config import parse_config
from pytest_whetstone.parse import ParseResult
from pytest_whetstone.records import TestFailureRecord

FIXTURES = Path(__file__).parent / "fixtures" / "tests"


def R(message: str = "", **kw: object) -> TestFailureRecord:
    return TestFailureRecord(runner=str(kw.pop("runner", "gtest")), message=message, **kw)  # type: ignore[arg-type]


def test_assertion_classified() -> None:
    r = R("Expected equality of these values:\n  add(1, 2)\n    Which is: 4\n  3")
    assert classify_test(r).failure_type == "assertion"


def test_unhandled_exception_classified() -> None:
    r = R('C++ exception with description "stoi" thrown in the test body.', exception_type="C++ exception")
    assert classify_test(r).failure_type == "exception"
    assert classify_test(R("KeyError: 'x'", runner="pytest", exception_type="KeyError")).failure_type == "exception"


def test_timeout_classified() -> None:
    assert classify_test(R("Exceeded timeout of 300 ms for a test.", runner="jest")).failure_type == "timeout"
    assert classify_test(R("Timeout", runner="ctest", outcome="timeout")).failure_type == "timeout"


def test_snapshot_mismatch_is_wrong_output() -> None:
    r = R("expect(received).toMatchSnapshot()\n\nSnapshot name: `renders 1`", runner="jest")
    assert classify_test(r).failure_type == "wrong_output"


def test_missing_file_is_missing_output() -> None:
    r = R("FileNotFoundError: [Errno 2] No such file or directory: 'out/report.txt'", runner="pytest",
          exception_type="FileNotFoundError")
    assert classify_test(r).failure_type == "missing_output"


def test_fixture_failure_is_infra() -> None:
    assert classify_test(R("fixture 'db' not found", runner="pytest", outcome="error")).failure_type == "infra"
    assert classify_test(R("SetUpTestSuite: server not reachable")).failure_type == "infra"
    assert classify_test(R("Bail out! no database", runner="tap")).failure_type == "infra"
    assert classify_test(R("Not Run: Unable to find executable: x", runner="ctest")).failure_type == "infra"
    assert classify_test(R("Cannot find module './x'", runner="jest")).failure_type == "infra"


def test_unknown_catch_all() -> None:
    assert classify_test(R("Failed", runner="ctest")).failure_type == "unknown"
    assert classify_test(R("")).failure_type == "unknown"


def test_deterministic_classification() -> None:
    msgs = ["boom", "Expected: 1", "Segmentation fault", "snapshot", "timed out"]
    first = [classify_test(R(m)).failure_type for m in msgs]
    assert first == [classify_test(R(m)).failure_type for m in msgs]


def test_classification_applied_to_batch() -> None:
    result = ParseResult(test_failures=[R("Value of: x\n  Actual: false\nExpected: true"), R("SIGSEGV")])
    classify_result(result)
    assert [r.failure_type for r in result.test_failures] == ["assertion", "exception"]


def test_json_round_trip_of_classified_record() -> None:
    r = classify_test(R("toMatchInlineSnapshot", runner="jest"))
    assert TestFailureRecord.from_json(r.to_json()) == r and r.failure_type == "wrong_output"


# ----------------------------------------------------------------------------- beyond the floor
def test_producer_and_user_rules_win() -> None:
    assert classify_test(R("anything", failure_type="timeout")).failure_type == "timeout"
    config = parse_config('{rules: [{pattern: "golden mismatch", failure_type: "wrong_output"}]}')
    assert classify_test(R("assert golden mismatch"), config).failure_type == "wrong_output"


@pytest.mark.parametrize(
    "message,exception_type,expected",
    [
        ("assert 43 == 42", "AssertionError", "assertion"),
        ("Failed: DID NOT RAISE <class 'ValueError'>", "Failed", "assertion"),
        ("test started but never finished (the test binary crashed or was killed)", "crash", "exception"),
        ("expect(received).toBe(expected)", "JestAssertionError", "assertion"),
        ("SyntaxError: Unexpected token", "SyntaxError", "exception"),
        ("Required regular expression not found. Regex=[ok]", "", "wrong_output"),
        ("Failed: Timeout (>2.0s) from pytest-timeout.", "Failed", "timeout"),
    ],
)
def test_table(message: str, exception_type: str, expected: str) -> None:
    assert classify_test(R(message, exception_type=exception_type)).failure_type == expected


def test_labelled_corpus_accuracy_at_least_95_percent() -> None:
    from pytest_whetstone.parse import parse_text

    right = total = 0
    for label in FIXTURES.glob("*/*.labels.json"):
        want = {(f["runner"], f["test_suite"], f["test_name"]): f["failure_type"]
                for f in json.loads(label.read_text())["failures"]}
        log = label.with_name(label.name[: -len(".labels.json")])
        for r in parse_text(log.read_bytes()).test_failures:
            key = (r.runner, r.test_suite, r.test_name)
            if key in want:
                total += 1
                right += r.failure_type == want[key]
    assert total > 300 and right / total >= 0.95
