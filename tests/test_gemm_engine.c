/* test_gemm_engine.c — the tiled GEMM engine behind cufort_?gemm_host (c_wrappers/thunk/gemm_engine.c)
 * against netlib's dgemm/zgemm in double precision: every precision and transpose, odd shapes
 * that are no multiple of the tile, ld > rows with gaps that must survive, beta = 0 on a
 * NaN-poisoned C, alpha = 0 and k = 0; in three plans (one tile, many resident tiles, out of core
 * under a small CUFORT_DEVICE_MEMORY_CAP), on pageable and pinned arrays, from 8 threads at once,
 * spread over several devices (simulated ones on the host backend), and bad arguments.  Error bound per element: 4(k+2) eps (|alpha| |A||B| + |beta| |C|). */
#define _GNU_SOURCE
#include <complex.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cufort.h"
#include "gemm_engine.h"

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
void zgemm_(const char *, const char *, const int *, const int *, const int *,
            const double complex *, const double complex *, const int *, const double complex *,
            const int *, const double complex *, double complex *, const int *, size_t, size_t);

static const double GAP = 12345.0;   /* what the gaps between C's columns hold */

typedef struct {
    char prec, ta, tb;
    int m, n, k, lda, ldb, ldc;
    double complex alpha, beta;
    int pinned;
} case_t;

static int is_cplx(char p) { return p == 'c' || p == 'z'; }
static size_t esize(char p) { return p == 's' ? 4 : p == 'z' ? 16 : 8; }

static void *alloc(size_t bytes, int pinned)
{
    void *p = NULL;
    if (pinned)
        return cufort_host_alloc(&p, (int64_t)bytes) ? NULL : p;
    return malloc(bytes);
}
static void release(void *p, int pinned)
{
    if (pinned)
        cufort_host_free(p);
    else
        free(p);
}

/* element i of a typed array as double complex, and back */
static double complex get(char p, const void *x, size_t i)
{
    switch (p) {
    case 's': return ((const float *)x)[i];
    case 'd': return ((const double *)x)[i];
    case 'c': return ((const float complex *)x)[i];
    default: return ((const double complex *)x)[i];
    }
}
static void put(char p, void *x, size_t i, double complex v)
{
    switch (p) {
    case 's': ((float *)x)[i] = (float)creal(v); break;
    case 'd': ((double *)x)[i] = creal(v); break;
    case 'c': ((float complex *)x)[i] = (float complex)v; break;
    default: ((double complex *)x)[i] = v;
    }
}
static double complex rnd(char p)
{
    double re = ck_randd();
    return is_cplx(p) ? re + I * ck_randd() : re;
}

static int call(const case_t *c, const void *alpha, const void *beta, const void *A, const void *B,
                void *C)
{
    switch (c->prec) {
    case 's':
        return cufort_sgemm_host(c->ta, c->tb, c->m, c->n, c->k, *(const float *)alpha, A, c->lda,
                                 B, c->ldb, *(const float *)beta, C, c->ldc);
    case 'd':
        return cufort_dgemm_host(c->ta, c->tb, c->m, c->n, c->k, *(const double *)alpha, A, c->lda,
                                 B, c->ldb, *(const double *)beta, C, c->ldc);
    case 'c':
        return cufort_cgemm_host(c->ta, c->tb, c->m, c->n, c->k, *(const float complex *)alpha, A,
                                 c->lda, B, c->ldb, *(const float complex *)beta, C, c->ldc);
    default:
        return cufort_zgemm_host(c->ta, c->tb, c->m, c->n, c->k, *(const double complex *)alpha, A,
                                 c->lda, B, c->ldb, *(const double complex *)beta, C, c->ldc);
    }
}

