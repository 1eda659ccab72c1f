"""`whetstone fix` run in a subdirectory of the workspace (the store one level up): the compiler's
relative paths are made workspace-relative against the build's own directory, so the loop finds the
file it must edit (before, they were taken relative to the workspace and the loop saw nothing to fix)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pytest_whetstone.orchestrate.loop import FeedbackLoopOrchestrator, start_loop
from pytest_whetstone.parse import normalize_paths, parse_text


def test_normalize_paths_resolves_against_the_build_directory(tmp_path: Path) -> None:
    sub = tmp_path / "lib"
    sub.mkdir()
    (sub / "unit.c").write_text("int f(void) { return 1 }\n")
    out = "unit.c:1:24: error: expected ';' before '}' token\n"
    result = parse_text(out, "gcc", cwd=str(sub))
    normalize_paths(result, str(sub), str(tmp_path))
    assert result.build_errors[0].file_path == "lib/unit.c"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_the_loop_converges_from_a_subdirectory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / ".whetstone"
    (store / "sessions").mkdir(parents=True)
    sub = tmp_path / "lib"
    sub.mkdir()
    original = "int twice(int x) {\n    int y = x * 2;\n    return y;\n}\n"
    (sub / "unit.c").write_text(original.replace("x * 2;", "x * 2"))
    monkeypatch.setenv("WHETSTONE_DIR", str(store))
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.chdir(sub)
    sid = start_loop(store, build="gcc -fdiagnostics-parseable-fixits -c unit.c -o unit.o", cwd=sub,
                     max_attempts=3, max_wall_s=60).session_id
    result = FeedbackLoopOrchestrator(store, memory=False).run_to_completion(sid, 60)
    assert result.final_status == "converged", result.escalation
    assert (sub / "unit.c").read_text() == original
    assert os.path.exists(sub / "unit.o")
