"""The execution spectrum of C/C++ tests: what the failing test really ran, under one-shot breakpoints
or callgrind.

End to end: a gtest project built with ``make CXX=ccwrap++`` whose fault sits in a function the test
reaches only through a table of function pointers, so no name in the test or its callees points at
it.  ``whetstone run --search`` profiles the failing test and its neighbours, the faulty function
becomes the first suspect, and the search fixes it: under the breakpoint tracer (every test of the
binary, function entries), and under callgrind with debug info (lines) and without (symbol names).  Plus the profile reader on the real tool's output, compressed names and relative
positions, and a skipped test that dumps no part.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from test_native_tests_e2e import _env
from test_native_tests_e2e import whetstone as _whetstone

from pytest_whetstone.candidates.native_spectra_bp import tracer
from pytest_whetstone.candidates.native_spectra_cxx import _align, _body_class
from pytest_whetstone.locate.callgrind import Executed, plain_name, read_profile
from pytest_whetstone.store.sessions import load_session

needs_tools = pytest.mark.skipif(
    not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make") and shutil.which("valgrind")),
    reason="ccwrap, g++, make or valgrind missing",
)

SHAPES_H = """\
#pragma once
double area(const char* kind, double a, double b);
int sides(const char* kind);
"""
SHAPES_CC = """\
#include "shapes.h"
#include <cstring>

static double rect(double a, double b) { return a * b; }
static double tri(double a, double b) {
  double base = a;
  return base * b / 3;
}
static double circle(double r, double) { return 3.0 * r * r; }

struct Entry { const char* name; double (*fn)(double, double); int sides; };
static const Entry table[] = {{"rect", rect, 4}, {"tri", tri, 3}, {"circle", circle, 0}};

static const Entry* lookup(const char* kind) {
  for (const Entry& e : table) {
    if (std::strcmp(e.name, kind) == 0) return &e;
  }
  return nullptr;
}

double area(const char* kind, double a, double b) {
  const Entry* e = lookup(kind);
  return e ? e->fn(a, b) : -1.0;
}

int sides(const char* kind) {
  const Entry* e = lookup(kind);
  return e ? e->sides : -1;
}
"""
SHAPES_TEST = """\
#include <gtest/gtest.h>
#include "shapes.h"

