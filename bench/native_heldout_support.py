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

import tree_sitter_cpp
from tree_sitter import Language, Node, Parser

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work" / "native_heldout_cxx"
SDISTS = WORK / "sdists"

CPP = Language(tree_sitter_cpp.language())


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

MARISA_TRIE_TEST = r"""#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "marisa/trie.h"

namespace {

const std::vector<std::string> kWords = {"a", "app", "apple", "application", "apply", "banana", "band", "bandana", "can"};

void BuildWords(marisa::Trie &trie, int flags = 0) {
  marisa::Keyset keyset;
  for (const std::string &w : kWords) keyset.push_back(w.c_str());
  trie.build(keyset, flags);
}

bool Lookup(const marisa::Trie &trie, const std::string &key, std::size_t *id = nullptr) {
  marisa::Agent agent;
  agent.set_query(key.c_str(), key.length());
  if (!trie.lookup(agent)) return false;
  if (id != nullptr) *id = agent.key().id();
  return true;
}

std::string Reverse(const marisa::Trie &trie, std::size_t id) {
  marisa::Agent agent;
  agent.set_query(id);
  trie.reverse_lookup(agent);
  return std::string(agent.key().ptr(), agent.key().length());
}

std::vector<std::string> Predict(const marisa::Trie &trie, const std::string &prefix) {
  marisa::Agent agent;
  agent.set_query(prefix.c_str(), prefix.length());
  std::vector<std::string> out;
  while (trie.predictive_search(agent)) out.emplace_back(agent.key().ptr(), agent.key().length());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Prefixes(const marisa::Trie &trie, const std::string &query) {
  marisa::Agent agent;
  agent.set_query(query.c_str(), query.length());
  std::vector<std::string> out;
  while (trie.common_prefix_search(agent)) out.emplace_back(agent.key().ptr(), agent.key().length());
  return out;
}

std::vector<std::string> Numbers(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(std::to_string(i * 7919 % 100003));
  return out;
}

}  // namespace

TEST(TrieTest, BuildsAndCountsKeys) {
  marisa::Trie trie;
  EXPECT_ANY_THROW(trie.num_keys());  // an unbuilt trie has no state
  BuildWords(trie);
  EXPECT_FALSE(trie.empty());
  EXPECT_EQ(trie.num_keys(), kWords.size());
  EXPECT_EQ(trie.size(), kWords.size());
  EXPECT_GT(trie.num_nodes(), 0u);
}

TEST(TrieTest, LooksUpEveryKeyAndNothingElse) {
  marisa::Trie trie;
  BuildWords(trie);
  for (const std::string &w : kWords) EXPECT_TRUE(Lookup(trie, w)) << w;
  EXPECT_FALSE(Lookup(trie, "ap"));
  EXPECT_FALSE(Lookup(trie, "appl"));
  EXPECT_FALSE(Lookup(trie, "bananas"));
  EXPECT_FALSE(Lookup(trie, ""));
  EXPECT_FALSE(Lookup(trie, "zebra"));
}

TEST(TrieTest, IdsAreDenseAndReverseLookupRoundTrips) {
  marisa::Trie trie;
  BuildWords(trie);
  std::set<std::size_t> ids;
  for (const std::string &w : kWords) {
    std::size_t id = 0;
    ASSERT_TRUE(Lookup(trie, w, &id));
    EXPECT_LT(id, kWords.size());
    ids.insert(id);
    EXPECT_EQ(Reverse(trie, id), w);
  }
  EXPECT_EQ(ids.size(), kWords.size());
}

TEST(TrieTest, CommonPrefixSearchFindsPrefixesShortestFirst) {
  marisa::Trie trie;
  BuildWords(trie);
  EXPECT_EQ(Prefixes(trie, "applications"), (std::vector<std::string>{"a", "app", "application"}));
  EXPECT_EQ(Prefixes(trie, "bandanas"), (std::vector<std::string>{"band", "bandana"}));
  EXPECT_TRUE(Prefixes(trie, "xyz").empty());
}

TEST(TrieTest, PredictiveSearchFindsCompletions) {
  marisa::Trie trie;
  BuildWords(trie);
  EXPECT_EQ(Predict(trie, "app"), (std::vector<std::string>{"app", "apple", "application", "apply"}));
  EXPECT_EQ(Predict(trie, "band"), (std::vector<std::string>{"band", "bandana"}));
  EXPECT_EQ(Predict(trie, "").size(), kWords.size());
  EXPECT_TRUE(Predict(trie, "cat").empty());
}

TEST(TrieTest, DuplicateKeysCountOnce) {
  marisa::Keyset keyset;
  keyset.push_back("same");
  keyset.push_back("same");
  keyset.push_back("other");
  marisa::Trie trie;
  trie.build(keyset);
  EXPECT_EQ(trie.num_keys(), 2u);
  EXPECT_EQ(keyset[0].id(), keyset[1].id());
  EXPECT_NE(keyset[0].id(), keyset[2].id());
}

TEST(TrieTest, KeysetIdsMatchLookups) {
  marisa::Keyset keyset;
  for (const std::string &w : kWords) keyset.push_back(w.c_str());
  marisa::Trie trie;
  trie.build(keyset);
  for (std::size_t i = 0; i < keyset.size(); ++i) {
    std::size_t id = 0;
    ASSERT_TRUE(Lookup(trie, kWords[i], &id));
    EXPECT_EQ(keyset[i].id(), id);
  }
}

TEST(TrieTest, ManyKeysAllFoundWithEveryConfig) {
  const std::vector<std::string> keys = Numbers(2000);
  const std::set<std::string> unique(keys.begin(), keys.end());
  const int configs[] = {0, MARISA_TEXT_TAIL, MARISA_BINARY_TAIL, 1 | MARISA_LABEL_ORDER, 5 | MARISA_WEIGHT_ORDER};
  for (int flags : configs) {
    marisa::Keyset keyset;
    for (const std::string &k : keys) keyset.push_back(k.c_str());
    marisa::Trie trie;
    trie.build(keyset, flags);
    EXPECT_EQ(trie.num_keys(), unique.size()) << flags;
    for (const std::string &k : unique) {
      std::size_t id = 0;
      ASSERT_TRUE(Lookup(trie, k, &id)) << k << " flags " << flags;
      EXPECT_EQ(Reverse(trie, id), k);
    }
    std::size_t starting_with_1 = 0;
    for (const std::string &k : unique) starting_with_1 += k[0] == '1';
    EXPECT_EQ(Predict(trie, "1").size(), starting_with_1);
  }
}

TEST(TrieTest, ReportsItsConfiguration) {
  marisa::Trie trie;
  BuildWords(trie, 2 | MARISA_BINARY_TAIL | MARISA_WEIGHT_ORDER);
  EXPECT_EQ(trie.tail_mode(), MARISA_BINARY_TAIL);
  EXPECT_EQ(trie.node_order(), MARISA_WEIGHT_ORDER);
  EXPECT_LE(trie.num_tries(), 2u);
  marisa::Trie text;
  BuildWords(text, MARISA_TEXT_TAIL | MARISA_LABEL_ORDER);
  EXPECT_EQ(text.tail_mode(), MARISA_TEXT_TAIL);
  EXPECT_EQ(text.node_order(), MARISA_LABEL_ORDER);
}

TEST(TrieTest, BinaryKeysWithNulBytes) {
  const std::string a("ab\0cd", 5), b("ab\0ce", 5), c("ab", 2);
  marisa::Keyset keyset;
  keyset.push_back(a.data(), a.size());
  keyset.push_back(b.data(), b.size());
  keyset.push_back(c.data(), c.size());
  marisa::Trie trie;
  trie.build(keyset);
  EXPECT_EQ(trie.tail_mode(), MARISA_BINARY_TAIL);
  std::size_t id = 0;
  ASSERT_TRUE(Lookup(trie, a, &id));
  EXPECT_EQ(Reverse(trie, id), a);
  EXPECT_TRUE(Lookup(trie, b));
  EXPECT_TRUE(Lookup(trie, c));
  EXPECT_FALSE(Lookup(trie, std::string("ab\0c", 4)));
}

TEST(TrieTest, SaveAndLoadRoundTrip) {
  marisa::Trie trie;
  BuildWords(trie);
  const std::string path = ::testing::TempDir() + "marisa_roundtrip.bin";
  trie.save(path.c_str());
  marisa::Trie loaded;
  loaded.load(path.c_str());
  EXPECT_EQ(loaded.num_keys(), trie.num_keys());
  EXPECT_EQ(loaded.io_size(), trie.io_size());
  for (const std::string &w : kWords) EXPECT_TRUE(Lookup(loaded, w)) << w;
  marisa::Trie mapped;
  mapped.mmap(path.c_str());
  EXPECT_EQ(Predict(mapped, "app").size(), 4u);
  std::remove(path.c_str());
}

TEST(TrieTest, ClearAndSwap) {
  marisa::Trie a, b;
  BuildWords(a);
  a.swap(b);
  EXPECT_ANY_THROW(a.num_keys());
  EXPECT_EQ(b.num_keys(), kWords.size());
  b.clear();
  EXPECT_ANY_THROW(b.num_keys());
}
"""

