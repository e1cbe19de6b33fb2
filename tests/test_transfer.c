/* test_transfer.c — set/get vector and matrix (strides, leading dimensions, async), copy_matrix
 * (also between overlapping regions of one block), argument and pointer errors. */
#include "check.h"

/* device buffer of `bytes`, pre-filled with random bytes that are also returned in *pattern */
static void *dev_filled(int64_t bytes, unsigned char **pattern)
{
    void *d = NULL;
    if (cufort_alloc(&d, bytes) != CUFORT_SUCCESS) return NULL;
    *pattern = malloc((size_t)bytes);
    ck_fill_bytes(*pattern, (size_t)bytes);
    if (cufort_set_vector(bytes, 1, *pattern, 1, d, 1) != CUFORT_SUCCESS) {
        cufort_free(d);
        free(*pattern);
        return NULL;
    }
    return d;
}

static unsigned char *dev_read(const void *d, int64_t bytes)
{
    unsigned char *h = malloc((size_t)bytes);
    memset(h, 0, (size_t)bytes);
    if (cufort_get_vector(bytes, 1, d, 1, h, 1) != CUFORT_SUCCESS) {
        free(h);
        return NULL;
    }
    return h;
}

/* element k of a strided vector: bytes at k*inc*es */
static int vec_check(const unsigned char *got, const unsigned char *pattern, const unsigned char *x,
                     int64_t n, int64_t es, int64_t incx, int64_t incg, int64_t total, int64_t *bad_at)
{
    /* total = elements in `got`; positions k*incg hold x[k*incx], the rest equal pattern */
    for (int64_t e = 0; e < total; e++) {
        const unsigned char *want = pattern + e * es;
        if (e % incg == 0 && e / incg < n) want = x + (e / incg) * incx * es;
        if (memcmp(got + e * es, want, (size_t)es)) {
            *bad_at = e;
            return 0;
        }
    }
    return 1;
}

static void vectors(int async, cufort_stream s)
{
    static const int64_t ns[] = {1, 7, 100};
    static const int64_t ess[] = {4, 8, 16};
    const char *mode = async ? (s ? "async(stream)" : "async(default)") : "sync";
    int total_ok = 0, total = 0;
    for (int in = 0; in < 3; in++)
        for (int ie = 0; ie < 3; ie++)
            for (int64_t incx = 1; incx <= 3; incx++)
                for (int64_t incy = 1; incy <= 3; incy++) {
                    int64_t n = ns[in], es = ess[ie];
                    int64_t hx_len = 1 + (n - 1) * incx, dy_len = 1 + (n - 1) * incy + 2;
                    int64_t incz = 4 - incx, hz_len = 1 + (n - 1) * incz + 1;
                    const char *what = ckf("%s vector n=%lld es=%lld incx=%lld incy=%lld", mode,
                                           (long long)n, (long long)es, (long long)incx, (long long)incy);
                    unsigned char *x = malloc((size_t)(hx_len * es));
                    ck_fill_bytes(x, (size_t)(hx_len * es));
                    unsigned char *dpat = NULL;
                    void *dy = dev_filled(dy_len * es, &dpat);
                    total++;
                    if (!dy) {
                        CHECK(0, what, "device buffer setup failed: %s", ck_err());
                        free(x);
                        continue;
                    }
                    int st = async ? cufort_set_vector_async(n, es, x, incx, dy, incy, s)
                                   : cufort_set_vector(n, es, x, incx, dy, incy);
                    if (async && st == CUFORT_SUCCESS) st = cufort_stream_synchronize(s);
                    unsigned char *got = st ? NULL : dev_read(dy, dy_len * es);
                    int64_t bad = -1;
                    int ok = got && vec_check(got, dpat, x, n, es, incx, incy, dy_len, &bad);
                    if (!ok) {
                        CHECK(0, ckf("%s set", what), "status %d (%s) \"%s\"; device element %lld wrong",
                              st, ck_status_name(st), ck_err(), (long long)bad);
                    }
                    /* and back into a strided host array with a different stride; gaps untouched */
                    unsigned char *z = malloc((size_t)(hz_len * es)), *zpat = malloc((size_t)(hz_len * es));
                    ck_fill_bytes(zpat, (size_t)(hz_len * es));
                    memcpy(z, zpat, (size_t)(hz_len * es));
                    st = async ? cufort_get_vector_async(n, es, dy, incy, z, incz, s)
                               : cufort_get_vector(n, es, dy, incy, z, incz);
                    if (async && st == CUFORT_SUCCESS) st = cufort_stream_synchronize(s);
                    int ok2 = st == CUFORT_SUCCESS && vec_check(z, zpat, x, n, es, incx, incz, hz_len, &bad);
                    if (!ok2)
                        CHECK(0, ckf("%s get incz=%lld", what, (long long)incz),
                              "status %d (%s) \"%s\"; host element %lld wrong", st, ck_status_name(st),
                              ck_err(), (long long)bad);
                    total_ok += ok && ok2;
                    free(got);
                    free(z);
                    free(zpat);
                    free(x);
                    free(dpat);
                    cufort_free(dy);
                }
    CHECK(total_ok == total, ckf("%s vectors: %d strided round trips, gaps untouched", mode, total),
          "%d of %d failed (see above)", total - total_ok, total);
}

