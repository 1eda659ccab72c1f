"""Validated search: try small edits at the top suspects in a scratch copy, keep what passes.

Never touches the user's tree: the workspace is copied once (without .git,
.whetstone, caches and virtualenvs).  Each mutant goes through two stages:

1. **filter** -- do the failing tests pass with the mutant?  On POSIX a fork
   worker (:mod:`.forkrun`) answers in a fraction of a second by patching the
   mutated function into an already-collected pytest process; where that is
   impossible (no fork, module-level edits, ...) the mutant is written into the
   copy and ``python -m pytest`` runs the failing tests.
2. **confirm** -- a fresh ``python -m pytest`` subprocess over the test
   module(s) of the failures, then, when the budget allows, over the other test
   modules that import the mutated module (a text scan).  A mutant is
   *validated* when the targeted failure passes there and no test fails that
   passed before (the "before" runs are made only when a confirm run has
   failures to compare).

The fast path is a filter, never the judge.  The whole search is bounded by
``budget_s`` seconds of wall time; :class:`SearchStats` says what it did.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .. import paths
from ..locate.mutation import NEUTRAL, MutantEvidence
from ..records import FixCandidate, TestFailureRecord, rank_candidates
from .forkrun import fork_available
from .hashing import record_hashes
from .mutants import Mutant, expected_value, focus_bonus, mutants_for
from .scratch_run import FastFilter, Runner, junit_failures, key_of_node_id, scratch_copy

HANG_TIMEOUT_S = 2.0  # a hanging failing test: how long a mutant's run may take before it hangs too
MAX_SUSPECTS = 3  # suspects the search concentrates on after the cheap pass
CHEAP_SUSPECTS = 5  # the cheap first pass covers this many suspects ...
CHEAP_PER_SUSPECT = 3  # ... with their likeliest mutants each
CONCENTRATE = 0.6  # how strongly mutant outcomes of the cheap pass reorder the rest
MAX_MUTANTS_PER_SUSPECT = 120
MAX_WIDENED = 20  # test modules added to the confirm run
SUSPECT_PENALTY = 0.1  # the second suspect's likeliest edit ranks with the first's less likely ones


@dataclass
class SearchStats:
    tried: int = 0  # mutants run at least through the filter stage
    validated: int = 0
    runs: int = 0  # test runs of any kind
    fast_runs: int = 0  # runs in a fork of the worker
    subprocess_runs: int = 0
    fallbacks: int = 0  # mutants the fork worker could not patch, run the slow way
    fast_passed: int = 0  # mutants that passed the filter and went to confirmation
    confirm_rejected: int = 0  # of those, rejected by the subprocess run
    timeouts: int = 0  # mutant runs killed at the per-run timeout
    widened: int = 0  # confirm runs that also covered other importing test modules
    mode: str = ""  # "fork" or "subprocess"
    worker_start_s: float = 0.0
    elapsed_s: float = 0.0
    first_validated_s: float | None = None  # from the search's start to its first validated candidate
    stopped: str = ""  # found, enough, exhausted, budget, disabled, no-suspects, baseline-passes
    notes: list[str] = field(default_factory=list)
    # per suspect function: what its mutants did to the failing tests (mutation-informed localization)
    evidence: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _suspect_files(failure: TestFailureRecord, workspace: Path) -> list[tuple[str, int, int, str]]:
    """(relative file, first line, last line, qualname) of the suspects the cheap pass covers."""
    out: list[tuple[str, int, int, str]] = []
    for suspect in failure.suspects[:CHEAP_SUSPECTS]:
        if not suspect.file_path.endswith(".py") or suspect.line_start <= 0:
            continue
        path = Path(suspect.file_path)
        try:
            rel = (path if path.is_absolute() else workspace / path).resolve().relative_to(workspace.resolve())
        except ValueError:
            continue  # outside the workspace (site-packages): not ours to edit
        out.append((rel.as_posix(), suspect.line_start, max(suspect.line_end, suspect.line_start), suspect.qualname))
    return out


def apply_mutant(code: str, mutant: Mutant) -> str:
    """The module text with the mutant's edit applied."""
    return _apply_text(code, mutant)


