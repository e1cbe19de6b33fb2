/* adapt.c — near the routing threshold the drop-in measures where a call runs faster.
 *
 * Around CUFORT_GPU_THRESHOLD the engine and the CPU BLAS take about the same time, and which one
 * wins moves with the routine, the shape, the CPU BLAS's threads and the host's load: on the H100
 * host the DGEMM crossover moved between n = 384 and n = 600 from one run to the next, and a fixed
 * threshold left calls there up to 1.24x slower than the better path (bench/NOTES_gemm.md v5).  So
 * a call whose work lies within a factor BAND of the threshold falls in a class (its routine, its
 * flops in steps of 2^(1/4)); the class's first WARM + TIMED calls run on the engine, the next
 * WARM + TIMED on the CPU BLAS, and every later call of the class takes the path whose median timed
 * call was shorter.  The paths are tried in runs, not alternately, and a run's first call is not
 * timed: the first engine call pays for CUDA's start and for buffers that grow, the first CPU call
 * after an engine call for threads that went to sleep.  The median, not the best: the CPU BLAS's
 * times on a busy host spread widely, and the best of two once sent DGEMM n = 384 to the CPU BLAS
 * at 1.29x the engine's time (NOTES_gemm v6).  A path that failed (the engine fell back) never
 * wins.  Once decided, every call of the class on the chosen path is timed too (but the first after
 * a switch), so the chosen path's median follows the host at no cost, and measuring again runs only
 * the other path: WARM + TIMED calls, decided on the chosen path's last KEEP calls against the
 * other's.  Where the two medians lie within CLOSE of each other the choice was nearly a coin toss
 * and the host may drift: the class is measured again after 32 of its calls, then 64, 128, ... up
 * to 4096 (ZGEMM n = 128 had measured 0.122 against 0.126 ms and then ran 13% slower than the CPU
 * BLAS; v6).  Each time that costs at most WARM + TIMED calls at up to CLOSE times the chosen
 * one's, one call's time in all, so at most 3% over the first 32 calls and half that per doubling
 * after.
 * (Measuring both paths again after 16 calls cost twice that per interval, and ZGEMM n = 256, 1.18x
 * apart, read 1.07 of the better path over the benchmark's ~100 calls: run 21.)
 * Where one median is FAR or more times the other, that is implausible this near the threshold
 * (run 20's in-band medians lay 1.2-1.5x apart) and more likely a burst of the host's: on the H100 host
 * OpenBLAS's ZGEMM n = 128 ran 6-9 ms a call for runs of several calls instead of 0.11 ms, and a
 * measurement caught in one sent the class to the engine for good, 1.33x slower (v6).  Such a
 * class is measured again after 16 calls, then 64, then 256, each time deciding on the slower
 * path's new calls alone: at most 3 x 4 calls of the slower path over the process's life.
 * CUFORT_DROPIN_RECHECK=n (tests) measures again after every n calls whatever the margin.
 * CUFORT_REPORT lists each class with both times.
 *
 * The table is small and fixed; a call that finds it full is routed by the threshold alone. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "dropin.h"

enum { BAND = 8, WARM = 1, TIMED = 3, KEEP = 12, CLASSES = 512, STEPS_PER_OCTAVE = 4 };
enum { CLOSE_RECHECK = 32, LAST_RECHECK = 4096, FAR_RECHECK = 16, FAR_RECHECKS = 3 };
#define CLOSE 1.25
#define FAR 3.0

typedef struct {
    const dropin_stats *routine;   /* NULL: a free entry */
    int size;                      /* floor(log2(flops) * STEPS_PER_OCTAVE) */
    int runs[2];                   /* calls of the current measurement on the CPU BLAS (0), engine (1) */
    int last;                      /* the path of the class's latest call; -1 before the first */
    double t[2][KEEP];             /* the last KEEP timed calls per path, seconds (a ring) */
    int kept[2];                   /* timed calls ever put in the ring */
    double median[2];
    int failed;                    /* the engine fell back during a measurement */
    int choice;                    /* the path of later calls; -1 before the first decision */
    int measuring, measurements;
    long interval, until_recheck;  /* calls between measurements, left until the next; 0: none */
    int far_rechecks;              /* measurements scheduled because the medians lay FAR apart */
    int suspect;                   /* the path whose calls the next measurement replaces; -1: none */
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
            *e = (adapt_class){.routine = routine, .size = size, .choice = -1, .measuring = 1,
                               .suspect = -1, .last = -1};
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
        if (!e->measuring && e->until_recheck > 0 && --e->until_recheck == 0) {
            e->measuring = 1;   /* the other path only: the chosen one's runs count as done */
            e->runs[!e->choice] = 0;
            e->runs[e->choice] = WARM + TIMED;
            if (e->suspect >= 0)
                e->kept[e->suspect] = 0;
        }
        path = e->measuring ? e->runs[1] < WARM + TIMED : e->choice;   /* the engine's run first */
        if (e->measuring || path == e->last) {   /* timed: not the first call after a switch */
            c->adapt = e;
            c->adapt_path = path;
            c->adapt_measuring = e->measuring;
            c->adapt_t0 = dropin_now_ns();
        }
        e->last = path;
    }
    pthread_mutex_unlock(&lock);
    return path;
}

