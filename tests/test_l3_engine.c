/* test_l3_engine.c — the panel engine behind TRSM, TRMM, SYMM/HEMM and the rank-k updates on host
 * arrays (c_wrappers/thunk/l3_engine.c), through the _host entry points, against netlib's z-routines
 * in double complex (zgemm for the kx forms): every precision and side/uplo/trans/diag, odd shapes,
 * ld > rows with gaps that must survive, the triangle of C a rank-k update does not reference kept
 * bit for bit, beta = 0 on a NaN-poisoned C, alpha = 0 (with beta = 1 too) on NaN-poisoned A and
 * B, which reference BLAS then does not read; on the generic path that small calls take
 * and in three plans of the pipelines (one block, many narrow blocks, out of core under a small
 * CUFORT_DEVICE_MEMORY_CAP), on pageable and pinned arrays, from 8 threads at once, and spread over
 * several devices (simulated ones on the host backend).  Error bound: 8 (d+2) eps (|alpha| |A||B| + |beta| |C|), d the inner
 * dimension; a solve's bound uses |A^-1|'s size, kept near 1 by a dominant diagonal. */
#define _GNU_SOURCE
#include <complex.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cufort.h"
#include "gemm_engine.h"

typedef double complex zc;
#define S size_t
void ztrsm_(const char *, const char *, const char *, const char *, const int *, const int *,
            const zc *, const zc *, const int *, zc *, const int *, S, S, S, S);
void ztrmm_(const char *, const char *, const char *, const char *, const int *, const int *,
            const zc *, const zc *, const int *, zc *, const int *, S, S, S, S);
void zsymm_(const char *, const char *, const int *, const int *, const zc *, const zc *, const int *,
            const zc *, const int *, const zc *, zc *, const int *, S, S);
void zhemm_(const char *, const char *, const int *, const int *, const zc *, const zc *, const int *,
            const zc *, const int *, const zc *, zc *, const int *, S, S);
void zsyrk_(const char *, const char *, const int *, const int *, const zc *, const zc *, const int *,
            const zc *, zc *, const int *, S, S);
void zherk_(const char *, const char *, const int *, const int *, const double *, const zc *,
            const int *, const double *, zc *, const int *, S, S);
void zsyr2k_(const char *, const char *, const int *, const int *, const zc *, const zc *, const int *,
             const zc *, const int *, const zc *, zc *, const int *, S, S);
void zher2k_(const char *, const char *, const int *, const int *, const zc *, const zc *, const int *,
             const zc *, const int *, const double *, zc *, const int *, S, S);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const zc *, const zc *,
            const int *, const zc *, const int *, const zc *, zc *, const int *, S, S);
#undef S

static const double GAP = 12345.0;

typedef struct {
    const char *name;      /* trsm trmm symm hemm syrk herk syr2k her2k syrkx herkx */
    char prec, side, uplo, trans, diag;
    int m, n, k, pad;
    zc alpha, beta;
    int pinned;
} case_t;

static int cplx(char p) { return p == 'c' || p == 'z'; }
static size_t esize(char p) { return p == 's' ? 4 : p == 'z' ? 16 : 8; }
static int is(const case_t *c, const char *n) { return !strcmp(c->name, n); }
static int rank_k(const case_t *c) { return strchr(c->name, 'k') != NULL; }
static int hermitian(const case_t *c) { return c->name[0] == 'h'; }

static zc get(char p, const void *x, size_t i)
{
    switch (p) {
    case 's': return ((const float *)x)[i];
    case 'd': return ((const double *)x)[i];
    case 'c': return ((const float complex *)x)[i];
    default: return ((const zc *)x)[i];
    }
}
static void put(char p, void *x, size_t i, zc v)
{
    switch (p) {
    case 's': ((float *)x)[i] = (float)creal(v); break;
    case 'd': ((double *)x)[i] = creal(v); break;
    case 'c': ((float complex *)x)[i] = (float complex)v; break;
    default: ((zc *)x)[i] = v;
    }
}
static zc rnd(char p) { return cplx(p) ? ck_randd() + I * ck_randd() : ck_randd(); }
static void *alloc(size_t bytes, int pinned)
{
    void *p = NULL;
    if (pinned)
        return cufort_host_alloc(&p, (int64_t)bytes) ? NULL : p;
    return malloc(bytes);
}
static void release(void *p, int pinned) { pinned ? (void)cufort_host_free(p) : free(p); }

