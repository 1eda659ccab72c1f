"""What a failing `whetstone run` of a test command costs, guarded by its structure (not by a clock).

The command is the real ctest log of tests/fixtures/native_projects/gtest_calc (logs/ctest_calc.log,
ctest 3.25.1 + googletest 1.12.1) replayed beside a copy of the project's sources, so the locators see the
files that log names.  A fresh interpreter runs `whetstone run` and reports which of our modules were
loaded when the command started and at the end, and how often each source file's tree was walked for its functions.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "native_projects"

# Runs `whetstone run` in this interpreter; writes what it saw as JSON to argv[2] (stdout belongs to the run).
PROBE = r"""
import collections, json, sys
import pytest_whetstone.prefetch as prefetch
from pytest_whetstone.locate import cfamily
at_start = []
started = prefetch.Prefetch.start
def start(self):
    at_start.extend(m for m in sys.modules if m.startswith("pytest_whetstone"))
    return started(self)
prefetch.Prefetch.start = start
reads = collections.Counter()
read_functions = cfamily._read_functions
def counted(parsed, rel):
    reads[rel] += 1
    return read_functions(parsed, rel)
cfamily._read_functions = counted
from pytest_whetstone.cli import main
code = main(["run", "--", "sh", "-c", sys.argv[1]])
with open(sys.argv[2], "w") as out:
    json.dump({"code": code, "at_start": sorted(at_start), "at_end": sorted(m for m in sys.modules if
               m.startswith("pytest_whetstone")), "reads": reads}, out)
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> dict:
    if shutil.which("sh") is None:
        pytest.skip("no sh")
    work = tmp_path_factory.mktemp("cost")
    proj = work / "calc"
    shutil.copytree(FIXTURES / "gtest_calc", proj)
    log = FIXTURES / "logs" / "ctest_calc.log"
    seen = work / "seen.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_")}
    env["WHETSTONE_DIR"] = str(proj / ".whetstone")
    proc = subprocess.run([sys.executable, "-c", PROBE, f"cat {log}; exit 8", str(seen)], cwd=proj, env=env,
                          capture_output=True, text=True, timeout=120)
    assert seen.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
    data = seen.read_text()
    result = json.loads(data)
    result["stdout"] = proc.stdout
    return result


def test_the_run_fails_and_places_its_failures(probe: dict) -> None:
    assert probe["code"] == 8
    assert '"failure":"test-failure"' in probe["stdout"]
    assert '"first_error":"src/stats.cc:5"' in probe["stdout"]  # located as the end-to-end test expects


def test_the_command_starts_before_the_parsers_load(probe: dict) -> None:
    at_start = set(probe["at_start"])
    assert "pytest_whetstone.runner" in at_start
    loaded_late = {"pytest_whetstone.parse", "pytest_whetstone.classify", "pytest_whetstone.locate.native_tests",
                   "pytest_whetstone.candidates"}
    assert not at_start & loaded_late, sorted(at_start & loaded_late)


def test_a_native_test_failure_loads_neither_the_search_nor_the_python_tooling(probe: dict) -> None:
    at_end = set(probe["at_end"])
    assert "pytest_whetstone.locate.native_tests" in at_end and "pytest_whetstone.candidates.native_tests" in at_end
    for module in ("pytest_whetstone.candidates.native_search", "pytest_whetstone.candidates.native_screen",
                   "pytest_whetstone.candidates.native_trial", "pytest_whetstone.candidates.search",
                   "pytest_whetstone.candidates.python_tests", "pytest_whetstone.locate.python",
                   "pytest_whetstone.report.html", "pytest_whetstone.store.merge"):
        assert module not in at_end, module


def test_each_source_file_is_read_once_however_many_failures_name_it(probe: dict) -> None:
    reads = probe["reads"]
    assert reads, "the locator read no source"
    assert max(reads.values()) == 1, reads


# Runs `whetstone run -- true` in a fresh interpreter and writes which of our modules (and dataclasses) were
# loaded when the command was started.
SPAWN_PROBE = r"""
import json, sys
import pytest_whetstone.process as process
at_spawn = []
started = process.start
def start(*args, **kwargs):
    at_spawn.extend(m for m in sys.modules if m.startswith("pytest_whetstone") or m == "dataclasses")
    return started(*args, **kwargs)
process.start = start
from pytest_whetstone.cli import main
code = main(["run", "--", "true"])
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "at_spawn": sorted(at_spawn)}, out)
"""


def test_the_command_starts_before_the_record_types_and_the_configuration_load(tmp_path: Path) -> None:
    if shutil.which("true") is None:
        pytest.skip("no true")
    seen = tmp_path / "seen.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_")}
    env["WHETSTONE_DIR"] = str(tmp_path / ".whetstone")
    proc = subprocess.run([sys.executable, "-c", SPAWN_PROBE, str(seen)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert seen.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
    probe = json.loads(seen.read_text())
    assert probe["code"] == 0 and '"status":"pass"' in proc.stdout
    at_spawn = set(probe["at_spawn"])
    assert "pytest_whetstone.launch" in at_spawn
    # loaded while the command runs: the record types (and dataclasses), the configuration, the judge, the core
    for module in ("pytest_whetstone.records", "pytest_whetstone.config", "pytest_whetstone.verdict",
                   "pytest_whetstone.runner", "pytest_whetstone.core", "pytest_whetstone.store.fold", "dataclasses"):
        assert module not in at_spawn, module
