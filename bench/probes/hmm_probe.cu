/* hmm_probe.cu — can the GPU itself read and write a pageable (malloc'd) host array at PCIe speed,
 * with no CPU staging?  Under HMM (heterogeneous memory management: Linux with the open kernel
 * modules, cudaDevAttrPageableMemoryAccess = 1), a kernel may dereference any host pointer, and the
 * driver keeps the GPU's mappings coherent with the process's page tables (mmu notifiers): a freed
 * and re-mapped address cannot keep stale pages, the hazard a cache of cudaHostRegister pins must
 * guard against (the pin cache does it with userfaultfd: docs/design.md).  If repeated accesses run
 * near the DMA engine's rate, a thunked transform on pageable arrays needs no host threads at all.
 * On the H100 machine of docs/performance.md the answer was no: no HMM there
 * (bench/results/hmm_probe_h100.log).
 * Sections, 128 MiB each way unless said, medians of REPS after a first call timed alone (wall clock
 * to the stream's end):
 *   floor     pinned cudaMemcpyAsync each way; a copy kernel reading / writing pinned memory
 *   driver    cudaMemcpyAsync from / to the pageable array (the driver's own path), and
 *             cudaMemcpyBatchAsync, the source declared accessible in any order or during the call
 *   plain     a copy kernel reading the pageable array ("pull") or writing it ("push"), no advice;
 *             then how long the CPU takes to read the array (slow if its pages moved to the GPU)
 *   advised   the same after cudaMemAdvise: preferred location host, accessed by the device
 *   rw        ... with the CPU rewriting the array before every call, as a program does
 *   blocks    pull on the advised array by the copy kernel's grid size
 *   query     cudaMemRangeGetAttribute(accessed-by): its cost, and whether it tells an advised
 *             range from a fresh one at the same address
 *   fft       a 2^24-point C2C and a batch of 4096 x 4096 (single precision), in turns rep by rep:
 *             the floor (pinned H2D + D2H), pinned copies + cuFFT, pull + cuFFT + push on advised
 *             pageable arrays (the CPU rewriting the input between reps); the batch also in 8
 *             parts with pull, transform and push overlapped on two streams
 *   fresh     pull + cuFFT + push on a newly malloc'd pair of arrays each call (the first-touch
 *             cost), without advice and with the advice given in the call
 *   safety    free + malloc at the same address: the kernel must read the new contents
 * Usage: hmm_probe [MiB [blocks [threads]]] */
#include <cuda_runtime.h>
#include <cufft.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CF(x) do { cufftResult r_ = (x); if (r_ != CUFFT_SUCCESS) { \
    fprintf(stderr, "%s:%d %s: cufft error %d\n", __FILE__, __LINE__, #x, (int)r_); exit(1); } } while (0)

enum { REPS = 11, FFT_REPS = 15, PARTS = 8 };
static size_t BYTES = (size_t)128 << 20;
static int blocks = 0, threads = 512, dev = 0;
static cudaStream_t st, st2;
static cudaEvent_t e0, e1;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static float median(float *v, int n)
{
    qsort(v, n, sizeof *v, cmp);
    return v[n / 2];
}

__global__ void copy4(float4 *__restrict__ dst, const float4 *__restrict__ src, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a; dst[i + stride] = b; dst[i + 2 * stride] = c; dst[i + 3 * stride] = d;
    }
    for (; i < n4; i += stride)
        dst[i] = src[i];
}

static void kcopy(void *dst, const void *src, size_t bytes, cudaStream_t s, int nb)
{
    copy4<<<nb, threads, 0, s>>>((float4 *)dst, (const float4 *)src, bytes / 16);
}

typedef void (*op_fn)(void *dst, void *src);
static void op_kernel(void *dst, void *src) { kcopy(dst, src, BYTES, st, blocks); }
static void op_memcpy(void *dst, void *src) { CK(cudaMemcpyAsync(dst, src, BYTES, cudaMemcpyDefault, st)); }
static cudaError_t batch_err;   /* the first refusal of a batched copy (then its case is skipped) */
/* cudaMemcpyBatchAsync (CUDA 12.8+) in `pieces` copies, the source's access order declared: "any"
 * lets the driver "optimize the copy on certain platforms" for malloc'd sources */
