"""What the C/C++ and JS mutant search tries, and in which order (:mod:`.native_search` runs it).

The first pass gives each top suspect its few likeliest mutants, so every suspect gets evidence; then
the rest by prior, the suspect's static score, what its mutants did so far and the spectrum's line
scores.  With schemata (C/C++) the other functions the failing test ran in the suspects' files join
the plan (screening them costs test runs only) and mutants take turns by function.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..edits import TEXT_ERRORS
from ..locate.callgraph import body_calls
from ..locate.mutation import NEUTRAL, MutantEvidence
from ..locate.native_tests import family_of, functions_of_file, is_test_file
from ..records import TestFailureRecord
from .mutant import Mutant
from .native_mutants import MAX_MUTANTS, capped, mutants_in, value_mutants, with_values
from .native_screen import Screen
from .naturalness import Naturalness

TOP_SUSPECTS = 3  # suspects the search covers
SCREENED_SUSPECTS = 8  # when mutants are screened through schemata, a trial is a test run: cover more
FIRST_PASS = 3  # mutants per suspect before the search concentrates
NEIGHBOURS = 40  # with schemata, other functions of the suspects' files (those the failing test ran) join the plan
SURE_AFTER = 6  # mutants of a suspect before "none changed the failure" counts in full
CONCENTRATE = 1.0  # how far mutant evidence moves a suspect's remaining mutants
W_LINE = 0.6  # how far a mutated line's spectrum score moves its mutant (see line_bonus)
# how far a mutant moves per unit of log-probability its edit gains under the project's token model, at
# most NATURAL_CAP units either way (see natural_bonus)
W_NATURAL = 0.05
NATURAL_CAP = 5.0
SIBLINGS = 6  # other edits of a complete fix's line tried before the search stops
SIBLING_MIN_PRIOR = 0.5  # ... those at least this likely (or as likely as the fix found)
RAN_REST = 60  # functions the failing test ran, past the plan, the search widens to when time is left
# a re-order that only moves functions down waits until the batches since the last one took this many times
# what that one cost (see OrderClock)
ORDER_SPACING = 4.0
# ... and one that lifts a function (see rose) comes at once when its score rose this much: a first mutant that
# changed the failure lifts it by 0.05 at least (MutantEvidence.score), a share of such mutants ticking up less
ROSE_BY = 0.02
# a file's schema built again for the queue's mutants it does not hold (see offer_past): started this many of the
# longest schema compile so far before the ones it holds run out, when the time left holds PAST_ROOM of its own
PAST_AHEAD = 1.5
PAST_ROOM = 2.0
EARLY_ALONE_SHARE = 0.05  # of the time left, at most, for one early mutant that needs a compile of its own


@dataclass
class _Plan:
    failure: TestFailureRecord
    rel: str
    qualname: str
    mutant: Mutant
    suspect_index: int  # -1: a neighbour (see place)
    rank: int  # among this suspect's mutants
    place: int = -1  # the function's place among the failure's suspects (a neighbour's too): its share of turns

    def __post_init__(self) -> None:
        if self.place < 0:
            self.place = max(self.suspect_index, 0)


class Planner:
    """The search's plan: the state it reads is the search's own (:class:`.native_search._Search`)."""

    workspace: Path
    screen: Screen | None
    spectrum: Any  # locate.native_spectrum.Spectrum, when one was taken
    naturalness: Naturalness
    natural: dict[tuple[str, int, int, int, int, str], float]  # mutant key -> its natural_bonus, once computed
    plain_order: bool = False  # by_line leaves the token model out (the static plan: see native_search_early)
    generated: dict[tuple[Any, ...], list[Mutant]]  # every_mutant's, per function, without a test's values
    spectrum_names: dict[str, str]
    evidence: dict[tuple[str, str], MutantEvidence]
    planned: dict[tuple[str, str], Any]
    later: list[_Plan]
    widened: set[tuple[str, str]]  # (failure id, "ran" or "past"): the stages take_later gave it
    turns: bool
    trials: list[Any]

    def original(self, rel: str) -> str | None:
        raise NotImplementedError

    def cost(self, plan: _Plan) -> float:
        raise NotImplementedError

    def remaining(self) -> float:
        raise NotImplementedError

    def estimate(self) -> float:
        """What one mutant's trial takes, as the search has seen them so far."""
        raise NotImplementedError

    def plans(self, failure: TestFailureRecord) -> list[_Plan]:
        """The first pass (a few mutants of every top suspect, round-robin), then the rest by prior.

        A suspect with no mutant (a one-line getter) takes no place among the top ones.  The suspects
        past the top ones wait in ``self.later``, round-robin: the search reaches them when the top ones
        (and, with schemata, their files' neighbours) are spent and time is left, rather than stopping
        there (:meth:`take_later`)."""
        per_suspect: list[list[_Plan]] = []
        later: list[list[_Plan]] = []
        for index, suspect in enumerate(failure.suspects):
            if is_test_file(suspect.file_path):
                continue  # the test states what is wanted: a mutant there that passes it fixes nothing
            text = self.original(suspect.file_path)
            if text is None:
                continue
            mutants = self.mutants_of(failure, suspect, text)
            if mutants:
                self.planned.setdefault((suspect.file_path, suspect.qualname), suspect)
                (per_suspect if len(per_suspect) < self.top_suspects() else later).append(
                    [_Plan(failure, suspect.file_path, suspect.qualname, m, index, r, index) for r, m in enumerate(mutants)])
        first = in_turns([plans[:FIRST_PASS] for plans in per_suspect])
        rest = [p for plans in per_suspect for p in plans[FIRST_PASS:]]
        self.later = in_turns(later)
        if self.screen is not None:
            rest += self.neighbour_plans(failure)
            # in the order the turns reach them (ordered_rest), not function after function: a file past
            # what one schema holds keeps every function's likeliest, not the first functions' all
            self.screen.add([p.mutant for p in first + sorted(rest, key=lambda p: p.rank / place_share(p.place))])
        return first + rest

    def take_later(self, failure: TestFailureRecord | None = None) -> list[_Plan]:
        """The suspects past the top ones, now that the plan before them is spent; once those are spent
        too, given the ``failure``, the rest of what its test ran (:meth:`ran_rest`), and then what the
        cap on a function's mutants left out (:meth:`past_the_cap`).  With schemata their files'
        schemata are offered these mutants (built when first asked for)."""
        later, self.later = self.later, []
        if not later and failure is not None and (failure.failure_id, "ran") not in self.widened:
            self.widened.add((failure.failure_id, "ran"))
            later = self.ran_rest(failure)
        if not later and failure is not None and (failure.failure_id, "past") not in self.widened:
            self.widened.add((failure.failure_id, "past"))
            later = self.past_the_cap(failure)
        if self.screen is not None and later:
            self.screen.add([p.mutant for p in later])
        return later

    def ran_rest(self, failure: TestFailureRecord) -> list[_Plan]:
        """Every function the failing test ran that the plan has not held, the spectrum's likeliest first,
        a few mutants of each in turn: the suspects keep ten, and a fault two calls below the test in
        another file (a decoder every test runs) can rank past them."""
        test = self.spectrum_names.get(failure.failure_id)
        if self.spectrum is None or not test:
            return []
        planned = set(self.planned)
        keys = sorted((k for k in self.spectrum.ran_in(test)
                       if (k[0], k[1]) not in planned and not is_test_file(k[0])),
                      key=lambda k: (-(self.spectrum.score(k) or 0.0), k))
        per_function: list[list[_Plan]] = []
        for order, key in enumerate(keys[:RAN_REST]):
            fn = self.spectrum.funcs_by_key[key]
            text = self.original(fn.file_path)
            if text is None:
                continue
            mutants = self.mutants_of(failure, fn, text)
            if mutants:
                self.planned[(fn.file_path, fn.qualname)] = fn
                place = len(failure.suspects) + NEIGHBOURS + order
                per_function.append([_Plan(failure, fn.file_path, fn.qualname, m, -1, r, place)
                                     for r, m in enumerate(mutants)])
        return in_turns(per_function)

    def past_the_cap(self, failure: TestFailureRecord) -> list[_Plan]:
        """The mutants the cap left out of the planned functions (MAX_MUTANTS: a huge function keeps its
        likeliest), now that every other plan is spent: those of functions whose mutants changed the
        failure first, each function's in the order its turns would have taken them, in turn.  voro++'s
        740-line ``nplane`` has 3,700, and a `0` for a `-1` sentinel ranks past the cap by prior."""
        per_function: list[list[_Plan]] = []
        for place, (rel, qualname) in enumerate(sorted(self.planned, key=lambda k: -self.mutant_score(k))):
            text = self.original(rel)
            if text is None or is_test_file(rel):
                continue
            cut = self.by_line(self.every_mutant(failure, self.planned[(rel, qualname)], text), past=True)
            per_function.append([_Plan(failure, rel, qualname, m, -1, MAX_MUTANTS + r, place) for r, m in enumerate(cut)])
        return in_turns(per_function)

    def neighbour_plans(self, failure: TestFailureRecord) -> list[_Plan]:
        """Mutants of the other functions in the top suspects' files: a schema compiles the whole file,
        so screening them costs test runs only.  With a spectrum, only those the failing test ran, the
        likeliest first; a function whose mutant fixes the test joins the suspects (:meth:`finish`).
        Without one (the plan the early schemata are built from), the functions the suspects call first."""
        top = failure.suspects[:self.top_suspects()]
        known = {(s.file_path, s.qualname, s.line_start) for s in top}  # an overload of a suspect is not it
        test = self.spectrum_names.get(failure.failure_id)
        ran = self.spectrum.ran_in(test) if self.spectrum is not None and test else None
        called = self.called_in_file(top)
        funcs: list[tuple[float, int, Any]] = []
        for rel in dict.fromkeys(s.file_path for s in top):
            if is_test_file(rel):
                continue
            for fn in functions_of_file(self.workspace, rel):
                key = (fn.file_path, fn.qualname, fn.line_start)
                if key in known or (ran is not None and key not in ran and key not in called):
                    continue
                score = (self.spectrum.score(key) or called.get(key, 0.0)) if ran is not None else called.get(key, 0.0)
                funcs.append((score, len(funcs), fn))
        funcs.sort(key=lambda t: (-t[0], t[1]))
        # where the spectrum placed each among the suspects (it joins those the failing test ran): a
        # neighbour takes turns by that place, as a suspect does
        places = {(s.file_path, s.qualname, s.line_start): i for i, s in reversed(list(enumerate(failure.suspects)))}
        out: list[_Plan] = []
        for order, (_score, _seq, fn) in enumerate(funcs[:NEIGHBOURS]):
            text = self.original(fn.file_path)
            if text is None:
                continue
            self.planned[(fn.file_path, fn.qualname)] = fn
            mutants = self.mutants_of(failure, fn, text)
            place = places.get((fn.file_path, fn.qualname, fn.line_start), len(failure.suspects) + order)
            out += [_Plan(failure, fn.file_path, fn.qualname, m, -1, r, place) for r, m in enumerate(mutants)]
        return out

    def offer_past(self, queue: list[_Plan], plan: _Plan | None = None) -> None:
        """Mutants a file's schema holds come first in the ordered queue; those of the file it does not hold
        (a file past what one schema holds: voro++'s cell.cc, 7,000 planned, 3,800 held) would each take a
        compile of their own after them, or be priced out.  So once the queue's plan as far ahead as the
        trials screen in PAST_AHEAD of the longest schema compile so far is such a mutant (looked at once
        a batch), or at the latest ``plan``, the one taken now, the file is built again in the background
        with the queue's mutants of it, in order, while the other trial screens what the old schema holds:
        the new one is ready about when those run out."""
        screen = self.screen
        if screen is None or len(self.trials) < 2:
            return
        if plan is None:
            if not queue:
                return
            ahead = int(PAST_AHEAD * max(screen.compile_s, default=0.0) * len(self.trials) / max(self.estimate(), 1e-3))
            plan = queue[min(ahead, len(queue) - 1)]
        if screen.may_build_past(plan.mutant, len(self.trials)):
            mutants = [p.mutant for p in [plan, *queue] if p.rel == plan.rel]  # the plan taken now is no longer queued
            screen.build_past(plan.rel, mutants, self.trials, PAST_ROOM)

    def whole_line(self, winner: _Plan) -> list[_Plan]:
        """Every mutant its function has on the line of ``winner`` (or on the whole expression it edits),
        past the plan's cap too: a huge function's plan holds each line's likeliest edits only, and the
        one that fixes every failing test on the line a partial fix found may be of an unlikely kind (a
        `!` put back where `return true` instead of `false` fixed 5 of 8 of voro++'s tests)."""
        fn = self.planned.get((winner.rel, winner.qualname))
        text = self.original(winner.rel)
        if fn is None or text is None:
            return []
        first, last = winner.mutant.lines or (winner.mutant.edit.start.line,) * 2
        return [_Plan(winner.failure, winner.rel, winner.qualname, m, winner.suspect_index, winner.rank, winner.place)
                for m in self.every_mutant(winner.failure, fn, text) if first <= m.edit.start.line <= last]

    def called_in_file(self, top: list[Any]) -> dict[tuple[str, str, int], float]:
        """The functions of its own file each top suspect calls, with that suspect's score: at -O2 and
        up a small static callee is inlined into its caller and leaves no trace in the spectrum (no
        entry, its lines folded into the caller's), yet it ran whenever the call did (C/C++ only)."""
        out: dict[tuple[str, str, int], float] = {}
        for suspect in top:
            if family_of(suspect.file_path) != "c":
                continue
            names = {short for short, _text, _line in body_calls(self.workspace, suspect, "c")}
            for fn in functions_of_file(self.workspace, suspect.file_path):
                if fn.qualname.rsplit("::", 1)[-1] in names:
                    key = (fn.file_path, fn.qualname, fn.line_start)
                    out[key] = max(out.get(key, 0.0), suspect.score)
        return out

    def mutants_of(self, failure: TestFailureRecord, fn: Any, text: str) -> list[Mutant]:
        """The mutants of function ``fn`` (a suspect or a workspace function) of file text ``text`` the plan
        holds, in the order its turns take them (:meth:`by_line`)."""
        return self.by_line(self.every_mutant(failure, fn, text))

    def every_mutant(self, failure: TestFailureRecord, fn: Any, text: str) -> list[Mutant]:
        """Every mutant generated in ``fn``, uncapped, with ``failure``'s expected and actual values.  What the
        values do not make is generated once per search: the plan is made two or three times for each
        failing test (before the spectrum, after it, after the schemata's per-test lines), each over the
        same functions, and a 740-line function's generation takes a quarter of a second."""
        data = text.encode("utf-8", TEXT_ERRORS)
        key = (fn.file_path, fn.line_start, fn.line_end, fn.qualname, text)
        if key not in self.generated:
            self.generated[key] = mutants_in(fn.file_path, data, fn.line_start, fn.line_end, qualname=fn.qualname,
                                              limit=None, workspace=self.workspace)
        values = value_mutants(fn.file_path, data, fn.line_start, fn.line_end, expected=failure.expected_value,
                               actual=failure.actual_value, qualname=fn.qualname)
        return with_values(self.generated[key], values)  # a new list: callers sort and cut it

    def by_line(self, mutants: list[Mutant], past: bool = False) -> list[Mutant]:
        """A function's mutants in the order its turns take them: by prior, moved by what the failing
        tests ran line by line (a mutant on a line only they ran goes first; a big function's likeliest
        line is not left behind hundreds of likelier-kinded mutants of lines every test runs).  Then cut
        to the MAX_MUTANTS first of that order and of the same without naturalness (at most twice as
        many: :func:`.native_mutants.capped`), each line keeping its first: when the spectrum scores the
        file's lines, each line the failing tests ran, so a huge function's cap keeps the lines they
        single out; else every line, so that the schema's record of each test's lines can score them.
        ``past``: those the cut left out instead, in the same order."""
        if not mutants or (past and len(mutants) <= MAX_MUTANTS):
            return [] if past else mutants  # nothing cut: no ranking to make (every planned function is asked)
        natural = {m.key: 0.0 for m in mutants} if self.plain_order else self.natural_bonus(mutants)
        rel = mutants[0].edit.file_path
        moved = {m.key: m.prior + self.line_bonus(rel, m.line) for m in mutants}
        ranked = sorted(mutants, key=lambda m: -(moved[m.key] + natural[m.key]))
        if len(ranked) <= MAX_MUTANTS:
            return [] if past else ranked
        lines = None
        if self.spectrum is not None and self.spectrum.line_score(rel, mutants[0].line) is not None:
            # each line the failing tests ran keeps its first (a `!` dropped in a branch only they take: its
            # way back may read less natural than the likely kinds of every busy line)
            lines = lambda line: bool(self.spectrum.line_score(rel, line))  # noqa: E731
        # the cut keeps what either order puts first, with and without naturalness: an original the token
        # model finds unlikely (double-conversion's `if (!...)` in a 1,193-mutant template) keeps its place
        plain = sorted(mutants, key=lambda m: -moved[m.key])
        keep = {m.key for m in capped(ranked, lines=lines)} | {m.key for m in capped(plain, lines=lines)}
        return [m for m in ranked if (m.key in keep) != past]

    def natural_bonus(self, mutants: list[Mutant]) -> dict[tuple[str, int, int, int, int, str], float]:
        """How far each mutant moves for how much more natural its edit makes its line under a token model
        of the project (:mod:`.naturalness`): a slip reads less like the code around it than what was
        meant (`pts[6*p+2]` among `pts[3*p]`, `pts[3*p+1]`), so the edit that undoes it gains.  Among the
        development twins' seeded faults, the median rank of the mutant that restores the original
        within its function went 26 -> 3 (double-conversion), 49 -> 3 (voro++), 97 -> 12 (jsonnet)."""
        todo = [m for m in mutants if m.key not in self.natural]
        if todo:
            for m, gain in zip(todo, self.naturalness.mutant_gains([m.edit for m in todo]), strict=True):
                self.natural[m.key] = 0.0 if gain is None else W_NATURAL * max(-NATURAL_CAP, min(NATURAL_CAP, gain))
        return {m.key: self.natural[m.key] for m in mutants}

    def line_bonus(self, rel: str, line: int) -> float:
        """How the execution spectrum moves a mutant on ``line``: up when the failing tests ran it more
        than the passing ones, down when they never ran it (0 without a line spectrum)."""
        if self.spectrum is None:
            return 0.0
        score = self.spectrum.line_score(rel, line)
        return 0.0 if score is None else W_LINE * (score - 0.5)

    def top_suspects(self) -> int:
        return SCREENED_SUSPECTS if self.screen is not None else TOP_SUSPECTS

    def mutant_score(self, key: tuple[str, str]) -> float:
        """What the mutants of function ``key`` (file, qualname) did so far (:meth:`.MutantEvidence.score`);
        NEUTRAL while none was tried."""
        ev = self.evidence.get(key)
        return ev.score() if ev is not None and ev.tried else NEUTRAL

    def standing(self) -> dict[tuple[str, str], tuple[int, float]]:
        """What the order of the remaining mutants reads of the evidence (:meth:`ordered_rest`): while it is
        unchanged, the queue keeps its order and costs no sort."""
        return {key: (min(ev.tried, SURE_AFTER), ev.score()) for key, ev in self.evidence.items()}

    def ordered_rest(self, failure: TestFailureRecord, rest: list[_Plan]) -> list[_Plan]:
        """After the first pass: by the mutant's prior and its suspect's static score, moved by what the
        suspect's mutants did (none changed the failure: down; they changed it: a little up).

        With schemata (and for JS) mutants take turns by function, so one huge function cannot use up
        the budget before a small one is tried: a function's k-th mutant comes at k / its share, the
        share set by its place among the suspects (a neighbour's too: the spectrum's) and what its
        mutants did.  A mutant no schema covers costs a compile: after all that do, by weight.  JS takes
        turns too: every mutant costs a test run there, and the function a crash's stack names first has
        many mutants that change nothing.

        The search re-orders its queue after batches whose evidence moved a function (voro++'s 740-line
        ``nplane``: 3,300 plans, 500 times in one search), so what a function decides is worked out once
        per function and each plan's key is a few operations on it: the order a key function per plan
        gave, in two thirds of its time (see also :class:`OrderClock`)."""
        top = max((s.score for s in failure.suspects[:self.top_suspects()]), default=0.0) or 1.0
        screen = self.screen
        turns = screen is not None or self.turns
        covered = screen.covered() if screen is not None else None
        natural = self.natural
        per_function: dict[tuple[str, str, int, int], tuple[float, float, float]] = {}

        def function_values(p: _Plan) -> tuple[float, float, float]:
            """(its share of the turns, the static and the evidence terms of its mutants' weights)."""
            ev = self.evidence.get((p.rel, p.qualname))
            mut = self.mutant_score((p.rel, p.qualname))
            static = failure.suspects[p.suspect_index].score / top if p.suspect_index >= 0 else 0.0
            sure = mut  # a function with a few mutants tried moves its share part of the way
            if ev is not None and not ev.fixed and ev.tried < SURE_AFTER:
                sure = NEUTRAL + (mut - NEUTRAL) * ev.tried / SURE_AFTER
            return place_share(p.place) * (0.25 + 3 * sure), 0.3 * static, CONCENTRATE * (mut - NEUTRAL)

        keys: list[tuple[Any, ...]] = []
        for p in rest:
            group = (p.rel, p.qualname, p.place, p.suspect_index)
            values = per_function.get(group)
            if values is None:
                values = per_function[group] = function_values(p)
            share, static, moved = values
            mutant = p.mutant
            if turns and (covered is None or mutant.key in covered.get(mutant.edit.file_path, ())):
                keys.append((False, p.rank / share, -mutant.prior))
                continue
            # summed in the order a plan's weight always was: equal weights keep their order
            weight = mutant.prior + natural.get(mutant.key, 0.0) + static + moved + self.line_bonus(p.rel, mutant.line)
            keys.append((True, -weight, 0.0) if turns else (-weight, p.suspect_index, p.rank))
        order = sorted(range(len(rest)), key=keys.__getitem__)
        return [rest[i] for i in order]

    def first_pass(self, plans: list[_Plan]) -> tuple[list[_Plan], list[_Plan]]:
        """(the first pass, the rest).  With schemata, every file's schema is built first; then what they
        screen, in plan order, before mutants that need a compile of their own, except the first few
        mutants of the top suspects: a source file whose schema could not be built (or not with those
        mutants' lines) must not push its functions behind hundreds of screened mutants of others, unless
        its compile costs more than the time of those (``EARLY_ALONE_SHARE``).  A
        header's schema is built when its first mutant comes up (:class:`.native_screen.Screen`), so
        its mutants keep their place among the screened ones."""
        first = FIRST_PASS * self.top_suspects()
        screen = self.screen
        if screen is None:
            return plans[:first], plans[first:]
        screen.prepare(list(self.trials), background=True)  # type: ignore[arg-type]
        head = plans[:first]
        top = list(dict.fromkeys(p.suspect_index for p in head if p.suspect_index >= 0))[:TOP_SUSPECTS]
        # a compile of its own goes first only when it is cheap against the time left: a big unit's takes
        # seconds, the time of hundreds of screened mutants
        room = EARLY_ALONE_SHARE * self.remaining()
        early = [p for p in head if p.suspect_index in top and p.rank < FIRST_PASS and screen.settled(p.mutant)
                 and not screen.covers(p.mutant) and not screen.will_cover(p.mutant) and self.cost(p) <= room]
        taken = {id(p) for p in early}
        covered = [p for p in plans if screen.covers(p.mutant)]
        alone = [p for p in plans if id(p) not in taken and not screen.covers(p.mutant)]
        return covered[:first] + early, covered[first:] + alone