#define SC(T, v) (*(const T *)(v))
#define F(v) SC(float, v)
#define D(v) SC(double, v)
#define CF(v) SC(float complex, v)
#define Z(v) SC(zc, v)
/* the _host entry point of the case; al, be hold alpha and beta in the precision (real for the
 * Hermitian forms' real scalars) */
static int call(const case_t *c, const void *al, const void *be, const void *A, int lda,
                const void *B, int ldb, void *C, int ldc)
{
    char p = c->prec, s = c->side, u = c->uplo, t = c->trans, d = c->diag;
    int m = c->m, n = c->n, k = c->k;
    if (is(c, "trsm"))
        return p == 's' ? cufort_strsm_host(s, u, t, d, m, n, F(al), A, lda, C, ldc)
             : p == 'd' ? cufort_dtrsm_host(s, u, t, d, m, n, D(al), A, lda, C, ldc)
             : p == 'c' ? cufort_ctrsm_host(s, u, t, d, m, n, CF(al), A, lda, C, ldc)
                        : cufort_ztrsm_host(s, u, t, d, m, n, Z(al), A, lda, C, ldc);
    if (is(c, "trmm"))
        return p == 's' ? cufort_strmm_host(s, u, t, d, m, n, F(al), A, lda, C, ldc)
             : p == 'd' ? cufort_dtrmm_host(s, u, t, d, m, n, D(al), A, lda, C, ldc)
             : p == 'c' ? cufort_ctrmm_host(s, u, t, d, m, n, CF(al), A, lda, C, ldc)
                        : cufort_ztrmm_host(s, u, t, d, m, n, Z(al), A, lda, C, ldc);
    if (is(c, "symm"))
        return p == 's' ? cufort_ssymm_host(s, u, m, n, F(al), A, lda, B, ldb, F(be), C, ldc)
             : p == 'd' ? cufort_dsymm_host(s, u, m, n, D(al), A, lda, B, ldb, D(be), C, ldc)
             : p == 'c' ? cufort_csymm_host(s, u, m, n, CF(al), A, lda, B, ldb, CF(be), C, ldc)
                        : cufort_zsymm_host(s, u, m, n, Z(al), A, lda, B, ldb, Z(be), C, ldc);
    if (is(c, "hemm"))
        return p == 'c' ? cufort_chemm_host(s, u, m, n, CF(al), A, lda, B, ldb, CF(be), C, ldc)
                        : cufort_zhemm_host(s, u, m, n, Z(al), A, lda, B, ldb, Z(be), C, ldc);
    if (is(c, "syrk"))
        return p == 's' ? cufort_ssyrk_host(u, t, n, k, F(al), A, lda, F(be), C, ldc)
             : p == 'd' ? cufort_dsyrk_host(u, t, n, k, D(al), A, lda, D(be), C, ldc)
             : p == 'c' ? cufort_csyrk_host(u, t, n, k, CF(al), A, lda, CF(be), C, ldc)
                        : cufort_zsyrk_host(u, t, n, k, Z(al), A, lda, Z(be), C, ldc);
    if (is(c, "herk"))
        return p == 'c' ? cufort_cherk_host(u, t, n, k, F(al), A, lda, F(be), C, ldc)
                        : cufort_zherk_host(u, t, n, k, D(al), A, lda, D(be), C, ldc);
    if (is(c, "syr2k"))
        return p == 's' ? cufort_ssyr2k_host(u, t, n, k, F(al), A, lda, B, ldb, F(be), C, ldc)
             : p == 'd' ? cufort_dsyr2k_host(u, t, n, k, D(al), A, lda, B, ldb, D(be), C, ldc)
             : p == 'c' ? cufort_csyr2k_host(u, t, n, k, CF(al), A, lda, B, ldb, CF(be), C, ldc)
                        : cufort_zsyr2k_host(u, t, n, k, Z(al), A, lda, B, ldb, Z(be), C, ldc);
    if (is(c, "her2k"))
        return p == 'c' ? cufort_cher2k_host(u, t, n, k, CF(al), A, lda, B, ldb, F(be), C, ldc)
                        : cufort_zher2k_host(u, t, n, k, Z(al), A, lda, B, ldb, D(be), C, ldc);
    if (is(c, "syrkx"))
        return p == 's' ? cufort_ssyrkx_host(u, t, n, k, F(al), A, lda, B, ldb, F(be), C, ldc)
             : p == 'd' ? cufort_dsyrkx_host(u, t, n, k, D(al), A, lda, B, ldb, D(be), C, ldc)
             : p == 'c' ? cufort_csyrkx_host(u, t, n, k, CF(al), A, lda, B, ldb, CF(be), C, ldc)
                        : cufort_zsyrkx_host(u, t, n, k, Z(al), A, lda, B, ldb, Z(be), C, ldc);
    return p == 'c' ? cufort_cherkx_host(u, t, n, k, CF(al), A, lda, B, ldb, F(be), C, ldc)
                    : cufort_zherkx_host(u, t, n, k, Z(al), A, lda, B, ldb, D(be), C, ldc);
}

