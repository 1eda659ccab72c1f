"""The JS schema screen with real node and tape 5 (:mod:`pytest_whetstone.candidates.native_js_screen`): each
screened mutant fails the failing tests as the mutant applied alone does, a mutant that loops or crashes
costs its run and nothing after it, a schema node cannot parse names its line, the reach is recorded,
and the search screens its mutants, fixes the seeded fault and leaves the user's tree alone.

The project is tests/fixtures/js_trial/tape_shapes with tape installed by npm (the fixtures of
test_native_tape.py); without npm or the network these tests are skipped."""

from __future__ import annotations

from pathlib import Path

from test_native_tape import COMMAND, _failures, _seed, installed, shapes  # noqa: F401 - fixtures
from test_native_trial_js import _hashes

from pytest_whetstone.candidates.mutant import Mutant
from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_schema import Schema, read_reached, schema_text
from pytest_whetstone.candidates.native_screen import OWN_TEXT_ID, Screen
from pytest_whetstone.candidates.native_screen_state import FileState
from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.candidates.native_trial_js import JsTrial, js_trial
from pytest_whetstone.edits import apply_edits_text
from pytest_whetstone.records import Position, TextEdit


def _trial(proj: Path) -> tuple[JsTrial, list]:
    failures = _failures(proj)
    trial, why = js_trial(failures, proj, command=COMMAND, timeout_s=20)
    assert trial is not None, why
    return trial, failures


def _area_trial(proj: Path) -> tuple[JsTrial, str]:
    """The area fault (`side + side`) seeded, a trial of its failing tests, and the faulty lib/area.js."""
    _seed(proj, "lib/area.js", "side * side", "side + side")
    trial, _failing = _trial(proj)
    return trial, (proj / "lib/area.js").read_text()


def _said(outcome) -> tuple:  # type: ignore[no-untyped-def]
    """What the search reads of a run: an error (a crash, a timeout) is all it reads of one that ended so
    (which passing assertions it printed first depends on which tests ran: the screen runs only the
    failing tests and their parents)."""
    if outcome.error:
        return (True,)
    return sorted(outcome.passed), sorted(outcome.failing.items())


def test_each_screened_mutant_fails_the_tests_as_it_does_alone(shapes: Path) -> None:  # noqa: F811
    trial, text = _area_trial(shapes)
    data = text.encode()
    mutants = mutants_in("lib/area.js", data, 1, text.count("\n") + 1)
    schema = schema_text("lib/area.js", data, mutants)
    try:
        assert trial.can_screen and schema is not None
        assert trial.prepare_schema("lib/area.js", schema.text) == ""
        assert _said(trial.run_schema("lib/area.js", schema.text, 0, 5.0)) == _said(trial.baseline())
        held = [m for m in mutants if m.key in schema.ids]
        assert len(held) >= 10
        fixed = 0
        for mutant in held:
            screened = trial.run_schema("lib/area.js", schema.text, schema.ids[mutant.key], 5.0)
            alone = trial.run_failing("lib/area.js", apply_edits_text(text, [mutant.edit]))
            assert _said(screened) == _said(alone), (mutant.edit.start.line, mutant.edit.new_text)
            fixed += bool(alone.passed)
        assert fixed >= 1  # `side + side` back to `side * side` is among them
    finally:
        trial.close()


def test_a_looping_or_crashing_mutant_costs_its_own_run_only(shapes: Path) -> None:  # noqa: F811
    trial, text = _area_trial(shapes)
    schema = text.replace("  return side + side;",
                          "  if (whetstone_now_ === 1) { for (;;) {} }\n"
                          "  if (whetstone_now_ === 2) { return side.nope.deeper; }\n"
                          "  return whetstone_now_ === 3 ? side * side : side + side;")
    try:
        base = trial.baseline()
        loop = trial.run_schema("lib/area.js", schema, 1, 0.5)
        assert loop.timed_out and "timed out" in loop.error and loop.seconds < 3
        crash = trial.run_schema("lib/area.js", schema, 2, 5.0)
        alone = trial.run_failing("lib/area.js", text.replace("return side + side;", "return side.nope.deeper;"))
        assert _said(crash) == _said(alone) and crash.error
        fix = trial.run_schema("lib/area.js", schema, 3, 5.0)
        assert fix.passed == set(base.failing) and not fix.error  # a fresh process after both
        assert trial.screen is not None and trial.screen.starts >= 3
    finally:
        trial.close()