class OrderClock:
    """When the search re-orders its queue for evidence that only moves functions down (their mutants
    tried changed nothing): once the batches since the last re-order took ORDER_SPACING times what that
    one cost.  A queue of a few hundred plans re-orders in a fraction of a millisecond, after every batch
    as before; voro++'s 740-line ``nplane`` keeps 3,300 in it, 6.5 ms a re-order against 10-20 ms of
    screened runs a batch, and re-ordering after each took a fifth of its search."""

    def __init__(self) -> None:
        self.ended = 0.0
        self.cost = 0.0  # of the last re-order, seconds: none yet, so the first is due at once
        self.started = 0.0

    def due(self) -> bool:
        return time.monotonic() - self.ended >= ORDER_SPACING * self.cost

    def __enter__(self) -> OrderClock:
        self.started = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        self.ended = time.monotonic()
        self.cost = self.ended - self.started


def rose(before: dict[tuple[str, str], tuple[int, float]], after: dict[tuple[str, str], tuple[int, float]]) -> bool:
    """Whether some function's mutants stand higher than at the last re-order (its first mutant that
    changed the failure, one that fixed a failing test; an untried function stands at NEUTRAL): its
    remaining mutants take their turns sooner at once, whatever the re-order costs.  A share of changing
    mutants that only ticks up (3 of 5, then 4 of 6) moves the order no more than one that ticks down: the
    clock spaces those (voro++'s ``nplane``, most of whose mutants change the failure, re-ordered its
    8,000 plans after nearly every batch)."""
    return any(score >= before.get(key, (0, NEUTRAL))[1] + ROSE_BY for key, (_tried, score) in after.items())