/* host matrix a (lda) -> device (ldb, padding pre-filled) -> host (ldc, padding pre-filled) */
static void matrices(int async, cufort_stream s)
{
    static const int64_t shapes[][2] = {{7, 5}, {1, 1}, {33, 17}, {64, 3}, {1, 9}, {9, 1}};
    static const int64_t ess[] = {4, 8, 16};
    const char *mode = async ? (s ? "async(stream)" : "async(default)") : "sync";
    for (int is = 0; is < 6; is++)
        for (int ie = 0; ie < 3; ie++)
            for (int lp = 0; lp < 2; lp++) {
                int64_t r = shapes[is][0], c = shapes[is][1], es = ess[ie];
                int64_t lda = r + (lp ? 3 : 0), ldb = r + (lp ? 2 : 0), ldc = r + (lp ? 1 : 4);
                const char *what = ckf("%s matrix %lldx%lld es=%lld lda=%lld ldb=%lld ldc=%lld", mode,
                                       (long long)r, (long long)c, (long long)es, (long long)lda,
                                       (long long)ldb, (long long)ldc);
                int64_t alen = lda * c, blen = ldb * c + 1, clen = ldc * c;
                unsigned char *a = malloc((size_t)(alen * es));
                ck_fill_bytes(a, (size_t)(alen * es));
                unsigned char *bpat = NULL;
                void *db = dev_filled(blen * es, &bpat);
                if (!db) {
                    CHECK(0, what, "device buffer setup failed: %s", ck_err());
                    free(a);
                    continue;
                }
                int st = async ? cufort_set_matrix_async(r, c, es, a, lda, db, ldb, s)
                               : cufort_set_matrix(r, c, es, a, lda, db, ldb);
                if (async && st == CUFORT_SUCCESS) st = cufort_stream_synchronize(s);
                CHECK(st == CUFORT_SUCCESS, ckf("%s set_matrix", what), "status %d (%s) \"%s\"", st,
                      ck_status_name(st), ck_err());
                unsigned char *got = dev_read(db, blen * es);
                int64_t bad = -1;
                for (int64_t e = 0; got && e < blen && bad < 0; e++) {
                    int64_t i = e % ldb, j = e / ldb;
                    const unsigned char *want =
                        (i < r && j < c) ? a + (i + j * lda) * es : bpat + e * es;
                    if (memcmp(got + e * es, want, (size_t)es)) bad = e;
                }
                CHECK(got && bad < 0, ckf("%s device contents and padding", what),
                      "device element %lld (row %lld, col %lld) wrong", (long long)bad,
                      (long long)(bad % ldb), (long long)(bad / ldb));
                unsigned char *cm = malloc((size_t)(clen * es)), *cpat = malloc((size_t)(clen * es));
                ck_fill_bytes(cpat, (size_t)(clen * es));
                memcpy(cm, cpat, (size_t)(clen * es));
                st = async ? cufort_get_matrix_async(r, c, es, db, ldb, cm, ldc, s)
                           : cufort_get_matrix(r, c, es, db, ldb, cm, ldc);
                if (async && st == CUFORT_SUCCESS) st = cufort_stream_synchronize(s);
                CHECK(st == CUFORT_SUCCESS, ckf("%s get_matrix", what), "status %d (%s) \"%s\"", st,
                      ck_status_name(st), ck_err());
                bad = -1;
                for (int64_t e = 0; e < clen && bad < 0; e++) {
                    int64_t i = e % ldc, j = e / ldc;
                    const unsigned char *want = (i < r) ? a + (i + j * lda) * es : cpat + e * es;
                    if (memcmp(cm + e * es, want, (size_t)es)) bad = e;
                }
                CHECK(bad < 0, ckf("%s round trip exact, padding untouched", what),
                      "host element %lld (row %lld, col %lld) wrong", (long long)bad,
                      (long long)(bad % ldc), (long long)(bad / ldc));
                free(got);
                free(cm);
                free(cpat);
                free(a);
                free(bpat);
                cufort_free(db);
            }
}

