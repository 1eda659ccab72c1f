"""A schema's choice must not change the type the compiler deduces for a variable, and a choice of a type
the rest of its conditional cannot take is blamed alone, not with its whole line.

``auto i = 0`` with a mutant ``0 -> -117.5`` (a failing test expected -117.5 and got 0) makes the choice
``(... ? (-117.5) : (0))`` a double, so ``i`` is a double and ``x[i]`` fails to compile on a line with no
choice: nothing to blame, and the file would lose its whole schema.  Such a mutant stays out of the
schema (it is compiled alone); every other mutant of the file is still screened.

``return s`` -> ``return why`` (a name in scope of another type) makes the conditional's arms
disagree; the compiler names the ``?`` before that choice (g++, clang++) or the ``:`` after it (gcc's C
front end), outside every choice's own text.  That choice is rejected; the other mutants of its line
(``n >= 0`` before it) stay in the schema.  Real g++, clang++ and gcc.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.build.gate import parse_diagnostics
from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_schema import error_lines_in, schema_text
from pytest_whetstone.candidates.native_screen import blamed

pytestmark = pytest.mark.skipif(not shutil.which("g++"), reason="g++ missing")

SOURCE = """\
float dist(const float* x, const float* y, int d) {
  float dist = 0;
  for (auto i = 0; i < d; i++) {
    auto tmp = x[i] - y[i];
    dist += tmp * tmp;
  }
  return dist;
}
"""


def test_a_literal_of_another_kind_in_an_auto_initializer_stays_out_of_the_schema(tmp_path: Path) -> None:
    # `tmp % tmp` of floats (the rest of the arithmetic family) and `return x` (a pointer, where a float is
    # returned) are the compiler's to reject: the search's schema compile drops them; this compile checks
    # the types the schema itself deduces
    mutants = [m for m in mutants_in("pq.cc", SOURCE.encode(), 1, 8, qualname="dist", expected="-117.5", actual="0")
               if m.kind not in ("arith-other", "return-name")]
    retyping = [m for m in mutants if m.edit.new_text == "-117.5" and m.line == 3]
    assert retyping, [(m.line, m.edit.new_text) for m in mutants]
    schema = schema_text("pq.cc", SOURCE.encode(), mutants)
    assert schema is not None
    assert all(m.key not in schema.ids for m in retyping)
    assert any(m.line == 3 and m.key in schema.ids for m in mutants)  # `i < d` and `i++` still screened
    (tmp_path / "pq.cc").write_text(schema.text)
    build = subprocess.run(["g++", "-std=c++17", "-c", "pq.cc", "-o", "pq.o"], cwd=tmp_path, capture_output=True,
                           text=True)
    assert build.returncode == 0, build.stderr


PICK_CXX = """\
#include <string>
struct Status { bool ok; std::string msg; };
Status Pick(const Status &a, const Status &b, int n, const char *why) {
  Status s = n > 0 ? a : b; return s;
}
"""

PICK_C = """\
struct status { int ok; };
const struct status *pick(const struct status *a, const struct status *b, int n, long why) {
  const struct status *s = n > 0 ? a : b; return s;
}
"""


@pytest.mark.parametrize(("compiler", "name", "source", "flags"), [
    ("g++", "pick.cc", PICK_CXX, ("-std=c++17",)),
    ("clang++", "pick.cc", PICK_CXX, ("-std=c++17",)),
    ("gcc", "pick.c", PICK_C, ("-std=c99", "-Werror")),  # C only warns of a pointer/integer mismatch
])
def test_a_choice_of_a_type_its_conditional_cannot_take_is_blamed_with_its_kin_not_its_line(
        tmp_path: Path, compiler: str, name: str, source: str, flags: tuple[str, ...]) -> None:
    if not shutil.which(compiler):
        pytest.skip(f"{compiler} missing")
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "return s;" in text)
    mutants = mutants_in(name, source.encode(), line - 1, line + 1, qualname="pick")
    renamed = {m.key for m in mutants if m.kind == "return-name"}
    assert len(renamed) >= 2 and len(renamed) < len([m for m in mutants if m.line == line]), \
        [(m.kind, m.edit.new_text) for m in mutants]
    schema = schema_text(name, source.encode(), mutants)
    assert schema is not None
    (tmp_path / name).write_text(schema.text)
    cmd = [compiler, *flags, "-ferror-limit=0" if compiler == "clang++" else "-fdiagnostics-column-unit=byte",
           "-c", name, "-o", "pick.o"]
    build = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode != 0
    family = "clang" if "clang" in compiler else "gcc"
    lines, points = error_lines_in(parse_diagnostics(build.stderr, family, str(tmp_path)), tmp_path / name)
    own, dropped, beside = blamed(schema, lines, points)
    # the compiler named one other name (the innermost of the expression's choices); its kin go with it
    assert own == renamed and not dropped and beside == {line}, (build.stderr, own, dropped)
    again = schema_text(name, source.encode(), mutants, skip=frozenset(own))
    assert again is not None and line in again.lines
    (tmp_path / name).write_text(again.text)
    build = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr  # the second compile: no more compiles than leaving the line out
    assert any(m.line == line and m.key in again.ids for m in mutants)  # `n > 0`'s mutants stay screened
    # named so again, a line is left out (a kind of its own may still mismatch: no third compile for it)
    assert blamed(schema, lines, points, beside) == (set(), {line}, set())