static void batch(void *dst, void *src, int pieces, cudaMemcpySrcAccessOrder order)
{
    void *d[16];
    const void *s[16];
    size_t n[16], idx = 0, each = BYTES / pieces;
    for (int i = 0; i < pieces; i++)
        d[i] = (char *)dst + i * each, s[i] = (char *)src + i * each, n[i] = each;
    struct cudaMemcpyAttributes a = {};
    a.srcAccessOrder = order;
    cudaError_t e = cudaMemcpyBatchAsync(d, s, n, pieces, &a, &idx, 1, st);
    if (e && !batch_err)
        batch_err = e;
    cudaGetLastError();
}
static void op_batch_any(void *dst, void *src) { batch(dst, src, 1, cudaMemcpySrcAccessOrderAny); }
static void op_batch_any16(void *dst, void *src) { batch(dst, src, 16, cudaMemcpySrcAccessOrderAny); }
static void op_batch_during(void *dst, void *src) { batch(dst, src, 1, cudaMemcpySrcAccessOrderDuringApiCall); }
static void op_batch_stream16(void *dst, void *src) { batch(dst, src, 16, cudaMemcpySrcAccessOrderStream); }

static void fill(float *a, size_t bytes, float v)
{
    for (size_t i = 0; i < bytes / 4; i++) a[i] = v + (float)(i % 1000);
}

/* first call alone, then REPS calls, each to the stream's end; rw: the CPU rewrites host before each */
static void timed(const char *name, op_fn op, void *dst, void *src, float *host, int rw)
{
    double t = now();
    op(dst, src);
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());
    double first = (now() - t) * 1e3;
    float ms[REPS];
    for (int r = 0; r < REPS; r++) {
        if (rw) fill(host, BYTES, (float)r);
        double t0 = now();   /* wall clock: some copies do their work inside the API call */
        op(dst, src);
        CK(cudaStreamSynchronize(st));
        ms[r] = (float)((now() - t0) * 1e3);
    }
    CK(cudaGetLastError());
    qsort(ms, REPS, sizeof *ms, cmp);
    printf("%-24s first %8.3f ms  median %7.3f ms (%5.1f GB/s)  min %7.3f max %7.3f\n", name, first,
           ms[REPS / 2], BYTES / ms[REPS / 2] / 1e6, ms[0], ms[REPS - 1]);
    fflush(stdout);
}

/* a batched copy timed only if the driver takes it: 1 if it did */
static int timed_batch(const char *name, op_fn op, void *dst, void *src)
{
    batch_err = cudaSuccess;
    op(dst, src);
    cudaStreamSynchronize(st);
    cudaGetLastError();
    if (batch_err) {
        printf("%-24s refused: %s\n", name, cudaGetErrorString(batch_err));
        return 0;
    }
    timed(name, op, dst, src, NULL, 0);
    return 1;
}

static double cpu_read_ms(const float *a)
{
    double t = now();
    volatile float s = 0;
    float acc = 0;
    for (size_t i = 0; i < BYTES / 4; i += 16) acc += a[i];
    s = acc;
    (void)s;
    return (now() - t) * 1e3;
}

static int check(const float *dev_or_host, float v, const char *what)
{
    float *h = (float *)malloc(BYTES);
    CK(cudaMemcpy(h, dev_or_host, BYTES, cudaMemcpyDefault));
    size_t bad = 0;
    for (size_t i = 0; i < BYTES / 4; i++) bad += h[i] != v + (float)(i % 1000);
    free(h);
    printf("check %-34s %s (%zu wrong)\n", what, bad ? "WRONG" : "ok", bad);
    return bad != 0;
}

/* a kernel pulling `in` into d and pushing d into `out` (first call, then medians), each also with
 * the CPU rewriting the array between calls; how long the CPU then takes to read the array; the
 * driver's own copy of `in` for comparison */
static void pull_push(const char *label, float *in, float *out, float *d, float v)
{
    char name[48];
    fill(in, BYTES, v);
    snprintf(name, sizeof name, "%s pull", label);
    timed(name, op_kernel, d, in, NULL, 0);
    check(d, v, name);
    printf("%s cpu read of the input after pulls: %.3f ms\n", label, cpu_read_ms(in));
    snprintf(name, sizeof name, "%s pull rw", label);
    timed(name, op_kernel, d, in, in, 1);
    check(d, REPS - 1, name);
    snprintf(name, sizeof name, "%s push", label);
    timed(name, op_kernel, out, d, NULL, 0);
    printf("%s cpu read of the output after pushes: %.3f ms\n", label, cpu_read_ms(out));
    check(out, REPS - 1, name);
    snprintf(name, sizeof name, "%s push rw", label);
    timed(name, op_kernel, out, d, out, 1);
    snprintf(name, sizeof name, "%s driver memcpy h2d", label);
    timed(name, op_memcpy, d, in, NULL, 0);
}