/* The reference on double complex copies (Ab: |A| etc. for the bound, with ab/bb the scalars'
 * moduli); for a solve, |X| from the reference stands in for |B| in the bound. */
static void reference(const case_t *c, zc al, zc be, const zc *A, int lda, const zc *B, int ldb,
                      zc *C, int ldc)
{
    /* netlib's complex symmetric routines take 'T' where a real routine also takes 'C' */
    char tr = c->trans == 'C' && !hermitian(c) && !is(c, "trsm") && !is(c, "trmm") ? 'T' : c->trans;
    const char *s = &c->side, *u = &c->uplo, *t = &tr, *d = &c->diag;
    char other = hermitian(c) ? 'C' : 'T';
    double ar = creal(al), br = creal(be);
    int m = c->m, n = c->n, k = c->k;
    if (is(c, "trsm")) ztrsm_(s, u, t, d, &m, &n, &al, A, &lda, C, &ldc, 1, 1, 1, 1);
    else if (is(c, "trmm")) ztrmm_(s, u, t, d, &m, &n, &al, A, &lda, C, &ldc, 1, 1, 1, 1);
    else if (is(c, "symm")) zsymm_(s, u, &m, &n, &al, A, &lda, B, &ldb, &be, C, &ldc, 1, 1);
    else if (is(c, "hemm")) zhemm_(s, u, &m, &n, &al, A, &lda, B, &ldb, &be, C, &ldc, 1, 1);
    else if (is(c, "syrk")) zsyrk_(u, t, &n, &k, &al, A, &lda, &be, C, &ldc, 1, 1);
    else if (is(c, "herk")) zherk_(u, t, &n, &k, &ar, A, &lda, &br, C, &ldc, 1, 1);
    else if (is(c, "syr2k")) zsyr2k_(u, t, &n, &k, &al, A, &lda, B, &ldb, &be, C, &ldc, 1, 1);
    else if (is(c, "her2k")) zher2k_(u, t, &n, &k, &al, A, &lda, B, &ldb, &br, C, &ldc, 1, 1);
    else {   /* kx: the whole product, of which the triangle is compared */
        char ta = tr == 'N' ? 'N' : other, tb = tr == 'N' ? other : 'N';
        zgemm_(&ta, &tb, &n, &n, &k, &al, A, &lda, B, &ldb, &be, C, &ldc, 1, 1);
    }
}

/* does the routine read or write element (i, j) of its square operand (A of a triangular or
 * symmetric routine, C of a rank-k update)? */
