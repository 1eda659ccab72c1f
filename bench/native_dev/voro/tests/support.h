// What our voro++ tests share: a small deterministic generator (the same points and planes on every
// run) and a cell's vertex count.
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

#endif
