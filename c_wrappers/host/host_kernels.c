/* host_kernels.c — the host backend's reductions and transposes: the reference C implementations
 * of kernels/reduce.cu and kernels/transpose.cu.  The reductions replay the device's order exactly
 * (cufort_kernels_launch.h: chunks of 256 "threads" x 8 vectors, shuffle-down trees, a 1024-thread
 * second pass) with the same operations in the same precision and no contracted multiply-adds, so
 * the host and cuda backends return the same bits.  "Device memory" is host memory here. */
#pragma GCC optimize("fp-contract=off")

#include <math.h>
#include <stdlib.h>

#include "kernels_internal.h"

enum { THREADS = CUFORT_KREDUCE_THREADS, UNROLL = CUFORT_KREDUCE_UNROLL, THREADS2 = CUFORT_KREDUCE_THREADS2 };

#define BLUE_TSML 0x1p-511
#define BLUE_TBIG 0x1p486
#define BLUE_SSML 0x1p537
#define BLUE_SBIG 0x1p-538

/* one partial of any (kind, op): only the fields the op uses are meaningful */
typedef struct {
    float f[2];       /* S/C sums, asum, dot */
    double d[3];      /* D/Z sums, asum, dot; nrm2 (d[0], or Blue's sml/med/big); sumk (s, c) */
    double v;         /* min/max value (float values are exact in double) */
    int64_t i;        /* min/max index, count */
} hpart;

typedef struct {
    int kind, op, pred;
    double value;
    int complex, single;
} hop;

static hpart identity(const hop *o)
{
    hpart p = {{0.0f, 0.0f}, {0.0, 0.0, 0.0}, 0.0, 0};
    if (o->op == CUFORT_RMIN || o->op == CUFORT_RMAX || o->op == CUFORT_RMINLOC || o->op == CUFORT_RMAXLOC) {
        p.v = NAN;
        p.i = INT64_MAX;
    }
    return p;
}

static void blue_add(hpart *b, double x)
{
    double a = fabs(x);
    if (a > BLUE_TBIG) {
        double t = a * BLUE_SBIG;
        b->d[2] = b->d[2] + t * t;
    } else if (a < BLUE_TSML) {
        double t = a * BLUE_SSML;
        b->d[0] = b->d[0] + t * t;
    } else {
        b->d[1] = b->d[1] + a * a;
    }
}

/* element i of x (and y): re, im in the kind's precision */
/* count's predicate; float data compare exactly in double (float to double is exact) */
static int holds(int pred, double x, double v)
{
    switch (pred) {
    case CUFORT_PRED_LT: return x < v;
    case CUFORT_PRED_LE: return x <= v;
    case CUFORT_PRED_GT: return x > v;
    case CUFORT_PRED_GE: return x >= v;
    case CUFORT_PRED_EQ: return x == v;
    default: return x != v;
    }
}

