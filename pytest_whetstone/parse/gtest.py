"""Google Test output: the console text, and ``--gtest_output=json``.

Text: a test opens with ``[ RUN      ] Suite.Test`` and closes with ``[       OK ]``,
``[  FAILED  ]`` or ``[  SKIPPED ]``; between them come the failure blocks
(``file:line: Failure`` and the assertion's own lines).  A test that opened and
never closed crashed (SIGSEGV, abort): it becomes an exception record when the
next test, the next run or the end of input shows it will never close.  The
``[  FAILED  ] N tests, listed below:`` summary only adds records for tests
not seen before (a log whose head was cut), never a second one.  ``--gtest_brief``
prints failure blocks without ``[ RUN ]``; they attach to the next ``[  FAILED  ]``.
``SetUpTestSuite`` failures print outside any test and are reported by gtest as
``[  FAILED  ] Suite: SetUpTestSuite or TearDownTestSuite``.  cmocka prints the same shape
(``test(s)``, and its failure lines as ``[  ERROR   ] --- words`` / ``[   LINE   ] --- t.c:11: error:
Failure!``): read alike, its tests named without a suite.

gtest XML is JUnit XML and is read by :mod:`.junit` (runner ``gtest``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..lazy_pattern import lazy_pattern
from ..records import TestFailureRecord
from .base import DocumentParser, LineParser, ParseContext, ParseResult

RUNNER = "gtest"

_TESTS = r"test(?:s|\(s\))?"  # cmocka, which prints gtest's shape, says "test(s)"
_RUN = lazy_pattern(r"^\[ RUN      \] (\S+)\s*$")
_OK = lazy_pattern(r"^\[       OK \] (\S+)(?: \((\d+) ms\))?\s*$")
# "[  FAILED  ] Suite.Test, where GetParam() = 2 (0 ms)": the param part is optional.
_FAILED = lazy_pattern(r"^\[  FAILED  \] (\S+?)(,\s+where (.*?))?(?: \((\d+) ms\))?\s*$")
_SKIPPED = lazy_pattern(r"^\[  SKIPPED \] (\S+?)(?: \((\d+) ms\))?\s*$")
_SUITE_FAILED = lazy_pattern(r"^\[  FAILED  \] ([^\s:]+): (SetUpTestSuite or TearDownTestSuite|.*Environment.*)$")
_LISTED = lazy_pattern(rf"^\[  (?:FAILED  |SKIPPED )\] \d+ {_TESTS}, listed below:\s*$")
_COUNT_LINE = lazy_pattern(rf"^\[  (?:PASSED  |FAILED  |SKIPPED )\] \d+ {_TESTS}\.?\s*$")
_FAILURE_AT = lazy_pattern(r"^(.+?):(\d+): (Failure|error:.*)$|^(unknown file): (Failure|error:.*)$")
_BANNER = lazy_pattern(
    r"^\[(?:==========|----------|  PASSED  | DISABLED |  DEATH   )\]"
    r"|^Running main\(\) from |^Note: Google Test filter = |^Repeating all tests \(iteration \d+\)"
    r"|^ *YOU HAVE \d+ DISABLED TESTS?$|^ *\d+ (?:FAILED|SKIPPED) TESTS?(?:\(S\))?$|^ *\d+ FAILED TEST SUITES?$"
)
_PASSED_COUNT = lazy_pattern(rf"^\[  PASSED  \] (\d+) {_TESTS}\.?\s*$")
# the run's skip tally: "[  SKIPPED ] 2 tests, listed below:" (--gtest_brief: "[  SKIPPED ] 2 tests.")
_SKIPPED_COUNT = lazy_pattern(rf"^\[  SKIPPED \] (\d+) {_TESTS}(?:\.|, listed below:)\s*$")
# cmocka's failure lines inside a test: "[  ERROR   ] --- 0xb != 0xa", "[   LINE   ] --- t.c:11: error: Failure!"
_CMOCKA_LINE = lazy_pattern(r"^\[ {2,3}(?:ERROR|LINE) {3}\] --- (.*)$")
_REPEAT = lazy_pattern(r"^Repeating all tests \(iteration (\d+)\)")
_NEW_RUN = lazy_pattern(r"^Running main\(\) from |^\[==========\] Running \d+ tests?|^Repeating all tests")
def is_structure(line: str) -> bool:
    """A line of GoogleTest's own structure: a test's start or end, a banner or tally, where a check
    failed (what a caller keeps of an output too long to keep whole: :mod:`.ctest`)."""
    return any(p.match(line) for p in (_RUN, _OK, _FAILED, _SKIPPED, _BANNER, _FAILURE_AT))


def test_progress(text: str) -> tuple[dict[str, bool], str]:
    """Each test the text saw end (its name -> it passed) and the one it opened and never closed ("" when
    none): what a run that died or was stopped had done, which no report of its own says (gtest writes
    its XML at the end only)."""
    ended: dict[str, bool] = {}
    running = ""
    for line in text.splitlines():
        if m := _RUN.match(line):
            running = m.group(1)
        elif (m := _OK.match(line) or _FAILED.match(line)) and not _SUITE_FAILED.match(line):
            ended[m.group(1)] = line.startswith("[       OK ]")
            running = "" if m.group(1) == running else running
    return ended, running


# Substrings every line an idle parser can claim holds, besides "[..." lines.
_IDLE_WORDS = ("Running main() from ", "Note: Google Test filter = ", "Repeating all tests", "DISABLED TEST",
               "FAILED TEST", ": Failure", ": error:")
_has_idle_word = lazy_pattern("|".join(map(re.escape, _IDLE_WORDS))).search
_PARAM = lazy_pattern(r"^\s*#\s*GetParam\(\) = (.*)$")
MAX_BODY = 200  # lines kept per test: a runaway test cannot grow memory


@dataclass
class _Open:
    name: str
    body: list[str] = field(default_factory=list)


def split_name(full: str) -> tuple[str, str]:
    """``Evens/EvenParam.IsEven/0`` -> (``Evens/EvenParam``, ``IsEven/0``)."""
    suite, dot, test = full.partition(".")
    return (suite, test) if dot else ("", full)


def _strip_quotes(value: str) -> str:
    return value.strip()


def extract_values(body: list[str]) -> tuple[str, str]:
    """Expected and actual from the first gtest assertion block that shows them."""
    for i, line in enumerate(body):
        s = line.strip()
        if s == "Expected equality of these values:":
            return _equality(body[i + 1 :])
        if s.startswith("Value of: "):
            actual = expected = ""
            for nxt in body[i + 1 : i + 6]:
                t = nxt.strip()
                if t.startswith("Actual: "):
                    actual = t[len("Actual: ") :]
                elif t.startswith("Expected: "):
                    expected = t[len("Expected: ") :]
                    break
            if actual or expected:
                return expected, actual
        m = re.match(r"^Expected: \((.*)\) (==|!=|<|<=|>|>=) \((.*)\), actual: (.*)$", s)
        if m:
            return f"{m.group(1)} {m.group(2)} {m.group(3)}", m.group(4)
        if s.startswith("Expected: ") and i + 1 < len(body):
            nxt = body[i + 1].strip()
            if nxt.startswith("Actual: "):
                return s[len("Expected: ") :].rstrip("."), nxt[len("Actual: ") :].rstrip(".")
        m = re.match(r"^The difference between (.+?) and (.+?) is (.+?), which exceeds (.+?), where$", s)
        if m:
            evaluated = [
                re.match(r"^(.*) evaluates to (.*?)[,.]?(?: and)?$", b.strip()) for b in body[i + 1 : i + 4]
            ]
            vals = [e.group(2) for e in evaluated if e]
            if len(vals) >= 2:
                return vals[1], vals[0]
        m = re.match(r"^(.*) evaluates to (false|true), where$", s)
        if m:
            return ("true" if m.group(2) == "false" else "false"), m.group(2)
        if s.startswith("Result: ") and i and body[i - 1].strip().startswith("Death test:"):
            detail = [s[len("Result: ") :]]
            for nxt in body[i + 1 : i + 3]:
                t = nxt.strip()
                if not t or t.endswith(":") and not t.startswith("Exited") or t.startswith("["):
                    break
                detail.append(t)
            return "", " ".join(detail).rstrip(".")
    return "", ""


def _equality(rest: list[str]) -> tuple[str, str]:
    # Two operands, each "  expr" optionally followed by "    Which is: value".
    operands: list[list[str]] = []
    for line in rest[:12]:
        if line.startswith("    Which is: ") and operands:
            operands[-1].append(line[len("    Which is: ") :])
        elif line.startswith("  ") and not line.startswith("    ") and len(operands) < 2:
            operands.append([line[2:]])
        else:
            break
    if len(operands) != 2:
        return "", ""
    (a_expr, *a_val), (b_expr, *b_val) = operands
    a = a_val[0] if a_val else a_expr
    b = b_val[0] if b_val else b_expr
    # A literal operand (no "Which is") is the expected value, wherever it stands.
    if a_val and not b_val:
        return b, a
    if b_val and not a_val:
        return a, b
    if re.search(r"expect|want|golden|wanted", a_expr, re.I) and not re.search(r"expect|want", b_expr, re.I):
        return a, b
    return b, a  # EXPECT_EQ(actual, expected): the modern convention


def first_location(body: list[str]) -> tuple[str, int]:
    for line in body:
        m = _FAILURE_AT.match(line)
        if m and m.group(1):
            return m.group(1), int(m.group(2))
    return "", 0


def _message(body: list[str]) -> str:
    """The first failure block, without its location line: what went wrong."""
    out: list[str] = []
    started = False
    for line in body:
        if _FAILURE_AT.match(line):
            if started:
                break
            started = True
            continue
        if started or not out:
            if _BANNER.match(line):
                continue
            out.append(line)
        if len(out) >= 12:
            break
    return "\n".join(line.rstrip() for line in out).strip()


def build_record(
    full: str, body: list[str], *, param: str = "", duration: str | None = None, crashed: bool = False
) -> TestFailureRecord:
    suite, test = split_name(full)
    expected, actual = extract_values(body)
    file_path, line = first_location(body)
    message = _message(body)
    exception_type = ""
    if any("C++ exception with description" in b or "Unknown C++ exception" in b for b in body):
        exception_type = "C++ exception"
    if crashed:
        exception_type = exception_type or "crash"
        tail = message.strip()
        message = "test started but never finished (the test binary crashed or was killed)"
        if tail:
            message += "\n" + tail
    if param:
        message = (message + f"\nwhere {param}").strip()
    return TestFailureRecord(
        runner=RUNNER,
        test_suite=suite,
        test_name=test,
        node_id=full,
        expected_value=expected,
        actual_value=actual,
        file_path=file_path,
        line=line,
        message=message,
        exception_type=exception_type,
        duration_ms=int(duration) if duration else 0,
        raw="\n".join(body)[:4000],
    )


class GtestParser(LineParser):
    name = "gtest"
    runner = True
    priority = 20

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.current: _Open | None = None
        self.loose: list[str] = []  # failure lines outside a test (brief mode, SetUpTestSuite)
        # Node ids already reported (not the records: a streamed record must be freed once
        # written; only the id is needed to skip the summary's and --gtest_repeat's copies).
        self.seen: set[str] = set()
        self.orphans: list[list[str]] = []
        self.listing = False  # inside a "listed below" summary
        self.active = False  # seen a gtest banner: claim blank lines and loose output
        self.run_passed = 0  # OK lines of the current run (its "[  PASSED  ] N tests." may say more)
        self.run_skipped = 0  # SKIPPED lines of the current run (--gtest_brief prints none, only the tally)
        self.iteration = [0, 0]  # passed, skipped counted since --gtest_repeat's last "Repeating all tests"

    # ----------------------------------------------------------------- helpers
    def _emit(self, record: TestFailureRecord) -> None:
        key = record.node_id
        if key in self.seen:
            return  # --gtest_repeat prints the same failure again
        self.seen.add(key)
        self.result.test_failures.append(record)
        self.result.fail_count += 1

    def _add(self, passed: int, skipped: int) -> None:
        self.result.pass_count += passed
        self.result.skip_count += skipped
        self.iteration[0] += passed
        self.iteration[1] += skipped

    def _crash_open(self) -> None:
        if self.current is not None:
            self._emit(build_record(self.current.name, self.current.body, crashed=True))
            self.current = None

    # ----------------------------------------------------------------- feed
    def feed(self, line: str) -> bool:
        if (not self.active and self.current is None and not self.loose and line[:1] != "["
                and not _has_idle_word(line)):
            return False  # an idle parser claims only banners and failure lines (tested in C first)
        m = _REPEAT.match(line)
        if m:  # --gtest_repeat: passed and skipped are the last iteration's (the failures: each one seen)
            if int(m.group(1)) > 1:
                self._add(-self.iteration[0], -self.iteration[1])
            self.iteration = [0, 0]
        m = _RUN.match(line)
        if m:
            self._crash_open()
            self.listing = False
            self.active = True
            if self._loose_failure():
                self.orphans.append(self.loose[-MAX_BODY:])  # a SetUpTestSuite failure, claimed later
            self.current = _Open(m.group(1))
            self.loose = []
            return True
        if not line.startswith("[") or line.startswith("[  DEATH   ]"):
            return self._body(line)
        m = _CMOCKA_LINE.match(line)
        if m:  # what gtest prints bare: the failure's words, then its location
            return self._body(m.group(1))
        m = _OK.match(line)
        if m:
            # a log cut mid-line may end "[       OK ] Suite." : a prefix still closes the test
            if self.current and self.current.name.startswith(m.group(1)):
                self.current = None
            self._add(1, 0)
            self.run_passed += 1
            self.loose = []
            return True
        m = _SUITE_FAILED.match(line)
        if m:
            self._suite_failure(m.group(1), m.group(2))
            return True
        m = _FAILED.match(line)
        if m:
            self._failed(m)
            return True
        m = _SKIPPED_COUNT.match(line)
        if m:  # the run's own tally: skipped tests whose line the log does not show count too
            self._add(0, max(0, int(m.group(1)) - self.run_skipped))
            self.run_skipped = 0
        m = _SKIPPED.match(line)  # a test's own line ("[  SKIPPED ] A.B (0 ms)"): never a tally
        if m:
            if not self.listing:
                self._add(0, 1)
                self.run_skipped += 1
                self.current = None
            return True
        m = _LISTED.match(line)
        if m:
            self._crash_open()
            self.listing = True
            return True
        if _COUNT_LINE.match(line) or _BANNER.match(line):
            self.active = True
            if line.startswith("[----------] Global test environment tear-down"):
                self._crash_open()
            elif _NEW_RUN.match(line):
                self.run_passed = self.run_skipped = 0
            else:
                m = _PASSED_COUNT.match(line)
                if m:
                    # The run's own tally: with --gtest_brief, or a log whose head was cut,
                    # not every passing test printed an OK line.
                    self._add(max(0, int(m.group(1)) - self.run_passed), 0)
                    self.run_passed = 0
            return True
        return self._body(line)

    def _loose_failure(self) -> bool:
        return any(_FAILURE_AT.match(x) for x in self.loose)

    def _body(self, line: str) -> bool:
        new_run = _NEW_RUN.match(line) is not None
        if new_run or (_BANNER.match(line) and not line.startswith("[  DEATH")):
            self._crash_open()
            self.active = True
            self.loose = []
            if new_run:
                self.run_passed = self.run_skipped = 0
            return True
        if self.current is not None:
            if len(self.current.body) < MAX_BODY:
                self.current.body.append(line)
            return True
        if _FAILURE_AT.match(line):
            self.active = True
            self.loose.append(line)
            return True
        if self.loose and len(self.loose) < MAX_BODY and line.strip():
            self.loose.append(line)
            return True
        return self.active and not line.strip()

    def _failed(self, m: re.Match[str]) -> None:
        full, where, duration = m.group(1), m.group(3) or "", m.group(4)
        if self.current is not None and self.current.name == full:
            self._emit(build_record(full, self.current.body, param=where, duration=duration))
            self.current = None
        elif duration is not None and self.current is None:
            # brief mode: the failure block came before the FAILED line, without RUN
            self._emit(build_record(full, self.loose, param=where, duration=duration))
        elif full not in self.seen and self.listing:
            self._emit(build_record(full, [], param=where))
        elif full not in self.seen and self.current is None:
            self._emit(build_record(full, self.loose, param=where, duration=duration))
        self.loose = []

    def _suite_failure(self, suite: str, what: str) -> None:
        # The failure lines printed before the suite's first test belong here.
        body = self.orphans.pop(0) if self.orphans else self.loose
        record = build_record(f"{suite}.{what}", body)
        record.test_suite, record.test_name = suite, what
        self._emit(record)
        self.loose = []

    def flush(self) -> None:
        self._crash_open()
        self.loose = []
        self.listing = False


class GtestJsonParser(DocumentParser):
    """``--gtest_output=json``: {"testsuites": [{"name", "testsuite": [{..., "failures"}]}]}."""

    name = "gtest"
    runner = True

    @staticmethod
    def sniff(head: str) -> bool:
        return head.startswith("{") and '"testsuites"' in head and '"name": "AllTests"' in head or (
            head.startswith("{") and '"testsuites"' in head and '"tests"' in head and "numTotal" not in head
        )

    def parse(self, text: str, result: ParseResult, ctx: ParseContext) -> None:
        data = json.loads(text)  # truncated JSON raises: the dispatcher falls back to line mode
        for suite in data.get("testsuites", []) or []:
            for case in suite.get("testsuite", []) or []:
                self._case(suite, case, result)

    @staticmethod
    def _case(suite: dict[str, object], case: dict[str, object], result: ParseResult) -> None:
        failures = case.get("failures") or []
        if str(case.get("result", "")).upper() == "SKIPPED":
            result.skip_count += 1
            return
        if str(case.get("status", "RUN")).upper() != "RUN":
            return  # NOTRUN: disabled
        if not failures:
            result.pass_count += 1
            return
        body: list[str] = []
        for f in failures if isinstance(failures, list) else []:
            text = str(f.get("failure", "")) if isinstance(f, dict) else str(f)
            lines = text.split("\n")
            # JSON puts "file:line" alone on the first line; make it look like the console.
            if lines and re.match(r"^.+:\d+$", lines[0]):
                lines[0] += ": Failure"
            body.extend(lines)
        name = f"{suite.get('name', '')}.{case.get('name', '')}"
        record = build_record(name, body)
        if not record.file_path and case.get("file"):
            record.file_path, record.line = str(case.get("file")), int(str(case.get("line") or 0))
        param = case.get("value_param") or case.get("type_param")
        if param:
            record.message = (record.message + f"\nwhere {param}").strip()
        result.test_failures.append(record)
        result.fail_count += 1


LINE_PARSERS = [GtestParser]
DOC_PARSERS = [GtestJsonParser]
