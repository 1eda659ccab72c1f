"""The compile database ccwrap records: real make builds through both shims, read back, written out."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "ccwrap"))
import ccwrap_support as cs  # noqa: E402

impl_dir = cs.impl_dir  # a shared pytest fixture
native_dir = cs.native_dir  # a shared pytest fixture
python_dir = cs.python_dir  # a shared pytest fixture

from pytest_whetstone.build.compdb import CompileDatabase, load_commands  # noqa: E402
from pytest_whetstone.cli import main as cli_main  # noqa: E402

MAKEFILE = """\
all: prog
prog: util.o main.o
\t$(CC) util.o main.o -o prog
%.o: %.c
\t$(CC) -Wall -MMD -Iinc -c $< -o $@
"""


def _project(root: Path) -> Path:
    (root / "inc").mkdir(parents=True)
    (root / "inc" / "util.h").write_text("int twice(int x);\n")
    (root / "util.c").write_text('#include "util.h"\nint twice(int x) { return 2 * x; }\n')
    (root / "main.c").write_text('#include "util.h"\nint main(void) { return twice(0); }\n')
    (root / "Makefile").write_text(MAKEFILE)
    (root / ".whetstone").mkdir()
    return root


def _make(root: Path, bindir: Path, cc: str) -> subprocess.CompletedProcess[str]:
    env = cs.base_env(bindir)
    return subprocess.run(["make", "-s", f"CC=ccwrap {cc}"], cwd=root, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_every_compile_and_the_link_are_recorded(impl_dir: Path, tmp_path: Path, cc: str) -> None:
    root = _project(tmp_path / "p")
    proc = _make(root, impl_dir, cc)
    assert proc.returncode == 0, proc.stderr
    db = CompileDatabase.from_store(root / ".whetstone")
    [util] = db.for_source(root / "util.c")
    # exactly what make ran: no launcher word, no fix-it flag ccwrap added for clang
    assert util.arguments == [cc, "-Wall", "-MMD", "-Iinc", "-c", "util.c", "-o", "util.o"]
    assert util.directory == str(root) and util.output == str(root / "util.o") and util.family == cc
    link = db.link_of(root / "main.o")
    assert link is not None and link.arguments == [cc, "util.o", "main.o", "-o", "prog"] and link.is_link
    assert {c.sources[0] for c in db.including(root / "inc" / "util.h")} == {str(root / "util.c"), str(root / "main.c")}
    entries = db.compile_commands()
    assert [e["file"] for e in entries] == [str(root / "main.c"), str(root / "util.c")]


def test_both_shims_record_the_same_commands(native_dir: Path, python_dir: Path, tmp_path: Path) -> None:
    seen = []
    for bindir in (native_dir, python_dir):
        root = _project(tmp_path / "same")
        assert _make(root, bindir, "gcc").returncode == 0
        files = sorted((root / ".whetstone" / "commands").glob("*.json"))
        records = [json.loads(p.read_text()) for p in files]
        for r in records:
            r.pop("time")
            r["compiler"] = Path(r["compiler"]).name
        seen.append(([p.name for p in files], records))
        shutil.rmtree(tmp_path / "same")
    assert seen[0] == seen[1]


def test_a_failing_unit_is_recorded_and_rebuilt_once(native_dir: Path, tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    (root / "main.c").write_text("int main(void) { return twice(0) }\n")
    assert _make(root, native_dir, "gcc").returncode != 0
    [main] = CompileDatabase.from_store(root / ".whetstone").for_source(root / "main.c")
    assert main.exit_code == 1
    (root / "main.c").write_text('#include "util.h"\nint main(void) { return twice(0); }\n')
    assert _make(root, native_dir, "gcc").returncode == 0
    [main] = CompileDatabase.from_store(root / ".whetstone").for_source(root / "main.c")  # the newest replaced it
    assert main.exit_code == 0


def test_no_store_means_nothing_written(native_dir: Path, tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    shutil.rmtree(root / ".whetstone")
    (root / ".git").mkdir()  # a project root, where a store would be created if there were output
    assert _make(root, native_dir, "gcc").returncode == 0
    assert not (root / ".whetstone").exists()


@pytest.mark.skipif(shutil.which("ccache") is None, reason="ccache not installed")
def test_behind_ccache_the_compiler_command_is_recorded(native_dir: Path, tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    env = cs.base_env(native_dir, CCACHE_DIR=str(tmp_path / "ccache"))
    proc = subprocess.run(["make", "-s", "CC=ccwrap ccache gcc"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    [util] = CompileDatabase.from_store(root / ".whetstone").for_source(root / "util.c")
    assert util.arguments[0] == "gcc"


def test_cli_writes_compile_commands_json(
    native_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path / "p")
    monkeypatch.setenv("WHETSTONE_DIR", str(root / ".whetstone"))  # --dir exports it: restored after the test
    assert _make(root, native_dir, "gcc").returncode == 0
    (root / ".whetstone" / "commands" / "broken.json").write_text("{not json")
    out = tmp_path / "compile_commands.json"
    assert cli_main(["--dir", str(root / ".whetstone"), "compdb", "-o", str(out)]) == 0
    entries = json.loads(out.read_text())
    assert {e["file"] for e in entries} == {str(root / "util.c"), str(root / "main.c")}
    assert all(e["directory"] == str(root) and e["arguments"][0] == "gcc" for e in entries)
    err = capsys.readouterr().err
    assert "skipped 1 unreadable command record" in err and "2 entries" in err


def test_empty_store_gives_an_empty_database(tmp_path: Path) -> None:
    assert load_commands(tmp_path) == []
    assert not CompileDatabase.from_store(tmp_path)
