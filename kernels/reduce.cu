// reduce.cu — deterministic two-pass reductions (sum, compensated sum, asum, dot/dotc, nrm2, min,
// max, minloc, maxloc, count) over strided vectors of the four BLAS kinds.
//
// The ladder's last step (seed 000 "reduction #7", seed 004 grid-stride + warp shuffles): a
// grid-stride loop over fixed-size chunks, 16-byte vector loads where the vector is contiguous and
// aligned (eight in flight per thread), per-thread serial accumulation, __shfl_down_sync trees, one
// barrier per chunk (double-buffered shared slots), one partial per chunk, and a one-block second
// pass in a fixed order, launched as a programmatic dependent launch so that its launch overlaps
// the first pass's tail.  (A one-launch variant whose last block ran the second pass measured
// slower.)  No floating-point atomics: the bits depend on n only (see
// cufort_kernels_launch.h), never on the grid.  Products are formed with __fmul_rn/__dmul_rn so
// that no multiply-add is contracted into an FMA: the host backend replays the same arithmetic.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "cufort_kernels_launch.h"

namespace {

constexpr int THREADS = CUFORT_KREDUCE_THREADS;
constexpr int UNROLL = CUFORT_KREDUCE_UNROLL;
constexpr int THREADS2 = CUFORT_KREDUCE_THREADS2;
constexpr unsigned FULL = 0xffffffffu;

// ---- element traits ------------------------------------------------------------------------
template <class T> struct Traits;
template <> struct Traits<float> { typedef float R; static constexpr bool complex = false; };
template <> struct Traits<double> { typedef double R; static constexpr bool complex = false; };
template <> struct Traits<float2> { typedef float R; static constexpr bool complex = true; };
template <> struct Traits<double2> { typedef double R; static constexpr bool complex = true; };

__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(add(a.x, b.x), add(a.y, b.y)); }
__device__ __forceinline__ double2 add(double2 a, double2 b) { return make_double2(add(a.x, b.x), add(a.y, b.y)); }

template <class T> __device__ __forceinline__ T zero();
template <> __device__ __forceinline__ float zero<float>() { return 0.0f; }
template <> __device__ __forceinline__ double zero<double>() { return 0.0; }
template <> __device__ __forceinline__ float2 zero<float2>() { return make_float2(0.0f, 0.0f); }
template <> __device__ __forceinline__ double2 zero<double2>() { return make_double2(0.0, 0.0); }

// ---- the operations: P partial, identity, map (element -> partial), combine, finish --------
template <class T> struct OpSum {
    typedef T P; typedef T Res;
    static constexpr bool TWO = false;
    __device__ P identity() const { return zero<T>(); }
    __device__ P map(T x, T, int64_t) const { return x; }
    __device__ P combine(P a, P b) const { return add(a, b); }
    __device__ Res finish(P a) const { return a; }
};

struct Pair { double s, c; };
// compensated: TwoSum of the sums, the errors summed into c (Neumaier, generalised to pairs)
template <class T> struct OpSumK {
    typedef Pair P; typedef T Res;
    static constexpr bool TWO = false;
    __device__ P identity() const { return Pair{0.0, 0.0}; }
    __device__ P map(T x, T, int64_t) const { return Pair{(double)x, 0.0}; }
    __device__ P combine(P a, P b) const
    {
        double s = __dadd_rn(a.s, b.s);
        double bp = __dsub_rn(s, a.s);
        double e = __dadd_rn(__dsub_rn(a.s, __dsub_rn(s, bp)), __dsub_rn(b.s, bp));
        return Pair{s, __dadd_rn(__dadd_rn(a.c, b.c), e)};
    }
    __device__ Res finish(P a) const { return (T)__dadd_rn(a.s, a.c); }
};

template <class T> struct OpAsum {
    typedef typename Traits<T>::R R;
    typedef R P; typedef R Res;
    static constexpr bool TWO = false;
    __device__ P identity() const { return (R)0; }
    __device__ P map(T x, T, int64_t) const
    {
        if constexpr (Traits<T>::complex) return add(fabs(x.x), fabs(x.y));
        else return fabs(x);
    }
    __device__ P combine(P a, P b) const { return add(a, b); }
    __device__ Res finish(P a) const { return a; }
};

