/* testlib.c — RNG, fills, staging, comparison and reporting for the generated BLAS tests.
 * See testlib.h for the protocol. */
#include "testlib.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_passed, n_failed;
static const tl_ctx *current;                     /* the case running, for the crash report */

/* ---- xerbla: the test's own wins over the library's weak one ------------------------------ */
static struct {
    int called, info;
    char name[32];
    size_t len;
} xerbla_seen;

void xerbla_(const char *name, const int *info, size_t len)
{
    size_t n = len < sizeof xerbla_seen.name - 1 ? len : sizeof xerbla_seen.name - 1;
    xerbla_seen.called++;
    xerbla_seen.info = info ? *info : -1;
    xerbla_seen.len = len;
    memcpy(xerbla_seen.name, name ? name : "", name ? n : 0);
    xerbla_seen.name[name ? n : 0] = 0;
}

#if TL_F77
int cublas_init_(void);
int cublas_get_error_(void);
#endif

/* ---- failures ------------------------------------------------------------------------------- */
static void failf(tl_ctx *X, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failf(tl_ctx *X, const char *fmt, ...)
{
    if (X->fail[0])
        return;                                   /* the first reason is the useful one */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(X->fail, sizeof X->fail, fmt, ap);
    va_end(ap);
}

/* ---- random numbers: splitmix64, seeded from the variant and case names ---------------------- */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(tl_ctx *X)
{
    return (double)(next_u64(&X->rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* Never zero: uniform in +-[0.1, 1]. */
static double nonzero(tl_ctx *X)
{
    double v = 0.1 + 0.9 * uniform(X);
    return next_u64(&X->rng) & 1 ? -v : v;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001B3ull;
    return h;
}

/* ---- typed element access ------------------------------------------------------------------ */
static size_t type_size(int t)
{
    static const size_t sz[] = {sizeof(float), sizeof(double), 2 * sizeof(float), 2 * sizeof(double)};
    return sz[t];
}

static int is_complex(int t) { return t == TL_C || t == TL_Z; }

/* re + i*im without arithmetic, so NaN parts stay where they are put (CMPLX is not everywhere). */
static double _Complex cmplx(double re, double im)
{
    union { double _Complex z; double part[2]; } u = {.part = {re, im}};
    return u.z;
}

static double _Complex get(int t, const void *p, int64_t i)
{
    switch (t) {
    case TL_S: return ((const float *)p)[i];
    case TL_D: return ((const double *)p)[i];
    case TL_C: return ((const float _Complex *)p)[i];
    default:   return ((const double _Complex *)p)[i];
    }
}

static void put(int t, void *p, int64_t i, double _Complex v)
{
    switch (t) {
    case TL_S: ((float *)p)[i] = (float)creal(v); break;
    case TL_D: ((double *)p)[i] = creal(v); break;
    case TL_C: ((float _Complex *)p)[i] = (float _Complex)v; break;
    default:   ((double _Complex *)p)[i] = v; break;
    }
}

/* ---- extents ----------------------------------------------------------------------------- */
int64_t tl_extent_mat(int64_t rows, int64_t cols, int64_t ld)
{
    return rows <= 0 || cols <= 0 ? 0 : (cols - 1) * ld + rows;
}

int64_t tl_extent_vec(int64_t n, int64_t inc)
{
    return n <= 0 ? 0 : 1 + (n - 1) * llabs(inc);
}

int64_t tl_extent_pack(int64_t count) { return count > 0 ? count : 0; }

int64_t tl_extent_bmat(int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t batch)
{
    int64_t one = tl_extent_mat(rows, cols, ld);
    return batch <= 0 || one == 0 ? 0 : (batch - 1) * stride + one;
}

/* ---- a case ------------------------------------------------------------------------------ */
void tl_begin(tl_ctx *X, const char *variant, int prec, const tl_case *tc, int result)
{
    memset(X, 0, sizeof *X);
    current = X;
    X->tc = tc;
    X->variant = variant;
    X->prec = prec;
    X->result = result;
    X->rng = fnv1a(fnv1a(0xCBF29CE484222325ull, variant), tc->name) + (uint64_t)tc->rep;
    X->status = -12345;
    memset(&xerbla_seen, 0, sizeof xerbla_seen);
}

char tl_opt(const tl_case *tc, int pos, char dflt)
{
    return pos < TL_MAXARGS && tc->opt[pos] ? tc->opt[pos] : dflt;
}

int64_t tl_int(const tl_case *tc, int pos, int64_t dflt)
{
    for (int i = 0; i < 4 && tc->set[i].pos; i++)
        if (tc->set[i].pos == pos)
            return tc->set[i].val;
    return dflt;
}

double _Complex tl_scalar(tl_ctx *X, const char *name, int cplx)
{
    if ((X->tc->scal == TL_BETA0 && !strcmp(name, "beta")) ||
        (X->tc->scal == TL_ALPHA0 && !strcmp(name, "alpha")))
        return 0;
    double re = nonzero(X);
    return cplx ? re + I * nonzero(X) : re;
}

/* Host buffers the library sees are only as aligned as their element type demands (8 mod 16 for
 * complex double, 4 mod 16 for float), as a user's COMPLEX*16 or double _Complex may be: a library
 * that reads them as 16-byte aligned cuDoubleComplex must fail here, not in users' programs. */
static void *min_aligned(void **raw, size_t bytes, int type)
{
    *raw = calloc(bytes + 32, 1);
    if (!*raw)
        return NULL;
    uintptr_t p = ((uintptr_t)*raw + 15) & ~(uintptr_t)15;
    return (void *)(p + (type == TL_S || type == TL_C ? 4 : 8));
}

tl_array *tl_arr(tl_ctx *X, const char *name, int type, int rtype, int io, int64_t extent,
                 int64_t lead)
{
    tl_array *a = &X->arr[X->narr++];
    memset(a, 0, sizeof *a);
    a->name = name;
    a->type = type;
    a->rtype = rtype;
    a->io = io & TL_INOUT;
    a->flags = io & ~TL_INOUT;
    a->extent = extent;
    a->es = type_size(type);
    a->res = type_size(rtype);
    int64_t tail = 0;
    if (X->tc->sub && !(a->flags & TL_HOSTREF)) {
        lead = lead < 0 ? -lead : lead;           /* as a user's sub-matrix: A(2, 3) of a bigger one */
        a->off = 1 + 2 * (lead ? lead : 1);
        tail = 5;
    }
    a->total = a->off + extent + tail;
    if (a->total < 1)
        a->total = 1;
    a->host = min_aligned(&a->raw, (size_t)a->total * a->es, a->type);
    a->orig = calloc((size_t)a->total, a->es);
    a->ref = calloc((size_t)a->total, a->res);
    a->ignore = calloc((size_t)a->total, 1);
    if (!a->host || !a->orig || !a->ref || !a->ignore) {
        fprintf(stderr, "out of host memory\n");
        exit(2);
    }
    return a;
}

void tl_fill(tl_ctx *X)
{
    for (int k = 0; k < X->narr; k++) {
        tl_array *a = &X->arr[k];
        int poison = a->io == TL_OUT || ((a->flags & TL_SCALED) && X->tc->scal == TL_BETA0);
        for (int64_t i = 0; i < a->total; i++) {
            double re = poison ? NAN : nonzero(X);
            double im = poison ? NAN : is_complex(a->type) ? nonzero(X) : 0;
            put(a->type, a->host, i, is_complex(a->type) ? cmplx(re, im) : re);
        }
    }
}

void tl_set_elem(tl_array *a, int64_t i, double _Complex v) { put(a->type, a->host, a->off + i, v); }

void tl_positive(tl_array *a)
{
    for (int64_t i = 0; i < a->total; i++) {
        double _Complex v = get(a->type, a->host, i);
        put(a->type, a->host, i, cmplx(fabs(creal(v)), fabs(cimag(v))));
    }
}

/* ---- well-conditioned triangles ------------------------------------------------------------ */
static void dominate(tl_array *a, int64_t idx, int diag, int64_t n, double sign)
{
    double _Complex v = get(a->type, a->host, a->off + idx);
    if (diag) /* |diag| in [1, 2], sign kept */
        v = sign * (1.0 + fabs(creal(v))) + (is_complex(a->type) ? I * cimag(v) * 0.5 : 0);
    else
        v /= (double)(n > 1 ? n : 1);
    put(a->type, a->host, a->off + idx, v);
}

void tl_dominant_full(tl_array *a, int64_t n, int64_t ld)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            dominate(a, i + j * ld, i == j, n, (i + j) % 2 ? -1.0 : 1.0);
}

void tl_dominant_band(tl_array *a, int64_t n, int64_t k, int64_t ld, char uplo)
{
    int64_t drow = toupper((unsigned char)uplo) == 'U' ? k : 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i <= k; i++)
            dominate(a, i + j * ld, i == drow, n, j % 2 ? -1.0 : 1.0);
}

void tl_dominant_packed(tl_array *a, int64_t n, char uplo)
{
    int upper = toupper((unsigned char)uplo) == 'U';
    int64_t p = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t lo = upper ? 0 : j, hi = upper ? j : n - 1;
        for (int64_t i = lo; i <= hi; i++, p++)
            dominate(a, p, i == j, n, j % 2 ? -1.0 : 1.0);
    }
}

void tl_herkx_inputs(tl_array *A, tl_array *B, int64_t rows, int64_t cols, int64_t lda,
                     int64_t ldb, char trans)
{
    int per_col = NOTR(trans);
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            double d = 0.5 + 0.25 * (double)((per_col ? j : i) % 4);
            put(B->type, B->host, B->off + i + j * ldb, d * get(A->type, A->host, A->off + i + j * lda));
        }
}