static void copy_matrix(void)
{
    static const int64_t shapes[][2] = {{7, 5}, {1, 1}, {33, 17}};
    for (int is = 0; is < 3; is++)
        for (int64_t es = 4; es <= 16; es *= 2) {
            int64_t r = shapes[is][0], c = shapes[is][1], lda = r + 2, ldb = r + 5;
            const char *what =
                ckf("copy_matrix %lldx%lld es=%lld lda=%lld ldb=%lld", (long long)r, (long long)c,
                    (long long)es, (long long)lda, (long long)ldb);
            unsigned char *apat = NULL, *bpat = NULL;
            void *da = dev_filled(lda * c * es, &apat);
            void *db = dev_filled(ldb * c * es, &bpat);
            if (!da || !db) {
                CHECK(0, what, "setup failed: %s", ck_err());
                continue;
            }
            CHECK_OK(cufort_copy_matrix(r, c, es, da, lda, db, ldb), what);
            unsigned char *got = dev_read(db, ldb * c * es);
            int64_t bad = -1;
            for (int64_t e = 0; got && e < ldb * c && bad < 0; e++) {
                int64_t i = e % ldb, j = e / ldb;
                const unsigned char *want = i < r ? apat + (i + j * lda) * es : bpat + e * es;
                if (memcmp(got + e * es, want, (size_t)es)) bad = e;
            }
            CHECK(got && bad < 0, ckf("%s contents, padding untouched", what), "element %lld wrong",
                  (long long)bad);
            unsigned char *src = dev_read(da, lda * c * es);
            CHECK(src && !memcmp(src, apat, (size_t)(lda * c * es)), ckf("%s source unchanged", what),
                  "source changed");
            free(src);
            free(got);
            free(apat);
            free(bpat);
            cufort_free(da);
            cufort_free(db);
        }
    /* a sub-matrix through pointer offsets: rows 2..5, cols 1..3 of a 10x6 (ld 10) into a 4x3 */
    double h[60], out[12];
    ck_fill_d(h, 60);
    void *da = NULL, *db = NULL;
    cufort_alloc(&da, sizeof h);
    cufort_alloc(&db, sizeof out);
    CHECK_OK(cufort_set_matrix(10, 6, 8, h, 10, da, 10), "submatrix set whole");
    CHECK_OK(cufort_copy_matrix(4, 3, 8, (double *)da + 2 + 1 * 10, 10, db, 4), "submatrix copy_matrix");
    CHECK_OK(cufort_get_matrix(4, 3, 8, db, 4, out, 4), "submatrix get");
    int ok = 1;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++) ok &= out[i + 4 * j] == h[(2 + i) + (1 + j) * 10];
    CHECK(ok, "submatrix through pointer offset", "values differ");
    /* get_matrix of a sub-matrix straight from the offset pointer */
    double sub[12];
    CHECK_OK(cufort_get_matrix(4, 3, 8, (double *)da + 2 + 1 * 10, 10, sub, 4), "submatrix get_matrix at offset");
    CHECK(!memcmp(sub, out, sizeof sub), "submatrix get_matrix at offset values", "values differ");
    cufort_free(da);
    cufort_free(db);
}

