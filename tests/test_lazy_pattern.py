"""Patterns compiled on first use (lazy_pattern), compiled ahead by the prefetch's last step, and that
step stopped between two patterns when the command ends."""

from __future__ import annotations

import re
import sys
import threading
import time
import types

import pytest

from pytest_whetstone import lazy_pattern as lp
from pytest_whetstone.prefetch import Prefetch


def _compiled(pattern: object) -> bool:
    try:
        object.__getattribute__(pattern, "match")
    except AttributeError:
        return False
    return True


def test_a_lazy_pattern_answers_as_the_compiled_one_and_compiles_once_used() -> None:
    lazy = lp.lazy_pattern(r"(?P<file>[^:]+):(?P<line>\d+): (?P<sev>error|warning): (?P<msg>.*)", re.I)
    plain = re.compile(lazy.pattern, re.I)
    assert not _compiled(lazy)
    line = "src/a.c:12: ERROR: expected ';'"
    match = lazy.match(line)
    assert _compiled(lazy)
    assert match is not None and match.groupdict() == plain.match(line).groupdict()  # type: ignore[union-attr]
    assert lazy.search("x " + line) is not None and lazy.fullmatch(line) is not None
    assert [m.group("line") for m in lazy.finditer(line + "\n" + line)] == ["12", "12"]
    assert lazy.sub("-", line) == plain.sub("-", line) and lazy.split("a:1: error: b") == plain.split("a:1: error: b")
    assert lazy.groupindex == plain.groupindex and lazy.groups == plain.groups and lazy.flags == plain.flags


def test_every_parser_pattern_compiles_and_the_pending_ones_compile_ahead() -> None:
    import pytest_whetstone.parse as parse

    parse.load_parsers()
    pending = list(lp._PENDING)
    assert pending, "the parsers' patterns are lazy"
    for _ in lp.compile_pending():
        pass
    assert not lp._PENDING
    assert all(_compiled(p) for p in pending)


def test_the_prefetch_stops_a_step_in_pieces_between_two_of_them() -> None:
    pieces: list[int] = []
    release = threading.Event()

    def slow_pieces():  # type: ignore[no-untyped-def]
        for n in range(1000):
            pieces.append(n)
            if n == 2:
                release.set()
            time.sleep(0.005)
            yield

    module = types.ModuleType("whetstone_test_pieces")
    module.run = slow_pieces  # type: ignore[attr-defined]
    sys.modules["whetstone_test_pieces"] = module
    try:
        prefetch = Prefetch(("whetstone_test_pieces:run",)).start()
        assert release.wait(10)
        prefetch.stop()
        done = len(pieces)
        time.sleep(0.05)
        assert len(pieces) == done < 1000  # stopped at the next piece, and stays stopped
    finally:
        del sys.modules["whetstone_test_pieces"]


@pytest.mark.parametrize("text", ["", "no diagnostics here", "a.c:1:2: warning: x [-Wunused]"])
def test_a_log_parses_the_same_whether_its_patterns_were_compiled_ahead_or_not(text: str) -> None:
    from pytest_whetstone.parse import parse_text

    first = parse_text(text, "auto")
    for _ in lp.compile_pending():
        pass
    second = parse_text(text, "auto")
    assert [r.to_dict() for r in first.build_errors] == [r.to_dict() for r in second.build_errors]
