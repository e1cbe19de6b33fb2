/* test_kernels.c — cufort's own kernels through the C ABI (cufort_kernels.h): reductions of the four
 * kinds at sizes 0, 1, 31, 32, 33, 1023, 2^20+7 with unit, strided and negative increments against
 * float64/long-double references; NaN/Inf propagation; determinism (repeated calls, other launch
 * grids, _dev and _host forms give the same bits); the compensated sum on an ill-conditioned series
 * with a known exact sum (10^8 terms on the cuda backend); transposes of every kind, trans and odd
 * shape with ld > rows, out of place and in place, padding left alone; argument errors.  On the
 * cuda backend it finally re-initialises on the host backend and checks that both give the same
 * bits for the same host arrays. */
#define _GNU_SOURCE
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cufort.h"

enum { KS, KD, KC, KZ };
static const char kname[] = "sdcz";
static size_t esz(int k) { return k == KS ? 4 : k == KZ ? 16 : 8; }
static int cplx(int k) { return k == KC || k == KZ; }
static int single(int k) { return k == KS || k == KC; }

static int on_cuda;
static int quick;   /* CUFORT_KERNELS_QUICK=1 (memcheck), 2 (racecheck): fewer, smaller cases */

/* ---- data ---- */
static void fill(int k, void *x, int64_t count)   /* count elements, never zero */
{
    int64_t reals = count * (cplx(k) ? 2 : 1);
    if (single(k)) ck_fill_f(x, (size_t)reals);
    else ck_fill_d(x, (size_t)reals);
}
static void get(int k, const void *x, int64_t i, double *re, double *im)
{
    switch (k) {
    case KS: *re = ((const float *)x)[i]; *im = 0; break;
    case KD: *re = ((const double *)x)[i]; *im = 0; break;
    case KC: *re = ((const float *)x)[2 * i]; *im = ((const float *)x)[2 * i + 1]; break;
    default: *re = ((const double *)x)[2 * i]; *im = ((const double *)x)[2 * i + 1]; break;
    }
}
static void set(int k, void *x, int64_t i, double re, double im)
{
    switch (k) {
    case KS: ((float *)x)[i] = (float)re; break;
    case KD: ((double *)x)[i] = re; break;
    case KC: ((float *)x)[2 * i] = (float)re; ((float *)x)[2 * i + 1] = (float)im; break;
    default: ((double *)x)[2 * i] = re; ((double *)x)[2 * i + 1] = im; break;
    }
}
static int64_t pos(int64_t i, int64_t n, int64_t inc) { return inc >= 0 ? i * inc : (n - 1 - i) * -inc; }
static int64_t extent(int64_t n, int64_t inc)
{
    int64_t a = inc < 0 ? -inc : inc;
    return n <= 0 ? 1 : (n - 1) * a + 1;
}

static void *dev_copy(int k, const void *h, int64_t count)
{
    void *d = NULL;
    if (cufort_alloc(&d, count * (int64_t)esz(k))) return NULL;
    if (cufort_set_vector(count, (int64_t)esz(k), h, 1, d, 1)) { cufort_free(d); return NULL; }
    return d;
}

/* ---- the typed calls by kind and op ---- */
enum { OSUM, OSUMK, OASUM, ODOT, ODOTC, ONRM2, OMIN, OMAX, OMINLOC, OMAXLOC, OCOUNT };
static const char *const oname[] = {"sum", "sumk", "asum", "dot", "dotc", "nrm2", "min", "max", "minloc", "maxloc", "count"};
static int op_ok(int k, int op)
{
    if (op == ODOTC) return cplx(k);
    if (op == OSUMK || op >= OMIN) return !cplx(k);
    return 1;
}
/* form: 0 host result, 1 _dev, 2 _host (host arrays) */
static int call(int form, int k, int op, int64_t n, const void *x, int64_t incx, const void *y, int64_t incy,
                const char *pred, double value, void *r)
{
#define F3(base, ...) (form == 0 ? base(__VA_ARGS__) : form == 1 ? base##_dev(__VA_ARGS__) : base##_host(__VA_ARGS__))
    switch (op) {
    case OSUM:
        switch (k) {
        case KS: return F3(cufort_sreduce_sum, n, x, incx, r);
        case KD: return F3(cufort_dreduce_sum, n, x, incx, r);
        case KC: return F3(cufort_creduce_sum, n, x, incx, r);
        default: return F3(cufort_zreduce_sum, n, x, incx, r);
        }
    case OSUMK: return k == KS ? F3(cufort_sreduce_sumk, n, x, incx, r) : F3(cufort_dreduce_sumk, n, x, incx, r);
    case OASUM:
        switch (k) {
        case KS: return F3(cufort_sreduce_asum, n, x, incx, r);
        case KD: return F3(cufort_dreduce_asum, n, x, incx, r);
        case KC: return F3(cufort_creduce_asum, n, x, incx, r);
        default: return F3(cufort_zreduce_asum, n, x, incx, r);
        }
    case ODOT:
        switch (k) {
        case KS: return F3(cufort_sreduce_dot, n, x, incx, y, incy, r);
        case KD: return F3(cufort_dreduce_dot, n, x, incx, y, incy, r);
        case KC: return F3(cufort_creduce_dot, n, x, incx, y, incy, r);
        default: return F3(cufort_zreduce_dot, n, x, incx, y, incy, r);
        }
    case ODOTC: return k == KC ? F3(cufort_creduce_dotc, n, x, incx, y, incy, r) : F3(cufort_zreduce_dotc, n, x, incx, y, incy, r);
    case ONRM2:
        switch (k) {
        case KS: return F3(cufort_sreduce_nrm2, n, x, incx, r);
        case KD: return F3(cufort_dreduce_nrm2, n, x, incx, r);
        case KC: return F3(cufort_creduce_nrm2, n, x, incx, r);
        default: return F3(cufort_zreduce_nrm2, n, x, incx, r);
        }
    case OMIN: return k == KS ? F3(cufort_sreduce_min, n, x, incx, r) : F3(cufort_dreduce_min, n, x, incx, r);
    case OMAX: return k == KS ? F3(cufort_sreduce_max, n, x, incx, r) : F3(cufort_dreduce_max, n, x, incx, r);
    case OMINLOC: return k == KS ? F3(cufort_sreduce_minloc, n, x, incx, r) : F3(cufort_dreduce_minloc, n, x, incx, r);
    case OMAXLOC: return k == KS ? F3(cufort_sreduce_maxloc, n, x, incx, r) : F3(cufort_dreduce_maxloc, n, x, incx, r);
    default:
        return k == KS ? F3(cufort_sreduce_count, n, x, incx, pred, (float)value, r)
                       : F3(cufort_dreduce_count, n, x, incx, pred, value, r);
    }
#undef F3
}
static size_t rbytes(int k, int op)
{
    if (op == OMINLOC || op == OMAXLOC || op == OCOUNT) return 8;
    if (op == OASUM || op == ONRM2) return single(k) ? 4 : 8;
    return esz(k);
}
/* a result as (re, im) doubles, or an index */
static void rget(int k, int op, const void *r, double *re, double *im)
{
    *im = 0;
    if (op == OMINLOC || op == OMAXLOC || op == OCOUNT) { *re = (double)*(const int64_t *)r; return; }
    if (op == OASUM || op == ONRM2) { *re = single(k) ? *(const float *)r : *(const double *)r; return; }
    get(k, r, 0, re, im);
}

