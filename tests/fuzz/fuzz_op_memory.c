/* fuzz_op_memory.c — memory and transfers: alloc/free and host_alloc/host_free (then freed once,
 * twice, or from inside), freeing what was never allocated, host_register/unregister (once, twice,
 * the wrong pointer), set/get vector and matrix (synchronous and on a stream) with random element
 * sizes, increments and leading dimensions, copy_matrix, and the device and pin-cache queries. */
#include "fuzz.h"

#include <stdlib.h>

static int64_t draw_bytes(fz_rng *r)
{
    static const int64_t big[] = {0, -1, INT64_MIN, INT64_MAX, (int64_t)1 << 62, (int64_t)1 << 40,
                                  ((int64_t)1 << 31) + 3, 255, 256, 257};
    return fz_percent(r, 85) ? fz_draw_int(r, FZ_R_BYTES) : big[fz_below(r, sizeof big / sizeof *big)];
}

/* allocations this large may fail on any machine; smaller ones must not */
#define MAY_FAIL ((int64_t)1 << 30)
/* The skipping rule for allocations: a size from 64 MiB up to 1 TiB may well be granted, and cufort
 * would legitimately take its time (pinning it, or a sanitizer's shadow for it); larger ones fail
 * at once everywhere and run. */
#define ENORMOUS_FROM ((int64_t)1 << 26)
#define IMPOSSIBLE_FROM ((int64_t)1 << 40)

/* ---- alloc/free, host_alloc/host_free ---- */

static const fz_param ALLOC[] = {
    {"bytes", FZ_INT, FZ_R_BYTES, 0, 0, NULL}, {"ptr", FZ_INT, FZ_R_FLAG, 0, 0, NULL},
    {"then", FZ_INT, FZ_R_SMALL, 0, 0, NULL},
};

static void draw_alloc(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    (void)w, (void)op;
    for (int i = 0; i < 3; i++)
        c->arg[i].type = FZ_INT;
    c->arg[0].i = draw_bytes(r);
    c->arg[1].i = fz_percent(r, 96);
    c->arg[2].i = (int64_t)fz_below(r, 3);   /* 0 free, 1 free twice, 2 free from inside first */
}

static int exec_alloc(fz_worker *w, const fz_op *op, const fz_call *c)
{
    int pinned = op->data != NULL;
    const char *fn = pinned ? "cufort_host_alloc" : "cufort_alloc";
    const char *freer = pinned ? "cufort_host_free" : "cufort_free";
    int (*alloc)(void **, int64_t) = pinned ? cufort_host_alloc : cufort_alloc;
    int (*release)(void *) = pinned ? cufort_host_free : cufort_free;
    int64_t bytes = c->arg[0].i;
    int init = cufort_is_initialized();
    /* (not initialised, with other threads: a host-array call of theirs may initialise cufort
     * before this call) */
    if (bytes > ENORMOUS_FROM && bytes < IMPOSSIBLE_FROM && c->arg[1].i && (init || fz_threads > 1))
        return FZ_SKIPPED;
    void *p = (void *)(uintptr_t)0x77;
    int st = alloc(c->arg[1].i ? &p : NULL, bytes);
    fz_pred want = !init ? fz_expect_status(CUFORT_NOT_INITIALIZED)
                   : !c->arg[1].i || bytes < 0 ? fz_expect_status(CUFORT_INVALID_VALUE)
                   : bytes > MAY_FAIL ? (fz_pred){FZ_P_STATUS, CUFORT_SUCCESS, 0, FZ_ALSO(CUFORT_ALLOC_FAILED)}
                   : fz_expect_status(CUFORT_SUCCESS);
    fz_check(w, c, fn, st, want);
    if (st != CUFORT_SUCCESS || !c->arg[1].i) {
        if (c->arg[1].i && p != NULL && init)
            fz_failf(w, c, "%s failed but set the pointer to %p, not NULL", fn, p);
        return FZ_RAN;
    }
    if (bytes == 0 && p != NULL)
        fz_failf(w, c, "%s of 0 bytes gave %p, not NULL", fn, p);
    if (!p)
        return FZ_RAN;
    if (c->arg[2].i == 2)
        fz_check(w, c, freer, release((char *)p + 8), fz_expect_status(CUFORT_BAD_POINTER));
    fz_check(w, c, freer, release(p), fz_expect_status(CUFORT_SUCCESS));
    /* the second free only alone: with other threads allocating, p may be another thread's block
     * by then, and freeing it would fail that thread's next call (exec_free skips the same) */
    if (c->arg[2].i == 1 && fz_threads == 1)
        fz_check(w, c, freer, release(p), fz_expect_status(CUFORT_BAD_POINTER));
    return FZ_RAN;
}