/* Runs one case; returns the number of wrong elements (-1: the call failed), first one in err. */
static int run_case(const case_t *c, char *err, size_t errlen)
{
    char p = c->prec;
    size_t es = esize(p);
    int ac = c->ta == 'N' ? c->k : c->m, bc = c->tb == 'N' ? c->n : c->k;
    size_t na = (size_t)c->lda * ac, nb = (size_t)c->ldb * bc, nc = (size_t)c->ldc * c->n;
    void *A = alloc(na * es + 1, c->pinned), *B = alloc(nb * es + 1, c->pinned);
    void *C = alloc(nc * es + 1, c->pinned);
    double complex *A0 = malloc((na + 1) * sizeof *A0), *B0 = malloc((nb + 1) * sizeof *B0);
    double complex *C0 = malloc((nc + 1) * sizeof *C0);
    double *bound = malloc((nc + 1) * sizeof *bound);
    int bad = 0;
    if (!A || !B || !C || !A0 || !B0 || !C0 || !bound) {
        snprintf(err, errlen, "out of host memory");
        bad = -1;
        goto out;
    }
    for (size_t i = 0; i < na; i++) put(p, A, i, rnd(p)), A0[i] = get(p, A, i);
    for (size_t i = 0; i < nb; i++) put(p, B, i, rnd(p)), B0[i] = get(p, B, i);
    for (int j = 0; j < c->n; j++)
        for (int i = 0; i < c->ldc; i++) {
            size_t x = i + (size_t)j * c->ldc;
            put(p, C, x, i >= c->m ? GAP : c->beta == 0 ? NAN : rnd(p));
            C0[x] = get(p, C, x);
        }
    unsigned char alpha[16] __attribute__((aligned(16))), beta[16] __attribute__((aligned(16)));
    put(p, alpha, 0, c->alpha);
    put(p, beta, 0, c->beta);
    double complex al = get(p, alpha, 0), be = get(p, beta, 0);   /* as rounded to the precision */
    case_t r = *c;
    r.alpha = al;
    r.beta = be;
    if (call(c, alpha, beta, A, B, C)) {
        snprintf(err, errlen, "call failed: %s", cufort_last_error());
        bad = -1;
        goto out;
    }
    /* bound = |alpha| |A||B| + |beta| |C|: the reference with |.| everywhere */
    {
        case_t ab = r;
        double complex *absA = malloc((na + 1) * sizeof *absA), *absB = malloc((nb + 1) * sizeof *absB);
        double complex *absC = malloc((nc + 1) * sizeof *absC);
        for (size_t i = 0; i < na; i++) absA[i] = cabs(A0[i]);
        for (size_t i = 0; i < nb; i++) absB[i] = cabs(B0[i]);
        for (size_t i = 0; i < nc; i++) absC[i] = be == 0 ? 0 : cabs(C0[i]);
        ab.alpha = cabs(al);
        ab.beta = cabs(be);
        zgemm_(&ab.ta, &ab.tb, &ab.m, &ab.n, &ab.k, &ab.alpha, absA, &ab.lda, absB, &ab.ldb,
               &ab.beta, absC, &ab.ldc, 1, 1);
        for (size_t i = 0; i < nc; i++) bound[i] = creal(absC[i]);
        free(absA), free(absB), free(absC);
    }
    if (be == 0)
        for (size_t i = 0; i < nc; i++)
            if (isnan(creal(C0[i]))) C0[i] = 0;
    zgemm_(&r.ta, &r.tb, &r.m, &r.n, &r.k, &r.alpha, A0, &r.lda, B0, &r.ldb, &r.beta, C0, &r.ldc, 1, 1);
    double eps = (p == 's' || p == 'c') ? FLT_EPSILON : DBL_EPSILON;
    for (int j = 0; j < c->n; j++)
        for (int i = 0; i < c->ldc; i++) {
            size_t x = i + (size_t)j * c->ldc;
            double complex got = get(p, C, x);
            int wrong;
            if (i >= c->m)
                wrong = got != GAP;
            else
                wrong = !(cabs(got - C0[x]) <= 4.0 * (c->k + 2) * eps * bound[x] + 1e-300);
            if (wrong && bad++ == 0)
                snprintf(err, errlen, "C(%d,%d) = %g%+gi, want %g%+gi (bound %g)%s", i + 1, j + 1,
                         creal(got), cimag(got), creal(C0[x]), cimag(C0[x]), bound[x],
                         i >= c->m ? " [a gap]" : "");
        }
out:
    release(A, c->pinned), release(B, c->pinned), release(C, c->pinned);
    free(A0), free(B0), free(C0), free(bound);
    return bad;
}

static const char *describe(const case_t *c)
{
    return ckf("%cgemm %c%c m=%d n=%d k=%d ld=%d/%d/%d alpha=%g%+gi beta=%g%+gi%s", c->prec, c->ta,
               c->tb, c->m, c->n, c->k, c->lda, c->ldb, c->ldc, creal(c->alpha), cimag(c->alpha),
               creal(c->beta), cimag(c->beta), c->pinned ? " pinned" : "");
}

static void check_case(const case_t *c, const char *mode)
{
    char err[512] = "";
    int bad = run_case(c, err, sizeof err);
    CHECK(bad == 0, ckf("%s %s", mode, describe(c)), "%d wrong; first: %s", bad, err);
}

static case_t make(char prec, char ta, char tb, int m, int n, int k, double complex alpha,
                   double complex beta, int pad)
{
    int ar = ta == 'N' ? m : k, br = tb == 'N' ? k : n;
    return (case_t){prec, ta, tb, m, n, k, (ar > 0 ? ar : 1) + pad, (br > 0 ? br : 1) + pad,
                    (m > 0 ? m : 1) + pad, alpha, beta, 0};
}