/* copy_matrix between overlapping regions of one block (two views of one array), each direction,
 * against the same copy done on the host through a temporary */
static void copy_matrix_overlapping(void)
{
    enum { LD = 9, COLS = 8 };
    static const int shifts[][2] = {{1, 1}, {-1, -1}, {1, 0}, {0, 1}, {0, -1}, {2, -1}, {0, 0}};
    double h[LD * COLS], want[LD * COLS], got[LD * COLS];
    void *d = NULL;
    if (!CHECK_OK(cufort_alloc(&d, sizeof h), "alloc for overlapping copies"))
        return;
    for (size_t k = 0; k < sizeof shifts / sizeof *shifts; k++) {
        int di = shifts[k][0], dj = shifts[k][1], r = LD - 2, c = COLS - 2;
        /* source at (1,1), destination shifted by (di, dj): both inside the block */
        int64_t so = 1 + 1 * LD, doff = (1 + di) + (1 + dj) * LD;
        ck_fill_d(h, LD * COLS);
        memcpy(want, h, sizeof h);
        double tmp[LD * COLS];
        for (int j = 0; j < c; j++)
            for (int i = 0; i < r; i++) tmp[i + j * r] = h[so + i + j * LD];
        for (int j = 0; j < c; j++)
            for (int i = 0; i < r; i++) want[doff + i + j * LD] = tmp[i + j * r];
        int st = cufort_set_vector(LD * COLS, 8, h, 1, d, 1);
        st = st ? st : cufort_copy_matrix(r, c, 8, (double *)d + so, LD, (double *)d + doff, LD);
        st = st ? st : cufort_get_vector(LD * COLS, 8, d, 1, got, 1);
        CHECK(st == CUFORT_SUCCESS && !memcmp(got, want, sizeof got),
              ckf("copy_matrix %dx%d onto itself shifted by (%d, %d)", r, c, di, dj),
              "status %d (%s) \"%s\"%s", st, ck_status_name(st), ck_err(),
              st ? "" : "; elements differ from the copy through a temporary");
    }
    cufort_free(d);
}

static void zero_sizes(void)
{
    float x[4] = {1.5f, 2.5f, 3.5f, 4.5f}, y[4] = {5.5f, 6.5f, 7.5f, 8.5f};
    void *d = NULL;
    cufort_alloc(&d, sizeof x);
    cufort_set_vector(4, 4, x, 1, d, 1);
    CHECK_OK(cufort_set_vector(0, 4, y, 1, d, 1), "set_vector n=0");
    CHECK_OK(cufort_get_vector(0, 4, d, 1, y, 1), "get_vector n=0");
    CHECK_OK(cufort_set_matrix(0, 3, 4, y, 1, d, 1), "set_matrix rows=0");
    CHECK_OK(cufort_set_matrix(2, 0, 4, y, 2, d, 2), "set_matrix cols=0");
    CHECK_OK(cufort_get_matrix(0, 0, 4, d, 1, y, 1), "get_matrix 0x0");
    CHECK_OK(cufort_copy_matrix(0, 2, 4, d, 1, d, 1), "copy_matrix rows=0");
    float z[4];
    cufort_get_vector(4, 4, d, 1, z, 1);
    CHECK(!memcmp(z, x, sizeof x) && y[0] == 5.5f && y[3] == 8.5f, "zero-size transfers touch nothing",
          "data changed");
    cufort_free(d);
}

