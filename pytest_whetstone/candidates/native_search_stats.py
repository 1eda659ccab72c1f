"""What one C/C++ or JS mutant search did: counts, times, why it stopped (the session's ``search`` event)."""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class NativeSearchStats:
    tried: int = 0
    errors: int = 0  # mutants that did not compile / link / run
    rejected: int = 0  # mutants a schema's compile showed not to compile: skipped, no trial spent
    unreached: int = 0  # screened mutants the failing tests never ran (the schema's reach): no trial needed
    priced_out: int = 0  # mutants left because compiling them alone would not fit the time left
    screened: int = 0  # mutants run through a schema (:mod:`.native_screen`) rather than compiled alone
    timeouts: int = 0
    fixed: int = 0  # mutants that made a failing test pass
    validated: int = 0
    wider_rejected: int = 0  # made the failing test pass but broke another
    partial_passed_over: int = 0  # fixes of some failing tests no stronger than one validated: not checked (native_partial)
    siblings: int = 0  # other edits of a complete fix's line tried after it (see native_search.siblings)
    doubted: int = 0  # failures whose first complete fixes all read less naturally (or left failing tests failing): it looked on
    baseline_s: float = 0.0
    trial_s: list[float] = field(default_factory=list)  # seconds per mutant trial
    elapsed_s: float = 0.0
    first_validated_s: float | None = None
    stopped: str = ""  # found, enough, exhausted, budget, count, disabled, no-suspects, no-trial, baseline-passes
    notes: list[str] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    planned: list[list[str]] = field(default_factory=list)  # [file, qualname] of every function with mutants planned
    spectrum: dict[str, Any] = field(default_factory=dict)  # the execution spectrum: tests, seconds, tool
    schema: dict[str, Any] = field(default_factory=dict)  # schemata: files, mutants, dropped, compile_s
    # where the search's wall time went (seconds, the search's own thread): "setup" (trials made),
    # "baseline", "spectrum", "schemata" (waiting for the early ones), "plans", "mutants" (batches run),
    # "order" (the queue re-ordered as the evidence moves), "wider" (a fix's whole binaries or suite)
    phases: dict[str, float] = field(default_factory=dict)
    # mutants compiled alone, by why (TrialOutcome.alone) and whether in a header: "<why>[ header]" ->
    # [count, seconds]
    alone: dict[str, list[float]] = field(default_factory=dict)

    def count_alone(self, why: str, header: bool, seconds: float) -> None:
        entry = self.alone.setdefault(f"{why or 'other'}{' header' if header else ''}", [0, 0.0])
        entry[0] += 1
        entry[1] += seconds

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.phases[phase] = self.phases.get(phase, 0.0) + time.monotonic() - started

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["trial_median_s"] = round(statistics.median(self.trial_s), 3) if self.trial_s else None
        data["trial_s"] = [round(s, 3) for s in self.trial_s]
        data["phases"] = {name: round(s, 3) for name, s in self.phases.items()}
        data["alone"] = {why: [int(n), round(s, 3)] for why, (n, s) in self.alone.items()}
        return data


def trace_row(row: dict[str, Any]) -> None:
    """``row`` as a JSON line in $WHETSTONE_SEARCH_TRACE, when set: the order the search took its mutants,
    what each cost, each schema compile, for benchmarks and debugging."""
    path = os.environ.get("WHETSTONE_SEARCH_TRACE")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({**row, "at": round(time.monotonic(), 3)}) + "\n")
    except OSError:
        pass


def trace_mutant(rel: str, qualname: str, mutant: Any, outcome: Any = None, skip: str = "") -> None:
    """One mutant tried (or skipped, and why) in the search's trace (:func:`trace_row`)."""
    row = {"file": rel, "qualname": qualname, "line": mutant.edit.start.line, "col": mutant.edit.start.col,
           "kind": mutant.kind, "prior": round(mutant.prior, 3), "new": mutant.edit.new_text[:40]}
    if skip:
        row["skip"] = skip
    if outcome is not None:
        row.update(screened=outcome.screened, alone=outcome.alone, s=round(outcome.seconds, 4),
                   timed_out=outcome.timed_out, error=outcome.error[:80], passed=len(outcome.passed))
    trace_row(row)