MARISA_KEYSET_TEST = r"""#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>

#include "marisa/keyset.h"

TEST(KeysetTest, CountsKeysAndLengths) {
  marisa::Keyset keyset;
  EXPECT_EQ(keyset.size(), 0u);
  keyset.push_back("apple");
  keyset.push_back("kiwi", 4, 2.5F);
  keyset.push_back("fig", 3, 4.0F);
  EXPECT_EQ(keyset.num_keys(), 3u);
  EXPECT_EQ(keyset.size(), 3u);
  EXPECT_EQ(keyset.total_length(), 12u);
  EXPECT_FALSE(keyset.empty());
}

TEST(KeysetTest, KeepsBytesAndWeights) {
  marisa::Keyset keyset;
  keyset.push_back("apple");
  keyset.push_back(std::string_view("kiwi"), 2.5F);
  EXPECT_EQ(std::string(keyset[0].ptr(), keyset[0].length()), "apple");
  EXPECT_EQ(std::string(keyset[1].ptr(), keyset[1].length()), "kiwi");
  EXPECT_FLOAT_EQ(keyset[0].weight(), 1.0F);
  EXPECT_FLOAT_EQ(keyset[1].weight(), 2.5F);
}

TEST(KeysetTest, ManyLongKeysSurviveBlockGrowth) {
  marisa::Keyset keyset;
  std::size_t total = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string key(static_cast<std::size_t>(i % 300 + 1), static_cast<char>('a' + i % 26));
    keyset.push_back(key.c_str(), key.size());
    total += key.size();
  }
  ASSERT_EQ(keyset.size(), 3000u);
  EXPECT_EQ(keyset.total_length(), total);
  for (int i = 0; i < 3000; i += 97) {
    EXPECT_EQ(keyset[static_cast<std::size_t>(i)].length(), static_cast<std::size_t>(i % 300 + 1));
    EXPECT_EQ(keyset[static_cast<std::size_t>(i)].ptr()[0], static_cast<char>('a' + i % 26));
  }
}

TEST(KeysetTest, ResetAndClear) {
  marisa::Keyset keyset;
  keyset.push_back("one");
  keyset.push_back("two");
  keyset.reset();
  EXPECT_EQ(keyset.size(), 0u);
  EXPECT_EQ(keyset.total_length(), 0u);
  keyset.push_back("three");
  EXPECT_EQ(keyset.size(), 1u);
  keyset.clear();
  EXPECT_TRUE(keyset.empty());
}
"""

