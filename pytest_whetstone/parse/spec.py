"""Spec reporters: ``node --test --test-reporter=spec``, mocha's default ``spec``, vitest.

node (runner ``node``): ``▶ suite`` opens a describe block, ``✔ name (1ms)`` passes,
``✖ name (1ms)`` fails with the error indented under it (message, stack, and the
``{ actual: ..., expected: ..., operator }`` properties), ``﹣ name # SKIP``;
a suite or a parent test that fails only because a child failed is not recorded
again.  After ``ℹ tests N`` ... the ``✖ failing tests:`` section names each
failure's file (``test at file.js:9:5``): that is the record's suite.

mocha (runner ``mocha``): the listing is followed by ``N passing (6ms)``,
``N pending``, ``N failing`` and one block per failure: ``  1) suite`` /
``       test:`` (the path over several lines), the error, mocha's ``+ expected -
actual`` diff and the stack.  A ``Timeout of 20ms exceeded`` error names the
test file in parentheses.

vitest (runner ``vitest``): after ``Failed Tests N`` one block per failure,
`` FAIL  file > suite > test``, the error (``expected X to be Y``), an
``Expected:``/``Received:`` pair or a ``- Expected / + Received`` diff, and
`` ❯ file:line:col`` frames; ``Failed Suites`` blocks (a file that did not load)
are one infra record each.  Counts from ``Tests  2 failed | 3 passed | 1 skipped``.

Everywhere: test name = the describe path and the test joined with `` > ``;
file/line = the first stack frame in the test file (a deeper frame elsewhere is
``impl_file``); expected/actual from what the runner printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..lazy_pattern import lazy_pattern
from ..records import TestFailureRecord
from .base import LineParser, ParseContext, ParseResult

SUITE_FAILED = "Test suite failed to run"
MAX_BODY = 300
_FRAME = lazy_pattern(r"^\s+at (?:.*? \()?(?P<file>(?:file://)?[^()\s]+?\.[cm]?[jt]sx?):(?P<line>\d+):(?P<col>\d+)\)?$")
_EXC_HEAD = lazy_pattern(r"^\s*(?P<type>[A-Z]\w*(?:Error|Exception)|Error)(?: \[[\w.]+\])?: ?(?P<msg>.*)$")
_NOT_EQUAL = lazy_pattern(r"^\s*(?P<a>.+?) !== (?P<b>.+?)\s*$")
_EXPECT_TO = lazy_pattern(
    r"^(?:\w*Error: )?expected (?P<a>.+?) to (?:be|equal|deeply equal|strictly equal|be deeply equal)"
    r" (?P<b>.+?)(?: // Object\.is equality)?$")


def _exc_type(body: list[str]) -> str:
    for line in body:
        m = _EXC_HEAD.match(line)
        if m:
            return m.group("type")
    return ""


def _frames(body: list[str]) -> list[tuple[str, int]]:
    out = []
    for line in body:
        m = _FRAME.match(line)
        if m and not m.group("file").startswith("node:") and "/node_modules/" not in m.group("file"):
            out.append((m.group("file").removeprefix("file://"), int(m.group("line"))))
    return out


def _locate(rec: TestFailureRecord, frames: list[tuple[str, int]], test_file: str) -> None:
    """File/line: the first frame in the test file; an earlier frame elsewhere is the impl."""
    if not frames:
        return
    own = [f for f in frames if test_file and (f[0] == test_file or f[0].endswith("/" + test_file))]
    first = own[0] if own else frames[0]
    rec.file_path, rec.line = first
    if frames[0][0] != first[0]:
        rec.impl_file, rec.impl_line = frames[0]


def _prop(body: list[str], name: str) -> str:
    """``actual: 604800000,`` from node's error properties (one-line values only)."""
    prefix = f"{name}: "
    for line in body:
        s = line.strip()
        if s.startswith(prefix):
            value = s[len(prefix):]
            return value[:-1] if value.endswith(",") else value
    return ""


def _not_equal(body: list[str]) -> tuple[str, str]:
    for line in body:
        m = _NOT_EQUAL.match(line)
        if m:
            return m.group("b"), m.group("a")
    return "", ""


def _record(runner: str, suite: str, name: str, body: list[str], test_file: str) -> TestFailureRecord:
    message = next((b.strip() for b in body if b.strip()), "")
    rec = TestFailureRecord(runner=runner, test_suite=suite, test_name=name, node_id=f"{suite}::{name}",
                            message=message[:4000], exception_type=_exc_type(body),
                            raw="\n".join(body)[:16384])
    _locate(rec, _frames(body), test_file)
    return rec


# --------------------------------------------------------------------------- node


@dataclass
class _NodeTest:
    path: list[str]
    name: str
    indent: int
    duration: str
    body: list[str] = field(default_factory=list)


