"""The verdict, end to end: everyday runs through real make, gcc, GoogleTest, cmake and pytest.

Each scenario checks status, failure, phase, first_error and retry of the block printed last, that it
is the only block Whetstone printed, and that ``whetstone report --format json`` and the agent report
(``.whetstone/reports/<target>.json``) agree with it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_whetstone.verdict import BEGIN, END, parse_last

WHETSTONE = [sys.executable, "-m", "pytest_whetstone"]
HAS_GTEST = Path("/usr/include/gtest/gtest.h").exists() and shutil.which("g++") is not None
needs_make = pytest.mark.skipif(shutil.which("make") is None or shutil.which("gcc") is None, reason="make + gcc")
needs_gtest = pytest.mark.skipif(not HAS_GTEST or shutil.which("make") is None, reason="GoogleTest + make")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_") and k not in ("AGENT", "AI_AGENT")}
    env.update(extra)
    return env


def whetstone(args: list[str], cwd: Path, timeout: float = 180, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WHETSTONE, *args], cwd=cwd, env=_env(**env), capture_output=True, text=True,
                          timeout=timeout)


def verdict_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The one block Whetstone printed, which must be the last lines of stdout."""
    lines = proc.stdout.rstrip("\n").splitlines()
    assert lines[-3:][0] == BEGIN and lines[-1] == END, proc.stdout[-3000:] + proc.stderr[-3000:]
    parsed = parse_last(proc.stdout)
    assert parsed is not None
    return parsed.to_dict()


def agrees_with_reports(ws: Path, verdict: dict[str, Any]) -> dict[str, Any]:
    """`whetstone report --format json` and the agent report say what the verdict said."""
    keys = ("status", "failure", "phase", "first_error", "retry")
    report = json.loads(whetstone(["report", "--format", "json"], ws).stdout)
    assert {k: report.get(k) for k in keys} == {k: verdict[k] for k in keys}, report
    agent = json.loads((ws / verdict["report"]).read_text())
    assert {k: agent[k] for k in keys} == {k: verdict[k] for k in keys}
    assert agent["target"] == verdict["target"] and Path(verdict["report"]).parent == Path(".whetstone/reports")
    return agent


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


# --------------------------------------------------------------------------- make test, make check

CALC_H = "#pragma once\nint add(int a, int b);\n"
CALC_CC = '#include "calc.h"\n\nint add(int a, int b) {\n    return a - b;\n}\n'
CALC_TEST = ('#include <gtest/gtest.h>\n#include "calc.h"\n\nTEST(Calc, Adds) {\n    EXPECT_EQ(add(2, 3), 5);\n}\n\n'
             'TEST(Calc, Zero) {\n    EXPECT_EQ(add(0, 0), 0);\n}\n')
GTEST_MAKEFILE = """CXX ?= g++
test: calc_test
\t./calc_test

calc_test: calc.cc calc_test.cc calc.h
\t$(CXX) -std=c++17 -o $@ calc.cc calc_test.cc -lgtest -lgtest_main -pthread
"""


def _gtest_project(ws: Path, makefile: str = GTEST_MAKEFILE) -> Path:
    (ws / "calc.h").write_text(CALC_H)
    (ws / "calc.cc").write_text(CALC_CC)
    (ws / "calc_test.cc").write_text(CALC_TEST)
    (ws / "Makefile").write_text(makefile)
    return ws


@needs_gtest
def test_make_test_running_gtest_is_a_test_failure_at_the_code(ws: Path) -> None:
    proc = whetstone(["run", "--", "make", "test"], _gtest_project(ws))
    assert proc.returncode == 2  # make's own status, untouched
    v = verdict_of(proc)
    assert (v["status"], v["failure"], v["phase"], v["retry"]) == ("fail", "test-failure", "tests", "fix-source")
    assert v["first_error"] and v["first_error"].startswith(("calc.cc", "calc_test.cc")), v
    assert proc.stdout.count(BEGIN) == 1
    agrees_with_reports(ws, v)