MARISA_BITVECTOR_TEST = r"""#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "marisa/grimoire/vector/bit-vector.h"

using marisa::grimoire::vector::BitVector;

namespace {

std::vector<bool> Bits(std::size_t n, unsigned seed, int ones_per_8) {
  std::mt19937 rng(seed);
  std::vector<bool> bits(n);
  for (std::size_t i = 0; i < n; ++i) bits[i] = static_cast<int>(rng() % 8) < ones_per_8;
  return bits;
}

void CheckRankSelect(const std::vector<bool> &bits) {
  BitVector bv;
  for (bool b : bits) bv.push_back(b);
  bv.build(true, true);
  ASSERT_EQ(bv.size(), bits.size());
  std::size_t ones = 0;
  std::vector<std::size_t> pos1, pos0;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    EXPECT_EQ(bv[i], bits[i]) << i;
    EXPECT_EQ(bv.rank1(i), ones) << i;
    EXPECT_EQ(bv.rank0(i), i - ones) << i;
    if (bits[i]) {
      pos1.push_back(i);
      ++ones;
    } else {
      pos0.push_back(i);
    }
  }
  EXPECT_EQ(bv.num_1s(), pos1.size());
  EXPECT_EQ(bv.num_0s(), pos0.size());
  for (std::size_t k = 0; k < pos1.size(); ++k) ASSERT_EQ(bv.select1(k), pos1[k]) << k;
  for (std::size_t k = 0; k < pos0.size(); ++k) ASSERT_EQ(bv.select0(k), pos0[k]) << k;
}

}  // namespace

TEST(BitVectorTest, SmallVector) {
  CheckRankSelect({true, false, true, true, false, false, false, true, false, true});
}

TEST(BitVectorTest, DenseRandomBits) { CheckRankSelect(Bits(5000, 1, 6)); }

TEST(BitVectorTest, SparseRandomBits) { CheckRankSelect(Bits(20000, 2, 1)); }

TEST(BitVectorTest, HalfRandomBitsAcrossManyBlocks) { CheckRankSelect(Bits(70000, 3, 4)); }

TEST(BitVectorTest, AllOnesAndAllZeros) {
  CheckRankSelect(std::vector<bool>(1000, true));
  CheckRankSelect(std::vector<bool>(1000, false));
}

TEST(BitVectorTest, ClearEmpties) {
  BitVector bv;
  bv.push_back(true);
  bv.build(false, false);
  EXPECT_EQ(bv.size(), 1u);
  bv.clear();
  EXPECT_TRUE(bv.empty());
}
"""


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