static double advise(void *p, size_t bytes, cudaError_t *err)
{
    struct cudaMemLocation host = {cudaMemLocationTypeHost, 0}, gpu = {cudaMemLocationTypeDevice, dev};
    double t = now();
    cudaError_t a = cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, host);
    cudaError_t b = cudaMemAdvise(p, bytes, cudaMemAdviseSetAccessedBy, gpu);
    *err = a ? a : b;
    cudaGetLastError();
    return (now() - t) * 1e3;
}

/* 1 when dev is among the devices with accessed-by advice on [p, p+bytes); ms: the query's cost */
static int accessed_by(void *p, size_t bytes, double *ms)
{
    int devs[4] = {-9, -9, -9, -9};
    double t = now();
    cudaError_t e = cudaMemRangeGetAttribute(devs, sizeof devs, cudaMemRangeAttributeAccessedBy, p, bytes);
    *ms = (now() - t) * 1e3;
    cudaGetLastError();
    if (e) {
        printf("  query: %s\n", cudaGetErrorString(e));
        return -1;
    }
    for (int i = 0; i < 4; i++)
        if (devs[i] == dev) return 1;
    return 0;
}

/* ---- thunked FFT flows ---- */
typedef struct {
    const char *name;
    size_t bytes;
    cufftHandle plan, part_plan;
    cufftComplex *d_in, *d_out;
    float *pin_in, *pin_out, *pg_in, *pg_out;
} flow;

static void floor_copies(flow *f)
{
    CK(cudaMemcpyAsync(f->d_in, f->pin_in, f->bytes, cudaMemcpyHostToDevice, st));
    CK(cudaMemcpyAsync(f->pin_out, f->d_out, f->bytes, cudaMemcpyDeviceToHost, st));
}
static void pinned_thunk(flow *f)
{
    CK(cudaMemcpyAsync(f->d_in, f->pin_in, f->bytes, cudaMemcpyHostToDevice, st));
    CF(cufftExecC2C(f->plan, f->d_in, f->d_out, CUFFT_FORWARD));
    CK(cudaMemcpyAsync(f->pin_out, f->d_out, f->bytes, cudaMemcpyDeviceToHost, st));
}
static void hmm_thunk(flow *f)
{
    kcopy(f->d_in, f->pg_in, f->bytes, st, blocks);
    CF(cufftExecC2C(f->plan, f->d_in, f->d_out, CUFFT_FORWARD));
    kcopy(f->pg_out, f->d_out, f->bytes, st, blocks);
}
/* parts: pull k and transform k on st; push k on st2 once transform k is done */
static cudaEvent_t part_done[PARTS], fork_ev, join_ev;
static void hmm_parts(flow *f)
{
    size_t pb = f->bytes / PARTS;
    CK(cudaEventRecord(fork_ev, st));
    CK(cudaStreamWaitEvent(st2, fork_ev, 0));
    for (int k = 0; k < PARTS; k++) {
        char *di = (char *)f->d_in + k * pb, *dout = (char *)f->d_out + k * pb;
        kcopy(di, (char *)f->pg_in + k * pb, pb, st, blocks / 2);
        CF(cufftExecC2C(f->part_plan, (cufftComplex *)di, (cufftComplex *)dout, CUFFT_FORWARD));
        CK(cudaEventRecord(part_done[k], st));
        CK(cudaStreamWaitEvent(st2, part_done[k], 0));
        kcopy((char *)f->pg_out + k * pb, dout, pb, st2, blocks / 2);
    }
    CK(cudaEventRecord(join_ev, st2));
    CK(cudaStreamWaitEvent(st, join_ev, 0));
}

typedef void (*flow_fn)(flow *);
static void run_flows(flow *f, const char **names, flow_fn *fn, int n)
{
    float t[4][FFT_REPS], paired[4][FFT_REPS];
    for (int r = -2; r < FFT_REPS; r++) {
        fill(f->pg_in, f->bytes, (float)(r + 3));   /* the program's new input, outside the timing */
        for (int k = 0; k < n; k++) {
            float ms;
            CK(cudaEventRecord(e0, st));
            fn[k](f);
            CK(cudaEventRecord(e1, st));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 0) t[k][r] = ms;
        }
        if (r >= 0)
            for (int k = 0; k < n; k++) paired[k][r] = t[k][r] / t[0][r];
    }
    CK(cudaGetLastError());
    for (int k = 0; k < n; k++) {
        float ratio = median(paired[k], FFT_REPS);
        float lo = t[k][0], hi = t[k][0];
        for (int r = 0; r < FFT_REPS; r++) lo = lo < t[k][r] ? lo : t[k][r], hi = hi > t[k][r] ? hi : t[k][r];
        printf("fft %-10s %-22s median %7.3f ms  min %7.3f max %7.3f  paired x floor %5.3f\n", f->name,
               names[k], median(t[k], FFT_REPS), lo, hi, ratio);
    }
    fflush(stdout);
}

