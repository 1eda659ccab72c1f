"""Names in native test code: test files by convention, tokens of test and function names, gtest names.

Shared by the locator (:mod:`.native_tests`) and the search's runners, with no dependency on either.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from . import cfamily, jsfamily

C_EXTS = cfamily.SOURCE_EXTS | {e.lower() for e in cfamily.CPP_EXTS}
_TEST_STEM = re.compile(
    r"^(?:(?:test|Test)[_-](?P<a>.+)|(?:test|Test)(?P<c>[A-Z].*)"
    r"|(?P<b>.+?)(?:[_.-](?:unit)?(?:test|Test)s?|[_.-]spec|(?<=[a-z0-9])Tests?))$"
)
_TEST_DIRS = {"test", "tests", "__tests__", "spec", "specs", "unittest", "unittests", "t"}
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOP = {"test", "tests", "should", "it", "the", "a", "an", "of", "to", "and", "with", "when", "is", "in", "on",
         "for", "returns", "return", "works", "does", "do", "can", "be", "by", "at", "from", "case", "suite",
         "spec", "fixture", "that", "correctly", "properly", "not", "no", "if", "get", "set"}


def _stem(word: str) -> str:
    for suffix in ("ing", "ers", "er", "es", "ed", "s", "e"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def name_tokens(text: str) -> set[str]:
    """camelCase / snake_case / PascalCase / "plain words" -> stemmed lowercase tokens."""
    return set(_tokens(text))


def frozen_name_tokens(text: str) -> frozenset[str]:
    """:func:`name_tokens`, shared and not to be changed: for the scores asked per function and failure."""
    return _tokens(text)


@lru_cache(maxsize=8192)
def owner_tokens(qualname: str) -> frozenset[str]:
    """The tokens of the class or namespace a qualified name sits in (``ns::Parser::f`` -> Parser's)."""
    owners = qualname.replace(".", "::").split("::")[:-1]
    return _tokens(owners[-1]) if owners else frozenset()


# The same few names are asked about for every failure a run reports (each function of the related
# files is scored against each failing test): these answers depend on the string alone.
@lru_cache(maxsize=8192)
def _tokens(text: str) -> frozenset[str]:
    out: set[str] = set()
    for word in _WORD.findall(text):
        low = word.lower()
        if low not in _STOP and not low.isdigit() and len(low) > 1:
            out.add(_stem(low))
    return frozenset(out)


@lru_cache(maxsize=8192)
def impl_stem(test_name: str) -> str | None:
    """``foo_test.cc`` / ``test_foo.cpp`` / ``foo.test.js`` / ``FooTest.cpp`` -> ``foo``; None if not a test name."""
    stem = Path(test_name).name
    suffix = Path(stem).suffix
    if suffix in C_EXTS or suffix.lower() in jsfamily.SOURCE_EXTS:
        stem = stem[: -len(suffix)]
    inner = Path(stem).suffix.lower()
    if inner in (".test", ".spec"):
        return stem[: -len(inner)] or None
    m = _TEST_STEM.match(stem)
    if not m:
        return None
    return m.group("a") or m.group("b") or m.group("c")


# Test-support files no naming convention ties to one implementation (leveldb's util/testutil.cc, a
# harness, shared helpers, mocks): code the tests run, never the code under test.
_TEST_SUPPORT = re.compile(
    r"^(?:test_?(?:utils?|utilities|harness|helpers?|support|common|main|fixtures?)|testing_?utils?"
    r"|mocks?|fakes?|gtest_main)$", re.I)


@lru_cache(maxsize=8192)
def is_test_file(rel: str) -> bool:
    parts = Path(rel).parts
    stem = parts[-1].split(".")[0] if parts else ""
    return (impl_stem(parts[-1]) is not None or bool(_TEST_SUPPORT.match(stem))
            or any(p.lower() in _TEST_DIRS for p in parts[:-1]))


def gtest_names(suite: str, test: str) -> tuple[str, str]:
    """``Inst/Suite`` ``Name/0`` (value-parameterized) or ``Suite/0`` (typed) -> (Suite, Name)."""
    parts = [p for p in suite.split("/") if p and not p.isdigit()]
    return (parts[-1] if parts else suite), test.split("/")[0]
