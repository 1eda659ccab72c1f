"""tree-sitter locating of C/C++ build errors (seed 000, step 1361 floor and more)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cfamily_support import build_records

from pytest_whetstone.locate import cfamily
from pytest_whetstone.records import BuildErrorRecord

C_SRC = """\
#include <stdio.h>

static int counter = 0;

int add(int a, int b) {
    int sum = a + b;
    return sum;
}

int main(void) {

    printf("%d\\n", add(1, 2));
    return 0;
}
"""

CPP_SRC = """\
#include <string>
namespace geo {
class Shape {
public:
    double area() const { return w * h; }
    double w = 1, h = 2;
};
double scale(const Shape &s, double k);
}
double geo::scale(const Shape &s, double k) {
    return s.area() * k;
}
"""


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    (tmp_path / "main.c").write_text(C_SRC)
    (tmp_path / "shape.cpp").write_text(CPP_SRC)
    return tmp_path


def test_exact_position_returns_smallest_node(ws: Path) -> None:
    loc = cfamily.locate("main.c", 6, 15, ws)  # the 'a' in `a + b`
    assert loc is not None
    assert loc.node_type == "identifier" and loc.node_text == "a"
    assert loc.ast_node_id == "main.c::add"
    assert loc.start == (6, 15) and loc.end == (6, 16)


def test_enclosing_function_when_no_token_there(ws: Path) -> None:
    loc = cfamily.locate("main.c", 11, 1, ws)  # blank line inside main
    assert loc is not None
    assert loc.scope_type == "function_definition"
    assert loc.ast_node_id == "main.c::main"


def test_top_level_declaration_named(ws: Path) -> None:
    loc = cfamily.locate("main.c", 3, 12, ws)
    assert loc is not None and loc.ast_node_id == "main.c::counter"


def test_missing_file_line_zero_and_past_end(ws: Path) -> None:
    assert cfamily.locate("nope.c", 3, 1, ws) is None
    assert cfamily.locate("main.c", 0, 1, ws) is None
    assert cfamily.locate("main.c", 999, 1, ws) is None
    assert cfamily.locate("", 3, 1, ws) is None
    (ws / "notes.txt").write_text("hello\n")
    assert cfamily.locate("notes.txt", 1, 1, ws) is None


def test_col_zero_means_start_of_line(ws: Path) -> None:
    loc = cfamily.locate("main.c", 7, 0, ws)
    assert loc is not None and loc.node_type == "return_statement"
    assert loc.ast_node_id == "main.c::add"


def test_cpp_qualified_names(ws: Path) -> None:
    method = cfamily.locate("shape.cpp", 5, 34, ws)
    assert method is not None and method.ast_node_id == "shape.cpp::geo::Shape::area"
    out_of_class = cfamily.locate("shape.cpp", 11, 12, ws)
    assert out_of_class is not None and out_of_class.ast_node_id == "shape.cpp::geo::scale"
    assert out_of_class.language == "cpp"


def test_header_parsed_as_cpp_when_it_is(ws: Path) -> None:
    (ws / "api.h").write_text("#pragma once\nnamespace api {\nclass Box {\n  int size() { return 3; }\n};\n}\n")
    loc = cfamily.locate("api.h", 4, 17, ws)
    assert loc is not None and loc.language == "cpp"
    assert loc.ast_node_id == "api.h::api::Box::size"


def test_file_with_syntax_error_still_located(ws: Path) -> None:
    (ws / "broken.c").write_text("int f(int x) {\n  int y = x + 1\n  return y;\n}\n")
    loc = cfamily.locate("broken.c", 3, 10, ws)
    assert loc is not None and loc.ast_node_id == "broken.c::f"


def test_character_columns_with_tabs_and_utf8(ws: Path) -> None:
    (ws / "u.c").write_text('int g(void) {\n\tconst char *s = "\u00e9\u00e9"; return undefined_x;\n}\n')
    line = '\tconst char *s = "\u00e9\u00e9"; return undefined_x;'
    col_chars = line.index("undefined_x") + 1
    col_display = col_chars + 7  # the tab counts 8 in gcc's display columns
    rec = BuildErrorRecord(tool="gcc", file_path="u.c", line=2, col=col_display, symbol="undefined_x")
    cfamily.locate_build_errors([rec], ws)
    assert rec.ast_node_id == "u.c::g"
    loc = cfamily.locate_in(cfamily.parse_file(ws / "u.c"), 2, col_display, "u.c", tool="gcc", expect="undefined_x")
    assert loc is not None and loc.node_text == "undefined_x"
    byte_col = len(line[: col_chars - 1].encode()) + 1  # clang: bytes
    loc = cfamily.locate_in(cfamily.parse_file(ws / "u.c"), 2, byte_col, "u.c", tool="clang", expect="undefined_x")
    assert loc is not None and loc.node_text == "undefined_x"


def test_many_records_in_one_pass_and_deterministic(ws: Path) -> None:
    def records() -> list[BuildErrorRecord]:
        return [
            BuildErrorRecord(file_path="main.c", line=6, col=15),
            BuildErrorRecord(file_path="shape.cpp", line=11, col=12),
            BuildErrorRecord(file_path="main.c", line=0),
            BuildErrorRecord(tool="linker", message="undefined reference to `foo'"),
        ]

    first = cfamily.locate_build_errors(records(), ws)
    second = cfamily.locate_build_errors(records(), ws)
    assert [r.ast_node_id for r in first] == ["main.c::add", "shape.cpp::geo::scale", None, None]
    assert [r.to_json() for r in first] == [r.to_json() for r in second]
    assert first[0].context_lines[0].startswith("4: ") and len(first[0].context_lines) == 5


@pytest.mark.skipif(not shutil.which("gcc"), reason="needs gcc")
def test_linker_error_located_through_in_function_context(ws: Path) -> None:
    (ws / "util.c").write_text("double helper(double x);\nint compute(void) { return (int)helper(2.0); }\n")
    (ws / "prog.c").write_text("int compute(void);\nint main(void) { return compute(); }\n")
    code, recs = build_records(ws, ["gcc", "util.c", "prog.c", "-o", "prog"])
    assert code != 0
    undefined = [r for r in recs if "helper" in r.message and "undefined" in r.message]
    assert undefined and undefined[0].function == "compute"
    cfamily.locate_build_errors(undefined, ws)
    assert undefined[0].ast_node_id == "util.c::compute"
    assert any("compute" in line for line in undefined[0].context_lines)


def test_ambiguous_linker_function_names_nothing(ws: Path) -> None:
    (ws / "other.c").write_text("int main(void) { return 1; }\n")
    rec = BuildErrorRecord(tool="linker", message="undefined reference to `x'", function="main")
    cfamily.locate_build_errors([rec], ws)
    assert rec.ast_node_id is None


def test_function_index_strips_signatures(ws: Path) -> None:
    index = cfamily.FunctionIndex(ws)
    assert [f.qualname for f in index.find("geo::scale(geo::Shape const&, double)")] == ["geo::scale"]
    assert [f.file_path for f in index.find("add")] == ["main.c"]
    assert index.find(".text+0x1c") == []
