/* adapt.c — near the routing threshold a drop-in measures where a call runs faster.
 *
 * (Told in the BLAS drop-in's terms; the FFTW drop-in uses it unchanged, its transform kinds as the
 * routines and FFTW as the CPU library.  The knobs are named by the library's prefix:
 * CUFORT_DROPIN_RECHECK for the BLAS, CUFORT_FFTW_RECHECK for FFTW, ...)
 *
 * Around the threshold the engine and the CPU BLAS take about the same time, and which one wins
 * moves with the routine, the shape, the CPU BLAS's threads and the host's load, so a fixed
 * threshold leaves calls there up to a quarter slower than the better path (docs/dropin-blas.md
 * has the measured cases).  A call whose work lies in the band (from the profile's band_low, else
 * a factor BAND below the threshold, to a factor BAND above) falls in a class (its routine, its
 * flops in steps of 2^(1/4)); the class's calls run on the engine until TIMED of them (or the
 * profile's timed_calls) were timed,
 * then on the CPU BLAS the same, and later calls take the path whose median timed call was
 * shorter (the engine's by the profile's engine_margin, where it has one).  The median, not the best: the CPU BLAS's times on a busy host spread widely, and one
 * lucky call must not decide.  A path that failed (the engine fell back) never wins.
 *
 * Which calls are timed.  Not the first after a switch of path: the first engine call pays for
 * CUDA's start and for buffers that grow, the first CPU call after an engine call for threads that
 * went to sleep.  Nor one that came more than GAP_US after this thread's previous call in the band
 * returned, unless the class's last GAPS_USUAL + 1 calls all did (then gaps are the program's way,
 * and their cost part of both paths'): it pays for whatever ran in the gap, and not alike on both
 * paths (the CPU BLAS much more than the engine).  Once decided, the chosen path's calls are timed
 * too, so its median (its last KEEP calls) follows the host at no cost.
 *
 * Measuring again runs the other path only, afresh (its older times are dropped): TIMED timed
 * calls, set against the chosen path's last KEEP.  It never stops for good (only an engine that
 * fell back is never tried again): a measurement caught in a spell of the host's is corrected by
 * the next.  When:
 * - 16 calls after the first decision, whatever the margin: a class's first calls run cold, and a
 *   first decision made on them can be wrong by a third.  Likewise 16 calls after a decision that
 *   changed the path: one of the two measurements behind the change was off, or the host changed;
 * - as soon as the chosen path's last KEEP calls, all since the decision, have a median over the
 *   other path's: the host changed;
 * - otherwise, if the latest decision that kept a path kept this one, after twice as many calls
 *   as then (a change of path and its reversal, noise between two close paths, do not start the
 *   doubling again), else after 32; and at least RECHECK_SHARE times the calls a measurement loses
 *   (TIMED + 1 calls at the slower path's time, over the chosen path's), up to LAST_RECHECK:
 *   medians 10% apart are measured again after 32, 64, 128, ... calls, medians 2x apart after
 *   200, 400, ...: the measurements cost the class ~2% of its time at most;
 * - where one median is FAR or more times the other, implausible this near the threshold and more
 *   likely a burst of the host's (a CPU BLAS running calls 50x slower for a while): after 16
 *   calls, then 64, 256, ... (4x each time) up to LAST_RECHECK.  Such a measurement ends at its
 *   first timed call if that one still takes FAR times the chosen path's median: the burst goes
 *   on.  Only those: a single spike must not end a measurement meant to correct a cold decision.
 * <prefix>_RECHECK=n (tests) measures again after every n calls whatever the margin;
 * <prefix>_GAP_US sets GAP_US (tests whose checks between calls take longer).
 * CUFORT_REPORT lists each class with both times; <prefix>_TRACE=1 prints each decision with the
 * times it was made on, =2 also every call in the band.
 *
 * The table is small and fixed; a call that finds it full is routed by the threshold alone. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "env.h"
#include "route.h"

enum { BAND = 8, TIMED = 3, KEEP = 12, CLASSES = 512, STEPS_PER_OCTAVE = 4 };

/* timed calls per path and measurement: the profile's (at most KEEP), else TIMED */
static int timed_calls(void)
{
    int n = dropin_this.timed_calls;
    return n > 0 ? (n < KEEP ? n : KEEP) : TIMED;
}
enum { GAP_US = 50, GAPS_USUAL = 2 };
enum { FIRST_RECHECK = 16, LAST_RECHECK = 4096, RECHECK_SHARE = 50 };
#define FAR 3.0

