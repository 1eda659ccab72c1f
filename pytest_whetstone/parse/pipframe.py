"""pip's frame around a build's output, taken off before the parsers read the lines.

``pip install .`` / ``pip wheel .`` run setuptools (and so the compiler) in a subprocess and
print its output indented: by 6 spaces inside the box of a failed step
(``  ╰─> [57 lines of output]`` ... ``      [end of output]``), by 2 after ``  Running command
...`` with ``-v``.  Indented, ``src/x.c:3:5: error: ...`` is not a compiler's line any more;
unframed it is.  A log without pip's markers is handed on untouched (two substring searches
per block of about a megabyte).

pip's own failure lines (``error: subprocess-exited-with-error``, ``ERROR: Failed building
wheel for x``, ``ERROR: Failed to build one or more wheels``, ...) repeat a failure the build's
own records report: summaries (see docs/parsers.md), a record only when no error explains them.
"""

from __future__ import annotations

from ..lazy_pattern import lazy_pattern
from .base import ParseResult

_BOX = lazy_pattern(r"( *)╰─> \[\d+ lines? of output\]$")
_VERBOSE = lazy_pattern(r"( *)Running command ")
_END = "[end of output]"
_COMMAND = "full command: "
_PIP_NOTES = ("note: This error originates from a subprocess", "note: This is an issue with the package mentioned above")
_COMMAND_LINES = 200  # at most, should "cwd:" never come
# pip's progress lines, on stdout while the frames are on stderr: read through two pipes, one may
# land inside a frame, which goes on after it.
_STATUS = lazy_pattern(
    r"(?:Processing |Collecting |Building wheels? for |Failed to build |Successfully (?:built|installed) "
    r"|Installing collected packages|  (?:Preparing (?:editable )?metadata|Building (?:wheel|editable) for |Running setup\.py "
    r"|Created wheel for |Stored in directory|Getting requirements to build|Installing build dependencies))"
)
# pip's summaries of a failed build step (bare or upper-case "error:", as pip prints them).
_PIP_SUMMARY = lazy_pattern(
    r"(?:error: (?:subprocess-exited-with-error|metadata-generation-failed|legacy-install-failure)"
    r"|ERROR: (?:Failed building wheel for |Failed to build |Could not build wheels for ))"
)


class PipFrames:
    """The unframing state of one log (a frame may run across blocks)."""

    __slots__ = ("indent", "box", "command")

    def __init__(self) -> None:
        self.indent = 0  # spaces to take off the lines of the frame we are in (0: none)
        self.box = False  # the frame is a failure box (it ends at "[end of output]")
        self.command = 0  # lines left of a "full command:" pip echoes (0: not in one)

    def block(self, text: str, lines: list[str]) -> list[str]:
        """``lines`` (the cleaned lines of ``text``), unframed where pip framed them."""
        if not self.indent and not self.command and "lines of output]" not in text and "Running command " not in text \
                and _COMMAND not in text:
            return lines
        return [self.line(line) for line in lines]

    def batch(self, lines: list[str]) -> list[str]:
        """As ``block``, for lines that came without their block of text."""
        if not self.indent and not self.command and not any(
                "lines of output]" in line or "Running command " in line or _COMMAND in line for line in lines):
            return lines
        return [self.line(line) for line in lines]

    def line(self, line: str) -> str:
        if line.lstrip().startswith(_PIP_NOTES):
            return ""  # pip's own, inside -v's frame too: no note of the compiler's record before
        if self.command or line.lstrip().startswith(_COMMAND):
            # pip -v echoes the failed step's command, its setuptools shim over ~30 lines
            # (``except ImportError as error:``): none of it is the build's output; it ends
            # with ``cwd: <dir>``
            self.command = self.command - 1 if self.command else _COMMAND_LINES
            if line.lstrip().startswith("cwd: "):
                self.command = 0
            return ""
        indent = self.indent
        if indent:
            if line[:indent].isspace() and len(line) >= indent:
                inner = line[indent:]
                if self.box and inner == _END:
                    self.indent, self.box = 0, False
                return inner
            if not line.strip():
                return ""
            if _STATUS.match(line):
                return line
            # pip indents every line of a frame: one at a lower indent is pip's own again (a box
            # cut short before "[end of output]", the end of -v's command output)
            self.indent, self.box = 0, False
        m = _BOX.match(line)
        if m:
            self.indent, self.box = len(m.group(1)) + 4, True
            return line
        m = _VERBOSE.match(line)
        if m:
            self.indent, self.box = len(m.group(1)), False
        return line


def pip_summary(text: str) -> bool:
    """The line (stripped) is pip's summary of a failed build step."""
    return text.startswith(("error: ", "ERROR: ")) and _PIP_SUMMARY.match(text) is not None


def explained(result: ParseResult, text: str) -> bool:
    """pip's summary ``text`` repeats a failure some record reports.  "error:
    subprocess-exited-with-error" always does: pip prints the failed step's output (its box)
    right after it; the later summaries do once an error record came before them."""
    if text.startswith("error: subprocess-exited-with-error"):
        return True
    return result.drained_error >= 0 or any(r.severity == "error" for r in result.build_errors)
