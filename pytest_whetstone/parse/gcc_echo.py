"""The source echo under a diagnostic, for :class:`.gcc.GccParser`: whose it is, and what is no echo.

* A caret line says which compiler printed it by where the caret is: clang echoes the source line as
  it is, so its ``^`` sits at index ``col - 1``; gcc without line numbers
  (``-fno-diagnostics-show-line-numbers``) prints a one-space margin first, so its ``^`` sits at
  index ``col`` (:func:`caret_flavor`).
* A source line may itself start like a bare diagnostic (a C label ``error:`` at column 0): where the
  echo is due, such a line is held (:func:`hold_label`) and is the echo when a caret line follows it;
  otherwise it was the compiler speaking, and is read so when the record closes (:func:`finish_odd`).
* clang's ``-Rpass`` remarks are no records and no notes of the diagnostic before them: a remark opens
  a record that is never handed on, so its echo and caret are claimed with it (:func:`remark`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..records import BuildErrorRecord
from .gcc_text import _DiagFacts

if TYPE_CHECKING:
    from .gcc import GccParser


def caret_flavor(self: GccParser, line: str) -> str:
    """"clang" when the caret stands where clang puts it (index ``col - 1``); "" (no evidence) when it
    stands one column right of that, behind a one-space margin: gcc prints one without line numbers,
    and so does clang under -fdiagnostics-print-source-range-info."""
    rec = self.rec
    assert rec is not None
    col = rec.notes[-1].col if self.in_note and rec.notes else rec.col
    return "" if col and line.find("^") == col else "clang"


def hold_label(self: GccParser, m: re.Match[str], line: str) -> bool:
    """``error: free(buf);`` where clang's source echo is due: held until the next line tells."""
    rec = self.rec
    if rec is None or self.expect != "source" or self.rec_flavor == "gcc" or m.group("sev") == "fatal error":
        return False  # gcc never echoes a line at column 0; "fatal error" is no C label
    at = rec.notes[-1] if self.in_note and rec.notes else rec
    if not at.line:
        return False  # a note without a place (clang's driver): no source echo follows it
    self.label = (m, line)
    self.odd = True
    self.expect = "label"
    return True


def label_is_echo(self: GccParser) -> None:
    """A caret line after the held line: it was the source echo."""
    label, self.label = self.label, None
    if label is not None:
        self._echo_line(label[1])


def finish_odd(self: GccParser, rec: BuildErrorRecord) -> None:
    """``_finish`` of a record that holds a line for what follows (``held``: message text or clang's echo,
    ``label``: the echo or cc1's bare line) or is a remark (no record: its lines are dropped)."""
    from .gcc_driver import bare_line
    from .gcc_wrap import settle

    self.odd = False
    if self.held is not None:
        settle(self)
    label, self.label = self.label, None
    if rec.severity == "remark":
        self.rec, self.raw, self.ice, self.in_note, self.expect = None, [], False, False, ""
    else:
        self._finish()
    if label is not None:  # no caret under it: the compiler said it (clang's cc1, bare)
        bare_line(self, label[0], label[1])
        self._finish()


def remark(self: GccParser, facts: _DiagFacts, line: str) -> bool:
    """``x.c:5:5: remark: vectorized loop ... [-Rpass=loop-vectorize]``: claimed with its echo, never a record."""
    self._finish()
    path, line_no, col = facts[0], facts[1], facts[2]
    self.rec = BuildErrorRecord(tool="clang", severity="remark", file_path=path, line=line_no, col=col, raw=line)
    self.odd = True
    self.rec_flavor = "clang"
    self.in_note = False
    self.expect = "source" if facts[12] else ""
    self.tallied = False
    self.wrap_at = None
    return True
