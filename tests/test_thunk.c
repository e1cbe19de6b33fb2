/* test_thunk.c — the thunk engine (internal API, thunk.h): staging layouts, directions, failure
 * and empty arrays; and host-array calls end to end (auto-init, negative increments, threads). */
#include "check.h"

#include <pthread.h>

#include "gate.h"
#include "scratch.h"
#include "thunk.h"

/* ---- a matrix with ld > rows travels packed and comes back into place ---- */
static void matrix_inout(int64_t rows, int64_t cols, int64_t ld, size_t es)
{
    const char *what = ckf("matrix %lldx%lld ld=%lld es=%zu inout", (long long)rows, (long long)cols,
                           (long long)ld, es);
    size_t hbytes = (size_t)(ld * cols) * es, pbytes = (size_t)(rows * cols) * es;
    unsigned char *a = malloc(hbytes), *a0 = malloc(hbytes), *packed = malloc(pbytes),
                  *fresh = malloc(pbytes);
    ck_fill_bytes(a, hbytes);
    memcpy(a0, a, hbytes);
    ck_fill_bytes(fresh, pbytes);
    cufort_thunk t;
    CHECK_OK(cufort_thunk_begin(&t, "test_thunk"), ckf("%s begin", what));
    int i = cufort_thunk_matrix(&t, a, rows, cols, ld, es, CUFORT_INOUT);
    CHECK_OK(cufort_thunk_stage_in(&t), ckf("%s stage_in", what));
    void *d = cufort_thunk_ptr(&t, i);
    CHECK(d != NULL, ckf("%s device pointer", what), "NULL");
    CHECK(cufort_thunk_ld(&t, i) == rows, ckf("%s device ld == rows (packed)", what), "ld %lld",
          (long long)cufort_thunk_ld(&t, i));
    CHECK(((uintptr_t)d & 15) == 0, ckf("%s device pointer aligned", what), "%p", d);
    memset(packed, 0, pbytes);
    CHECK_OK(cufort_get_vector(rows * cols, (int64_t)es, d, 1, packed, 1), ckf("%s read device copy", what));
    int64_t bad = -1;
    for (int64_t j = 0; j < cols && bad < 0; j++)
        for (int64_t r = 0; r < rows && bad < 0; r++)
            if (memcmp(packed + (size_t)(r + j * rows) * es, a + (size_t)(r + j * ld) * es, es)) bad = r + j * rows;
    CHECK(bad < 0, ckf("%s device copy packed and exact", what), "packed element %lld differs", (long long)bad);
    /* the "routine" changes the device copy; finish brings it back into the ld layout */
    CHECK_OK(cufort_set_vector(rows * cols, (int64_t)es, fresh, 1, d, 1), ckf("%s write device copy", what));
    CHECK_OK(cufort_thunk_finish(&t, CUFORT_SUCCESS), ckf("%s finish", what));
    bad = -1;
    for (int64_t e = 0; e < ld * cols && bad < 0; e++) {
        int64_t r = e % ld, j = e / ld;
        const unsigned char *want = r < rows ? fresh + (size_t)(r + j * rows) * es : a0 + (size_t)e * es;
        if (memcmp(a + (size_t)e * es, want, es)) bad = e;
    }
    CHECK(bad < 0, ckf("%s copied back, padding untouched", what), "host element %lld (row %lld) wrong",
          (long long)bad, (long long)(bad % ld));
    free(a);
    free(a0);
    free(packed);
    free(fresh);
}

/* logical element k of a BLAS vector of n elements at increment inc (inc < 0: stored backwards) */
static int64_t pos(int64_t k, int64_t n, int64_t inc)
{
    return inc >= 0 ? k * inc : (n - 1 - k) * -inc;
}

