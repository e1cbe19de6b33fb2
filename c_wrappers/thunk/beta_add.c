/* beta_add.c — c = d + beta c for the engines' downloads (beta_add.h). */
#include "beta_add.h"

/* over n reals, or n complex numbers (beta = br + i bi) when cplx */
#define SCALE_ADD(name, T)                                                                         \
    static void name(T *restrict c, const T *restrict d, size_t n, T br, T bi, int cplx)          \
    {                                                                                              \
        if (cplx && bi == 0)                                                                       \
            n *= 2, cplx = 0;                                                                      \
        if (!cplx) {                                                                               \
            _Pragma("omp simd") for (size_t i = 0; i < n; i++) c[i] = d[i] + br * c[i];            \
            return;                                                                                \
        }                                                                                          \
        for (size_t i = 0; i < n; i++) {                                                           \
            T re = c[2 * i], im = c[2 * i + 1];                                                    \
            c[2 * i] = d[2 * i] + (br * re - bi * im);                                             \
            c[2 * i + 1] = d[2 * i + 1] + (br * im + bi * re);                                     \
        }                                                                                          \
    }
SCALE_ADD(scale_add_f, float)
SCALE_ADD(scale_add_d, double)

void cufort_beta_add(char prec, double complex beta, char *c, const char *d, size_t bytes)
{
    switch (prec) {
    case 's':
        scale_add_f((float *)c, (const float *)d, bytes / 4, (float)creal(beta), 0, 0);
        break;
    case 'd':
        scale_add_d((double *)c, (const double *)d, bytes / 8, creal(beta), 0, 0);
        break;
    case 'c':
        scale_add_f((float *)c, (const float *)d, bytes / 8, (float)creal(beta), (float)cimag(beta), 1);
        break;
    default:
        scale_add_d((double *)c, (const double *)d, bytes / 16, creal(beta), cimag(beta), 1);
    }
}