static int in_triangle(const case_t *c, int i, int j, int with_diag)
{
    if (i == j)
        return with_diag;
    return c->uplo == 'L' ? i > j : i < j;
}

/* Runs one case; returns the number of wrong elements (-1: the call failed), first one in err. */
static int run_case(const case_t *c, char *err, size_t errlen)
{
    char p = c->prec;
    size_t es = esize(p);
    int tri = is(c, "trsm") || is(c, "trmm"), rk = rank_k(c);
    int ka = c->side == 'L' ? c->m : c->n;
    int rows = rk ? c->n : c->m, cols = c->n;                    /* the output */
    int ar = rk ? (c->trans == 'N' ? c->n : c->k) : ka, ac = rk ? (c->trans == 'N' ? c->k : c->n) : ka;
    int lda = (ar > 0 ? ar : 1) + c->pad, ldb = (rk ? ar : c->m) + c->pad, ldc = rows + c->pad;
    int bc = rk ? ac : c->n;
    size_t na = (size_t)lda * ac, nb = (size_t)ldb * bc, nc = (size_t)ldc * cols;
    void *A = alloc(na * es + 1, c->pinned), *B = alloc(nb * es + 1, c->pinned), *C = alloc(nc * es + 1, c->pinned);
    zc *A0 = malloc((na + 1) * sizeof *A0), *B0 = malloc((nb + 1) * sizeof *B0), *C0 = malloc((nc + 1) * sizeof *C0);
    zc *aA = malloc((na + 1) * sizeof *aA), *aB = malloc((nb + 1) * sizeof *aB), *aC = malloc((nc + 1) * sizeof *aC);
    unsigned char *orig = malloc(nc * es + 1);
    int bad = 0;
    if (!A || !B || !C || !A0 || !B0 || !C0 || !aA || !aB || !aC || !orig) {
        snprintf(err, errlen, "out of host memory");
        bad = -1;
        goto out;
    }
    int herm_diag = hermitian(c);   /* Hermitian forms: real diagonals in A (hemm) and C */
    for (int j = 0; j < ac; j++)
        for (int i = 0; i < lda; i++) {
            size_t x = i + (size_t)j * lda;
            zc v = i >= ar ? GAP : rnd(p);
            if (!rk && i < ar && !in_triangle(c, i, j, !(tri && c->diag == 'U')))
                v = NAN;                                         /* never to be read */
            else if (is(c, "trsm") && i < ar)
                v = i == j ? 2 + creal(v) * creal(v) + (cplx(p) ? 0.5 * I * cimag(v) : 0) : v / ka;
            else if (herm_diag && !rk && i == j)   /* HEMM's diagonal imaginary parts: never read */
                v = creal(v) + 0.75 * I;
            put(p, A, x, v);
            A0[x] = get(p, A, x);
        }
    for (size_t x = 0; x < nb; x++) {
        /* herkx: op(A) op(B)^H Hermitian (B holds A's values), as the routine assumes */
        zc v = is(c, "herkx") ? get(p, A, x < na ? x : 0) : (x % ldb) >= (size_t)(rk ? ar : c->m) ? GAP : rnd(p);
        put(p, B, x, v);
        B0[x] = get(p, B, x);
    }
    if (c->alpha == 0)   /* reference BLAS reads neither A nor B then: NaN there must not matter */
        for (size_t x = 0; x < na + nb; x++) {
            int ina = x < na, i = (int)(ina ? x % lda : (x - na) % ldb);
            if (i < (ina ? ar : rk ? ar : c->m)) {
                put(p, ina ? A : B, ina ? x : x - na, NAN);
                (ina ? A0 : B0)[ina ? x : x - na] = NAN;
            }
        }
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < ldc; i++) {
            size_t x = i + (size_t)j * ldc;
            zc v = i >= rows ? GAP : c->beta == 0 && (!rk || in_triangle(c, i, j, 1)) && !tri ? NAN : rnd(p);
            if (herm_diag && rk && i == j && c->beta != 0)
                v = creal(v);
            put(p, C, x, v);
            C0[x] = get(p, C, x);
        }
    memcpy(orig, C, nc * es);
    _Alignas(16) unsigned char al[16], be[16];
    int real_alpha = is(c, "herk"), real_beta = rk && hermitian(c);
    put(real_alpha ? (p == 'c' ? 's' : 'd') : p, al, 0, c->alpha);
    put(real_beta ? (p == 'c' ? 's' : 'd') : p, be, 0, c->beta);
    zc alpha = get(real_alpha ? (p == 'c' ? 's' : 'd') : p, al, 0);
    zc beta = get(real_beta ? (p == 'c' ? 's' : 'd') : p, be, 0);
    if (call(c, al, be, A, lda, B, ldb, C, ldc)) {
        snprintf(err, errlen, "call failed (lda %d ldb %d ldc %d): %s", lda, ldb, ldc, cufort_last_error());
        bad = -1;
        goto out;
    }
    /* bound: the reference on moduli (a solve: 4 max|X|, A's inverse being near 1 in size) */
    for (size_t x = 0; x < na; x++) aA[x] = cabs(A0[x]);
    for (size_t x = 0; x < nb; x++) aB[x] = cabs(B0[x]);
    for (size_t x = 0; x < nc; x++) aC[x] = beta == 0 && !tri ? 0 : isnan(creal(C0[x])) ? 0 : cabs(C0[x]);
    if (!is(c, "trsm"))
        reference(c, cabs(alpha), cabs(beta), aA, lda, aB, ldb, aC, ldc);
    if (beta == 0 && !tri)
        for (size_t x = 0; x < nc; x++)
            if (isnan(creal(C0[x]))) C0[x] = 0;
    reference(c, alpha, beta, A0, lda, B0, ldb, C0, ldc);
    double big = 0;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++)
            big = fmax(big, cabs(C0[i + (size_t)j * ldc]));
    double eps = (p == 's' || p == 'c') ? FLT_EPSILON : DBL_EPSILON;
    int depth = rk ? c->k : ka;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < ldc; i++) {
            size_t x = i + (size_t)j * ldc;
            zc got = get(p, C, x);
            const char *what = "";
            int wrong;
            if (i >= rows) {
                wrong = got != GAP, what = " [a gap]";
            } else if (rk && !in_triangle(c, i, j, 1)) {
                wrong = memcmp(orig + x * es, (char *)C + x * es, es) != 0, what = " [the other triangle]";
            } else {
                double bound = is(c, "trsm") ? 4 * big : creal(aC[x]);
                double diff = hermitian(c) && rk && i == j ? fabs(creal(got) - creal(C0[x])) : cabs(got - C0[x]);
                wrong = !(diff <= 8.0 * (depth + 2) * eps * bound + 1e-300);
            }
            if (wrong && bad++ == 0)
                snprintf(err, errlen, "C(%d,%d) = %g%+gi, want %g%+gi%s", i + 1, j + 1, creal(got),
                         cimag(got), creal(C0[x]), cimag(C0[x]), what);
        }
