"""End to end with real tools: a CMake + gtest project built through ccwrap, run by ctest.

Each project is a copy of tests/fixtures/native_projects/<name> with seeded faults;
``whetstone run -- <test command>`` (as a subprocess) must name ``test-failure`` with
``first_error`` at the faulty function, record a test attempt with a
``test_failure_count`` gap, and rank a candidate that fixes the fault.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_whetstone.edits import apply_candidate_by_id
from pytest_whetstone.store.sessions import load_session

FIXTURES = Path(__file__).parent / "fixtures" / "native_projects"
BEGIN = "===WHETSTONE-RESULT==="


def _env(store: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_")}
    env["WHETSTONE_DIR"] = str(store)
    env.update(extra)
    return env


def whetstone_run(cmd: list[str], cwd: Path, store: Path, timeout: float = 120) -> tuple[dict[str, Any], str]:
    return whetstone(["run", "--", *cmd], cwd, store, timeout)


def whetstone(args: list[str], cwd: Path, store: Path, timeout: float = 300,
              extra_env: dict[str, str] | None = None) -> tuple[dict[str, Any], str]:
    """A whetstone command in a subprocess: (the last verdict block it printed, all it printed)."""
    proc = subprocess.run([sys.executable, "-m", "pytest_whetstone", *args], cwd=cwd,
                          env=_env(store, **(extra_env or {})),
                          capture_output=True, text=True, timeout=timeout)
    lines = proc.stdout.splitlines()
    assert BEGIN in lines, proc.stdout[-2000:] + proc.stderr[-2000:]
    verdict = json.loads(lines[len(lines) - 1 - lines[::-1].index(BEGIN) + 1])
    return verdict, proc.stdout + proc.stderr


def _session(store: Path, verdict: dict[str, Any]) -> Any:
    report = json.loads((store / "reports" / Path(verdict["report"]).name).read_text())  # names its session
    return load_session(store, report["session_id"])


def _test_attempt(state: Any) -> Any:
    attempts = [a for a in state.attempts if a.action == "test"]
    assert attempts, "no test attempt recorded"
    return attempts[-1]


# --------------------------------------------------------------------------- gtest + ctest


def build_gtest_calc(where: Path, *flags: str) -> Path:
    """A copy of the gtest_calc fixture configured (extra CMake ``flags``) and built through ccwrap."""
    if not (shutil.which("cmake") and shutil.which("ctest")):
        pytest.skip("cmake/ctest not installed")
    proj = where / "calc"
    shutil.copytree(FIXTURES / "gtest_calc", proj)
    env = _env(proj / ".whetstone")
    if shutil.which("ccwrap") and shutil.which("ccwrap++"):
        env.update(CC="ccwrap", CXX="ccwrap++")  # the build goes through the shim, as users run it
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    return cmake_build(proj, env, *gen, *flags)


def cmake_build(proj: Path, env: dict[str, str], *flags: str) -> Path:
    """``proj`` configured into ``proj/build`` (extra CMake ``flags``) and built; skips when CMake finds no
    GoogleTest."""
    configure = subprocess.run(["cmake", "-S", str(proj), "-B", str(proj / "build"), *flags],
                               env=env, capture_output=True, text=True)
    if configure.returncode != 0 and "GTest" in configure.stderr:
        pytest.skip("GoogleTest (libgtest-dev) not found by CMake")
    assert configure.returncode == 0, configure.stderr
    build = subprocess.run(["cmake", "--build", str(proj / "build")], env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    return proj


@pytest.fixture(scope="module")
def gtest_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_gtest_calc(tmp_path_factory.mktemp("gtest"))


def test_ctest_verdict_points_at_the_faulty_function(gtest_project: Path) -> None:
    store = gtest_project / ".whetstone"
    verdict, out = whetstone_run(["ctest", "--output-on-failure"], gtest_project / "build", store)
    assert verdict["failure"] == "test-failure", out
    assert verdict["status"] == "fail"
    # ctest runs SumRangeTest first: its faulty function is calc::sum_range (stats.cc line 5)
    assert verdict["first_error"] == "src/stats.cc:5", out
    state = _session(store, verdict).state()
    attempt = _test_attempt(state)
    assert attempt.gap_after.metric_type == "test_failure_count"
    assert attempt.gap_after.current == 2
    by_test = {f.test_name: f for f in state.test_failures}
    assert by_test["IncludesUpperBound"].suspects[0].qualname == "calc::sum_range"
    assert by_test["IncludesUpperBound"].ast_node_id == "src/stats.cc::calc::sum_range"
    assert by_test["DefaultPort"].suspects[0].qualname == "calc::default_port"


def test_ctest_candidates_fix_the_faults_and_the_gap_closes(gtest_project: Path) -> None:
    store = gtest_project / ".whetstone"
    verdict, _ = whetstone_run(["ctest", "--output-on-failure"], gtest_project / "build", store)
    session = _session(store, verdict)
    cands = session.state().current_candidates()
    edits = [c for c in cands if c.edits]
    # the literal 8008 -> 8080 and the loop bound < -> <= are both offered as edits
    texts = {(c.edits[0].file_path, c.edits[0].new_text) for c in edits}
    assert ("src/text.cc", "8080") in texts and ("src/stats.cc", "<=") in texts
    for cand in edits:
        apply_candidate_by_id(store, session.session_id, cand.candidate_id)
    build = subprocess.run(["cmake", "--build", str(gtest_project / "build")], env=_env(store),
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stdout
    again, out = whetstone_run(["ctest", "--output-on-failure"], gtest_project / "build", store)
    assert again["status"] == "pass", out
    attempt = _test_attempt(_session(store, again).state())
    assert attempt.gap_after.current == 0