/* ---- the reference: long double, first occurrence for locations ---- */
static void reference(int k, int op, int64_t n, const void *x, int64_t incx, const void *y, int64_t incy,
                      double value, double *re, double *im, double *scale)
{
    long double sr = 0, si = 0, abs_sum = 0;
    double best = NAN;
    int64_t besti = -1;
    for (int64_t i = 0; i < n; i++) {
        double xr, xi, yr = 0, yi = 0;
        get(k, x, pos(i, n, incx), &xr, &xi);
        if (y) get(k, y, pos(i, n, incy), &yr, &yi);
        switch (op) {
        case OSUM: case OSUMK: sr += xr; si += xi; abs_sum += fabs(xr) + fabs(xi); break;
        case OASUM: sr += fabs(xr) + fabs(xi); abs_sum += fabs(xr) + fabs(xi); break;
        case ODOT: sr += (long double)xr * yr - (long double)xi * yi; si += (long double)xr * yi + (long double)xi * yr;
            abs_sum += fabs(xr * yr) + fabs(xi * yi) + fabs(xr * yi) + fabs(xi * yr); break;
        case ODOTC: sr += (long double)xr * yr + (long double)xi * yi; si += (long double)xr * yi - (long double)xi * yr;
            abs_sum += fabs(xr * yr) + fabs(xi * yi) + fabs(xr * yi) + fabs(xi * yr); break;
        case ONRM2: sr += (long double)xr * xr + (long double)xi * xi; break;
        case OMIN: case OMINLOC: if (!isnan(xr) && (besti < 0 || xr < best)) { best = xr; besti = i; } break;
        case OMAX: case OMAXLOC: if (!isnan(xr) && (besti < 0 || xr > best)) { best = xr; besti = i; } break;
        default: sr += xr < value ? 1 : 0; break;   /* the tests count "lt" */
        }
    }
    *im = (double)si;
    *scale = (double)abs_sum;
    switch (op) {
    case ONRM2: *re = (double)sqrtl(sr); *scale = *re; break;
    case OMIN: case OMAX: *re = best; break;
    case OMINLOC: case OMAXLOC: *re = (double)besti; break;
    default: *re = (double)sr; break;
    }
}

