"""Environment probe and requirements gap (real gcc output, real PATH lookups)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.orchestrate.env import (
    build_requirements_gap,
    executables_gap,
    import_requirements_gap,
    probe_environment,
    python_requirements_gap,
    resolve_compiler,
)
from pytest_whetstone.parse import parse_text
from pytest_whetstone.records import TestFailureRecord


def test_probe_snapshot_has_toolchain_versions() -> None:
    snap = probe_environment()
    assert snap["python"]["version"].count(".") == 2
    assert snap["pytest"]["version"]
    for key in ("cc", "cxx", "cmake", "make", "ninja"):
        assert key in snap
    if shutil.which("gcc"):
        assert snap["cc"]["path"] and "ccwrap" not in os.path.basename(snap["cc"]["path"])
        assert snap["cc"]["version"]


def test_resolve_compiler_skips_a_ccwrap_first_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shim = tmp_path / "cc"
    shim.symlink_to(tmp_path / "ccwrap")
    (tmp_path / "ccwrap").write_text("#!/bin/sh\n")
    (tmp_path / "ccwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CC", "ccwrap gcc")
    found = resolve_compiler(("cc", "gcc"), "CC")
    assert found is not None and not found.startswith(str(tmp_path))


def test_missing_executables_of_commands(tmp_path: Path) -> None:
    gaps = executables_gap(["cd sub && zz-no-such-make -j2", "CC=zz-no-cc make", "sh -c true"], tmp_path)
    names = {g["name"] for g in gaps}
    assert names == {"zz-no-such-make", "zz-no-cc"}
    assert next(g for g in gaps if g["name"] == "zz-no-cc")["detail"].startswith("'zz-no-cc'")


def test_an_executable_the_build_produces_is_not_a_gap(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    commands = ["./t", "cd sub && ./build/app --run", f"{outside}/tool", "../elsewhere/helper"]
    gaps = executables_gap(commands, workspace, workspace)
    assert sorted(g["name"] for g in gaps) == ["helper", "tool"]  # only what lies outside the workspace
    assert {g["name"] for g in executables_gap(["./t"], workspace)} == {"t"}  # no workspace given: as before


def test_python_requirements_missing_and_wrong_version(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\ndependencies = ["pytest>=1", "zz-not-installed-xyz", '
        '"pytest<1", "demo", "never-on-this-os; sys_platform == \'win32\'"]\n')
    (tmp_path / "requirements.txt").write_text("# comment\n-e .\nzz-also-missing==2.0  # pinned\n")
    gaps = python_requirements_gap(tmp_path)
    assert [g["name"] for g in gaps] == ["zz-not-installed-xyz", "zz-also-missing"]
    assert gaps[1]["install"]["pip"] == "zz-also-missing==2.0"


@pytest.mark.skipif(not shutil.which("gcc"), reason="needs gcc")
def test_missing_system_header_from_a_real_build(tmp_path: Path) -> None:
    (tmp_path / "a.c").write_text("#include <zlib_zz_missing.h>\n#include \"local_zz.h\"\nint main(void){return 0;}\n")
    proc = subprocess.run(["gcc", "-c", "a.c"], cwd=tmp_path, capture_output=True, text=True)
    errors = parse_text(proc.stderr, cwd=str(tmp_path)).build_errors
    gaps = build_requirements_gap(errors, tmp_path)
    assert [g["name"] for g in gaps] == ["zlib_zz_missing.h"]
    # a header the project has itself is a build-flag problem, not a missing package
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "zlib_zz_missing.h").write_text("")
    assert build_requirements_gap(errors, tmp_path) == []


def test_missing_module_at_test_time(tmp_path: Path) -> None:
    (tmp_path / "mypkg").mkdir()
    rec = [TestFailureRecord(exception_type="ModuleNotFoundError", message="No module named 'requestz_zz.api'",
                             node_id="t.py::x"),
           TestFailureRecord(exception_type="ModuleNotFoundError", message="No module named 'mypkg.sub'")]
    gaps = import_requirements_gap(rec, tmp_path)
    assert [(g["kind"], g["name"]) for g in gaps] == [("python-module", "requestz_zz")]
