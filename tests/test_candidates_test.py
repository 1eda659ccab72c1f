"""Test-failure candidates: interpreter hints, seed 001 rules, validated search."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_whetstone import edits
from pytest_whetstone.candidates.mutants import mutants_for
from pytest_whetstone.candidates.pyedit import add_import_edits, diff_edits
from pytest_whetstone.candidates.python_tests import generate_test_candidates
from pytest_whetstone.candidates.search import SearchStats, search_candidates
from pytest_whetstone.records import FixCandidate, Suspect, TestFailureRecord
from pytest_whetstone.store.sessions import find_store, open_session

STATS = '''"""Statistics."""
import os


def total(values):
    acc = 0
    for v in values:
        acc += v
    return acc


def mean(values):
    return totl(values) / len(values)


def root(x):
    return math.sqrt(x)


def norm(p):
    return Path(p).name


def fits(x):
    return clamp(x, 0, 9) == x
'''
HELPERS = "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n"


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "stats.py").write_text(STATS)
    (tmp_path / "pkg" / "helpers.py").write_text(HELPERS)
    return tmp_path


def real_error(ws: Path, expr: str) -> tuple[str, int]:
    """Run the expression for real; (the interpreter's exception line, the line it failed on)."""
    script = (
        "import sys, traceback\n"
        f"sys.path.insert(0, {str(ws)!r})\n"
        "import pkg.stats as s\n"
        "try:\n"
        f"    {expr}\n"
        "except Exception as exc:\n"
        "    print(''.join(traceback.format_exception_only(type(exc), exc)).strip())\n"
        "    print(traceback.extract_tb(exc.__traceback__)[-1].lineno)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    message, line = out.strip().rsplit("\n", 1)
    return message, int(line)


def failure_for(ws: Path, expr: str) -> TestFailureRecord:
    message, line = real_error(ws, expr)
    return TestFailureRecord(
        runner="pytest",
        node_id="tests/test_stats.py::test_x",
        failure_type="exception",
        exception_type=message.split(":")[0],
        message=message,
        impl_file="pkg/stats.py",
        impl_line=line,
    ).ensure_id()


def apply_top(ws: Path, cands: list[FixCandidate], kind: str) -> FixCandidate:
    top = next(c for c in cands if c.mutation_type == kind)
    edits.apply(top, ws, open_session(find_store(ws), "t"))
    return top


def test_name_error_did_you_mean_rename(ws: Path) -> None:
    failure = failure_for(ws, "s.mean([1, 2])")
    assert "totl" in failure.message
    cands = generate_test_candidates([failure], ws)
    top = cands[0]
    assert top.mutation_type == "rename" and top.source == "interpreter-hint"
    assert top.target_id == failure.failure_id
    apply_top(ws, cands, "rename")
    assert "return total(values) / len(values)" in (ws / "pkg" / "stats.py").read_text()
    out = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ws)!r}); import pkg.stats as s; print(s.mean([1, 3]))"], capture_output=True, text=True)
    assert out.stdout.strip() == "2.0"


def test_name_error_stdlib_module_add_import(ws: Path) -> None:
    failure = failure_for(ws, "s.root(4)")
    cands = generate_test_candidates([failure], ws)
    top = apply_top(ws, cands, "addImport")
    text = (ws / "pkg" / "stats.py").read_text()
    assert text.startswith('"""Statistics."""\nimport math\nimport os\n')  # in sorted position
    assert top.confidence >= 0.7
    # applying again would duplicate nothing: the generator sees the import now
    again = generate_test_candidates([failure], ws)
    assert not [c for c in again if c.mutation_type == "addImport"]


def test_name_error_well_known_from_import(ws: Path) -> None:
    failure = failure_for(ws, "s.norm('/a/b')")
    apply_top(ws, generate_test_candidates([failure], ws), "addImport")
    assert "from pathlib import Path\n" in (ws / "pkg" / "stats.py").read_text()


def test_name_error_project_symbol_import(ws: Path) -> None:
    failure = failure_for(ws, "s.fits(3)")
    top = apply_top(ws, generate_test_candidates([failure], ws), "addImport")
    assert top.mutation["module"] == "pkg.helpers"
    out = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ws)!r}); import pkg.stats as s; print(s.fits(3))"], capture_output=True, text=True)
    assert out.stdout.strip() == "True"


