/* fuzz_main.c — fuzz_capi: the seeded random-argument driver over the cufort C ABI.
 *
 *   fuzz_capi                          make check's run: the regression cases, then a slice of calls
 *                                      on one thread and a smaller one on three (CUFORT_FUZZ_SEED,
 *                                      CUFORT_FUZZ_CALLS set the seed and the one-thread count)
 *   fuzz_capi --seed S --calls N [--threads T] [--first I] [--segment L] [--timeout SEC]
 *                                      N calls made (T threads: N each), from call index I
 *   fuzz_capi --seed S --replay I [--thread T] [-v]
 *                                      replays call I (in this process, so a debugger sees it):
 *                                      its segment's calls from the start, printing call I
 *   fuzz_capi --line 'CALL' ...        runs calls written as lines (as printed by a failure)
 *   fuzz_capi --cases FILE             runs the cases of a regression file (default: the built-in
 *                                      copy of tests/fuzz/regressions.txt)
 *   --avoid-known[=LIST] / --no-avoid  skip calls that hit the known defects named (default: the list
 *                                      in fuzz_known.c; CUFORT_FUZZ_AVOID overrides it)
 *   --work-cap OPS --host-cap BYTES    the rule for legal calls too large to be cheap (skipped)
 *
 * Calls run in a child process watched by this one: a crash or a sanitizer's report ends the child
 * and is reported with the call in flight, a call running past --timeout seconds is a hang (the
 * child is killed); either way the run goes on from the next segment.  Every L calls (a segment)
 * the worker's state is reset (everything it made destroyed; with one thread cufort is shut down
 * and initialised again), so call I depends only on the calls of its own segment and replays alone.
 * Skipped calls (legal but too large) and avoided ones (known defects) do not count as calls made.
 *
 * Output: FAIL lines for crashes, hangs and wrong answers (with the call and how to replay it), one
 * summary line per run ("fuzz: N calls, seed S, C crashes, H hangs, F failures, ..."), and last
 * "N passed, M failed" as tests/run_tests.sh expects. */
#include "fuzz.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

typedef struct {
    volatile int64_t next_index;         /* where a restarted worker process goes on */
    volatile int64_t made;               /* calls made, all threads */
    fz_shared_thread thread[MAX_THREADS];
} shared_state;

static shared_state *shared;
static double timeout_s = 20;
static int passed, failed;

/* Under AddressSanitizer: an allocation too large for any memory is a failure cufort reports, not
 * an error of the sanitizer's. */
const char *__asan_default_options(void) __attribute__((used));
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void setup_ops(void)
{
    fz_blas_ops();
    fz_fft_ops();
    fz_memory_ops();
    fz_stream_ops();
    fz_context_ops();
}

static int64_t made_by(int threads)
{
    int64_t n = 0;
    for (int t = 0; t < threads; t++)
        n += shared->thread[t].calls;
    return n;
}

/* ---- the worker process ---- */

typedef struct {
    fz_worker w;
    int64_t from, quota;   /* first index of the segment; calls this thread still has to make */
    pthread_t tid;
} thread_job;

static void publish_reset(fz_worker *w, int64_t index)
{
    snprintf(w->shared->text, sizeof w->shared->text, "(start of the segment at call %lld: state reset)",
             (long long)index);
    w->shared->started_ns = now_ns();
    __atomic_store_n(&w->shared->index, index, __ATOMIC_SEQ_CST);
}

