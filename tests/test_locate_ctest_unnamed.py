"""A ctest test that fails without naming a file (it crashes before printing, or only returns non-zero)
is placed in the source of its own executable, asked of ctest and the recorded build, and located from
there.  Real CMake (Ninja and Makefiles generators, ccwrap as launcher or as the compiler), gcc, ctest."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_native_tests_e2e import _env, _session, whetstone, whetstone_run

pytestmark = pytest.mark.skipif(
    not (shutil.which("cmake") and shutil.which("ctest") and shutil.which("ccwrap") and shutil.which("gcc")),
    reason="cmake, ctest, ccwrap or gcc missing",
)

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.13)
project(shapes C)
enable_testing()
add_library(shapes STATIC src/shapes.c src/names.c)
target_include_directories(shapes PUBLIC src)
add_executable(shapes_check tests/shapes_check.c tests/helpers.c)
target_link_libraries(shapes_check shapes)
add_test(NAME shapes_check COMMAND shapes_check)
add_executable(names_check tests/names_check.c)
target_link_libraries(names_check shapes)
add_test(NAME names_check COMMAND names_check)
add_test(NAME script_only COMMAND sh -c "exit 3")
add_executable(suite_runner tests/runner_main.c tests/helpers.c)
add_test(NAME suite_runner COMMAND suite_runner)
"""
RUNNER_MAIN_C = """\
int same(int a, int b);

int main(void) { return same(1, 2) ? 0 : 1; }
"""
SHAPES_H = """\
#pragma once
struct rect { int w, h; };
int rect_area(const struct rect *r);
int rect_perimeter(const struct rect *r);
struct rect *rect_pick(struct rect *rects, int n, int min_area);
const char *shape_name(int sides);
"""
SHAPES_C = """\
#include <stddef.h>
#include "shapes.h"

int rect_area(const struct rect *r) { return r->w * r->h; }

int rect_perimeter(const struct rect *r) { return 2 * (r->w + r->h); }

struct rect *rect_pick(struct rect *rects, int n, int min_area) {
  for (int i = 0; i < n; ++i) {
    if (rect_area(&rects[i]) > min_area) return &rects[i];  /* seeded fault: > for >= */
  }
  return NULL;
}
"""
NAMES_C = """\
#include "shapes.h"

const char *shape_name(int sides) { return sides == 3 ? "triangle" : sides == 4 ? "rectangle" : "polygon"; }
"""
HELPERS_C = """\
int same(int a, int b) { return a == b; }
"""
SHAPES_CHECK_C = """\
#include <stdlib.h>
#include "shapes.h"

int same(int a, int b);

int main(void) {
  struct rect rects[] = {{1, 1}, {2, 3}};
  struct rect *big = rect_pick(rects, 2, 6);  /* NULL under the fault: the test crashes, printing nothing */
  if (!same(big->w, 2)) abort();
  if (!same(rect_pick(rects, 2, 5)->h, 3)) abort();
  return 0;
}
"""
NAMES_CHECK_C = """\
#include <string.h>
#include "shapes.h"

int main(void) { return strcmp(shape_name(4), "rectangle") == 0 ? 0 : 1; }
"""


def _project(root: Path, generator: str, ccwrap_as: str, build: str = "shapes/build") -> tuple[Path, Path]:
    proj = root / "shapes"
    for rel, text in {"CMakeLists.txt": CMAKELISTS, "src/shapes.h": SHAPES_H, "src/shapes.c": SHAPES_C,
                      "src/names.c": NAMES_C, "tests/helpers.c": HELPERS_C, "tests/shapes_check.c": SHAPES_CHECK_C,
                      "tests/names_check.c": NAMES_CHECK_C, "tests/runner_main.c": RUNNER_MAIN_C}.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    store = proj / ".whetstone"
    env = _env(store)
    flags = ["-G", generator]
    if ccwrap_as == "launcher":
        flags.append("-DCMAKE_C_COMPILER_LAUNCHER=ccwrap")
    else:
        env["CC"] = "ccwrap"
    configure = subprocess.run(["cmake", "-S", str(proj), "-B", str(root / build), *flags], env=env,
                               capture_output=True, text=True)
    assert configure.returncode == 0, configure.stderr
    built = subprocess.run(["cmake", "--build", str(root / build)], env=env, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    return proj, store


@pytest.mark.parametrize(("generator", "ccwrap_as", "build"), [
    ("Ninja", "launcher", "shapes/build"),  # no link recorded: ninja -t commands says how the executable was linked
    ("Unix Makefiles", "launcher", "shapes/build"),  # no link recorded: CMake's link.txt says
    ("Unix Makefiles", "compiler", "shapes/build"),  # ccwrap recorded the link itself
    ("Unix Makefiles", "compiler", "build-out"),  # an out-of-tree build: cmake -B ../build-out
])
def test_a_crash_that_prints_nothing_is_located_from_its_executables_source(
        tmp_path: Path, generator: str, ccwrap_as: str, build: str) -> None:
    if generator == "Ninja" and not shutil.which("ninja"):
        pytest.skip("ninja missing")
    proj, store = _project(tmp_path, generator, ccwrap_as, build)
    verdict, out = whetstone_run(["ctest", "--output-on-failure"], tmp_path / build, store)
    assert verdict["failure"] == "test-failure", out
    failures = {f.test_name: f for f in _session(store, verdict).state().test_failures}
    crash = failures["shapes_check"]
    assert crash.file_path == "tests/shapes_check.c"  # its own code, not the library, not the helper file
    assert "rect_pick" in [s.qualname for s in crash.suspects[:3]], crash.suspects
    # a test that runs no executable of the build stays unplaced, and costs the run nothing else; so
    # does one whose executable has two test files and neither is named after it
    for name in ("script_only", "suite_runner"):
        assert failures[name].file_path in ("", None), name
        assert not failures[name].suspects, name


def test_the_search_fixes_the_crash_through_its_executable(tmp_path: Path) -> None:
    if not shutil.which("ninja"):
        pytest.skip("ninja missing")
    proj, store = _project(tmp_path, "Ninja", "launcher")
    verdict, out = whetstone(["run", "--search", "--", "ctest", "--output-on-failure"], proj / "build", store)
    top = _session(store, verdict).state().candidates[0]
    assert top.validated, out
    assert [(e.file_path, e.new_text) for e in top.edits] == [("src/shapes.c", ">=")], top
    assert (proj / "src/shapes.c").read_text() == SHAPES_C  # found in scratch; the tree is untouched
