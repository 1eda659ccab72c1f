"""Candidates for errors that stop the import of the code under test (records from real runs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_whetstone.candidates.pysource_errors import source_error_candidates
from pytest_whetstone.edits import apply_edits_text
from pytest_whetstone.records import TestFailureRecord

CASES = {
    "missing colon": ("def area(w, h)\n    return w * h\n", "def area(w, h):\n    return w * h\n"),
    "unclosed paren": ("def area(w, h):\n    return max(w * h, 0\n\nX = 1\n", None),
    "misspelled keyword": ("def area(w, h):\n    retrun w * h\n", "def area(w, h):\n    return w * h\n"),
    "bad indent": ("def area(w, h):\n    x = w\n      return x * h\n", "def area(w, h):\n    x = w\n    return x * h\n"),
}


def _python_error(path: Path) -> tuple[str, str, int, int]:
    """(exception type, message, line, column) as Python itself reports compiling the file."""
    code = ("import sys, traceback\ntry:\n    compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')\n"
            "except SyntaxError as e:\n    print(type(e).__name__); print(e.msg); print(e.lineno); print(e.offset or 0)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    kind, msg, line, col = out.stdout.splitlines()[:4]
    return kind, msg, int(line), int(col)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_syntax_error_gets_a_repair_that_compiles(tmp_path: Path, name: str) -> None:
    broken, fixed = CASES[name]
    path = tmp_path / "geometry.py"
    path.write_text(broken)
    kind, msg, line, col = _python_error(path)
    record = TestFailureRecord(failure_id="T1", runner="pytest", file_path="geometry.py", line=line,
                               exception_type=kind, message=f"{kind}: {msg}", outcome="error")
    cands = source_error_candidates(record, tmp_path, col)
    assert cands and all(c.edits for c in cands)
    results = [apply_edits_text(broken, c.edits) for c in cands]
    for text in results:
        compile(text, "geometry.py", "exec")  # every repair compiles
    if fixed is not None:
        assert fixed in results


def test_a_missing_import_at_import_time_gets_the_interpreters_hint(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "paths.py").write_text("ROOT = os.path.dirname(__file__)\n")
    proc = subprocess.run([sys.executable, "-c", "import pkg.paths"], cwd=tmp_path, capture_output=True, text=True)
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("NameError")
    record = TestFailureRecord(failure_id="T2", runner="pytest", file_path="pkg/paths.py", line=1,
                               exception_type="NameError", message=last, raw=proc.stderr, outcome="error")
    cands = source_error_candidates(record, tmp_path)
    assert cands and any(c.edits and "import os" in c.edits[0].new_text for c in cands), [c.description for c in cands]


def test_never_nothing(tmp_path: Path) -> None:
    (tmp_path / "odd.py").write_text("x = 1\n")
    record = TestFailureRecord(failure_id="T3", runner="pytest", file_path="odd.py", line=1,
                               exception_type="ImportError", message="ImportError: something odd", outcome="error")
    cands = source_error_candidates(record, tmp_path)
    assert len(cands) >= 1
