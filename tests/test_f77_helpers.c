/* test_f77_helpers.c — the legacy fortran.c helpers of libcufort_f77 (cublas_init, cublas_alloc,
 * cublas_set_matrix, ..., cublas_get_error), called as a Fortran 77 program calls them: INTEGER
 * arguments by reference, device pointers as integer*8 addresses by reference.
 *
 * Link with -lcufort_f77 -lcufort.  The helpers are looked up at run time under their F77 external
 * names (f77.h's F77_NAME mangling): first in the program (libcufort_f77 linked), else in the
 * libcufort_f77.so that sits beside the libcufort.so in use, so a link line that lacks
 * -lcufort_f77 (or drops it under --as-needed) still builds and tests the library it ships with. */
#include "check.h"

#include <dlfcn.h>
#include <libgen.h>

#include "f77.h"

#define CK_STR(x) #x
#define CK_XSTR(x) CK_STR(x)

static f77_int (*INIT)(void);
static f77_int (*SHUTDOWN)(void);
static f77_int (*GET_ERROR)(void);
static f77_int (*ALLOC)(const f77_int *n, const f77_int *elemSize, cufort_devptr *devPtr);
static f77_int (*FREE)(const cufort_devptr *devPtr);
static f77_int (*SET_VECTOR)(const f77_int *n, const f77_int *elemSize, const void *x, const f77_int *incx,
                             const cufort_devptr *y, const f77_int *incy);
static f77_int (*GET_VECTOR)(const f77_int *n, const f77_int *elemSize, const cufort_devptr *x,
                             const f77_int *incx, void *y, const f77_int *incy);
static f77_int (*SET_MATRIX)(const f77_int *rows, const f77_int *cols, const f77_int *elemSize, const void *A,
                             const f77_int *lda, const cufort_devptr *B, const f77_int *ldb);
static f77_int (*GET_MATRIX)(const f77_int *rows, const f77_int *cols, const f77_int *elemSize,
                             const cufort_devptr *A, const f77_int *lda, void *B, const f77_int *ldb);

static const char *helpers_from = "the program";

static int resolve_helpers(void)
{
    struct {
        void **fn;
        const char *name;
    } tab[] = {
        {(void **)&INIT, CK_XSTR(F77_NAME(cublas_init, CUBLAS_INIT))},
        {(void **)&SHUTDOWN, CK_XSTR(F77_NAME(cublas_shutdown, CUBLAS_SHUTDOWN))},
        {(void **)&GET_ERROR, CK_XSTR(F77_NAME(cublas_get_error, CUBLAS_GET_ERROR))},
        {(void **)&ALLOC, CK_XSTR(F77_NAME(cublas_alloc, CUBLAS_ALLOC))},
        {(void **)&FREE, CK_XSTR(F77_NAME(cublas_free, CUBLAS_FREE))},
        {(void **)&SET_VECTOR, CK_XSTR(F77_NAME(cublas_set_vector, CUBLAS_SET_VECTOR))},
        {(void **)&GET_VECTOR, CK_XSTR(F77_NAME(cublas_get_vector, CUBLAS_GET_VECTOR))},
        {(void **)&SET_MATRIX, CK_XSTR(F77_NAME(cublas_set_matrix, CUBLAS_SET_MATRIX))},
        {(void **)&GET_MATRIX, CK_XSTR(F77_NAME(cublas_get_matrix, CUBLAS_GET_MATRIX))},
    };
    const int n = (int)(sizeof tab / sizeof tab[0]);
    void *lib = RTLD_DEFAULT;
    if (!dlsym(RTLD_DEFAULT, tab[0].name)) {
        static char path[4096];
        Dl_info info;
        if (!dladdr((void *)cufort_init, &info) || !info.dli_fname) return 0;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        snprintf(path, sizeof path, "%s/libcufort_f77.so", dirname(dir));
        lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        if (!lib) return 0;
        helpers_from = path;
    }
    for (int i = 0; i < n; i++)
        if (!(*tab[i].fn = dlsym(lib, tab[i].name))) return 0;
    return 1;
}

/* a Fortran INTEGER literal passed by reference */
#define I(v) (&(f77_int){(f77_int)(v)})
/* an integer*8 device address passed by reference */
#define P(v) (&(cufort_devptr){(cufort_devptr)(v)})

#define CHECK_F77(call, expected, what)                                                          \
    __extension__({                                                                              \
        int ck_st_ = (int)(call);                                                                \
        ck_check(ck_st_ == (expected), (what), "%s returned %d, expected %d; last error \"%s\"", #call, \
                 ck_st_, (int)(expected), ck_err());                                             \
    })

