"""A removed closing brace, end to end with the real compilers: the top candidate puts it back.

Code written here (C and C++); each case removes one function's closing brace, compiles with gcc /
clang (g++ / clang++), parses the output and applies the top candidate with edits: the file must come
back byte for byte (no recorded commands here, so the priors alone rank them).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone import candidates, edits
from pytest_whetstone.parse import parse_text
from pytest_whetstone.store.sessions import open_session

C_SOURCE = """\
#include <stdio.h>

static int counter = 0;

/* Adds to the counter. */
int bump(int by) {
    counter += by;
    return counter;
}

int triple(int x) {
    return x * 3;
}

static int twice(int x) {
    int y = x * 2;
    return y;
}

void report(void) {
    printf("%d\\n", twice(counter));
}
"""

CXX_SOURCE = """\
#include <string>

namespace geo {

class Shape {
 public:
  double Area() const;
  std::string Name() const;

 private:
  double side_ = 1.0;
};

double Shape::Area() const {
  double a = side_ * side_;
  return a;
}

// The shape's name.
std::string Shape::Name() const {
  return "square";
}

int Count(int n) {
  return n + 1;
}

}  // namespace geo
"""


def _drop_brace(source: str, inside: str) -> str:
    lines = source.split("\n")
    start = next(i for i, line in enumerate(lines) if inside in line)
    end = next(i for i in range(start, len(lines)) if lines[i] == "}")
    return "\n".join(lines[:end] + [""] + lines[end + 1:])


def _top_restores(compiler: str, source: str, inside: str, suffix: str, tmp_path: Path) -> None:
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    (tmp_path / ".whetstone" / "sessions").mkdir(parents=True)
    path = tmp_path / f"unit{suffix}"
    path.write_text(_drop_brace(source, inside))
    proc = subprocess.run([compiler, "-fsyntax-only", path.name], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    assert proc.returncode != 0
    records = parse_text(proc.stderr, "auto", cwd=str(tmp_path)).build_errors
    top = next(c for c in candidates.generate(records, [], tmp_path) if c.edits)
    edits.apply(top, tmp_path, open_session(tmp_path / ".whetstone", "t"))
    assert path.read_text() == source, (proc.stderr, top.description)


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
@pytest.mark.parametrize("inside", ["counter += by", "return x * 3", "int y = x * 2"])
def test_c_brace_restored(compiler: str, inside: str, tmp_path: Path) -> None:
    _top_restores(compiler, C_SOURCE, inside, ".c", tmp_path)


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
@pytest.mark.parametrize("inside", ["double a = side_", "return \"square\""])
def test_cxx_brace_restored(compiler: str, inside: str, tmp_path: Path) -> None:
    _top_restores(compiler, CXX_SOURCE, inside, ".cc", tmp_path)


def test_a_struct_followed_by_the_next_declaration_lacks_its_semicolon() -> None:
    from pytest_whetstone.candidates.siteops import _unterminated_aggregates

    head = "struct point {\n    int x;\n}\n"
    for after, missing in [("typedef struct box { int a; } box_t;\n", True), ("uint32_t area(int x);\n", True),
                           ("origin;\n", False), ("pts[4];\n", False), ("*where = 0;\n", False)]:
        text = head + after
        assert bool(_unterminated_aggregates(text)) is missing, after


def test_no_semicolon_is_offered_after_a_specifier(tmp_path: Path) -> None:
    """gcc reports `struct a {...}` + `typedef struct b` at `struct`: a ';' after `typedef` is never the fix."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    (tmp_path / ".whetstone" / "sessions").mkdir(parents=True)
    (tmp_path / "geom.h").write_text("struct point {\n    int x;\n}\n\ntypedef struct box {\n    int w;\n} box_t;\n")
    (tmp_path / "geom.c").write_text('#include "geom.h"\nint width(box_t *b) { return b->w; }\n')
    proc = subprocess.run(["gcc", "-fsyntax-only", "geom.c"], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    records = [r for r in parse_text(proc.stderr, "auto", cwd=str(tmp_path)).build_errors if r.is_failure]
    cands = [c for c in candidates.generate(records[:1], [], tmp_path) if c.edits]
    assert cands and cands[0].description.startswith("insert ';' after the struct/class body ending at geom.h:3"), proc.stderr
