"""The projects of bench/bench_native_fix.py and how each one's source tree is laid out in a scratch directory.

Four kinds:

* our own small projects in bench/native_dev/ (exprcalc, textkit), copied as they are;
* third-party code bases downloaded at bench time as PyPI sdists into bench/_work/native_fix/ (cached,
  never committed): the library's own sources, built by a small build file written here, and tested
  either by the project's own tests (jsonnet's GoogleTest files) or by ours (bench/native_dev/<name>/:
  hiredis, fasttext, kiwi: a header-only library whose code is all templates and inline members; voro:
  voro++'s geometry loops, most of them in one 2,250-line unit);
* Debian's upstream tarballs (``apt-get source`` through a private deb-src list, bench/debian_source.py),
  tested by the project's own tests: built by a build file written here (leveldb) or by the project's own
  CMake build (cjson); or tested by ours, with our Makefile (bench/native_dev/tinyxml2: one big source file);
* third-party npm libraries that ship their own tape tests in the registry tarball: ``npm pack`` into
  bench/_work/npm/ and ``npm install --ignore-scripts`` there once (cached, never committed); the scratch
  tree is the package's files with ``node_modules`` linked to that install.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from debian_source import fetch_debian_source
from sdist_suite import fetch_sdist

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work" / "native_fix"
NPM_WORK = HERE / "_work" / "npm"
CTEST = ["ctest", "--test-dir", "build", "--output-on-failure"]


@dataclass
class Project:
    name: str
    lib: list[str]  # the files faults are seeded in
    build: list[str] | None
    test: list[str]
    configure: list[str] | None = None
    compiler_env: bool = True  # CC=ccwrap CXX=ccwrap++; False when the build names ccwrap as its launcher
    sdist: str = ""  # NAME==VERSION on PyPI when the sources are downloaded
    npm: str = ""  # NAME@VERSION on npm when the package's tarball is the project
    about: str = ""  # one line for the report
    skip: tuple[str, ...] = ()  # functions of the library files that are not the library (a self-test harness)
    debian: str = ""  # PACKAGE=DIRNAME when the sources are Debian's upstream tarball (bench/debian_source.py)


PROJECTS = {
    "exprcalc": Project(
        "exprcalc", ["src/tokenizer.cc", "src/parser.cc", "src/evaluator.cc", "src/format.cc"],
        ["cmake", "--build", "build"], CTEST, ["cmake", "-S", ".", "-B", "build", "-G", "Ninja"],
        about="bench/native_dev/exprcalc (C++, ours: CMake + Ninja through ccwrap, a static library, three "
        "gtest binaries, ctest)"),
    "textkit": Project(
        "textkit", ["lib/index.js", "lib/helpers.js"], None, ["node", "--test", "test/"],
        about="bench/native_dev/textkit (JS, ours: an anonymous exported function over helpers, node --test)"),
    "jsonnet": Project(
        "jsonnet", ["core/lexer.cpp", "core/parser.cpp", "core/string_utils.cpp"],
        ["cmake", "--build", "build"], CTEST,
        ["cmake", "-S", ".", "-B", "build", "-G", "Ninja", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccwrap"],
        compiler_env=False, sdist="jsonnet==0.20.0",
        about="jsonnet 0.20.0 from its PyPI sdist (C++: core/lexer.cpp, parser.cpp, string_utils.cpp as a static "
        "library; its own core/lexer_test.cpp and core/parser_test.cpp on the system GoogleTest; CMake + Ninja, "
        "ccwrap as the compiler launcher, ctest)"),
    "hiredis": Project(
        "hiredis", ["sds.c", "read.c", "hiredis.c"], ["make", "-s"], ["make", "-s", "check"],
        sdist="hiredis==3.5.0", skip=("sdsTest", "main"),
        about="the hiredis C library vendored in the PyPI sdist hiredis 3.5.0 (C: its sources as a static library, "
        "faults in sds.c, read.c, hiredis.c; our gtest tests of its public API in bench/native_dev/hiredis, three "
        "binaries run by `make check`; a plain Makefile with the library's own flags, CC=ccwrap CXX=ccwrap++)"),
    "fasttext": Project(
        "fasttext", ["src/vector.cc", "src/densematrix.cc", "src/dictionary.cc", "src/args.cc", "src/utils.cc",
                     "src/meter.cc", "src/productquantizer.cc", "src/quantmatrix.cc"],
        ["cmake", "--build", "build", "-j2"], CTEST,
        ["cmake", "-S", ".", "-B", "build", "-G", "Unix Makefiles", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
         "-DCMAKE_CXX_COMPILER_LAUNCHER=ccwrap"],
        compiler_env=False, sdist="fasttext==0.9.3",
        about="fasttext 0.9.3 from its PyPI sdist (C++: src/ without main.cc as a static library, faults in "
        "vector, densematrix, dictionary, args, utils, meter, productquantizer and quantmatrix; our gtest tests "
        "of its public API in bench/native_dev/fasttext, four binaries, gtest_discover_tests; CMake with Unix "
        "Makefiles, RelWithDebInfo, ccwrap as the compiler launcher, ctest)"),
    "voro": Project(
        "voro", ["src/cell.cc", "src/container.cc", "src/wall.cc", "src/v_base.cc", "src/container_prd.cc",
                 "src/pre_container.cc"],
        ["make", "-s"], ["make", "-s", "check"], sdist="pyvoro==1.3.2",
        about="voro++, the 3D Voronoi library vendored in the PyPI sdist pyvoro 1.3.2 (C++: its ten units as a "
        "static library, faults in cell.cc (2,250 lines of plane cuts: loops over vertices and edges, floating "
        "point), container, wall, v_base, container_prd and pre_container; our gtest tests of cells, shapes, "
        "containers, walls and periodic boxes in bench/native_dev/voro, 68 tests in four binaries run by "
        "`make check`; a plain Makefile, -O2 -std=c++17, CC=ccwrap CXX=ccwrap++)"),
    "kiwi": Project(
        "kiwi", ["kiwi/row.h", "kiwi/solverimpl.h", "kiwi/symbolics.h", "kiwi/strength.h", "kiwi/expression.h",
                 "kiwi/term.h", "kiwi/constraint.h", "kiwi/util.h", "kiwi/AssocVector.h"],
        ["cmake", "--build", "build"], CTEST,
        ["cmake", "-S", ".", "-B", "build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Debug",
         "-DCMAKE_CXX_COMPILER_LAUNCHER=ccwrap"],
        compiler_env=False, sdist="kiwisolver==1.4.7",
        about="kiwi, the header-only Cassowary solver in the PyPI sdist kiwisolver 1.4.7 (C++: only headers, "
        "faults in row, solverimpl, symbolics, strength, expression, term, constraint, util and AssocVector; our "
        "gtest tests of its public API and helper classes in bench/native_dev/kiwi, three binaries that each "
        "compile the headers they include, gtest_discover_tests; CMake + Ninja, Debug, ccwrap as the compiler "
        "launcher, ctest)"),
    "leveldb": Project(
        "leveldb", ["util/coding.cc", "util/logging.cc", "util/hash.cc", "util/bloom.cc", "util/cache.cc",
                    "util/arena.cc", "util/status.cc", "db/dbformat.cc", "db/filename.cc", "db/version_edit.cc",
                    "db/write_batch.cc", "table/block.cc", "table/block_builder.cc", "table/filter_block.cc",
                    "table/format.cc"],
        ["cmake", "--build", "build"], CTEST,
        ["cmake", "-S", ".", "-B", "build", "-G", "Ninja", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccwrap"],
        compiler_env=False, debian="leveldb=leveldb-1.23",
        about="leveldb 1.23, Debian bookworm's upstream tarball (C++: the whole library as a static library; its own "
        "GoogleTest files under util/, db/ and table/ on the system GoogleTest and gmock, one binary each, "
        "gtest_discover_tests; CMake + Ninja, ccwrap as the compiler launcher, ctest; needs libgmock-dev)"),
    "cjson": Project(
        "cjson", ["cJSON.c"],
        ["cmake", "--build", "build"], CTEST,
        ["cmake", "-S", ".", "-B", "build", "-G", "Ninja", "-DCMAKE_C_COMPILER_LAUNCHER=ccwrap",
         "-DENABLE_CJSON_TEST=ON", "-DENABLE_CJSON_UTILS=OFF", "-DBUILD_SHARED_LIBS=OFF",
         "-DENABLE_CUSTOM_COMPILER_FLAGS=OFF", "-DENABLE_VALGRIND=OFF", "-DENABLE_SANITIZERS=OFF"],
        compiler_env=False, debian="cjson=cJSON-1.7.15",
        about="cJSON 1.7.15, Debian bookworm's upstream tarball (C: one big cJSON.c of 115 functions, as a "
        "static library, faults in cJSON.c; its own Unity tests under tests/, 18 binaries, and test.c, one ctest "
        "test each; its own CMake with -DENABLE_CJSON_TEST=ON and without its -Werror flags, valgrind or "
        "sanitizers, Ninja, ccwrap as the C compiler launcher, ctest)"),
    "tinyxml2": Project(
        "tinyxml2", ["tinyxml2.cpp"], ["make", "-s"], ["make", "-s", "check"],
        debian="tinyxml2=tinyxml2-9.0.0",
        about="tinyxml2 9.0.0, Debian bookworm's upstream tarball (C++: one big tinyxml2.cpp of about 3000 lines "
        "and 200 functions, as a static library, faults in tinyxml2.cpp; our gtest tests of its API in "
        "bench/native_dev/tinyxml2, not its xmltest.cpp: parsing and the DOM, attributes and typed values, "
        "printing and whitespace, errors and entities, 102 tests in four binaries run by `make check`; a plain Makefile, "
        "-g -O0 -std=c++17, CC=ccwrap CXX=ccwrap++)"),
    "double-conversion": Project(
        "double-conversion", [f"double-conversion/{f}.cc" for f in (
            "bignum", "bignum-dtoa", "cached-powers", "double-to-string", "fast-dtoa", "fixed-dtoa",
            "string-to-double", "strtod")],
        ["cmake", "--build", "build"], CTEST,
        ["cmake", "-S", ".", "-B", "build", "-G", "Ninja", "-DBUILD_TESTING=ON",
         "-DCMAKE_CXX_COMPILER_LAUNCHER=ccwrap"],
        compiler_env=False, debian="double-conversion=double-conversion-3.2.1",
        about="double-conversion 3.2.1, Debian bookworm's upstream tarball (C++, Google style: bignums, "
        "shortest and fixed dtoa, strtod, as a static library, faults in its eight .cc files; its own tests "
        "under test/cctest, one `cctest` binary of its own harness (not GoogleTest) that ctest runs once per "
        "test file, `cctest test-bignum`, judged by exit status; its own CMake with -DBUILD_TESTING=ON, "
        "Ninja, ccwrap as the compiler launcher, ctest)"),
    "object-inspect": Project(
        "object-inspect", ["index.js"], None, ["node_modules/.bin/tape", "test/*.js"], npm="object-inspect@1.12.3",
        about="object-inspect 1.12.3 from its npm tarball (JS: one big index.js of `function` declarations and "
        "closures; its own 18 tape files, `tape 'test/*.js'`)"),
    "traverse": Project(
        "traverse", ["index.js"], None, ["node_modules/.bin/tape", "test/**/*.js"], npm="traverse@0.6.11",
        about="traverse 0.6.11 from its npm tarball (JS: a walker built of closures and prototype methods "
        "assigned in a forEach; its own 19 tape files, `tape 'test/**/*.js'`)"),
    "deep-equal": Project(
        "deep-equal", ["index.js"], None, ["node_modules/.bin/tape", "test/**/*.js"], npm="deep-equal@2.2.3",
        about="deep-equal 2.2.3 from its npm tarball (JS: `function` declarations over many helper packages; "
        "its own tape file test/cmp.js, `tape 'test/**/*.js'`)"),
    "function-bind": Project(
        "function-bind", ["implementation.js"], None, ["node_modules/.bin/tape", "test/**/*.js"],
        npm="function-bind@1.1.2",
        about="function-bind 1.1.2 from its npm tarball (JS: index.js re-exports implementation.js, "
        "`var f = function`; its own tape file, `tape 'test/**/*.js'`)"),
}

JSONNET_CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(jsonnet_core CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(GTest REQUIRED)
enable_testing()
add_library(jsonnet_core STATIC core/lexer.cpp core/parser.cpp core/string_utils.cpp)
target_include_directories(jsonnet_core PUBLIC core include)
include(GoogleTest)
foreach(t lexer parser)
  add_executable(${t}_test core/${t}_test.cpp)
  target_link_libraries(${t}_test PRIVATE jsonnet_core GTest::gtest_main)
  gtest_discover_tests(${t}_test)
endforeach()
"""


