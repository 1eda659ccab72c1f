"""Records of a log as they are completed, and writers that emit them at once.

``iter_parse_file`` / ``iter_parse_text`` (in ``parse/__init__``) return a
:class:`ParseStream`: iterating it yields each record (classified, with its id)
as soon as no parser can change it any more, so memory stays bounded by the
records in progress, not by the size of the log.  Once exhausted, the stream
holds the counts ``ParseResult.to_dict`` reports.

``write_json`` writes exactly the bytes of ``dumps(parse_file(...).to_dict())``
(the document ``whetstone parse`` prints): build errors are written as they
come; test failures, which sort after the counts, wait in a spooled temporary
file (memory up to 1 MB, disk beyond).  ``write_jsonl`` writes one record per
line, then one summary line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TextIO

from ..records import BuildErrorRecord, TestFailureRecord, dumps
from .base import ParseResult

Record = BuildErrorRecord | TestFailureRecord


class ParseStream:
    """An iterable of the records of one log, in the order they were completed."""

    def __init__(self, records: Iterator[list[Record]], result: ParseResult, close: Callable[[], None]) -> None:
        self._batches = records
        self._close = close
        # Counts, tools (filled as the parse goes; complete once the stream is exhausted).
        self.result = result
        self.error_count = 0
        self.severity_errors = 0
        self.warning_count = 0
        self.done = False

    def __iter__(self) -> Iterator[Record]:
        try:
            for batch in self._batches:
                for record in batch:
                    if isinstance(record, BuildErrorRecord):
                        # ParseResult.error_count / warning_count, one record at a time
                        if record.severity == "error":
                            self.severity_errors += 1
                            if record.is_failure:
                                self.error_count += 1
                        elif record.severity == "warning":
                            self.warning_count += 1
                    yield record
            self.done = True
        finally:
            self.close()

    def close(self) -> None:
        close, self._close = self._close, _nothing
        close()

    def __enter__(self) -> ParseStream:
        return self

    def __exit__(self, *exc: object) -> None:
        close = getattr(self._batches, "close", None)
        if close is not None:
            close()
        self.close()

    def summary(self) -> dict[str, object]:
        """``ParseResult.to_dict()`` without the record lists (valid once exhausted)."""
        result = self.result
        return {
            "error_count": self.error_count,
            "reported_error_count": self.severity_errors + result.uncounted_errors,
            "warning_count": self.warning_count + result.uncounted_warnings,
            "pass_count": result.pass_count,
            "fail_count": result.fail_count,
            "skip_count": result.skip_count,
            "test_error_count": result.test_error_count,
            "xfail_count": result.xfail_count,
            "xpass_count": result.xpass_count,
            "tools": list(result.tools),
        }


def _nothing() -> None:
    return None


def write_json(stream: ParseStream, out: TextIO) -> None:
    """The ``ParseResult.to_dict()`` document, byte for byte as ``dumps`` writes it plus a
    newline, written while the log is parsed.

    ``dumps`` sorts keys: build_errors, then the counts that sort before test_failures,
    test_failures, then tools and the counts after it.  So build errors go out as they
    come, and test failures are held (spooled) until the counts before them are known.
    """
    import tempfile  # only here: not on the import path of every parse

    with tempfile.SpooledTemporaryFile(max_size=1 << 20, mode="w+", encoding="utf-8") as held:
        out.write('{"build_errors":[')
        first_error = first_failure = True
        for record in stream:
            if isinstance(record, BuildErrorRecord):
                out.write(dumps(record.to_dict()) if first_error else "," + dumps(record.to_dict()))
                first_error = False
            else:
                held.write(dumps(record.to_dict()) if first_failure else "," + dumps(record.to_dict()))
                first_failure = False
        counts = stream.summary()
        out.write("]")
        keys = sorted(counts)
        for key in (k for k in keys if k < "test_failures"):
            out.write(f',"{key}":{dumps(counts[key])}')
        out.write(',"test_failures":[')
        held.seek(0)
        while chunk := held.read(1 << 16):
            out.write(chunk)
        out.write("]")
        for key in (k for k in keys if k > "test_failures"):
            out.write(f',"{key}":{dumps(counts[key])}')
        out.write("}\n")


def write_jsonl(stream: ParseStream, out: TextIO) -> None:
    """One line per record, ``{"build_error": {...}}`` or ``{"test_failure": {...}}``, as
    each is completed; then ``{"summary": {...}}`` (the counts of ``ParseResult.to_dict``
    and tools)."""
    for record in stream:
        kind = "build_error" if isinstance(record, BuildErrorRecord) else "test_failure"
        out.write(dumps({kind: record.to_dict()}) + "\n")
    out.write(dumps({"summary": stream.summary()}) + "\n")
