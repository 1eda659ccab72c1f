"""CTest's console output, with the test output it embeds.

``N/M Test #K: name ....***Failed  0.01 sec`` gives each test's result
(``Passed``, ``***Failed``, ``***Timeout``, ``***Exception: SegFault``,
``Subprocess aborted***Exception:``, ``***Not Run``; a failure reason such as
``Required regular expression not found. Regex=[...]`` may span lines).
With ``--output-on-failure`` the failed test's output follows its result line;
with ``-V`` it precedes it, each line prefixed ``K: ``.  That output is handed
to the gtest parser: when it names failing gtest tests, those records (runner
``gtest``, node id ``<ctest name>::Suite.Test``) stand for the ctest test, which
is not counted a second time.  A Unity binary's ``FILE:LINE:TEST:FAIL: message``
lines (:mod:`.unity`) do the same: one ``ctest`` record per failing Unity test,
node id ``<ctest name>::<test function>``, test name the function (no suite: the
locator then finds the function holding the line), file and line where the
assertion failed, expected/actual from ``Expected X Was Y``.  A Unity run cut short
(no ``N Tests N Failures N Ignored``: a crash, a timeout) adds the ctest test's own
record for the test that never reported.  Otherwise one ``ctest`` record carries
the status and the output (``Could not find executable``, ``Failed test
dependencies``, the regex reason); a Unity binary's gives the test file Unity
names, without a line.  ``The following tests FAILED:`` only adds tests never
seen above (a log whose head was cut).

Counts: ``pass_count``/``skip_count`` are ctest tests (``Passed`` / disabled);
``fail_count`` is the number of failure records, each the most specific
failing test known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..classify import classify_test
from ..lazy_pattern import lazy_pattern
from ..records import TestFailureRecord
from . import unity
from .base import LineParser, ParseContext, ParseResult
from .gtest import GtestParser, is_structure

RUNNER = "ctest"

_PROJECT = lazy_pattern(r"^Test project (.+)$")
_START = lazy_pattern(r"^\s*Start\s+(\d+): (.+?)\s*$")
_RESULT = lazy_pattern(r"^\s*(\d+)/(\d+) Test\s+#(\d+): (.+?) \.*(?:\s+|\.)(\S.*?)?\s*$")
_SEC = lazy_pattern(r"^(.*?)\s+([\d.]+) sec\s*$")
_SUMMARY = lazy_pattern(r"^(\d+)% tests passed, (\d+) tests? failed out of (\d+)\s*$")
_FAILED_LIST = lazy_pattern(r"^The following tests (?:FAILED|did not run):\s*$")
_LISTED = lazy_pattern(r"^\s+(\d+) - (.+) \(([^()]*)\)\s*$")
_VERBOSE = lazy_pattern(r"^(\d+): (.*)$")
_END_NOISE = lazy_pattern(
    r"^(?:Total Test time \(real\)|Output from these tests are in:"
    r"|Use \"--rerun-failed|No tests were found|UpdateCTestConfiguration|Constructing a list of tests"
    r"|Done constructing a list|Updating test list for fixtures|Added \d+ tests? to meet fixture"
    r"|Checking test dependency graph|test \d+$|Label Time Summary|Subproject Time Summary)"
)
# What ctest -V prints about a test before running it, prefixed like the test's own output.
_CTEST_PREAMBLE = ("Test command: ", "Working Directory: ", "Test timeout computed to be: ", "Environment variables: ",
                   "Resource groups:", "Test Execution Time: ")
MAX_OUTPUT = 400
# Past MAX_OUTPUT lines, a test's output still keeps GoogleTest's own structure (a test's start, end and
# where it failed) and Unity's (its FAIL lines and tally), up to this many lines: a test printing hundreds
# of failures in a loop must not lose its `[  FAILED  ]` line and read as a crash.
MAX_STRUCTURE = 20_000


def _keep(test: _Test, line: str) -> None:
    """One line of the test's output: the first MAX_OUTPUT lines, then only GoogleTest's and Unity's structure."""
    if len(test.output) < MAX_OUTPUT or (
            len(test.output) < MAX_STRUCTURE and (is_structure(line) or unity.is_structure(line))):
        test.output.append(line)


@dataclass
class _Test:
    number: int
    name: str
    status: str = ""
    output: list[str] = field(default_factory=list)
    done: bool = False
    seconds: float | None = None  # what ctest's result line said the test took