TEST(Area, Rect) { EXPECT_DOUBLE_EQ(area("rect", 2, 3), 6.0); }
TEST(Area, Circle) { EXPECT_DOUBLE_EQ(area("circle", 1, 0), 3.0); }
TEST(Area, Triangle) { EXPECT_DOUBLE_EQ(area("tri", 4, 3), 6.0); }
TEST(Area, Unknown) { EXPECT_DOUBLE_EQ(area("hex", 1, 1), -1.0); }
TEST(Sides, Rect) { EXPECT_EQ(sides("rect"), 4); }
"""
MAKEFILE = """\
CXXFLAGS ?= -O0
shapes_test: tests/shapes_test.o src/shapes.o
\t$(CXX) -o $@ $^ -lgtest -lgtest_main -pthread
tests/shapes_test.o: tests/shapes_test.cc src/shapes.h
\t$(CXX) $(CXXFLAGS) -Isrc -c -o $@ $<
src/shapes.o: src/shapes.cc src/shapes.h
\t$(CXX) $(CXXFLAGS) -c -o $@ $<
check: shapes_test
\t./shapes_test
"""


def _project(root: Path, cxxflags: str) -> Path:
    proj = root / "shapes"
    for rel, text in {"Makefile": MAKEFILE, "src/shapes.h": SHAPES_H, "src/shapes.cc": SHAPES_CC,
                      "tests/shapes_test.cc": SHAPES_TEST}.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    build = subprocess.run(["make", "CXX=ccwrap++", f"CXXFLAGS={cxxflags}"], cwd=proj,
                           env=_env(proj / ".whetstone"), capture_output=True, text=True)
    if build.returncode != 0 and "gtest" in build.stdout + build.stderr:
        pytest.skip("GoogleTest (libgtest-dev) not installed")
    assert build.returncode == 0, build.stdout + build.stderr
    return proj


@needs_tools
@pytest.mark.parametrize(("tool", "cxxflags"), [("bptrace", "-O2 -g"), ("bptrace", "-O2"), ("callgrind", "-O0 -g"),
                                               ("callgrind", "-O0")],
                         ids=["breakpoints-lines", "breakpoints-symbols-only", "callgrind-debug-info",
                              "callgrind-symbols-only"])
def test_a_fault_reached_through_a_function_pointer_is_located_and_fixed(tmp_path: Path, tool: str,
                                                                         cxxflags: str) -> None:
    if tool == "bptrace" and tracer() is None:
        pytest.skip("the breakpoint tracer cannot run here (x86-64 Linux with ptrace only)")
    proj = _project(tmp_path, cxxflags)
    store = proj / ".whetstone"
    plain, _ = _whetstone(["run", "--", "make", "check"], proj, store)
    plain_report = json.loads((store / "reports" / Path(plain["report"]).name).read_text())
    plain_state = load_session(store, plain_report["session_id"]).state()
    failure = next(f for f in plain_state.test_failures if f.test_name == "Triangle")
    assert "tri" not in [s.qualname for s in failure.suspects[:1]]  # the static ranking cannot see it

    verdict, out = _whetstone(["run", "--search", "--", "make", "check"], proj, store,
                              extra_env={"WHETSTONE_SPECTRUM_TOOL": tool})
    assert verdict["failure"] == "test-failure", out
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())
    session = load_session(store, report["session_id"])
    state = session.state()
    failure = next(f for f in state.test_failures if f.test_name == "Triangle")
    assert failure.suspects[0].qualname == "tri", [s.qualname for s in failure.suspects]
    search = [e["data"] for e in session.events() if e.get("event") == "search"][-1]
    assert search["spectrum"]["tool"] == tool and search["spectrum"]["failing"] == 1, search
    # the tracer: every test of the binary, one process each; callgrind: the failing test's suite, in one run
    assert search["spectrum"]["tests"] == (5 if tool == "bptrace" else 4), search
    assert search["spectrum"]["debug_info"] == ("-g" in cxxflags), search  # lines with -g, either way
    top = state.current_candidates()[0]
    assert top.validated and top.edits[0].file_path == "src/shapes.cc", top.description
    assert (proj / "src/shapes.cc").read_text() == SHAPES_CC  # nothing written before apply


@needs_tools
def test_the_profile_reader_reads_the_real_tools_output(tmp_path: Path) -> None:
    proj = _project(tmp_path, "-O0 -g")
    out = tmp_path / "cg.out"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                    "--toggle-collect=*::TestBody()", "--dump-after=*::TestBody()", "./shapes_test",
                    "--gtest_filter=Area.Triangle"], cwd=proj, capture_output=True, check=False)
    part = out.with_name("cg.out.1")
    executed = read_profile(part.read_text().splitlines())
    assert "Area_Triangle_Test::TestBody()" in executed.trigger
    source = str(proj / "src/shapes.cc")
    assert {6, 7} <= executed.lines[source]  # tri's body ran
    assert 4 not in executed.lines[source]  # rect's did not
    assert any(plain_name(f) == "tri" for f in executed.functions)


def test_compressed_names_and_relative_positions() -> None:
    text = """\
