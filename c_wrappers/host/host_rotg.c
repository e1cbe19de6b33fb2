/* host_rotg.c — the host backend's Givens generators, rotg and rotmg, written here rather than
 * taken from the CPU BLAS, whose versions break on inputs reference BLAS handles: OpenBLAS
 * 0.3.21's drotg overflows to r = Inf from |a|, |b| ~ 1e154 and flushes r to 0 below ~1e-154, its
 * zrotg returns NaN there, and its rotmg returns an H that does not zero y1 when d1 = 0.
 *
 * rotg: reference BLAS 3.10's formulation, r = sqrt(a^2 + b^2) formed from operands scaled into
 * range, so nothing overflows or underflows that the result does not.  rotmg: reference BLAS's
 * algorithm, but a second rescaling keeps the full H the first one made (netlib 3.11 and earlier
 * overwrite h21 and h12 with the flag-1 values -1 and 1 there, a bug fixed upstream since), and
 * an infinite d1 or d2 ends the rescaling instead of looping forever. */
#include <complex.h>
#include <float.h>
#include <math.h>

#include "host_internal.h"
#include "blas_backends.h"

/* ---- real rotg: MIN and MAX, the least and greatest scale that squares safely -------------- */
#define ROTG_REAL(p, T, MIN, MAX)                                                                  \
    int cufort_host_##p##rotg(T *a, T *b, T *c, T *s)                                             \
    {                                                                                              \
        T f = *a, g = *b, fa = fabs(f), ga = fabs(g);                                              \
        if (ga == 0) {                                                                             \
            *c = 1, *s = 0, *b = 0;                                                                \
        } else if (fa == 0) {                                                                      \
            *c = 0, *s = 1, *a = g, *b = 1;                                                        \
        } else {                                                                                   \
            T scl = fmin(MAX, fmax(MIN, fmax(fa, ga))), fs = f / scl, gs = g / scl;                \
            T r = copysign((T)1, fa > ga ? f : g) * (scl * sqrt(fs * fs + gs * gs));               \
            *c = f / r, *s = g / r;                                                                \
            *b = fa > ga ? *s : *c != 0 ? 1 / *c : 1;                                              \
            *a = r;                                                                                \
        }                                                                                          \
        return CUFORT_SUCCESS;                                                                     \
    }
ROTG_REAL(s, float, FLT_MIN, 0x1p127f)
ROTG_REAL(d, double, DBL_MIN, 0x1p1023)

/* ---- complex rotg: c real, s and r complex; r = f / |f| * sqrt(|f|^2 + |g|^2).  Unscaled when
 * both |f| and |g| lie in [RTMIN, RTMAX], where their squares are safe; otherwise both are scaled
 * by the larger, f separately when that scale would flush it. ---------------------------------- */