/* drotmg's flag says which of H11, H21, H12, H22 (param[1..4]) it defines. */
void tl_rotmg_ignore(tl_array *param)
{
    double flag = creal(get(param->rtype, param->ref, param->off));
    static const int used[4][4] = {{1, 1, 1, 1}, {0, 1, 1, 0}, {1, 0, 0, 1}, {0, 0, 0, 0}};
    int row = flag == -1 ? 0 : flag == 0 ? 1 : flag == 1 ? 2 : 3;
    for (int i = 0; i < 4; i++)
        if (!used[row][i])
            param->ignore[param->off + 1 + i] = 1;
}

/* ---- staging ----------------------------------------------------------------------------- */
static int on_device(const tl_array *a) { return TL_DEVICE_MEM && !(a->flags & TL_HOSTREF); }

void tl_stage(tl_ctx *X)
{
    X->ready = 1;
    for (int k = 0; k < X->narr; k++) {
        tl_array *a = &X->arr[k];
        memcpy(a->orig, a->host, (size_t)a->total * a->es);
        for (int64_t i = 0; i < a->total; i++)
            put(a->rtype, a->ref, i, get(a->type, a->host, i));
        if (!on_device(a))
            continue;
        int st = cufort_alloc(&a->dev, a->total * (int64_t)a->es);
        if (st == CUFORT_SUCCESS)
            st = cufort_set_vector(a->total, (int64_t)a->es, a->host, 1, a->dev, 1);
        if (st != CUFORT_SUCCESS) {
            failf(X, "setup: cufort_alloc/set_vector of %s (%lld elements) returned %d: %s", a->name,
                  (long long)a->total, st, cufort_last_error());
            X->ready = 0;
        }
    }
    if (X->tc->badptr && X->narr > 0 && on_device(&X->arr[0])) {
        tl_array *a = &X->arr[0];
        if (X->tc->badptr == TL_BADPTR_HOST) {
            a->badbuf = malloc((size_t)a->total * a->es);
            memcpy(a->badbuf, a->host, (size_t)a->total * a->es);
        } else {
            a->shift = 1;                         /* its last element lies past the allocation */
        }
    }
}