template <class T, bool CONJ> struct OpDot {
    typedef T P; typedef T Res;
    static constexpr bool TWO = true;
    __device__ P identity() const { return zero<T>(); }
    __device__ P map(T x, T y, int64_t) const
    {
        if constexpr (Traits<T>::complex) {
            if (CONJ) return T{add(mul(x.x, y.x), mul(x.y, y.y)), sub(mul(x.x, y.y), mul(x.y, y.x))};
            return T{sub(mul(x.x, y.x), mul(x.y, y.y)), add(mul(x.x, y.y), mul(x.y, y.x))};
        } else {
            return mul(x, y);
        }
    }
    __device__ P combine(P a, P b) const { return add(a, b); }
    __device__ Res finish(P a) const { return a; }
};

// nrm2 of single-precision kinds: squares summed in double cannot overflow or underflow
template <class T> struct OpNrm2F {
    typedef double P; typedef float Res;
    static constexpr bool TWO = false;
    __device__ P identity() const { return 0.0; }
    __device__ P map(T x, T, int64_t) const
    {
        if constexpr (Traits<T>::complex) {
            double r = x.x, i = x.y;
            return __dadd_rn(__dmul_rn(r, r), __dmul_rn(i, i));
        } else {
            double r = x;
            return __dmul_rn(r, r);
        }
    }
    __device__ P combine(P a, P b) const { return __dadd_rn(a, b); }
    __device__ Res finish(P a) const { return (float)sqrt(a); }
};

// nrm2 of double-precision kinds: Blue's three accumulators (LAPACK 3.10 dnrm2), one pass
struct Blue { double sml, med, big; };
#define BLUE_TSML 0x1p-511
#define BLUE_TBIG 0x1p486
#define BLUE_SSML 0x1p537
#define BLUE_SBIG 0x1p-538
__device__ __forceinline__ void blue_add(Blue &b, double x)
{
    double a = fabs(x);
    if (a > BLUE_TBIG) {
        double t = __dmul_rn(a, BLUE_SBIG);
        b.big = __dadd_rn(b.big, __dmul_rn(t, t));
    } else if (a < BLUE_TSML) {
        double t = __dmul_rn(a, BLUE_SSML);
        b.sml = __dadd_rn(b.sml, __dmul_rn(t, t));
    } else {
        b.med = __dadd_rn(b.med, __dmul_rn(a, a));
    }
}
template <class T> struct OpNrm2D {
    typedef Blue P; typedef double Res;
    static constexpr bool TWO = false;
    __device__ P identity() const { return Blue{0.0, 0.0, 0.0}; }
    __device__ P map(T x, T, int64_t) const
    {
        Blue b{0.0, 0.0, 0.0};
        if constexpr (Traits<T>::complex) { blue_add(b, x.x); blue_add(b, x.y); }
        else blue_add(b, x);
        return b;
    }
    __device__ P combine(P a, P b) const
    {
        return Blue{__dadd_rn(a.sml, b.sml), __dadd_rn(a.med, b.med), __dadd_rn(a.big, b.big)};
    }
    __device__ Res finish(P b) const
    {
        double scl, sumsq;
        if (b.big > 0.0) {
            double abig = b.big;
            if (b.med > 0.0 || b.med != b.med) abig = __dadd_rn(abig, __dmul_rn(__dmul_rn(b.med, BLUE_SBIG), BLUE_SBIG));
            scl = 1.0 / BLUE_SBIG;
            sumsq = abig;
        } else if (b.sml > 0.0) {
            if (b.med > 0.0 || b.med != b.med) {
                double amed = sqrt(b.med), asml = sqrt(b.sml) / BLUE_SSML, ymin, ymax;
                if (asml > amed) { ymin = amed; ymax = asml; } else { ymin = asml; ymax = amed; }
                double q = ymin / ymax;
                scl = 1.0;
                sumsq = __dmul_rn(__dmul_rn(ymax, ymax), __dadd_rn(1.0, __dmul_rn(q, q)));
            } else {
                scl = 1.0 / BLUE_SSML;
                sumsq = b.sml;
            }
        } else {
            scl = 1.0;
            sumsq = b.med;
        }
        return __dmul_rn(scl, sqrt(sumsq));
    }
};