static const fz_param FREE[] = {{"ptr", FZ_ARRAY, FZ_INOUT, 1, 0, NULL}};

static void draw_free(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    fz_array *a = &c->arg[0].a;
    c->arg[0].type = FZ_ARRAY;
    fz_draw_array(w, r, a, 1 + (fz_wide)fz_below(r, 4000), 1, 0);
    if (op->data && a->place == FZ_DEV && fz_percent(r, 70))
        a->place = FZ_PINNED;   /* host_free mostly of pinned blocks */
    if (fz_percent(r, 60))
        a->off = 0;             /* mostly the block itself, not a pointer into it */
}

static void drop_cached(fz_block *cache, void *p)
{
    for (int i = 0; i < FZ_CACHE; i++)
        if (cache[i].p == p)
            cache[i].p = NULL;
}

static int exec_free(fz_worker *w, const fz_op *op, const fz_call *c)
{
    int pinned = op->data != NULL;
    const char *fn = pinned ? "cufort_host_free" : "cufort_free";
    const fz_array *a = &c->arg[0].a;
    int init = cufort_is_initialized();
    /* with several threads, an address past a block or a freed one may be another thread's block
     * by now: freeing it would be the caller's error, and that thread's next call would pay */
    if (fz_threads > 1 && (a->place == FZ_FREED || (a->place != FZ_ALIAS && a->off >= a->bytes)))
        return FZ_SKIPPED;
    fz_resolve(w, c);
    void *p = w->val[0].p;
    int own = a->place == (pinned ? FZ_PINNED : FZ_DEV) && a->off == 0 && init;
    int st = (pinned ? cufort_host_free : cufort_free)(p);
    fz_pred want = !init ? fz_expect_status(CUFORT_NOT_INITIALIZED)
                   : !p ? fz_expect_status(CUFORT_SUCCESS)
                   : own ? fz_expect_status(CUFORT_SUCCESS)
                   : (fz_threads > 1 && a->place == FZ_FREED) || (a->place != FZ_ALIAS && a->off >= a->bytes)
                   ? fz_expect_any()   /* past its block: maybe another block's start */
                   : fz_expect_status(CUFORT_BAD_POINTER);
    fz_check(w, c, fn, st, want);
    if (st == CUFORT_SUCCESS && p)
        drop_cached(pinned ? w->pinned : w->dev, p);
    return FZ_RAN;
}

/* ---- host_register / host_unregister ---- */

static const fz_param REGISTER[] = {
    {"ptr", FZ_ARRAY, FZ_INOUT, 1, 0, NULL}, {"bytes", FZ_INT, FZ_R_BYTES, 0, 0, NULL},
    {"then", FZ_INT, FZ_R_SMALL, 0, 0, NULL},
};

static void draw_register(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    (void)w, (void)op;
    c->arg[0].type = FZ_ARRAY;
    c->arg[1].type = c->arg[2].type = FZ_INT;
    fz_array *a = &c->arg[0].a;
    memset(a, 0, sizeof *a);
    a->place = fz_percent(r, 95) ? FZ_HOST : FZ_NULL;
    a->bytes = 1 + (int64_t)fz_below(r, 20000);
    int p = (int)fz_below(r, 100);
    c->arg[1].i = p < 80 ? 1 + (int64_t)fz_below(r, (uint64_t)a->bytes) : p < 90 ? a->bytes
                  : fz_percent(r, 50) ? 0 : fz_draw_int(r, FZ_R_DIM) > 0 ? -1 : INT64_MIN;
    c->arg[2].i = (int64_t)fz_below(r, 4);   /* 0 once, 1 twice, 2 the wrong pointer first, 3 unregistered */
}