static void vectors(void)
{
    const int64_t n = 6;
    double xm[11], x3[16], y[11], y0[11], xm0[11], x30[16];
    ck_fill_d(xm, 11);
    ck_fill_d(x3, 16);
    memcpy(xm0, xm, sizeof xm);
    memcpy(x30, x3, sizeof x3);
    ck_fill_d(y, 11);
    memcpy(y0, y, sizeof y);
    cufort_thunk t;
    CHECK_OK(cufort_thunk_begin(&t, "test_thunk"), "vectors begin");
    int im = cufort_thunk_vector(&t, xm, n, -2, 8, CUFORT_IN);
    int i3 = cufort_thunk_vector(&t, x3, n, 3, 8, CUFORT_IN);
    int iy = cufort_thunk_vector(&t, y, n, -2, 8, CUFORT_INOUT);
    CHECK_OK(cufort_thunk_stage_in(&t), "vectors stage_in");
    int64_t incm = cufort_thunk_inc(&t, im), inc3 = cufort_thunk_inc(&t, i3), incy = cufort_thunk_inc(&t, iy);
    CHECK(incm == 1 || incm == -1, "inc -2 arrives with inc +-1", "device inc %lld", (long long)incm);
    CHECK(inc3 == 1, "inc 3 arrives with inc 1", "device inc %lld", (long long)inc3);
    CHECK(incy == 1 || incy == -1, "inout inc -2 arrives with inc +-1", "device inc %lld", (long long)incy);
    double got[6];
    CHECK_OK(cufort_get_vector(n, 8, cufort_thunk_ptr(&t, im), 1, got, 1), "read inc -2 device copy");
    int ok = 1;
    for (int64_t k = 0; k < n; k++) ok &= got[pos(k, n, incm)] == xm[pos(k, n, -2)];
    CHECK(ok, "inc -2 device copy contiguous, same logical order", "device %g %g ... host %g %g ...",
          got[0], got[1], xm[0], xm[2]);
    CHECK_OK(cufort_get_vector(n, 8, cufort_thunk_ptr(&t, i3), 1, got, 1), "read inc 3 device copy");
    ok = 1;
    for (int64_t k = 0; k < n; k++) ok &= got[k] == x3[3 * k];
    CHECK(ok, "inc 3 device copy contiguous", "device %g %g ... host %g %g ...", got[0], got[1], x3[0], x3[3]);
    /* arrays do not overlap on the device */
    char *pm = cufort_thunk_ptr(&t, im), *p3 = cufort_thunk_ptr(&t, i3), *py = cufort_thunk_ptr(&t, iy);
    CHECK((p3 >= pm + n * 8 || pm >= p3 + n * 8) && (py >= p3 + n * 8 || p3 >= py + n * 8) &&
              (py >= pm + n * 8 || pm >= py + n * 8),
          "staged arrays do not overlap", "%p %p %p", (void *)pm, (void *)p3, (void *)py);
    /* new logical values for y written on the device; finish scatters them back at inc -2 */
    double ny[6];
    ck_fill_d(ny, 6);
    double dev[6];
    for (int64_t k = 0; k < n; k++) dev[pos(k, n, incy)] = ny[k];
    CHECK_OK(cufort_set_vector(n, 8, dev, 1, py, 1), "write inout vector device copy");
    CHECK_OK(cufort_thunk_finish(&t, CUFORT_SUCCESS), "vectors finish");
    ok = 1;
    for (int64_t k = 0; k < n; k++) ok &= y[pos(k, n, -2)] == ny[k];
    for (int e = 1; e < 11; e += 2) ok &= y[e] == y0[e];
    CHECK(ok, "inout inc -2 copied back in logical order, gaps untouched", "y[0] %g (want %g), y[1] %g (was %g)",
          y[0], ny[n - 1], y[1], y0[1]);
    CHECK(!memcmp(xm, xm0, sizeof xm) && !memcmp(x3, x30, sizeof x3), "in-only arrays not written back",
          "changed");
}