// min/max and their locations: NaNs lose to numbers (Fortran MINVAL/MINLOC as gfortran, IEEE
// minNum); ties and all-NaN go to the lowest index.  The order is total, so any tree gives the same.
template <class T> struct Loc { T v; int32_t pad; int64_t i; };
template <class T, bool MAX, bool WANT_INDEX> struct OpLoc {
    typedef Loc<T> P;
    typedef typename std::conditional<WANT_INDEX, int64_t, T>::type Res;
    static constexpr bool TWO = false;
    __device__ P identity() const { return P{(T)NAN, 0, INT64_MAX}; }
    __device__ P map(T x, T, int64_t i) const { return P{x, 0, i}; }
    __device__ P combine(P a, P b) const
    {
        bool an = a.v != a.v, bn = b.v != b.v;
        if (an != bn) return bn ? a : b;
        if (!an && a.v != b.v) return (MAX ? a.v > b.v : a.v < b.v) ? a : b;
        return a.i <= b.i ? a : b;
    }
    __device__ Res finish(P a) const
    {
        if constexpr (WANT_INDEX) return a.i;
        else return a.v;
    }
};

template <class T> struct OpCount {
    typedef long long P; typedef int64_t Res;
    static constexpr bool TWO = false;
    int pred; T value;
    __device__ P identity() const { return 0; }
    __device__ P map(T x, T, int64_t) const
    {
        bool r;
        switch (pred) {
        case CUFORT_PRED_LT: r = x < value; break;
        case CUFORT_PRED_LE: r = x <= value; break;
        case CUFORT_PRED_GT: r = x > value; break;
        case CUFORT_PRED_GE: r = x >= value; break;
        case CUFORT_PRED_EQ: r = x == value; break;
        default: r = x != value; break;
        }
        return r ? 1 : 0;
    }
    __device__ P combine(P a, P b) const { return a + b; }
    __device__ Res finish(P a) const { return a; }
};

// ---- warp and block trees ------------------------------------------------------------------
template <class P> __device__ __forceinline__ P shfl_down(P v, int off)
{
    static_assert(sizeof(P) % 4 == 0, "partials are whole words");
    constexpr int W = sizeof(P) / 4;
    int w[W];
    memcpy(w, &v, sizeof(P));
#pragma unroll
    for (int k = 0; k < W; k++) w[k] = __shfl_down_sync(FULL, w[k], off);
    memcpy(&v, w, sizeof(P));
    return v;
}

template <class Op> __device__ __forceinline__ typename Op::P warp_tree(const Op &op, typename Op::P v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = op.combine(v, shfl_down(v, off));
    return v;
}

// ---- element access ------------------------------------------------------------------------
template <class T> struct Vec { static constexpr int N = 16 / sizeof(T); };

template <class T> __device__ __forceinline__ void load_vec(const T *p, T (&out)[Vec<T>::N])
{
    int4 raw = __ldg(reinterpret_cast<const int4 *>(p));
    memcpy(out, &raw, 16);
}

template <class T> __device__ __forceinline__ T at(const T *x, int64_t i, int64_t n, int64_t inc)
{
    return inc >= 0 ? x[i * inc] : x[(n - 1 - i) * -inc];
}

// ---- pass 1: one partial per chunk ---------------------------------------------------------
template <class Op, class T>
__global__ void __launch_bounds__(THREADS) reduce_pass1(Op op, const T *__restrict__ x, int64_t incx,
                                                        const T *__restrict__ y, int64_t incy, int64_t n,
                                                        int64_t nchunks, typename Op::P *__restrict__ partials,
                                                        bool vec)
{
    typedef typename Op::P P;
    constexpr int V = Vec<T>::N;
    constexpr int64_t CHUNK = (int64_t)THREADS * UNROLL * V;
    __shared__ P slot[2][THREADS / 32];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int parity = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();   // pass 2 may be scheduled once every block runs
#endif
    for (int64_t c = blockIdx.x; c < nchunks; c += gridDim.x, parity ^= 1) {
        const int64_t base = c * CHUNK;
        P acc = op.identity();
        if (vec && base + CHUNK <= n) {
            T xv[UNROLL][V], yv[UNROLL][V];
#pragma unroll
            for (int k = 0; k < UNROLL; k++) {
                load_vec(x + base + (int64_t)k * THREADS * V + t * V, xv[k]);
                if (Op::TWO) load_vec(y + base + (int64_t)k * THREADS * V + t * V, yv[k]);
            }
#pragma unroll
            for (int k = 0; k < UNROLL; k++)
#pragma unroll
                for (int e = 0; e < V; e++)
                    acc = op.combine(acc, op.map(xv[k][e], Op::TWO ? yv[k][e] : xv[k][e],
                                                 base + (int64_t)k * THREADS * V + t * V + e));
        } else {
#pragma unroll
            for (int k = 0; k < UNROLL; k++)
#pragma unroll
                for (int e = 0; e < V; e++) {
                    int64_t i = base + (int64_t)k * THREADS * V + t * V + e;
                    if (i < n) {
                        T xi = at(x, i, n, incx);
                        T yi = Op::TWO ? at(y, i, n, incy) : xi;
                        acc = op.combine(acc, op.map(xi, yi, i));
                    }
                }
        }
        acc = warp_tree(op, acc);
        if (lane == 0) slot[parity][warp] = acc;
        __syncthreads();
        if (warp == 0) {
            P v = lane < THREADS / 32 ? slot[parity][lane] : op.identity();
            v = warp_tree(op, v);
            if (lane == 0) partials[c] = v;
        }
    }
}

