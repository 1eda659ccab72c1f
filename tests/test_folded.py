"""FoldedPattern answers exactly what the same pattern under re.IGNORECASE answers."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_whetstone import classify
from pytest_whetstone.classify.prefilter import (
    FoldedPattern,
    lower_literals,
    lowered_for_search,
    required_literals,
)

PATTERNS = classify.built_in_patterns()

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


def test_required_literals() -> None:
    def needles(pattern: str) -> set[str]:
        return set(required_literals(pattern) or ())

    assert needles(r"\btimed? ?out\b|\bTimeout\b|took too long") == {"time", "Timeout", "took too long"}
    assert needles(r"(?:expected|output) file .*not|ENOENT") == {"ENOENT", "output", "expected"}
    assert needles(r"ab+c|x\*\*y|(?P<n>foo)") == {"ab", "foo", "x**y"}
    assert needles(r"could not find|could not find a package") == {"could not find"}
    assert needles(r"x|[ab]c") == {"x", "a", "b"}
    assert needles(r"(?x) a b  c  # comment") == {"abc"}  # read as re reads it
    for hopeless in (r"\w+Error", r"(?=x)y", r"(?:a|b)?c", r"a?b", r"x|[a-z]c", r"(a)*", "(unbalanced"):
        assert required_literals(hopeless) is None, hopeless


# Texts that hold the patterns' own words (and near misses) far more often than chance would.
PATTERN_WORDS = sorted({n for p in PATTERNS if p.needles for n in p.needles} | {"expected output", "timed out"})


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(PATTERN_WORDS), st.sampled_from(WORDS), st.text(max_size=6)), max_size=10))
def test_needles_never_rule_out_a_match(parts: list[str]) -> None:
    text = " ".join(parts)
    for pattern in PATTERNS:
        assert pattern.found(text) is (pattern.folded.search(text) is not None), (pattern.pattern[:40], text)
        assert pattern.found(text.upper()) is (pattern.folded.search(text.upper()) is not None)


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


def test_the_stored_needles_are_those_of_the_built_in_patterns_as_written_now() -> None:
    """:mod:`.needles` saves every classifying process the parse of the classifier's long alternations;
    it must say what the parse says, for every built-in pattern.  After a pattern changes, run
    ``python -m pytest_whetstone.classify.needles_write``."""
    from pytest_whetstone.classify.needles import KNOWN_NEEDLES
    from pytest_whetstone.classify.needles_write import needles_table

    assert needles_table() == Path(needles_table.__code__.co_filename).with_name("needles.py").read_text()
    assert len(KNOWN_NEEDLES) >= 12
    for (source, flags), needles in KNOWN_NEEDLES.items():
        assert required_literals(source, flags) == needles
