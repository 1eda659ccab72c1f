"""A mutant that made failing tests pass and broke no other, as a validated fix candidate."""

from __future__ import annotations

from pathlib import Path

from ..records import FixCandidate
from .hashing import record_hashes
from .mutant import Mutant
from .native_trial import SuiteOutcome, TrialOutcome


def validated_candidate(mutant: Mutant, base: dict[str, str], outcome: TrialOutcome, wider: SuiteOutcome,
                        fixes: list[str], failing: int, workspace: Path) -> FixCandidate:
    """``fixes``: the probe's failing tests it made pass; ``base``: the probe's failures before it;
    ``failing``: all the failing tests of the run.  Complete when every failing test passes or fails
    exactly as before (another fault's failure); one outside the probe has no baseline to compare
    with, so it must pass.  One edit fixing them all ranks first.  A test the run never reported that
    fails in the user's own binary too (behind a test the binary died in) and still fails counts as a
    failing test left failing: the fix does not make every failing test pass, and the search looks on."""
    unchanged = [fid for fid, sig in base.items() if outcome.failing.get(fid) == sig]
    complete = len(fixes) + len(unchanged) >= len(base) and all(wider.others.values())
    fixes = fixes + [fid for fid, passes in wider.others.items() if passes]
    covered = ", ".join(wider.covered[:4]) or "the failing tests"
    share = f"{len(fixes)} of {failing} failing tests" if len(fixes) < failing else f"all {failing} failing test(s)"
    left = wider.unreported
    still = f"; {len(left)} test(s) the run never reported still fail as before ({', '.join(left[:3])})" if left else ""
    confidence = min(0.8 + 0.15 * mutant.prior, 0.97) if complete else 0.7 + 0.1 * mutant.prior
    total = len(base) + len(wider.others) + len(left)  # the failing tests, in the probe, outside it, unreported
    confidence -= 0.1 * (total - len(fixes)) / max(total, 1)
    return record_hashes(
        FixCandidate(
            target_id=fixes[0],
            description=f"{mutant.description} (validated: makes {share} pass, breaks no other test of {covered}{still})",
            confidence=round(confidence, 3),
            mutation_type="replaceNode",
            # every: all the failing tests pass (complete also allows some to fail as before: another fault's)
            mutation={"kind": mutant.kind, "fixes": fixes, "complete": complete, "every": len(fixes) >= failing and not left,
                      "checked": wider.covered, "unchecked": []},
            edits=[mutant.edit],
            source="search",
            validated=True,
        ).ensure_id(),
        workspace,
    )
