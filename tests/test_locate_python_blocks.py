"""Per-block parsing (locate/pysource.py) gives exactly the whole-file answers, only cheaper."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
from pathlib import Path

import pytest

from pytest_whetstone.locate import pysource
from pytest_whetstone.locate.python import function_index, statement_at


@pytest.mark.parametrize("module", [argparse, dataclasses, inspect, textwrap], ids=lambda m: m.__name__)
def test_blocks_agree_with_the_whole_file_on_real_modules(module: object) -> None:
    path = Path(module.__file__)  # type: ignore[attr-defined]
    whole = function_index(path)
    src = pysource.SourceFile(str(path), path.read_text(encoding="utf-8"))
    assert whole is not None and len(src.starts) > 5
    lines = range(1, len(src.lines) + 1)
    for line in lines:
        expected = whole.enclosing(line)
        assert src.enclosing(line) == expected, line
    assert src.functions_in_lines(lines) == whole.functions_in_lines(lines)
    assert not src._whole_done  # every answer so far came from single blocks
    for fn in whole.functions:
        found = src.node_of(fn.qualname)  # (a def nested in a top-level `if` needs the whole file)
        assert found is not None and found[0] == whole.by_qualname(fn.qualname)  # the first of duplicates


def test_statement_is_the_innermost_one(tmp_path: Path) -> None:
    f = tmp_path / "test_m.py"
    f.write_text("import x\n\n\nclass TestA:\n    def test_a(self):\n        if x:\n            assert x.f(\n                1) == 2\n")
    stmt = statement_at(str(f), 8)
    assert isinstance(stmt, ast.Assert) and stmt.lineno == 7
    assert isinstance(statement_at(str(f), 6), ast.If)
    assert statement_at(str(f), 2) is None


def test_a_split_inside_a_string_falls_back_to_the_whole_file(tmp_path: Path) -> None:
    code = textwrap.dedent(
        '''\
        DOC = """
        def not_a_function():
        class NotAClass:
        """


        @decorator(
            1,
        )
        def real(x):
            return x


        def other():
            return 2
        '''
    )
    f = tmp_path / "m.py"
    f.write_text(code)
    src = pysource.source_file(f)
    assert src is not None
    assert src.enclosing(11) is not None and src.enclosing(11).qualname == "real"  # type: ignore[union-attr]
    assert src.enclosing(3) is None  # inside the string: module level
    assert src.enclosing(15).qualname == "other"  # type: ignore[union-attr]
    node = src.function_node(7)  # the decorator line belongs to the function
    assert node is not None and node.name == "real"


def test_cache_follows_the_file_version(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("def a():\n    return 1\n")
    first = pysource.source_file(f)
    assert pysource.source_file(f) is first
    f.write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    second = pysource.source_file(f)
    assert second is not first and second is not None and second.enclosing(6).qualname == "b"  # type: ignore[union-attr]
    assert pysource.source_file(tmp_path / "missing.py") is None


def test_char_col_converts_utf8_byte_offsets() -> None:
    line = 'x = "naïve" + "日本"; y = 3\n'
    tree = ast.parse(line)
    const = tree.body[1].value  # type: ignore[attr-defined]
    col = pysource.char_col(line, const.col_offset)
    assert line[col] == "3"


def test_latin1_source_with_a_coding_cookie(tmp_path: Path) -> None:
    f = tmp_path / "old.py"
    f.write_bytes("# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n\n\ndef f():\n    return NAME\n".encode("latin-1"))
    src = pysource.source_file(f)
    assert src is not None and "café" in src.text and src.enclosing(6).qualname == "f"  # type: ignore[union-attr]
