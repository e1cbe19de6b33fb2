/* test_fft.c — FFT plans of the C ABI against FFTW3 computed in double precision.
 * Each case lays random data (never zero) out as the plan's layout says, with NaN in every gap
 * the transform must not read; runs the plan on device memory (cufort_fft_exec) and on host arrays
 * (cufort_fft_exec_host); compares every logical output element with the oracle and checks that
 * gaps of the output were left alone.  Also round trips, normalisation and the error paths; that
 * repeated thunked transforms allocate nothing; the plan cache behind `use cufort` (reuse, bound,
 * LRU, reset, stale handles) and its use from several threads at once. */
#define _GNU_SOURCE
#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cufort.h"
#include "fft_internal.h"   /* the plan cache and its counters, the block registries */

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)   /* in ±[0.1, 1] */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    double u = (double)(rng >> 11) / 9007199254740992.0;
    return (u < 0.5 ? -1 : 1) * (0.1 + 0.9 * fabs(2 * u - 1));
}

typedef struct {
    const char *name;
    int type, rank, in_place, normalize;
    int64_t n[3], batch;
    int advanced;                 /* use the embeds/strides below */
    int64_t ie[3], is, id, oe[3], os, od;
    int pinned;                   /* thunk from pinned host arrays (large batches go in parts) */
} fcase;

/* a pinned copy of a host buffer (freed with cufort_host_free) */
static void *pinned_copy(const void *src, size_t bytes)
{
    void *p = NULL;
    if (cufort_host_alloc(&p, (int64_t)bytes) || !p)
        return NULL;
    memcpy(p, src, bytes);
    return p;
}

static int is_double(int t) { return t == CUFORT_FFT_Z2Z || t == CUFORT_FFT_D2Z || t == CUFORT_FFT_Z2D; }
static int real_in(int t) { return t == CUFORT_FFT_R2C || t == CUFORT_FFT_D2Z; }
static int real_out(int t) { return t == CUFORT_FFT_C2R || t == CUFORT_FFT_Z2D; }

/* the test's own reading of a layout (independent of the library's) */
typedef struct { int64_t m[3], e[3], stride, dist; int cplx; } side;

static side layout(const fcase *c, int input)
{
    side s;
    int real = input ? real_in(c->type) : real_out(c->type);
    int half = !real && (real_in(c->type) || real_out(c->type));
    for (int i = 0; i < 3; i++)
        s.m[i] = i < 3 - c->rank ? 1 : c->n[i - (3 - c->rank)];
    if (half)
        s.m[2] = s.m[2] / 2 + 1;
    s.cplx = !real;
    if (c->advanced) {
        const int64_t *e = input ? c->ie : c->oe;
        for (int i = 0; i < 3; i++)
            s.e[i] = i < 3 - c->rank ? 1 : e[i - (3 - c->rank)];
        s.stride = input ? c->is : c->os;
        s.dist = input ? c->id : c->od;
    } else {
        memcpy(s.e, s.m, sizeof s.e);
        if (c->in_place && real)
            s.e[2] = 2 * (s.m[2] / 2 + 1);
        s.stride = 1;
        s.dist = s.e[0] * s.e[1] * s.e[2];
    }
    return s;
}

static int64_t offset(const side *s, int64_t b, int64_t i0, int64_t i1, int64_t i2)
{
    return b * s->dist + s->stride * ((i0 * s->e[1] + i1) * s->e[2] + i2);
}

static int64_t span(const side *s, int64_t batch)
{
    return offset(s, batch - 1, s->m[0] - 1, s->m[1] - 1, s->m[2] - 1) + 1;
}

static int64_t count(const side *s) { return s->m[0] * s->m[1] * s->m[2]; }

/* element access in the library's precision; reals counted in units of the real type */
static double get(const void *buf, int dbl, int64_t i) { return dbl ? ((const double *)buf)[i] : ((const float *)buf)[i]; }
static void put(void *buf, int dbl, int64_t i, double v)
{
    if (dbl)
        ((double *)buf)[i] = v;
    else
        ((float *)buf)[i] = (float)v;
}

/* The oracle: one dense double-precision FFTW transform per batch. */
static void oracle(const fcase *c, int direction, const double _Complex *in, double _Complex *out)
{
    int n[3];
    for (int i = 0; i < c->rank; i++)
        n[i] = (int)c->n[i];
    side is = layout(c, 1), os = layout(c, 0);
    for (int64_t b = 0; b < c->batch; b++) {
        const double _Complex *x = in + b * count(&is);
        double _Complex *y = out + b * count(&os);
        fftw_plan p;
        if (real_in(c->type)) {
            double *r = fftw_malloc(sizeof *r * count(&is));
            for (int64_t i = 0; i < count(&is); i++)
                r[i] = creal(x[i]);
            p = fftw_plan_dft_r2c(c->rank, n, r, (fftw_complex *)y, FFTW_ESTIMATE);
            fftw_execute(p);
            fftw_free(r);
        } else if (real_out(c->type)) {
            double *r = fftw_malloc(sizeof *r * count(&os));
            fftw_complex *xc = fftw_malloc(sizeof *xc * count(&is));
            memcpy(xc, x, sizeof *xc * count(&is));
            p = fftw_plan_dft_c2r(c->rank, n, xc, r, FFTW_ESTIMATE);
            fftw_execute(p);
            for (int64_t i = 0; i < count(&os); i++)
                y[i] = r[i];
            fftw_free(r);
            fftw_free(xc);
        } else {
            p = fftw_plan_dft(c->rank, n, (fftw_complex *)x, (fftw_complex *)y, direction, FFTW_ESTIMATE);
            fftw_execute(p);
        }
        fftw_destroy_plan(p);
    }
    if (c->normalize && direction == CUFORT_FFT_INVERSE) {
        double N = (double)(c->n[0] * (c->rank > 1 ? c->n[1] : 1) * (c->rank > 2 ? c->n[2] : 1));
        for (int64_t i = 0; i < c->batch * count(&os); i++)
            out[i] /= N;
    }
}

/* Logical input values: random, and for complex-to-real the half-spectrum of a real signal (any
 * other input has no single right answer: its non-Hermitian part is dropped differently). */
static double _Complex *logical_input(const fcase *c)
{
    side is = layout(c, 1);
    int64_t total = c->batch * count(&is);
    double _Complex *x = malloc(sizeof *x * (size_t)total);
    if (!real_out(c->type)) {
        for (int64_t i = 0; i < total; i++)
            x[i] = real_in(c->type) ? uniform() : uniform() + I * uniform();
        return x;
    }
    fcase fwd = *c;
    fwd.type = is_double(c->type) ? CUFORT_FFT_D2Z : CUFORT_FFT_R2C;
    fwd.normalize = 0;
    side rs = layout(&fwd, 1);
    double _Complex *r = malloc(sizeof *r * (size_t)(c->batch * count(&rs)));
    for (int64_t i = 0; i < c->batch * count(&rs); i++)
        r[i] = uniform();
    oracle(&fwd, CUFORT_FFT_FORWARD, r, x);
    free(r);
    return x;
}

