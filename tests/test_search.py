"""The validated search on real pytest projects in tmp dirs: fork filter, fallback, confirm, budget."""

from __future__ import annotations

import ast
import hashlib
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_whetstone import edits
from pytest_whetstone.candidates import search as search_mod
from pytest_whetstone.candidates.forkrun import ForkWorker, fork_available
from pytest_whetstone.candidates.search import SearchStats, importing_test_modules, search_candidates
from pytest_whetstone.records import Suspect, TestFailureRecord

pytestmark = pytest.mark.whetstone_search
needs_fork = pytest.mark.skipif(not fork_available(), reason="the fast path needs os.fork")

LIB = '''"""Small functions with one seeded slip each."""

MODE = "func"


def is_even(n):
    return n % 2 == 0


def has(x, seen):
    if x in seen:
        return True
    return False


def first_index(xs):
    return 0


def scale(x, factor=2):
    return x * factor


def label():
    return "func"


def strict():
    flag = True
    return flag


def half(n):
    return n // 2


def both(a, b):
    return a and b
'''
TESTS = '''from pkg.lib import both, first_index, half, has, is_even, label, scale, strict


def test_even():
    assert is_even(4) and not is_even(3)


def test_has():
    assert has(1, {1}) and not has(2, {1})


def test_first_index():
    assert [10, 20][first_index([10, 20])] == 10


def test_scale():
    assert scale(3) == 6


def test_label():
    assert label() == "func"


def test_strict():
    assert strict() is True


def test_half():
    assert half(9) == 4


def test_both():
    assert both(1, 0) == 0
'''


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _project(tmp_path: Path, lib: str = LIB, tests: dict[str, str] | None = None) -> Path:
    (tmp_path / "pkg").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "lib.py").write_text(lib)
    (tmp_path / "tests").mkdir()
    for name, text in (tests or {"test_lib.py": TESTS}).items():
        (tmp_path / "tests" / name).write_text(text)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    return tmp_path


def _failure(code: str, func: str, test: str, module: str = "tests/test_lib.py") -> TestFailureRecord:
    node = next(n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.FunctionDef) and n.name == func)
    return TestFailureRecord(
        runner="pytest", node_id=f"{module}::{test}", failure_type="assertion",
        suspects=[Suspect("pkg/lib.py", func, node.lineno, node.end_lineno or node.lineno, 1.0)],
    ).ensure_id()


SLIPS = [
    ("is_even", "test_even", "n % 2 == 0", "n % 2 != 0"),
    ("has", "test_has", "if x in seen:", "if not x in seen:"),
    ("first_index", "test_first_index", "return 0", "return 3"),
    ("label", "test_label", 'return "func"', 'return ""'),
    ("strict", "test_strict", "flag = True", "flag = False"),
    ("half", "test_half", "n // 2", "n % 2"),
    ("both", "test_both", "a and b", "a or b"),
]


@needs_fork
@pytest.mark.parametrize(("func", "test", "good", "bad"), SLIPS, ids=[s[0] for s in SLIPS])
def test_fast_path_restores_each_kind_of_slip(tmp_path: Path, func: str, test: str, good: str, bad: str) -> None:
    faulty = LIB.replace(good, bad, 1)
    root = _project(tmp_path, faulty)
    before = _tree(root)
    stats = SearchStats()
    found = search_candidates([_failure(faulty, func, test)], root, budget_s=30, stats=stats)
    assert _tree(root) == before  # the user's tree is never touched
    assert found and found[0].validated and found[0].source == "search", stats
    assert edits.apply_edits_text(faulty, found[0].edits) == LIB  # the exact undo, not an equivalent
    assert stats.mode == "fork" and stats.fast_runs >= 2 and stats.stopped == "found"
    assert stats.fast_passed >= 1 and stats.subprocess_runs >= 1  # confirmed by a fresh process


