"""Top-1 / top-3 localization of seeded faults in C++ (gtest + ctest) and JavaScript (node:test, TAP).

Writes two small projects into a scratch directory, seeds one fault at a time
(each a one-token mutation inside a known function), runs the project's real
test command, parses the output, locates the failures with
``pytest_whetstone.locate.native_tests`` and checks where the faulty function
ranks in the suspects of the first failing test (the one the verdict's
``first_error`` points at).  Also times the locator against the test run.

    python bench/bench_native_localize.py [--out bench/results/native_localize.md]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pytest_whetstone.locate.native_tests import locate_native_failures
from pytest_whetstone.parse import parse_text

# --------------------------------------------------------------------------- the C++ project

CPP_FILES = {
    "CMakeLists.txt": """cmake_minimum_required(VERSION 3.16)
project(geom CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(GTest REQUIRED)
enable_testing()
add_library(geom src/shapes.cc src/strutil.cc src/stats.cc)
target_include_directories(geom PUBLIC src)
foreach(t shapes strutil stats)
  add_executable(${t}_test tests/${t}_test.cc)
  target_link_libraries(${t}_test PRIVATE geom GTest::gtest_main)
  add_test(NAME ${t}_test COMMAND ${t}_test)
endforeach()
""",
    "src/shapes.h": """#pragma once
namespace geom {
struct Rect { int w; int h; };
int rect_area(const Rect& r);
int rect_perimeter(const Rect& r);
bool is_square(const Rect& r);
Rect scale_rect(const Rect& r, int k);
}  // namespace geom
""",
    "src/shapes.cc": """#include "shapes.h"
namespace geom {
int rect_area(const Rect& r) {
  return r.w * r.h;
}
int rect_perimeter(const Rect& r) {
  return 2 * (r.w + r.h);
}
bool is_square(const Rect& r) {
  return r.w == r.h;
}
Rect scale_rect(const Rect& r, int k) {
  return Rect{r.w * k, r.h * k};
}
}  // namespace geom
""",
    "src/strutil.h": """#pragma once
#include <string>
namespace geom {
std::string trim(const std::string& s);
int count_char(const std::string& s, char c);
bool starts_with(const std::string& s, const std::string& prefix);
std::string repeat(const std::string& s, int n);
}  // namespace geom
""",
    "src/strutil.cc": """#include "strutil.h"
namespace geom {
std::string trim(const std::string& s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && s[b] == ' ') ++b;
  while (e > b && s[e - 1] == ' ') --e;
  return s.substr(b, e - b);
}
int count_char(const std::string& s, char c) {
  int n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == c) ++n;
  }
  return n;
}
bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}
std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}
}  // namespace geom
""",
    "src/stats.h": """#pragma once
#include <vector>
namespace geom {
int total(const std::vector<int>& v);
int max_value(const std::vector<int>& v);
double average(const std::vector<int>& v);
int count_above(const std::vector<int>& v, int limit);
}  // namespace geom
""",
    "src/stats.cc": """#include "stats.h"
namespace geom {
int total(const std::vector<int>& v) {
  int t = 0;
  for (int x : v) t += x;
  return t;
}
int max_value(const std::vector<int>& v) {
  int m = v[0];
  for (int x : v) if (x > m) m = x;
  return m;
}
double average(const std::vector<int>& v) {
  return v.empty() ? 0.0 : static_cast<double>(total(v)) / v.size();
}
int count_above(const std::vector<int>& v, int limit) {
  int n = 0;
  for (int x : v) if (x > limit) ++n;
  return n;
}
}  // namespace geom
""",
    "tests/shapes_test.cc": """#include <gtest/gtest.h>
#include "shapes.h"
using namespace geom;
TEST(RectTest, Area) { EXPECT_EQ(rect_area(Rect{3, 4}), 12); }
TEST(RectTest, Perimeter) { EXPECT_EQ(rect_perimeter(Rect{3, 4}), 14); }
TEST(RectTest, SquareDetection) {
  EXPECT_TRUE(is_square(Rect{2, 2}));
  EXPECT_FALSE(is_square(Rect{2, 3}));
}
TEST(RectTest, ScaledAreaGrowsQuadratically) {
  EXPECT_EQ(rect_area(scale_rect(Rect{1, 2}, 3)), 18);
}
""",
    "tests/strutil_test.cc": """#include <gtest/gtest.h>