static hpart map(const hop *o, const void *xv, const void *yv, int64_t i, int64_t n, int64_t incx,
                 int64_t incy)
{
    int64_t ix = incx >= 0 ? i * incx : (n - 1 - i) * -incx;
    int64_t iy = incy >= 0 ? i * incy : (n - 1 - i) * -incy;
    hpart p = identity(o);
    if (o->single) {
        const float *x = xv, *y = yv;
        float xr, xi = 0.0f, yr = 0.0f, yi = 0.0f;
        if (o->complex) { xr = x[2 * ix]; xi = x[2 * ix + 1]; } else xr = x[ix];
        if (o->op == CUFORT_RDOT || o->op == CUFORT_RDOTC) {
            if (o->complex) { yr = y[2 * iy]; yi = y[2 * iy + 1]; } else yr = y[iy];
        }
        switch (o->op) {
        case CUFORT_RSUM: p.f[0] = xr; p.f[1] = xi; break;
        case CUFORT_RSUMK: p.d[0] = (double)xr; p.d[1] = 0.0; break;
        case CUFORT_RASUM: p.f[0] = o->complex ? fabsf(xr) + fabsf(xi) : fabsf(xr); break;
        case CUFORT_RDOT:
            if (o->complex) { p.f[0] = xr * yr - xi * yi; p.f[1] = xr * yi + xi * yr; }
            else p.f[0] = xr * yr;
            break;
        case CUFORT_RDOTC: p.f[0] = xr * yr + xi * yi; p.f[1] = xr * yi - xi * yr; break;
        case CUFORT_RNRM2: {
            double r = xr, im = xi;
            p.d[0] = o->complex ? r * r + im * im : r * r;
            break;
        }
        case CUFORT_RCOUNT: p.i = holds(o->pred, xr, (float)o->value); break;
        default: p.v = xr; p.i = i; break;   /* min/max/loc */
        }
    } else {
        const double *x = xv, *y = yv;
        double xr, xi = 0.0, yr = 0.0, yi = 0.0;
        if (o->complex) { xr = x[2 * ix]; xi = x[2 * ix + 1]; } else xr = x[ix];
        if (o->op == CUFORT_RDOT || o->op == CUFORT_RDOTC) {
            if (o->complex) { yr = y[2 * iy]; yi = y[2 * iy + 1]; } else yr = y[iy];
        }
        switch (o->op) {
        case CUFORT_RSUM: p.d[0] = xr; p.d[1] = xi; break;
        case CUFORT_RSUMK: p.d[0] = xr; p.d[1] = 0.0; break;
        case CUFORT_RASUM: p.d[0] = o->complex ? fabs(xr) + fabs(xi) : fabs(xr); break;
        case CUFORT_RDOT:
            if (o->complex) { p.d[0] = xr * yr - xi * yi; p.d[1] = xr * yi + xi * yr; }
            else p.d[0] = xr * yr;
            break;
        case CUFORT_RDOTC: p.d[0] = xr * yr + xi * yi; p.d[1] = xr * yi - xi * yr; break;
        case CUFORT_RNRM2:
            blue_add(&p, xr);
            if (o->complex) blue_add(&p, xi);
            break;
        case CUFORT_RCOUNT: p.i = holds(o->pred, xr, o->value); break;
        default: p.v = xr; p.i = i; break;
        }
    }
    return p;
}

static hpart combine(const hop *o, hpart a, hpart b)
{
    switch (o->op) {
    case CUFORT_RSUM: case CUFORT_RDOT: case CUFORT_RDOTC: case CUFORT_RASUM:
        if (o->single) { a.f[0] = a.f[0] + b.f[0]; a.f[1] = a.f[1] + b.f[1]; }
        else { a.d[0] = a.d[0] + b.d[0]; a.d[1] = a.d[1] + b.d[1]; }
        return a;
    case CUFORT_RSUMK: {
        double s = a.d[0] + b.d[0];
        double bp = s - a.d[0];
        double e = (a.d[0] - (s - bp)) + (b.d[0] - bp);
        a.d[1] = (a.d[1] + b.d[1]) + e;
        a.d[0] = s;
        return a;
    }
    case CUFORT_RNRM2:
        a.d[0] = a.d[0] + b.d[0];
        a.d[1] = a.d[1] + b.d[1];
        a.d[2] = a.d[2] + b.d[2];
        return a;
    case CUFORT_RCOUNT:
        a.i += b.i;
        return a;
    default: {
        int an = isnan(a.v), bn = isnan(b.v);
        int max = o->op == CUFORT_RMAX || o->op == CUFORT_RMAXLOC;
        if (an != bn) return bn ? a : b;
        if (!an && a.v != b.v) return (max ? a.v > b.v : a.v < b.v) ? a : b;
        return a.i <= b.i ? a : b;
    }
    }
}

static void warp_tree(const hop *o, hpart *v)
{
    for (int off = 16; off > 0; off >>= 1)
        for (int l = 0; l < off; l++) v[l] = combine(o, v[l], v[l + off]);
}

/* the block's tree over `threads` per-thread partials (threads/32 warps, padded to 32) */
static hpart block_tree(const hop *o, hpart *acc, int threads)
{
    hpart slot[32];
    int warps = threads / 32;
    for (int w = 0; w < warps; w++) {
        warp_tree(o, acc + 32 * w);
        slot[w] = acc[32 * w];
    }
    for (int w = warps; w < 32; w++) slot[w] = identity(o);
    warp_tree(o, slot);
    return slot[0];
}

