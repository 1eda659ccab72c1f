"""Locating gtest / ctest / Jest / TAP failures in C, C++ and JS code (seed 001 step 1372).

The logs under fixtures/native_projects/logs are the exact output of the real tools
on the fixture projects (see capture.sh and logs/MANIFEST); they name absolute
paths of the checkout that captured them, which the locator maps into any copy.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.locate import jsfamily
from pytest_whetstone.locate.ccwrap_sources import Command, binary_sources, load_commands, parse_argv
from pytest_whetstone.locate.native_tests import (
    Workspace,
    impl_stem,
    is_native,
    locate_failure,
    locate_native_failures,
    name_tokens,
)
from pytest_whetstone.parse import parse_text
from pytest_whetstone.records import TestFailureRecord

FIXTURES = Path(__file__).parent / "fixtures" / "native_projects"


def _copy(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copytree(FIXTURES / name, dest)
    return dest


def _located(log: str, workspace: Path, **kw: object) -> list[TestFailureRecord]:
    result = parse_text((FIXTURES / "logs" / log).read_text())
    return locate_native_failures(result.test_failures, workspace, **kw)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    "name, stem",
    [
        ("foo_test.cc", "foo"), ("test_foo.cpp", "foo"), ("foo.test.js", "foo"), ("foo.spec.ts", "foo"),
        ("FooTest.cpp", "Foo"), ("TestFoo.cc", "Foo"), ("foo_unittest.cc", "foo"), ("foo-test.js", "foo"),
        ("foo_tests.cpp", "foo"), ("foo.cc", None), ("testing.c", None), ("contest.cc", None), ("latest.js", None),
    ],
)
def test_test_file_maps_to_implementation_stem(name: str, stem: str | None) -> None:
    assert impl_stem(name) == stem


@pytest.mark.parametrize("rel, test", [
    ("util/testutil.cc", True), ("util/testharness.h", True), ("src/test_helpers.cpp", True), ("lib/mocks.h", True),
    ("src/TestUtil.cpp", True), ("tests/anything.cc", True), ("util/coding.cc", False), ("src/testing.c", False),
    ("src/contest.cc", False), ("src/mockingbird.cc", False),
])
def test_test_support_files_are_not_implementation(rel: str, test: bool) -> None:
    from pytest_whetstone.locate.native_names import is_test_file

    assert is_test_file(rel) is test


def test_name_tokens_bridge_case_styles() -> None:
    assert name_tokens("ParserTest HandlesEmpty") >= name_tokens("handle_empty")
    assert name_tokens("parse") <= name_tokens("ParserTest")
    assert name_tokens("cartTotal") == name_tokens("cart_total") == name_tokens("CartTotal")


# --------------------------------------------------------------------------- C++ from real logs


def test_ctest_gtest_failures_map_to_the_faulty_functions(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "gtest_calc")  # the log's paths are another checkout's
    records = _located("ctest_calc.log", ws)
    tops = {r.test_name: (r.suspects[0].file_path, r.suspects[0].qualname, r.suspects[0].line_start) for r in records}
    assert tops == {
        "IncludesUpperBound": ("src/stats.cc", "calc::sum_range", 5),
        "DefaultPort": ("src/text.cc", "calc::default_port", 35),
    }
    assert records[0].ast_node_id == "src/stats.cc::calc::sum_range"
    assert all(s.score > 0 for r in records for s in r.suspects)
    assert [s.score for s in records[0].suspects] == sorted((s.score for s in records[0].suspects), reverse=True)


def test_asan_crash_frame_is_the_top_suspect(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "crash_cpp")
    (record,) = _located("ctest_asan_crash.log", ws)
    assert record.suspects[0].qualname == "q::Queue::front_value"
    assert (record.impl_file, record.impl_line) == ("src/queue.cc", 25)


def test_crash_without_trace_finds_the_test_by_name_and_its_calls(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "crash_cpp")
    (record,) = _located("ctest_segfault.log", ws)
    assert not record.file_path  # gtest printed no location: the TEST(...) was found by its names
    assert record.suspects[0].qualname == "q::Queue::front_value"


def test_test_definitions_are_read_once_and_the_first_file_wins(tmp_path: Path) -> None:
    (tmp_path / "a_test.cc").write_text("TEST(Shared, Name) {}\nTEST_F(Fixture, First) {}\n")
    (tmp_path / "b_test.cc").write_text("TEST( Shared , Name ) {}\nTYPED_TEST(Typed, Second) {}\n")
    (tmp_path / "c_test.cc").write_text("TEST_P(Late, Third) {}\n")
    ws = Workspace(tmp_path)
    assert ws.gtest_file("Fixture", "First") == "a_test.cc"
    (tmp_path / "c_test.cc").write_text("TEST_P(Late, Renamed) {}\n")  # not read yet: read as it is when asked
    assert ws.gtest_file("Shared", "Name") == "a_test.cc"
    assert ws.gtest_file("Typed", "Second") == "b_test.cc"
    assert ws.gtest_file("Late", "Renamed") == "c_test.cc"
    (tmp_path / "a_test.cc").unlink()  # every file read once: answers come from what was read
    assert ws.gtest_file("Shared", "Name") == "a_test.cc"
    assert ws.gtest_file("Nowhere", "Else") is None


def test_ctest_not_run_has_no_code_to_point_at(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "crash_cpp")
    (record,) = _located("ctest_not_run.log", ws)
    assert record.suspects == [] and record.ast_node_id is None


def _parser_project(tmp_path: Path, body: str) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "parser.h").write_text(
        "#pragma once\n#include <string>\nclass Parser {\n public:\n  int parse(const std::string& s);\n"
        "  bool handle_empty(const std::string& s);\n  void reset();\n};\n"
    )
    (tmp_path / "src" / "parser.cc").write_text(
        '#include "parser.h"\n\nint Parser::parse(const std::string& s) {\n  return s.size();\n}\n\n'
        "bool Parser::handle_empty(const std::string& s) {\n  return !s.empty();\n}\n\n"
        "void Parser::reset() {}\n"
    )
    (tmp_path / "src" / "lexer.cc").write_text("int lex_token(int c) {\n  return c;\n}\n")
    (tmp_path / "tests" / "parser_test.cc").write_text(
        f'#include <gtest/gtest.h>\n#include "parser.h"\n\nTEST(ParserTest, HandlesEmpty) {{\n{body}\n}}\n'
    )
    return tmp_path


def _gtest_record(line: int = 0, file_path: str = "tests/parser_test.cc") -> TestFailureRecord:
    return TestFailureRecord(runner="gtest", test_suite="ParserTest", test_name="HandlesEmpty",
                             failure_type="assertion", file_path=file_path, line=line).ensure_id()


def test_suite_and_test_names_match_function_names(tmp_path: Path) -> None:
    ws = _parser_project(tmp_path, "  SUCCEED();")  # the body names no function: names decide
    suspects = locate_failure(_gtest_record(), Workspace(ws))
    assert suspects[0].qualname == "Parser::handle_empty"
    assert "lex_token" not in {s.qualname for s in suspects}


def test_the_call_on_the_failing_line_outranks_names(tmp_path: Path) -> None:
    ws = _parser_project(tmp_path, '  Parser p;\n  EXPECT_EQ(p.parse(""), 1);')
    suspects = locate_failure(_gtest_record(line=6), Workspace(ws))
    assert [s.qualname for s in suspects[:2]] == ["Parser::parse", "Parser::handle_empty"]


def test_fallback_is_the_tests_own_node(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "misc_test.cc").write_text("TEST(Misc, Works) {\n  EXPECT_EQ(1, 2);\n}\n")
    record = TestFailureRecord(runner="gtest", test_suite="Misc", test_name="Works", file_path="tests/misc_test.cc",
                               line=2, failure_type="assertion").ensure_id()
    locate_native_failures([record], tmp_path)
    assert [(s.file_path, s.qualname, s.line_start, s.line_end) for s in record.suspects] == [
        ("tests/misc_test.cc", "Misc.Works", 1, 3)
    ]
    assert record.ast_node_id == "tests/misc_test.cc::Misc.Works"


@pytest.mark.parametrize(
    "record",
    [
        TestFailureRecord(runner="gtest", test_suite="Nope", test_name="Missing"),
        TestFailureRecord(runner="jest", test_suite="../../etc/passwd", test_name="x", file_path="/etc/passwd"),
        TestFailureRecord(runner="tap", test_name="", file_path="t/x.t", line=99999),
        TestFailureRecord(runner="ctest", test_name="A.B.C/0", line=-3),
    ],
)
def test_no_match_is_graceful(tmp_path: Path, record: TestFailureRecord) -> None:
    (tmp_path / "a.cc").write_text("int f( {\n")  # a syntax error: tree-sitter still parses
    locate_native_failures([record], tmp_path)
    assert record.suspects == []


def test_pytest_records_are_left_alone(tmp_path: Path) -> None:
    py = TestFailureRecord(runner="pytest", file_path="tests/test_x.py", test_name="test_x")
    junit_py = TestFailureRecord(runner="junit", file_path="tests/test_x.py", test_name="test_x")
    assert not is_native(py) and not is_native(junit_py)
    assert is_native(TestFailureRecord(runner="ctest", test_name="x"))
    locate_native_failures([py], tmp_path)
    assert py.suspects == [] and py.ast_node_id is None


def test_locating_is_deterministic(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "gtest_calc")
    first = [r.to_json() for r in _located("ctest_calc.log", ws)]
    second = [r.to_json() for r in _located("ctest_calc.log", ws)]
    assert first == second


# --------------------------------------------------------------------------- JavaScript


def test_jest_failures_map_to_js_functions(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "jest_cart")
    records = _located("jest_cart.log", ws)
    assert [(r.suspects[0].file_path, r.suspects[0].qualname) for r in records] == [
        ("src/cart.js", "cartTotal"), ("src/cart.js", "shippingCost")
    ]
    assert records[1].ast_node_id == "src/cart.js::shippingCost"


def test_tap_failure_maps_through_require(tmp_path: Path) -> None:
    ws = _copy(tmp_path, "tap_slug")  # slug.test.js -> lib/slug.js by require('../lib/slug')
    (record,) = _located("node_tap_slug.log", ws)
    assert record.suspects[0].qualname == "slugify"
    assert record.suspects[0].file_path == "lib/slug.js"


def test_js_stack_frame_in_implementation_wins(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "store.js").write_text(
        "function load(x) {\n  return x.items.length;\n}\nfunction save(x) {\n  return x;\n}\n"
        "module.exports = { load, save };\n"
    )
    (tmp_path / "src" / "store.test.js").write_text(
        "const { load, save } = require('./store');\ntest('save then load', () => {\n"
        "  save({});\n  expect(load({})).toBe(0);\n});\n"
    )
    record = TestFailureRecord(
        runner="jest", test_suite="src/store.test.js", test_name="save then load", failure_type="exception",
        file_path="src/store.test.js", line=4,
        raw="TypeError: Cannot read properties of undefined (reading 'length')\n"
            f"    at load ({tmp_path}/src/store.js:2:18)\n    at Object.<anonymous> ({tmp_path}/src/store.test.js:4:10)",
    ).ensure_id()
    locate_native_failures([record], tmp_path)
    assert record.suspects[0].qualname == "load"
    assert (record.impl_file, record.impl_line) == ("src/store.js", 2)


def test_js_function_index_covers_the_usual_shapes() -> None:
    src = b"""