/* Every precision, transpose pair and scalar case on odd shapes, in the current plan mode, on
 * pageable or pinned arrays. */
static void sweep_arrays(const char *mode, int pinned)
{
    static const int shapes[][3] = {{1, 1, 1}, {37, 53, 29}, {70, 33, 101}};
    static const char precs[] = "sdcz";
    for (const char *p = precs; *p; p++) {
        const char *ops = is_cplx(*p) ? "NTC" : "NT";
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
            for (const char *ta = ops; *ta; ta++)
                for (const char *tb = ops; *tb; tb++) {
                    const int *sh = shapes[s];
                    double complex al = is_cplx(*p) ? 1.25 - 0.5 * I : 1.25;
                    double complex be = is_cplx(*p) ? -0.75 + 0.25 * I : -0.75;
                    case_t c = make(*p, *ta, *tb, sh[0], sh[1], sh[2], al, be, (int)s % 2 * 3);
                    c.pinned = pinned;
                    check_case(&c, mode);
                    c.beta = 0;        /* C is NaN on entry and must not be read */
                    check_case(&c, mode);
                }
        /* alpha = 0 and k = 0: C = beta C, A and B not read */
        case_t c = make(*p, 'N', 'T', 45, 38, 17, 0, 0.5, 2);
        c.pinned = pinned;
        check_case(&c, mode);
        c = make(*p, 'T', 'N', 45, 38, 0, 1.5, -2, 1);
        c.pinned = pinned;
        check_case(&c, mode);
    }
}

static void sweep(const char *mode) { sweep_arrays(mode, 0); }