static void finish(const hop *o, hpart p, void *result)
{
    switch (o->op) {
    case CUFORT_RSUM: case CUFORT_RDOT: case CUFORT_RDOTC:
        if (o->single) { ((float *)result)[0] = p.f[0]; if (o->complex) ((float *)result)[1] = p.f[1]; }
        else { ((double *)result)[0] = p.d[0]; if (o->complex) ((double *)result)[1] = p.d[1]; }
        return;
    case CUFORT_RASUM:
        if (o->single) *(float *)result = p.f[0];
        else *(double *)result = p.d[0];
        return;
    case CUFORT_RSUMK:
        if (o->single) *(float *)result = (float)(p.d[0] + p.d[1]);
        else *(double *)result = p.d[0] + p.d[1];
        return;
    case CUFORT_RNRM2:
        if (o->single) {
            *(float *)result = (float)sqrt(p.d[0]);
        } else {
            double sml = p.d[0], med = p.d[1], big = p.d[2], scl, sumsq;
            if (big > 0.0) {
                if (med > 0.0 || med != med) big = big + (med * BLUE_SBIG) * BLUE_SBIG;
                scl = 1.0 / BLUE_SBIG;
                sumsq = big;
            } else if (sml > 0.0) {
                if (med > 0.0 || med != med) {
                    double amed = sqrt(med), asml = sqrt(sml) / BLUE_SSML, ymin, ymax;
                    if (asml > amed) { ymin = amed; ymax = asml; } else { ymin = asml; ymax = amed; }
                    double q = ymin / ymax;
                    scl = 1.0;
                    sumsq = (ymax * ymax) * (1.0 + q * q);
                } else {
                    scl = 1.0 / BLUE_SSML;
                    sumsq = sml;
                }
            } else {
                scl = 1.0;
                sumsq = med;
            }
            *(double *)result = scl * sqrt(sumsq);
        }
        return;
    case CUFORT_RCOUNT: case CUFORT_RMINLOC: case CUFORT_RMAXLOC:
        *(int64_t *)result = p.i;
        return;
    default:   /* min, max */
        if (o->single) *(float *)result = (float)p.v;
        else *(double *)result = p.v;
        return;
    }
}

int cufort_host_kreduce(int kind, int op, int64_t n, const void *x, int64_t incx, const void *y,
                        int64_t incy, int pred, double value, void *result, int result_on_device)
{
    (void)result_on_device;   /* device memory is host memory */
    hop o = {kind, op, pred, value, kind == CUFORT_KC || kind == CUFORT_KZ,
             kind == CUFORT_KS || kind == CUFORT_KC};
    const int64_t V = 16 / (int64_t)cufort_kelem_size(kind), chunk = cufort_kreduce_chunk(kind);
    const int64_t np = cufort_kreduce_nchunks(kind, n);
    hpart *partials = malloc((size_t)np * sizeof *partials);
    hpart *acc = malloc(THREADS2 * sizeof *acc);
    if (!partials || !acc) {
        free(partials);
        free(acc);
        return cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory for %lld reduction partials",
                           (long long)np);
    }
    for (int64_t c = 0; c < np; c++) {
        const int64_t base = c * chunk;
        for (int t = 0; t < THREADS; t++) {
            hpart a = identity(&o);
            for (int k = 0; k < UNROLL; k++)
                for (int64_t e = 0; e < V; e++) {
                    int64_t i = base + (int64_t)k * THREADS * V + t * V + e;
                    if (i < n) a = combine(&o, a, map(&o, x, y, i, n, incx, incy));
                }
            acc[t] = a;
        }
        partials[c] = block_tree(&o, acc, THREADS);
    }
    for (int t = 0; t < THREADS2; t++) {
        hpart a = identity(&o);
        for (int64_t p = t; p < np; p += THREADS2) a = combine(&o, a, partials[p]);
        acc[t] = a;
    }
    finish(&o, block_tree(&o, acc, THREADS2), result);
    free(partials);
    free(acc);
    return CUFORT_SUCCESS;
}

/* ---- transposes ---- */

/* dst = alpha * (conj ? conj(src) : src), element of `kind`, complex products without FMA */
static void apply(int kind, int conj, int scale, const void *alpha, const void *src, void *dst)
{
    switch (kind) {
    case CUFORT_KS: {
        float v = *(const float *)src;
        *(float *)dst = scale ? *(const float *)alpha * v : v;
        return;
    }
    case CUFORT_KD: {
        double v = *(const double *)src;
        *(double *)dst = scale ? *(const double *)alpha * v : v;
        return;
    }
    case CUFORT_KC: {
        const float *s = src, *al = alpha;
        float re = s[0], im = conj ? -s[1] : s[1];
        float *d = dst;
        if (scale) { float r = al[0] * re - al[1] * im; im = al[0] * im + al[1] * re; re = r; }
        d[0] = re; d[1] = im;
        return;
    }
    default: {
        const double *s = src, *al = alpha;
        double re = s[0], im = conj ? -s[1] : s[1];
        double *d = dst;
        if (scale) { double r = al[0] * re - al[1] * im; im = al[0] * im + al[1] * re; re = r; }
        d[0] = re; d[1] = im;
        return;
    }
    }
}

