/* test_adapt.c — the drop-in's measured routing near the threshold (c_wrappers/dropin/adapt.c) on a
 * simulated clock: adapt.o is linked in directly and dropin_now_ns is this file's, so every call
 * takes exactly the time a scenario gives its path.  That makes the policy itself checkable, call
 * by call, whatever the machine: test_dropin checks it on the real paths, where which one wins is
 * the machine's business.
 *
 * Scenarios (one size class each, the table forgotten in between):
 *   a CPU burst during the first measurement, then the CPU faster: measured again, the CPU wins;
 *   the same burst on the engine; a CPU truly FAR slower: three more measurements, then never;
 *   medians 2x apart: decided once; medians within CLOSE: measured again at doubling intervals;
 *   an engine that fell back: never again, whatever the margin. */
#include "check.h"
#include "dropin.h"

static uint64_t clock_ns;
uint64_t dropin_now_ns(void) { return clock_ns; }

static dropin_stats routine = {.name = "zgemm", .gpu_capable = 1};
enum { FLOPS = 17000000 };   /* zgemm n = 128 */

/* the times (ms) of call i (from 1) on the CPU BLAS and on the engine */
typedef struct {
    double (*cpu)(long i);
    double (*engine)(long i);
    int engine_fails;
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
        int path = dropin_adapt_route(&c, FLOPS);
        if (c.adapt) {
            clock_ns += (uint64_t)((path ? sc->engine(i) : sc->cpu(i)) * 1e6);
            c.fell_back = path && sc->engine_fails;
            dropin_adapt_record(&c, path && !sc->engine_fails);
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

static void test_cpu_burst(void)
{
    scenario sc = {burst_then_fast, steady_018, 0};
    outcome o = run(&sc, 200);
    /* 1-4 engine, 5-8 CPU (6 ms: engine); the 16th call after the decision (24) starts the next
     * measurement, 24-27 engine, 28-31 CPU; then the CPU */
    CHECK(all(&o, 1, 4, 'e') && all(&o, 5, 8, 'c') && all(&o, 9, 27, 'e') && all(&o, 28, 31, 'c') &&
              all(&o, 32, 200, 'c'),
          "a burst of the CPU BLAS in the first measurement: measured again after 16 calls, then the CPU",
          "paths %.40s...", o.path + 1);
    CHECK(strstr(o.report, "engine 0.180 ms, CPU BLAS 0.110 ms (medians of 6 and 3 timed calls in 2 "
                           "measurements) -> CPU BLAS") != NULL,
          "the burst's calls are dropped: the CPU's median is its new calls' alone", "report: %s", o.report);
}

static void test_engine_burst(void)
{
    scenario sc = {steady_020, engine_burst, 0};
    outcome o = run(&sc, 60);
    /* 1-4 engine at 6 ms, so the CPU; 24-31 measured again: 0.18 against 0.20, within CLOSE */
    CHECK(all(&o, 5, 23, 'c') && all(&o, 24, 27, 'e') && all(&o, 28, 31, 'c') && all(&o, 32, 60, 'e'),
          "a burst of the engine in the first measurement: measured again, then the engine",
          "paths %.60s", o.path + 1);
    CHECK(strstr(o.report, "engine 0.180 ms, CPU BLAS 0.200 ms (medians of 3 and 6 timed calls in 2 "
                           "measurements) -> engine") != NULL,
          "the engine's burst calls are dropped, the CPU's pooled", "report: %s", o.report);
}

static void test_truly_far(void)
{
    scenario sc = {steady_6, steady_018, 0};
    outcome o = run(&sc, 2000);
    /* measured at 1-8, then from the 16th (24-31), 64th (95-102) and 256th (358-365) call after */
    CHECK(o.cpu_calls == 16 && o.last_cpu == 365 && all(&o, 28, 31, 'c') && all(&o, 99, 102, 'c') &&
              all(&o, 362, 365, 'c'),
          "a CPU truly 33x slower: measured three more times (16, 64, 256 calls later), then never",
          "%d CPU calls, the last at %d", o.cpu_calls, o.last_cpu);
    CHECK(strstr(o.report, "(medians of 12 and 3 timed calls in 4 measurements) -> engine") != NULL,
          "report: four measurements, the slower path's last one alone", "report: %s", o.report);
}

static void test_apart(void)
{
    scenario sc = {steady_036, steady_018, 0};
    outcome o = run(&sc, 2000);
    CHECK(o.cpu_calls == 4 && o.last_cpu == 8 && strstr(o.report, "in 1 measurement) -> engine"),
          "medians 2x apart (between CLOSE and FAR): decided once", "%d CPU calls, the last at %d; %s",
          o.cpu_calls, o.last_cpu, o.report);
}

static void test_close(void)
{
    scenario sc = {steady_020, steady_018, 0};
    outcome o = run(&sc, 2000);
    /* 8 + (15+8) + (31+8) + ... + (511+8) = 1058 calls make 7 measurements; the 8th ends at 2089 */
    CHECK(o.cpu_calls == 28 && strstr(o.report, "(medians of 12 and 12 timed calls in 7 measurements) -> engine"),
          "medians within CLOSE: measured again after 16, 32, ..., 512 calls", "%d CPU calls; %s",
          o.cpu_calls, o.report);
}

static void test_fell_back(void)
{
    scenario sc = {steady_6, steady_018, 1};
    outcome o = run(&sc, 500);
    CHECK(all(&o, 5, 500, 'c') && strstr(o.report, "(fell back)") &&
              strstr(o.report, "in 1 measurement) -> CPU BLAS"),
          "an engine that fell back: the CPU BLAS, never measured again", "paths %.40s...; %s",
          o.path + 1, o.report);
}

int main(void)
{
    ck_begin("test_adapt", 60);
    unsetenv("CUFORT_DROPIN_RECHECK");
    test_cpu_burst();
    test_engine_burst();
    test_truly_far();
    test_apart();
    test_close();
    test_fell_back();
    return ck_end();
}
