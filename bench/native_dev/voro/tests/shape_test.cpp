// Our tests of voro++'s other start shapes, neighbor tracking, and cells cut by many planes (Euler's
// formula and volumes that only shrink).  Values are exact geometry, not captured.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "support.h"
#include "voro++.hh"

using namespace voro;

namespace {

constexpr double kTol = 1e-9;

}  // namespace

TEST(Octahedron, Volume) {
    voronoicell c;
    c.init_octahedron(1);
    EXPECT_NEAR(c.volume(), 4.0 / 3.0, kTol);
}

TEST(Octahedron, Counts) {
    voronoicell c;
    c.init_octahedron(2);
    EXPECT_EQ(c.number_of_faces(), 8);
    EXPECT_EQ(Vertices(c), 6);
    EXPECT_EQ(c.number_of_edges(), 12);
    EXPECT_NEAR(c.max_radius_squared(), 4 * 4.0, kTol);  // twice the vertex positions
}

TEST(Octahedron, SurfaceArea) {
    voronoicell c;
    c.init_octahedron(1);
    // eight equilateral triangles of side sqrt(2)
    EXPECT_NEAR(c.surface_area(), 8 * std::sqrt(3.0) / 4 * 2, kTol);
}

TEST(Octahedron, FaceOrdersAreThree) {
    voronoicell c;
    c.init_octahedron(1);
    std::vector<int> orders;
    c.face_orders(orders);
    ASSERT_EQ(orders.size(), 8u);
    for (int o : orders) EXPECT_EQ(o, 3);
    std::vector<int> vorders;
    c.vertex_orders(vorders);
    for (int o : vorders) EXPECT_EQ(o, 4);
}

TEST(Tetrahedron, Volume) {
    voronoicell c;
    c.init_tetrahedron(0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2);
    EXPECT_NEAR(c.volume(), 8.0 / 6.0, kTol);
    EXPECT_EQ(c.number_of_faces(), 4);
    EXPECT_EQ(Vertices(c), 4);
    EXPECT_EQ(c.number_of_edges(), 6);
}

TEST(Tetrahedron, Centroid) {
    voronoicell c;
    c.init_tetrahedron(0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4);
    double x, y, z;
    c.centroid(x, y, z);
    EXPECT_NEAR(x, 1.0, kTol);
    EXPECT_NEAR(y, 1.0, kTol);
    EXPECT_NEAR(z, 1.0, kTol);
}

TEST(Tetrahedron, CutOffATip) {
    voronoicell c;
    c.init_tetrahedron(0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2);
    ASSERT_TRUE(c.plane(2, 0, 0, 2.0));  // keeps 2x < 1: the tip beyond it is a tetrahedron of legs 1.5
    EXPECT_NEAR(c.volume(), 8.0 / 6.0 - 1.5 * 1.5 * 1.5 / 6.0, kTol);
    EXPECT_EQ(c.number_of_faces(), 5);
}

TEST(Neighbors, CubeWallsAreNegative) {
    voronoicell_neighbor c;
    c.init(-1, 1, -1, 1, -1, 1);
    std::vector<int> n;
    c.neighbors(n);
    ASSERT_EQ(n.size(), 6u);
    std::sort(n.begin(), n.end());
    EXPECT_EQ(n, (std::vector<int>{-6, -5, -4, -3, -2, -1}));
}

TEST(Neighbors, PlaneAddsItsId) {
    voronoicell_neighbor c;
    c.init(-1, 1, -1, 1, -1, 1);
    ASSERT_TRUE(c.nplane(1, 1, 1, 3.0, 42));
    std::vector<int> n;
    c.neighbors(n);
    ASSERT_EQ(n.size(), 7u);
    EXPECT_NE(std::find(n.begin(), n.end(), 42), n.end());
}

TEST(Neighbors, SlabRemovesAWall) {
    voronoicell_neighbor c;
    c.init(-1, 1, -1, 1, -1, 1);
    ASSERT_TRUE(c.nplane(3, 0, 0, 1.0, 7));  // x < 1/6: the x = 1 wall is gone
    std::vector<int> n;
    c.neighbors(n);
    ASSERT_EQ(n.size(), 6u);
    EXPECT_NE(std::find(n.begin(), n.end(), 7), n.end());
    EXPECT_NEAR(c.volume(), 4 * (1.0 / 6.0 + 1.0), kTol);
}