static void before_init(void)
{
    cufort_devptr dp = 12345;
    CHECK_F77(ALLOC(I(10), I(4), &dp), CUFORT_NOT_INITIALIZED, "cublas_alloc before cublas_init");
    CHECK(dp == 0, "cublas_alloc before init leaves a null address", "devPtr = %lld", (long long)dp);
    CHECK_F77(GET_ERROR(), CUFORT_NOT_INITIALIZED, "cublas_get_error after call before init");
    CHECK_F77(GET_ERROR(), CUFORT_SUCCESS, "cublas_get_error read twice is 0");
    float x[4] = {1, 2, 3, 4};
    double fake[4];
    CHECK_F77(SET_VECTOR(I(4), I(4), x, I(1), P((intptr_t)fake), I(1)), CUFORT_NOT_INITIALIZED,
              "cublas_set_vector before cublas_init");
    CHECK_F77(GET_MATRIX(I(2), I(2), I(4), P((intptr_t)fake), I(2), x, I(2)), CUFORT_NOT_INITIALIZED,
              "cublas_get_matrix before cublas_init");
    CHECK_F77(FREE(P((intptr_t)fake)), CUFORT_NOT_INITIALIZED, "cublas_free before cublas_init");
    CHECK_F77(GET_ERROR(), CUFORT_NOT_INITIALIZED, "cublas_get_error reports NOT_INITIALIZED");
    CHECK(x[0] == 1 && x[3] == 4, "host array untouched before init", "x changed");
}

static void round_trip(int rows, int cols, int es, int lda, int ldc)
{
    const char *what = ckf("cublas_alloc/set_matrix/get_matrix %dx%d elemSize=%d lda=%d ldc=%d", rows, cols, es,
                           lda, ldc);
    unsigned char *a = malloc((size_t)lda * cols * es), *c = malloc((size_t)ldc * cols * es),
                  *cpat = malloc((size_t)ldc * cols * es);
    ck_fill_bytes(a, (size_t)lda * cols * es);
    ck_fill_bytes(cpat, (size_t)ldc * cols * es);
    memcpy(c, cpat, (size_t)ldc * cols * es);
    cufort_devptr dp = 0;
    if (!CHECK_F77(ALLOC(I(rows * cols), I(es), &dp), 0, ckf("%s: alloc", what))) return;
    CHECK(dp != 0, ckf("%s: address non-zero", what), "devPtr = 0");
    CHECK_F77(SET_MATRIX(I(rows), I(cols), I(es), a, I(lda), &dp, I(rows)), 0, ckf("%s: set_matrix", what));
    CHECK_F77(GET_MATRIX(I(rows), I(cols), I(es), &dp, I(rows), c, I(ldc)), 0, ckf("%s: get_matrix", what));
    int bad = -1;
    for (int e = 0; e < ldc * cols && bad < 0; e++) {
        int i = e % ldc, j = e / ldc;
        const unsigned char *want = i < rows ? a + (size_t)(i + j * lda) * es : cpat + (size_t)e * es;
        if (memcmp(c + (size_t)e * es, want, (size_t)es)) bad = e;
    }
    CHECK(bad < 0, ckf("%s: exact, padding untouched", what), "element %d (row %d) wrong", bad,
          bad < 0 ? 0 : bad % ldc);
    /* the same device matrix seen through the C ABI */
    unsigned char *packed = malloc((size_t)rows * cols * es);
    CHECK_OK(cufort_get_matrix(rows, cols, es, cufort_f77_ptr(dp), rows, packed, rows),
             ckf("%s: C ABI sees the integer*8 address", what));
    free(packed);
    CHECK_F77(FREE(&dp), 0, ckf("%s: free", what));
    free(a);
    free(c);
    free(cpat);
}