@needs_gtest
def test_make_check_of_nested_phases_names_the_failing_phase(ws: Path) -> None:
    run = f"{sys.executable} -m pytest_whetstone run"
    makefile = (
        "CXX ?= g++\ncheck:\n"
        f"\t{run} --phase build -- $(CXX) -std=c++17 -o calc_test calc.cc calc_test.cc -lgtest -lgtest_main -pthread\n"
        f"\t{run} --phase tests -- ./calc_test\n"
    )
    proc = whetstone(["run", "--", "make", "check"], _gtest_project(ws, makefile))
    v = verdict_of(proc)
    assert (v["failure"], v["phase"]) == ("test-failure", "tests"), v
    assert proc.stdout.count(BEGIN) == 1  # the nested runs report into this one and print none
    agent = agrees_with_reports(ws, v)
    assert [(p["name"], p["status"]) for p in agent["phases"]] == [("build", "pass"), ("tests", "fail")]
    assert all(isinstance(p["duration_ms"], int) for p in agent["phases"])


@needs_gtest
def test_phases_that_never_ran_are_skipped(ws: Path) -> None:
    run = f"{sys.executable} -m pytest_whetstone run"
    (ws / "whetstone.json5").write_text(
        '{phases: [{name: "build", command: "make build", kind: "build"},'
        ' {name: "tests", command: "make tests", kind: "test"}]}'
    )
    (ws / "broken.c").write_text("int main(void) { return missing_name; }\n")
    makefile = f"check:\n\t{run} --phase build -- gcc -c broken.c -o broken.o\n\t{run} --phase tests -- true\n"
    _gtest_project(ws, makefile)
    v = verdict_of(whetstone(["run", "--", "make", "check"], ws))
    assert (v["failure"], v["phase"], v["first_error"]) == ("compile-error", "build", "broken.c:1")
    agent = agrees_with_reports(ws, v)
    assert [(p["name"], p["status"]) for p in agent["phases"]] == [("build", "fail"), ("tests", "skipped")]


@needs_make
def test_make_recipe_running_pytest_is_a_test_failure(ws: Path) -> None:
    (ws / "mod.py").write_text("def double(x):\n    return x + x + 1\n")
    (ws / "test_mod.py").write_text("from mod import double\n\n\ndef test_double():\n    assert double(2) == 4\n")
    (ws / "Makefile").write_text(f"test:\n\t{sys.executable} -m pytest -q -p no:cacheprovider test_mod.py\n")
    proc = whetstone(["run", "--", "make", "test"], ws)
    v = verdict_of(proc)
    assert (v["failure"], v["phase"], v["retry"]) == ("test-failure", "tests", "fix-source"), v
    assert v["first_error"] and not v["first_error"].startswith("Makefile"), v
    agrees_with_reports(ws, v)


@needs_make
def test_compile_error_under_make_points_at_the_source_line(ws: Path) -> None:
    (ws / "main.c").write_text("int main(void) {\n    return nope;\n}\n")
    (ws / "Makefile").write_text("main: main.c\n\tgcc -c main.c -o main.o\n")
    v = verdict_of(whetstone(["run", "--", "make"], ws))
    assert (v["failure"], v["phase"], v["first_error"], v["retry"]) == ("compile-error", "build", "main.c:2",
                                                                         "fix-source")
    agrees_with_reports(ws, v)


@needs_make
def test_make_own_errors_are_setup_errors(ws: Path) -> None:
    (ws / "Makefile").write_text("all: missing_input.c\n\tgcc -c missing_input.c\n")
    v = verdict_of(whetstone(["run", "--", "make"], ws))
    assert (v["failure"], v["retry"]) == ("setup-error", "fix-env"), v
    (ws / "Makefile").write_text("all:\n\tno_such_program_xyz --flag\n")
    v = verdict_of(whetstone(["run", "--", "make"], ws))
    assert (v["failure"], v["retry"]) == ("setup-error", "fix-env"), v


