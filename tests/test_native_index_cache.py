"""The C/C++ function index kept across runs: reused while a file's bytes are unchanged, re-read when
they change, and a corrupt cache costs nothing but the parse.  Also: generated data files (an
embedded resource as one long line of byte values) are not indexed at all."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_whetstone.locate import cfamily
from pytest_whetstone.locate.index_cache import CACHE_FILE, VERSION, IndexCache
from pytest_whetstone.locate.native_workspace import Workspace

CALC = """\
int add(int a, int b) { return a + b; }
int twice(int a) { return add(a, a); }
"""


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/calc.cc").write_text(CALC)
    (tmp_path / ".whetstone").mkdir()
    return tmp_path


def _index(root: Path) -> list[tuple[str, str, int]]:
    ws = Workspace(root, root / ".whetstone")
    return [(f.file_path, f.qualname, f.line_start) for f in ws.c_index().functions]


def test_the_index_is_kept_and_reused_while_the_file_is_unchanged(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _index(tree)
    assert first == [("src/calc.cc", "add", 1), ("src/calc.cc", "twice", 2)]
    assert (tree / ".whetstone" / "cache" / CACHE_FILE).is_file()

    def no_parse(path: Path) -> None:
        raise AssertionError(f"parsed {path} again")
    monkeypatch.setattr(cfamily, "parse_file", no_parse)
    assert _index(tree) == first


def test_a_changed_file_is_read_again_even_with_its_old_time_and_size(tree: Path) -> None:
    _index(tree)
    path = tree / "src/calc.cc"
    stat = path.stat()
    path.write_text(CALC.replace("int twice", "int twine"))  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # a tool that keeps the old time
    assert ("src/calc.cc", "twine", 2) in _index(tree)


@pytest.mark.parametrize("junk", [b"\x00\xff not json", b"[1, 2]", b'{"version": 1, "files": {"src/calc.cc": 7}}',
                                  b'{"version": 3, "files": {"src/calc.cc": [1, 2, [], "calls"]}}'])
def test_a_corrupt_cache_is_an_empty_one(tree: Path, junk: bytes) -> None:
    cache = tree / ".whetstone" / "cache"
    cache.mkdir()
    (cache / CACHE_FILE).write_bytes(junk)
    assert [q for _f, q, _l in _index(tree)] == ["add", "twice"]
    assert json.loads((cache / CACHE_FILE).read_text())["version"] == VERSION  # rewritten whole


def test_without_a_store_nothing_is_written(tree: Path) -> None:
    assert IndexCache(None).get("src/calc.cc", tree / "src/calc.cc") is None
    assert [f.qualname for f in Workspace(tree).c_index().functions] == ["add", "twice"]
    assert not (tree / ".whetstone" / "cache").exists()


def test_generated_data_is_not_indexed(tree: Path) -> None:
    blob = ",".join(str(b % 256) for b in range(60000)).encode()  # one line of byte values, as xxd -i writes
    (tree / "src/std_lib.h").write_bytes(b"static const char STD[] = {" + blob + b"};\n")
    assert cfamily.looks_generated(tree / "src/std_lib.h")
    assert not cfamily.looks_generated(tree / "src/calc.cc")
    assert {f for f, _q, _l in _index(tree)} == {"src/calc.cc"}
    assert tree / "src/std_lib.h" not in cfamily.iter_sources(tree)


def test_a_failure_reads_unchanged_headers_and_test_helpers_from_what_the_store_kept(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gtest failure reads the functions of the headers its test includes and of its test files, and the
    calls of the bodies it follows (a helper of the test, the callees of what the test calls); on the next
    run those unchanged files are not parsed again, only the test file for its TEST, and the suspects are
    the same."""
    from pytest_whetstone.locate.native_tests import locate_native_failures
    from pytest_whetstone.records import TestFailureRecord

    (tree / "src/calc.h").write_text("int add(int a, int b);\nint twice(int a);\n")
    (tree / "tests").mkdir()
    (tree / "tests/helpers.h").write_text('#include "../src/calc.h"\nstatic int check_twice(int a) { return twice(a); }\n')
    (tree / "tests/fixtures.h").write_text("static int unused_fixture(void) { return 0; }\n")
    (tree / "tests/calc_test.cc").write_text('#include <gtest/gtest.h>\n#include "helpers.h"\n#include "fixtures.h"\n'
                                             "TEST(Calc, Twice) {\n  EXPECT_EQ(check_twice(2), 4);\n}\n")

    def locate() -> list[tuple[str, str]]:
        failure = TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Calc", test_name="Twice",
                                    file_path="tests/calc_test.cc", line=5)
        locate_native_failures([failure], tree, store=tree / ".whetstone")
        return [(s.file_path, s.qualname) for s in failure.suspects]

    first = locate()
    assert first[0] == ("src/calc.cc", "twice")
    parsed: list[str] = []
    real = cfamily.parse_file
    monkeypatch.setattr(cfamily, "parse_file", lambda path: parsed.append(Path(path).name) or real(path))
    cfamily._CACHE.clear()  # a new process: nothing parsed yet
    assert locate() == first
    assert set(parsed) == {"calc_test.cc"}
    # a changed file is read again, bodies and all
    calc = tree / "src/calc.cc"
    calc.write_text(calc.read_text().replace("return add(a, a);", "return add(a, a) + 0;"))
    parsed.clear()
    assert locate() == first
    assert "calc.cc" in parsed and "helpers.h" not in parsed