static void out_only(void)
{
    const int64_t rows = 6, cols = 3, ld = 8;
    double a[24], a0[24], fresh[18], dev[18];
    ck_fill_d(a, 24);
    memcpy(a0, a, sizeof a);
    ck_fill_d(fresh, 18);
    cufort_thunk t;
    CHECK_OK(cufort_thunk_begin(&t, "test_thunk"), "out-only begin");
    int i = cufort_thunk_matrix(&t, a, rows, cols, ld, 8, CUFORT_OUT);
    CHECK_OK(cufort_thunk_stage_in(&t), "out-only stage_in");
    CHECK_OK(cufort_get_vector(rows * cols, 8, cufort_thunk_ptr(&t, i), 1, dev, 1), "out-only read device");
    int equal = 0;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t r = 0; r < rows; r++) equal += dev[r + j * rows] == a[r + j * ld];
    CHECK(equal == 0, "out-only array not copied in", "%d of 18 device elements equal the host's", equal);
    CHECK_OK(cufort_set_vector(rows * cols, 8, fresh, 1, cufort_thunk_ptr(&t, i), 1), "out-only write device");
    CHECK_OK(cufort_thunk_finish(&t, CUFORT_SUCCESS), "out-only finish");
    int ok = 1;
    for (int64_t e = 0; e < ld * cols; e++) {
        int64_t r = e % ld, j = e / ld;
        ok &= a[e] == (r < rows ? fresh[r + j * rows] : a0[e]);
    }
    CHECK(ok, "out-only array copied out, padding untouched", "host differs");
}

static void failure(void)
{
    double a[20], a0[20], v[9], v0[9], junk[15];
    ck_fill_d(a, 20);
    memcpy(a0, a, sizeof a);
    ck_fill_d(v, 9);
    memcpy(v0, v, sizeof v);
    ck_fill_d(junk, 15);
    cufort_thunk t;
    CHECK_OK(cufort_thunk_begin(&t, "test_thunk"), "failure begin");
    int i = cufort_thunk_matrix(&t, a, 3, 4, 5, 8, CUFORT_INOUT);
    int k = cufort_thunk_vector(&t, v, 3, 4, 8, CUFORT_OUT);
    CHECK_OK(cufort_thunk_stage_in(&t), "failure stage_in");
    cufort_set_vector(12, 8, junk, 1, cufort_thunk_ptr(&t, i), 1);
    cufort_set_vector(3, 8, junk + 12, 1, cufort_thunk_ptr(&t, k), 1);
    CHECK_ST(cufort_thunk_finish(&t, CUFORT_EXECUTION_FAILED), CUFORT_EXECUTION_FAILED,
             "finish passes the failure status through");
    CHECK(!memcmp(a, a0, sizeof a) && !memcmp(v, v0, sizeof v), "finish after failure copies nothing back",
          "host arrays changed");
    /* the engine is still usable after a failed call */
    matrix_inout(3, 4, 5, 8);
}