def test_failure_without_evidence_says_so(ws: Path) -> None:
    proc = whetstone(["run", "--", "sh", "-c", "echo something went wrong; exit 3"], ws)
    assert proc.returncode == 3
    v = verdict_of(proc)
    assert (v["status"], v["failure"], v["retry"]) == ("fail", None, "escalate"), v
    agrees_with_reports(ws, v)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake")
def test_cmake_missing_package_is_a_setup_error_everywhere(ws: Path) -> None:
    (ws / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(p C)\nfind_package(ZzNoSuchPackage REQUIRED)\n"
    )
    v = verdict_of(whetstone(["run", "--", "cmake", "-S", ".", "-B", "build"], ws))
    assert (v["failure"], v["retry"]) == ("setup-error", "fix-env"), v
    assert v["counts"]["errors"] == 1, v
    agrees_with_reports(ws, v)
    # stdout ("Configuring incomplete") delivered whole before stderr (the error), as two pipes may
    # deliver them on a loaded machine: the same one error
    script = "cmake -S . -B build2 > out.txt 2> err.txt; s=$?; cat out.txt; cat err.txt >&2; exit $s"
    v = verdict_of(whetstone(["run", "--", "sh", "-c", script], ws))
    assert (v["failure"], v["retry"], v["counts"]["errors"]) == ("setup-error", "fix-env", 1), v


# --------------------------------------------------------------------------- pytest

def test_syntax_error_in_the_code_under_test_is_a_source_error(ws: Path) -> None:
    pkg = ws / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("def g(x):\n    return x\n\n\ndef f(x)\n    return x + 1\n")
    (ws / "test_mod.py").write_text("from pkg.mod import f\n\n\ndef test_f():\n    assert f(1) == 2\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "whetstone", "-q", "-p", "no:cacheprovider"],
                          cwd=ws, env=_env(), capture_output=True, text=True, timeout=120)
    v = verdict_of(proc)
    assert (v["failure"], v["first_error"], v["retry"]) == ("compile-error", "pkg/mod.py:5", "fix-source"), v
    agent = agrees_with_reports(ws, v)
    assert agent["candidates"], "a source error always gets a candidate"
    assert any(c["edits"] for c in agent["candidates"]), agent["candidates"]  # a repair that compiles


def test_missing_third_party_module_stays_a_setup_error(ws: Path) -> None:
    (ws / "test_mod.py").write_text("import zz_no_such_module\n\n\ndef test_f():\n    pass\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "whetstone", "-q", "-p", "no:cacheprovider"],
                          cwd=ws, env=_env(), capture_output=True, text=True, timeout=120)
    v = verdict_of(proc)
    assert (v["failure"], v["retry"]) == ("setup-error", "fix-env"), v


# --------------------------------------------------------------------------- signals and kills

def test_sigterm_stops_the_child_and_still_prints_the_verdict(ws: Path) -> None:
    marker = ws / "child.pid"
    script = f"import os, time; open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    proc = subprocess.Popen([*WHETSTONE, "run", "--", sys.executable, "-c", script], cwd=ws, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not marker.exists() or not marker.read_text():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    child = int(marker.read_text())
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    v = verdict_of(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    assert (v["status"], v["failure"], v["retry"]) == ("fail", "interrupted", "rerun"), v
    assert proc.returncode == 128 + signal.SIGTERM
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)


