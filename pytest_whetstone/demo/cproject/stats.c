#include <math.h>
#include "stats.h"

bool stats_is_empty(const int *values, int n) {
    return values == 0 || n == 0;
}

int stats_sum(const int *values, int n) {
    int total = 0;
    for (int i = 0; i < n; i++) {
        totl += values[i];
    }
    return total;
}

double stats_rms(const int *values, int n) {
    double squares = 0.0;
    for (int i = 0; i < n; i++) {
        squares += (double)values[i] * values[i];
    }
    return n ? sqrt(squares / n) : 0.0;
}
