#include <gtest/gtest.h>

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
