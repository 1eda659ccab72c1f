"""Python outside pytest: ``python -m unittest`` runs and plain tracebacks.

unittest (default and ``-v``): each failure is a section between a line of ``=``
and a line of ``-``, headed ``FAIL: test_x (pkg.mod.Class.test_x)`` or
``ERROR: ...``, holding a traceback; ``Ran N tests`` and ``FAILED (failures=2,
errors=1, skipped=7, expected failures=1)`` / ``OK`` close the run.  One record
per section (runner ``unittest``): suite = ``pkg.mod.Class``, name = the method;
file/line = the first frame (the test's own line), a deeper frame in another file
is ``impl_file``; ``assertEqual(first, second)`` messages (``A != B``, ``Lists
differ: A != B``, ``A != B within 7 places``) give actual = first, expected =
second (the ``assertEqual(actual, expected)`` convention).  Counts are unittest's.

A traceback printed by a script (``Traceback (most recent call last):`` ...
``KeyError: 'x'``), and a ``SyntaxError`` with or without that header, is one
record (runner ``python``): suite = the outermost frame's file, file/line = the
innermost frame (where it was raised; for a SyntaxError, the offending line).
Chained exceptions (``During handling of the above exception ...``) give one
record, the last exception.
"""

from __future__ import annotations

from ..lazy_pattern import lazy_pattern
from ..records import TestFailureRecord
from .base import LineParser, ParseContext, ParseResult

_RULE_EQ = "=" * 70
_RULE_DASH = "-" * 70
# "FAIL: test_x (pkg.mod.Class.test_x)", a subtest's "FAIL: test_x (pkg.mod.Class.test_x) (i=1)"
_HEADER = lazy_pattern(r"^(FAIL|ERROR): (\S+) \(([^)]*)\)(?: (\(.*\)))?$")
# Class and module fixtures: reported like tests, but not among the tests "Ran N" counts.
_FIXTURES = ("setUpClass", "tearDownClass", "setUpModule", "tearDownModule")
_VERBOSE_TAIL = lazy_pattern(r"^.*\.\.\. (ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$")
_RAN = lazy_pattern(r"^Ran (\d+) tests? in [\d.]+s$")
_VERDICT = lazy_pattern(r"^(FAILED|OK)(?: \((.*)\))?$")
_FRAME = lazy_pattern(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.*))?$')
_EXC = lazy_pattern(r"^(?P<type>[A-Za-z_][\w.]*)(?::(?: (?P<msg>.*))?)?$")
_CHAIN = ("During handling of the above exception", "The above exception was the direct cause")
_DIFFER = lazy_pattern(r"^(?:Lists|Tuples|Sets|Sequences|Dicts) differ: ")
_PLACES = lazy_pattern(r" within (?:\d+ places|[\d.e+-]+ delta) \(.*difference\)$")
MAX_LINES = 400


def assert_equal_values(message: str) -> tuple[str, str]:
    """(expected, actual) from an ``assertEqual``-family message; ("", "") when it is none."""
    text = _DIFFER.sub("", message.split("\n", 1)[0])
    text = _PLACES.sub("", text)
    first, sep, second = text.partition(" != ")
    if not sep or not first or not second:
        return "", ""
    return second, first


