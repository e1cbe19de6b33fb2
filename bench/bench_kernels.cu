// bench_kernels.cu — `make bench` (GPU machine): cufort's reduction and transpose kernels side by
// side with CUB DeviceReduce::Sum, cublas<S|D>asum, a device-to-device cudaMemcpy of the same bytes
// and cublasSgeam (op T), in one run.  CUDA events around every call, warm-up first, L2 emptied of
// the operands before each timed call, the median (and min) of REPS timed calls; inputs are random,
// never zero, and far larger than L2.  Prints a table (last) and writes CSV to
// $OUT/bench_kernels.csv when OUT is set, else ./bench_kernels.csv.
// Bandwidth: reductions count the bytes read; transposes and the copy count bytes read + written.
#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cufort.h"
#include "cufort_kernels_launch.h"

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CB(call)                                                                                   \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "%s:%d %s: status %d\n", __FILE__, __LINE__, #call, (int)s_);          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int REPS = 100, WARM = 10;

// device memory from cufort_alloc, as a cufort user has it (the C ABI rows then check it cheaply)
template <class T> static cudaError_t dalloc(T **p, size_t bytes)
{
    void *q = nullptr;
    if (cufort_alloc(&q, (int64_t)bytes)) { fprintf(stderr, "cufort_alloc: %s\n", cufort_last_error()); exit(1); }
    *p = static_cast<T *>(q);
    return cudaSuccess;
}
static cudaError_t dfree(void *p) { cufort_free(p); return cudaSuccess; }

__global__ void fill_random(float *x, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
        float v = 0.5f + (h >> 8) * (1.0f / 16777216.0f);
        x[i] = (h & 1) ? v : -v;
    }
}
__global__ void widen(const float *x, double *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = (double)x[i] * (1.0 + 1e-9 * (double)(i & 1023));
}

// Before every timed call: a read of twice L2's size, then a wait for it.  Each case then starts
// from the same L2 (none of its operands in it), whatever case ran before it: without this the
// same launch read up to 3% faster or slower by its place in the interleaved order.  A read leaves clean lines (a memset would leave dirty ones for the timed call to write
// back); the wait keeps the timed call's launch inside its time, as a caller sees it.
static const int4 *scrub_buf;
static size_t scrub_n;
static int *scrub_sink;
__global__ void scrub_l2(const int4 *p, size_t n, int *sink)
{
    int acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int4 v = __ldcg(p + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x7fffffff) *sink = acc;   // never in practice; keeps the loads
}
static void scrub(cudaStream_t s)
{
    scrub_l2<<<1024, 512, 0, s>>>(scrub_buf, scrub_n, scrub_sink);
    CK(cudaStreamSynchronize(s));
}

struct Row { std::string group, what; double bytes, med_ms, min_ms, gbs; };
static std::vector<Row> rows;

