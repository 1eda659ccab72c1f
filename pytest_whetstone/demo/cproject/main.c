#include <stdio.h>
#include <stdbool.h>
#include "stats.h"

int main(void) {
    int values[] = {3, 4, 5};
    if (stats_is_empty(values, 3)) {
        return 1;
    }
    printf("sum=%d rms=%.3f\n", stats_sum(values, 3), stats_rms(values, 3));
    return 0;
}
