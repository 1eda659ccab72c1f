"""End to end with real JavaScript tools: node:test (TAP reporter) and Jest from npm.

Jest is installed with npm into a scratch copy of the fixture (never into the
fixture itself); without npm or the network the Jest test is skipped with the reason.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_native_tests_e2e import FIXTURES, _session, _test_attempt, whetstone_run

# --------------------------------------------------------------------------- node:test (TAP)


def test_node_tap_run_locates_the_js_function(tmp_path: Path) -> None:
    if not shutil.which("node"):
        pytest.skip("node not installed")
    proj = tmp_path / "slug"
    shutil.copytree(FIXTURES / "tap_slug", proj)
    store = proj / ".whetstone"
    verdict, out = whetstone_run(["node", "--test", "--test-reporter=tap", "test/"], proj, store)
    assert verdict["failure"] == "test-failure", out
    assert verdict["first_error"] == "lib/slug.js:3", out
    state = _session(store, verdict).state()
    assert _test_attempt(state).gap_after.current == 1
    assert state.test_failures[0].ast_node_id == "lib/slug.js::slugify"


# --------------------------------------------------------------------------- Jest


@pytest.fixture(scope="module")
def jest_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not shutil.which("npm") or not shutil.which("npx"):
        pytest.skip("npm not installed")
    proj = tmp_path_factory.mktemp("jest") / "cart"
    shutil.copytree(FIXTURES / "jest_cart", proj)
    try:
        install = subprocess.run(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefer-offline", "jest@29"],
            cwd=proj, capture_output=True, text=True, timeout=240,
        )
    except subprocess.TimeoutExpired:
        pytest.skip("npm install jest@29 timed out (no network?)")
    if install.returncode != 0:
        pytest.skip(f"npm install jest@29 failed (no network?): {install.stderr.strip()[-200:]}")
    return proj


def test_jest_run_points_at_the_faulty_function(jest_project: Path) -> None:
    store = jest_project / ".whetstone"
    verdict, out = whetstone_run(["npx", "jest", "--ci"], jest_project, store)
    assert verdict["failure"] == "test-failure", out
    assert verdict["first_error"] == "src/cart.js:9", out  # cartTotal, the off-by-one loop
    state = _session(store, verdict).state()
    attempt = _test_attempt(state)
    assert attempt.gap_after.metric_type == "test_failure_count" and attempt.gap_after.current == 2
    tops = {f.test_name: f.suspects[0].qualname for f in state.test_failures}
    assert tops == {
        "cartTotal › sums every line": "cartTotal",
        "shippingCost › charges the flat rate below the minimum": "shippingCost",
    }
    literal = [c for c in state.current_candidates() if c.edits and c.edits[0].new_text == "7"]
    assert literal and literal[0].edits[0].file_path == "src/cart.js"