TEST(Neighbors, MatchFaces) {
    voronoicell_neighbor c;
    c.init(-2, 2, -2, 2, -2, 2);
    for (int i = 0; i < 4; i++) ASSERT_TRUE(c.nplane(i % 2 ? 1 : -1, i < 2 ? 1 : -1, 0.5, 3.0, 10 + i));
    std::vector<int> n;
    c.neighbors(n);
    EXPECT_EQ(static_cast<int>(n.size()), c.number_of_faces());
}

TEST(ManyCuts, EulerFormulaHolds) {
    voronoicell c;
    c.init(-1, 1, -1, 1, -1, 1);
    Lcg g{7};
    for (int i = 0; i < 60; i++) {
        double x = 2 * g.next() - 1, y = 2 * g.next() - 1, z = 2 * g.next() - 1;
        double r = std::sqrt(x * x + y * y + z * z);
        if (r < 0.1) continue;
        ASSERT_TRUE(c.plane(x / r * 1.6, y / r * 1.6, z / r * 1.6));
        EXPECT_EQ(Vertices(c) - c.number_of_edges() + c.number_of_faces(), 2) << "after cut " << i;
    }
}

TEST(ManyCuts, VolumeOnlyShrinks) {
    voronoicell c;
    c.init(-1, 1, -1, 1, -1, 1);
    Lcg g{11};
    double last = c.volume();
    for (int i = 0; i < 80; i++) {
        double x = 2 * g.next() - 1, y = 2 * g.next() - 1, z = 2 * g.next() - 1;
        if (x * x + y * y + z * z < 0.01) continue;
        ASSERT_TRUE(c.plane(x * 1.5, y * 1.5, z * 1.5));
        double v = c.volume();
        EXPECT_LE(v, last + 1e-12);
        last = v;
    }
    EXPECT_GT(last, 0.0);
}

TEST(ManyCuts, ApproachASphere) {
    // tangent planes at distance 1 in many directions: the cell tends to the unit ball from outside
    voronoicell c;
    c.init(-2, 2, -2, 2, -2, 2);
    Lcg g{3};
    for (int i = 0; i < 400; i++) {
        double x = 2 * g.next() - 1, y = 2 * g.next() - 1, z = 2 * g.next() - 1;
        double r = std::sqrt(x * x + y * y + z * z);
        if (r < 0.1 || r > 1) continue;
        ASSERT_TRUE(c.plane(2 * x / r, 2 * y / r, 2 * z / r));
    }
    double ball = 4.0 / 3.0 * M_PI;
    EXPECT_GT(c.volume(), ball);
    EXPECT_LT(c.volume(), ball * 1.1);
    EXPECT_LT(c.max_radius_squared(), 4 * 1.3);  // twice the vertex positions
}

TEST(ManyCuts, FaceAreasSumToSurface) {
    voronoicell c;
    c.init(-1, 1, -1, 1, -1, 1);
    Lcg g{5};
    for (int i = 0; i < 30; i++) {
        double x = 2 * g.next() - 1, y = 2 * g.next() - 1, z = 2 * g.next() - 1;
        if (x * x + y * y + z * z < 0.01) continue;
        ASSERT_TRUE(c.plane(x * 1.8, y * 1.8, z * 1.8));
    }
    std::vector<double> areas;
    c.face_areas(areas);
    double sum = 0;
    for (double a : areas) sum += a;
    EXPECT_NEAR(sum, c.surface_area(), 1e-9);
    std::vector<int> orders;
    c.face_orders(orders);
    int twice_edges = 0;
    for (int o : orders) twice_edges += o;
    EXPECT_EQ(twice_edges, 2 * c.number_of_edges());
}

TEST(Copy, AssignedCellIsIndependent) {
    voronoicell a;
    a.init(-1, 1, -1, 1, -1, 1);
    ASSERT_TRUE(a.plane(1, 1, 1));
    voronoicell b;
    b = a;
    ASSERT_TRUE(b.plane(-1, 0, 0));
    EXPECT_NEAR(a.volume(), 8.0 - 1.5 * 1.5 * 1.5 / 6, kTol);
    EXPECT_LT(b.volume(), a.volume());
}
