"""A function far past the per-function cap (a 740-line geometry routine): every line of it is
generated, every line keeps a mutant in the plan, and once the spectrum scores its lines the cap keeps
the lines the failing tests single out, however unlikely their mutants' kinds."""

from __future__ import annotations

import time
from pathlib import Path

from pytest_whetstone.candidates.native_mutants import MAX_MUTANTS, capped, mutants_in
from pytest_whetstone.edits import apply_edits_text

# many likely-kinded mutants on every early line, then one line whose only edits are of unlikely kinds
_BUSY = "".join(f"  x = x * {i} + y / {i + 1} - (x < y) + (y >= x);\n" for i in range(120))
# a `!` dropped on its last lines: the way back ("negate the condition") ranks in the thousands by prior
ORIGINAL = "int f(int x, int y, bool done) {\n" + _BUSY + "  if (!done) x = 2 * y;\n  return x;\n}\n"
GIANT = ORIGINAL.replace("if (!done)", "if (done)")
LAST_LINE = GIANT.count("\n") - 2  # `if (done) x = 2 * y;`


def _giant() -> list:
    return mutants_in("g.cc", GIANT.encode(), 1, GIANT.count("\n"), limit=None)


def test_every_line_of_a_huge_function_is_generated() -> None:
    every = _giant()
    assert len(every) > 4 * MAX_MUTANTS  # past the old bound, which stopped at the first lines' mutants
    restoring = [i for i, m in enumerate(every) if apply_edits_text(GIANT, [m.edit]) == ORIGINAL]
    assert restoring and restoring[0] > MAX_MUTANTS and every[restoring[0]].line == LAST_LINE


def test_the_cap_keeps_the_likeliest_and_a_mutant_of_every_line() -> None:
    every = _giant()
    kept = capped(every)
    assert len(kept) == MAX_MUTANTS
    assert {m.line for m in kept} == {m.line for m in every}
    assert kept == sorted(kept, key=lambda m: every.index(m))  # still best first
    assert kept[:100] == every[:100]  # the head of the order is the prior's
    assert mutants_in("g.cc", GIANT.encode(), 1, GIANT.count("\n")) == kept  # the default limit


def test_a_small_function_is_not_cut() -> None:
    text = "int f(int a, int b) {\n  return a < b ? a + b : 0;\n}\n"
    every = mutants_in("f.c", text.encode(), 1, 3, limit=None)
    assert capped(every) == every == mutants_in("f.c", text.encode(), 1, 3)


class _Flat:
    def mutant_gains(self, edits: list) -> list[None]:
        return [None] * len(edits)


def test_with_line_scores_the_cap_follows_the_failing_tests_lines(tmp_path: Path) -> None:
    """The plan's cut comes after the spectrum moved each mutant: the unlikely edits of the one line only
    the failing tests ran are in the plan, ahead of the thousands of likelier kinds elsewhere."""
    from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search
    from pytest_whetstone.records import Suspect, TestFailureRecord

    class _Spectrum:
        def line_score(self, rel: str, line: int) -> float | None:
            return 1.0 if line == LAST_LINE else 0.3

    (tmp_path / "g.cc").write_text(GIANT)
    suspect = Suspect("g.cc", "f", 1, GIANT.count("\n"), 1.0)
    failure = TestFailureRecord(test_name="G.Last", suspects=[suspect])
    search = _Search([object()], [failure], tmp_path, time.monotonic() + 60, NativeSearchStats())  # type: ignore[list-item]
    search.naturalness = _Flat()  # type: ignore[assignment]  # the line spectrum alone (naturalness: its own tests)
    without = search.mutants_of(failure, suspect, GIANT)
    assert len(without) == MAX_MUTANTS and {m.line for m in without} == {m.line for m in _giant()}
    search.spectrum = _Spectrum()
    planned = search.mutants_of(failure, suspect, GIANT)
    assert len(planned) == MAX_MUTANTS
    last = {m.key for m in _giant() if m.line == LAST_LINE}
    assert len(last) > 1 and last <= {m.key for m in planned}
    assert planned[0].line == LAST_LINE
    assert any(apply_edits_text(GIANT, [m.edit]) == ORIGINAL for m in planned[:len(last)])


def test_a_partial_fix_s_line_offers_every_edit_of_that_line(tmp_path: Path) -> None:
    """After an edit that fixes some failing tests only, the search tries the other edits of its line
    first: all of them, not only those the function's capped plan holds (the `!` put back)."""
    from pytest_whetstone.candidates.native_plan import same_line
    from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search
    from pytest_whetstone.records import Suspect, TestFailureRecord

    (tmp_path / "g.cc").write_text(GIANT)
    suspect = Suspect("g.cc", "f", 1, GIANT.count("\n"), 1.0)
    failure = TestFailureRecord(test_name="G.Last", suspects=[suspect])
    search = _Search([object()], [failure], tmp_path, time.monotonic() + 60, NativeSearchStats())  # type: ignore[list-item]
    plans = search.plans(failure)
    assert not any(apply_edits_text(GIANT, [p.mutant.edit]) == ORIGINAL for p in plans)
    partial = next(p for p in plans if p.mutant.line == LAST_LINE)
    near = same_line(partial, plans + search.whole_line(partial), {partial.mutant.key})
    assert near and all(p.mutant.line == LAST_LINE for p in near)
    assert any(apply_edits_text(GIANT, [p.mutant.edit]) == ORIGINAL for p in near)
    assert len({p.mutant.key for p in near}) == len(near)


class _Against:
    """A token model that reads ``original``'s way back as the least natural edit of all, every other as natural."""

    def __init__(self, faulty: str, original: str) -> None:
        self.faulty, self.original = faulty, original

    def mutant_gains(self, edits: list) -> list[float]:
        return [-5.0 if apply_edits_text(self.faulty, [e]) == self.original else 5.0 for e in edits]


def test_an_original_the_token_model_finds_unlikely_keeps_its_place_in_the_cut(tmp_path: Path) -> None:
    """The cut keeps what the order without naturalness puts first too: a `<` for `<=` is among a huge
    function's likeliest by prior, and stays in its plan however unnatural the model finds `<=` there."""
    from pytest_whetstone.candidates.native_search import NativeSearchStats, _Search
    from pytest_whetstone.records import Suspect, TestFailureRecord

    original = ORIGINAL.replace("if (!done) x = 2 * y;", "if (y <= 3) x = 2 * y;")
    faulty = original.replace("y <= 3", "y < 3")
    every = mutants_in("g.cc", faulty.encode(), 1, faulty.count("\n"), limit=None)
    assert [i for i, m in enumerate(every) if apply_edits_text(faulty, [m.edit]) == original][0] < MAX_MUTANTS
    (tmp_path / "g.cc").write_text(faulty)
    suspect = Suspect("g.cc", "f", 1, faulty.count("\n"), 1.0)
    failure = TestFailureRecord(test_name="G.Last", suspects=[suspect])
    search = _Search([object()], [failure], tmp_path, time.monotonic() + 60, NativeSearchStats())  # type: ignore[list-item]
    search.naturalness = _Against(faulty, original)  # type: ignore[assignment]
    planned = search.mutants_of(failure, suspect, faulty)
    assert MAX_MUTANTS < len(planned) <= 2 * MAX_MUTANTS
    back = [i for i, m in enumerate(planned) if apply_edits_text(faulty, [m.edit]) == original]
    assert back and back[0] >= MAX_MUTANTS  # last in the order, yet in the plan