def test_a_schema_node_cannot_parse_names_its_line(shapes: Path) -> None:  # noqa: F811
    trial, text = _area_trial(shapes)
    try:
        broken = text.replace("return shape.w * shape.h;", "return (whetstone_now_ === 1 ? (shape.w *) : (shape.w * shape.h));")
        why = trial.prepare_schema("lib/area.js", broken)
        assert "SyntaxError" in why
        assert trial.error_lines == {12}
        [(line, col)] = trial.error_points
        assert line == 12 and broken.splitlines()[11].encode()[col - 1:col] == b")"
        assert trial.prepare_schema("lib/area.js", text) == "" and not trial.error_lines
    finally:
        trial.close()


def test_the_schema_records_which_choices_the_failing_tests_reached(shapes: Path, tmp_path: Path) -> None:  # noqa: F811
    with (shapes / "lib/area.js").open("a") as out:
        out.write("\nfunction unused(x) {\n  return x * 2;\n}\n")
    trial, text = _area_trial(shapes)
    data = text.encode()
    schema = schema_text("lib/area.js", data, mutants_in("lib/area.js", data, 1, text.count("\n") + 1))
    assert schema is not None
    try:
        trial.run_schema("lib/area.js", schema.text, 0, 5.0, str(tmp_path / "reached"))
        reached = read_reached(tmp_path / "reached")
        assert reached is not None
        by_line = {key[1]: schema.ids[key] for key in schema.ids}
        assert by_line[4] in reached  # square's body: the failing square tests ran it
        assert by_line[18] not in reached  # a function no test calls
    finally:
        trial.close()


def test_the_search_screens_js_mutants_and_keeps_the_tree(shapes: Path) -> None:  # noqa: F811
    original = (shapes / "lib/area.js").read_text()
    _seed(shapes, "lib/area.js", "shape.w * shape.h", "shape.w + shape.h")
    failures = _failures(shapes)
    before = _hashes(shapes)
    stats = NativeSearchStats()
    found = native_search_candidates(failures, shapes, 60.0, command=COMMAND, stats=stats, max_validated=1)
    assert _hashes(shapes) == before  # the user's tree is never written
    assert stats.screened > 0, stats.notes
    assert found and found[0].validated, stats.notes
    [edit] = found[0].edits
    assert edit.file_path == "lib/area.js"
    assert apply_edits_text((shapes / edit.file_path).read_text(), [edit]) == original


def test_only_the_failing_tests_and_their_parents_run_per_mutant(shapes: Path) -> None:  # noqa: F811
    (shapes / "test" / "nested.js").write_text(
        "'use strict';\n\nvar test = require('tape');\nvar shapes = require('../');\n\n"
        "test('outer', function (t) {\n  t.test('inner square', function (st) {\n"
        "    st.equal(shapes.area({ kind: 'square', side: 4 }), 16);\n    st.end();\n  });\n  t.end();\n});\n\n"
        "test('rectangles only', function (t) {\n  t.equal(shapes.area({ kind: 'rect', w: 2, h: 3 }), 6);\n  t.end();\n});\n")
    trial, text = _area_trial(shapes)
    try:
        base = trial.baseline()
        plain = trial.run_schema("lib/area.js", text, 0, 5.0)
        assert _said(plain) == _said(base)
        # the failing tests by their paths, a subtest's through its parent; not the passing ones
        assert trial.screen_only == {"area of a square", "area of the square inside", "outer\x1finner square"}
        fixed = trial.run_schema("lib/area.js", text.replace("side + side", "side * side"), 0, 5.0)
        assert fixed.passed == set(base.failing)
    finally:
        trial.close()