def test_a_sigterm_while_the_core_loads_still_ends_with_the_verdict(ws: Path) -> None:
    """The command starts before the core is imported; a SIGTERM that lands during that import (a loaded
    machine makes it long) is acted on once the run can judge it: the child is stopped and the verdict
    printed last, as for a SIGTERM later in the run (it used to end in a traceback)."""
    script = ("import os, signal, sys\n"
              "class Hook:\n"
              "    def find_spec(self, name, path, target=None):\n"
              "        if name == 'pytest_whetstone.core':\n"
              "            sys.meta_path.remove(self)\n"
              "            os.kill(os.getpid(), signal.SIGTERM)\n"
              "        return None\n"
              "sys.meta_path.insert(0, Hook())\n"
              "from pytest_whetstone.cli import main\n"
              "sys.argv = ['whetstone', 'run', '--', sys.executable, '-c', 'import time; time.sleep(60)']\n"
              "sys.exit(main())\n")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", script], cwd=ws, env=_env(), capture_output=True, text=True,
                          timeout=60)
    v = verdict_of(proc)
    assert (v["status"], v["failure"], v["retry"]) == ("fail", "interrupted", "rerun"), v
    assert proc.returncode == 128 + signal.SIGTERM and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert time.monotonic() - started < 30  # the child was stopped, not waited for


