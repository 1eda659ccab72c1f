"""How long a default failing run may search for validated fixes.

A failing ``pytest -p whetstone`` should cost at most about 1.3x the same run without the plugin.
Localization and the cheap candidates always run (milliseconds); the validated search gets what is
left of that allowance: a share of the run's own wall time, less what re-running the failing tests
already took.  Below a floor the search is not started at all (a worker start alone costs about as
much as the run's collection).  ``--whetstone-search=1`` and ``whetstone fix`` skip this rule.
"""

from __future__ import annotations

import os

DEFAULT_SHARE = 0.25  # of the run's wall time so far
FLOOR_S = 3.0  # a worker start alone takes about 1 s (docs/fixes.md): below this nothing gets tried


def default_search_budget(run_s: float, rerun_s: float, configured_s: float) -> float:
    """Seconds for the search in a default run (0: do not start it)."""
    share = DEFAULT_SHARE * max(0.0, run_s) - max(0.0, rerun_s)
    if share < FLOOR_S:
        return 0.0
    return min(configured_s, share)


CHEAP_SHARE = 0.1  # of the run's wall time: the in-process mutant pass (locate/pymutants.py)
CHEAP_MIN_S = 0.25
CHEAP_MAX_S = 3.0


def cheap_pass_budget(run_s: float, rerun_s: float) -> float:
    """Seconds for the in-process mutant pass of a failing run (forks: no start-up to pay);
    ``$WHETSTONE_MUTANT_PASS_S`` sets it outright (0 turns the pass off)."""
    fixed = os.environ.get("WHETSTONE_MUTANT_PASS_S", "").strip()
    if fixed:
        try:
            return max(0.0, float(fixed))
        except ValueError:
            pass
    return max(CHEAP_MIN_S, min(CHEAP_MAX_S, CHEAP_SHARE * max(0.0, run_s) - max(0.0, rerun_s)))
