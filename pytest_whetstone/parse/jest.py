"""Jest: the console text (default and ``--verbose``) and ``--json`` output.

Text: ``FAIL ./calc.test.js`` opens a test file; ``--verbose`` lists each test
(``✓`` pass, ``✕`` fail, ``○`` skipped, ``✎`` todo) under its ``describe``
headings; every failure then prints a ``● describe › test`` block with
``Expected:`` / ``Received:`` (or a ``- Expected / + Received`` diff), a code
frame, and the stack (``at Object.toBe (calc.test.js:8:25)``).  The record's
file/line is the first stack frame in the test file (the failing line of the
test); a deeper frame in another file becomes ``impl_file``/``impl_line``.
``● Test suite failed to run`` is one record for the whole file (infra).
Jest re-prints failures in a closing "Summary of all failing tests": one record
per test, never two.  Counts come from ``Tests: 1 failed, 2 passed, 3 total``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..lazy_pattern import lazy_pattern
from ..records import TestFailureRecord
from .base import DocumentParser, LineParser, ParseContext, ParseResult, strip_ansi

RUNNER = "jest"
SUITE_FAILED = "Test suite failed to run"

_FILE = lazy_pattern(r"^\s?(PASS|FAIL)\s+(\S+?)(?: \([\d.]+ m?s\))?\s*$")
_BULLET = lazy_pattern(r"^  ● (.+)$")
_TEST_LINE = lazy_pattern(r"^(\s+)(✓|✕|○|✎|√|×) (?:(skipped|todo) )?(.+?)(?: \((\d+) ms\))?$")
_TESTS_SUMMARY = lazy_pattern(r"^Tests:\s+(.*\d+ total)\s*$")
_END = lazy_pattern(
    r"^(Test Suites:|Tests:|Snapshots:|Time:|Ran all test suites|Snapshot Summary|Summary of all failing tests"
    r"|Jest did not exit|Force exiting Jest| › \d+ snapshots? (?:failed|written|updated|obsolete))"
)
# The starts of _TESTS_SUMMARY and _END lines (_FILE lines have PASS/FAIL in their first 5).
_IDLE_STARTS = ("Test Suites:", "Tests:", "Snapshots:", "Time:", "Ran all test suites", "Snapshot Summary",
                "Summary of all failing tests", "Jest did not exit", "Force exiting Jest", " › ")
_FRAME = lazy_pattern(r"^\s+at (?:(.+?) )?\(?((?:[A-Za-z]:)?[^():]+\.[cm]?[jt]sx?):(\d+):(\d+)\)?$")
_COUNT = lazy_pattern(r"(\d+) (failed|passed|skipped|todo|pending)")
MAX_BLOCK = 300


@dataclass
class _Failure:
    suite: str
    title: str
    body: list[str] = field(default_factory=list)
    duration_ms: int = 0


def _values(body: list[str]) -> tuple[str, str]:
    expected = actual = ""
    minus: list[str] = []
    plus: list[str] = []
    in_diff = False
    for raw in body:
        line = raw.strip()
        if not expected:
            m = re.match(r"^(?:Expected|Expected value|Expected substring|Expected pattern|Expected message"
                         r"|Expected constructor|Snapshot|Expected length|Expected path): (.*)$", line)
            if m:
                expected = m.group(1)
                continue
        if not actual:
            m = re.match(r"^(?:Received|Received value|Received string|Received message|Received length"
                         r"|Received constructor): (.*)$", line)
            if m:
                actual = m.group(1)
                continue
            if line in ("Received function did not throw",) or line.startswith("Number of calls: "):
                actual = line.replace("Received ", "", 1)
                continue
        if re.match(r"^- (?:Expected|Snapshot)\s+- \d+$", line):
            in_diff = True
            continue
        if in_diff:
            if re.match(r"^\+ Received\s+\+ \d+$", line) or not line:
                continue
            if re.match(r"^>?\s*\d+ \|", line) or line.startswith("at "):
                in_diff = False
                continue
            stripped = raw.lstrip()
            if stripped.startswith("- "):
                minus.append(stripped[2:].strip())
            elif stripped.startswith("+ "):
                plus.append(stripped[2:].strip())
    if not expected and not actual and (minus or plus):
        return "\n".join(minus), "\n".join(plus)
    return expected, actual


def analyse(suite: str, title: str, body: list[str]) -> TestFailureRecord:
    """One failure block (text or a --json failureMessage) to a record."""
    expected, actual = _values(body)
    base = suite.rsplit("/", 1)[-1]
    frames = [m for m in (_FRAME.match(b) for b in body) if m and "node_modules" not in m.group(2)]
    file_path, line, impl_file, impl_line = "", 0, "", 0
    own = [m for m in frames if m.group(2).rsplit("/", 1)[-1] == base] if base else []
    if not own:  # the suite is unknown (jest-junit): the test file is the one named like a test
        own = [m for m in frames if re.search(r"\.(?:test|spec)\.[cm]?[jt]sx?$|__tests__/", m.group(2))]
    if own:
        file_path, line = own[0].group(2), int(own[0].group(3))
    elif frames:
        file_path, line = frames[0].group(2), int(frames[0].group(3))
    if frames and frames[0].group(2) != file_path:
        impl_file, impl_line = frames[0].group(2), int(frames[0].group(3))
    text = [b.strip() for b in body]
    message_lines: list[str] = []
    for t in text:
        if _FRAME.match("  " + t) or t.startswith("at ") or re.match(r"^>?\s*\d+ \|", t) or re.match(r"^\|", t):
            break
        message_lines.append(t)
    message = "\n".join(message_lines).strip()
    exception_type = ""
    if any(re.match(r"^(?:Error: )?expect\(", t) for t in text[:20]):
        exception_type = "JestAssertionError"  # a matcher failed: jest's own assertion error
    for t in text[:20] if not exception_type else ():
        m = re.match(r"^((?:[A-Z]\w*)?(?:Error|Exception))(?::|$)", t)
        if m:
            exception_type = m.group(1)
            break
    if title == SUITE_FAILED:
        outcome = "error"
    elif re.search(r"Exceeded timeout of \d+ ?ms", message):
        outcome = "timeout"
    else:
        outcome = "failed"
    name = suite.removeprefix("./")
    return TestFailureRecord(
        runner=RUNNER,
        test_suite=name,
        test_name=title,
        node_id=f"{name}::{title}",
        expected_value=expected,
        actual_value=actual,
        file_path=file_path or (name if title == SUITE_FAILED else ""),
        line=line,
        impl_file=impl_file,
        impl_line=impl_line,
        message=message[:2000],
        exception_type=exception_type,
        outcome=outcome,
        raw="\n".join(body)[:4000],
    )


class JestParser(LineParser):
    name = "jest"
    runner = True
    priority = 25

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.suite = ""
        self.in_file = False
        self.describe: list[tuple[int, str]] = []  # verbose describe headings by indent
        self.pending: dict[str, _Failure] = {}  # node id -> failure, in order of first sight
        self.block: _Failure | None = None
        self.seen: set[str] = set()
        self.counted = False
        self.verbose_pass = self.verbose_skip = 0

    def feed(self, line: str) -> bool:
        if not self.in_file and not line.startswith(_IDLE_STARTS) and "PASS" not in line[:5] and "FAIL" not in line[:5]:
            return False  # outside a file section only these lines mean anything (tested in C first)
        m = _FILE.match(line)
        if m and (m.group(2).endswith((".js", ".ts", ".jsx", ".tsx", ".mjs", ".cjs")) or "/" in m.group(2)):
            self._close_file()
            self.suite, self.in_file = m.group(2), True
            return True
        m = _TESTS_SUMMARY.match(line)
        if m:
            self._close_file()
            counts = dict((w, int(n)) for n, w in _COUNT.findall(m.group(1)))
            self.result.pass_count += counts.get("passed", 0)
            # todo tests are neither passed nor skipped: Jest counts them apart ("1 skipped, 1 todo")
            self.result.skip_count += counts.get("skipped", 0) + counts.get("pending", 0)
            self.counted = True
            return True
        if _END.match(line):
            self._close_block()
            if line.startswith("Summary of all failing tests"):
                self._close_file()
            return self.in_file or bool(self.seen) or line.startswith(("Test Suites:", "Snapshot Summary"))
        if not self.in_file:
            return False
        m = _BULLET.match(line)
        if m:
            self._close_block()
            title = m.group(1).strip()
            self.block = self.pending.get(self._key(title)) or _Failure(self.suite, title)
            self.pending.setdefault(self._key(title), self.block)
            return True
        m = _TEST_LINE.match(line)
        if m and self.block is None:
            self._verbose(len(m.group(1)), m.group(2), m.group(4), m.group(5))
            return True
        if self.block is not None:
            if len(self.block.body) < MAX_BLOCK:
                self.block.body.append(line)
            return True
        if line.strip() and not line.startswith(" "):
            return False  # not indented: jest's file section is over
        if line.strip() and re.match(r"^ {2,}\S", line) and not line.lstrip().startswith(("●", "›")):
            self._heading(line)
        return True

    def _key(self, title: str) -> str:
        return f"{self.suite}::{title}"

    def _heading(self, line: str) -> None:
        indent = len(line) - len(line.lstrip())
        while self.describe and self.describe[-1][0] >= indent:
            self.describe.pop()
        self.describe.append((indent, line.strip()))

    def _verbose(self, indent: int, mark: str, name: str, ms: str | None) -> None:
        while self.describe and self.describe[-1][0] >= indent:
            self.describe.pop()
        title = " › ".join([d for _, d in self.describe] + [name])
        if mark in ("✕", "×"):
            failure = self.pending.setdefault(self._key(title), _Failure(self.suite, title))
            failure.duration_ms = int(ms) if ms else 0
        elif mark in ("✓", "√"):
            self.verbose_pass += 1
        elif mark == "○":  # ✎ is a todo test: neither passed nor skipped
            self.verbose_skip += 1

    def _close_block(self) -> None:
        self.block = None

    def _close_file(self) -> None:
        self._close_block()
        for key, failure in self.pending.items():
            if key in self.seen:
                continue
            self.seen.add(key)
            record = analyse(failure.suite, failure.title, failure.body)
            record.duration_ms = failure.duration_ms
            self.result.test_failures.append(record)
            _count(self.result, record)
        self.pending = {}
        self.describe = []
        self.in_file = False

    def flush(self) -> None:
        self._close_file()
        if not self.counted:
            self.result.pass_count += self.verbose_pass
            self.result.skip_count += self.verbose_skip
        self.verbose_pass = self.verbose_skip = 0
        self.counted = True


class JestJsonParser(DocumentParser):
    """``jest --json``: testResults[].assertionResults[] with failureMessages."""

    name = "jest"
    runner = True

    @staticmethod
    def sniff(head: str) -> bool:
        return head.startswith("{") and ('"numFailedTestSuites"' in head or '"numTotalTests"' in head)

    def parse(self, text: str, result: ParseResult, ctx: ParseContext) -> None:
        data = json.loads(text)
        result.pass_count += int(data.get("numPassedTests", 0) or 0)
        result.skip_count += int(data.get("numPendingTests", 0) or 0)  # numTodoTests: neither passed nor skipped
        root = _common_root([str(s.get("name", "")) for s in data.get("testResults", []) or []])
        for suite in data.get("testResults", []) or []:
            name = str(suite.get("name", ""))
            rel = name[len(root) :] if root and name.startswith(root) else name
            failed = [a for a in suite.get("assertionResults", []) or [] if a.get("status") == "failed"]
            for a in failed:
                title = " › ".join([*map(str, a.get("ancestorTitles", []) or []), str(a.get("title", ""))])
                body = strip_ansi("\n".join(map(str, a.get("failureMessages", []) or []))).split("\n")
                record = analyse(rel, title, body)
                record.duration_ms = int(a.get("duration") or 0)
                loc = a.get("location")
                if isinstance(loc, dict) and not record.line:
                    record.line = int(loc.get("line") or 0)
                result.test_failures.append(record)
                result.fail_count += 1
            message = strip_ansi(str(suite.get("message", "") or ""))
            if suite.get("status") == "failed" and not failed and SUITE_FAILED in message:
                body = message.split("\n")
                start = next((i for i, b in enumerate(body) if SUITE_FAILED in b), 0)
                record = analyse(rel, SUITE_FAILED, body[start + 1 :])
                result.test_failures.append(record)
                _count(result, record)


def _count(result: ParseResult, record: TestFailureRecord) -> None:
    """A failed test is one of Jest's "Tests: N failed"; a file that failed to run is none of its tests
    (Jest counts it under "Test Suites: N failed"): an errored test file, as vitest's and pytest's."""
    if record.test_name == SUITE_FAILED:
        result.test_error_count += 1
    else:
        result.fail_count += 1


def _common_root(paths: list[str]) -> str:
    """The directory all test files share, so records carry project-relative paths."""
    dirs = [p.rsplit("/", 1)[0] + "/" for p in paths if "/" in p]
    if not dirs:
        return ""
    root = dirs[0]
    for d in dirs[1:]:
        while not d.startswith(root) and root:
            root = root[: root.rstrip("/").rfind("/") + 1]
    return root


LINE_PARSERS = [JestParser]
DOC_PARSERS = [JestJsonParser]
