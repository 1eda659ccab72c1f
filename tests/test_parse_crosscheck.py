"""gcc and clang check our counts of their text output (a small slice of bench/parse_crosscheck.py).

Each case is a real compile through ``make -k``; gcc's ``-fdiagnostics-format=json`` run of the
same compile, and clang's ``--serialize-diagnostics`` file read through libclang, say what the
compiler emitted.  ``parse_text(log, "auto")`` must count the same errors, warnings and notes, at
the same places.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import crosscheck_truth  # noqa: E402
import parse_crosscheck as cc  # noqa: E402

pytestmark = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("make")), reason="needs gcc and make")

SOURCES = {
    # a macro with a missing argument: gcc 12's JSON nests the next error as a child of the first
    "macro.c": '#define TWO(a, b) ((a) + (b))\n#define ASSERT(x) { ((void)(x)); }\n'
               "int two(int a, int b);\n"
               "int f(int x) {\n    ASSERT(two(x));\n    return TWO(x);\n}\n",
    # warnings in a header reached through an include chain, and a format warning with labels
    "util.h": "static inline int shadow(int v) { int v2 = v; { int v2 = 1; (void)v2; } return v2 + (unsigned)v < 3u; }\n",
    "warn.c": '#include <stdio.h>\n#include "util.h"\n'
              "int g(int n) { int unused; unsigned u = 3; if (n < u) printf(\"%d %s\\n\", \"s\", n); return shadow(n); }\n",
    # several errors: -fmax-errors / -ferror-limit, -Wfatal-errors, a missing semicolon's fix-it
    "many.c": "int f(void) { return a + b; }\nint g(void) { return c }\nint h(void) { return d; }\n"
              "int k(void) { return e; }\n",
    # a template instantiation backtrace and overload candidates
    "tmpl.cpp": "#include <string>\nstruct P { int x; };\n"
                "template <class T> int twice(T t) { return t.size() * 2; }\n"
                "int use() { P p{1}; std::string s = p; return twice(p); }\n",
    # the analyzer's event path (gcc)
    "leak.c": "#include <stdlib.h>\nint *leak(int n) {\n  int *p = malloc(4);\n  if (n) return 0;\n  return p;\n}\n",
}

CASES = [  # (key, compiler, flags, units)
    ("macro-gcc", "gcc", "-Wall -Wextra", ["macro.c"]),
    ("macro-clang", "clang", "-Wall -Wextra", ["macro.c"]),
    ("warn-gcc-color", "gcc", "-Wall -Wextra -Wshadow -fdiagnostics-color=always", ["warn.c"]),
    ("warn-clang-werror", "clang", "-Wall -Wextra -Wshadow -Werror", ["warn.c", "macro.c"]),
    ("warn-gcc-werror-eq", "gcc", "-Wall -Wextra -Wshadow -Werror=sign-compare", ["warn.c", "many.c"]),
    ("many-gcc-max", "gcc", "-Wall -fmax-errors=2", ["many.c"]),
    ("many-clang-limit", "clang", "-Wall -ferror-limit=2", ["many.c"]),
    # no carets: clang prints no "N errors generated." tally, and its -ferror-limit stop still counts
    ("many-clang-no-caret-limit", "clang", "-Wall -fno-caret-diagnostics -ferror-limit=2", ["many.c"]),
    ("many-gcc-fatal", "gcc", "-Wall -Wfatal-errors", ["many.c", "warn.c"]),
    ("tmpl-gcc", "gcc", "-std=c++17 -Wall", ["tmpl.cpp"]),
    ("tmpl-clang", "clang", "-std=c++17 -Wall", ["tmpl.cpp"]),
    ("c-as-cxx-gcc", "gcc", "-x c++ -Wall", ["warn.c"]),
    ("leak-gcc-analyzer", "gcc", "-fanalyzer", ["leak.c"]),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> cc.Project:
    root = tmp_path_factory.mktemp("crosscheck-src")
    for name, text in SOURCES.items():
        (root / name).write_text(text)
    return cc.Project("shapes", root, "c", sorted(n for n in SOURCES if not n.endswith(".h")), ["."])


@pytest.mark.parametrize("key, compiler, flags, units", CASES, ids=[c[0] for c in CASES])
def test_text_counts_equal_the_compilers_structured_output(project: cc.Project, tmp_path: Path, key: str,
                                                           compiler: str, flags: str, units: list[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cc, "PARALLEL", False)  # make -j2 may run two units' lines into each other
    if compiler == "clang" and (not shutil.which("clang") or crosscheck_truth.libclang() is None):
        pytest.skip("needs clang and libclang")
    lang = "cpp" if any(u.endswith(".cpp") for u in units) else "c"
    proj = cc.Project(project.name, project.root, lang, project.units, project.includes)
    out = cc.run_job(cc.Job(key, proj, compiler, key, flags, units), tmp_path)
    assert out is not None
    assert out.truth, out.text  # the compiler did say something
    assert out.problems == [], out.text


def test_gcc_json_nested_group_children_are_diagnostics_of_their_own() -> None:
    # gcc 12, -fdiagnostics-format=json of macro.c's TWO(x): the undeclared error is a child of the macro error
    line = ('[{"kind": "error", "children": [{"kind": "note", "locations": [{"caret": {"display-column": -1, "line": 1, '
            '"file": "m.c"}}], "message": "macro \\"TWO\\" defined here"}, {"kind": "error", "locations": [{"caret": '
            '{"display-column": 12, "line": 3, "file": "m.c"}}], "message": "x"}, {"kind": "note", "locations": '
            '[{"caret": {"display-column": 12, "line": 3, "file": "m.c"}}], "message": "each undeclared"}], '
            '"locations": [{"caret": {"display-column": 17, "line": 3, "file": "m.c"}}], "message": "macro"}]')
    truth = crosscheck_truth.gcc_json_truth(line)
    assert [(d.severity, d.line, d.col, d.notes) for d in truth] == [
        ("error", 3, 17, [("m.c", 1, 0)]), ("error", 3, 12, [("m.c", 3, 12)])]
