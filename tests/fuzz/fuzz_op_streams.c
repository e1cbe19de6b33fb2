/* fuzz_op_streams.c — streams and events (create, destroy, record, synchronize, elapsed time, the
 * thread's BLAS stream; live, destroyed, null and made-up handles) and cufort's life (shutdown,
 * init, init_backend, set_device, the status queries).
 *
 * A create into a slot that holds a live object destroys that object first, as a program reusing
 * the variable would.  Shutdowns and inits take the shutdown lock for writing, so with several
 * threads they never overlap a call that holds it (see fz_run_call). */
#include "fuzz.h"

#include <stdlib.h>

static const fz_param CREATE[] = {{"into", FZ_HANDLE, 'S', 0, 0, NULL}, {"ptr", FZ_INT, FZ_R_FLAG, 0, 0, NULL}};
static const fz_param ECREATE[] = {{"into", FZ_HANDLE, 'E', 0, 0, NULL}, {"ptr", FZ_INT, FZ_R_FLAG, 0, 0, NULL}};
static const fz_param ONE_STREAM[] = {{"stream", FZ_HANDLE, 'S', 0, 0, NULL}};
static const fz_param ONE_EVENT[] = {{"event", FZ_HANDLE, 'E', 0, 0, NULL}};
static const fz_param RECORD[] = {{"event", FZ_HANDLE, 'E', 0, 0, NULL}, {"stream", FZ_HANDLE, 'S', 0, 0, NULL}};
static const fz_param ELAPSED[] = {{"start", FZ_HANDLE, 'E', 0, 0, NULL}, {"stop", FZ_HANDLE, 'E', 0, 0, NULL},
                                   {"ptr", FZ_INT, FZ_R_FLAG, 0, 0, NULL}};
static const fz_param GET_STREAM[] = {{"ptr", FZ_INT, FZ_R_FLAG, 0, 0, NULL}};

static void draw_handles(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    for (int i = 0; i < op->nparams; i++) {
        const fz_param *p = &op->params[i];
        c->arg[i].type = p->type;
        if (p->type == FZ_INT) {
            c->arg[i].i = fz_percent(r, 95);
        } else if (strcmp(p->name, "into") == 0) {
            int slot = fz_free_slot(w, r, p->role);
            c->arg[i].h = (fz_handle){p->role, slot >= 0 ? slot : (int)fz_below(r, FZ_SLOTS)};
        } else {
            fz_draw_handle_slot(w, r, p->role, &c->arg[i].h);
        }
    }
}

/* a handle that is neither null nor a live object: stale or made up */
static int dubious(fz_worker *w, fz_handle h)
{
    fz_slot *s = fz_slot_of(w, h);
    return h.slot != FZ_H_NULL && !(s && !s->h) && !fz_live(w, h);
}
static int is_null(fz_worker *w, fz_handle h)
{
    fz_slot *s = fz_slot_of(w, h);
    return h.slot == FZ_H_NULL || (s && !s->h);
}

/* a stream or event cufort destroyed: every trace of it in the worker goes */
static void gone(fz_worker *w, fz_slot *s, int stream)
{
    if (stream && w->thread_stream == s->h) {   /* the thread's BLAS stream went with it */
        cufort_set_stream(NULL);
        w->thread_stream = NULL;
    }
    if (stream)
        for (int i = 0; i < FZ_SLOTS; i++)
            if (w->plans[i].live && w->plans[i].stream == s->h) {
                cufort_fft_set_stream(w->plans[i].h, NULL);
                w->plans[i].stream = NULL;
            }
    s->live = 0;
}