static int exec_register(fz_worker *w, const fz_op *op, const fz_call *c)
{
    (void)op;
    int64_t bytes = c->arg[1].i, then = c->arg[2].i;
    int init = cufort_is_initialized();
    fz_resolve(w, c);
    char *p = w->val[0].p;
    if (then == 3) {   /* never registered */
        int st = cufort_host_unregister(p);
        fz_check(w, c, "cufort_host_unregister", st,
                 !init ? fz_expect_status(CUFORT_NOT_INITIALIZED)
                 : !p ? fz_expect_status(CUFORT_SUCCESS) : fz_expect_status(CUFORT_BAD_POINTER));
        return FZ_RAN;
    }
    int st = cufort_host_register(p, bytes);
    fz_check(w, c, "cufort_host_register", st,
             !init ? fz_expect_status(CUFORT_NOT_INITIALIZED)
             : !p || bytes <= 0 ? fz_expect_status(CUFORT_INVALID_VALUE)
             : (fz_pred){FZ_P_STATUS, CUFORT_SUCCESS, 0, FZ_ALSO(CUFORT_NOT_SUPPORTED)});
    if (st != CUFORT_SUCCESS)
        return FZ_RAN;
    if (then == 2)
        fz_check(w, c, "cufort_host_unregister", cufort_host_unregister(p + 1),
                 fz_expect_status(CUFORT_BAD_POINTER));
    fz_check(w, c, "cufort_host_unregister", cufort_host_unregister(p), fz_expect_status(CUFORT_SUCCESS));
    if (then == 1)
        fz_check(w, c, "cufort_host_unregister", cufort_host_unregister(p), fz_expect_status(CUFORT_BAD_POINTER));
    return FZ_RAN;
}

/* ---- transfers ---- */

enum { VEC, MAT };
typedef struct {
    int shape, async;
    int host_in, host_out;   /* which side is a host array: set (in), get (out), copy (neither) */
    int (*vec)(int64_t, int64_t, const void *, int64_t, void *, int64_t);
    int (*vec_async)(int64_t, int64_t, const void *, int64_t, void *, int64_t, cufort_stream);
    int (*mat)(int64_t, int64_t, int64_t, const void *, int64_t, void *, int64_t);
    int (*mat_async)(int64_t, int64_t, int64_t, const void *, int64_t, void *, int64_t, cufort_stream);
} transfer;

static const transfer SET_VECTOR = {VEC, 0, 1, 0, cufort_set_vector, NULL, NULL, NULL};
static const transfer GET_VECTOR = {VEC, 0, 0, 1, cufort_get_vector, NULL, NULL, NULL};
static const transfer SET_VECTOR_ASYNC = {VEC, 1, 1, 0, NULL, cufort_set_vector_async, NULL, NULL};
static const transfer GET_VECTOR_ASYNC = {VEC, 1, 0, 1, NULL, cufort_get_vector_async, NULL, NULL};
static const transfer SET_MATRIX = {MAT, 0, 1, 0, NULL, NULL, cufort_set_matrix, NULL};
static const transfer GET_MATRIX = {MAT, 0, 0, 1, NULL, NULL, cufort_get_matrix, NULL};
static const transfer COPY_MATRIX = {MAT, 0, 0, 0, NULL, NULL, cufort_copy_matrix, NULL};
static const transfer SET_MATRIX_ASYNC = {MAT, 1, 1, 0, NULL, NULL, NULL, cufort_set_matrix_async};
static const transfer GET_MATRIX_ASYNC = {MAT, 1, 0, 1, NULL, NULL, NULL, cufort_get_matrix_async};

/* rows (n for vectors), cols (1 for vectors), elem_size, src, src_ld (incx), dst, dst_ld (incy) */
static const fz_param XFER[] = {
    {"rows", FZ_INT, FZ_R_DIM, 0, 0, NULL}, {"cols", FZ_INT, FZ_R_DIM, 0, 0, NULL},
    {"elem_size", FZ_INT, FZ_R_SMALL, 0, 0, NULL}, {"src", FZ_ARRAY, FZ_IN, 1, 0, NULL},
    {"src_ld", FZ_INT, FZ_R_LD, 0, 0, NULL}, {"dst", FZ_ARRAY, FZ_OUT, 1, 0, NULL},
    {"dst_ld", FZ_INT, FZ_R_LD, 0, 0, NULL}, {"stream", FZ_HANDLE, 'S', 0, 0, NULL},
};
enum { X_ROWS, X_COLS, X_ES, X_SRC, X_SLD, X_DST, X_DLD, X_STREAM };

/* elements a side spans: a vector is `rows` elements at stride ld, a matrix cols columns ld apart */
static fz_wide span(const transfer *t, const fz_arg *a, int ld_index)
{
    return t->shape == VEC ? fz_ext_vec(a[X_ROWS].i, a[ld_index].i)
                           : fz_ext_mat(a[X_ROWS].i, a[X_COLS].i, a[ld_index].i);
}

