"""Which expressions a schema can hold: constant contexts, C++ constants' initializers (in the first
compile, left out when the compiler fails where such a constant is used), and hosts over several lines
(each mutated copy written on the host's first line).  Real g++ and gcc compile every schema here."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_schema import ENV, schema_text
from pytest_whetstone.candidates.native_screen import Screen
from pytest_whetstone.candidates.native_trial import TrialOutcome
from pytest_whetstone.edits import apply_edits_text

pytestmark = pytest.mark.skipif(not shutil.which("g++") or not shutil.which("gcc"), reason="needs gcc and g++")

CONSTANTS = """\
#include <array>
enum Mode { kFast = 1 + 1 };
constexpr int twice(int x) { return x * 2; }
int f(int n) {
  static const int table[] = {1, 2};
  const int k = 4;
  int local[k + 1] = {0};
  std::array<int, 3 + 1> a{};
  static_assert(sizeof(int) == 4, "int");
  switch (n) { case 1 + 1: return 2; }
  return table[0] + local[0] + a[0] + n * 3;
}
"""


def test_constant_contexts_never_hold_a_choice_and_cxx_constants_initializers_only_at_first() -> None:
    mutants = mutants_in("f.cc", CONSTANTS.encode(), 1, 12)
    first = schema_text("f.cc", CONSTANTS.encode(), mutants)
    assert first is not None and set(first.lines) == {5, 6, 7, 10, 11} and first.risky > 0
    # the array's initial value, `return 2`, `n * 3`: without the constants' initializers
    safe = schema_text("f.cc", CONSTANTS.encode(), mutants, risky=False)
    assert safe is not None and set(safe.lines) == {7, 10, 11} and safe.risky == 0


def test_a_pointer_to_const_and_a_c_const_local_are_run_time_values() -> None:
    cxx = ("const char *at(const char *data, int n) {\n  const char *p = data + n;\n"
           "  const double half = n / 2.0;\n  return p + (half > 1 ? 1 : 0);\n}\n")
    schema = schema_text("p.cc", cxx.encode(), mutants_in("p.cc", cxx.encode(), 1, 5))
    # a pointer to const, a const double: never where a constant is wanted
    assert schema is not None and {2, 3} <= set(schema.lines) and schema.risky == 0
    c = "int f(int n) {\n  const int k = n + 1;\n  static int calls = 0 + 1;\n  return k + calls;\n}\n"
    schema = schema_text("f.c", c.encode(), mutants_in("f.c", c.encode(), 1, 5))
    # C: a const local is never a constant expression; a static local's initializer must be one
    assert schema is not None and 2 in schema.lines and 3 not in schema.lines and schema.risky == 0


class _GxxTrial:
    """A schema trial whose compile is real g++ (-fsyntax-only) and whose runs pass nothing."""

    flags: tuple[str, ...] = ("-fsyntax-only",)

    def __init__(self, tmp: Path, rel: str) -> None:
        self.tmp, self.rel = tmp, rel
        self.error_lines: set[int] = set()
        self.error_points: set[tuple[int, int]] = set()
        self.compiles = 0

    def prepare_schema(self, rel: str, text: str) -> str:
        self.compiles += 1
        (self.tmp / rel).write_text(text)
        out = subprocess.run(["g++", "-std=c++17", *self.flags, rel], cwd=self.tmp, capture_output=True, text=True)
        found = re.findall(rf"^{re.escape(rel)}:(\d+):(\d+): error", out.stderr, re.M)
        self.error_points = {(int(line), int(col)) for line, col in found}
        self.error_lines = {line for line, _col in self.error_points}
        return "" if out.returncode == 0 else f"does not compile: {out.stderr[:200]}"

    def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                   only: set[str] | None = None, spins: int = 0) -> TrialOutcome:
        return TrialOutcome(failing={"F1": "expected 1, got 2"})


def _screened(tmp_path: Path, rel: str, source: str) -> tuple[Screen, _GxxTrial]:
    """Every mutant of ``source`` put to a screen whose schema g++ compiles (the failing test fails)."""
    screen = Screen(TrialOutcome(failing={"F1": "expected 1, got 2"}, seconds=0.01), lambda _rel: source,
                    deadline=1e12, timeout_s=5.0)
    screen.add(mutants_in(rel, source.encode(), 1, source.count("\n")))
    trial = _GxxTrial(tmp_path, rel)
    screen.prepare(trial)  # type: ignore[arg-type]
    return screen, trial


TEMPLATE_BOUND = """\
#include <array>
int f(int n) {
  const int k = 2 + 2;
  std::array<int, k> a{};
  a[0] = n;
  return a[0] * 3 + k;
}
"""


def test_a_constant_used_as_a_template_argument_costs_one_compile_more_not_the_file_s_schema(tmp_path: Path) -> None:
    """`const int k = 2 + 2; std::array<int, k> a;`: with `k`'s initializer a choice, g++ fails on the
    array's line, which holds none; the next compile leaves the constants' initializers out and keeps
    the rest of the file's choices."""
    screen, trial = _screened(tmp_path, "f.cc", TEMPLATE_BOUND)
    schema = screen.files["f.cc"].schema
    assert schema is not None and not screen.notes, screen.notes
    assert set(schema.lines) == {5, 6} and trial.compiles == 2


