/* fft_cache.c — released plans kept for the next plan of the same shape.
 * Making a cuFFT plan costs far more than a small transform (it sizes and allocates a work area), and
 * `use cufort` makes one wherever a program declares a plan variable, often inside a routine called
 * in a loop.  A plan is never shared: the cache holds only released plans, so the rule "one thread
 * per plan at a time" still holds without locks on the execution path. */
#include <stdlib.h>

#include "fft_internal.h"

typedef struct {
    pthread_mutex_t lock;
    struct cufort_fft_plan_s *idle[CUFORT_FFT_CACHE_MAX];   /* most recently released first */
    int count;
    int64_t hits, misses, evictions;
} plan_cache;

static plan_cache cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int same(const int64_t *a, const int64_t *b, int rank)
{
    for (int i = 0; i < rank; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static int matches(const struct cufort_fft_plan_s *p, int type, int rank, const int64_t *n,
                   int64_t batch, const int64_t *inembed, int64_t istride, int64_t idist,
                   const int64_t *onembed, int64_t ostride, int64_t odist)
{
    if (p->type != type || p->rank != rank || p->batch != batch || p->advanced != (inembed != NULL) ||
        !same(p->n, n, rank) || p->device != cufort_current_device())
        return 0;
    return !inembed || (same(p->inembed, inembed, rank) && same(p->onembed, onembed, rank) &&
                        p->istride == istride && p->idist == idist && p->ostride == ostride &&
                        p->odist == odist);
}

/* Runs at shutdown and device change with the old device still there. */
static void drain(void *unused)
{
    (void)unused;
    cufort_fft_cache_clear();
}

int cufort_fft_cache_clear(void)
{
    CUFORT_HOLD_GATE;
    pthread_mutex_lock(&cache.lock);
    int cleared = cache.count;
    for (int i = 0; i < cache.count; i++)
        cufort_fft_free(cache.idle[i]);
    cache.count = 0;
    pthread_mutex_unlock(&cache.lock);
    return cleared;
}

int cufort_fft_plan_acquire(cufort_fft_plan *plan, int *generation, int type, int rank,
                            const int64_t *n, int64_t batch, const int64_t *inembed, int64_t istride,
                            int64_t idist, const int64_t *onembed, int64_t ostride, int64_t odist)
{
    CUFORT_HOLD_GATE;
    static const char fn[] = "cufort_fft_plan_acquire";
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!plan || !generation || !n)
        return cufort_null_arg(fn, !plan ? "plan" : !generation ? "generation" : "n");
    *plan = NULL;
    *generation = cufort_fft_generation();
    struct cufort_fft_plan_s *p = NULL;
    if (rank >= 1 && rank <= 3 && (inembed == NULL) == (onembed == NULL)) {
        pthread_mutex_lock(&cache.lock);
        for (int i = 0; i < cache.count && !p; i++)
            if (matches(cache.idle[i], type, rank, n, batch, inembed, istride, idist, onembed,
                        ostride, odist)) {
                p = cache.idle[i];
                for (int j = i; j + 1 < cache.count; j++)
                    cache.idle[j] = cache.idle[j + 1];
                cache.count--;
            }
        if (p)
            cache.hits++;
        else
            cache.misses++;
        pthread_mutex_unlock(&cache.lock);
    }
    if (p) {
        if ((st = cufort_fft_relist(p))) {
            cufort_fft_free(p);
            return st;
        }
        p->stream = NULL;
        p->normalize = 0;
        *plan = p;
        return CUFORT_SUCCESS;
    }
    st = cufort_fft_plan_many(plan, type, rank, n, batch, inembed, istride, idist, onembed, ostride,
                              odist);
    /* the idle plans' work areas may be what is missing */
    if (st == CUFORT_ALLOC_FAILED && cufort_fft_cache_clear() > 0)
        st = cufort_fft_plan_many(plan, type, rank, n, batch, inembed, istride, idist, onembed,
                                  ostride, odist);
    return st;
}

int cufort_fft_plan_release(cufort_fft_plan plan, int generation)
{
    CUFORT_HOLD_GATE;
    /* no cufort_enter: finalizers call this, and must not clear the error a program is about to read */
    if (!plan || !cufort_ops() || generation != cufort_fft_generation())
        return CUFORT_SUCCESS;   /* nothing, or gone with the init it was made under */
    if (!cufort_fft_unlist(plan))
        return cufort_fail(CUFORT_INVALID_VALUE, "cufort_fft_plan_release: %p is not a live FFT plan "
                           "(released twice?)", (void *)plan);
    cufort_at_reset(drain, NULL);
    /* The plan's next user shares its work area, on a stream of its own: the transforms this one
     * queued on its stream must be done first (a destroyed stream's work can only be waited for
     * on the whole device).  A plan on the default stream needs no wait: the next user's stream
     * waits for the default stream's work. */
    if (plan->stream) {
        if (cufort_stream_live(plan->stream))
            cufort_ops()->stream_synchronize(plan->stream);
        else
            cufort_ops()->synchronize();
    }
    struct cufort_fft_plan_s *victim = NULL;
    pthread_mutex_lock(&cache.lock);
    if (cache.count == CUFORT_FFT_CACHE_MAX) {
        victim = cache.idle[--cache.count];
        cache.evictions++;
    }
    for (int j = cache.count; j > 0; j--)
        cache.idle[j] = cache.idle[j - 1];
    cache.idle[0] = plan;
    cache.count++;
    pthread_mutex_unlock(&cache.lock);
    if (victim)
        cufort_fft_free(victim);
    return CUFORT_SUCCESS;
}

int cufort_fft_generation(void) { return (int)cufort_generation(); }

void cufort_fft_cache_get_stats(cufort_fft_cache_stats *stats)
{
    CUFORT_HOLD_GATE;
    pthread_mutex_lock(&cache.lock);
    *stats = (cufort_fft_cache_stats){cache.count, cache.hits, cache.misses, cache.evictions};
    pthread_mutex_unlock(&cache.lock);
}