// Cases of one group are timed interleaved (rep 1 of every case, then rep 2, ...), so that a slow
// spell of the machine (clocks, a neighbour) falls on all of them alike instead of on one row.
struct Case { std::string group, what; double bytes; std::function<void()> fn; };
static std::vector<Case> pending;
static void timeit(const std::string &group, const std::string &what, double bytes, cudaStream_t,
                   const std::function<void()> &fn)
{
    pending.push_back({group, what, bytes, fn});
}
static void flush(cudaStream_t s)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (auto &c : pending)
        for (int i = 0; i < WARM; i++) c.fn();
    CK(cudaStreamSynchronize(s));
    std::vector<std::vector<float>> t(pending.size(), std::vector<float>(REPS));
    for (int i = 0; i < REPS; i++)
        for (size_t k = 0; k < pending.size(); k++) {
            scrub(s);
            CK(cudaEventRecord(a, s));
            pending[k].fn();
            CK(cudaEventRecord(b, s));
            CK(cudaEventSynchronize(b));
            CK(cudaEventElapsedTime(&t[k][i], a, b));
        }
    CK(cudaGetLastError());
    for (size_t k = 0; k < pending.size(); k++) {
        std::sort(t[k].begin(), t[k].end());
        double med = t[k][REPS / 2], mn = t[k][0], bytes = pending[k].bytes;
        rows.push_back({pending[k].group, pending[k].what, bytes, med, mn, bytes / (med * 1e-3) / 1e9});
        printf("  %-14s %-44s %9.4f ms  %7.0f GB/s\n", pending[k].group.c_str(), pending[k].what.c_str(), med,
               bytes / (med * 1e-3) / 1e9);
    }
    fflush(stdout);
    pending.clear();
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1) REPS = atoi(argv[1]);
    cudaDeviceProp prop;
    CK(cudaSetDevice(0));
    CK(cudaGetDeviceProperties(&prop, 0));
    if (cufort_init_backend(CUFORT_BACKEND_CUDA) != 0) {
        fprintf(stderr, "cufort_init: %s\n", cufort_last_error());
        return 1;
    }
    printf("device: %s, %d SMs, L2 %d MB; reps %d (median), warm-up %d\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20, REPS, WARM);
    cudaStream_t s = 0;   // the default stream: cufort's thread stream too
    scrub_n = 2 * (size_t)prop.l2CacheSize / sizeof(int4);
    {
        float *sb;
        CK(dalloc(&sb, scrub_n * sizeof(int4)));
        fill_random<<<1024, 256>>>(sb, scrub_n * 4, 4242u);
        scrub_buf = reinterpret_cast<const int4 *>(sb);
        CK(dalloc(&scrub_sink, 64));
    }
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, s));
    const int sms = prop.multiProcessorCount;

    // ---- reductions ----
    const size_t nf = 64ull << 20, nd = 32ull << 20;
    float *x, *y, *fres;
    double *xd, *dres;
    void *partials;
    CK(dalloc(&x, nf * 4));
    CK(dalloc(&y, nf * 4));
    CK(dalloc(&xd, nd * 8));
    CK(dalloc(&fres, 64));
    CK(dalloc(&dres, 64));
    CK(dalloc(&partials, 64 << 20));
    fill_random<<<1024, 256>>>(x, nf, 12345u);
    fill_random<<<1024, 256>>>(y, nf, 777u);
    widen<<<1024, 256>>>(x, xd, nd);
    CK(cudaDeviceSynchronize());
    size_t cub_bytes = 0, cub_bytes_d = 0;
    cub::DeviceReduce::Sum(nullptr, cub_bytes, x, fres, (int64_t)nf, s);
    cub::DeviceReduce::Sum(nullptr, cub_bytes_d, xd, dres, (int64_t)nd, s);
    void *cub_tmp;
    CK(dalloc(&cub_tmp, std::max(cub_bytes, cub_bytes_d)));
    auto ours = [&](int kind, int op, size_t n, const void *a, const void *b, void *res, int grid) {
        int e = cufort_kreduce_launch(kind, op, (int64_t)n, a, 1, b, 1, CUFORT_PRED_GT, 0.0, partials, res, grid, s);
        if (e) { fprintf(stderr, "kreduce: %s\n", cudaGetErrorString((cudaError_t)e)); exit(1); }
    };
    printf("reductions (bytes read):\n");
    const double bf = nf * 4.0, bd = nd * 8.0;
    timeit("f32 64M", "CUB DeviceReduce::Sum", bf, s, [&] { cub::DeviceReduce::Sum(cub_tmp, cub_bytes, x, fres, (int64_t)nf, s); });
    // the pointer mode is set inside each timed call: the cases run interleaved
    timeit("f32 64M", "cublasSasum (pointer mode device)", bf, s, [&] {
        CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
        CB(cublasSasum(h, (int)nf, x, 1, fres)); });
    static float hostres;
    timeit("f32 64M", "cublasSasum (pointer mode host)", bf, s, [&] {
        CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
        CB(cublasSasum(h, (int)nf, x, 1, &hostres)); });
    timeit("f32 64M", "cufort sum (kernel, default grid SMs*64)", bf, s, [&] { ours(CUFORT_KS, CUFORT_RSUM, nf, x, nullptr, fres, 0); });
    timeit("f32 64M", "cufort sum (kernel, pass 2 without PDL)", bf, s, [&] {
        cufort_kreduce_pdl = 0;
        ours(CUFORT_KS, CUFORT_RSUM, nf, x, nullptr, fres, 0);
        cufort_kreduce_pdl = 1; });
    timeit("f32 64M", "cufort sum (kernel, grid SMs*8)", bf, s, [&] { ours(CUFORT_KS, CUFORT_RSUM, nf, x, nullptr, fres, sms * 8); });
    timeit("f32 64M", "cufort sum (kernel, grid SMs*16)", bf, s, [&] { ours(CUFORT_KS, CUFORT_RSUM, nf, x, nullptr, fres, sms * 16); });
    timeit("f32 64M", "cufort sum (kernel, 1 block/chunk)", bf, s, [&] { ours(CUFORT_KS, CUFORT_RSUM, nf, x, nullptr, fres, 1 << 30); });
    timeit("f32 64M", "cufort_sreduce_sum_dev (C ABI)", bf, s, [&] { cufort_sreduce_sum_dev((int64_t)nf, x, 1, fres); });
    timeit("f32 64M", "cufort_sreduce_sum (C ABI, host result)", bf, s, [&] { cufort_sreduce_sum((int64_t)nf, x, 1, &hostres); });
    timeit("f32 64M", "cufort sumk (compensated)", bf, s, [&] { ours(CUFORT_KS, CUFORT_RSUMK, nf, x, nullptr, fres, 0); });
    timeit("f32 64M", "cufort asum", bf, s, [&] { ours(CUFORT_KS, CUFORT_RASUM, nf, x, nullptr, fres, 0); });
    timeit("f32 64M", "cufort nrm2", bf, s, [&] { ours(CUFORT_KS, CUFORT_RNRM2, nf, x, nullptr, fres, 0); });
    timeit("f32 64M", "cufort maxloc", bf, s, [&] { ours(CUFORT_KS, CUFORT_RMAXLOC, nf, x, nullptr, fres, 0); });
    timeit("f32 64M", "cufort dot (x and y read)", 2 * bf, s, [&] { ours(CUFORT_KS, CUFORT_RDOT, nf, x, y, fres, 0); });
    timeit("f32 64M", "cufort sum, incx=2 (32M elements, strided)", bf / 2, s, [&] {
        cufort_kreduce_launch(CUFORT_KS, CUFORT_RSUM, (int64_t)nf / 2, x, 2, nullptr, 1, 0, 0.0, partials, fres, 0, s); });
    // the same, ten calls back to back per timed region: the launch latency that one call per
    // region leaves in its time is hidden as it is in any loop (cublasSasum in host pointer mode
    // still waits for each result)
    const int B10 = 10;
    timeit("f32 64M x10", "CUB DeviceReduce::Sum", B10 * bf, s, [&] {
        for (int r = 0; r < B10; r++) cub::DeviceReduce::Sum(cub_tmp, cub_bytes, x, fres, (int64_t)nf, s); });
    timeit("f32 64M x10", "cublasSasum (pointer mode device)", B10 * bf, s, [&] {
        CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
        for (int r = 0; r < B10; r++) CB(cublasSasum(h, (int)nf, x, 1, fres)); });
    timeit("f32 64M x10", "cublasSasum (pointer mode host)", B10 * bf, s, [&] {
        CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
        for (int r = 0; r < B10; r++) CB(cublasSasum(h, (int)nf, x, 1, &hostres)); });
    timeit("f32 64M x10", "cufort_sreduce_sum_dev (C ABI)", B10 * bf, s, [&] {
        for (int r = 0; r < B10; r++) cufort_sreduce_sum_dev((int64_t)nf, x, 1, fres); });
    timeit("f32 64M x10", "cufort_sreduce_sum (C ABI, host result)", B10 * bf, s, [&] {
        for (int r = 0; r < B10; r++) cufort_sreduce_sum((int64_t)nf, x, 1, &hostres); });
    timeit("f64 32M", "CUB DeviceReduce::Sum", bd, s, [&] { cub::DeviceReduce::Sum(cub_tmp, cub_bytes_d, xd, dres, (int64_t)nd, s); });
    timeit("f64 32M", "cublasDasum (pointer mode device)", bd, s, [&] {
        CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
        CB(cublasDasum(h, (int)nd, xd, 1, dres)); });
    timeit("f64 32M", "cufort sum (kernel)", bd, s, [&] { ours(CUFORT_KD, CUFORT_RSUM, nd, xd, nullptr, dres, 0); });
    timeit("f64 32M", "cufort_dreduce_sum_dev (C ABI)", bd, s, [&] { cufort_dreduce_sum_dev((int64_t)nd, xd, 1, dres); });
    timeit("f64 32M", "cufort sumk (compensated)", bd, s, [&] { ours(CUFORT_KD, CUFORT_RSUMK, nd, xd, nullptr, dres, 0); });
    timeit("f64 32M", "cufort asum", bd, s, [&] { ours(CUFORT_KD, CUFORT_RASUM, nd, xd, nullptr, dres, 0); });
    timeit("f64 32M", "cufort nrm2 (Blue)", bd, s, [&] { ours(CUFORT_KD, CUFORT_RNRM2, nd, xd, nullptr, dres, 0); });
    flush(s);
    CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));   // geam's alpha/beta below are host scalars
    // sanity: our sum vs CUB's, and bits across grids
    {
        float a = 0, b = 0, c = 0;
        cub::DeviceReduce::Sum(cub_tmp, cub_bytes, x, fres, (int64_t)nf, s);
        CK(cudaMemcpy(&a, fres, 4, cudaMemcpyDeviceToHost));
        ours(CUFORT_KS, CUFORT_RSUM, nf, x, nullptr, fres, 0);
        CK(cudaMemcpy(&b, fres, 4, cudaMemcpyDeviceToHost));
        ours(CUFORT_KS, CUFORT_RSUM, nf, x, nullptr, fres, 7);
        CK(cudaMemcpy(&c, fres, 4, cudaMemcpyDeviceToHost));
        printf("  check: CUB sum %.9g, cufort sum %.9g (grid 7: %s bits)\n", a, b, memcmp(&b, &c, 4) ? "DIFFERENT" : "same");
    }
    CK(dfree(x)); CK(dfree(y)); CK(dfree(xd)); CK(dfree(cub_tmp));

    // ---- transposes ----
    printf("transposes (bytes read + written):\n");
    const int shapes[][2] = {{8192, 8192}, {8191, 8193}, {8191, 8192}, {8192, 8191}};
    for (auto &sh : shapes) {
        const int m = sh[0], n = sh[1];
        const size_t cnt = (size_t)m * n;
        float *A, *B, *C;
        CK(dalloc(&A, cnt * 4));
        CK(dalloc(&B, cnt * 4));
        CK(dalloc(&C, cnt * 4));
        fill_random<<<1024, 256>>>(A, cnt, 99u);
        CK(cudaDeviceSynchronize());
        const double bytes = 2.0 * cnt * 4;
        char g[64];
        snprintf(g, sizeof g, "f32 %dx%d", m, n);
        const float one = 1.0f, zero = 0.0f;
        timeit(g, "cudaMemcpy D2D (same bytes)", bytes, s, [&] { CK(cudaMemcpyAsync(B, A, cnt * 4, cudaMemcpyDeviceToDevice, s)); });
        timeit(g, "cublasSgeam op T", bytes, s, [&] { CB(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, &one, A, m, &zero, C, n, C, n)); });
        for (int v = 1; v <= 4; v++) {
            static const char *names[] = {"", "cufort transpose 32x32 tile, 256 thr", "cufort transpose 64x64 tile, 256 thr",
                                          "cufort transpose 64x64 tile, 512 thr", "cufort transpose 64x64, sector-cut writes"};
            timeit(g, names[v], bytes, s, [&, v] {
                int e = cufort_ktranspose_launch(CUFORT_KS, 'T', m, n, &one, A, m, B, n, v, s);
                if (e) { fprintf(stderr, "transpose: %s\n", cudaGetErrorString((cudaError_t)e)); exit(1); }
            });
            CK((cudaError_t)cufort_ktranspose_launch(CUFORT_KS, 'T', m, n, &one, A, m, B, n, v, s));
            CK(cudaDeviceSynchronize());
            std::vector<float> hb(cnt), hc(cnt);
            CK(cudaMemcpy(hb.data(), B, cnt * 4, cudaMemcpyDeviceToHost));
            CB(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, &one, A, m, &zero, C, n, C, n));
            CK(cudaMemcpy(hc.data(), C, cnt * 4, cudaMemcpyDeviceToHost));
            if (memcmp(hb.data(), hc.data(), cnt * 4)) printf("  check: variant %d DIFFERS from cublasSgeam\n", v);
        }
        timeit(g, "cufort_stranspose (C ABI, default)", bytes, s, [&] { cufort_stranspose('T', m, n, 1.0f, A, m, B, n); });
        if (m == n) {
            timeit(g, "cufort_stranspose_inplace (C ABI)", bytes, s, [&] { cufort_stranspose_inplace('T', n, 1.0f, B, n); });
        }
        flush(s);
        CK(dfree(A)); CK(dfree(B)); CK(dfree(C));
    }
    {
        const int m = 8192, n = 8192;
        const size_t cnt = (size_t)m * n;
        double *A, *B, *C;
        CK(dalloc(&A, cnt * 8));
        CK(dalloc(&B, cnt * 8));
        CK(dalloc(&C, cnt * 8));
        fill_random<<<1024, 256>>>((float *)A, cnt * 2, 5u);
        CK(cudaDeviceSynchronize());
        const double bytes = 2.0 * cnt * 8, one = 1.0, zero = 0.0;
        timeit("f64 8192x8192", "cudaMemcpy D2D (same bytes)", bytes, s, [&] { CK(cudaMemcpyAsync(B, A, cnt * 8, cudaMemcpyDeviceToDevice, s)); });
        timeit("f64 8192x8192", "cublasDgeam op T", bytes, s, [&] { CB(cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, &one, A, m, &zero, C, n, C, n)); });
        timeit("f64 8192x8192", "cufort_dtranspose (C ABI, default)", bytes, s, [&] { cufort_dtranspose('T', m, n, 1.0, A, m, B, n); });
        timeit("c64 8192x8192", "cufort_ctranspose 'C' (C ABI, same bytes)", bytes, s, [&] {
            cufort_ctranspose('C', m, n, 1.0f, (const cufort_cfloat *)A, m, (cufort_cfloat *)B, n); });
        timeit("f64 8191x8193", "cudaMemcpy D2D (same bytes)", 2.0 * 8191 * 8193 * 8, s, [&] { CK(cudaMemcpyAsync(B, A, 8191ull * 8193 * 8, cudaMemcpyDeviceToDevice, s)); });
        timeit("f64 8191x8193", "cublasDgeam op T", 2.0 * 8191 * 8193 * 8, s, [&] { CB(cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, 8193, 8191, &one, A, 8191, &zero, C, 8193, C, 8193)); });
        for (int v = 2; v <= 4; v += 2)
            timeit("f64 8191x8193", v == 2 ? "cufort transpose 64x64 tile, 256 thr" : "cufort transpose 64x64, sector-cut writes",
                   2.0 * 8191 * 8193 * 8, s, [&, v] { cufort_ktranspose_launch(CUFORT_KD, 'T', 8191, 8193, &one, A, 8191, B, 8193, v, s); });
        timeit("f64 8191x8193", "cufort_dtranspose (C ABI, default)", 2.0 * 8191 * 8193 * 8, s,
               [&] { cufort_dtranspose('T', 8191, 8193, 1.0, A, 8191, B, 8193); });
        flush(s);
        CK(dfree(A)); CK(dfree(B)); CK(dfree(C));
    }

    // ---- table and CSV ----
    const char *out = getenv("OUT");
    std::string path = std::string(out && *out ? out : ".") + "/bench_kernels.csv";
    FILE *f = fopen(path.c_str(), "w");
    if (f) fprintf(f, "device,group,what,bytes,median_ms,min_ms,GB_per_s\n");
    printf("\n== %s\n%-16s %-44s %12s %10s %10s\n", prop.name, "case", "what", "median ms", "min ms", "GB/s");
    for (auto &r : rows) {
        printf("%-16s %-44s %12.4f %10.4f %10.0f\n", r.group.c_str(), r.what.c_str(), r.med_ms, r.min_ms, r.gbs);
        if (f) fprintf(f, "\"%s\",\"%s\",\"%s\",%.0f,%.5f,%.5f,%.1f\n", prop.name, r.group.c_str(), r.what.c_str(), r.bytes,
                       r.med_ms, r.min_ms, r.gbs);
    }
    if (f) { fclose(f); printf("csv: %s\n", path.c_str()); }
    cublasDestroy(h);
    cufort_shutdown();
    return 0;
}
