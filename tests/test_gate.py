"""The per-file gate: real projects built through ccwrap, edits re-checked with the recorded commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "ccwrap"))
import ccwrap_support as cs  # noqa: E402

native_dir = cs.native_dir  # a shared pytest fixture

from pytest_whetstone.build.compdb import CompileDatabase  # noqa: E402
from pytest_whetstone.build.gate import Gate, gate_check  # noqa: E402
from pytest_whetstone.records import Position, TextEdit  # noqa: E402

MAKEFILE = """\
OBJS = src/util.o src/main.o src/local.o
libdemo.so: $(OBJS)
\t$(CC) -shared -Wl,--no-undefined -o $@ $(OBJS)
%.o: %.c
\t$(CC) -fPIC -Wall -MMD -Iinc -c $< -o $@
"""
UTIL_H = "struct pair { int a; int b; };\nint twice(int x);\n"
UTIL_C = '#include "util.h"\nint twice(int x) { return 2 * x; }\n'
MAIN_C = '#include "util.h"\nint run(void) {\n    struct pair p = {1, 2};\n    return twice(p.a);\n}\n'
LOCAL_H = "int local_value(void);\n"
LOCAL_C = '#include "local.h"\nint local_value(void) { return 3; }\n'


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".whetstone" not in p.parts}


@pytest.fixture(params=["gcc", "clang"])
def project(request: pytest.FixtureRequest, native_dir: Path, tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "inc").mkdir(parents=True)
    (root / "src").mkdir()
    (root / ".whetstone").mkdir()
    (root / "inc" / "util.h").write_text(UTIL_H)
    (root / "src" / "util.c").write_text(UTIL_C)
    (root / "src" / "main.c").write_text(MAIN_C)
    (root / "src" / "local.h").write_text(LOCAL_H)
    (root / "src" / "local.c").write_text(LOCAL_C)
    (root / "Makefile").write_text(MAKEFILE)
    proc = subprocess.run(["make", "-s", f"CC=ccwrap {request.param}"], cwd=root, env=cs.base_env(native_dir),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return root


def test_an_edited_unit_is_checked_without_touching_the_tree(project: Path) -> None:
    before = _tree(project)
    broken = MAIN_C.replace("return twice(p.a);", "return twice(p.a)")
    result = gate_check({"src/main.c": broken}, project)
    assert not result.ok and result.checked
    [unit] = result.units
    assert unit.source == str(project / "src" / "main.c")
    [err] = unit.errors
    assert err.file_path.endswith("src/main.c") and "whetstone-gate" not in err.file_path
    assert err.line in (4, 5) and err.error_type == "syntax_error"
    assert _tree(project) == before
    assert gate_check({"src/main.c": MAIN_C}, project).ok


def test_text_edits_are_applied_in_memory(project: Path) -> None:
    edit = TextEdit(file_path="src/main.c", start=Position(4, 18), end=Position(4, 19), new_text="q")
    result = gate_check([edit], project)
    assert not result.ok
    assert any("'q'" in e.message.replace("\u2018", "'").replace("\u2019", "'") for e in result.errors)
    assert (project / "src" / "main.c").read_text() == MAIN_C


def test_an_edited_header_rechecks_the_units_that_include_it(project: Path) -> None:
    result = gate_check({"inc/util.h": UTIL_H.replace("int b; };", "int b; }")}, project)
    assert {Path(u.source).name for u in result.units} == {"util.c", "main.c"}
    assert not result.ok
    assert all(e.file_path.endswith("inc/util.h") or e.file_path.endswith(".c") for e in result.errors)
    assert any(e.file_path.endswith("inc/util.h") for e in result.errors)
    assert gate_check({"inc/util.h": UTIL_H}, project).ok


def test_a_header_next_to_its_unit_is_overlaid_too(project: Path) -> None:
    # "local.h" is found in the including file's own directory, before any -I
    result = gate_check({"src/local.h": "int local_value(void)\n"}, project)
    assert [Path(u.source).name for u in result.units] == ["local.c"]
    assert not result.ok
    assert gate_check({"src/local.h": LOCAL_H}, project).ok


def test_paths_check_the_text_on_disk(project: Path) -> None:
    assert gate_check(["src/main.c"], project).ok
    (project / "src" / "main.c").write_text("int run(void) { return undeclared_thing; }\n")
    result = gate_check([project / "src" / "main.c"], project)
    assert not result.ok and result.errors[0].error_type == "undefined_symbol"


def test_a_recorded_command_that_no_longer_runs_is_one_line(project: Path) -> None:
    for path in (project / ".whetstone" / "commands").glob("*.json"):
        data = json.loads(path.read_text())
        data["arguments"][0] = "/nonexistent/cc"
        path.write_text(json.dumps(data))
    result = gate_check({"src/main.c": MAIN_C}, project)
    assert not result.ok and "no longer runs" in result.message and "\n" not in result.message


def test_no_commands_recorded(tmp_path: Path) -> None:
    (tmp_path / ".whetstone").mkdir()
    (tmp_path / "a.c").write_text("int x;\n")
    result = gate_check({"a.c": "int x;\n"}, tmp_path, tmp_path / ".whetstone")
    assert not result.ok and not result.checked and "no compile commands" in result.message


def test_a_file_no_command_covers_is_listed_unchecked(project: Path) -> None:
    (project / "src" / "extra.c").write_text("int extra;\n")
    result = gate_check({"src/extra.c": "int extra\n"}, project)
    assert not result.checked and result.unchecked and "no recorded compile command" in result.message


def test_relink_with_a_renamed_definition_and_its_restore(project: Path) -> None:
    before = _tree(project)
    db = CompileDatabase.from_store(project / ".whetstone")
    with Gate(project, db) as gate:
        bad = gate.relink({"src/util.c": UTIL_C.replace("int twice(int x) {", "int twce(int x) {")})
        assert not bad.ok
        link = bad.units[-1]
        assert any("twice" in e.message for e in link.errors) and link.errors[0].error_type == "undefined_symbol"
        assert gate.relink({"src/util.c": UTIL_C}).ok
    assert _tree(project) == before


def test_relink_with_an_added_source(project: Path) -> None:
    db = CompileDatabase.from_store(project / ".whetstone")
    (project / "src" / "more.c").write_text("int more(void) { return 1; }\n")
    with Gate(project, db) as gate:
        # no recorded command of its own: it compiles with a sibling's, into a scratch object
        result = gate.relink({}, added_sources=["src/more.c"])
        assert result.ok and not result.unchecked
        assert not (project / "src" / "more.o").exists()


def test_thousands_of_errors_are_capped(project: Path) -> None:
    broken = MAIN_C + "".join(f"int bad{i} = undeclared{i};\n" for i in range(3000))
    result = gate_check({"src/main.c": broken}, project)
    assert not result.ok and 0 < len(result.errors) <= 60 and result.seconds < 30


def test_a_header_many_units_include_is_checked_through_a_sample(native_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "many"
    (root / ".whetstone").mkdir(parents=True)
    (root / "common.h").write_text("int shared(int);\n")
    for i in range(12):
        (root / f"u{i}.c").write_text(f'#include "common.h"\nint f{i}(void) {{ return shared({i}); }}\n')
    (root / "Makefile").write_text("all: " + " ".join(f"u{i}.o" for i in range(12)) + "\n%.o: %.c\n\t$(CC) -MMD -c $< -o $@\n")
    assert subprocess.run(["make", "-s", "CC=ccwrap gcc"], cwd=root, env=cs.base_env(native_dir), capture_output=True, timeout=120).returncode == 0
    result = gate_check({"common.h": "int shared(int)\n"}, root)
    assert len(result.units) == 4 and not result.ok
    assert "included by 12 units; checked 4" in result.message and "\n" not in result.message


def test_a_unit_sees_edits_of_files_above_and_below_its_directory_and_the_tree_is_never_written(
        native_dir: Path, tmp_path: Path) -> None:
    """A test that includes the `.c` it tests through `../` (cJSON's tests) and a header in a directory
    below its own: the scratch mirror holds both directories, whichever order they come in (twelve
    projects, so a set's order differs between them), the edit is what the compiler reads, and the
    user's files are left as they were."""
    for k in range(12):
        root = tmp_path / f"proj{k}"
        (root / "tests" / "detail").mkdir(parents=True)
        (root / ".whetstone").mkdir()
        (root / "lib.c").write_text("static int lib_value(void) { return 1; }\n")
        (root / "tests" / "common.h").write_text('#include "../lib.c"\n')
        (root / "tests" / "detail" / "impl.h").write_text("static int impl_value(void) { return 2; }\n")
        (root / "tests" / "t.c").write_text('#include "common.h"\n#include "detail/impl.h"\n'
                                            "int main(void) { return lib_value() + impl_value() - 3; }\n")
        (root / "Makefile").write_text("tests/t.o: tests/t.c\n\t$(CC) -c tests/t.c -o tests/t.o\n")
        assert subprocess.run(["make", "-s", "CC=ccwrap gcc"], cwd=root, env=cs.base_env(native_dir),
                              capture_output=True, timeout=120).returncode == 0
        before = _tree(root)
        db = CompileDatabase.from_store(root / ".whetstone")
        source = str(root / "tests" / "t.c")
        command = db.for_source(source)[0]
        gate = Gate(root, db)
        for rel in ("lib.c", "tests/detail/impl.h"):
            unit = gate.compile_object(source, command, {root / rel: f"#error mutated {rel}\n"}, tmp_path / f"o{k}.o")
            assert unit.exit_code != 0 and f"mutated {rel}" in unit.output, (k, rel, unit.output)
        assert _tree(root) == before
