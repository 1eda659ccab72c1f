#include <gtest/gtest.h>

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
