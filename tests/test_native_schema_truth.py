"""Schemata where C and C++ read only an expression's truth, and a failed compile blamed on one host.

A dropped `!` on a pointer (`if (node)` for `if (!node)`) is fixed by a negation whose type, `bool`, is not
the pointer's: written bare, the choice ``(... ? (!node) : (node))`` does not compile, and before, the
whole line went to the one-at-a-time path (half a second a mutant) with every other mutant of it.  Where
the language reads only the truth (a condition, an operand of ``!``, ``&&``, ``||``, a ``bool`` function's
returned value) every branch is written ``!!(...)``; elsewhere an error in a host's guards leaves only
that host's mutants out, not its line.  Real gcc and g++: each screened mutant must behave in the schema
as it does compiled alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_schema import ENV, schema_text
from pytest_whetstone.candidates.native_schema_errors import blamed, error_lines_in
from pytest_whetstone.edits import apply_edits_text
from pytest_whetstone.parse import parse_text

pytestmark = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("g++")), reason="gcc/g++ missing")

# One function per truth context; `main` prints what each returns for a few inputs.
SOURCE = """\
#include <stdio.h>
#include <stdbool.h>

struct node { struct node *next; int v; };

static int count(const struct node *n) {
    int c = 0;
    while (n) { c += n->v; n = n->next; }
    return c;
}

static int first(const struct node *n, int fallback) {
    if (!n || n->v < 0) return fallback;
    return n->v;
}

static bool empty(const struct node *n) {
    return !n;
}

static int pick(const struct node *n) {
    return n ? n->v * 2 : -1;
}

int main(void) {
    struct node c = {0, 3}, b = {&c, -4}, a = {&b, 5};
    printf("%d %d %d %d\\n", count(&a), count(&c), count(0), first(&a, 7));
    printf("%d %d %d %d %d\\n", first(&b, 7), first(0, 9), empty(0), empty(&a), pick(&a) + pick(0));
    return 0;
}
"""


def _mutants(source: str, rel: str) -> list:
    data = source.encode()
    return mutants_in(rel, data, 6, 24, qualname="")


def _build(tmp: Path, compiler: str, rel: str, text: str, exe: str) -> subprocess.CompletedProcess[str]:
    (tmp / rel).write_text(text)
    return subprocess.run([compiler, "-w", "-O0", rel, "-o", exe], cwd=tmp, capture_output=True, text=True)


def _run(tmp: Path, exe: str, mutant_id: int = 0) -> str:
    env = {**os.environ, ENV: str(mutant_id)}
    return subprocess.run([str(tmp / exe)], cwd=tmp, capture_output=True, text=True, env=env, timeout=10).stdout


@pytest.mark.parametrize(("compiler", "rel"), [("gcc", "list.c"), ("g++", "list.cpp")])
def test_negations_of_pointers_are_held_and_behave_as_compiled_alone(tmp_path: Path, compiler: str, rel: str) -> None:
    mutants = _mutants(SOURCE, rel)
    negations = [m for m in mutants if m.kind in ("negate", "remove-not")]
    assert len(negations) >= 4, [(m.kind, m.edit.new_text) for m in mutants]
    schema = _compiled(tmp_path, compiler, rel, SOURCE, mutants)
    held = [m for m in negations if m.key in schema.ids]
    assert len(held) == len(negations), [m.description for m in negations if m.key not in schema.ids]
    assert _run(tmp_path, "schema") == _run_plain(tmp_path, compiler, rel)
    for m in mutants:  # every held mutant the compiler takes alone prints what it prints alone
        if m.key not in schema.ids:
            continue
        alone = _build(tmp_path, compiler, f"alone_{rel}", apply_edits_text(SOURCE, [m.edit], rel), "alone")
        if alone.returncode != 0:
            continue
        try:
            want = _run(tmp_path, "alone")
            if _run(tmp_path, "alone") != want:
                continue  # an address printed as an int (C takes `return n`): it differs from run to run
        except subprocess.TimeoutExpired:
            continue
        assert _run(tmp_path, "schema", schema.ids[m.key]) == want, m.description


def _compiled(tmp: Path, compiler: str, rel: str, source: str, mutants: list):
    """The schema as the screen builds it: compiled, its errors blamed, compiled again; no line left out."""
    skip: set = set()
    for _ in range(5):
        schema = schema_text(rel, source.encode(), mutants, skip=frozenset(skip))
        assert schema is not None
        built = _build(tmp, compiler, rel, schema.text, "schema")
        if built.returncode == 0:
            return schema
        (tmp / rel).write_text(schema.text)
        check = subprocess.run([compiler, "-fsyntax-only", "-fdiagnostics-column-unit=byte", "-fmax-errors=0", rel],
                               cwd=tmp, capture_output=True, text=True)
        lines, points = error_lines_in(parse_text(check.stderr, "gcc", cwd=str(tmp)).build_errors, tmp / rel)
        own, apart, dropped = blamed(schema, lines, points)
        assert not dropped and (own or apart), check.stderr[:2000]
        skip |= own | apart
    raise AssertionError("the schema did not compile in 5 rounds")


def _run_plain(tmp: Path, compiler: str, rel: str) -> str:
    built = _build(tmp, compiler, f"plain_{rel}", SOURCE, "plain")
    assert built.returncode == 0, built.stderr
    return _run(tmp, "plain")


# `return 0` where a pointer is returned: `1` and `-1` are ints, so that host's choice cannot compile;
# the comparison on the same line can.
POINTERS = """\
const int *after(const int *a, int n) {
    if (n > 1) return 0;
    return a + n;
}
"""


def test_an_error_in_one_hosts_guards_leaves_that_host_out_not_its_line(tmp_path: Path) -> None:
    rel = "after.cpp"
    mutants = mutants_in(rel, POINTERS.encode(), 1, 4, qualname="after")
    on_line = [m for m in mutants if m.line == 2]
    literal = [m for m in on_line if m.edit.start.col >= POINTERS.splitlines()[1].index("return 0") + 1
               and m.edit.new_text in ("1", "-1")]
    compared = [m for m in on_line if m.edit.new_text in ("<=", ">=", "<", "==", "!=")]
    assert literal and compared, [(m.kind, m.edit.new_text) for m in on_line]
    schema = schema_text(rel, POINTERS.encode(), mutants)
    assert schema is not None
    (tmp_path / rel).write_text(schema.text)
    build = subprocess.run(["g++", "-fsyntax-only", "-fdiagnostics-column-unit=byte", "-fmax-errors=0", rel],
                           cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode != 0
    diagnostics = parse_text(build.stderr, "gcc", cwd=str(tmp_path)).build_errors
    lines, points = error_lines_in(diagnostics, tmp_path / rel)
    own, apart, dropped = blamed(schema, lines, points)
    assert not dropped, "no whole line is left out"
    assert {m.key for m in literal} <= apart
    assert not {m.key for m in compared} & (own | apart)
    again = schema_text(rel, POINTERS.encode(), mutants, skip=frozenset(own | apart))
    assert again is not None and all(m.key in again.ids for m in compared)
    (tmp_path / rel).write_text(again.text)
    assert subprocess.run(["g++", "-fsyntax-only", rel], cwd=tmp_path, capture_output=True).returncode == 0