static void plan_checks(void)
{
    cufort_gemm_plan_info info;
    case_t c = make('d', 'N', 'N', 70, 33, 101, 1.0, 1.0, 0);
    setenv("CUFORT_GEMM_TILE", "16", 1);
    unsetenv("CUFORT_DEVICE_MEMORY_CAP");
    check_case(&c, "plan");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.resident && info.mb == 16 && info.nb == 16 && info.kb == 101,
          "tile 16: resident, 16 x 16 tiles, k whole", "resident %d mb %lld nb %lld kb %lld",
          info.resident, (long long)info.mb, (long long)info.nb, (long long)info.kb);
    /* a pageable C stays on the host (beta C is added there); A and B cross once, C comes back */
    size_t ab = (size_t)(70 * 101 + 101 * 33) * 8, cb = (size_t)70 * 33 * 8;
    CHECK(info.bytes_in == ab && info.bytes_out == cb,
          "resident, pageable C: A and B cross once, C only comes back",
          "moved %zu + %zu bytes, want %zu + %zu", info.bytes_in, info.bytes_out, ab, cb);
    c.pinned = 1;   /* a small pinned C goes up and comes back by DMA, the GPU adding beta C */
    check_case(&c, "plan");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.bytes_in == ab + cb && info.bytes_out == cb,
          "resident, pinned: every byte crosses once, C both ways",
          "moved %zu + %zu bytes, want %zu + %zu", info.bytes_in, info.bytes_out, ab + cb, cb);
    setenv("CUFORT_GEMM_HOST_BETA", "1", 1);   /* as a pinned C of 64 MiB or more: stays on the host */
    check_case(&c, "plan, pinned C kept on the host");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.bytes_in == ab && info.bytes_out == cb,
          "resident, pinned, CUFORT_GEMM_HOST_BETA=1: A and B cross once, C only comes back",
          "moved %zu + %zu bytes, want %zu + %zu", info.bytes_in, info.bytes_out, ab, cb);
    unsetenv("CUFORT_GEMM_HOST_BETA");
    c.pinned = 0;
    /* pageable and at most two tiles tall: tiles of whole columns with the bytes of 40 x 40 floats,
     * 70 x 11 doubles */
    case_t tall = make('d', 'N', 'N', 70, 100, 37, 1.0, 1.0, 0);
    setenv("CUFORT_GEMM_TILE", "40", 1);
    check_case(&tall, "plan");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.resident && info.mb == 70 && info.nb == 11, "tile 40, m = 70: tall 70 x 11 tiles",
          "resident %d mb %lld nb %lld", info.resident, (long long)info.mb, (long long)info.nb);
    setenv("CUFORT_GEMM_TILE", "16", 1);
    setenv("CUFORT_DEVICE_MEMORY_CAP", "24K", 1);
    check_case(&c, "plan");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(!info.resident && info.kb < 101 && info.device_bytes <= 24 * 1024,
          "cap 24K: out of core, k split, within the cap", "resident %d kb %lld device bytes %zu",
          info.resident, (long long)info.kb, info.device_bytes);
    setenv("CUFORT_DEVICE_MEMORY_CAP", "100", 1);
    int st = cufort_dgemm_host('N', 'N', 70, 33, 101, 1.0, (double[7070]){1}, 70,
                               (double[3333]){1}, 101, 1.0, (double[2310]){1}, 70);
    CHECK(st == CUFORT_ALLOC_FAILED && strstr(ck_err(), "CUFORT_DEVICE_MEMORY_CAP"),
          "a cap too small for one element of each: a clear error", "status %d, \"%s\"", st, ck_err());
    unsetenv("CUFORT_DEVICE_MEMORY_CAP");
    unsetenv("CUFORT_GEMM_TILE");
    /* pageable, one tile of 16 MiB or more and 10^10 flops or more: two halves of columns; pinned,
     * the tile set by hand, fewer bytes or fewer flops: one tile, or the cut to 256 columns; more
     * than one tile: tiles of even width (the plans alone, for calls this large; the tiles' results
     * are checked above on smaller plans) */
    static const struct { char prec; int m, n, k, pinned, nb; const char *what; } halves[] = {
        {'d', 2048, 1024, 2385, 0, 512, "16 MiB, 10^10 flops: halves"},
        {'s', 2048, 2048, 2048, 0, 1024, "SGEMM n = 2048: halves"},
        {'s', 4000, 4000, 4000, 0, 2048, "SGEMM n = 4000: halves, not 3840 + 160"},
        {'d', 4096, 768, 2731, 0, 384, "25 MB: halves of 384"},
        {'d', 4096, 768, 2731, 1, -1, "25 MB, pinned: no halves"},
        {'d', 2047, 1024, 4096, 0, 1024, "just under 16 MiB: one tile"},
        {'d', 2048, 1024, 2384, 0, 1024, "just under 10^10 flops: one tile"},
        {'d', 1500, 1500, 1500, 0, 1280, "DGEMM n = 1500, under 10^10 flops: 1280 + 220"},
        {'z', 1024, 1024, 1024, 0, 1024, "ZGEMM n = 1024, 2^33 flops: one tile"},
        {'z', 1024, 1024, 2048, 0, 512, "ZGEMM n = 1024, k = 2048: halves"},
        {'d', 3500, 3500, 3500, 0, 1792, "DGEMM n = 3500: two tiles of 1792, not 2304 + 1196"},
        {'s', 2100, 2100, 2100, 1, 1088, "pinned SGEMM n = 2100: 1088 + 1012, not 2048 + 52"},
        {'s', 3000, 3000, 3000, 1, 2048, "pinned SGEMM n = 3000: 2048 + 952 kept"},
    };
    for (size_t i = 0; i < sizeof halves / sizeof *halves; i++) {
        int st = cufort_thunk_gemm_plan(halves[i].prec, halves[i].m, halves[i].n, halves[i].k,
                                        halves[i].pinned, &info);
        int want = halves[i].nb;
        CHECK(st == CUFORT_SUCCESS && (want < 0 ? info.nb != 384 : info.nb == want),
              ckf("plan, %s", halves[i].what), "status %d nb %lld", st, (long long)info.nb);
    }
    setenv("CUFORT_GEMM_TILE", "4096", 1);
    CHECK(cufort_thunk_gemm_plan('d', 4096, 768, 2731, 0, &info) == 0 && info.nb == 768,
          "plan, 25 MB, tile 4096 set: one tile", "nb %lld", (long long)info.nb);
    /* tiles of 4 MiB, 512 columns of 1000 doubles, over 1300 columns: three of even width */
    setenv("CUFORT_GEMM_TILE", "1024", 1);
    case_t even = make('d', 'N', 'T', 1000, 1300, 50, 1.5, -0.5, 3);
    check_case(&even, "tiles of even width");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.nb == 448, "tiles of even width: 448 + 448 + 404", "nb %lld", (long long)info.nb);
    CHECK(info.last_tile_pieces == 3,
          "the last tile (404 columns of 8000 bytes) in 202 + 101 + 101", "%d pieces",
          info.last_tile_pieces);
    /* square tiles over C's rows: the last row panel's last tile in pieces */
    case_t rows = make('d', 'N', 'N', 2500, 300, 20, -1.0, 0.5, 1);
    check_case(&rows, "tiles of 1024 rows");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.mb < 2500 && info.last_tile_pieces > 1, "tiles of 1024 rows: the last one in pieces",
          "mb %lld, %d pieces", (long long)info.mb, info.last_tile_pieces);
    unsetenv("CUFORT_GEMM_TILE");
    /* a run of the one-tile plan that the halves rule leaves alone: few flops */
    case_t one = make('d', 'N', 'N', 4096, 768, 16, 1.0, -0.5, 1);
    check_case(&one, "one tile of 25 MB, pageable, 10^8 flops");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.resident && info.mb == 4096 && info.nb == 768, "25 MB, 10^8 flops: one tile",
          "resident %d mb %lld nb %lld", info.resident, (long long)info.mb, (long long)info.nb);
    /* The last tile's GEMM in pieces of halving width, each coming back as it is done
     * (gemm_engine.c): columns of 32 KiB, at least 32 columns a piece: 384 + 192 + 96 + 48 + 48.
     * With beta = 0 (a plain copy back, C NaN on entry) and op(B) = B^H (B's image cut by rows)
     * as well. */
    CHECK(info.last_tile_pieces == 5, "one tile of 768 columns: in five pieces", "%d pieces",
          info.last_tile_pieces);
    case_t zero = make('s', 'T', 'N', 1000, 500, 24, 1.5, 0, 2);
    check_case(&zero, "pieces, beta = 0");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.last_tile_pieces == 2, "beta = 0, 500 columns of 4000 bytes: 250 + 250",
          "%d pieces", info.last_tile_pieces);
    case_t herm = make('z', 'N', 'C', 300, 500, 40, 0.5 + 1.0 * I, -1.0 + 0.25 * I, 1);
    check_case(&herm, "pieces, B^H");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.last_tile_pieces == 3, "B^H, 500 columns of 4800 bytes: 250 + 125 + 125",
          "%d pieces", info.last_tile_pieces);
    herm.pinned = 1;   /* a pinned C small enough goes up and back by DMA: no pieces */
    check_case(&herm, "B^H, pinned");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.last_tile_pieces == 0, "pinned C going back by DMA: one GEMM", "%d pieces",
          info.last_tile_pieces);
    /* pinned, one tile of 2048 would hold it, C of 4 MiB or more (1000 x 700 doubles): quarters of
     * 512 x 512 (500 rounded up to 64); under 4 MiB, one tile */
    case_t quarters = make('d', 'T', 'N', 1000, 700, 24, 0.5, 2.0, 0);
    quarters.pinned = 1;
    check_case(&quarters, "pinned, C of 5.6 MB");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.resident && info.mb == 512 && info.nb == 512, "pinned, C of 5.6 MB: quarters",
          "resident %d mb %lld nb %lld", info.resident, (long long)info.mb, (long long)info.nb);
    quarters.n = 500;
    check_case(&quarters, "pinned, C of 4.0 MB");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.mb == 1000 && info.nb == 500, "pinned, C under 4 MiB: one tile", "mb %lld nb %lld",
          (long long)info.mb, (long long)info.nb);
}