typedef struct {
    const dropin_stats *routine;   /* NULL: a free entry */
    int size;                      /* floor(log2(flops) * STEPS_PER_OCTAVE) */
    int runs[2];                   /* timed calls of this measurement: CPU BLAS (0), engine (1) */
    int last;                      /* the path of the class's latest call; -1 before the first */
    int gaps;                      /* its latest calls that came after a gap, in a row */
    double t[2][KEEP];             /* the last KEEP timed calls per path, seconds (a ring) */
    int kept[2];                   /* timed calls ever put in the ring */
    double median[2];
    int failed;                    /* the engine fell back during a measurement */
    int choice;                    /* the path of later calls; -1 before the first decision */
    int measuring, measurements;
    long until_recheck;            /* calls left until the next measurement; 0: none scheduled */
    long settled;                  /* the interval after the latest decision that kept the path
                                      (FIRST_RECHECK after the first decision) */
    int settled_on;                /* that path */
    int far_in_a_row;              /* the latest decisions made on medians FAR apart */
    int since;                     /* timed calls on the chosen path since the decision */
} adapt_class;

static adapt_class classes[CLASSES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local uint64_t last_end;   /* when this thread's latest call in the band returned */
static struct {
    uint64_t gap_ns;   /* 0: not read yet */
    long recheck;      /* CUFORT_DROPIN_RECHECK; 0: none */
    int trace;         /* CUFORT_DROPIN_TRACE */
} env;                 /* under the lock */

static void read_env(void)
{
    char name[64];
    double us = 0;
    cufort_env_real(dropin_env_name(name, sizeof name, "GAP_US"), 0, 1e9, &us);
    env.gap_ns = (uint64_t)((us > 0 ? us : GAP_US) * 1e3);
    int64_t x = 0;
    cufort_env_int(dropin_env_name(name, sizeof name, "RECHECK"), 0, LONG_MAX, &x);
    env.recheck = (long)x;
    x = 0;
    cufort_env_int(dropin_env_name(name, sizeof name, "TRACE"), 0, 2, &x);
    env.trace = (int)x;
}

double dropin_adapt_band_low(double threshold)
{
    double low = threshold / BAND;
    return dropin_this.band_low > 0 && dropin_this.band_low < low ? dropin_this.band_low : low;
}

int dropin_adapt_in_band(double flops, double threshold)
{
    return threshold > 0 && flops >= dropin_adapt_band_low(threshold) && flops < threshold * BAND;
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
                               .last = -1};
            return e;
        }
    }
    return NULL;
}

