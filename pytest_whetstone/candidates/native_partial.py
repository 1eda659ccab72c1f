"""Complete, partial and doubtful fixes in the C/C++ and JS mutant search (:mod:`.native_search`).

A mutant that makes some failing tests pass while others still fail otherwise than before is a partial
fix.  One edit may still fix them all, and the first partial fix says where to look (its line first);
but every partial fix validated costs a compile of its own and a run of the whole binaries or suite.
On leveldb's `Block::Block` fault, six mutants of the block's neighbours each made 1 of 8 failing tests
pass (the same one), six validations spent 10 s of a 22 s search, and the search stopped on them
(:func:`enough`) with the fault's own function partly mutated.  So a fix of some failing tests is
validated only when it makes a failing test pass that no fix validated so far makes pass
(:class:`PartialGate`).  Another costs no compile and makes no candidate, yet counts for its function
as the validated one of those tests did: a function whose mutants keep making failing tests pass earns
its turns, as it did when each was validated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..records import FixCandidate, TestFailureRecord
from .native_trial import TrialOutcome
from .naturalness import Naturalness

if TYPE_CHECKING:
    from .native_plan import Planner, _Plan

PARTIAL_KEPT = 4  # fixes of some failing tests kept beyond those wanted before the search stops (see enough)


def enough(found: list[FixCandidate], wanted: int) -> bool:
    """Whether the search has found enough: ``wanted`` fixes that make every failing test pass, or
    ``PARTIAL_KEPT`` more than that of any kind.  Fixes of some failing tests only do not end it while
    time is left: with one fault, the edit that fixes them all is the fault's (one of jsonnet's lexer
    faults let three edits of its caller fix 7, 4 and 4 of 8 failing tests before the callee's turn)."""
    return complete_count(found) >= wanted or len(found) >= wanted + PARTIAL_KEPT


def complete_count(found: list[FixCandidate]) -> int:
    """How many of the fixes found make every failing test pass."""
    return sum(map(every_test, found))


def every_test(candidate: FixCandidate) -> bool:
    return bool(candidate.mutation.get("complete") and candidate.mutation.get("every", True))


def fixed_tests(base: dict[str, str], outcome: TrialOutcome) -> tuple[frozenset[str], bool]:
    """The failing tests (of ``base``, the failing tests before) that ``outcome`` makes pass, and whether
    those are all the failing tests its run covered."""
    covered = [fid for fid in base if fid in outcome.passed or fid in outcome.failing]
    fixes = frozenset(fid for fid in covered if fid in outcome.passed)
    return fixes, len(fixes) == len(covered)


class PartialGate:
    """Which fixes of some failing tests are worth their validation: those that make a failing test pass
    that no fix validated so far makes pass.  Two faults' fixes each make their own tests pass, and both
    are checked; the neighbours of one fault that each make the same test pass are checked once."""

    def __init__(self) -> None:
        self.fixed: set[str] = set()  # failing tests a validated fix makes pass
        # fixes of some failing tests adding none to those: neither compiled alone nor checked wide
        self.passed_over = 0

    def weak(self, base: dict[str, str], outcome: TrialOutcome) -> bool:
        """Whether ``outcome`` makes some of the failing tests it ran pass, not all, and none that a
        validated fix does not."""
        fixes, every = fixed_tests(base, outcome)
        return bool(fixes) and not every and fixes <= self.fixed

    def validated(self, base: dict[str, str], outcome: TrialOutcome) -> None:
        """A fix passed its validation: the tests it makes pass need no other partial fix checked."""
        self.fixed |= fixed_tests(base, outcome)[0]


def natural_first(search: Planner, plans: list[_Plan], seen: set[tuple[str, int, int, int, int, str]]) -> list[_Plan]:
    """The mutants that could still be a fix that is not doubtful: those that make their line more
    natural, the most natural first (screened ones before those that need a compile of their own)."""
    out: list[tuple[bool, float, int, _Plan]] = []
    for order, plan in enumerate(plans):
        if plan.mutant.key in seen:
            continue
        value = search.naturalness.edits_gain([plan.mutant.edit])
        if value is not None and value >= 0:
            uncovered = search.screen is not None and not search.screen.covers(plan.mutant)
            out.append((uncovered, -value, order, plan))
    out.sort(key=lambda t: t[:3])
    return [t[3] for t in out]


def only_doubtful(naturalness: Naturalness, found: list[FixCandidate], failure: TestFailureRecord) -> bool:
    """Whether every complete fix found for ``failure`` makes its code less natural."""
    fixes = [c for c in found if c.mutation.get("complete") and failure.failure_id in c.mutation.get("fixes", [])]
    return bool(fixes) and all(naturalness.doubtful(c) for c in fixes)
