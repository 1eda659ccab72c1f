"""The held-out C++ corpus of bench/bench_native_heldout_cxx.py: code bases, builds, seeded faults.

Three real C++ code bases that neither the tests nor the development benches use, downloaded
from PyPI at bench time into bench/_work/ (never committed):

* ninja 1.13.2 (the ``ninja`` sdist's ninja-upstream/src): its own GoogleTest tests
  (util, text, parser, graph and log test files), CMake + Ninja, ``gtest_discover_tests``;
* marisa-trie (the ``marisa-trie`` 1.4.1 sdist's marisa-trie/): CMake + Ninja, with a gtest file
  of assertions about its documented behaviour (keysets, lookups, prefix and predictive searches,
  save/load, the rank/select bit vector) written here;
* Clipper 6.4.2 (the ``pyclipper`` 1.4.0 sdist's src/clipper.cpp): a plain Makefile,
  ``make check`` running one gtest binary per test file, the test files written here.

The library code is real; only the test code of the last two is bench code.  Faults are one
tree-sitter edit inside a library function: comparison and arithmetic swaps, off-by-one
literals, wrong constants, wrong return values, swapped arguments, dropped negations.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tree_sitter_cpp
from tree_sitter import Language, Node, Parser

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work" / "native_heldout_cxx"
SDISTS = WORK / "sdists"

CPP = Language(tree_sitter_cpp.language())


DATA = Path(__file__).resolve().parent / "native_heldout"  # bench code: tests and a Makefile for the held-out libraries


@dataclass
class CodeBase:
    name: str
    version: str  # what was downloaded
    style: str  # "cmake" | "make"
    root: Path
    build_cmd: str
    test_cmd: str
    full_build_cmd: str  # a full rebuild (clean first)
    fault_files: list[str]  # library sources faults are seeded in
    quota: int
    sources: list[str] = field(default_factory=list)  # every file a fault or the bench may touch
    test_timeout_s: float = 300.0
    cmake_args: str = ""  # more -D options for the configure step


# --------------------------------------------------------------------------- downloads


def _sdist(spec: str, stem: str) -> Path:
    """The unpacked sdist ``stem`` (downloaded once into bench/_work/)."""
    unpacked = SDISTS / stem
    if unpacked.is_dir():
        return unpacked
    SDISTS.mkdir(parents=True, exist_ok=True)
    name = spec.split("==")[0]
    if not list(SDISTS.glob(stem + ".tar.gz")):
        # --no-binary for the package only: its build dependencies come as wheels
        subprocess.run([sys.executable, "-m", "pip", "-q", "download", "--no-deps", "--no-binary", name, spec,
                        "-d", str(SDISTS)], check=True, capture_output=True, timeout=900)
    with tarfile.open(next(SDISTS.glob(stem + ".tar.gz"))) as tar:
        tar.extractall(SDISTS, filter="data")
    return unpacked


# --------------------------------------------------------------------------- ninja (CMake, its own tests)

NINJA_LIB = """build_log.cc build.cc clean.cc clparser.cc dyndep.cc dyndep_parser.cc debug_flags.cc deps_log.cc
disk_interface.cc edit_distance.cc elide_middle.cc eval_env.cc graph.cc graphviz.cc jobserver.cc
jobserver-posix.cc json.cc line_printer.cc manifest_parser.cc metrics.cc missing_deps.cc parser.cc
real_command_runner.cc state.cc status_printer.cc string_piece_util.cc util.cc version.cc
subprocess-posix.cc depfile_parser.cc lexer.cc""".split()

NINJA_TESTS = {
    "util_test": ["util_test.cc"],
    "text_test": ["edit_distance_test.cc", "elide_middle_test.cc", "string_piece_util_test.cc", "json_test.cc"],
    "parser_test": ["lexer_test.cc", "manifest_parser_test.cc", "depfile_parser_test.cc", "dyndep_parser_test.cc",
                    "clparser_test.cc"],
    "graph_test": ["graph_test.cc", "state_test.cc", "missing_deps_test.cc"],
    "log_test": ["build_log_test.cc", "deps_log_test.cc", "disk_interface_test.cc"],
}

# hand-written library code the test files above exercise (lexer.cc and depfile_parser.cc are re2c output)
NINJA_FAULT_FILES = ["util.cc", "edit_distance.cc", "elide_middle.cc", "string_piece_util.cc", "json.cc",
                     "eval_env.cc", "manifest_parser.cc", "graph.cc", "state.cc", "build_log.cc", "deps_log.cc",
                     "clparser.cc", "dyndep_parser.cc", "disk_interface.cc", "missing_deps.cc"]


def _cmake_lists(project: str, lib: str, sources: list[str], includes: list[str], tests: dict[str, list[str]],
                 extra_test_lib: list[str] | None = None, std: int = 14) -> str:
    lines = [
        "cmake_minimum_required(VERSION 3.16)",
        f"project({project} CXX)",
        f"set(CMAKE_CXX_STANDARD {std})",
        "find_package(GTest REQUIRED)",
        "find_package(Threads REQUIRED)",
        "include(GoogleTest)",
        "enable_testing()",
        f"add_library({lib} STATIC",
        *[f"  {s}" for s in sources],
        ")",
        f"target_include_directories({lib} PUBLIC {' '.join(includes)})",
    ]
    link = lib
    if extra_test_lib:
        lines += [f"add_library({lib}_testutil STATIC {' '.join(extra_test_lib)})",
                  f"target_link_libraries({lib}_testutil PUBLIC {lib} GTest::gtest)"]
        link = f"{lib}_testutil"
    for name, files in tests.items():
        lines += [f"add_executable({name} {' '.join(files)})",
                  f"target_link_libraries({name} PRIVATE {link} GTest::gtest_main Threads::Threads)",
                  f"gtest_discover_tests({name})"]
    return "\n".join(lines) + "\n"


def _cmake_codebase(name: str, version: str, root: Path, fault_files: list[str], quota: int) -> CodeBase:
    return CodeBase(name, version, "cmake", root, "cmake --build build -j2", "ctest --test-dir build --output-on-failure",
                    "cmake --build build -j2 --clean-first", fault_files, quota)


def ninja(quota: int) -> CodeBase:
    base = _sdist("ninja==1.13.2", "ninja-1.13.2") / "ninja-upstream"
    root = WORK / "ninja"
    shutil.copytree(base / "src", root / "src")
    tests = {name: [f"src/{f}" for f in files] for name, files in NINJA_TESTS.items()}
    (root / "CMakeLists.txt").write_text(_cmake_lists("ninjacore", "ninjacore", [f"src/{s}" for s in NINJA_LIB],
                                                      ["src"], tests, ["src/test.cc"]))
    return _cmake_codebase("ninja", "ninja 1.13.2 (PyPI sdist, ninja-upstream/src)", root,
                           [f"src/{f}" for f in NINJA_FAULT_FILES], quota)


# --------------------------------------------------------------------------- marisa-trie (CMake, tests written here)

MARISA_LIB = ["lib/marisa/agent.cc", "lib/marisa/keyset.cc", "lib/marisa/trie.cc",
              "lib/marisa/grimoire/io/mapper.cc", "lib/marisa/grimoire/io/reader.cc",
              "lib/marisa/grimoire/io/writer.cc", "lib/marisa/grimoire/trie/louds-trie.cc",
              "lib/marisa/grimoire/trie/tail.cc", "lib/marisa/grimoire/vector/bit-vector.cc"]

MARISA_TRIE_TEST = (DATA / "marisa/trie_test.cc").read_text()

MARISA_KEYSET_TEST = (DATA / "marisa/keyset_test.cc").read_text()

MARISA_BITVECTOR_TEST = (DATA / "marisa/bit_vector_test.cc").read_text()


def marisa(quota: int) -> CodeBase:
    base = _sdist("marisa-trie==1.4.1", "marisa_trie-1.4.1") / "marisa-trie"
    root = WORK / "marisa"
    shutil.copytree(base / "include", root / "include")
    shutil.copytree(base / "lib", root / "lib")
    tests = root / "tests"
    tests.mkdir()
    (tests / "trie_test.cc").write_text(MARISA_TRIE_TEST)
    (tests / "keyset_test.cc").write_text(MARISA_KEYSET_TEST)
    (tests / "bit_vector_test.cc").write_text(MARISA_BITVECTOR_TEST)
    names = {"trie_test": ["tests/trie_test.cc"], "keyset_test": ["tests/keyset_test.cc"],
             "bit_vector_test": ["tests/bit_vector_test.cc"]}
    (root / "CMakeLists.txt").write_text(_cmake_lists("marisa", "marisa", MARISA_LIB, ["include", "lib"], names, std=17))
    return _cmake_codebase("marisa", "marisa-trie (PyPI marisa-trie 1.4.1 sdist, marisa-trie/)", root,
                           list(MARISA_LIB), quota)


# --------------------------------------------------------------------------- Clipper (Makefile, tests written here)

CLIPPER_MAKEFILE = (DATA / "clipper/Makefile").read_text()

CLIPPER_GEOMETRY_TEST = (DATA / "clipper/geometry_test.cc").read_text()

CLIPPER_CLIP_TEST = (DATA / "clipper/clip_test.cc").read_text()

CLIPPER_OFFSET_TEST = (DATA / "clipper/offset_test.cc").read_text()

CLIPPER_SIMPLIFY_TEST = (DATA / "clipper/simplify_test.cc").read_text()


def clipper(quota: int) -> CodeBase:
    base = _sdist("pyclipper==1.4.0", "pyclipper-1.4.0")
    root = WORK / "clipper"
    (root / "src").mkdir(parents=True)
    for name in ("clipper.cpp", "clipper.hpp"):
        shutil.copyfile(base / "src" / name, root / "src" / name)
    (root / "tests").mkdir()
    for name, text in (("geometry_test.cc", CLIPPER_GEOMETRY_TEST), ("clip_test.cc", CLIPPER_CLIP_TEST),
                       ("offset_test.cc", CLIPPER_OFFSET_TEST), ("simplify_test.cc", CLIPPER_SIMPLIFY_TEST)):
        (root / "tests" / name).write_text(text)
    (root / "Makefile").write_text(CLIPPER_MAKEFILE)
    return CodeBase("clipper", "Clipper 6.4.2 (PyPI pyclipper 1.4.0 sdist, src/clipper.cpp)", "make", root,
                    "make -j2 CXX=ccwrap++", "make check CXX=ccwrap++", "make clean && make -j2 CXX=ccwrap++",
                    ["src/clipper.cpp"], quota)


def corpus(quotas: dict[str, int]) -> list[CodeBase]:
    """Fresh copies of the code bases (a run never inherits another's edits or builds)."""
    out: list[CodeBase] = []
    makers = {"ninja": ninja, "marisa": marisa, "clipper": clipper}
    for name, quota in quotas.items():
        shutil.rmtree(WORK / name, ignore_errors=True)
        cb = makers[name](quota)
        cb.sources = sorted(p.relative_to(cb.root).as_posix() for p in cb.root.rglob("*")
                            if p.is_file() and p.suffix in (".cc", ".cpp", ".h", ".hpp", ".txt") or p.name == "Makefile")
        out.append(cb)
    return out


# --------------------------------------------------------------------------- faults

KINDS = ("comparison swap", "arithmetic swap", "off-by-one literal", "wrong constant", "wrong return value",
         "swapped arguments", "dropped negation")
_CMP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
_ARITH = {"+": "-", "-": "+", "*": "/", "/": "*"}


@dataclass
class Fault:
    codebase: str
    kind: str
    file: str
    start: int  # byte offsets of the replaced text
    end: int
    new: bytes
    line: int  # 1-based line of the edit
    fn_start: int  # 1-based lines of the enclosing function
    fn_end: int
    key: str = ""

    def apply(self, original: bytes) -> bytes:
        return original[: self.start] + self.new + original[self.end :]


def _walk(node: Node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _functions(root: Node):
    for n in _walk(root):
        if n.type == "function_definition" and n.child_by_field_name("body") is not None:
            yield n


def _returns_bool(fn: Node) -> bool:
    t = fn.child_by_field_name("type")
    return t is not None and t.text == b"bool"


def _number(text: bytes) -> int | None:
    try:
        return int(text.rstrip(b"uUlL"), 0)
    except ValueError:
        return None


def seed(cb: CodeBase, rng: random.Random) -> list[Fault]:
    """Every candidate fault of the code base, shuffled, kinds interleaved (one of each kind in turn)."""
    parser = Parser(CPP)
    by_kind: dict[str, list[Fault]] = {k: [] for k in KINDS}
    for rel in cb.fault_files:
        src = (cb.root / rel).read_bytes()
        tree = parser.parse(src)
        for fn in _functions(tree.root_node):
            lo, hi = fn.start_point[0] + 1, fn.end_point[0] + 1
            if hi - lo < 2:
                continue

            def add(kind: str, node: Node, new: bytes, start: int | None = None, end: int | None = None,
                    rel: str = rel, src: bytes = src, lo: int = lo, hi: int = hi) -> None:
                s = node.start_byte if start is None else start
                e = node.end_byte if end is None else end
                line = src[:s].count(b"\n") + 1
                by_kind[kind].append(Fault(cb.name, kind, rel, s, e, new, line, lo, hi, f"{cb.name}:{rel}:{s}:{e}:{kind}"))

            for n in _walk(fn.child_by_field_name("body")):
                if n.type == "binary_expression":
                    op = n.child_by_field_name("operator")
                    if op is None:
                        continue
                    o = op.text.decode()
                    if o in _CMP:
                        add("comparison swap", op, _CMP[o].encode())
                    elif o in _ARITH:
                        add("arithmetic swap", op, _ARITH[o].encode())
                elif n.type == "number_literal":
                    v = _number(n.text)
                    if v is None or (n.parent is not None and n.parent.type in ("subscript_argument_list", "template_argument_list")):
                        continue
                    add("off-by-one literal", n, str(v + 1).encode() if v < 2 or rng.random() < 0.5 else str(v - 1).encode())
                    if v >= 2:
                        add("wrong constant", n, str(v * 2).encode())
                elif n.type in ("true", "false") and (n.parent is None or n.parent.type != "return_statement"):
                    add("wrong constant", n, b"false" if n.type == "true" else b"true")
                elif n.type == "return_statement":
                    value = next((c for c in n.named_children if c.type != "comment"), None)
                    if value is None:
                        continue
                    if value.type in ("true", "false"):
                        add("wrong return value", value, b"false" if value.type == "true" else b"true")
                    elif value.type == "number_literal" and _number(value.text) is not None:
                        v = _number(value.text)
                        add("wrong return value", value, b"1" if v == 0 else b"0")
                    elif _returns_bool(fn) and value.type in ("identifier", "call_expression", "field_expression"):
                        add("wrong return value", value, b"!" + value.text)
                elif n.type == "call_expression":
                    args = n.child_by_field_name("arguments")
                    named = [a for a in args.named_children if a.type != "comment"] if args is not None else []
                    if len(named) >= 2 and named[0].text != named[1].text and b"\n" not in named[0].text + named[1].text:
                        a, b = named[0], named[1]
                        mid = src[a.end_byte : b.start_byte]
                        add("swapped arguments", a, b.text + mid + a.text, a.start_byte, b.end_byte)
                elif n.type == "unary_expression":
                    op = n.child_by_field_name("operator")
                    if op is not None and op.text == b"!":
                        add("dropped negation", op, b"")
    return interleaved(by_kind, rng)


def interleaved(by_kind: dict[str, list[Any]], rng: random.Random) -> list[Any]:
    """Each kind's pool shuffled with ``rng`` (in the dict's order), then one of each kind in turn."""
    for pool in by_kind.values():
        rng.shuffle(pool)
    out: list[Any] = []
    while any(by_kind.values()):
        for pool in by_kind.values():
            if pool:
                out.append(pool.pop())
    return out