def _apply_text(code: str, mutant: Mutant) -> str:
    lines = code.split("\n")
    e = mutant.edit

    def offset(line: int, col: int) -> int:
        if not 1 <= line <= len(lines):
            raise IndexError(line)
        return sum(len(x) + 1 for x in lines[: line - 1]) + col - 1

    return code[: offset(e.start.line, e.start.col)] + e.new_text + code[offset(e.end.line, e.end.col) :]


_TEST_FILE = re.compile(r"(^test_.*|.*_test)\.py$")
_SKIP_DIRS = paths.SKIP_DIRS | {"build", "dist"}  # copies a build or packaging step left


def importing_test_modules(root: Path, rel: str, exclude: list[str]) -> list[str]:
    """Test modules (relative paths) whose text imports the module at `rel` or its package.

    A cheap text scan: the dotted module name, ``from <package> import <module>``,
    or an import of its top-level package (packages re-export their modules'
    functions, so ``from toolz import merge`` reaches toolz/dicttoolz.py).
    """
    parts = rel.removesuffix(".py").split("/")
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts:
        return []
    dotted = ".".join(parts)
    top = re.escape(parts[0])
    pattern = re.compile(
        rf"(\b{re.escape(dotted)}\b|^\s*(from|import)\s+{top}\b|^\s*from\s+\.+\s*import\s+{re.escape(parts[-1])}\b)",
        re.MULTILINE,
    )
    out: list[str] = []
    skip = set(exclude)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if not _TEST_FILE.match(name):
                continue
            path = Path(dirpath) / name
            relpath = path.relative_to(root).as_posix()
            if relpath in skip:
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if pattern.search(text):
                out.append(relpath)
    return out[:MAX_WIDENED]


# Failures the interpreter's own hints address (missing names and modules).
_HINTED = frozenset({"NameError", "UnboundLocalError", "ImportError", "ModuleNotFoundError"})


@dataclass
class _Plan:
    """One mutant to try for one failure."""

    mutant: Mutant
    rel: str
    score: float
    suspect: tuple[str, str] = ("", "")  # (relative file, qualname) of the suspect it mutates
    index: int = 0  # the suspect's rank in the failure's list
    rank: int = 0  # the mutant's rank among that suspect's