/* Scatter logical values into a buffer in the side's layout; gaps hold NaN. */
static void *scatter(const fcase *c, const side *s, const double _Complex *x, int64_t reals)
{
    int dbl = is_double(c->type);
    void *buf = malloc((size_t)reals * (dbl ? 8 : 4));
    for (int64_t i = 0; i < reals; i++)
        put(buf, dbl, i, NAN);
    int comps = s->cplx ? 2 : 1;
    int64_t k = 0;
    for (int64_t b = 0; b < c->batch; b++)
        for (int64_t i0 = 0; i0 < s->m[0]; i0++)
            for (int64_t i1 = 0; i1 < s->m[1]; i1++)
                for (int64_t i2 = 0; i2 < s->m[2]; i2++, k++) {
                    int64_t at = comps * offset(s, b, i0, i1, i2);
                    put(buf, dbl, at, creal(x[k]));
                    if (comps == 2)
                        put(buf, dbl, at + 1, cimag(x[k]));
                }
    return buf;
}

/* Compares the logical elements; outside them (out of place) every real must still be NaN. */
static void compare(const fcase *c, const char *mode, const side *s, const void *got, int64_t reals,
                    const double _Complex *want)
{
    int dbl = is_double(c->type), comps = s->cplx ? 2 : 1;
    char *logical = calloc((size_t)reals, 1);
    double err = 0, norm = 0;
    int64_t k = 0;
    for (int64_t b = 0; b < c->batch; b++)
        for (int64_t i0 = 0; i0 < s->m[0]; i0++)
            for (int64_t i1 = 0; i1 < s->m[1]; i1++)
                for (int64_t i2 = 0; i2 < s->m[2]; i2++, k++) {
                    int64_t at = comps * offset(s, b, i0, i1, i2);
                    double _Complex v = get(got, dbl, at) + (comps == 2 ? I * get(got, dbl, at + 1) : 0);
                    err += pow(cabs(v - want[k]), 2);
                    norm += pow(cabs(want[k]), 2);
                    logical[at] = 1;
                    if (comps == 2)
                        logical[at + 1] = 1;
                }
    int64_t touched = 0;
    if (!c->in_place)
        for (int64_t i = 0; i < reals; i++)
            touched += !logical[i] && !isnan(get(got, dbl, i));
    double rel = sqrt(err / norm);
    double n = (double)count(s) + 2;
    double tol = (dbl ? 1e-14 : 2e-7) * 8 * log2(n);
    CHECK(rel <= tol, ckf("%s %s values", c->name, mode), "relative error %.3g > %.3g", rel, tol);
    CHECK(touched == 0, ckf("%s %s gaps untouched", c->name, mode), "%lld gap elements written",
          (long long)touched);
    free(logical);
}

static void run_case(const fcase *c, int direction)
{
    cufort_fft_plan plan;
    int st = c->advanced
                 ? cufort_fft_plan_many(&plan, c->type, c->rank, c->n, c->batch, c->ie, c->is, c->id,
                                        c->oe, c->os, c->od)
                 : cufort_fft_plan_many(&plan, c->type, c->rank, c->n, c->batch, NULL, 1, 0, NULL, 1, 0);
    CHECK_OK(st, ckf("%s plan", c->name));
    if (st)
        return;
    cufort_fft_set_normalize(plan, c->normalize);
    side is = layout(c, 1), os = layout(c, 0);
    int dbl = is_double(c->type), rb = dbl ? 8 : 4;
    int64_t in_reals = span(&is, c->batch) * (is.cplx ? 2 : 1);
    int64_t out_reals = span(&os, c->batch) * (os.cplx ? 2 : 1);
    if (c->in_place)
        in_reals = out_reals = in_reals > out_reals ? in_reals : out_reals;
    int64_t ie, oe;
    CHECK_OK(cufort_fft_extents(plan, c->in_place, &ie, &oe), ckf("%s extents", c->name));
    CHECK(ie * (is.cplx ? 2 : 1) == span(&is, c->batch) * (is.cplx ? 2 : 1) &&
              oe == span(&os, c->batch), ckf("%s extents agree", c->name),
          "library %lld/%lld, test %lld/%lld", (long long)ie, (long long)oe,
          (long long)span(&is, c->batch), (long long)span(&os, c->batch));

    double _Complex *x = logical_input(c);
    double _Complex *want = malloc(sizeof *want * (size_t)(c->batch * count(&os)));
    oracle(c, direction, x, want);
    void *in = scatter(c, &is, x, in_reals);

    /* device pointers */
    void *d_in = NULL, *d_out = NULL, *got = malloc((size_t)out_reals * rb);
    for (int64_t i = 0; i < out_reals; i++)
        put(got, dbl, i, NAN);
    st = cufort_alloc(&d_in, in_reals * rb);
    if (!st)
        st = cufort_set_vector(in_reals, rb, in, 1, d_in, 1);
    if (!st && !c->in_place && !(st = cufort_alloc(&d_out, out_reals * rb)))
        st = cufort_set_vector(out_reals, rb, got, 1, d_out, 1);
    if (!st)
        st = cufort_fft_exec(plan, d_in, c->in_place ? d_in : d_out, direction);
    CHECK_OK(st, ckf("%s device exec", c->name));
    if (!st && !(st = cufort_get_vector(out_reals, rb, c->in_place ? d_in : d_out, 1, got, 1)))
        compare(c, "device", &os, got, out_reals, want);
    cufort_free(d_in);
    cufort_free(d_out);

    /* host arrays, thunked */
    void *hin = scatter(c, &is, x, in_reals), *hout = c->in_place ? hin : malloc((size_t)out_reals * rb);
    if (!c->in_place)
        for (int64_t i = 0; i < out_reals; i++)
            put(hout, dbl, i, NAN);
    void *pin = c->pinned ? pinned_copy(hin, (size_t)in_reals * rb) : hin;
    void *pout = !c->pinned ? hout : c->in_place ? pin : pinned_copy(hout, (size_t)out_reals * rb);
    st = pin && pout ? cufort_fft_exec_host(plan, pin, pout, direction) : CUFORT_ALLOC_FAILED;
    CHECK_OK(st, ckf("%s host exec%s", c->name, c->pinned ? " (pinned arrays)" : ""));
    if (!st)
        compare(c, c->pinned ? "pinned host-arrays" : "host-arrays", &os, pout, out_reals, want);
    if (c->pinned) {
        if (!c->in_place)
            cufort_host_free(pout);
        cufort_host_free(pin);
    }
    if (!c->in_place)
        free(hout);
    free(hin);
    free(in);
    free(got);
    free(want);
    free(x);
    CHECK_OK(cufort_fft_destroy(plan), ckf("%s destroy", c->name));
}

