/* layout.c — the arithmetic of a DFT problem in guru form: its flops, the bytes its arrays span, and
 * whether cuFFT's layouts (cufort_fft_plan_many: n, embeds, stride, dist) express it.
 *
 * cuFFT's advanced layout puts element (i0,i1,i2) of batch b at b*dist + stride*((i0*embed[1] + i1)
 * *embed[2] + i2): one stride, the other dimensions' steps multiples of it by an embed no smaller
 * than the dimension, one batch dimension.  FFTW's guru dims are freer (any strides, negative ones,
 * several batch dimensions, rank 0 or above 3); what cuFFT cannot say stays on the real FFTW.  In
 * place, only the layouts cufort stages as one span both ways with cuFFT's in-place rules: the
 * basic ones (FFTW's padded real rows for r2c/c2r) and, for c2c, identical input and output layouts. */
#include <math.h>

#include "fftw_dropin.h"

/* the logical size of dimension k on one side: the complex side of a real transform keeps n/2+1
 * points of its last dimension */
static ptrdiff_t side_n(const drop_problem *pb, int input, int k)
{
    int complex_side = pb->kind == KIND_C2C || (pb->kind == KIND_R2C) != input;
    ptrdiff_t n = pb->dims[k].n;
    return !complex_side || pb->kind == KIND_C2C || k != pb->rank - 1 ? n : n / 2 + 1;
}

static size_t elem_bytes(const drop_problem *pb, int input)
{
    int complex_side = pb->kind == KIND_C2C || (pb->kind == KIND_R2C) != input;
    return (pb->single ? 4u : 8u) * (complex_side ? 2u : 1u);
}

double drop_flops(const drop_problem *pb)
{
    double n = 1, howmany = 1;
    for (int k = 0; k < pb->rank; k++)
        n *= (double)pb->dims[k].n;
    for (int k = 0; k < pb->howmany_rank; k++)
        howmany *= (double)pb->howmany[k].n;
    double per = n > 1 ? 5.0 * n * log2(n) : 0;
    return (pb->kind == KIND_C2C ? per : per / 2) * howmany;
}

size_t drop_span(const drop_problem *pb, int input, ptrdiff_t *lowest)
{
    ptrdiff_t lo = 0, hi = 0;
    *lowest = 0;
    for (int pass = 0; pass < 2; pass++) {
        int count = pass ? pb->howmany_rank : pb->rank;
        const drop_dim *d = pass ? pb->howmany : pb->dims;
        for (int k = 0; k < count; k++) {
            ptrdiff_t n = pass ? d[k].n : side_n(pb, input, k);
            if (n < 1)
                return 0;
            ptrdiff_t step = (n - 1) * (input ? d[k].is : d[k].os);
            if (step < 0)
                lo += step;
            else
                hi += step;
        }
    }
    size_t e = elem_bytes(pb, input);
    *lowest = lo * (ptrdiff_t)e;
    return (size_t)(hi - lo + 1) * e;
}

/* One side's cuFFT description: stride and embeds, 0 when its strides are not of that form. */
static int side_layout(const drop_problem *pb, int input, int64_t *embed, int64_t *stride)
{
    int r = pb->rank;
    ptrdiff_t s[3];
    for (int k = 0; k < r; k++)
        s[k] = input ? pb->dims[k].is : pb->dims[k].os;
    if (s[r - 1] < 1)
        return 0;
    *stride = s[r - 1];
    embed[0] = side_n(pb, input, 0);
    for (int k = 1; k < r; k++) {
        if (s[k - 1] < 1 || s[k - 1] % s[k] != 0 || s[k - 1] / s[k] < side_n(pb, input, k))
            return 0;
        embed[k] = s[k - 1] / s[k];
    }
    return 1;
}

/* the basic layout of cufort's C ABI: stride 1, embeds the logical sizes (a real side in place:
 * its last dimension padded to the complex side's length in reals), batches back to back */
static int is_basic(const drop_plan *p, const int64_t *embed, int64_t stride, int64_t dist, int input,
                    int in_place)
{
    const drop_problem *pb = &p->pb;
    int real_side = pb->kind != KIND_C2C && (pb->kind == KIND_R2C) == input;
    int64_t product = 1;
    for (int k = 0; k < pb->rank; k++) {
        int64_t want = side_n(pb, input, k);
        if (k == pb->rank - 1 && real_side && in_place)
            want = 2 * (pb->dims[k].n / 2 + 1);
        if (k > 0 && embed[k] != want)
            return 0;
        product *= k > 0 ? want : side_n(pb, input, 0);
    }
    return stride == 1 && (p->batch == 1 || dist == product);
}