CLIPPER_MAKEFILE = """# Clipper 6.4.2 as a static library, one gtest binary per test file.
CXXFLAGS ?= -O0 -g
CPPFLAGS += -Isrc
TESTS = geometry_test clip_test offset_test simplify_test
BINS = $(addprefix build/,$(TESTS))

all: build/libclipper.a $(BINS)

build/libclipper.a: build/clipper.o
\tar rcs $@ $^

build/clipper.o: src/clipper.cpp src/clipper.hpp
\t@mkdir -p build
\t$(CXX) $(CPPFLAGS) $(CXXFLAGS) -c $< -o $@

build/%.o: tests/%.cc src/clipper.hpp
\t@mkdir -p build
\t$(CXX) $(CPPFLAGS) $(CXXFLAGS) -c $< -o $@

build/%_test: build/%_test.o build/libclipper.a
\t$(CXX) -o $@ $< build/libclipper.a -lgtest_main -lgtest -pthread

check: all
\t@status=0; for t in $(BINS); do ./$$t || status=1; done; exit $$status

clean:
\trm -rf build

.PHONY: all check clean
.SECONDARY:
"""

CLIPPER_GEOMETRY_TEST = r"""#include <gtest/gtest.h>

#include "clipper.hpp"

using namespace ClipperLib;

namespace {
Path Square(cInt x, cInt y, cInt side) {
  Path p;
  p << IntPoint(x, y) << IntPoint(x + side, y) << IntPoint(x + side, y + side) << IntPoint(x, y + side);
  return p;
}
}  // namespace

TEST(GeometryTest, AreaOfASquare) {
  EXPECT_DOUBLE_EQ(Area(Square(0, 0, 100)), 10000.0);
  EXPECT_DOUBLE_EQ(Area(Square(-50, 20, 10)), 100.0);
}

TEST(GeometryTest, AreaIsSignedByOrientation) {
  Path p = Square(0, 0, 100);
  ReversePath(p);
  EXPECT_DOUBLE_EQ(Area(p), -10000.0);
}

TEST(GeometryTest, AreaOfATriangleAndDegenerates) {
  Path tri;
  tri << IntPoint(0, 0) << IntPoint(40, 0) << IntPoint(0, 30);
  EXPECT_DOUBLE_EQ(Area(tri), 600.0);
  Path two;
  two << IntPoint(0, 0) << IntPoint(10, 10);
  EXPECT_DOUBLE_EQ(Area(two), 0.0);
}

TEST(GeometryTest, Orientation) {
  Path p = Square(0, 0, 10);
  EXPECT_TRUE(Orientation(p));
  ReversePath(p);
  EXPECT_FALSE(Orientation(p));
}

TEST(GeometryTest, ReversePathReversesPoints) {
  Path p;
  p << IntPoint(1, 2) << IntPoint(3, 4) << IntPoint(5, 6);
  ReversePath(p);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], IntPoint(5, 6));
  EXPECT_EQ(p[2], IntPoint(1, 2));
  Paths ps{Square(0, 0, 1), Square(5, 5, 1)};
  ReversePaths(ps);
  EXPECT_LT(Area(ps[0]), 0.0);
  EXPECT_LT(Area(ps[1]), 0.0);
}

TEST(GeometryTest, PointInPolygon) {
  const Path p = Square(0, 0, 100);
  EXPECT_EQ(PointInPolygon(IntPoint(50, 50), p), 1);
  EXPECT_EQ(PointInPolygon(IntPoint(1, 99), p), 1);
  EXPECT_EQ(PointInPolygon(IntPoint(150, 50), p), 0);
  EXPECT_EQ(PointInPolygon(IntPoint(-1, 50), p), 0);
  EXPECT_EQ(PointInPolygon(IntPoint(50, 101), p), 0);
  EXPECT_EQ(PointInPolygon(IntPoint(0, 50), p), -1);
  EXPECT_EQ(PointInPolygon(IntPoint(100, 100), p), -1);
  EXPECT_EQ(PointInPolygon(IntPoint(50, 0), p), -1);
}

TEST(GeometryTest, PointInConcavePolygon) {
  Path l;  // an L shape
  l << IntPoint(0, 0) << IntPoint(100, 0) << IntPoint(100, 40) << IntPoint(40, 40) << IntPoint(40, 100)
    << IntPoint(0, 100);
  EXPECT_EQ(PointInPolygon(IntPoint(20, 80), l), 1);
  EXPECT_EQ(PointInPolygon(IntPoint(80, 20), l), 1);
  EXPECT_EQ(PointInPolygon(IntPoint(80, 80), l), 0);
  EXPECT_EQ(PointInPolygon(IntPoint(70, 40), l), -1);
  EXPECT_DOUBLE_EQ(Area(l), 100.0 * 40 + 40.0 * 60);
}
"""

