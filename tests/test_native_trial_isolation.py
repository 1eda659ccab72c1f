"""Two trials of one search run the same tests at once: what one test run leaves must not fail another's.

Real GoogleTest binaries built through ccwrap (the Makefile project of ``test_native_search``), whose
failing test holds a file under a fixed name while it runs, the way a database or a lock file does:
under ``$TEST_TMPDIR`` / ``$TMPDIR`` (each trial gets a temporary directory of its own), or beside the
binary (a run there is seen to create files, and runs in that directory then take turns).
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from test_native_search import GEO_CC, build_make_geo

from pytest_whetstone.candidates.native_spectra_cxx import TEMP_VARS, binary_env
from pytest_whetstone.candidates.native_trial_cxx import CxxTrial, cxx_trial
from pytest_whetstone.records import Suspect, TestFailureRecord

pytestmark = pytest.mark.skipif(
    not (shutil.which("ccwrap++") and shutil.which("g++") and shutil.which("make")), reason="ccwrap, g++ or make missing"
)

# The failing test creates NAME exclusively, holds it a while and removes it: a second run holding the
# same name at the same time fails with "held by another run", whatever the code under test does.
HOLDING_TEST = """\
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>
#include <cstdlib>
#include <string>
#include "geo.h"

static std::string held_path() {{
  const char* dir = {where};
  return std::string(dir ? dir : ".") + "/geo.lock";
}}

TEST(Geo, Manhattan) {{ EXPECT_EQ(manhattan(0, 0, 3, 4), 7); }}
TEST(Geo, InsideExcludesFarEdge) {{
  std::string path = held_path();
  int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0600);
  ASSERT_GE(fd, 0) << "held by another run: " << path;
  usleep(600000);
  close(fd);
  unlink(path.c_str());
  EXPECT_FALSE(inside(1, 4, 4, 4));
}}
"""


def _project(root: Path, where: str) -> Path:
    return build_make_geo(root, geo_test=HOLDING_TEST.format(where=where))


def _two_trials(proj: Path) -> tuple[CxxTrial, CxxTrial, TestFailureRecord]:
    failure = TestFailureRecord(failure_id="F1", runner="gtest", test_suite="Geo", test_name="InsideExcludesFarEdge",
                                file_path="tests/geo_test.cc", failure_type="assertion",
                                suspects=[Suspect("src/geo.cc", "inside", 9, 11, 1.0)])
    first, why = cxx_trial([failure], proj, proj / ".whetstone", timeout_s=10.0)
    second, _ = cxx_trial([failure], proj, proj / ".whetstone", timeout_s=10.0)
    assert first is not None and second is not None, why
    second.share_with(first)
    return first, second, failure


def _fixed_on_both_at_once(first: CxxTrial, second: CxxTrial) -> list:
    fixed = GEO_CC.replace("y <= h", "y < h")
    first.run_failing("src/geo.cc", fixed)  # compiled and linked on both before the runs race
    second.run_failing("src/geo.cc", fixed)
    outcomes: list = [None, None]
    barrier = threading.Barrier(2)

    def run(index: int, trial: CxxTrial) -> None:
        barrier.wait()
        outcomes[index] = trial.run_failing("src/geo.cc", fixed)

    threads = [threading.Thread(target=run, args=(i, t)) for i, t in enumerate((first, second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.mark.parametrize("variable", ["TEST_TMPDIR", "TMPDIR"])
def test_each_trial_has_a_temporary_directory_of_its_own(tmp_path: Path, variable: str) -> None:
    proj = _project(tmp_path / "geo", f'std::getenv("{variable}")')
    first, second, failure = _two_trials(proj)
    try:
        assert failure.failure_id in first.baseline().failing
        outcomes = _fixed_on_both_at_once(first, second)
        assert all(o.passed == {failure.failure_id} and not o.error for o in outcomes), outcomes
        assert not first._written_dirs  # nothing written beside the binary: the runs did not take turns
    finally:
        first.close()
        second.close()
    assert not (proj / "geo.lock").exists()


def test_runs_that_write_beside_the_binary_take_turns(tmp_path: Path) -> None:
    proj = _project(tmp_path / "geo", "nullptr")  # ./geo.lock, in the binary's directory
    first, second, failure = _two_trials(proj)
    try:
        assert failure.failure_id in first.baseline().failing
        assert str(proj) in first._written_dirs and second._written_dirs is first._written_dirs
        outcomes = _fixed_on_both_at_once(first, second)
        assert all(o.passed == {failure.failure_id} and not o.error for o in outcomes), outcomes
    finally:
        first.close()
        second.close()


def test_the_test_environment_keeps_the_users_variables_and_drops_gtests(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GTEST_FILTER", "Other.*")
    monkeypatch.setenv("GTEST_OUTPUT", "xml:/elsewhere.xml")
    monkeypatch.setenv("TEST_TMPDIR", "/shared")
    monkeypatch.setenv("PROJECT_DATA", "/data")
    env = binary_env(tmp_path / "trial")
    assert "GTEST_FILTER" not in env and "GTEST_OUTPUT" not in env and env["PROJECT_DATA"] == "/data"
    assert {env[v] for v in TEMP_VARS} == {str(tmp_path / "trial" / "tmp")}
    assert (tmp_path / "trial" / "tmp").is_dir()