def test_attribute_error_on_stdlib_module(ws: Path) -> None:
    (ws / "pkg" / "paths.py").write_text("import os\n\n\ndef here(p):\n    return os.path.basename(p).uper()\n\n\ndef base(p):\n    return os.pathh.basename(p)\n")
    script = f"import sys; sys.path.insert(0, {str(ws)!r}); import pkg.paths as m; m.base('/x')"
    err = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True).stderr.strip().splitlines()[-1]
    failure = TestFailureRecord(runner="pytest", node_id="t::a", failure_type="exception", message=err, impl_file="pkg/paths.py", impl_line=9).ensure_id()
    cands = generate_test_candidates([failure], ws)
    top = apply_top(ws, cands, "rename")
    assert top.mutation["new"] == "path"
    assert "return os.path.basename(p)\n" in (ws / "pkg" / "paths.py").read_text()


def test_import_error_near_name(ws: Path) -> None:
    (ws / "pkg" / "imp.py").write_text("from os.path import basenme\n")
    err = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ws)!r}); import pkg.imp"], capture_output=True, text=True).stderr.strip().splitlines()[-1]
    failure = TestFailureRecord(runner="pytest", node_id="t::b", failure_type="infra", message=err, impl_file="pkg/imp.py", impl_line=1).ensure_id()
    apply_top(ws, generate_test_candidates([failure], ws), "rename")
    assert (ws / "pkg" / "imp.py").read_text() == "from os.path import basename\n"


@pytest.mark.parametrize(
    ("failure_type", "low", "high", "kind"),
    [
        ("assertion", 0.4, 0.7, "logic-change"),
        ("exception", 0.3, 0.3, "guard"),
        ("timeout", 0.2, 0.2, "timeout"),
        ("wrong_output", 0.2, 0.2, "snapshot"),
        ("missing_output", 0.2, 0.2, "output-path"),
        ("infra", 0.2, 0.2, "fixture-setup"),
    ],
)
def test_seed_rules(ws: Path, failure_type: str, low: float, high: float, kind: str) -> None:
    failure = TestFailureRecord(
        runner="pytest",
        node_id=f"tests/test_x.py::test_{failure_type}",
        failure_type=failure_type,
        message="boom",
        suspects=[Suspect("pkg/stats.py", "total", 5, 9, 1.0)],
    ).ensure_id()
    cands = generate_test_candidates([failure], ws)
    rule = [c for c in cands if c.mutation.get("kind") == kind]
    assert rule and low <= rule[0].confidence <= high
    assert cands[-1].mutation["kind"] == "manual" and cands[-1].confidence == 0.1
    assert all(c.target_id == failure.failure_id for c in cands)
    assert cands == sorted(cands, key=lambda c: -c.confidence)
    assert [c.to_json() for c in cands] == [c.to_json() for c in generate_test_candidates([failure], ws)]
    assert [FixCandidate.from_json(c.to_json()) for c in cands] == cands


def test_unknown_gets_only_manual_and_batches(ws: Path) -> None:
    fs = [
        TestFailureRecord(runner="gtest", test_suite="S", test_name=f"t{i}", failure_type="unknown").ensure_id()
        for i in range(3)
    ]
    cands = generate_test_candidates(fs, ws)
    assert len(cands) == 3 and all(c.mutation_type == "manual" for c in cands)
    assert {c.target_id for c in cands} == {f.failure_id for f in fs}


def test_assertion_value_correction(ws: Path) -> None:
    (ws / "pkg" / "conf.py").write_text("def retries():\n    return 3\n")
    failure = TestFailureRecord(
        runner="pytest", node_id="t::r", failure_type="assertion", expected_value="5", actual_value="3",
        suspects=[Suspect("pkg/conf.py", "retries", 1, 2, 1.0)],
    ).ensure_id()
    cands = generate_test_candidates([failure], ws)
    value = [c for c in cands if c.mutation.get("kind") == "value-correction"]
    assert value and 0.4 <= value[0].confidence <= 0.7
    assert edits.apply_edits_text("def retries():\n    return 3\n", value[0].edits) == "def retries():\n    return 5\n"


def test_diff_edits_minimal_and_add_import_keeps_formatting() -> None:
    old = "import os  # keep me\n\n\ndef f():\n    return os.sep\n"
    es = add_import_edits("m.py", old, "json", None)
    assert len(es) == 1 and es[0].start.line == es[0].end.line
    assert edits.apply_edits_text(old, es) == "import os  # keep me\nimport json\n\n\ndef f():\n    return os.sep\n"
    assert diff_edits("m.py", "a = 1\n", "a = 1\n") == []
    e = diff_edits("m.py", "x = foo(1)\n", "x = foo(2)\n")[0]
    assert (e.start.col, e.end.col, e.new_text) == (9, 10, "2")