/* whether the host side spans more than the address space as cufort counts it: one column (one
 * element of a vector) has no pitch; a count of INT64_MAX elements is already too many */
static int host_too_large(const transfer *t, const fz_arg *a, int ld_index)
{
    int64_t n = a[X_ROWS].i, cols = t->shape == VEC ? n : a[X_COLS].i;
    fz_wide elems = t->shape == VEC ? (n == 1 ? 1 : span(t, a, ld_index))
                                    : (cols == 1 ? (fz_wide)a[X_ROWS].i : span(t, a, ld_index));
    return elems >= INT64_MAX || fz_mul(elems, a[X_ES].i) > INT64_MAX;
}

static void draw_transfer(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    const transfer *t = op->data;
    fz_arg *a = c->arg;
    for (int i = 0; i < 8; i++)
        a[i].type = op->params[i].type;
    a[X_ROWS].i = fz_draw_int(r, FZ_R_DIM);
    a[X_COLS].i = t->shape == VEC ? 1 : fz_draw_int(r, FZ_R_DIM);
    static const int64_t sizes[] = {4, 8, 16, 1, 2, 3, 4, 8, 0, -1, 7, INT64_MAX, (int64_t)1 << 40};
    a[X_ES].i = fz_percent(r, 90) ? sizes[fz_below(r, 8)] : sizes[fz_below(r, 13)];
    for (int k = 0; k < 2; k++) {
        int ld = k ? X_DLD : X_SLD;
        if (t->shape == VEC)
            a[ld].i = fz_percent(r, 85) ? 1 + (int64_t)fz_below(r, 3) : fz_draw_int(r, FZ_R_INC);
        else if (fz_percent(r, 80)) {
            fz_wide x = (fz_wide)(a[X_ROWS].i > 0 ? a[X_ROWS].i : 1) + (int64_t)fz_below(r, 3);
            a[ld].i = x > INT64_MAX ? INT64_MAX : (int64_t)x;
        } else {
            a[ld].i = fz_draw_int(r, FZ_R_LD);
        }
    }
    for (int k = 0; k < 2; k++) {
        fz_wide need = fz_mul(span(t, a, k ? X_DLD : X_SLD), a[X_ES].i > 0 ? a[X_ES].i : 1);
        fz_draw_array(w, r, &a[k ? X_DST : X_SRC].a, need, 1, k ? t->host_out : t->host_in);
    }
    if (!t->host_in && !t->host_out && fz_percent(r, 10)) {   /* a device copy onto itself or partly */
        a[X_DST].a = (fz_array){FZ_ALIAS, 0, fz_percent(r, 50) ? 0 : 4, X_SRC};
    }
    fz_draw_handle_slot(w, r, 'S', &a[X_STREAM].h);
}

