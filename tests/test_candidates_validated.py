"""Build candidates checked with the per-file gate: real projects built through ccwrap, real faults,
real gcc and clang deciding which candidates hold."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "ccwrap"))
import ccwrap_support as cs  # noqa: E402

native_dir = cs.native_dir  # a shared pytest fixture

from pytest_whetstone import edits  # noqa: E402
from pytest_whetstone.candidates.build import generate_build_candidates  # noqa: E402
from pytest_whetstone.candidates.validate import ValidationStats  # noqa: E402
from pytest_whetstone.parse import parse_text  # noqa: E402
from pytest_whetstone.store.sessions import open_session  # noqa: E402

MAKEFILE = """\
SRCS = src/geom.c \\
\tsrc/main.c \\
\tsrc/util.c
OBJS = $(SRCS:.c=.o)
libdemo.so: $(OBJS) Makefile
\t$(CC) -shared -Wl,--no-undefined -o $@ $(OBJS)
%.o: %.c
\t$(CC) -fPIC -Wall -Werror=int-conversion -Werror=incompatible-pointer-types -Werror=implicit-function-declaration -MMD -Iinc -c $< -o $@
-include $(OBJS:.o=.d)
"""
GEOM_H = "struct point {\n    int x;\n    int y;\n};\n\nint norm(const struct point *p);\nvoid scale(struct point *p, int by);\n"
GEOM_C = '#include "geom.h"\n\nint norm(const struct point *p) {\n    return p->x * p->x + p->y * p->y;\n}\n\nvoid scale(struct point *p, int by) {\n    p->x *= by;\n    p->y *= by;\n}\n'
UTIL_H = "int clamp_value(int v, int lo, int hi);\n"
UTIL_C = '#include "util.h"\n\nint clamp_value(int v, int lo, int hi) {\n    return v < lo ? lo : v > hi ? hi : v;\n}\n'
MAIN_C = (
    '#include "geom.h"\n#include "util.h"\n\nint run(int n) {\n    struct point p = {n, 2};\n    scale(&p, 3);\n'
    "    int total = norm(&p);\n    return clamp_value(total, 0, 100);\n}\n\nint other(int n) {\n"
    "    return clamp_value(n, 0, 100);\n}\n"
)
FILES = {"inc/geom.h": GEOM_H, "src/geom.c": GEOM_C, "inc/util.h": UTIL_H, "src/util.c": UTIL_C, "src/main.c": MAIN_C, "Makefile": MAKEFILE}

FAULTS = {
    "struct semicolon in a header": ("inc/geom.h", "    int y;\n};", "    int y;\n}"),
    "function missing its closing brace": ("src/main.c", "    return clamp_value(total, 0, 100);\n}\n", "    return clamp_value(total, 0, 100);\n\n"),
    "x for &x": ("src/main.c", "scale(&p, 3)", "scale(p, 3)"),
    "too few arguments": ("src/main.c", "clamp_value(total, 0, 100)", "clamp_value(total, 0)"),
    "renamed definition": ("src/util.c", "int clamp_value(int v", "int clamp_vlue(int v"),
    "source dropped from the library": ("Makefile", "\tsrc/main.c \\\n\tsrc/util.c\n", "\tsrc/main.c\n"),
    "include of a header that does not exist": ("src/main.c", '#include "util.h"', '#include "util_defs.h"'),
    "declaration missing its ';'": ("src/main.c", "    int total = norm(&p);", "    int total = norm(&p)"),
}


def _make(root: Path, bindir: Path, cc: str) -> subprocess.CompletedProcess[str]:
    env = cs.base_env(bindir, WHETSTONE_DIR=str(root / ".whetstone"))
    return subprocess.run(["make", "-s", "-k", f"CC=ccwrap {cc}"], cwd=root, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(params=["gcc", "clang"])
def built(request: pytest.FixtureRequest, native_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    root = tmp_path / "p"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".whetstone" / "sessions").mkdir(parents=True)
    proc = _make(root, native_dir, request.param)
    assert proc.returncode == 0, proc.stderr
    monkeypatch.setenv("WHETSTONE_DIR", str(root / ".whetstone"))
    return root, request.param


def _records(root: Path, native_dir: Path, cc: str):  # type: ignore[no-untyped-def]
    proc = _make(root, native_dir, cc)
    assert proc.returncode != 0
    return [r for r in parse_text(proc.stderr, "clang" if cc == "clang" else "gcc", cwd=str(root)).build_errors if r.is_failure]


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_top_candidate_is_validated_and_restores_the_original(built: tuple[Path, str], native_dir: Path, fault: str) -> None:
    root, cc = built
    rel, good, bad = FAULTS[fault]
    (root / rel).write_text(FILES[rel].replace(good, bad))
    records = _records(root, native_dir, cc)
    tree = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".whetstone" not in p.parts}
    stats = ValidationStats()
    cands = generate_build_candidates(records, root, stats=stats)
    assert {p: p.read_bytes() for p in tree} == tree  # validation wrote nothing into the tree
    top = next(c for c in cands if c.edits)
    assert top.validated, (fault, [(c.description, c.mutation.get("validation")) for c in cands[:5]])
    assert "error is gone" in top.mutation["validation"]["covered"]
    assert stats.validated >= 1 and stats.checked >= 1
    edits.apply(top, root, open_session(root / ".whetstone", "t"))
    assert (root / rel).read_text() == FILES[rel]
    assert _make(root, native_dir, cc).returncode == 0


def test_over_budget_the_candidates_keep_their_priors(built: tuple[Path, str], native_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, cc = built
    (root / "src/main.c").write_text(MAIN_C.replace("scale(&p, 3)", "scale(p, 3)"))
    records = _records(root, native_dir, cc)
    from pytest_whetstone.candidates import validate

    monkeypatch.setattr(validate, "MAX_CHECKS", 0)
    stats = ValidationStats()
    cands = generate_build_candidates(records, root, stats=stats)
    assert any(c.edits for c in cands) and not any(c.validated for c in cands)
    assert stats.stopped == "count" and stats.unchecked >= 1


def test_a_recorded_command_that_no_longer_runs(built: tuple[Path, str], native_dir: Path) -> None:
    root, cc = built
    (root / "src/main.c").write_text(MAIN_C.replace("scale(&p, 3)", "scale(p, 3)"))
    records = _records(root, native_dir, cc)
    for path in (root / ".whetstone" / "commands").glob("*.json"):
        data = json.loads(path.read_text())
        data["arguments"][0] = "/gone/cc"
        path.write_text(json.dumps(data))
    stats = ValidationStats()
    cands = generate_build_candidates(records, root, stats=stats)
    assert any(c.edits for c in cands) and not any(c.validated for c in cands)
    assert any("no longer runs" in n for n in stats.notes)


def test_whetstone_run_writes_the_validation_to_the_session(native_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "p"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".whetstone").mkdir()
    env = cs.base_env(native_dir, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    make = ["make", "-s", "CC=ccwrap gcc"]
    assert subprocess.run(make, cwd=root, env=env, capture_output=True, timeout=120).returncode == 0
    (root / "src/main.c").write_text(MAIN_C.replace("scale(&p, 3)", "scale(p, 3)"))
    proc = subprocess.run([sys.executable, "-m", "pytest_whetstone", "run", "--", *make], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    [session] = (root / ".whetstone" / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in session.read_text().splitlines()]
    [stats] = [e for e in events if e.get("event") == "build_validation"]
    assert stats["data"]["validated"] >= 1 and stats["data"]["checked"] >= 1
    candidates = [c for e in events if e.get("event") == "candidates" for c in e["data"].get("records", [])]
    assert candidates and candidates[0]["validated"] is True