static void transforms(void)
{
    /* name, type, rank, in place, normalise, batch, n...; then advanced layouts */
#define BASIC(nm, t, r, ip, nz, b, ...)                                                          \
    {.name = nm, .type = t, .rank = r, .in_place = ip, .normalize = nz, .batch = b, .n = {__VA_ARGS__}}
#define ADVANCED(nm, t, r, nz, b, n_, ie_, is_, id_, oe_, os_, od_)                              \
    {.name = nm, .type = t, .rank = r, .normalize = nz, .batch = b, .advanced = 1, .n = n_,       \
     .ie = ie_, .is = is_, .id = id_, .oe = oe_, .os = os_, .od = od_}
#define ADVANCED_IN_PLACE(nm, t, r, nz, b, n_, ie_, is_, id_, oe_, os_, od_)                     \
    {.name = nm, .type = t, .rank = r, .in_place = 1, .normalize = nz, .batch = b, .advanced = 1,  \
     .n = n_, .ie = ie_, .is = is_, .id = id_, .oe = oe_, .os = os_, .od = od_}
#define PARTS(nm, t, r, ip, nz, b, ...)                                                          \
    {.name = nm, .type = t, .rank = r, .in_place = ip, .normalize = nz, .batch = b, .n = {__VA_ARGS__}, \
     .pinned = 1}
#define L(...) {__VA_ARGS__}
    static const fcase cases[] = {
        /* seed 001: 1-D C2C batch 10 of 256, in place; 2-D 256x128 out of place */
        BASIC("c2c-1d-256x10-inplace", CUFORT_FFT_C2C, 1, 1, 0, 10, 256),
        BASIC("c2c-2d-256x128", CUFORT_FFT_C2C, 2, 0, 0, 1, 256, 128),
        BASIC("c2c-1d-1000", CUFORT_FFT_C2C, 1, 0, 0, 1, 1000),
        BASIC("c2c-1d-1009-prime-x3", CUFORT_FFT_C2C, 1, 0, 0, 3, 1009),
        BASIC("z2z-1d-210", CUFORT_FFT_Z2Z, 1, 0, 0, 2, 210),
        BASIC("z2z-2d-5x7-inplace", CUFORT_FFT_Z2Z, 2, 1, 0, 2, 5, 7),
        BASIC("c2c-3d-4x6x10", CUFORT_FFT_C2C, 3, 0, 0, 1, 4, 6, 10),
        BASIC("z2z-3d-9x5x7-normalized", CUFORT_FFT_Z2Z, 3, 0, 1, 2, 9, 5, 7),
        BASIC("r2c-1d-1000x4", CUFORT_FFT_R2C, 1, 0, 0, 4, 1000),
        BASIC("r2c-1d-15-inplace", CUFORT_FFT_R2C, 1, 1, 0, 3, 15),
        BASIC("d2z-2d-12x9", CUFORT_FFT_D2Z, 2, 0, 0, 2, 12, 9),
        BASIC("d2z-3d-6x4x10-inplace", CUFORT_FFT_D2Z, 3, 1, 0, 1, 6, 4, 10),
        BASIC("c2r-1d-1009", CUFORT_FFT_C2R, 1, 0, 0, 2, 1009),
        BASIC("c2r-2d-8x14-inplace-normalized", CUFORT_FFT_C2R, 2, 1, 1, 1, 8, 14),
        BASIC("z2d-2d-7x10", CUFORT_FFT_Z2D, 2, 0, 0, 3, 7, 10),
        BASIC("z2d-3d-5x6x8-normalized", CUFORT_FFT_Z2D, 3, 0, 1, 2, 5, 6, 8),
        /* batches of 16 MiB and more on pinned arrays go through the thunk in parts
         * (c_wrappers/thunk/fft_pipeline.c): a batch that divides by the part count and ones that
         * do not, in and out of place; then the same on pageable arrays (one piece) */
        PARTS("c2c-1d-4096x600-parts", CUFORT_FFT_C2C, 1, 0, 0, 600, 4096),
        PARTS("z2z-1d-1000x1100-inplace-parts", CUFORT_FFT_Z2Z, 1, 1, 0, 1100, 1000),
        PARTS("r2c-1d-2000x1201-parts", CUFORT_FFT_R2C, 1, 0, 0, 1201, 2000),
        PARTS("c2r-2d-64x100x403-inplace-normalized-parts", CUFORT_FFT_C2R, 2, 1, 1, 403, 64, 100),
        BASIC("c2c-1d-4096x600-pageable", CUFORT_FFT_C2C, 1, 0, 0, 600, 4096),
        /* interleaved batches (stride = batch, dist = 1) and padded embeddings */
        ADVANCED("c2c-1d-interleaved", CUFORT_FFT_C2C, 1, 0, 3, L(64), L(64), 3, 1, L(64), 3, 1),
        ADVANCED("z2z-2d-embedded", CUFORT_FFT_Z2Z, 2, 0, 2, L(6, 10), L(8, 13), 2, 230, L(7, 11), 1, 80),
        ADVANCED("r2c-2d-embedded", CUFORT_FFT_R2C, 2, 0, 2, L(6, 10), L(6, 12), 1, 75, L(6, 7), 2, 90),
        ADVANCED("z2d-1d-strided", CUFORT_FFT_Z2D, 1, 1, 2, L(30), L(16), 2, 40, L(30), 1, 33),
        /* one transform never uses its distances, however large (cuFFT's planner faults on 2^60) */
        ADVANCED("z2z-3d-one-transform-distances-2^62", CUFORT_FFT_Z2Z, 3, 0, 1, L(11, 9, 8), L(11, 9, 8), 2,
                 (int64_t)1 << 62, L(11, 9, 8), 3, (int64_t)1 << 62),
        /* in place with advanced layouts: the real side overlays the complex one (same stride in
         * each side's own elements, twice the distance, twice the last embed, other embeds equal) */
        ADVANCED_IN_PLACE("r2c-2d-embedded-inplace", CUFORT_FFT_R2C, 2, 0, 2, L(6, 10), L(6, 14), 1, 90,
                          L(6, 7), 1, 45),
        ADVANCED_IN_PLACE("d2z-1d-strided-inplace", CUFORT_FFT_D2Z, 1, 0, 3, L(9), L(9), 2, 24, L(5), 2, 12),
        ADVANCED_IN_PLACE("c2r-3d-embedded-inplace-normalized", CUFORT_FFT_C2R, 3, 1, 2, L(3, 4, 6),
                          L(3, 5, 4), 1, 64, L(3, 5, 8), 1, 128),
        ADVANCED_IN_PLACE("z2d-2d-inplace", CUFORT_FFT_Z2D, 2, 0, 1, L(5, 7), L(5, 4), 1, 20, L(5, 8), 1, 40),
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const fcase *c = &cases[i];
        if (real_out(c->type))
            run_case(c, CUFORT_FFT_INVERSE);
        else if (real_in(c->type))
            run_case(c, CUFORT_FFT_FORWARD);
        else {
            run_case(c, CUFORT_FFT_FORWARD);
            run_case(c, CUFORT_FFT_INVERSE);
        }
    }
}