class _Search:
    def __init__(
        self, workspace: Path, scratch: Path, failing: list[TestFailureRecord], runner: Runner, stats: SearchStats
    ) -> None:
        self.workspace = workspace
        self.scratch = scratch
        self.failing = failing
        self.runner = runner
        self.stats = stats
        self.fast: FastFilter | None = None
        self.target_ids = [f.node_id for f in failing]
        self.modules = sorted({f.node_id.split("::")[0] for f in failing})
        self.before: dict[tuple[str, ...], dict[str, bool] | None] = {}
        self.confirm_s = 0.0
        self.started = time.monotonic()
        self.originals: dict[str, str] = {}
        self.base_messages: dict[str, str] = {}  # how the failing tests fail without a mutant
        self.evidence: dict[tuple[str, str], MutantEvidence] = {}

    # -- setup ----------------------------------------------------------------
    def baseline(self) -> str:
        """"" when the search can go on, else the reason to stop."""
        keys = {key_of_node_id(i) for i in self.target_ids}
        if fork_available():
            fast = FastFilter(self.runner, self.modules)
            if fast.start():
                # the unmutated run may be slow (the fault can make a test crawl): let it use up
                # to a third of what is left rather than a fixed few seconds
                fast.timeout = max(fast.timeout, self.runner.remaining() / 3)
                hang = all(f.outcome == "timeout" for f in self.failing)
                if hang:  # the failure is a hang: a mutant that fixes it ends well within a short timeout
                    fast.timeout = min(HANG_TIMEOUT_S, self.runner.remaining() / 3)
                status, outcomes, seconds = fast.run(self.target_ids, None)
                if hang and status == "timeout":
                    self.stats.notes.append(f"the failing tests hang; mutants run against a {fast.timeout:.1f} s timeout")
                    self.base_messages = {}
                    self.fast = fast
                    self.stats.mode = "fork"
                    return ""
                if status == "ok" and outcomes is not None and keys <= set(outcomes):
                    if not any(not outcomes[k] for k in keys):
                        fast.close()
                        return self._baseline_passes()
                    fast.timeout = max(1.5, 4 * seconds + 0.5)
                    self.base_messages = junit_failures(fast.junit)
                    self.fast = fast
                    self.stats.mode = "fork"
                    return ""
                self.stats.notes.append(f"fork worker baseline unusable ({status}); running in subprocesses")
            else:
                self.stats.notes.append("fork worker did not start; running in subprocesses")
            fast.close()
        self.stats.mode = "subprocess"
        first = self.runner.run(self.target_ids)
        if first is not None and not (keys <= set(first)):
            self.runner.with_plugins()  # collection needed an entry-point plugin
            self.stats.notes.append("running with entry-point plugins")
            first = self.runner.run(self.target_ids)
        if first is None:
            return "budget"
        self.base_messages = junit_failures(self.runner.junit)
        if not any(not first.get(k, True) for k in keys):
            return self._baseline_passes()
        return ""

    def _baseline_passes(self) -> str:
        self.stats.notes.append("the failing tests pass in a clean copy (flaky or environment-dependent)")
        return "baseline-passes"

    # -- candidates -------------------------------------------------------------
    def plans(self, failure: TestFailureRecord) -> list[_Plan]:
        out: list[_Plan] = []
        for index, (rel, first, last, qualname) in enumerate(_suspect_files(failure, self.workspace)):
            original = self.original(rel)
            if original is None:
                continue
            focus = failure.impl_line if failure.impl_file.endswith(rel) else 0
            got_none = failure.actual_value.strip() == "None" or "NoneType" in failure.message
            mutants = mutants_for(original, rel, first, last, expected_value(failure.expected_value), focus,
                                  failure.exception_type, got_none)
            for rank, mutant in enumerate(mutants[:MAX_MUTANTS_PER_SUSPECT]):
                near = focus_bonus(failure.exception_type) if focus and mutant.line == focus else 0.0
                score = mutant.prior + near - SUSPECT_PENALTY * index - rank * 1e-6
                out.append(_Plan(mutant, rel, score, (rel, qualname), index, rank))
        return sorted(out, key=lambda p: -p.score)

    def ordered(self, failure: TestFailureRecord) -> Iterator[_Plan]:
        """A cheap first pass over the top suspects (a few likeliest mutants each, round-robin), then
        the rest, reordered by what the cheap pass saw: suspects whose mutants fixed or changed the
        failure first; the concentrated search stays on the top MAX_SUSPECTS unless the evidence
        points further down."""
        plans = self.plans(failure)
        cheap = [p for p in plans if p.rank < CHEAP_PER_SUSPECT]
        cheap.sort(key=lambda p: (p.rank, p.index))
        yield from cheap
        rest = [p for p in plans if p.rank >= CHEAP_PER_SUSPECT]

        def weight(p: _Plan) -> float | None:
            ev = self.evidence.get(p.suspect)
            mut = ev.score() if ev is not None and ev.tried else None
            if p.index >= MAX_SUSPECTS and (mut is None or mut < 0.45):
                return None  # below the top suspects and nothing says it matters
            return p.score + CONCENTRATE * ((mut if mut is not None else NEUTRAL) - NEUTRAL)

        weighted = [(w, p) for p in rest if (w := weight(p)) is not None]
        weighted.sort(key=lambda wp: -wp[0])
        yield from (p for _w, p in weighted)

    def note_outcome(self, plan: _Plan, outcomes: dict[str, bool], messages: dict[str, str]) -> None:
        """Mutation-informed localization: count what this mutant did to the failing tests."""
        file, qualname = plan.suspect
        if not file:
            return
        ev = self.evidence.setdefault(plan.suspect, MutantEvidence(file, qualname))
        ev.tried += 1
        keys = [key_of_node_id(i) for i in self.target_ids]
        if any(outcomes.get(k) for k in keys):
            ev.fixed += 1
        elif any(k in outcomes and messages.get(k, "") != self.base_messages.get(k, "") for k in keys):
            ev.changed += 1

    def original(self, rel: str) -> str | None:
        if rel not in self.originals:
            try:
                self.originals[rel] = (self.scratch / rel).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
        return self.originals[rel]

    # -- stage 1: the filter --------------------------------------------------------
    def passes_filter(self, plan: _Plan, failure: TestFailureRecord, mutated: str) -> list[TestFailureRecord] | None:
        """The failing records the mutant fixes (the target among them), or None."""
        outcomes: dict[str, bool] | None = None
        if self.fast is not None and self.fast.alive:
            m = plan.mutant
            patch = {"file": str(self.scratch / plan.rel), "source": mutated,
                     "start": m.edit.start.line, "end": m.edit.end.line}
            status, outcomes, _s = self.fast.run(self.target_ids, patch)
            junit = self.fast.junit
            if status == "timeout":
                self.stats.timeouts += 1
                return None
            if status == "budget":
                return None
            if status == "unpatchable" or status == "dead":
                self.stats.fallbacks += 1
                outcomes = self._slow(plan.rel, mutated, self.target_ids, False)
                junit = self.runner.junit
        else:
            outcomes = self._slow(plan.rel, mutated, self.target_ids, False)
            junit = self.runner.junit
        if outcomes is None:
            return None
        self.note_outcome(plan, outcomes, junit_failures(junit))
        fixed = [f for f in self.failing if outcomes.get(key_of_node_id(f.node_id))]
        return fixed if failure in fixed else None

    def _slow(self, rel: str, mutated: str, targets: list[str], stop_first: bool) -> dict[str, bool] | None:
        path = self.scratch / rel
        try:
            path.write_text(mutated, encoding="utf-8")
            return self.runner.run(targets, stop_first)
        finally:
            path.write_text(self.originals[rel], encoding="utf-8")

    # -- stage 2: the judge --------------------------------------------------------
    def confirm(self, plan: _Plan, failure: TestFailureRecord, mutated: str) -> tuple[str, dict[str, Any]]:
        """("validated" | "partial" | "rejected", what the check covered).

        A fresh subprocess over the failing module(s), then over every other test module that imports
        the changed one: only when both pass is the edit validated.  When the budget ends before the
        importers ran, the edit is "partial" (it fixes the failing tests; the rest is unchecked), so a
        weak test cannot get an edit kept that changes what other tests check."""
        t0 = time.monotonic()
        ok = self._judge(plan.rel, mutated, self.modules, must_pass=[failure.node_id])
        self.confirm_s = max(self.confirm_s, time.monotonic() - t0)
        covered: dict[str, Any] = {"checked": list(self.modules), "unchecked": []}
        if not ok:
            return "rejected", covered
        widened = importing_test_modules(self.scratch, plan.rel, self.modules)
        if not widened:
            return "validated", covered
        if self.runner.remaining() < 1.5 * self.confirm_s + 1.0:
            covered["unchecked"] = widened
            return "partial", covered
        if not self._judge(plan.rel, mutated, widened, must_pass=[]):
            return "rejected", covered
        self.stats.widened += 1
        covered["checked"] += widened
        return "validated", covered

    def _judge(self, rel: str, mutated: str, targets: list[str], must_pass: list[str]) -> bool:
        must = {key_of_node_id(node) for node in must_pass}
        after = self._slow(rel, mutated, targets, True)  # -x: a broken mutant stops early
        if after is None:
            return False
        failed = {k for k, ok in after.items() if not ok}
        if not failed:
            return must <= set(after)
        if failed & must:
            return False
        before = self._before(targets)  # only now is a run of the original needed
        if before is None:
            return False
        broken_before = {k for k, ok in before.items() if not ok}
        if not failed <= broken_before:
            return False
        after = self._slow(rel, mutated, targets, False)  # -x stopped at an old failure: see them all
        if after is None:
            return False
        return all(after.get(k, False) for k in must) and {k for k, ok in after.items() if not ok} <= broken_before

    def _before(self, targets: list[str]) -> dict[str, bool] | None:
        key = tuple(targets)
        if key not in self.before:
            self.before[key] = self.runner.run(targets)
        return self.before[key]

    # -- the loop -----------------------------------------------------------------
    def run(self, max_validated: int, per_failure: int) -> list[FixCandidate]:
        found: list[FixCandidate] = []
        fixed_ids: set[str] = set()
        seen: set[tuple[str, int, int, int, int, str]] = set()
        unsolved = 0
        for failure in self.failing:
            if failure.failure_id in fixed_ids:
                continue  # a validated candidate already makes this one pass
            mine = 0
            for plan in self.ordered(failure):
                if mine >= per_failure:
                    break
                if plan.mutant.key in seen:
                    continue
                seen.add(plan.mutant.key)
                if self.runner.remaining() <= max(0.5, self.confirm_s):
                    self.stats.stopped = "budget"
                    return found
                cand = self.try_one(plan, failure)
                if cand is None:
                    continue
                found.append(cand)
                fixed_ids.update(cand.mutation.get("fixes", []))
                mine += 1
                if len(found) >= max_validated:
                    self.stats.stopped = "enough"
                    return found
            unsolved += mine == 0
        self.stats.stopped = self.stats.stopped or ("exhausted" if unsolved else "found")
        return found

    def try_one(self, plan: _Plan, failure: TestFailureRecord) -> FixCandidate | None:
        original = self.original(plan.rel)
        if original is None:
            return None
        try:
            mutated = _apply_text(original, plan.mutant)
        except (IndexError, ValueError):
            return None
        self.stats.tried += 1
        fixed = self.passes_filter(plan, failure, mutated)
        if fixed is None:
            return None
        self.stats.fast_passed += 1
        verdict, covered = self.confirm(plan, failure, mutated)
        if verdict == "rejected":
            if self.runner.remaining() > 0.5:
                self.stats.confirm_rejected += 1
            return None
        validated = verdict == "validated"
        self.stats.validated += validated
        if validated and self.stats.first_validated_s is None:
            self.stats.first_validated_s = round(time.monotonic() - self.started, 3)
        mutant = plan.mutant
        checked, unchecked = covered["checked"], covered["unchecked"]
        detail = f"makes {len(fixed)} failing test(s) pass, breaks none in {len(checked)} test module(s) run"
        if unchecked:
            detail += f"; NOT checked in {len(unchecked)} other test module(s) that import it (out of budget)"
        elif len(checked) > len(self.modules):
            detail += f", {len(checked) - len(self.modules)} of them other modules that import it"
        else:
            detail += "; no other test module imports it"
        prior = min(0.8 + 0.15 * mutant.prior, 0.97) if validated else 0.6 + 0.1 * mutant.prior
        return record_hashes(
            FixCandidate(
                target_id=failure.failure_id,
                description=f"{mutant.description} ({'validated' if validated else 'partly checked'}: {detail})",
                confidence=round(prior, 3),
                mutation_type="rename" if mutant.kind == "name" else "replaceNode",
                mutation={"kind": mutant.kind, "fixes": [f.failure_id for f in fixed],
                          "checked": checked, "unchecked": unchecked},
                edits=[mutant.edit],
                source="search",
                validated=validated,
            ).ensure_id(),
            self.workspace,
        )

    def close(self) -> None:
        if self.fast is not None:
            self.fast.close()


