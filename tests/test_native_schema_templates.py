"""A mutant at a call of a function template is blamed for the errors it causes in the template's body.

Real g++.  Swapping ``read(text, n)`` into ``read(n, text)`` deduces ``It = int``, and gcc reports the
body's ``*text`` as the error, inside a choice of the body's own mutants (``"In instantiation of ...
required from here"``, printed once before the first error of the instantiation).  Rejecting the body's
mutants there would lose mutants that compile alone and only move the error to the next of them,
compile after compile.  The choice that required it and the body's are left to the one-at-a-time path,
none rejected that compiles alone, and the schema compiles within three compiles.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_schema import error_lines_in, schema_text
from pytest_whetstone.candidates.native_schema_errors import blamed
from pytest_whetstone.edits import apply_edits_text
from pytest_whetstone.parse import parse_text

pytestmark = pytest.mark.skipif(not shutil.which("g++"), reason="g++ missing")

SOURCE = """\
template <class It>
int read(It text, int n) {
  int value = 0;
  for (int i = 0; i < n && text[i] >= '0'; i++) value = value * 10 + (*(text + i) - '0');
  return value;
}

int parse(const char* text, int n) {
  return read(text, n) + 1;
}
"""


def _check(tmp: Path, rel: str, text: str) -> tuple[int, str]:
    (tmp / rel).write_text(text)
    done = subprocess.run(["g++", "-fsyntax-only", "-fdiagnostics-column-unit=byte", "-fmax-errors=0", rel],
                          cwd=tmp, capture_output=True, text=True)
    return done.returncode, done.stderr


def test_the_call_that_instantiated_a_broken_body_is_blamed_not_the_body(tmp_path: Path) -> None:
    rel = "read.cc"
    data = SOURCE.encode()
    mutants = mutants_in(rel, data, 2, 5, qualname="read") + mutants_in(rel, data, 8, 10, qualname="parse")
    swap = [m for m in mutants if m.edit.start.line == 9 and m.edit.new_text.replace(" ", "") == "n,text"]
    assert swap, [m.edit.new_text for m in mutants if m.edit.start.line == 9]
    skip: set = set()
    rejected: set = set()
    for compiles in range(1, 5):
        schema = schema_text(rel, data, mutants, skip=frozenset(skip))
        assert schema is not None
        code, stderr = _check(tmp_path, rel, schema.text)
        if code == 0:
            break
        lines, points = error_lines_in(parse_text(stderr, "gcc", cwd=str(tmp_path)).build_errors, tmp_path / rel)
        own, apart, dropped = blamed(schema, lines, points)
        assert (own or apart) and not dropped, stderr
        skip |= own | apart
        rejected |= own
    assert code == 0 and compiles <= 3, stderr
    assert swap[0].key in skip
    for m in mutants:  # a mutant rejected does not compile alone: none was rejected for the call's instantiation
        if m.key in rejected:
            alone = apply_edits_text(SOURCE, [m.edit])
            assert _check(tmp_path, rel, alone)[0] != 0, f"{m.edit.new_text!r} at {m.edit.start.line} compiles alone"