// ---- pass 2: the partials in a fixed order, one block --------------------------------------
template <class Op>
__global__ void __launch_bounds__(THREADS2) reduce_pass2(Op op, const typename Op::P *__restrict__ partials,
                                                         int64_t np, typename Op::Res *__restrict__ result)
{
    typedef typename Op::P P;
    __shared__ P slot[THREADS2 / 32];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();   // launched early (PDL): wait for pass 1's partials here
#endif
    // all of a thread's loads of a round first, then the folds in order (the same bits)
    constexpr int BATCH = 8;
    P acc = op.identity();
    for (int64_t p0 = t; p0 < np; p0 += (int64_t)THREADS2 * BATCH) {
        P v[BATCH];
#pragma unroll
        for (int u = 0; u < BATCH; u++)
            if (p0 + (int64_t)u * THREADS2 < np) v[u] = partials[p0 + (int64_t)u * THREADS2];
#pragma unroll
        for (int u = 0; u < BATCH; u++)
            if (p0 + (int64_t)u * THREADS2 < np) acc = op.combine(acc, v[u]);
    }
    acc = warp_tree(op, acc);
    if (lane == 0) slot[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        P v = slot[lane];
        v = warp_tree(op, v);
        if (lane == 0) *result = op.finish(v);
    }
}

int default_grid()
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 132 * 8;
    static int cached_dev = -1, cached = 0;
    if (dev == cached_dev && cached) return cached;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0) sms = 1;
    cached = sms * 64;   // measured (docs/performance.md): about one block per chunk at 64M floats
    cached_dev = dev;
    return cached;
}