#include "strutil.h"
using namespace geom;
TEST(StrUtilTest, TrimsSpaces) { EXPECT_EQ(trim("  ab "), "ab"); }
TEST(StrUtilTest, CountsChars) { EXPECT_EQ(count_char("banana", 'a'), 3); }
TEST(StrUtilTest, StartsWithPrefix) {
  EXPECT_TRUE(starts_with("hello", "he"));
  EXPECT_FALSE(starts_with("he", "hello"));
}
TEST(StrUtilTest, RepeatsText) { EXPECT_EQ(repeat("ab", 3), "ababab"); }
""",
    "tests/stats_test.cc": """#include <gtest/gtest.h>
#include "stats.h"
using namespace geom;
TEST(StatsTest, Total) { EXPECT_EQ(total({1, 2, 3}), 6); }
TEST(StatsTest, MaxValue) { EXPECT_EQ(max_value({3, 9, 2}), 9); }
TEST(StatsTest, Average) { EXPECT_DOUBLE_EQ(average({1, 2, 3, 6}), 3.0); }
TEST(StatsTest, CountAbove) { EXPECT_EQ(count_above({1, 5, 7}, 4), 2); }
""",
}

# (file, old, new, faulty function qualname)
CPP_FAULTS = [
    ("src/shapes.cc", "return r.w * r.h;", "return r.w + r.h;", "geom::rect_area"),
    ("src/shapes.cc", "return 2 * (r.w + r.h);", "return 2 * r.w + r.h;", "geom::rect_perimeter"),
    ("src/shapes.cc", "return r.w == r.h;", "return r.w <= r.h;", "geom::is_square"),
    ("src/shapes.cc", "Rect{r.w * k, r.h * k}", "Rect{r.w * k, r.h}", "geom::scale_rect"),
    ("src/strutil.cc", "while (e > b && s[e - 1] == ' ') --e;", "", "geom::trim"),
    ("src/strutil.cc", "if (s[i] == c) ++n;", "if (s[i] == c) n += 2;", "geom::count_char"),
    ("src/strutil.cc", "s.compare(0, prefix.size(), prefix)", "s.compare(0, prefix.size() - 1, prefix)",
     "geom::starts_with"),
    ("src/strutil.cc", "for (int i = 0; i < n; ++i) out += s;", "for (int i = 1; i < n; ++i) out += s;",
     "geom::repeat"),
    ("src/stats.cc", "for (int x : v) t += x;", "for (int x : v) t = x;", "geom::total"),
    ("src/stats.cc", "if (x > m) m = x;", "if (x < m) m = x;", "geom::max_value"),
    ("src/stats.cc", "if (x > limit) ++n;", "if (x >= limit - 3) ++n;", "geom::count_above"),
]

# --------------------------------------------------------------------------- the JS project

JS_FILES = {
    "package.json": '{"name": "bench-js", "version": "1.0.0", "private": true}\n',
    "lib/cart.js": """'use strict';
const { roundCents } = require('./money');
function lineTotal(item) {
  return item.price * item.qty;
}
function cartTotal(items) {
  let total = 0;
  for (const item of items) total += lineTotal(item);
  return roundCents(total);
}
function itemCount(items) {
  return items.reduce((n, item) => n + item.qty, 0);
}
function applyCoupon(total, coupon) {
  if (coupon === 'TENOFF') return Math.max(0, total - 10);
  return total;
}
module.exports = { lineTotal, cartTotal, itemCount, applyCoupon };
""",
    "lib/money.js": """'use strict';
function roundCents(value) {
  return Math.round(value * 100) / 100;
}
function formatPrice(value) {
  return '$' + value.toFixed(2);
}
function parsePrice(text) {
  return Number(text.replace('$', ''));
}
module.exports = { roundCents, formatPrice, parsePrice };
""",
    "lib/text.js": """'use strict';
