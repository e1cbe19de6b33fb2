/* adapt.c — near the routing threshold the drop-in measures where a call runs faster.
 *
 * Around CUFORT_GPU_THRESHOLD the engine and the CPU BLAS take about the same time, and which one
 * wins moves with the routine, the shape, the CPU BLAS's threads and the host's load: on the H100
 * host the DGEMM crossover moved between n = 384 and n = 600 from one run to the next, and a fixed
 * threshold left calls there up to 1.24x slower than the better path (bench/NOTES_gemm.md v5).  So
 * a call whose work lies within a factor BAND of the threshold falls in a class (its routine, its
 * flops in steps of 2^(1/4)); the class's first TRIALS calls run on the engine, the next TRIALS on
 * the CPU BLAS, and every later call of the class takes the path whose best time was smaller.
 * Each path's best, not its first, counts: the first engine call pays for CUDA's start and for
 * buffers that grow, the first CPU call after an engine call for threads that went to sleep or
 * still spin — so the paths are tried in runs, not alternately, and the second call of a run is
 * timed as the class's calls will run.  A path that failed (the engine fell back) never wins.
 * CUFORT_REPORT lists each class with both times.
 *
 * The table is small and fixed; a call that finds it full is routed by the threshold alone. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>

#include "dropin.h"

enum { BAND = 8, TRIALS = 2, CLASSES = 512, STEPS_PER_OCTAVE = 4 };

typedef struct {
    const dropin_stats *routine;   /* NULL: a free entry */
    int size;                      /* floor(log2(flops) * STEPS_PER_OCTAVE) */
    int runs[2];                   /* timed calls on the CPU BLAS (0) and on the engine (1) */
    double best[2];                /* their smallest time, seconds */
    int choice;                    /* -1 while measuring, else the path */
} adapt_class;

static adapt_class classes[CLASSES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int dropin_adapt_in_band(double flops, double threshold)
{
    return threshold > 0 && flops >= threshold / BAND && flops < threshold * BAND;
}

/* the class of (routine, size), claimed when new; NULL when the table is full.  Under the lock. */
static adapt_class *class_of(const dropin_stats *routine, int size)
{
    size_t h = ((size_t)routine / sizeof *routine * 31u + (size_t)(unsigned)size) % CLASSES;
    for (int probe = 0; probe < CLASSES; probe++, h = (h + 1) % CLASSES) {
        adapt_class *e = &classes[h];
        if (e->routine == routine && e->size == size)
            return e;
        if (!e->routine) {
            *e = (adapt_class){routine, size, {0, 0}, {0, 0}, -1};
            return e;
        }
    }
    return NULL;
}

int dropin_adapt_route(dropin_call *c, double flops)
{
    int size = (int)floor(log2(flops) * STEPS_PER_OCTAVE), path = -1;
    pthread_mutex_lock(&lock);
    adapt_class *e = class_of(c->s, size);
    if (e) {
        path = e->choice;
        if (path < 0) {   /* measuring: TRIALS calls on the engine, then TRIALS on the CPU */
            path = e->runs[1] < TRIALS;
            c->adapt = e;
            c->adapt_path = path;
            c->adapt_t0 = dropin_now_ns();
        }
    }
    pthread_mutex_unlock(&lock);
    return path;
}

void dropin_adapt_record(dropin_call *c, int gpu)
{
    adapt_class *e = c->adapt;
    int p = c->adapt_path;
    double t = (double)(dropin_now_ns() - c->adapt_t0) * 1e-9;
    if (p == 1 && (!gpu || c->fell_back))
        t = INFINITY;   /* the engine could not do it */
    c->adapt = NULL;
    pthread_mutex_lock(&lock);
    if (e->runs[p] == 0 || t < e->best[p])
        e->best[p] = t;
    e->runs[p]++;
    if (e->choice < 0 && e->runs[0] >= TRIALS && e->runs[1] >= TRIALS)
        e->choice = e->best[1] < e->best[0];
    pthread_mutex_unlock(&lock);
}

void dropin_adapt_summary(char *buf, size_t n)
{
    int decided[2] = {0, 0}, measuring = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < CLASSES; i++)
        if (classes[i].routine) {
            if (classes[i].choice < 0)
                measuring++;
            else
                decided[classes[i].choice]++;
        }
    pthread_mutex_unlock(&lock);
    snprintf(buf, n, "size classes near the threshold: %d measured faster on the engine, %d on the "
             "CPU BLAS, %d still measuring", decided[1], decided[0], measuring);
}

void dropin_adapt_list(FILE *f)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < CLASSES; i++) {
        const adapt_class *e = &classes[i];
        if (e->routine && e->choice >= 0)
            fprintf(f, "# measured: %s of ~%.2g flops: engine %.3f ms, CPU BLAS %.3f ms (best of %d, %d) "
                    "-> %s\n", e->routine->name, exp2((e->size + 0.5) / STEPS_PER_OCTAVE),
                    e->best[1] * 1e3, e->best[0] * 1e3, e->runs[1], e->runs[0],
                    e->choice ? "engine" : "CPU BLAS");
    }
    pthread_mutex_unlock(&lock);
}

void dropin_adapt_forget(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < CLASSES; i++)
        classes[i].routine = NULL;
    pthread_mutex_unlock(&lock);
}