out:
    release(A, c->pinned), release(B, c->pinned), release(C, c->pinned);
    free(A0), free(B0), free(C0), free(aA), free(aB), free(aC), free(orig);
    return bad;
}

static const char *describe(const case_t *c)
{
    return ckf("%c%s side=%c uplo=%c trans=%c diag=%c m=%d n=%d k=%d pad=%d alpha=%g%+gi beta=%g%+gi%s",
               c->prec, c->name, c->side, c->uplo, c->trans, c->diag, c->m, c->n, c->k, c->pad,
               creal(c->alpha), cimag(c->alpha), creal(c->beta), cimag(c->beta), c->pinned ? " pinned" : "");
}

static int check_case(const case_t *c, const char *mode)
{
    char err[512] = "";
    int bad = run_case(c, err, sizeof err);
    return CHECK(bad == 0, ckf("%s %s", mode, describe(c)), "%d wrong; first: %s", bad, err);
}

static const char *const ROUTINES[] = {"trsm", "trmm", "symm", "hemm", "syrk", "herk",
                                       "syr2k", "her2k", "syrkx", "herkx"};

/* Every routine, precision and option on odd shapes, in the current plan mode: one case per
 * combination (counted in *cases), and alpha = 0 / beta = 0 / both alpha = 0 and beta = 1 on the
 * middle shape. */