/* device pointer arithmetic on integer*8 addresses, as seed 001's matrixmod does with IDX2F */
static void pointer_arithmetic(void)
{
    enum { M = 6, N = 5 };
    float a[M * N], back[M * N];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) a[i + j * M] = (float)(i * N + j + 1);
    cufort_devptr dp = 0;
    CHECK_F77(ALLOC(I(M * N), I(4), &dp), 0, "matrixmod alloc");
    CHECK_F77(SET_MATRIX(I(M), I(N), I(4), a, I(M), &dp, I(M)), 0, "matrixmod set_matrix");
    /* row p = 2 (1-based), columns q = 3..N: element (p,q) at devPtr + 4 * ((q-1)*M + (p-1)) */
    const int p = 2, q = 3;
    float row[N], rowback[N];
    for (int k = 0; k < N - q + 1; k++) row[k] = -100.0f - k;
    cufort_devptr at = dp + 4 * ((q - 1) * M + (p - 1));
    CHECK_F77(SET_VECTOR(I(N - q + 1), I(4), row, I(1), &at, I(M)), 0, "matrixmod set_vector along a row");
    CHECK_F77(GET_VECTOR(I(N - q + 1), I(4), &at, I(M), rowback, I(1)), 0, "matrixmod get_vector along a row");
    CHECK(!memcmp(row, rowback, sizeof(float) * (N - q + 1)), "matrixmod row round trip", "differs");
    CHECK_F77(GET_MATRIX(I(M), I(N), I(4), &dp, I(M), back, I(M)), 0, "matrixmod get_matrix");
    int ok = 1;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            float want = (i == p - 1 && j >= q - 1) ? -100.0f - (j - (q - 1)) : a[i + j * M];
            ok &= back[i + j * M] == want;
        }
    CHECK(ok, "matrixmod only row p, columns q..n changed", "matrix differs");
    /* one element past the end of the allocation along the row is refused */
    CHECK_F77(SET_VECTOR(I(N - q + 2), I(4), row, I(1), &at, I(M)), CUFORT_BAD_POINTER,
              "row running past the matrix refused");
    CHECK_F77(GET_ERROR(), CUFORT_BAD_POINTER, "cublas_get_error after running past the matrix");
    CHECK_F77(FREE(&dp), 0, "matrixmod free");
}

static void errors(void)
{
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    cufort_devptr dp = 0;
    CHECK_F77(ALLOC(I(8), I(4), &dp), 0, "alloc for error tests");
    CHECK_F77(GET_ERROR(), 0, "cublas_get_error 0 after successes");

    CHECK_F77(SET_VECTOR(I(8), I(4), x, I(0), &dp, I(1)), CUFORT_INVALID_VALUE, "set_vector incx=0");
    CHECK_F77(GET_ERROR(), CUFORT_INVALID_VALUE, "cublas_get_error after incx=0 is 7");
    CHECK_F77(GET_ERROR(), CUFORT_SUCCESS, "cublas_get_error then 0");

    CHECK_F77(SET_VECTOR(I(8), I(4), x, I(1), &dp, I(0)), CUFORT_INVALID_VALUE, "set_vector incy=0");
    CHECK_F77(SET_VECTOR(I(8), I(4), x, I(1), &dp, I(1)), CUFORT_SUCCESS, "set_vector after a failure");
    CHECK_F77(GET_ERROR(), CUFORT_INVALID_VALUE, "a success does not clear cublas_get_error");
    CHECK_F77(GET_ERROR(), CUFORT_SUCCESS, "cublas_get_error cleared by reading");

    CHECK_F77(SET_VECTOR(I(-1), I(4), x, I(1), &dp, I(1)), CUFORT_INVALID_VALUE, "set_vector n=-1");
    CHECK_F77(GET_VECTOR(I(8), I(0), &dp, I(1), x, I(1)), CUFORT_INVALID_VALUE, "get_vector elemSize=0");
    CHECK_F77(SET_MATRIX(I(4), I(2), I(4), x, I(3), &dp, I(4)), CUFORT_INVALID_VALUE, "set_matrix lda<rows");
    CHECK_F77(GET_MATRIX(I(4), I(2), I(4), &dp, I(4), x, I(2)), CUFORT_INVALID_VALUE, "get_matrix ldb<rows");
    CHECK_F77(GET_ERROR(), CUFORT_INVALID_VALUE, "cublas_get_error after several failures");

    /* cublas_alloc argument checks; n * elemSize computed in 64 bits */
    cufort_devptr q = 777;
    CHECK_F77(ALLOC(I(-1), I(4), &q), CUFORT_INVALID_VALUE, "cublas_alloc n=-1");
    CHECK_F77(ALLOC(I(10), I(0), &q), CUFORT_INVALID_VALUE, "cublas_alloc elemSize=0");
    q = 777;
    CHECK_F77(ALLOC(I(INT32_MAX), I(INT32_MAX), &q), CUFORT_ALLOC_FAILED,
              "cublas_alloc (2^31-1)^2 bytes out of memory (no 32-bit overflow)");
    CHECK(q == 0, "failed cublas_alloc gives address 0", "devPtr = %lld", (long long)q);
    CHECK_F77(GET_ERROR(), CUFORT_ALLOC_FAILED, "cublas_get_error after out of memory is 3");
    /* more than 2^31 bytes: 64-bit sizes and integer*8 address arithmetic (host: pages untouched) */
    {
        cufort_devptr big = 0;
        int st = (int)ALLOC(I(1 << 30), I(3), &big); /* 3 GiB */
        CHECK(st == 0 || st == CUFORT_ALLOC_FAILED, "cublas_alloc 3 GiB", "status %d", st);
        if (st == 0) {
            float tail[2] = {1.25f, -2.5f}, tb[2] = {0, 0};
            cufort_devptr end = big + ((int64_t)3 << 30) - 8;
            CHECK_F77(SET_VECTOR(I(2), I(4), tail, I(1), &end, I(1)), 0, "set_vector at 3 GiB - 8");
            CHECK_F77(GET_VECTOR(I(2), I(4), &end, I(1), tb, I(1)), 0, "get_vector at 3 GiB - 8");
            CHECK(tb[0] == tail[0] && tb[1] == tail[1], "data at 3 GiB - 8", "%g %g", tb[0], tb[1]);
            CHECK_F77(FREE(&big), 0, "free 3 GiB");
        }
        GET_ERROR();
    }

    /* addresses cufort did not allocate */
    float *m = malloc(64);
    cufort_devptr mp = (cufort_devptr)(intptr_t)m;
    CHECK_F77(GET_VECTOR(I(4), I(4), &mp, I(1), x, I(1)), CUFORT_BAD_POINTER, "get_vector from a malloc'd address");
    CHECK_MSG("cufort_get_vector", "get_vector from a malloc'd address (message)");
    CHECK_F77(GET_ERROR(), CUFORT_BAD_POINTER, "cublas_get_error after a bad address is 101");
    CHECK_F77(FREE(&mp), CUFORT_BAD_POINTER, "cublas_free of a malloc'd address");
    free(m);
    CHECK_F77(FREE(&dp), 0, "free");
    CHECK_F77(FREE(&dp), CUFORT_BAD_POINTER, "cublas_free twice");
    CHECK_F77(FREE(P(0)), 0, "cublas_free of address 0 is a no-op");
    GET_ERROR();
}

