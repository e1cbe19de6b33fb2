/* host_fft.c — the host backend of the FFT plans: FFTW3's advanced interface, with the layouts the
 * C ABI resolved, so both backends read and write exactly the same elements.  An FFTW plan fixes
 * in-place-ness and direction, so each cufort plan keeps up to four, made on first use.
 * FFTW is the real one found at run time (cpu_fftw.c), never linked: with the FFTW drop-in loaded,
 * the global fftw_* names are the drop-in's, which would send these transforms back here. */
#include <fftw3.h>   /* the flag values only */
#include <limits.h>
#include <stdlib.h>

#include "fft_internal.h"
#include "host_internal.h"

/* FFTW takes int sizes: the last `rank` dimensions of the 3-D side description. */
typedef struct { int n[3], ie[3], oe[3], is, id, os, od, howmany; } fftw_dims;

typedef struct {
    void *plan[2][2];            /* [in place][inverse] */
    fftw_dims dims[2];           /* [in place] */
} host_plans;

/* FFTW's advanced interface takes every size, embed, stride and distance as an int, and doubles a
 * complex side's strides and distance (its tensors count reals) in int arithmetic. */
static int fftw_int(int *out, int64_t v, int complex_side, const char *name, int basic)
{
    int64_t limit = complex_side ? INT_MAX / 2 : INT_MAX;
    if (v > limit)
        return cufort_fail(CUFORT_NOT_SUPPORTED, "host backend: %s = %lld%s does not fit FFTW's int "
                           "arguments (at most %lld%s)", name, (long long)v,
                           basic ? " (of the basic layout)" : "", (long long)limit,
                           complex_side ? " for a complex side, whose strides FFTW doubles" : "");
    *out = (int)v;
    return CUFORT_SUCCESS;
}

static int narrow(const struct cufort_fft_plan_s *p, const cufort_fft_side *is,
                  const cufort_fft_side *os, fftw_dims *d)
{
    static const char *const n_name[3] = {"n[0]", "n[1]", "n[2]"};
    static const char *const ie_name[3] = {"inembed[0]", "inembed[1]", "inembed[2]"};
    static const char *const oe_name[3] = {"onembed[0]", "onembed[1]", "onembed[2]"};
    int st = CUFORT_SUCCESS, basic = !p->advanced;
    for (int i = 0; i < p->rank && !st; i++) {
        int k = 3 - p->rank + i;
        st = fftw_int(&d->n[i], p->n[i], 0, n_name[i], 0);
        if (i == 0) {   /* FFTW, as cuFFT, never reads embed[0] */
            d->ie[0] = d->oe[0] = d->n[0];
            continue;
        }
        if (!st && !(st = fftw_int(&d->ie[i], is->embed[k], 0, ie_name[i], basic)))
            st = fftw_int(&d->oe[i], os->embed[k], 0, oe_name[i], basic);
    }
    if (!st && !(st = fftw_int(&d->is, is->stride, is->complex_side, "istride", basic)))
        st = fftw_int(&d->os, os->stride, os->complex_side, "ostride", basic);
    if (!st)
        st = fftw_int(&d->howmany, p->batch, 0, "batch", 0);
    d->id = d->od = 0;   /* one transform: FFTW never reads the distances */
    if (!st && p->batch > 1 && !(st = fftw_int(&d->id, is->dist, is->complex_side, "idist", basic)))
        st = fftw_int(&d->od, os->dist, os->complex_side, "odist", basic);
    return st;
}

/* FFTW plans are made at first use, but whether FFTW can take the sizes is known now: both the
 * in-place and the out-of-place layout must fit. */
static int host_create(struct cufort_fft_plan_s *p)
{
    if (!cufort_cpu_fftw(!cufort_fft_double(p->type)))
        return CUFORT_NOT_SUPPORTED;
    host_plans *hp = calloc(1, sizeof *hp);
    if (!hp)
        return cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory");
    int st = CUFORT_SUCCESS;
    for (int in_place = 0; in_place < 2 && !st; in_place++)
        st = narrow(p, &p->side[in_place][0], &p->side[in_place][1], &hp->dims[in_place]);
    if (st) {
        free(hp);
        return st;
    }
    p->backend = hp;
    return CUFORT_SUCCESS;
}

