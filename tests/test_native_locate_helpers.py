"""Locating a C++ test failure whose test lives in a namespace and calls the code through helpers.

Real suites wrap their tests in the library's namespace and drive the code through fixture methods
and harness helpers; the failing assertion often sits inside such a helper.  The suspects must then
be the functions those helpers call (most of all on the failing line), not names that merely look
like the test's.  Real g++ and GoogleTest; the failure is read from the binary's own output.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.locate.native_helpers import calls_through_helpers
from pytest_whetstone.locate.native_tests import (
    Workspace,
    _gtest_site,
    functions_of_file,
    locate_native_failures,
)
from pytest_whetstone.parse import parse_text

SHELF_H = """\
#pragma once
#include <string>
#include <vector>
namespace lib {
class Shelf {
 public:
  void Add(const std::string& title);
  int Count() const;
  std::string Oldest() const;
  std::string Newest() const;
 private:
  std::vector<std::string> titles_;
};
}  // namespace lib
"""
SHELF_CC = """\
#include "shelf.h"
namespace lib {
void Shelf::Add(const std::string& title) { titles_.push_back(title); }
int Shelf::Count() const { return static_cast<int>(titles_.size()); }
std::string Shelf::Oldest() const { return titles_.empty() ? "" : titles_.back(); }  // fault: front()
std::string Shelf::Newest() const { return titles_.empty() ? "" : titles_.back(); }
}  // namespace lib
"""
SHELF_TEST = """\
#include <gtest/gtest.h>
#include "shelf.h"
namespace lib {

class ShelfHarness : public ::testing::Test {
 protected:
  void Fill(int n) {
    for (int i = 0; i < n; ++i) shelf_.Add("t" + std::to_string(i));
  }
  void Check(int n) {
    ASSERT_EQ(shelf_.Count(), n);
    ASSERT_EQ(Describe(), "t0");
  }
  std::string Describe() const { return shelf_.Oldest(); }
  Shelf shelf_;
};

TEST_F(ShelfHarness, KeepsOrder) {
  Fill(3);
  Check(3);
}

}  // namespace lib
"""

pytestmark = pytest.mark.skipif(not shutil.which("g++"), reason="g++ missing")


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("shelf")
    for rel, text in {"src/shelf.h": SHELF_H, "src/shelf.cc": SHELF_CC, "tests/shelf_test.cc": SHELF_TEST}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    build = subprocess.run(["g++", "-std=c++17", "-Isrc", "tests/shelf_test.cc", "src/shelf.cc", "-lgtest",
                            "-lgtest_main", "-pthread", "-o", "shelf_test"], cwd=root, capture_output=True, text=True)
    if build.returncode != 0 and "gtest" in build.stderr:
        pytest.skip("GoogleTest (libgtest-dev) not installed")
    assert build.returncode == 0, build.stderr
    run = subprocess.run(["./shelf_test"], cwd=root, capture_output=True, text=True)
    assert run.returncode != 0
    return root, run.stdout


def test_a_test_inside_a_namespace_is_found_with_its_calls(shelf: tuple[Path, str]) -> None:
    root, _log = shelf
    site = _gtest_site(Workspace(root), "tests/shelf_test.cc", "ShelfHarness", "KeepsOrder", 0)
    assert site is not None and site.qualname == "ShelfHarness.KeepsOrder"
    assert {c[0] for c in site.calls} == {"Fill", "Check"}


def test_calls_through_helpers_stand_for_the_lines_that_led_there(shelf: tuple[Path, str]) -> None:
    root, _log = shelf
    site = _gtest_site(Workspace(root), "tests/shelf_test.cc", "ShelfHarness", "KeepsOrder", 0)
    assert site is not None
    calls = calls_through_helpers(root, site.file_path, site.calls, functions_of_file(root, "tests/shelf_test.cc"))
    oldest = {line for short, _text, line in calls if short == "Oldest"}
    assert 12 in oldest and 20 in oldest  # Describe() on the failing line 12, reached from Check(3) at line 20
    assert {"Add", "Count"} <= {short for short, _text, _line in calls}


def test_the_function_a_helper_calls_on_the_failing_line_leads(shelf: tuple[Path, str]) -> None:
    root, log = shelf
    failures = parse_text(log).test_failures
    assert [f.line for f in failures] == [12]  # gtest names the helper's line
    located = locate_native_failures(failures, root)
    assert located[0].suspects[0].qualname == "lib::Shelf::Oldest", located[0].suspects


def test_an_assertion_message_is_not_what_the_test_checks() -> None:
    """``ASSERT_TRUE(ok) << describe(x)``: describe only formats the message; ``EXPECT_EQ(f(1), 2)`` checks f."""
    from pytest_whetstone.locate import cfamily
    from pytest_whetstone.locate.callgraph import c_calls

    pf = cfamily.parse_source(b'void t() { ASSERT_TRUE(ok) << "got " << e.toString() << describe(x);\n'
                              b'  EXPECT_EQ(f(1), 2) << note();\n  int bits = mask << shift(); }', "cpp")
    assert [c[0] for c in c_calls(pf.tree.root_node)] == ["f", "shift"]