int dropin_adapt_route(dropin_call *c, double flops)
{
    int size = (int)floor(log2(flops) * STEPS_PER_OCTAVE), path = -1;
    uint64_t now = dropin_now_ns();
    pthread_mutex_lock(&lock);
    if (!env.gap_ns)
        read_env();
    int after_gap = last_end && now - last_end > env.gap_ns;
    adapt_class *e = class_of(c->s, size);
    if (e) {
        if (!e->measuring && e->until_recheck > 0 && --e->until_recheck == 0) {
            e->measuring = 1;   /* the other path only, afresh: the chosen one's runs count as done */
            e->runs[!e->choice] = 0;
            e->runs[e->choice] = timed_calls();
            e->kept[!e->choice] = 0;
        }
        e->gaps = after_gap ? e->gaps + 1 : 0;
        path = e->measuring ? e->runs[1] < timed_calls() : e->choice;   /* the engine's run first */
        c->adapt = e;
        c->adapt_path = path;
        c->adapt_timed = path == e->last && (!after_gap || e->gaps > GAPS_USUAL);
        c->adapt_measuring = e->measuring;
        c->adapt_t0 = now;
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

static int kept(const adapt_class *e, int p) { return e->kept[p] < KEEP ? e->kept[p] : KEEP; }

/* the measurement done: decide, and when to measure again.  Under the lock. */
static void decide(adapt_class *e)
{
    int before = e->choice;
    e->median[0] = median_of(e->t[0], kept(e, 0));
    e->median[1] = median_of(e->t[1], kept(e, 1));
    double margin = dropin_this.engine_margin > 0 ? dropin_this.engine_margin : 1;
    e->choice = !e->failed && e->median[1] < margin * e->median[0];
    e->measuring = 0;
    e->measurements++;
    e->since = 0;
    double lo = fmin(e->median[0], e->median[1]), hi = fmax(e->median[0], e->median[1]);
    int far = hi >= FAR * lo;
    e->far_in_a_row = far ? e->far_in_a_row + 1 : 0;
    long interval;   /* calls until the next measurement; 0: none */
    if (env.recheck > 0) {
        interval = env.recheck;
    } else if (e->failed) {
        interval = 0;
    } else if (far) {   /* 16, 64, 256, ... */
        int shift = 2 * (e->far_in_a_row - 1);
        interval = shift < 10 ? (long)FIRST_RECHECK << shift : LAST_RECHECK;
    } else if (e->measurements == 1 || e->choice != before) {
        interval = FIRST_RECHECK;
    } else {
        double cost = (timed_calls() + 1) * (hi / lo - 1);   /* calls' time lost by a measurement */
        long last = e->settled_on == e->choice ? e->settled : FIRST_RECHECK;
        double next = fmax(2.0 * last, ceil(RECHECK_SHARE * cost));
        interval = e->settled = next < LAST_RECHECK ? (long)next : LAST_RECHECK;
        e->settled_on = e->choice;
    }
    if (e->measurements == 1) {
        e->settled = FIRST_RECHECK;
        e->settled_on = e->choice;
    }
    e->until_recheck = interval;
    if (env.trace) {   /* the times decided on, oldest first in each ring */
        fprintf(stderr, "# adapt %s class %d: cpu", e->routine->name, e->size);
        for (int p = 0; p < 2; p++) {
            for (int i = 0; i < kept(e, p); i++)
                fprintf(stderr, " %.3f", e->t[p][(e->kept[p] - kept(e, p) + i) % KEEP] * 1e3);
            if (!p)
                fprintf(stderr, " | engine");
            else if (interval)
                fprintf(stderr, " -> %s, measured again in %ld calls\n", e->choice ? "engine" : "cpu",
                        interval);
            else
                fprintf(stderr, " -> %s, for good\n", e->choice ? "engine" : "cpu");
        }
    }
}

static void keep(adapt_class *e, int p, double t) { e->t[p][e->kept[p]++ % KEEP] = t; }

void dropin_adapt_record(dropin_call *c, int gpu)
{
    adapt_class *e = c->adapt;
    int p = c->adapt_path;
    uint64_t end = dropin_now_ns();
    double t = (double)(end - c->adapt_t0) * 1e-9;
    c->adapt = NULL;
    last_end = end;
    pthread_mutex_lock(&lock);
    if (env.trace > 1)
        fprintf(stderr, "# call %s class %d %s%s%s %.3f ms\n", e->routine->name, e->size,
                p ? "engine" : "cpu", c->adapt_timed ? " timed" : "",
                c->adapt_measuring ? " measuring" : "", t * 1e3);
    int fell_back = p == 1 && (!gpu || c->fell_back);
    if (!c->adapt_measuring) {   /* a call on the chosen path; the class may be measuring by now */
        if (fell_back && !e->measuring) {
            e->failed = 1;
            e->choice = 0;
            e->until_recheck = 0;
        } else if (c->adapt_timed && !e->measuring && p == e->choice) {
            keep(e, p, t);
            e->median[p] = median_of(e->t[p], kept(e, p));
            /* the chosen path's last KEEP calls, all since the decision, now take longer than
             * the other path did: measure that one again at the next call */
            if (++e->since >= KEEP && !e->failed && e->median[p] > e->median[!p])
                e->until_recheck = 1;
        }
    } else {
        if (fell_back)
            e->failed = 1;
        /* calls of several threads at once may overshoot: ignored */
        if (c->adapt_timed && e->measuring && e->runs[p] < timed_calls()) {
            e->runs[p]++;
            keep(e, p, t);
            /* the measurement's first timed call, still FAR slower: the burst goes on, enough.
             * Only the first: a later spike must not cut short a measurement that began well. */
            if (e->far_in_a_row && p != e->choice && e->runs[p] == 1 &&
                t >= FAR * e->median[e->choice])
                e->runs[p] = timed_calls();
        }
        if (e->measuring && e->runs[0] >= timed_calls() && e->runs[1] >= timed_calls())
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
             "%s, %d still measuring", decided[1], decided[0], dropin_this.cpu_name, measuring);
}

void dropin_adapt_list(FILE *f)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < CLASSES; i++) {
        const adapt_class *e = &classes[i];
        if (e->routine && e->choice >= 0)
            fprintf(f, "# measured: %s of ~%.2g flops: engine %.3f ms%s, %s %.3f ms (medians of %d and %d "
                    "timed calls in %d measurement%s) -> %s\n", e->routine->name,
                    exp2((e->size + 0.5) / STEPS_PER_OCTAVE), e->median[1] * 1e3, e->failed ? " (fell back)" : "",
                    dropin_this.cpu_name, e->median[0] * 1e3, kept(e, 1), kept(e, 0),
                    e->measurements, e->measurements == 1 ? "" : "s", e->choice ? "engine" : dropin_this.cpu_name);
    }
    pthread_mutex_unlock(&lock);
}

void dropin_adapt_forget(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < CLASSES; i++)
        classes[i].routine = NULL;
    read_env();
    pthread_mutex_unlock(&lock);
}