/* inverse(forward(x)) = N*x, and = x with normalisation on */
static void round_trip(void)
{
    enum { N = 1024 * 3 };
    cufort_fft_plan plan;
    CHECK_OK(cufort_fft_plan_1d(&plan, CUFORT_FFT_C2C, N, 2), "round trip plan");
    float _Complex *x = malloc(sizeof *x * 2 * N), *y = malloc(sizeof *y * 2 * N);
    for (int i = 0; i < 2 * N; i++)
        x[i] = y[i] = (float)uniform() + I * (float)uniform();
    CHECK_OK(cufort_fft_exec_host(plan, y, y, CUFORT_FFT_FORWARD), "round trip forward");
    CHECK_OK(cufort_fft_exec_host(plan, y, y, CUFORT_FFT_INVERSE), "round trip inverse");
    double e = 0;
    for (int i = 0; i < 2 * N; i++)
        e = fmax(e, cabsf(y[i] - N * x[i]) / N);
    CHECK(e < 1e-5, "round trip unnormalised = N*x", "max error %.3g", e);
    CHECK_OK(cufort_fft_set_normalize(plan, 1), "normalize on");
    CHECK_OK(cufort_fft_exec_host(plan, y, y, CUFORT_FFT_FORWARD), "normalised forward");
    CHECK_OK(cufort_fft_exec_host(plan, y, y, CUFORT_FFT_INVERSE), "normalised inverse");
    e = 0;
    for (int i = 0; i < 2 * N; i++)
        e = fmax(e, cabsf(y[i] - N * x[i]));
    CHECK(e / N < 1e-5, "forward leaves scale alone, normalised inverse divides by N",
          "max error %.3g relative to N", e / N);
    cufort_fft_destroy(plan);
    free(x);
    free(y);
}

/* ---- thunked execution allocates nothing once warm ---- */

typedef struct { size_t count, bytes; uintptr_t sum; } blocks;

static blocks snapshot(cufort_registry *r)
{
    blocks b = {0, 0, 0};
    pthread_mutex_lock(&r->lock);
    b.count = r->count;
    for (size_t i = 0; i < r->count; i++)
        b.bytes += r->blocks[i].bytes, b.sum += r->blocks[i].base;
    pthread_mutex_unlock(&r->lock);
    return b;
}

static int same_blocks(blocks a, blocks b)
{
    return a.count == b.count && a.bytes == b.bytes && a.sum == b.sum;
}

/* 2^18 complex floats (2 MiB, pageable: the pipelined staging path) and an R2C beside it */
static void repeated_host_exec(void)
{
    enum { N = 1 << 18 };
    cufort_fft_plan c2c, r2c;
    CHECK_OK(cufort_fft_plan_1d(&c2c, CUFORT_FFT_C2C, N, 1), "repeat: c2c plan");
    CHECK_OK(cufort_fft_plan_1d(&r2c, CUFORT_FFT_R2C, N, 1), "repeat: r2c plan");
    cufort_fft_set_normalize(c2c, 1);   /* keeps the values bounded over the round trips */
    float _Complex *x = malloc(sizeof *x * N), *y = malloc(sizeof *y * (N / 2 + 1));
    float *r = malloc(sizeof *r * N);
    for (int i = 0; i < N; i++)
        x[i] = (float)uniform() + I * (float)uniform(), r[i] = (float)uniform();
    /* warm: every kernel the loop runs has run once (lazy module loading takes device memory) */
    int st = cufort_fft_exec_host(c2c, x, x, CUFORT_FFT_FORWARD);
    st |= cufort_fft_exec_host(c2c, x, x, CUFORT_FFT_INVERSE);
    st |= cufort_fft_exec_host(r2c, r, y, CUFORT_FFT_FORWARD);
    blocks dev0 = snapshot(&cufort_device_blocks), pin0 = snapshot(&cufort_pinned_blocks);
    int64_t free0 = 0, free1 = 0, total;
    cufort_mem_info(&free0, &total);
    for (int k = 0; k < 6; k++) {
        st |= cufort_fft_exec_host(c2c, x, x, k % 2 ? CUFORT_FFT_INVERSE : CUFORT_FFT_FORWARD);
        st |= cufort_fft_exec_host(r2c, r, y, CUFORT_FFT_FORWARD);
    }
    cufort_mem_info(&free1, &total);
    CHECK(st == 0, "repeat: 15 thunked transforms succeed", "status %d", st);
    CHECK(same_blocks(dev0, snapshot(&cufort_device_blocks)),
          "repeat: no device allocation after the first call (same blocks)", "device blocks changed");
    CHECK(same_blocks(pin0, snapshot(&cufort_pinned_blocks)),
          "repeat: no pinned allocation after the first call (same staging slots)", "pinned blocks changed");
    if (!cufort_on_host())   /* host memory moves for reasons of its own */
        CHECK(free0 == free1, "repeat: device free memory unchanged", "%lld -> %lld", (long long)free0,
              (long long)free1);
    cufort_fft_destroy(c2c);
    cufort_fft_destroy(r2c);
    free(x);
    free(y);
    free(r);
}

/* A plan whose stream differs from this thread's: thunked execution still orders its transform
 * between the staging copies, and leaves the plan's stream as it was. */
static void thunk_stream(void)
{
    enum { N = 1 << 17, B = 4 };
    cufort_stream s1 = NULL, s2 = NULL;
    cufort_fft_plan plan;
    CHECK_OK(cufort_stream_create(&s1), "stream: create s1");
    CHECK_OK(cufort_stream_create(&s2), "stream: create s2");
    CHECK_OK(cufort_fft_plan_1d(&plan, CUFORT_FFT_C2C, N, B), "stream: plan");
    CHECK_OK(cufort_fft_set_stream(plan, s2), "stream: plan on s2");
    CHECK_OK(cufort_set_stream(s1), "stream: thread on s1");
    float _Complex *x = malloc(sizeof *x * N * B), *y = malloc(sizeof *y * N * B);
    for (int i = 0; i < N * B; i++)
        x[i] = y[i] = (float)uniform() + I * (float)uniform();
    int st = cufort_fft_exec_host(plan, y, y, CUFORT_FFT_FORWARD);
    st |= cufort_fft_exec_host(plan, y, y, CUFORT_FFT_INVERSE);
    double e = 0;
    for (int i = 0; i < N * B; i++)
        e = fmax(e, cabsf(y[i] - N * x[i]) / N);
    CHECK(st == 0 && e < 1e-5, "stream: thunked round trip with plan and thread on different streams",
          "status %d, max error %.3g", st, e);
    CHECK(plan->stream == s2, "stream: the plan keeps its own stream", "stream %p", (void *)plan->stream);
    cufort_set_stream(NULL);
    cufort_fft_destroy(plan);
    cufort_stream_destroy(s1);
    cufort_stream_destroy(s2);
    free(x);
    free(y);
}

/* ---- the plan cache ---- */

static int acquire_1d(cufort_fft_plan *p, int *gen, int type, int64_t n, int64_t batch)
{
    return cufort_fft_plan_acquire(p, gen, type, 1, &n, batch, NULL, 1, 0, NULL, 1, 0);
}

static cufort_fft_cache_stats stats(void)
{
    cufort_fft_cache_stats s;
    cufort_fft_cache_get_stats(&s);
    return s;
}