static void sweep(const char *mode, int pinned_too)
{
    static const int shapes[][3] = {{1, 1, 1}, {37, 53, 29}, {70, 21, 45}};
    int failures = 0;
    for (size_t r = 0; r < sizeof ROUTINES / sizeof *ROUTINES; r++)
        for (const char *p = "sdcz"; *p; p++) {
            case_t c = {.name = ROUTINES[r], .prec = *p};
            if (hermitian(&c) && !cplx(*p))
                continue;
            int rk = rank_k(&c), tri = is(&c, "trsm") || is(&c, "trmm");
            const char *transes = !rk && !tri ? "N" : tri || !cplx(*p) ? "NTC" : hermitian(&c) ? "NC" : "NT";
            for (const char *side = rk ? "L" : "LR"; *side; side++)
                for (const char *uplo = "LU"; *uplo; uplo++)
                    for (const char *t = transes; *t; t++)
                        for (const char *d = tri ? "NU" : "N"; *d; d++)
                            for (int s = 0; s < 3; s++)
                                for (int v = 0; v < (s == 1 ? 4 : 1); v++) {
                                    c.side = *side, c.uplo = *uplo, c.trans = *t, c.diag = *d;
                                    c.m = shapes[s][0], c.n = shapes[s][1], c.k = shapes[s][2];
                                    c.pad = s;   /* ld = rows, rows + 1, rows + 2 */
                                    c.alpha = v == 1 || v == 3 ? 0 : 0.75 - 0.25 * I;
                                    c.beta = v == 2 ? 0 : v == 3 ? 1 : -1.25 + 0.5 * I;
                                    c.pinned = pinned_too && s == 2;
                                    failures += !check_case(&c, mode);
                                    if (failures > 20)
                                        return;   /* enough to go on */
                                }
        }
}

/* A device that cannot set up (a GPU held by another process; simulated on the host backend):
 * its piece fails the call, and the device sits out the next calls. */
static void device_set_aside(void)
{
    setenv("CUFORT_HOST_DEVICES_BROKEN", "1", 1);
    setenv("CUFORT_DEVICES", "0,1", 1);
    CHECK_OK(cufort_shutdown(), "shutdown: helpers start again, device 1 unavailable");
    CHECK_OK(cufort_init(), "init");
    double A[40 * 40], B[40 * 30];
    for (int i = 0; i < 40 * 40; i++) A[i] = i % 41 ? 0.01 * (i % 7) : 4.0;
    for (int i = 0; i < 40 * 30; i++) B[i] = 1.0 + i % 5;
    CHECK_FAILS_MSG(cufort_dtrsm_host('L', 'L', 'N', 'N', 40, 30, 1.0, A, 40, B, 40),
                    CUFORT_NO_DEVICE, "unavailable",
                    "spread TRSM, device 1 unavailable: a clear error");
    case_t c = {.name = "trsm", .prec = 'd', .side = 'L', .uplo = 'L', .trans = 'N', .diag = 'N',
                .m = 40, .n = 30, .alpha = 1.5, .beta = 0};
    check_case(&c, "device 1 set aside: the next TRSM on device 0");
    unsetenv("CUFORT_HOST_DEVICES_BROKEN");
}

static int thread_body(int id, char *err, size_t errlen)
{
    static const char *const names[] = {"trsm", "syrk", "symm", "trmm", "her2k", "syrkx", "hemm", "herk"};
    case_t c = {.name = names[id % 8], .prec = id % 2 ? 'z' : 'd', .side = id % 3 ? 'L' : 'R',
                .uplo = id % 2 ? 'U' : 'L', .trans = 'N', .diag = 'N', .m = 45 + id, .n = 38 + 2 * id,
                .k = 17 + id, .pad = 1, .alpha = 1.5, .beta = 0.5};
    if (hermitian(&c))
        c.prec = 'z';
    for (int rep = 0; rep < 6; rep++) {
        int bad = run_case(&c, err, errlen);
        if (bad)
            return bad;
    }
    return 0;
}

