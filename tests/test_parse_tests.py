"""Test-runner parsers (gtest, pytest text, Jest, TAP, JUnit XML, ctest) on real captured logs.

Every fixture is the exact output of a real run (tests/fixtures/tests/capture.sh); its expected
records are the hand-written labels beside it (<log>.labels.json, from labels_src.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_whetstone.parse import parse_text
from pytest_whetstone.records import TestFailureRecord

FIXTURES = Path(__file__).parent / "fixtures" / "tests"
FORMATS = ("gtest", "ctest", "pytest", "jest", "tap", "junit")
NEWER = ("spec", "unittest")  # node/mocha/vitest spec reporters; python -m unittest and tracebacks
LABELLED = sorted(p for fmt in FORMATS + NEWER for p in (FIXTURES / fmt).glob("*.labels.json"))
TOOL_FOR = {"gtest": "gtest", "ctest": "ctest", "pytest": "pytest", "jest": "jest", "tap": "tap", "junit": "junit"}
FIELDS = ("runner", "test_suite", "test_name", "failure_type", "expected_value", "actual_value")


def _log_of(label: Path) -> Path:
    return label.with_name(label.name[: -len(".labels.json")])


def _key(r: TestFailureRecord | dict) -> tuple[str, ...]:
    get = r.get if isinstance(r, dict) else lambda k: getattr(r, k)
    return tuple(str(get(k)) for k in FIELDS)


def _check(label_path: Path, tool: str) -> None:
    label = json.loads(label_path.read_text())
    result = parse_text(_log_of(label_path).read_bytes(), tool)
    got = sorted(_key(r) for r in result.test_failures)
    want = sorted(_key(f) for f in label["failures"])
    assert got == want
    located = {(r.test_suite, r.test_name, r.file_path, r.line) for r in result.test_failures}
    for f in label["failures"]:
        if f["file_path"]:
            assert (f["test_suite"], f["test_name"], f["file_path"], f["line"]) in located
    assert (result.fail_count, result.pass_count, result.skip_count) == (
        label["fail_count"], label["pass_count"], label["skip_count"])
    for name, attr in (("error_count", "test_error_count"), ("xfail_count", "xfail_count"),
                       ("xpass_count", "xpass_count")):
        if name in label:
            assert getattr(result, attr) == label[name], name


@pytest.mark.parametrize("label", LABELLED, ids=lambda p: f"{p.parent.name}/{_log_of(p).name}")
def test_fixture_auto(label: Path) -> None:
    _check(label, "auto")


@pytest.mark.parametrize("label", LABELLED, ids=lambda p: f"{p.parent.name}/{_log_of(p).name}")
def test_fixture_named_tool(label: Path) -> None:
    _check(label, json.loads(label.read_text()).get("tool") or TOOL_FOR[label.parent.name])


def test_at_least_ten_real_fixtures_per_format() -> None:
    for fmt in FORMATS:
        assert len(list((FIXTURES / fmt).glob("*.labels.json"))) >= 10, fmt


# ----------------------------------------------------------------------------- seed 001 step 1370 floor
GTEST_ONE = (FIXTURES / "gtest" / "basic.log").read_text()


def test_gtest_failure_parsed() -> None:
    [r] = parse_text(GTEST_ONE, "gtest").test_failures
    assert (r.runner, r.test_suite, r.test_name) == ("gtest", "AddTest", "Large")


def test_gtest_expected_actual_extracted() -> None:
    [r] = parse_text(GTEST_ONE, "gtest").test_failures
    assert (r.expected_value, r.actual_value) == ("42", "43")


def test_gtest_file_line_extracted() -> None:
    [r] = parse_text(GTEST_ONE, "gtest").test_failures
    assert (r.file_path, r.line) == ("/tmp/wsfx/gtest/basic_test.cc", 4)


def test_pytest_failure_parsed() -> None:
    text = "FAILED tests/test_x.py::test_y - AssertionError: assert 3 == 4\n=== 1 failed, 2 passed in 0.10s ===\n"
    result = parse_text(text, "auto")
    [r] = result.test_failures
    assert (r.runner, r.test_suite, r.test_name) == ("pytest", "tests/test_x.py", "test_y")
    assert (r.expected_value, r.actual_value, r.failure_type) == ("4", "3", "assertion")
    assert (result.fail_count, result.pass_count) == (1, 2)


def test_jest_failure_parsed() -> None:
    result = parse_text((FIXTURES / "jest" / "timeout.log").read_bytes())
    [r] = result.test_failures
    assert (r.runner, r.test_suite, r.test_name, r.failure_type) == ("jest", "slow.test.js", "waits too long", "timeout")


def test_tap_not_ok_parsed() -> None:
    text = "TAP version 13\n1..2\nok 1 - fine\nnot ok 2 - broken\n  ---\n  message: 'boom'\n  found: 3\n  wanted: 4\n  at: 't/x.js:7:3'\n  ...\n"
    result = parse_text(text, "tap")
    [r] = result.test_failures
    assert (r.test_name, r.message, r.expected_value, r.actual_value) == ("broken", "boom", "4", "3")
    assert (r.file_path, r.line, result.pass_count) == ("t/x.js", 7, 1)


def test_pass_lines_ignored() -> None:
    text = "[ RUN      ] A.B\n[       OK ] A.B (0 ms)\nok 1 - fine\n  ✓ works (3 ms)\n"
    assert parse_text(text).test_failures == []


def test_multi_failure_batch() -> None:
    result = parse_text((FIXTURES / "gtest" / "multi.log").read_bytes())
    assert [r.test_name for r in result.test_failures] == ["Large", "Upper", "ThreeValues"]
    assert result.fail_count == 3  # the "listed below" summary does not count them again


@pytest.mark.parametrize("tool", ["auto", "gtest", "pytest", "jest", "tap", "junit", "ctest"])
def test_empty_input_is_empty(tool: str) -> None:
    for text in ("", b"", "\n\n"):
        result = parse_text(text, tool)
        assert result.test_failures == [] and result.fail_count == 0


def test_deterministic_order() -> None:
    data = (FIXTURES / "ctest" / "output_on_failure.log").read_bytes()
    a = [r.to_json() for r in parse_text(data).test_failures]
    b = [r.to_json() for r in parse_text(data).test_failures]
    assert a == b and len(a) == 9


# ----------------------------------------------------------------------------- behaviours
def test_gtest_crash_is_exception_record() -> None:
    records = parse_text((FIXTURES / "gtest" / "crash.log").read_bytes()).test_failures
    crashed = [r for r in records if r.test_name == "NullDeref"]
    assert crashed and crashed[0].failure_type == "exception" and "never finished" in crashed[0].message



def test_gtest_progress_names_what_ended_and_the_test_a_death_left_open() -> None:
    from pytest_whetstone.parse.gtest import test_progress

    assert test_progress((FIXTURES / "gtest" / "abort.log").read_text()) == ({"AbortTest.Ok": True}, "AbortTest.Aborts")
    ended, running = test_progress((FIXTURES / "gtest" / "params.log").read_text())
    assert running == "" and ended["TypedAdd/0.Sum"] is False and ended["Evens/EvenParam.IsEven/2"] is True

def test_gtest_parametrized_names_and_param() -> None:
    records = parse_text((FIXTURES / "gtest" / "params.log").read_bytes()).test_failures
    r = next(r for r in records if r.test_name == "IsEven/0")
    assert r.test_suite == "Evens/EvenParam" and "GetParam() = 2" in r.message


def test_gtest_summary_only_log_still_names_failures() -> None:
    tail = "[  FAILED  ] 2 tests, listed below:\n[  FAILED  ] A.B\n[  FAILED  ] C.D, where GetParam() = 3\n"
    records = parse_text(tail, "gtest").test_failures
    assert [(r.test_suite, r.test_name) for r in records] == [("A", "B"), ("C", "D")]


def test_ctest_embedded_gtest_not_double_counted() -> None:
    result = parse_text((FIXTURES / "ctest" / "output_on_failure.log").read_bytes(), "ctest")
    assert all(r.runner == "gtest" for r in result.test_failures)
    assert [r.node_id for r in result.test_failures][:2] == ["basic::AddTest.Large", "multi::AddTest.Large"]
    assert result.fail_count == len(result.test_failures) == 9


def test_ctest_result_line_gives_a_test_its_duration() -> None:
    """What ctest said a test took, for a test whose own output names none (the search picks cheap tests by it)."""
    result = parse_text((FIXTURES / "ctest" / "default.log").read_bytes(), "ctest")
    took = {r.test_name: r.duration_ms for r in result.test_failures}
    assert took["sleeper"] == 1000 and took["make_db"] == 20 and took["basic"] == 0


def test_ctest_summary_list_adds_only_unseen_tests() -> None:
    tail = "\n50% tests passed, 2 tests failed out of 4\n\nThe following tests FAILED:\n\t  3 - a (Failed)\n\t  4 - b (Timeout)\n"
    result = parse_text("Test project /x\n" + tail, "ctest")
    assert [(r.test_name, r.failure_type) for r in result.test_failures] == [("a", "unknown"), ("b", "timeout")]
    assert result.pass_count == 2


def test_pytest_three_views_merge_into_one_record() -> None:
    result = parse_text((FIXTURES / "pytest" / "verbose.log").read_bytes())
    names = [r.test_name for r in result.test_failures]
    assert len(names) == len(set(names)) == 15


def test_tap_parent_of_failing_subtest_not_counted() -> None:
    records = parse_text((FIXTURES / "tap" / "node_tap.log").read_bytes()).test_failures
    assert "group" not in [r.test_name for r in records]
    assert "group > inner fails" in [r.test_name for r in records]


def test_tap_todo_is_not_a_failure_nor_a_skip() -> None:
    """A todo test is neither passed nor skipped: node's own tallies count it apart (``# todo 1``)."""
    result = parse_text("1..3\nnot ok 1 - later # TODO not yet\nok 2 - now\nok 3 # skip no network\n", "tap")
    assert result.test_failures == [] and (result.pass_count, result.skip_count) == (1, 1)