template <class Op, class T>
cudaError_t run(Op op, int64_t n, const void *xv, int64_t incx, const void *yv, int64_t incy,
                void *partials, void *result, int grid, cudaStream_t s)
{
    const T *x = static_cast<const T *>(xv), *y = static_cast<const T *>(yv);
    constexpr int64_t CHUNK = (int64_t)THREADS * UNROLL * Vec<T>::N;
    const int64_t nchunks = (n + CHUNK - 1) / CHUNK;
    bool vec = incx == 1 && ((uintptr_t)x & 15) == 0 &&
               (!Op::TWO || (incy == 1 && ((uintptr_t)y & 15) == 0));
    int64_t g = grid > 0 ? grid : default_grid();
    if (g > nchunks) g = nchunks;
    if (g > 0x7fffffff) g = 0x7fffffff;
    reduce_pass1<Op, T><<<(unsigned)g, THREADS, 0, s>>>(op, x, incx, y, incy, n, nchunks,
                                                     static_cast<typename Op::P *>(partials), vec);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    // Programmatic dependent launch: pass 2's block is made resident while pass 1 drains and waits
    // in cudaGridDependencySynchronize, so the launch gap between the passes leaves the timeline.
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(THREADS2);
    cfg.stream = s;
    cudaLaunchAttribute pdl[1];
    pdl[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    pdl[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = pdl;
    cfg.numAttrs = cufort_kreduce_pdl ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, reduce_pass2<Op>, op, static_cast<const typename Op::P *>(partials),
                              nchunks, static_cast<typename Op::Res *>(result));
}

template <class T>
cudaError_t dispatch_real(int op, int64_t n, const void *x, int64_t incx, const void *y, int64_t incy,
                          int pred, double value, void *partials, void *result, int grid, cudaStream_t s)
{
    switch (op) {
    case CUFORT_RSUM: return run<OpSum<T>, T>(OpSum<T>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RSUMK: return run<OpSumK<T>, T>(OpSumK<T>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RASUM: return run<OpAsum<T>, T>(OpAsum<T>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RDOT: return run<OpDot<T, false>, T>(OpDot<T, false>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RNRM2:
        if constexpr (sizeof(T) == 4) return run<OpNrm2F<T>, T>(OpNrm2F<T>(), n, x, incx, y, incy, partials, result, grid, s);
        else return run<OpNrm2D<T>, T>(OpNrm2D<T>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RMIN: return run<OpLoc<T, false, false>, T>(OpLoc<T, false, false>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RMAX: return run<OpLoc<T, true, false>, T>(OpLoc<T, true, false>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RMINLOC: return run<OpLoc<T, false, true>, T>(OpLoc<T, false, true>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RMAXLOC: return run<OpLoc<T, true, true>, T>(OpLoc<T, true, true>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RCOUNT: {
        OpCount<T> o;
        o.pred = pred;
        o.value = (T)value;
        return run<OpCount<T>, T>(o, n, x, incx, y, incy, partials, result, grid, s);
    }
    default: return cudaErrorInvalidValue;
    }
}

template <class T>
cudaError_t dispatch_complex(int op, int64_t n, const void *x, int64_t incx, const void *y, int64_t incy,
                             void *partials, void *result, int grid, cudaStream_t s)
{
    switch (op) {
    case CUFORT_RSUM: return run<OpSum<T>, T>(OpSum<T>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RASUM: return run<OpAsum<T>, T>(OpAsum<T>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RDOT: return run<OpDot<T, false>, T>(OpDot<T, false>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RDOTC: return run<OpDot<T, true>, T>(OpDot<T, true>(), n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_RNRM2:
        if constexpr (sizeof(T) == 8) return run<OpNrm2F<T>, T>(OpNrm2F<T>(), n, x, incx, y, incy, partials, result, grid, s);
        else return run<OpNrm2D<T>, T>(OpNrm2D<T>(), n, x, incx, y, incy, partials, result, grid, s);
    default: return cudaErrorInvalidValue;
    }
}

template <class T> size_t partial_real(int op)
{
    switch (op) {
    case CUFORT_RSUM: case CUFORT_RDOT: return sizeof(T);
    case CUFORT_RSUMK: return sizeof(Pair);
    case CUFORT_RASUM: return sizeof(T);
    case CUFORT_RNRM2: return sizeof(T) == 4 ? sizeof(double) : sizeof(Blue);
    case CUFORT_RMIN: case CUFORT_RMAX: case CUFORT_RMINLOC: case CUFORT_RMAXLOC: return sizeof(Loc<T>);
    case CUFORT_RCOUNT: return sizeof(long long);
    default: return 0;
    }
}

template <class T> size_t partial_complex(int op)
{
    switch (op) {
    case CUFORT_RSUM: case CUFORT_RDOT: case CUFORT_RDOTC: return sizeof(T);
    case CUFORT_RASUM: return sizeof(T) / 2;
    case CUFORT_RNRM2: return sizeof(T) == 8 ? sizeof(double) : sizeof(Blue);
    default: return 0;
    }
}

} // namespace

extern "C" int cufort_kreduce_pdl = 1;

extern "C" size_t cufort_kreduce_partial_bytes(int kind, int op)
{
    switch (kind) {
    case CUFORT_KS: return partial_real<float>(op);
    case CUFORT_KD: return partial_real<double>(op);
    case CUFORT_KC: return partial_complex<float2>(op);
    case CUFORT_KZ: return partial_complex<double2>(op);
    default: return 0;
    }
}

extern "C" int cufort_kreduce_launch(int kind, int op, int64_t n, const void *x, int64_t incx,
                                     const void *y, int64_t incy, int pred, double value, void *partials,
                                     void *result, int grid, void *stream)
{
    if (n <= 0 || !partials || !result) return (int)cudaErrorInvalidValue;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    switch (kind) {
    case CUFORT_KS: return (int)dispatch_real<float>(op, n, x, incx, y, incy, pred, value, partials, result, grid, s);
    case CUFORT_KD: return (int)dispatch_real<double>(op, n, x, incx, y, incy, pred, value, partials, result, grid, s);
    case CUFORT_KC: return (int)dispatch_complex<float2>(op, n, x, incx, y, incy, partials, result, grid, s);
    case CUFORT_KZ: return (int)dispatch_complex<double2>(op, n, x, incx, y, incy, partials, result, grid, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
