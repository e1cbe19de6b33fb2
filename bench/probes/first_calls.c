/* first_calls.c — what a program's first calls on new arrays cost, call by call: C = A*B + C on
 * fresh malloc'd n x n arrays, CALLS calls timed one by one (wall clock; the first includes
 * cufort's start).  The pin cache watches an array at its second copy and pins it at its third,
 * so calls 2 and 3 show what watching and pinning cost, and the later calls what the pins save.
 * Usage: first_calls N s|d [CALLS]   (CALLS default 8).  Eight sampled elements of C are checked
 * against a double-precision sum at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../bench_util.h"
#include "cufort.h"

static double value(size_t i, int which) { return 0.25 + (double)((i * 7 + which * 131) % 997) / 997.0; }

int main(int argc, char **argv)
{
    if (argc < 3 || atoi(argv[1]) <= 0 || (argv[2][0] != 's' && argv[2][0] != 'd')) {
        fprintf(stderr, "usage: first_calls N s|d [CALLS]\n");
        return 2;
    }
    int n = atoi(argv[1]), calls = argc > 3 ? atoi(argv[3]) : 8;
    char p = argv[2][0];
    size_t es = p == 's' ? 4 : 8, count = (size_t)n * n;
    void *a = malloc(count * es), *b = malloc(count * es), *c = malloc(count * es);
    if (!a || !b || !c || cufort_init()) {
        fprintf(stderr, "first_calls: no memory, or cufort_init failed\n");
        return 1;
    }
    for (size_t i = 0; i < count; i++) {
        if (p == 's')
            ((float *)a)[i] = (float)value(i, 1), ((float *)b)[i] = (float)value(i, 2),
            ((float *)c)[i] = (float)value(i, 3);
        else
            ((double *)a)[i] = value(i, 1), ((double *)b)[i] = value(i, 2), ((double *)c)[i] = value(i, 3);
    }
    printf("%cgemm n = %d, ms per call:", p, n);
    for (int k = 0; k < calls; k++) {
        double t0 = bench_now();
        int st = p == 's' ? cufort_sgemm_host('N', 'N', n, n, n, 1.0f, a, n, b, n, 1.0f, c, n)
                          : cufort_dgemm_host('N', 'N', n, n, n, 1.0, a, n, b, n, 1.0, c, n);
        if (st) {
            printf("\nfirst_calls: call %d failed: %s\n", k + 1, cufort_last_error());
            return 1;
        }
        printf(" %.2f", (bench_now() - t0) * 1e3);
    }
    printf("\n");
    /* C = C0 + calls * A B */
    double worst = 0;
    for (int s = 0; s < 8; s++) {
        size_t i = (size_t)(s * 7919) % n, j = (size_t)(s * 104729) % n;
        double dot = 0;
        for (int l = 0; l < n; l++)
            dot += value(i + (size_t)l * n, 1) * value(l + j * n, 2);
        double want = value(i + j * n, 3) + calls * dot;
        double got = p == 's' ? ((float *)c)[i + j * n] : ((double *)c)[i + j * n];
        worst = fmax(worst, fabs(got - want) / fabs(want));
    }
    double bound = p == 's' ? 1e-4 : 1e-12;
    printf("sampled relative error %.2e (bound %.0e): %s\n", worst, bound, worst <= bound ? "ok" : "WRONG");
    return worst <= bound ? 0 : 1;
}
