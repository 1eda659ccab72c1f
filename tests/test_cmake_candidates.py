"""CMake configure errors: a target naming a missing source, a required package absent.

The parse and classification are checked on captured cmake 3.25 output (tests/fixtures/cmake_fix/);
the candidates end to end with the real cmake: configure, generate, apply the top candidate,
configure again.  Validation configures a scratch copy; the user's build directory is never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone import candidates, edits
from pytest_whetstone.parse import parse_text
from pytest_whetstone.store.sessions import open_session

FIXTURES = Path(__file__).parent / "fixtures" / "cmake_fix"
HEAD = "cmake_minimum_required(VERSION 3.16)\nproject(demo C)\n\n"
PROJECTS = {
    "missing_source_list": HEAD + "add_library(demo STATIC\n  src/alpha.c\n  src/betaa.c\n  src/gamma.c\n)\n"
                                  "add_executable(tool src/main.c)\ntarget_link_libraries(tool demo)\n",
    "missing_source_set": HEAD + "set(DEMO_SOURCES src/alpha.c src/beta.c src/gama.c)\nadd_library(demo STATIC ${DEMO_SOURCES})\n",
    "missing_source_executable": HEAD + "add_executable(tool src/main.c src/helper.c)\n",
    "find_package_required": HEAD + "find_package(Frobnicator 2.1 REQUIRED)\nadd_executable(tool src/main.c)\n"
                                    "target_link_libraries(tool Frobnicator::frob)\n",
    "find_package_module_required": HEAD + "find_package(GIF REQUIRED)\nadd_executable(tool src/main.c)\n",
    "find_package_sdl2": HEAD + "find_package(SDL2 REQUIRED)\nadd_executable(tool src/main.c)\n",
}
needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")


def _records(log: str, cwd: Path):
    return parse_text(log, "auto", cwd=str(cwd)).build_errors


def _project(tmp_path: Path, case: str) -> Path:
    root = tmp_path / case
    (root / "src").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(PROJECTS[case])
    for name in ("alpha", "beta", "gamma"):
        (root / "src" / f"{name}.c").write_text(f"int {name}(void) {{ return 0; }}\n")
    (root / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    return root


def _configure(root: Path) -> tuple[int, str]:
    proc = subprocess.run(["cmake", "-S", ".", "-B", "build"], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "LC_ALL": "C.UTF-8"})
    return proc.returncode, proc.stdout + proc.stderr


def _session(root: Path):
    (root / ".whetstone" / "sessions").mkdir(parents=True, exist_ok=True)
    return open_session(root / ".whetstone", "t")


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*") if p.is_file()}


# --------------------------------------------------------------------------- captured output


@pytest.mark.parametrize("case,name,line", [
    ("missing_source_list", "src/betaa.c", 4),
    ("missing_source_set", "src/gama.c", 5),
    ("missing_source_executable", "src/helper.c", 4),
])
def test_missing_source_is_a_missing_dependency_at_the_command(case: str, name: str, line: int, tmp_path: Path) -> None:
    first = _records((FIXTURES / f"{case}.log").read_text(), tmp_path)[0]
    assert (first.tool, first.error_type, first.line) == ("cmake", "missing_dependency", line)
    assert first.file_path.endswith("CMakeLists.txt")
    assert f"Cannot find source file: {name}" in first.message


@pytest.mark.parametrize("case,package", [
    ("find_package_required", "Frobnicator"), ("find_package_module_required", "GIF"), ("find_package_sdl2", "SDL2")])
def test_required_package_is_a_missing_dependency_at_the_call(case: str, package: str, tmp_path: Path) -> None:
    records = [r for r in _records((FIXTURES / f"{case}.log").read_text(), tmp_path) if r.severity == "error"]
    first = records[0]
    assert (first.error_type, first.symbol, first.function, first.line) == ("missing_dependency", package, "find_package", 4)
    assert first.file_path.endswith("CMakeLists.txt")  # module mode: the project's call, not FindGIF.cmake


# --------------------------------------------------------------------------- end to end


@needs_cmake
@pytest.mark.parametrize("case,expected", [
    ("missing_source_list", "  src/beta.c\n"),
    ("missing_source_set", "set(DEMO_SOURCES src/alpha.c src/beta.c src/gamma.c)\n"),
])
def test_near_name_source_is_validated_and_fixes_the_configure(case: str, expected: str, tmp_path: Path) -> None:
    root = _project(tmp_path, case)
    code, out = _configure(root)
    assert code != 0
    build_before = _tree(root / "build")
    cands = candidates.generate(_records(out, root), [], root)
    assert _tree(root / "build") == build_before  # validation configured a scratch copy, not the user's build
    assert (root / "CMakeLists.txt").read_text() == PROJECTS[case]
    top = cands[0]
    assert top.validated and top.edits, [c.description for c in cands]
    assert top.mutation["validation"]["by"] == "cmake-configure"
    edits.apply(top, root, _session(root))
    assert expected in (root / "CMakeLists.txt").read_text()
    code, out = _configure(root)
    assert code == 0, out


@needs_cmake
def test_no_near_name_drops_the_missing_source(tmp_path: Path) -> None:
    root = _project(tmp_path, "missing_source_executable")
    code, out = _configure(root)
    assert code != 0
    cands = candidates.generate(_records(out, root), [], root)
    top = cands[0]
    assert top.validated and "drop the missing src/helper.c" in top.description
    edits.apply(top, root, _session(root))
    assert "add_executable(tool src/main.c)\n" in (root / "CMakeLists.txt").read_text()
    assert _configure(root)[0] == 0


@needs_cmake
def test_dropping_the_only_source_is_rejected(tmp_path: Path) -> None:
    root = _project(tmp_path, "missing_source_executable")
    (root / "CMakeLists.txt").write_text(HEAD + "add_executable(tool src/helper.c)\n")
    code, out = _configure(root)
    assert code != 0
    cands = candidates.generate(_records(out, root), [], root)
    drop = next(c for c in cands if c.description.startswith("drop the missing"))
    assert not drop.validated and drop.mutation["validation"]["result"] == "rejected"  # "No SOURCES given" is new


@needs_cmake
@pytest.mark.parametrize("case,package,apt", [
    ("find_package_required", "Frobnicator", None), ("find_package_sdl2", "SDL2", "libsdl2-dev")])
def test_required_package_gets_install_advice_and_a_low_optional_note(case: str, package: str, apt: str | None, tmp_path: Path) -> None:
    root = _project(tmp_path, case)
    code, out = _configure(root)
    if code == 0:
        pytest.skip(f"{package} is installed here")
    cands = candidates.generate(_records(out, root), [], root)
    assert all(not c.edits for c in cands)  # advice only: nothing is applied automatically
    top = cands[0]
    assert package in top.description and f"{package}_DIR" in top.description
    if apt:
        assert f"apt-get install {apt}" in top.description
    optional = next(c for c in cands if c.mutation.get("optional"))
    assert "drop REQUIRED" in optional.description and optional.confidence < top.confidence
    assert optional.confidence <= 0.1
