"""Fuzz: the test-runner parsers never raise and are deterministic, on any input."""

from __future__ import annotations

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