CLIPPER_CLIP_TEST = r"""#include <gtest/gtest.h>

#include <cmath>

#include "clipper.hpp"

using namespace ClipperLib;

namespace {
Path Square(cInt x, cInt y, cInt side) {
  Path p;
  p << IntPoint(x, y) << IntPoint(x + side, y) << IntPoint(x + side, y + side) << IntPoint(x, y + side);
  return p;
}

double TotalArea(const Paths &ps) {
  double a = 0;
  for (const Path &p : ps) a += Area(p);
  return a;
}

Paths Clip(ClipType type, const Path &subject, const Path &clip, PolyFillType fill = pftNonZero) {
  Clipper c;
  c.AddPath(subject, ptSubject, true);
  c.AddPath(clip, ptClip, true);
  Paths out;
  EXPECT_TRUE(c.Execute(type, out, fill, fill));
  return out;
}
}  // namespace

TEST(ClipTest, Intersection) {
  const Paths out = Clip(ctIntersection, Square(0, 0, 100), Square(50, 50, 100));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(TotalArea(out), 2500.0);
  EXPECT_EQ(out[0].size(), 4u);
}

TEST(ClipTest, Union) {
  const Paths out = Clip(ctUnion, Square(0, 0, 100), Square(50, 50, 100));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(TotalArea(out), 17500.0);
  EXPECT_EQ(out[0].size(), 8u);
}

TEST(ClipTest, Difference) {
  const Paths out = Clip(ctDifference, Square(0, 0, 100), Square(50, 50, 100));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(TotalArea(out), 7500.0);
}

TEST(ClipTest, Xor) {
  const Paths out = Clip(ctXor, Square(0, 0, 100), Square(50, 50, 100));
  EXPECT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(TotalArea(out), 15000.0);
}

TEST(ClipTest, DisjointShapes) {
  EXPECT_TRUE(Clip(ctIntersection, Square(0, 0, 10), Square(20, 20, 10)).empty());
  const Paths u = Clip(ctUnion, Square(0, 0, 10), Square(20, 20, 10));
  EXPECT_EQ(u.size(), 2u);
  EXPECT_DOUBLE_EQ(TotalArea(u), 200.0);
}

TEST(ClipTest, HoleInPolyTree) {
  Clipper c;
  c.AddPath(Square(0, 0, 100), ptSubject, true);
  c.AddPath(Square(25, 25, 50), ptClip, true);
  PolyTree tree;
  ASSERT_TRUE(c.Execute(ctDifference, tree, pftNonZero, pftNonZero));
  ASSERT_EQ(tree.ChildCount(), 1);
  const PolyNode *outer = tree.Childs[0];
  EXPECT_FALSE(outer->IsHole());
  ASSERT_EQ(outer->ChildCount(), 1);
  EXPECT_TRUE(outer->Childs[0]->IsHole());
  Paths paths;
  PolyTreeToPaths(tree, paths);
  EXPECT_EQ(paths.size(), 2u);
  EXPECT_DOUBLE_EQ(TotalArea(paths), 7500.0);
  EXPECT_EQ(tree.Total(), 2);
}

TEST(ClipTest, OpenPathIsClippedToTheSquare) {
  Clipper c;
  Path line;
  line << IntPoint(-50, 50) << IntPoint(150, 50);
  c.AddPath(line, ptSubject, false);
  c.AddPath(Square(0, 0, 100), ptClip, true);
  PolyTree tree;
  ASSERT_TRUE(c.Execute(ctIntersection, tree, pftNonZero, pftNonZero));
  Paths open;
  OpenPathsFromPolyTree(tree, open);
  ASSERT_EQ(open.size(), 1u);
  ASSERT_EQ(open[0].size(), 2u);
  const cInt xs[2] = {open[0][0].X, open[0][1].X};
  EXPECT_EQ(std::min(xs[0], xs[1]), 0);
  EXPECT_EQ(std::max(xs[0], xs[1]), 100);
  EXPECT_EQ(open[0][0].Y, 50);
  Paths closed;
  ClosedPathsFromPolyTree(tree, closed);
  EXPECT_TRUE(closed.empty());
}

TEST(ClipTest, FillRulesOfOverlappingSubjects) {
  Paths subjects{Square(0, 0, 100), Square(50, 0, 100)};
  Clipper even;
  even.AddPaths(subjects, ptSubject, true);
  Paths out;
  ASSERT_TRUE(even.Execute(ctUnion, out, pftEvenOdd, pftEvenOdd));
  EXPECT_DOUBLE_EQ(TotalArea(out), 10000.0);
  Clipper nonzero;
  nonzero.AddPaths(subjects, ptSubject, true);
  ASSERT_TRUE(nonzero.Execute(ctUnion, out, pftNonZero, pftNonZero));
  EXPECT_DOUBLE_EQ(TotalArea(out), 15000.0);
}

TEST(ClipTest, ReverseSolutionAndBounds) {
  Clipper c;
  c.ReverseSolution(true);
  c.AddPath(Square(0, 0, 100), ptSubject, true);
  c.AddPath(Square(50, 50, 100), ptClip, true);
  const IntRect r = c.GetBounds();
  EXPECT_EQ(r.left, 0);
  EXPECT_EQ(r.top, 0);
  EXPECT_EQ(r.right, 150);
  EXPECT_EQ(r.bottom, 150);
  Paths out;
  ASSERT_TRUE(c.Execute(ctIntersection, out, pftNonZero, pftNonZero));
  EXPECT_DOUBLE_EQ(TotalArea(out), -2500.0);
}
"""

