// Our tests of voro++'s containers: particles in a box, the cells computed for them, the sum of their
// volumes, nearest-particle lookup, polydisperse radii and the loops over particles.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support.h"
#include "voro++.hh"

using namespace voro;

namespace {

struct Points {
    std::vector<double> x, y, z;
};

Points Random(int n, unsigned long long seed, double side) {
    Points p;
    Lcg g{seed};
    for (int i = 0; i < n; i++) {
        p.x.push_back(side * g.next());
        p.y.push_back(side * g.next());
        p.z.push_back(side * g.next());
    }
    return p;
}

}  // namespace

TEST(Lattice, EachCellIsAUnitCube) {
    container con(0, 3, 0, 3, 0, 3, 3, 3, 3, false, false, false, 8);
    PutLattice(con, 3);
    c_loop_all cl(con);
    voronoicell c;
    int seen = 0;
    ASSERT_TRUE(cl.start());
    do {
        ASSERT_TRUE(con.compute_cell(c, cl));
        EXPECT_NEAR(c.volume(), 1.0, 1e-9);
        EXPECT_EQ(c.number_of_faces(), 6);
        seen++;
    } while (cl.inc());
    EXPECT_EQ(seen, 27);
}

TEST(Lattice, SumOfVolumes) {
    container con(0, 4, 0, 4, 0, 4, 2, 2, 2, false, false, false, 8);
    PutLattice(con, 4);
    EXPECT_NEAR(con.sum_cell_volumes(), 64.0, 1e-8);
    EXPECT_EQ(con.total_particles(), 64);
}

TEST(Random, VolumesFillTheBox) {
    container con(0, 2, 0, 2, 0, 2, 4, 4, 4, false, false, false, 8);
    Points p = Random(60, 17, 2.0);
    for (int i = 0; i < 60; i++) con.put(i, p.x[i], p.y[i], p.z[i]);
    EXPECT_NEAR(con.sum_cell_volumes(), 8.0, 1e-8);
}

TEST(Random, ManyParticlesFillTheBox) {
    container con(-1, 1, -1, 1, -1, 1, 6, 6, 6, false, false, false, 8);
    Points p = Random(400, 29, 2.0);
    for (int i = 0; i < 400; i++) con.put(i, p.x[i] - 1, p.y[i] - 1, p.z[i] - 1);
    EXPECT_NEAR(con.sum_cell_volumes(), 8.0, 1e-7);
}

TEST(Random, EveryCellComputes) {
    container con(0, 1, 0, 1, 0, 1, 3, 3, 3, false, false, false, 8);
    Points p = Random(50, 31, 1.0);
    for (int i = 0; i < 50; i++) con.put(i, p.x[i], p.y[i], p.z[i]);
    c_loop_all cl(con);
    voronoicell_neighbor c;
    int computed = 0;
    double total = 0;
    if (cl.start()) do {
            if (con.compute_cell(c, cl)) {
                computed++;
                total += c.volume();
                std::vector<int> n;
                c.neighbors(n);
                EXPECT_EQ(static_cast<int>(n.size()), c.number_of_faces());
            }
        } while (cl.inc());
    EXPECT_EQ(computed, 50);
    EXPECT_NEAR(total, 1.0, 1e-8);
}

TEST(Random, NeighborsAreMutual) {
    container con(0, 1, 0, 1, 0, 1, 3, 3, 3, false, false, false, 8);
    Points p = Random(30, 41, 1.0);
    for (int i = 0; i < 30; i++) con.put(i, p.x[i], p.y[i], p.z[i]);
    std::vector<std::vector<int>> nb(30);
    c_loop_all cl(con);
    voronoicell_neighbor c;
    if (cl.start()) do {
            if (con.compute_cell(c, cl)) c.neighbors(nb[cl.pid()]);
        } while (cl.inc());
    for (int i = 0; i < 30; i++)
        for (int j : nb[i])
            if (j >= 0) {
                bool back = false;
                for (int k : nb[j]) back = back || k == i;
                EXPECT_TRUE(back) << i << " lists " << j;
            }
}