def test_mutants_of_two_files_take_turns_in_one_process(shapes: Path) -> None:  # noqa: F811
    trial, area = _area_trial(shapes)
    polygon = (shapes / "lib/polygon.js").read_text()
    area_fixed = area.replace("return side + side;", "return whetstone_now_ === 1 ? side * side : side + side;")
    polygon_broken = polygon.replace("return total;", "return whetstone_now_ === 1 ? total + 1 : total;")
    try:
        base = trial.baseline()
        for _turn in range(2):
            fixed = trial.run_schema("lib/area.js", area_fixed, 1, 5.0)
            assert fixed.passed == set(base.failing) and not fixed.failing
            other = trial.run_schema("lib/polygon.js", polygon_broken, 1, 5.0)
            assert other.failing.keys() == base.failing.keys()  # area.js as written: still the fault's failures
            assert trial.run_schema("lib/polygon.js", polygon_broken, 0, 5.0).failing == base.failing
        assert trial.screen is not None and trial.screen.starts == 1
    finally:
        trial.close()


def test_a_screened_fix_that_breaks_another_test_is_known_in_the_harness(shapes: Path) -> None:  # noqa: F811
    """The whole suite in the warm process, one mutant switched on: the exact fix breaks nothing, a fix of
    the square that breaks the rectangle is told apart there, and no tape process runs for either."""
    trial, text = _area_trial(shapes)
    schema = text.replace("return side + side;", "return whetstone_now_ >= 1 ? side * side : side + side;")
    schema = schema.replace("return shape.w * shape.h;",
                            "if (whetstone_now_ === 4) { for (;;) {} }\n"
                            "    return whetstone_now_ === 2 ? shape.w + shape.h : whetstone_now_ === 3 ? shape.w.nope.deeper "
                            ": shape.w * shape.h;")
    try:
        base = trial.baseline()
        runs_before = trial.runs
        plain = trial.run_schema_wider("lib/area.js", schema, 0, 5.0)
        assert sorted(plain.covered) == ["test/area.js", "test/pad.js", "test/polygon.js"]
        assert plain.ok and not plain.error  # the failing tests' own failures are run_failing's to judge
        exact = trial.run_schema_wider("lib/area.js", schema, 1, 5.0)
        assert exact.ok, exact
        trade = trial.run_schema_wider("lib/area.js", schema, 2, 5.0)
        # tape keys an assertion by its words ("should be strictly equal", as the failing ones): by its line
        assert not trade.ok and trade.failed == ["test/area.js should be strictly equal"], trade
        # a test that throws out of the suite ends a tape process as it ends the harness's run: a break
        thrown = trial.run_schema_wider("lib/area.js", schema, 3, 5.0)
        assert not thrown.ok and not thrown.error and any("(crashed)" in name for name in thrown.failed), thrown
        looped = trial.run_schema_wider("lib/area.js", schema, 4, 0.5)  # the screen's limit: 3 x the unmutated run
        assert not looped.ok and not looped.error and any("(timed out)" in name for name in looped.failed), looped
        assert trial.runs == runs_before  # the harness alone: no tape process

        # the screen asks the same of a screened fix before it is run alone
        mutant = Mutant("test", "w * h -> w + h", TextEdit("lib/area.js", Position(12, 12), Position(12, 29),
                                                           "shape.w + shape.h"), 12, 0.5)
        screen = Screen(base, lambda rel: text, float("inf"), 10.0)
        screen.files["lib/area.js"] = FileState(ready=True, schema=Schema("lib/area.js", schema, {mutant.key: 2}))
        assert screen.breaks_others(mutant, trial)  # type: ignore[arg-type]
    finally:
        trial.close()


