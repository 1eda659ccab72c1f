"""What a C/C++ test calls through the helpers of its own test files.

Real suites rarely call the code under test from the ``TEST`` body alone: a fixture method, a
harness's ``Test()``, a static ``AssertParse(...)`` helper in the test file, or one in a shared test
utility file does the calling.  Those helpers are part of the test, not suspects, so the calls inside
their bodies count as calls the test makes (at the line of the test body's call, so an assertion's
helper still marks the failing line).  Breadth first through test files only, bounded; what the code
under test then calls is :mod:`.callgraph`'s job.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from .callgraph import Call, body_calls, names_definition
from .native_names import is_test_file


class _Helper(Protocol):
    file_path: str
    qualname: str
    short: str
    line_start: int
    line_end: int

MAX_HELPER_DEPTH = 3  # helper -> helper -> helper
MAX_HELPERS = 150  # helper bodies read per failing test (once more for each new line it stands for)
MAX_HELPER_CALLS = 4000  # one per call and line it stands for


def calls_through_helpers(root: Path, test_rel: str, calls: list[Call], functions: Iterable[_Helper],
                          calls_of: Callable[[_Helper], list[Call]] | None = None) -> list[Call]:
    """The calls that test-file helpers reached from ``calls`` make, one entry per line they stand for:
    the line of the test body's call that led there and, inside the test's own file, the line of each
    call on the way (so a failing assertion inside a helper still marks the calls it made).
    ``calls_of(helper)`` reads a body's calls (default :func:`.callgraph.body_calls`)."""
    helpers: dict[str, list[_Helper]] = {}
    for f in functions:
        if is_test_file(f.file_path):
            helpers.setdefault(f.short, []).append(f)
    if not helpers:
        return []
    expanded: dict[tuple[str, int], frozenset[int]] = {}  # helper -> the lines it was read for so far
    out: dict[Call, None] = {}
    frontier = [(short, text, frozenset([line])) for short, text, line in calls]
    read = 0
    for _depth in range(MAX_HELPER_DEPTH):
        following: list[tuple[str, str, frozenset[int]]] = []
        for short, text, wanted in frontier:
            for helper in helpers.get(short, []):
                key = (helper.file_path, helper.line_start)
                lines = wanted - expanded.get(key, frozenset())
                if not names_definition(helper.qualname, text) or not lines:
                    continue
                if read >= MAX_HELPERS:
                    return list(out)
                expanded[key] = expanded.get(key, frozenset()) | lines
                read += 1
                own_file = helper.file_path == test_rel
                inner = calls_of(helper) if calls_of is not None else body_calls(root, helper, "c")
                for inner_short, inner_text, line in inner:
                    stands_for = lines | {line} if own_file else lines
                    if inner_short in helpers:
                        following.append((inner_short, inner_text, stands_for))
                    for at in sorted(stands_for):  # the code under test may share a helper's name
                        out[(inner_short, inner_text, at)] = None
                    if len(out) >= MAX_HELPER_CALLS:
                        return list(out)
        frontier = following
    return list(out)
