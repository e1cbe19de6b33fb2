/* test_adapt.c — the drop-in's measured routing near the threshold (c_wrappers/route/adapt.c) on a
 * simulated clock: adapt.o is linked in directly and dropin_now_ns is this file's, so every call
 * takes exactly the time a scenario gives its path.  That makes the policy itself checkable, call
 * by call, whatever the machine: test_dropin checks it on the real paths, where which one wins is
 * the machine's business.
 *
 * Scenarios (one size class each, the table forgotten in between):
 *   a CPU burst during the first measurement, then the CPU faster: measured again, the CPU wins,
 *   and 16 calls after that change of path the engine once more; the same burst on the engine;
 *   a CPU truly FAR slower: measured again after 16, 64, 256, 1024 calls, each time one call only;
 *   a CPU cold at first, then one spike in its re-measurement: the other two calls count;
 *   a CPU FAR slower at first, then a spike after its re-measurement's first timed call: the
 *   measurement goes on to its third;
 *   medians 2x apart: measured again after 16 calls (a class's first calls run cold), then after
 *   200, 400, 800 (each measurement costs ~2% of the calls between);
 *   medians 10% apart: measured again after 16 calls, then at doubling intervals;
 *   the chosen CPU BLAS slowing down: its own later calls send the class to the engine at once;
 *   a spell of the chosen CPU BLAS: the class goes to the engine and back once the spell is over,
 *   and the schedule of measurements goes on where it stood; a longer spell, after which the
 *   engine is kept: the CPU measured again soon, not after the interval the CPU had earned;
 *   an engine that fell back, while measured or later: never again, whatever the margin;
 *   calls after a gap of other work: not timed, unless the class's calls always come after one. */
#include "check.h"
#include "dropin.h"

static uint64_t clock_ns;
uint64_t dropin_now_ns(void) { return clock_ns; }

/* what adapt.c reads of the library it is linked into: the BLAS drop-in's names */
const dropin_profile dropin_this = {.title = "cufort drop-in BLAS", .cpu_name = "CPU BLAS",
                                    .env_prefix = "CUFORT_DROPIN"};

static dropin_stats routine = {.name = "zgemm", .gpu_capable = 1};
enum { FLOPS = 17000000 };   /* zgemm n = 128 */

/* the times (ms) of call i (from 1) on the CPU BLAS and on the engine */
typedef struct {
    double (*cpu)(long i);
    double (*engine)(long i);
    int engine_fails;   /* from this call on the engine falls back; 0: never */
    double (*gap)(long i);   /* ms of other work before call i; NULL: none */
} scenario;

typedef struct {
    char path[2100];   /* 'c' or 'e' per call, from index 1 */
    int cpu_calls, last_cpu;
    char report[512];
} outcome;

static outcome run(const scenario *sc, long calls)
{
    outcome o = {.path = "-"};
    dropin_adapt_forget();
    for (long i = 1; i <= calls; i++) {
        dropin_call c = {.s = &routine};
        clock_ns += sc->gap ? (uint64_t)(sc->gap(i) * 1e6) : 0;
        int path = dropin_adapt_route(&c, FLOPS);
        clock_ns += (uint64_t)((path ? sc->engine(i) : sc->cpu(i)) * 1e6);
        if (c.adapt) {
            int fails = path && sc->engine_fails && i >= sc->engine_fails;
            c.fell_back = fails;
            dropin_adapt_record(&c, path && !fails);
        }
        o.path[i] = path ? 'e' : 'c';
        if (!path) {
            o.cpu_calls++;
            o.last_cpu = (int)i;
        }
    }
    o.path[calls + 1] = '\0';
    FILE *f = fmemopen(o.report, sizeof o.report - 1, "w");
    dropin_adapt_list(f);
    fclose(f);
    return o;
}

/* calls [from, to] all took path p */
static int all(const outcome *o, int from, int to, char p)
{
    for (int i = from; i <= to; i++)
        if (o->path[i] != p)
            return 0;
    return 1;
}

