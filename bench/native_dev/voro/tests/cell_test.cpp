// Our tests of voro++'s voronoicell: a cube or other start shape cut by planes, and what the cell then
// measures (volume, faces, vertices, edges, areas, centroid).  Values are exact geometry, not captured.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "support.h"
#include "voro++.hh"

using namespace voro;

namespace {

constexpr double kTol = 1e-9;

voronoicell Cube(double h = 1) {
    voronoicell c;
    c.init(-h, h, -h, h, -h, h);
    return c;
}

}  // namespace

TEST(Cube, Volume) {
    voronoicell c = Cube();
    EXPECT_NEAR(c.volume(), 8.0, kTol);
}

TEST(Cube, BoxVolume) {
    voronoicell c;
    c.init(0, 1, 0, 2, 0, 3);
    EXPECT_NEAR(c.volume(), 6.0, kTol);
}

TEST(Cube, FacesVerticesEdges) {
    voronoicell c = Cube();
    EXPECT_EQ(c.number_of_faces(), 6);
    EXPECT_EQ(Vertices(c), 8);
    EXPECT_EQ(c.number_of_edges(), 12);
}

TEST(Cube, SurfaceArea) {
    voronoicell c = Cube();
    EXPECT_NEAR(c.surface_area(), 24.0, kTol);
}

TEST(Cube, Centroid) {
    voronoicell c;
    c.init(0, 2, 0, 4, 0, 6);
    double x, y, z;
    c.centroid(x, y, z);
    EXPECT_NEAR(x, 1.0, kTol);
    EXPECT_NEAR(y, 2.0, kTol);
    EXPECT_NEAR(z, 3.0, kTol);
}

TEST(Cube, MaxRadiusSquared) {
    voronoicell c = Cube();
    EXPECT_NEAR(c.max_radius_squared(), 4 * 3.0, kTol);  // of the cell's vertices, kept at twice their positions
}

TEST(Cube, TotalEdgeDistance) {
    voronoicell c = Cube();
    EXPECT_NEAR(c.total_edge_distance(), 24.0, kTol);
}

TEST(Cube, VertexOrdersAreThree) {
    voronoicell c = Cube();
    std::vector<int> orders;
    c.vertex_orders(orders);
    ASSERT_EQ(orders.size(), 8u);
    for (int o : orders) EXPECT_EQ(o, 3);
}

TEST(Cube, FaceOrdersAreFour) {
    voronoicell c = Cube();
    std::vector<int> orders;
    c.face_orders(orders);
    ASSERT_EQ(orders.size(), 6u);
    for (int o : orders) EXPECT_EQ(o, 4);
}

TEST(Cube, FaceAreasSumToSurface) {
    voronoicell c = Cube();
    std::vector<double> areas;
    c.face_areas(areas);
    ASSERT_EQ(areas.size(), 6u);
    for (double a : areas) EXPECT_NEAR(a, 4.0, kTol);
}

TEST(Cube, FacePerimeters) {
    voronoicell c = Cube();
    std::vector<double> per;
    c.face_perimeters(per);
    ASSERT_EQ(per.size(), 6u);
    for (double p : per) EXPECT_NEAR(p, 8.0, kTol);
}

TEST(Cube, NormalsAreUnitAxes) {
    voronoicell c = Cube();
    std::vector<double> n;
    c.normals(n);
    ASSERT_EQ(n.size(), 18u);
    for (int f = 0; f < 6; f++) {
        double len = std::sqrt(n[3 * f] * n[3 * f] + n[3 * f + 1] * n[3 * f + 1] + n[3 * f + 2] * n[3 * f + 2]);
        EXPECT_NEAR(len, 1.0, kTol);
    }
}

TEST(Cube, FaceFreqTable) {
    voronoicell c = Cube();
    std::vector<int> freq;
    c.face_freq_table(freq);
    ASSERT_GE(freq.size(), 5u);
    EXPECT_EQ(freq[4], 6);
}

TEST(Cut, HalfSpace) {
    voronoicell c = Cube();
    ASSERT_TRUE(c.plane(1, 0, 0));  // keeps x < 0.5
    EXPECT_NEAR(c.volume(), 6.0, kTol);
    EXPECT_EQ(c.number_of_faces(), 6);
}