/* one segment of one thread: reset, then its calls until the segment ends or its quota is made */
static void *run_segment(void *arg)
{
    thread_job *j = arg;
    fz_worker *w = &j->w;
    fz_worker_init(w, w->id, w->shared);
    publish_reset(w, j->from);
    fz_reset_worker(w, fz_threads == 1);
    __atomic_store_n(&w->shared->index, -1, __ATOMIC_SEQ_CST);
    for (int64_t i = j->from; i < j->from + fz_cfg.segment && w->shared->calls < j->quota; i++) {
        fz_rng r = fz_rng_for(fz_cfg.seed, w->id, i);
        fz_call c;
        w->index = i;
        snprintf(w->shared->text, sizeof w->shared->text, "(drawing the call's arguments)");
        __atomic_store_n(&w->shared->index, i, __ATOMIC_SEQ_CST);
        fz_draw_call(w, &r, &c);
        fz_run_call(w, &c);
    }
    publish_reset(w, j->from + fz_cfg.segment);
    fz_worker_finish(w);
    __atomic_store_n(&w->shared->index, -1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void worker_process(int64_t quota_per_thread)
{
    static thread_job jobs[MAX_THREADS];
    cufort_init();
    for (;;) {
        int64_t from = shared->next_index;
        int busy = 0;
        for (int t = 0; t < fz_threads; t++)
            busy |= shared->thread[t].calls < quota_per_thread;
        if (!busy)
            break;
        for (int t = 0; t < fz_threads; t++) {
            jobs[t].w.id = t;
            jobs[t].w.shared = &shared->thread[t];
            jobs[t].from = from;
            jobs[t].quota = quota_per_thread;
        }
        if (fz_threads == 1) {
            run_segment(&jobs[0]);
        } else {   /* fresh threads every segment: their per-thread state comes and goes */
            for (int t = 0; t < fz_threads; t++)
                pthread_create(&jobs[t].tid, NULL, run_segment, &jobs[t]);
            for (int t = 0; t < fz_threads; t++)
                pthread_join(jobs[t].tid, NULL);
        }
        shared->next_index = from + fz_cfg.segment;
    }
    cufort_shutdown();
    fflush(stdout);
    exit(0);
}

/* ---- the supervisor ---- */

static const char *signal_name(int sig)
{
    const char *s = sigdescr_np(sig);
    return s ? s : "unknown signal";
}

/* runs body in a child process, watching for crashes and hangs; returns 0 when it finished */
static int watched(void (*body)(void *), void *arg, int threads, const char *what, int slice, int *crashes,
                   int *hangs)
{
    fflush(stdout);
    for (int t = 0; t < threads; t++)
        shared->thread[t].index = -1;
    pid_t pid = fork();
    if (pid < 0) {
        perror("fuzz_capi: fork");
        exit(2);
    }
    if (pid == 0) {
        body(arg);
        exit(0);
    }
    int status = 0, hung = -1;
    for (;;) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            break;
        if (got < 0 && errno != EINTR) {
            perror("fuzz_capi: waitpid");
            exit(2);
        }
        int64_t now = now_ns();
        for (int t = 0; t < threads && hung < 0; t++) {
            fz_shared_thread *sh = &shared->thread[t];
            if (__atomic_load_n(&sh->index, __ATOMIC_SEQ_CST) != -1 &&
                (double)(now - sh->started_ns) > timeout_s * 1e9)
                hung = t;
        }
        if (hung >= 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    if (hung < 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (hung >= 0) {
        (*hangs)++;
        printf("FAIL fuzz %s: hang: a call ran longer than %.0f s\n", what, timeout_s);
    } else {
        (*crashes)++;
        if (WIFSIGNALED(status))
            printf("FAIL fuzz %s: crash: killed by signal %d (%s)\n", what, WTERMSIG(status),
                   signal_name(WTERMSIG(status)));
        else
            printf("FAIL fuzz %s: crash: exited with status %d, a sanitizer's report above\n", what,
                   WEXITSTATUS(status));
    }
    int any = 0;
    for (int t = 0; t < threads; t++) {
        fz_shared_thread *sh = &shared->thread[t];
        if (sh->index == -1)
            continue;
        any = 1;
        printf("    thread %d, call %lld in flight: %s\n", t, (long long)sh->index, sh->text);
        if (slice && threads > 1)
            printf("    replay: fuzz_capi --seed %llu --replay %lld --threads %d --thread %d (alone: a race may "
                   "not recur)\n", (unsigned long long)fz_cfg.seed, (long long)sh->index, threads, t);
        else if (slice)
            printf("    replay: fuzz_capi --seed %llu --replay %lld\n", (unsigned long long)fz_cfg.seed,
                   (long long)sh->index);
    }
    if (!any)
        printf("    no call in flight (at exit: e.g. a leak found when the process ended)\n");
    fflush(stdout);
    return 1;
}

static void slice_body(void *arg) { worker_process(*(int64_t *)arg); }

/* one run of seed/threads/calls; returns the number of problems */
static int run_slice(int64_t calls_per_thread)
{
    memset(shared, 0, sizeof *shared);
    shared->next_index = fz_cfg.first;
    int crashes = 0, hangs = 0;
    int64_t t0 = now_ns();
    char what[64];
    snprintf(what, sizeof what, "seed %llu", (unsigned long long)fz_cfg.seed);
    while (watched(slice_body, &calls_per_thread, fz_threads, what, 1, &crashes, &hangs)) {
        /* the worker died: go on after the segment it was in */
        int64_t seg_start = shared->next_index;
        shared->next_index = seg_start + fz_cfg.segment;
        if (crashes + hangs >= 20) {
            printf("fuzz: stopping after %d crashes and hangs\n", crashes + hangs);
            break;
        }
    }
    int64_t made = made_by(fz_threads), skipped = 0, avoided = 0, failures = 0;
    for (int t = 0; t < fz_threads; t++) {
        skipped += shared->thread[t].skipped;
        avoided += shared->thread[t].avoided;
        failures += shared->thread[t].failures;
    }
    int problems = crashes + hangs + (int)(failures > 0 ? failures : 0);
    printf("fuzz: %lld calls, seed %llu, %d crashes, %d hangs, %lld failures (%d thread%s, calls %lld.., "
           "%lld skipped as too large, %lld avoided as known defects, %.1f s)\n",
           (long long)made, (unsigned long long)fz_cfg.seed, crashes, hangs, (long long)failures, fz_threads,
           fz_threads > 1 ? "s" : "", (long long)fz_cfg.first, (long long)skipped, (long long)avoided,
           (double)(now_ns() - t0) / 1e9);
    return problems;
}

/* ---- regression cases ---- */

static const char builtin_cases[] =
#include "regressions.inc"
    ;

typedef struct {
    const char *name;
    char lines[64][4096];
    int nlines;
    unsigned known;   /* the defects this case shows */
} test_case;

static void case_body(void *arg)
{
    test_case *tc = arg;
    fz_worker w;
    fz_threads = 1;
    fz_cfg.case_name = tc->name;
    fz_worker_init(&w, 0, &shared->thread[0]);
    cufort_init();
    for (int i = 0; i < tc->nlines; i++) {
        fz_call c;
        char err[256];
        if (fz_parse(tc->lines[i], &c, err, sizeof err)) {
            printf("FAIL regression %s: line %d: %s\n", tc->name, i + 1, err);
            shared->thread[0].failures++;
            continue;
        }
        w.index = i;
        fz_run_call(&w, &c);
    }
    fz_worker_finish(&w);
    cufort_shutdown();
    exit(0);
}

static void run_case(test_case *tc)
{
    if (tc->known & fz_avoid) {
        for (int k = 0; k < FZ_K_COUNT; k++)
            if ((tc->known >> k) & fz_avoid & 1u)
                printf("skip regression %s: known defect %s is avoided\n", tc->name, fz_known_name(k));
        return;
    }
    memset(shared, 0, sizeof *shared);
    int crashes = 0, hangs = 0;
    char what[300];
    snprintf(what, sizeof what, "regression %s", tc->name);
    int died = watched(case_body, tc, 1, what, 0, &crashes, &hangs);
    fz_shared_thread *sh = &shared->thread[0];
    if (died || sh->failures) {
        failed++;
        if (!died)
            printf("FAIL regression %s: %lld wrong answers (above)\n", tc->name, (long long)sh->failures);
    } else if (sh->avoided) {
        printf("skip regression %s: a call hit a known defect that is avoided (tag the case known=...)\n",
               tc->name);
    } else {
        passed++;
        printf("ok regression %s\n", tc->name);
    }
}

/* Cases: "case NAME [known=DEFECT,...]" then its calls, one per line, until the next case; '#'
 * starts a comment line. */
static void run_cases(const char *text)
{
    static test_case tc;
    static char name[256];
    const char *p = text;
    int have = 0;
    while (*p || have) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[4096];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        p += len + (nl ? 1 : 0);
        int end = !*p && !nl;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncmp(s, "case ", 5) == 0 || (end && !*s)) {
            if (have)
                run_case(&tc);
            have = 0;
            if (strncmp(s, "case ", 5) == 0) {
                memset(&tc, 0, sizeof tc);
                char *known = strstr(s, "known=");
                if (known) {
                    if (fz_parse_avoid(known + 6, &tc.known))
                        exit(2);
                    *known = 0;
                }
                sscanf(s + 5, "%255s", name);
                tc.name = name;
                have = 1;
            }
            if (end)
                break;
            continue;
        }
        if (!*s || *s == '#')
            continue;
        if (have && tc.nlines < 64)
            snprintf(tc.lines[tc.nlines++], sizeof tc.lines[0], "%s", s);
    }
}

/* ---- one call line, or the replay of an index ---- */

static int run_lines(char **lines, int n)
{
    fz_worker w;
    fz_worker_init(&w, 0, &shared->thread[0]);
    fz_cfg.verbose = 1;
    cufort_init();
    for (int i = 0; i < n; i++) {
        fz_call c;
        char err[256];
        if (fz_parse(lines[i], &c, err, sizeof err)) {
            fprintf(stderr, "fuzz_capi: %s\n", err);
            return 2;
        }
        w.index = i;
        fz_run_call(&w, &c);
    }
    fz_worker_finish(&w);
    cufort_shutdown();
    int64_t f = shared->thread[0].failures;
    printf("%d passed, %lld failed\n", f ? 0 : 1, (long long)f);
    return f ? 1 : 0;
}

static int replay(int64_t index, int thread, int verbose)
{
    fz_worker w;
    fz_worker_init(&w, thread, &shared->thread[0]);
    cufort_init();
    int64_t from = fz_cfg.first + (index - fz_cfg.first) / fz_cfg.segment * fz_cfg.segment;
    fz_reset_worker(&w, fz_threads == 1);
    for (int64_t i = from; i <= index; i++) {
        fz_rng r = fz_rng_for(fz_cfg.seed, thread, i);
        fz_call c;
        w.index = i;
        fz_draw_call(&w, &r, &c);
        fz_cfg.verbose = verbose || i == index;
        fz_run_call(&w, &c);
    }
    fz_worker_finish(&w);
    cufort_shutdown();
    int64_t f = shared->thread[0].failures;
    printf("%d passed, %lld failed\n", f ? 0 : 1, (long long)f);
    return f ? 1 : 0;
}

/* ---- options ---- */

static void usage(void)
{
    fprintf(stderr, "usage: fuzz_capi [--seed S] [--calls N] [--threads T] [--first I] [--segment L]\n"
                    "                 [--timeout SEC] [--avoid-known[=LIST] | --no-avoid]\n"
                    "                 [--work-cap OPS] [--host-cap BYTES] [--replay I [--thread T]] [-v]\n"
                    "                 [--line CALL ...] [--cases FILE] [--list-ops]\n");
    exit(2);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* tiny calls by the million: the CPU BLAS's own threads would only spin (unless asked for) */
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    setup_ops();
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        perror("fuzz_capi: mmap");
        return 2;
    }
    const char *env_avoid = getenv("CUFORT_FUZZ_AVOID");
    if (fz_parse_avoid(env_avoid ? env_avoid : fz_default_avoid, &fz_avoid))
        return 2;
    fz_cfg = (fz_config){.seed = 1, .segment = 4096, .threads = 1, .work_cap = 1 << 22, .host_cap = 1 << 20};
    int64_t calls = -1, replay_index = -1;
    int replay_thread = 0, verbose = 0, list = 0;
    const char *cases = NULL;
    char *lines[64];
    int nlines = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define VALUE (v ? (i++, v) : (usage(), ""))
        if (strcmp(a, "--seed") == 0)
            fz_cfg.seed = strtoull(VALUE, NULL, 0);
        else if (strcmp(a, "--calls") == 0)
            calls = strtoll(VALUE, NULL, 0);
        else if (strcmp(a, "--threads") == 0)
            fz_cfg.threads = atoi(VALUE);
        else if (strcmp(a, "--first") == 0)
            fz_cfg.first = strtoll(VALUE, NULL, 0);
        else if (strcmp(a, "--segment") == 0)
            fz_cfg.segment = strtoll(VALUE, NULL, 0);
        else if (strcmp(a, "--timeout") == 0)
            timeout_s = atof(VALUE);
        else if (strcmp(a, "--work-cap") == 0)
            fz_cfg.work_cap = atof(VALUE);
        else if (strcmp(a, "--host-cap") == 0)
            fz_cfg.host_cap = strtoll(VALUE, NULL, 0);
        else if (strcmp(a, "--replay") == 0) {
            const char *x = VALUE, *colon = strchr(x, ':');
            if (colon) {   /* S:I */
                fz_cfg.seed = strtoull(x, NULL, 0);
                x = colon + 1;
            }
            replay_index = strtoll(x, NULL, 0);
        } else if (strcmp(a, "--thread") == 0)
            replay_thread = atoi(VALUE);
        else if (strcmp(a, "--line") == 0 && nlines < 64)
            lines[nlines++] = (char *)VALUE;
        else if (strcmp(a, "--cases") == 0)
            cases = VALUE;
        else if (strcmp(a, "--avoid-known") == 0)
            fz_avoid = (1u << FZ_K_COUNT) - 1;
        else if (strncmp(a, "--avoid-known=", 14) == 0) {
            if (fz_parse_avoid(a + 14, &fz_avoid))
                return 2;
        } else if (strcmp(a, "--no-avoid") == 0)
            fz_avoid = 0;
        else if (strcmp(a, "-v") == 0)
            verbose = 1;
        else if (strcmp(a, "--list-ops") == 0)
            list = 1;
        else
            usage();
#undef VALUE
    }
    if (fz_cfg.threads < 1 || fz_cfg.threads > MAX_THREADS || fz_cfg.segment < 1)
        usage();
    fz_threads = fz_cfg.threads;
    if (list) {
        for (int i = 0; i < fz_op_count; i++)
            if (i == 0 || strcmp(fz_ops[i].name, fz_ops[i - 1].name) != 0)
                printf("%s\n", fz_ops[i].name);
        return 0;
    }
    if (fz_avoid) {
        printf("fuzz: avoiding known defects:");
        for (int k = 0; k < FZ_K_COUNT; k++)
            if ((fz_avoid >> k) & 1u)
                printf(" %s", fz_known_name(k));
        printf("\n");
    }
    if (nlines) {
        fz_threads = 1;
        return run_lines(lines, nlines);
    }
    if (replay_index >= 0) {
        if (replay_thread > 0 && fz_threads == 1)
            fz_threads = fz_cfg.threads = 2;   /* a thread of a threaded run: no shutdown per segment */
        return replay(replay_index, replay_thread, verbose);
    }
    if (cases) {
        fz_threads = 1;
        run_cases(read_file(cases));
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    if (calls >= 0) {   /* one run as asked */
        int problems = run_slice(fz_threads > 1 ? calls / fz_threads : calls);
        passed += !problems;
        failed += problems;
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    /* make check: the regression cases, then a slice on one thread and one on three */
    const char *env_seed = getenv("CUFORT_FUZZ_SEED"), *env_calls = getenv("CUFORT_FUZZ_CALLS");
    fz_cfg.seed = env_seed ? strtoull(env_seed, NULL, 0) : 20261124;
    int64_t slice = env_calls ? strtoll(env_calls, NULL, 0) : 150000;
    fz_threads = 1;
    run_cases(builtin_cases);
    for (int t = 1; t <= 3; t += 2) {
        fz_threads = fz_cfg.threads = t;
        fz_cfg.segment = t == 1 ? 4096 : 512;
        int problems = run_slice(t == 1 ? slice : slice / 5);
        if (problems)
            failed += problems;
        else
            passed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
