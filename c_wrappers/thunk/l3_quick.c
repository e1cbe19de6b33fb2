/* l3_quick.c — the Level-3 calls reference BLAS finishes without reading A or B (which it then
 * allows to be unset): TRSM and TRMM with alpha = 0 set B to zero; SYMM/HEMM with alpha = 0, and a
 * rank-k update with alpha = 0 or k = 0, leave C as it is when beta = 1, else scale it by beta (a
 * beta of 0 sets it to zero, NaN or not), a rank-k update only its triangle, whose Hermitian forms
 * keep only the real part of the diagonal.  Done on the host arrays before anything is staged: the
 * device routines read A and B whatever alpha is, so a NaN there reached the result. */
#include <complex.h>

#include "l3_internal.h"

/* every C(i, j) of C (a rank-k update's: its triangle) set to beta * C, or 0 when zero; on the
 * diagonal of a Hermitian form to beta * Re C */
#define SCALE(T)                                                                                   \
    do {                                                                                           \
        T *C_ = (T *)c->C;                                                                         \
        for (int64_t j = 0; j < ncols; j++)                                                        \
            for (int64_t i = lower ? j : 0; i < (upper ? j + 1 : nrows); i++) {                    \
                T *e = C_ + i + j * c->ldc;                                                        \
                if (zero)                                                                          \
                    *e = 0;                                                                        \
                else if (herm && i == j)                                                           \
                    *e = (T)(creal(beta) * creal(*e));                                             \
                else                                                                               \
                    *e = (T)(beta * *e);                                                           \
            }                                                                                      \
    } while (0)

int cufort_l3_quick(const cufort_l3 *c)
{
    int rank_k = c->op >= CUFORT_L3_SYRK, tri = c->op == CUFORT_L3_TRSM || c->op == CUFORT_L3_TRMM;
    int herm = c->op == CUFORT_L3_HERK || c->op == CUFORT_L3_HER2K || c->op == CUFORT_L3_HERKX;
    int64_t nrows = rank_k ? c->n : c->m, ncols = c->n;
    if (!(c->alpha == 0 || (rank_k && c->k == 0)) || nrows <= 0 || ncols <= 0)
        return 0;
    /* a NULL array the call would read were alpha not 0 is still the C ABI's error (l3_engine.c) */
    if (cufort_l3_null_array(c))
        return 0;
    if (!tri && c->beta == 1)
        return 1;
    /* a rank-k update's C: its triangle only */
    int zero = tri || c->beta == 0, upper = rank_k && cufort_l3_upper(c->uplo);
    int lower = rank_k && !upper;
    double complex beta = c->beta;
    switch (c->prec) {
    case 's': SCALE(float); break;
    case 'd': SCALE(double); break;
    case 'c': SCALE(float complex); break;
    default: SCALE(double complex);
    }
    return 1;
}
