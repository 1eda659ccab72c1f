"""A screened mutant whose loop never ends is stopped by how often its own expression ran, not by the clock.

The schema counts how many times any mutated expression ran in the unmutated run of the failing tests
(a tail on its reach file) and, with ``$WHETSTONE_SPINS`` set, kills the process group once the
switched-on mutant's expression has run more often than that bound.  Real gcc and g++, a real make
project and GoogleTest; the search still finds and validates the fix.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_native_search import GEO_CC, _failure, _tree_hashes, build_make_geo

from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_schema import ENV, REACHED_ENV, SPINS_ENV, read_reach, schema_text
from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.records import Suspect

LOOP_C = """\
#include <stdio.h>

int sum_to(int n) {
  int total = 0;
  for (int i = 1; i <= n; ++i) total += i;
  return total;
}

int main(void) {
  printf("%d\\n", sum_to(100));
  return 0;
}
"""


def _loop_schema(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """The schema of LOOP_C compiled by gcc, and the ids of the loop line's mutants by their new text
    (``--``: the step turned back, a loop that does not end for billions of steps)."""
    if not shutil.which("gcc"):
        pytest.skip("gcc not installed")
    source = LOOP_C.encode()
    mutants = mutants_in("loop.c", source, 3, 7)
    schema = schema_text("loop.c", source, mutants)
    assert schema is not None
    (tmp_path / "loop.c").write_text(schema.text)
    build = subprocess.run(["gcc", "-O0", "-w", "loop.c", "-o", "loop"], cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    ids = {m.edit.new_text: schema.ids[m.key] for m in mutants if m.key in schema.ids and m.edit.start.line == 5}
    return tmp_path / "loop", ids


def test_the_unmutated_run_records_how_often_mutated_expressions_ran(tmp_path: Path) -> None:
    binary, _ids = _loop_schema(tmp_path)
    reach = tmp_path / "reached"
    run = subprocess.run([str(binary)], env=dict(os.environ, **{REACHED_ENV: str(reach)}), capture_output=True,
                         text=True, timeout=10)
    assert run.returncode == 0 and run.stdout.strip() == "5050"
    reached, evaluations, runs = read_reach(reach)
    assert reached and evaluations is not None and evaluations >= 300  # 101 tests, 100 steps, 100 sums at least
    # each host's own count, by its first id: the loop's condition ran 101 times, its step and sum 100
    assert sum(runs.values()) == evaluations
    assert max(runs.values()) == 101 and 100 in runs.values(), runs
    # a process that dies before exit leaves the ids but no count
    data = reach.read_bytes()
    reach.write_bytes(data[: data.index(int.to_bytes(2**32 - 1, 4, "little"))])
    assert read_reach(reach) == (reached, None, {})


def test_a_mutant_s_bound_comes_from_its_own_expression_s_count_when_that_is_tighter() -> None:
    """The file's bound is ten times every mutated expression's runs together; a mutant whose own host ran
    few times gets ten times that, at least HOST_SPIN_FLOOR, and never more than the file's."""
    from pytest_whetstone.candidates.native_screen import HOST_SPIN_FLOOR, SPIN_FACTOR, FileState, Screen

    source = LOOP_C.encode()
    mutants = mutants_in("loop.c", source, 3, 7)
    schema = schema_text("loop.c", source, mutants)
    assert schema is not None
    inside = [m for m in mutants if m.key in schema.ids]
    mid = schema.ids[inside[0].key]
    lo = schema.host_of[mid]
    assert lo <= mid and all(schema.host_of[other] == lo for other in range(lo, mid + 1))
    state = FileState(schema=schema, spins=50_000_000, runs={lo: 101})
    assert Screen._spins(state, inside[0]) == max(HOST_SPIN_FLOOR, SPIN_FACTOR * 101)
    state.runs = {lo: 20_000_000}
    assert Screen._spins(state, inside[0]) == 50_000_000  # never past the file's bound
    state.runs = {}
    assert Screen._spins(state, inside[0]) == 50_000_000  # its host's count not recorded: the file's
    state.spins = 0
    state.runs = {lo: 101}
    assert Screen._spins(state, inside[0]) == 0  # no bound asked for


