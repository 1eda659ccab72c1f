"""Properties: parse_text never raises, is deterministic, and streams in bounded memory."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_whetstone.parse import parse_lines, parse_text

FIXTURES = Path(__file__).parent / "fixtures" / "build"
REAL_LINES = [
    line
    for log in sorted(FIXTURES.glob("*/*.log"))
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines()[:40]
]

# Lines that look like build output, shuffled and cut: the parsers' state machines get
# every order of every real line shape, plus random junk.
line_st = st.one_of(
    st.sampled_from(REAL_LINES),
    st.sampled_from(REAL_LINES).map(lambda s: s[: len(s) // 2]),
    st.text(max_size=200),
    st.sampled_from(["", " ", ">>> referenced by", "fix-it:\"", "In file included from x.h:1,", "      |", "^"]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line_st, max_size=40), st.sampled_from(["auto", "gcc", "clang", "cmake", "linker", "make"]))
def test_never_raises_and_is_deterministic(lines: list[str], tool: str) -> None:
    text = "\n".join(lines)
    first = parse_text(text, tool=tool, cwd="/w")
    second = parse_text(text, tool=tool, cwd="/w")
    assert [r.to_json() for r in first.build_errors] == [r.to_json() for r in second.build_errors]
    for rec in first.build_errors:
        assert rec.error_id and rec.severity in ("error", "warning", "note")


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=2000))
def test_binary_junk(data: bytes) -> None:
    parse_text(data)


def test_huge_lines_and_control_bytes() -> None:
    huge = "x.c:1:1: error: " + "a" * 2_000_000 + "\n" + ":" * 500_000 + "\n" + "\x1b[" * 100_000
    result = parse_text(huge)
    assert len(result.build_errors) == 1
    assert len(result.build_errors[0].message) < 10_000  # lines are cut before matching
    parse_text("\x00\x01\xff\ufffd" * 10_000)
    parse_text(b"\xff\xfe\x00" * 10_000)


def _log(total_bytes: int) -> Iterator[str]:
    """A build log of the given size: mostly compile commands and progress, a few errors."""
    unit = (FIXTURES / "make" / "compile_error.log").read_text().splitlines()
    filler = [f"cc -Wall -O2 -c src/module_{i}.c -o build/module_{i}.o" for i in range(50)]
    filler += [f"[ {i:2d}%] Building C object CMakeFiles/app.dir/m{i}.c.o" for i in range(50)]
    size = 0
    blocks = 0
    while size < total_bytes:
        lines = filler if blocks % 200 else filler + unit
        for line in lines:
            size += len(line) + 1
            yield line
        blocks += 1


def _peak(total: int) -> tuple[int, int]:
    tracemalloc.start()
    try:
        result = parse_lines(_log(total), classify=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, len(result.build_errors)


def test_streaming_memory_is_flat() -> None:
    small, n_small = _peak(500_000)
    big, n_big = _peak(8_000_000)
    assert n_big > n_small  # the big log really was parsed to the end
    # 16x the input, yet the peak grows only by the few records found (not by the log).
    assert big < small + 400_000, (small, big)
