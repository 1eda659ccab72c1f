"""Fuzz: the test-runner parsers never raise and are deterministic, on any input."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_whetstone.parse import parse_text

FIXTURES = Path(__file__).parent / "fixtures" / "tests"
TOOLS = ["auto", "gtest", "pytest", "jest", "tap", "junit", "ctest"]
# Real lines from every format, so the fuzzer reaches deep parser states, not only "no match".
SEED_LINES = sorted(
    {line for p in FIXTURES.glob("*/*") if p.suffix in (".log", ".xml", ".json")
     for line in p.read_text(errors="replace").splitlines()[:80]}
)
lines = st.lists(st.one_of(st.sampled_from(SEED_LINES), st.text(max_size=80)), max_size=40)


def _dump(result):  # type: ignore[no-untyped-def]
    return [r.to_json() for r in result.test_failures], result.pass_count, result.fail_count, result.skip_count


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(SEED_LINES), max_size=60), st.sampled_from(TOOLS))
def test_shuffled_real_lines_never_raise_and_are_deterministic(chosen: list[str], tool: str) -> None:
    text = "\n".join(chosen)
    assert _dump(parse_text(text, tool)) == _dump(parse_text(text, tool))


@settings(max_examples=150, deadline=None)
@given(lines, st.sampled_from(TOOLS))
def test_mixed_text_never_raises(chosen: list[str], tool: str) -> None:
    result = parse_text("\n".join(chosen), tool)
    assert result.fail_count >= 0


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=2000), st.sampled_from(TOOLS))
def test_bytes_never_raise(data: bytes, tool: str) -> None:
    parse_text(data, tool)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(FIXTURES.glob("*/*.*[lgn]"))), st.integers(min_value=0, max_value=20000))
def test_any_truncation_of_a_real_log_never_raises(path: Path, cut: int) -> None:
    data = path.read_bytes()[:cut]
    assert _dump(parse_text(data)) == _dump(parse_text(data))


# Real captures split by stream (tests/fixtures/streams): read through two pipes, a log may hold the
# two streams' lines in any order that keeps each stream's own.
STREAMS = Path(__file__).parent / "fixtures" / "streams"
SPLIT = {p.stem: (p.read_text().splitlines(True), p.with_suffix(".stderr").read_text().splitlines(True))
         for p in sorted(STREAMS.glob("*.stdout"))}


def _reading(text: str) -> tuple[object, ...]:
    r = parse_text(text, "auto")
    return (r.reported_error_count, r.warning_count, r.fail_count, r.pass_count, r.skip_count,
            sorted((b.tool, b.severity, b.file_path, b.line) for b in r.build_errors),
            sorted((f.runner, f.test_suite, f.test_name) for f in r.test_failures))


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(sorted(SPLIT)), st.randoms(use_true_random=False))
def test_any_interleave_of_two_streams_reads_the_same(name: str, rng: random.Random) -> None:
    out, err = SPLIT[name]
    picks = [0] * len(out) + [1] * len(err)
    rng.shuffle(picks)
    queues = (iter(out), iter(err))
    text = "".join(next(queues[p]) for p in picks)
    assert _reading(text) == _reading("".join(out + err))