def test_subprocess_path_without_fork(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_mod, "fork_available", lambda: False)
    faulty = LIB.replace("n % 2 == 0", "n % 2 != 0")
    root = _project(tmp_path, faulty)
    stats = SearchStats()
    found = search_candidates([_failure(faulty, "is_even", "test_even")], root, budget_s=40, stats=stats)
    assert found and edits.apply_edits_text(faulty, found[0].edits) == LIB
    assert stats.mode == "subprocess" and stats.fast_runs == 0


@needs_fork
def test_unpatchable_mutant_falls_back_to_a_subprocess(tmp_path: Path) -> None:
    # the slip is a default value: evaluated at import, a code swap cannot show it
    faulty = LIB.replace("factor=2", "factor=3")
    root = _project(tmp_path, faulty)
    stats = SearchStats()
    found = search_candidates([_failure(faulty, "scale", "test_scale")], root, budget_s=40, stats=stats)
    assert found and edits.apply_edits_text(faulty, found[0].edits) == LIB
    assert stats.fallbacks >= 1 and stats.mode == "fork"


HANG_LIB = "def count_up(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n"
HANG_TEST = "from pkg.lib import count_up\n\n\ndef test_count():\n    assert count_up(3) == 99\n"


@needs_fork
def test_a_hanging_mutant_is_killed_and_the_budget_holds(tmp_path: Path) -> None:
    root = _project(tmp_path, HANG_LIB, {"test_lib.py": HANG_TEST})
    stats = SearchStats()
    found = search_candidates([_failure(HANG_LIB, "count_up", "test_count")], root, budget_s=6, stats=stats)
    assert found == []
    assert stats.timeouts >= 1  # `i -= 1` loops forever
    assert stats.elapsed_s < 6 + 3
    assert stats.tried > stats.timeouts  # the search went on after the kill


STATE_LIB = "def first(items):\n    return items[1]\n\n\nDEFAULT = first(['x', 'y'])\n"
STATE_TEST = (
    "from pkg.lib import DEFAULT, first\n\n\n"
    "def test_first():\n    assert first([7, 8, 9]) == 7\n\n\n"
    "def test_default():\n    assert DEFAULT == 'y'\n"
)


@needs_fork
def test_confirm_rejects_a_fast_path_false_positive(tmp_path: Path) -> None:
    # `items[0]` passes in the fork (DEFAULT was computed at import with the original)
    # but breaks test_default in a fresh process
    root = _project(tmp_path, STATE_LIB, {"test_lib.py": STATE_TEST})
    stats = SearchStats()
    found = search_candidates([_failure(STATE_LIB, "first", "test_first")], root, budget_s=30, stats=stats)
    assert found == []
    assert stats.fast_passed >= 1 and stats.confirm_rejected >= 1


PICK_LIB = 'def pick(flag):\n    if flag:\n        return "yes"\n    return "no"\n'
PICK_A = 'from pkg.lib import pick\n\n\ndef test_a():\n    assert pick(True) == "no"\n'
PICK_B = (
    'from pkg import lib\n\n\n'
    'def test_b():\n    assert lib.pick(False) == "no"\n    assert "yes" in {lib.pick(True), lib.pick(False)}\n'
)


@needs_fork
def test_validation_widens_to_other_importing_test_modules(tmp_path: Path) -> None:
    alone = _project(tmp_path / "alone", PICK_LIB, {"test_a.py": PICK_A})
    failure = _failure(PICK_LIB, "pick", "test_a", "tests/test_a.py")
    assert search_candidates([failure], alone, budget_s=30)  # test_a alone: some edit passes
    wide = _project(tmp_path / "wide", PICK_LIB, {"test_a.py": PICK_A, "test_b.py": PICK_B})
    assert importing_test_modules(wide, "pkg/lib.py", ["tests/test_a.py"]) == ["tests/test_b.py"]
    stats = SearchStats()
    found = search_candidates([failure], wide, budget_s=8, stats=stats)
    assert not [c for c in found if c.validated]  # each breaks test_b
    # one the budget left unchecked in test_b says so and is not validated
    assert all(c.mutation["unchecked"] == ["tests/test_b.py"] and "NOT checked" in c.description for c in found)
    assert stats.confirm_rejected >= 1 or found