class CtestParser(LineParser):
    name = "ctest"
    runner = True
    priority = 15

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.active = False
        self.tests: dict[int, _Test] = {}
        self.failed_seen: set[str] = set()
        self.current_out: _Test | None = None  # --output-on-failure: output after the result line
        self.pre: list[str] = []  # lines between "Start" and the result (missing executable, deps)
        self.partial: tuple[re.Match[str], str] | None = None  # a result line whose reason wraps
        self.listing = False
        self.passed = 0
        self.summary: tuple[int, int] | None = None

    def feed(self, line: str) -> bool:
        if not self.active and self.partial is None and "Start" not in line and not line.startswith("Test project "):
            return False  # an inactive parser claims only these (tested in C first)
        if self.partial is not None:
            m = _SEC.match(line)
            match, text = self.partial
            if m:
                self.partial = None
                self._result(match, (text + "\n" + m.group(1)).strip(), m.group(2))
                return True
            self.partial = (match, text + "\n" + line)
            return True
        if _PROJECT.match(line):
            self._close_output()
            self.active = True
            return True
        m = _START.match(line)
        if m and (self.active or "Start" in line):
            self._close_output()
            self.active = True
            number = int(m.group(1))
            self.tests.setdefault(number, _Test(number, m.group(2)))
            self.pre = []
            return True
        m = _RESULT.match(line)
        if m and self.active:
            self._close_output()
            tail = m.group(5) or ""
            s = _SEC.match(tail)
            if s:
                self._result(m, s.group(1), s.group(2))
            else:
                self.partial = (m, tail)
            return True
        if not self.active:
            return False
        if line.startswith("Errors while running CTest"):
            return True  # on stderr: read through two pipes it may land amid a test's output or the list of
            # failed tests, which go on after it
        m = _SUMMARY.match(line)
        if m:
            self._close_output()
            failed, total = int(m.group(2)), int(m.group(3))
            self.summary = (total - failed, failed)
            return True
        if _FAILED_LIST.match(line):
            self._close_output()
            self.listing = True
            return True
        if self.listing:
            m = _LISTED.match(line)
            if m:
                self._listed(int(m.group(1)), m.group(2), m.group(3))
                return True
            if line.strip():
                self.listing = False
        if _END_NOISE.match(line):
            self._close_output()
            return True
        if self.summary is not None and line.strip():
            self.active = False  # the run is over: what follows is someone else's (make's summary)
            return False
        m = _VERBOSE.match(line)
        if m and int(m.group(1)) in self.tests and self.current_out is None:
            test = self.tests[int(m.group(1))]
            # -V prefixes ctest's own bookkeeping the same way; it is not the test's output
            # (and "Test timeout computed to be: N" would read as a timeout).
            if not m.group(2).startswith(_CTEST_PREAMBLE):
                _keep(test, m.group(2))
            return True
        if self.current_out is not None:
            _keep(self.current_out, line)
            return True
        if len(self.pre) < 50:
            self.pre.append(line)
        return True

    def _result(self, m: re.Match[str], status: str, seconds: str | None = None) -> None:
        number, name = int(m.group(3)), m.group(4).strip()
        test = self.tests.setdefault(number, _Test(number, name))
        test.name, test.status = name, status.strip()
        test.seconds = _float(seconds)
        passed = test.status.startswith("Passed")
        if passed:
            self.passed += 1
            test.done = True
            return
        if "Disabled" in test.status or test.status.startswith("***Skipped") or "Skipped" == test.status:
            self.result.skip_count += 1
            test.done = True
            return
        if self.pre:
            test.output = [*self.pre, *test.output]
        self.pre = []
        self.current_out = test  # its output (if any) follows; recorded when it ends

    def _close_output(self) -> None:
        test, self.current_out = self.current_out, None
        if test is not None and not test.done:
            self._record(test)

    def _listed(self, number: int, name: str, status: str) -> None:
        test = self.tests.get(number)
        if test is not None and test.status:
            return  # already reported from its result line
        self._record(_Test(number, name, status=status))

    def _record(self, test: _Test) -> None:
        test.done = True
        if test.name in self.failed_seen:
            return
        self.failed_seen.add(test.name)
        records = self._embedded(test) or self._unity(test)
        if not records:
            records = [self._own_record(test)]
        for record in records:
            if not record.duration_ms and test.seconds:  # gtest's own "(N ms)" is finer when it printed one
                record.duration_ms = round(test.seconds * 1000)
            self.result.test_failures.append(record)
            self.result.fail_count += 1

    def _embedded(self, test: _Test) -> list[TestFailureRecord]:
        """The failing gtest tests inside this ctest test's output, if it was a gtest binary."""
        if not test.output:
            return []
        sub = ParseResult()
        parser = GtestParser(sub, ParseContext(cwd=self.ctx.cwd))
        for line in test.output:
            try:
                parser.feed(line)
            except Exception:  # noqa: BLE001 - odd output is the test's, not ours
                continue
        parser.flush()
        crashed = "Exception" in test.status or "aborted" in test.status
        timed_out = "Timeout" in test.status
        for record in sub.test_failures:
            record.node_id = f"{test.name}::{record.node_id}"
            if crashed and record.exception_type == "crash":
                record.message = f"{test.status.strip('*')}: {record.message}"
            elif timed_out and record.exception_type == "crash":  # the test ctest's TIMEOUT cut off
                record.message = f"Timeout: {record.message}"
                record.outcome, record.exception_type = "timeout", ""
        return sub.test_failures

    def _unity(self, test: _Test) -> list[TestFailureRecord]:
        """The failing Unity tests inside this ctest test's output, if it was a Unity binary."""
        run = unity.read_run(test.output) if test.output else None
        if run is None or not run.seen:
            return []
        records = [self._unity_record(test, failure) for failure in run.failures]
        if not records or run.summary is None:
            # No FAIL line, or the binary never reached UNITY_END (crashed, timed out, exited): the ctest
            # test's own record, for a test Unity never reported.  Its file is the runner's own source
            # (the one file Unity names); which test died is unknown (Unity prints a test's line after it
            # ends), so no line and no test name: the last reported test is only mentioned.
            own = self._own_record(test)
            if len(run.files) == 1:
                own.file_path = self.ctx.resolve(next(iter(run.files)))
            if run.summary is None and run.last is not None:
                own.message = f"{own.message}\n(after {run.last.test}, the last test Unity reported)"[:2000]
            records.append(own)
        return records

    def _unity_record(self, test: _Test, failure: unity.UnityResult) -> TestFailureRecord:
        expected, actual = unity.values(failure.message)
        record = TestFailureRecord(
            runner=RUNNER,
            test_name=failure.test,
            node_id=f"{test.name}::{failure.test}",
            expected_value=expected,
            actual_value=actual,
            file_path=self.ctx.resolve(failure.file),
            line=failure.line,
            message=(failure.message or "FAIL")[:2000],
            raw="\n".join(failure.raw)[:4000],
        )
        # A FAIL line is a failed check whatever its words ("Couldn't parse string."): the message's own
        # patterns (a timeout, an infra failure) go first, and the user's rules still apply later.
        if classify_test(record).failure_type == "unknown":
            record.failure_type = "assertion"
        return record

    def _own_record(self, test: _Test) -> TestFailureRecord:
        status = test.status.strip()
        reason = status.strip("*") or "Failed"
        outcome = "failed"
        if "Timeout" in status:
            outcome = "timeout"
        elif "Not Run" in status:
            outcome = "error"
        detail = [x for x in test.output if x.strip() and not x.startswith(("Looked in the following", test.name))]
        exec_missing = [x for x in test.output if x.startswith(("Unable to find executable", "Could not find executable"))]
        deps = [x for x in test.output if x.startswith("Failed test dependencies")]
        message = reason
        if exec_missing or deps:
            message += ": " + (deps or exec_missing)[-1 if exec_missing and not deps else 0]
        elif detail and outcome == "failed":
            message += "\n" + "\n".join(detail[-5:])
        exception_type = ""
        if "Exception" in status or "aborted" in status:
            exception_type = status.split("***Exception:")[-1].strip() or status.split("***")[0].strip()
        return TestFailureRecord(
            runner=RUNNER,
            test_name=test.name,
            node_id=test.name,
            message=message[:2000],
            exception_type=exception_type,
            outcome=outcome,
            raw="\n".join([f"Test #{test.number}: {test.name} {status}", *test.output])[:4000],
        )

    def flush(self) -> None:
        if self.partial is not None:
            match, text = self.partial
            self.partial = None
            self._result(match, text)
        self._close_output()
        if self.summary is not None:
            self.result.pass_count += self.summary[0]
        else:
            self.result.pass_count += self.passed
        self.summary = None
        self.passed = 0
        self.listing = False


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


LINE_PARSERS = [CtestParser]
