/* test_host_guard.c — the host backend with CUFORT_HOST_GUARD_PAGES: its "device" blocks lie flush
 * against an inaccessible page, before them or after them, and a read past that edge faults; and
 * the routines whose vectors some OpenBLAS builds read past (complex dotu, dotc, gemv, hemv, and
 * trmv, trsv past 64 rows) run with every vector at such an edge, with positive and negative
 * increments, and compute what a plain loop does.  Each side runs in a child process of its own
 * (the variable is read once). */
#include "check.h"

#include <complex.h>

typedef double complex zc;

/* small integers, so that every sum below is exact in single precision too */
static zc draw(void) { return (double)(int)(ck_rand64() % 9) - 4 + I * ((double)(int)(ck_rand64() % 9) - 4); }

static int64_t ext(int64_t n, int64_t inc) { return n <= 0 ? 0 : 1 + (n - 1) * (inc < 0 ? -inc : inc); }
/* element i of a BLAS vector (a negative increment walks back from the far end) */
static int64_t at(int64_t n, int64_t inc, int64_t i) { return (inc < 0 ? (1 - n) * inc : 0) + i * inc; }

/* a block of exactly `count` elements of precision p ('c' or 'z') holding v[] */
static void *block_of(char p, const zc *v, int64_t count)
{
    size_t es = p == 'c' ? 8 : 16;
    void *d = NULL, *h = malloc((size_t)count * es);
    for (int64_t i = 0; i < count; i++) {
        if (p == 'c')
            ((float complex *)h)[i] = (float complex)v[i];
        else
            ((zc *)h)[i] = v[i];
    }
    if (cufort_alloc(&d, count * (int64_t)es) || cufort_set_vector(count, (int64_t)es, h, 1, d, 1)) {
        cufort_free(d);
        d = NULL;
    }
    free(h);
    return d;
}

static zc read_back(char p, const void *d, int64_t i)
{
    if (p == 'c') {
        float complex v;
        cufort_get_vector(1, 8, (const char *)d + i * 8, 1, &v, 1);
        return v;
    }
    zc v;
    cufort_get_vector(1, 16, (const char *)d + i * 16, 1, &v, 1);
    return v;
}

static void dots(char p, int64_t n, int64_t incx, int64_t incy)
{
    int64_t ex = ext(n, incx), ey = ext(n, incy);
    zc *x = malloc((size_t)ex * sizeof *x), *y = malloc((size_t)ey * sizeof *y);
    for (int64_t i = 0; i < ex; i++) x[i] = draw();
    for (int64_t i = 0; i < ey; i++) y[i] = draw();
    zc wu = 0, wc = 0;
    for (int64_t i = 0; i < n; i++) {
        wu += x[at(n, incx, i)] * y[at(n, incy, i)];
        wc += conj(x[at(n, incx, i)]) * y[at(n, incy, i)];
    }
    void *dx = block_of(p, x, ex), *dy = block_of(p, y, ey);
    zc gu = -99, gc = -99;
    int st;
    if (p == 'c') {
        float complex u = -99, c = -99;
        st = !dx || !dy || cufort_cdotu(n, dx, incx, dy, incy, &u) || cufort_cdotc(n, dx, incx, dy, incy, &c);
        gu = u, gc = c;
    } else {
        st = !dx || !dy || cufort_zdotu(n, dx, incx, dy, incy, &gu) || cufort_zdotc(n, dx, incx, dy, incy, &gc);
    }
    CHECK(!st && gu == wu && gc == wc,
          ckf("%cdotu, %cdotc n=%lld incx=%lld incy=%lld at the blocks' edges", p, p, (long long)n,
              (long long)incx, (long long)incy),
          "status %d, dotu %g%+gi (want %g%+gi), dotc %g%+gi (want %g%+gi): %s", st, creal(gu), cimag(gu),
          creal(wu), cimag(wu), creal(gc), cimag(gc), creal(wc), cimag(wc), ck_err());
    cufort_free(dx);
    cufort_free(dy);
    free(x);
    free(y);
}