static double burst_then_fast(long i) { return i <= 8 ? 6.0 : 0.11; }
static double steady_018(long i) { (void)i; return 0.18; }
static double steady_020(long i) { (void)i; return 0.20; }
static double steady_036(long i) { (void)i; return 0.36; }
static double steady_6(long i) { (void)i; return 6.0; }
static double engine_burst(long i) { return i <= 4 ? 6.0 : 0.18; }
static double cpu_slows(long i) { return i <= 30 ? 0.17 : 0.25; }
static double cpu_spell(long i) { return i > 30 && i <= 60 ? 0.40 : 0.12; }
static double cpu_long_spell(long i) { return i > 700 && i <= 900 ? 0.40 : 0.12; }
static double cpu_cold_spike(long i) { return i <= 8 ? 0.30 : i == 25 ? 1.5 : 0.12; }
static double cpu_far_then_spike(long i) { return i <= 8 || i == 26 ? 6.0 : 0.30; }
/* calls in pairs after 1 ms of other work, as in bench_gemm's turns; the CPU BLAS's first call
 * of a pair pays for it */
static double pairs_gap(long i) { return i % 2 ? 1.0 : 0.0; }
static double cpu_cold_first(long i) { return i % 2 ? 0.30 : 0.12; }
static double every_gap(long i) { (void)i; return 1.0; }
static double steady_016(long i) { (void)i; return 0.16; }
static double steady_030(long i) { (void)i; return 0.30; }

static void test_cpu_burst(void)
{
    scenario sc = {burst_then_fast, steady_018, 0, NULL};
    outcome o = run(&sc, 200);
    /* 1-4 engine, 5-8 CPU (6 ms: engine); the 16th call after the decision (24) starts the next
     * measurement, of the CPU alone: 24-27; 0.11 against the engine's 0.18, so the CPU; a change
     * of path: the engine again 16 calls later (43-46), still slower; 0.18 / 0.11 = 1.64, so the
     * next after max(2 * 16, 50 * 4 * 0.64) = 128 calls (174-177) */
    CHECK(all(&o, 1, 4, 'e') && all(&o, 5, 8, 'c') && all(&o, 9, 23, 'e') && all(&o, 24, 42, 'c') &&
              all(&o, 43, 46, 'e') && all(&o, 47, 173, 'c') && all(&o, 174, 177, 'e') && all(&o, 178, 200, 'c'),
          "a burst of the CPU BLAS in the first measurement: measured again after 16 calls, then the "
          "CPU; the engine again 16 and 128 calls later",
          "paths %.200s", o.path + 1);
    /* the engine's timed calls of the last measurement, 175-177 */
    CHECK(strstr(o.report, "engine 0.180 ms, CPU BLAS 0.110 ms (medians of 3 and 12 timed calls in 4 "
                           "measurements) -> CPU BLAS") != NULL,
          "the burst's calls are dropped; the chosen path's own calls are timed", "report: %s", o.report);
}

static void test_engine_burst(void)
{
    scenario sc = {steady_020, engine_burst, 0, NULL};
    outcome o = run(&sc, 130);
    /* 1-4 engine at 6 ms, so the CPU; 24-27 the engine measured again: 0.18 against 0.20, so the
     * engine, a change of path: the CPU measured again (afresh) 16 calls later (43-46), then 32
     * (78-81), then 64 */
    CHECK(all(&o, 5, 23, 'c') && all(&o, 24, 42, 'e') && all(&o, 43, 46, 'c') && all(&o, 47, 77, 'e') &&
              all(&o, 78, 81, 'c') && all(&o, 82, 130, 'e'),
          "a burst of the engine in the first measurement: measured again, then the engine; the CPU "
          "measured again after 16 and 32 calls",
          "paths %.130s", o.path + 1);
    CHECK(strstr(o.report, "engine 0.180 ms, CPU BLAS 0.200 ms (medians of 12 and 3 timed calls in 4 "
                           "measurements) -> engine") != NULL,
          "the engine's burst calls are dropped, and the CPU's older ones at every measurement",
          "report: %s", o.report);
}