static int exec_transfer(fz_worker *w, const fz_op *op, const fz_call *c)
{
    const transfer *t = op->data;
    const fz_arg *a = c->arg;
    int64_t rows = a[X_ROWS].i, cols = a[X_COLS].i, es = a[X_ES].i, sld = a[X_SLD].i, dld = a[X_DLD].i;
    fz_slot *ss = fz_slot_of(w, a[X_STREAM].h);
    if (t->async && fz_avoiding(FZ_K_STREAM_HANDLES) &&
        !(a[X_STREAM].h.slot == FZ_H_NULL || (ss && !ss->h) || fz_live(w, a[X_STREAM].h)))
        return FZ_AVOIDED;
    if (t->async && fz_gone_since_drawn(w, a[X_STREAM].h))
        return FZ_SKIPPED;
    int init = cufort_is_initialized();
    int bad_args = t->shape == VEC ? rows < 0 || es <= 0 || sld <= 0 || dld <= 0
                                   : rows < 0 || cols < 0 || es <= 0 || sld < IMAX(1, rows) || dld < IMAX(1, rows);
    int empty = rows == 0 || cols == 0;
    fz_wide sbytes = fz_mul(span(t, a, X_SLD), es), dbytes = fz_mul(span(t, a, X_DLD), es);
    int ss_ = fz_array_state(c, X_SRC, sbytes, 1, t->host_in);
    int ds_ = fz_array_state(c, X_DST, dbytes, 1, t->host_out);
    int bad_stream = t->async && !(a[X_STREAM].h.slot == FZ_H_NULL || (ss && !ss->h) ||
                                   fz_live(w, a[X_STREAM].h));   /* a stale or made-up one */
    /* the order cufort checks in: a device source, else a null host source; then the
     * destination likewise */
    int src_null = a[X_SRC].a.place == FZ_NULL, dst_null = a[X_DST].a.place == FZ_NULL;
    int huge_host = (t->host_in && ss_ == FZ_BAD && (sbytes >> 64) == 0 && !src_null) ||
                    (t->host_out && ds_ == FZ_BAD && (dbytes >> 64) == 0 && !dst_null);
    /* a host side spanning more than the address space is refused before anything else */
    int impossible = (t->host_in && host_too_large(t, a, X_SLD)) ||
                     (t->host_out && host_too_large(t, a, X_DLD));
    int src_bad = t->host_in ? src_null : ss_ == FZ_BAD;
    int dst_bad = t->host_out ? dst_null : ds_ == FZ_BAD;
    /* A host side longer than its array in a call that may be legal: cufort would read or write
     * all of it, past the array.  Skipped also while cufort is not initialised when other threads
     * run: one of them may initialise it between this check and the call. */
    if (!bad_args && !bad_stream && !empty && huge_host && !src_bad && !dst_bad && !impossible &&
        (init || fz_threads > 1))
        return FZ_SKIPPED;
    fz_pred want;
    if (!init)
        want = fz_expect_status(CUFORT_NOT_INITIALIZED);
    else if (bad_args)
        want = fz_expect_status(CUFORT_INVALID_VALUE);
    else if (bad_stream)
        want = fz_expect_status(CUFORT_INVALID_VALUE);
    else if (empty)
        want = fz_expect_status(CUFORT_SUCCESS);
    else {
        int src_first = t->host_in ? CUFORT_INVALID_VALUE : CUFORT_BAD_POINTER;
        int dst_first = t->host_out ? CUFORT_INVALID_VALUE : CUFORT_BAD_POINTER;
        int overlapping = a[X_DST].a.place == FZ_ALIAS;
        if (impossible)
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        else if (src_bad)
            want = fz_expect_status(src_first);
        else if (ss_ == FZ_MAYBE && !t->host_in)
            want = fz_expect_any();
        else if (dst_bad)
            want = fz_expect_status(dst_first);
        else if (ds_ == FZ_MAYBE && !t->host_out)
            want = fz_expect_any();
        else if (overlapping)
            want = fz_expect_any();
        else
            want = fz_expect_status(CUFORT_SUCCESS);
    }
    fz_resolve(w, c);
    void *src = w->val[X_SRC].p, *dst = w->val[X_DST].p;
    cufort_stream s = w->val[X_STREAM].p;
    int st;
    if (t->shape == VEC)
        st = t->async ? t->vec_async(rows, es, src, sld, dst, dld, s) : t->vec(rows, es, src, sld, dst, dld);
    else
        st = t->async ? t->mat_async(rows, cols, es, src, sld, dst, dld, s)
                      : t->mat(rows, cols, es, src, sld, dst, dld);
    if (st == CUFORT_SUCCESS && t->async)
        cufort_stream_synchronize(s);   /* the host array is freed after the call */
    fz_check(w, c, op->name, st, want);
    return FZ_RAN;
}

/* ---- queries ---- */

static const fz_param QUERY[] = {
    {"value", FZ_INT, FZ_R_DIM, 0, 0, NULL}, {"ptr", FZ_INT, FZ_R_FLAG, 0, 0, NULL},
};

static void draw_query(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    (void)w, (void)op;
    c->arg[0].type = c->arg[1].type = FZ_INT;
    c->arg[0].i = fz_percent(r, 70) ? (int64_t)fz_below(r, 3) - 1 : fz_draw_int(r, FZ_R_BYTES);
    c->arg[1].i = fz_percent(r, 92);
}