class _Trace:
    """One traceback being read: its frames, exception and extra message lines."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, int]] = []
        self.exc_type = ""
        self.message = ""
        self.lines: list[str] = []

    def add(self, line: str) -> None:
        if len(self.lines) < MAX_LINES:
            self.lines.append(line)
        m = _FRAME.match(line)
        if m:
            self.frames.append((m.group("file"), int(m.group("line"))))
            return
        if line.startswith(_CHAIN):
            self.exc_type, self.message = "", ""  # the next traceback says what finally failed
            return
        if not line or line[0] == " ":
            if self.exc_type and line.strip() and len(self.message) < 4000:
                self.message += "\n" + line
            return
        if self.exc_type:
            if len(self.message) < 4000:
                self.message += "\n" + line
            return
        m = _EXC.match(line)
        if m and not line.startswith("Traceback "):
            self.exc_type, self.message = m.group("type"), (m.group("msg") or "")


class PyTracebackParser(LineParser):
    name = "python"
    priority = 32

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.mode = ""  # "" | "rule" (after =====) | "section" | "trace" | "syntax" | "after"
        self.section: tuple[str, str, str, str] | None = None  # (kind, name, dotted id, subtest params)
        self.failed_tests: set[tuple[str, str]] = set()  # (suite, method) of this run's sections
        self.trace: _Trace | None = None
        self.unittest = False  # inside a unittest run (a section or verbose line seen)
        self.recorded: dict[str, int] = {}
        self.verbose_line = ""

    # --------------------------------------------------------------- feed
    def feed(self, line: str) -> bool:
        mode = self.mode
        if mode == "section" or mode == "trace":
            return self._in_trace(line)
        if mode == "syntax":
            return self._in_syntax(line)
        if mode == "after":
            if not line:
                return True
            if line.startswith(_CHAIN) and self.trace is not None:
                self.trace.add(line)
                self.mode = "trace"
                return True
            self._record()
            self.mode = ""
        if mode == "rule":
            m = _HEADER.match(line)
            self.mode = ""
            if m:
                self.section = (m.group(1), m.group(2), m.group(3), m.group(4) or "")
                self.trace = _Trace()
                self.mode = "section"
                self.unittest = True
                return True
            return False
        if line == _RULE_EQ:
            self.mode = "rule"
            return True
        if line.startswith("Traceback (most recent call last):") and line == "Traceback (most recent call last):":
            self.trace = _Trace()
            self.mode = "trace"
            self.section = None
            return True
        if line.startswith('  File "') and _FRAME.match(line) and ", in " not in line:
            # A SyntaxError of the script itself: Python prints no "Traceback" header.
            self.trace = _Trace()
            self.trace.add(line)
            self.mode = "syntax"
            self.section = None
            return True
        if line.startswith("Ran ") and _RAN.match(line):
            self.ran = int(line.split()[1])
            self.unittest = True
            return True
        if self.unittest:
            m = _VERDICT.match(line)
            if m:
                self._count(m.group(2) or "")
                self.unittest = False
                return True
            if line == _RULE_DASH or " ... " in line and _VERBOSE_TAIL.match(line):
                return True
        if " (" in line and line.endswith(("... ok", "... FAIL", "... ERROR")) or (
                " ... skipped" in line or line.endswith(("... expected failure", "... unexpected success"))):
            if _VERBOSE_TAIL.match(line):
                self.unittest = True
                return True
        return False

    def flush(self) -> None:
        if self.mode in ("section", "trace", "syntax", "after") and self.trace is not None:
            self._record()
        self.mode = ""
        self.trace = None

    # --------------------------------------------------------------- kinds
    def _in_trace(self, line: str) -> bool:
        trace = self.trace
        assert trace is not None
        if self.mode == "section":
            if line == _RULE_EQ or line == _RULE_DASH:
                if trace.frames or trace.exc_type:
                    self._record()
                    self.mode = "rule" if line == _RULE_EQ else ""
                    self.unittest = True
                # else: the dashes under the section header
                return True
            trace.add(line)
            return True
        # a plain traceback: it ends at the first blank line after its exception line
        if trace.exc_type and not line:
            self.mode = "after"  # a chained traceback may follow
            return True
        if trace.exc_type and line[:1] not in (" ", "\t") and not line.startswith(_CHAIN) \
                and not line.startswith("Traceback "):
            # a second column-0 line after the exception: part of its message only if it looks it
            if _EXC.match(line) is None:
                self._record()
                self.mode = ""
                return False
        trace.add(line)
        return True

    def _in_syntax(self, line: str) -> bool:
        trace = self.trace
        assert trace is not None
        if line.startswith("    ") or (line.startswith("  ") and not trace.exc_type):
            trace.add(line)
            return True
        if not trace.exc_type:
            m = _EXC.match(line)
            if m and m.group("type").endswith(("Error", "Warning")):
                trace.add(line)
                self._record()
                self.mode = ""
                return True
        self.mode = ""
        self.trace = None  # a stray "File" line, not a traceback
        return False

    # --------------------------------------------------------------- records
    def _record(self) -> None:
        trace, section = self.trace, self.section
        self.trace = None
        if trace is None or (not trace.frames and not trace.exc_type):
            return
        first = trace.frames[0] if trace.frames else ("", 0)
        last = trace.frames[-1] if trace.frames else ("", 0)
        message = f"{trace.exc_type}: {trace.message}" if trace.message else trace.exc_type
        if section is not None:
            kind, name, dotted, params = section
            suite = dotted[: -len(name) - 1] if dotted.endswith("." + name) else dotted
            if name not in _FIXTURES and len(self.failed_tests) < 65536:
                self.failed_tests.add((suite, name))  # a test with two failing subtests is one test
            if params:
                name = f"{name} {params}"  # one record per failing subtest
            expected = actual = ""
            if trace.exc_type == "AssertionError":
                expected, actual = assert_equal_values(trace.message)
            rec = TestFailureRecord(
                runner="unittest", test_suite=suite, test_name=name, node_id=f"{suite}.{name}",
                file_path=first[0], line=first[1], message=message[:4000], exception_type=trace.exc_type,
                expected_value=expected, actual_value=actual,
                outcome="failed",  # unittest ERROR: the test raised (an exception record), not setup
                raw="\n".join(trace.lines)[:16384],
            )
            if last[0] and last[0] != first[0]:
                rec.impl_file, rec.impl_line = last
            self.result.saw("unittest")
        else:
            rec = TestFailureRecord(
                runner="python", test_suite=first[0], test_name="", node_id=first[0],
                file_path=last[0], line=last[1], message=message[:4000], exception_type=trace.exc_type,
                raw="\n".join(trace.lines)[:16384],
            )
            self.result.fail_count += 1
        self.result.test_failures.append(rec)
        self.section = None

    def _count(self, text: str) -> None:
        said = {k.strip(): int(v) for k, v in (p.split("=", 1) for p in text.split(",") if "=" in p)}
        result = self.result
        failures, errors = said.get("failures", 0), said.get("errors", 0)
        skipped, xfail, xpass = said.get("skipped", 0), said.get("expected failures", 0), \
            said.get("unexpected successes", 0)
        ran = getattr(self, "ran", 0)
        result.fail_count += failures + xpass
        result.test_error_count += errors
        result.skip_count += skipped
        result.xfail_count += xfail
        # The tests that failed or errored, each once (subtests and class fixtures are counted
        # in failures/errors but are not tests of their own); without sections, the tallies.
        broken = len(self.failed_tests) if self.failed_tests else failures + errors
        result.pass_count += max(0, ran - broken - skipped - xfail - xpass)
        self.failed_tests.clear()
        self.ran = 0


LINE_PARSERS = [PyTracebackParser]