def test_tap_yaml_after_a_test_that_is_no_failure_is_no_record() -> None:
    """node --test 20's TAP: a todo test's error and a suite's ``'1 subtest failed'`` in their YAML blocks,
    which the generic parser must not read as ``error:`` lines (node_todo_suite.log, node 20.20)."""
    result = parse_text((FIXTURES / "tap" / "node_todo_suite.log").read_bytes())
    assert result.build_errors == [] and result.error_count == 0
    assert sorted(r.test_name for r in result.test_failures) == ["fails", "suite > inner fail"]
    # the log's own tallies: # pass 2, # fail 2, # skipped 1, # todo 1
    assert (result.pass_count, result.fail_count, result.skip_count) == (2, 2, 1)


def test_tap_bail_out_is_infra() -> None:
    [r] = parse_text("1..3\nok 1 - a\nBail out!  no database\n", "tap").test_failures
    assert r.failure_type == "infra" and "no database" in r.message


# ----------------------------------------------------------------------------- JUnit XML safety
def test_junit_truncated_keeps_complete_testcases() -> None:
    data = (FIXTURES / "junit" / "gtest_multi.xml").read_text()
    cut = data[: data.index('name="Upper"') + 200]
    records = parse_text(cut, "auto").test_failures
    assert [r.test_name for r in records] == ["Large"]