static int exec_handles(fz_worker *w, const fz_op *op, const fz_call *c)
{
    const char *fn = op->name;
    const fz_arg *a = c->arg;
    for (int i = 0; i < op->nparams; i++)   /* what the fix of stale and made-up handles must cover */
        if (a[i].type == FZ_HANDLE && strcmp(op->params[i].name, "into") != 0 && dubious(w, a[i].h) &&
            fz_avoiding(FZ_K_STREAM_HANDLES))
            return FZ_AVOIDED;
    int init = cufort_is_initialized(), st;
    fz_pred ok = init ? fz_expect_status(CUFORT_SUCCESS) : fz_expect_status(CUFORT_NOT_INITIALIZED);
    fz_pred want = ok;
    if (strcmp(fn, "cufort_stream_create") == 0 || strcmp(fn, "cufort_event_create") == 0) {
        int stream = fn[7] == 's';
        fz_slot *s = fz_slot_of(w, a[0].h);
        if (s->live && init) {
            int d = stream ? cufort_stream_destroy(s->h) : cufort_event_destroy(s->h);
            fz_check(w, c, stream ? "cufort_stream_destroy" : "cufort_event_destroy", d, ok);
            gone(w, s, stream);
        }
        void *h = (void *)(uintptr_t)0x77;
        if (init && !a[1].i)
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        st = stream ? cufort_stream_create(a[1].i ? (cufort_stream *)&h : NULL)
                    : cufort_event_create(a[1].i ? (cufort_event *)&h : NULL);
        if (st == CUFORT_SUCCESS && a[1].i) {
            if (s->live)   /* cufort could not destroy the old one: keep it, drop the new */
                stream ? cufort_stream_destroy(h) : cufort_event_destroy(h);
            else
                *s = (fz_slot){h, 1, {0}, NULL, 0};
        }
    } else if (strcmp(fn, "cufort_stream_destroy") == 0 || strcmp(fn, "cufort_event_destroy") == 0) {
        int stream = fn[7] == 's';
        fz_slot *s = fz_live(w, a[0].h);
        fz_resolve(w, c);
        if (init && dubious(w, a[0].h))
            want = fz_expect_failure();
        st = stream ? cufort_stream_destroy(w->val[0].p) : cufort_event_destroy(w->val[0].p);
        if (st == CUFORT_SUCCESS && s)
            gone(w, s, stream);
    } else if (strcmp(fn, "cufort_stream_synchronize") == 0) {
        fz_resolve(w, c);
        if (init && dubious(w, a[0].h))
            want = fz_expect_any();
        st = cufort_stream_synchronize(w->val[0].p);
    } else if (strcmp(fn, "cufort_set_stream") == 0) {
        if (fz_gone_since_drawn(w, a[0].h))
            return FZ_SKIPPED;
        fz_resolve(w, c);
        if (init && dubious(w, a[0].h))
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        st = cufort_set_stream(w->val[0].p);
        if (st == CUFORT_SUCCESS)
            w->thread_stream = w->val[0].p;
    } else if (strcmp(fn, "cufort_get_stream") == 0) {
        cufort_stream s = (cufort_stream)(uintptr_t)0x77;
        if (init && !a[0].i)
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        st = cufort_get_stream(a[0].i ? &s : NULL);
        if (st == CUFORT_SUCCESS && a[0].i && (void *)s != w->thread_stream)
            fz_failf(w, c, "cufort_get_stream gave %p; this thread set %p", (void *)s, w->thread_stream);
    } else if (strcmp(fn, "cufort_event_record") == 0) {
        fz_resolve(w, c);
        if (init && (is_null(w, a[0].h)))
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        else if (init && (dubious(w, a[0].h) || dubious(w, a[1].h)))
            want = fz_expect_any();
        st = cufort_event_record(w->val[0].p, w->val[1].p);
    } else if (strcmp(fn, "cufort_event_synchronize") == 0) {
        fz_resolve(w, c);
        if (init && (is_null(w, a[0].h)))
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        else if (init && dubious(w, a[0].h))
            want = fz_expect_any();
        st = cufort_event_synchronize(w->val[0].p);
    } else {   /* elapsed: never-recorded events may be refused */
        float ms;
        fz_resolve(w, c);
        if (init && (is_null(w, a[0].h) || is_null(w, a[1].h) || !a[2].i))
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        else if (init)
            want = fz_expect_any();
        st = cufort_event_elapsed_ms(a[2].i ? &ms : NULL, w->val[0].p, w->val[1].p);
    }
    fz_check(w, c, fn, st, want);
    return FZ_RAN;
}

/* ---- cufort's life ---- */

static const fz_param LIFE[] = {{"value", FZ_INT, FZ_R_SMALL, 0, 0, NULL}};

static void draw_life(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    (void)w, (void)op;
    c->arg[0].type = FZ_INT;
    c->arg[0].i = fz_percent(r, 85) ? (int64_t)fz_below(r, 4) - 1 : fz_draw_int(r, FZ_R_DIM);
}

/* everything this worker held that the shutdown (or device change) took away */
static void after_reset(fz_worker *w)
{
    w->generation = __atomic_add_fetch(&fz_life_generation, 1, __ATOMIC_ACQ_REL);
    fz_forget_device_memory(w);
}

