"""CMake configure and generate messages.

``CMake Error at CMakeLists.txt:12 (find_package):`` opens a record; its
message is the indented block that follows (joined into one line, blank lines
and the two-space indent dropped), then an optional ``Call Stack (most recent
call first):`` whose frames become notes.  ``CMake Error:`` without a location,
``CMake Error in <file>:``, ``CMake Warning [(dev)|(author)|(deprecated)]``, ``CMake Deprecation
Warning`` are the same shape.  When the error is raised inside CMake's own
modules (FindXXX.cmake), the record points at the first call-stack frame in the
project instead, where the user can act.

Status lines (``-- ...``) are claimed but are not records; ``-- Configuring
incomplete, errors occurred!`` and ``CMake Generate step failed`` are summaries
(a record only when no error record explains them, e.g. a truncated log; the summary is on stdout and
the errors on stderr, so an error a few lines after it explains it too: see ``SummaryGate``).
find_package / pkg-config failures are ``missing_dependency`` with the package in
``symbol``.  Dev warnings carry ``error_code = "-Wdev"`` and deprecation warnings
``-Wdeprecated`` (cmake's own flags), which makes them lint.
"""

from __future__ import annotations

import re

from ..lazy_pattern import lazy_pattern
from ..records import BuildErrorRecord, Note
from .base import LineParser, ParseContext, ParseResult, SummaryGate

_HEADER = lazy_pattern(
    r"CMake (?P<kind>Error|Warning|Deprecation Warning|Deprecation Error|Internal Error)"
    r"(?: \((?P<tag>dev|author|deprecated)\))?(?: (?:at|in) (?P<where>.+?))?:(?: (?P<msg>.*))?$"
)
_WHERE = lazy_pattern(r"(?P<file>.+?)(?::(?P<line>\d+))?:?(?: \((?P<cmd>[^)]*)\))?$")
_NO_SOURCE_DIR = lazy_pattern(
    r'The source directory "(.+?)" (?:does not exist|does not appear to contain CMakeLists\.txt)')
_FRAME = lazy_pattern(r"\s+(?P<file>\S.*?):(?P<line>\d+) \((?P<cmd>[^)]*)\)$")
_SUMMARIES = (
    "-- Configuring incomplete, errors occurred!",
    "CMake Generate step failed.",
)
_PACKAGE = lazy_pattern(
    r'(?:provided by\s+"(?P<a>[^"]+)"|Could NOT find (?P<b>\S+)|No package \'(?P<c>[^\']+)\' found'
    r"|Package '(?P<d>[^']+)', required by|links to:\s+(?P<e>\S+)\s+but the target was not found)"
)
_PKG_STATUS = lazy_pattern(r"--\s+(?:No package '(?P<a>[^']+)' found|Package '(?P<b>[^']+)', required by)")
_UNKNOWN_COMMAND = lazy_pattern(r'Unknown CMake command "(?P<cmd>[^"]+)"')
_DEPENDENCY_CMDS = ("find_package", "pkg_check_modules", "pkg_search_module", "find_library", "find_program",
                    "find_path", "find_file", "FetchContent_MakeAvailable")


def _is_cmake_internal(path: str) -> bool:
    return "/Modules/" in path and ("/cmake" in path or "/share/" in path)


