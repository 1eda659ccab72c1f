"""The analysis passes at the end of a failing session, each in forks of the pytest process and within
the failing run's allowance (locate/budget.py): the value-fault spectra (locate/pyspectra.py), then the
cheap mutant pass (locate/pymutants.py).  Functions of the collector, kept apart from its hooks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .collector import WhetstoneCollector


def spectra_pass(collector: WhetstoneCollector) -> dict[str, Any]:
    """Value faults (no implementation frame): trace passing tests of their modules in a fork, within
    what is left of the allowance; node id -> its module's spectrum (locate/pyspectra.py)."""
    import time

    from ..locate import pymutants, pyspectra
    from ..locate.budget import spectra_budget

    if collector.locate not in ("auto", "coverage") or collector.is_worker or collector.rerun <= 0:
        return {}
    caps = [c for c in collector.captured if c.record.node_id in collector._items and pyspectra.is_value_fault(c)]
    if not caps:
        return {}
    spent = collector._spent()
    budget = spectra_budget(collector.plain_run_s(), spent, explicit=collector.search_explicit)
    if budget <= 0 or not pymutants.usable():
        collector.spectra_stats = {"stopped": "no budget" if budget <= 0 else "no fork (or another thread runs)"}
        return {}
    items = list(getattr(collector._items[caps[0].record.node_id].session, "items", None) or [])
    t0 = time.monotonic()
    collector._rerunning = True  # the child's reports must not be captured as failures
    try:
        result = pyspectra.run_pass(caps, items, collector._passed, collector._coverage_contexts(), collector.workspace, budget)
    finally:
        collector._rerunning = False
        collector._spectra_spent += time.monotonic() - t0
    collector.spectra_stats = result.to_stats()
    out = {}
    for cap in caps:
        module = result.modules.get(pyspectra.module_of(collector._items[cap.record.node_id]))
        if module is not None and cap.record.node_id in module.failed and module.passing:
            out[cap.record.node_id] = module
    return out


def cheap_mutant_pass(collector: WhetstoneCollector) -> None:
    """A few mutants of each top suspect, run in forks of this process, re-rank the suspects
    (mutation-informed localization within the default run's allowance; see locate/pymutants.py)."""
    import time

    from ..locate import pymutants
    from ..locate.budget import cheap_pass_budget
    from ..locate.mutation import rerank

    if not pymutants.usable():
        return
    spent = collector._spent()
    budget = cheap_pass_budget(collector.plain_run_s(), spent, explicit=collector.search_explicit)
    if budget <= 0:
        return
    t0 = time.monotonic()
    deadline = t0 + budget
    collector._rerunning = True  # the forks' reports must not be captured as failures
    try:
        for cap in collector.captured[: pymutants.MAX_FAILURES]:
            record = cap.record
            item = collector._items.get(record.node_id)
            left = deadline - time.monotonic()
            if left <= 0.05:
                break
            if (item is None or record.flaky or cap.subtest or record.outcome == "timeout"
                    or not record.suspects or record.exception_type in pymutants.HINTED):
                continue
            evidence = pymutants.cheap_pass(record, item, collector.workspace, left)
            if evidence:
                collector._cheap_evidence[record.failure_id] = evidence
                record.place_suspects(rerank(record.suspects, evidence))
    finally:
        collector._rerunning = False
        collector._cheap_spent += time.monotonic() - t0