static void cache_reuse(void)
{
    cufort_fft_cache_clear();
    cufort_fft_plan a, b, c;
    int ga, gb, gc;
    cufort_fft_cache_stats s0 = stats();
    CHECK_OK(acquire_1d(&a, &ga, CUFORT_FFT_Z2Z, 48, 3), "cache: acquire");
    CHECK(stats().misses == s0.misses + 1, "cache: the first acquire makes a plan", "misses %lld",
          (long long)stats().misses);
    cufort_stream s;
    cufort_stream_create(&s);
    cufort_fft_set_normalize(a, 1);
    cufort_fft_set_stream(a, s);
    CHECK_OK(cufort_fft_plan_release(a, ga), "cache: release");
    CHECK(stats().idle == 1, "cache: a released plan waits in the cache", "idle %lld",
          (long long)stats().idle);
    double _Complex x[48 * 3];
    CHECK_FAILS_MSG(cufort_fft_exec_host(a, x, x, CUFORT_FFT_FORWARD), CUFORT_INVALID_VALUE,
                    "not a live FFT plan", "cache: a released handle is refused like a destroyed one");
    CHECK_ST(cufort_fft_plan_release(a, ga), CUFORT_INVALID_VALUE, "cache: releasing twice is refused");
    CHECK_OK(acquire_1d(&b, &gb, CUFORT_FFT_Z2Z, 48, 2), "cache: acquire another batch");
    CHECK(b != a && stats().misses == s0.misses + 2, "cache: a different batch is another key",
          "b %p a %p", (void *)b, (void *)a);
    CHECK_OK(acquire_1d(&c, &gc, CUFORT_FFT_Z2Z, 48, 3), "cache: acquire the first shape again");
    CHECK(c == a && stats().hits == s0.hits + 1 && stats().idle == 0,
          "cache: the same shape gets the cached plan", "c %p a %p hits %lld", (void *)c, (void *)a,
          (long long)stats().hits);
    CHECK(c->normalize == 0 && c->stream == NULL,
          "cache: a reused plan starts without normalisation and stream",
          "normalize %d stream %p", c->normalize, (void *)c->stream);
    for (int i = 0; i < 48 * 3; i++)
        x[i] = uniform() + I * uniform();
    double _Complex y[48 * 3];
    memcpy(y, x, sizeof y);
    CHECK_OK(cufort_fft_exec_host(c, y, y, CUFORT_FFT_FORWARD), "cache: the reused plan runs");
    fftw_plan ref = fftw_plan_many_dft(1, (int[]){48}, 3, (fftw_complex *)x, NULL, 1, 48, (fftw_complex *)x,
                                       NULL, 1, 48, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_execute(ref);
    fftw_destroy_plan(ref);
    double e = 0;
    for (int i = 0; i < 48 * 3; i++)
        e = fmax(e, cabs(y[i] - x[i]));
    CHECK(e < 1e-12, "cache: the reused plan computes the right transform", "max error %.3g", e);
    /* the same sizes in an advanced layout are another key */
    int64_t n = 48, em = 48;
    cufort_fft_plan d;
    int gd;
    CHECK_OK(cufort_fft_plan_release(c, gc), "cache: release again");
    CHECK_OK(cufort_fft_plan_acquire(&d, &gd, CUFORT_FFT_Z2Z, 1, &n, 3, &em, 1, 48, &em, 1, 48),
             "cache: acquire an advanced layout");
    CHECK(d != c && stats().idle == 1, "cache: layout is part of the key", "d %p c %p", (void *)d, (void *)c);
    cufort_fft_plan_release(b, gb);
    cufort_fft_plan_release(d, gd);
    cufort_stream_destroy(s);
    cufort_fft_cache_clear();
}

static void cache_bound(void)
{
    enum { K = CUFORT_FFT_CACHE_MAX + 4 };
    cufort_fft_cache_clear();
    cufort_fft_plan p[K];
    int g[K], st = 0;
    for (int i = 0; i < K; i++)
        st |= acquire_1d(&p[i], &g[i], CUFORT_FFT_C2C, 16 + i, 1);
    cufort_fft_cache_stats s0 = stats();
    for (int i = 0; i < K; i++)
        st |= cufort_fft_plan_release(p[i], g[i]);
    CHECK(st == 0 && stats().idle == CUFORT_FFT_CACHE_MAX && stats().evictions == s0.evictions + 4,
          "bound: 12 released, 8 kept, 4 destroyed", "status %d idle %lld evictions %lld", st,
          (long long)stats().idle, (long long)(stats().evictions - s0.evictions));
    cufort_fft_plan q;
    int gq;
    acquire_1d(&q, &gq, CUFORT_FFT_C2C, 16, 1);
    CHECK(stats().misses == s0.misses + 1, "bound: the least recently released was the one destroyed",
          "misses %lld", (long long)(stats().misses - s0.misses));
    cufort_fft_plan_release(q, gq);
    acquire_1d(&q, &gq, CUFORT_FFT_C2C, 16 + K - 1, 1);
    CHECK(stats().hits == s0.hits + 1, "bound: the most recently released is still there", "hits %lld",
          (long long)(stats().hits - s0.hits));
    cufort_fft_plan_release(q, gq);
    cufort_fft_cache_clear();
    CHECK(stats().idle == 0, "bound: clear empties the cache", "idle %lld", (long long)stats().idle);
}

/* Threads acquire plans of three shapes (so they compete for the same cached ones), run them on
 * their own data, host or device, and release them. */
static int cache_thread(int id, char *err, size_t errlen)
{
    int fails = 0;
    for (int it = 0; it < 24; it++) {
        int64_t n = 64 << (it % 3), batch = 2;
        cufort_fft_plan p;
        int g, st = acquire_1d(&p, &g, CUFORT_FFT_C2C, n, batch);
        float _Complex *x = malloc(sizeof *x * n * batch), *y = malloc(sizeof *y * n * batch);
        for (int64_t i = 0; i < n * batch; i++)
            x[i] = y[i] = (float)(i % 7 - 3) + I * (float)(id - it % 5);
        if (!st && (id + it) % 2) {
            st = cufort_fft_exec_host(p, y, y, CUFORT_FFT_FORWARD);
            st = st ? st : cufort_fft_exec_host(p, y, y, CUFORT_FFT_INVERSE);
        } else if (!st) {
            void *d = NULL;
            st = cufort_alloc(&d, n * batch * (int64_t)sizeof *x);
            st = st ? st : cufort_set_vector(n * batch, sizeof *x, y, 1, d, 1);
            st = st ? st : cufort_fft_exec(p, d, d, CUFORT_FFT_FORWARD);
            st = st ? st : cufort_fft_exec(p, d, d, CUFORT_FFT_INVERSE);
            st = st ? st : cufort_get_vector(n * batch, sizeof *x, d, 1, y, 1);
            cufort_free(d);
        }
        double e = 0;
        for (int64_t i = 0; i < n * batch; i++)
            e = fmax(e, cabsf(y[i] - (float)n * x[i]) / (double)n);
        if (st || e > 1e-5) {
            if (!fails++)
                snprintf(err, errlen, "iteration %d: status %d (%s), max error %.3g", it, st, ck_err(), e);
        }
        if (!st && (st = cufort_fft_plan_release(p, g)) && !fails++)
            snprintf(err, errlen, "release: status %d", st);
        free(x);
        free(y);
    }
    return fails;
}

static void cache_threads(void)
{
    cufort_fft_cache_clear();
    cufort_fft_cache_stats s0 = stats();
    ck_threads(8, cache_thread, "plans from the cache, run and released concurrently");
    cufort_fft_cache_stats s1 = stats();
    CHECK(s1.idle <= CUFORT_FFT_CACHE_MAX && s1.hits > s0.hits &&
              s1.hits + s1.misses == s0.hits + s0.misses + 8 * 24,
          "threads: every acquire was a hit or a miss, the cache stayed bounded and was used",
          "idle %lld hits %lld misses %lld", (long long)s1.idle, (long long)(s1.hits - s0.hits),
          (long long)(s1.misses - s0.misses));
    cufort_fft_cache_clear();
}

/* shutdown destroys the cached plans; a plan from before it is released as a no-op */
static void cache_reset(void)
{
    cufort_fft_plan a, b;
    int ga, gb;
    acquire_1d(&a, &ga, CUFORT_FFT_C2C, 32, 1);
    acquire_1d(&b, &gb, CUFORT_FFT_C2C, 64, 1);
    cufort_fft_plan_release(b, gb);
    CHECK(stats().idle == 1, "reset: one plan cached before shutdown", "idle %lld", (long long)stats().idle);
    cufort_shutdown();
    CHECK(stats().idle == 0, "reset: shutdown empties the cache", "idle %lld", (long long)stats().idle);
    CHECK_OK(cufort_init(), "reset: init again");
    CHECK_OK(cufort_fft_plan_release(a, ga), "reset: releasing a plan made before the shutdown is a no-op");
    CHECK(stats().idle == 0, "reset: ... and caches nothing", "idle %lld", (long long)stats().idle);
}

/* A batch spread over devices (on the host backend, three simulated ones; every batch counts,
 * pageable arrays too): every case again, and the plan cache holding a plan per device. */
static void spread_batches(void)
{
    int count = ck_spread_devices("3");
    if (!count) {
        unsetenv("CUFORT_HOST_DEVICES");
        return;
    }
    setenv("CUFORT_DEVICES", count > 2 ? "0,1,2" : "0,1", 1);
    setenv("CUFORT_MULTI_GPU_MIN_BYTES", "1", 1);
    setenv("CUFORT_MULTI_GPU_MIN_INTENSITY", "0", 1);
    transforms();
    int64_t n = 64, batch = 7, devices = count > 2 ? 3 : 2;
    cufort_fft_plan plan;
    size_t bytes = sizeof(float) * 2 * (size_t)(n * batch);
    float *x = malloc(bytes), *x0 = malloc(bytes);
    for (int64_t i = 0; i < 2 * n * batch; i++)
        x0[i] = x[i] = (float)uniform();
    CHECK_OK(cufort_fft_plan_many(&plan, CUFORT_FFT_C2C, 1, &n, batch, NULL, 1, 0, NULL, 1, 0),
             "spread: plan");
    cufort_fft_cache_clear();
    cufort_fft_cache_stats s0 = stats();
    CHECK_OK(cufort_fft_exec_host(plan, x, x, CUFORT_FFT_FORWARD), "spread: first call");
    cufort_fft_cache_stats s1 = stats();
    CHECK_OK(cufort_fft_exec_host(plan, x, x, CUFORT_FFT_INVERSE), "spread: second call");
    cufort_fft_cache_stats s2 = stats();
    CHECK(s1.misses - s0.misses == devices && s2.hits - s1.hits == devices &&
              s2.misses == s1.misses,
          "spread: a plan made on each device, found again there by the next call",
          "misses %lld then %lld, hits %lld", (long long)(s1.misses - s0.misses),
          (long long)(s2.misses - s1.misses), (long long)(s2.hits - s1.hits));
    double err = 0;
    for (int64_t i = 0; i < 2 * n * batch; i++)
        err = fmax(err, fabs(x[i] / (double)n - x0[i]));
    CHECK(err < 1e-5, "spread: inverse(forward(x)) = n x", "max error %g", err);
    /* the default rule: pageable arrays stay on one device (no plan per device asked for), pinned
     * ones spread */
    unsetenv("CUFORT_MULTI_GPU_MIN_INTENSITY");
    cufort_fft_cache_stats s3 = stats();
    CHECK_OK(cufort_fft_exec_host(plan, x, x, CUFORT_FFT_FORWARD), "spread: pageable, default rule");
    CHECK(stats().hits + stats().misses == s3.hits + s3.misses,
          "spread: pageable arrays stay on one device by default", "%lld plans asked for",
          (long long)(stats().hits + stats().misses - s3.hits - s3.misses));
    void *pinned = NULL;
    CHECK_OK(cufort_host_alloc(&pinned, (int64_t)bytes), "spread: pinned array");
    if (pinned) {
        memcpy(pinned, x0, bytes);
        cufort_fft_cache_stats s4 = stats();
        CHECK_OK(cufort_fft_exec_host(plan, pinned, pinned, CUFORT_FFT_FORWARD), "spread: pinned");
        CHECK(stats().hits + stats().misses == s4.hits + s4.misses + devices,
              "spread: pinned arrays spread by default", "%lld plans asked for",
              (long long)(stats().hits + stats().misses - s4.hits - s4.misses));
        cufort_host_free(pinned);
    }
    CHECK_OK(cufort_fft_destroy(plan), "spread: destroy");
    free(x);
    free(x0);
    cufort_fft_cache_clear();
    unsetenv("CUFORT_MULTI_GPU_MIN_BYTES");
    unsetenv("CUFORT_MULTI_GPU_MIN_INTENSITY");
    unsetenv("CUFORT_DEVICES");
    unsetenv("CUFORT_HOST_DEVICES");
}

static void errors(void)
{
    cufort_fft_plan plan = NULL;
    int64_t n3[3] = {4, 0, 4}, n1[1] = {8};
    CHECK_ST(cufort_fft_plan_1d(&plan, 0x77, 16, 1), CUFORT_INVALID_VALUE, "unknown type refused");
    CHECK_ST(cufort_fft_plan_many(&plan, CUFORT_FFT_C2C, 4, n3, 1, NULL, 1, 0, NULL, 1, 0),
             CUFORT_INVALID_VALUE, "rank 4 refused");
    CHECK_ST(cufort_fft_plan_many(&plan, CUFORT_FFT_C2C, 3, n3, 1, NULL, 1, 0, NULL, 1, 0),
             CUFORT_INVALID_VALUE, "zero size refused");
    CHECK_MSG("n[1]", "zero size message names the dimension");
    CHECK_ST(cufort_fft_plan_1d(&plan, CUFORT_FFT_C2C, 16, 0), CUFORT_INVALID_VALUE, "batch 0 refused");
    int64_t small[1] = {4};
    CHECK_ST(cufort_fft_plan_many(&plan, CUFORT_FFT_C2C, 1, n1, 1, small, 1, 8, small, 1, 8),
             CUFORT_SUCCESS, "embed[0] is not checked (unused, as in cuFFT)");
    cufort_fft_destroy(plan);
    int64_t n2[2] = {4, 8}, e2[2] = {4, 5};
    CHECK_ST(cufort_fft_plan_many(&plan, CUFORT_FFT_C2C, 2, n2, 1, e2, 1, 40, e2, 1, 40),
             CUFORT_INVALID_VALUE, "embedding smaller than the transform refused");
    CHECK_OK(cufort_fft_plan_1d(&plan, CUFORT_FFT_R2C, 16, 2), "r2c plan");
    float *d = NULL;
    CHECK_OK(cufort_alloc((void **)&d, 18 * 2 * sizeof(float)), "alloc");
    CHECK_ST(cufort_fft_exec(plan, d, d, CUFORT_FFT_INVERSE), CUFORT_INVALID_VALUE,
             "r2c plan refuses the inverse direction");
    CHECK_ST(cufort_fft_exec(plan, d, d, 2), CUFORT_INVALID_VALUE, "direction 2 refused");
    float host[64];
    CHECK_ST(cufort_fft_exec(plan, host, d, CUFORT_FFT_FORWARD), CUFORT_BAD_POINTER,
             "host array given to the device exec");
    CHECK_MSG("in", "bad pointer message names the argument");
    cufort_free(d);
    CHECK_OK(cufort_alloc((void **)&d, 16 * 2 * sizeof(float)), "unpadded alloc");
    CHECK_ST(cufort_fft_exec(plan, d, d, CUFORT_FFT_FORWARD), CUFORT_BAD_POINTER,
             "in-place r2c on an unpadded array (2 x 16 reals) refused");
    cufort_free(d);
    CHECK_OK(cufort_fft_destroy(plan), "destroy");
    CHECK_ST(cufort_fft_exec(plan, host, host, CUFORT_FFT_FORWARD), CUFORT_INVALID_VALUE,
             "destroyed plan refused");
    CHECK_ST(cufort_fft_exec((cufort_fft_plan)host, host, host, CUFORT_FFT_FORWARD),
             CUFORT_INVALID_VALUE, "garbage plan handle refused");
    CHECK_MSG("not a live FFT plan", "garbage plan message");
    CHECK_OK(cufort_fft_plan_1d(&plan, CUFORT_FFT_C2C, 16, 1), "plan before shutdown");
    cufort_shutdown();
    cufort_init();
    CHECK_ST(cufort_fft_set_normalize(plan, 1), CUFORT_INVALID_VALUE,
             "a plan from before shutdown is gone");
}

/* ---- layouts that must be refused, never crash (run in child processes: a crash is a FAIL) ---- */

/* Advanced in-place real transforms whose real side does not overlay the complex side (here the
 * distances: 16 reals against 17 complex elements).  FFTW's planner recursed until the stack ran out
 * on such a layout and cuFFT faulted; the plan is fine out of place, so exec refuses it in place, in
 * both forms, leaving the data alone. */
static void in_place_mismatch(void)
{
    static const int types[] = {CUFORT_FFT_R2C, CUFORT_FFT_D2Z, CUFORT_FFT_C2R, CUFORT_FFT_Z2D};
    int64_t n[2] = {4, 6}, real_embed[2] = {4, 8}, complex_embed[2] = {4, 4};
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        int type = types[t], fwd = real_in(type), dbl = is_double(type);
        int dir = fwd ? CUFORT_FFT_FORWARD : CUFORT_FFT_INVERSE;
        const char *name = type == CUFORT_FFT_R2C ? "r2c" : type == CUFORT_FFT_D2Z ? "d2z"
                           : type == CUFORT_FFT_C2R ? "c2r" : "z2d";
        cufort_fft_plan plan = NULL;
        int st = fwd ? cufort_fft_plan_many(&plan, type, 2, n, 2, real_embed, 1, 16, complex_embed, 1, 17)
                     : cufort_fft_plan_many(&plan, type, 2, n, 2, complex_embed, 1, 17, real_embed, 1, 16);
        if (st && !cufort_on_host()) {   /* cuFFT may refuse the layout itself: cleanly is enough */
            CHECK(ck_err()[0] != '\0', ckf("mismatch %s: cuFFT's refusal comes with a message", name),
                  "status %d, no message", st);
            printf("# mismatch %s: not planned on this backend: %s\n", name, ck_err());
            continue;
        }
        if (!CHECK_OK(st, ckf("mismatch %s: plans (out of place it is a valid layout)", name)))
            continue;
        int64_t ie = 0, oe = 0;
        cufort_fft_extents(plan, 1, &ie, &oe);
        int64_t reals = 2 * (ie > oe ? ie : oe), bytes = reals * (dbl ? 8 : 4);
        void *host = malloc((size_t)bytes), *copy = malloc((size_t)bytes), *d = NULL;
        for (int64_t i = 0; i < reals; i++)
            put(host, dbl, i, uniform());
        memcpy(copy, host, (size_t)bytes);
        CHECK_OK(cufort_alloc(&d, bytes), ckf("mismatch %s: alloc", name));
        cufort_set_vector(reals, dbl ? 8 : 4, host, 1, d, 1);
        CHECK_FAILS_MSG(cufort_fft_exec(plan, d, d, dir), CUFORT_INVALID_VALUE, "in place",
                        ckf("mismatch %s: device exec in place refused", name));
        CHECK_MSG(fwd ? "idist = 16" : "odist = 16", ckf("mismatch %s: the message names the cause", name));
        CHECK_FAILS_MSG(cufort_fft_exec_host(plan, host, host, dir), CUFORT_INVALID_VALUE, "in place",
                        ckf("mismatch %s: host-array exec in place refused", name));
        CHECK(!memcmp(host, copy, (size_t)bytes),
              ckf("mismatch %s: refused call leaves the data alone", name), "the array changed");
        cufort_get_vector(reals, dbl ? 8 : 4, d, 1, host, 1);
        CHECK(!memcmp(host, copy, (size_t)bytes), ckf("mismatch %s: ... on the device too", name),
              "the device array changed");
        cufort_free(d);
        free(host);
        free(copy);
        CHECK_OK(cufort_fft_destroy(plan), ckf("mismatch %s: destroy", name));
    }
}