/* gemv (trans N, T or C) or, with uplo set, hemv (m = n) */
static void matvec(char p, char uplo, char trans, int64_t m, int64_t n, int64_t incx, int64_t incy)
{
    int herm = uplo != 0, nt = !herm && trans == 'N';
    int64_t lda = m, lx = nt || herm ? n : m, ly = nt || herm ? m : n;
    int64_t ex = ext(lx, incx), ey = ext(ly, incy);
    zc *A = malloc((size_t)(lda * n) * sizeof *A), *x = malloc((size_t)ex * sizeof *x),
       *y = malloc((size_t)ey * sizeof *y), *want = malloc((size_t)ey * sizeof *want);
    for (int64_t i = 0; i < lda * n; i++) A[i] = draw();
    for (int64_t i = 0; i < ex; i++) x[i] = draw();
    for (int64_t i = 0; i < ey; i++) want[i] = y[i] = draw();
    zc alpha = 2 - I, beta = -1 + 2 * I;
    for (int64_t i = 0; i < ly; i++) {
        zc s = 0;
        for (int64_t k = 0; k < lx; k++) {
            zc a;
            if (herm) {   /* the stored triangle, the other one its conjugate, a real diagonal */
                int stored = uplo == 'U' ? i <= k : i >= k;
                a = i == k ? creal(A[i + k * lda]) : stored ? A[i + k * lda] : conj(A[k + i * lda]);
            } else {
                a = nt ? A[i + k * lda] : trans == 'T' ? A[k + i * lda] : conj(A[k + i * lda]);
            }
            s += a * x[at(lx, incx, k)];
        }
        want[at(ly, incy, i)] = alpha * s + beta * y[at(ly, incy, i)];
    }
    void *dA = block_of(p, A, lda * n), *dx = block_of(p, x, ex), *dy = block_of(p, y, ey);
    int st = !dA || !dx || !dy;
    if (!st && p == 'c')
        st = herm ? cufort_chemv(uplo, n, (float complex)alpha, dA, lda, dx, incx, (float complex)beta, dy, incy)
                  : cufort_cgemv(trans, m, n, (float complex)alpha, dA, lda, dx, incx, (float complex)beta, dy,
                                 incy);
    else if (!st)
        st = herm ? cufort_zhemv(uplo, n, alpha, dA, lda, dx, incx, beta, dy, incy)
                  : cufort_zgemv(trans, m, n, alpha, dA, lda, dx, incx, beta, dy, incy);
    int64_t bad = -1;
    for (int64_t i = 0; !st && i < ey && bad < 0; i++)
        if (read_back(p, dy, i) != want[i]) bad = i;
    CHECK(!st && bad < 0,
          ckf("%c%s %c m=%lld n=%lld incx=%lld incy=%lld at the blocks' edges", p, herm ? "hemv" : "gemv",
              herm ? uplo : trans, (long long)m, (long long)n, (long long)incx, (long long)incy),
          "status %d, y[%lld] wrong: %s", st, (long long)bad, ck_err());
    cufort_free(dA);
    cufort_free(dx);
    cufort_free(dy);
    free(A);
    free(x);
    free(y);
    free(want);
}

/* trmv (exact: entries off the unit diagonal are 0 or +-1/128) and trsv (op(A) times the solution
 * gives x back), A upper or lower, x at its block's edge */
static void triangular(char p, char uplo, char trans, int64_t n, int64_t incx)
{
    int64_t ex = ext(n, incx);
    zc *A = malloc((size_t)(n * n) * sizeof *A), *x = malloc((size_t)ex * sizeof *x),
       *want = malloc((size_t)ex * sizeof *want);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int r = (int)(ck_rand64() % 16);
            A[i + j * n] = i == j ? 7 : r < 2 ? (r ? 1.0 : -1.0) / 128 : r < 4 ? I * (r == 2 ? 1 : -1) / 128 : 0;
        }
    for (int64_t i = 0; i < ex; i++) x[i] = draw();
    /* op(A) v for the vector v (element i at at(n, incx, i)), the unit diagonal taken as 1 */
