"""Mutant generation: kinds, ranking (the likeliest undo first), slice positions, patch plans."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from pytest_whetstone import edits
from pytest_whetstone.candidates.forkrun import patch_plan
from pytest_whetstone.candidates.mutants import Mutant, module_strings, mutants_for
from pytest_whetstone.candidates.pyedit import FunctionSlice


def _fn_range(code: str, name: str) -> tuple[int, int]:
    import ast

    node = next(n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.FunctionDef) and n.name == name)
    return node.lineno, node.end_lineno or node.lineno


def _undo(code: str, original: str, name: str, **kw: object) -> tuple[int, Mutant]:
    """(rank, mutant) of the first mutant that gives the original back."""
    first, last = _fn_range(code, name)
    ms = mutants_for(code, "m.py", first, last, **kw)  # type: ignore[arg-type]
    for i, m in enumerate(ms):
        if edits.apply_edits_text(code, [m.edit]) == original:
            return i, m
    raise AssertionError(f"no mutant restores the original among {len(ms)}")


CLASSY = '''
import os


class Box:
    """A box."""

    def fits(self, size, limit):
        if size != limit:
            return True
        return False

    def label(self):
        return "" + os.sep


def other():
    return "wide"
'''


def test_every_mutant_is_valid_python_at_the_right_place() -> None:
    first, last = _fn_range(CLASSY, "fits")
    ms = mutants_for(CLASSY, "m.py", first, last)
    assert ms and all(first <= m.line <= last for m in ms)
    for m in ms:
        compile(edits.apply_edits_text(CLASSY, [m.edit]), "m.py", "exec")
    flip = next(m for m in ms if m.kind == "cmp-flip")
    assert edits.apply_edits_text(CLASSY, [flip.edit]).count("if size == limit:") == 1


def test_operator_flip_outranks_negation_and_no_equivalent_negation() -> None:
    original = CLASSY
    faulty = CLASSY.replace("size != limit", "size == limit")
    rank, m = _undo(faulty, original, "fits")
    assert m.kind == "cmp-flip"
    first, last = _fn_range(faulty, "fits")
    kinds = [x.kind for x in mutants_for(faulty, "m.py", first, last)]
    assert "negate" not in kinds[: rank + 1]
    assert not any(x.description.startswith("negate 'size == limit'") for x in mutants_for(faulty, "m.py", first, last))


@pytest.mark.parametrize(
    ("original", "faulty"),
    [
        ("    if x in seen:\n", "    if x not in seen:\n"),
        ("    if x in seen:\n", "    if not x in seen:\n"),
        ("    if x in seen or n:\n", "    if not (x in seen or n):\n"),
        ("    if n >= 3:\n", "    if n <= 3:\n"),
        ("    if n < 3:\n", "    if n <= 3:\n"),
        ("    if n and x:\n", "    if n or x:\n"),
        ("    n = n // 2\n    if n:\n", "    n = n % 2\n    if n:\n"),
        ("    n = n - 1\n    if n:\n", "    n = n + 1\n    if n:\n"),
        ("    n = seen[1:n]\n    if n:\n", "    n = seen[1:n + 1]\n    if n:\n"),
        ("    n = 0\n    if n:\n", "    n = 3\n    if n:\n"),
        ("    n = 2\n    if n:\n", "    n = 1\n    if n:\n"),
        ("    flag = True\n    if n:\n", "    flag = False\n    if n:\n"),
        ("    name = 'func'\n    if n:\n", "    name = ''\n    if n:\n"),
    ],
)
def test_one_token_slips_are_undone_near_the_top(original: str, faulty: str) -> None:
    template = "MODE = 'func'\n\n\ndef f(x, seen, n):\n{}        n = 5\n    return n\n"
    rank, _m = _undo(template.format(faulty), template.format(original), "f")
    assert rank < 12


def test_a_bound_that_reads_e_plus_one_is_undone_by_dropping_the_one() -> None:
    faulty = "def f(seen, n):\n    return seen[1:n + 1]\n"
    first, last = _fn_range(faulty, "f")
    texts = [edits.apply_edits_text(faulty, [m.edit]) for m in mutants_for(faulty, "m.py", first, last)]
    assert "def f(seen, n):\n    return seen[1:n]\n" in texts
    assert not any("n + 1 - 1" in t for t in texts)  # equivalent to dropping it, but not the original text


@pytest.mark.parametrize("faulty", ["    return seen[i - 1:]\n", "    return seen[i + 1:]\n"])
def test_a_step_of_one_is_dropped_not_zeroed(faulty: str) -> None:
    code = f"def f(seen, i):\n{faulty}"
    first, last = _fn_range(code, "f")
    texts = [edits.apply_edits_text(code, [m.edit]) for m in mutants_for(code, "m.py", first, last)]
    assert "def f(seen, i):\n    return seen[i:]\n" in texts
    assert not any("i - 0" in t or "i + 0" in t for t in texts)


def test_returned_literal_becomes_the_expected_value() -> None:
    code = "def f():\n    return 3\n"
    rank, m = _undo(code, "def f():\n    return 7\n", "f", expected=7)
    assert m.kind == "return-expected" and rank <= 2  # after 3 -> 4 and 3 -> 2


def test_strings_come_from_the_module() -> None:
    code = "A = 'alpha'\nB = 'beta'\nC = 'beta'\n\n\ndef f():\n    '''doc'''\n    return f'{A}'\n"
    assert module_strings(code)[:2] == ["beta", "alpha"]
    assert "doc" not in module_strings(code)


def test_slice_only_is_parsed_and_maps_back() -> None:
    # a syntax error outside the function: a whole-module parse would give nothing
    code = "def broken(:\n    pass\n\n\nclass K:\n    def m(self, a):\n        s = '''\nx'''\n        return a < 3\n"
    first, last = _fn_range(code.replace("def broken(:", "def broken():"), "m")
    ms = mutants_for(code, "k.py", first, last)
    boundary = next(m for m in ms if m.kind == "cmp-boundary")
    assert (boundary.edit.start.line, boundary.edit.start.col) == (9, 16)
    assert edits.apply_edits_text(code, [boundary.edit]).endswith("        return a <= 3\n")
    sl = FunctionSlice(code, first, last)
    assert sl.source.startswith("def m(self, a):") and sl.to_file(1, 0).col == 5


def _import(tmp_path: Path, name: str, code: str) -> object:
    path = tmp_path / f"{name}.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


PATCHABLE = """import functools