static double median_of(const double *t, int n)
{
    double v[KEEP];
    for (int i = 0; i < n; i++) {   /* insertion sort: at most KEEP values */
        int j = i;
        for (; j > 0 && v[j - 1] > t[i]; j--)
            v[j] = v[j - 1];
        v[j] = t[i];
    }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static long recheck_every(void)
{
    const char *v = getenv("CUFORT_DROPIN_RECHECK");
    return v && *v ? atol(v) : 0;
}

static int kept(const adapt_class *e, int p) { return e->kept[p] < KEEP ? e->kept[p] : KEEP; }

/* the measurement done: decide, and when to measure again.  Under the lock. */
static void decide(adapt_class *e)
{
    e->median[0] = median_of(e->t[0], kept(e, 0));
    e->median[1] = median_of(e->t[1], kept(e, 1));
    e->choice = !e->failed && e->median[1] < e->median[0];
    e->measuring = 0;
    e->measurements++;
    double lo = fmin(e->median[0], e->median[1]), hi = fmax(e->median[0], e->median[1]);
    long forced = recheck_every();
    e->suspect = -1;
    if (forced > 0) {
        e->interval = forced;
    } else if (e->failed) {
        e->interval = 0;
    } else if (hi < CLOSE * lo) {
        e->interval = e->interval < CLOSE_RECHECK ? CLOSE_RECHECK
                      : e->interval < LAST_RECHECK ? 2 * e->interval : LAST_RECHECK;
    } else if (hi >= FAR * lo && e->far_rechecks < FAR_RECHECKS) {
        e->interval = (long)FAR_RECHECK << (2 * e->far_rechecks++);   /* 16, 64, 256 */
        e->suspect = !e->choice;
    } else {
        e->interval = 0;
    }
    e->until_recheck = e->interval;
}

static void keep(adapt_class *e, int p, double t) { e->t[p][e->kept[p]++ % KEEP] = t; }

void dropin_adapt_record(dropin_call *c, int gpu)
{
    adapt_class *e = c->adapt;
    int p = c->adapt_path;
    double t = (double)(dropin_now_ns() - c->adapt_t0) * 1e-9;
    c->adapt = NULL;
    pthread_mutex_lock(&lock);
    int fell_back = p == 1 && (!gpu || c->fell_back);
    if (!c->adapt_measuring) {   /* a call on the chosen path; the class may be measuring by now */
        if (fell_back && !e->measuring) {
            e->failed = 1;
            e->choice = 0;
            e->interval = e->until_recheck = 0;
        } else if (!e->measuring && p == e->choice) {
            keep(e, p, t);
            e->median[p] = median_of(e->t[p], kept(e, p));
        }
    } else {
        if (fell_back)
            e->failed = 1;
        int i = e->runs[p]++ - WARM;   /* calls of several threads at once may overshoot: ignored */
        if (e->measuring && i >= 0 && i < TIMED)
            keep(e, p, t);
        if (e->measuring && e->runs[0] >= WARM + TIMED && e->runs[1] >= WARM + TIMED)
            decide(e);
    }
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
            fprintf(f, "# measured: %s of ~%.2g flops: engine %.3f ms%s, CPU BLAS %.3f ms (medians of %d and %d "
                    "timed calls in %d measurement%s) -> %s\n", e->routine->name,
                    exp2((e->size + 0.5) / STEPS_PER_OCTAVE), e->median[1] * 1e3, e->failed ? " (fell back)" : "",
                    e->median[0] * 1e3, kept(e, 1), kept(e, 0),
                    e->measurements, e->measurements == 1 ? "" : "s", e->choice ? "engine" : "CPU BLAS");
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
