"""The compile gate decides the class: a candidate that leaves its unit clean says what the error
was, and the record shown in the session, `whetstone report --format json` and the verdict carries
that class.  Real projects built through ccwrap with `CC=ccwrap make`, real gcc and clang."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "ccwrap"))
import ccwrap_support as cs  # noqa: E402

native_dir = cs.native_dir  # a shared pytest fixture

from pytest_whetstone.classify.by_fix import fix_class  # noqa: E402
from pytest_whetstone.records import FixCandidate, Position, TextEdit  # noqa: E402

MAKEFILE = """\
OBJS = src/geom.o src/main.o
prog: $(OBJS)
\t$(CC) -o $@ $(OBJS)
%.o: %.c
\t$(CC) -Wall -Werror=implicit-function-declaration -MMD -Iinc -c $< -o $@
-include $(OBJS:.o=.d)
"""
GEOM_H = "#ifndef GEOM_H\n#define GEOM_H\nint norm(int x, int y);\n#endif\n"
GEOM_C = '#include "geom.h"\n\nint norm(int x, int y) {\n    return x * x + y * y;\n}\n'
MAIN_C = '#include "geom.h"\n\nint main(void) {\n    return norm(3, 4) == 25 ? 0 : 1;\n}\n'
FILES = {"inc/geom.h": GEOM_H, "src/geom.c": GEOM_C, "src/main.c": MAIN_C, "Makefile": MAKEFILE}


def _project(root: Path, native_dir: Path, cc: str) -> dict[str, str]:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".whetstone").mkdir()
    env = cs.base_env(native_dir, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    proc = subprocess.run(["make", "-s", f"CC=ccwrap {cc}"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return env


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_a_validated_include_says_the_header_was_missing(native_dir: Path, tmp_path: Path, cc: str) -> None:
    # the project header is no longer included: "implicit declaration of function 'norm'" -- by its
    # words an undefined symbol (a misspelled name reads the same); the include the gate validates
    # (the unit compiles clean with it) says which: the header was missing
    root = tmp_path / "p"
    env = _project(root, native_dir, cc)
    (root / "src/main.c").write_text(MAIN_C.replace('#include "geom.h"\n', ""))
    run = [sys.executable, "-m", "pytest_whetstone", "run", "--", "make", "-s", f"CC=ccwrap {cc}"]
    proc = subprocess.run(run, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    report = subprocess.run([sys.executable, "-m", "pytest_whetstone", "report", "--format", "json"], cwd=root, env=env,
                            capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    errors = [e for e in _build_errors(data) if e.get("severity") == "error"]
    assert errors, report.stdout[:2000]
    first = errors[0]
    assert first["file_path"].endswith("main.c") and first["error_type"] == "missing_include", first
    top = next(c for c in _candidates(data) if c.get("target_id") == first["error_id"])
    assert top["validated"] and "geom.h" in top["description"], top
    assert data["failure"] == "compile-error"
    [session] = (root / ".whetstone" / "sessions").glob("*.jsonl")  # the session keeps what changed
    events = [json.loads(line) for line in session.read_text().splitlines()]
    kept = [c for e in events if e.get("event") == "candidates" for c in e["data"]["records"]
            if c["candidate_id"] == top["candidate_id"]]
    assert kept[0]["mutation"]["validation"]["reclassified"] == "undefined_symbol -> missing_include"


def _found(data: object, keys: tuple[str, str]) -> list[dict]:
    """Every object holding both ``keys`` in a JSON report, wherever the report nests them."""
    found: list[dict] = []
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if all(k in item for k in keys):
                found.append(item)
            else:
                stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def _build_errors(data: object) -> list[dict]:
    return _found(data, ("error_type", "message"))


def _candidates(data: object) -> list[dict]:
    return _found(data, ("candidate_id", "target_id"))


def _edit(line: int, col: int, end_col: int, text: str) -> FixCandidate:
    e = TextEdit(file_path="u.c", start=Position(line, col), end=Position(line, end_col), new_text=text)
    return FixCandidate.edit("E1", "fix", [e], mutation_type="insertNode", confidence=0.5, source="rule")


@pytest.mark.parametrize(
    ("line", "col", "end_col", "text", "proved"),
    [
        (2, 14, 14, ";", "syntax_error"),  # a ';' inserted
        (3, 1, 1, "}\n", "syntax_error"),  # a closing brace
        (1, 1, 1, '#include "model.h"\n', "missing_include"),
        (1, 11, 18, "other.h", "missing_include"),  # an include's header corrected
        (2, 9, 14, "count", "undefined_symbol"),  # a name for a near name
        (2, 9, 14, "&cout", "type_mismatch"),  # the address taken
        (2, 9, 14, "cout + 1", ""),  # a rewritten expression proves nothing
    ],
)
def test_what_an_edit_proves(tmp_path: Path, line: int, col: int, end_col: int, text: str, proved: str) -> None:
    (tmp_path / "u.c").write_text('#include "modl.h"\nint x = cout\n')
    assert fix_class(_edit(line, col, end_col, text), tmp_path) == proved
