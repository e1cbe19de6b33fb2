/* plan.c — a DFT problem becomes a plan of the drop-in, and runs on the engine or the real FFTW.
 *
 * At planning time the shared router (c_wrappers/route) says which paths the plan's executions may
 * take, by its flops: the real FFTW below the threshold, the engine above it, either near it (where
 * adapt.c measures per kind and size).  A plan gets what its paths need then: FFTW's plan with the
 * caller's flags, the engine's cufort plan from the core plan cache (a shape planned before costs no
 * cuFFT planning; destroying the FFTW plan gives it back to the cache).  Each execution asks the
 * router again (it counts, times and measures), and whatever it lacks is made then: the engine's
 * plan, or FFTW's with FFTW_ESTIMATE, which never touches the arrays (a fallback after the engine
 * failed, a new threshold from cufort_fftw_configure).
 *
 * Executions of one plan from several threads at once on different arrays are safe, as in FFTW:
 * FFTW's own execute is, cufort_fft_exec_host is (a busy plan runs the others on twins), and what is
 * made lazily is published with a compare-and-swap (a thread that lost the race drops its own). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft_internal.h"   /* the core plan cache */
#include "fftw_dropin.h"

static int engine_type(const drop_problem *pb)
{
    static const int types[2][3] = {{CUFORT_FFT_Z2Z, CUFORT_FFT_D2Z, CUFORT_FFT_Z2D},
                                    {CUFORT_FFT_C2C, CUFORT_FFT_R2C, CUFORT_FFT_C2R}};
    return types[pb->single != 0][pb->kind];
}

static int engine_direction(const drop_problem *pb)
{
    if (pb->kind == KIND_R2C)
        return CUFORT_FFT_FORWARD;
    if (pb->kind == KIND_C2R)
        return CUFORT_FFT_INVERSE;
    return pb->sign == FFTW_FORWARD ? CUFORT_FFT_FORWARD : CUFORT_FFT_INVERSE;
}