static void invalid_args(void)
{
    float h[64];
    ck_fill_f(h, 64);
    void *d = NULL;
    cufort_alloc(&d, sizeof h);
    cufort_stream s = NULL;
    cufort_stream_create(&s);
#define BAD(call, name, what) CHECK_FAILS_MSG(call, CUFORT_INVALID_VALUE, name, what)
    BAD(cufort_set_vector(-1, 4, h, 1, d, 1), "cufort_set_vector", "set_vector n=-1");
    BAD(cufort_set_vector(4, 0, h, 1, d, 1), "cufort_set_vector", "set_vector elem_size=0");
    BAD(cufort_set_vector(4, -4, h, 1, d, 1), "cufort_set_vector", "set_vector elem_size=-4");
    BAD(cufort_set_vector(4, 4, h, 0, d, 1), "cufort_set_vector", "set_vector incx=0");
    BAD(cufort_set_vector(4, 4, h, -1, d, 1), "cufort_set_vector", "set_vector incx=-1");
    BAD(cufort_set_vector(4, 4, h, 1, d, 0), "cufort_set_vector", "set_vector incy=0");
    BAD(cufort_set_vector(4, 4, h, 1, d, -2), "cufort_set_vector", "set_vector incy=-2");
    BAD(cufort_get_vector(-5, 4, d, 1, h, 1), "cufort_get_vector", "get_vector n=-5");
    BAD(cufort_get_vector(4, 0, d, 1, h, 1), "cufort_get_vector", "get_vector elem_size=0");
    BAD(cufort_get_vector(4, 4, d, 0, h, 1), "cufort_get_vector", "get_vector incx=0");
    BAD(cufort_get_vector(4, 4, d, 1, h, 0), "cufort_get_vector", "get_vector incy=0");
    BAD(cufort_set_matrix(-1, 2, 4, h, 2, d, 2), "cufort_set_matrix", "set_matrix rows=-1");
    BAD(cufort_set_matrix(2, -1, 4, h, 2, d, 2), "cufort_set_matrix", "set_matrix cols=-1");
    BAD(cufort_set_matrix(2, 2, 0, h, 2, d, 2), "cufort_set_matrix", "set_matrix elem_size=0");
    BAD(cufort_set_matrix(4, 2, 4, h, 3, d, 4), "cufort_set_matrix", "set_matrix lda<rows");
    BAD(cufort_set_matrix(4, 2, 4, h, 4, d, 3), "cufort_set_matrix", "set_matrix ldb<rows");
    BAD(cufort_set_matrix(4, 2, 4, h, 0, d, 4), "cufort_set_matrix", "set_matrix lda=0");
    BAD(cufort_get_matrix(4, 2, 4, d, 3, h, 4), "cufort_get_matrix", "get_matrix lda<rows");
    BAD(cufort_get_matrix(4, 2, 4, d, 4, h, 2), "cufort_get_matrix", "get_matrix ldb<rows");
    BAD(cufort_get_matrix(4, 2, -8, d, 4, h, 4), "cufort_get_matrix", "get_matrix elem_size=-8");
    BAD(cufort_get_matrix(4, -2, 4, d, 4, h, 4), "cufort_get_matrix", "get_matrix cols=-2");
    BAD(cufort_copy_matrix(4, 2, 4, d, 3, d, 4), "cufort_copy_matrix", "copy_matrix lda<rows");
    BAD(cufort_copy_matrix(4, 2, 4, d, 4, d, 1), "cufort_copy_matrix", "copy_matrix ldb<rows");
    BAD(cufort_copy_matrix(-4, 2, 4, d, 4, d, 4), "cufort_copy_matrix", "copy_matrix rows=-4");
    BAD(cufort_copy_matrix(4, 2, 0, d, 4, d, 4), "cufort_copy_matrix", "copy_matrix elem_size=0");
    BAD(cufort_set_vector_async(-1, 4, h, 1, d, 1, s), "cufort_set_vector_async", "set_vector_async n=-1");
    BAD(cufort_set_vector_async(4, 4, h, 0, d, 1, s), "cufort_set_vector_async", "set_vector_async incx=0");
    BAD(cufort_get_vector_async(4, 0, d, 1, h, 1, s), "cufort_get_vector_async",
        "get_vector_async elem_size=0");
    BAD(cufort_get_vector_async(4, 4, d, 1, h, -1, s), "cufort_get_vector_async", "get_vector_async incy=-1");
    BAD(cufort_set_matrix_async(4, 2, 4, h, 2, d, 4, s), "cufort_set_matrix_async",
        "set_matrix_async lda<rows");
    BAD(cufort_get_matrix_async(4, 2, 4, d, 4, h, 3, s), "cufort_get_matrix_async",
        "get_matrix_async ldb<rows");
    BAD(cufort_get_matrix_async(-4, 2, 4, d, 4, h, 4, s), "cufort_get_matrix_async",
        "get_matrix_async rows=-4");
#undef BAD
    /* sizes whose byte count overflows int64 are refused, never truncated */
    int st = cufort_set_vector(INT64_MAX / 4, 16, h, 1, d, 1);
    CHECK(st == CUFORT_INVALID_VALUE || st == CUFORT_BAD_POINTER, "set_vector n*elem_size overflow refused",
          "status %d (%s) \"%s\"", st, ck_status_name(st), ck_err());
    /* NULL pointers with work to do */
    st = cufort_set_vector(4, 4, NULL, 1, d, 1);
    CHECK(st == CUFORT_INVALID_VALUE || st == CUFORT_BAD_POINTER, "set_vector NULL host source refused",
          "status %d (%s) \"%s\"", st, ck_status_name(st), ck_err());
    st = cufort_get_vector(4, 4, NULL, 1, h, 1);
    CHECK(st == CUFORT_INVALID_VALUE || st == CUFORT_BAD_POINTER, "get_vector NULL device source refused",
          "status %d (%s) \"%s\"", st, ck_status_name(st), ck_err());
    st = cufort_get_vector(4, 4, d, 1, NULL, 1);
    CHECK(st == CUFORT_INVALID_VALUE || st == CUFORT_BAD_POINTER, "get_vector NULL host destination refused",
          "status %d (%s) \"%s\"", st, ck_status_name(st), ck_err());
    cufort_stream_destroy(s);
    cufort_free(d);
}