_NODE_LINE = lazy_pattern(r"^(?P<ind> *)(?P<mark>[▶✔✖﹣]) (?P<name>.+?)(?: \((?P<ms>[\d.]+m?s)\))?(?: # (?:SKIP|TODO).*)?$")
_NODE_INFO = lazy_pattern(r"^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$")
_NODE_AT = lazy_pattern(r"^test at (?P<file>.+?):(?P<line>\d+):(?P<col>\d+)$")


class NodeSpecParser(LineParser):
    name = "node"
    runner = True
    priority = 36

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.stack: list[tuple[int, str]] = []  # open ▶ suites: (indent, name)
        self.open: _NodeTest | None = None  # the failing test whose error is being read
        self.failed: list[_NodeTest] = []
        self.children_failed: set[tuple[str, ...]] = set()
        self.in_summary = False  # after "✖ failing tests:"
        self.at_file = ""
        self.files: dict[tuple[str, str], str] = {}  # (name, duration) -> test file
        self.lines: dict[tuple[str, str], int] = {}  # (name, duration) -> the test's line there
        self.at_line = 0
        self.active = False
        self.told_fail: int | None = None  # "ℹ fail 5"
        self.told_counts = False  # an "ℹ pass N" line was read (else ✔ / ﹣ lines are counted)
        self.seen_pass = self.seen_skip = 0

    def feed(self, line: str) -> bool:
        c0 = line[:1]
        if c0 == "ℹ":
            m = _NODE_INFO.match(line)
            if m:
                self._info(m.group(1), m.group(2))
                return True
        if self.in_summary:
            m = _NODE_AT.match(line)
            if m:
                self.at_file, self.at_line = m.group("file"), int(m.group("line"))
                return True
            m = _NODE_LINE.match(line)
            if m and m.group("mark") == "✖" and self.at_file:
                self.files[(m.group("name"), m.group("ms") or "")] = self.at_file
                self.lines[(m.group("name"), m.group("ms") or "")] = self.at_line
                self.at_file = ""
                return True
            if line.startswith(" ") or not line:
                return True
            self._finish()
            return False
        if line == "✖ failing tests:":
            self.open = None
            self.in_summary = True
            return True
        m = _NODE_LINE.match(line) if c0 in " ▶✔✖﹣" else None
        if m and (c0 != " " or self.active):
            return self._test_line(m)
        if self.open is not None and (not line or line.startswith(" " * (self.open.indent + 2))):
            if len(self.open.body) < MAX_BODY:
                self.open.body.append(line)
            return True
        if self.active and not line:
            return True
        return False

    def flush(self) -> None:
        self._finish()

    def _test_line(self, m: re.Match[str]) -> bool:
        indent, mark, name = len(m.group("ind")), m.group("mark"), m.group("name")
        self.active = True
        self.open = None
        while self.stack and self.stack[-1][0] > indent:
            self.stack.pop()
        if mark == "▶":
            if self.stack and self.stack[-1][0] == indent and self.stack[-1][1] == name:
                self.stack.pop()  # "▶ suite (2ms)": the end of a passing suite
            else:
                if self.stack and self.stack[-1][0] >= indent:
                    self.stack.pop()
                if not m.group("ms"):
                    self.stack.append((indent, name))
            return True
        if mark == "✖" and self.stack and self.stack[-1] == (indent, name):
            self.stack.pop()  # the end of a suite whose child failed
            return True
        path = [s[1] for s in self.stack if s[0] < indent]
        if mark == "✖":
            test = _NodeTest(path, name, indent, m.group("ms") or "")
            self.open = test  # its error lines follow
            if "# TODO" in m.group(0):
                return True  # a todo test that failed, as todo tests may: not a failure
            self.failed.append(test)
            for depth in range(len(path)):
                self.children_failed.add(tuple(path[: depth + 1]))
        elif mark == "✔" and "# TODO" not in m.group(0):
            self.seen_pass += 1
        elif mark == "﹣":
            self.seen_skip += 1
        return True

    def _info(self, what: str, value: str) -> None:
        self.active = True
        counts = {"pass": "pass_count", "skipped": "skip_count"}
        if what == "pass":
            self.told_counts = True
        if what in counts:
            setattr(self.result, counts[what], getattr(self.result, counts[what]) + int(float(value)))
        elif what in ("fail", "cancelled"):  # a test cut off by its timeout is ✖ too, counted "cancelled"
            self.told_fail = (self.told_fail or 0) + int(value)

    def _finish(self) -> None:
        """Hand over the failures once their files are known (or the log ended)."""
        failed, self.failed = self.failed, []
        told = self.told_fail
        recorded = 0
        for test in failed:
            if tuple([*test.path, test.name]) in self.children_failed:
                continue  # failed only because a subtest did
            test_file = self.files.get((test.name, test.duration), "")
            rec = _record("node", test_file, " > ".join([*test.path, test.name]), test.body, test_file)
            if not rec.file_path and test_file:
                # no stack frame (a timeout, a rejected non-Error): where node says the test is,
                # spelled as the other failures' frames spell that file
                known = [r.file_path for r in self.result.test_failures if r.file_path.endswith("/" + test_file)]
                rec.file_path = known[-1] if known else self.ctx.resolve(test_file)
                rec.line = self.lines.get((test.name, test.duration), 0)
            rec.expected_value = _prop(test.body, "expected")
            rec.actual_value = _prop(test.body, "actual")
            if not (rec.expected_value or rec.actual_value):
                rec.expected_value, rec.actual_value = _not_equal(test.body)
            self.result.test_failures.append(rec)
            recorded += 1
        self.result.fail_count += told if told is not None else recorded
        if not self.told_counts:  # no "ℹ" summary (a cut log): what the listing showed
            self.result.pass_count += self.seen_pass
            self.result.skip_count += self.seen_skip
        self.told_fail = None
        self.told_counts = False
        self.seen_pass = self.seen_skip = 0
        self.children_failed.clear()
        self.files.clear()
        self.lines.clear()
        self.in_summary = False
        self.stack.clear()
        self.open = None
        self.active = False