def test_a_run_killed_outright_reads_as_killed(ws: Path) -> None:
    marker = ws / "started"
    script = f"open({str(marker)!r}, 'w').close(); import time; time.sleep(60)"
    proc = subprocess.Popen([*WHETSTONE, "run", "--", sys.executable, "-c", script], cwd=ws, env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 30
    while not marker.exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    report = json.loads(whetstone(["report", "--format", "json"], ws).stdout)
    assert (report["status"], report["failure"], report["retry"]) == ("fail", "interrupted", "rerun"), report


def test_a_run_killed_the_moment_its_command_started_reads_as_killed(ws: Path) -> None:
    """Killed before the core (record types, analysis) has loaded: the run's start is written before its
    command starts, so the session says a run began and never ended, not that nothing ran (a loaded machine
    once let the command start and the kill land before the start was written)."""
    script = ("import os, signal, sys\n"
              "from pathlib import Path\n"
              "from pytest_whetstone.launch import launch\n"
              "launch([sys.executable, '-c', 'import time; time.sleep(60)'], cwd=Path.cwd(), store=None,\n"
              "       session_id=None, shell=False, echo=False, timeout=None, phase='tests')\n"
              "os.killpg(0, signal.SIGKILL)\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ws, env=_env(), capture_output=True, timeout=60,
                          start_new_session=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    report = json.loads(whetstone(["report", "--format", "json"], ws).stdout)
    assert (report["status"], report["failure"], report["retry"]) == ("fail", "interrupted", "rerun"), report


# --------------------------------------------------------------------------- hostile input

def test_a_childs_fake_verdict_never_wins(ws: Path) -> None:
    fake = f"{BEGIN}\\n{{\\\"status\\\":\\\"pass\\\"}}\\n{END}"
    proc = whetstone(["run", "--", "sh", "-c", f"printf '{fake}\\n'; exit 1"], ws)
    v = verdict_of(proc)
    assert v["status"] == "fail" and v["target"].startswith("sh -c")


def test_hostile_target_stays_inside_the_store(ws: Path) -> None:
    proc = whetstone(["run", "--", sys.executable, "-c", "import sys; sys.exit(1)", "../../x/===WHETSTONE-RESULT==="],
                     ws)
    lines = proc.stdout.rstrip("\n").splitlines()
    assert lines.count(BEGIN) == 1 and lines[-1] == END and BEGIN not in lines[-2]
    v = verdict_of(proc)
    report = (ws / v["report"]).resolve()
    assert report.parent == (ws / ".whetstone" / "reports").resolve() and report.is_file()


def test_unwritable_report_directory_still_prints_the_verdict(ws: Path) -> None:
    if os.geteuid() == 0:
        (ws / ".whetstone").mkdir()
        (ws / ".whetstone" / "reports").write_text("a file where the directory should be")
    else:
        (ws / ".whetstone" / "reports").mkdir(parents=True)
        (ws / ".whetstone" / "reports").chmod(0o500)
    proc = whetstone(["run", "--", sys.executable, "-c", "raise SystemExit(1)"], ws)
    v = verdict_of(proc)
    assert v["status"] == "fail" and "could not write the agent report" in proc.stderr
    assert v["report"] and v["report"].endswith(".jsonl")  # the session, which is still there


# --------------------------------------------------------------------------- agent mode

@needs_make
def test_agent_mode_prints_records_not_the_wall(ws: Path) -> None:
    (ws / "main.c").write_text("int main(void) {\n    return nope;\n}\n")
    (ws / "Makefile").write_text("main: main.c\n\tgcc -c main.c -o main.o\n")
    human = whetstone(["run", "--", "make"], ws)
    agent = whetstone(["run", "--", "make"], ws, AGENT="1")
    assert "return nope;" in human.stderr and "return nope;" not in agent.stdout + agent.stderr
    body = agent.stdout.split(BEGIN)[0].splitlines()
    assert any(line.startswith("error undefined_symbol main.c:2") for line in body), agent.stdout
    assert verdict_of(agent) == verdict_of(human) | {"report": verdict_of(agent)["report"]}
    flag = whetstone(["run", "--agent", "--", "make"], ws)
    assert flag.stdout.split(BEGIN)[0] == agent.stdout.split(BEGIN)[0]


def test_agent_mode_never_hides_an_unexplained_failure(ws: Path) -> None:
    proc = whetstone(["run", "--", "sh", "-c", "echo the disk is on fire; exit 4"], ws, AI_AGENT="some-agent")
    assert "the disk is on fire" in proc.stdout.split(BEGIN)[0]


def test_sigterm_to_pytest_still_prints_the_verdict(ws: Path) -> None:
    marker = ws / "started"
    (ws / "test_slow.py").write_text(
        f"import time\n\n\ndef test_slow():\n    open({str(marker)!r}, 'w').close()\n    time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "whetstone", "-q", "-p", "no:cacheprovider"],
                            cwd=ws, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    v = verdict_of(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    assert (v["status"], v["failure"], v["retry"]) == ("fail", "interrupted", "rerun"), v


def test_pytest_agent_mode_gives_one_line_per_failure(ws: Path) -> None:
    (ws / "mod.py").write_text("def double(x):\n    return x + x + 1\n")
    (ws / "test_mod.py").write_text("from mod import double\n\n\ndef test_double():\n    assert double(2) == 4\n")
    args = [sys.executable, "-m", "pytest", "-p", "whetstone", "-q", "-p", "no:cacheprovider"]
    human = subprocess.run(args, cwd=ws, env=_env(), capture_output=True, text=True, timeout=120)
    agent = subprocess.run([*args, "--whetstone-agent"], cwd=ws, env=_env(), capture_output=True, text=True,
                           timeout=120)
    assert "def test_double" in human.stdout and "def test_double" not in agent.stdout
    assert any(line.startswith("fail assertion test_mod.py::test_double") and "expected" in line
               for line in agent.stdout.splitlines()), agent.stdout
    assert verdict_of(agent)["failure"] == verdict_of(human)["failure"] == "test-failure"


# --------------------------------------------------------------------------- more everyday runs

@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake")
def test_cmake_missing_source_is_a_source_error_in_cmakelists(ws: Path) -> None:
    (ws / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(p C)\nadd_library(core core.c gone.c)\n"
    )
    (ws / "core.c").write_text("int core(void) { return 1; }\n")
    v = verdict_of(whetstone(["run", "--", "cmake", "-S", ".", "-B", "build"], ws))
    assert v["status"] == "fail" and v["failure"] in ("compile-error", "setup-error"), v
    assert v["first_error"] and v["first_error"].startswith("CMakeLists.txt"), v
    agrees_with_reports(ws, v)


def _pytest_project(ws: Path) -> None:
    (ws / "mod.py").write_text("def double(x):\n    return x + x + 1\n\n\ndef half(x):\n    return x / 2\n")
    (ws / "test_mod.py").write_text(
        "from mod import double, half\n\n\ndef test_double():\n    assert double(2) == 4\n\n\n"
        "def test_half():\n    assert half(4) == 2\n\n\ndef test_double_zero():\n    assert double(0) == 0\n"
    )


@pytest.mark.parametrize("extra", [["-x"], ["-n", "2"]], ids=["stop-at-first", "xdist"])
def test_pytest_variants_through_whetstone_run(ws: Path, extra: list[str]) -> None:
    _pytest_project(ws)
    proc = whetstone(["run", "--", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "whetstone",
                      *extra], ws)
    v = verdict_of(proc)
    assert proc.stdout.count(BEGIN) == 1
    assert (v["failure"], v["phase"], v["retry"]) == ("test-failure", "tests", "fix-source"), v
    assert v["first_error"] and v["first_error"].startswith("mod.py"), v
    agrees_with_reports(ws, v)


def test_a_100_mb_output_still_ends_with_the_verdict(ws: Path) -> None:
    script = "import sys\nline = b'x' * 99 + b'\\n'\nfor _ in range(1_000_000): sys.stdout.buffer.write(line)\n"
    proc = subprocess.run([*WHETSTONE, "run", "--", sys.executable, "-c", script], cwd=ws, env=_env(),
                          capture_output=True, timeout=300)
    assert len(proc.stdout) > 100_000_000
    tail = proc.stdout[-2000:].decode()
    v = parse_last(tail)
    assert v is not None and v.status == "pass" and tail.rstrip("\n").endswith(END)


# --------------------------------------------------------------------------- other test runners

def test_python_unittest_through_whetstone_run(ws: Path) -> None:
    (ws / "shapes.py").write_text("def area(w, h):\n    return w + h\n")
    (ws / "test_shapes.py").write_text(
        "import unittest\n\nfrom shapes import area\n\n\nclass AreaTest(unittest.TestCase):\n"
        "    def test_area(self):\n        self.assertEqual(area(2, 3), 6)\n\n    def test_square(self):\n"
        "        self.assertEqual(area(2, 2), 4)\n\n\nif __name__ == '__main__':\n    unittest.main()\n"
    )
    proc = whetstone(["run", "--", sys.executable, "-m", "unittest", "-v"], ws)
    assert proc.returncode == 1
    v = verdict_of(proc)
    assert (v["failure"], v["phase"], v["retry"]) == ("test-failure", "tests", "fix-source"), v
    assert v["first_error"] and v["first_error"].startswith(("shapes.py", "test_shapes.py")), v
    assert v["counts"]["failed"] == 1 and v["counts"]["passed"] == 1, v
    agent = agrees_with_reports(ws, v)
    (failure,) = agent["test_failures"]
    assert (failure["expected_value"], failure["actual_value"]) in (("6", "5"), ("5", "6")), failure


@pytest.mark.skipif(shutil.which("node") is None, reason="node")
def test_node_test_spec_reporter_through_whetstone_run(ws: Path) -> None:
    (ws / "sum.js").write_text("exports.sum = (a, b) => a - b;\n")
    (ws / "sum.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('./sum');\n\n"
        "test('adds', () => {\n  assert.strictEqual(sum(2, 3), 5);\n});\n\ntest('zero', () => {\n"
        "  assert.strictEqual(sum(0, 0), 0);\n});\n"
    )
    proc = whetstone(["run", "--", "node", "--test", "--test-reporter=spec", "sum.test.js"], ws)
    v = verdict_of(proc)
    assert (v["failure"], v["phase"], v["retry"]) == ("test-failure", "tests", "fix-source"), v
    assert v["first_error"] and v["first_error"].startswith(("sum.js", "sum.test.js")), v
    agrees_with_reports(ws, v)