static void bad_pointers(void)
{
    float h[256], g[256];
    ck_fill_f(h, 256);
    float *m = malloc(100 * sizeof *m);
    ck_fill_f(m, 100);
    float *d = NULL;
    cufort_alloc((void **)&d, 100 * sizeof *d);
    cufort_set_vector(100, 4, h, 1, d, 1);
#define BADP(call, name, what) CHECK_FAILS_MSG(call, CUFORT_BAD_POINTER, name, what)
    BADP(cufort_get_vector(10, 4, m, 1, g, 1), "cufort_get_vector", "get_vector from a malloc'd pointer");
    BADP(cufort_set_vector(10, 4, h, 1, m, 1), "cufort_set_vector", "set_vector into a malloc'd pointer");
    BADP(cufort_get_vector(10, 4, h, 1, g, 1), "cufort_get_vector", "get_vector from a stack array");
    BADP(cufort_get_matrix(4, 4, 4, m, 4, g, 4), "cufort_get_matrix", "get_matrix from a malloc'd pointer");
    BADP(cufort_set_matrix(4, 4, 4, h, 4, m, 4), "cufort_set_matrix", "set_matrix into a malloc'd pointer");
    BADP(cufort_copy_matrix(4, 4, 4, m, 4, d, 4), "cufort_copy_matrix", "copy_matrix from a malloc'd pointer");
    BADP(cufort_copy_matrix(4, 4, 4, d, 4, m, 4), "cufort_copy_matrix", "copy_matrix into a malloc'd pointer");
    BADP(cufort_get_vector_async(10, 4, m, 1, g, 1, NULL), "cufort_get_vector_async",
         "get_vector_async from a malloc'd pointer");
    BADP(cufort_set_matrix_async(4, 4, 4, h, 4, m, 4, NULL), "cufort_set_matrix_async",
         "set_matrix_async into a malloc'd pointer");
    /* ranges past the end of a 100-float allocation */
    CHECK_OK(cufort_set_vector(100, 4, h, 1, d, 1), "set_vector exactly the allocation");
    BADP(cufort_set_vector(101, 4, h, 1, d, 1), "cufort_set_vector", "set_vector one past the end");
    BADP(cufort_get_vector(101, 4, d, 1, g, 1), "cufort_get_vector", "get_vector one past the end");
    BADP(cufort_get_vector(50, 4, d, 3, g, 1), "cufort_get_vector", "get_vector incx=3 past the end");
    CHECK_OK(cufort_get_vector(34, 4, d, 3, g, 1), "get_vector incx=3 last element inside");
    CHECK_OK(cufort_set_vector(40, 4, h, 1, d + 60, 1), "set_vector at offset 60, 40 elements");
    BADP(cufort_set_vector(41, 4, h, 1, d + 60, 1), "cufort_set_vector", "set_vector at offset 60, 41 elements");
    BADP(cufort_get_vector(3, 8, d + 95, 1, g, 1), "cufort_get_vector", "get_vector es=8 at offset past end");
    BADP(cufort_get_matrix(10, 10, 4, d, 11, g, 10), "cufort_get_matrix", "get_matrix extent 109 > 100");
    CHECK_OK(cufort_get_matrix(10, 10, 4, d, 10, g, 10), "get_matrix extent exactly 100");
    BADP(cufort_set_matrix(10, 10, 4, h, 10, d + 1, 10), "cufort_set_matrix", "set_matrix at offset 1 past end");
    BADP(cufort_copy_matrix(10, 10, 4, d, 10, d + 1, 10), "cufort_copy_matrix", "copy_matrix destination past end");
    /* a freed allocation */
    float *f = NULL;
    cufort_alloc((void **)&f, 64 * sizeof *f);
    cufort_free(f);
    BADP(cufort_get_vector(4, 4, f, 1, g, 1), "cufort_get_vector", "get_vector from a freed allocation");
    /* nothing was disturbed by the refused calls */
    float back[100];
    CHECK_OK(cufort_get_vector(100, 4, d, 1, back, 1), "read back after refused calls");
    int ok = 1;
    for (int i = 0; i < 100; i++) ok &= back[i] == (i < 60 ? h[i] : h[i - 60]);
    CHECK(ok, "allocation intact after refused calls", "contents differ");
#undef BADP
    cufort_free(d);
    free(m);
}

