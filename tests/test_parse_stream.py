"""Streaming parse: the same records and the same bytes as the whole-result parse.

Memory is measured by bench/bench_parse.py (peak RSS of `whetstone parse` on 5 MB vs
50 MB), not here: a timed or sized test would be flaky on a shared machine.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_whetstone import parse as P
from pytest_whetstone.cli import main
from pytest_whetstone.parse import ParseResult, iter_parse_file, iter_parse_text, parse_file, parse_text
from pytest_whetstone.parse.stream import write_json, write_jsonl
from pytest_whetstone.records import BuildErrorRecord, TestFailureRecord, dumps

FIXTURES = Path(__file__).parent / "fixtures"
# Every log and document the parser fixtures hold (build and test output).
LOGS = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix in (".log", ".xml")
              or p.is_file() and p.suffix == ".json" and "tests" in p.parts and not p.name.endswith(".labels.json"))


def _document(path: Path, tool: str) -> str:
    return dumps(parse_file(str(path), tool, cwd=str(path.parent)).to_dict()) + "\n"


def _streamed(stream: P.ParseStream) -> str:
    out = io.StringIO()
    write_json(stream, out)
    return out.getvalue()


def _small_batches(text: str, tool: str, cwd: str) -> dict:
    """Stream with a drain after every line (the most a parser can be interrupted)."""
    result = ParseResult()
    lines = [line for batch in P._text_batches(text) for line in batch]
    batches = P._dispatch(([line] for line in lines), tool, P.ParseContext(cwd=cwd, tool_hint=tool), result,
                          stream=True)
    records = [r for batch in P._settled(batches, None, True, result) for r in batch]
    result.build_errors = [r for r in records if isinstance(r, BuildErrorRecord)]
    result.test_failures = [r for r in records if isinstance(r, TestFailureRecord)]
    return result.to_dict()


def test_fixture_set_is_not_empty() -> None:
    assert len(LOGS) > 100
    assert any(p.suffix == ".xml" for p in LOGS) and any(p.suffix == ".json" for p in LOGS)


@pytest.mark.parametrize("tool", sorted(P.TOOLS))
def test_streamed_document_is_byte_identical_on_every_fixture(tool: str) -> None:
    for path in LOGS:
        want = _document(path, tool)
        assert _streamed(iter_parse_file(str(path), tool, cwd=str(path.parent))) == want, path
        assert _streamed(iter_parse_text(path.read_bytes(), tool, cwd=str(path.parent))) == want, path


@pytest.mark.parametrize("tool", ["auto", "gcc", "linker", "make", "cmake", "gtest", "pytest", "ctest", "tap"])
def test_draining_after_every_line_changes_nothing(tool: str) -> None:
    for path in LOGS:
        if path.suffix != ".log":
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if text.startswith('[{"kind"'):
            continue  # gcc's JSON diagnostics: a document, read whole, not line by line
        want = parse_text(text, tool, cwd=str(path.parent)).to_dict()
        assert _small_batches(text, tool, str(path.parent)) == want, path


def test_records_come_out_before_the_log_ends() -> None:
    unit = (FIXTURES / "build" / "make" / "keep_going.log").read_text()
    stream = iter_parse_text(unit * 2000, "auto")  # ~2 MB: several 1 MB batches
    it = iter(stream)
    first = next(it)
    assert isinstance(first, BuildErrorRecord) and first.error_id and first.error_type != ""
    handed_on_so_far = stream.result.drained  # only what the first batch completed
    total = 1 + len(list(it))
    assert 0 < handed_on_so_far < total // 2
    assert stream.done and stream.result.drained == total


@pytest.mark.parametrize("name", ["gtest/basic.log"])
def test_streamed_records_are_not_kept_by_the_parsers(name: str) -> None:
    # Memory must not grow with the log: once a streamed record is handed on and dropped,
    # nothing of the parse may still hold it (gtest's duplicate check used to).  Batches
    # are ~1 MB, so the first records are checked once the stream is a few batches on.
    import gc
    import itertools
    import re
    import weakref

    unit = (FIXTURES / "tests" / name).read_text()
    copies = 4_000_000 // len(unit) + 1
    # Each copy names its own suites (gtest: "AddTest.Large"), so every failure is a new one.
    text = "".join(re.sub(r"\b([A-Z]\w*Test)\.", rf"\g<1>{k}.", unit) for k in range(copies))
    total = sum(1 for _ in iter_parse_text(text, "auto"))
    stream = iter(iter_parse_text(text, "auto"))  # alive until the end of the test
    refs = [weakref.ref(r) for r in itertools.islice(stream, total // 4) if isinstance(r, TestFailureRecord)]
    for _ in itertools.islice(stream, total // 2):
        pass
    gc.collect()
    assert total > 100 and refs and all(ref() is None for ref in refs)
    assert next(stream, None) is not None  # the parse was still going


def test_summary_gate_sees_drained_errors() -> None:
    # make's "*** [...] Error 1" is a summary of the gcc error before it: with the error
    # already drained (handed on), the gate must still know it was there.
    log = "main.c:3:5: error: expected ';' before 'return'\nmake: *** [Makefile:2: all] Error 1\n"
    text = log * 3
    assert _small_batches(text, "auto", "") == parse_text(text, "auto").to_dict()
    assert [getattr(r, "tool", "") for r in iter_parse_text(text)] == ["gcc"] * 3


def test_a_summary_the_other_stream_delivered_first_is_explained_by_the_error_after_it() -> None:
    # cmake prints "Configuring incomplete" on stdout and its errors on stderr: read through two pipes
    # the summary may come first; streamed or not, in batches of any size, the error alone is a record
    text = (FIXTURES / "build" / "cmake" / "stdout_first.log").read_text()
    whole = parse_text(text, "auto")
    assert [(r.severity, r.file_path, r.line) for r in whole.build_errors] == [("error", "CMakeLists.txt", 3)]
    assert _small_batches(text, "auto", "") == whole.to_dict()
    assert len(list(iter_parse_text(text))) == 1


def test_a_summary_nothing_explains_stays_a_record() -> None:
    summary = "-- Configuring incomplete, errors occurred!\n"
    assert [r.message for r in parse_text(summary).build_errors] == ["Configuring incomplete, errors occurred!"]
    # an error far past the reordering window is another failure: both are records, streamed or not
    error = "CMake Error at CMakeLists.txt:3 (project):\n  broken\n\n"
    text = summary + "-- status\n" * 600 + error
    assert [r.line for r in parse_text(text).build_errors] == [0, 3]
    assert [r.line for r in iter_parse_text(text)] == [0, 3]


def test_jsonl_one_record_per_line_then_summary() -> None:
    path = FIXTURES / "build" / "mixed" / "make_ld_gcc.log"
    out = io.StringIO()
    write_jsonl(iter_parse_file(str(path)), out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    whole = parse_file(str(path)).to_dict()
    assert [r["build_error"] for r in rows[:-1]] == whole["build_errors"]
    summary = rows[-1]["summary"]
    assert summary == {k: v for k, v in whole.items() if k not in ("build_errors", "test_failures")}


def test_jsonl_test_failures() -> None:
    path = FIXTURES / "tests" / "gtest" / "basic.log"
    out = io.StringIO()
    write_jsonl(iter_parse_file(str(path)), out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    whole = parse_file(str(path)).to_dict()
    assert [r["test_failure"] for r in rows[:-1]] == whole["test_failures"] != []
    assert rows[-1]["summary"]["fail_count"] == whole["fail_count"]


def test_errors_are_raised_before_any_record() -> None:
    with pytest.raises(ValueError, match="unknown tool"):
        iter_parse_file(str(FIXTURES / "build" / "gcc" / "syntax.log"), "nope")
    with pytest.raises(OSError):
        iter_parse_file("/nonexistent/whetstone.log")


def test_cli_parse_prints_the_same_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("build/make/keep_going.log", "tests/pytest/default.log", "tests/junit/gtest_multi.xml"):
        path = FIXTURES / name
        assert main(["parse", str(path)]) == 0
        assert capsys.readouterr().out == dumps(parse_file(str(path)).to_dict()) + "\n"


def test_cli_parse_jsonl(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "build" / "gcc" / "warnings_wall.log"
    assert main(["parse", "--format", "jsonl", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    whole = parse_file(str(path)).to_dict()
    assert len(lines) == len(whole["build_errors"]) + 1
    assert json.loads(lines[-1])["summary"]["warning_count"] == whole["warning_count"]


_LINES = st.sampled_from([
    "main.c:4:17: error: 'count' undeclared (first use in this function)",
    "    4 |     int total = count + 1;",
    "      |                 ^~~~~",
    "main.c: In function 'main':",
    "x.c:2:1: warning: unused variable 'y' [-Wunused-variable]",
    "x.c:2:1: note: declared here",
    "fix-it:\"x.c\":{2:1-2:2}:\"z\"",
    "In file included from a.c:1:",
    "make: *** [Makefile:3: all] Error 1",
    "collect2: error: ld returned 1 exit status",
    "/usr/bin/ld: main.o: in function `main':",
    "main.c:(.text+0x15): undefined reference to `foo'",
    "1 error generated.",
    "[ RUN      ] A.b",
    "[  FAILED  ] A.b (0 ms)",
    "",
    "garbage line",
])


@settings(max_examples=60, deadline=None)
@given(st.lists(_LINES, max_size=40), st.sampled_from(["auto", "gcc", "linker", "make"]))
def test_streaming_equals_whole_parse_on_any_line_mix(lines: list[str], tool: str) -> None:
    text = "\n".join(lines)
    assert _small_batches(text, tool, "") == parse_text(text, tool).to_dict()
    assert _streamed(iter_parse_text(text, tool)) == dumps(parse_text(text, tool).to_dict()) + "\n"


def test_a_parser_that_raises_mid_run_is_dropped_at_that_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_whetstone.parse import gcc

    real = gcc.GccParser._diagnostic

    def boom(self: gcc.GccParser, facts: tuple, line: str) -> bool:
        if "BOOM" in line:
            raise RuntimeError("parser bug")
        return bool(real(self, facts, line))

    monkeypatch.setattr(gcc.GccParser, "_diagnostic", boom)
    text = ("a.c:1:1: error: first\n    1 | x\nBOOM.c:2:2: error: second\nc.c:3:3: error: third\n"
            "make: *** No rule to make target 'x.h'.  Stop.\n")
    result = parse_text(text, "gcc")
    # gcc is dropped (with its open record) from the line it raised on; the others take that
    # line and the rest.
    assert [(r.tool, r.line) for r in result.build_errors] == [("unknown", 2), ("unknown", 3), ("make", 0)]
    assert _small_batches(text, "gcc", "") == result.to_dict()
