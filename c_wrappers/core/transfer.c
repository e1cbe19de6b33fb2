/* transfer.c — set/get vector and matrix between host and device, synchronous or on a stream.
 * A vector of n elements at stride inc is moved as n "columns" of one element, inc apart, so
 * vectors and matrices share one path: cols columns of rows elements, ld apart on each side. */
#include "internal.h"
#include "pin_cache.h"

/* A device-to-device copy between overlapping regions (two views of one array) goes through a
 * temporary block: a 2-D copy reads and writes its rows in no defined order. */
static int d2d_through(const char *fn, int64_t rows, int64_t cols, int64_t es, const void *src,
                       int64_t sld, void *dst, int64_t dld, cufort_stream stream)
{
    const cufort_backend_ops *ops = cufort_ops();
    size_t width = (size_t)(rows * es);
    void *tmp = NULL;
    if (ops->alloc(&tmp, width * (size_t)cols))
        return cufort_fail(CUFORT_ALLOC_FAILED, "%s: no device memory for a copy between overlapping "
                           "regions (%lld bytes)", fn, (long long)(rows * cols * es));
    int st = ops->copy2d(tmp, width, src, (size_t)(sld * es), width, (size_t)cols, CUFORT_D2D, stream, 0);
    if (!st)
        st = ops->copy2d(dst, (size_t)(dld * es), tmp, width, width, (size_t)cols, CUFORT_D2D, stream, 0);
    ops->free(tmp);   /* waits for the copies */
    return cufort_in(fn, st);
}

static int move(const char *fn, cufort_copy_kind kind, int64_t rows, int64_t cols, int64_t es,
                const void *src, int64_t sld, void *dst, int64_t dld, cufort_stream stream,
                int async)
{
    if (async) {
        int st = cufort_check_stream(fn, stream);
        if (st)
            return st;
    }
    if (rows == 0 || cols == 0)
        return CUFORT_SUCCESS;
    sld = cufort_ld_used(rows, cols, sld);
    dld = cufort_ld_used(rows, cols, dld);
    /* the host side cannot be checked against an allocation, but it must fit the address space;
     * with both sides checked, every byte count below fits size_t */
    if (kind != CUFORT_D2D) {
        int st = cufort_check_host_array(
            fn, kind == CUFORT_H2D ? "the host source" : "the host destination",
            cufort_extent_mat(rows, cols, kind == CUFORT_H2D ? sld : dld), (size_t)es);
        if (st)
            return st;
    }
    if (kind != CUFORT_H2D) {
        int st = cufort_check_array(fn, "the source", src, cufort_extent_mat(rows, cols, sld),
                                    (size_t)es);
        if (st)
            return st;
    } else if (!src) {
        return cufort_null_arg(fn, "the host source");
    }
    if (kind != CUFORT_D2H) {
        int st = cufort_check_array(fn, "the destination", dst, cufort_extent_mat(rows, cols, dld),
                                    (size_t)es);
        if (st)
            return st;
    } else if (!dst) {
        return cufort_null_arg(fn, "the host destination");
    }
    if (kind == CUFORT_D2D && cufort_overlap(cufort_layout_mat(src, rows, cols, sld, (size_t)es),
                                             cufort_layout_mat(dst, rows, cols, dld, (size_t)es))) {
        if (src == dst && sld == dld)
            return CUFORT_SUCCESS;
        return d2d_through(fn, rows, cols, es, src, sld, dst, dld, stream);
    }
    if (rows == sld && rows == dld) {      /* contiguous on both sides: one block */
        rows *= cols;
        sld = dld = rows;
        cols = 1;
    }
    if (kind != CUFORT_D2D)
        cufort_pin_cache_clear_way(kind == CUFORT_H2D ? src : dst,
                                   (size_t)(cufort_extent_mat(rows, cols, kind == CUFORT_H2D ? sld : dld) * es));
    return cufort_in(fn, cufort_ops()->copy2d(dst, (size_t)(dld * es), src, (size_t)(sld * es),
                                              (size_t)(rows * es), (size_t)cols, kind, stream,
                                              async));
}

