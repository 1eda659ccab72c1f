"""FoldedPattern answers exactly what the same pattern under re.IGNORECASE answers."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_whetstone import classify
from pytest_whetstone.folded import FoldedPattern, lower_literals, lowered_for_search

PATTERNS = [p for _, p in classify._BUILD_PATTERNS] + [p for _, p in classify._TEST_PATTERNS] + [
    classify._LINT_MESSAGE, classify._ASSERTION, classify._EXCEPTION]

# Pieces of the patterns' own words in mixed case, the letters re.I folds oddly, and noise.
WORDS = ["Undefined Reference", "EXPECTED ‘;’ before", "No Such File", "Timed Out", "assert", "Traceback",
         "İ", "ı", "ſ", "K", "KILLED SIGNAL", "Stray '@' IN program", "é", "\n", " ", "'", "‘x’"]


def test_escapes_are_kept_as_written() -> None:
    assert lower_literals(r"\S+\W\D\B[A-Z]Foo") == r"\S+\W\D\B[a-z]foo"
    assert re.search(lower_literals(r"relocation \S+ against"), "relocation r_x86 against") is not None


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=8)), max_size=12))
def test_same_answer_as_re_ignorecase(parts: list[str]) -> None:
    text = "".join(parts)
    lowered = lowered_for_search(text)
    for pattern in PATTERNS:
        expected = pattern.folded.search(text) is not None
        assert pattern.found(text) is expected, (pattern.pattern[:40], text)
        assert pattern.found_in(text, lowered) is expected


def test_odd_folds_take_the_ignorecase_pattern() -> None:
    # re.I matches the Kelvin sign to "k" and the long s to "s"; str.lower() keeps ſ.
    pattern = FoldedPattern(r"killed signal")
    assert lowered_for_search("\u212aILLED ſIGNAL") is None
    assert pattern.found("\u212aILLED ſIGNAL")
    assert not pattern.found("KILLED SIGNAX")


def test_case_sensitive_patterns_keep_their_case() -> None:
    pattern = FoldedPattern(r"ERROR collecting", ignore_case=False)
    assert pattern.found("ERROR collecting x.py")
    assert not pattern.found("error collecting x.py")
