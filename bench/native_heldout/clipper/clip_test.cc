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