CLIPPER_OFFSET_TEST = r"""#include <gtest/gtest.h>

#include <cmath>

#include "clipper.hpp"

using namespace ClipperLib;

namespace {
Path Square(cInt x, cInt y, cInt side) {
  Path p;
  p << IntPoint(x, y) << IntPoint(x + side, y) << IntPoint(x + side, y + side) << IntPoint(x, y + side);
  return p;
}

double TotalArea(const Paths &ps) {
  double a = 0;
  for (const Path &p : ps) a += Area(p);
  return a;
}

Paths Offset(const Path &p, double delta, JoinType join, EndType end) {
  ClipperOffset co;
  co.AddPath(p, join, end);
  Paths out;
  co.Execute(out, delta);
  return out;
}
}  // namespace

TEST(OffsetTest, MiterGrowsASquare) {
  const Paths out = Offset(Square(0, 0, 100), 10, jtMiter, etClosedPolygon);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(TotalArea(out), 14400.0);
  EXPECT_EQ(out[0].size(), 4u);
}

TEST(OffsetTest, NegativeDeltaShrinks) {
  const Paths out = Offset(Square(0, 0, 100), -10, jtMiter, etClosedPolygon);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(TotalArea(out), 6400.0);
  EXPECT_TRUE(Offset(Square(0, 0, 100), -60, jtMiter, etClosedPolygon).empty());
}

TEST(OffsetTest, SquareJoinsCutTheCorners) {
  const Paths out = Offset(Square(0, 0, 100), 10, jtSquare, etClosedPolygon);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].size(), 8u);
  const double a = TotalArea(out);
  EXPECT_GT(a, 14000.0);
  EXPECT_LT(a, 14400.0);
}

TEST(OffsetTest, RoundJoinsApproachACircle) {
  ClipperOffset co(2.0, 0.25);
  co.AddPath(Square(0, 0, 100), jtRound, etClosedPolygon);
  Paths out;
  co.Execute(out, 10);
  ASSERT_EQ(out.size(), 1u);
  const double expected = 10000.0 + 4 * 100 * 10 + M_PI * 100;
  EXPECT_NEAR(TotalArea(out), expected, 15.0);
  EXPECT_GT(out[0].size(), 8u);  // arcs, not the miter's 4 or the square's 8 corners
}

TEST(OffsetTest, OpenButtLine) {
  Path line;
  line << IntPoint(0, 0) << IntPoint(100, 0);
  const Paths out = Offset(line, 5, jtMiter, etOpenButt);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(std::fabs(TotalArea(out)), 1000.0);
}

TEST(OffsetTest, OpenSquareLineExtendsTheEnds) {
  Path line;
  line << IntPoint(0, 0) << IntPoint(100, 0);
  const Paths out = Offset(line, 5, jtMiter, etOpenSquare);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(std::fabs(TotalArea(out)), 1100.0);
}

TEST(OffsetTest, HolesShrinkWhenTheOuterGrows) {
  Path hole = Square(25, 25, 50);
  ReversePath(hole);
  ClipperOffset co;
  co.AddPath(Square(0, 0, 100), jtMiter, etClosedPolygon);
  co.AddPath(hole, jtMiter, etClosedPolygon);
  Paths out;
  co.Execute(out, 5);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(TotalArea(out), 110.0 * 110 - 40.0 * 40);
}
"""