/* The engine's plan, from the plan cache; NULL (and a reason for the report) when it cannot be had. */
static cufort_fft_plan engine_plan(drop_plan *p, dropin_call *c)
{
    cufort_fft_plan e = __atomic_load_n(&p->engine, __ATOMIC_ACQUIRE);
    if (e || p->engine_failed)
        return e;
    int generation;
    int st = cufort_fft_plan_acquire(&e, &generation, engine_type(&p->pb), p->pb.rank, p->n, p->batch,
                                     p->advanced ? p->inembed : NULL, p->istride, p->idist,
                                     p->advanced ? p->onembed : NULL, p->ostride, p->odist);
    if (st) {
        char why[400];
        snprintf(why, sizeof why, "planning: %s: %s", cufort_status_string(st), cufort_last_error());
        if (c)
            dropin_fallback(c, why);
        else
            p->engine_why = strdup(why);   /* NULL when out of memory: then only the count is lost */
        p->engine_failed = 1;
        return NULL;
    }
    cufort_fft_plan none = NULL;
    if (!__atomic_compare_exchange_n(&p->engine, &none, e, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        cufort_fft_plan_release(e, generation);   /* another thread's is in place */
        return none;
    }
    p->engine_generation = generation;
    return e;
}

/* FFTW has no input-preserving algorithm for an out-of-place multi-dimensional c2r, and says so
 * with NULL.  In place the input is the output anyway, and dimensions of size 1 are dropped before
 * FFTW looks: only a dimension of more than one point before the last makes it multi-dimensional. */
static int fftw_refuses(const drop_problem *pb)
{
    if (pb->kind != KIND_C2R || !(pb->flags & FFTW_PRESERVE_INPUT) || pb->in == pb->out)
        return 0;
    for (int i = 0; i + 1 < pb->rank; i++)
        if (pb->dims[i].n > 1)
            return 1;
    return 0;
}

int drop_planning_threads[2] = {1, 1};

/* Below this work (a 4096-point complex transform) one FFTW thread takes under 7 us, a third of the
 * engine's fastest call on the H100 machine (23 us, docs/performance.md): a plan for one thread
 * stays on the real FFTW without the router's measuring, whose clock reads and lock would cost
 * such calls more than 5%. */
#define ONE_THREAD_CPU_FLOPS 2.5e5

drop_plan *drop_plan_make(const drop_problem *pb)
{
    if (fftw_refuses(pb))
        return NULL;
    drop_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->pb = *pb;
    p->stats = drop_stats_of(pb->single, pb->kind);
    p->flops = drop_flops(pb);
    int engine_ok = drop_engine_layout(pb, p);
    p->engine_failed = !engine_ok;
    p->cpu_only = engine_ok && p->flops < ONE_THREAD_CPU_FLOPS && !dropin_forced() &&
                  __atomic_load_n(&drop_planning_threads[pb->single != 0], __ATOMIC_RELAXED) <= 1;
    int paths = engine_ok && !p->cpu_only ? dropin_paths(p->flops, 0) : DROPIN_PATH_CPU;
    /* FFTW_WISDOM_ONLY asks whether FFTW has wisdom for the problem: its answer stands on either path */
    if ((paths & DROPIN_PATH_CPU) || (pb->flags & FFTW_WISDOM_ONLY)) {
        p->cpu = drop_cpu_plan(pb, pb->flags);
        if (!p->cpu) {
            free(p);
            return NULL;
        }
    }
    if (p->cpu_only)
        p->cpu_exec = drop_cpu_executor(p);
    if (paths & DROPIN_PATH_ENGINE)
        engine_plan(p, NULL);   /* a failure is the first execution's fallback (drop_plan_execute) */
    return p;
}

drop_plan *drop_plan_wrap(int single, void *cpu_plan)
{
    if (!cpu_plan)
        return NULL;
    drop_plan *p = calloc(1, sizeof *p);
    if (!p) {
        drop_cpu_destroy(single, cpu_plan);
        return NULL;
    }
    p->pb.single = single;
    p->forwarded = 1;
    p->engine_failed = 1;
    p->cpu = cpu_plan;
    p->stats = drop_stats_other(single);
    return p;
}

void *drop_plan_cpu(const char *fn, drop_plan *p)
{
    void *cpu = __atomic_load_n(&p->cpu, __ATOMIC_ACQUIRE);
    if (cpu)
        return cpu;
    unsigned keep = FFTW_PRESERVE_INPUT | FFTW_DESTROY_INPUT | FFTW_UNALIGNED;
    cpu = drop_cpu_plan(&p->pb, FFTW_ESTIMATE | (p->pb.flags & keep));
    if (!cpu) {
        drop_warn(fn, "the real FFTW cannot plan this transform; nothing was computed");
        return NULL;
    }
    void *none = NULL;
    if (!__atomic_compare_exchange_n(&p->cpu, &none, cpu, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        drop_cpu_destroy(p->pb.single, cpu);
        return none;
    }
    return cpu;
}

int drop_plan_null(const char *fn, const drop_plan *p)
{
    if (p)
        return 0;
    drop_warn(fn, "the plan is NULL (its planner returned NULL: FFTW could not plan that problem)");
    return 1;
}

void drop_plan_execute(const char *fn, drop_plan *p, void *in, void *out)
{
    if (p->cpu_exec && __atomic_load_n(&dropin_reporting, __ATOMIC_RELAXED) == 0) {
        drop_cpu_run(p, in, out);   /* nothing to route, count or time: FFTW's call alone */
        return;
    }
    dropin_call c;
    dropin_begin(&c, p->stats);
    char *why = __atomic_exchange_n(&p->engine_why, NULL, __ATOMIC_ACQ_REL);
    if (why) {   /* the engine's plan failed when this plan was made, with no call to count it on */
        dropin_fallback(&c, why);
        free(why);
    }
    if (!p->engine_failed && !p->cpu_only && dropin_use_gpu(&c, p->flops, 0)) {
        cufort_fft_plan e = engine_plan(p, &c);
        if (e) {
            int st = cufort_fft_exec_host(e, in, out, engine_direction(&p->pb));
            if (dropin_gpu_done(&c, st, p->flops, p->bytes))
                return;
        }
    }
    if (!drop_plan_cpu(fn, p)) {
        dropin_end(&c, 0, 0, 0);
        return;
    }
    drop_cpu_execute(p, in, out);
    dropin_end(&c, 0, p->flops, 0);
}

void drop_plan_destroy(drop_plan *p)
{
    if (!p)
        return;
    drop_cpu_destroy(p->pb.single, p->cpu);
    free(p->engine_why);
    if (p->engine)
        cufort_fft_plan_release(p->engine, p->engine_generation);
    free(p);
}

/* Before FFTW's cleanup: destroyed plans leave their engine plans idle in the core plan cache, and
 * on the host backend those hold plans of the real FFTW, which its cleanup would leave dangling. */
void drop_plan_forget_idle(void)
{
    cufort_fft_cache_clear();
}

/* FFTW's counts for a radix-2 complex FFT of N points: 3 N log2 N additions, 2 N log2 N
 * multiplications (5 N log2 N in all), half that for a real one; no fused operations counted. */
void drop_plan_flops(const drop_plan *p, double *add, double *mul, double *fma)
{
    *add = 0.6 * p->flops;
    *mul = 0.4 * p->flops;
    *fma = 0;
}

char *drop_plan_describe(const drop_plan *p)
{
    static const char *kinds[] = {"c2c", "r2c", "c2r"};
    char dims[160] = "";
    size_t at = 0;
    for (int k = 0; k < p->pb.rank && at < sizeof dims; k++)
        at += (size_t)snprintf(dims + at, sizeof dims - at, "%s%td", k ? "x" : "", p->pb.dims[k].n);
    char *text = NULL;
    if (asprintf(&text, "(cufort-engine dft-%s-%s %s howmany %lld%s)", kinds[p->pb.kind],
                 p->pb.single ? "single" : "double", dims, (long long)p->batch,
                 p->advanced ? " advanced-layout" : "") < 0)
        return NULL;
    return text;
}