def in_turns(lists: list[list[_Plan]]) -> list[_Plan]:
    """Each list's first, then each one's second, and so on (round-robin): every function gets its turn."""
    return [p for rank in range(max(map(len, lists), default=0)) for plans in lists for p in plans[rank:rank + 1]]


def place_share(place: int) -> float:
    """A function's share of the turns by its place among the failure's suspects (see ordered_rest)."""
    return 1 / (1 + 0.25 * place)


def sibling_plans(winner: _Plan, pending: list[_Plan], seen: set[tuple[str, int, int, int, int, str]]) -> list[_Plan]:
    """The other edits of the winner's line (or of the whole expression it edits, when that spans
    several lines) worth trying (:meth:`.native_search._Search.siblings`), in plan order: the broad families' long
    tail (`<` -> `!=`) is no likelier an original than the fix found, and each one the tests cannot
    tell apart costs a compile and a whole suite's run."""
    floor = min(winner.mutant.prior, SIBLING_MIN_PRIOR)
    return [p for p in same_line(winner, pending, seen) if p.mutant.prior >= floor][:SIBLINGS]


def same_line(winner: _Plan, pending: list[_Plan], seen: set[tuple[str, int, int, int, int, str]]) -> list[_Plan]:
    """The pending edits of the winner's line (or of the whole expression it edits), not tried yet, in
    plan order, each once.  After an edit that fixes some failing tests only, they come first: a line
    whose edit changes the failure that much is where the one edit that fixes them all most often is
    (`p || x` -> `p && x` fixed 14 of 16 of tinyxml2's tests; the original was `!p || x`)."""
    first, last = winner.mutant.lines or (winner.mutant.edit.start.line,) * 2
    out: dict[tuple[str, int, int, int, int, str], _Plan] = {}
    for p in pending:
        if p.rel == winner.rel and first <= p.mutant.edit.start.line <= last and p.mutant.key not in seen:
            out.setdefault(p.mutant.key, p)
    return list(out.values())


def surest_first(failures: list[TestFailureRecord]) -> list[TestFailureRecord]:
    """The failing tests in the order their plans are searched: the one whose top suspect scores highest
    (after the spectrum) first, ties in the run's order.  Every mutant runs them all; the plan is one
    test's suspects, and the first test the run names is not always the one that points at the fault
    (kiwi: a test of a constraint's strength reads `strength::required`, which the faulty
    `strength::create` computed before any test ran)."""
    return sorted(failures, key=lambda f: -(f.suspects[0].score if f.suspects else 0.0))