def materialize(project: Project, dest: Path) -> None:
    """The project's source tree at ``dest`` (a directory that does not exist yet)."""
    if project.npm:
        _npm(project.npm, dest)
        return
    if not project.sdist and not project.debian:
        shutil.copytree(HERE / "native_dev" / project.name, dest)
        return
    if project.debian:
        package, dirname = project.debian.split("=")
        root = fetch_debian_source(package, dirname, WORK)
        if project.name in ("cjson", "double-conversion"):
            shutil.copytree(root, dest)  # its own CMakeLists.txt and tests, as they are
        elif project.name == "tinyxml2":
            _tinyxml2(root, dest)
        else:
            _leveldb(root, dest)
        return
    name, version = project.sdist.split("==")
    root = fetch_sdist(project.sdist, f"{name}-{version}", WORK)
    if project.name == "jsonnet":
        _jsonnet(root, dest)
    elif project.name == "hiredis":
        _hiredis(root, dest)
    elif project.name == "fasttext":
        _fasttext(root, dest)
    elif project.name == "kiwi":
        _kiwi(root, dest)
    elif project.name == "voro":
        _voro(root, dest)


def _jsonnet(root: Path, dest: Path) -> None:
    (dest / "core").mkdir(parents=True)
    wanted = {"lexer.cpp", "parser.cpp", "string_utils.cpp", "lexer_test.cpp", "parser_test.cpp"}
    for src in sorted((root / "core").iterdir()):
        if src.suffix == ".h" or src.name in wanted:
            shutil.copy2(src, dest / "core" / src.name)
    shutil.copytree(root / "include", dest / "include")
    (dest / "CMakeLists.txt").write_text(JSONNET_CMAKE)