int drop_engine_layout(const drop_problem *pb0, drop_plan *p)
{
    drop_problem pb = *pb0;
    if (pb.rank < 1 || pb.rank > 3 || pb.howmany_rank > 1)
        return 0;
    for (int k = 0; k < pb.rank; k++)
        if (pb.dims[k].n < 1)
            return 0;
    if (pb.kind == KIND_C2C)   /* dimensions of a complex DFT may come in any order: slowest first */
        for (int i = 1; i < pb.rank; i++)
            for (int j = i; j > 0 && pb.dims[j - 1].is < pb.dims[j].is; j--) {
                drop_dim t = pb.dims[j];
                pb.dims[j] = pb.dims[j - 1];
                pb.dims[j - 1] = t;
            }
    int64_t batch = 1, idist = 1, odist = 1;
    if (pb.howmany_rank == 1) {
        batch = pb.howmany[0].n;
        idist = pb.howmany[0].is;
        odist = pb.howmany[0].os;
        if (batch < 1)
            return 0;
        if (batch == 1)
            idist = odist = 1;
        else if (idist < 1 || odist < 1)
            return 0;
    }
    int64_t ie[3], oe[3], is, os;
    if (!side_layout(&pb, 1, ie, &is) || !side_layout(&pb, 0, oe, &os))
        return 0;
    int in_place = pb.in == pb.out;
    p->batch = batch;
    for (int k = 0; k < pb.rank; k++) {
        p->n[k] = pb.dims[k].n;
        p->inembed[k] = ie[k];
        p->onembed[k] = oe[k];
    }
    p->istride = is, p->ostride = os, p->idist = idist, p->odist = odist;
    int basic = is_basic(p, ie, is, idist, 1, in_place) && is_basic(p, oe, os, odist, 0, in_place);
    if (in_place && !basic) {
        if (pb.kind != KIND_C2C || is != os || idist != odist)
            return 0;
        for (int k = 1; k < pb.rank; k++)
            if (ie[k] != oe[k])
                return 0;
    }
    p->advanced = !basic;
    ptrdiff_t lowest;
    p->bytes = (double)drop_span(&pb, 1, &lowest) + (double)drop_span(&pb, 0, &lowest);
    return 1;
}

/* ---- the interfaces' descriptions in guru form ---- */

int drop_problem_many(drop_problem *pb, int rank, const int *n, int howmany, const int *inembed,
                      int istride, int idist, const int *onembed, int ostride, int odist)
{
    if (rank < 0 || rank > MAX_RANK || howmany < 0 || (rank > 0 && !n))
        return 0;
    for (int k = 0; k < rank; k++)
        if (n[k] < 1)
            return 0;
    int in_place = pb->in == pb->out;
    pb->rank = rank;
    pb->howmany_rank = 1;
    ptrdiff_t is = istride, os = ostride;
    for (int k = rank - 1; k >= 0; k--) {
        /* FFTW's rows when no embedding is given: the complex side of a real transform keeps
         * n/2+1 points of its last dimension, its real side in place is padded to twice that */
        ptrdiff_t ie = n[k], oe = n[k];
        if (pb->kind != KIND_C2C && k == rank - 1) {
            ptrdiff_t half = n[k] / 2 + 1, real = in_place ? 2 * half : n[k];
            ie = pb->kind == KIND_R2C ? real : half;
            oe = pb->kind == KIND_R2C ? half : real;
        }
        if (inembed)
            ie = inembed[k];
        if (onembed)
            oe = onembed[k];
        pb->dims[k] = (drop_dim){n[k], is, os};
        is *= ie;
        os *= oe;
    }
    pb->howmany[0] = (drop_dim){howmany, idist, odist};
    return 1;
}

/* The guru interfaces, in int and in ptrdiff_t dimensions: the same reading of either. */
#define DEFINE_GURU(name, iodim)                                                                   \
    int name(drop_problem *pb, int rank, const iodim *dims, int howmany_rank,                      \
             const iodim *howmany_dims)                                                            \
    {                                                                                              \
        if (rank < 0 || rank > MAX_RANK || howmany_rank < 0 || howmany_rank > MAX_RANK ||          \
            (rank > 0 && !dims) || (howmany_rank > 0 && !howmany_dims))                            \
            return 0;                                                                              \
        pb->rank = rank;                                                                           \
        pb->howmany_rank = howmany_rank;                                                           \
        for (int k = 0; k < rank; k++)                                                             \
            pb->dims[k] = (drop_dim){dims[k].n, dims[k].is, dims[k].os};                           \
        for (int k = 0; k < howmany_rank; k++)                                                     \
            pb->howmany[k] = (drop_dim){howmany_dims[k].n, howmany_dims[k].is, howmany_dims[k].os}; \
        return 1;                                                                                  \
    }

DEFINE_GURU(drop_problem_guru, fftw_iodim)
DEFINE_GURU(drop_problem_guru64, fftw_iodim64)