CLIPPER_SIMPLIFY_TEST = r"""#include <gtest/gtest.h>

#include <cmath>

#include "clipper.hpp"

using namespace ClipperLib;

namespace {
double TotalArea(const Paths &ps) {
  double a = 0;
  for (const Path &p : ps) a += Area(p);
  return a;
}
}  // namespace

TEST(SimplifyTest, BowtieSplitsInTwo) {
  Path bowtie;
  bowtie << IntPoint(0, 0) << IntPoint(100, 100) << IntPoint(100, 0) << IntPoint(0, 100);
  Paths out;
  SimplifyPolygon(bowtie, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(std::fabs(Area(out[0])), 2500.0);
  EXPECT_DOUBLE_EQ(std::fabs(Area(out[1])), 2500.0);
}

TEST(SimplifyTest, SimplifyPolygonsMergesOverlaps) {
  Path a, b;
  a << IntPoint(0, 0) << IntPoint(100, 0) << IntPoint(100, 100) << IntPoint(0, 100);
  b << IntPoint(50, 0) << IntPoint(150, 0) << IntPoint(150, 100) << IntPoint(50, 100);
  Paths ps{a, b};
  SimplifyPolygons(ps, pftNonZero);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_DOUBLE_EQ(TotalArea(ps), 15000.0);
}

TEST(SimplifyTest, CleanPolygonDropsCollinearAndDuplicatePoints) {
  Path p;
  p << IntPoint(0, 0) << IntPoint(50, 0) << IntPoint(100, 0) << IntPoint(100, 0) << IntPoint(100, 100)
    << IntPoint(0, 100);
  Path out;
  CleanPolygon(p, out);
  EXPECT_EQ(out.size(), 4u);
  EXPECT_DOUBLE_EQ(Area(out), 10000.0);
}

TEST(SimplifyTest, CleanPolygonDropsNearPoints) {
  Path p;
  p << IntPoint(0, 0) << IntPoint(100, 0) << IntPoint(101, 1) << IntPoint(100, 100) << IntPoint(0, 100);
  Path out;
  CleanPolygon(p, out, 2.0);
  EXPECT_EQ(out.size(), 4u);
  Path pentagon;
  pentagon << IntPoint(0, 0) << IntPoint(100, 0) << IntPoint(110, 50) << IntPoint(100, 100) << IntPoint(0, 100);
  Paths ps{pentagon};
  CleanPolygons(ps);
  EXPECT_EQ(ps[0].size(), 5u);
}

TEST(SimplifyTest, CleanPolygonOfALineIsEmpty) {
  Path p;
  p << IntPoint(0, 0) << IntPoint(10, 0) << IntPoint(20, 0);
  Path out;
  CleanPolygon(p, out);
  EXPECT_TRUE(out.empty());
}

TEST(SimplifyTest, MinkowskiSumOfTwoSquares) {
  Path pattern, path;
  pattern << IntPoint(-5, -5) << IntPoint(5, -5) << IntPoint(5, 5) << IntPoint(-5, 5);
  path << IntPoint(0, 0) << IntPoint(100, 0) << IntPoint(100, 100) << IntPoint(0, 100);
  Paths out;
  MinkowskiSum(pattern, path, out, true);
  ASSERT_FALSE(out.empty());
  EXPECT_DOUBLE_EQ(std::fabs(TotalArea(out)), 110.0 * 110 - 90.0 * 90);
}

TEST(SimplifyTest, MinkowskiDiffOfASquareWithItself) {
  Path a;
  a << IntPoint(0, 0) << IntPoint(10, 0) << IntPoint(10, 10) << IntPoint(0, 10);
  Paths out;
  MinkowskiDiff(a, a, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(std::fabs(TotalArea(out)), 400.0);
}
"""


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
    for kind in KINDS:
        rng.shuffle(by_kind[kind])
    out: list[Fault] = []
    while any(by_kind.values()):
        for kind in KINDS:
            if by_kind[kind]:
                out.append(by_kind[kind].pop())
    return out