import { a } from './money';
const { b } = require("../lib/b");
export * from './re';
export function f1(x) { return 1; }
const f2 = (y) => y + 1;
let f3 = function named() {};
class Cart { total() { return 2; } static make() {} }
exports.f4 = function () {};
module.exports = { f5() {}, f6: () => 3 };
describe('outer', () => { describe('inner', () => { it('works', () => { f1(2); obj.f2(); }); }); });
test.each([1])('each %i', (n) => {});
"""
    pj = jsfamily.parse_source(src)
    assert [f.qualname for f in jsfamily.functions_in(pj, "x.js")] == [
        "f1", "f2", "f3", "Cart.make", "Cart.total", "f4", "f5", "f6"
    ]
    assert jsfamily.imports_of(pj) == ["./money", "../lib/b", "./re"]
    tests = jsfamily.tests_in(pj)
    assert [t.title for t in tests] == ["outer › inner › works", "each %i"]
    assert {c[0] for c in jsfamily.calls_in(tests[0].body)} == {"f1", "f2"}
    found = jsfamily.find_test(pj, "works")
    assert found is not None and found.title == "outer › inner › works"


def test_typescript_functions_are_indexed(tmp_path: Path) -> None:
    path = tmp_path / "price.ts"
    path.write_text(
        "export interface Item { price: number }\n"
        "export function total(items: Item[]): number {\n  return items.reduce((s, i) => s + i.price, 0);\n}\n"
        "export class Till { add<T>(x: T): void {} }\n"
    )
    pj = jsfamily.parse_file(path)
    assert pj is not None
    names = [f.qualname for f in jsfamily.functions_in(pj, "price.ts")]
    assert "total" in names and "Till.add" in names


# --------------------------------------------------------------------------- ccwrap narrowing


def test_binary_sources_from_recorded_commands() -> None:
    cmds = [
        parse_argv(["cc", "-c", "util.c", "-o", "util.o"], "/p"),
        parse_argv(["cc", "-Wall", "-c", "other.c"], "/p"),
        parse_argv(["cc", "-o", "t", "t.c", "util.o", "/usr/lib/libm.a"], "/p"),
    ]
    assert binary_sources(cmds, "/p/t.c") == {"/p/t.c", "/p/util.c"}
    assert binary_sources(cmds, "/p/other.c") is None  # no link of it was recorded
    unknown = [*cmds[:2], parse_argv(["cc", "-o", "t", "t.c", "util.o", "mystery.o"], "/p")]
    assert binary_sources(unknown, "/p/t.c") is None  # one input we cannot trace: do not narrow
    cmake = [
        parse_argv(["c++", "-c", "/p/src/a.cc", "-o", "CMakeFiles/lib.dir/src/a.cc.o"], "/b"),
        parse_argv(["c++", "-c", "/p/t/a_test.cc", "-o", "CMakeFiles/a_test.dir/t/a_test.cc.o"], "/b"),
        parse_argv(["c++", "CMakeFiles/a_test.dir/t/a_test.cc.o", "-o", "a_test", "liblib.a",
                    "/usr/lib/x86_64-linux-gnu/libgtest.a"], "/b"),
    ]
    assert binary_sources(cmake, "/p/t/a_test.cc") == {"/p/t/a_test.cc", "/p/src/a.cc"}
    assert isinstance(cmake[0], Command) and cmake[0].compile_only


@pytest.mark.skipif(not (shutil.which("ccwrap") and shutil.which("make")), reason="ccwrap or make not installed")
def test_real_ccwrap_records_narrow_the_suspects(tmp_path: Path) -> None:
    # Every command prints a warning, so ccwrap records all of them (it keeps silent ones out).
    (tmp_path / "scale.c").write_text("int scale_value(int v) {\n  int unused;\n  return v * 3;\n}\n")
    # another build variant defines the same function; it is not linked into the test binary
    (tmp_path / "other_scale.c").write_text("int scale_value(int v) {\n  int unused;\n  return v * 4;\n}\n")
    (tmp_path / "scale_test.c").write_text(
        "#include <stdio.h>\nint scale_value(int v);\nint main(void) {\n  int unused;\n"
        "  printf(\"%d\\n\", scale_value(2));\n  return 0;\n}\n"
    )
    (tmp_path / "Makefile").write_text(
        "all: scale_test other_scale.o\nscale.o: scale.c\n\t$(CC) -Wall -c scale.c -o scale.o\n"
        "other_scale.o: other_scale.c\n\t$(CC) -Wall -c other_scale.c -o other_scale.o\n"
        "scale_test: scale_test.c scale.o\n\t$(CC) -Wall -o scale_test scale_test.c scale.o\n"
    )
    store = tmp_path / ".whetstone"
    env = {"PATH": __import__("os").environ["PATH"], "WHETSTONE_DIR": str(store), "HOME": str(tmp_path)}
    build = subprocess.run(["make", "CC=ccwrap"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    commands = load_commands(store)
    assert binary_sources(commands, str(tmp_path / "scale_test.c")) == {
        str(tmp_path / "scale_test.c"), str(tmp_path / "scale.c")
    }
    record = TestFailureRecord(runner="ctest", test_name="ScaleTest", failure_type="assertion",
                               file_path="scale_test.c", line=5).ensure_id()
    locate_native_failures([record], tmp_path, store=store)
    assert [(s.file_path, s.qualname) for s in record.suspects] == [("scale.c", "scale_value")]
    unnarrowed = TestFailureRecord(runner="ctest", test_name="ScaleTest", failure_type="assertion",
                                   file_path="scale_test.c", line=5).ensure_id()
    locate_native_failures([unnarrowed], tmp_path)
    assert {s.file_path for s in unnarrowed.suspects} == {"scale.c", "other_scale.c"}  # the records decided


@pytest.mark.skipif(not (shutil.which("ccwrap") and shutil.which("make")), reason="ccwrap or make not installed")
def test_sources_no_recorded_compile_names_are_not_suspects(tmp_path: Path) -> None:
    """Quiet compiles leave no diagnostics to narrow by, but the compile database records every compile:
    another platform's file (never compiled here) defines the same function and is no suspect."""
    (tmp_path / "scale.c").write_text("int scale_value(int v) {\n  return v * 3;\n}\n")
    (tmp_path / "scale_win32.c").write_text("int scale_value(int v) {\n  return v * 4;\n}\n")
    (tmp_path / "scale_test.c").write_text(
        "#include <stdio.h>\nint scale_value(int v);\nint main(void) {\n"
        "  printf(\"%d\\n\", scale_value(2));\n  return 0;\n}\n"
    )
    (tmp_path / "Makefile").write_text(
        "scale_test: scale_test.o scale.o\n\t$(CC) -o scale_test scale_test.o scale.o\n"
        "%.o: %.c\n\t$(CC) -c $< -o $@\n"
    )
    store = tmp_path / ".whetstone"
    env = {"PATH": __import__("os").environ["PATH"], "WHETSTONE_DIR": str(store), "HOME": str(tmp_path)}
    build = subprocess.run(["make", "CC=ccwrap"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    record = TestFailureRecord(runner="ctest", test_name="ScaleTest", failure_type="assertion",
                               file_path="scale_test.c", line=4).ensure_id()
    locate_native_failures([record], tmp_path, store=store)
    assert [(s.file_path, s.qualname) for s in record.suspects] == [("scale.c", "scale_value")]


def test_a_crash_placed_in_its_test_file_only_reads_every_test_of_the_file(tmp_path: Path) -> None:
    """A C test binary that died before its framework said which test ran (Unity prints a test's line
    after it ends; the crash lost it): the record names the test file and no line, and what the file's
    functions call is the test's reach."""
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "store.c").write_text(
        "int store_count(const int *items) { return items[0]; }\n"
        "int store_sum(int a, int b) { return a + b; }\n")
    (tmp_path / "tests" / "misc_tests.c").write_text(
        "int store_count(const int *items);\nint store_sum(int a, int b);\n"
        "static void counts_nothing(void) { store_count(0); }\n"
        "static void sums(void) { store_sum(1, 2); }\n"
        "int main(void) { counts_nothing(); sums(); return 0; }\n")
    record = TestFailureRecord(runner="ctest", test_name="misc_tests", node_id="misc_tests",
                               file_path="tests/misc_tests.c", outcome="failed", exception_type="SegFault")
    suspects = locate_failure(record, Workspace(tmp_path))
    assert {s.qualname for s in suspects} >= {"store_count", "store_sum"}, suspects


def test_a_failed_assert_is_the_innermost_frame(tmp_path: Path) -> None:
    """glibc's own words for a failed ``assert()`` (real gcc, the program run here): where it stands is
    the failure's place, though no stack trace was printed."""
    if not shutil.which("gcc"):
        pytest.skip("gcc missing")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "ring.c").write_text(
        "#include <assert.h>\nint slot(int i, int n) {\n  assert(i < n);\n  return i % n;\n}\n"
        "int wrap(int i, int n) { return i < 0 ? i + n : i; }\n")
    (tmp_path / "ring_test.c").write_text("int slot(int, int);\nint main(void) { return slot(5, 4); }\n")
    built = subprocess.run(["gcc", "-o", "ring_test", "ring_test.c", "src/ring.c"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    died = subprocess.run([str(tmp_path / "ring_test")], cwd=tmp_path, capture_output=True, text=True)
    assert "Assertion" in died.stderr, died.stderr
    record = TestFailureRecord(runner="ctest", test_name="ring_test", file_path="ring_test.c",
                               failure_type="exception", message="Subprocess aborted\n" + died.stderr)
    locate_failure(record, Workspace(tmp_path))
    assert record.suspects[0].qualname == "slot", record.suspects
    assert (record.impl_file, record.impl_line) == ("src/ring.c", 3)
