"""A removed closing brace: every error it causes is a syntax error, by structure (the compiler's own
end-of-input diagnostic for the unit) as well as by the scope errors' wording.

Driven by the real compilers (gcc 12.2 / clang 14 on Debian at the time of writing) on code written
here; each case removes one function's closing brace.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.classify import unclosed_block_cascade
from pytest_whetstone.parse import parse_text

C_SOURCE = """\
#include <stdio.h>

static int counter = 0;

int bump(int by) {
    counter += by;
    return counter;
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

std::string Shape::Name() const {
  return "square";
}

template <typename T>
T Clamp(T v, T lo, T hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace geo
"""


def _first_failure(compiler: str, source: str, suffix: str, tmp_path: Path):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    path = tmp_path / f"unit{suffix}"
    path.write_text(source)
    proc = subprocess.run([compiler, "-fsyntax-only", path.name], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    assert proc.returncode != 0
    result = parse_text(proc.stderr, "auto", cwd=str(tmp_path))
    return [r for r in result.build_errors if r.is_failure], proc.stderr


def _drop_brace(source: str, after_line: str) -> str:
    """The source without the closing brace of the function whose body holds ``after_line``."""
    lines = source.split("\n")
    start = next(i for i, line in enumerate(lines) if after_line in line)
    end = next(i for i in range(start, len(lines)) if lines[i] == "}")
    return "\n".join(lines[:end] + [""] + lines[end + 1:])


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
@pytest.mark.parametrize("inside", ["counter += by", "int y = x * 2", "printf("])
def test_c_removed_brace_is_a_syntax_error(compiler: str, inside: str, tmp_path: Path) -> None:
    failing, output = _first_failure(compiler, _drop_brace(C_SOURCE, inside), ".c", tmp_path)
    assert failing, output
    assert {r.error_type for r in failing} == {"syntax_error"}, output


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
@pytest.mark.parametrize("inside", ["double a = side_", "return \"square\"", "return v < lo"])
def test_cxx_removed_brace_is_a_syntax_error(compiler: str, inside: str, tmp_path: Path) -> None:
    failing, output = _first_failure(compiler, _drop_brace(CXX_SOURCE, inside), ".cc", tmp_path)
    assert failing, output
    assert failing[0].error_type == "syntax_error", output
    assert {r.error_type for r in failing} == {"syntax_error"}, output


@pytest.mark.parametrize("compiler", ["gcc", "clang", "g++", "clang++"])
def test_the_unit_left_open_decides_not_the_wording(compiler: str, tmp_path: Path) -> None:
    """Whatever the first error's own words would say, the unit's end-of-input error makes it syntax."""
    suffix = ".cc" if compiler.endswith("++") else ".c"
    source = CXX_SOURCE if suffix == ".cc" else C_SOURCE
    failing, output = _first_failure(compiler, _drop_brace(source, "double a = side_" if suffix == ".cc" else "counter += by"), suffix, tmp_path)
    for record in failing:
        record.error_type = "unknown"  # as a wording no pattern knows would leave it
    unclosed_block_cascade(failing)
    assert {r.error_type for r in failing} == {"syntax_error"}, output


def test_an_unrelated_unit_keeps_its_class(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    (tmp_path / "open.c").write_text(_drop_brace(C_SOURCE, "counter += by"))
    (tmp_path / "other.c").write_text("int f(void) { return missing_name; }\n")
    out = ""
    for name in ("open.c", "other.c"):
        out += subprocess.run(["gcc", "-fsyntax-only", name], cwd=tmp_path, capture_output=True, text=True,
                              env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}).stderr
    records = [r for r in parse_text(out, "auto", cwd=str(tmp_path)).build_errors if r.is_failure]
    other = [r for r in records if r.file_path.endswith("other.c")]
    assert other and other[0].error_type == "undefined_symbol"


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_sqrt_not_declared_with_the_header_note_is_missing_include(compiler: str, tmp_path: Path) -> None:
    failing, output = _first_failure(compiler, "#include <vector>\ndouble root(double x) { return std::sqrt(x); }\n", ".cc", tmp_path)
    assert failing[0].error_type == "missing_include", output


@pytest.mark.parametrize("compiler", ["gcc", "clang", "g++", "clang++"])
@pytest.mark.parametrize("follow", [
    "static const int kLimit = 3;",
    "struct next { int a; };",
    "typedef int handle;",
    "int twice(int x) { return 2 * x; }",
])
def test_struct_missing_its_semicolon_is_a_syntax_error(compiler: str, follow: str, tmp_path: Path) -> None:
    """Whatever the next declaration is, the first error is a syntax error (gcc's 'two or more data
    types', clang's 'cannot combine with previous struct declaration specifier' included)."""
    suffix = ".cc" if compiler.endswith("++") else ".c"
    source = f"struct point {{\n    int x;\n}}\n\n{follow}\n\nint use(void) {{ struct point p; p.x = 1; return p.x; }}\n"
    failing, output = _first_failure(compiler, source, suffix, tmp_path)
    assert failing, output
    assert failing[0].error_type == "syntax_error", output


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_an_unknown_parameter_type_is_an_undefined_symbol(compiler: str, tmp_path: Path) -> None:
    """g++ says "variable or field 'Print' declared void" first; the error on the same line that
    names the undeclared type decides its class."""
    source = "namespace dc {\nvoid Print(Bignum value);\nVector<char> Buffer();\n}\n"
    failing, output = _first_failure(compiler, source, ".cc", tmp_path)
    assert {r.error_type for r in failing} == {"undefined_symbol"}, output
