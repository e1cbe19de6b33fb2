/* cufort_fft.h — FFT plans of the cufort C ABI (included by cufort.h).
 *
 * The C ABI speaks cuFFT's language: dimensions in C (row-major) order, n[0] slowest; the Fortran
 * layers reverse them for the caller.  Transforms are unnormalised (inverse(forward(x)) = N*x) unless
 * cufort_fft_set_normalize asks for the inverse to be scaled by 1/N.  Type and direction values are
 * cuFFT's own numbers, so legacy code that spells them as literals keeps working.
 *
 * Layouts: plan_1d/2d/3d and plan_many with NULL embeds use the basic layout — batches stored one
 * after the other, contiguous; for real transforms the complex side holds n_last/2+1 elements in its
 * last dimension and, IN PLACE, the real side is padded to 2*(n_last/2+1) there (the rule cuFFT and
 * FFTW share; an unpadded in-place real array is too short, which the pointer checks catch).  With
 * embeds, element (i0,i1,i2) of batch b sits at b*dist + stride*((i0*embed[1] + i1)*embed[2] + i2),
 * as in cuFFT's and FFTW's advanced layout (embed[0] is not used).  In place, a real transform's
 * advanced layout must overlay its real side on its complex side as the basic layout does: equal
 * strides (each in its own elements), real dist = 2 * complex dist, real embed[last] = 2 * complex
 * embed[last], the other embeds equal; exec refuses any other in place (CUFORT_INVALID_VALUE).
 * A layout spanning more than INT64_MAX bytes is refused when planned (CUFORT_INVALID_VALUE), as
 * are sizes the backend cannot take (CUFORT_NOT_SUPPORTED: FFTW's int arguments on the host
 * backend).  C2R/Z2D may overwrite their input, as cuFFT and FFTW do.  A plan is not to be executed
 * on device arrays (cufort_fft_exec) from two threads at once; on host arrays (cufort_fft_exec_host)
 * it may be, on different arrays, as FFTW allows for its plans (a busy plan runs the other threads'
 * calls on twins it keeps cached). */
#ifndef CUFORT_FFT_H
#define CUFORT_FFT_H

enum {
    CUFORT_FFT_R2C = 0x2a, CUFORT_FFT_C2R = 0x2c, CUFORT_FFT_C2C = 0x29,
    CUFORT_FFT_D2Z = 0x6a, CUFORT_FFT_Z2D = 0x6c, CUFORT_FFT_Z2Z = 0x69
};
enum { CUFORT_FFT_FORWARD = -1, CUFORT_FFT_INVERSE = 1 };

typedef struct cufort_fft_plan_s *cufort_fft_plan;

int cufort_fft_plan_many(cufort_fft_plan *plan, int type, int rank, const int64_t *n, int64_t batch,
                         const int64_t *inembed, int64_t istride, int64_t idist,
                         const int64_t *onembed, int64_t ostride, int64_t odist);
int cufort_fft_plan_1d(cufort_fft_plan *plan, int type, int64_t nx, int64_t batch);
int cufort_fft_plan_2d(cufort_fft_plan *plan, int type, int64_t nx, int64_t ny);
int cufort_fft_plan_3d(cufort_fft_plan *plan, int type, int64_t nx, int64_t ny, int64_t nz);
int cufort_fft_destroy(cufort_fft_plan plan);
int cufort_fft_set_stream(cufort_fft_plan plan, cufort_stream stream);
int cufort_fft_set_normalize(cufort_fft_plan plan, int normalize_inverse);
int cufort_fft_get_type(cufort_fft_plan plan, int *type);

/* Elements (of the input's / output's own type) that one execution spans, for in == out or not. */
int cufort_fft_extents(cufort_fft_plan plan, int in_place, int64_t *in_elements,
                       int64_t *out_elements);

/* in, out: device memory (cufort_fft_exec) or host arrays (cufort_fft_exec_host, thunking); in ==
 * out is in place.  direction: CUFORT_FFT_FORWARD or _INVERSE (R2C/D2Z forward only, C2R/Z2D
 * inverse only).  cufort_fft_exec_host runs on this thread's stream (with its copies), whatever stream
 * the plan was given for device arrays. */
int cufort_fft_exec(cufort_fft_plan plan, const void *in, void *out, int direction);
int cufort_fft_exec_host(cufort_fft_plan plan, const void *in, void *out, int direction);

#endif