function capitalize(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
function wordCount(text) {
  return text.split(/\\s+/).filter(Boolean).length;
}
class Slugger {
  slug(title) {
    return title.trim().toLowerCase().replace(/\\s+/g, '-');
  }
  unique(title, taken) {
    let s = this.slug(title);
    let n = 2;
    while (taken.includes(s)) s = this.slug(title) + '-' + n++;
    return s;
  }
}
module.exports = { capitalize, wordCount, Slugger };
""",
    "test/cart.test.js": """'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { lineTotal, cartTotal, itemCount, applyCoupon } = require('../lib/cart');
test('lineTotal multiplies price and quantity', () => {
  assert.strictEqual(lineTotal({ price: 2, qty: 3 }), 6);
});
test('cartTotal sums the lines', () => {
  assert.strictEqual(cartTotal([{ price: 2, qty: 3 }, { price: 1.5, qty: 2 }]), 9);
});
test('itemCount counts quantities', () => {
  assert.strictEqual(itemCount([{ price: 2, qty: 3 }, { price: 1, qty: 2 }]), 5);
});
test('applyCoupon takes ten off', () => {
  assert.strictEqual(applyCoupon(25, 'TENOFF'), 15);
  assert.strictEqual(applyCoupon(5, 'TENOFF'), 0);
});
""",
    "test/money.test.js": """'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { roundCents, formatPrice, parsePrice } = require('../lib/money');
test('roundCents keeps two decimals', () => {
  assert.strictEqual(roundCents(1.234), 1.23);
});
test('formatPrice prints dollars', () => {
  assert.strictEqual(formatPrice(3), '$3.00');
});
test('parsePrice reads dollars', () => {
  assert.strictEqual(parsePrice('$4.50'), 4.5);
});
""",
    "test/text.test.js": """'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert');
