"""Build fix candidates on real gcc/clang output; the top candidate must make the build pass."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cfamily_support import build_records

from pytest_whetstone import edits
from pytest_whetstone.candidates import generate, tables
from pytest_whetstone.candidates.build import generate_build_candidates
from pytest_whetstone.candidates.includes import add_include_edit, include_insertion_line
from pytest_whetstone.candidates.linking import cmake_edit, makefile_edit
from pytest_whetstone.config import Config
from pytest_whetstone.records import BuildErrorRecord, FixCandidate
from pytest_whetstone.store.sessions import find_store, open_session

pytestmark = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("clang")), reason="needs gcc and clang")

COMPILERS = ["gcc", "clang"]


def _ws(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _fix_and_rebuild(ws: Path, argv: list[str], rounds: int = 4) -> list[FixCandidate]:
    """Apply the top candidate with edits until the build passes; returns what was applied."""
    session = open_session(find_store(ws), "b")
    applied: list[FixCandidate] = []
    for _ in range(rounds):
        code, records = build_records(ws, argv)
        if code == 0:
            return applied
        ranked = generate_build_candidates(records, ws)
        top = next(c for c in ranked if c.edits)
        edits.apply(top, ws, session)
        applied.append(top)
    code, records = build_records(ws, argv)
    assert code == 0, [r.message for r in records]
    return applied


@pytest.mark.parametrize("cc", COMPILERS)
def test_misspelled_identifier_fixed_by_top_candidate(tmp_path: Path, cc: str) -> None:
    src = "#include <stdio.h>\nint main(void) {\n\tint total = 0;\n\treturn totl;\n}\n"
    ws = _ws(tmp_path, {"m.c": src})
    applied = _fix_and_rebuild(ws, [cc, "-c", "m.c", "-o", "m.o"])
    assert applied[0].source == "compiler-fixit" and applied[0].confidence >= 0.8
    assert (ws / "m.c").read_text() == src.replace("totl", "total")


@pytest.mark.parametrize("cc", COMPILERS)
def test_missing_semicolon(tmp_path: Path, cc: str) -> None:
    src = "int main(void) {\n    int v = 3\n    return v;\n}\n"
    ws = _ws(tmp_path, {"s.c": src})
    applied = _fix_and_rebuild(ws, [cc, "-c", "s.c", "-o", "s.o"])
    assert (ws / "s.c").read_text() == src.replace("= 3\n", "= 3;\n")
    assert applied[0].mutation_type == "insertNode"


def test_gcc_expected_before_rule_without_fixit(tmp_path: Path) -> None:
    # gcc gives no fix-it here ("expected ';' before 'return'"): the rule inserts it.
    src = "int f(int x) {\n    int y = x + 1\n    return y;\n}\n"
    ws = _ws(tmp_path, {"r.c": src})
    code, records = build_records(ws, ["gcc", "-c", "r.c", "-o", "r.o"])
    assert code != 0 and not any(r.fixits for r in records)
    top = generate_build_candidates(records, ws)[0]
    assert top.source == "rule" and top.mutation_type == "insertNode"
    _fix_and_rebuild(ws, ["gcc", "-c", "r.c", "-o", "r.o"])
    assert (ws / "r.c").read_text() == src.replace("x + 1\n", "x + 1;\n")


def test_missing_include_cpp_gcc_note(tmp_path: Path) -> None:
    src = "#include <iostream>\n\nint main() {\n    std::vector<int> v{1, 2};\n    std::cout << v.size();\n}\n"
    ws = _ws(tmp_path, {"v.cpp": src})
    applied = _fix_and_rebuild(ws, ["g++", "-c", "v.cpp", "-o", "v.o"])
    assert applied[0].mutation_type == "addImport"
    assert (ws / "v.cpp").read_text() == src.replace("<iostream>\n", "<iostream>\n#include <vector>\n")


def test_missing_include_cpp_clang_uses_table(tmp_path: Path) -> None:
    # clang names no header for std::vector; the symbol->header table does.
    src = "#include <iostream>\n\nint main() {\n    std::vector<int> v{1, 2};\n    std::cout << v.size();\n}\n"
    ws = _ws(tmp_path, {"v.cpp": src})
    code, records = build_records(ws, ["clang++", "-c", "v.cpp", "-o", "v.o"])
    assert code != 0
    top = generate_build_candidates(records, ws)[0]
    assert top.mutation_type == "addImport" and top.mutation["header"] == "<vector>"
    _fix_and_rebuild(ws, ["clang++", "-c", "v.cpp", "-o", "v.o"])


@pytest.mark.parametrize("cc", COMPILERS)
def test_missing_libm_adds_ldlibs_to_makefile(tmp_path: Path, cc: str) -> None:
    makefile = f"CC = {cc}\nCFLAGS = -O0 -fno-builtin\n\nprog: prog.o\n\nclean:\n\trm -f prog prog.o\n"
    ws = _ws(tmp_path, {"prog.c": "#include <math.h>\nint main(void) { return (int)sqrt(4.0); }\n", "Makefile": makefile})
    proc = subprocess.run(["make", "-s"], cwd=ws, capture_output=True, text=True)
    assert proc.returncode != 0
    from cfamily_support import parse_build_output

    records = parse_build_output(proc.stderr, cc, ws)
    ranked = generate_build_candidates(records, ws)
    top = ranked[0]
    assert top.mutation_type == "addDependency" and top.mutation["library"] == "m"
    edits.apply(top, ws, open_session(find_store(ws), "mk"))
    assert "LDLIBS += -lm" in (ws / "Makefile").read_text()
    assert subprocess.run(["make", "-s"], cwd=ws, capture_output=True).returncode == 0


def test_makefile_appends_to_existing_ldlibs_and_explicit_recipe(tmp_path: Path) -> None:
    ws = _ws(tmp_path, {"Makefile": "CC=gcc\nLDLIBS = -lpthread\n\nall: p\n"})
    e = makefile_edit(ws, "", "m")
    assert e is not None
    assert edits.apply_edits_text((ws / "Makefile").read_text(), e.edits) == "CC=gcc\nLDLIBS = -lpthread -lm\n\nall: p\n"
    recipe = "p: p.o\n\t$(CC) -o p p.o\n"
    (ws / "Makefile").write_text(recipe)
    e = makefile_edit(ws, "", "m")
    assert e is not None
    assert edits.apply_edits_text(recipe, e.edits) == "p: p.o\n\t$(CC) -o p p.o -lm\n"
    (ws / "Makefile").write_text("LDLIBS = -lm\n")
    assert makefile_edit(ws, "", "m") is None  # already linked: not the problem


def test_cmake_target_link_libraries(tmp_path: Path) -> None:
    ws = _ws(tmp_path, {"CMakeLists.txt": "project(p C)\nadd_executable(app main.c)\n"})
    e = cmake_edit(ws, "", "m")
    assert e is not None
    out = edits.apply_edits_text((ws / "CMakeLists.txt").read_text(), e.edits)
    assert out == "project(p C)\nadd_executable(app main.c)\ntarget_link_libraries(app PRIVATE m)\n"
    existing = "add_executable(app main.c)\ntarget_link_libraries(app PRIVATE z)\n"
    (ws / "CMakeLists.txt").write_text(existing)
    e = cmake_edit(ws, "", "m")
    assert e is not None
    assert edits.apply_edits_text(existing, e.edits).endswith("target_link_libraries(app PRIVATE z m)\n")
    two = "add_executable(a a.c)\nadd_executable(b b.c)\n"
    (ws / "CMakeLists.txt").write_text(two)
    assert cmake_edit(ws, "", "m") is None  # ambiguous without a source hint
    e = cmake_edit(ws, "", "m", "b.c")
    assert e is not None and "target_link_libraries(b PRIVATE m)" in e.edits[0].new_text


@pytest.mark.skipif(not shutil.which("cmake"), reason="needs cmake")
def test_cmake_project_missing_libm_fixed(tmp_path: Path) -> None:
    ws = _ws(
        tmp_path,
        {
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(p C)\nadd_executable(app main.c)\n",
            "main.c": "#include <math.h>\nint main(int c, char **v) { (void)v; return (int)cbrt((double)c); }\n",
        },
    )
    build = ws / "build"
    assert subprocess.run(["cmake", "-S", ".", "-B", "build"], cwd=ws, capture_output=True).returncode == 0
    proc = subprocess.run(["cmake", "--build", "build"], cwd=ws, capture_output=True, text=True)
    assert proc.returncode != 0
    from cfamily_support import parse_build_output

    ranked = generate_build_candidates(parse_build_output(proc.stdout + proc.stderr, "gcc", build), ws)
    top = ranked[0]
    assert top.mutation_type == "addDependency", [c.description for c in ranked]
    edits.apply(top, ws, open_session(find_store(ws), "cm"))
    assert subprocess.run(["cmake", "--build", "build"], cwd=ws, capture_output=True).returncode == 0


@pytest.mark.parametrize("cc", COMPILERS)
def test_undefined_function_one_edit_away_renamed(tmp_path: Path, cc: str) -> None:
    ws = _ws(
        tmp_path,
        {
            "lib.c": "int parse_header(const char *s) { return s[0]; }\n",
            "app.c": "int parse_header(const char *s);\nint parse_headr(const char *s);\nint main(void) { return parse_headr(\"x\"); }\n",
        },
    )
    argv = [cc, "lib.c", "app.c", "-o", "app"]
    applied = _fix_and_rebuild(ws, argv)
    assert applied[0].mutation_type == "rename" and applied[0].mutation["new"] == "parse_header"


def test_missing_header_file_near_name(tmp_path: Path) -> None:
    ws = _ws(tmp_path, {"utils.h": "int one(void);\n", "u.c": '#include "utlis.h"\nint one(void) { return 1; }\n'})
    applied = _fix_and_rebuild(ws, ["gcc", "-c", "u.c", "-o", "u.o"])
    assert (ws / "u.c").read_text().startswith('#include "utils.h"\n')
    assert applied[0].mutation["new"] == "utils.h"


def test_type_mismatch_declaration_change(tmp_path: Path) -> None:
    src = "#include <stddef.h>\nconst char *name(void) { return \"x\"; }\nsize_t f(void) {\n    int s = name();\n    return (size_t)s;\n}\n"
    ws = _ws(tmp_path, {"t.c": src})
    code, records = build_records(ws, ["gcc", "-Werror=int-conversion", "-c", "t.c", "-o", "t.o"])
    assert code != 0
    ranked = generate_build_candidates(records, ws)
    change = [c for c in ranked if c.mutation_type == "changeType"]
    assert change and 0.2 <= change[0].confidence <= 0.45
    assert edits.apply_edits_text(src, change[0].edits).count("const char *s = name();") == 1


def test_cmake_missing_package_names_apt_package(tmp_path: Path) -> None:
    rec = BuildErrorRecord(
        tool="cmake",
        file_path="CMakeLists.txt",
        line=3,
        message='By not providing "FindFooBar.cmake" in CMAKE_MODULE_PATH ... Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)',
        error_type="missing_dependency",
    ).ensure_id()
    ranked = generate_build_candidates([rec], tmp_path)
    assert ranked[0].mutation["apt"] == "zlib1g-dev" and ranked[0].mutation_type == "manual"
    assert any(c.mutation.get("package") == "FooBar" for c in ranked)


def test_manual_fallback_always_and_ranked_and_deterministic(tmp_path: Path) -> None:
    ws = _ws(tmp_path, {"a.c": "struct P { int x; };\nint main(void) { struct P p = {0}; return p.q + undefined_thing; }\n"})
    code, records = build_records(ws, ["clang", "-c", "a.c", "-o", "a.o"])
    first = generate_build_candidates(records, ws)
    second = generate_build_candidates(records, ws)
    assert [c.to_json() for c in first] == [c.to_json() for c in second]
    failing = [r for r in records if r.is_failure]
    for record in failing:
        mine = [c for c in first if c.target_id == record.error_id]
        assert any(c.mutation_type == "manual" and not c.edits for c in mine)
    assert [c.confidence for c in first] == sorted((c.confidence for c in first), reverse=True)
    assert all(c.candidate_id for c in first)
    assert all(json.loads(json.dumps(c.mutation)) == c.mutation for c in first)
    unknown = BuildErrorRecord(message="something odd happened", error_type="unknown").ensure_id()
    only = generate_build_candidates([unknown], ws)
    assert len(only) == 1 and only[0].confidence < 0.3
    assert generate_build_candidates([], ws) == []


def test_generate_dispatches_and_records_hashes(tmp_path: Path) -> None:
    src = "int main(void) {\n    int total = 0;\n    return totl;\n}\n"
    ws = _ws(tmp_path, {"m.c": src})
    _, records = build_records(ws, ["clang", "-c", "m.c", "-o", "m.o"])
    ranked = generate(records, [], ws, Config())
    assert ranked[0].mutation["file_hashes"]["m.c"] == edits.sha256_bytes(src.encode())
    (ws / "m.c").write_text(src + "// edited\n")
    with pytest.raises(edits.EditError, match="changed since"):
        edits.apply(ranked[0], ws, open_session(find_store(ws), "g"))


def test_gcc_member_fixit_to_short_name_is_trusted_less(tmp_path: Path) -> None:
    # gcc suggests an existing but different member: a 1-letter name is ambiguous.
    ws = _ws(tmp_path, {"p.c": "struct pt { int x; int y; };\nint f(struct pt p) { return p.z; }\n"})
    _, records = build_records(ws, ["gcc", "-c", "p.c", "-o", "p.o"])
    ranked = generate_build_candidates(records, ws)
    fixits = [c for c in ranked if c.source == "compiler-fixit"]
    assert all(c.confidence < 0.7 for c in fixits)


# ------------------------------------------------------------------ includes and tables


def test_include_placement_guards_and_no_duplicate() -> None:
    header = ["#ifndef A_H", "#define A_H", "", "int f(void);", "#endif", ""]
    assert include_insertion_line(header) == 3
    once = ["// comment", "#pragma once", "#include <stdio.h>", "#include \"x.h\"", "void g(void);", ""]
    assert include_insertion_line(once, system=True) == 4
    assert include_insertion_line(once, system=False) == 5
    conditional = ["#include <a.h>", "#ifdef X", "#include <b.h>", "#endif", "int x;", ""]
    assert include_insertion_line(conditional) == 2
    bare = ["/* license", " * text */", "int x;", ""]
    assert include_insertion_line(bare) == 3
    assert add_include_edit("f.c", once, "<stdio.h>") is None
    e = add_include_edit("f.c", ["int x;"], "<math.h>")
    assert e is not None and edits.apply_edits_text("int x;", [e]) in ("#include <math.h>\nint x;", "int x;\n#include <math.h>")


def test_tables() -> None:
    assert tables.header_for("printf") == "<stdio.h>"
    assert tables.header_for("std::vector", cpp=True) == "<vector>"
    assert tables.header_for("std::printf", cpp=True) == "<cstdio>"
    assert tables.header_for("pthread_create") == "<pthread.h>"
    assert tables.header_for("my_log", config=Config(headers={"my_log": '"log.h"'})) == '"log.h"'
    assert tables.library_for("sqrt") == "m" and tables.library_for("dlopen") == "dl"
    assert tables.library_for("shm_open") == "rt" and tables.library_for("pthread_create") == "pthread"
    assert tables.library_for("deflate", Config(libraries={"deflate": "z"})) == "z"
    assert tables.library_for("printf") is None
    assert tables.apt_package_for("OpenSSL") == "libssl-dev" and tables.apt_package_for("zlib") == "zlib1g-dev"
    assert len(tables.CMAKE_PACKAGES) >= 30


@pytest.mark.parametrize("cc", COMPILERS)
def test_fixit_on_a_line_with_utf8_and_tabs(tmp_path: Path, cc: str) -> None:
    src = 'int main(void) {\n\tint total = 0;\n\tconst char *s = "\u00e9\u00e9"; (void)s; return totl;\n}\n'
    ws = _ws(tmp_path, {"u.c": src})
    _fix_and_rebuild(ws, [cc, "-c", "u.c", "-o", "u.o"])
    assert (ws / "u.c").read_text() == src.replace("totl", "total")


def test_a_new_include_keeps_a_sorted_block_sorted() -> None:
    from pytest_whetstone.candidates.includes import add_include_edit

    lines = ["#include <errno.h>", "#include <stdio.h>", "#include <string.h>", "", "int x;"]
    e = add_include_edit("a.c", lines, "<stdlib.h>")
    assert e is not None and (e.start.line, e.new_text) == (3, "#include <stdlib.h>\n")
    unsorted = ["#include <stdio.h>", "#include <errno.h>", "", "int x;"]
    e = add_include_edit("a.c", unsorted, "<stdlib.h>")
    assert e is not None and e.start.line == 3  # after the last one, as before
