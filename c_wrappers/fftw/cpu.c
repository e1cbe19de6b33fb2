/* cpu.c — the FFTW drop-in's CPU path: the real FFTW, found at run time by libcufort's loader
 * (c_wrappers/host/cpu_fftw.c, which never picks the drop-in itself), shared with the host backend
 * and planned under the same lock (FFTW's planner is not thread-safe).
 *
 * FFTW_MEASURE and above run transforms on the planning arrays, which FFTW documents as overwriting
 * them; the drop-in keeps their contents (copied aside and back around the planner), so a program
 * that fills its arrays before planning gets the same results on either path. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fftw_dropin.h"
#include "host_internal.h"

void drop_warn(const char *fn, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s: %s\n", DROP_TITLE, fn, msg);
}

static void symbol_name(char *buf, size_t n, int single, const char *name)
{
    snprintf(buf, n, "%s%s", single ? "fftwf_" : "fftw_", name);
}

void *drop_cpu(int single, void **slot, const char *name)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    char symbol[80];
    symbol_name(symbol, sizeof symbol, single, name);
    if (cufort_cpu_fftw_symbol(single, symbol, slot) != CUFORT_SUCCESS) {
        fprintf(stderr, "%s: %s: %s\n", DROP_TITLE, symbol, cufort_last_error());
        exit(1);
    }
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

void *drop_cpu_threads(int single, void **slot, const char *name)
{
    char symbol[80];
    symbol_name(symbol, sizeof symbol, single, name);
    return cufort_cpu_fftw_threads_symbol(single, symbol, slot) == CUFORT_SUCCESS
               ? __atomic_load_n(slot, __ATOMIC_ACQUIRE)
               : NULL;
}

const char *drop_cpu_path(void)
{
    static char path[1100];
    snprintf(path, sizeof path, "%s; %s", cufort_cpu_fftw_opened(0), cufort_cpu_fftw_opened(1));
    return path;
}

typedef void *guru_dft_fn(int, const fftw_iodim64 *, int, const fftw_iodim64 *, void *, void *, int,
                          unsigned);
typedef void *guru_real_fn(int, const fftw_iodim64 *, int, const fftw_iodim64 *, void *, void *,
                           unsigned);
typedef void execute_fn(void *, void *, void *);
typedef void destroy_fn(void *);

/* One array's bytes, copied aside (NULL when there is nothing to keep). */
typedef struct {
    char *at, *copy;
    size_t bytes;
} kept_array;

/* The bytes of one side's array; in place, of both sides' ranges together. */
static int keep(kept_array *k, const drop_problem *pb, int input)
{
    ptrdiff_t lowest, lowest_out;
    k->at = k->copy = NULL;
    char *base = input ? pb->in : pb->out;
    ptrdiff_t begin = 0, end = 0;
    size_t bytes = drop_span(pb, input, &lowest);
    if (bytes) {
        begin = lowest;
        end = lowest + (ptrdiff_t)bytes;
    }
    if (input && pb->in == pb->out && (bytes = drop_span(pb, 0, &lowest_out))) {
        begin = begin < lowest_out ? begin : lowest_out;
        end = end > lowest_out + (ptrdiff_t)bytes ? end : lowest_out + (ptrdiff_t)bytes;
    }
    if (!base || end <= begin)
        return 1;
    k->at = base + begin;
    k->bytes = (size_t)(end - begin);
    k->copy = malloc(k->bytes);
    if (!k->copy)
        return 0;
    memcpy(k->copy, k->at, k->bytes);
    return 1;
}

static void put_back(kept_array *k)
{
    if (k->copy) {
        memcpy(k->at, k->copy, k->bytes);
        free(k->copy);
    }
}

void *drop_cpu_plan(const drop_problem *pb, unsigned flags)
{
    static void *slots[2][3];
    static const char *names[] = {"plan_guru64_dft", "plan_guru64_dft_r2c", "plan_guru64_dft_c2r"};
    void *make = drop_cpu(pb->single, &slots[pb->single][pb->kind], names[pb->kind]);
    int measures = !(flags & (FFTW_ESTIMATE | FFTW_WISDOM_ONLY));
    kept_array kin = {0}, kout = {0};
    /* without the memory to keep them, the arrays are planned on as FFTW would (it overwrites) */
    if (measures && keep(&kin, pb, 1) && pb->out != pb->in)
        keep(&kout, pb, 0);
    const fftw_iodim64 *dims = (const fftw_iodim64 *)pb->dims;
    const fftw_iodim64 *hdims = (const fftw_iodim64 *)pb->howmany;
    cufort_cpu_fftw_lock();
    void *plan = pb->kind == KIND_C2C
                     ? ((guru_dft_fn *)make)(pb->rank, dims, pb->howmany_rank, hdims, pb->in, pb->out,
                                             pb->sign, flags)
                     : ((guru_real_fn *)make)(pb->rank, dims, pb->howmany_rank, hdims, pb->in, pb->out,
                                              flags);
    cufort_cpu_fftw_unlock();
    put_back(&kout);
    put_back(&kin);
    return plan;
}

execute_fn *drop_cpu_executor(const drop_plan *p)
{
    static void *slots[2][3];
    static const char *names[] = {"execute_dft", "execute_dft_r2c", "execute_dft_c2r"};
    int s = p->pb.single;
    return drop_cpu(s, &slots[s][p->pb.kind], names[p->pb.kind]);
}

void drop_cpu_run(const drop_plan *p, void *in, void *out)
{
    cufort_cpu_fftw_enter();
    p->cpu_exec(p->cpu, in, out);
    cufort_cpu_fftw_leave();
}

void drop_cpu_execute(const drop_plan *p, void *in, void *out)
{
    execute_fn *execute = drop_cpu_executor(p);
    cufort_cpu_fftw_enter();
    execute(p->cpu, in, out);
    cufort_cpu_fftw_leave();
}

void drop_cpu_destroy(int single, void *cpu_plan)
{
    static void *slots[2];
    if (!cpu_plan)
        return;
    destroy_fn *destroy = drop_cpu(single, &slots[single], "destroy_plan");
    cufort_cpu_fftw_lock();
    destroy(cpu_plan);
    cufort_cpu_fftw_unlock();
}
