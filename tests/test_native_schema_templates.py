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
from pytest_whetstone.candidates.native_schema import schema_text
from pytest_whetstone.candidates.native_schema_errors import blamed, error_lines_in
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

typedef const char* Str;  // hides the pointer from the declarations: the swap below is made
int parse(Str text, int n) {
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
    mutants = mutants_in(rel, data, 2, 5, qualname="read") + mutants_in(rel, data, 9, 11, qualname="parse")
    swap = [m for m in mutants if m.edit.start.line == 10 and m.edit.new_text.replace(" ", "") == "n,text"]
    assert swap, [m.edit.new_text for m in mutants if m.edit.start.line == 10]
    skip: set = set()
    rejected: set = set()
    compiles = 0
    while compiles < 4:
        compiles += 1
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


WIDTHS = """\
#include <cassert>
#include <cstdint>
#include <cstdio>

template <class S>
static int bits(const S value) {
  (void)value;
  return 8 * sizeof(value);
}

int narrow(const uint16_t value) {
  assert(bits(value) <= 28);
  return value + 1;
}

int main() {
  std::printf("%d\\n", narrow(7));
  return 0;
}
"""


def _run(tmp: Path, rel: str, text: str) -> subprocess.CompletedProcess[str]:
    (tmp / rel).write_text(text)
    assert subprocess.run(["g++", "-w", "-o", "schema", rel], cwd=tmp).returncode == 0
    return subprocess.run([str(tmp / "schema")], cwd=tmp, capture_output=True, text=True)


def test_a_widening_choice_keeps_the_original_type(tmp_path: Path) -> None:
    """``bits(value)`` with a choice ``value + 1``: the branches' common type would be ``int``, the template
    would deduce it, ``sizeof`` would say 32 bits and the unmutated schema abort in an assert the real
    build passes.  Each widening branch is cast to the original's type, so the unmutated schema runs as
    the build does; switched on, ``value + 1`` still counts one more."""
    rel = "widths.cc"
    data = WIDTHS.encode()
    mutants = mutants_in(rel, data, 11, 14, qualname="narrow")
    schema = schema_text(rel, data, mutants)
    assert schema is not None and 12 in schema.lines
    assert "(__typeof__(value))(value + 1)" in schema.text
    plain = _run(tmp_path, rel, schema.text)
    assert plain.returncode == 0 and plain.stdout == "8\n", plain.stderr
    plus = next(m for m in mutants if m.edit.start.line == 13 and m.edit.new_text == "2")
    switched = subprocess.run([str(tmp_path / "schema")], cwd=tmp_path, capture_output=True, text=True,
                              env={"WHETSTONE_MUTANT": str(schema.ids[plus.key])})
    assert switched.stdout == "9\n", switched


OVERLOADS = """#include <cassert>
#include <cstdio>

template <class S>
static int bits(const S value) {
  (void)value;
  return 8 * sizeof(value);
}

static short wide(int a, long b) { return (short)(a + b); }
static long wide(long a, int b) { return a - b; }

int check(int a, long b) {
  assert(bits(wide(a, b)) == 16);
  return (int)wide(a, b);
}

int main() {
  std::printf("%d\\n", check(3, 4L));
  return 0;
}
"""


def test_a_line_whose_choice_changes_the_unmutated_run_is_named(tmp_path: Path) -> None:
    """A call keeps its branch uncast (a reference returned must not become a copy), so swapping
    ``wide(a, b)`` into ``wide(b, a)`` picks the other overload and the branches' common type changes what
    ``bits`` deduces: the unmutated schema aborts in the assert the real build passes.  The line its
    failure names is the one to leave out; without it the schema runs as the build does."""
    from pytest_whetstone.candidates.native_schema_errors import moved_failures

    rel = "overloads.cc"
    data = OVERLOADS.encode()
    mutants = [m for m in mutants_in(rel, data, 13, 16, qualname="check") if m.edit.start.line == 14]
    schema = schema_text(rel, data, mutants)
    assert schema is not None and 14 in schema.lines
    died = _run(tmp_path, rel, schema.text)
    assert died.returncode != 0 and "Assertion" in died.stderr, (died.stderr, [m.edit.new_text for m in mutants])
    signature = f"exit {died.returncode}: {died.stderr.strip().splitlines()[-1]}"
    assert moved_failures(schema, rel, {"F": signature}, {"F": "exit 0: 7"}) == {14}
    again = schema_text(rel, data, mutants, skip_lines=frozenset({14}))
    assert again is None or _run(tmp_path, rel, again.text).stdout == "7\n"
