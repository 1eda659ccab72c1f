"""The search's further mutant operators (candidates/mutant_ops.py): each slip is undone exactly, first in
the mutant ranking's top few, then by the validated search on a real pytest project, and end to end
through ``pytest -p whetstone --whetstone-search=1``."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from pytest_whetstone import edits
from pytest_whetstone.candidates.forkrun import fork_available
from pytest_whetstone.candidates.mutant_ops import edit_distance, module_facts, near_attributes
from pytest_whetstone.candidates.mutants import mutants_for
from pytest_whetstone.candidates.search import SearchStats, search_candidates
from pytest_whetstone.records import Suspect, TestFailureRecord

LIB = '''"""Small functions, each with one place a slip can hide."""


class ParseError(ValueError):
    pass


class Box:
    def __init__(self, items):
        self.items = list(items)
        self.length = len(self.items)

    def size(self):
        return self.length


def is_empty(xs):
    empty = len(xs) == 0
    return empty


def longest(words):
    best = ""
    for word in words:
        if len(word) > len(best):
            best = word
    return best


def ratio(part, whole):
    return part / whole


def percent(part, whole):
    return round(100 * ratio(part, whole))


def lookup(table, key, default=None):
    try:
        return table[key]
    except KeyError:
        return default


def parse_int(text):
    if not text.strip().lstrip("-").isdigit():
        raise ParseError(text)
    return int(text)


def logged(func):
    def wrapper(*args):
        return func(*args)
    return wrapper


def same_length(a, b):
    return len(a) == len(b)


def count_up(n):
    i = 0
    seen = []
    while i < n:
        seen.append(i)
        i += 1
    return seen
'''

TESTS = '''from pkg.lib import Box, count_up, is_empty, logged, longest, lookup, percent, same_length


def test_logged():
    assert logged(len)("abc") == 3


def test_same_length():
    assert same_length("ab", "cd")


def test_size():
    assert Box("abc").size() == 3


def test_is_empty():
    assert is_empty([]) is True
    assert is_empty([1]) is False


def test_longest():
    assert longest(["a", "abc", "ab"]) == "abc"


def test_percent():
    assert percent(1, 4) == 25


def test_lookup():
    assert lookup({"a": 1}, "a") == 1
    assert lookup({"a": 1}, "b", 0) == 0


def test_count_up():
    assert count_up(3) == [0, 1, 2]
'''

# (function, failing test, good text, seeded slip)
SLIPS = [
    ("size", "test_size", "return self.length", "return self.lenght"),  # misspelled attribute
    ("is_empty", "test_is_empty", "return empty", "return not empty"),  # wrong return: `not` added
    ("longest", "test_longest", "    return best", "    return word"),  # wrong return: another name
    ("percent", "test_percent", "100 * ratio(part, whole)", "100 * ratio(whole, part)"),  # swapped arguments
    ("lookup", "test_lookup", "except KeyError:", "except IndexError:"),  # the except clause's class
    ("count_up", "test_count_up", "        i += 1\n", ""),  # the loop never moves: it hangs
    ("logged", "test_logged", "    return wrapper", "    return None"),  # wrong return: None for a name
    ("same_length", "test_same_length", "return len(a) == len(b)", "return not (len(a) == len(b))"),
]
IDS = ["misspelled-attr", "return-not", "return-name", "swap-args", "except-type", "loop-step", "return-none",
       "return-not-parens"]


def _span(code: str, func: str) -> tuple[int, int]:
    node = next(n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.FunctionDef) and n.name == func)
    return node.lineno, node.end_lineno or node.lineno


def _seed(good: str, bad: str) -> str:
    assert LIB.count(good) >= 1
    return LIB.replace(good, bad, 1)


@pytest.mark.parametrize(("func", "test", "good", "bad"), SLIPS, ids=IDS)
def test_the_undo_is_among_the_first_mutants(func: str, test: str, good: str, bad: str) -> None:
    faulty = _seed(good, bad)
    first, last = _span(faulty, func)
    ranked = mutants_for(faulty, "pkg/lib.py", first, last)
    for m in ranked:
        compile(edits.apply_edits_text(faulty, [m.edit]), "lib.py", "exec")  # every mutant is valid Python
    undo = [i for i, m in enumerate(ranked) if edits.apply_edits_text(faulty, [m.edit]) == LIB]
    assert undo and undo[0] < 12, [m.description for m in ranked[:12]]


def test_module_facts_and_near_attributes() -> None:
    facts = module_facts(_seed("return self.length", "return self.lenght"))
    assert facts.exceptions[:2] == ["ParseError", "KeyError"] or set(facts.exceptions) >= {"ParseError", "KeyError"}
    assert near_attributes("lenght", facts) == ["length"]
    assert near_attributes("items", facts) == []  # known elsewhere in the module: no misspelling
    assert near_attributes("rslpit", facts)[0] == "rsplit"  # a builtin type's method, one transposition away
    assert edit_distance("lenght", "length") == 1 and edit_distance("abc", "xyz") == 3


def test_except_clause_tries_the_module_s_own_classes_first() -> None:
    faulty = _seed("except KeyError:", "except IndexError:")
    first, last = _span(faulty, "lookup")
    swaps = [m.edit.new_text for m in mutants_for(faulty, "pkg/lib.py", first, last) if m.kind == "except-type"]
    assert swaps[0] == "ParseError"  # the module's own class first
    assert swaps.index("KeyError") < swaps.index("Exception")  # a specific builtin before a broad one
    seen = mutants_for(faulty, "pkg/lib.py", first, last, raised="KeyError")
    assert seen[0].edit.new_text == "KeyError"  # what escaped the clause in the failing test


def _project(tmp_path: Path, lib: str) -> Path:
    (tmp_path / "pkg").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "lib.py").write_text(lib)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_lib.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    return tmp_path


@pytest.mark.whetstone_search
@pytest.mark.skipif(not fork_available(), reason="the fast path needs os.fork")
@pytest.mark.parametrize(("func", "test", "good", "bad"), SLIPS, ids=IDS)
def test_the_search_validates_the_exact_undo(tmp_path: Path, func: str, test: str, good: str, bad: str) -> None:
    faulty = _seed(good, bad)
    root = _project(tmp_path, faulty)
    first, last = _span(faulty, func)
    failure = TestFailureRecord(
        runner="pytest", node_id=f"tests/test_lib.py::{test}", failure_type="assertion",
        outcome="timeout" if func == "count_up" else "failed", duration_ms=50,
        exception_type="KeyError" if func == "lookup" else "",
        suspects=[Suspect("pkg/lib.py", func, first, last, 1.0)],
    ).ensure_id()
    stats = SearchStats()
    found = search_candidates([failure], root, budget_s=60, stats=stats)
    assert (root / "pkg" / "lib.py").read_text() == faulty  # the user's tree is never touched
    assert found and found[0].validated, stats
    assert edits.apply_edits_text(faulty, found[0].edits) == LIB


@pytest.mark.whetstone_search
def test_pytest_run_with_the_search_validates_swapped_arguments(pytester: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WHETSTONE_SEARCH", raising=False)
    faulty = _seed("100 * ratio(part, whole)", "100 * ratio(whole, part)")
    pytester.mkpydir("pkg")
    (pytester.path / "pkg" / "lib.py").write_text(faulty)
    pytester.makepyfile(test_lib=TESTS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest_subprocess("-p", "whetstone", "--whetstone-search=1", "-k", "percent")
    result.assert_outcomes(failed=1, deselected=7)  # the user's outcome is the plain run's
    assert (pytester.path / "pkg" / "lib.py").read_text() == faulty
    sessions = list((pytester.path / ".whetstone" / "sessions").glob("*.jsonl"))
    events = [json.loads(line) for line in sessions[0].read_text().splitlines()]
    cands = [c for e in events if e["event"] == "candidates" for c in e["data"]["records"]]
    best = cands[0]
    assert best["validated"] and best["source"] == "search"
    assert best["edits"][0]["new_text"] == "ratio(part, whole)"
