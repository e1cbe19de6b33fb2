/* cuda_kernels.c — the cuda backend of cufort's own kernels: launches kernels/reduce.cu and
 * kernels/transpose.cu on this thread's stream (cufort_set_stream), so they are ordered with the
 * thread's BLAS calls and copies.
 *
 * The reductions' chunk partials live in a per-thread scratch block per stream (up to 4 streams a
 * thread, then the least recently used block is taken over once its last use is done): repeated calls
 * allocate nothing, and a result left on the device (result_on_device) needs no synchronisation,
 * because a later call on the same stream is ordered after it.  The blocks are released at
 * shutdown and device change (thread_state.h).
 *
 * Testing and tuning knobs: CUFORT_REDUCE_GRID=<blocks> overrides the reductions' first-pass grid
 * (the result's bits do not depend on it); CUFORT_TRANSPOSE_VARIANT=1|2|3 picks the transpose's
 * tile (cufort_kernels_launch.h; default 0 = the measured best). */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "env.h"
#include "kernels_internal.h"
#include "thread_state.h"

enum { SLOTS = 4, RESULT_OFFSET = 0, HEAD_BYTES = 256 };

/* What a block may still be used by: nothing (the call that used it last waited for its work),
 * the work before the slot's event (a _dev reduction's), or unknown (a call that failed midway). */
enum { IDLE, UNTIL_EVENT, UNKNOWN };

typedef struct {
    cudaStream_t stream;
    void *buf;
    size_t size;
    cudaEvent_t done;
    int busy;
    unsigned long long last_use;
} slot;

typedef struct {
    cufort_thread_state link;
    slot s[SLOTS];
    unsigned long long clock;
} scratch;

static void release_scratch(cufort_thread_state *state)
{
    scratch *sc = (scratch *)state;
    for (int i = 0; i < SLOTS; i++) {
        if (sc->s[i].buf)
            cudaFree(sc->s[i].buf);
        if (sc->s[i].done)
            cudaEventDestroy(sc->s[i].done);
    }
    cudaGetLastError();
}

static cufort_thread_states scratches = CUFORT_THREAD_STATES(scratch, release_scratch);
static _Thread_local scratch *mine;

/* a slot whose block holds at least `bytes`, usable on `stream` without racing earlier calls */
static int scratch_for(cudaStream_t stream, size_t bytes, slot **out)
{
    if (!cufort_thread_state_get(&scratches, (void **)&mine))
        return CUFORT_ALLOC_FAILED;
    slot *use = NULL;
    for (int i = 0; i < SLOTS && !use; i++)
        if (mine->s[i].buf && mine->s[i].stream == stream) use = &mine->s[i];
    if (!use) {   /* an empty slot, else the least recently used one, once its block is idle */
        for (int i = 0; i < SLOTS && !use; i++)
            if (!mine->s[i].buf) use = &mine->s[i];
        if (!use) {
            use = &mine->s[0];
            for (int i = 1; i < SLOTS; i++)
                if (mine->s[i].last_use < use->last_use) use = &mine->s[i];
            /* Its stream may have been destroyed since (by any thread), so nothing is asked of
             * it: the slot's event says when its last work is done, and where even that is not
             * known, cudaFree waits for the whole device. */
            if (use->busy == UNTIL_EVENT && cudaEventSynchronize(use->done) == cudaSuccess)
                use->busy = IDLE;
            if (use->busy != IDLE) {
                cudaFree(use->buf);
                use->buf = NULL;
                use->size = 0;
                use->busy = IDLE;
            }
        }
        use->stream = stream;
    }
    if (use->size < bytes) {
        size_t want = bytes < 4096 ? 4096 : bytes;
        if (use->buf) {
            /* earlier work on this stream may still read it: cudaFree waits for the device */
            cudaFree(use->buf);
            use->buf = NULL;
            use->size = 0;
        }
        int st = cufort_cuda_error(cudaMalloc(&use->buf, want), "cudaMalloc (reduction partials)");
        if (st) return st;
        use->size = want;
    }
    use->last_use = ++mine->clock;
    *out = use;
    return CUFORT_SUCCESS;
}

static int grid_override(void)
{
    int64_t g = 0;
    cufort_env_int("CUFORT_REDUCE_GRID", 0, INT32_MAX, &g);
    return (int)g;
}