TEST(Cut, HalfSpaceWithRadius) {
    voronoicell c = Cube();
    ASSERT_TRUE(c.plane(0, 0, 1, 0.0));  // keeps z < 0
    EXPECT_NEAR(c.volume(), 4.0, kTol);
}

TEST(Cut, NegativeDirection) {
    voronoicell c = Cube();
    ASSERT_TRUE(c.plane(0, -1, 0));  // keeps y > -0.5
    EXPECT_NEAR(c.volume(), 6.0, kTol);
}

TEST(Cut, Corner) {
    voronoicell c = Cube();
    ASSERT_TRUE(c.plane(1, 1, 1));  // keeps x + y + z < 1.5: a tetrahedron of legs 1.5 goes
    EXPECT_NEAR(c.volume(), 8.0 - 1.5 * 1.5 * 1.5 / 6, kTol);
    EXPECT_EQ(c.number_of_faces(), 7);
    EXPECT_EQ(Vertices(c), 10);
    EXPECT_EQ(c.number_of_edges(), 15);
}

TEST(Cut, EdgeBevel) {
    voronoicell c = Cube();
    ASSERT_TRUE(c.plane(1, 1, 0));  // keeps x + y < 1: a prism of legs 1 and length 2 goes
    EXPECT_NEAR(c.volume(), 8.0 - 0.5 * 1 * 1 * 2, kTol);
    EXPECT_EQ(c.number_of_faces(), 7);
}

TEST(Cut, TwoOppositeSlabs) {
    voronoicell c = Cube();
    ASSERT_TRUE(c.plane(1, 0, 0));
    ASSERT_TRUE(c.plane(-1, 0, 0));
    EXPECT_NEAR(c.volume(), 4.0, kTol);
    EXPECT_EQ(c.number_of_faces(), 6);
}

TEST(Cut, MissLeavesCellAlone) {
    voronoicell c = Cube();
    ASSERT_TRUE(c.plane(5, 0, 0));  // the plane x = 2.5 lies outside
    EXPECT_NEAR(c.volume(), 8.0, kTol);
    EXPECT_EQ(Vertices(c), 8);
}

TEST(Cut, EverythingGoes) {
    voronoicell c = Cube();
    EXPECT_FALSE(c.plane(1, 0, 0, -5.0));  // keeps x < -2.5: nothing
}

TEST(Cut, ManyPlanesMakeOctahedronLikeShape) {
    voronoicell c = Cube(2);
    for (int sx = -1; sx <= 1; sx += 2)
        for (int sy = -1; sy <= 1; sy += 2)
            for (int sz = -1; sz <= 1; sz += 2) ASSERT_TRUE(c.plane(sx, sy, sz, 3.0));  // |x|+|y|+|z| < 1.5
    EXPECT_NEAR(c.volume(), 4.0 / 3.0 * 1.5 * 1.5 * 1.5, 1e-8);
    EXPECT_EQ(c.number_of_faces(), 8);
    EXPECT_EQ(Vertices(c), 6);
}

TEST(Cut, SurfaceAfterHalfSpace) {
    voronoicell c = Cube();
    ASSERT_TRUE(c.plane(0, 2, 0));  // keeps y < 1: nothing goes but the plane touches a face
    EXPECT_NEAR(c.volume(), 8.0, 1e-8);
    voronoicell d = Cube();
    ASSERT_TRUE(d.plane(0, 1, 0));  // keeps y < 0.5
    EXPECT_NEAR(d.surface_area(), 2 * 2 * 2 + 4 * 2 * 1.5, kTol);
}

TEST(Cut, CentroidMovesAwayFromCut) {
    voronoicell c = Cube();
    ASSERT_TRUE(c.plane(1, 0, 0));
    double x, y, z;
    c.centroid(x, y, z);
    EXPECT_NEAR(x, -0.25, kTol);
    EXPECT_NEAR(y, 0.0, kTol);
    EXPECT_NEAR(z, 0.0, kTol);
}

TEST(Cut, PlaneIntersects) {
    voronoicell c = Cube();
    EXPECT_TRUE(c.plane_intersects(1, 0, 0, 1.0));
    EXPECT_FALSE(c.plane_intersects(1, 0, 0, 9.0));
}