class CMakeParser(LineParser):
    name = "cmake"
    priority = 12

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        super().__init__(result, ctx)
        self.rec: BuildErrorRecord | None = None
        self.body: list[str] = []
        self.stack: list[tuple[str, int, str]] = []
        self.in_stack = False
        self.cmd = ""
        self.printed_file = ""
        self.package_hint = ""
        self.gate = SummaryGate()
        self.opened_at = 0  # the log line of the record in progress

    def feed(self, line: str) -> bool:
        if not line:
            return self.rec is not None  # blank lines inside and after a message block
        c0 = line[0]
        if c0 == "C" and line.startswith("CMake "):
            m = _HEADER.match(line)
            if m:
                self._open(m, line)
                return True
            if line.startswith(_SUMMARIES[1]):
                self._summary(line)
                return True
            return False
        if c0 == "-" and line.startswith("--"):
            if line.startswith("-- ") or line == "--" or line.startswith("--   "):
                self._close()
                if line.startswith(_SUMMARIES[0]):
                    self._summary(line)
                    return True
                m = _PKG_STATUS.match(line)
                if m:
                    self.package_hint = m.group("a") or m.group("b") or ""
                return True
            return False
        if self.rec is not None:
            if c0 == " " or c0 == "\t":
                if self.in_stack:
                    m = _FRAME.match(line)
                    if m:
                        frame = (m.group("file"), int(m.group("line")), m.group("cmd"))
                        self.stack.append(frame)
                        self._note(frame)
                        return True
                if len(self.body) < 400:
                    self.body.append(line)
                return True
            if line.startswith("Call Stack (most recent call first):"):
                self.in_stack = True
                return True
            if line.startswith("This warning is for project developers") or line.startswith(
                "This error is for project developers"
            ):
                return True
        if line.startswith(("See also \"", "Specify --help for usage")):
            self._close()
            return True
        return False

    def flush(self) -> None:
        self._close()

    # ------------------------------------------------------------------ records

    def _open(self, m: re.Match[str], line: str) -> None:
        self._close()
        self.opened_at = self.ctx.line_no
        kind = m.group("kind")
        sev = "error" if "Error" in kind else "warning"
        code = ""
        tag = m.group("tag")
        if tag in ("dev", "author"):
            code = "-Wdev"  # CMake 4 says "(author)" where 3.x said "(dev)": the same -Wdev warnings
        elif kind.startswith("Deprecation") or tag == "deprecated":
            code = "-Wdeprecated"
        path, line_no, cmd = "", 0, ""
        where = m.group("where")
        if where:
            w = _WHERE.match(where)
            if w:
                path, line_no, cmd = w.group("file"), int(w.group("line") or 0), w.group("cmd") or ""
        self.printed_file = path
        self.cmd = cmd
        self.rec = BuildErrorRecord(
            tool="cmake",
            severity=sev,
            file_path=self.ctx.resolve(path) if path else "",
            line=line_no,
            error_code=code,
            raw=line,
        )
        self.body = [m.group("msg")] if m.group("msg") else []
        self.stack = []
        self.in_stack = False

    def _note(self, frame: tuple[str, int, str]) -> None:
        """One call-stack frame: a note at the calling line, saying which command called."""
        if self.rec is not None and len(self.rec.notes) < 64:
            path, line_no, cmd = frame
            self.rec.notes.append(Note("note", self.ctx.resolve(path), line_no, 0, f"{cmd} called here"))

    def _close(self) -> None:
        rec = self.rec
        if rec is None:
            return
        self.rec = None
        rec.message = " ".join(part.strip() for part in self.body if part.strip())[:4000]
        rec.raw = "\n".join([rec.raw, *self.body])[:16384]
        cmd = self.cmd
        if _is_cmake_internal(self.printed_file) and self.stack:
            # Point at the project's own call (CMakeLists.txt:3 (find_package)), not CMake's module.
            for path, line_no, frame_cmd in self.stack:
                if not _is_cmake_internal(path):
                    rec.notes.insert(0, Note("note", self.ctx.resolve(self.printed_file), rec.line, 0, "raised here"))
                    rec.file_path, rec.line, cmd = self.ctx.resolve(path), line_no, frame_cmd
                    break
        elif self.stack and not cmd:
            cmd = self.stack[0][2]
        package = _PACKAGE.search(rec.message)
        missing_dir = _NO_SOURCE_DIR.search(rec.message)
        if missing_dir and rec.severity == "error":
            # the build's own input is missing: the directory cmake was pointed at
            rec.error_type, rec.symbol = "missing_dependency", missing_dir.group(1)
        elif rec.severity == "error":
            if cmd in _DEPENDENCY_CMDS or (package and not package.group("e")):
                rec.error_type = "missing_dependency"
                rec.symbol = (package and (package.group("a") or package.group("b") or package.group("c")
                                           or package.group("d"))) or self.package_hint
            elif package and package.group("e"):
                rec.error_type = "missing_dependency"
                rec.symbol = package.group("e")
            else:
                unknown = _UNKNOWN_COMMAND.search(rec.message)
                if unknown:
                    rec.symbol = unknown.group("cmd")
        if cmd:
            rec.function = cmd  # the CMake command that failed
        self.package_hint = ""
        self.body = []
        self.stack = []
        self.in_stack = False
        self.result.build_errors.append(rec)
        if rec.severity == "error":
            self.gate.claim(self.result, self.opened_at)

    def _summary(self, line: str) -> None:
        self._close()
        if not self.gate.explained(self.result):
            record = BuildErrorRecord(tool="cmake", severity="error", message=line.lstrip("- ").strip(), raw=line)
            self.gate.add(self.result, record, self.ctx.line_no)

    def holds(self) -> object | None:
        return self.gate.holding(self.ctx.line_no)

    def finish(self) -> None:
        self.gate.settle()


LINE_PARSERS = [CMakeParser]