TEST(Find, NearestParticle) {
    container con(0, 1, 0, 1, 0, 1, 3, 3, 3, false, false, false, 8);
    Points p = Random(40, 53, 1.0);
    for (int i = 0; i < 40; i++) con.put(i, p.x[i], p.y[i], p.z[i]);
    Lcg g{59};
    for (int t = 0; t < 25; t++) {
        double x = g.next(), y = g.next(), z = g.next();
        int best = -1;
        double bestd = 1e30;
        for (int i = 0; i < 40; i++) {
            double d = (x - p.x[i]) * (x - p.x[i]) + (y - p.y[i]) * (y - p.y[i]) + (z - p.z[i]) * (z - p.z[i]);
            if (d < bestd) bestd = d, best = i;
        }
        double rx, ry, rz;
        int pid;
        ASSERT_TRUE(con.find_voronoi_cell(x, y, z, rx, ry, rz, pid));
        EXPECT_EQ(pid, best);
        EXPECT_NEAR(rx, p.x[best], 1e-12);
    }
}

TEST(Find, OutsideTheBox) {
    container con(0, 1, 0, 1, 0, 1, 2, 2, 2, false, false, false, 8);
    con.put(0, 0.5, 0.5, 0.5);
    double rx, ry, rz;
    int pid;
    EXPECT_FALSE(con.find_voronoi_cell(2, 2, 2, rx, ry, rz, pid));
}

TEST(Container, PointInside) {
    container con(0, 1, 0, 2, 0, 3, 2, 2, 2, false, false, false, 8);
    EXPECT_TRUE(con.point_inside(0.5, 1.5, 2.5));
    EXPECT_FALSE(con.point_inside(1.5, 1.0, 1.0));
    EXPECT_FALSE(con.point_inside(0.5, -0.1, 1.0));
}

TEST(Container, ClearEmpties) {
    container con(0, 1, 0, 1, 0, 1, 2, 2, 2, false, false, false, 8);
    con.put(0, 0.2, 0.2, 0.2);
    con.put(1, 0.8, 0.8, 0.8);
    EXPECT_EQ(con.total_particles(), 2);
    con.clear();
    EXPECT_EQ(con.total_particles(), 0);
}

TEST(Container, TwoParticlesSplitTheBox) {
    container con(0, 2, 0, 1, 0, 1, 2, 1, 1, false, false, false, 8);
    con.put(0, 0.5, 0.5, 0.5);
    con.put(1, 1.5, 0.5, 0.5);
    c_loop_all cl(con);
    voronoicell c;
    ASSERT_TRUE(cl.start());
    do {
        ASSERT_TRUE(con.compute_cell(c, cl));
        EXPECT_NEAR(c.volume(), 1.0, 1e-12);
    } while (cl.inc());
}

TEST(Poly, EqualRadiiAsMono) {
    container_poly con(0, 2, 0, 2, 0, 2, 3, 3, 3, false, false, false, 8);
    Points p = Random(40, 61, 2.0);
    for (int i = 0; i < 40; i++) con.put(i, p.x[i], p.y[i], p.z[i], 0.1);
    EXPECT_NEAR(con.sum_cell_volumes(), 8.0, 1e-8);
}

TEST(Poly, BiggerRadiusBiggerCell) {
    container_poly con(0, 2, 0, 1, 0, 1, 2, 1, 1, false, false, false, 8);
    con.put(0, 0.5, 0.5, 0.5, 0.4);
    con.put(1, 1.5, 0.5, 0.5, 0.1);
    c_loop_all cl(con);
    voronoicell c;
    std::vector<double> vol(2);
    ASSERT_TRUE(cl.start());
    do {
        ASSERT_TRUE(con.compute_cell(c, cl));
        vol[cl.pid()] = c.volume();
    } while (cl.inc());
    EXPECT_GT(vol[0], vol[1]);
    EXPECT_NEAR(vol[0] + vol[1], 2.0, 1e-12);
    // the radical plane: x where (x - 0.5)^2 - 0.16 = (x - 1.5)^2 - 0.01, x = 1.075
    EXPECT_NEAR(vol[0], 1.075, 1e-12);
}

TEST(PreContainer, SetsUpTheSameCells) {
    pre_container pcon(0, 2, 0, 2, 0, 2, false, false, false);
    Points p = Random(80, 67, 2.0);
    for (int i = 0; i < 80; i++) pcon.put(i, p.x[i], p.y[i], p.z[i]);
    int nx, ny, nz;
    pcon.guess_optimal(nx, ny, nz);
    EXPECT_GT(nx, 0);
    container con(0, 2, 0, 2, 0, 2, nx, ny, nz, false, false, false, 8);
    pcon.setup(con);
    EXPECT_EQ(con.total_particles(), 80);
    EXPECT_NEAR(con.sum_cell_volumes(), 8.0, 1e-8);
}