static int vector(const char *fn, cufort_copy_kind kind, int64_t n, int64_t es, const void *x,
                  int64_t incx, void *y, int64_t incy, cufort_stream stream, int async)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (n < 0 || es <= 0 || incx <= 0 || incy <= 0)
        return cufort_fail(CUFORT_INVALID_VALUE,
                           "%s: n = %lld, elem_size = %lld, incx = %lld, incy = %lld: n must be >= 0, "
                           "the others > 0", fn, (long long)n, (long long)es, (long long)incx,
                           (long long)incy);
    return move(fn, kind, 1, n, es, x, incx, y, incy, stream, async);
}

static int matrix(const char *fn, cufort_copy_kind kind, int64_t rows, int64_t cols, int64_t es,
                  const void *a, int64_t lda, void *b, int64_t ldb, cufort_stream stream, int async)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (rows < 0 || cols < 0 || es <= 0 || lda < IMAX(1, rows) || ldb < IMAX(1, rows))
        return cufort_fail(CUFORT_INVALID_VALUE,
                           "%s: rows = %lld, cols = %lld, elem_size = %lld, lda = %lld, ldb = %lld: "
                           "need rows, cols >= 0, elem_size > 0, lda and ldb >= max(1, rows)", fn,
                           (long long)rows, (long long)cols, (long long)es, (long long)lda,
                           (long long)ldb);
    return move(fn, kind, rows, cols, es, a, lda, b, ldb, stream, async);
}

int cufort_set_vector(int64_t n, int64_t es, const void *x, int64_t incx, void *dy, int64_t incy)
{
    return vector("cufort_set_vector", CUFORT_H2D, n, es, x, incx, dy, incy, NULL, 0);
}

int cufort_get_vector(int64_t n, int64_t es, const void *dx, int64_t incx, void *y, int64_t incy)
{
    return vector("cufort_get_vector", CUFORT_D2H, n, es, dx, incx, y, incy, NULL, 0);
}

int cufort_set_vector_async(int64_t n, int64_t es, const void *x, int64_t incx, void *dy,
                            int64_t incy, cufort_stream stream)
{
    return vector("cufort_set_vector_async", CUFORT_H2D, n, es, x, incx, dy, incy, stream, 1);
}

int cufort_get_vector_async(int64_t n, int64_t es, const void *dx, int64_t incx, void *y,
                            int64_t incy, cufort_stream stream)
{
    return vector("cufort_get_vector_async", CUFORT_D2H, n, es, dx, incx, y, incy, stream, 1);
}

int cufort_set_matrix(int64_t rows, int64_t cols, int64_t es, const void *a, int64_t lda, void *db,
                      int64_t ldb)
{
    return matrix("cufort_set_matrix", CUFORT_H2D, rows, cols, es, a, lda, db, ldb, NULL, 0);
}

int cufort_get_matrix(int64_t rows, int64_t cols, int64_t es, const void *da, int64_t lda, void *b,
                      int64_t ldb)
{
    return matrix("cufort_get_matrix", CUFORT_D2H, rows, cols, es, da, lda, b, ldb, NULL, 0);
}

int cufort_copy_matrix(int64_t rows, int64_t cols, int64_t es, const void *da, int64_t lda,
                       void *db, int64_t ldb)
{
    return matrix("cufort_copy_matrix", CUFORT_D2D, rows, cols, es, da, lda, db, ldb, NULL, 0);
}

int cufort_set_matrix_async(int64_t rows, int64_t cols, int64_t es, const void *a, int64_t lda,
                            void *db, int64_t ldb, cufort_stream stream)
{
    return matrix("cufort_set_matrix_async", CUFORT_H2D, rows, cols, es, a, lda, db, ldb, stream, 1);
}

int cufort_get_matrix_async(int64_t rows, int64_t cols, int64_t es, const void *da, int64_t lda,
                            void *b, int64_t ldb, cufort_stream stream)
{
    return matrix("cufort_get_matrix_async", CUFORT_D2H, rows, cols, es, da, lda, b, ldb, stream, 1);
}