static void complex_double(void)
{
    /* complex*16 vector with strides on both sides */
    enum { N = 9 };
    double z[2 * N * 2], back[2 * N * 3];
    ck_fill_d(z, 2 * N * 2);
    for (int i = 0; i < 2 * N * 3; i++) back[i] = 99.0;
    cufort_devptr dp = 0;
    CHECK_F77(ALLOC(I(2 * N), I(16), &dp), 0, "complex*16 alloc");
    CHECK_F77(SET_VECTOR(I(N), I(16), z, I(2), &dp, I(2)), 0, "complex*16 set_vector incx=2 incy=2");
    CHECK_F77(GET_VECTOR(I(N), I(16), &dp, I(2), back, I(3)), 0, "complex*16 get_vector incy=3");
    int ok = 1;
    for (int k = 0; k < N; k++) {
        ok &= back[6 * k] == z[4 * k] && back[6 * k + 1] == z[4 * k + 1];
        if (k < N - 1) ok &= back[6 * k + 2] == 99.0 && back[6 * k + 5] == 99.0;
    }
    CHECK(ok, "complex*16 strided round trip, gaps untouched", "differs");
    CHECK_F77(FREE(&dp), 0, "complex*16 free");
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ck_begin("f77_helpers", 300);
    ck_seed(1977);
    if (!CHECK(resolve_helpers(), "legacy helpers found",
               "cublas_init & co. neither linked nor beside libcufort.so: link with -lcufort_f77 -lcufort (%s)",
               dlerror() ? dlerror() : "not found"))
        return ck_end();
    printf("# legacy helpers from %s\n", helpers_from);
    before_init();
    CHECK_F77(INIT(), 0, "cublas_init");
    CHECK_F77(INIT(), 0, "cublas_init twice");
    CHECK_F77(GET_ERROR(), 0, "cublas_get_error after init");
    printf("# backend %s\n", cufort_backend_name());
    round_trip(7, 5, 4, 9, 8);
    round_trip(1, 1, 8, 1, 1);
    round_trip(33, 17, 16, 40, 33);
    round_trip(4, 6, 8, 4, 5);
    pointer_arithmetic();
    errors();
    complex_double();
    CHECK_F77(SHUTDOWN(), 0, "cublas_shutdown");
    cufort_devptr dp = 5;
    CHECK_F77(ALLOC(I(4), I(4), &dp), CUFORT_NOT_INITIALIZED, "cublas_alloc after cublas_shutdown");
    CHECK_F77(GET_ERROR(), CUFORT_NOT_INITIALIZED, "cublas_get_error after shutdown");
    CHECK_F77(INIT(), 0, "cublas_init again");
    round_trip(3, 2, 4, 3, 3);
    CHECK_F77(SHUTDOWN(), 0, "cublas_shutdown again");
    return ck_end();
}
