"""ccwrap in real builds: make -j2, cmake (launcher and CC=), ccache chaining, superseding."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "ccwrap"))
import ccwrap_support as cs  # noqa: E402

impl_dir = cs.impl_dir  # a shared pytest fixture
native_dir = cs.native_dir  # a shared pytest fixture
python_dir = cs.python_dir  # a shared pytest fixture

from pytest_whetstone.parse import parse_text  # noqa: E402
from pytest_whetstone.store.fold import error_key  # noqa: E402
from pytest_whetstone.store.sessions import load_session  # noqa: E402
from pytest_whetstone.store.spool import ingest_spool  # noqa: E402

MAKEFILE = """\
SRCS := $(wildcard *.c)
OBJS := $(SRCS:.c=.o)
all: prog
prog: $(OBJS)
\t$(CC) $(OBJS) -o prog
%.o: %.c
\t$(CC) -Wall -c $< -o $@
"""


def _project(root: Path, n_warn: int = 8) -> Path:
    """A make project: TUs with warnings, two failing TUs and clean ones."""
    root.mkdir(parents=True)
    warn = (cs.SRC / "warn.c").read_text().replace("int main(void)", "int f_{i}(void)")
    for i in range(n_warn):
        (root / f"w{i}.c").write_text(warn.replace("{i}", str(i)))
    shutil.copy(cs.SRC / "error.c", root / "broken.c")
    shutil.copy(cs.SRC / "fatal_include.c", root / "noinc.c")
    (root / "ok.c").write_text((cs.SRC / "clean.c").read_text())
    (root / "Makefile").write_text(MAKEFILE)
    return root


def _expected_keys(root: Path, env: dict[str, str]) -> Counter[tuple[object, ...]]:
    """What each TU prints when compiled on its own with the plain compiler, parsed."""
    keys: Counter[tuple[object, ...]] = Counter()
    for source in sorted(root.glob("*.c")):
        plain = cs.run(["cc", "-Wall", "-c", source.name, "-o", "/dev/null"], root, env)
        for record in parse_text(plain.err, tool="gcc", cwd=str(root)).build_errors:
            keys[error_key(record)] += 1
    return keys


def _ingested_keys(store: Path) -> Counter[tuple[object, ...]]:
    state = load_session(store).state()
    return Counter(error_key(r) for r in state.build_errors)


def _ingest_concurrently(store: Path, workers: int = 3) -> None:
    code = "import sys; from pathlib import Path; from pytest_whetstone.store.spool import ingest_spool; ingest_spool(Path(sys.argv[1]))"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(store)], cwd=cs.REPO) for _ in range(workers)]
    assert all(p.wait(timeout=120) == 0 for p in procs)


def test_make_j2_every_diagnostic_ingested_exactly_once(impl_dir: Path, tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    store = tmp_path / "store"
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(store), WHETSTONE_SESSION="build-1")
    build = cs.run(["make", "-k", "-j2", "CC=ccwrap"], root, env, timeout=300)
    assert build.rc != 0
    assert b"fix-it:" not in build.err
    entries = cs.spool_entries(store)
    assert len(entries) == 10  # 8 warning TUs + 2 failing TUs; ok.c printed nothing
    assert sorted(Path(str(e["sources"][0])).name for e in entries) == sorted(  # type: ignore[index]
        [f"w{i}.c" for i in range(8)] + ["broken.c", "noinc.c"]
    )
    _ingest_concurrently(store)
    assert cs.spool_files(store) == []
    assert not list((store / "spool" / "processing").iterdir())
    events = [e for e in load_session(store, "build-1").events() if e["event"] == "build_errors"]
    assert len(events) == 10  # one per spool file: nothing ingested twice
    expected = _expected_keys(root, cs.base_env(None))
    assert sum(expected.values()) >= 8 * 2 + 3  # two warnings per w*.c, broken.c and noinc.c errors
    assert _ingested_keys(store) == Counter(set(expected))  # each diagnostic once, none missing


def test_tu_fixed_later_supersedes_its_errors(impl_dir: Path, tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", n_warn=1)
    store = tmp_path / "store"
    env = cs.base_env(impl_dir, WHETSTONE_DIR=str(store), WHETSTONE_SESSION="s")
    cs.run(["make", "-k", "CC=ccwrap"], root, env, timeout=300)
    ingest_spool(store)
    before = load_session(store, "s").state()
    broken = str(root / "broken.c")
    assert any(e.translation_unit == broken and e.is_failure for e in before.build_errors)
    assert len(list((store / "spool" / "tu").iterdir())) == 3  # w0, broken, noinc

    (root / "broken.c").write_text((cs.SRC / "clean.c").read_text())  # the fix
    second = cs.run(["make", "-k", "CC=ccwrap"], root, env, timeout=300)
    assert second.rc != 0  # noinc.c still fails
    [clean] = [e for e in cs.spool_entries(store) if e["clean"]]
    assert clean["sources"] == [broken] and clean["stderr"] == "" and clean["exit_code"] == 0
    ingest_spool(store)
    after = load_session(store, "s").state()
    assert not [e for e in after.build_errors if e.translation_unit == broken]
    assert any(e.translation_unit == str(root / "noinc.c") for e in after.build_errors)
    assert len(list((store / "spool" / "tu").iterdir())) == 2  # broken.c's marker is gone

    third = cs.run(["make", "-k", "CC=ccwrap"], root, env, timeout=300)
    assert third.rc != 0
    assert not [e for e in cs.spool_entries(store) if e["clean"]]  # no marker, no extra spool


def _cmake_project(root: Path) -> Path:
    root.mkdir(parents=True)
    shutil.copy(cs.SRC / "error.c", root / "error.c")
    shutil.copy(cs.SRC / "clean.c", root / "clean.c")
    (root / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(p C)\nadd_library(p STATIC clean.c error.c)\n"
    )
    return root


def test_cmake_compiler_launcher(native_dir: Path, tmp_path: Path) -> None:
    root = _cmake_project(tmp_path / "proj")
    store = tmp_path / "store"
    env = cs.base_env(native_dir, WHETSTONE_DIR=str(store))
    configure = cs.run(
        ["cmake", "-S", ".", "-B", "build", f"-DCMAKE_C_COMPILER_LAUNCHER={native_dir / 'ccwrap'}"], root, env, timeout=300
    )
    assert configure.rc == 0, configure.err.decode()
    build = cs.run(["cmake", "--build", "build", "-j2"], root, env, timeout=300)
    assert build.rc != 0
    assert b"error.c:3:" in build.out + build.err and b"fix-it:" not in build.out + build.err
    entries = [e for e in cs.spool_entries(store) if e["exit_code"]]
    assert [e["sources"] for e in entries] == [[str(root / "error.c")]]
    assert str(entries[0]["argv"][1]).endswith("cc")  # type: ignore[index]  # launcher form: ccwrap /usr/bin/cc ...


def test_cmake_with_cc_ccwrap_identifies_the_real_compiler(native_dir: Path, tmp_path: Path) -> None:
    root = _cmake_project(tmp_path / "proj")
    (root / "error.c").write_text("int f(void) { return g(); }\n")  # warns by default, compiles
    store = tmp_path / "store"
    env = cs.base_env(native_dir, WHETSTONE_DIR=str(store), CC=str(native_dir / "ccwrap"))
    configure = cs.run(["cmake", "-S", ".", "-B", "build"], root, env, timeout=300)
    assert configure.rc == 0, configure.err.decode()
    cache = (root / "build" / "CMakeCache.txt").read_text()
    assert f"CMAKE_C_COMPILER:FILEPATH={native_dir / 'ccwrap'}" in cache  # cmake drove ccwrap itself
    assert b"The C compiler identification is GNU" in configure.out
    assert b"Detecting C compiler ABI info - done" in configure.out
    assert cs.run(["cmake", "--build", "build"], root, env, timeout=300).rc == 0
    assert [Path(str(e["sources"][0])).name for e in cs.spool_entries(store)] == ["error.c"]  # type: ignore[index]


@pytest.mark.skipif(shutil.which("ccache") is None, reason="ccache not installed")
def test_ccwrap_in_front_of_ccache(native_dir: Path, tmp_path: Path) -> None:
    """`CC="ccwrap ccache gcc"`: same bytes, fix-its captured, and no cache entry shared with plain builds."""
    work = cs.copy_sources(tmp_path / "w", "warn.c")
    store = tmp_path / "store"
    env = cs.base_env(native_dir, WHETSTONE_DIR=str(store), CCACHE_DIR=str(tmp_path / "ccache"))
    args = ["ccache", "gcc", "-Wall", "-c", "warn.c", "-o"]
    fresh = cs.run(["gcc", "-Wall", "-c", "warn.c", "-o", "fresh.o"], work, env)
    plain = cs.run([*args, "plain.o"], work, env)
    assert plain.err == fresh.err and b"fix-it" not in plain.err
    for round_ in range(2):  # a miss (its own namespace), then a hit
        wrapped = cs.run([str(native_dir / "ccwrap"), *args, f"wrapped{round_}.o"], work, env)
        assert (wrapped.rc, wrapped.out, wrapped.err) == (plain.rc, plain.out, plain.err)
        entry = cs.spool_entries(store)[-1]
        assert 'fix-it:"warn.c":{4:' in str(entry["stderr"])
    again = cs.run([*args, "plain2.o"], work, env)
    assert again.err == fresh.err  # ccwrap's fix-it lines never leak into a plain build
    objects = {(work / name).read_bytes() for name in ("fresh.o", "plain.o", "wrapped0.o", "wrapped1.o", "plain2.o")}
    assert len(objects) == 1
    root = _project(tmp_path / "proj", n_warn=2)
    make = cs.run(["make", "-k", "-j2", "CC=ccwrap ccache gcc"], root, env, timeout=300)
    assert make.rc != 0 and b"fix-it" not in make.err
    assert len(cs.spool_entries(store)) == 2 + 2 + 2  # two direct runs + w0, w1, broken, noinc