# --------------------------------------------------------------------------- mocha

_MOCHA_COUNT = lazy_pattern(r"^  (\d+) (passing|pending|failing)(?: \(\d+m?s\))?$")
_MOCHA_HEAD = lazy_pattern(r"^  (\d+)\) (.+)$")
_MOCHA_TIMEOUT_FILE = lazy_pattern(r"Timeout of \d+ms exceeded\..*\((?P<file>[^()]+\.[cm]?[jt]sx?)\)$")


class MochaParser(LineParser):
    name = "mocha"
    runner = True
    priority = 37

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.active = False  # after "N passing" / "N failing"
        self.title: list[str] | None = None  # the failure's path while its header is read
        self.body: list[str] | None = None
        self.blank = 0

    def feed(self, line: str) -> bool:
        m = _MOCHA_COUNT.match(line) if line.startswith("  ") and line[2:3].isdigit() else None
        if m:
            self._close()
            self.active = True
            n, what = int(m.group(1)), m.group(2)
            if what == "passing":
                self.result.pass_count += n
            elif what == "pending":
                self.result.skip_count += n
            else:
                self.result.fail_count += n
            return True
        if not self.active:
            return False
        if self.title is not None and self.body is None:  # the header: "  4) slugify", "       collapse", "         runs:"
            self.title.append(line.strip())
            if line.endswith(":"):
                self.body = []
                return True
            if len(self.title) > 16 or not line.startswith("   "):
                self.title = None
                self.active = False
                return False
            return True
        m = _MOCHA_HEAD.match(line)
        if m:
            self._close()
            self.title = [m.group(2)]
            if line.endswith(":"):
                self.body = []
            return True
        if self.body is None:
            if not line:
                return True
            self.active = False
            return False
        if not line:
            self.blank += 1
            if self.blank >= 3:
                self._close()
                self.active = False
            elif len(self.body) < MAX_BODY:
                self.body.append(line)
            return True
        self.blank = 0
        if line[0] != " " and _frames(self.body) and not line.startswith(("+", "-")):
            self._close()
            self.active = False
            return False  # past the last block: someone else's output
        if len(self.body) < MAX_BODY:
            self.body.append(line)
        return True

    def flush(self) -> None:
        self._close()
        self.active = False

    def _close(self) -> None:
        title, body = self.title, self.body
        self.title = self.body = None
        self.blank = 0
        if not title or body is None:
            return
        parts = [t for t in title if t]
        parts[-1] = parts[-1].removesuffix(":")
        frames = _frames(body)
        own = next((f for f, line in zip(frames, [b for b in body if _FRAME.match(b)], strict=False)
                    if "Context.<anonymous>" in line), None)
        test_file = own[0] if own else ""
        if not test_file:
            timeout = next((_MOCHA_TIMEOUT_FILE.search(b) for b in body if "Timeout of" in b), None)
            test_file = timeout.group("file") if timeout else ""
        rec = _record("mocha", test_file, " > ".join(parts), body, test_file)
        if not rec.file_path and test_file:
            rec.file_path = test_file
        rec.expected_value, rec.actual_value = _mocha_values(body)
        self.result.test_failures.append(rec)