static void reduce_case(int k, int op, int64_t n, int64_t incx, int64_t incy)
{
    const char *what = ckf("%c%s n=%lld incx=%lld%s", kname[k], oname[op], (long long)n, (long long)incx,
                           op == ODOT || op == ODOTC ? ckf(" incy=%lld", (long long)incy) : "");
    int two = op == ODOT || op == ODOTC;
    int64_t ex = extent(n, incx), ey = extent(n, incy);
    void *x = malloc((size_t)ex * esz(k)), *y = two ? malloc((size_t)ey * esz(k)) : NULL;
    fill(k, x, ex);
    if (y) fill(k, y, ey);
    if ((op == OMINLOC || op == OMAXLOC) && n >= 3) {   /* ties: the first occurrence wins */
        double v = op == OMINLOC ? -7.0 : 7.0;
        set(k, x, pos(n / 3, n, incx), v, 0);
        set(k, x, pos(n / 2, n, incx), v, 0);
        set(k, x, pos(n - 1, n, incx), v, 0);
    }
    double ref_re, ref_im, scale;
    reference(k, op, n, x, incx, y, incy, 0.25, &ref_re, &ref_im, &scale);
    void *dx = dev_copy(k, x, ex), *dy = two ? dev_copy(k, y, ey) : NULL;
    unsigned char r[16] = {0}, r2[16] = {0}, r3[16] = {0};
    int st = call(0, k, op, n, dx, incx, dy, incy, "lt", 0.25, r);
    CHECK(st == 0, what, "status %d: %s", st, ck_err());
    double re, im;
    rget(k, op, r, &re, &im);
    double eps = single(k) ? FLT_EPSILON : DBL_EPSILON;
    int exact = op >= OMIN;
    double tol = op == OSUMK ? 2 * eps * fabs(ref_re) + DBL_MIN
               : op == ONRM2 ? 8 * eps * scale + DBL_MIN
                             : (64 + 2 * log2((double)n + 1)) * eps * scale + DBL_MIN;
    if (exact)
        CHECK(re == ref_re, ckf("%s value", what), "got %.17g, expected %.17g", re, ref_re);
    else
        CHECK(fabs(re - ref_re) <= tol && fabs(im - ref_im) <= tol, ckf("%s value", what),
              "got (%.17g, %.17g), expected (%.17g, %.17g), tolerance %.3g", re, im, ref_re, ref_im, tol);
    /* determinism: again, then under other grids (cuda), then the _dev and _host forms */
    int same = 1;
    for (int rep = 0; rep < 2; rep++) {
        memset(r2, 0x5a, sizeof r2);
        call(0, k, op, n, dx, incx, dy, incy, "lt", 0.25, r2);
        same &= !memcmp(r, r2, rbytes(k, op));
    }
    if (on_cuda) {
        static const char *grids[] = {"1", "3", "1000", "100000"};
        for (int g = 0; g < 4; g++) {
            setenv("CUFORT_REDUCE_GRID", grids[g], 1);
            memset(r2, 0x5a, sizeof r2);
            call(0, k, op, n, dx, incx, dy, incy, "lt", 0.25, r2);
            same &= !memcmp(r, r2, rbytes(k, op));
        }
        unsetenv("CUFORT_REDUCE_GRID");
    }
    CHECK(same, ckf("%s bitwise repeatable (repeats%s)", what, on_cuda ? ", grids 1, 3, 1000, 100000" : ""),
          "results differ");
    void *dr = NULL;
    cufort_alloc(&dr, 16);
    st = call(1, k, op, n, dx, incx, dy, incy, "lt", 0.25, dr);
    memset(r3, 0x5a, sizeof r3);
    cufort_get_vector(1, (int64_t)rbytes(k, op), dr, 1, r3, 1);
    CHECK(st == 0 && !memcmp(r, r3, rbytes(k, op)), ckf("%s _dev form same bits", what), "status %d %s", st, ck_err());
    memset(r3, 0x5a, sizeof r3);
    st = call(2, k, op, n, x, incx, y, incy, "lt", 0.25, r3);
    CHECK(st == 0 && !memcmp(r, r3, rbytes(k, op)), ckf("%s _host form same bits", what), "status %d %s", st, ck_err());
    cufort_free(dr);
    cufort_free(dx);
    if (dy) cufort_free(dy);
    free(x);
    free(y);
}

static void reductions(void)
{
    static const int64_t sizes[] = {1, 31, 32, 33, 1023, 4097, (1 << 20) + 7};
    static const int64_t incs[][2] = {{1, 1}, {2, -1}, {-1, 3}, {-3, 1}};
    for (int k = 0; k < 4; k++)
        for (int op = 0; op <= OCOUNT; op++) {
            if (!op_ok(k, op)) continue;
            if (quick >= 2) {   /* racecheck: one small and one multi-chunk size */
                reduce_case(k, op, 33, 1, 1);
                reduce_case(k, op, 100003, -1, 3);
                continue;
            }
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                for (size_t i = 0; i < 4; i++) {
                    if (sizes[s] > 5000 && i != 0 && i != 2) continue;   /* big: unit and negative */
                    if (quick && (s == 1 || s == 2 || s == 4 || i == 3 || (s == 6 && (op != OSUM || i != 0)))) continue;
                    reduce_case(k, op, sizes[s], incs[i][0], incs[i][1]);
                }
            /* unaligned base pointer: the scalar path */
            if (!on_cuda || k != KZ) {
                int64_t n = 100003;
                void *x = malloc((size_t)(n + 1) * esz(k));
                fill(k, x, n + 1);
                void *d = dev_copy(k, x, n + 1);
                unsigned char a[16], b[16];
                int two = op == ODOT || op == ODOTC;
                const char *dd = (const char *)d + esz(k);
                int s1 = call(0, k, op, n, dd, 1, two ? dd : NULL, 1, "lt", 0.25, a);
                int s2 = call(2, k, op, n, (const char *)x + esz(k), 1, two ? (const char *)x + esz(k) : NULL, 1, "lt", 0.25, b);
                CHECK(!s1 && !s2 && !memcmp(a, b, rbytes(k, op)), ckf("%c%s offset base (unaligned) same bits as aligned copy", kname[k], oname[op]),
                      "%d %d %s", s1, s2, ck_err());
                cufort_free(d);
                free(x);
            }
        }
}

