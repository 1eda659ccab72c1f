"""gcc's inline chains, for :class:`.gcc.GccParser`.

gcc's middle end (``-O2``: ``-Warray-bounds``, ``-Wstringop-*``, ``-Wformat-truncation``, glibc's
``-D_FORTIFY_SOURCE``) reports a diagnostic inside inlined code after ``In function 'strcpy',`` (the
function the location is in) and one ``    inlined from 'f' at x.c:5:3,`` per level, the last ending
``:``; often after the include chain of the system header the code lies in, and before the diagnostic
or before a note of the open one.  Each level is a located note, as an include chain level is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_pattern import lazy_pattern
from .gcc_text import function_name

if TYPE_CHECKING:
    from .gcc import GccParser

_HEAD = lazy_pattern(r"In (?:[\w ]*function|constructor|destructor|copy constructor) (?P<name>[‘'].+[’']),$")
_INLINED_FROM = lazy_pattern(r" +inlined from .+ at [^:\s][^:]*:\d+:\d+[,:]$")


def head(self: GccParser, line: str) -> bool:
    """``In function 'strcpy',``: the head of an inline chain; the open record stays open (the
    chain may explain a note of it) and an include chain before it stays pending."""
    m = _HEAD.match(line)
    if m is None:
        return False
    self.inline_func = function_name(m.group("name"))
    self._decide("gcc")
    return True


def inlined_from(self: GccParser, line: str) -> bool:
    """``    inlined from 'f' at x.c:5:3,``: a located note of what comes next, as an include chain
    level is (the only place of the caller's code when the warning is in a system header)."""
    if not _INLINED_FROM.match(line):
        return False
    if len(self.pending_notes) < 64:
        self.pending_notes.append(line.strip())
    return True


def set_aside(self: GccParser, scope_path: str) -> None:
    """An ``x.c: In function 'f':`` line after an inline chain: gcc prints one or the other before a
    diagnostic, never both, so another job (``-flto=auto``'s parallel LTRANS, ``make -j``) put its
    lines between the chain and the diagnostic it explains.  The chain waits for a diagnostic
    outside ``x.c``; the lines of ``x.c`` go on without it."""
    self.aside = (scope_path, self.inline_func, self.pending_notes, self.pending_tu)
    self.inline_func, self.pending_notes, self.pending_tu = "", [], ""


def take_back(self: GccParser, path: str) -> None:
    """The first diagnostic outside the scope's file after a chain was set aside takes it back."""
    assert self.aside is not None
    scope_path, func, notes, unit = self.aside
    if path == scope_path:
        return
    self.aside = None
    self.inline_func, self.pending_notes, self.pending_tu = func, notes + self.pending_notes, unit or self.pending_tu