def test_importers_scan(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("import toolz\n")
    (tmp_path / "tests" / "test_b.py").write_text("from toolz.dicttoolz import merge\n")
    (tmp_path / "tests" / "test_c.py").write_text("import json  # toolz mentioned in a comment only\n")
    (tmp_path / "tests" / "helper.py").write_text("import toolz\n")
    assert importing_test_modules(tmp_path, "toolz/dicttoolz.py", []) == ["tests/test_a.py", "tests/test_b.py"]
    assert importing_test_modules(tmp_path, "toolz/dicttoolz.py", ["tests/test_a.py"]) == ["tests/test_b.py"]


def test_stats_are_json_ready_and_logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("WHETSTONE_SEARCH_LOG", str(log))
    stats = SearchStats()
    search_candidates([_failure(LIB, "is_even", "test_even")], tmp_path, budget_s=0, stats=stats)
    assert stats.to_dict()["stopped"] == "disabled"
    root = _project(tmp_path / "p")
    search_candidates([_failure(LIB, "is_even", "test_even")], root, budget_s=20, stats=stats)
    import json

    assert json.loads(log.read_text().splitlines()[-1])["stopped"] == "baseline-passes"


SUBTESTS = (
    "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_parts(self):\n"
    "        for n in (1, 2):\n            with self.subTest(n=n):\n                self.assertEqual(n, 1)\n"
)


@needs_fork
def test_worker_runs_collected_items_in_the_session_and_falls_back_for_unknown_ids(tmp_path: Path) -> None:
    odd = "\n\n@pytest.mark.parametrize('v', ['a b', 'c::d'])\ndef test_odd(v):\n    assert v\n"
    root = _project(tmp_path, LIB, {"test_lib.py": "import pytest\n" + TESTS + odd,
                                    "test_other.py": "def test_x():\n    assert True\n",
                                    "test_sub.py": SUBTESTS})
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    worker = ForkWorker(root, sys.executable, env, ["tests/test_lib.py"])
    assert worker.start(60)
    try:
        junit = root / "out.xml"
        ids = ["tests/test_lib.py::test_even", "tests/test_lib.py::test_odd[a b]", "tests/test_lib.py::test_odd[c::d]"]
        reply = worker.run(ids, junit, 30)
        assert reply["status"] == "ok" and reply["rc"] == 0, reply
        cases = ET.parse(junit).getroot().findall("testcase")
        assert len(cases) == 3 and not any(list(c) for c in cases)  # all three ran and passed
        # the mutated function, swapped in: the same item now fails
        node = next(n for n in ast.walk(ast.parse(LIB)) if isinstance(n, ast.FunctionDef) and n.name == "is_even")
        patch = {"file": str(root / "pkg" / "lib.py"), "source": LIB.replace("n % 2 == 0", "n % 2 != 0"),
                 "start": node.body[0].lineno, "end": node.end_lineno}
        reply = worker.run(ids[:1], junit, 30, patch)
        assert reply["status"] == "ok" and reply["rc"] == 1, reply
        assert [list(c) != [] for c in ET.parse(junit).getroot().iter("testcase")] == [True]
        # a unittest subTest failure: the item's own report passes, the subtest's fails
        worker.close()
        worker = ForkWorker(root, sys.executable, env, ["tests/test_sub.py"])
        assert worker.start(60)
        reply = worker.run(["tests/test_sub.py::T::test_parts"], junit, 30)
        assert reply["status"] == "ok" and reply["rc"] == 1, reply
        # an id the session never collected: the child runs pytest.main on it instead
        reply = worker.run(["tests/test_other.py::test_x"], junit, 30)
        assert reply["status"] == "ok" and reply["rc"] == 0, reply
    finally:
        worker.close()