/* ---- empty, NaN/Inf, overflow, errors ---- */
static void specials(void)
{
    float fr;
    double dr;
    int64_t ir;
    float fx[64];
    double dx[64];
    ck_fill_f(fx, 64);
    ck_fill_d(dx, 64);
    void *df = dev_copy(KS, fx, 64), *dd = dev_copy(KD, dx, 64);
    /* empty */
    CHECK_OK(cufort_sreduce_sum(0, df, 1, &fr), "empty sum");
    CHECK(fr == 0.0f, "empty sum is 0", "%g", fr);
    CHECK_OK(cufort_sreduce_min(0, df, 1, &fr), "empty min");
    CHECK(fr == FLT_MAX, "empty min is +HUGE", "%g", fr);
    CHECK_OK(cufort_dreduce_max(-3, dd, 1, &dr), "empty max");
    CHECK(dr == -DBL_MAX, "empty max is -HUGE", "%g", dr);
    CHECK_OK(cufort_sreduce_minloc(0, df, 1, &ir), "empty minloc");
    CHECK(ir == -1, "empty minloc is -1", "%lld", (long long)ir);
    void *dres = NULL;
    cufort_alloc(&dres, 16);
    double nine = 9.0;
    cufort_set_vector(1, 8, &nine, 1, dres, 1);
    CHECK_OK(cufort_dreduce_sum_dev(0, dd, 1, dres), "empty sum _dev");
    cufort_get_vector(1, 8, dres, 1, &dr, 1);
    CHECK(dr == 0.0, "empty sum _dev writes 0", "%g", dr);
    /* increment 0 repeats x[0] */
    CHECK_OK(cufort_dreduce_sum(5, dd, 0, &dr), "incx 0");
    CHECK(fabs(dr - 5 * dx[0]) <= 8 * DBL_EPSILON * fabs(dr), "incx 0 sums x[0] n times", "%g vs %g", dr, 5 * dx[0]);
    /* NaN and Inf */
    float g[64];
    memcpy(g, fx, sizeof g);
    g[17] = INFINITY;
    cufort_set_vector(64, 4, g, 1, df, 1);
    cufort_sreduce_sum(64, df, 1, &fr);
    CHECK(isinf(fr) && fr > 0, "sum with +Inf is +Inf", "%g", fr);
    cufort_sreduce_nrm2(64, df, 1, &fr);
    CHECK(isinf(fr), "nrm2 with Inf is Inf", "%g", fr);
    cufort_sreduce_maxloc(64, df, 1, &ir);
    CHECK(ir == 17, "maxloc finds +Inf", "%lld", (long long)ir);
    g[40] = -INFINITY;
    cufort_set_vector(64, 4, g, 1, df, 1);
    cufort_sreduce_sum(64, df, 1, &fr);
    CHECK(isnan(fr), "sum with +Inf and -Inf is NaN", "%g", fr);
    cufort_sreduce_asum(64, df, 1, &fr);
    CHECK(isinf(fr), "asum with +-Inf is Inf", "%g", fr);
    memcpy(g, fx, sizeof g);
    g[0] = NAN;
    g[33] = NAN;
    cufort_set_vector(64, 4, g, 1, df, 1);
    cufort_sreduce_sum(64, df, 1, &fr);
    CHECK(isnan(fr), "sum with NaN is NaN", "%g", fr);
    cufort_sreduce_dot(64, df, 1, df, 1, &fr);
    CHECK(isnan(fr), "dot with NaN is NaN", "%g", fr);
    cufort_sreduce_nrm2(64, df, 1, &fr);
    CHECK(isnan(fr), "nrm2 with NaN is NaN", "%g", fr);
    cufort_sreduce_sumk(64, df, 1, &fr);
    CHECK(isnan(fr), "sumk with NaN is NaN", "%g", fr);
    float mn = INFINITY;
    int64_t mi = -1;
    for (int i = 0; i < 64; i++) if (!isnan(g[i]) && g[i] < mn) { mn = g[i]; mi = i; }
    cufort_sreduce_min(64, df, 1, &fr);
    CHECK(fr == mn, "min ignores NaN (MINVAL)", "%g vs %g", fr, mn);
    cufort_sreduce_minloc(64, df, 1, &ir);
    CHECK(ir == mi, "minloc ignores a NaN in front (MINLOC)", "%lld vs %lld", (long long)ir, (long long)mi);
    for (int i = 0; i < 64; i++) g[i] = NAN;
    cufort_set_vector(64, 4, g, 1, df, 1);
    cufort_sreduce_max(64, df, 1, &fr);
    CHECK(isnan(fr), "max of all NaN is NaN", "%g", fr);
    cufort_sreduce_maxloc(64, df, 1, &ir);
    CHECK(ir == 0, "maxloc of all NaN is the first", "%lld", (long long)ir);
    /* nrm2 neither overflows nor underflows */
    double big[64], tiny[64];
    for (int i = 0; i < 64; i++) { big[i] = 1e300 * (1 + i % 3); tiny[i] = 1e-300 * (1 + i % 3); }
    long double ref = 0;
    for (int i = 0; i < 64; i++) ref += (long double)(1 + i % 3) * (1 + i % 3);
    ref = sqrtl(ref);
    cufort_set_vector(64, 8, big, 1, dd, 1);
    cufort_dreduce_nrm2(64, dd, 1, &dr);
    CHECK(fabs(dr / 1e300 - (double)ref) < 1e-14 * (double)ref, "dnrm2 of 1e300s does not overflow", "%g", dr);
    cufort_set_vector(64, 8, tiny, 1, dd, 1);
    cufort_dreduce_nrm2(64, dd, 1, &dr);
    CHECK(fabs(dr / 1e-300 - (double)ref) < 1e-14 * (double)ref, "dnrm2 of 1e-300s does not underflow", "%g", dr);
    double mixed[3] = {1e300, 1.0, 1e-300};
    cufort_set_vector(3, 8, mixed, 1, dd, 1);
    cufort_dreduce_nrm2(3, dd, 1, &dr);
    CHECK(dr == 1e300, "dnrm2 of 1e300, 1, 1e-300", "%.17g", dr);
    float fbig[8];
    for (int i = 0; i < 8; i++) fbig[i] = 3e37f;
    cufort_set_vector(8, 4, fbig, 1, df, 1);
    cufort_sreduce_nrm2(8, df, 1, &fr);
    CHECK(fabsf(fr - 3e37f * sqrtf(8.0f)) <= 4 * FLT_EPSILON * fr && !isinf(fr), "snrm2 of 3e37s does not overflow", "%g", fr);
    /* count predicates */
    float c[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    cufort_set_vector(8, 4, c, 1, df, 1);
    static const struct { const char *p; int64_t want; } preds[] = {
        {"lt", 3}, {"LE", 4}, {">", 4}, {"ge", 5}, {"eq", 1}, {"/=", 7}, {"!=", 7}};
    for (size_t i = 0; i < sizeof preds / sizeof *preds; i++) {
        ir = -5;
        CHECK_OK(cufort_sreduce_count(8, df, 1, preds[i].p, 4.0f, &ir), ckf("count %s", preds[i].p));
        CHECK(ir == preds[i].want, ckf("count x %s 4", preds[i].p), "%lld, expected %lld", (long long)ir, (long long)preds[i].want);
    }
    CHECK_FAILS_MSG(cufort_sreduce_count(8, df, 1, "xx", 4.0f, &ir), CUFORT_INVALID_VALUE, "pred", "count bad pred");
    CHECK_FAILS_MSG(cufort_sreduce_sum(8, df, 1, NULL), CUFORT_INVALID_VALUE, "result", "null result");
    CHECK_FAILS_MSG(cufort_sreduce_sum(8, fx, 1, &fr), CUFORT_BAD_POINTER, "x", "host array to device form");
    CHECK_FAILS_MSG(cufort_sreduce_sum(100, df, 1, &fr), CUFORT_BAD_POINTER, "x", "x past its allocation");
    CHECK_FAILS_MSG(cufort_sreduce_sum_dev(8, df, 1, &fr), CUFORT_BAD_POINTER, "result", "_dev with a host result");
    cufort_free(dres);
    cufort_free(df);
    cufort_free(dd);
}

/* ---- compensated sum on an ill-conditioned series with an exactly known sum ---- */
static void compensated(int k, int64_t n)
{
    /* x[i] = r_i and x[n-1-i] = -r_i (|r_i| up to 2^23 or 2^39: they cancel only at the top of the
     * tree, after the partial sums have grown), every 16th pair replaced by small terms a/q, b/q
     * whose sum is exact in int64 */
    const char *what = ckf("%csumk of %lld ill-conditioned terms", kname[k], (long long)n);
    int sgl = k == KS;
    void *x = malloc((size_t)n * esz(k));
    if (!x) { CHECK(0, what, "out of host memory"); return; }
    int64_t isum = 0;
    const double q = sgl ? 16.0 : 1024.0;
    for (int64_t i = 0; i < n / 2; i++) {
        double r, b;
        if (i % 16 == 0) {
            int64_t ia = (int64_t)(ck_rand64() % 2001) - 1000, ib = (int64_t)(ck_rand64() % 2001) - 1000;
            if (ia == 0) ia = 3;
            if (ib == 0) ib = -5;
            isum += ia + ib;
            r = ia / q;
            b = ib / q;
        } else {
            r = ck_randd() * ldexp(1.0, (int)(ck_rand64() % (sgl ? 24 : 40)));
            if (sgl) r = (float)r;
            b = -r;
        }
        set(k, x, i, r, 0);
        set(k, x, n - 1 - i, b, 0);
    }
    if (n % 2) set(k, x, n / 2, 1.0, 0), isum += (int64_t)q;
    double exact = (double)isum / q;
    double cond_num = 0;
    for (int64_t i = 0; i < n; i++) { double a, z; get(k, x, i, &a, &z); cond_num += fabs(a); }
    cond_num /= fabs(exact);
    void *d = dev_copy(k, x, n);
    if (!d) { CHECK(0, what, "cannot allocate %lld elements on the device: %s", (long long)n, ck_err()); free(x); return; }
    double got, plain;
    if (sgl) {
        float g, p;
        CHECK_OK(cufort_sreduce_sumk(n, d, 1, &g), ckf("%s call", what));
        cufort_sreduce_sum(n, d, 1, &p);
        got = g, plain = p;
        float ex = (float)exact;
        float ulp = nextafterf(fabsf(ex), INFINITY) - fabsf(ex);
        CHECK(fabs(got - exact) <= ulp, what, "got %.9g, exact %.9g (ulp %.3g), plain sum %.9g, condition %.3g",
              got, exact, ulp, plain, cond_num);
    } else {
        CHECK_OK(cufort_dreduce_sumk(n, d, 1, &got), ckf("%s call", what));
        cufort_dreduce_sum(n, d, 1, &plain);
        double ulp = nextafter(fabs(exact), INFINITY) - fabs(exact);
        CHECK(fabs(got - exact) <= ulp, what, "got %.17g, exact %.17g (ulp %.3g), plain sum %.17g, condition %.3g",
              got, exact, ulp, plain, cond_num);
    }
    printf("# %s: condition %.3g, exact %.17g, sumk %.17g, plain sum %.17g\n", what, cond_num, exact, got, plain);
    cufort_free(d);
    free(x);
}

/* ---- transposes ---- */
static int tr_call(int host, int k, char trans, int64_t m, int64_t n, const double *al, const void *a, int64_t lda,
                   void *b, int64_t ldb)
{
    switch (k) {
    case KS: return host ? cufort_stranspose_host(trans, m, n, (float)al[0], a, lda, b, ldb)
                         : cufort_stranspose(trans, m, n, (float)al[0], a, lda, b, ldb);
    case KD: return host ? cufort_dtranspose_host(trans, m, n, al[0], a, lda, b, ldb)
                         : cufort_dtranspose(trans, m, n, al[0], a, lda, b, ldb);
    case KC: {
        cufort_cfloat c = (float)al[0] + (float)al[1] * I;
        return host ? cufort_ctranspose_host(trans, m, n, c, a, lda, b, ldb) : cufort_ctranspose(trans, m, n, c, a, lda, b, ldb);
    }
    default: {
        cufort_cdouble z = al[0] + al[1] * I;
        return host ? cufort_ztranspose_host(trans, m, n, z, a, lda, b, ldb) : cufort_ztranspose(trans, m, n, z, a, lda, b, ldb);
    }
    }
}
static int tr_inplace(int host, int k, char trans, int64_t n, const double *al, void *a, int64_t lda)
{
    switch (k) {
    case KS: return host ? cufort_stranspose_inplace_host(trans, n, (float)al[0], a, lda) : cufort_stranspose_inplace(trans, n, (float)al[0], a, lda);
    case KD: return host ? cufort_dtranspose_inplace_host(trans, n, al[0], a, lda) : cufort_dtranspose_inplace(trans, n, al[0], a, lda);
    case KC: {
        cufort_cfloat c = (float)al[0] + (float)al[1] * I;
        return host ? cufort_ctranspose_inplace_host(trans, n, c, a, lda) : cufort_ctranspose_inplace(trans, n, c, a, lda);
    }
    default: {
        cufort_cdouble z = al[0] + al[1] * I;
        return host ? cufort_ztranspose_inplace_host(trans, n, z, a, lda) : cufort_ztranspose_inplace(trans, n, z, a, lda);
    }
    }
}
/* expected alpha * op(v), computed in double; tolerance covers the kind's rounding */
static void expect(int k, char trans, const double *al, double vr, double vi, double *er, double *ei)
{
    if ((trans == 'C' || trans == 'c') && cplx(k)) vi = -vi;
    *er = al[0] * vr - al[1] * vi;
    *ei = al[0] * vi + al[1] * vr;
}

static void transpose_case(int host, int k, char trans, int64_t m, int64_t n, int scaled)
{
    const char *what = ckf("%ctranspose%s '%c' %lldx%lld%s", kname[k], host ? "_host" : "", trans, (long long)m,
                           (long long)n, scaled ? " alpha" : "");
    double al[2] = {1.0, 0.0};
    if (scaled) { al[0] = ck_randd(); al[1] = cplx(k) ? ck_randd() : 0.0; if (single(k)) al[0] = (float)al[0], al[1] = (float)al[1]; }
    const int notr = trans == 'N' || trans == 'n';
    int64_t lda = m + 3, br = notr ? m : n, bc = notr ? n : m, ldb = br + 2;
    void *a = malloc((size_t)(lda * n) * esz(k)), *b = malloc((size_t)(ldb * bc) * esz(k));
    fill(k, a, lda * n);
    for (int64_t e = 0; e < ldb * bc; e++) set(k, b, e, -12345.0, 777.0);   /* poison */
    void *da = NULL, *db = NULL;
    int st;
    if (host) {
        st = tr_call(1, k, trans, m, n, al, a, lda, b, ldb);
    } else {
        da = dev_copy(k, a, lda * n);
        db = dev_copy(k, b, ldb * bc);
        st = tr_call(0, k, trans, m, n, al, da, lda, db, ldb);
        cufort_get_vector(ldb * bc, (int64_t)esz(k), db, 1, b, 1);
    }
    CHECK(st == 0, ckf("%s status", what), "%d %s", st, ck_err());
    double tol = scaled ? 4 * (single(k) ? FLT_EPSILON : DBL_EPSILON) : 0;
    int64_t bad = -1;
    for (int64_t j = 0; j < bc && bad < 0; j++)
        for (int64_t i = 0; i < ldb && bad < 0; i++) {
            double gr, gi, er, ei;
            get(k, b, i + j * ldb, &gr, &gi);
            if (i >= br) {
                if (gr != -12345.0 || (cplx(k) && gi != 777.0)) bad = i + j * ldb;
                continue;
            }
            double vr, vi;
            int64_t ai = notr ? i + j * lda : j + i * lda;
            get(k, a, ai, &vr, &vi);
            expect(k, trans, al, vr, vi, &er, &ei);
            double mag = fabs(al[0]) * (fabs(vr) + fabs(vi)) + fabs(al[1]) * (fabs(vr) + fabs(vi));
            if (fabs(gr - er) > tol * mag || (cplx(k) && fabs(gi - ei) > tol * mag)) bad = i + j * ldb;
        }
    CHECK(bad < 0, what, "element %lld of b (row %lld, col %lld) wrong or padding written", (long long)bad,
          (long long)(bad % ldb), (long long)(bad / ldb));
    if (da) cufort_free(da);
    if (db) cufort_free(db);
    free(a);
    free(b);
}

static void inplace_case(int host, int k, char trans, int64_t n, int scaled)
{
    const char *what = ckf("%ctranspose_inplace%s '%c' %lldx%lld%s", kname[k], host ? "_host" : "", trans,
                           (long long)n, (long long)n, scaled ? " alpha" : "");
    double al[2] = {1.0, 0.0};
    if (scaled) { al[0] = ck_randd(); al[1] = cplx(k) ? ck_randd() : 0.0; if (single(k)) al[0] = (float)al[0], al[1] = (float)al[1]; }
    int64_t lda = n + 5;
    void *a = malloc((size_t)(lda * n) * esz(k)), *a0 = malloc((size_t)(lda * n) * esz(k));
    fill(k, a, lda * n);
    memcpy(a0, a, (size_t)(lda * n) * esz(k));
    int st;
    if (host) {
        st = tr_inplace(1, k, trans, n, al, a, lda);
    } else {
        void *da = dev_copy(k, a, lda * n);
        st = tr_inplace(0, k, trans, n, al, da, lda);
        cufort_get_vector(lda * n, (int64_t)esz(k), da, 1, a, 1);
        cufort_free(da);
    }
    CHECK(st == 0, ckf("%s status", what), "%d %s", st, ck_err());
    double tol = scaled ? 4 * (single(k) ? FLT_EPSILON : DBL_EPSILON) : 0;
    int64_t bad = -1;
    for (int64_t j = 0; j < n && bad < 0; j++)
        for (int64_t i = 0; i < lda && bad < 0; i++) {
            double gr, gi, vr, vi, er, ei;
            get(k, a, i + j * lda, &gr, &gi);
            if (i >= n) {
                get(k, a0, i + j * lda, &vr, &vi);
                if (gr != vr || gi != vi) bad = i + j * lda;
                continue;
            }
            get(k, a0, trans == 'N' ? i + j * lda : j + i * lda, &vr, &vi);
            expect(k, trans, al, vr, vi, &er, &ei);
            double mag = (fabs(al[0]) + fabs(al[1])) * (fabs(vr) + fabs(vi));
            if (fabs(gr - er) > tol * mag || fabs(gi - ei) > tol * mag) bad = i + j * lda;
        }
    CHECK(bad < 0, what, "element %lld (row %lld, col %lld) wrong or padding written", (long long)bad,
          (long long)(bad % lda), (long long)(bad / lda));
    free(a);
    free(a0);
}

static void transposes(void)
{
    static const int64_t shapes[][2] = {{1, 1}, {31, 33}, {32, 32}, {33, 31}, {1, 100}, {100, 1}, {257, 129}, {64, 65}};
    static const char trans[] = "NTC";
    if (on_cuda) {   /* every tile variant of the kernel (the default is one of them) */
        static const char *variants[] = {"1", "2", "3", "4"};
        for (int v = 0; v < 4; v++) {
            setenv("CUFORT_TRANSPOSE_VARIANT", variants[v], 1);
            for (int k = 0; k < 4; k++)
                for (int s = 1; s < 8; s += 2) {
                    transpose_case(0, k, 'T', shapes[s][0], shapes[s][1], 0);
                    transpose_case(0, k, 'C', shapes[s][0], shapes[s][1], 1);
                }
        }
        unsetenv("CUFORT_TRANSPOSE_VARIANT");
    }
    for (int k = 0; k < 4; k++)
        for (int t = 0; t < 3; t++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
                transpose_case(0, k, trans[t], shapes[s][0], shapes[s][1], 0);
                transpose_case(0, k, trans[t], shapes[s][0], shapes[s][1], 1);
                if (s == 1 || s == 6) transpose_case(1, k, trans[t], shapes[s][0], shapes[s][1], s == 6);
            }
    static const int64_t sq[] = {1, 31, 32, 33, 100, 257};
    for (int k = 0; k < 4; k++)
        for (int t = 0; t < 3; t++)
            for (size_t s = 0; s < sizeof sq / sizeof *sq; s++) {
                inplace_case(0, k, trans[t], sq[s], 0);
                inplace_case(0, k, trans[t], sq[s], 1);
                if (s == 2 || s == 5) inplace_case(1, k, trans[t], sq[s], s == 5);
            }
    /* lower-case trans */
    transpose_case(0, KC, 'c', 40, 50, 1);
    transpose_case(0, KD, 't', 40, 50, 0);
    /* errors */
    float *d = NULL;
    cufort_alloc((void **)&d, 4096 * 4);
    CHECK_FAILS_MSG(cufort_stranspose('X', 4, 4, 1.0f, d, 4, d + 1024, 4), CUFORT_INVALID_VALUE, "trans", "bad trans");
    CHECK_FAILS_MSG(cufort_stranspose('T', 4, 5, 1.0f, d, 3, d + 1024, 5), CUFORT_INVALID_VALUE, "lda", "lda < m");
    CHECK_FAILS_MSG(cufort_stranspose('T', 4, 5, 1.0f, d, 4, d + 1024, 4), CUFORT_INVALID_VALUE, "ldb", "ldb < n");
    CHECK_FAILS_MSG(cufort_stranspose('T', -1, 5, 1.0f, d, 4, d + 1024, 5), CUFORT_INVALID_VALUE, "negative", "m < 0");
    CHECK_FAILS_MSG(cufort_stranspose('T', 8, 8, 1.0f, d, 8, d + 4, 8), CUFORT_INVALID_VALUE, "overlap", "a and b overlap");
    CHECK_FAILS_MSG(cufort_stranspose('T', 64, 64, 1.0f, d, 64, d + 2048, 64), CUFORT_BAD_POINTER, "b", "b past its allocation");
    CHECK_FAILS_MSG(cufort_stranspose_inplace('T', 8, 1.0f, d, 7), CUFORT_INVALID_VALUE, "lda", "inplace lda < n");
    CHECK_OK(cufort_stranspose('T', 0, 5, 1.0f, d, 1, d + 1024, 5), "m = 0 is a no-op");
    float h[256], got[256];
    for (int i = 0; i < 256; i++) h[i] = (float)(i % 37) - 18.5f;
    cufort_set_vector(256, 4, h, 1, d, 1);
    CHECK_OK(cufort_stranspose('N', 16, 16, 2.0f, d, 16, d, 16), "'N' with b == a scales in place");
    int doubled = !cufort_get_vector(256, 4, d, 1, got, 1);
    for (int i = 0; doubled && i < 256; i++) doubled = got[i] == 2.0f * h[i];
    CHECK(doubled, "'N' with b == a: every element doubled", "%s", ck_err());
    cufort_free(d);
}

/* ---- reductions over streams that come and go ---- */
/* A thread's reductions keep scratch per stream, a few streams' worth: reductions on more streams
 * than that, some of them destroyed in between, must neither touch a destroyed stream nor give a
 * wrong sum. */
static void streams_come_and_go(void)
{
    enum { N = 100003, STREAMS = 12 };
    double *h = malloc(N * sizeof *h);
    for (int64_t i = 0; i < N; i++) h[i] = (double)(i % 1000 + 1);   /* integers: the sum is exact */
    double want = 0;
    for (int64_t i = 0; i < N; i++) want += h[i];
    void *x = dev_copy(KD, h, N), *res = NULL;
    cufort_stream s[STREAMS] = {NULL};
    int ok = x != NULL && !cufort_alloc(&res, STREAMS * 8), right = 1, calls = 0;
    for (int i = 0; ok && i < STREAMS; i++)   /* all first, so that none takes a destroyed one's address */
        ok = !cufort_stream_create(&s[i]);
    for (int i = 0; ok && i < STREAMS; i++) {
        for (int round = 0; ok && round < 2; round++) {
            double got = 0;
            ok = !cufort_set_stream(s[i]) && !cufort_dreduce_sum(N, x, 1, &got);
            right &= got == want;
            calls++;
        }
        /* one left on the device, not waited for: the block is still in use when the call returns */
        ok = ok && !cufort_dreduce_sum_dev(N, x, 1, (double *)res + i);
        /* the stream used two streams ago goes, while the block it had is still the thread's */
        if (ok && i >= 2) {
            ok = !cufort_stream_destroy(s[i - 2]);
            s[i - 2] = NULL;
        }
    }
    cufort_set_stream(NULL);
    CHECK(ok, ckf("%d reductions over %d streams made and destroyed in turns", calls, STREAMS), "%s", ck_err());
    CHECK(right, "their sums exact", "a sum differs from %.17g", want);
    double on_device[STREAMS] = {0};
    int kept = ok && !cufort_device_synchronize() && !cufort_get_vector(STREAMS, 8, res, 1, on_device, 1);
    for (int i = 0; kept && i < STREAMS; i++) kept = on_device[i] == want;
    CHECK(kept, "the sums left on the device by each stream exact", "%s", ck_err());
    double again = 0;
    CHECK(!cufort_dreduce_sum(N, x, 1, &again) && again == want, "a reduction on the default stream after them",
          "%g (%s)", again, ck_err());
    for (int i = 0; i < STREAMS; i++) cufort_stream_destroy(s[i]);
    cufort_free(res);
    cufort_free(x);
    free(h);
}

/* ---- the same bits on both backends (cuda run only) ---- */
typedef struct { unsigned char r[16]; } rbuf;
static void record_all(int k, int64_t n, const void *x, const void *y, rbuf *out)
{
    for (int op = 0; op <= OCOUNT; op++) {
        memset(out[op].r, 0, 16);
        if (op_ok(k, op)) call(2, k, op, n, x, -2, y, 1, "gt", 0.0, out[op].r);
    }
}
static void cross_backend(void)
{
    const int64_t n = (1 << 20) + 7;
    rbuf got[4][OCOUNT + 1], want[4][OCOUNT + 1];
    void *x[4], *y[4], *tb[4], *ta[4];
    const int64_t m = 129, nn = 67;
    for (int k = 0; k < 4; k++) {
        x[k] = malloc((size_t)(2 * n) * esz(k));
        y[k] = malloc((size_t)n * esz(k));
        fill(k, x[k], 2 * n);
        fill(k, y[k], n);
        record_all(k, n, x[k], y[k], got[k]);
        ta[k] = malloc((size_t)(m * nn) * esz(k));
        tb[k] = malloc((size_t)(m * nn) * esz(k));
        fill(k, ta[k], m * nn);
        double al[2] = {0.75, -1.25};
        tr_call(1, k, 'C', m, nn, al, ta[k], m, tb[k], nn);
    }
    cufort_shutdown();
    int st = cufort_init_backend(CUFORT_BACKEND_HOST);
    CHECK(st == 0, "re-initialise on the host backend", "%d %s", st, ck_err());
    for (int k = 0; k < 4; k++) {
        record_all(k, n, x[k], y[k], want[k]);
        for (int op = 0; op <= OCOUNT; op++)
            if (op_ok(k, op))
                CHECK(!memcmp(got[k][op].r, want[k][op].r, rbytes(k, op)),
                      ckf("%c%s: cuda and host backends give the same bits", kname[k], oname[op]), "differ");
        void *hb = malloc((size_t)(m * nn) * esz(k));
        double al[2] = {0.75, -1.25};
        tr_call(1, k, 'C', m, nn, al, ta[k], m, hb, nn);
        CHECK(!memcmp(hb, tb[k], (size_t)(m * nn) * esz(k)),
              ckf("%ctranspose 'C' alpha: cuda and host backends give the same bits", kname[k]), "differ");
        free(hb);
        free(x[k]); free(y[k]); free(ta[k]); free(tb[k]);
    }
}

int main(void)
{
    ck_begin("test_kernels", 900);
    ck_seed(20261122);
    int st = cufort_init();
    if (!CHECK(st == 0, "init", "%d %s", st, ck_err())) return ck_end();
    on_cuda = cufort_backend() == CUFORT_BACKEND_CUDA;
    quick = getenv("CUFORT_KERNELS_QUICK") ? atoi(getenv("CUFORT_KERNELS_QUICK")) : 0;
    printf("# backend %s\n", cufort_backend_name());
    reductions();
    specials();
    compensated(KS, quick >= 2 ? 65537 : quick ? (1 << 20) + 1 : on_cuda ? 100000000 : (1 << 22) + 1);
    compensated(KD, quick >= 2 ? 65536 : quick ? (1 << 20) : on_cuda ? 100000000 : (1 << 21));
    transposes();
    streams_come_and_go();
    if (on_cuda) cross_backend();
    cufort_shutdown();
    return ck_end();
}