def search_candidates(
    failures: list[TestFailureRecord],
    workspace: Path,
    budget_s: float = 20.0,
    *,
    python: str | None = None,
    stats: SearchStats | None = None,
    max_validated: int = 3,
    per_failure: int = 1,
) -> list[FixCandidate]:
    """Validated candidates found within the budget (possibly none); `stats` says what was done."""
    stats = stats if stats is not None else SearchStats()
    start = time.monotonic()
    workspace = Path(workspace)
    if budget_s <= 0:
        stats.stopped = "disabled"
        return []
    failing = [
        f
        for f in failures
        if f.runner in ("pytest", "unknown")
        and f.node_id
        and f.suspects
        and f.exception_type not in _HINTED  # small edits cannot add an import; the hints do
    ]
    if not failing:
        stats.stopped = "no-suspects"
        return []
    scratch = scratch_copy(workspace)
    search: _Search | None = None
    try:
        runner = Runner(scratch, python or sys.executable, start + budget_s, stats)
        search = _Search(workspace, scratch, failing, runner, stats)
        reason = search.baseline()
        if reason:
            stats.stopped = reason
            return []
        return rank_candidates(search.run(max_validated, per_failure))
    finally:
        if search is not None:
            search.close()
            stats.evidence = [ev.to_dict() for ev in search.evidence.values()]
        stats.elapsed_s = round(time.monotonic() - start, 3)
        shutil.rmtree(scratch.parent, ignore_errors=True)
        _log_stats(stats)


def _log_stats(stats: SearchStats) -> None:
    """Append the stats to $WHETSTONE_SEARCH_LOG (a JSON line) when set: for benchmarks and debugging."""
    path = os.environ.get("WHETSTONE_SEARCH_LOG")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(stats.to_dict()) + "\n")
    except OSError:
        pass
