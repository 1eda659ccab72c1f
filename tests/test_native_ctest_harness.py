"""A project's own test harness, not GoogleTest, that ctest runs once per test file: the search runs each
test as ctest does, and finds a fault in a function template.

Real g++, CMake, ctest and ccwrap as the compiler launcher, as double-conversion's tests are laid out:
one ``harness`` executable of two test files, and two ctest tests, ``harness test-digits`` and
``harness test-words``, each selecting one file's tests by its name.  The seeded fault flips a
comparison in ``read_digits<Base, It>``, a function template whose failed ``assert`` aborts the
harness in test-digits.  What has to hold:

* the failure's own source is test-digits.cc, the file ctest's argument names, not the harness's main;
* the failed assert is where the failure is: the template is the first suspect before any search;
* each trial, screened run and spectrum run starts ``harness test-digits`` in ctest's directory (the
  harness run bare would run test-words too), and the restoring edit is found and validated.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from test_native_tests_e2e import _env
from test_native_tests_e2e import whetstone as _whetstone

from pytest_whetstone.candidates.native_trial_cxx import cxx_trial
from pytest_whetstone.records import TestFailureRecord
from pytest_whetstone.store.sessions import load_session

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap") and shutil.which("g++") and shutil.which("cmake") and shutil.which("ctest")),
    reason="ccwrap, g++, cmake or ctest missing",
)

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(digits CXX)
set(CMAKE_CXX_STANDARD 17)
enable_testing()
add_library(digits STATIC src/digits.cc)
target_include_directories(digits PUBLIC src)
add_executable(harness tests/harness.cc tests/test-digits.cc tests/test-words.cc)
target_link_libraries(harness digits)
add_test(NAME test_digits WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} COMMAND harness test-digits)
add_test(NAME test_words WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} COMMAND harness test-words)
"""
DIGITS_H = """\
#pragma once
long to_long(const char* text, int length);
int count_words(const char* text);
"""
DIGITS_CC = """\
#include <cassert>
#include "digits.h"

namespace {

template <int Base, class It>
long read_digits(It* current, It end) {
  long value = 0;
  while (*current != end && **current >= '0' && **current < '0' + Base) {
    value = value * Base + (**current - '0');
    ++*current;
  }
  assert(*current == end);  // seeded fault: != for ==
  return value;
}

}  // namespace

long to_long(const char* text, int length) {
  return read_digits<10>(&text, text + length);
}

int count_words(const char* text) {
  int words = 0;
  bool inside = false;
  for (; *text; ++text) {
    bool letter = *text != ' ';
    if (letter && !inside) ++words;
    inside = letter;
  }
  return words;
}
"""
HARNESS_CC = """\
#include <cstdio>
#include <cstring>
#include "harness.h"

static Test* tests[64];
static int count = 0;

Test::Test(const char* file, void (*body)()) : file(file), body(body) { tests[count++] = this; }

int main(int argc, char** argv) {
  int ran = 0;
  for (int i = 0; i < count; i++) {
    if (argc == 1 || std::strcmp(tests[i]->file, argv[1]) == 0) {
      tests[i]->body();
      ran++;
    }
  }
  std::printf("Ran %d tests.\\n", ran);
  return 0;
}
"""
HARNESS_H = """\
#pragma once
#include <cstdio>
#include <cstdlib>
struct Test {
  Test(const char* file, void (*body)());
  const char* file;
  void (*body)();
};
#define CHECK_EQ(a, b) do { if ((a) != (b)) { std::printf("%s:%d: CHECK_EQ(%s, %s) failed\\n", __FILE__, __LINE__, #a, #b); std::abort(); } } while (0)
"""
TEST_DIGITS = """\
#include "harness.h"
#include "digits.h"

static void small() { CHECK_EQ(to_long("42", 2), 42L); }
static void prefix() { CHECK_EQ(to_long("4213", 2), 42L); }
static Test t1("test-digits", small);
static Test t2("test-digits", prefix);
"""
TEST_WORDS = """\
#include "harness.h"
#include "digits.h"

static void two() { CHECK_EQ(count_words("ab cd"), 2); }
static void none() { CHECK_EQ(count_words("   "), 0); }
static Test t1("test-words", two);
static Test t2("test-words", none);
"""
FAULTY = DIGITS_CC.replace("assert(*current == end);  // seeded fault: != for ==", "assert(*current != end);  // seeded fault: != for ==")