static void empty(void)
{
    cufort_thunk t;
    CHECK_OK(cufort_thunk_begin(&t, "test_thunk"), "empty begin");
    int i = cufort_thunk_matrix(&t, NULL, 0, 5, 1, 8, CUFORT_INOUT);
    int j = cufort_thunk_matrix(&t, NULL, 4, 0, 4, 8, CUFORT_IN);
    int k = cufort_thunk_vector(&t, NULL, 0, -3, 4, CUFORT_OUT);
    int l = cufort_thunk_span(&t, NULL, 0, 16, CUFORT_INOUT);
    CHECK_OK(cufort_thunk_stage_in(&t), "empty arrays with NULL host pointers stage_in");
    CHECK(cufort_thunk_ld(&t, i) >= 1 && cufort_thunk_ld(&t, j) >= 1, "empty matrices get ld >= 1",
          "ld %lld, %lld", (long long)cufort_thunk_ld(&t, i), (long long)cufort_thunk_ld(&t, j));
    (void)cufort_thunk_ptr(&t, k);
    (void)cufort_thunk_ptr(&t, l);
    CHECK_OK(cufort_thunk_finish(&t, CUFORT_SUCCESS), "empty arrays finish");

    /* empty arrays next to a real one */
    double s[7], s0[7];
    ck_fill_d(s, 7);
    memcpy(s0, s, sizeof s);
    CHECK_OK(cufort_thunk_begin(&t, "test_thunk"), "mixed begin");
    cufort_thunk_vector(&t, NULL, 0, 1, 8, CUFORT_INOUT);
    int is = cufort_thunk_span(&t, s, 7, 8, CUFORT_INOUT);
    cufort_thunk_matrix(&t, NULL, 0, 0, 1, 8, CUFORT_OUT);
    CHECK_OK(cufort_thunk_stage_in(&t), "mixed stage_in");
    double got[7];
    CHECK_OK(cufort_get_vector(7, 8, cufort_thunk_ptr(&t, is), 1, got, 1), "span read device");
    CHECK(!memcmp(got, s, sizeof s), "span staged exactly", "differs");
    for (int q = 0; q < 7; q++) got[q] = -got[q];
    cufort_set_vector(7, 8, got, 1, cufort_thunk_ptr(&t, is), 1);
    CHECK_OK(cufort_thunk_finish(&t, CUFORT_SUCCESS), "mixed finish");
    int ok = 1;
    for (int q = 0; q < 7; q++) ok &= s[q] == -s0[q];
    CHECK(ok, "span copied back", "differs");

    /* a non-empty array with a NULL host pointer is an error, not a crash */
    CHECK_OK(cufort_thunk_begin(&t, "test_thunk"), "null begin");
    cufort_thunk_vector(&t, NULL, 3, 1, 8, CUFORT_IN);
    int st = cufort_thunk_stage_in(&t);
    CHECK(st != CUFORT_SUCCESS, "NULL host array with 3 elements refused", "stage_in succeeded");
    CHECK(ck_err()[0] != 0, "NULL host array message", "no message");
    cufort_thunk_finish(&t, st);

    /* more arrays than the engine holds: refused, not a crash */
    double x[2] = {1, 2};
    CHECK_OK(cufort_thunk_begin(&t, "test_thunk"), "overflow begin");
    for (int q = 0; q < CUFORT_THUNK_MAX_ARRAYS + 1; q++) cufort_thunk_vector(&t, x, 2, 1, 8, CUFORT_IN);
    st = cufort_thunk_stage_in(&t);
    CHECK(st != CUFORT_SUCCESS, "too many thunk arrays refused", "stage_in succeeded");
    CHECK_ST(cufort_thunk_finish(&t, st), st, "too many thunk arrays finish passes status");
}

/* ---- host-array BLAS end to end ---- */
static void saxpy_host_neg(void)
{
    const int64_t n = 9;
    float x[17], y[28], y0[28];
    ck_fill_f(x, 17);
    ck_fill_f(y, 28);
    memcpy(y0, y, sizeof y);
    const float alpha = 1.75f;
    CHECK_OK(cufort_saxpy_host(n, alpha, x, -2, y, 3), "saxpy_host incx=-2 incy=3");
    int ok = 1;
    for (int64_t k = 0; k < n; k++) {
        float want = y0[3 * k] + alpha * x[pos(k, n, -2)];
        ok &= fabsf(y[3 * k] - want) <= 1e-6f * (fabsf(want) + 1.0f);
    }
    for (int e = 0; e < 28; e++)
        if (e % 3) ok &= y[e] == y0[e];
    CHECK(ok, "saxpy_host negative increment result, gaps untouched", "y[0] %g", y[0]);

    double dx[13], dy[19], dy0[19];
    ck_fill_d(dx, 13);
    ck_fill_d(dy, 19);
    memcpy(dy0, dy, sizeof dy);
    CHECK_OK(cufort_daxpy_host(7, -0.5, dx, -2, dy, -3), "daxpy_host incx=-2 incy=-3");
    ok = 1;
    for (int64_t k = 0; k < 7; k++) {
        double want = dy0[pos(k, 7, -3)] - 0.5 * dx[pos(k, 7, -2)];
        ok &= fabs(dy[pos(k, 7, -3)] - want) <= 1e-14 * (fabs(want) + 1.0);
    }
    for (int e = 0; e < 19; e++)
        if (e % 3) ok &= dy[e] == dy0[e];
    CHECK(ok, "daxpy_host both increments negative", "dy[0] %g", dy[0]);

    /* out-only through a public call: y poisoned with NaN must be fully overwritten */
    float src[5] = {1.5f, -2.5f, 3.25f, 4.0f, -0.125f}, dst[10];
    for (int e = 0; e < 10; e++) dst[e] = NAN;
    CHECK_OK(cufort_scopy_host(5, src, 1, dst, 2), "scopy_host into NaN-poisoned y, incy=2");
    ok = 1;
    for (int e = 0; e < 5; e++) ok &= dst[2 * e] == src[e] && isnan(dst[2 * e + 1]);
    CHECK(ok, "scopy_host result, gaps untouched", "dst %g %g %g", dst[0], dst[1], dst[2]);
}