static int transpose_variant(void)
{
    int64_t v = 0;
    cufort_env_int("CUFORT_TRANSPOSE_VARIANT", 0, INT32_MAX, &v);
    return (int)v;
}

static size_t result_bytes(int kind, int op)
{
    switch (op) {
    case CUFORT_RMINLOC: case CUFORT_RMAXLOC: case CUFORT_RCOUNT: return 8;
    case CUFORT_RASUM: case CUFORT_RNRM2: return kind == CUFORT_KS || kind == CUFORT_KC ? 4 : 8;
    default: return cufort_kelem_size(kind);
    }
}

int cufort_cuda_kreduce(int kind, int op, int64_t n, const void *x, int64_t incx, const void *y,
                        int64_t incy, int pred, double value, void *result, int result_on_device)
{
    int st = cufort_cuda_bind_thread();
    if (st) return st;
    size_t pb = cufort_kreduce_partial_bytes(kind, op);
    if (!pb) return cufort_fail(CUFORT_NOT_SUPPORTED, "reduction %d is not defined for kind %d", op, kind);
    size_t pbytes = (size_t)cufort_kreduce_nchunks(kind, n) * pb;
    cudaStream_t s = (cudaStream_t)cufort_thread_stream();
    slot *sl = NULL;
    st = scratch_for(s, HEAD_BYTES + pbytes, &sl);
    if (st) return st;
    /* the block: [result slot][... partials] */
    char *buf = sl->buf;
    void *dres = result_on_device ? result : buf + RESULT_OFFSET;
    sl->busy = UNKNOWN;
    st = cufort_cuda_error((cudaError_t)cufort_kreduce_launch(kind, op, n, x, incx, y, incy, pred, value,
                                                             buf + HEAD_BYTES, dres, grid_override(), s),
                           "reduction kernel launch");
    if (st) return st;
    if (result_on_device) {   /* not waited for: the event marks the block's last use */
        if ((sl->done || cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming) == cudaSuccess) &&
            cudaEventRecord(sl->done, s) == cudaSuccess)
            sl->busy = UNTIL_EVENT;
        cudaGetLastError();   /* a failed event only costs the wait for the whole device later */
        return CUFORT_SUCCESS;
    }
    /* through an aligned local: the driver refuses a copy that starts inside a pinned range and
     * runs past its end, which a 16-byte result at an 8-byte boundary of the caller's may do */
    _Alignas(16) unsigned char got[16];
    const size_t rb = result_bytes(kind, op);
    st = cufort_cuda_error(cudaMemcpyAsync(got, dres, rb, cudaMemcpyDeviceToHost, s),
                           "cudaMemcpyAsync (reduction result)");
    if (!st && !(st = cufort_cuda_error(cudaStreamSynchronize(s), "reduction"))) {
        memcpy(result, got, rb);
        sl->busy = IDLE;
    }
    return st;
}

int cufort_cuda_ktranspose(int kind, char trans, int64_t m, int64_t n, const void *alpha,
                           const void *a, int64_t lda, void *b, int64_t ldb)
{
    int st = cufort_cuda_bind_thread();
    if (st) return st;
    return cufort_cuda_error((cudaError_t)cufort_ktranspose_launch(kind, trans, m, n, alpha, a, lda, b, ldb, transpose_variant(),
                                                                  cufort_thread_stream()),
                             "transpose kernel launch");
}

int cufort_cuda_kmirror(int kind, char uplo, int herm, int64_t n, void *a, int64_t lda)
{
    int st = cufort_cuda_bind_thread();
    if (st) return st;
    return cufort_cuda_error((cudaError_t)cufort_kmirror_launch(kind, uplo, herm, n, a, lda,
                                                               cufort_thread_stream()),
                             "mirror kernel launch");
}

int cufort_cuda_ktranspose_inplace(int kind, char trans, int64_t n, const void *alpha, void *a,
                                   int64_t lda)
{
    int st = cufort_cuda_bind_thread();
    if (st) return st;
    return cufort_cuda_error((cudaError_t)cufort_ktranspose_inplace_launch(kind, trans, n, alpha, a, lda,
                                                                          cufort_thread_stream()),
                             "in-place transpose kernel launch");
}
