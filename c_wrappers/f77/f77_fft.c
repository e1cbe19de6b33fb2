/* f77_fft.c — legacy FFT plan names for Fortran (both F77 libraries).  Dimensions come in Fortran
 * order (first index fastest) and are reversed here for the C ABI, which speaks cuFFT's C order:
 * a Fortran array a(nx, ny) is planned with cufft_plan2d(plan, nx, ny, type).  Functions return a
 * cufort status (0 = success); plans are integer*8 handles. */
#include "f77_fft.h"
#include "internal.h"

f77_int F77_NAME(cufft_plan1d, CUFFT_PLAN1D)(int64_t *plan, const f77_int *nx, const f77_int *type,
                                             const f77_int *batch)
{
    cufort_fft_plan p = NULL;
    int t = 0;
    int st = cufort_f77_fft_start("cufft_plan1d");
    if (!st)
        st = cufort_f77_fft_int(*type, &t, "cufft_plan1d", "type");
    if (!st)
        st = cufort_fft_plan_1d(&p, t, *nx, *batch);
    *plan = (int64_t)(intptr_t)p;
    return st;
}

f77_int F77_NAME(cufft_plan2d, CUFFT_PLAN2D)(int64_t *plan, const f77_int *nx, const f77_int *ny,
                                             const f77_int *type)
{
    cufort_fft_plan p = NULL;
    int t = 0;
    int st = cufort_f77_fft_start("cufft_plan2d");
    if (!st)
        st = cufort_f77_fft_int(*type, &t, "cufft_plan2d", "type");
    if (!st)
        st = cufort_fft_plan_2d(&p, t, *ny, *nx);
    *plan = (int64_t)(intptr_t)p;
    return st;
}

f77_int F77_NAME(cufft_plan3d, CUFFT_PLAN3D)(int64_t *plan, const f77_int *nx, const f77_int *ny,
                                             const f77_int *nz, const f77_int *type)
{
    cufort_fft_plan p = NULL;
    int t = 0;
    int st = cufort_f77_fft_start("cufft_plan3d");
    if (!st)
        st = cufort_f77_fft_int(*type, &t, "cufft_plan3d", "type");
    if (!st)
        st = cufort_fft_plan_3d(&p, t, *nz, *ny, *nx);
    *plan = (int64_t)(intptr_t)p;
    return st;
}

/* inembed(1) = 0 (and onembed likewise) asks for the basic layout, as NULL does in C: then only
 * that element is read.  The rank is checked before any array is indexed by it. */
f77_int F77_NAME(cufft_plan_many, CUFFT_PLAN_MANY)(int64_t *plan, const f77_int *rank,
                                                   const f77_int *n, const f77_int *inembed,
                                                   const f77_int *istride, const f77_int *idist,
                                                   const f77_int *onembed, const f77_int *ostride,
                                                   const f77_int *odist, const f77_int *type,
                                                   const f77_int *batch)
{
    cufort_fft_plan p = NULL;
    *plan = 0;
    int st = cufort_f77_fft_start("cufft_plan_many");
    if (st)
        return st;
    int64_t r = *rank;
    if (r < 1 || r > 3)
        return cufort_fail(CUFORT_INVALID_VALUE, "cufft_plan_many: rank %lld not in 1..3", (long long)r);
    int basic = inembed[0] == 0 || onembed[0] == 0;
    int64_t cn[3] = {0}, ci[3] = {0}, co[3] = {0};
    for (int i = 0; i < r; i++) {
        cn[i] = n[r - 1 - i];
        if (!basic) {
            ci[i] = inembed[r - 1 - i];
            co[i] = onembed[r - 1 - i];
        }
    }
    int t = 0;
    st = cufort_f77_fft_int(*type, &t, "cufft_plan_many", "type");
    if (st)
        return st;
    st = cufort_fft_plan_many(&p, t, (int)r, cn, *batch, basic ? NULL : ci, *istride, *idist,
                              basic ? NULL : co, *ostride, *odist);
    *plan = (int64_t)(intptr_t)p;
    return st;
}

f77_int F77_NAME(cufft_destroy, CUFFT_DESTROY)(const int64_t *plan)
{
    int st = cufort_f77_fft_start("cufft_destroy");
    return st ? st : cufort_fft_destroy(cufort_f77_plan(*plan));
}

f77_int F77_NAME(cufft_set_stream, CUFFT_SET_STREAM)(const int64_t *plan, const int64_t *stream)
{
    int st = cufort_f77_fft_start("cufft_set_stream");
    return st ? st : cufort_fft_set_stream(cufort_f77_plan(*plan), (cufort_stream)(intptr_t)*stream);
}

f77_int F77_NAME(cufft_set_normalize, CUFFT_SET_NORMALIZE)(const int64_t *plan, const f77_int *on)
{
    int st = cufort_f77_fft_start("cufft_set_normalize");
    return st ? st : cufort_fft_set_normalize(cufort_f77_plan(*plan), *on != 0);
}