/* A device that cannot set up (as a GPU held by another process in exclusive mode; simulated on
 * the host backend): the others take its panels, and it sits out later calls until the next
 * reset. */
static void devices_set_aside(int count, const case_t *c0)
{
    case_t c = *c0;
    cufort_gemm_plan_info info;
    setenv("CUFORT_HOST_DEVICES_BROKEN", "1", 1);
    setenv("CUFORT_DEVICES", "0,1", 1);
    CHECK_OK(cufort_shutdown(), "shutdown: the helpers start again, device 1 now unavailable");
    CHECK_OK(cufort_init(), "init");
    check_case(&c, "spread, device 1 unavailable");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.devices == 2 && info.device_panels[1] == 0 && info.device_panels[0] > 0,
          "device 1 unavailable: device 0 computes every panel", "devices %d, panels %lld / %lld",
          info.devices, (long long)info.device_panels[0], (long long)info.device_panels[1]);
    check_case(&c, "device 1 set aside");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.devices == 1, "device 1 set aside: the next call stays on device 0", "devices %d",
          info.devices);
    if (count > 2) {   /* the caller's device not listed, and every listed one unavailable */
        setenv("CUFORT_HOST_DEVICES_BROKEN", "1,2", 1);
        setenv("CUFORT_DEVICES", "2,1", 1);
        CHECK_OK(cufort_shutdown(), "shutdown: devices set aside come back");
        CHECK_OK(cufort_init(), "init");
        double a[64], b[64], cc[64];
        for (int i = 0; i < 64; i++) a[i] = b[i] = cc[i] = i + 1;
        CHECK_FAILS_MSG(cufort_dgemm_host('N', 'N', 8, 8, 8, 1.0, a, 8, b, 8, 0.0, cc, 8),
                        CUFORT_NO_DEVICE, "unavailable",
                        "every listed device unavailable: a clear error");
    }
    unsetenv("CUFORT_HOST_DEVICES_BROKEN");
}

static int thread_body(int id, char *err, size_t errlen);