def test_junit_with_entities_is_refused() -> None:
    bomb = (
        '<?xml version="1.0"?>\n<!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>\n'
        '<testsuite name="x"><testcase classname="c" name="n"><failure message="&c;"/></testcase></testsuite>'
    )
    result = parse_text(bomb, "junit")
    assert not any("aaaaaaaaaa" in r.message for r in result.test_failures)


def test_junit_generic_producer() -> None:
    xml = ('<testsuite name="s"><testcase classname="pkg.Cls" name="t1" file="a.py" line="3">'
           '<failure message="boom" type="AssertionError">trace</failure></testcase>'
           '<testcase classname="pkg.Cls" name="t2"/><testcase classname="pkg.Cls" name="t3"><skipped/></testcase>'
           '</testsuite>')
    result = parse_text(xml)
    [r] = result.test_failures
    assert (r.runner, r.test_suite, r.test_name, r.file_path, r.line) == ("junit", "pkg.Cls", "t1", "a.py", 3)
    assert (result.pass_count, result.skip_count, r.failure_type) == (1, 1, "assertion")


# ----------------------------------------------------------------------------- auto-detection
def test_auto_detects_make_gcc_ctest_gtest_in_one_log() -> None:
    result = parse_text((FIXTURES / "mixed" / "make_gcc_ctest.log").read_bytes(), "auto")
    assert {"gcc", "make", "ctest"} <= set(result.tools)
    assert any(e.tool == "gcc" and e.file_path.endswith("broken.c") and e.line == 1 for e in result.build_errors)
    assert [(r.runner, r.test_name, r.failure_type) for r in result.test_failures] == [
        ("gtest", "Large", "assertion"), ("ctest", "sleeper", "timeout")]
    [gtest] = [r for r in result.test_failures if r.runner == "gtest"]
    assert (gtest.expected_value, gtest.actual_value, gtest.line) == ("42", "43", 4)
    assert result.pass_count == 1 and result.fail_count == 2


