// Our tests of voro++'s walls (planes, spheres, cylinders, cones cutting the cells) and of periodic
// containers, where the cells tile a box without its faces.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support.h"
#include "voro++.hh"

using namespace voro;

namespace {

double OneCell(container &con) {
    c_loop_all cl(con);
    voronoicell c;
    double v = 0;
    if (cl.start()) do {
            if (con.compute_cell(c, cl)) v += c.volume();
        } while (cl.inc());
    return v;
}

}  // namespace

TEST(WallPlane, CutsTheBox) {
    container con(0, 1, 0, 1, 0, 1, 1, 1, 1, false, false, false, 8);
    wall_plane w(1, 0, 0, 0.5);  // keeps x < 0.5
    con.add_wall(w);
    con.put(0, 0.25, 0.5, 0.5);
    EXPECT_NEAR(OneCell(con), 0.5, 1e-12);
}

TEST(WallPlane, Diagonal) {
    container con(0, 1, 0, 1, 0, 1, 1, 1, 1, false, false, false, 8);
    wall_plane w(1, 1, 0, 1);  // keeps x + y < 1
    con.add_wall(w);
    con.put(0, 0.2, 0.2, 0.5);
    EXPECT_NEAR(OneCell(con), 0.5, 1e-12);
}

TEST(WallPlane, PointInsideWalls) {
    container con(0, 1, 0, 1, 0, 1, 1, 1, 1, false, false, false, 8);
    wall_plane w(0, 0, 1, 0.3);
    con.add_wall(w);
    EXPECT_TRUE(con.point_inside(0.5, 0.5, 0.2));
    EXPECT_FALSE(con.point_inside(0.5, 0.5, 0.4));
}

TEST(WallSphere, CellsInsideTheBall) {
    container con(-1, 1, -1, 1, -1, 1, 4, 4, 4, false, false, false, 8);
    wall_sphere w(0, 0, 0, 1);
    con.add_wall(w);
    Lcg g{71};
    int id = 0;
    while (id < 200) {
        double x = 2 * g.next() - 1, y = 2 * g.next() - 1, z = 2 * g.next() - 1;
        if (x * x + y * y + z * z < 1) con.put(id++, x, y, z);
    }
    double v = con.sum_cell_volumes();
    double ball = 4.0 / 3.0 * M_PI;
    EXPECT_GT(v, ball);  // tangent planes: a polyhedron around the ball
    EXPECT_LT(v, ball * 1.15);
}

TEST(WallSphere, OneParticleOffCentre) {
    container con(-2, 2, -2, 2, -2, 2, 1, 1, 1, false, false, false, 8);
    wall_sphere w(0, 0, 0, 1);
    con.add_wall(w);
    con.put(0, 0.5, 0, 0);  // the wall's plane is tangent to the ball at (1, 0, 0): x < 1
    EXPECT_NEAR(OneCell(con), 3 * 4 * 4, 1e-9);
}

TEST(WallCylinder, CellsInsideTheCylinder) {
    container con(-1, 1, -1, 1, 0, 2, 4, 4, 4, false, false, false, 8);
    wall_cylinder w(0, 0, 0, 0, 0, 1, 1);
    con.add_wall(w);
    Lcg g{73};
    int id = 0;
    while (id < 200) {
        double x = 2 * g.next() - 1, y = 2 * g.next() - 1, z = 2 * g.next();
        if (x * x + y * y < 1) con.put(id++, x, y, z);
    }
    double v = con.sum_cell_volumes();
    double cyl = M_PI * 2;
    EXPECT_GT(v, cyl);
    EXPECT_LT(v, cyl * 1.15);
}

TEST(WallCone, CellsInsideTheCone) {
    container con(-1, 1, -1, 1, 0, 1, 4, 4, 4, false, false, false, 8);
    wall_cone w(0, 0, 1, 0, 0, -1, std::atan(1.0));  // apex (0,0,1) opening down at 45 degrees
    con.add_wall(w);
    Lcg g{79};
    int id = 0;
    while (id < 200) {
        double x = 2 * g.next() - 1, y = 2 * g.next() - 1, z = g.next();
        if (std::sqrt(x * x + y * y) < 1 - z) con.put(id++, x, y, z);
    }
    double v = con.sum_cell_volumes();
    double cone = M_PI / 3;
    EXPECT_GT(v, cone);
    EXPECT_LT(v, cone * 1.3);
}

TEST(Periodic, LatticeCellsAreUnitCubes) {
    container con(0, 3, 0, 3, 0, 3, 3, 3, 3, true, true, true, 8);
    PutLattice(con, 3);
    c_loop_all cl(con);
    voronoicell_neighbor c;
    ASSERT_TRUE(cl.start());
    do {
        ASSERT_TRUE(con.compute_cell(c, cl));
        EXPECT_NEAR(c.volume(), 1.0, 1e-9);
        std::vector<int> n;
        c.neighbors(n);
        for (int k : n) EXPECT_GE(k, 0);  // no walls in a periodic box
    } while (cl.inc());
}

TEST(Periodic, RandomFillsTheBox) {
    container con(0, 2, 0, 2, 0, 2, 3, 3, 3, true, true, true, 8);
    Lcg g{83};
    for (int i = 0; i < 70; i++) con.put(i, 2 * g.next(), 2 * g.next(), 2 * g.next());
    EXPECT_NEAR(con.sum_cell_volumes(), 8.0, 1e-8);
}

TEST(Periodic, OneParticleOwnsTheBox) {
    container con(0, 1, 0, 1, 0, 1, 1, 1, 1, true, true, true, 8);
    con.put(0, 0.3, 0.6, 0.2);
    EXPECT_NEAR(OneCell(con), 1.0, 1e-9);
}

TEST(Periodic, WrapsPutOutsideTheBox) {
    container con(0, 1, 0, 1, 0, 1, 2, 2, 2, true, true, true, 8);
    con.put(0, 1.25, -0.25, 0.5);  // kept at (0.25, 0.75, 0.5)
    EXPECT_EQ(con.total_particles(), 1);
    double rx, ry, rz;
    int pid;
    ASSERT_TRUE(con.find_voronoi_cell(0.3, 0.7, 0.5, rx, ry, rz, pid));
    EXPECT_EQ(pid, 0);
}

TEST(PeriodicPartly, SlabInZOnly) {
    container con(0, 2, 0, 2, 0, 1, 2, 2, 1, false, false, true, 8);
    Lcg g{89};
    for (int i = 0; i < 30; i++) con.put(i, 2 * g.next(), 2 * g.next(), g.next());
    EXPECT_NEAR(con.sum_cell_volumes(), 4.0, 1e-8);
}

TEST(ContainerPeriodic, TriclinicVolume) {
    // a sheared periodic box: bx=2, bxy=0.5, by=2, bxz=0, byz=0, bz=2; volume bx*by*bz
    container_periodic con(2, 0.5, 2, 0, 0, 2, 3, 3, 3, 8);
    Lcg g{97};
    for (int i = 0; i < 40; i++) con.put(i, 2 * g.next(), 2 * g.next(), 2 * g.next());
    EXPECT_NEAR(con.sum_cell_volumes(), 8.0, 1e-7);
}