void *tl_ptr(tl_array *a)
{
    if (!on_device(a))
        return (char *)a->host + a->off * a->es;
    if (a->badbuf)
        return (char *)a->badbuf + a->off * a->es;
    return (char *)a->dev + (a->off + a->shift) * a->es;
}

void *tl_ref(tl_array *a) { return (char *)a->ref + a->off * a->res; }

void tl_bad_check(tl_ctx *X, int still_legal)
{
    if (still_legal) {
        failf(X, "test bug: the illegal value of argument %d passes the routine's check", X->tc->bad);
        X->ready = 0;
    }
}

/* ---- the call's outcome ---------------------------------------------------------------------- */
void tl_capi_end(tl_ctx *X, int status)
{
    X->status = status;
    X->info = status == CUFORT_INVALID_VALUE ? cufort_last_info() : 0;
}

void tl_f77_begin(tl_ctx *X)
{
    (void)X;
#if TL_F77
    (void)cublas_get_error_();                    /* clears the legacy error state */
#endif
}

void tl_f77_end(tl_ctx *X)
{
#if TL_F77
    int err = cublas_get_error_();
    if (xerbla_seen.called) {
        X->status = CUFORT_INVALID_VALUE;
        X->info = xerbla_seen.info;
        X->xcalled = xerbla_seen.called;
        snprintf(X->xname, sizeof X->xname, "%s", xerbla_seen.name);
        char want[32];
        size_t n = strlen(X->variant);
        snprintf(want, sizeof want, "%-6s", X->variant);
        for (size_t i = 0; i < n; i++)
            want[i] = (char)toupper((unsigned char)want[i]);
        if (strcmp(want, xerbla_seen.name) != 0)
            failf(X, "xerbla got name '%s' (length %zu), expected '%s'", xerbla_seen.name,
                  xerbla_seen.len, want);
        if (xerbla_seen.called > 1)
            failf(X, "xerbla called %d times", xerbla_seen.called);
    } else {
        X->status = err;
        X->info = 0;
    }
#else
    (void)X;
#endif
}