static int thunk_thread(int id, char *err, size_t errlen)
{
    int fails = 0;
    for (int it = 0; it < 100; it++) {
        int64_t n = 5 + (it * 3 + id) % 200;
        double x[210], y[210], want[210];
        for (int64_t i = 0; i < n; i++) {
            x[i] = 1.0 + id + i * 0.5;
            y[i] = 2.0 - it - i * 0.25;
            want[i] = y[i] + 2.0 * x[i];
        }
        if (cufort_daxpy_host(n, 2.0, x, 1, y, 1) || memcmp(y, want, (size_t)n * 8)) {
            if (!fails++) snprintf(err, errlen, "iteration %d: %s", it, ck_err());
        }
    }
    return fails;
}

static void threads(void) { ck_threads(8, thunk_thread, "daxpy_host x100"); }

static void across_shutdown(void)
{
    float x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
    CHECK_OK(cufort_saxpy_host(3, 1.0f, x, 1, y, 1), "saxpy_host before shutdown");
    CHECK_OK(cufort_shutdown(), "shutdown between host-array calls");
    CHECK_OK(cufort_saxpy_host(3, 1.0f, x, 1, y, 1), "saxpy_host after shutdown re-initialises");
    CHECK(y[0] == 6 && y[1] == 9 && y[2] == 12, "saxpy_host across shutdown result", "%g %g %g", y[0], y[1], y[2]);
    CHECK(cufort_is_initialized(), "initialized again", "not initialized");
    /* a large call after a small one grows the staging space */
    const int64_t n = 1 << 20;
    double *bx = malloc((size_t)n * 8), *by = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) bx[i] = 1.0, by[i] = (double)i;
    CHECK_OK(cufort_daxpy_host(n, 3.0, bx, 1, by, 1), "daxpy_host 1M elements");
    int ok = 1;
    for (int64_t i = 0; i < n; i++) ok &= by[i] == (double)i + 3.0;
    CHECK(ok, "daxpy_host 1M result", "differs");
    free(bx);
    free(by);
}

/* cufort_set_device re-binds (and bumps the generation the staging cache watches): host-array
 * calls keep working, and the staging block of before is either reused or freed, never left
 * allocated and forgotten (a leak: cufort_free of the old block would then still succeed) */
static void *stage_span(const double *h, int64_t n)
{
    cufort_thunk t;
    if (cufort_thunk_begin(&t, "test_thunk")) return NULL;
    int i = cufort_thunk_span(&t, h, n, 8, CUFORT_IN);
    void *p = cufort_thunk_stage_in(&t) == CUFORT_SUCCESS ? cufort_thunk_ptr(&t, i) : NULL;
    cufort_thunk_finish(&t, CUFORT_SUCCESS);
    return p;
}

static void set_device_between_calls(void)
{
    int dev = 0;
    cufort_get_device(&dev);
    const int64_t n = 1 << 20; /* 8 MiB per vector */
    double *x = malloc((size_t)n * 8), *y = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) x[i] = 0.5, y[i] = 1.0;
    CHECK_OK(cufort_daxpy_host(n, 1.0, x, 1, y, 1), "daxpy_host before set_device loop");
    int fails = 0;
    for (int i = 0; i < 20; i++) {
        if (cufort_set_device(dev) != CUFORT_SUCCESS) fails++;
        if (cufort_daxpy_host(n, 1.0, x, 1, y, 1) != CUFORT_SUCCESS) fails++;
    }
    CHECK(fails == 0, "20 x (set_device, daxpy_host 8 MiB)", "%d failures: %s", fails, ck_err());
    CHECK(y[0] == 11.5 && y[n - 1] == 11.5, "daxpy_host results across set_device", "y[0] = %g", y[0]);

    void *before = stage_span(x, n);
    CHECK_OK(cufort_set_device(dev), "set_device between two stagings");
    void *after = stage_span(x, n);
    CHECK(before && after, "staging before and after set_device", "%p, %p: %s", before, after, ck_err());
    if (before && after && before != after) {
        int st = cufort_free(before);
        CHECK(st == CUFORT_BAD_POINTER, "set_device does not leak the old staging block",
              "the old block %p was still allocated (cufort_free returned %d) but no longer used", before, st);
    } else {
        CHECK(1, "set_device does not leak the old staging block", "-");
    }
    free(x);
    free(y);
}

