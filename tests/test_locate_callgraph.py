"""Suspects beyond what a test calls directly: callees of the called function, and JS modules a test
binds by name (``const slugify = require('../')`` over ``module.exports = function ...``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.locate import callgraph, jsfamily
from pytest_whetstone.locate.native_tests import locate_native_failures
from pytest_whetstone.parse import parse_text
from pytest_whetstone.records import TestFailureRecord

TEXTKIT = Path(__file__).parent.parent / "bench" / "native_dev" / "textkit"


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_a_package_main_and_its_anonymous_export_are_what_the_test_calls(tmp_path: Path) -> None:
    shutil.copytree(TEXTKIT, tmp_path / "tk")
    root = tmp_path / "tk"
    failure = TestFailureRecord(failure_id="F1", runner="node", test_name="truncates on a word boundary",
                                file_path="test/slug.test.js")
    locate_native_failures([failure], root)
    names = [s.qualname for s in failure.suspects]
    assert names[0] == "exports"  # lib/index.js: module.exports = function (...)
    assert failure.suspects[0].file_path == "lib/index.js"
    # the helpers it calls are suspects too, below it
    assert {"collapse", "truncate"} <= set(names)


def test_resolve_package_reads_main(tmp_path: Path) -> None:
    _write(tmp_path, {"package.json": '{"main": "lib/entry.js"}', "lib/entry.js": "module.exports = 1;\n",
                      "test/a.test.js": ""})
    assert callgraph.resolve_package("../", tmp_path / "test" / "a.test.js") == (tmp_path / "lib/entry.js").resolve()
    assert callgraph.resolve_package("lodash", tmp_path / "test" / "a.test.js") is None


def test_module_bindings_and_default_exports() -> None:
    test = jsfamily.parse_source(b"const a = require('../');\nimport b from './b';\nimport * as c from './c';\n"
                                 b"const { d } = require('./d');\n")
    assert callgraph.module_bindings(test) == {"a": "../", "b": "./b", "c": "./c"}
    mod = jsfamily.parse_source(b"function parse(x) { return x; }\nmodule.exports = parse;\n")
    assert callgraph.default_export_names(mod) == {"parse"}
    anon = jsfamily.parse_source(b"export default function (x) { return x; }\n")
    assert "default" in callgraph.default_export_names(anon)



def test_a_files_walks_are_kept_per_version_and_handed_out_as_copies(tmp_path: Path, monkeypatch) -> None:
    _write(tmp_path, {"test/a.test.js": "const a = require('../');\ntest('one', () => { a(1); });\n"})
    path = tmp_path / "test" / "a.test.js"
    first = jsfamily.parse_file(path)
    assert first is not None
    walks: list[str] = []
    for name in ("_read_imports", "_read_tests"):
        real = getattr(jsfamily, name)
        monkeypatch.setattr(jsfamily, name, lambda pf, real=real, name=name: walks.append(name) or real(pf))
    # many failures in one file ask the same questions: each walk of the tree is made once
    for _ in range(3):
        imports = jsfamily.imports_of(first)
        imports.append("changed by a caller")
        assert [t.title for t in jsfamily.tests_in(first)] == ["one"]
        bindings = callgraph.module_bindings(first)
        bindings["x"] = "changed by a caller"
    assert walks == ["_read_imports", "_read_tests"]
    assert jsfamily.imports_of(first) == ["../"]
    assert callgraph.module_bindings(first) == {"a": "../"}
    # a new version of the file is a new parse, read afresh
    path.write_text("const b = require('./b');\n")
    second = jsfamily.parse_file(path)
    assert second is not first and jsfamily.imports_of(second) == ["./b"]

EVAL = {
    "src/tokenizer.cc": "int count_tokens(const char* s) {\n  int n = 0;\n  while (*s) { if (*s != ' ') ++n; ++s; }\n"
                        "  return n;\n}\n",
    "src/tokenizer.h": "int count_tokens(const char* s);\n",
    "src/evaluator.h": "int evaluate(const char* s);\n",
    "src/evaluator.cc": '#include "evaluator.h"\n#include "tokenizer.h"\nstatic int weigh(int n) {\n  return n * 2;\n}\n'
                        "int evaluate(const char* s) {\n  return weigh(count_tokens(s));\n}\n",
    "tests/evaluator_test.cc": '#include <gtest/gtest.h>\n#include "evaluator.h"\n'
                               'TEST(EvaluatorTest, Counts) {\n  EXPECT_EQ(evaluate("1 + 2"), 6);\n}\n',
}


def test_cpp_callees_of_the_called_entry_point_become_suspects(tmp_path: Path) -> None:
    _write(tmp_path, EVAL)
    failure = TestFailureRecord(failure_id="F1", runner="gtest", test_suite="EvaluatorTest", test_name="Counts",
                                file_path="tests/evaluator_test.cc", line=4)
    locate_native_failures([failure], tmp_path)
    names = [s.qualname for s in failure.suspects]
    assert names[0] == "evaluate"
    assert "count_tokens" in names and "weigh" in names  # not in a file the test includes: reached by calls


def test_many_failing_tests_of_one_file_walk_its_tree_once(tmp_path: Path, monkeypatch) -> None:
    """Twenty failing TESTs of one file: its TEST declarations are listed in one walk, not twenty, and
    each test's suspects are those it gets when located alone."""
    from pytest_whetstone.locate import cfamily

    files = dict(EVAL)
    files["tests/evaluator_test.cc"] = '#include <gtest/gtest.h>\n#include "evaluator.h"\n' + "".join(
        f'TEST(EvaluatorTest, Counts{i}) {{\n  EXPECT_EQ(evaluate("1 + {i}"), 6);\n}}\n' for i in range(20))
    _write(tmp_path, files)

    def failure(i: int) -> TestFailureRecord:
        return TestFailureRecord(failure_id=f"F{i}", runner="gtest", test_suite="EvaluatorTest",
                                 test_name=f"Counts{i}", file_path="tests/evaluator_test.cc", line=4 + 3 * i)

    alone = failure(7)
    locate_native_failures([alone], tmp_path)
    cfamily._CACHE.clear()
    walks = []
    real = cfamily.file_scope_functions
    monkeypatch.setattr(cfamily, "file_scope_functions", lambda root: walks.append(1) or real(root))
    together = [failure(i) for i in range(20)]
    locate_native_failures(together, tmp_path)
    assert len(walks) == 1
    assert together[7].suspects == alone.suspects and alone.suspects[0].qualname == "evaluate"


@pytest.mark.skipif(not shutil.which("node"), reason="node not installed")
def test_real_node_run_locates_a_fault_in_a_helper(tmp_path: Path) -> None:
    shutil.copytree(TEXTKIT, tmp_path / "tk")
    root = tmp_path / "tk"
    helpers = root / "lib" / "helpers.js"
    helpers.write_text(helpers.read_text().replace("if (pending && out.length > 0) {", "if (pending && out.length > 1) {"))
    proc = subprocess.run(["node", "--test", "--test-reporter=tap", "test/"], cwd=root, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode != 0
    failures = [f for f in parse_text(proc.stdout, "tap", cwd=str(root)).test_failures]
    assert failures
    locate_native_failures(failures, root)
    names = [s.qualname for s in failures[0].suspects]
    assert "collapse" in names[:3], names