int main(void)
{
    ck_begin("l3_engine", 600);
    ck_seed(1031);
    if (!CHECK_OK(cufort_init(), "init")) return ck_end();
    printf("# backend %s\n", cufort_backend_name());
    unsetenv("CUFORT_L3_PANEL");
    unsetenv("CUFORT_DEVICE_MEMORY_CAP");
    unsetenv("CUFORT_L3_WHOLE_BYTES");
    sweep("whole arrays (small calls)", 1);
    setenv("CUFORT_L3_WHOLE_BYTES", "0", 1);   /* the pipelines from here on, whatever the size */
    sweep("one panel", 1);
    setenv("CUFORT_L3_HOST_BETA", "0", 1);   /* SYMM/HEMM's C uploaded, beta C added on the device */
    sweep("one panel, C uploaded", 1);
    unsetenv("CUFORT_L3_HOST_BETA");
    setenv("CUFORT_L3_PANEL", "5", 1);
    setenv("CUFORT_L3_BLOCK", "3", 1);   /* a left TRSM/TRMM's solve on the device in many steps */
    sweep("panels of 5, blocks of 3", 0);
    unsetenv("CUFORT_L3_PANEL");
    unsetenv("CUFORT_L3_BLOCK");
    setenv("CUFORT_DEVICE_MEMORY_CAP", "16K", 1);
    sweep("out of core (16 KiB)", 0);
    unsetenv("CUFORT_DEVICE_MEMORY_CAP");
    setenv("CUFORT_L3_PANEL", "7", 1);
    setenv("CUFORT_L3_BLOCK", "4", 1);
    ck_threads(8, thread_body, "8 threads, 6 calls each");
    unsetenv("CUFORT_L3_PANEL");
    unsetenv("CUFORT_L3_BLOCK");
    /* spread over 3 devices (simulated ones on the host backend; as many as there are, up to 3,
     * on a GPU machine), whole and out of core on each */
    int count = ck_spread_devices("3");
    if (count) {
        setenv("CUFORT_MULTI_GPU_MIN_FLOPS", "1", 1);
        setenv("CUFORT_MULTI_GPU_MIN_INTENSITY", "0", 1);
        setenv("CUFORT_DEVICES", count > 2 ? "2,0,1" : "1,0", 1);
        sweep("spread over devices", 1);
        /* the rectangle beside this thread's own column block, a GEMM, stays on its device (the
         * others run their own blocks meanwhile) */
        case_t syrk = {.name = "syrk", .prec = 'd', .uplo = 'L', .trans = 'N', .m = 60, .n = 60,
                       .k = 33, .alpha = 1.5, .beta = 0.5};
        check_case(&syrk, "spread SYRK");
        cufort_gemm_plan_info info;
        cufort_thunk_gemm_last_plan(&info);
        CHECK(info.devices == 1 && info.device_panels[0] > 0,
              "spread SYRK: this thread's rectangle GEMM on its own device alone",
              "devices %d, panels %lld", info.devices, (long long)info.device_panels[0]);
        setenv("CUFORT_DEVICE_MEMORY_CAP", "16K", 1);
        sweep("spread over devices, out of core (16 KiB)", 0);
        unsetenv("CUFORT_DEVICE_MEMORY_CAP");
        ck_threads(8, thread_body, "spread, 8 threads, 6 calls each");
        if (!strcmp(cufort_backend_name(), "host"))
            device_set_aside();
        unsetenv("CUFORT_DEVICES");
        unsetenv("CUFORT_MULTI_GPU_MIN_FLOPS");
        unsetenv("CUFORT_MULTI_GPU_MIN_INTENSITY");
    }
    unsetenv("CUFORT_L3_WHOLE_BYTES");
    CHECK_OK(cufort_shutdown(), "shutdown");
    return ck_end();
}