/* The thunk engine's device scratch is recorded with the program's blocks (its calls' checks find
 * it) but is not the program's to free: a pointer one past the end of the program's array can be
 * its base, and freeing it left the next host-array copy writing to freed memory. */
static void scratch_not_freeable(void)
{
    void *buf = NULL, *again = NULL;
    if (!CHECK_OK(cufort_thunk_scratch(4096, &buf), "scratch")) return;
    int st = cufort_free(buf);
    CHECK(st == CUFORT_BAD_POINTER, "cufort_free refuses the engine's scratch", "status %d", st);
    double x[512], y[512];
    ck_fill_d(x, 512);
    CHECK_FAILS_MSG(cufort_set_vector(512, 8, x, 1, buf, 1), CUFORT_BAD_POINTER,
                    "memory cufort holds for itself", "the program's copy into the engine's scratch");
    int inside = cufort_gate_enter();   /* as cufort itself, from inside a call */
    CHECK_OK(cufort_set_vector(512, 8, x, 1, buf, 1), "scratch still device memory (set)");
    CHECK_OK(cufort_get_vector(512, 8, buf, 1, y, 1), "scratch still device memory (get)");
    cufort_gate_leave(&inside);
    CHECK(!memcmp(x, y, sizeof x), "scratch kept its contents", "differs");
    CHECK_OK(cufort_thunk_scratch(4096, &again), "scratch again");
    CHECK(again == buf, "scratch kept", "%p then %p", buf, again);
    float a[3] = {1, 2, 3}, b[3] = {1, 1, 1};
    CHECK_OK(cufort_saxpy_host(3, 2.0f, a, 1, b, 1), "host-array call after the refused free");
    CHECK(b[0] == 3 && b[2] == 7, "host-array call after the refused free: result", "%g %g", b[0], b[2]);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ck_begin("thunk", 300);
    ck_seed(4242);
    /* host-array calls initialise cufort on first use */
    CHECK(!cufort_is_initialized(), "starts uninitialized", "initialized");
    float x[4] = {1, 2, 3, 4}, y[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    CHECK_OK(cufort_saxpy_host(4, 2.0f, x, 1, y, 1), "saxpy_host before cufort_init");
    CHECK(cufort_is_initialized(), "saxpy_host initialised cufort", "not initialized");
    CHECK(y[0] == 2.5f && y[3] == 8.5f, "saxpy_host before init result", "%g %g", y[0], y[3]);
    printf("# backend %s\n", cufort_backend_name());
    CHECK_OK(cufort_init(), "init after auto-init");

    /* the engine's tests act as a host-array call of cufort's does, from inside the call: only
     * there may its device copies (cufort's own memory) go through the C ABI */
    int inside = cufort_gate_enter();
    cufort_gate_host_call();
    matrix_inout(5, 4, 7, 4);
    matrix_inout(5, 4, 7, 16);
    matrix_inout(33, 17, 40, 8);
    matrix_inout(1, 1, 1, 8);
    matrix_inout(7, 3, 7, 4);
    vectors();
    out_only();
    failure();
    empty();
    cufort_gate_leave(&inside);
    saxpy_host_neg();
    threads();
    set_device_between_calls();
    scratch_not_freeable();
    across_shutdown();
    CHECK_OK(cufort_shutdown(), "shutdown");
    return ck_end();
}
