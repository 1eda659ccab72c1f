"""A validated mutant search for C/C++ and JavaScript test failures (gtest, ctest, Jest, node, ...).

At the top suspects that :mod:`..locate.native_tests` ranked, small edits from tree-sitter nodes
(:mod:`.native_mutants`) are tried through a *trial* (:mod:`.native_trial`): C/C++ recompiles the
mutated unit with its recorded command and relinks the test binary in scratch space
(:mod:`.native_trial_cxx`), JS runs the failing test files in a scratch copy
(:mod:`.native_trial_js`).  Nothing in the user's tree is written.

1. **Baseline**: the failing tests must fail on the unchanged code as they did in the run; those
   that pass there are flaky and are left alone.
2. **A cheap first pass** covers the top suspects evenly (a few mutants each), so every suspect gets
   evidence before the search concentrates on the one whose mutants change the failure.
3. A mutant that makes a failing test pass is checked wider (the whole binary or the whole suite);
   it becomes a candidate, ``validated`` when nothing else broke, and says what the check covered.
4. What each suspect's mutants did re-ranks the suspects (mutation-informed localization,
   :mod:`..locate.mutation`), and the statistics go to the session.

Bounded by the budget's wall time and a mutant count; a mutant that does not compile, loops or
crashes costs one trial, never a hang.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..edits import TEXT_ERRORS, EditError, apply_edits_text
from ..locate.mutation import MutantEvidence, lead_with_fix, rerank
from ..locate.native_tests import family_of
from ..locate.v8coverage import counts_itself
from ..records import FixCandidate, Suspect, TestFailureRecord, rank_candidates
from .mutant import Mutant
from .native_candidate import validated_candidate
from .native_partial import PartialGate, complete_count, enough, natural_first, only_doubtful
from .native_plan import OrderClock, Planner, _Plan, rose, same_line, sibling_plans, surest_first
from .native_probe import probe_tests
from .native_screen import Screen, is_header
from .native_search_early import early_schemata, score_while
from .native_search_spectrum import lines_from_schemata, locate_by_spectrum
from .native_search_stats import NativeSearchStats, trace_mutant
from .native_trial import Trial, TrialOutcome, start_warm_up, trial_family, trial_for
from .naturalness import Naturalness, rank_by_naturalness

MAX_MUTANTS = 60  # mutants compiled alone per search, whatever the budget
MAX_SCREENED = 3000  # mutants screened through schemata per search (a few ms each: the budget decides first)
TRIAL_TIMEOUT_S = 20.0
WORKERS = max(1, min(2, os.cpu_count() or 1))  # trials at once: compiles and test runs use a core each
PARTIAL_GRACE = 8  # trials spent looking for a fix of every failing test after one that fixes some
PARTIAL_NEAR = 12  # edits of a partial fix's line tried first, beyond PARTIAL_GRACE
FAILING_TIMEOUT_FACTOR = 5.0  # a mutant's run of the failing tests is stopped at this many times the baseline's
DOUBT_TRIALS = 40  # trials spent looking for a natural complete fix after only doubtful ones (budget allowing)
ALONE_FACTOR = 2.0  # a mutant compiled alone (real flags) against its file's fast schema compile
HEADER_ALONE_UNITS = 8  # units a header's mutant recompiles when it is compiled alone, at most


def native_search_candidates(
    failures: list[TestFailureRecord],
    workspace: Path,
    budget_s: float,
    *,
    store: Path | None = None,
    command: str | None = None,
    stats: NativeSearchStats | None = None,
    max_validated: int = 3,
) -> list[FixCandidate]:
    """Candidates the search found within the budget (possibly none); suspects re-ranked in place."""
    stats = stats if stats is not None else NativeSearchStats()
    started = time.monotonic()
    workspace = Path(workspace).resolve()
    found: list[FixCandidate] = []
    if budget_s <= 0:
        stats.stopped = "disabled"
        return found
    groups: dict[str, list[TestFailureRecord]] = {}
    for failure in failures:
        if failure.suspects and not failure.flaky:
            groups.setdefault(trial_family(failure), []).append(failure)
    if not groups:
        stats.stopped = "no-suspects"
        return found
    deadline = started + budget_s
    naturalness = Naturalness(workspace)
    try:
        for family, group in groups.items():
            trials: list[Trial] = []
            why = ""
            for _ in range(WORKERS):  # one trial per worker: each owns its scratch objects or copy
                with stats.timed("setup"):
                    trial, why = trial_for(family, group, workspace, store, command, min(TRIAL_TIMEOUT_S, budget_s))
                if trial is None:
                    break
                share = getattr(trial, "share_with", None)
                if share is not None and trials:
                    share(trials[0])  # what the first trial compiles once, the others reuse
                trials.append(trial)
            if not trials:
                stats.notes.append(why)
                stats.stopped = stats.stopped or "no-trial"
                continue
            probe = probe_tests(group)
            if probe is not None and all(hasattr(t, "focus") for t in trials):
                for trial in trials:
                    trial.focus({f.failure_id for f in probe})  # type: ignore[attr-defined]
                stats.notes.append(f"probe: {len(probe)} of {len(group)} failing tests, the cheapest, run per mutant")
            stop_warm = threading.Event()
            warm = start_warm_up(trials[0], stop_warm)
            try:
                found += _Search(trials, group, workspace, deadline, stats, probe=probe,
                                 naturalness=naturalness).run(max_validated - len(found))
            finally:
                stop_warm.set()
                if warm is not None:
                    warm.join()  # at most the compile under way: it writes into a trial's scratch
                for trial in trials:
                    trial.close()
            if len(found) >= max_validated:
                break
    finally:
        stats.elapsed_s = round(time.monotonic() - started, 3)
    ranked = rank_candidates(rank_by_naturalness(found, workspace, naturalness))
    for failure in failures:
        top = next((c for c in ranked if c.validated and c.edits and failure.failure_id in c.mutation.get("fixes", [])),
                   None)
        if top is not None:
            failure.place_suspects(lead_with_fix(failure.suspects, top.edits[0].file_path, top.edits[0].start.line))
    return ranked


def bound_failing_runs(trials: list[Trial], baseline_s: float) -> None:
    """Stop a mutant's run of the failing tests at a few times the baseline's, not at the search's whole
    time limit: one mutant that loops, compiled alone, could otherwise spend the whole budget."""
    for trial in trials:
        trial.failing_timeout_s = min(trial.failing_timeout_s, max(
            trial.FAILING_TIMEOUT_MIN_S, FAILING_TIMEOUT_FACTOR * baseline_s + 1.0))


class _Search(Planner):
    def __init__(self, trials: list[Trial], failures: list[TestFailureRecord], workspace: Path, deadline: float,
                 stats: NativeSearchStats, *, probe: list[TestFailureRecord] | None = None,
                 naturalness: Naturalness | None = None) -> None:
        self.trials = trials
        self.trial = trials[0]
        self.failures = failures
        self.probe = probe if probe is not None else failures  # the failing tests a mutant's first run covers
        self.workspace = workspace
        self.deadline = deadline
        self.stats = stats
        self.naturalness = naturalness or Naturalness(workspace)  # which complete fixes read worse than the code
        self.natural: dict[tuple[str, int, int, int, int, str], float] = {}  # and the order of the mutants
        self.generated: dict[tuple[Any, ...], list[Mutant]] = {}  # every_mutant's, once per function
        self.evidence: dict[tuple[str, str], MutantEvidence] = {}
        self.texts: dict[str, str | None] = {}
        self.base: TrialOutcome | None = None
        self.screen: Screen | None = None
        self.spectrum: Any = None  # locate.native_spectrum.Spectrum, when one was taken
        self.spectrum_names: dict[str, str] = {}  # failure id -> its test's name in the spectrum
        self.static_suspects: dict[str, list[Suspect]] = {}  # failure id -> its suspects before the spectrum
        self.lines_complete = False  # the spectrum's lines hold every searched failing test's run (see unreached)
        # (file, qualname) -> its Suspect or Func, for every function mutated: one whose mutant fixes a
        # failing test joins the suspects of every failure it is not among yet (see finish)
        self.planned: dict[tuple[str, str], Any] = {}
        self.later: list[_Plan] = []  # mutants of the suspects past the top ones (see plans)
        self.widened: set[tuple[str, str]] = set()
        self.alone_s: dict[bool, list[float]] = {False: [], True: []}  # compiled alone: header? -> seconds
        self.ran: dict[tuple[str, str], bool] = {}  # (file, qualname) -> the failing tests ran some of it
        self.unbuildable: set[str] = set()  # files no trial can build (TrialOutcome.unbuildable)
        self.partials = PartialGate()  # which fixes of some failing tests are worth a validation
        # mutants take turns by function (see ordered_rest): with schemata, and for JS, where a trial is a test run
        self.turns = bool(failures and failures[0].suspects and family_of(failures[0].suspects[0].file_path) == "js")
        self.started = time.monotonic()

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def free_trials(self) -> list[Trial]:
        """The trials a batch may use: all but the one building a schema again (see Screen.prepare)."""
        busy = self.screen.busy() if self.screen is not None else None
        return [t for t in self.trials if t is not busy] or self.trials[:1]

    def original(self, rel: str) -> str | None:
        if rel not in self.texts:
            try:
                self.texts[rel] = (self.workspace / rel).read_text(encoding="utf-8", errors=TEXT_ERRORS)
            except (OSError, UnicodeDecodeError):
                self.texts[rel] = None
        return self.texts[rel]

    # ----------------------------------------------------------------- run

    def run(self, wanted: int) -> list[FixCandidate]:
        t0 = time.monotonic()
        with self.stats.timed("baseline"):
            self.base = self.trial.baseline()
        self.stats.baseline_s = round(time.monotonic() - t0, 3)
        if self.base.error:
            self.stats.notes.append(f"baseline: {self.base.error}")
            self.stats.stopped = "baseline-error"
            return []
        bound_failing_runs(self.trials, self.base.seconds)
        live = [f for f in self.probe if f.failure_id in self.base.failing]
        if not live:
            self.stats.stopped = "baseline-passes"
            self.stats.notes.append("the failing tests pass when re-run alone: not searched")
            return []
        if all(hasattr(t, "run_schema") and getattr(t, "can_screen", True) for t in self.trials):
            self.screen = Screen(self.base, self.original, self.deadline, min(TRIAL_TIMEOUT_S, self.remaining()))
        stop = threading.Event()
        early = early_schemata(self, live[0], stop)
        try:
            with self.stats.timed("spectrum"):
                locate_by_spectrum(self, live)
        finally:  # the early build never outlives the spectrum, nor uses a trial the search has closed
            stop.set()  # files not started yet wait for the plan made after the spectrum
            if early is not None and self.screen is not None:
                with self.stats.timed("schemata"):
                    score_while(self, live[0], lambda: not early.is_alive())
                    early.join()
                self.screen.forget_pending()
        # each test's lines from the schemata the static plan built, before the plan is made again: that plan
        # then asks for what the lines single out, and its file's schema is built again once, not once for the
        # spectrum's plan and once more for the lines' (a big file's rebuild takes seconds of a 20 s search)
        lines_from_schemata(self, live)
        found: list[FixCandidate] = []
        fixed_ids: set[str] = set()  # failures a complete candidate already makes pass
        seen: set[tuple[str, int, int, int, int, str]] = set()
        for failure in surest_first(live):
            if failure.failure_id in fixed_ids:
                continue
            with self.stats.timed("plans"):
                plans = self.plans(failure)
                queue, rest = self.first_pass(plans)
            if lines_from_schemata(self, live):  # no line table: each test's lines, from the schemata just built
                with self.stats.timed("plans"):
                    plans = self.plans(failure)
                    queue, rest = self.first_pass(plans)
            ordered = False
            if not queue:  # nothing screened up front (no schema could be built): the rest, in order
                queue, ordered = self.ordered_rest(failure, rest), True
            if not queue:
                queue = self.take_later(None if found else failure)
            deferred: list[_Plan] = []  # mutants a schema being built again will screen (see Screen.will_cover)
            after_partial = -1  # trials left to look for a complete fix once a partial one is found
            doubt_left = -1  # trials left to look for a natural complete fix once only doubtful ones are found
            last_standing, order_clock = self.standing(), OrderClock()
            near: list[_Plan] = []  # the edits of a partial fix's line: tried first (see same_line)
            lent = False  # a schema the search's own trial just built (Screen.lend) is in
            hold = False  # the next mutant needs a compile of its own while others wait for a schema being built
            while (near or queue or deferred) and after_partial != 0 and doubt_left != 0:
                idle = not (near or queue) or hold  # what is left waits for a schema being built: build one, or wait
                ended = lent or self.screen is not None and (self.screen.settle(wait=False) or idle and (
                    self.screen.lend(self.free_trials()[0]) or self.screen.settle(wait=True)))  # type: ignore[arg-type]
                lent = hold = False
                if deferred and (ended or not (near or queue)):
                    # the schema built again screens them now: they take their turns among the rest
                    if ordered:
                        queue = self.ordered_rest(failure, queue + deferred)
                    else:
                        rest += deferred
                    deferred = []
                batch: list[_Plan] = []
                free = self.free_trials()
                if ordered:  # a file's schema built again before the mutants it holds run out (see offer_past)
                    self.offer_past(queue)
                while (near or queue) and len(batch) < len(free):
                    ahead = near if near else queue
                    plan = ahead.pop(0)
                    if not queue and not ordered:
                        queue, ordered = self.ordered_rest(failure, rest), True
                    if not queue:  # widened only while nothing is found: not to dodge a doubtful fix elsewhere
                        queue = self.take_later(None if found else failure)
                    if plan.mutant.key in seen:
                        continue
                    if ordered:  # or at the latest when the first mutant it does not hold comes up
                        self.offer_past(queue, plan)
                    if self.screen is not None and self.screen.will_cover(plan.mutant):
                        deferred.append(plan)  # a compile of its own now, a screened run once that schema is in
                        # next in order, it waits for its file, not started yet: the search's trial builds it now
                        lent = not batch and self.screen.lend(free[0], plan.rel)  # type: ignore[arg-type]
                        if lent:
                            break
                        continue
                    seen.add(plan.mutant.key)
                    skip = self.skip_reason(plan)
                    if skip == "rejected":
                        self.stats.rejected += 1  # its own text does not compile: costs no trial
                    elif skip == "unreached":
                        self.not_reached(plan)  # the failing tests never run it: it cannot change them
                    elif skip == "priced-out":
                        self.stats.priced_out += 1  # a header's mutant alone: cheaper ones may still fit
                    if skip:
                        trace_mutant(plan.rel, plan.qualname, plan.mutant, skip=skip)
                        continue
                    if deferred and self.screen is not None and self.screen.busy() is not None \
                            and not self.screen.covers(plan.mutant):
                        # a compile of its own (a header's schema: seconds) while mutants ahead of it in order wait
                        # for a schema being built: those go first (utils.h's schema had double-conversion's trial
                        # for 10 s while string-to-double.cc's, built beside it, waited to screen)
                        seen.discard(plan.mutant.key)
                        (near if ahead is near else queue).insert(0, plan)
                        hold = not batch
                        break
                    batch.append(plan)
                if not batch:
                    continue
                if self.stats.tried - self.stats.screened >= MAX_MUTANTS or self.stats.tried >= MAX_SCREENED:
                    self.stats.stopped = "count"
                    return self.finish(found)
                if self.remaining() < self.estimate():
                    self.stats.stopped = "budget"
                    return self.finish(found)
                complete = False
                winner: _Plan | None = None
                for plan, text, outcome, trial in self.run_batch(batch):
                    trace_mutant(plan.rel, plan.qualname, plan.mutant, outcome)
                    after_partial -= after_partial > 0
                    doubt_left -= doubt_left > 0
                    cand = self.judge(plan, text, outcome, trial, len(live) + len(self.failures) - len(self.probe))
                    if cand is None:
                        continue
                    found.append(cand)
                    if enough(found, wanted):
                        self.stats.stopped = "enough"
                        return self.finish(found)
                    if cand.mutation.get("complete"):
                        fixed_ids.update(cand.mutation.get("fixes", []))
                        if failure.failure_id in fixed_ids and winner is None:
                            # the batch's other runs are judged too: they ran, and may be fixes as well
                            complete, winner = True, plan
                        continue  # one that fixes another failing test only: keep looking for this one
                    if after_partial < 0:
                        after_partial = PARTIAL_GRACE  # one edit may still fix every failing test: look a little
                        # (its own line first, those edits beyond the grace)
                        near = same_line(plan, self.pending(queue, rest, ordered) + self.whole_line(plan),
                                         seen)[:PARTIAL_NEAR]
                        after_partial += len(near)
                if complete:
                    if winner is not None and doubt_left < 0:
                        found += self.siblings(winner, self.pending(queue, rest, ordered) + self.whole_line(winner), seen,
                                               wanted - complete_count(found),
                                               len(live) + len(self.failures) - len(self.probe))
                    doubtful = only_doubtful(self.naturalness, found, failure)
                    if complete_count(found) < wanted and (doubtful or not complete_count(found)):
                        # every fix found reads worse than the code it replaces, or leaves some failing
                        # tests failing as before (another fault's, or a caller's edit that dodges this
                        # one): look on a while for a better one (it outranks them)
                        if doubt_left < 0:
                            self.stats.doubted += 1
                            doubt_left = DOUBT_TRIALS
                            if doubtful:
                                queue = natural_first(self, queue + ([] if ordered else rest) + self.take_later(), seen)
                                ordered = True
                        continue
                    break
                standing = self.standing()
                if ordered and queue and standing != last_standing and (
                        rose(last_standing, standing) or order_clock.due()):
                    # what this batch's mutants did moves the suspects' remaining mutants: a function whose
                    # mutants change the failure takes its turns sooner at once; one whose mutants keep
                    # changing nothing gives its turns away within a few batches (see OrderClock)
                    with self.stats.timed("order"), order_clock:
                        queue = self.ordered_rest(failure, queue)
                    last_standing = standing
        self.stats.stopped = self.stats.stopped or (
            "found" if found else "budget" if self.stats.priced_out else "exhausted")
        return self.finish(found)

    def pending(self, queue: list[_Plan], rest: list[_Plan], ordered: bool) -> list[_Plan]:
        """What the search has still to try for this failure, in order: the queue, the rest of the plan
        when it has not joined the queue yet, then the suspects past the top ones."""
        return queue + ([] if ordered else rest) + self.later

    def siblings(self, winner: _Plan, pending: list[_Plan], seen: set[tuple[str, int, int, int, int, str]], room: int,
                 failing: int) -> list[FixCandidate]:
        """Other edits of the line a complete fix was found on, tried before the search stops (a few
        screened runs): the tests may not tell them apart (`count = 0` and `count = 1` both pass),
        and then the likeliest original is the most natural of them
        (:func:`.naturalness.rank_by_naturalness`).  Complete fixes only."""
        todo = sibling_plans(winner, pending, seen)
        out: list[FixCandidate] = []
        while todo and len(out) < room:
            batch: list[_Plan] = []
            while todo and len(batch) < len(self.free_trials()):
                plan = todo.pop(0)
                seen.add(plan.mutant.key)
                if self.skip_reason(plan) or self.remaining() < self.estimate():
                    continue
                batch.append(plan)
            self.stats.siblings += len(batch)
            for plan, text, outcome, trial in self.run_batch(batch):
                cand = self.judge(plan, text, outcome, trial, failing)
                if cand is not None and cand.mutation.get("complete"):
                    out.append(cand)
        return out[:room]

    def skip_reason(self, plan: _Plan) -> str:
        """Why ``plan`` costs no trial ("" when it is worth one): no trial can build its file
        ("unbuildable"), its text does not compile ("rejected"), the failing tests never run it
        ("unreached"), or its own compile does not fit the time left ("priced-out")."""
        if plan.rel in self.unbuildable:
            return "unbuildable"
        if self.screen is not None and self.screen.rejects(plan.mutant):
            return "rejected"
        if self.unreached(plan):
            return "unreached"
        if self.remaining() < self.cost(plan):
            return "priced-out"
        return ""

    def estimate(self) -> float:
        trials = self.stats.trial_s
        return statistics.median(trials) if trials else 0.5

    def cost(self, plan: _Plan) -> float:
        """What trying ``plan`` is expected to take: a screened run, or (C/C++) a compile of its own, which
        for a header's mutant is several units' compiles with the real flags."""
        screen = self.screen
        if screen is None or screen.covers(plan.mutant):
            return self.estimate() if screen is None else 0.0
        header = is_header(plan.rel)
        if header and not screen.settled(plan.mutant):
            return screen.header_cost()  # its first mutant builds its schema, which then screens the others
        if self.alone_s[header]:
            return statistics.median(self.alone_s[header])
        fast = statistics.median(screen.compile_s) if screen.compile_s else 0.25
        return ALONE_FACTOR * fast * (self.header_units(plan.rel) if header else 1)

    def header_units(self, rel: str) -> int:
        """How many units a mutant of header ``rel`` recompiles alone: as many as include it, when the
        trial can tell (kiwi's `symbolics.h`: three test files, not eight), at most HEADER_ALONE_UNITS."""
        count = getattr(self.trial, "units_including", None)
        units = count(rel) if count is not None else 0
        return min(HEADER_ALONE_UNITS, units) if units > 0 else HEADER_ALONE_UNITS

    def run_batch(self, batch: list[_Plan]) -> list[tuple[_Plan, str, TrialOutcome, Trial]]:
        """Each plan's failing tests on its own trial, the trials in parallel (they run compilers and test
        processes, so threads suffice); results in plan order."""
        jobs: list[tuple[_Plan, str, Trial]] = []
        free = self.free_trials()
        for plan in batch:
            original = self.original(plan.rel)
            if original is None:
                continue
            try:
                text = apply_edits_text(original, [plan.mutant.edit], plan.rel)
            except EditError:
                continue
            jobs.append((plan, text, free[len(jobs) % len(free)]))
        with self.stats.timed("mutants"):
            if len(jobs) <= 1:
                return [(plan, text, self.attempt(plan, text, trial), trial) for plan, text, trial in jobs]
            with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
                outcomes = list(pool.map(lambda job: self.attempt(*job), jobs))
        return [(plan, text, outcome, trial) for (plan, text, trial), outcome in zip(jobs, outcomes, strict=True)]

    def attempt(self, plan: _Plan, text: str, trial: Trial) -> TrialOutcome:
        """One mutant's failing tests: screened through its file's schema when it has one; compiled alone
        when it is not in one, or when the schema says it makes a failing test pass (so a candidate is
        always checked as it would be applied)."""
        why = "no-screen"
        if self.screen is not None:
            screened = self.screen.outcome(plan.mutant, trial)  # type: ignore[arg-type]
            why = "fix-check" if screened is not None else self.screen.left_out(plan.mutant)
            if screened is not None:
                base = self.base.failing if self.base else {}
                if screened.error or not any(fid in base for fid in screened.passed):
                    screened.screened = True
                    return screened
                if self.screen.breaks_others(plan.mutant, trial):  # type: ignore[arg-type]
                    screened.screened = screened.breaks_others = True
                    return screened
                if self.partials.weak(base, screened):  # fixes no test a validated fix does not: no compile
                    screened.screened = True
                    return screened
        # a fix the schema found is checked with the whole time limit: fixed, a test that failed fast may
        # run much longer than its baseline
        outcome = trial.run_failing(plan.rel, text, trial.timeout_s if why == "fix-check" else None)
        outcome.alone = why
        return outcome

    def unreached(self, plan: _Plan) -> bool:
        """Whether the failing tests never run the mutant's code, so it cannot change how they end: C/C++
        by its schema's own record, JS by V8's coverage of those tests (a one-line edit on a line none
        of them ran, whose count is its own: :func:`..locate.v8coverage.counts_itself`)."""
        if self.screen is not None:
            return self.screen.unreached(plan.mutant)
        edit = plan.mutant.edit
        if not self.lines_complete or self.spectrum is None or edit.start.line != edit.end.line \
                or self.spectrum.line_score(plan.rel, edit.start.line) != 0.0:
            return False
        lines = (self.original(plan.rel) or "").splitlines()
        return 0 < edit.start.line <= len(lines) and counts_itself(lines[edit.start.line - 1])

    def not_reached(self, plan: _Plan) -> None:
        """A mutant whose expression the failing tests never ran: it cannot change the failure, known
        without a run.  It is evidence against its function only when the tests ran none of the
        function's code: code a run skips inside a function that did run is what a fault that skips
        code (a loop that never starts, an early return) leaves behind, not a sign of innocence."""
        self.stats.unreached += 1
        key = (plan.rel, plan.qualname)
        if key not in self.ran:  # the schema's reach is final once it says a mutant was not reached
            fn = self.planned.get(key)
            self.ran[key] = fn is not None and self.screen is not None \
                and self.screen.reached_between(plan.rel, fn.line_start, fn.line_end)
        if self.ran[key]:
            return
        ev = self.evidence.setdefault((plan.rel, plan.qualname), MutantEvidence(plan.rel, plan.qualname))
        ev.tried += 1

    def judge(self, plan: _Plan, text: str, outcome: TrialOutcome, trial: Trial, failing: int) -> FixCandidate | None:
        """What one mutant's run says: evidence for its suspect, and a candidate when it fixes a failing test
        and the wider check on the same trial (which reuses what it built) breaks nothing."""
        if outcome.unbuildable:  # not a trial: no mutant of that file can be built (one note says why)
            if plan.rel not in self.unbuildable:
                self.unbuildable.add(plan.rel)
                said = self.stats.notes + (self.screen.notes if self.screen is not None else [])
                if not any(outcome.error in note for note in said):  # its schema's note may have said it
                    self.stats.notes.append(outcome.error[:200])
            return None
        self.stats.tried += 1
        self.stats.screened += outcome.screened
        self.stats.trial_s.append(outcome.seconds)
        if not outcome.screened:
            if not outcome.error.startswith("does not "):
                # what a compile of its own costs is read off those that built: a compile the compiler
                # rejected stops before code generation and the link (kiwi's headers: 0.8 s against 3.1 s)
                self.alone_s[is_header(plan.rel)].append(outcome.seconds)
            self.stats.count_alone(outcome.alone, is_header(plan.rel), outcome.seconds)
        ev = self.evidence.setdefault((plan.rel, plan.qualname), MutantEvidence(plan.rel, plan.qualname))
        if outcome.error:
            self.stats.errors += 1
            self.stats.timeouts += "timed out" in outcome.error
            return None  # says nothing about the fault: a mutant that does not build is not evidence
        ev.tried += 1
        base = self.base.failing if self.base else {}
        fixes = [f.failure_id for f in self.failures if f.failure_id in outcome.passed and f.failure_id in base]
        if not fixes:
            if any(outcome.failing.get(fid) != sig for fid, sig in base.items() if fid in outcome.failing):
                ev.changed += 1
            return None
        self.stats.fixed += 1
        if outcome.breaks_others:
            ev.changed += 1  # as a wider check that fails, below: known from the schema, no compile spent
            self.stats.wider_rejected += 1
            return None
        if self.partials.weak(base, outcome):
            # evidence as a validated fix of those tests is (its function earns its turns as before), no
            # candidate: the validation, a compile and the whole binaries' run, is what it saves
            ev.fixed += 1
            self.partials.passed_over += 1
            return None
        with self.stats.timed("wider"):
            wider = trial.run_wider(plan.rel, text)
        if not wider.ok:
            # it trades the failing test for another: the failure depends on the code, no more (a big
            # dispatcher's mutants do this all the time), so it counts as a change, not a fix
            ev.changed += 1
            self.stats.wider_rejected += 1
            return None
        ev.fixed += 1
        self.stats.validated += 1
        self.partials.validated(base, outcome)
        if self.stats.first_validated_s is None:
            self.stats.first_validated_s = round(time.monotonic() - self.started, 3)
        return validated_candidate(plan.mutant, base, outcome, wider, fixes, failing, self.workspace)

    def finish(self, found: list[FixCandidate]) -> list[FixCandidate]:
        if self.screen is not None:
            self.screen.settle(wait=True)  # the trials close after this: no build may still use one
            self.stats.schema = self.screen.stats()
            self.stats.notes += self.screen.notes
        self.stats.partial_passed_over = self.partials.passed_over
        evidence = [ev.to_dict() for ev in self.evidence.values() if ev.tried]
        self.stats.evidence += evidence
        self.stats.planned += [[rel, qualname] for rel, qualname in self.planned]
        for failure in self.failures:
            before = failure.suspects
            known = {(s.file_path, s.qualname) for s in before}
            joined = [Suspect(fn.file_path, fn.qualname, fn.line_start, fn.line_end, 0.0)
                      for ev in evidence if ev["fixed"] and (ev["file"], ev["qualname"]) not in known
                      for fn in [self.planned.get((ev["file"], ev["qualname"]))] if fn is not None]
            failure.place_suspects(rerank(before + joined, evidence))
        return found

