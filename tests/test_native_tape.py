"""tape failures end to end with real node and tape 5: a crash read as the running test's failure, the
same description in two files, the failing files in one process, the files' spectrum, and the search
fixing each seeded fault with a mutant the real runner validated.

The project is a copy of tests/fixtures/js_trial/tape_shapes (an entry re-exporting other files,
``var f = function``, ``module.exports = function``, a prototype method); npm installs tape into the
copy, and without npm or the network those tests are skipped.  The captured outputs in
tests/fixtures/js_trial/tape_output are read offline.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_native_trial_js import _hashes

from pytest_whetstone.candidates import native_js_runs as runs
from pytest_whetstone.candidates import native_trial_js
from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.candidates.native_trial_js import js_trial
from pytest_whetstone.edits import apply_edits_text
from pytest_whetstone.locate.native_tests import locate_native_failures
from pytest_whetstone.parse import parse_text
from pytest_whetstone.records import TestFailureRecord

FIXTURES = Path(__file__).parent / "fixtures" / "js_trial"
OUTPUT = FIXTURES / "tape_output"
COMMAND = "tape 'test/**/*.js'"
CAPTURED_ROOT = "/tmp/js15_shapes"  # where the captured outputs were made


# --------------------------------------------------------------------------- captured outputs, offline


def test_a_crash_after_a_test_name_is_that_tests_failure() -> None:
    result = parse_text((OUTPUT / "crash.tap").read_text())
    [crash] = result.test_failures
    assert crash.runner == "tap" and crash.test_name == "perimeter of a unit square"
    assert crash.exception_type == "TypeError" and crash.message.startswith("TypeError: Cannot read properties")
    assert (crash.file_path, crash.line) == (f"{CAPTURED_ROOT}/test/polygon.js", 8)  # the test's own frame
    assert (crash.impl_file, crash.impl_line) == (f"{CAPTURED_ROOT}/lib/polygon.js", 4)  # where it threw
    assert result.pass_count == 3


def test_an_error_the_test_prints_is_no_crash() -> None:
    result = parse_text((OUTPUT / "logged_error.tap").read_text())
    assert result.test_failures == [] and result.pass_count == 1


def test_the_same_description_in_two_files_is_two_failures() -> None:
    failures = parse_text((OUTPUT / "two_files.tap").read_text()).test_failures
    assert [(f.test_name, Path(f.file_path).name) for f in failures] == [
        ("should be strictly equal", "area.js"), ("should be strictly equal", "polygon.js")]
    assert len({f.ensure_id().failure_id for f in failures}) == 2


def test_read_tap_keys_failures_by_their_at_line_and_a_crash_by_the_running_test() -> None:
    two = runs.read_tap((OUTPUT / "two_files.tap").read_text(), ["test/area.js", "test/polygon.js", "test/pad.js"],
                        CAPTURED_ROOT)
    title = runs.title_key(["should be strictly equal"])
    assert set(two.failed) == {("test/area.js", title), ("test/polygon.js", title)}
    assert ("test/pad.js", title) in two.passed  # a passing assertion has no location: every file's
    assert ("test/pad.js", "pads each line") in two.passed  # and a test that ran through passed
    assert two.failed[("test/area.js", title)].startswith("should be strictly equal operator: equal expected: 9")
    assert two.sites == {("test/area.js", title): {7}, ("test/polygon.js", title): {13}}
    globbed = runs.read_tap((OUTPUT / "two_files.tap").read_text(), "test/**/*.js", CAPTURED_ROOT)
    assert set(globbed.failed) == {("test/area.js", title), ("test/polygon.js", title)}  # a glob: by the at: file

    crash = runs.read_tap((OUTPUT / "crash.tap").read_text(), "test/**/*.js", CAPTURED_ROOT)
    assert list(crash.failed) == [("test/**/*.js", "perimeter of a unit square")]
    assert crash.failed[("test/**/*.js", "perimeter of a unit square")].startswith("TypeError: Cannot read")
    assert ("test/**/*.js", "pads each line") in crash.passed


def test_an_assertion_made_in_a_helper_belongs_to_the_test_that_called_it() -> None:
    [failure] = parse_text((OUTPUT / "helper.tap").read_text()).test_failures
    assert (failure.file_path, failure.line) == (f"{CAPTURED_ROOT}/test/helper.js", 8)  # not test/lib/check.js
    got = runs.read_tap((OUTPUT / "helper.tap").read_text(), "test/**/*.js", CAPTURED_ROOT)
    assert got.failed.keys() == {("test/helper.js", "area of square")}
    assert got.sites == {("test/helper.js", "area of square"): {8}}


# --------------------------------------------------------------------------- real tape


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip("node and npm are needed")
    proj = tmp_path_factory.mktemp("tape") / "tape_shapes"
    shutil.copytree(FIXTURES / "tape_shapes", proj)
    try:
        done = subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefer-offline", "tape@5"],
                              cwd=proj, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.skip("npm install tape@5 timed out (no network?)")
    if done.returncode != 0:
        pytest.skip(f"npm install tape@5 failed (no network?): {done.stderr.strip()[-200:]}")
    return proj


@pytest.fixture
def shapes(installed: Path, tmp_path: Path) -> Path:
    proj = tmp_path / "tape_shapes"
    shutil.copytree(installed, proj, symlinks=True, ignore=shutil.ignore_patterns("node_modules"))
    (proj / "node_modules").symlink_to(installed / "node_modules", target_is_directory=True)
    return proj


def _seed(proj: Path, rel: str, old: str, new: str) -> None:
    text = (proj / rel).read_text()
    assert old in text
    (proj / rel).write_text(text.replace(old, new, 1))


def _failures(proj: Path) -> list[TestFailureRecord]:
    done = subprocess.run(["node", "node_modules/.bin/tape", "test/**/*.js"], cwd=proj, capture_output=True,
                          text=True, timeout=120)
    failures = [r.ensure_id() for r in parse_text(done.stdout + done.stderr).test_failures]
    return locate_native_failures(failures, proj)


def _search(proj: Path, failures: list[TestFailureRecord]) -> tuple[list, NativeSearchStats]:
    stats = NativeSearchStats()
    before = _hashes(proj)
    found = native_search_candidates(failures, proj, 60.0, command=COMMAND, stats=stats, max_validated=1)
    assert _hashes(proj) == before  # the user's tree is never written
    return found, stats


def _applied(proj: Path, cand) -> str:  # type: ignore[no-untyped-def]
    [edit] = cand.edits
    return apply_edits_text((proj / edit.file_path).read_text(), [edit])


def test_a_crash_is_located_from_its_stack_and_fixed(shapes: Path) -> None:
    original = (shapes / "lib/polygon.js").read_text()
    _seed(shapes, "lib/polygon.js", "i < points.length", "i <= points.length")
    [crash] = _failures(shapes)
    assert crash.test_name == "perimeter of a unit square" and crash.exception_type == "TypeError"
    assert {s.qualname for s in crash.suspects[:2]} == {"distance", "perimeter"}  # its stack frames
    found, stats = _search(shapes, [crash])
    assert found and found[0].validated, stats.notes
    assert _applied(shapes, found[0]) == original


def test_a_stack_overflow_no_frame_of_which_is_a_test_is_run_from_the_file_that_declares_the_test(shapes: Path) -> None:
    """Recursion that never ends: node's stack names ten frames of the library, none of a test file, so the
    record knows its test by name only.  The trial runs the one test file that declares that name (not
    the command's glob, which neither the spectrum nor the screen can run), and the search fixes it."""
    original = "'use strict';\n\nmodule.exports = function down(n) {\n  if (n <= 0) return 0;\n  return 1 + down(n - 1);\n};\n"
    (shapes / "lib/down.js").write_text(original.replace("n - 1", "n + 1"))
    (shapes / "test/down.js").write_text("'use strict';\n\nvar test = require('tape');\nvar down = require('../lib/down');\n\n"
                                         "test('counts down to zero', function (t) {\n  t.equal(down(3), 3);\n  t.end();\n});\n")
    [crash] = [f for f in _failures(shapes) if f.test_name == "counts down to zero"]
    assert crash.exception_type == "RangeError"
    trial, why = js_trial([crash], shapes, command=COMMAND, timeout_s=20)
    assert trial is not None, why
    try:
        assert [t.file for t in trial.targets] == ["test/down.js"]
    finally:
        trial.close()
    found, stats = _search(shapes, [crash])
    assert found and found[0].validated, stats.notes
    assert _applied(shapes, found[0]) == original
    assert stats.screened, "screened through the file's schema, not a whole tape run a mutant"


def test_two_files_fail_in_one_process_and_the_search_fixes_both(shapes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    original = (shapes / "lib/area.js").read_text()
    _seed(shapes, "lib/area.js", "side * side", "side + side")
    failures = _failures(shapes)
    assert len({f.failure_id for f in failures}) == 2
    trial, why = js_trial(failures, shapes, command=COMMAND, timeout_s=20)
    assert trial is not None, why
    processes: list[list[str]] = []
    execute = native_trial_js._execute

    def counted(argv: list[str], *args: object) -> tuple[int, str, bool]:
        processes.append(argv)
        return execute(argv, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(native_trial_js, "_execute", counted)
    try:
        base = trial.baseline()
        assert set(base.failing) == {f.failure_id for f in failures} and len(processes) == 1
        assert processes[0][-2:] == ["test/area.js", "test/polygon.js"]
        fixed = trial.run_failing("lib/area.js", original)
        assert fixed.passed == {f.failure_id for f in failures} and not fixed.failing
        assert trial.run_wider("lib/area.js", original).ok
        broken = original.replace("return shape.w * shape.h;", "return shape.w + shape.h;")
        wide = trial.run_wider("lib/area.js", broken)  # the square passes, the rectangle fails: same description
        assert not wide.ok and wide.failed == ["test/area.js should be strictly equal"]
    finally:
        trial.close()
    monkeypatch.undo()
    found, stats = _search(shapes, failures)
    assert found and found[0].validated and found[0].mutation["complete"], stats.notes
    assert _applied(shapes, found[0]) == original


def test_a_dropped_plus_one_is_put_back_and_whitespace_counts(shapes: Path) -> None:
    original = (shapes / "lib/pad.js").read_text()
    _seed(shapes, "lib/pad.js", "Array(width + 1)", "Array(width)")
    [failure] = _failures(shapes)
    trial, why = js_trial([failure], shapes, command=COMMAND, timeout_s=20)
    assert trial is not None, why
    try:
        base = trial.baseline()
        fewer = trial.run_failing("lib/pad.js", original.replace("Array(width + 1)", "Array(width - 1)"))
        # "' a\n b'" and "'a\nb'" read the same with whitespace collapsed: the values' digest tells them apart
        assert fewer.failing[failure.failure_id] != base.failing[failure.failure_id]
    finally:
        trial.close()
    found, stats = _search(shapes, [failure])
    assert found and found[0].validated, stats.notes
    assert _applied(shapes, found[0]) == original


def _profiled_crash(shapes: Path) -> tuple[TestFailureRecord, list, dict[str, str], str]:
    """perimeter's loop seeded to run one point too far (a TypeError in the test), and the spectrum."""
    _seed(shapes, "lib/polygon.js", "i < points.length", "i <= points.length")
    [crash] = _failures(shapes)
    trial, why = js_trial([crash], shapes, command=COMMAND, timeout_s=20)
    assert trial is not None, why
    try:
        got, names, why = trial.profile(20.0)
    finally:
        trial.close()
    return crash, got, names, why


def test_the_tape_spectrum_sets_the_failing_test_against_the_passing_ones_test_by_test(shapes: Path) -> None:
    """A hook cuts tape's coverage at each test: the crashing test's own lines against every passing
    test's, in its file (none ran after the crash) and in the others."""
    crash, got, names, why = _profiled_crash(shapes)
    assert why == ""
    by_name = {r.name: r for r in got}
    assert by_name["perimeter of a unit square"].failed
    passing = [r for r in got if not r.failed]
    assert len(passing) >= 2 and all(not r.name.startswith("the ") for r in got)  # tests, not files
    polygon = str(shapes.resolve() / "lib/polygon.js")
    assert 15 in by_name["perimeter of a unit square"].executed.lines[polygon]  # perimeter's loop body
    assert all(15 not in r.executed.lines.get(polygon, set()) for r in passing)  # no passing test ran it
    assert names == {crash.failure_id: "perimeter of a unit square"}


def test_without_tape_to_hook_the_spectrum_sides_are_files(shapes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_whetstone.candidates import native_spectra_tape

    monkeypatch.setattr(native_spectra_tape, "PRELOAD", shapes / "no-such-hook.cjs")
    crash, got, names, _why = _profiled_crash(shapes)
    assert [(r.name, r.failed) for r in got] == [("the failing test files", True), ("the suite's other test files", False)]
    assert names == {crash.failure_id: "the failing test files"}