/* Spans that do not fit int64 bytes are refused at plan time, naming the arguments; below that,
 * cufort_fft_extents is exact. */
static void span_overflow(void)
{
    cufort_fft_plan plan = NULL;
    /* 16 * 2^30 * 2^30 = 2^64 elements: wrapped to an extent of 1 and crashed in FFTW */
    int64_t n3[3] = {17, 1, 1}, e3[3] = {1, 1 << 30, 1 << 30};
    CHECK_FAILS_MSG(cufort_fft_plan_many(&plan, CUFORT_FFT_C2C, 3, n3, 1, e3, 1, 1, e3, 1, 1),
                    CUFORT_INVALID_VALUE, "inembed", "overflow: 2^64-element advanced layout refused");
    CHECK(plan == NULL, "overflow: no plan handed out", "plan %p", (void *)plan);
    if (plan) {   /* what the refusal prevents: a tiny array passing the span check */
        float _Complex x[4] = {1, 2, 3, 4}, y[4];
        CHECK_ST(cufort_fft_exec_host(plan, x, y, CUFORT_FFT_FORWARD), CUFORT_INVALID_VALUE,
                 "overflow: the plan runs on a 4-element array");
        cufort_fft_destroy(plan);
        plan = NULL;
    }
    /* 2^63 elements of basic layout: the extent was INT64_MIN, which skipped the pointer check */
    CHECK_FAILS_MSG(cufort_fft_plan_3d(&plan, CUFORT_FFT_C2C, 1 << 21, 1 << 21, 1 << 21),
                    CUFORT_INVALID_VALUE, "n = {2097152, 2097152, 2097152}",
                    "overflow: 2^21-cubed plan refused");
    CHECK_FAILS_MSG(cufort_fft_plan_1d(&plan, CUFORT_FFT_C2C, (int64_t)1 << 40, (int64_t)1 << 30),
                    CUFORT_INVALID_VALUE, "batch", "overflow: 2^40 x batch 2^30 refused");
    CHECK_FAILS_MSG(cufort_fft_plan_1d(&plan, CUFORT_FFT_Z2Z, (int64_t)1 << 60, 1), CUFORT_INVALID_VALUE,
                    "bytes", "overflow: 2^60 elements fit int64, their 2^64 bytes do not");
    int64_t n1[1] = {2}, e1[1] = {2};
    CHECK_FAILS_MSG(cufort_fft_plan_many(&plan, CUFORT_FFT_R2C, 1, n1, 3, e1, 1, INT64_MAX / 2, e1, 1, 1),
                    CUFORT_INVALID_VALUE, "idist", "overflow: a distance times the batch refused");
    CHECK_FAILS_MSG(cufort_fft_plan_many(&plan, CUFORT_FFT_C2R, 1, n1, 1, e1, 1, 1, e1, INT64_MAX, 1),
                    CUFORT_INVALID_VALUE, "ostride", "overflow: the output's stride refused");
    /* 2^40 + 1 elements, exactly */
    int64_t big[3] = {2, 1, 1}, be[3] = {1, 1 << 20, 1 << 20};
    int st = cufort_fft_plan_many(&plan, CUFORT_FFT_C2C, 3, big, 1, be, 1, 1, be, 1, 1);
    if (st && !cufort_on_host())   /* cuFFT may refuse the layout itself */
        printf("# exact: not planned on this backend: %s\n", ck_err());
    else
        CHECK_OK(st, "exact: 2^40+1-element layout plans");
    if (!st) {
        int64_t ie = 0, oe = 0, want = ((int64_t)1 << 40) + 1;
        CHECK_OK(cufort_fft_extents(plan, 0, &ie, &oe), "exact: extents");
        CHECK(ie == want && oe == want, "exact: extents are 2^40+1 elements", "%lld / %lld",
              (long long)ie, (long long)oe);
        void *d = NULL;
        CHECK_OK(cufort_alloc(&d, 4 * 8), "exact: alloc 4 elements");
        CHECK_ST(cufort_fft_exec(plan, d, d, CUFORT_FFT_FORWARD), CUFORT_BAD_POINTER,
                 "exact: a 4-element device array is refused");
        cufort_free(d);
        cufort_fft_destroy(plan);
    }
}