static void test_truly_far(void)
{
    scenario sc = {steady_6, steady_018, 0, NULL};
    outcome o = run(&sc, 2000);
    /* measured at 1-8; then the CPU alone from the 16th (24), 64th (89), 256th (346) and 1024th
     * (1371) call after each decision, each time a switch and one timed call (6 ms: 33x the
     * engine's median, the burst goes on); the next after 4096 */
    CHECK(o.cpu_calls == 12 && o.last_cpu == 1372 && all(&o, 24, 25, 'c') && all(&o, 89, 90, 'c') &&
              all(&o, 346, 347, 'c') && all(&o, 1371, 1372, 'c'),
          "a CPU truly 33x slower: measured again 16, 64, 256 and 1024 calls later, one call each time",
          "%d CPU calls, the last at %d", o.cpu_calls, o.last_cpu);
    CHECK(strstr(o.report, "(medians of 12 and 1 timed calls in 5 measurements) -> engine") != NULL,
          "report: five measurements, the slower path's last one alone", "report: %s", o.report);
}

static void test_cold_spike(void)
{
    scenario sc = {cpu_cold_spike, steady_018, 0, NULL};
    outcome o = run(&sc, 60);
    /* 0.30 against 0.18: the engine, not FAR apart; the CPU again at 24-27, its first timed call
     * (25) a spike of 1.5 ms: the measurement goes on (26, 27: 0.12), so the CPU from 28, and
     * the engine 16 calls after that change (43-46) */
    CHECK(all(&o, 9, 23, 'e') && all(&o, 24, 42, 'c') && all(&o, 43, 46, 'e') && all(&o, 47, 60, 'c'),
          "one spike in the re-measurement of a cold first decision: the other calls decide",
          "paths %.60s", o.path + 1);
}

static void test_far_then_spike(void)
{
    scenario sc = {cpu_far_then_spike, steady_018, 0, NULL};
    outcome o = run(&sc, 60);
    /* 6 ms against 0.18: FAR, so the CPU again 16 calls later (24-27); its first timed call (25,
     * 0.30) is not FAR slower, so the measurement goes on through the spike at 26 to 27, and the
     * median of 0.30, 6.0 and 0.30 keeps the engine */
    CHECK(all(&o, 9, 23, 'e') && all(&o, 24, 27, 'c') && all(&o, 28, 60, 'e'),
          "a FAR first decision measured again: a spike after its first timed call does not end it",
          "paths %.60s", o.path + 1);
    CHECK(strstr(o.report, "CPU BLAS 0.300 ms (medians of 12 and 3 timed calls in 2 measurements) -> engine") != NULL,
          "report: the re-measurement's three timed calls, their median", "report: %s", o.report);
}

static void test_apart(void)
{
    scenario sc = {steady_036, steady_018, 0, NULL};
    outcome o = run(&sc, 2000);
    /* the first calls of a class may run cold: measured again 16 calls after (24-27); then after
     * 50 * 4 * (2 - 1) = 200 calls (227-230), 400 (630-633), 800 (1433-1436); the next after 1600 */
    CHECK(o.cpu_calls == 20 && o.last_cpu == 1436 && all(&o, 24, 27, 'c') && all(&o, 227, 230, 'c') &&
              all(&o, 630, 633, 'c') && all(&o, 1433, 1436, 'c') && strstr(o.report, "in 5 measurements) -> engine"),
          "medians 2x apart: measured again after 16, then 200, 400, 800 calls",
          "%d CPU calls, the last at %d; %s", o.cpu_calls, o.last_cpu, o.report);
}