def _one_line_diff(body: list[str], header: str) -> tuple[str, str]:
    """The ``+`` and ``-`` values of a diff under ``header`` when each is one line and
    nothing else (no brackets around them): else ("", "")."""
    try:
        start = next(i for i, b in enumerate(body) if b.strip() == header)
    except StopIteration:
        return "", ""
    lines: list[str] = []
    for b in body[start + 1:]:
        s = b.strip()
        if _FRAME.match(b) or s in ("+ expected - actual", "+ actual - expected") or _EXC_HEAD.match(b):
            break
        if s and s != "^":
            lines.append(s)
    plus = [x[1:].strip() for x in lines if x.startswith("+")]
    minus = [x[1:].strip() for x in lines if x.startswith("-")]
    if len(plus) == 1 and len(minus) == 1 and len(lines) == 2:
        return plus[0], minus[0]
    return "", ""


def _mocha_values(body: list[str]) -> tuple[str, str]:
    """(expected, actual): node's assertion text first (``a !== b``, its ``+ actual -
    expected`` diff), then mocha's own ``+ expected - actual`` diff."""
    expected, actual = _not_equal(body)
    if expected or actual:
        return expected, actual
    actual, expected = _one_line_diff(body, "+ actual - expected")
    if expected or actual:
        return expected, actual
    return _one_line_diff(body, "+ expected - actual")


# --------------------------------------------------------------------------- vitest

_VT_BANNER = lazy_pattern(r"^⎯+ Failed (Tests|Suites) (\d+) ⎯+$")
_VT_HEAD = lazy_pattern(r"^ FAIL  (?P<file>\S+?)(?: > (?P<name>.+?))?(?: \[ .* \])?$")
_VT_LOC = lazy_pattern(r"^ ❯ (?:\S+ )?(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+)$")
_VT_TESTS = lazy_pattern(r"^\s+Tests  (.+?) \(\d+\)$")
_VT_COUNT = lazy_pattern(r"(\d+) (failed|passed|skipped|todo)")
_VT_SEPARATOR = lazy_pattern(r"^⎯+(?:\[\d+/\d+\]⎯)?$")


class VitestParser(LineParser):
    name = "vitest"
    runner = True
    priority = 38

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.kind = ""  # "Tests" | "Suites" after a banner
        self.head: re.Match[str] | None = None
        self.body: list[str] = []

    def feed(self, line: str) -> bool:
        c0 = line[:1]
        if c0 == "⎯":
            m = _VT_BANNER.match(line)
            if m:
                self._close()
                self.kind = m.group(1)
                return True
            if self.kind and _VT_SEPARATOR.match(line):
                self._close()
                return True
        if c0 == " " and line.startswith(" FAIL  ") and self.kind:
            self._close()
            self.head = _VT_HEAD.match(line)
            return True
        if c0 == " " and "Tests  " in line:
            m = _VT_TESTS.match(line)
            if m:
                self._close()
                self.kind = ""
                counts = {w: int(n) for n, w in _VT_COUNT.findall(m.group(1))}
                self.result.fail_count += counts.get("failed", 0)
                self.result.pass_count += counts.get("passed", 0)
                self.result.skip_count += counts.get("skipped", 0)
                return True
        if c0 == " " and line.lstrip().startswith(("Test Files  ", "Start at  ", "Duration  ")):
            self._close()
            self.kind = ""
            return True
        if self.head is not None:
            if len(self.body) < MAX_BODY:
                self.body.append(line)
            return True
        return bool(self.kind) and not line

    def flush(self) -> None:
        self._close()
        self.kind = ""

    def _close(self) -> None:
        head, body = self.head, self.body
        self.head, self.body = None, []
        if head is None:
            return
        test_file = head.group("file")
        if self.kind == "Suites" or not head.group("name"):
            rec = TestFailureRecord(runner="vitest", test_suite=test_file, test_name=SUITE_FAILED,
                                    node_id=f"{test_file}::{SUITE_FAILED}", file_path=test_file, outcome="error",
                                    message=next((b.strip() for b in body if b.strip()), "")[:4000],
                                    exception_type=_exc_type(body), raw="\n".join(body)[:16384])
            self.result.test_error_count += 1
            self.result.test_failures.append(rec)
            return
        rec = _record("vitest", test_file, head.group("name"), body, test_file)
        locs = [(m.group("file"), int(m.group("line"))) for m in map(_VT_LOC.match, body) if m]
        _locate(rec, locs, test_file)
        first = next((b for b in body if b.strip()), "")
        m = _EXPECT_TO.match(first.strip())
        if m:
            rec.expected_value, rec.actual_value = m.group("b"), m.group("a")
        else:
            exp = next((b[10:] for b in body if b.startswith("Expected: ")), "")
            act = next((b[10:] for b in body if b.startswith("Received: ")), "")
            rec.expected_value, rec.actual_value = exp, act
        self.result.test_failures.append(rec)


LINE_PARSERS = [NodeSpecParser, MochaParser, VitestParser]
