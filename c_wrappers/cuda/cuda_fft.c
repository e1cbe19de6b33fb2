/* cuda_fft.c — the cuda backend of the FFT plans: cuFFT's 64-bit plan API. */
#include <cufft.h>
#include <stdlib.h>

#include "cuda_internal.h"
#include "fft_internal.h"
#include "fft_scale.h"

static int cufft_status(cufftResult r, const char *call)
{
    if (r == CUFFT_SUCCESS)
        return CUFORT_SUCCESS;
    int st = r == CUFFT_ALLOC_FAILED ? CUFORT_ALLOC_FAILED
             : r == CUFFT_INVALID_VALUE || r == CUFFT_INVALID_SIZE || r == CUFFT_INVALID_TYPE
                 ? CUFORT_INVALID_VALUE
             : r == CUFFT_NOT_SUPPORTED ? CUFORT_NOT_SUPPORTED
                                        : CUFORT_EXECUTION_FAILED;
    return cufort_fail(st, "%s failed: cufftResult %d", call, (int)r);
}

/* cuFFT's planner dies of SIGFPE on a distance of 2^60 elements or more, whatever the batch
 * (cuFFT 12): one transform never uses its distances, so it gets 1; a batch whose distance times
 * the largest element (16 bytes) would not fit int64 is refused, naming cuFFT. */
static int cufft_distances(const struct cufort_fft_plan_s *p, long long *idist, long long *odist)
{
    *idist = p->batch > 1 ? p->idist : 1;
    *odist = p->batch > 1 ? p->odist : 1;
    if (p->advanced && (*idist > INT64_MAX / 16 || *odist > INT64_MAX / 16))
        return cufort_fail(CUFORT_NOT_SUPPORTED, "cuFFT cannot plan a batch with %s = %lld (at most "
                           "2^59 - 1 elements)", *idist > INT64_MAX / 16 ? "idist" : "odist",
                           *idist > INT64_MAX / 16 ? *idist : *odist);
    return CUFORT_SUCCESS;
}

static int cuda_create(struct cufort_fft_plan_s *p)
{
    long long idist, odist;
    int st = cufft_distances(p, &idist, &odist);
    if (!st)
        st = cufort_cuda_bind_thread();
    if (st)
        return st;
    cufftHandle *h = malloc(sizeof *h);
    if (!h)
        return cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory");
    if ((st = cufft_status(cufftCreate(h), "cufftCreate"))) {
        free(h);
        return st;
    }
    /* the 64-bit API takes every size, embed, stride and distance as long long: the spans checked
     * at plan time (they fit int64 bytes) and the distances above are all it needs; its own limits
     * come back as CUFFT_INVALID_SIZE */
    long long n[3], ie[3], oe[3];
    for (int i = 0; i < p->rank; i++) {
        n[i] = p->n[i];
        ie[i] = p->inembed[i];
        oe[i] = p->onembed[i];
    }
    size_t work;
    st = cufft_status(cufftMakePlanMany64(*h, p->rank, n, p->advanced ? ie : NULL, p->istride,
                                          idist, p->advanced ? oe : NULL, p->ostride, odist,
                                          (cufftType)p->type, p->batch, &work),
                      "cufftMakePlanMany64");
    if (st) {
        cufftDestroy(*h);
        free(h);
        return st;
    }
    p->backend = h;
    return CUFORT_SUCCESS;
}

/* on the plan's own device (the cache may evict a plan another device's helper thread made) */
static void cuda_destroy(struct cufort_fft_plan_s *p)
{
    if (p->backend) {
        cufort_cuda_bind_thread();
        int self = cufort_current_device(), other = p->device != self;
        if (other)
            cudaSetDevice(p->device);
        cufftDestroy(*(cufftHandle *)p->backend);
        if (other)
            cudaSetDevice(self);
        free(p->backend);
        p->backend = NULL;
    }
}

static int cuda_exec(struct cufort_fft_plan_s *p, const void *in, void *out, int direction,
                     const cufort_fft_side *is, const cufort_fft_side *os)
{
    (void)is, (void)os;
    int st = cufort_cuda_bind_thread();
    cufftHandle h = *(cufftHandle *)p->backend;
    if (!st)
        st = cufft_status(cufftSetStream(h, (cudaStream_t)p->stream), "cufftSetStream");
    if (st)
        return st;
    void *i = (void *)in;   /* cuFFT's signatures are not const-correct */
    switch (p->type) {
    case CUFORT_FFT_C2C: return cufft_status(cufftExecC2C(h, i, out, direction), "cufftExecC2C");
    case CUFORT_FFT_Z2Z: return cufft_status(cufftExecZ2Z(h, i, out, direction), "cufftExecZ2Z");
    case CUFORT_FFT_R2C: return cufft_status(cufftExecR2C(h, i, out), "cufftExecR2C");
    case CUFORT_FFT_D2Z: return cufft_status(cufftExecD2Z(h, i, out), "cufftExecD2Z");
    case CUFORT_FFT_C2R: return cufft_status(cufftExecC2R(h, i, out), "cufftExecC2R");
    default: return cufft_status(cufftExecZ2D(h, i, out), "cufftExecZ2D");
    }
}

static int cuda_scale(struct cufort_fft_plan_s *p, void *out, const cufort_fft_side *s, double factor)
{
    return cufort_cuda_error((cudaError_t)cufort_launch_fft_scale(
                                 out, cufort_fft_double(p->type) ? 8 : 4, s->complex_side ? 2 : 1,
                                 s->m, s->embed, s->stride, s->dist, p->batch, factor, p->stream),
                             "the FFT normalisation kernel");
}

const cufort_fft_backend cufort_cuda_fft = {cuda_create, cuda_destroy, cuda_exec, cuda_scale};
