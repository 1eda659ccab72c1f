#ifndef STATS_H
#define STATS_H

bool stats_is_empty(const int *values, int n);
int stats_sum(const int *values, int n);
double stats_rms(const int *values, int n);

#endif
