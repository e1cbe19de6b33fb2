/* thunk.c — the thunk engine behind every host-array entry point.
 * One device buffer per call holds every array, carved from a per-thread scratch block that only
 * grows (so repeated calls allocate nothing); arrays travel through staging.c (pinned staging,
 * parallel host copies overlapped with the DMA).  GEMM does not come through here: gemm_engine.c
 * tiles it so that copies overlap compute, in the same scratch. */
#include "scratch.h"
#include "stage_trace.h"
#include "staging.h"
#include "thunk.h"

enum { ALIGN = 256 };

/* ---- the protocol ---- */

int cufort_thunk_begin(cufort_thunk *t, const char *routine)
{
    t->routine = routine;
    t->count = 0;
    t->status = CUFORT_SUCCESS;
    t->dev = NULL;
    TRACE_HOST('T', 0, 0);
    return cufort_ensure_init(routine);
}

/* A host array whose span would not fit the address space cannot exist: the call fails here,
 * before any byte count could wrap. */
static int add(cufort_thunk *t, const void *host, int64_t rows, int64_t cols, int64_t ld,
               size_t elem_size, int io, int64_t dev_ld, int64_t dev_inc)
{
    if (t->count == CUFORT_THUNK_MAX_ARRAYS) {
        t->status = cufort_fail(CUFORT_INTERNAL_ERROR, "%s: too many arrays for the thunk engine",
                                t->routine);
        return 0;
    }
    int i = t->count++;
    int empty = rows <= 0 || cols <= 0;
    size_t span = 0;
    if (!empty) {
        ld = cufort_ld_used(rows, cols, ld);
        int64_t elems = cufort_extent_mat(rows, cols, ld);
        if (elems == INT64_MAX || __builtin_mul_overflow((size_t)elems, elem_size, &span) ||
            span > PTRDIFF_MAX) {
            if (!t->status)
                t->status = cufort_fail(CUFORT_INVALID_VALUE, "%s: a host array of %lld x %lld "
                                        "elements, %lld apart, would span more than the address "
                                        "space", t->routine, (long long)rows, (long long)cols,
                                        (long long)ld);
            empty = 1;
        }
    }
    t->a[i] = (cufort_thunk_array){
        .host = host, .rows = empty ? 0 : rows, .cols = empty ? 0 : cols, .ld = ld,
        .dev_ld = dev_ld, .dev_inc = dev_inc, .elem_size = elem_size,
        .bytes = empty ? 0 : (size_t)rows * (size_t)cols * elem_size, .io = io};
    return i;
}

int cufort_thunk_matrix(cufort_thunk *t, const void *host, int64_t rows, int64_t cols, int64_t ld,
                        size_t elem_size, int io)
{
    return add(t, host, rows, cols, ld, elem_size, io, IMAX(1, rows), 1);
}

/* A vector is `n` columns of one element, |inc| apart on the host and contiguous on the device:
 * memory order is kept, so a negative increment stays negative (-1) and 0 stays a broadcast.
 * |INT64_MIN| has no int64 value: such a vector of two or more elements is refused. */
int cufort_thunk_vector(cufort_thunk *t, const void *host, int64_t n, int64_t inc, size_t elem_size,
                        int io)
{
    if (inc == INT64_MIN && n > 1) {
        if (!t->status)
            t->status = cufort_fail(CUFORT_INVALID_VALUE, "%s: increment INT64_MIN has no "
                                    "magnitude an int64 can hold", t->routine);
        return add(t, host, 0, 0, 1, elem_size, io, 1, 0);
    }
    int64_t stride = inc < 0 ? (inc == INT64_MIN ? 1 : -inc) : inc;
    return add(t, host, 1, inc == 0 && n > 0 ? 1 : n, IMAX(1, stride), elem_size, io, 1,
               inc > 0 ? 1 : inc < 0 ? -1 : 0);
}

int cufort_thunk_span(cufort_thunk *t, const void *host, int64_t count, size_t elem_size, int io)
{
    return add(t, host, count, 1, IMAX(1, count), elem_size, io, IMAX(1, count), 1);
}

static int copy(const cufort_thunk_array *a, char *dev, cufort_copy_kind kind)
{
    size_t width = (size_t)a->rows * a->elem_size, hpitch = (size_t)a->ld * a->elem_size;
    if (kind == CUFORT_H2D)
        return cufort_stage_to_device(dev, a->host, hpitch, width, (size_t)a->cols);
    return cufort_stage_to_host((void *)a->host, hpitch, dev, width, (size_t)a->cols);
}

int cufort_thunk_stage_in(cufort_thunk *t)
{
    if (t->status)
        return t->status;
    size_t total = 0;
    for (int i = 0; i < t->count; i++) {
        if (t->a[i].bytes && !t->a[i].host)
            return cufort_null_arg(t->routine, "a host array");
        t->a[i].offset = total;
        if (__builtin_add_overflow(total, (t->a[i].bytes + ALIGN - 1) / ALIGN * ALIGN, &total))
            return cufort_fail(CUFORT_ALLOC_FAILED, "%s: the arrays together exceed the address "
                               "space", t->routine);
    }
    if (total == 0)
        return CUFORT_SUCCESS;
    void *buf = NULL;
    int st = cufort_thunk_scratch(total, &buf);
    if (st)
        return cufort_in(t->routine, st);
    t->dev = buf;
    for (int i = 0; i < t->count && !st; i++)
        if (t->a[i].bytes && (t->a[i].io & CUFORT_IN))
            st = copy(&t->a[i], t->dev + t->a[i].offset, CUFORT_H2D);
    return cufort_in(t->routine, st);   /* a copy's failure names the call it failed in */
}

void *cufort_thunk_ptr(const cufort_thunk *t, int i)
{
    return t->a[i].bytes ? t->dev + t->a[i].offset : NULL;
}

int64_t cufort_thunk_ld(const cufort_thunk *t, int i) { return t->a[i].dev_ld; }
int64_t cufort_thunk_inc(const cufort_thunk *t, int i) { return t->a[i].dev_inc; }

/* A download returns with the stream done up to it; without one (a failed call, a call with only
 * inputs) the stream is waited for here, as an upload from pinned memory may still be reading. */
int cufort_thunk_finish(cufort_thunk *t, int status)
{
    int drained = 0;
    TRACE_HOST('F', 0, 0);
    TRACE_GPU(cufort_thread_stream(), 'K', 0, 0);
    for (int i = 0; i < t->count && status == CUFORT_SUCCESS; i++)
        if (t->a[i].bytes && (t->a[i].io & CUFORT_OUT))
            drained = (status = copy(&t->a[i], t->dev + t->a[i].offset, CUFORT_D2H)) == CUFORT_SUCCESS;
    if (t->dev && !drained) {
        int sync = cufort_ops()->stream_synchronize(cufort_thread_stream());
        status = status ? status : sync;
    }
    TRACE_HOST('Z', 0, 0);
    return cufort_in(t->routine, status);
}
