// kiwi's internals reachable through its headers: Symbol, nearZero, Row (the tableau's rows) and
// Loki::AssocVector (the sorted-vector map behind every solver map).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kiwi/AssocVector.h"
#include "kiwi/row.h"
#include "kiwi/symbol.h"
#include "kiwi/util.h"

namespace {

using kiwi::impl::nearZero;
using kiwi::impl::Row;
using kiwi::impl::Symbol;
using Map = Loki::AssocVector<int, std::string>;

const Symbol a(Symbol::External, 1);
const Symbol b(Symbol::Slack, 2);
const Symbol c(Symbol::Error, 3);
const Symbol d(Symbol::Dummy, 4);

// The row's cells as (id, coefficient) in the row's order.
std::vector<std::pair<Symbol::Id, double>> cells(const Row& row) {
  std::vector<std::pair<Symbol::Id, double>> out;
  for (const auto& cell : row.cells()) {
    out.emplace_back(cell.first.id(), cell.second);
  }
  return out;
}

using Cells = std::vector<std::pair<Symbol::Id, double>>;

Row row(double constant, const Cells& values) {
  Row r(constant);
  for (const auto& [id, coeff] : values) {
    r.insert(Symbol(Symbol::External, id), coeff);
  }
  return r;
}

std::vector<int> keys(const Map& m) {
  std::vector<int> out;
  for (const auto& kv : m) {
    out.push_back(kv.first);
  }
  return out;
}

TEST(Symbol, TypeIdAndOrder) {
  Symbol none;
  EXPECT_EQ(none.type(), Symbol::Invalid);
  EXPECT_EQ(none.id(), 0u);
  EXPECT_EQ(b.type(), Symbol::Slack);
  EXPECT_EQ(b.id(), 2u);
  EXPECT_EQ(d.type(), Symbol::Dummy);
  // ordered and equal by id alone
  EXPECT_TRUE(a < b);
  EXPECT_FALSE(b < a);
  EXPECT_FALSE(a < a);
  EXPECT_TRUE(Symbol(Symbol::Error, 3) == Symbol(Symbol::Slack, 3));
  EXPECT_FALSE(a == b);
}

TEST(Util, NearZero) {
  EXPECT_TRUE(nearZero(0.0));
  EXPECT_TRUE(nearZero(5e-9));
  EXPECT_TRUE(nearZero(-5e-9));
  EXPECT_FALSE(nearZero(1e-8));
  EXPECT_FALSE(nearZero(-1e-8));
  EXPECT_FALSE(nearZero(2.0));
  EXPECT_FALSE(nearZero(-2.0));
}

TEST(Row, ConstantAddAndReverseSign) {
  EXPECT_EQ(Row().constant(), 0.0);
  Row r(2.5);
  EXPECT_EQ(r.constant(), 2.5);
  EXPECT_EQ(r.add(1.5), 4.0);
  EXPECT_EQ(r.add(-5), -1.0);
  EXPECT_EQ(r.constant(), -1.0);
  EXPECT_TRUE(r.cells().empty());
  Row s = row(4, {{1, 2}, {3, -1}});
  s.reverseSign();
  EXPECT_EQ(s.constant(), -4.0);
  EXPECT_EQ(cells(s), (Cells{{1, -2}, {3, 1}}));
}

TEST(Row, InsertSymbolAccumulatesAndDropsZero) {
  Row r;
  r.insert(c);
  r.insert(a, 2);
  EXPECT_EQ(cells(r), (Cells{{1, 2}, {3, 1}}));
  r.insert(a, 3);
  EXPECT_EQ(r.coefficientFor(a), 5.0);
  r.insert(a, -5);
  EXPECT_EQ(cells(r), (Cells{{3, 1}}));
  r.insert(c, -1 + 1e-10);
  EXPECT_TRUE(r.cells().empty());
}

TEST(Row, InsertRowScalesAndDropsZero) {
  Row r = row(1, {{2, -1}, {3, 4}});
  r.insert(row(3, {{1, 1}, {2, 2}}), 2);
  EXPECT_EQ(r.constant(), 7.0);
  EXPECT_EQ(cells(r), (Cells{{1, 2}, {2, 3}, {3, 4}}));
  r.insert(row(-1, {{2, 1.5}}), -2);
  EXPECT_EQ(r.constant(), 9.0);
  EXPECT_EQ(cells(r), (Cells{{1, 2}, {3, 4}}));
  r.insert(row(1, {{3, 1}}));
  EXPECT_EQ(r.constant(), 10.0);
  EXPECT_EQ(cells(r), (Cells{{1, 2}, {3, 5}}));
}

TEST(Row, RemoveAndCoefficientFor) {
  Row r = row(0, {{1, 2}, {2, 3}});
  EXPECT_EQ(r.coefficientFor(Symbol(Symbol::Slack, 2)), 3.0);
  EXPECT_EQ(r.coefficientFor(c), 0.0);
  r.remove(a);
  EXPECT_EQ(r.coefficientFor(a), 0.0);
  r.remove(c);
  EXPECT_EQ(cells(r), (Cells{{2, 3}}));
}

TEST(Row, SolveForOneSymbol) {
  // 2a + 4b + 6 = 0  ->  a = -2b - 3
  Row r = row(6, {{1, 2}, {2, 4}});
  r.solveFor(a);
  EXPECT_EQ(r.constant(), -3.0);
  EXPECT_EQ(cells(r), (Cells{{2, -2}}));
}

TEST(Row, SolveForLhsRhs) {
  // c = 2b + 4  ->  b = 0.5c - 2
  Row r = row(4, {{2, 2}});
  r.solveFor(c, b);
  EXPECT_EQ(r.constant(), -2.0);
  EXPECT_EQ(cells(r), (Cells{{3, 0.5}}));
}

TEST(Row, Substitute) {
  // 3a + c + 2 with a = 2b + 1  ->  6b + c + 5
  Row r = row(2, {{1, 3}, {3, 1}});
  r.substitute(a, row(1, {{2, 2}}));
  EXPECT_EQ(r.constant(), 5.0);
  EXPECT_EQ(cells(r), (Cells{{2, 6}, {3, 1}}));
  r.substitute(d, row(100, {{1, 1}}));
  EXPECT_EQ(r.constant(), 5.0);
  EXPECT_EQ(cells(r), (Cells{{2, 6}, {3, 1}}));
}

TEST(AssocVector, InsertKeepsKeysSortedAndUnique) {
  Map m;
  EXPECT_TRUE(m.empty());
  EXPECT_TRUE(m.insert({5, "five"}).second);
  EXPECT_TRUE(m.insert({1, "one"}).second);
  EXPECT_TRUE(m.insert({3, "three"}).second);
  auto again = m.insert({3, "drei"});
  EXPECT_FALSE(again.second);
  EXPECT_EQ(again.first->second, "three");
  EXPECT_EQ(keys(m), (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(m.size(), 3u);
  EXPECT_FALSE(m.empty());
}

TEST(AssocVector, IndexInsertsDefault) {
  Map m;
  m[4] = "four";
  m[2];
  EXPECT_EQ(m[4], "four");
  EXPECT_EQ(m[2], "");
  EXPECT_EQ(keys(m), (std::vector<int>{2, 4}));
}

TEST(AssocVector, FindAndCount) {
  Map m;
  m[1] = "a";
  m[3] = "c";
  EXPECT_EQ(m.find(3)->second, "c");
  EXPECT_TRUE(m.find(2) == m.end());
  EXPECT_TRUE(m.find(4) == m.end());
  const Map& cm = m;
  EXPECT_EQ(cm.find(1)->second, "a");
  EXPECT_TRUE(cm.find(0) == cm.end());
  EXPECT_EQ(m.count(1), 1u);
  EXPECT_EQ(m.count(2), 0u);
}

TEST(AssocVector, Erase) {
  Map m;
  for (int k : {1, 2, 3, 4, 5}) {
    m[k] = std::to_string(k);
  }
  EXPECT_EQ(m.erase(3), 1u);
  EXPECT_EQ(m.erase(3), 0u);
  m.erase(m.begin());
  EXPECT_EQ(keys(m), (std::vector<int>{2, 4, 5}));
  m.erase(m.begin() + 1, m.end());
  EXPECT_EQ(keys(m), (std::vector<int>{2}));
  m.clear();
  EXPECT_TRUE(m.empty());
}

TEST(AssocVector, Bounds) {
  Map m;
  for (int k : {10, 20, 30}) {
    m[k] = "";
  }
  EXPECT_EQ(m.lower_bound(20)->first, 20);
  EXPECT_EQ(m.upper_bound(20)->first, 30);
  EXPECT_EQ(m.lower_bound(15)->first, 20);
  EXPECT_TRUE(m.upper_bound(30) == m.end());
  auto range = m.equal_range(20);
  EXPECT_EQ(range.second - range.first, 1);
  EXPECT_EQ(m.equal_range(25).second - m.equal_range(25).first, 0);
  const Map& cm = m;
  EXPECT_EQ(cm.lower_bound(11)->first, 20);
  EXPECT_EQ(cm.upper_bound(10)->first, 20);
}

TEST(AssocVector, RangeConstructorAndRangeInsert) {
  std::vector<std::pair<int, std::string>> items{{3, "c"}, {1, "a"}, {2, "b"}};
  Map m(items.begin(), items.end());
  EXPECT_EQ(keys(m), (std::vector<int>{1, 2, 3}));
  std::vector<std::pair<int, std::string>> more{{5, "e"}, {0, "z"}, {2, "x"}};
  m.insert(more.begin(), more.end());
  EXPECT_EQ(keys(m), (std::vector<int>{0, 1, 2, 3, 5}));
  EXPECT_EQ(m[2], "b");
}

TEST(AssocVector, InsertWithHint) {
  Map m;
  m[1] = "a";
  m[5] = "e";
  auto it = m.insert(m.begin() + 1, {3, "c"});
  EXPECT_EQ(it->first, 3);
  it = m.insert(m.begin(), {9, "i"});
  EXPECT_EQ(it->first, 9);
  it = m.insert(m.end(), {5, "x"});
  EXPECT_EQ(it->second, "e");
  EXPECT_EQ(keys(m), (std::vector<int>{1, 3, 5, 9}));
}

TEST(AssocVector, Comparisons) {
  Map x, y;
  x[1] = "a";
  y[1] = "a";
  EXPECT_TRUE(x == y);
  EXPECT_FALSE(x != y);
  EXPECT_TRUE(x <= y);
  EXPECT_TRUE(x >= y);
  y[2] = "b";
  EXPECT_TRUE(x != y);
  EXPECT_TRUE(x < y);
  EXPECT_FALSE(y < x);
  EXPECT_TRUE(y > x);
  EXPECT_FALSE(x > y);
  EXPECT_TRUE(x <= y);
  EXPECT_FALSE(y <= x);
  EXPECT_TRUE(y >= x);
  EXPECT_FALSE(x >= y);
}

TEST(AssocVector, SwapAndAssign) {
  Map x, y;
  x[1] = "a";
  y[2] = "b";
  y[3] = "c";
  x.swap(y);
  EXPECT_EQ(keys(x), (std::vector<int>{2, 3}));
  EXPECT_EQ(keys(y), (std::vector<int>{1}));
  Loki::swap(x, y);
  EXPECT_EQ(keys(x), (std::vector<int>{1}));
  y = x;
  EXPECT_EQ(keys(y), (std::vector<int>{1}));
  EXPECT_EQ(y[1], "a");
}

TEST(AssocVector, CustomComparator) {
  Loki::AssocVector<int, int, std::greater<int>> m;
  for (int k : {2, 7, 4}) {
    m[k] = k * 10;
  }
  std::vector<int> order;
  for (const auto& kv : m) {
    order.push_back(kv.first);
  }
  EXPECT_EQ(order, (std::vector<int>{7, 4, 2}));
  EXPECT_EQ(m.find(4)->second, 40);
  EXPECT_TRUE(m.key_comp()(7, 4));
  EXPECT_FALSE(m.key_comp()(4, 7));
  EXPECT_TRUE(m.value_comp()({7, 0}, {4, 0}));
  EXPECT_FALSE(m.value_comp()({4, 0}, {7, 0}));
}

}  // namespace