def test_a_switched_on_mutant_that_loops_is_killed_at_its_bound_and_the_others_are_not(tmp_path: Path) -> None:
    binary, ids = _loop_schema(tmp_path)
    looping = ids["--"]
    env = dict(os.environ, **{ENV: str(looping), SPINS_ENV: "100000"})
    started = time.monotonic()
    run = subprocess.run([str(binary)], env=env, capture_output=True, timeout=20, start_new_session=True)
    assert run.returncode == -signal.SIGKILL and time.monotonic() - started < 5
    with pytest.raises(subprocess.TimeoutExpired):  # without the bound it runs until stopped
        subprocess.run([str(binary)], env=dict(os.environ, **{ENV: str(looping)}), capture_output=True, timeout=0.5)
    for mid in ids.values():  # a mutant that ends runs its course under the same bound
        if mid != looping:
            ended = subprocess.run([str(binary)], env=dict(os.environ, **{ENV: str(mid), SPINS_ENV: "100000"}),
                                   capture_output=True, timeout=20, start_new_session=True)
            assert ended.returncode != -signal.SIGKILL, mid
    unmutated = subprocess.run([str(binary)], env=dict(os.environ, **{ENV: "0", SPINS_ENV: "1"}),
                               capture_output=True, text=True, timeout=10)
    assert unmutated.returncode == 0 and unmutated.stdout.strip() == "5050"  # no mutant on: nothing counted


LOOPY_CC = GEO_CC + """
int steps_to(int from, int to) {
  int steps = 0;
  for (int at = from; at != to; ++at) ++steps;
  return steps;
}
"""
LOOPY_TEST = """\
#include <gtest/gtest.h>
#include "geo.h"

int steps_to(int from, int to);

TEST(Geo, Manhattan) { EXPECT_EQ(manhattan(0, 0, 3, 4), 7); }
TEST(Geo, InsideExcludesFarEdge) {
  EXPECT_EQ(steps_to(0, 4), 4);
  EXPECT_TRUE(inside(0, 0, 4, 4));
  EXPECT_FALSE(inside(1, 4, 4, 4));
}
TEST(Geo, Scale) { EXPECT_EQ(scale(10, 3, 2), 15); }
"""


def test_the_search_stops_looping_mutants_by_their_count_and_still_validates_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``steps_to`` runs first in the failing test; several of its mutants never end (``at != to`` from
    the other side, ``--at``).  The search screens them all, the count stops those that loop, and the
    seeded fault in ``inside`` is found, compiled alone and validated; the user's tree is untouched."""
    # the order by prior alone (no naturalness): the fix comes after the mutants this test watches
    monkeypatch.setattr("pytest_whetstone.candidates.native_plan.W_NATURAL", 0.0)
    proj = build_make_geo(tmp_path / "geo", LOOPY_CC, LOOPY_TEST)
    before = _tree_hashes(proj)
    lines = LOOPY_CC.splitlines()
    steps = lines.index("int steps_to(int from, int to) {") + 1
    inside = lines.index("bool inside(int x, int y, int w, int h) {") + 1
    failure = _failure(proj, "InsideExcludesFarEdge", Suspect("src/geo.cc", "steps_to", steps, steps + 4, 1.0))
    failure.suspects.append(Suspect("src/geo.cc", "inside", inside, inside + 2, 0.9))
    stats = NativeSearchStats()
    found = native_search_candidates([failure], proj, 60, store=proj / ".whetstone", stats=stats)
    assert _tree_hashes(proj) == before
    assert stats.schema["files"] == 1 and stats.schema["spun"] >= 1, stats.to_dict()
    top = found[0]
    assert top.validated and top.edits[0].new_text == "<", top