def test_a_mutant_in_the_schema_or_out_of_it_is_screened_in_the_harness(shapes: Path) -> None:  # noqa: F811
    """The harness reads the file's text on every run: a mutant the schema holds runs as its choice or as
    its own text (whichever the screen measured faster), one the schema was never asked to hold as its own
    text; each fails the tests as it does alone, with no tape process."""
    trial, text = _area_trial(shapes)
    data = text.encode()
    mutants = mutants_in("lib/area.js", data, 1, text.count("\n") + 1)
    held, outside = mutants[: len(mutants) // 2], mutants[len(mutants) // 2 :]
    try:
        base = trial.baseline()
        screen = Screen(base, lambda rel: text, float("inf"), 10.0)
        screen.add(held)
        runs_before = trial.runs
        for mutant in [*held[:6], *outside[:6]]:
            screened = screen.outcome(mutant, trial)  # type: ignore[arg-type]
            assert screened is not None, mutant.description
            alone = trial.run_failing("lib/area.js", apply_edits_text(text, [mutant.edit]))
            assert _said(screened) == _said(alone), (mutant.edit.start.line, mutant.edit.new_text)
        state = screen.files["lib/area.js"]
        assert state.schema is not None and not any(m.key in state.schema.ids for m in outside)
        assert trial.runs == runs_before + 12  # the alone runs above, and none for the screened ones
        # a mutant's own text is a mutant, not the code as written: its run keeps the tests the trial chose,
        # and one that loops through the whole suite is a break there
        chosen = trial.screen_only
        loops = text.replace("return side + side;", "for (;;) {}")
        trial.run_schema("lib/area.js", loops, OWN_TEXT_ID, 0.5)
        assert trial.screen_only == chosen
        looped = trial.run_schema_wider("lib/area.js", loops, OWN_TEXT_ID, 0.5)
        assert not looped.ok and any("(timed out)" in name for name in looped.failed), looped
    finally:
        trial.close()


def test_a_mutant_that_never_yields_is_ended_by_its_count_not_the_deadline(shapes: Path, tmp_path: Path) -> None:  # noqa: F811
    """A synchronous loop blocks the harness's own timer, so without a bound the run waits for the
    caller's deadline (its limit and a second's grace); with one, the mutant's expression ends it."""
    from pytest_whetstone.candidates.native_schema import read_reach

    trial, text = _area_trial(shapes)
    schema = text.replace("  return side + side;",
                          "  for (var i = 0; whetstone_enter_(1, 1, 1) ? true : i < 3; i++) {}\n"
                          "  return side + side;")
    try:
        trial.baseline()
        plain = trial.run_schema("lib/area.js", schema, 0, 5.0, str(tmp_path / "reached"))
        reached, evaluations, runs = read_reach(tmp_path / "reached")
        assert not plain.error and reached == {1} and evaluations is not None and evaluations >= 4
        assert runs == {1: evaluations}  # the one host's own count
        bounded = trial.run_schema("lib/area.js", schema, 1, 1.0, spins=10_000)
        assert bounded.timed_out and bounded.seconds < 0.9, bounded
        unbounded = trial.run_schema("lib/area.js", schema, 1, 1.0)
        assert unbounded.timed_out and unbounded.seconds >= 1.0, unbounded  # the limit, then the grace
    finally:
        trial.close()


def test_a_mutant_behind_its_one_choice_fails_the_tests_as_it_does_alone(shapes: Path) -> None:  # noqa: F811
    """How a file whose mutants run faster as their own texts screens them: each behind a schema of that
    one choice, switched on (so the harness counts a loop's runs), failing the tests as the mutant alone."""
    trial, text = _area_trial(shapes)
    data = text.encode()
    mutants = mutants_in("lib/area.js", data, 1, text.count("\n") + 1)
    try:
        checked = 0
        for mutant in mutants[:12]:
            one = schema_text("lib/area.js", data, [mutant])
            if one is None or mutant.key not in one.ids:
                continue
            screened = trial.run_schema("lib/area.js", one.text, one.ids[mutant.key], 5.0)
            alone = trial.run_failing("lib/area.js", apply_edits_text(text, [mutant.edit]))
            assert _said(screened) == _said(alone), (mutant.edit.start.line, mutant.edit.new_text)
            checked += 1
        assert checked >= 8
    finally:
        trial.close()