static void host_destroy(struct cufort_fft_plan_s *p)
{
    host_plans *hp = p->backend;
    if (!hp)
        return;
    const cufort_fftw_api *fftw = cufort_cpu_fftw(!cufort_fft_double(p->type));   /* made it */
    cufort_cpu_fftw_lock();
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (hp->plan[i][j])
                fftw->destroy_plan(hp->plan[i][j]);
    cufort_cpu_fftw_unlock();
    free(hp);
    p->backend = NULL;
}

#define FLAGS (FFTW_ESTIMATE | FFTW_UNALIGNED)

static int exec_fftw(struct cufort_fft_plan_s *p, void **slot, const fftw_dims *d, void *in,
                     void *out, int direction)
{
    const cufort_fftw_api *fftw = cufort_cpu_fftw(!cufort_fft_double(p->type));
    cufort_cpu_fftw_lock();
    if (!*slot) {
        if (cufort_fft_real_in(p->type))
            *slot = fftw->plan_many_dft_r2c(p->rank, d->n, d->howmany, in, d->ie, d->is, d->id, out,
                                            d->oe, d->os, d->od, FLAGS);
        else if (cufort_fft_real_out(p->type))
            *slot = fftw->plan_many_dft_c2r(p->rank, d->n, d->howmany, in, d->ie, d->is, d->id, out,
                                            d->oe, d->os, d->od, FLAGS);
        else
            *slot = fftw->plan_many_dft(p->rank, d->n, d->howmany, in, d->ie, d->is, d->id, out,
                                        d->oe, d->os, d->od, direction, FLAGS);
    }
    cufort_cpu_fftw_unlock();
    if (!*slot)
        return cufort_fail(CUFORT_NOT_SUPPORTED, "FFTW could not plan this transform");
    cufort_cpu_fftw_enter();
    if (cufort_fft_real_in(p->type))
        fftw->execute_dft_r2c(*slot, in, out);
    else if (cufort_fft_real_out(p->type))
        fftw->execute_dft_c2r(*slot, in, out);
    else
        fftw->execute_dft(*slot, in, out);
    cufort_cpu_fftw_leave();
    return CUFORT_SUCCESS;
}

static int host_exec(struct cufort_fft_plan_s *p, const void *in, void *out, int direction,
                     const cufort_fft_side *is, const cufort_fft_side *os)
{
    (void)is, (void)os;   /* narrowed at plan time: hp->dims */
    host_plans *hp = p->backend;
    int in_place = in == out;
    void **slot = &hp->plan[in_place][direction == CUFORT_FFT_INVERSE];
    const fftw_dims *d = &hp->dims[in_place];
    return exec_fftw(p, slot, d, (void *)in, out, direction);
}

static int host_scale(struct cufort_fft_plan_s *p, void *out, const cufort_fft_side *s, double factor)
{
    int comps = s->complex_side ? 2 : 1;
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t i0 = 0; i0 < s->m[0]; i0++)
            for (int64_t i1 = 0; i1 < s->m[1]; i1++)
                for (int64_t i2 = 0; i2 < s->m[2]; i2++) {
                    int64_t at = comps * (b * s->dist + s->stride * ((i0 * s->embed[1] + i1) * s->embed[2] + i2));
                    for (int c = 0; c < comps; c++) {
                        if (cufort_fft_double(p->type))
                            ((double *)out)[at + c] *= factor;
                        else
                            ((float *)out)[at + c] *= (float)factor;
                    }
                }
    return CUFORT_SUCCESS;
}

const cufort_fft_backend cufort_host_fft = {host_create, host_destroy, host_exec, host_scale};