static void fft_case(const char *name, int n, int batch, cudaError_t *adv)
{
    flow f = {name, (size_t)n * batch * sizeof(cufftComplex)};
    CF(cufftPlan1d(&f.plan, n, CUFFT_C2C, batch));
    CF(cufftSetStream(f.plan, st));
    if (batch % PARTS == 0) {
        CF(cufftPlan1d(&f.part_plan, n, CUFFT_C2C, batch / PARTS));
        CF(cufftSetStream(f.part_plan, st));
    }
    CK(cudaMalloc(&f.d_in, f.bytes));
    CK(cudaMalloc(&f.d_out, f.bytes));
    CK(cudaMallocHost(&f.pin_in, f.bytes));
    CK(cudaMallocHost(&f.pin_out, f.bytes));
    f.pg_in = (float *)malloc(f.bytes);
    f.pg_out = (float *)malloc(f.bytes);
    fill(f.pin_in, f.bytes, 1);
    fill(f.pg_in, f.bytes, 1);
    memset(f.pg_out, 0, f.bytes);
    double ms = advise(f.pg_in, f.bytes, adv) + advise(f.pg_out, f.bytes, adv);
    printf("fft %-10s advise both arrays: %.3f ms (%s)\n", name, ms, cudaGetErrorString(*adv));
    const char *names[] = {"floor (pinned copies)", "pinned + cuFFT", "pull + cuFFT + push", "parts, two streams"};
    flow_fn fn[] = {floor_copies, pinned_thunk, hmm_thunk, hmm_parts};
    run_flows(&f, names, fn, batch % PARTS == 0 ? 4 : 3);

    /* the same input both ways must give the same output */
    fill(f.pg_in, f.bytes, 5);
    fill(f.pin_in, f.bytes, 5);
    pinned_thunk(&f);
    hmm_thunk(&f);
    CK(cudaStreamSynchronize(st));
    printf("fft %-10s pull + cuFFT + push output %s the pinned path's\n", name,
           memcmp(f.pg_out, f.pin_out, f.bytes) ? "DIFFERS FROM" : "equals");

    /* fresh arrays every call: what a program that allocates per call pays, without and with advice */
    for (int advised = 0; advised < 2; advised++) {
        float fresh[5];
        for (int r = 0; r < 5; r++) {
            float *a = (float *)malloc(f.bytes), *b = (float *)malloc(f.bytes);
            fill(a, f.bytes, (float)r);
            memset(b, 0, f.bytes);
            float *sa = f.pg_in, *sb = f.pg_out;
            f.pg_in = a, f.pg_out = b;
            double t = now();
            if (advised) advise(a, f.bytes, adv), advise(b, f.bytes, adv);
            hmm_thunk(&f);
            CK(cudaStreamSynchronize(st));
            fresh[r] = (float)((now() - t) * 1e3);
            f.pg_in = sa, f.pg_out = sb;
            free(a);
            free(b);
        }
        CK(cudaGetLastError());
        printf("fft %-10s fresh arrays, %s, pull + cuFFT + push: %.2f %.2f %.2f %.2f %.2f ms\n", name,
               advised ? "advised in the call" : "no advice", fresh[0], fresh[1], fresh[2], fresh[3], fresh[4]);
    }
    cufftDestroy(f.plan);
    if (batch % PARTS == 0) cufftDestroy(f.part_plan);
    cudaFree(f.d_in), cudaFree(f.d_out), cudaFreeHost(f.pin_in), cudaFreeHost(f.pin_out);
    free(f.pg_in), free(f.pg_out);
}

