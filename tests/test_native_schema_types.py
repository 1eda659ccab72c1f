"""A schema's choice must not change the type the compiler deduces for a variable.

``auto i = 0`` with a mutant ``0 -> -117.5`` (a failing test expected -117.5 and got 0) makes the choice
``(... ? (-117.5) : (0))`` a double, so ``i`` is a double and ``x[i]`` fails to compile on a line with no
choice: nothing to blame, and the file would lose its whole schema.  Such a mutant stays out of the
schema (it is compiled alone); every other mutant of the file is still screened.  Real g++.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_schema import schema_text

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