/* sizes whose byte counts wrap around 2^64 to a small number: must be refused, not truncated
 * (children: a library that lets them through copies 2^60 rows and crashes) */
static int run_child(const char *mode)
{
    ck_child_main("transfer");
    if (!CHECK_OK(cufort_init(), ckf("child %s init", mode))) return 1;
    char h[256];
    ck_fill_bytes(h, sizeof h);
    void *d = NULL;
    cufort_alloc(&d, 64);
    const int64_t n = ((int64_t)1 << 60) + 1; /* n * 16 bytes = 2^64 + 16 */
    int st = -1;
    const char *what = ckf("%s refused", mode);
    if (!strcmp(mode, "wrap_contiguous")) st = cufort_set_vector(n, 16, h, 1, d, 1);
    else if (!strcmp(mode, "wrap_strided")) st = cufort_set_vector(n, 16, h, 2, d, 2);
    else if (!strcmp(mode, "wrap_get")) st = cufort_get_vector(n, 16, d, 1, h, 1);
    else if (!strcmp(mode, "wrap_matrix")) st = cufort_set_matrix(1, n, 16, h, 1, d, 1);
    else if (!strcmp(mode, "wrap_rows")) st = cufort_copy_matrix(n, 1, 16, d, n, d, n);
    CHECK(st == CUFORT_INVALID_VALUE || st == CUFORT_BAD_POINTER, what,
          "status %d (%s) \"%s\"", st, ck_status_name(st), ck_err());
    cufort_free(d);
    cufort_shutdown();
    return ck_failed ? 1 : 0;
}

/* A strided vector whose last element ends its block: the driver checks a 2-D copy as whole
 * pitches, one past the block's end, and refused it (cudaErrorInvalidValue). */
