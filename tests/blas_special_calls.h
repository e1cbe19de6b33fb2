/* blas_special_calls.h — test_blas_special.c's way into each routine: one function per routine
 * and precision that calls it through a surface (REF: netlib; CAPI: cufort_<name>_host; F77 and
 * DROPIN: the Fortran names of the library opened for them), on arguments of one shape, and
 * returns the C ABI's status (0 for the Fortran surfaces, which have none to give). */

/* nrm2, asum: a real value */
#define REDUCE(NAME, T, R)                                                                         \
    R NAME##_(const int *, const T *, const int *);                                                \
    static int call_##NAME(int surf, int64_t n, const void *x, int64_t inc, double *out)         \
    {                                                                                              \
        R r = -7;                                                                                  \
        int st = 0;                                                                                \
        if (surf == REF) r = NAME##_(RI(n), x, RI(inc));                                          \
        else if (surf == CAPI) st = cufort_##NAME##_host(n, x, inc, &r);                          \
        else r = ((R(*)(const f77_int *, const T *, const f77_int *))fsym(surf, #NAME))(FI(n), x, FI(inc)); \
        *out = r;                                                                                  \
        return st;                                                                                 \
    }
REDUCE(snrm2, float, float)
REDUCE(dnrm2, double, double)
REDUCE(scnrm2, cf, float)
REDUCE(dznrm2, zd, double)
REDUCE(sasum, float, float)
REDUCE(dasum, double, double)
REDUCE(scasum, cf, float)
REDUCE(dzasum, zd, double)

/* i?amax (REF: netlib) and i?amin (REF: the model below, netlib has none): BLAS's 1-based index,
 * the reference's given as REF_INDEX */
#define INDEX(NAME, T, REF_INDEX)                                                                  \
    static int call_##NAME(int surf, int64_t n, const void *x, int64_t inc, int64_t *out)        \
    {                                                                                              \
        int st = 0;                                                                                \
        if (surf == REF) *out = REF_INDEX;                                                        \
        else if (surf == CAPI) st = cufort_##NAME##_host(n, x, inc, out), *out += 1;              \
        else *out = ((f77_int(*)(const f77_int *, const T *, const f77_int *))fsym(surf, #NAME))(FI(n), x, FI(inc)); \
        return st;                                                                                 \
    }
#define IAMAX(NAME, T)                                                                             \
    int NAME##_(const int *, const T *, const int *);                                              \
    INDEX(NAME, T, NAME##_(RI(n), x, RI(inc)))
IAMAX(isamax, float)
IAMAX(idamax, double)
IAMAX(icamax, cf)
IAMAX(izamax, zd)

/* Reference BLAS's i?amax with the comparison turned round: the first element of least |re|+|im|,
 * an element compared false (NaN) never replacing the one held, 0 for n < 1 or incx <= 0. */
static int64_t amin_model(char t, int64_t n, const void *x, int64_t inc)
{
    if (n < 1 || inc <= 0) return 0;
    int64_t best = 1;
    double re, im, least;
    get(t, x, 0, &re, &im);
    least = fabs(re) + fabs(im);
    for (int64_t i = 1; i < n; i++) {
        get(t, x, i * inc, &re, &im);
        if (fabs(re) + fabs(im) < least) least = fabs(re) + fabs(im), best = i + 1;
    }
    return best;
}
#define IAMIN(NAME, T, TC) INDEX(NAME, T, amin_model(TC, n, x, inc))
IAMIN(isamin, float, 's')
IAMIN(idamin, double, 'd')
IAMIN(icamin, cf, 'c')
IAMIN(izamin, zd, 'z')

/* dot products: the value as (re, im) */
#define DOT(NAME, T)                                                                               \
    T NAME##_(const int *, const T *, const int *, const T *, const int *);                        \
    static int call_##NAME(int surf, int64_t n, const void *x, int64_t incx, const void *y,      \
                           int64_t incy, double out[2])                                            \
    {                                                                                              \
        T r = -7;                                                                                  \
        int st = 0;                                                                                \
        if (surf == REF) r = NAME##_(RI(n), x, RI(incx), y, RI(incy));                            \
        else if (surf == CAPI) st = cufort_##NAME##_host(n, x, incx, y, incy, &r);               \
        else r = ((T(*)(const f77_int *, const T *, const f77_int *, const T *, const f77_int *))  \
                      fsym(surf, #NAME))(FI(n), x, FI(incx), y, FI(incy));                         \
        out[0] = creal(r), out[1] = cimag(r);                                                      \
        return st;                                                                                 \
    }
DOT(sdot, float)
DOT(ddot, double)
DOT(cdotu, cf)
DOT(cdotc, cf)
DOT(zdotu, zd)
DOT(zdotc, zd)

/* y = alpha x + y */
#define AXPY(NAME, T)                                                                              \
    void NAME##_(const int *, const T *, const T *, const int *, T *, const int *);                \
    static int call_##NAME(int surf, int64_t n, zd alpha, const void *x, int64_t incx, void *y,  \
                           int64_t incy)                                                           \
    {                                                                                              \
        T a = (T)alpha;                                                                            \
        if (surf == REF) NAME##_(RI(n), &a, x, RI(incx), y, RI(incy));                            \
        else if (surf == CAPI) return cufort_##NAME##_host(n, a, x, incx, y, incy);               \
        else ((void (*)(const f77_int *, const T *, const T *, const f77_int *, T *, const f77_int *)) \
                  fsym(surf, #NAME))(FI(n), &a, x, FI(incx), y, FI(incy));                         \
        return 0;                                                                                  \
    }
AXPY(saxpy, float)
AXPY(daxpy, double)
AXPY(caxpy, cf)
AXPY(zaxpy, zd)

/* x = alpha x (A: alpha's type, real for csscal and zdscal) */
#define SCAL(NAME, T, A)                                                                           \
    void NAME##_(const int *, const A *, T *, const int *);                                        \
    static int call_##NAME(int surf, int64_t n, zd alpha, void *x, int64_t inc)                  \
    {                                                                                              \
        A a = (A)alpha;                                                                            \
        if (surf == REF) NAME##_(RI(n), &a, x, RI(inc));                                          \
        else if (surf == CAPI) return cufort_##NAME##_host(n, a, x, inc);                         \
        else ((void (*)(const f77_int *, const A *, T *, const f77_int *))fsym(surf, #NAME))(FI(n), &a, x, FI(inc)); \
        return 0;                                                                                  \
    }
SCAL(sscal, float, float)
SCAL(dscal, double, double)
SCAL(cscal, cf, cf)
SCAL(zscal, zd, zd)
SCAL(csscal, cf, float)
SCAL(zdscal, zd, double)

/* copy, swap: two vectors, no scalar */
#define PAIR(NAME, T, CT)                                                                          \
    void NAME##_(const int *, CT *, const int *, T *, const int *);                                \
    static int call_##NAME(int surf, int64_t n, void *x, int64_t incx, void *y, int64_t incy)    \
    {                                                                                              \
        if (surf == REF) NAME##_(RI(n), x, RI(incx), y, RI(incy));                                \
        else if (surf == CAPI) return cufort_##NAME##_host(n, x, incx, y, incy);                  \
        else ((void (*)(const f77_int *, CT *, const f77_int *, T *, const f77_int *))fsym(surf, #NAME))( \
            FI(n), x, FI(incx), y, FI(incy));                                                      \
        return 0;                                                                                  \
    }
PAIR(scopy, float, const float)
PAIR(dcopy, double, const double)
PAIR(ccopy, cf, const cf)
PAIR(zcopy, zd, const zd)
PAIR(sswap, float, float)
PAIR(dswap, double, double)
PAIR(cswap, cf, cf)
PAIR(zswap, zd, zd)

/* plane rotation with real c and s */
#define ROT(NAME, T, R)                                                                            \
    void NAME##_(const int *, T *, const int *, T *, const int *, const R *, const R *);           \
    static int call_##NAME(int surf, int64_t n, void *x, int64_t incx, void *y, int64_t incy,    \
                           double c, double s)                                                     \
    {                                                                                              \
        R rc = (R)c, rs = (R)s;                                                                    \
        if (surf == REF) NAME##_(RI(n), x, RI(incx), y, RI(incy), &rc, &rs);                      \
        else if (surf == CAPI) return cufort_##NAME##_host(n, x, incx, y, incy, rc, rs);          \
        else ((void (*)(const f77_int *, T *, const f77_int *, T *, const f77_int *, const R *,    \
                        const R *))fsym(surf, #NAME))(FI(n), x, FI(incx), y, FI(incy), &rc, &rs);  \
        return 0;                                                                                  \
    }
ROT(srot, float, float)
ROT(drot, double, double)
ROT(csrot, cf, float)
ROT(zdrot, zd, double)

/* Givens generation: a, b in place, c real, s of a's type */
#define ROTG(NAME, T, R)                                                                           \
    void NAME##_(T *, T *, R *, T *);                                                              \
    static int call_##NAME(int surf, zd io[4])                                                    \
    {                                                                                              \
        T a = (T)io[0], b = (T)io[1], s = 0;                                                       \
        R c = 0;                                                                                   \
        int st = 0;                                                                                \
        if (surf == REF) NAME##_(&a, &b, &c, &s);                                                 \
        else if (surf == CAPI) st = cufort_##NAME##_host(&a, &b, &c, &s);                         \
        else ((void (*)(T *, T *, R *, T *))fsym(surf, #NAME))(&a, &b, &c, &s);                   \
        io[0] = a, io[1] = b, io[2] = c, io[3] = s;                                                \
        return st;                                                                                 \
    }
ROTG(srotg, float, float)
ROTG(drotg, double, double)
ROTG(crotg, cf, float)
ROTG(zrotg, zd, double)

/* modified rotation */
#define ROTM(NAME, T)                                                                              \
    void NAME##_(const int *, T *, const int *, T *, const int *, const T *);                      \
    static int call_##NAME(int surf, int64_t n, void *x, int64_t incx, void *y, int64_t incy,    \
                           const double p[5])                                                      \
    {                                                                                              \
        T param[5] = {(T)p[0], (T)p[1], (T)p[2], (T)p[3], (T)p[4]};                                \
        if (surf == REF) NAME##_(RI(n), x, RI(incx), y, RI(incy), param);                         \
        else if (surf == CAPI) return cufort_##NAME##_host(n, x, incx, y, incy, param);           \
        else ((void (*)(const f77_int *, T *, const f77_int *, T *, const f77_int *, const T *))   \
                  fsym(surf, #NAME))(FI(n), x, FI(incx), y, FI(incy), param);                      \
        return 0;                                                                                  \
    }
ROTM(srotm, float)
ROTM(drotm, double)

/* modified Givens generation: io = d1, d2, x1, y1 in, d1, d2, x1 and param[5] out */
#define ROTMG(NAME, T)                                                                             \
    void NAME##_(T *, T *, T *, const T *, T *);                                                   \
    static int call_##NAME(int surf, double io[9])                                                \
    {                                                                                              \
        T d1 = (T)io[0], d2 = (T)io[1], x1 = (T)io[2], y1 = (T)io[3], p[5] = {-7, -7, -7, -7, -7}; \
        int st = 0;                                                                                \
        if (surf == REF) NAME##_(&d1, &d2, &x1, &y1, p);                                          \
        else if (surf == CAPI) st = cufort_##NAME##_host(&d1, &d2, &x1, &y1, p);                  \
        else ((void (*)(T *, T *, T *, const T *, T *))fsym(surf, #NAME))(&d1, &d2, &x1, &y1, p); \
        io[0] = d1, io[1] = d2, io[2] = x1;                                                        \
        for (int i = 0; i < 5; i++) io[4 + i] = p[i];                                              \
        return st;                                                                                 \
    }
ROTMG(srotmg, float)
ROTMG(drotmg, double)

/* Level 2: y = alpha A x + beta y (trans N) and A = alpha x y^T + A */
#define GEMV(NAME, T)                                                                              \
    void NAME##_(const char *, const int *, const int *, const T *, const T *, const int *,        \
                 const T *, const int *, const T *, T *, const int *, size_t);                     \
    static int call_##NAME(int surf, int64_t m, int64_t n, double alpha, const void *A,          \
                           const void *x, double beta, void *y)                                    \
    {                                                                                              \
        T a = (T)alpha, b = (T)beta;                                                               \
        if (surf == REF) NAME##_("N", RI(m), RI(n), &a, A, RI(m), x, RI(1), &b, y, RI(1), 1);     \
        else if (surf == CAPI) return cufort_##NAME##_host('N', m, n, a, A, m, x, 1, b, y, 1);    \
        else ((void (*)(const char *, const f77_int *, const f77_int *, const T *, const T *,      \
                        const f77_int *, const T *, const f77_int *, const T *, T *,               \
                        const f77_int *, size_t))fsym(surf, #NAME))(                               \
            "N", FI(m), FI(n), &a, A, FI(m), x, FI(1), &b, y, FI(1), 1);                           \
        return 0;                                                                                  \
    }
GEMV(sgemv, float)
GEMV(dgemv, double)

#define GER(NAME, T)                                                                               \
    void NAME##_(const int *, const int *, const T *, const T *, const int *, const T *,           \
                 const int *, T *, const int *);                                                   \
    static int call_##NAME(int surf, int64_t m, int64_t n, double alpha, const void *x,          \
                           const void *y, void *A)                                                 \
    {                                                                                              \
        T a = (T)alpha;                                                                            \
        if (surf == REF) NAME##_(RI(m), RI(n), &a, x, RI(1), y, RI(1), A, RI(m));                 \
        else if (surf == CAPI) return cufort_##NAME##_host(m, n, a, x, 1, y, 1, A, m);            \
        else ((void (*)(const f77_int *, const f77_int *, const T *, const T *, const f77_int *,   \
                        const T *, const f77_int *, T *, const f77_int *))fsym(surf, #NAME))(      \
            FI(m), FI(n), &a, x, FI(1), y, FI(1), A, FI(m));                                       \
        return 0;                                                                                  \
    }
GER(sger, float)
GER(dger, double)
