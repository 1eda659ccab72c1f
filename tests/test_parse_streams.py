"""A log reads the same whichever way its two streams were interleaved (stdout and stderr read through
two pipes: ``whetstone run``, a CI runner).  Real captures, split by stream (tests/fixtures/streams)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from pytest_whetstone.parse import iter_parse_text, parse_text

STREAMS = Path(__file__).parent / "fixtures" / "streams"
BENCH = Path(__file__).resolve().parent.parent / "bench"
SPLIT = sorted(p.stem for p in STREAMS.glob("*.stdout"))
REORDERED = sorted(p.name.removesuffix(".reordered.log") for p in STREAMS.glob("*.reordered.log"))


def streams(name: str) -> tuple[list[str], list[str]]:
    out = (STREAMS / f"{name}.stdout").read_text().splitlines(True)
    err = (STREAMS / f"{name}.stderr").read_text().splitlines(True)
    return out, err


def reading(text: str) -> tuple[object, ...]:
    """What must not depend on the order: the counts and the records' identities."""
    r = parse_text(text, "auto")
    return (r.reported_error_count, r.warning_count, r.fail_count, r.pass_count, r.skip_count,
            sorted((b.tool, b.severity, b.file_path, b.line) for b in r.build_errors),
            sorted((f.runner, f.test_suite, f.test_name) for f in r.test_failures))


@pytest.mark.parametrize("name", REORDERED)
def test_the_order_that_broke_a_parser_reads_as_one_stream_after_the_other(name: str) -> None:
    out, err = streams(name)
    assert reading((STREAMS / f"{name}.reordered.log").read_text()) == reading("".join(out + err))


def test_makes_summary_inside_a_gtest_failure_is_makes_and_the_failure_stays_whole() -> None:
    result = parse_text((STREAMS / "make_test_gtest.reordered.log").read_text(), "auto")
    assert [(b.tool, b.file_path, b.line) for b in result.build_errors] == [("make", "test.mk", 2)]
    first = next(f for f in result.test_failures if f.test_name == "Large")
    assert "Which is: 43" in first.message and "make:" not in first.message


@pytest.mark.parametrize("name", REORDERED)
def test_streamed_the_reordered_log_gives_the_same_records(name: str) -> None:
    text = (STREAMS / f"{name}.reordered.log").read_text()
    whole = parse_text(text, "auto")
    streamed = list(iter_parse_text(text))
    assert streamed
    key = lambda r: (type(r).__name__, getattr(r, "tool", getattr(r, "runner", "")), r.file_path, r.line)  # noqa: E731
    assert sorted(map(key, streamed)) == sorted(map(key, [*whole.build_errors, *whole.test_failures]))


def test_ctests_stderr_line_amid_the_output_loses_no_test() -> None:
    result = parse_text((STREAMS / "ctest_output_on_failure.reordered.log").read_text(), "auto")
    out, err = streams("ctest_output_on_failure")
    whole = parse_text("".join(out + err), "auto")
    assert result.fail_count == whole.fail_count == 6
    names = sorted((f.runner, f.test_suite, f.test_name, f.message) for f in result.test_failures)
    assert names == sorted((f.runner, f.test_suite, f.test_name, f.message) for f in whole.test_failures)


def test_progress_between_sub_make_summaries_keeps_the_cascade() -> None:
    result = parse_text((STREAMS / "cmake_make_compile.reordered.log").read_text(), "auto")
    assert [(b.tool, b.severity) for b in result.build_errors if b.severity == "error"] == [("gcc", "error")]


def test_pip_progress_inside_the_failure_box_leaves_the_box_open() -> None:
    result = parse_text((STREAMS / "pip_wheel_compile.reordered.log").read_text(), "auto")
    assert {b.tool for b in result.build_errors} == {"gcc"}
    assert result.warning_count == 7 and result.reported_error_count == 2  # gcc: 7 warnings, 2 errors


@pytest.mark.parametrize("name", SPLIT)
def test_every_order_with_one_switch_each_way_reads_the_same(name: str) -> None:
    # out[:a] + err[:b] + out[a:] + err[b:] and its mirror: every place one stream's block may split
    out, err = streams(name)
    want = reading("".join(out + err))
    for a in range(len(out) + 1):
        for b in range(len(err) + 1):
            assert reading("".join(out[:a] + err[:b] + out[a:] + err[b:])) == want, (a, b)
            assert reading("".join(err[:b] + out[:a] + err[b:] + out[a:])) == want, (a, b)


@pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("make") and shutil.which("cmake")),
                    reason="needs gcc, make and cmake")
def test_real_runs_read_the_same_in_every_interleave() -> None:
    sys.path.insert(0, str(BENCH))
    import crosscheck_streams as cs

    wanted = {"make-compile", "cmake-find-package", "cmake-make-compile"}
    for run in cs.runs():
        if run.name in wanted:
            lines = cs.capture(run)
            assert lines and {s for s, _ in lines} == {"stdout", "stderr"}, run.name
            assert cs.disagreements(cs.interleaves(lines, seed=0, randoms=10)) == [], run.name


def test_the_run_log_never_splits_a_line_between_the_two_streams(tmp_path: Path) -> None:
    # stdout writes half a line, stderr a whole one, then stdout ends its line: the log holds two lines
    from pytest_whetstone.process import start

    script = "printf 'src/a.c:3:5: error: '; sleep 0.3; echo 'make: *** [all] Error 1' >&2; sleep 0.3; " \
             "echo 'expected'; printf 'no newline at the end'"
    log = tmp_path / "run.log"
    facts = start(["sh", "-c", script], tmp_path, dict(os.environ), False, False, 20, log).wait()
    assert facts.exit_code == 0
    assert log.read_text().splitlines() == ["make: *** [all] Error 1", "src/a.c:3:5: error: expected",
                                            "no newline at the end"]