int main(int argc, char **argv)
{
    if (argc > 1) BYTES = (size_t)atol(argv[1]) << 20;
    int v, pageable = 0;
    CK(cudaSetDevice(dev));
    const struct { cudaDeviceAttr a; const char *n; } attrs[] = {
        {cudaDevAttrPageableMemoryAccess, "PageableMemoryAccess"},
        {cudaDevAttrPageableMemoryAccessUsesHostPageTables, "PageableMemoryAccessUsesHostPageTables"},
        {cudaDevAttrConcurrentManagedAccess, "ConcurrentManagedAccess"},
        {cudaDevAttrHostRegisterSupported, "HostRegisterSupported"},
        {cudaDevAttrMultiProcessorCount, "MultiProcessorCount"},
    };
    for (unsigned i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        CK(cudaDeviceGetAttribute(&v, attrs[i].a, dev));
        printf("attr %s = %d\n", attrs[i].n, v);
        if (i == 0) pageable = v;
        if (i == 4) blocks = v * 4;
    }
    if (argc > 2) blocks = atoi(argv[2]);
    if (argc > 3) threads = atoi(argv[3]);
    printf("bytes %zu MiB, copy kernel %d x %d\n", BYTES >> 20, blocks, threads);
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&st2, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int k = 0; k < PARTS; k++) CK(cudaEventCreateWithFlags(&part_done[k], cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join_ev, cudaEventDisableTiming));

    float *d, *pin;
    CK(cudaMalloc(&d, BYTES));
    CK(cudaMallocHost(&pin, BYTES));
    fill(pin, BYTES, 1);
    timed("floor dma h2d", op_memcpy, d, pin, NULL, 0);
    timed("floor dma d2h", op_memcpy, pin, d, NULL, 0);
    timed("floor kernel pull pinned", op_kernel, d, pin, NULL, 0);
    timed("floor kernel push pinned", op_kernel, pin, d, NULL, 0);

    float *src = (float *)malloc(BYTES), *out = (float *)malloc(BYTES);
    fill(src, BYTES, 2);
    memset(out, 0, BYTES);
    timed("driver memcpy h2d", op_memcpy, d, src, NULL, 0);
    timed("driver memcpy d2h", op_memcpy, out, d, NULL, 0);
    const struct { const char *name; op_fn op; } h2d[] = {{"batch h2d, any", op_batch_any},
        {"batch h2d, any, 16", op_batch_any16}, {"batch h2d, during call", op_batch_during}};
    for (int i = 0; i < 3; i++) {
        CK(cudaMemset(d, 0, BYTES));
        if (timed_batch(h2d[i].name, h2d[i].op, d, src))
            check(d, 2, h2d[i].name);
    }
    CK(cudaMemcpy(d, src, BYTES, cudaMemcpyDefault));
    memset(out, 0, BYTES);
    if (timed_batch("batch d2h, 16", op_batch_stream16, out, d))
        check(out, 2, "batch d2h, 16");
    if (!pageable) {
        printf("no pageable memory access (no HMM): the kernel cases cannot run\n");
        return 0;
    }
    pull_push("plain", src, out, d, 3);
    float *a2 = (float *)malloc(BYTES), *o2 = (float *)malloc(BYTES);
    fill(a2, BYTES, 4);   /* populated before the advice, as a program's arrays are */
    memset(o2, 0, BYTES);
    cudaError_t adv;
    double ams = advise(a2, BYTES, &adv);
    printf("advise 128 MiB: %.3f ms (%s)\n", ams, cudaGetErrorString(adv));
    advise(o2, BYTES, &adv);
    pull_push("advised", a2, o2, d, 4);

    int saved = blocks;
    for (int m = 1; m <= 32; m *= 2) {
        char name[40];
        CK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev));
        blocks = v * m;
        snprintf(name, sizeof name, "advised pull %d blocks", blocks);
        timed(name, op_kernel, d, a2, NULL, 0);
        snprintf(name, sizeof name, "advised push %d blocks", blocks);
        timed(name, op_kernel, o2, d, NULL, 0);
    }
    blocks = saved;

    double qms;
    int q1 = accessed_by(a2, BYTES, &qms);
    printf("query advised: %d (%.3f ms)\n", q1, qms);
    int q2 = accessed_by(src, BYTES, &qms);
    printf("query plain: %d (%.3f ms)\n", q2, qms);

    uintptr_t old = (uintptr_t)a2;
    free(a2);
    float *a3 = (float *)malloc(BYTES);
    fill(a3, BYTES, 7);
    int q3 = accessed_by(a3, BYTES, &qms);
    printf("safety: malloc after free at the same address: %s; query %d (%.3f ms)\n",
           (uintptr_t)a3 == old ? "yes" : "no", q3, qms);
    op_kernel(d, a3);
    CK(cudaStreamSynchronize(st));
    check(d, 7, "safety: advised, freed, malloc'd");
    old = (uintptr_t)src;
    free(src);
    src = (float *)malloc(BYTES);
    fill(src, BYTES, 9);
    printf("safety: plain array again at the same address: %s\n", (uintptr_t)src == old ? "yes" : "no");
    op_kernel(d, src);
    CK(cudaStreamSynchronize(st));
    check(d, 9, "safety: plain, freed, malloc'd");

    fft_case("2^24", 1 << 24, 1, &adv);
    fft_case("4096x4096", 4096, 4096, &adv);
    return 0;
}
