/* alias.c — whether an output array shares memory with an input.  Exact for two arrays of one
 * leading dimension (blocks, rows and columns of one matrix, as LAPACK passes them); two arrays of
 * different leading dimensions count as overlapping when their spans meet, which only arrays
 * carved from one allocation in unusual ways can do.  Batches of matrices (gemm_strided_batched)
 * are compared matrix by matrix wherever their spans meet. */
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

/* ---- batches ---- */

/* Matrix pairs compared (and matrices of a looked at), at most; past them two batches count as
 * overlapping.  Only matrices packed far closer together than they are long need that many. */
#define MOST_PAIRS ((int64_t)1 << 22)

/* a's matrix i, at i * stride elements (inside the batch, whose span the caller checked) */
static cufort_layout nth(cufort_layout a, int64_t stride, int64_t i)
{
    a.p = (const char *)a.p + (size_t)i * (size_t)stride * a.es;
    return a;
}

/* the batch's span, as one column */
static cufort_layout whole(cufort_layout a, int64_t stride, int64_t count)
{
    int64_t e = cufort_extent_bmat(a.rows, a.cols, a.ld, stride, count);
    return cufort_layout_mat(a.p, e, 1, e, a.es);
}

static __int128 floor_div(__int128 x, __int128 y)   /* y > 0 */
{
    return x / y - (x % y < 0);
}

/* The indices j of b's matrices (b_j at b0 + j * step bytes, each eb bytes long; any j, step > 0)
 * whose spans meet [lo, lo + ea): [*first, *last] */
static void meeting(__int128 lo, __int128 ea, __int128 b0, __int128 step, __int128 eb,
                    __int128 *first, __int128 *last)
{
    *first = floor_div(lo - eb - b0, step) + 1;
    *last = floor_div(lo + ea - 1 - b0, step);
}

static int64_t clip(__int128 x, int64_t lo, int64_t hi)
{
    return x < lo ? lo : x > hi ? hi : (int64_t)x;
}

static __int128 bytes_of(cufort_layout a)
{
    return (__int128)cufort_extent_mat(a.rows, a.cols, a.ld) * a.es;
}

int cufort_overlap_batched(cufort_layout a, int64_t sa, int64_t na, cufort_layout b, int64_t sb,
                           int64_t nb)
{
    na = sa ? na : 1;   /* stride 0: one matrix, read again by every batch */
    nb = sb ? nb : 1;
    if (na <= 0 || nb <= 0 || !cufort_overlap(whole(a, sa, na), whole(b, sb, nb)))
        return 0;
    if (nb == 1 && na > 1)
        return cufort_overlap_batched(b, sb, nb, a, sa, na);
    __int128 ea = bytes_of(a), eb = bytes_of(b), a0 = (uintptr_t)a.p, b0 = (uintptr_t)b.p;
    __int128 astep = (__int128)sa * a.es, bstep = (__int128)(nb > 1 ? sb : 1) * b.es;
    __int128 first, last;
    int64_t pairs = 0;
    if (na == 1 || astep == bstep) {
        /* a_i against b_(i+d) lies as a_0 against b_d: each difference d once, on a pair that
         * exists (i and i + d both in their batches) */
        meeting(a0, ea, b0, bstep, eb, &first, &last);
        for (int64_t d = clip(first, -(na - 1), nb), end = clip(last, -na, nb - 1); d <= end; d++) {
            int64_t i = d < 0 ? -d : 0;
            if (++pairs > MOST_PAIRS || cufort_overlap(nth(a, sa, i), nth(b, sb, i + d)))
                return 1;
        }
        return 0;
    }
    /* unequal strides: every pair whose spans meet, over a's matrices that meet b's span */
    meeting(b0, (__int128)cufort_extent_bmat(b.rows, b.cols, b.ld, sb, nb) * b.es, a0, astep, ea,
            &first, &last);
    for (int64_t i = clip(first, 0, na), iend = clip(last, -1, na - 1); i <= iend; i++) {
        if (++pairs > MOST_PAIRS)   /* the matrices of a, too, whether or not b's meet them */
            return 1;
        __int128 f, l;
        meeting(a0 + i * astep, ea, b0, bstep, eb, &f, &l);
        for (int64_t j = clip(f, 0, nb), jend = clip(l, -1, nb - 1); j <= jend; j++)
            if (++pairs > MOST_PAIRS || cufort_overlap(nth(a, sa, i), nth(b, sb, j)))
                return 1;
    }
    return 0;
}
