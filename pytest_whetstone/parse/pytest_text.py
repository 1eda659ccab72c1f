"""pytest's terminal output, for saved logs of runs Whetstone did not host.

(A run under ``pytest -p whetstone`` is captured natively by the plugin; this
reads the text of someone else's run.)  Three views of one failure are merged
into one record by node id: the ``-v`` line (``path::test FAILED``), the
``_____ test _____`` section of the FAILURES/ERRORS block (``E`` lines, the
``file.py:12: AssertionError`` location lines), and the short summary line
(``FAILED path::test - message``).  A log cut before the summary still yields
its sections; a ``--tb=no`` log yields the summary lines.  Counts come from the
final ``=== 1 failed, 2 passed in 0.1s ===`` line when the log has it.

Records are built when the session ends (its final line or the end of input),
so memory grows with the number of failures, never with the log.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..lazy_pattern import lazy_pattern
from ..records import TestFailureRecord
from .base import LineParser, ParseContext, ParseResult
from .pytraceback import assert_equal_values

RUNNER = "pytest"

_START = lazy_pattern(r"^=+ test session starts =+$")
_BLOCK = lazy_pattern(r"^=+ (FAILURES|ERRORS|PASSES|warnings summary|short test summary info|XFAILURES|XPASSES)\b.*=+$")
_FINAL = lazy_pattern(
    r"^(?:=+ )?((?:\d+ (?:subtests? )?(?:failed|passed|skipped|deselected|xfailed|xpassed|errors?|warnings?|rerun)"
    r"(?:, )?)+|no tests ran)(?: in [\d.]+s(?: \([^)]*\))?)(?: =+)?$"
)
_INTERRUPTED = lazy_pattern(r"^!+ .*(?:Interrupted|stopping after|KeyboardInterrupt).* !+$")
_SECTION = lazy_pattern(r"^_{3,} (.+?) _{3,}$")
_SUMMARY_LINE = lazy_pattern(r"^(FAILED|ERROR) (\S.*)$")  # node id and message: see summary_entry
# pytest 9's subtests: "SUBFAILED(i=1) test_x.py::T::test_sub - AssertionError: 1 != 0", whose
# section is titled "T.test_sub (i=1)".
_SUBFAILED = lazy_pattern(r"^SUBFAILED\(([^)]*)\) (\S+?)(?: - (.*))?$")
_VERBOSE = lazy_pattern(
    r"^(\S+?(?:::\S.*?)?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?: \(.*\))?\s+\[\s*\d+%\]$"
)
_XDIST_VERBOSE = lazy_pattern(r"^\[gw\d+\] \[\s*\d+%\] (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S.*?)\s*$")
_LOCATION = lazy_pattern(r"^(\S[^:]*?\.py):(\d+)(?::(?: (in \S.*|[A-Za-z_][\w.]*(?::.*)?)?)?\s*)?$")
# --tb=line: one "/abs/path.py:12: message" line per failure, no section headers.
_TB_LINE = lazy_pattern(r"^(/\S*?\.py):(\d+): (.+)$")
# --tb=native: Python's own frames ('  File "/abs/test_x.py", line 9, in test_x') and, after
# them, the exception line at column 0 instead of pytest's "E " lines.
_NATIVE_FRAME = lazy_pattern(r'^\s+File "([^"]+?\.py)", line (\d+)(?:, in .*)?$')
_NATIVE_EXC = lazy_pattern(
    r"^([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt|Failed|Iteration)|Failed)(?:: (.*))?$"
)
_EXC_LINE = lazy_pattern(
    r"^E\s+([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt|Failed|Iteration)|Failed)(?::\s*(.*))?$"
)
_ASSERT = lazy_pattern(r"^E\s+(?:AssertionError: )?assert (.+)$")
# Progress without -v: "tests/test_x.py FF.E.sx  [ 40%]" (a file's outcomes in run order; a long run of
# them goes on over lines of outcomes alone).  -q prints no file names.
_PROGRESS = lazy_pattern(r"^(\S+\.py) ([.FEsxXR]+)\s*(?:\[\s*\d+%\])?$")
_PROGRESS_MORE = lazy_pattern(r"^([.FEsxXR]+)\s*\[\s*\d+%\]$")
_COUNT = lazy_pattern(r"(\d+) (failed|passed|skipped|xfailed|xpassed|errors?|deselected)")
MAX_SECTION = 300


@dataclass
class _Section:
    title: str
    kind: str  # FAILURES | ERRORS
    body: list[str] = field(default_factory=list)


@dataclass
class _Entry:
    node_id: str
    status: str = "FAILED"
    message: str = ""
    section: _Section | None = None


def split_assert(expr: str) -> tuple[str, str] | None:
    """``43 == 42`` -> (expected ``42``, actual ``43``); splits at a top-level ``==``."""
    depth, quote, i = 0, "", 0
    while i < len(expr):
        ch = expr[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and expr.startswith(" == ", i):
            return expr[i + 4 :].strip(), expr[:i].strip()
        i += 1
    return None


def summary_entry(line: str) -> tuple[str, str, str] | None:
    """``FAILED t.py::test[a b] - msg`` -> (status, node id, message).  A parametrized id may hold spaces,
    brackets and " - " ("t.py::test[a b]", "t.py::test[[x]]"): once its "[" opens, it runs to the "]"
    that " - " or the line's end follows (a linear scan: the line may be 8 KB of brackets)."""
    m = _SUMMARY_LINE.match(line)
    if m is None:
        return None
    rest = m.group(2)
    node, sep, message = rest.partition(" - ")
    if "[" in node or not sep:
        bracket = rest.find("[")
        if bracket >= 0:
            close = rest.find("] - ", bracket)
            if close >= 0:
                node, message = rest[: close + 1], rest[close + 4 :]
            elif rest.endswith("]"):
                node, message = rest, ""
    return m.group(1), node, message