/* What the backend's library cannot take is refused at plan time, naming that library (FFTW's int
 * arguments on the host backend; on the cuda backend, a batch whose distances cuFFT's planner
 * would fault on). */
static void backend_limits(void)
{
    cufort_fft_plan plan = NULL;
    int64_t n1[1] = {2}, e1[1] = {2};
    /* 2^60 reals between two transforms: 2^62 bytes, which the span check lets through */
    CHECK_FAILS_MSG(cufort_fft_plan_many(&plan, CUFORT_FFT_R2C, 1, n1, 2, e1, 1, (int64_t)1 << 60, e1, 1, 2),
                    CUFORT_NOT_SUPPORTED, cufort_on_host() ? "FFTW" : "cuFFT",
                    "a batch with idist = 2^60 refused at plan time, naming the backend's library");
    CHECK_MSG("idist", "... naming the argument");
    CHECK(plan == NULL, "... no plan handed out", "plan %p", (void *)plan);
    if (!cufort_on_host())
        return;
    CHECK_FAILS_MSG(cufort_fft_plan_many(&plan, CUFORT_FFT_C2C, 1, n1, 1, e1, (int64_t)1 << 31, 1, e1, 1, 1),
                    CUFORT_NOT_SUPPORTED, "FFTW", "host: istride 2^31 refused at plan time, naming FFTW");
    CHECK(strstr(ck_err(), "BLAS") == NULL, "host: ... not blaming the CPU BLAS", "\"%s\"", ck_err());
    CHECK_MSG("istride", "host: ... naming the argument");
    CHECK_FAILS_MSG(cufort_fft_plan_many(&plan, CUFORT_FFT_C2C, 1, n1, 1, e1, 1, 1, e1, 1 << 30, 1),
                    CUFORT_NOT_SUPPORTED, "ostride",
                    "host: a complex stride of 2^30 (FFTW doubles it) refused");
    CHECK_FAILS_MSG(cufort_fft_plan_1d(&plan, CUFORT_FFT_C2C, (int64_t)1 << 31, 1), CUFORT_NOT_SUPPORTED,
                    "FFTW", "host: n = 2^31 refused at plan time, naming FFTW");
    CHECK(strstr(ck_err(), "BLAS") == NULL, "host: ... not blaming the CPU BLAS", "\"%s\"", ck_err());
    CHECK(plan == NULL, "host: no plan handed out", "plan %p", (void *)plan);
}

static int run_child(const char *mode)
{
    ck_child_main("fft");
    if (!CHECK_OK(cufort_init(), ckf("child %s init", mode)))
        return 1;
    if (!strcmp(mode, "in_place_mismatch"))
        in_place_mismatch();
    else if (!strcmp(mode, "span_overflow"))
        span_overflow();
    else
        CHECK(0, "child mode", "unknown mode %s", mode);
    cufort_shutdown();
    return ck_failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    ck_begin("fft", 300);
    if (argc == 3 && !strcmp(argv[1], "--child"))
        return run_child(argv[2]);
    CHECK_OK(cufort_init(), "init");
    printf("# backend %s\n", cufort_backend_name());
    transforms();
    round_trip();
    repeated_host_exec();
    thunk_stream();
    cache_reuse();
    cache_bound();
    cache_threads();
    cache_reset();
    spread_batches();
    errors();
    backend_limits();
    cufort_shutdown();
    ck_child("in_place_mismatch", "child in_place_mismatch", NULL);
    ck_child("span_overflow", "child span_overflow", NULL);
    return ck_end();
}