positions: line
events: Ir
fl=(1) /src/a.cc
fn=(1) ns::Cls<int>::go(int) const
10 3
+2 1
* 1
cfi=(2) /src/b.h
cfn=(2) helper()
calls=1 5
-1 4
fi=(2)
5 2
fn=(2)
fl=(1)
fn=(3) other
20 1
"""
    executed = read_profile(text.splitlines())
    assert executed.lines["/src/a.cc"] == {10, 12, 11, 20}
    assert executed.lines["/src/b.h"] == {5}
    assert {plain_name(f) for f in executed.functions} == {"ns::Cls::go", "other"}  # helper: no cost of its own here


def test_a_test_skipped_before_its_body_does_not_shift_the_others() -> None:
    parts = [Executed(trigger="--dump-after=Area_Rect_Test::TestBody()"),
             Executed(trigger="--dump-after=Area_Triangle_Test::TestBody()")]
    runs = _align(["Area.Rect", "Area.Skipped", "Area.Triangle"], parts, {"Area.Triangle"})
    assert [(r.name, r.failed) for r in runs] == [("Area.Rect", False), ("Area.Triangle", True)]
    assert _body_class("Inst/Suite.Name/2") == "Suite_Name_Test" == _body_class("Suite/1.Name")


SHAPES_JS = """\
'use strict';
function rect(a, b) { return a * b; }
function tri(a, b) {
  const base = a;
  return base * b / 3;
}
function circle(r) { return 3 * r * r; }
const table = { rect, tri, circle };
function lookup(kind) { return table[kind]; }
function area(kind, a, b) {
  const fn = lookup(kind);
  return fn ? fn(a, b) : -1;
}
module.exports = { area };
"""
SHAPES_JS_TEST = """\
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { area } = require('../');
test('rect area', () => { assert.strictEqual(area('rect', 2, 3), 6); });
test('circle area', () => { assert.strictEqual(area('circle', 1), 3); });
test('triangle area', () => { assert.strictEqual(area('tri', 4, 3), 6); });
test('unknown shape', () => { assert.strictEqual(area('hex', 1, 1), -1); });
"""


def _search_shapes(tmp_path: Path, source: str) -> tuple[Path, Path, dict, str]:
    """The shapes package with ``source`` as lib/index.js, through `whetstone run --search -- node --test`."""
    proj = tmp_path / "shapes"
    for rel, text in {"package.json": '{"name": "shapes", "version": "1.0.0", "main": "lib/index.js"}\n',
                      "lib/index.js": source, "test/shapes.test.js": SHAPES_JS_TEST}.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    store = proj / ".whetstone"
    verdict, out = _whetstone(["run", "--search", "--", "node", "--test", "test/"], proj, store)
    return proj, store, verdict, out


@pytest.mark.skipif(not shutil.which("node"), reason="node not installed")
def test_js_a_fault_reached_through_a_table_is_located_by_v8_coverage_and_fixed(tmp_path: Path) -> None:
    proj, store, verdict, out = _search_shapes(tmp_path, SHAPES_JS)
    assert verdict["failure"] == "test-failure", out
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())
    session = load_session(store, report["session_id"])
    failure = next(f for f in session.state().test_failures if f.test_name == "triangle area")
    assert failure.suspects[0].qualname == "tri", [s.qualname for s in failure.suspects]
    search = [e["data"] for e in session.events() if e.get("event") == "search"][-1]
    assert search["spectrum"]["tool"] == "v8" and search["spectrum"]["tests"] == 2, search
    top = session.state().current_candidates()[0]
    assert top.validated and (top.edits[0].file_path, top.edits[0].new_text) == ("lib/index.js", "2")
    assert (proj / "lib/index.js").read_text() == SHAPES_JS


@pytest.mark.skipif(not shutil.which("node"), reason="node not installed")
def test_js_a_mutant_on_a_line_the_failing_test_never_ran_costs_no_run(tmp_path: Path) -> None:
    """node --test runs the files as written, so V8's coverage of the failing test is exact by line: the
    mutants of `area`'s unknown-shape branch, which the failing test never enters, are known to change
    nothing without a test run.  The fault needs two edits, so the search goes through every mutant."""
    source = SHAPES_JS.replace("  return fn ? fn(a, b) : -1;\n", "  if (!fn) {\n    return -1;\n  }\n  return fn(a, b);\n")
    # no one edit gives 6 back (with `+ 0.5`, `+` -> `/` did: 3 / 0.5)
    source = source.replace("const base = a;", "const base = a - 1;").replace("base * b / 3", "base * b / 3 + 0.25")
    proj, store, verdict, out = _search_shapes(tmp_path, source)
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())
    session = load_session(store, report["session_id"])
    search = [e["data"] for e in session.events() if e.get("event") == "search"][-1]
    assert search["unreached"] >= 2 and search["stopped"] == "exhausted", search
    assert not any(c.validated for c in session.state().current_candidates())
    assert (proj / "lib/index.js").read_text() == source


def test_v8_line_counts_follow_the_innermost_block(tmp_path: Path) -> None:
    """Real V8 output: a line inside a block that did not run is not executed, though its function ran."""
    if not shutil.which("node"):
        pytest.skip("node not installed")
    from pytest_whetstone.locate.v8coverage import difference, read_dir

    (tmp_path / "lib.js").write_text("function clamp(x, lo, hi) {\n  if (x < lo) {\n    return lo;\n  }\n"
                                     "  return x;\n}\nmodule.exports = clamp;\n")
    (tmp_path / "run.js").write_text("const clamp = require('./lib.js');\nclamp(5, 0, 10);\nclamp(7, 0, 10);\n")
    subprocess.run(["node", "run.js"], cwd=tmp_path, env={"NODE_V8_COVERAGE": str(tmp_path / "cov"),
                                                          "PATH": "/usr/bin:/bin"}, check=True)
    counts = read_dir(tmp_path / "cov", tmp_path)[str(tmp_path / "lib.js")]
    assert counts[2] == 2 and counts[5] == 2 and 3 not in counts
    assert difference({"f": {1: 3, 2: 1}}, {"f": {1: 1, 2: 1}}) == {"f": {1: 2}}
    # a line that opens with the brace closing a block that did not run reads that block's count, though
    # its `else if` condition ran; so does a `case` label: the search never skips a mutant there
    (tmp_path / "lib.js").write_text("function f(x) {\n  if (x < 0) {\n    return 1;\n  } else if (x > 5) {\n"
                                     "    return 2;\n  }\n  switch (x) {\n    case 1:\n      return 3;\n"
                                     "    default:\n      return 4;\n  }\n}\nmodule.exports = f;\n")
    (tmp_path / "run.js").write_text("const f = require('./lib.js');\nf(3);\n")
    shutil.rmtree(tmp_path / "cov")
    subprocess.run(["node", "run.js"], cwd=tmp_path, env={"NODE_V8_COVERAGE": str(tmp_path / "cov"),
                                                          "PATH": "/usr/bin:/bin"}, check=True)
    counts = read_dir(tmp_path / "cov", tmp_path)[str(tmp_path / "lib.js")]
    assert 4 not in counts and 8 not in counts and counts[7] == 1


CRASHY_TEST = """\
#include <gtest/gtest.h>
int twice(int x) { return x * 2; }
int thrice(int x) { return x * 2; }
TEST(Num, Crashes) { volatile int* p = nullptr; *p = twice(1); }
TEST(Num, Twice) { EXPECT_EQ(twice(2), 4); }
TEST(Num, Thrice) { EXPECT_EQ(thrice(2), 6); }
"""


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("valgrind")), reason="g++ or valgrind missing")
def test_a_test_that_crashes_the_binary_does_not_end_the_spectrum(tmp_path: Path) -> None:
    from dataclasses import dataclass, field

    from pytest_whetstone.candidates.native_spectra_cxx import profile_tests

    (tmp_path / "num_test.cc").write_text(CRASHY_TEST)
    build = subprocess.run(["g++", "-O0", "-g", "-o", "num_test", "num_test.cc", "-lgtest", "-lgtest_main",
                            "-pthread"], cwd=tmp_path, capture_output=True, text=True)
    if build.returncode != 0:
        pytest.skip("GoogleTest (libgtest-dev) not installed")

    @dataclass
    class Binary:
        path: str
        tests: dict[str, str] = field(default_factory=dict)
        gtest: bool = True

    binary = Binary(str(tmp_path / "num_test"), {"F1": "Num.Thrice", "F0": "Num.Crashes"})
    runs, names, why = profile_tests([binary], tmp_path / "scratch", 60.0)
    assert why == "" and names == {"F1": "Num.Thrice", "F0": "Num.Crashes"}
    by_name = {r.name: r for r in runs}
    assert set(by_name) == {"Num.Crashes", "Num.Twice", "Num.Thrice"}  # the crash ended one run, not the spectrum
    assert by_name["Num.Thrice"].failed and by_name["Num.Crashes"].failed and not by_name["Num.Twice"].failed
    assert any(plain_name(f) == "thrice" for f in by_name["Num.Thrice"].executed.functions)


def test_tape_spectrum_sides_are_files(tmp_path: Path) -> None:
    """Where tape's tests cannot be told apart (the hook found no tape to patch), the failing files are set
    against the suite's other files, expanded from the command's globs; a failure known only by the glob
    gets no spectrum."""
    from types import SimpleNamespace

    from pytest_whetstone.candidates.native_spectra_js import profile_js, suite_files

    for rel in ("test/a.js", "test/b.js", "test/lib/h.js", "test/data.json"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert suite_files(tmp_path, ["test/**/*.js"]) == ["test/a.js", "test/b.js", "test/lib/h.js"]
    assert suite_files(tmp_path, ["test"]) == ["test/a.js", "test/b.js", "test/lib/h.js"]

    class Trial:
        filter, kind, root = True, "tape", tmp_path
        command = SimpleNamespace(paths=["test/**/*.js"])

        def __init__(self, files: list[str]) -> None:
            self.targets = [SimpleNamespace(file=f, fid="F") for f in files]

        work, env, runs = tmp_path, {}, 0

        def run_covered(self, *args: object, **kwargs: object) -> str:
            Trial.runs += 1  # the per-test hook's run: tape is not there to hook, so no test is told apart
            return ""

    runs, names, why = profile_js(Trial(["test/**/*.js"]), 10.0)  # type: ignore[arg-type]
    assert (runs, names) == ([], {}) and "glob" in why and Trial.runs == 0
    Trial.command = SimpleNamespace(paths=["test/a.js"])
    runs, names, why = profile_js(Trial(["test/a.js"]), 10.0)  # type: ignore[arg-type]
    assert (runs, names) == ([], {}) and "no other test file" in why and Trial.runs == 1


def test_a_function_in_an_anonymous_namespace_keeps_its_name() -> None:
    # how gcc's demangler prints it, and how the function index names it
    assert plain_name("jsonnet::internal::(anonymous namespace)::op_is_binary(jsonnet::internal::BinaryOp)") == \
        "jsonnet::internal::(anonymous)::op_is_binary"
    assert plain_name("(anonymous namespace)::helper<int>(int)") == "(anonymous)::helper"


CRASH_LIB = """\
int scale(int v) { return v * 2; }
static int read_at(const int* table, int i) {
  return table[i];
}
int lookup(const int* table, int i) {
  int j = i - 1;
  return read_at(table, j);
}
"""


def test_the_functions_a_failing_test_crashed_in_go_first_innermost_first(tmp_path: Path) -> None:
    """A crash's frames outweigh both the static ranking and the spectrum's ties: the function that
    faulted, then its caller (where the bad index came from); the test file's own frame is no suspect."""
    from pytest_whetstone.locate.native_spectrum import Spectrum, TestRun, rerank
    from pytest_whetstone.locate.native_tests import Workspace
    from pytest_whetstone.records import Suspect

    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src/lib.cc").write_text(CRASH_LIB)
    (tmp_path / "tests/lib_test.cc").write_text("TEST(Lib, Lookup) {}\n")
    lib = str(tmp_path / "src/lib.cc")
    ran = {lib: {1, 3, 6, 7}}
    crashed = Executed(lines=ran, frames=[(lib, 3), (lib, 7), (str(tmp_path / "tests/lib_test.cc"), 1)])
    passing = Executed(lines={lib: {1, 3, 6, 7}})
    spectrum = Spectrum([TestRun("Lib.Lookup", True, crashed), TestRun("Lib.Scale", False, passing)],
                        Workspace(tmp_path))
    static = [Suspect("src/lib.cc", "scale", 1, 1, 0.9), Suspect("src/lib.cc", "lookup", 5, 8, 0.4)]
    ranked = rerank(static, spectrum, "Lib.Lookup")
    assert [s.qualname for s in ranked][:3] == ["read_at", "lookup", "scale"]


def test_a_function_templates_symbol_is_named_without_its_return_type(tmp_path: Path) -> None:
    """``nm -C`` (real g++) names a function template's instance with its return type first: ``double
    ns::scale<4, char const*>(char const*)``; the function index names it ``ns::scale``."""
    if not (shutil.which("g++") and shutil.which("nm")):
        pytest.skip("g++ or nm missing")
    (tmp_path / "t.cc").write_text("namespace ns {\ntemplate <int N, class It> double scale(It p) { return *p * N; }\n}\n"
                                   "double use(const char* p) { return ns::scale<4>(p); }\n")
    assert subprocess.run(["g++", "-c", "t.cc"], cwd=tmp_path).returncode == 0
    symbols = subprocess.run(["nm", "-C", "--defined-only", "t.o"], cwd=tmp_path, capture_output=True, text=True).stdout
    demangled = [line.split(" ", 2)[2] for line in symbols.splitlines() if "scale<" in line]
    assert demangled and demangled[0].startswith("double "), symbols
    assert plain_name(demangled[0]) == "ns::scale"
    assert plain_name("use(char const*)") == "use" and plain_name("operator new(unsigned long)") == "operator new"
