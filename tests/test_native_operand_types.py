"""Mutants the operands' declared types refuse are not made (native_operand_types), and the compiler
agrees: each one left out fails a real compile on its own, and what the declarations do not settle
is still made."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.candidates.native_mutant_tree import parse
from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_operand_types import Kind, Operands, Scope, declared_kinds, file_scope
from pytest_whetstone.edits import apply_edits_text

HEADER = """\
#pragma once
#include <cstdio>
struct Cell {
    double *pts, r[3];
    int **ed;
    int count;
    double volume(int n, double scale) const;
    void dump(FILE *fp) const;
};
"""

SOURCE = """\
#include "cell.hh"
#include <cmath>

double Cell::volume(int n, double scale) const {
    double s = 0, *p = pts + 3, *e = pts + 3 * n;
    int *q = ed[1] + 2, k = count - 1;
    for (; p < e; p += 3) s += *p * scale + r[k % 3];
    if (q != nullptr && q[0] > 0) s = s / 2 + std::sqrt(s);
    long d = e - p;
    return s + d + (pts[1] - r[0]) * n;
}

void Cell::dump(FILE *fp) const {
    std::fprintf(fp, "%g %d\\n", r[0], count);
}
"""

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


def _functions(rel: str, data: bytes) -> list[tuple[int, int]]:
    root = parse(rel, data)
    assert root is not None
    return [(n.start_point[0] + 1, n.end_point[0] + 1) for n in root.named_children if n.type == "function_definition"]


def _mutants(workspace: Path | None, rel: str, data: bytes) -> dict[tuple, object]:
    return {m.key: m for lo, hi in _functions(rel, data)
            for m in mutants_in(rel, data, lo, hi, limit=None, workspace=workspace)}


@needs_gxx
def test_each_mutant_the_types_refuse_fails_a_real_compile_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cell.hh").write_text(HEADER)
    (tmp_path / "cell.cc").write_text(SOURCE)
    data = SOURCE.encode()
    typed = _mutants(tmp_path, "cell.cc", data)
    with monkeypatch.context() as off:  # every mutant, as made before the types were read
        off.setattr(Operands, "refuses", lambda *_: False)
        off.setattr(Operands, "refuses_swap", lambda *_: False)
        every = _mutants(tmp_path, "cell.cc", data)
    refused = [m for key, m in every.items() if key not in typed]
    assert not set(typed) - set(every)
    said = {m.description.split(" (", 1)[0] for m in refused}
    # pointers times a number, a double's remainder, a string where a number went
    assert "`+` -> `*` in `pts + 3`" in said and "`+` -> `/` in `ed[1] + 2`" in said
    assert any("`%`" in s and "`s / 2`" in s for s in said)
    assert any(s.startswith("swap the arguments `\"%g %d\\n\"` and `r[0]`") for s in said)
    assert "`!=` -> `<` in `q != nullptr`" in said and "`-` -> `+` in `e - p`" in said
    # what the declarations do not settle is still made: a double's product, the pointers' distance
    kept = {m.description.split(" (", 1)[0] for m in typed.values()}
    assert "`*` -> `/` in `*p * scale`" in kept and "`<` -> `<=` in `p < e`" in kept
    for mutant in refused:
        mutated = apply_edits_text(SOURCE, [mutant.edit])  # type: ignore[attr-defined]
        (tmp_path / "mutant.cc").write_text(mutated)
        built = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-w", "mutant.cc"], cwd=tmp_path,
                               capture_output=True, text=True)
        assert built.returncode != 0, f"{mutant.description} compiles"  # type: ignore[attr-defined]
    subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "cell.cc"], cwd=tmp_path, check=True)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_in_c_an_ordered_comparison_with_null_is_still_made(tmp_path: Path) -> None:
    text = "int f(int *q, double x) {\n    if (q != 0 && *q > 1) return (int)(x * 2);\n    return q - q;\n}\n"
    (tmp_path / "f.c").write_text(text)
    said = {m.description.split(" (", 1)[0] for m in mutants_in("f.c", text.encode(), 1, 4, limit=None, workspace=tmp_path)}
    assert "`!=` -> `<` in `q != 0`" in said  # C warns, it compiles
    assert "`*` -> `%` in `x * 2`" not in said and "`*` -> `/` in `x * 2`" in said


def _operands(text: str) -> tuple[Operands, dict[str, object]]:
    data = text.encode()
    root = parse("t.cc", data)
    assert root is not None
    nodes: list = []
    stack = [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.children)
    exprs = {n.text.decode(): n for n in nodes if n.type == "binary_expression"}
    return Operands(declared_kinds(nodes), Scope({}, frozenset()), cxx=True), exprs


def test_what_declarations_do_not_settle_refuses_nothing() -> None:
    ops, exprs = _operands(
        "typedef int *IntPtr;\n"
        "template <class T> int f(T t, IntPtr h, int n) {\n"
        "    auto a = h;\n"
        "    return t + n + a + 2 + h - 1 + g(n) % 2;\n"
        "}\n")
    # a template's type, `auto`, a typedef that hides a pointer, a call's value: unknown
    assert not ops.refuses(exprs["t + n"], "*")
    assert not ops.refuses(exprs["t + n + a"], "*")
    assert not ops.refuses(exprs["t + n + a + 2 + h"], "*")
    assert not ops.refuses(exprs["g(n) % 2"], "&")


def test_a_name_declared_twice_differently_is_unknown() -> None:
    ops, exprs = _operands(
        "int f(int n) {\n"
        "    { double *x = 0; (void)x; }\n"
        "    { int x = n; return x + 1; }\n"
        "}\n")
    assert ops.local["x"] is None
    assert not ops.refuses(exprs["x + 1"], "%")


def test_members_come_from_headers_included_by_quoted_name_theirs_too(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "base.h").write_text("struct Base { double *w; float h; };\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.h").write_text('#include "../inc/base.h"\nstruct A : Base { int **e; };\n')
    kinds = file_scope(tmp_path, "src/a.cc", b'#include "a.h"\nint g;\n').kinds
    assert kinds["w"] == Kind(1, True, True) and kinds["e"] == Kind(2, True) and kinds["g"] == Kind(0, True)
    assert kinds["h"] == Kind(0, True, True) and kinds["h"].real()
    assert file_scope(None, "src/a.cc", b'#include "a.h"\nint g;\n').kinds == {"g": Kind(0, True)}


def test_a_macros_arguments_may_be_swapped_whatever_their_kinds(tmp_path: Path) -> None:
    (tmp_path / "m.h").write_text("#define PICK(p, n) ((n) > 0 ? (p) : 0)\n")
    text = '#include "m.h"\nint f(int *p, int n, const char *s) {\n  return PICK(p, n) != 0 && g(s, n);\n}\n'
    said = {m.description.split(" (", 1)[0] for m in mutants_in("f.cc", text.encode(), 2, 4, limit=None, workspace=tmp_path)}
    assert "swap the arguments `p` and `n`" in said  # a macro: its arguments have no parameter types
    assert "swap the arguments `s` and `n`" not in said  # a function's: `s` went to a pointer


def test_a_truth_value_swapped_with_a_pointer_is_refused_in_cpp_not_in_c(tmp_path: Path) -> None:
    text = "int f(const char *s, bool strict) { return s != 0 && strict; }\nint g(const char *s) {\n  return f(s, false);\n}\n"
    for rel, made in (("g.cc", False), ("g.c", True)):  # C's `false` is 0, a null pointer constant
        said = {m.description.split(" (", 1)[0] for m in mutants_in(rel, text.encode(), 2, 4, limit=None)}
        assert ("swap the arguments `s` and `false`" in said) is made, rel


def test_a_files_scope_is_kept_until_a_header_it_read_changes(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text("struct A { double *w; };\n")
    data = b'#include "a.h"\n'
    assert file_scope(tmp_path, "a.cc", data).kinds["w"] == Kind(1, True, True)
    assert file_scope(tmp_path, "a.cc", data) is file_scope(tmp_path, "a.cc", data)
    (tmp_path / "a.h").write_text("struct A { int w, v; };\n")  # another size: seen at once
    assert file_scope(tmp_path, "a.cc", data).kinds["w"] == Kind(0, True)