/* C's column panels on a staged call of n columns spread over d devices, `width` wide: the last
 * round (one panel per device) in quarters, or as many parts as a narrower panel has columns */
static int64_t staged_panels(int64_t n, int64_t width, int d)
{
    int64_t whole = (n + width - 1) / width, last = whole < d ? whole : d, panels = whole - last;
    for (int64_t q = whole - last; q < whole; q++) {
        int64_t cols = n - q * width < width ? n - q * width : width;
        panels += cols < 4 ? cols : 4;
    }
    return panels;
}

/* the column panels the last plan's devices did in all; *busy: how many devices did any */
static int64_t panels_done(const cufort_gemm_plan_info *info, int64_t *busy)
{
    int64_t panels = 0;
    *busy = 0;
    for (int i = 0; i < info->devices; i++)
        panels += info->device_panels[i], *busy += info->device_panels[i] > 0;
    return panels;
}

/* Spread over 2-4 devices (on the host backend, CUFORT_HOST_DEVICES simulated ones): the sweep
 * again, out of core too, the panels' count and the bytes, a device list in any order, threads,
 * helpers ending at shutdown and at a device change, and a bad list. */
static void spread_checks(void)
{
    int count = ck_spread_devices("4");
    if (!count)
        return;
    setenv("CUFORT_MULTI_GPU_MIN_FLOPS", "1", 1);
    setenv("CUFORT_MULTI_GPU_MIN_INTENSITY", "0", 1);
    cufort_gemm_plan_info info;
    int shared = 0;   /* runs where A passed between devices */
    for (int d = 2; d <= count && d <= 4; d++) {
        char list[32] = "", *at = list;
        for (int i = 0; i < d; i++)
            at += sprintf(at, "%s%d", i ? "," : "", d - 1 - i);   /* the caller's device last */
        setenv("CUFORT_DEVICES", list, 1);
        setenv("CUFORT_GEMM_TILE", "16", 1);
        sweep(ckf("%d devices, tile 16", d));
        sweep_arrays(ckf("%d devices, tile 16, pinned", d), 1);
        setenv("CUFORT_GEMM_HOST_BETA", "1", 1);   /* as a pinned C of 64 MiB or more */
        sweep_arrays(ckf("%d devices, tile 16, pinned, beta C on the host", d), 1);
        unsetenv("CUFORT_GEMM_HOST_BETA");
        case_t c = make('d', 'T', 'N', 70, 97, 45, 1.5, -0.5, 2);
        check_case(&c, ckf("%d devices", d));
        cufort_thunk_gemm_last_plan(&info);
        int64_t busy, width = info.nb, panels = panels_done(&info, &busy);
        CHECK(info.devices == d && panels == staged_panels(97, width, d),
              ckf("%d devices: every column panel once, the last round in quarters", d),
              "devices %d, %lld panels of %lld", info.devices, (long long)panels, (long long)width);
        /* B crosses once and C comes back once; each device that works gets A once, from the
         * host or from another device (from the host whenever the device that uploaded a panel
         * has finished and left before another needs it, which timing decides) */
        size_t a = (size_t)70 * 45 * 8, b = (size_t)45 * 97 * 8, cb = (size_t)70 * 97 * 8;
        shared += info.bytes_peer > 0;
        CHECK(info.bytes_in + info.bytes_peer == b + (size_t)busy * a && info.bytes_out == cb &&
                  info.bytes_peer <= (size_t)(busy - 1) * a && info.bytes_in >= b + a,
              ckf("%d devices: B once, A once to each device, C back once", d),
              "moved %zu + %zu, %zu between devices; want %zu + %zu in all, at most %zu between",
              info.bytes_in, info.bytes_out, info.bytes_peer, b + (size_t)busy * a, cb,
              (size_t)(busy - 1) * a);
        /* pinned: each device takes the rows of every device's block in turn (five rows of 16) */
        c.pinned = 1;
        check_case(&c, ckf("%d devices, pinned", d));
        cufort_thunk_gemm_last_plan(&info);
        CHECK(info.devices == d && info.resident && info.mb == 16,
              ckf("%d devices, pinned: resident rows of 16 on each", d),
              "devices %d resident %d mb %lld", info.devices, info.resident, (long long)info.mb);
        /* pinned, each device claims its next column panel and uploads its B, and its own rows of
         * A, ahead of its tiles: still every panel once, B once, A once to each device, and C (a
         * small pinned one: the GPU adds beta C) up once and back once */
        int64_t pinned_panels = panels_done(&info, &busy);
        CHECK(pinned_panels == (97 + info.nb - 1) / info.nb && info.bytes_out == cb &&
                  info.bytes_in + info.bytes_peer == b + (size_t)busy * a + cb,
              ckf("%d devices, pinned: every panel once, B once, A once to each device", d),
              "%lld panels of %lld; moved %zu + %zu, %zu between devices", (long long)pinned_panels,
              (long long)info.nb, info.bytes_in, info.bytes_out, info.bytes_peer);
        c.pinned = 0;
        /* devices that cannot reach each other (simulated on the host backend): A from the
         * host to each */
        if (!strcmp(cufort_backend_name(), "host")) {
            setenv("CUFORT_HOST_DEVICES_NO_PEER", "1", 1);
            check_case(&c, ckf("%d devices, no peer copies", d));
            cufort_thunk_gemm_last_plan(&info);
            panels_done(&info, &busy);
            CHECK(info.bytes_in == b + (size_t)busy * a && info.bytes_peer == 0,
                  ckf("%d devices, no peer copies: A once per device", d),
                  "moved %zu in, %zu between devices; want %zu, 0", info.bytes_in, info.bytes_peer,
                  b + (size_t)busy * a);
            unsetenv("CUFORT_HOST_DEVICES_NO_PEER");
        }
        setenv("CUFORT_GEMM_TILE", "200", 1);   /* tiles of whole columns */
        sweep(ckf("%d devices, whole columns", d));
        setenv("CUFORT_GEMM_TILE", "16", 1);
        setenv("CUFORT_DEVICE_MEMORY_CAP", "20K", 1);
        sweep(ckf("%d devices, out of core 20K", d));
        check_case(&c, ckf("%d devices, out of core 20K", d));
        cufort_thunk_gemm_last_plan(&info);
        CHECK(info.devices == d && !info.resident, ckf("%d devices: out of core on each", d),
              "devices %d resident %d", info.devices, info.resident);
        unsetenv("CUFORT_DEVICE_MEMORY_CAP");
    }
    if (!strcmp(cufort_backend_name(), "host"))   /* its devices all reach one another */
        CHECK(shared > 0, "A passed between devices", "in none of %d runs", count - 1);
    /* pageable and under 700 flops per byte (this one: about 12): one device; pinned: spread */
    unsetenv("CUFORT_MULTI_GPU_MIN_INTENSITY");
    setenv("CUFORT_DEVICES", "0,1", 1);
    case_t low = make('s', 'N', 'N', 64, 96, 64, 1.0, 1.0, 0);
    check_case(&low, "low intensity, pageable");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.devices == 1, "pageable, 12 flops per byte: one device", "devices %d", info.devices);
    low.pinned = 1;
    check_case(&low, "low intensity, pinned");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.devices == 2, "pinned, 12 flops per byte: spread", "devices %d", info.devices);
    setenv("CUFORT_MULTI_GPU_MIN_INTENSITY", "0", 1);
    setenv("CUFORT_DEVICES", count > 2 ? "0,1,2" : "0,1", 1);
    /* blocks above the staging threshold, packed by host threads for each device */
    setenv("CUFORT_GEMM_TILE", "256", 1);
    case_t big = make('d', 'N', 'T', 700, 650, 600, 1.0, 1.0, 5);
    check_case(&big, "spread, tile 256 staged");
    big.prec = 'c';
    check_case(&big, "spread, tile 256 staged");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.devices >= 2, "staged: spread", "devices %d", info.devices);
    setenv("CUFORT_GEMM_TILE", "20", 1);
    ck_threads(8, thread_body, "spread gemm from 8 threads");
    /* the helpers end at a shutdown and a device change, and start again after */
    case_t c = make('z', 'C', 'N', 61, 80, 33, 0.5 + I, 0.25, 1);
    if (!strcmp(cufort_backend_name(), "host"))
        devices_set_aside(count, &c);
    setenv("CUFORT_DEVICES", count > 2 ? "0,1,2" : "0,1", 1);
    CHECK_OK(cufort_shutdown(), "shutdown with helpers running");
    CHECK_OK(cufort_init(), "init again");
    check_case(&c, "spread after a shutdown");
    CHECK_OK(cufort_set_device(1), "device 1 with helpers running");
    check_case(&c, "spread from device 1");
    cufort_thunk_gemm_last_plan(&info);
    CHECK(info.devices == (count > 2 ? 3 : 2), "from device 1: spread over the list",
          "devices %d", info.devices);
    CHECK_OK(cufort_set_device(0), "back to device 0");
    setenv("CUFORT_DEVICES", "0,9", 1);
    double a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4}, cc[4] = {1, 2, 3, 4};
    CHECK_FAILS_MSG(cufort_dgemm_host('N', 'N', 2, 2, 2, 1.0, a, 2, b, 2, 0.0, cc, 2),
                    CUFORT_INVALID_VALUE, "CUFORT_DEVICES", "a device list naming no such device");
    setenv("CUFORT_DEVICES", "0,0", 1);
    CHECK_FAILS_MSG(cufort_dgemm_host('N', 'N', 2, 2, 2, 1.0, a, 2, b, 2, 0.0, cc, 2),
                    CUFORT_INVALID_VALUE, "twice", "a device list naming one twice");
    unsetenv("CUFORT_DEVICES");
    unsetenv("CUFORT_MULTI_GPU_MIN_FLOPS");
    unsetenv("CUFORT_MULTI_GPU_MIN_INTENSITY");
    unsetenv("CUFORT_GEMM_TILE");
}