static void strided_to_block_end(void)
{
    double *hp = NULL, *dp = NULL;
    if (!CHECK_OK(cufort_host_alloc((void **)&hp, 256), "host_alloc 256 bytes") ||
        !CHECK_OK(cufort_alloc((void **)&dp, 256), "alloc 256 bytes"))
        goto out;
    ck_fill_d(hp, 32);
    /* 6 complex doubles, every second one, from byte 80: the last ends at byte 256 */
    double *x = hp + 10, back[32];
    CHECK_OK(cufort_set_vector(6, 16, x, 2, dp + 10, 2), "pinned strided vector to its block's end (set)");
    CHECK_OK(cufort_get_vector(6, 16, dp + 10, 2, back, 1), "device strided vector to its block's end (get)");
    int ok = 1;
    for (int i = 0; i < 6; i++)
        ok &= back[2 * i] == x[4 * i] && back[2 * i + 1] == x[4 * i + 1];
    CHECK(ok, "strided vector to the block's end: values", "differ");
    double got[32];
    memset(got, 0, sizeof got);
    CHECK_OK(cufort_get_vector(6, 16, dp + 10, 2, hp + 10, 2), "into pinned, strided, to its block's end");
    memcpy(got, hp, sizeof got);
    ok = 1;
    for (int i = 0; i < 6; i++)
        ok &= got[10 + 4 * i] == back[2 * i];
    CHECK(ok, "into pinned, strided: values", "differ");
    double y[12], y0[12];
    ck_fill_d(y, 12);
    memcpy(y0, y, sizeof y);
    if (CHECK_OK(cufort_zaxpy_host(6, 2.0, (const cufort_cdouble *)x, 2, (cufort_cdouble *)y, 1),
                 "zaxpy_host on a pinned strided vector ending its block")) {
        ok = 1;
        for (int i = 0; i < 6; i++)
            ok &= fabs(y[2 * i] - (y0[2 * i] + 2 * x[4 * i])) <= 1e-12 * (1 + fabs(y[2 * i])) &&
                  fabs(y[2 * i + 1] - (y0[2 * i + 1] + 2 * x[4 * i + 1])) <= 1e-12 * (1 + fabs(y[2 * i + 1]));
        CHECK(ok, "zaxpy_host on a pinned strided vector ending its block: values", "differ");
    }
out:
    cufort_host_free(hp);
    cufort_free(dp);
}

int main(int argc, char **argv)
{
    ck_begin("transfer", 300);
    if (argc == 3 && !strcmp(argv[1], "--child")) return run_child(argv[2]);
    ck_seed(777);
    if (!CHECK_OK(cufort_init(), "init")) return ck_end();
    printf("# backend %s\n", cufort_backend_name());
    vectors(0, NULL);
    matrices(0, NULL);
    copy_matrix();
    copy_matrix_overlapping();
    zero_sizes();
    cufort_stream s = NULL;
    if (CHECK_OK(cufort_stream_create(&s), "stream_create for async")) {
        vectors(1, s);
        matrices(1, s);
        CHECK_OK(cufort_stream_destroy(s), "stream_destroy after async");
    }
    vectors(1, NULL);
    strided_to_block_end();
    /* async from pinned memory, several transfers in flight before one synchronize */
    {
        const int64_t n = 1 << 16;
        double *hp = NULL, *hq = NULL;
        cufort_stream st = NULL;
        void *d = NULL;
        cufort_stream_create(&st);
        if (CHECK_OK(cufort_host_alloc((void **)&hp, n * 8), "host_alloc for async") &&
            CHECK_OK(cufort_host_alloc((void **)&hq, n * 8), "host_alloc for async (2)") &&
            CHECK_OK(cufort_alloc(&d, n * 8), "alloc for async pinned")) {
            ck_fill_d(hp, (size_t)n);
            for (int64_t i = 0; i < n; i++) hq[i] = 3.25;
            CHECK_OK(cufort_set_vector_async(n / 2, 8, hp, 1, d, 1, st), "pinned async set first half");
            CHECK_OK(cufort_set_matrix_async(n / 2, 1, 8, hp + n / 2, n / 2, (double *)d + n / 2, n / 2, st),
                     "pinned async set second half (matrix)");
            CHECK_OK(cufort_get_vector_async(n, 8, d, 1, hq, 1, st), "pinned async get");
            CHECK_OK(cufort_stream_synchronize(st), "pinned async synchronize");
            CHECK(!memcmp(hp, hq, (size_t)n * 8), "pinned async in-order round trip", "data differs");
        }
        cufort_free(d);
        cufort_host_free(hp);
        cufort_host_free(hq);
        cufort_stream_destroy(st);
    }
    invalid_args();
    bad_pointers();
    CHECK_OK(cufort_shutdown(), "shutdown");
    ck_child("wrap_contiguous", "child wrap_contiguous", NULL);
    ck_child("wrap_strided", "child wrap_strided", NULL);
    ck_child("wrap_get", "child wrap_get", NULL);
    ck_child("wrap_matrix", "child wrap_matrix", NULL);
    ck_child("wrap_rows", "child wrap_rows", NULL);
    return ck_end();
}
