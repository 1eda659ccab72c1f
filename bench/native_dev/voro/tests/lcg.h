// A small deterministic generator for our voro++ tests: the same points and planes on every run.
#ifndef VORO_TESTS_LCG_H
#define VORO_TESTS_LCG_H

struct Lcg {
    unsigned long long s;
    double next() {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>((s >> 11) & ((1ULL << 53) - 1)) / static_cast<double>(1ULL << 53);
    }
};

#endif
