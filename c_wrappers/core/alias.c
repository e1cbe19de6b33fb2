/* alias.c — whether an output array shares memory with an input.  Exact for two arrays of one
 * leading dimension (blocks, rows and columns of one matrix, as LAPACK passes them); two arrays of
 * different leading dimensions count as overlapping when their spans meet, which only arrays
 * carved from one allocation in unusual ways can do. */
#include "internal.h"

/* [p, p + bytes) of an array's span; 0 when the span does not fit uintptr_t (it cannot exist) */
static int span(cufort_layout a, uintptr_t *lo, uintptr_t *hi)
{
    int64_t elems = cufort_extent_mat(a.rows, a.cols, a.ld);
    size_t bytes;
    *lo = (uintptr_t)a.p;
    return elems < INT64_MAX && !__builtin_mul_overflow((size_t)elems, a.es, &bytes) &&
           !__builtin_add_overflow(*lo, bytes, hi);
}

/* One column fits any leading dimension at least its height: take the other array's, so that a
 * column next to a matrix block is compared element by element. */
static void share_ld(cufort_layout *a, const cufort_layout *b)
{
    if (a->cols == 1 && a->rows <= b->ld)
        a->ld = b->ld;
}

int cufort_overlap(cufort_layout a, cufort_layout b)
{
    if (a.rows <= 0 || a.cols <= 0 || b.rows <= 0 || b.cols <= 0)
        return 0;
    uintptr_t alo, ahi, blo, bhi;
    if (!span(a, &alo, &ahi) || !span(b, &blo, &bhi))
        return 1;
    if (ahi <= blo || bhi <= alo)
        return 0;
    if (blo < alo) {   /* a starts first */
        cufort_layout t = a;
        a = b;
        b = t;
        alo = blo;
        blo = (uintptr_t)b.p;
    }
    share_ld(&a, &b);
    share_ld(&b, &a);
    size_t d = blo - alo;
    if (a.ld != b.ld || a.es != b.es || d % a.es || a.rows > a.ld || b.rows > b.ld)
        return 1;
    /* b's element (i, j) is a's (r + i, s + j), or (r + i - ld, s + j + 1) past a's column end */
    int64_t ld = a.ld, off = (int64_t)(d / a.es), s = off / ld, r = off % ld;
    if (r < a.rows && s < a.cols)
        return 1;
    return r + b.rows > ld && s + 1 < a.cols;
}