static void test_close(void)
{
    scenario sc = {steady_020, steady_018, 0, NULL};
    outcome o = run(&sc, 2000);
    /* decided at 8, the CPU alone at 24-27, then 59-62, 126-129, 257-260, 516-519, 1031-1034;
     * next at 2058 */
    CHECK(o.cpu_calls == 28 && all(&o, 24, 27, 'c') && all(&o, 59, 62, 'c') && all(&o, 1031, 1034, 'c') &&
              strstr(o.report, "(medians of 12 and 3 timed calls in 7 measurements) -> engine"),
          "medians 10% apart: the other path measured again after 16, then 32, 64, ..., 512 calls",
          "%d CPU calls; %s", o.cpu_calls, o.report);
}

static void test_chosen_slows(void)
{
    scenario sc = {cpu_slows, steady_018, 0, NULL};
    outcome o = run(&sc, 100);
    /* 0.17 against 0.18: the CPU; the engine measured again at 24-27, still the CPU; from call 31
     * it takes 0.25 ms.  Once its last 12 timed calls (29-40) are all since that decision, their
     * median (0.25) is over the engine's 0.18, and the engine is measured again at once (41-44),
     * before the 32 calls the schedule would wait; the CPU again 16 calls after that change of
     * path (60-63), still 0.25 */
    CHECK(all(&o, 9, 23, 'c') && all(&o, 24, 27, 'e') && all(&o, 28, 40, 'c') && all(&o, 41, 59, 'e') &&
              all(&o, 60, 63, 'c') && all(&o, 64, 100, 'e'),
          "the chosen CPU BLAS slows down: its own calls count, and the engine takes over at once",
          "paths %.100s", o.path + 1);
    CHECK(strstr(o.report, "engine 0.180 ms, CPU BLAS 0.250 ms (medians of 12 and 3 timed calls in 4 "
                           "measurements) -> engine") != NULL,
          "the CPU's median is that of its latest calls", "report: %s", o.report);
}

static void test_spell(void)
{
    scenario sc = {cpu_spell, steady_018, 0, NULL};
    outcome o = run(&sc, 300);
    /* the CPU (0.12 against 0.18), measured again at 24-27, kept: next after max(2 * 16, 50 * 4 *
     * 0.5) = 100 calls; but calls 31-60 take 0.40: from call 40 the CPU's last 12 say so and the
     * engine is measured (41-44) and chosen; the CPU again 16 calls later (60-63: 60 is a switch,
     * 61-63 0.12), chosen again; the engine 16 calls later (79-82), slower: the CPU kept, and the
     * doubling goes on from the last decision that kept it: 200 calls (282-285) */
    CHECK(all(&o, 28, 40, 'c') && all(&o, 41, 59, 'e') && all(&o, 60, 78, 'c') && all(&o, 79, 82, 'e') &&
              all(&o, 83, 281, 'c') && all(&o, 282, 285, 'e') && all(&o, 286, 300, 'c'),
          "a spell of the chosen CPU BLAS: the engine while it lasts, the CPU BLAS after, and the "
          "schedule where it was",
          "paths %.300s", o.path + 1);
    CHECK(strstr(o.report, "engine 0.180 ms, CPU BLAS 0.120 ms (medians of 3 and 12 timed calls in 6 "
                           "measurements) -> CPU BLAS") != NULL,
          "the spell's calls have left the CPU's median", "report: %s", o.report);
}

static void test_long_spell(void)
{
    scenario sc = {cpu_long_spell, steady_018, 0, NULL};
    outcome o = run(&sc, 1300);
    /* the CPU; the engine measured again after 16, 100, 200 calls (24-27, 127-130, 330-333), the
     * next due after 400; calls 701-900 take 0.40: from call 707 the CPU's last 12 say so, the
     * engine is measured (707-710) and chosen; the CPU 16 calls later (726-729), still 0.40: the
     * engine kept, and the CPU again after max(2 * 16, 50 * 4 * (0.40 / 0.18 - 1)) = 245 calls
     * (974-977), not after 2 * 400: back on the CPU; the engine 16 calls later (993-996), slower,
     * then after 100 (1096-1099) and 200 (1299-) */
    CHECK(all(&o, 24, 27, 'e') && all(&o, 127, 130, 'e') && all(&o, 330, 333, 'e') && all(&o, 334, 706, 'c') &&
              all(&o, 707, 725, 'e') && all(&o, 726, 729, 'c') && all(&o, 730, 973, 'e') && all(&o, 974, 992, 'c') &&
              all(&o, 993, 996, 'e') && all(&o, 997, 1095, 'c') && all(&o, 1096, 1099, 'e') && all(&o, 1100, 1298, 'c'),
          "a long spell of the chosen CPU BLAS: the engine kept, the CPU measured again 245 calls later, "
          "not after the 800 it had earned",
          "paths from 700: %.320s", o.path + 700);
}