const { capitalize, wordCount, Slugger } = require('../lib/text');
describe('text', () => {
  it('capitalizes a word', () => {
    assert.strictEqual(capitalize('hello'), 'Hello');
  });
  it('counts words', () => {
    assert.strictEqual(wordCount(' a  b c '), 3);
  });
  it('slugs a title', () => {
    assert.strictEqual(new Slugger().slug(' Hello World '), 'hello-world');
  });
  it('makes unique slugs', () => {
    assert.strictEqual(new Slugger().unique('a b', ['a-b']), 'a-b-2');
  });
});
""",
}

JS_FAULTS = [
    ("lib/cart.js", "return item.price * item.qty;", "return item.price + item.qty;", "lineTotal"),
    ("lib/cart.js", "total += lineTotal(item);", "total = lineTotal(item);", "cartTotal"),
    ("lib/cart.js", "n + item.qty, 0", "n + 1, 0", "itemCount"),
    ("lib/cart.js", "Math.max(0, total - 10)", "total - 10", "applyCoupon"),
    ("lib/money.js", "Math.round(value * 100) / 100", "Math.floor(value * 10) / 10", "roundCents"),
    ("lib/money.js", "value.toFixed(2)", "value.toFixed(1)", "formatPrice"),
    ("lib/money.js", "text.replace('$', '')", "text.replace('.', '')", "parsePrice"),
    ("lib/text.js", "word.charAt(0).toUpperCase() + word.slice(1)", "word.charAt(0).toUpperCase() + word.slice(2)",
     "capitalize"),
    ("lib/text.js", ".filter(Boolean).length", ".length", "wordCount"),
    ("lib/text.js", ".replace(/\\s+/g, '-')", ".replace(/\\s+/g, '_')", "Slugger.slug"),
    ("lib/text.js", "let n = 2;", "let n = 1;", "Slugger.unique"),
]


@dataclass
class Outcome:
    project: str
    function: str
    rank: int | None  # 1-based rank of the faulty function; None = not in the suspects
    failures: int
    run_s: float
    locate_s: float
    top: str


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _measure(project: str, root: Path, cmd: list[str], cwd: Path, rebuild: list[str] | None,
             fault: tuple[str, str, str, str]) -> Outcome | None:
    rel, old, new, function = fault
    path = root / rel
    original = path.read_text()
    assert original.count(old) == 1, f"{rel}: {old!r} must occur once"
    path.write_text(original.replace(old, new))
    try:
        if rebuild:
            subprocess.run(rebuild, cwd=cwd, capture_output=True, check=True)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        run_s = time.perf_counter() - t0
        result = parse_text(proc.stdout + proc.stderr, cwd=str(cwd))
        t1 = time.perf_counter()
        locate_native_failures(result.test_failures, root)
        locate_s = time.perf_counter() - t1
    finally:
        path.write_text(original)
    if not result.test_failures:
        return None  # the mutant survived the tests: nothing to locate
    first = result.test_failures[0]
    names = [s.qualname for s in first.suspects]
    rank = names.index(function) + 1 if function in names else None
    return Outcome(project, function, rank, len(result.test_failures), run_s, locate_s, names[0] if names else "-")


def run_cpp(work: Path) -> list[Outcome | None]:
    root = work / "geom"
    _write(root, CPP_FILES)
    build = root / "build"
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(["cmake", "-S", str(root), "-B", str(build), *gen], capture_output=True, check=True)
    subprocess.run(["cmake", "--build", str(build)], capture_output=True, check=True)
    rebuild = ["cmake", "--build", str(build)]
    return [_measure("C++ gtest/ctest", root, ["ctest", "--output-on-failure"], build, rebuild, f) for f in CPP_FAULTS]


def run_js(work: Path) -> list[Outcome | None]:
    root = work / "bench-js"
    _write(root, JS_FILES)
    cmd = ["node", "--test", "--test-reporter=tap", "test/"]
    return [_measure("JS node:test/TAP", root, cmd, root, None, f) for f in JS_FAULTS]


def report(outcomes: list[Outcome], survived: int) -> str:
    lines = ["# Native test localization (seeded faults)", "",
             "`python bench/bench_native_localize.py` — each fault is a one-token mutation inside one function;",
             "the rank is that function's place in the suspects of the first failing test (what the verdict's",
             "`first_error` names).  Real tools: CMake + googletest + ctest `--output-on-failure`; node `--test`",
             "with the TAP reporter.", ""]
    for project in sorted({o.project for o in outcomes}):
        mine = [o for o in outcomes if o.project == project]
        top1 = sum(1 for o in mine if o.rank == 1)
        top3 = sum(1 for o in mine if o.rank is not None and o.rank <= 3)
        lines.append(f"- **{project}**: {len(mine)} faults, top-1 {top1}/{len(mine)}, top-3 {top3}/{len(mine)}")
    top1 = sum(1 for o in outcomes if o.rank == 1)
    top3 = sum(1 for o in outcomes if o.rank is not None and o.rank <= 3)
    n = len(outcomes)
    lines += [f"- **all**: {n} faults, top-1 {top1}/{n} ({top1 / n:.0%}), top-3 {top3}/{n} ({top3 / n:.0%})"
              + (f"; {survived} mutant(s) survived the tests and are not counted" if survived else ""), ""]
    loc = [o.locate_s * 1000 for o in outcomes]
    run = [o.run_s * 1000 for o in outcomes]
    lines += [f"Locating all failures of a run: median {statistics.median(loc):.1f} ms (max {max(loc):.1f} ms) "
              f"against a median test run of {statistics.median(run):.0f} ms "
              f"(ratio {statistics.median(loc) / statistics.median(run):.2f}).", "",
              "| project | faulty function | rank | failing tests | top suspect | locate ms |",
              "|---|---|---|---|---|---|"]
    for o in outcomes:
        lines.append(f"| {o.project} | `{o.function}` | {o.rank or 'missed'} | {o.failures} | `{o.top}` | "
                     f"{o.locate_s * 1000:.1f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "native_localize.md"))
    args = parser.parse_args()
    outcomes: list[Outcome | None] = []
    with tempfile.TemporaryDirectory(prefix="whetstone-bench-native-") as tmp:
        if shutil.which("cmake") and shutil.which("ctest"):
            outcomes += run_cpp(Path(tmp))
        else:
            print("cmake/ctest missing: C++ part skipped", file=sys.stderr)
        if shutil.which("node"):
            outcomes += run_js(Path(tmp))
        else:
            print("node missing: JS part skipped", file=sys.stderr)
    counted = [o for o in outcomes if o is not None]
    if not counted:
        print("nothing measured", file=sys.stderr)
        return 1
    text = report(counted, len(outcomes) - len(counted))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
