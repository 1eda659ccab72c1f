// What our voro++ tests share: a small deterministic generator (the same points and planes on every
// run), a cell's vertex count, and a lattice of particles whose cells are unit cubes.
#ifndef VORO_TESTS_SUPPORT_H
#define VORO_TESTS_SUPPORT_H

#include <vector>

#include "voro++.hh"

struct Lcg {
    unsigned long long s;
    double next() {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>((s >> 11) & ((1ULL << 53) - 1)) / static_cast<double>(1ULL << 53);
    }
};

inline int Vertices(voro::voronoicell_base &c) {
    std::vector<double> v;
    c.vertices(v);
    return static_cast<int>(v.size() / 3);
}

// n * n * n particles at the centres of the unit cubes of [0, n]^3, numbered from 0
template <class Container>
void PutLattice(Container &con, int n) {
    int id = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) con.put(id++, i + 0.5, j + 0.5, k + 0.5);
}

#endif