def title_of(node_id: str) -> str:
    """The section title pytest prints for a node id: ``Class.test`` without the file."""
    _, sep, rest = node_id.partition("::")
    name, bracket, params = rest.partition("[")  # a parameter's own "::" stays ("test[a::b]")
    return name.replace("::", ".") + bracket + params if sep else node_id


class PytestTextParser(LineParser):
    name = "pytest"
    runner = True
    priority = 30

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self._reset()

    def _reset(self) -> None:
        self.active = False
        self.block = ""
        self.entries: dict[str, _Entry] = {}
        self.sections: list[_Section] = []
        self.section: _Section | None = None
        self.tb_lines: list[tuple[str, int, str, list[str]]] = []
        self.e_lines: list[str] = []
        self.counts: dict[str, int] | None = None
        self.verbose_counts: dict[str, int] = {}
        self.progress: list[tuple[str, str]] = []  # (test file, its outcome letters), in run order

    # ----------------------------------------------------------------- feed
    def feed(self, line: str) -> bool:
        if line[:1] == "=" and _START.match(line):
            if self.active:
                self._finish()
            self.active = True
            return True
        if not self.active:
            if not self._opens(line):
                return False
            self.active = True
        return self._line(line)

    def _opens(self, line: str) -> bool:
        if line[:1] != "=" and not line.startswith(("FAILED ", "ERROR ", "[gw")) and "::" not in line:
            return False  # every pattern below needs one of these (tested in C first)
        if _BLOCK.match(line):
            return True
        entry = summary_entry(line)
        if entry and ".py" in entry[1]:
            return True
        m = _VERBOSE.match(line)
        return bool(m and "::" in m.group(1) and ".py" in m.group(1)) or bool(_XDIST_VERBOSE.match(line))

    def _line(self, line: str) -> bool:
        m = _BLOCK.match(line)
        if m:
            self._close_section()
            self.block = m.group(1)
            return True
        m = _FINAL.match(line)
        if m and (line.startswith("=") or self.block or self.entries):
            self.counts = self._counts(m.group(1))
            self._finish()
            return True
        if _INTERRUPTED.match(line):
            return True
        if self.block in ("FAILURES", "ERRORS"):
            m = _SECTION.match(line)
            if m:
                self._close_section()
                self.section = _Section(m.group(1), self.block)
                return True
            if self.section is not None and len(self.section.body) < MAX_SECTION:
                self.section.body.append(line)
            elif self.section is None and len(self.tb_lines) < 10000:
                m = _TB_LINE.match(line)
                if m:
                    self.tb_lines.append((m.group(1), int(m.group(2)), m.group(3), self.e_lines))
                    self.e_lines = []
                elif line.startswith("E ") and len(self.e_lines) < 50:
                    self.e_lines.append(line)
            return True
        said = summary_entry(line) if line.startswith(("FAILED ", "ERROR ")) else None
        if said and (self.block == "short test summary info" or ".py" in said[1]):
            entry = self._entry(said[1])
            entry.status = said[0]
            entry.message = entry.message or said[2]
            return True
        m = _SUBFAILED.match(line) if line.startswith("SUBFAILED(") else None
        if m:
            entry = self._entry(f"{m.group(2)} ({m.group(1)})")
            entry.status = "FAILED"
            entry.message = entry.message or (m.group(3) or "")
            return True
        m = _VERBOSE.match(line)
        if m and "::" in m.group(1):
            self._verbose(m.group(1), m.group(2))
            return True
        m = _XDIST_VERBOSE.match(line)
        if m:
            self._verbose(m.group(2), m.group(1))
            return True
        if not self.block and len(self.progress) < 100_000:
            m = _PROGRESS.match(line)
            if m:
                self.progress.append((m.group(1), m.group(2)))
            elif self.progress and (m := _PROGRESS_MORE.match(line)):
                self.progress.append((self.progress[-1][0], m.group(1)))
        return True  # inside a session every line is pytest's (headers, progress, captured output)

    def _verbose(self, node_id: str, status: str) -> None:
        self.verbose_counts[status] = self.verbose_counts.get(status, 0) + 1
        if status in ("FAILED", "ERROR"):
            self._entry(node_id).status = status

    def _entry(self, node_id: str) -> _Entry:
        entry = self.entries.get(node_id)
        if entry is None:
            entry = self.entries[node_id] = _Entry(node_id)
        return entry

    def _close_section(self) -> None:
        if self.section is not None:
            self.sections.append(self.section)
            self.section = None

    @staticmethod
    def _counts(text: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for num, word in _COUNT.findall(text):
            key = "errors" if word.startswith("error") else word
            out[key] = out.get(key, 0) + int(num)
        return out

    # ----------------------------------------------------------------- build
    def _finish(self) -> None:
        self._close_section()
        by_title: dict[str, _Entry] = {}
        for entry in self.entries.values():
            by_title.setdefault(title_of(entry.node_id), entry)
        orphans: list[_Section] = []
        for section in self.sections:
            found = self._match(section, by_title)
            if found is None:
                orphans.append(section)
            elif found.section is None:
                found.section = section
        records = [self._record(e.node_id, e.status, e.message, e.section) for e in self.entries.values()]
        self._attach_tb_lines(records)
        files = self._section_files()
        for section in orphans:
            node_id, status = self._orphan_id(section)
            titled = section.title not in files
            if not titled:
                node_id = f"{files[section.title]}::{node_id}"
            records.append(self._record(node_id, status, "", section, titled=titled))
        for record in records:
            self.result.test_failures.append(record)
        errored = sum(1 for r in records if r.outcome == "error")
        result = self.result
        counts = self.counts
        if counts is not None:
            # pytest's own tally: failed, errors, skipped, xfailed, xpassed each apart.
            result.fail_count += counts.get("failed", 0)
            result.test_error_count += counts.get("errors", 0) + counts.get("error", 0)
            result.pass_count += counts.get("passed", 0)
            result.skip_count += counts.get("skipped", 0)
            result.xfail_count += counts.get("xfailed", 0)
            result.xpass_count += counts.get("xpassed", 0)
        else:
            verbose = self.verbose_counts
            result.fail_count += len(records) - errored
            result.test_error_count += errored
            result.pass_count += verbose.get("PASSED", 0)
            result.skip_count += verbose.get("SKIPPED", 0)
            result.xfail_count += verbose.get("XFAIL", 0)
            result.xpass_count += verbose.get("XPASS", 0)
        self._reset()

    def _attach_tb_lines(self, records: list[TestFailureRecord]) -> None:
        """--tb=line: give each record the location line whose message its summary starts."""
        unused = list(self.tb_lines)
        for record in records:
            if record.line or not record.message:
                continue
            prefix = record.message[:-3] if record.message.endswith("...") else record.message
            for item in unused:
                path, line, message, e_lines = item
                if path.endswith("/" + record.test_suite) and message.startswith(prefix):
                    record.file_path, record.line = path, line
                    if not (record.expected_value or record.actual_value):
                        pair = next(
                            (p for p in (split_assert(m.group(1)) for m in map(_ASSERT.match, e_lines) if m) if p),
                            None,
                        )
                        if pair:
                            record.expected_value, record.actual_value = pair
                    unused.remove(item)
                    break

    def _section_files(self) -> dict[str, str]:
        """Each failure section's test file, read off the progress lines when no summary line names the
        test (``-rs``, ``-rxX`` leave out ``FAILED``/``ERROR`` lines): the n-th FAILURES section is the
        n-th ``F``, the n-th ERRORS section the n-th ``E`` (setup or teardown), when the numbers agree."""
        out: dict[str, str] = {}
        for kind, letter in (("FAILURES", "F"), ("ERRORS", "E")):
            sections = [s for s in self.sections if s.kind == kind and not s.title.startswith("ERROR collecting")]
            files = [file for file, letters in self.progress for c in letters if c == letter]
            if sections and len(files) == len(sections):
                out.update((s.title, file) for s, file in zip(sections, files, strict=True))
        return out

    @staticmethod
    def _match(section: _Section, by_title: dict[str, _Entry]) -> _Entry | None:
        title = section.title
        m = re.match(r"^ERROR at (?:setup|teardown) of (.+)$", title)
        if m:
            title = m.group(1)
        m = re.match(r"^ERROR collecting (.+)$", title)
        if m:
            for entry in by_title.values():
                if entry.node_id == m.group(1) or entry.node_id.endswith("/" + m.group(1)):
                    return entry
            return None
        return by_title.get(title)

    @staticmethod
    def _orphan_id(section: _Section) -> tuple[str, str]:
        title = section.title
        if title.startswith("ERROR collecting "):
            return title[len("ERROR collecting "):], "ERROR"  # a module's path
        m = re.match(r"^ERROR at (?:setup|teardown) of (.+)$", title)
        status = "ERROR" if m or section.kind == "ERRORS" else "FAILED"
        name, bracket, params = (m.group(1) if m else title).partition("[")  # "TestC.test_x[1.5]": the name's dots
        return name.replace(".", "::") + bracket + params, status

    def _record(self, node_id: str, status: str, summary: str, section: _Section | None,
                titled: bool = False) -> TestFailureRecord:
        head, bracket, params = node_id.partition("[")  # "::" inside a parameter splits nothing
        path, sep, rest = ("", "", "") if titled else head.partition("::")  # a title has no file to split off
        suite, name = (path, rest + bracket + params) if sep else ("", node_id)
        body = section.body if section else []
        # pytest's own "file.py:12: ..." lines; only without any, --tb=native's Python frames
        # (elsewhere such frames are a thread dump, e.g. pytest-timeout's, not the failure).
        locations = [(m.group(1), int(m.group(2))) for m in map(_LOCATION.match, body) if m]
        native = not locations
        if native:
            locations = [(m.group(1), int(m.group(2))) for m in map(_NATIVE_FRAME.match, body) if m]
        if not sep and node_id.endswith(".py"):
            suite = node_id  # a collection error names the module
        elif not sep:
            located = locations[0][0] if locations and not native else ""
            suite = located.rsplit("/", 1)[-1] if located else ""
        e_lines = [b for b in body if b.startswith("E ")]
        if not e_lines and native:
            e_lines = _native_exception(body)
        expected = actual = exception_type = ""
        for b in e_lines:
            m = _ASSERT.match(b)
            if m:
                pair = split_assert(m.group(1))
                if pair:
                    expected, actual = pair
                    break
        if not (expected or actual) and summary and not summary.endswith("..."):
            m = re.match(r"^(?:AssertionError: )?assert (.+)$", summary)
            pair = split_assert(m.group(1)) if m else None
            if pair:
                expected, actual = pair
        if not (expected or actual):
            # a unittest-style assertEqual (pytest running TestCase tests): "AssertionError: 1 != 0"
            said = next((m.group(2) for m in map(_EXC_LINE.match, e_lines)
                         if m and m.group(1) == "AssertionError" and m.group(2)), "")
            if not said and summary.startswith("AssertionError: ") and not summary.endswith("..."):
                said = summary[len("AssertionError: "):]
            if " != " in said:
                expected, actual = assert_equal_values(said)
        for b in e_lines:
            m = _EXC_LINE.match(b)
            if m:
                exception_type = m.group(1)
        if not exception_type and summary:
            m = re.match(r"^([A-Za-z_][\w.]*(?:Error|Exception|Failed)|Failed):", summary)
            exception_type = m.group(1) if m else ""
        if not exception_type and (expected or actual or any(_ASSERT.match(b) for b in e_lines)):
            exception_type = "AssertionError"
        file_path, line, impl_file, impl_line = "", 0, "", 0
        if locations:
            own = [loc for loc in locations if suite and (loc[0] == suite or loc[0].endswith("/" + suite))]
            file_path, line = own[0] if own else locations[0]
            last = locations[-1]
            if last[0] != file_path:
                impl_file, impl_line = last
        elif suite.endswith(".py"):
            file_path = suite
        if section is None and not sep and node_id.endswith(".py"):
            file_path = node_id
        message = "\n".join(re.sub(r"^E\s{1,7}", "", b, count=1) for b in e_lines[:12]).strip()
        if not message:
            message = summary or next((b.strip() for b in body if b.strip()), "")
        outcome = "error" if status == "ERROR" else "failed"
        text = "\n".join([message, summary])
        if "[XPASS(strict)]" in text:
            outcome = "xpass-strict"
        elif re.search(r"Timeout \(>[\d.]+s\) from pytest-timeout|^Failed: Timeout", text, re.M):
            outcome = "timeout"
        return TestFailureRecord(
            runner=RUNNER,
            test_suite=suite,
            test_name=name,
            node_id=node_id,
            expected_value=expected,
            actual_value=actual,
            file_path=file_path,
            line=line,
            impl_file=impl_file,
            impl_line=impl_line,
            message=message,
            exception_type=exception_type,
            outcome=outcome,
            raw="\n".join(body)[:4000] or summary,
        )

    def flush(self) -> None:
        # Another format took over, or the log ended: keep what this session showed.
        if self.active and (self.entries or self.sections or self.section):
            self._finish()


def _native_exception(body: list[str]) -> list[str]:
    """A --tb=native section's exception line and the lines that explain it, as "E " lines
    (what the other --tb styles print), or [] when the section has no native traceback."""
    last_frame = max((k for k, b in enumerate(body) if _NATIVE_FRAME.match(b)), default=-1)
    if last_frame < 0:
        return []
    for k in range(last_frame + 1, len(body)):
        if _NATIVE_EXC.match(body[k]):
            tail = [body[k]] + [b for b in body[k + 1 : k + 12] if b.strip()]
            return ["E   " + b.strip() for b in tail]
    return []


LINE_PARSERS = [PytestTextParser]