void tl_result(tl_ctx *X, double _Complex v) { X->res = v; }
void tl_iresult(tl_ctx *X, int64_t v) { X->ires = v; }
void tl_rresult(tl_ctx *X, double _Complex v) { X->rres = v; X->have_rres = 1; }
void tl_riresult(tl_ctx *X, int64_t v) { X->rires = v; X->have_rres = 1; }

int tl_expect_call(const tl_ctx *X) { return X->ready && !X->tc->bad && !X->tc->badptr; }

/* ---- comparison -------------------------------------------------------------------------- */
static double tolerance(int prec) { return prec == TL_S || prec == TL_C ? 1e-4 : 1e-11; }

static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static int csame(double _Complex a, double _Complex b)
{
    return same(creal(a), creal(b)) && same(cimag(a), cimag(b));
}

static void fmt_val(char *buf, size_t n, int t, double _Complex v)
{
    if (is_complex(t))
        snprintf(buf, n, "(%.9g,%.9g)", creal(v), cimag(v));
    else
        snprintf(buf, n, "%.9g", creal(v));
}

static void check_unchanged(tl_ctx *X, tl_array *a, const char *why)
{
    for (int64_t i = 0; i < a->total; i++) {
        if (memcmp((char *)a->host + i * a->es, (char *)a->orig + i * a->es, a->es) == 0)
            continue;
        char got[64], was[64];
        fmt_val(got, sizeof got, a->type, get(a->type, a->host, i));
        fmt_val(was, sizeof was, a->type, get(a->type, a->orig, i));
        failf(X, "%s[%lld] changed %s: %s, was %s", a->name, (long long)(i - a->off), why, got, was);
        return;
    }
}

static void compare_array(tl_ctx *X, tl_array *a)
{
    double maxerr = 0, maxref = 0;
    int64_t worst = -1;
    for (int64_t i = 0; i < a->total; i++) {
        if (a->ignore[i])
            continue;
        double _Complex r = get(a->rtype, a->ref, i), r0 = get(a->type, a->orig, i);
        if (csame(r, r0)) {                        /* BLAS leaves this element alone */
            if (memcmp((char *)a->host + i * a->es, (char *)a->orig + i * a->es, a->es) != 0) {
                char got[64], was[64];
                fmt_val(got, sizeof got, a->type, get(a->type, a->host, i));
                fmt_val(was, sizeof was, a->type, r0);
                failf(X, "%s[%lld] = %s, must be unchanged (was %s)", a->name,
                      (long long)(i - a->off), got, was);
                return;
            }
            continue;
        }
        double err = cabs(get(a->type, a->host, i) - r);
        if (isnan(err))
            err = INFINITY;
        if (worst < 0 || err > maxerr) {
            maxerr = err;
            worst = i;
        }
        if (cabs(r) > maxref)
            maxref = cabs(r);
    }
    double rel = maxerr / (maxref > 1 ? maxref : 1);
    if (worst >= 0 && !(rel <= tolerance(X->prec))) {
        char got[64], want[64];
        fmt_val(got, sizeof got, a->type, get(a->type, a->host, worst));
        fmt_val(want, sizeof want, a->rtype, get(a->rtype, a->ref, worst));
        failf(X, "%s[%lld] = %s, expected %s (relative error %.3g > %.3g)", a->name,
              (long long)(worst - a->off), got, want, rel, tolerance(X->prec));
    }
}

static void compare_result(tl_ctx *X)
{
    if (!X->result)
        return;
    if (!X->have_rres) {
        failf(X, "test bug: no oracle result");
        return;
    }
    if (X->result == 'I') {
        if (X->ires != X->rires)
            failf(X, "result %lld, expected %lld (0-based)", (long long)X->ires, (long long)X->rires);
        return;
    }
    double err = cabs(X->res - X->rres), mag = cabs(X->rres);
    double rel = err / (mag > 1 ? mag : 1);
    if (!(rel <= tolerance(X->prec)))
        failf(X, "result (%.9g,%.9g), expected (%.9g,%.9g) (relative error %.3g)", creal(X->res),
              cimag(X->res), creal(X->rres), cimag(X->rres), rel);
}