def _hiredis(root: Path, dest: Path) -> None:
    vendor = root / "vendor" / "hiredis"
    shutil.copytree(HERE / "native_dev" / "hiredis", dest)  # our Makefile and tests
    for src in sorted(vendor.iterdir()):
        if src.suffix == ".h" or src.name in {"sds.c", "read.c", "hiredis.c", "alloc.c", "net.c",
                                                   "async.c", "dict.c", "sockcompat.c"}:
            shutil.copy2(src, dest / src.name)


FASTTEXT_TESTS = ["vector_matrix", "dictionary", "args_utils", "meter_quant"]
FASTTEXT_CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(fasttext_bench CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(GTest REQUIRED)
find_package(Threads REQUIRED)
enable_testing()
file(GLOB LIB_SOURCES src/*.cc)
list(FILTER LIB_SOURCES EXCLUDE REGEX "/main\\\\.cc$")
add_library(fasttext STATIC ${LIB_SOURCES})
target_include_directories(fasttext PUBLIC src)
target_link_libraries(fasttext PUBLIC Threads::Threads)
include(GoogleTest)
foreach(t @TESTS@)
  add_executable(${t}_test tests/${t}_test.cpp)
  target_link_libraries(${t}_test PRIVATE fasttext GTest::gtest_main)
  gtest_discover_tests(${t}_test)
endforeach()
"""


def _fasttext(root: Path, dest: Path) -> None:
    shutil.copytree(HERE / "native_dev" / "fasttext", dest)  # our tests
    shutil.copytree(root / "src", dest / "src")
    (dest / "CMakeLists.txt").write_text(FASTTEXT_CMAKE.replace("@TESTS@", " ".join(FASTTEXT_TESTS)))


KIWI_TESTS = ["symbolics", "solver", "row_map"]
KIWI_CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(kiwi_bench CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(GTest REQUIRED)
enable_testing()
add_library(kiwi INTERFACE)
target_include_directories(kiwi INTERFACE .)
include(GoogleTest)
foreach(t @TESTS@)
  add_executable(${t}_test tests/${t}_test.cpp)
  target_link_libraries(${t}_test PRIVATE kiwi GTest::gtest_main)
  gtest_discover_tests(${t}_test)
endforeach()
"""


def _kiwi(root: Path, dest: Path) -> None:
    """Our tests, the library's headers as kiwi/*.h (no sources: every test binary compiles what it includes)."""
    shutil.copytree(HERE / "native_dev" / "kiwi", dest)
    (dest / "kiwi").mkdir()
    for src in sorted((root / "kiwi").glob("*.h")):
        shutil.copy2(src, dest / "kiwi" / src.name)
    (dest / "CMakeLists.txt").write_text(KIWI_CMAKE.replace("@TESTS@", " ".join(KIWI_TESTS)))


LEVELDB_TESTS = ["util/arena", "util/bloom", "util/cache", "util/coding", "util/crc32c", "util/hash", "util/logging",
                 "util/status", "db/dbformat", "db/filename", "db/log", "db/version_edit",
                 "db/write_batch", "table/filter_block", "table/table"]
LEVELDB_CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(leveldb_bench CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(GTest REQUIRED)
find_package(Threads REQUIRED)
enable_testing()
file(GLOB LIB_SOURCES db/*.cc table/*.cc util/*.cc helpers/memenv/*.cc)
list(FILTER LIB_SOURCES EXCLUDE REGEX "(_test|_bench|testutil|env_windows|_main)\\\\.cc$")
add_library(leveldb STATIC ${LIB_SOURCES})
target_include_directories(leveldb PUBLIC . include)
target_compile_definitions(leveldb PUBLIC LEVELDB_PLATFORM_POSIX=1 LEVELDB_IS_BIG_ENDIAN=0)
target_link_libraries(leveldb PUBLIC Threads::Threads)
add_library(leveldb_testutil STATIC util/testutil.cc)
target_link_libraries(leveldb_testutil PUBLIC leveldb GTest::gtest GTest::gmock)
include(GoogleTest)
foreach(t @TESTS@)
  get_filename_component(name ${t} NAME)
  add_executable(${name}_test ${t}_test.cc)
  target_link_libraries(${name}_test PRIVATE leveldb_testutil GTest::gtest GTest::gmock)
  gtest_discover_tests(${name}_test)
endforeach()
"""
PORT_CONFIG = """\
#ifndef STORAGE_LEVELDB_PORT_PORT_CONFIG_H_
#define STORAGE_LEVELDB_PORT_PORT_CONFIG_H_
#define HAVE_FDATASYNC 1
#define HAVE_FULLFSYNC 0
#define HAVE_O_CLOEXEC 1
#define HAVE_CRC32C 0
#define HAVE_SNAPPY 0
#endif
"""


def _leveldb(root: Path, dest: Path) -> None:
    for part in ("db", "table", "util", "include", "port", "helpers"):
        shutil.copytree(root / part, dest / part)
    (dest / "port" / "port_config.h").write_text(PORT_CONFIG)
    (dest / "CMakeLists.txt").write_text(LEVELDB_CMAKE.replace("@TESTS@", " ".join(LEVELDB_TESTS)))


def _voro(root: Path, dest: Path) -> None:
    """Our Makefile and tests, the library's src/ beside them (not pyvoro's Python wrapper)."""
    shutil.copytree(HERE / "native_dev" / "voro", dest)
    shutil.copytree(root / "src", dest / "src")


def _tinyxml2(root: Path, dest: Path) -> None:
    """Our Makefile and tests, the library's one source file and its header beside them (not its xmltest.cpp)."""
    shutil.copytree(HERE / "native_dev" / "tinyxml2", dest)
    for name in ("tinyxml2.cpp", "tinyxml2.h"):
        shutil.copy2(root / name, dest / name)


def fetch_npm(spec: str) -> Path:
    """``bench/_work/npm/NAME-VERSION``: the package's tarball from ``npm pack``, extracted, its dependencies
    and devDependencies installed without running any install script; done once."""
    name, version = spec.rsplit("@", 1)
    root = NPM_WORK / f"{name}-{version}"
    if (root / "node_modules").is_dir():
        return root
    NPM_WORK.mkdir(parents=True, exist_ok=True)
    tgz = NPM_WORK / f"{name}-{version}.tgz"
    if not tgz.exists():
        subprocess.run(["npm", "pack", spec, "--silent"], cwd=NPM_WORK, check=True, capture_output=True)
    root.mkdir(exist_ok=True)
    with tarfile.open(tgz) as tar:
        for member in tar.getmembers():
            member.name = member.name.split("/", 1)[1] if "/" in member.name else ""
            if member.name and not member.issym() and not member.islnk():
                tar.extract(member, root)  # noqa: S202 - a registry tarball we just downloaded
    subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                   cwd=root, check=True, capture_output=True)
    return root


def _npm(spec: str, dest: Path) -> None:
    root = fetch_npm(spec)
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns("node_modules", "package-lock.json"))
    (dest / "node_modules").symlink_to(root / "node_modules", target_is_directory=True)