#define ROTG_CPLX(p, T, R, MIN, MAX, EPS)                                                          \
    static inline R abssq_##p(T t) { return creal(t) * creal(t) + cimag(t) * cimag(t); }          \
    static inline R amax_##p(T t) { return fmax(fabs(creal(t)), fabs(cimag(t))); }                \
    int cufort_host_##p##rotg(T *a, T *b, R *c, T *s)                                             \
    {                                                                                              \
        const R rtmin = sqrt(MIN / EPS), rtmax = sqrt(MAX * EPS);                                  \
        T f = *a, g = *b, r;                                                                       \
        R g1 = amax_##p(g), f1 = amax_##p(f);                                                      \
        if (g == 0) {                                                                              \
            *c = 1, *s = 0, r = f;                                                                 \
        } else if (f == 0) {                                                                       \
            R u = g1 > rtmin && g1 < rtmax ? 1 : fmin(MAX, fmax(MIN, g1));                         \
            T gs = g / u;                                                                          \
            R d = sqrt(abssq_##p(gs));                                                             \
            *c = 0, *s = conj(gs) / d, r = d * u;                                                  \
        } else {                                                                                   \
            int plain = f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax;                      \
            R u = plain ? 1 : fmin(MAX, fmax(MIN, fmax(f1, g1))), v = u;                           \
            if (!plain && f1 / u < rtmin) v = fmin(MAX, fmax(MIN, f1));                            \
            R w = v / u;                                                                           \
            T fs = f / v, gs = g / u;                                                              \
            R f2 = abssq_##p(fs), h2 = f2 * w * w + abssq_##p(gs);                                 \
            R d = f2 > rtmin && h2 < rtmax ? sqrt(f2 * h2) : sqrt(f2) * sqrt(h2), q = 1 / d;       \
            *c = f2 * q * w, *s = conj(gs) * (fs * q), r = fs * (h2 * q) * u;                      \
        }                                                                                          \
        *a = r;                                                                                    \
        return CUFORT_SUCCESS;                                                                     \
    }
ROTG_CPLX(c, cufort_cfloat, float, FLT_MIN, 0x1p127f, FLT_EPSILON)
ROTG_CPLX(z, cufort_cdouble, double, DBL_MIN, 0x1p1023, DBL_EPSILON)

/* ---- rotmg ----------------------------------------------------------------------------------- */
#define ROTMG(p, T)                                                                                \
    int cufort_host_##p##rotmg(T *d1, T *d2, T *x1, const T *y1, T *param)                        \
    {                                                                                              \
        const T gam = 4096, gamsq = 16777216, rgamsq = (T)5.9604645e-8;                            \
        T flag = -1, h11 = 0, h12 = 0, h21 = 0, h22 = 0;                                           \
        T p2 = *d2 * *y1, p1 = *d1 * *x1, q2 = p2 * *y1, q1 = p1 * *x1, u;                         \
        if (*d1 >= 0 && p2 == 0) {                                                                 \
            param[0] = -2;                                                                         \
            return CUFORT_SUCCESS;                                                                 \
        }                                                                                          \
        if (*d1 >= 0 && fabs(q1) > fabs(q2)) {                                                     \
            h21 = -*y1 / *x1, h12 = p2 / p1, u = 1 - h12 * h21;                                    \
            if (u > 0) flag = 0, *d1 /= u, *d2 /= u, *x1 *= u;                                     \
        } else if (*d1 >= 0 && q2 >= 0) {                                                          \
            h11 = p1 / p2, h22 = *x1 / *y1, u = 1 + h11 * h22;                                     \
            T t = *d2 / u;                                                                         \
            flag = 1, *d2 = *d1 / u, *d1 = t, *x1 = *y1 * u;                                       \
        }                                                                                          \
        if (flag == -1) {                                                                          \
            h11 = h12 = h21 = h22 = 0;                                                             \
            *d1 = *d2 = *x1 = 0;                                                                   \
        }                                                                                          \
        /* rescale d1 and d2 into [1/gam^2, gam^2], H taking the factors: H in full from then */   \
        while (*d1 != 0 && isfinite(*d1) && (*d1 <= rgamsq || *d1 >= gamsq)) {                     \
            if (flag == 0) h11 = h22 = 1;                                                          \
            if (flag == 1) h21 = -1, h12 = 1;                                                      \
            flag = -1;                                                                             \
            T k = *d1 <= rgamsq ? 1 / gam : gam;                                                   \
            *d1 = *d1 <= rgamsq ? *d1 * gamsq : *d1 / gamsq;                                       \
            *x1 *= k, h11 *= k, h12 *= k;                                                          \
        }                                                                                          \
        while (*d2 != 0 && isfinite(*d2) && (fabs(*d2) <= rgamsq || fabs(*d2) >= gamsq)) {         \
            if (flag == 0) h11 = h22 = 1;                                                          \
            if (flag == 1) h21 = -1, h12 = 1;                                                      \
            flag = -1;                                                                             \
            T k = fabs(*d2) <= rgamsq ? 1 / gam : gam;                                             \
            *d2 = fabs(*d2) <= rgamsq ? *d2 * gamsq : *d2 / gamsq;                                 \
            h21 *= k, h22 *= k;                                                                    \
        }                                                                                          \
        if (flag != 0) param[1] = h11, param[4] = h22;                                             \
        if (flag != 1) param[2] = h21, param[3] = h12;                                             \
        param[0] = flag;                                                                           \
        return CUFORT_SUCCESS;                                                                     \
    }
ROTMG(s, float)
ROTMG(d, double)