#define OPA(i, k) ((i) == (k) ? 1 : (uplo == 'U' ? (trans == 'N' ? (i) < (k) : (k) < (i)) : (trans == 'N' ? (i) > (k) : (k) > (i))) \
                   ? (trans == 'N' ? A[(i) + (k) * n] : trans == 'T' ? A[(k) + (i) * n] : conj(A[(k) + (i) * n])) : 0)
    memcpy(want, x, (size_t)ex * sizeof *x);
    for (int64_t i = 0; i < n; i++) {
        zc s = 0;
        for (int64_t k = 0; k < n; k++) s += OPA(i, k) * x[at(n, incx, k)];
        want[at(n, incx, i)] = s;
    }
    void *dA = block_of(p, A, n * n), *dx = block_of(p, x, ex);
    int st = !dA || !dx;
    if (!st)
        st = p == 'c' ? cufort_ctrmv(uplo, trans, 'U', n, dA, n, dx, incx) : cufort_ztrmv(uplo, trans, 'U', n, dA, n, dx, incx);
    int64_t bad = -1;
    for (int64_t i = 0; !st && i < ex && bad < 0; i++)
        if (read_back(p, dx, i) != want[i]) bad = i;
    CHECK(!st && bad < 0, ckf("%ctrmv %c %c n=%lld incx=%lld, x at its block's edge", p, uplo, trans, (long long)n, (long long)incx),
          "status %d, x[%lld] wrong: %s", st, (long long)bad, ck_err());
    /* solve op(A) y = want: y must be x again */
    cufort_free(dx);
    dx = block_of(p, want, ex);
    st = !dA || !dx;
    if (!st)
        st = p == 'c' ? cufort_ctrsv(uplo, trans, 'U', n, dA, n, dx, incx) : cufort_ztrsv(uplo, trans, 'U', n, dA, n, dx, incx);
    double worst = 0, tol = p == 'c' ? 1e-4 : 1e-12;
    for (int64_t i = 0; !st && i < ex; i++) {
        double e = cabs(read_back(p, dx, i) - x[i]) / (1 + cabs(x[i]));
        worst = e > worst ? e : worst;
    }
    CHECK(!st && worst <= tol, ckf("%ctrsv %c %c n=%lld incx=%lld, x at its block's edge", p, uplo, trans, (long long)n, (long long)incx),
          "status %d, largest relative error %.3g: %s", st, worst, ck_err());
#undef OPA
    cufort_free(dA);
    cufort_free(dx);
    free(A);
    free(x);
    free(want);
}

static int edges(void)
{
    ck_child_main("test_host_guard");
    alarm(120);   /* a hang ends the child, and the parent reports it */
    if (!CHECK_OK(cufort_init(), "init") ||
        !CHECK(!strcmp(cufort_backend_name(), "host"), "on the host backend", "backend %s", cufort_backend_name()))
        return ck_end();
    static const int64_t ns[] = {1, 2, 3, 5, 6, 7, 8, 9, 14, 17, 33};
    static const int64_t incs[] = {1, 2, 3, -1, -2, -5};
    for (int pi = 0; pi < 2; pi++) {
        char p = "cz"[pi];
        for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
            for (size_t b = 0; b < sizeof incs / sizeof *incs; b++)
                for (size_t c = 0; c < sizeof incs / sizeof *incs; c += 2) {
                    dots(p, ns[a], incs[b], incs[c]);
                    matvec(p, 'U', 0, ns[a], ns[a], incs[b], incs[c]);
                    matvec(p, 'L', 0, ns[a], ns[a], incs[b], incs[c]);
                    for (int t = 0; t < 3; t++)
                        matvec(p, 0, "NTC"[t], ns[a], ns[(a + 3) % (sizeof ns / sizeof *ns)], incs[b], incs[c]);
                }
        for (int64_t n = 63; n <= 131; n += 34)   /* OpenBLAS blocks trmv and trsv by 64 rows */
            for (size_t b = 0; b < sizeof incs / sizeof *incs; b++)
                for (int t = 0; t < 6; t++)
                    triangular(p, "UL"[t % 2], "NTC"[t / 2], n, incs[b]);
    }
    cufort_shutdown();
    return ck_end();
}

/* A guarded block's edge faults: the child reads one element past it (or before it). */
static void edge_faults(const char *side)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("CUFORT_HOST_GUARD_PAGES", side, 1);
        signal(SIGSEGV, SIG_DFL);
        void *d = NULL;
        if (cufort_init_backend(CUFORT_BACKEND_HOST) || cufort_alloc(&d, 100))
            _exit(3);
        volatile const char *c = d;
        (void)(!strcmp(side, "after") ? c[112] : c[-1]);   /* 100 bytes end at 112: 16-byte steps */
        _exit(0);
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGSEGV,
          ckf("a read just %s a guarded block faults", !strcmp(side, "after") ? "past" : "before"),
          "the child %s %d", WIFSIGNALED(ws) ? "died of signal" : "exited", WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child"))
        return edges();
    ck_begin("test_host_guard", 300);
    edge_faults("after");
    edge_faults("before");
    ck_child("edges", "vectors flush against the page after them", "CUFORT_BACKEND=host",
             "CUFORT_HOST_GUARD_PAGES=after", NULL);
    ck_child("edges", "vectors flush against the page before them", "CUFORT_BACKEND=host",
             "CUFORT_HOST_GUARD_PAGES=before", NULL);
    return ck_end();
}
