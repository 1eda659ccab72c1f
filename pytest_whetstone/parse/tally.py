"""clang's tallies: "N warnings and M errors generated.", one per translation unit.

The counts of a log are the tools' own where they print a tally (see docs/parsers.md,
Counts).  A tally accounts for as many of the diagnostic records not yet accounted for as
it says; what it counts beyond them (the "too many errors emitted" stop, diagnostics make -j
ran together on one line) still counts, as ``ParseResult.uncounted_errors`` /
``uncounted_warnings``.  make -j interleaves units, so a tally may come after records of
another unit: the records wait in one pool until some tally takes them.

clang-tidy prints its tally *before* the diagnostics it counts, suppressed ones included,
and says how many it suppressed: once clang-tidy is heard (a check name, "Suppressed N
warnings", "Error while processing"), the credit given by tallies no diagnostic followed yet
is taken back, and its later tallies give none: its counts are its records.
"""

from __future__ import annotations

from ..lazy_pattern import lazy_pattern
from .base import ParseContext, ParseResult

_ERRORS_SAID = lazy_pattern(r"(\d+) errors? generated")
_WARNINGS_SAID = lazy_pattern(r"(\d+) warnings?\b")


class Tallies:
    __slots__ = ("result", "ctx", "untallied", "credit", "tidy")

    def __init__(self, result: ParseResult, ctx: ParseContext) -> None:
        self.result = result
        self.ctx = ctx
        self.untallied = [0, 0]  # [errors, warnings]: compiler records no tally took yet
        self.credit = [0, 0]  # what tallies counted beyond the records, since the last record
        self.tidy = False

    def record(self, severity: str) -> None:
        """A compiler's diagnostic (not a driver's line): some unit's tally counts it."""
        if severity == "error":
            self.untallied[0] += 1
        elif severity == "warning":
            self.untallied[1] += 1
        if self.credit[0] or self.credit[1]:
            self.credit = [0, 0]  # a compiler's record after the tally: the tally was the compiler's

    def stopped(self) -> None:
        """clang's "fatal error: too many errors emitted, stopping now": an error clang counts
        (its unit's tally, when one comes, says so) though it is no record; with
        -fno-caret-diagnostics clang prints no tally at all, and it still counts."""
        self.untallied[0] += 1
        self.result.uncounted_errors += 1

    def said(self, line: str) -> None:
        """One tally line."""
        ctx = self.ctx
        pool = self.untallied
        pool[0] += ctx.structured_errors  # a SARIF document's records: the tally counts them too
        pool[1] += ctx.structured_warnings
        ctx.structured_errors = ctx.structured_warnings = 0
        if self.tidy:
            return
        result = self.result
        for k, said in ((0, _ERRORS_SAID.search(line)), (1, _WARNINGS_SAID.match(line))):
            if said is None:
                continue
            n = int(said.group(1))
            claimed = min(n, pool[k])
            pool[k] -= claimed
            if n > claimed:
                self.credit[k] += n - claimed
                if k == 0:
                    result.uncounted_errors += n - claimed
                else:
                    result.uncounted_warnings += n - claimed

    def tidy_speaks(self) -> None:
        """clang-tidy is talking: its tallies add nothing to its records."""
        credit = self.credit
        if credit[0] or credit[1]:
            self.result.uncounted_errors -= credit[0]
            self.result.uncounted_warnings -= credit[1]
            self.credit = [0, 0]
        self.tidy = True
        self.untallied = [0, 0]