static int exec_life(fz_worker *w, const fz_op *op, const fz_call *c)
{
    const char *fn = op->name;
    int64_t value = c->arg[0].i;
    if (fz_threads > 1)
        pthread_rwlock_wrlock(&fz_life_lock);
    int was = cufort_backend(), st;
    fz_pred want = fz_expect_status(CUFORT_SUCCESS);
    if (strcmp(fn, "cufort_shutdown") == 0) {
        st = cufort_shutdown();
        after_reset(w);
    } else if (strcmp(fn, "cufort_init") == 0) {
        st = cufort_init();
    } else if (strcmp(fn, "cufort_init_backend") == 0) {
        int b = (int)value, known = b >= CUFORT_BACKEND_AUTO && b <= CUFORT_BACKEND_HOST;
        if (!known || (was && b != CUFORT_BACKEND_AUTO && b != was))
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        else if (fz_threads > 1 && !fz_avoiding(FZ_K_SHUTDOWN_RACE) && b != CUFORT_BACKEND_AUTO)
            /* another thread's host-array call may start cufort on another backend meanwhile */
            want = (fz_pred){FZ_P_STATUS, CUFORT_SUCCESS, 0,
                             FZ_ALSO(CUFORT_INVALID_VALUE) | FZ_ALSO(CUFORT_NO_DEVICE)};
        else if (!was && b == CUFORT_BACKEND_CUDA)
            want = (fz_pred){FZ_P_STATUS, CUFORT_SUCCESS, 0, FZ_ALSO(CUFORT_NO_DEVICE)};
        st = cufort_init_backend(b);
        fn = "cufort_init";   /* its messages may name cufort_init, which does the work */
    } else if (strcmp(fn, "cufort_set_device") == 0) {
        int count = 0, d = (int)value;
        cufort_device_count(&count);
        /* before init a device number is kept for cufort_init, which then fails until another
         * set_device: a state the fuzzer does not model */
        if (!was && d >= count) {
            if (fz_threads > 1)
                pthread_rwlock_unlock(&fz_life_lock);
            return FZ_SKIPPED;
        }
        if (d < 0 || (was && d >= count))
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        st = cufort_set_device(d);
        if (st == CUFORT_SUCCESS && was)
            after_reset(w);   /* a device change destroys the plans and thread caches */
    } else {   /* the queries that never fail */
        const char *s = cufort_status_string((int)value), *b = cufort_backend_name(), *m = cufort_last_error();
        if (!s || !*s || !b || !*b || !m)
            fz_failf(w, c, "a status query gave a null or empty string (status_string %s, backend_name %s)",
                     s ? s : "NULL", b ? b : "NULL");
        /* This thread holds the life lock, so no shutdown can come between the two queries, but
         * with other threads a host-array call (which takes no lock) may initialise cufort there */
        int init_now = cufort_is_initialized(), backend_now = cufort_backend() != 0;
        st = init_now == backend_now || (fz_threads > 1 && !init_now && backend_now) ? CUFORT_SUCCESS : -1;
        if (st)
            fz_failf(w, c, "cufort_is_initialized and cufort_backend disagree");
        cufort_clear_error();
        st = cufort_last_info() == 0 && !*cufort_last_error() ? CUFORT_SUCCESS : -1;
        if (st)
            fz_failf(w, c, "cufort_clear_error left info %d and message \"%s\"", cufort_last_info(),
                     cufort_last_error());
        st = CUFORT_SUCCESS;
    }
    fz_check(w, c, fn, st, want);
    if (fz_threads > 1)
        pthread_rwlock_unlock(&fz_life_lock);
    return FZ_RAN;
}

void fz_stream_ops(void)
{
    static const fz_op ops[] = {
        {"cufort_stream_create", FZ_G_STREAM, CREATE, 2, draw_handles, exec_handles, NULL, 0},
        {"cufort_stream_destroy", FZ_G_STREAM, ONE_STREAM, 1, draw_handles, exec_handles, NULL, 0},
        {"cufort_stream_synchronize", FZ_G_STREAM, ONE_STREAM, 1, draw_handles, exec_handles, NULL, 0},
        {"cufort_set_stream", FZ_G_STREAM, ONE_STREAM, 1, draw_handles, exec_handles, NULL, 0},
        {"cufort_get_stream", FZ_G_STREAM, GET_STREAM, 1, draw_handles, exec_handles, NULL, 0},
        {"cufort_event_create", FZ_G_STREAM, ECREATE, 2, draw_handles, exec_handles, NULL, 0},
        {"cufort_event_destroy", FZ_G_STREAM, ONE_EVENT, 1, draw_handles, exec_handles, NULL, 0},
        {"cufort_event_record", FZ_G_STREAM, RECORD, 2, draw_handles, exec_handles, NULL, 0},
        {"cufort_event_synchronize", FZ_G_STREAM, ONE_EVENT, 1, draw_handles, exec_handles, NULL, 0},
        {"cufort_event_elapsed_ms", FZ_G_STREAM, ELAPSED, 3, draw_handles, exec_handles, NULL, 0},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        fz_add_op(&ops[i]);
}

void fz_context_ops(void)
{
    static const fz_op ops[] = {
        {"cufort_shutdown", FZ_G_CONTEXT, LIFE, 1, draw_life, exec_life, NULL, 0},
        {"cufort_init", FZ_G_CONTEXT, LIFE, 1, draw_life, exec_life, NULL, 0},
        {"cufort_init", FZ_G_CONTEXT, LIFE, 1, draw_life, exec_life, NULL, 0},
        {"cufort_init_backend", FZ_G_CONTEXT, LIFE, 1, draw_life, exec_life, NULL, 0},
        {"cufort_set_device", FZ_G_CONTEXT, LIFE, 1, draw_life, exec_life, NULL, 0},
        {"cufort_status_queries", FZ_G_CONTEXT, LIFE, 1, draw_life, exec_life, NULL, 0},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        fz_add_op(&ops[i]);
}