static int alpha_is_one(int kind, const void *alpha)
{
    switch (kind) {
    case CUFORT_KS: return *(const float *)alpha == 1.0f;
    case CUFORT_KD: return *(const double *)alpha == 1.0;
    case CUFORT_KC: return ((const float *)alpha)[0] == 1.0f && ((const float *)alpha)[1] == 0.0f;
    default: return ((const double *)alpha)[0] == 1.0 && ((const double *)alpha)[1] == 0.0;
    }
}

int cufort_host_ktranspose(int kind, char trans, int64_t m, int64_t n, const void *alpha,
                           const void *a, int64_t lda, void *b, int64_t ldb)
{
    const size_t es = cufort_kelem_size(kind);
    const char *A = a;
    char *B = b;
    const int scale = !alpha_is_one(kind, alpha);
    trans = (char)toupper((unsigned char)trans);
    const int conj = trans == 'C' && (kind == CUFORT_KC || kind == CUFORT_KZ);
    if (trans == 'N') {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                apply(kind, 0, scale, alpha, A + (size_t)(i + j * lda) * es, B + (size_t)(i + j * ldb) * es);
        return CUFORT_SUCCESS;
    }
    enum { T = 32 };
    for (int64_t j0 = 0; j0 < n; j0 += T)
        for (int64_t i0 = 0; i0 < m; i0 += T)
            for (int64_t j = j0; j < n && j < j0 + T; j++)
                for (int64_t i = i0; i < m && i < i0 + T; i++)
                    apply(kind, conj, scale, alpha, A + (size_t)(i + j * lda) * es, B + (size_t)(j + i * ldb) * es);
    return CUFORT_SUCCESS;
}

int cufort_host_ktranspose_inplace(int kind, char trans, int64_t n, const void *alpha, void *a,
                                   int64_t lda)
{
    const size_t es = cufort_kelem_size(kind);
    char *A = a;
    const int scale = !alpha_is_one(kind, alpha);
    trans = (char)toupper((unsigned char)trans);
    const int conj = trans == 'C' && (kind == CUFORT_KC || kind == CUFORT_KZ);
    unsigned char u[16], v[16];
    if (trans == 'N') {
        if (!scale) return CUFORT_SUCCESS;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                char *p = A + (size_t)(i + j * lda) * es;
                memcpy(u, p, es);
                apply(kind, 0, 1, alpha, u, p);
            }
        return CUFORT_SUCCESS;
    }
    for (int64_t j = 0; j < n; j++) {
        for (int64_t i = 0; i < j; i++) {
            char *pij = A + (size_t)(i + j * lda) * es, *pji = A + (size_t)(j + i * lda) * es;
            memcpy(u, pij, es);
            memcpy(v, pji, es);
            apply(kind, conj, scale, alpha, u, pji);
            apply(kind, conj, scale, alpha, v, pij);
        }
        char *d = A + (size_t)(j + j * lda) * es;
        memcpy(u, d, es);
        apply(kind, conj, scale, alpha, u, d);
    }
    return CUFORT_SUCCESS;
}

/* ---- the Level-3 engine's mirror (kernels/mirror.cu) ---- */

int cufort_host_kmirror(int kind, char uplo, int herm, int64_t n, void *a, int64_t lda)
{
    const size_t es = cufort_kelem_size(kind);
    const int lower = uplo == 'L' || uplo == 'l', cplx = kind == CUFORT_KC || kind == CUFORT_KZ;
    herm = herm && cplx;
    char *A = a;
    for (int64_t j = 0; j < n; j++) {
        for (int64_t i = 0; i < n; i++) {
            if (lower ? i >= j : i <= j)
                continue;
            char *dst = A + (size_t)(i + j * lda) * es;
            memcpy(dst, A + (size_t)(j + i * lda) * es, es);   /* A(i, j) = A(j, i) */
            if (herm && kind == CUFORT_KC)
                ((float *)dst)[1] = -((float *)dst)[1];
            else if (herm)
                ((double *)dst)[1] = -((double *)dst)[1];
        }
        if (herm && kind == CUFORT_KC)
            ((float *)(A + (size_t)(j + j * lda) * es))[1] = 0;
        else if (herm)
            ((double *)(A + (size_t)(j + j * lda) * es))[1] = 0;
    }
    return CUFORT_SUCCESS;
}