@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    proj = tmp_path / "digits"
    for rel, text in {"CMakeLists.txt": CMAKELISTS, "src/digits.h": DIGITS_H, "src/digits.cc": FAULTY,
                      "tests/harness.cc": HARNESS_CC, "tests/harness.h": HARNESS_H,
                      "tests/test-digits.cc": TEST_DIGITS, "tests/test-words.cc": TEST_WORDS}.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    env = _env(proj / ".whetstone")
    configure = subprocess.run(["cmake", "-S", str(proj), "-B", str(proj / "build"), "-DCMAKE_CXX_COMPILER_LAUNCHER=ccwrap"],
                               env=env, capture_output=True, text=True)
    assert configure.returncode == 0, configure.stderr
    built = subprocess.run(["cmake", "--build", str(proj / "build")], env=env, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    return proj


def _report(proj: Path, verdict: dict) -> dict:
    return json.loads((proj / ".whetstone" / "reports" / Path(verdict["report"]).name).read_text())


def test_the_failure_is_the_file_ctest_names_and_the_failed_assert_its_first_suspect(proj: Path) -> None:
    verdict, out = _whetstone(["run", "--", "ctest", "--test-dir", "build", "--output-on-failure"], proj,
                              proj / ".whetstone")
    state = load_session(proj / ".whetstone", _report(proj, verdict)["session_id"]).state()
    [failure] = state.test_failures
    assert failure.test_name == "test_digits" and failure.file_path == "tests/test-digits.cc", out
    top = failure.suspects[0]
    assert (top.file_path, top.qualname.rsplit("::", 1)[-1]) == ("src/digits.cc", "read_digits"), failure.suspects


def test_each_run_is_ctests_command_for_the_test(proj: Path) -> None:
    failure = TestFailureRecord(failure_id="F1", runner="ctest", test_name="test_digits", file_path="tests/test-digits.cc")
    trial, why = cxx_trial([failure], proj, proj / ".whetstone")
    assert trial is not None, why
    try:
        [binary] = trial.binaries
        assert not binary.gtest and binary.per_test and set(binary.ctest) == {"test_digits", "test_words"}
        assert binary.ctest["test_digits"].args == ("test-digits",)
        base = trial.baseline()
        assert set(base.failing) == {"F1"}
        fixed = trial.run_failing("src/digits.cc", DIGITS_CC)
        assert fixed.passed == {"F1"}, fixed
        wider = trial.run_wider("src/digits.cc", DIGITS_CC)
        assert wider.ok, wider
        broken = trial.run_wider("src/digits.cc", DIGITS_CC.replace("*text != ' '", "*text == ' '"))
        assert not broken.ok and broken.failed == ["test_words"], broken
    finally:
        trial.close()


def test_the_search_restores_the_template_through_ctests_commands(proj: Path) -> None:
    verdict, out = _whetstone(["run", "--search", "--", "ctest", "--test-dir", "build", "--output-on-failure"], proj,
                              proj / ".whetstone")
    report = _report(proj, verdict)
    found = [c for c in load_session(proj / ".whetstone", report["session_id"]).state().current_candidates()
             if c.validated and c.source == "search"]
    assert ("src/digits.cc", 13, "==") in {(c.edits[0].file_path, c.edits[0].start.line, c.edits[0].new_text)
                                            for c in found}, out
    assert (proj / "src/digits.cc").read_text() == FAULTY


def test_a_runs_time_limit_is_shared_by_its_ctest_commands(proj: Path) -> None:
    """A run of a binary's ctest tests stops when its limit is spent, however many commands it holds: each
    command given the whole limit again let one unmutated schema run of three ctest tests take three limits."""
    import dataclasses
    import time

    from pytest_whetstone.locate.ctest_sources import CtestCommand

    failure = TestFailureRecord(failure_id="F1", runner="ctest", test_name="test_digits", file_path="tests/test-digits.cc")
    trial, why = cxx_trial([failure], proj, proj / ".whetstone")
    assert trial is not None, why
    try:
        [binary] = trial.binaries
        nap = CtestCommand("/bin/sh", ("-c", "sleep 0.6"), str(proj / "build"), str(proj / "build"))
        sleepy = dataclasses.replace(binary, ctest={"first": nap, "second": nap, "third": nap})
        started = time.monotonic()
        code, _output, results = trial._execute(sleepy, "/bin/sh", None, None, 1.0)
        spent = time.monotonic() - started
        assert code is None and list(results) == ["first"], results  # timed out in the second command
        assert spent < 1.5, spent  # one limit, not one per command (1.8 s)
    finally:
        trial.close()
