#include <gtest/gtest.h>

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