static void check_status(tl_ctx *X)
{
    const tl_case *tc = X->tc;
    int want = tc->bad ? CUFORT_INVALID_VALUE : tc->badptr ? CUFORT_BAD_POINTER : CUFORT_SUCCESS;
    if (X->status != want) {
        if (TL_F77 && want == CUFORT_INVALID_VALUE)
            failf(X, "xerbla not called (cublas_get_error %d), expected info %d", X->status, tc->bad);
        else
            failf(X, "status %d (%s), expected %d (%s); last error: %s", X->status,
                  cufort_status_string(X->status), want, cufort_status_string(want),
                  cufort_last_error());
        return;
    }
    if (tc->bad && X->info != tc->bad)
        failf(X, "%s reported argument %d, expected %d", TL_F77 ? "xerbla" : "cufort_last_info",
              X->info, tc->bad);
    if (!TL_F77 && xerbla_seen.called)
        failf(X, "xerbla called ('%s', %d) by a C ABI entry point", xerbla_seen.name, xerbla_seen.info);
}

static void release(tl_ctx *X)
{
    for (int k = 0; k < X->narr; k++) {
        tl_array *a = &X->arr[k];
        if (a->dev)
            cufort_free(a->dev);
        free(a->raw);
        free(a->orig);
        free(a->ref);
        free(a->ignore);
        free(a->badbuf);
    }
    X->narr = 0;
}

void tl_finish(tl_ctx *X)
{
    for (int k = 0; k < X->narr && X->ready; k++) {
        tl_array *a = &X->arr[k];
        if (!a->dev)
            continue;
        int st = cufort_get_vector(a->total, (int64_t)a->es, a->dev, 1, a->host, 1);
        if (st != CUFORT_SUCCESS)
            failf(X, "cufort_get_vector of %s returned %d: %s", a->name, st, cufort_last_error());
    }
    if (X->ready)
        check_status(X);
    for (int k = 0; k < X->narr && X->ready; k++) {
        tl_array *a = &X->arr[k];
        if (tl_expect_call(X) && X->status == CUFORT_SUCCESS)
            compare_array(X, a);
        else
            check_unchanged(X, a, "by a call that must fail");
        if (a->badbuf && memcmp(a->badbuf, a->orig, (size_t)a->total * a->es) != 0)
            failf(X, "the host array passed as %s was written", a->name);
    }
    if (X->ready && tl_expect_call(X) && X->status == CUFORT_SUCCESS)
        compare_result(X);
    release(X);
    if (X->fail[0]) {
        n_failed++;
        printf("FAIL %s %s %s: %s\n", TL_LAYER, X->variant, X->tc->name, X->fail);
    } else {
        n_passed++;
        printf("ok %s %s %s\n", TL_LAYER, X->variant, X->tc->name);
    }
}

/* ---- run --------------------------------------------------------------------------------- */
/* A crash is one more failure, named after the case that crashed; the summary still comes out. */
static void on_crash(int sig)
{
    const tl_ctx *X = current;
    printf("FAIL %s %s %s: crashed (signal %d)\n", TL_LAYER, X ? X->variant : "-",
           X ? X->tc->name : "-", sig);
    n_failed++;
    tl_summary();
    fflush(stdout);
    _Exit(1);
}

void tl_init(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
    signal(SIGILL, on_crash);
    signal(SIGABRT, on_crash);
#if TL_F77
    int st = cublas_init_();
#else
    int st = cufort_init();
#endif
    printf("# test_blas layer %s, backend %s\n", TL_LAYER, cufort_backend_name());
    if (st != CUFORT_SUCCESS) {
        printf("FAIL %s init - : returned %d (%s): %s\n", TL_LAYER, st, cufort_status_string(st),
               cufort_last_error());
        n_failed++;
    }
}

int tl_selected(const char *variant)
{
    const char *f = getenv("CUFORT_BLAS_FILTER");
    if (!f || !*f)
        return 1;
    size_t n = strlen(variant);
    for (const char *p = f; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, variant, n))
            return 1;
        p += len + (e ? 1 : 0);
    }
    return 0;
}

void tl_outcome(const char *variant, const char *what, const char *fail)
{
    if (fail) {
        n_failed++;
        printf("FAIL %s %s %s: %s\n", TL_LAYER, variant, what, fail);
    } else {
        n_passed++;
        printf("ok %s %s %s\n", TL_LAYER, variant, what);
    }
}

int tl_summary(void)
{
    /* shutdown returns every device allocation (cuBLAS's workspace too), so compute-sanitizer's
     * leak check sees a clean exit */
    int st = cufort_shutdown();
    if (st) {
        printf("FAIL shutdown: status %d: %s\n", st, cufort_last_error());
        n_failed++;
    }
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