# Lines of a real `ctest -V` run (ctest 3.25.1): -V prefixes its own bookkeeping about a test
# like the test's output.
CTEST_V_EXCERPT = """\
Test project /tmp/gen/ct/b
test 3
    Start 3: fails_plain

3: Test command: /usr/bin/sh "-c" "echo boom: something broke; exit 3"
3: Working Directory: /tmp/gen/ct/b
3: Test timeout computed to be: 10000000
3: boom: something broke
3/5 Test #3: fails_plain ......................***Failed    0.00 sec

80% tests passed, 1 tests failed out of 5
"""


def test_ctest_verbose_bookkeeping_is_not_test_output() -> None:
    (rec,) = parse_text(CTEST_V_EXCERPT).test_failures
    assert (rec.runner, rec.test_name) == ("ctest", "fails_plain")
    assert rec.failure_type != "timeout"  # "Test timeout computed to be" is not a timeout
    assert "boom: something broke" in rec.raw and "Working Directory" not in rec.raw


def test_a_test_printing_hundreds_of_failures_keeps_its_end() -> None:
    """ctest keeps the first lines of a test's output and then only GoogleTest's structure: a test that
    fails an EXPECT in a loop (~700 lines) still ends in its `[  FAILED  ]` line, not in a crash."""
    result = parse_text((FIXTURES / "ctest" / "long_output.log").read_bytes())
    [record] = result.test_failures
    assert (record.test_suite, record.test_name, record.failure_type) == ("Codes", "ReproduceDistinctPoints",
                                                                          "assertion")
    assert record.exception_type != "crash" and "never finished" not in record.message


@pytest.mark.parametrize(("line", "want"), [
    ("FAILED t.py::test[a - b] - msg", ("FAILED", "t.py::test[a - b]", "msg")),
    ("FAILED t.py::test[[x]] - AssertionError", ("FAILED", "t.py::test[[x]]", "AssertionError")),
    ("FAILED t.py::test[a b]", ("FAILED", "t.py::test[a b]", "")),
    ("FAILED t.py::x - m [y] - z", ("FAILED", "t.py::x", "m [y] - z")),
    ("ERROR t.py - ImportError", ("ERROR", "t.py", "ImportError")),
])
def test_pytest_summary_line_keeps_a_parameter_id_whole(line: str, want: tuple[str, str, str]) -> None:
    from pytest_whetstone.parse.pytest_text import summary_entry

    assert summary_entry(line) == want


def test_pytest_summary_lines_of_brackets_alone_read_in_one_pass() -> None:
    """A line of 8 KB of "[" (the cut every line gets) is read by a linear scan: 500 of them are no record."""
    text = "=== test session starts ===\n" + ("FAILED " + "[" * 8000 + "\n") * 500
    result = parse_text(text.encode(), "pytest")
    assert all(".py" not in r.node_id for r in result.test_failures)
