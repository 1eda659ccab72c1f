"""ctest running Unity (ThrowTheSwitch) test binaries: one record per failing Unity test.

The logs are real runs of cJSON 1.7.15's Unity tests with a seeded fault (tests/fixtures/tests/MANIFEST.md);
their hand-written labels are checked with every other fixture's in test_parse_tests.py.  Here: what the
records carry for the locator and the search (file relative to the run's directory, line, node id), and
the Unity line reader on its own, fuzzed.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_whetstone.locate.native_tests import Workspace, locate_failure
from pytest_whetstone.parse import parse_text
from pytest_whetstone.parse.ctest import MAX_OUTPUT
from pytest_whetstone.parse.unity import match_result, read_run, values
from pytest_whetstone.records import TestFailureRecord

CTEST = Path(__file__).parent / "fixtures" / "tests" / "ctest"
ROOT = "/tmp/wsfx/cjson"  # where the fixtures were captured (the paths Unity printed)
HEX4 = [("parse_hex4::parse_hex4_should_parse_all_combinations", "tests/parse_hex4.c", 42, "10", "9"),
        ("parse_hex4::parse_hex4_should_parse_mixed_case", "tests/parse_hex4.c", 49, "48879", "44510")]


def _parse(name: str, cwd: str = ROOT) -> list[TestFailureRecord]:
    return parse_text((CTEST / name).read_bytes(), "auto", cwd=cwd).test_failures


def _shape(records: list[TestFailureRecord]) -> list[tuple[str, str, int, str, str]]:
    return [(r.node_id, r.file_path, r.line, r.expected_value, r.actual_value) for r in records]


# --------------------------------------------------------------------------- the real logs


def test_each_failing_unity_test_is_a_record_at_its_fail_line() -> None:
    result = parse_text((CTEST / "unity_output_on_failure.log").read_bytes(), "ctest", cwd=ROOT)
    records = result.test_failures
    assert _shape(records[:2]) == HEX4
    assert [r.node_id for r in records[2:6]] == [
        "parse_string::parse_string_should_parse_strings",
        "parse_string::parse_string_should_parse_utf16_surrogate_pairs",
        "parse_string::parse_string_should_not_parse_non_strings",
        "parse_string::parse_string_should_not_parse_invalid_backslash",
    ]
    first = records[0]
    assert (first.runner, first.test_suite, first.test_name) == ("ctest", "", "parse_hex4_should_parse_all_combinations")
    assert first.message == "Expected 10 Was 9. Failed to parse lowercase digits."
    assert first.failure_type == "assertion"
    assert first.raw.endswith(":parse_hex4_should_parse_all_combinations:FAIL: Expected 10 Was 9. "
                              "Failed to parse lowercase digits.")
    # the line is the assertion's, in a helper for parse_string (Unity reports where the check failed)
    assert [(r.file_path, r.line) for r in records[2:6]] == [
        ("tests/parse_string.c", 55), ("tests/parse_string.c", 53), ("tests/parse_string.c", 68),
        ("tests/parse_string.c", 68)]
    no_values = records[3]
    assert (no_values.message, no_values.expected_value, no_values.failure_type) == (
        "Couldn't parse string.", "", "assertion")
    # misc_tests crashed and Unity's buffered output died with it: the ctest record as before, no file
    crash = records[6]
    assert (crash.node_id, crash.file_path, crash.line, crash.exception_type) == ("misc_tests", "", 0, "SegFault")
    assert (result.fail_count, result.pass_count, result.skip_count) == (7, 16, 0)
    assert len({r.ensure_id().failure_id for r in records}) == 7


def test_strings_keep_unity_quotes_as_gtest_keeps_its_own() -> None:
    record = _parse("unity_output_on_failure.log")[2]
    assert record.expected_value == "'\"\\/\\x08\\x0C\\n\\r\\x09\\xE2\\x82\\xAC\\xE7\\x8C\\xAB'"
    assert record.actual_value == "'\"\\/\\x08\\x0C\\n\\r\\x09\\xE2\\x82\\xAC\\xE7\\x8C\\xAA'"
    assert record.message.endswith("'. The parsed result isn't as expected.")


def test_verbose_log_gives_the_same_records() -> None:
    def keys(records: list[TestFailureRecord]) -> list[tuple[object, ...]]:
        return [(*s, r.message, r.failure_type, r.exception_type) for s, r in zip(_shape(records), records, strict=True)]

    assert keys(_parse("unity_verbose.log")) == keys(_parse("unity_output_on_failure.log"))


def test_without_cwd_the_path_is_as_printed() -> None:
    records = _parse("unity_output_on_failure.log", cwd="")
    assert records[0].file_path == f"{ROOT}/tests/parse_hex4.c"


def test_a_unity_binary_that_crashed_midway_keeps_its_ctest_record_with_the_test_file() -> None:
    result = parse_text((CTEST / "unity_crash_unbuffered.log").read_bytes(), "auto", cwd=ROOT)
    records = result.test_failures
    assert _shape(records[:2]) == HEX4
    crash = records[2]
    assert (crash.node_id, crash.test_name, crash.exception_type, crash.failure_type) == (
        "misc_tests", "misc_tests", "SegFault", "exception")
    # the file is the runner's own (every line names it); which test died Unity cannot say (a test's line
    # comes once it ends), so no line: the last one reported is mentioned
    assert (crash.file_path, crash.line) == ("tests/misc_tests.c", 0)
    assert "after cjson_replace_item_in_object_should_preserve_name, the last test Unity reported" in crash.message
    assert (result.fail_count, result.pass_count) == (3, 0)


# --------------------------------------------------------------------------- shapes the logs do not show


def _ctest(output: list[str], status: str = "***Failed") -> str:
    return "\n".join(["Test project /w/build", "    Start 1: t", f"1/1 Test #1: t ....{status}    0.10 sec",
                      *output, "", "0% tests passed, 1 tests failed out of 1", ""])


def test_a_run_cut_short_after_failures_keeps_them_and_the_ctest_record() -> None:
    out = ["/w/t.c:10:test_a:FAIL: Expected 2 Was 3", "/w/t.c:20:test_b:PASS"]
    records = parse_text(_ctest(out, "***Timeout"), "ctest", cwd="/w").test_failures
    assert [(r.node_id, r.file_path, r.line, r.outcome) for r in records] == [
        ("t::test_a", "t.c", 10, "failed"), ("t", "t.c", 0, "timeout")]
    assert records[0].duration_ms == 100


def test_a_failed_binary_whose_tests_all_passed_is_its_ctest_record() -> None:
    out = ["/w/t.c:20:test_b:PASS", "", "-----------------------", "1 Tests 0 Failures 0 Ignored ", "OK"]
    (record,) = parse_text(_ctest(out), "ctest", cwd="/w").test_failures
    assert (record.node_id, record.file_path, record.line) == ("t", "t.c", 0)
    assert "the last test Unity reported" not in record.message  # it reached UNITY_END


def test_a_fail_line_past_the_kept_output_is_not_lost() -> None:
    out = [f"/w/t.c:{n}:test_{n}:PASS" for n in range(MAX_OUTPUT + 50)]
    out += ["/w/t.c:7:test_late:FAIL: Expected 1 Was 0", "-----------------------", "451 Tests 1 Failures 0 Ignored"]
    (record,) = parse_text(_ctest(out), "ctest", cwd="/w").test_failures
    assert (record.test_name, record.line, record.expected_value, record.actual_value) == ("test_late", 7, "1", "0")


def test_ignored_and_passing_tests_are_no_records() -> None:
    out = ["/w/t.c:3:test_i:IGNORE: not yet", "/w/t.c:4:test_j:IGNORE", "/w/t.c:5:test_k:FAIL",
           "-----------------------", "3 Tests 1 Failures 2 Ignored", "FAIL"]
    (record,) = parse_text(_ctest(out), "ctest", cwd="/w").test_failures
    assert (record.test_name, record.message, record.failure_type) == ("test_k", "FAIL", "assertion")


def test_gtest_inside_ctest_is_still_read_as_gtest() -> None:
    records = parse_text((CTEST / "output_on_failure.log").read_bytes(), "ctest").test_failures
    assert {r.runner for r in records} == {"gtest"}


# --------------------------------------------------------------------------- the line reader


@pytest.mark.parametrize("message, expected, actual", [
    ("Expected 7 Was 5", "7", "5"),
    ("Expected 10 Was 9. Failed to parse lowercase digits.", "10", "9"),
    ("Expected 1.5 Was 2.25. msg", "1.5", "2.25"),
    ("Expected 0x07 Was 0x05", "0x07", "0x05"),
    ("Expected -1 Was 0", "-1", "0"),
    ('Expected "abc" Was "abd"', '"abc"', '"abd"'),
    ("Expected 'abc' Was 'abd'", "'abc'", "'abd'"),
    ("Expected 'a Was b' Was 'c. d'. user", "'a Was b'", "'c. d'"),
    ("Expected 'x' Was 'y.'", "'x'", "'y.'"),
    ("Expected 1 Was 2.", "1", "2"),  # TEST_ASSERT_EQUAL_INT_MESSAGE(1, x, ""): ". " and nothing
    ("Expected 'x' Was 'y'.", "'x'", "'y'"),
    ("Expected NULL Was 'y'", "NULL", "'y'"),
    ("Expected TRUE Was FALSE", "true", "false"),
    ("Expected FALSE Was TRUE. flag", "false", "true"),
    ("Expected Non-NULL", "non-NULL", "NULL"),
    ("Expected Non-NULL. Item is NULL.", "non-NULL", "NULL"),
    ("Expected NULL", "NULL", "non-NULL"),
    ("Element 2 Expected 7 Was 5", "7", "5"),
    ("Memory Mismatch. Byte 3 Expected 0x07 Was 0x05", "0x07", "0x05"),
    ("Memory Mismatch. Element 1 Byte 0 Expected 0x01 Was 0x02", "0x01", "0x02"),
    ("Values Not Within Delta 1 Expected 7 Was 5", "7", "5"),
    ("Expected 3 to be greater than 5", "> 5", "3"),
    ("Expected 9 to be less than or equal to 5. why", "<= 5", "9"),
    ("Expected XXXXXXXXXXXXXXXXXXXXXXXX00000000 Was XXXXXXXXXXXXXXXXXXXXXXXX00010000. Item doesn't have "
     "expected type.", "XXXXXXXXXXXXXXXXXXXXXXXX00000000", "XXXXXXXXXXXXXXXXXXXXXXXX00010000"),
    ("Couldn't parse string.", "", ""),
    ("Expected pointer to be NULL", "", ""),
    ("The user said Expected 1 Was 2", "", ""),  # a user's own words after Unity's are not its values
    ("", "", ""),
])
def test_values(message: str, expected: str, actual: str) -> None:
    assert values(message) == (expected, actual)


@pytest.mark.parametrize("line, want", [
    ("/a/t.c:42:test_x:FAIL: Expected 1 Was 2", ("/a/t.c", 42, "test_x", "FAIL", "Expected 1 Was 2")),
    ("/a/t.c:42:test_x:FAIL", ("/a/t.c", 42, "test_x", "FAIL", "")),
    ("/a/t.c:42:test_x:FAIL:Expected 1 Was 2", ("/a/t.c", 42, "test_x", "FAIL", "Expected 1 Was 2")),
    ("/a/t.c:7:test_x:PASS", ("/a/t.c", 7, "test_x", "PASS", "")),
    ("/a/t.c:7:test_x:PASS  ", ("/a/t.c", 7, "test_x", "PASS", "")),
    ("t.c:7:test_x:IGNORE: later", ("t.c", 7, "test_x", "IGNORE", "later")),
    ("C:\\src\\t.c:9:test_w:FAIL: Expected 'a:1:b' Was 'c'", ("C:\\src\\t.c", 9, "test_w", "FAIL", "Expected 'a:1:b' Was 'c'")),
    ("/a/t.c:9:test_v:FAIL: Expected 'x:1:y:PASS' Was 'z'", ("/a/t.c", 9, "test_v", "FAIL", "Expected 'x:1:y:PASS' Was 'z'")),
])
def test_result_lines(line: str, want: tuple[str, int, str, str, str]) -> None:
    found = match_result(line)
    assert found is not None
    assert (found.file, found.line, found.test, found.kind, found.message) == want


@pytest.mark.parametrize("line", [
    "/a/t.cc:12: Failure",  # gtest's
    "t.c:12:5: error: expected ';' before '}' token",  # gcc's
    "/a/t.c:7:test_x:PASSED",
    "/a/t.c:7:test_x:FAILURE here",
    "/a/t.c:x:test_x:FAIL",
    ":7:test_x:FAIL",
    "/a/t.c:7: test_x:FAIL",
    "FAIL",
    "2 Tests 1 Failures 0 Ignored",
])
def test_not_result_lines(line: str) -> None:
    assert match_result(line) is None


def test_read_run_keeps_what_a_test_printed_before_its_result() -> None:
    run = read_run(["hello", "/a/t.c:3:a:PASS", "noise", "/a/t.c:9:b:FAIL: Expected 1 Was 2", "",
                    "-----------------------", "2 Tests 1 Failures 0 Ignored ", "FAIL"])
    assert run.summary == (2, 1, 0) and run.files == {"/a/t.c"}
    (failure,) = run.failures
    assert failure.raw == ["noise", "/a/t.c:9:b:FAIL: Expected 1 Was 2"]


_name = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,30}", fullmatch=True)
_path = st.from_regex(r"/[A-Za-z0-9_./-]{1,40}\.c", fullmatch=True)
_token = st.from_regex(r"-?[0-9A-Fa-fx.]{1,12}", fullmatch=True).filter(lambda s: not s.endswith("."))


@settings(max_examples=200, deadline=None)
@given(_path, st.integers(min_value=1, max_value=10**6), _name, _token, _token,
       st.one_of(st.just(""), st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)))
def test_generated_fail_lines_read_back(path: str, line: int, test: str, exp: str, act: str, note: str) -> None:
    message = f"Expected {exp} Was {act}" + (f". {note}" if note else "")
    found = match_result(f"{path}:{line}:{test}:FAIL: {message}")
    assert found is not None
    assert (found.file, found.line, found.test, found.kind) == (path, line, test, "FAIL")
    assert values(found.message) == (exp, act)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_the_reader_never_raises(text: str) -> None:
    for line in [text, f"/a/t.c:1:t:FAIL: {text}", f"{text}:1:t:FAIL", f"/a/t.c:1:t:FAIL: Expected {text}"]:
        found = match_result(line)
        if found is not None:
            values(found.message)
    read_run(text.splitlines())


def test_pathological_lines_stay_fast() -> None:
    lines = [
        "a:1:t:FAIL:" + " " * 8000 + "x",
        ":1" * 4000 + ":PASS",
        "a:" + "1" * 8000 + ":FAIL",
        "/a/t.c:1:t:FAIL: Expected " + "'" * 8000,
        "/a/t.c:1:t:FAIL: Expected 3 to be greater than " + "9" * 8000,
        "/a/t.c:1:t:FAIL: Expected x" + " Was y" * 1300,
        "/a/t.c:1:t:FAIL: Expected 'x" + "' Was '" * 1000,
    ]
    start = time.perf_counter()
    for line in lines:
        found = match_result(line)
        values(found.message if found else line)
    assert time.perf_counter() - start < 1.0


def test_binary_junk_and_huge_lines_through_ctest() -> None:
    junk = bytes(range(256)) * 40
    out = ["/w/t.c:1:test_big:FAIL: Expected " + "9" * 100_000 + " Was 1", junk.decode("latin-1"),
           "/w/t.c:2:test_after:FAIL"]
    records = parse_text(_ctest(out).encode("latin-1"), "ctest", cwd="/w").test_failures
    # the huge line was cut (its values with it); no tally: the ctest test's own record follows
    assert [(r.node_id, r.line, r.expected_value) for r in records] == [
        ("t::test_big", 1, ""), ("t::test_after", 2, ""), ("t", 0, "")]


# --------------------------------------------------------------------------- the locator takes the record


def test_the_locator_finds_the_function_the_failing_test_calls(tmp_path: Path) -> None:
    """The record's shape (file, line, no suite) leads the C locator to the test function holding the line
    and to what it calls; the project is a stand-in laid out as the log's paths say (tests/parse_hex4.c
    including the implementation, as cJSON's tests do), so the log's absolute paths map into it."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "hex.c").write_text(
        "unsigned parse_hex4(const unsigned char *input)\n{\n    return input[0] - 'a' + 9u;\n}\n\n"
        "int unrelated_helper(int x)\n{\n    return x * 2;\n}\n")
    body = ['#include "../hex.c"', ""] + ["/* padding */"] * 37 + [
        "static void parse_hex4_should_parse_all_combinations(void)",  # line 40
        "{",
        "    TEST_ASSERT_EQUAL_INT(10, parse_hex4((const unsigned char *)\"a\"));",  # line 42
        "}", ""]
    (tmp_path / "tests" / "parse_hex4.c").write_text("\n".join(body))
    record = _parse("unity_output_on_failure.log", cwd="")[0]
    suspects = locate_failure(record, Workspace(tmp_path))
    assert suspects and (suspects[0].file_path, suspects[0].qualname) == ("hex.c", "parse_hex4")