static void errors(void)
{
    double a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4}, c[4] = {1, 2, 3, 4};
    CHECK_ST(cufort_dgemm_host('X', 'N', 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2), CUFORT_INVALID_VALUE,
             "transa 'X' rejected");
    CHECK(cufort_last_info() == 1, "transa is parameter 1", "info %d", cufort_last_info());
    CHECK_ST(cufort_dgemm_host('N', 'N', 2, 2, 2, 1.0, a, 1, b, 2, 0.0, c, 2), CUFORT_INVALID_VALUE,
             "lda < m rejected");
    CHECK(cufort_last_info() == 8, "lda is parameter 8", "info %d", cufort_last_info());
    CHECK_FAILS_MSG(cufort_dgemm_host('N', 'N', 2, 2, 2, 1.0, NULL, 2, b, 2, 0.0, c, 2),
                    CUFORT_INVALID_VALUE, "host array", "A NULL: a clear error");
    CHECK_OK(cufort_dgemm_host('N', 'N', 0, 2, 2, 1.0, NULL, 1, NULL, 2, 0.0, NULL, 1),
             "m = 0: nothing to do, nothing read");
}

static int thread_body(int id, char *err, size_t errlen)
{
    int fails = 0;
    ck_seed(1000 + id);
    for (int r = 0; r < 3; r++) {
        case_t c = make("sdcz"[(id + r) % 4], "NT"[id % 2], "TN"[r % 2], 61 + id, 47 + 3 * r, 39 + id,
                        0.75, 1.5, id % 3);
        if (run_case(&c, err, errlen))
            fails++;
    }
    return fails;
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    /* the engine's pageable paths: the pin cache would take tiles used again off them */
    setenv("CUFORT_PIN_CACHE_MB", "0", 0);
    ck_begin("test_gemm_engine", 900);
    ck_seed(42);
    CHECK_OK(cufort_init(), "init");
    unsetenv("CUFORT_GEMM_TILE");
    unsetenv("CUFORT_DEVICE_MEMORY_CAP");
    sweep("one tile");
    setenv("CUFORT_GEMM_TILE", "16", 1);
    sweep("tile 16");
    setenv("CUFORT_DEVICE_MEMORY_CAP", "20K", 1);
    sweep("out of core 20K");
    unsetenv("CUFORT_DEVICE_MEMORY_CAP");
    setenv("CUFORT_GEMM_TILE", "24", 1);
    for (const char *p = "sdcz"; *p; p++) {
        case_t c = make(*p, 'T', 'N', 73, 58, 41, 2.0, 0.5, 3);
        c.pinned = 1;
        check_case(&c, "tile 24");
        setenv("CUFORT_GEMM_HOST_BETA", "1", 1);   /* pinned C, beta C added on the host */
        check_case(&c, "tile 24, pinned C kept on the host");
        unsetenv("CUFORT_GEMM_HOST_BETA");
    }
    /* pageable blocks above the staging threshold (1 MiB): packed by host threads in chunks */
    setenv("CUFORT_GEMM_TILE", "256", 1);
    case_t big = make('s', 'N', 'T', 700, 650, 600, 1.0, 1.0, 5);
    check_case(&big, "tile 256 staged");
    big.prec = 'z';
    check_case(&big, "tile 256 staged");
    setenv("CUFORT_GEMM_TILE", "512", 1);   /* m = 700 <= 2 x 512: four tall tiles of 700 x 187 */
    big.prec = 'd';
    check_case(&big, "tile 512 staged, tall");
    /* eight threads at once, tiled, then out of core */
    setenv("CUFORT_GEMM_TILE", "20", 1);
    ck_threads(8, thread_body, "tiled gemm from 8 threads");
    setenv("CUFORT_DEVICE_MEMORY_CAP", "32K", 1);
    ck_threads(8, thread_body, "out-of-core gemm from 8 threads");
    unsetenv("CUFORT_DEVICE_MEMORY_CAP");
    unsetenv("CUFORT_GEMM_TILE");
    plan_checks();
    errors();
    spread_checks();
    CHECK_OK(cufort_shutdown(), "shutdown");
    return ck_end();
}