def test_a_const_local_used_at_run_time_is_screened_in_the_first_compile(tmp_path: Path) -> None:
    screen, trial = _screened(tmp_path, "g.cc", "int f(int n) {\n  const int k = n * 2;\n  return k + 1;\n}\n")
    schema = screen.files["g.cc"].schema
    assert schema is not None and 2 in schema.lines and trial.compiles == 1


MULTI_LINE = """\
#include <cstdio>
static int inside(int x, int lo, int hi) {
  return lo <= x &&
         x < hi;
}
static int pick(int a, int b) {
  return a >
             b
             ? a - b
             : b - a;
}
static int span(int a, int b) {
  return a /* the start */ -
         b;
}
int main() {
  int total = 0;
  for (int x = -2; x < 6; ++x) total = total * 3 + inside(x, 0, 4) + pick(x, 2) + span(x, 1);
  std::printf("%d\\n", total);
  return 0;
}
"""


def _run(binary: Path, mutant: int = 0) -> str:
    out = subprocess.run([str(binary)], capture_output=True, text=True, timeout=10, env=dict(os.environ, **{ENV: str(mutant)}))
    return f"{out.returncode}:{out.stdout}"


def test_a_host_over_several_lines_is_screened_and_each_choice_behaves_as_the_mutant_alone(tmp_path: Path) -> None:
    mutants = mutants_in("m.cc", MULTI_LINE.encode(), 2, 15)
    schema = schema_text("m.cc", MULTI_LINE.encode(), mutants)
    assert schema is not None
    by_key = {m.key: m for m in mutants}
    # `&&` -> `||` spans lines 3-4 and the ternary 7-10: held; the host with a comment is not
    assert any(by_key[k].edit.new_text == "||" for k in schema.ids)
    assert not any(by_key[k].edit.start.line == 13 and by_key[k].kind == "arith" for k in schema.ids)
    assert schema.text.count("\n") == MULTI_LINE.count("\n") + schema.text.split("#line 1\n")[0].count("\n") + 1
    src = tmp_path / "m.cc"
    src.write_text(schema.text)
    build = subprocess.run(["g++", "-std=c++17", str(src), "-o", str(tmp_path / "schema")], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    for key, mid in schema.ids.items():
        src.write_text(apply_edits_text(MULTI_LINE, [by_key[key].edit], "m.cc"))
        alone = subprocess.run(["g++", "-std=c++17", str(src), "-o", str(tmp_path / "alone")], capture_output=True)
        if alone.returncode != 0:
            continue  # the schema compiler named it; the screen rejects such a mutant
        assert _run(tmp_path / "schema", mid) == _run(tmp_path / "alone"), by_key[key].description
