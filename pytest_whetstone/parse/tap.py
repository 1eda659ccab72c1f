"""TAP 13/14 (Test Anything Protocol): prove/Test::More, ``node --test``, npm ``tap``.

``not ok N - desc`` is a failure unless marked ``# TODO``; a ``# SKIP`` test counts as skipped and a
``# TODO`` one (failing or not) as neither passed nor skipped, as node's own ``# skipped`` / ``# todo``
tallies count them.  A YAML block (``  ---`` ... ``  ...``) after a failing test line adds
message/severity/found/wanted/expected/actual/at/location/stack/diff; after any other test line
(a todo test's error, a suite's ``'1 subtest failed'``) it is read and dropped.
Subtests are indented four spaces under ``# Subtest: name``; a failing parent
whose failure is only its failing children is not counted again.  Test::More's
diagnostics (``#   Failed test 'x'`` / ``#   at t/x.t line 8.`` / ``got:`` /
``expected:``) are merged into the ``not ok`` they describe, or stand alone when
prove printed them without the TAP (non-verbose prove).  ``Bail out!`` is an
infra record; a script that died mid-plan (``# Looks like your test exited
with 255 just after 2.``) is an exception record.  So is a JS test process that died of an
uncaught exception after its TAP began (tape has no handler for an error thrown outside an
assertion: node prints ``TypeError: ...`` and its stack, and no other TAP line follows); it is
named after the last ``# name`` comment (the tape test that was running), and its stack frames
point at the code that threw.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..lazy_pattern import lazy_pattern
from ..records import TestFailureRecord
from .base import LineParser, ParseContext, ParseResult
from .spec import _FRAME as _PLAIN_FRAME
from .spec import _frames as spec_frames
from .spec import _mocha_values as spec_values

RUNNER = "tap"
EXITED_EARLY = "(test script exited early)"
_DIED_AT = lazy_pattern(r" at (\S+) line (\d+)\.$")

_VERSION = lazy_pattern(r"^TAP version (1[34])\s*$")
_PLAN = lazy_pattern(r"^(\s*)1\.\.(\d+)(?:\s*#.*)?$")
_TEST = lazy_pattern(r"^(\s*)(not ok|ok)\b(?: (\d+))?(?: -)? ?(.*?)$")
_DIRECTIVE = lazy_pattern(r"(?:^|\s+)#\s*(SKIP|TODO)\b\S*\s*(.*)$", re.I)  # "ok 1 # skip why": no description
_SUBTEST = lazy_pattern(r"^(\s*)# Subtest: (.*)$")
_BAIL = lazy_pattern(r"^\s*Bail out!\s*(.*)$|^Bailout called\.\s+Further testing stopped:\s*(.*)$")
_DIAG_FAILED = lazy_pattern(r"^(\s*)#\s+Failed (?:\(TODO\) )?test (?:'(.*)'|in (.*))\s*$")
_DIAG_AT = lazy_pattern(r"^\s*#\s+at (.+?) line (\d+)\.\s*$")
# a C or shell producer's location line under its failing test (a TAP comment, or a JUnit failure's text):
# "t.c:11: error: Failure!" (cmocka), "(in test file t/x.bats, line 10)" (bats)
_PRODUCER_AT = lazy_pattern(r"^\s*(?:#\s+)?(?:([^\s:]+\.\w+):(\d+):(?:\d+:)? |\(in test file (.+), line (\d+)\)$)",
                            re.M)


def producer_location(text: str) -> tuple[str, int, bool] | None:
    """The first location line of ``text``: (file, line, whether it names the test file itself)."""
    m = _PRODUCER_AT.search(text)
    if m is None:
        return None
    return (m.group(1), int(m.group(2)), False) if m.group(1) else (m.group(3), int(m.group(4)), True)
_DIAG_EXITED = lazy_pattern(r"^\s*# Looks like your test exited with (\d+) (?:just after (\d+)|before it could output anything)\.")
_PROVE_FILE = lazy_pattern(r"^(\S+\.t) \.+ ?(?:ok|skipped.*|\d+/\d+ ?)?\s*$")
_PROVE_NOISE = lazy_pattern(
    r"^(?:Dubious, test returned|Failed \d+/\d+ subtests|Test Summary Report|-{5,}$|Files=\d+|Result: "
    r"|  (?:Failed tests?|Non-zero exit status|Parse errors|TODO passed):|\S+\.t\s+\(Wstat:|FAILED--|All tests successful)"
)
# How a line an inactive TAP parser can claim starts (after its indentation); _PROVE_FILE
# lines hold ".t ." instead.
_YAML_KEY = lazy_pattern(r"([\w.-]+):\s*(.*)$")
_IDLE_STARTS = ("TAP version", "Bail", "ok", "not ok", "1..", "#", "---")
# node's report of an uncaught exception, at column 0 (``TypeError: x is not a function``)
_CRASH = lazy_pattern(r"^(?:Uncaught )?([A-Z]\w*(?:Error|Exception)|Error)(?: \[[\w.]+\])?: (.*)$")
_JS_AT = lazy_pattern(r"^\s+at (?:.*? \()?(?:file://)?(/[^()\s]+?|[^()\s/][^()\s]*?\.[cm]?[jt]sx?):(\d+):\d+\)?$")
_TESTISH = lazy_pattern(r"(?:^|/)(?:tests?|spec|__tests__)/|[._-](?:test|spec)\.[cm]?[jt]sx?$")
_SUMMARY = lazy_pattern(r"^(?:tests|pass|fail|skip|todo|ok|cancelled|duration_ms|suites)\b", re.I)
_STACK_FRAME = lazy_pattern(r"\(?((?:/|\.{0,2}/?)[^\s():]+\.[cm]?[jt]sx?|[^\s():]+\.t):(\d+)(?::\d+)?\)?\s*$")


@dataclass
class _Pending:
    record: TestFailureRecord
    indent: int
    from_diag: bool = False
    claimed: bool = False  # a "not ok" line owns it


def parse_yaml_block(lines: list[str]) -> dict[str, str]:
    """The small YAML subset TAP producers write: scalars, block scalars, nested maps as text."""
    out: dict[str, str] = {}
    # Each line's indentation, once (-1: blank, which belongs to whatever block it is in).
    indents = [len(x) - len(x.lstrip()) if x.strip() else -1 for x in lines]
    if not lines or max(indents) < 0:
        return out
    base = min(k for k in indents if k >= 0)
    i, n = 0, len(lines)
    while i < n:
        m = _YAML_KEY.match(lines[i].strip()) if indents[i] == base else None
        if m is None:
            i += 1
            continue
        key, value = m.group(1), m.group(2)
        j = i + 1
        while j < n and (indents[j] < 0 or indents[j] > base):
            j += 1
        nested = lines[i + 1 : j]
        if value in ("", "|", "|-", "|+", ">", ">-") and nested:
            pad = min((k for k in indents[i + 1 : j] if k >= 0), default=0)
            value = "\n".join(x[pad:] for x in nested).strip("\n")
        out[key] = _unquote(value)
        i = j
    return out


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"')
    return value


_PLAIN_EXC = lazy_pattern(r"^\s+([A-Z]\w*(?:Error|Exception)|Error)(?: \[[\w.]+\])?: ")
_PLAIN_TIMEOUT = lazy_pattern(r"Timeout of \d+ms exceeded\..*\(([^()]+\.[cm]?[jt]sx?)\)$")


def test_frame(stack: str) -> tuple[str, int] | None:
    """The outermost frame of a JS stack in a test directory (not node_modules): the test's own line,
    when the assertion was made in a helper it called (``test/_tape.js``)."""
    found = None
    for line in stack.split("\n"):
        f = _JS_AT.match(line) or _JS_AT.match("    " + line.strip())
        if f and "node_modules" not in f.group(1) and _TESTISH.search(f.group(1)):
            found = (f.group(1), int(f.group(2)))
    return found


class TapParser(LineParser):
    name = "tap"
    runner = True
    priority = 35

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.active = False
        self.suite = ""  # the prove file header
        self.subtests: list[tuple[int, str]] = []
        self.child_failed: dict[int, bool] = {}
        self.pending: list[_Pending] = []
        self.last: _Pending | None = None  # the record a YAML block or diagnostic belongs to
        self.yaml: list[str] | None = None
        self.yaml_indent = 0
        self.after_test = False  # the line before was a test line: a YAML block may follow it
        self.counted_pass = False  # that line was counted as a pass (its YAML may say it was a suite)
        self.diag: _Pending | None = None
        self.bailed = False
        self.dropped: set[str] = set()  # parents not recorded: their own diagnostics are ignored too
        self.last_file = ""  # the script Test::More last named ("at t/x.t line 8.")
        self.last_plain = ""  # the last line that is not TAP (a script's die message on stderr)
        self.died: _Pending | None = None  # the last "(test script exited early)" record
        self.died_suite = ""  # the suite it was given
        self.header = ""  # the last ``# name`` comment: tape's name of the test that runs
        self.crash: TestFailureRecord | None = None  # an uncaught exception no TAP line followed (yet)

    # ----------------------------------------------------------------- feed
    def feed(self, line: str) -> bool:
        if self.yaml is not None:
            if line.strip() == "..." and len(line) - len(line.lstrip()) == self.yaml_indent:
                self._apply_yaml()
                return True
            if line.strip() and len(line) - len(line.lstrip()) < self.yaml_indent:
                self._apply_yaml()  # a block cut short: keep what it had
            else:
                if len(self.yaml) < 400:
                    self.yaml.append(line)
                return True
        if line.lstrip().startswith(_IDLE_STARTS) or ".t ." in line:
            # Every pattern here needs one of these (tested in C first: most lines of a big
            # log are output or YAML, not TAP's own lines).
            if _VERSION.match(line):
                self.active = True
                return True
            m = _BAIL.match(line)
            if m and (self.active or line.startswith(("Bail out!", "Bailout called"))):
                self._bail((m.group(1) or m.group(2) or "").strip())
                return True
            m = _TEST.match(line)
            if m and (self.active or m.group(3) is not None):
                self.active = True
                self.crash = None  # the TAP went on: what looked like a crash was output
                self._test(len(m.group(1)), m.group(2) == "not ok", m.group(3), m.group(4))
                return True
            if _PLAN.match(line):
                self.active = True
                self.crash = None
                return True
            m = _SUBTEST.match(line)
            if m:
                self.active = True
                indent = len(m.group(1))
                while self.subtests and self.subtests[-1][0] >= indent:
                    self.subtests.pop()
                self.subtests.append((indent, m.group(2).strip()))
                self.child_failed[indent] = False
                return True
            m = _PROVE_FILE.match(line)
            if m:
                self.active = True
                self.suite = m.group(1)
                return True
        elif not self.active:
            self.last_plain = line  # a script may die before its first TAP line (stripped when used)
            return False
        stripped = line.strip()
        if stripped == "---" and (self.after_test or self.last is not None and not self.last.from_diag):
            self.yaml = []  # applied to self.last when that is the test's failure, else dropped
            self.yaml_indent = len(line) - len(line.lstrip())
            self.after_test = False
            return True
        self.after_test = False
        if stripped.startswith("#"):
            return self._diagnostic(line)
        if not self.active:
            return False
        if self._crashed(line, stripped):
            return True
        if stripped and line[0] == " " and self.last is not None and not self.last.from_diag:
            self._plain_diag(self.last.record, line)  # mocha's TAP: the error as indented text
            return True
        if _PROVE_NOISE.match(line):
            if stripped.startswith("Dubious, test returned"):
                self._dubious(stripped)
            return True
        if stripped:
            self.last_plain = stripped[:500]  # not ours; remembered in case the script then dies
        return not stripped

    def _crashed(self, line: str, stripped: str) -> bool:
        """An uncaught exception's line and its stack frames (kept only if no TAP line follows)."""
        m = _CRASH.match(line)
        if m:
            self.crash = TestFailureRecord(runner=RUNNER, test_suite=self.suite, test_name=self.header or EXITED_EARLY,
                                           message=stripped[:4000], exception_type=m.group(1), raw=stripped[:4000])
            return True
        if self.crash is None or not stripped.startswith("at "):
            return False
        record = self.crash
        if len(record.raw) < 8000:
            record.raw += "\n" + line
        f = _JS_AT.match(line)
        if f and "node_modules" not in f.group(1) and not f.group(1).startswith("node:"):
            if not record.impl_file and not _TESTISH.search(f.group(1)):
                record.impl_file, record.impl_line = f.group(1), int(f.group(2))
            if _TESTISH.search(f.group(1)):  # the outermost one is the test's own (inner ones: its helpers)
                record.file_path, record.line = f.group(1), int(f.group(2))
        return True

    def _path(self, indent: int) -> list[str]:
        return [name for i, name in self.subtests if i < indent]

    def _test(self, indent: int, failed: bool, number: str | None, rest: str) -> None:
        self.diag = None
        directive = _DIRECTIVE.search(rest)
        desc = rest[: directive.start()] if directive else rest
        desc = re.sub(r"\s+#\s*time=[\d.]+m?s\s*$", "", desc).strip() or f"test {number or '?'}"
        while self.subtests and self.subtests[-1][0] >= indent:
            self.subtests.pop()
        parent_of_failures = self.child_failed.pop(indent, False)
        self.last = None
        self.after_test = True
        self.counted_pass = False
        if directive:
            self.result.skip_count += directive.group(1).upper() == "SKIP"
            return
        if not failed:
            self.result.pass_count += 1
            self.counted_pass = True
            return
        name = " > ".join([*self._path(indent), desc])
        if parent_of_failures:
            self.dropped.add(desc)
            # its children already carry the failure; drop any diagnostic record made for it
            self.pending = [p for p in self.pending if not (p.from_diag and not p.claimed and p.record.test_name == name)]
            return
        existing = next(
            (p for p in self.pending if p.from_diag and not p.claimed and p.record.test_name == desc), None
        )
        if existing is not None:
            existing.claimed = True
            existing.record.test_name = name
            existing.record.test_suite = existing.record.test_suite or self.suite
            self.last = existing
        else:
            record = TestFailureRecord(
                runner=RUNNER, test_suite=self.suite, test_name=name, message=desc, raw=f"not ok - {desc}"
            )
            self.last = _Pending(record, indent, claimed=True)
            self.pending.append(self.last)
        self.last.record.node_id = f"{self.last.record.test_suite}::{name}" if self.suite else name
        for i in list(self.child_failed):
            if i < indent:
                self.child_failed[i] = True

    def _diagnostic(self, line: str) -> bool:
        m = _DIAG_FAILED.match(line)
        if m:
            self.active = True
            name = (m.group(2) or m.group(3) or "").strip()
            todo = "(TODO)" in line
            if todo:
                self.diag = None
                return True
            last = self.last
            if name in self.dropped:
                self.diag = _Pending(TestFailureRecord(), 0)  # collects the lines, never emitted
                return True
            if last is not None and last.record.test_name.endswith(name) and not last.from_diag:
                self.diag = last
            else:
                record = TestFailureRecord(
                    runner=RUNNER, test_suite="", test_name=name, message=name, raw=f"Failed test '{name}'"
                )
                self.diag = _Pending(record, len(line) - len(line.lstrip()), from_diag=True)
                self.pending.append(self.diag)
            return True
        m = _DIAG_EXITED.match(line)
        if m:
            self._died(m.group(1), m.group(2) or "0")
            return True
        m = _DIAG_AT.match(line)
        if m:
            self.last_file = m.group(1)
        if self.diag is not None:
            self._diag_line(self.diag.record, line)
            return True
        last = self.last
        where = producer_location(line) if line.lstrip().startswith("#") else None
        if where and last is not None and not last.from_diag and not last.record.file_path:
            file_path, last.record.line, test_file = where
            last.record.file_path = file_path
            if test_file and not last.record.test_suite:  # bats names the test file: the script, as prove's
                last.record.test_suite = file_path
                last.record.node_id = f"{file_path}::{last.record.test_name}"
            last.record.raw = (last.record.raw + "\n" + line.strip())[:4000]
            return True
        if line.startswith("# ") and not _SUMMARY.match(line[2:]) and not _SUBTEST.match(line):
            self.header = line[2:].strip()
        return self.active

    @staticmethod
    def _diag_line(record: TestFailureRecord, line: str) -> None:
        m = _DIAG_AT.match(line)
        if m:
            record.file_path, record.line = m.group(1), int(m.group(2))
            record.test_suite = record.test_suite or m.group(1)  # Test::More names the script
            return
        body = re.sub(r"^\s*#\s?", "", line)
        record.raw = (record.raw + "\n" + body).strip()[:4000]
        m = re.match(r"^\s*got: (.*)$", body)
        if m:
            record.actual_value = _unquote(m.group(1))
        m = re.match(r"^\s*expected: (.*)$", body)
        if m:
            record.expected_value = _unquote(m.group(1))
        m = re.match(r"^\s*\$got->(.*?) = (.*)$", body)
        if m:
            record.actual_value = _unquote(m.group(2))
        m = re.match(r"^\s*\$expected->(.*?) = (.*)$", body)
        if m:
            record.expected_value = _unquote(m.group(2))

    @staticmethod
    def _plain_diag(record: TestFailureRecord, line: str) -> None:
        """One indented line of a failure's error (mocha ``--reporter tap``): message,
        exception type, stack frames, a timeout and node's assertion values."""
        first = record.raw.startswith("not ok")
        record.raw = (record.raw + "\n" + line)[:16384]
        lines = record.raw.split("\n")[1:]
        if len(lines) > 400:
            return
        m = _PLAIN_EXC.match(line)
        if m and not record.exception_type:
            record.exception_type = m.group(1)
        if first and record.message == record.test_name:
            record.message = line.strip()[:4000]
        if "Timeout of " in line:
            t = _PLAIN_TIMEOUT.search(line)
            record.outcome = "timeout"
            if t and not record.file_path:
                record.file_path = t.group(1)
        frames = spec_frames(lines)
        if frames:
            frame_lines = [b for b in lines if _PLAIN_FRAME.match(b) and "node:" not in b]
            own = next((f for f, b in zip(frames, frame_lines, strict=False) if "Context.<anonymous>" in b), None)
            record.file_path, record.line = own or frames[0]
            if own and frames[0] != own:
                record.impl_file, record.impl_line = frames[0]
        record.expected_value, record.actual_value = spec_values(lines)

    def _apply_yaml(self) -> None:
        lines, self.yaml = self.yaml or [], None
        if self.last is None:
            if self.counted_pass and any(line.strip() == "type: 'suite'" for line in lines):
                self.result.pass_count -= 1  # node's passing describe(): a suite, not one of its "# tests"
            self.counted_pass = False
            return
        data = parse_yaml_block(lines)
        record = self.last.record
        record.raw = "\n".join(lines)[:4000]
        message = data.get("message") or data.get("error") or ""
        if message:
            record.message = message
        record.expected_value = data.get("expected") or data.get("wanted") or record.expected_value
        record.actual_value = data.get("actual") or data.get("found") or record.actual_value
        if not (record.expected_value or record.actual_value) and "diff" in data:
            minus = [x[1:] for x in data["diff"].split("\n") if x.startswith("-") and not x.startswith("---")]
            plus = [x[1:] for x in data["diff"].split("\n") if x.startswith("+") and not x.startswith("+++")]
            record.expected_value, record.actual_value = "\n".join(minus).strip(), "\n".join(plus).strip()
        record.exception_type = data.get("name", "") if data.get("name", "").endswith(("Error", "Exception")) else ""
        if data.get("failureType") == "testTimeoutFailure":
            record.outcome = "timeout"
        self._location(record, data)

    @staticmethod
    def _location(record: TestFailureRecord, data: dict[str, str]) -> None:
        at = data.get("at", "")
        if at:
            nested = parse_yaml_block(at.split("\n")) if "\n" in at or ":" in at.split(" ")[0] else {}
            file_path = nested.get("fileName") or nested.get("file") or ""
            line = nested.get("lineNumber") or nested.get("line") or ""
            m = _STACK_FRAME.search(at) if not file_path else None
            if m:
                file_path, line = m.group(1), m.group(2)
            own = test_frame(data.get("stack", ""))
            if own and file_path and own[0] != file_path:  # the assertion was made in a helper the test called
                file_path, line = own[0], str(own[1])
            if "/node_modules/" in file_path:
                file_path = ""  # the framework's own line (tape's "plan != count"): no place in the user's code
            if file_path:
                record.file_path, record.line = file_path, int(line) if str(line).isdigit() else 0
                if not record.test_suite:  # tape: the file tells apart the same description in two files
                    record.node_id = f"{file_path}::{record.test_name}"
                return
        location = data.get("location", "")
        m = _STACK_FRAME.search(location)
        if m:
            record.file_path, record.line = m.group(1), int(m.group(2))
            # node: the stack's first frame in the test's own file is the failing line
            for frame in data.get("stack", "").split("\n"):
                f = _STACK_FRAME.search(frame.strip())
                if f and f.group(1) == record.file_path:
                    record.line = int(f.group(2))
                    break

    def _bail(self, reason: str) -> None:
        if self.bailed:
            return
        self.bailed = True
        record = TestFailureRecord(
            runner=RUNNER,
            test_suite=self.suite,
            test_name="Bail out!",
            node_id=f"{self.suite}::Bail out!",
            message=f"Bail out! {reason}".strip(),
            outcome="error",
            raw=f"Bail out! {reason}",
        )
        self.pending.append(_Pending(record, 0, claimed=True))
        self.active = True

    def _died(self, status: str, after: str) -> None:
        raw = self.diag.record.raw if self.diag else ""
        suite = self.last_file or self.suite
        said = f"test script exited with status {status} after test {after}"
        plain = self.last_plain.strip()[:500]
        if plain:
            said += f": {plain}"  # what the script printed as it died
        record = TestFailureRecord(
            runner=RUNNER,
            test_suite=suite,
            test_name=EXITED_EARLY,
            node_id=f"{suite}::{EXITED_EARLY}",
            file_path=suite,
            message=said,
            exception_type="exit",
            raw="\n".join(x for x in (raw, plain) if x),
        )
        where = _DIED_AT.search(plain)
        if where:
            record.file_path, record.line = where.group(1), int(where.group(2))
            if where.group(1).endswith(".t"):  # it died in a script's own line: that script (its stderr
                record.test_suite = where.group(1)  # comes before prove names it; Test::More's last
                record.node_id = f"{where.group(1)}::{EXITED_EARLY}"  # "at t/x.t" may be the one before)
        self.last_plain = ""
        if self.bailed:
            return
        self.died = _Pending(record, 0, claimed=True)
        self.died_suite = self.suite
        self.pending.append(self.died)
        self.diag = None

    def _dubious(self, line: str) -> None:
        """prove's "Dubious, test returned 255" names the script just announced: the script
        that died is that one (its stderr came before prove's header line), and a script that
        died without a word still fails."""
        died = self.died
        if self.bailed:
            return  # "Bail out!" already reported why the script stopped
        if died is not None and not self.last_file and died.record.test_suite != self.suite:
            if self.died_suite != self.suite:
                died.record.test_suite = died.record.file_path = self.suite
                died.record.node_id = f"{self.suite}::{EXITED_EARLY}"
            self.died = None
            return
        if died is not None and died.record.test_suite in (self.suite, self.last_file):
            self.died = None
            return
        if not any(p.record.test_suite == self.suite for p in self.pending):
            record = TestFailureRecord(runner=RUNNER, test_suite=self.suite, test_name=EXITED_EARLY,
                                       node_id=f"{self.suite}::{EXITED_EARLY}", file_path=self.suite,
                                       message=line, exception_type="exit", raw=line)
            where = _DIED_AT.search(self.last_plain)
            if where and where.group(1) == self.suite:  # "BEGIN failed--compilation aborted at t/x.t line 2."
                record.line, record.message = int(where.group(2)), f"{line}: {self.last_plain}"
                record.raw = f"{self.last_plain}\n{line}"
            self.pending.append(_Pending(record, 0, claimed=True))
        self.died = None

    def flush(self) -> None:
        if self.yaml is not None:
            self._apply_yaml()
        if self.crash is not None and not self.bailed:
            crash, self.crash = self.crash, None
            crash.node_id = f"{crash.test_suite}::{crash.test_name}" if crash.test_suite else crash.test_name
            self.pending.append(_Pending(crash, 0, claimed=True))
        for p in self.pending:
            record = p.record
            if not record.node_id:
                record.node_id = f"{record.test_suite}::{record.test_name}" if record.test_suite else record.test_name
            self.result.test_failures.append(record)
            self.result.fail_count += 1
        self.pending = []
        self.last = self.diag = None


LINE_PARSERS = [TapParser]