def deco(fn):
    @functools.wraps(fn)
    def inner(*a):
        return fn(*a)
    return inner


class C:
    @staticmethod
    def s(x):
        return x + 1

    @property
    def p(self):
        return 1

    @deco
    def d(self, x):
        return x * 2


def top(x, y=2):
    return x - y


LEVEL = 3
"""


@pytest.mark.parametrize(
    ("old", "new", "call", "expected"),
    [
        ("return x + 1", "return x + 5", lambda m: m.C.s(1), 6),
        ("return 1", "return 9", lambda m: m.C().p, 9),
        ("return x * 2", "return x * 3", lambda m: m.C().d(2), 6),
        ("return x - y", "return x + y", lambda m: m.top(1), 3),
    ],
)
def test_patch_plan_swaps_code_through_decorators(tmp_path: Path, old: str, new: str, call: object, expected: int) -> None:
    name = f"patchme_{abs(hash(old))}"
    module = _import(tmp_path, name, PATCHABLE)
    line = next(i for i, text in enumerate(PATCHABLE.split("\n"), 1) if old in text)
    plan, reason = patch_plan(str(tmp_path / f"{name}.py"), PATCHABLE.replace(old, new), line, line)
    assert plan and not reason
    for function, code in plan:
        function.__code__ = code
    assert call(module) == expected  # type: ignore[operator]
    sys.modules.pop(name, None)


def test_patch_plan_refuses_what_a_code_swap_cannot_do(tmp_path: Path) -> None:
    name = "patchme_refuse"
    _import(tmp_path, name, PATCHABLE)
    file = str(tmp_path / f"{name}.py")
    lines = PATCHABLE.split("\n")
    level = lines.index("LEVEL = 3") + 1
    top = next(i for i, t in enumerate(lines, 1) if t.startswith("def top"))
    assert patch_plan(file, PATCHABLE.replace("LEVEL = 3", "LEVEL = 4"), level, level) == ([], "module-level")
    assert patch_plan(file, PATCHABLE.replace("y=2", "y=3"), top, top) == ([], "header")
    assert patch_plan(str(tmp_path / "absent.py"), PATCHABLE, top + 1, top + 1) == ([], "not-imported")
    sys.modules.pop(name, None)