def test_mutants_cover_the_operator_families() -> None:
    code = "def f(xs, n):\n    for i in range(len(xs)):\n        if xs[i] < n and not xs[i]:\n            return i + 1\n    return -1\n"
    kinds = {m.kind for m in mutants_for(code, "f.py", 1, 5, expected=2)}
    assert {"cmp-boundary", "off-by-one", "negate", "arith", "boolop", "name", "cmp-flip"} <= kinds
    first = mutants_for(code, "f.py", 1, 5)[0]
    assert first.kind == "cmp-boundary"
    for m in mutants_for(code, "f.py", 1, 5):
        compile(edits.apply_edits_text(code, [m.edit]), "f.py", "exec")  # every mutant is valid Python


SEARCH_LIB = "def last_index(xs):\n    return len(xs)\n\n\ndef is_adult(age):\n    return age > 18\n"
SEARCH_TESTS = (
    "from pkg.core import is_adult, last_index\n\n\n"
    "def test_last():\n    assert last_index([1, 2, 3]) == 2\n\n\n"
    "def test_adult():\n    assert is_adult(18)\n    assert not is_adult(17)\n\n\n"
    "def test_other():\n    assert is_adult(40)\n"
)


def test_search_validates_a_real_off_by_one(ws: Path) -> None:
    (ws / "pkg" / "core.py").write_text(SEARCH_LIB)
    (ws / "tests").mkdir()
    (ws / "tests" / "test_core.py").write_text(SEARCH_TESTS)
    (ws / "pyproject.toml").write_text("")
    fs = [
        TestFailureRecord(
            runner="pytest", node_id="tests/test_core.py::test_last", failure_type="assertion",
            expected_value="2", actual_value="3", suspects=[Suspect("pkg/core.py", "last_index", 1, 2, 1.0)],
        ).ensure_id(),
        TestFailureRecord(
            runner="pytest", node_id="tests/test_core.py::test_adult", failure_type="assertion",
            suspects=[Suspect("pkg/core.py", "is_adult", 5, 6, 1.0)],
        ).ensure_id(),
    ]
    before = (ws / "pkg" / "core.py").read_bytes()
    stats = SearchStats()
    found = search_candidates(fs, ws, budget_s=40, stats=stats)
    assert (ws / "pkg" / "core.py").read_bytes() == before  # never the user's tree
    assert found and all(c.validated and c.source == "search" and c.confidence >= 0.8 for c in found)
    by_target = {c.target_id: c for c in reversed(found)}
    last_fix = by_target[fs[0].failure_id]
    assert edits.apply_edits_text(SEARCH_LIB, last_fix.edits).startswith("def last_index(xs):\n    return len(xs) - 1\n")
    adult_fix = by_target[fs[1].failure_id]
    assert "age >= 18" in edits.apply_edits_text(SEARCH_LIB, adult_fix.edits)
    # applying the top validated candidate really makes the failing test pass
    edits.apply(last_fix, ws, open_session(find_store(ws), "s"))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:whetstone", "tests/test_core.py::test_last"], cwd=ws, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_search_disabled_and_no_suspects(ws: Path) -> None:
    f = TestFailureRecord(runner="pytest", node_id="t.py::x", suspects=[Suspect("pkg/stats.py", "total", 5, 9, 1.0)]).ensure_id()
    stats = SearchStats()
    assert search_candidates([f], ws, budget_s=0, stats=stats) == [] and stats.stopped == "disabled"
    bare = TestFailureRecord(runner="pytest", node_id="t.py::x").ensure_id()
    assert search_candidates([bare], ws, budget_s=5, stats=stats) == [] and stats.stopped == "no-suspects"


def test_swapped_letters_count_as_one_edit_for_renames() -> None:
    from pytest_whetstone.candidates.cfile import levenshtein
    from pytest_whetstone.candidates.python_tests import _closest

    assert levenshtein("idnex", "index") == 1
    assert levenshtein("kitten", "sitting") == 3
    assert _closest("idnex", {"index", "indent"}) == "index"
    assert _closest("sq", {"seq", "x"}) == "seq"
    assert _closest("zzzz", {"index"}) == ""
