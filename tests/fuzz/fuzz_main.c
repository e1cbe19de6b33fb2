/* fuzz_main.c — fuzz_capi: the seeded random-argument driver over the cufort C ABI.
 *
 *   fuzz_capi                          make check's run: the regression cases, then a slice of calls
 *                                      on one thread and a smaller one on three (CUFORT_FUZZ_SEED,
 *                                      CUFORT_FUZZ_CALLS set the seed and the one-thread count), and
 *                                      two on the host backend with its guard pages (guarded_slice)
 *   fuzz_capi --seed S --calls N [--threads T] [--first I] [--segment L] [--timeout SEC]
 *                                      N calls made in all (T threads: N/T each), from call index I
 *   fuzz_capi --seed S --replay I [--threads T --thread K] [--first I0] [--segment L] [-v]
 *                                      replays call I (of thread K of a T-thread run) in this
 *                                      process, so a debugger sees it: its segment's calls from
 *                                      the start, printing call I (--replay S:I names the seed too)
 *   fuzz_capi --line 'CALL' ...        runs calls written as lines (as printed by a failure)
 *   fuzz_capi --cases FILE             runs the cases of a regression file (default: the built-in
 *                                      copy of tests/fuzz/regressions.txt)
 *   --avoid-known[=LIST] / --no-avoid  skip calls that hit the known defects named (default: the list
 *                                      in fuzz_known.c; CUFORT_FUZZ_AVOID overrides it)
 *   --work-cap OPS --host-cap BYTES    the rule for legal calls too large to be cheap (skipped)
 *
 * Calls run in a watched child process (fuzz_watch.c), in segments of L calls that each start from
 * a reset state, so that call I replays from its segment's start; regression cases: fuzz_cases.c.
 * Skipped calls (legal but too large) and avoided ones (known defects) do not count as calls made.
 *
 * Output: FAIL lines for crashes, hangs and wrong answers (with the call and how to replay it), one
 * summary line per run ("fuzz: N calls, seed S, C crashes, H hangs, F failures, ..."), and last
 * "N passed, M failed" as tests/run_tests.sh expects. */
#include "fuzz.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed;

/* Under AddressSanitizer or ThreadSanitizer: an allocation too large for any memory is a failure
 * cufort reports, not an error of the sanitizer's. */
const char *__asan_default_options(void) __attribute__((used));
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
const char *__tsan_default_options(void) __attribute__((used));
const char *__tsan_default_options(void) { return "allocator_may_return_null=1"; }

static void setup_ops(void)
{
    fz_blas_ops();
    fz_kernel_ops();
    fz_fft_ops();
    fz_memory_ops();
    fz_stream_ops();
    fz_context_ops();
}

/* ---- one call line, or the replay of an index ---- */

static int run_lines(char **lines, int n)
{
    fz_worker w;
    fz_worker_init(&w, 0, &fz_shared->thread[0]);
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
    int64_t f = fz_shared->thread[0].failures;
    printf("%d passed, %lld failed\n", f ? 0 : 1, (long long)f);
    return f ? 1 : 0;
}

static int replay(int64_t index, int thread, int verbose)
{
    fz_worker w;
    fz_worker_init(&w, thread, &fz_shared->thread[0]);
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
    int64_t f = fz_shared->thread[0].failures;
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

/* A slice of `calls` on the host backend with every device block and every host array flush
 * against an inaccessible page on `side` (CUFORT_HOST_GUARD_PAGES, CUFORT_FUZZ_GUARD_HOST): a read
 * past a vector by code no sanitizer sees, such as the CPU BLAS, crashes there.  This program again, so that the variable holds from the first
 * allocation; its summary line is left out of this run's.  Returns its problems (0 or 1). */
static int guarded_slice(const char *side, unsigned long long seed, int64_t calls)
{
    char s_seed[32], s_calls[32];
    snprintf(s_seed, sizeof s_seed, "%llu", seed);
    snprintf(s_calls, sizeof s_calls, "%lld", (long long)calls);
    printf("# fuzz: %lld calls on the host backend, arrays flush against a guard page %s them\n",
           (long long)calls, side);
    fflush(stdout);
    int fd[2];
    if (pipe(fd) != 0) {
        printf("FAIL fuzz: no pipe for the guarded slice (%s)\n", side);
        return 1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        setenv("CUFORT_BACKEND", "host", 1);
        setenv("CUFORT_HOST_GUARD_PAGES", side, 1);
        setenv("CUFORT_FUZZ_GUARD_HOST", side, 1);
        execl("/proc/self/exe", "fuzz_capi", "--seed", s_seed, "--calls", s_calls, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    char line[4096];
    long long p, f;
    char tail;
    while (in && fgets(line, sizeof line, in))
        if (sscanf(line, "%lld passed, %lld failed%c", &p, &f, &tail) != 3 || tail != '\n')
            fputs(line, stdout);
    if (in)
        fclose(in);
    int ws = 0;
    if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        printf("FAIL fuzz: the guarded slice (%s) ended with status %#x\n", side, ws);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* tiny calls by the million: the CPU BLAS's own threads would only spin (unless asked for) */
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    /* the fuzzer's arrays are small, and small Level-3 calls take the generic thunk path (which
     * every other _host routine fuzzes): the Level-3 pipelines are fuzzed instead, unless asked */
    setenv("CUFORT_L3_WHOLE_BYTES", "0", 0);
    setup_ops();
    fz_shared_setup();
    const char *env_avoid = getenv("CUFORT_FUZZ_AVOID");
    if (fz_parse_avoid(env_avoid ? env_avoid : fz_default_avoid, &fz_avoid))
        return 2;
    fz_cfg = (fz_config){.seed = 1, .segment = FZ_SEGMENT, .threads = 1, .work_cap = 1 << 22, .host_cap = 1 << 20};
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
            fz_timeout_s = atof(VALUE);
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
    if (fz_cfg.threads < 1 || fz_cfg.threads > FZ_MAX_THREADS || fz_cfg.segment < 1)
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
        fz_run_cases(read_file(cases), &passed, &failed);
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    if (calls >= 0) {   /* one run as asked */
        int problems = fz_run_slice(fz_threads > 1 ? calls / fz_threads : calls);
        passed += !problems;
        failed += problems;
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    /* make check: the regression cases, a slice on one thread and one on three, two guarded */
    const char *env_seed = getenv("CUFORT_FUZZ_SEED"), *env_calls = getenv("CUFORT_FUZZ_CALLS");
    fz_cfg.seed = env_seed ? strtoull(env_seed, NULL, 0) : 20261124;
    int64_t slice = env_calls ? strtoll(env_calls, NULL, 0) : 150000;
    fz_threads = 1;
    fz_run_cases(fz_builtin_cases, &passed, &failed);
    for (int t = 1; t <= 3; t += 2) {
        fz_threads = fz_cfg.threads = t;
        fz_cfg.segment = t == 1 ? FZ_SEGMENT : 512;
        int problems = fz_run_slice(t == 1 ? slice : slice / 5);
        if (problems)
            failed += problems;
        else
            passed++;
    }
    for (int side = 0; side < 2; side++) {
        int problems = guarded_slice(side ? "before" : "after", fz_cfg.seed + 1 + side, slice / 3);
        failed += problems;
        passed += !problems;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