static void test_fell_back(void)
{
    scenario sc = {steady_6, steady_018, 1, NULL};
    outcome o = run(&sc, 500);
    CHECK(all(&o, 5, 500, 'c') && strstr(o.report, "(fell back)") &&
              strstr(o.report, "in 1 measurement) -> CPU BLAS"),
          "an engine that fell back: the CPU BLAS, never measured again", "paths %.40s...; %s",
          o.path + 1, o.report);
    sc = (scenario){steady_6, steady_018, 20, NULL};
    o = run(&sc, 500);
    CHECK(all(&o, 9, 20, 'e') && all(&o, 21, 500, 'c') && strstr(o.report, "(fell back)"),
          "an engine that falls back after the measurement: the CPU BLAS from the next call, for good",
          "paths %.40s...; %s", o.path + 1, o.report);
}

static void test_gaps(void)
{
    scenario sc = {cpu_cold_first, steady_016, 0, pairs_gap};
    outcome o = run(&sc, 200);
    /* the calls after a gap are not timed: the engine's run is 1-6 (2, 4, 6 timed), the CPU's 7-12
     * (8, 10, 12: 0.12 ms), so the CPU; the engine again at 28-34 (30, 32, 34), and 0.12 against
     * 0.16: the CPU; the engine again after max(2 * 16, 50 * 4 * 0.33) = 67 calls (101-106) */
    CHECK(all(&o, 1, 6, 'e') && all(&o, 7, 27, 'c') && all(&o, 28, 34, 'e') && all(&o, 35, 100, 'c') &&
              all(&o, 101, 106, 'e') && all(&o, 107, 200, 'c') &&
              strstr(o.report, "engine 0.160 ms, CPU BLAS 0.120 ms (medians of 3 and 12 timed calls in 3 "
                               "measurements) -> CPU BLAS"),
          "calls after a gap are not timed: the CPU BLAS's back-to-back calls decide",
          "paths %.40s...; %s", o.path + 1, o.report);
    sc = (scenario){steady_030, steady_016, 0, every_gap};
    o = run(&sc, 200);
    /* every call after a gap (the first too): from the third of them in a row they are timed (3, 4,
     * 5), then the CPU's run: 6 untimed (a switch), 7-9 timed; the CPU again at 25-28 */
    CHECK(all(&o, 1, 5, 'e') && all(&o, 6, 9, 'c') && all(&o, 10, 24, 'e') && all(&o, 25, 28, 'c') &&
              all(&o, 29, 200, 'e') &&
              strstr(o.report, "engine 0.160 ms, CPU BLAS 0.300 ms (medians of 12 and 3 timed calls in 2 "
                               "measurements) -> engine"),
          "calls that always come after a gap are timed all the same",
          "paths %.40s...; %s", o.path + 1, o.report);
}

int main(void)
{
    ck_begin("test_adapt", 60);
    unsetenv("CUFORT_DROPIN_RECHECK");
    test_cpu_burst();
    test_engine_burst();
    test_truly_far();
    test_cold_spike();
    test_far_then_spike();
    test_apart();
    test_close();
    test_chosen_slows();
    test_spell();
    test_long_spell();
    test_fell_back();
    test_gaps();
    return ck_end();
}