static int exec_query(fz_worker *w, const fz_op *op, const fz_call *c)
{
    int64_t value = c->arg[0].i;
    int ptr = (int)c->arg[1].i, init = cufort_is_initialized(), st;
    const char *name = op->name;
    fz_pred want = !init ? fz_expect_status(CUFORT_NOT_INITIALIZED)
                   : ptr ? fz_expect_status(CUFORT_SUCCESS) : fz_expect_status(CUFORT_INVALID_VALUE);
    if (strcmp(name, "cufort_mem_info") == 0) {
        int64_t f, t;
        st = cufort_mem_info(ptr ? &f : NULL, &t);
    } else if (strcmp(name, "cufort_device_count") == 0) {
        int n = -1;
        if (ptr)   /* answers before init too */
            want = fz_expect_status(CUFORT_SUCCESS);
        else
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        st = cufort_device_count(ptr ? &n : NULL);
    } else if (strcmp(name, "cufort_get_device") == 0) {
        int d;
        st = cufort_get_device(ptr ? &d : NULL);
    } else if (strcmp(name, "cufort_get_device_properties") == 0) {
        cufort_device_properties props;
        int count = 0;
        cufort_device_count(&count);
        if (init && (int)value != value)
            want = fz_expect_any();
        else if (init && ptr && (value < 0 || value >= count))
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        st = cufort_get_device_properties((int)value, ptr ? &props : NULL);
    } else if (strcmp(name, "cufort_device_synchronize") == 0) {
        want = init ? fz_expect_status(CUFORT_SUCCESS) : want;
        st = cufort_device_synchronize();
    } else if (strcmp(name, "cufort_pin_cache_limit") == 0) {
        want = fz_expect_any();
        st = cufort_pin_cache_limit(value);
    } else {
        int64_t bytes;
        int arrays, watch;
        want = fz_expect_any();
        st = cufort_pin_cache_info(ptr ? &bytes : NULL, &arrays, &watch);
        name = "cufort_pin_cache_info";
    }
    fz_check(w, c, name, st, want);
    return FZ_RAN;
}

void fz_memory_ops(void)
{
    static const int pinned = 1;
    static const fz_op ops[] = {
        {"cufort_alloc", FZ_G_MEMORY, ALLOC, 3, draw_alloc, exec_alloc, NULL, 0},
        {"cufort_free", FZ_G_MEMORY, FREE, 1, draw_free, exec_free, NULL, 0},
        {"cufort_host_alloc", FZ_G_MEMORY, ALLOC, 3, draw_alloc, exec_alloc, &pinned, 0},
        {"cufort_host_free", FZ_G_MEMORY, FREE, 1, draw_free, exec_free, &pinned, 0},
        {"cufort_host_register", FZ_G_MEMORY, REGISTER, 3, draw_register, exec_register, NULL, 0},
        {"cufort_set_vector", FZ_G_MEMORY, XFER, 8, draw_transfer, exec_transfer, &SET_VECTOR, 0},
        {"cufort_get_vector", FZ_G_MEMORY, XFER, 8, draw_transfer, exec_transfer, &GET_VECTOR, 0},
        {"cufort_set_vector_async", FZ_G_MEMORY, XFER, 8, draw_transfer, exec_transfer, &SET_VECTOR_ASYNC, 0},
        {"cufort_get_vector_async", FZ_G_MEMORY, XFER, 8, draw_transfer, exec_transfer, &GET_VECTOR_ASYNC, 0},
        {"cufort_set_matrix", FZ_G_MEMORY, XFER, 8, draw_transfer, exec_transfer, &SET_MATRIX, 0},
        {"cufort_get_matrix", FZ_G_MEMORY, XFER, 8, draw_transfer, exec_transfer, &GET_MATRIX, 0},
        {"cufort_copy_matrix", FZ_G_MEMORY, XFER, 8, draw_transfer, exec_transfer, &COPY_MATRIX, 0},
        {"cufort_set_matrix_async", FZ_G_MEMORY, XFER, 8, draw_transfer, exec_transfer, &SET_MATRIX_ASYNC, 0},
        {"cufort_get_matrix_async", FZ_G_MEMORY, XFER, 8, draw_transfer, exec_transfer, &GET_MATRIX_ASYNC, 0},
        {"cufort_mem_info", FZ_G_MEMORY, QUERY, 2, draw_query, exec_query, NULL, 0},
        {"cufort_device_count", FZ_G_MEMORY, QUERY, 2, draw_query, exec_query, NULL, 0},
        {"cufort_get_device", FZ_G_MEMORY, QUERY, 2, draw_query, exec_query, NULL, 0},
        {"cufort_get_device_properties", FZ_G_MEMORY, QUERY, 2, draw_query, exec_query, NULL, 0},
        {"cufort_device_synchronize", FZ_G_MEMORY, QUERY, 2, draw_query, exec_query, NULL, 0},
        {"cufort_pin_cache_limit", FZ_G_MEMORY, QUERY, 2, draw_query, exec_query, NULL, 0},
        {"cufort_pin_cache_info", FZ_G_MEMORY, QUERY, 2, draw_query, exec_query, NULL, 0},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        fz_add_op(&ops[i]);
}
