"""Which test binaries run a C/C++ search's failing tests, and which others link the same code.

From the commands ccwrap recorded (:mod:`..build.compdb`): a failing test's source file leads to its
object and the link that made its binary (or, with only a compiler launcher, the link the build
wrote down); every other executable linked from a test source's object is a neighbour the wider
check runs too.  A binary without GoogleTest that ctest runs is run as ctest runs each of its tests
(its words and working directory, from ``ctest --show-only``): one of many test files of a
``cctest``-style harness alone, not the whole suite.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..build.compdb import Command, CompileDatabase
from ..build.linkinfo import link_for_object
from ..locate.ctest_sources import CtestCommand, ctest_commands
from ..locate.native_names import gtest_names, is_test_file
from ..locate.native_tests import Workspace
from ..records import TestFailureRecord

# other test binaries the wider check runs, at most: a fix is "validated" only against what ran, and a
# suite of one binary per test file (cJSON's 19, leveldb's 15) must fit whole
WIDER_BINARIES = 32


@dataclass
class Binary:
    """One test binary, its link command and the failures it reports."""

    path: str
    link: Command
    tests: dict[str, str] = field(default_factory=dict)  # failure id -> gtest name (Suite.Name) run by the trial
    gtest: bool = True
    failing: dict[str, str] = field(default_factory=dict)  # every failing test of the binary, focused or not
    # a binary without GoogleTest that ctest runs: each of its ctest tests' command (``cctest test-bignum``)
    ctest: dict[str, CtestCommand] = field(default_factory=dict)

    @property
    def per_test(self) -> bool:
        """Whether each failing test runs and is judged on its own: by gtest's filter, or by ctest's own
        command for it (every failure of the binary is one of its ctest tests)."""
        return self.gtest or bool(self.ctest) and set(self.failing.values()) <= self.ctest.keys()


def filter_name(failure: TestFailureRecord) -> str:
    """The failure as `--gtest_filter` names its test: ``Suite.Name``."""
    suite, name = gtest_names(failure.test_suite, failure.test_name)
    if not suite and "." in name:
        suite, name = gtest_names(*name.split(".", 1))
    return f"{suite}.{name}" if suite else name


def other_test_binaries(db: CompileDatabase, workspace: Path, known: set[str],
                        limit: int = WIDER_BINARIES) -> list[Binary]:
    """Other executables the build linked from a test source's object (``*_test.cc``, ``tests/...``)."""
    def is_test(command: Command) -> bool:
        return any(is_test_file(os.path.relpath(os.path.realpath(os.path.join(command.directory, src)), workspace))
                   for src in command.sources)

    test_objects = {
        os.path.realpath(os.path.join(c.directory, c.output)) for c in db.commands if c.output and not c.is_link and is_test(c)
    }
    out: list[Binary] = []
    for link in db.links():
        if not link.output or any(a in ("-shared", "-dynamiclib", "-r") for a in link.arguments):
            continue
        path = os.path.realpath(os.path.join(link.directory, link.output))
        if path in known or not os.access(path, os.X_OK):
            continue
        inputs = {os.path.realpath(os.path.join(link.directory, a)) for a in link.arguments[1:] if not a.startswith("-")}
        one_step = link.is_compile and is_test(link)
        if one_step or inputs & test_objects:
            known.add(path)
            out.append(Binary(path, link))
            if len(out) >= limit:
                return out
        test_objects -= inputs
    for command in db.commands:  # objects whose link ccwrap did not see (a compiler launcher): ask the build
        obj = os.path.realpath(os.path.join(command.directory, command.output or ""))
        if obj not in test_objects or len(out) >= limit:
            continue
        found = link_for_object(obj, command.directory)
        path = os.path.realpath(os.path.join(found.directory, found.output or "")) if found else ""
        if found is not None and path not in known and os.access(path, os.X_OK):
            known.add(path)
            out.append(Binary(path, found))
    return out


def binary_of(db: CompileDatabase, test_source: Path) -> Binary | None:
    for command in db.for_source(test_source)[:1]:
        if command.is_link and command.output:  # a one-step compile and link
            return Binary(os.path.realpath(os.path.join(command.directory, command.output)), command)
        if not command.output:
            continue
        obj = os.path.realpath(os.path.join(command.directory, command.output))
        # a compiler launcher (CMAKE_<LANG>_COMPILER_LAUNCHER) leaves the link unrecorded: ask the build
        link = db.link_of(obj) or link_for_object(obj, command.directory)
        if link is not None and link.output:
            path = os.path.realpath(os.path.join(link.directory, link.output))
            if os.path.exists(path):
                return Binary(path, link)
    return None


def links_gtest(link: Command) -> bool:
    return any("gtest" in Path(a).name or a in ("-lgtest", "-lgtest_main") for a in link.arguments[1:])


def test_binaries(db: CompileDatabase, workspace: Path, failures: list[TestFailureRecord]) -> tuple[list[Binary], list[str]]:
    """The binaries of these failures (each with the failures it reports), then the other test binaries
    (the wider check runs them too when they link the mutated code); and the failures no recorded link
    builds a binary of."""
    ws = Workspace(workspace)
    binaries: dict[str, Binary] = {}
    missing: list[str] = []
    for failure in failures:
        name = filter_name(failure)
        rel = ws.find(failure.file_path) if failure.file_path else None
        if rel is None and "." in name:
            rel = ws.gtest_file(*name.split(".", 1))
        binary = binary_of(db, workspace / rel) if rel else None
        if binary is None:
            missing.append(failure.test_name or name)
            continue
        binary = binaries.setdefault(binary.path, binary)
        binary.tests[failure.failure_id] = binary.failing[failure.failure_id] = name
    if binaries:
        for other in other_test_binaries(db, workspace, set(binaries)):
            binaries[other.path] = other
    for binary in binaries.values():
        binary.gtest = links_gtest(binary.link)
    if any(not b.gtest for b in binaries.values()):  # ctest may run it once per test, each with its own words
        commands = ctest_commands(db, workspace)
        for binary in binaries.values():
            if not binary.gtest:
                binary.ctest = {name: c for name, c in commands.items() if c.executable == binary.path}
    return list(binaries.values()), missing
