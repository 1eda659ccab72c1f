"""The JavaScript trial with real tools: Jest 29 and tape from npm, node's own test runner.

Each project is a copy of a fixture in tests/fixtures/js_trial (never the fixture itself); its failures
come from the real runner's output through our parsers, as ``whetstone run`` would record them.  npm
installs into the copy; without npm or the network those tests are skipped with the reason.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from pytest_whetstone.candidates import native_js_runs as runs
from pytest_whetstone.candidates.native_trial_js import JsTrial, js_trial
from pytest_whetstone.parse import parse_text
from pytest_whetstone.records import TestFailureRecord

FIXTURES = Path(__file__).parent / "fixtures" / "js_trial"
TIMEOUT = 6.0

pytestmark = pytest.mark.skipif(not shutil.which("node"), reason="node not installed")


def _install(tmp: Path, fixture: str, package: str) -> Path:
    if not shutil.which("npm"):
        pytest.skip("npm not installed")
    proj = tmp / fixture
    shutil.copytree(FIXTURES / fixture, proj)
    try:
        done = subprocess.run(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefer-offline", package],
            cwd=proj, capture_output=True, text=True, timeout=240,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install {package} timed out (no network?)")
    if done.returncode != 0:
        pytest.skip(f"npm install {package} failed (no network?): {done.stderr.strip()[-200:]}")
    return proj


def _failures(argv: list[str], cwd: Path) -> list[TestFailureRecord]:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120)
    return [r.ensure_id() for r in parse_text(done.stdout + done.stderr).test_failures]


def _hashes(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            if not path.is_symlink():
                out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _trial(failures: list[TestFailureRecord], proj: Path, command: str) -> JsTrial:
    trial, why = js_trial(failures, proj, command=command, timeout_s=TIMEOUT)
    assert trial is not None, why
    return trial


# --------------------------------------------------------------------------- Jest


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _install(tmp_path_factory.mktemp("jest"), "jest_ledger", "jest@29")


def test_jest_trial_outcomes_and_the_users_tree_untouched(ledger: Path) -> None:
    failures = _failures(["npx", "jest", "--ci"], ledger)
    assert {f.test_name for f in failures} == {
        "ledger › balance › adds every entry (a+b)", "ledger › converts with the rate file in data/"}
    by_name = {f.test_name: f.failure_id for f in failures}
    adds, converts = by_name["ledger › balance › adds every entry (a+b)"], by_name["ledger › converts with the rate file in data/"]
    before = _hashes(ledger)
    src = (ledger / "src" / "ledger.js").read_text()
    trial = _trial(failures, ledger, "npx jest --ci")
    try:
        base = trial.baseline()  # reproduces both, the data/ test from the copy's root
        assert not base.error and set(base.failing) == {adds, converts} and not base.passed
        assert "Received: 5" in base.failing[adds] and trial.filter

        fixed = trial.run_failing("src/ledger.js", src.replace("entries.length - 1", "entries.length"))
        assert fixed.passed == {adds, converts} and not fixed.failing and not fixed.error

        changed = trial.run_failing("src/ledger.js", src.replace("entries.length - 1", "entries.length - 2"))
        assert set(changed.failing) == {adds, converts} and changed.failing[adds] != base.failing[adds]

        broken = trial.run_failing("src/ledger.js", src.replace("return sum;", "return sum +;"))
        assert "SyntaxError" in broken.error and not broken.passed

        t0 = time.monotonic()
        loops = trial.run_failing("src/ledger.js", src.replace("let sum = 0;", "let sum = 0; while (true) {}"))
        assert "timed out" in loops.error and time.monotonic() - t0 < TIMEOUT + 5

        wide = trial.run_wider("src/ledger.js", src.replace("entries.length - 1", "entries.length"))
        assert wide.ok and sorted(wide.covered) == ["test/ledger.test.js", "test/rates.test.js"]
        unfixed = trial.run_wider("src/ledger.js", src)
        assert unfixed.ok and not unfixed.failed  # only the tests it was made for fail: run_failing judges them
        breaks = trial.run_wider("src/ledger.js", src.replace("return rates[code];", "return 0;"))
        assert not breaks.ok and breaks.failed and all("rates.test.js" in f for f in breaks.failed)
        assert trial.baseline().failing == base.failing  # the copy's original text is back
    finally:
        trial.close()
    assert _hashes(ledger) == before
    assert not trial.tmp.exists()


def test_jest_through_npm_test_keeps_the_haste_map_out_of_node_modules(ledger: Path) -> None:
    failures = _failures(["npx", "jest", "--ci"], ledger)
    trial = _trial(failures, ledger, "npm test")
    try:
        assert trial.kind == "jest"
        assert (trial.root / "node_modules").is_dir() and (trial.root / "node_modules" / "jest").is_symlink()
        wide = trial.run_wider("", "")
        # The packages are symlinks: Jest neither crawls nor runs anything under node_modules.
        assert wide.covered and all("node_modules" not in c for c in wide.covered)
        out = (trial.work / "stdout.txt").read_text()
        assert "haste" not in out.lower() and "duplicate" not in out.lower(), out
    finally:
        trial.close()
    # Records from ``jest --json`` name suites from the test files' common directory ("ledger.test.js").
    done = subprocess.run(["npx", "jest", "--ci", "--json"], cwd=ledger, capture_output=True, text=True, timeout=120)
    from_json = [r.ensure_id() for r in parse_text(done.stdout).test_failures]
    assert {f.test_suite for f in from_json} == {"ledger.test.js"}
    trial = _trial(from_json, ledger, "npx jest --ci --json")
    try:
        assert {t.file for t in trial.targets} == {"test/ledger.test.js"}
        assert set(trial.baseline().failing) == {f.failure_id for f in from_json}
    finally:
        trial.close()


# --------------------------------------------------------------------------- node:test


def test_node_test_trial(tmp_path: Path) -> None:
    proj = tmp_path / "stock"
    shutil.copytree(FIXTURES / "node_stock", proj)
    failures = _failures(["node", "--test"], proj)
    assert [f.test_name for f in failures] == ["stock > restock > adds the delivered count"]
    fid = failures[0].failure_id
    before = _hashes(proj)
    src = (proj / "lib" / "stock.js").read_text()
    trial = _trial(failures, proj, "node --test")
    try:
        base = trial.baseline()
        assert not base.error and base.failing == {fid: "AssertionError: Expected values to be strictly equal: 1 !== 7"}
        assert trial.run_failing("lib/stock.js", src.replace("level - count", "level + count")).passed == {fid}
        changed = trial.run_failing("lib/stock.js", src.replace("level - count", "level * count"))
        assert changed.failing == {fid: "AssertionError: Expected values to be strictly equal: 12 !== 7"}
        broken = trial.run_failing("lib/stock.js", src.replace("level - count", "level - (count"))
        assert broken.error.startswith("test file did not load: SyntaxError")
        loops = trial.run_failing("lib/stock.js", src.replace("return level", "for (;;) {} return level"))
        assert "timed out" in loops.error and loops.seconds < TIMEOUT + 2
        assert trial.run_wider("lib/stock.js", src.replace("level - count", "level + count")).ok
        wide = trial.run_wider("lib/stock.js", src.replace("level - count", "level * count"))
        assert not wide.ok and wide.covered == ["test/stock.test.js"] and len(wide.failed) == 1
    finally:
        trial.close()
    assert _hashes(proj) == before


# --------------------------------------------------------------------------- tape (TAP)


def test_tape_trial(tmp_path: Path) -> None:
    proj = _install(tmp_path, "tape_words", "tape@5")
    failures = _failures(["npx", "tape", "test/**/*.js"], proj)
    assert [f.test_name for f in failures] == ["capitalizes the first letter"]
    fid = failures[0].failure_id
    before = _hashes(proj)
    src = (proj / "lib" / "words.js").read_text()
    trial = _trial(failures, proj, "npm test")
    try:
        assert trial.kind == "tape" and trial.command.paths == ["test/**/*.js"]
        base = trial.baseline()
        # the values as the YAML block says them, and a digest of their exact text
        assert base.failing[fid].startswith("capitalizes the first letter operator: equal expected: Apple actual: apple #")
        assert trial.run_failing("lib/words.js", src.replace("toLowerCase", "toUpperCase")).passed == {fid}
        assert "did not load" in trial.run_failing("lib/words.js", src.replace("slice(1);", "slice(1")).error
        assert trial.run_wider("lib/words.js", src.replace("toLowerCase", "toUpperCase")).ok
        assert trial.run_wider("lib/words.js", src).ok  # only the tests it was made for still fail
    finally:
        trial.close()
    assert _hashes(proj) == before


# --------------------------------------------------------------------------- the command and refusals


def test_the_command_through_npm_scripts_and_wrappers(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(
        '{"scripts": {"test": "npm run lint && npm run unit", "unit": "NODE_ENV=test nyc --silent jest --ci '
        '--config jest.json --coverage -t x test/", "lint": "eslint ."}}')
    cmd = runs.read_command("npm test", tmp_path)
    assert (cmd.kind, cmd.flags, cmd.paths) == ("jest", ["--config", "jest.json"], ["test/"])
    assert runs.read_command("node --require ./setup.js --test test/", tmp_path).node_flags == ["--require", "./setup.js"]
    assert runs.read_command("npx vitest run", tmp_path).kind == "vitest"
    assert runs.read_command("yarn mocha --grep x test/*.spec.js", tmp_path).paths == ["test/*.spec.js"]
    assert runs.read_command("make test", tmp_path).kind == ""


def test_refusals_say_why_in_one_line(tmp_path: Path) -> None:
    rec = TestFailureRecord(runner="jest", test_suite="t.test.js", test_name="a › b").ensure_id()
    assert js_trial([rec], tmp_path, command=None, timeout_s=1) == (None, "jest is not installed in node_modules")
    gtest = TestFailureRecord(runner="gtest", test_suite="S", test_name="N")
    assert js_trial([gtest], tmp_path, command=None, timeout_s=1)[1] == "no JavaScript test failures"
    (tmp_path / "node_modules" / ".bin").mkdir(parents=True)
    (tmp_path / "node_modules" / ".bin" / "jest").write_text("")
    assert js_trial([rec], tmp_path, command=None, timeout_s=1)[1] == "cannot find the test file of 'a › b'"


def test_signature_is_the_message_without_its_stack() -> None:
    message = "Error: expect(received).toBe(expected)\n\nExpected: 9\nReceived: 5\n    at Object.toBe (/s/t.js:8:1)"
    assert runs.signature(message, "/s") == "Error: expect(received).toBe(expected) Expected: 9 Received: 5"


# --------------------------------------------------------------------------- mocha and vitest


@pytest.mark.parametrize(("fixture", "package", "argv", "name"), [
    ("mocha_tally", "mocha@10", ["npx", "mocha"], "tally > counts > counts each vote"),
    ("vitest_tally", "vitest@1", ["npx", "vitest", "run"], "tally > counts > counts each vote"),
])
def test_mocha_and_vitest_trials(tmp_path: Path, fixture: str, package: str, argv: list[str], name: str) -> None:
    proj = _install(tmp_path, fixture, package)
    failures = _failures(argv, proj)
    assert [f.test_name for f in failures] == [name]
    fid = failures[0].failure_id
    before = _hashes(proj)
    src = (proj / "lib" / "tally.js").read_text()
    trial = _trial(failures, proj, "npm test")
    try:
        base = trial.baseline()
        assert set(base.failing) == {fid} and not base.error and trial.filter
        assert trial.run_failing("lib/tally.js", src.replace("|| 0) - 1", "|| 0) + 1")).passed == {fid}
        changed = trial.run_failing("lib/tally.js", src.replace("|| 0) - 1", "|| 0) - 2"))
        assert set(changed.failing) == {fid} and changed.failing[fid] != base.failing[fid]
        assert trial.run_failing("lib/tally.js", src.replace("return counts;", "return counts +;")).error
        assert trial.run_wider("lib/tally.js", src.replace("|| 0) - 1", "|| 0) + 1")).ok
        assert trial.run_wider("lib/tally.js", src).ok  # only the tests it was made for still fail
    finally:
        trial.close()
    assert _hashes(proj) == before


def test_the_copy_keeps_links_and_leaves_generated_output(tmp_path: Path) -> None:
    proj = tmp_path / "stock"
    shutil.copytree(FIXTURES / "node_stock", proj)
    outside = tmp_path / "shared"
    outside.mkdir()
    (proj / "seed").symlink_to("data")  # inside the project: stays relative, into the copy
    (proj / "shared").symlink_to(os.path.relpath(outside, proj))  # outside: made absolute
    (proj / "coverage").mkdir()
    (proj / "coverage" / "lcov.info").write_text("x")
    (proj / "node_modules" / ".cache").mkdir(parents=True)
    (proj / "node_modules" / "left-pad").mkdir()
    failures = _failures(["node", "--test"], proj)
    trial = _trial(failures, proj, "node --test")
    try:
        assert os.readlink(trial.root / "seed") == "data" and (trial.root / "seed" / "initial.json").is_file()
        assert os.readlink(trial.root / "shared") == str(outside)
        assert not (trial.root / "coverage").exists() and not (trial.root / ".whetstone").exists()
        assert os.readlink(trial.root / "node_modules" / "left-pad") == str(proj / "node_modules" / "left-pad")
        assert not (trial.root / "node_modules" / ".cache").exists()  # a tool's cache is written in the copy
    finally:
        trial.close()
