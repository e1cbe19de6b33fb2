/* fuzz_watch.c — the calls of a run made in a child process this one watches: a crash or a
 * sanitizer's report ends the child and is reported with the call in flight, a call running past the
 * timeout is a hang (the child is killed); either way the run goes on from the next segment.  Every
 * segment of calls starts from a reset worker (everything it made destroyed; with one thread cufort
 * is shut down and initialised again), so a call depends only on its own segment's calls before it
 * and replays from that segment's start. */
#include "fuzz.h"

#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

fz_shared_state *fz_shared;
double fz_timeout_s = 20;
int fz_in_child;

void fz_shared_setup(void)
{
    fz_shared = mmap(NULL, sizeof *fz_shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (fz_shared == MAP_FAILED) {
        perror("fuzz_capi: mmap");
        exit(2);
    }
}

/* ---- the worker process ---- */

static void set_worker_id(int id);   /* names the thread in its stack on a hang */

typedef struct {
    fz_worker w;
    int64_t from, quota;   /* first index of the segment; calls this thread still has to make */
    pthread_t tid;
} thread_job;

static void publish_reset(fz_worker *w, int64_t index)
{
    snprintf(w->shared->text, sizeof w->shared->text, "(start of the segment at call %lld: state reset)",
             (long long)index);
    w->shared->started_ns = fz_now_ns();
    __atomic_store_n(&w->shared->index, index, __ATOMIC_SEQ_CST);
}

/* one segment of one thread: reset, then its calls until the segment ends or its quota is made */
static void *run_segment(void *arg)
{
    thread_job *j = arg;
    fz_worker *w = &j->w;
    fz_worker_init(w, w->id, w->shared);
    w->shared->tid = (int)syscall(SYS_gettid);
    set_worker_id(w->id);
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
    publish_reset(w, j->from + fz_cfg.segment);   /* the next segment's index: the end of this one */
    fz_worker_finish(w);
    __atomic_store_n(&w->shared->index, -1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void worker_process(int64_t quota_per_thread)
{
    static thread_job jobs[FZ_MAX_THREADS];
    cufort_init();
    for (;;) {
        int64_t from = fz_shared->next_index;
        int busy = 0;
        for (int t = 0; t < fz_threads; t++)
            busy |= fz_shared->thread[t].calls < quota_per_thread;
        if (!busy)
            break;
        for (int t = 0; t < fz_threads; t++) {
            jobs[t].w.id = t;
            jobs[t].w.shared = &fz_shared->thread[t];
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
        fz_shared->next_index = from + fz_cfg.segment;
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

/* In the child, a crash prints the crashing thread's stack before the signal ends it, and a hang
 * the stacks of the threads with a call in flight, so that a race that does not replay
 * alone still shows where it struck (frames in libcufort as offsets:
 * `addr2line -f -e libcufort.so.1 OFFSET`).  Not under a sanitizer, whose own report says more. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
static void catch_crashes(void) {}
static void set_worker_id(int id) { (void)id; }
static void show_stacks(pid_t pid, int threads) { (void)pid, (void)threads; }
#else
static void print_stack(const char *head, size_t len)
{
    void *frames[64];
    int n = backtrace(frames, 64);
    if (write(2, head, len) > 0)
        backtrace_symbols_fd(frames, n, 2);
}

static void on_crash(int sig)
{
    static const char head[] = "fuzz_capi: the crashing thread's stack:\n";
    print_stack(head, sizeof head - 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

static _Thread_local int worker_id = -1;

static void set_worker_id(int id) { worker_id = id; }

static void on_stack_request(int sig)
{
    (void)sig;
    char head[] = "fuzz_capi: thread ?'s stack, its call in flight at the hang:\n";
    if (worker_id >= 0 && worker_id < 10)
        *strchr(head, '?') = (char)('0' + worker_id);
    print_stack(head, sizeof head - 1);
}

static void catch_crashes(void)
{
    void *warm[1];
    backtrace(warm, 1);   /* loads the unwinder now, not inside the handler */
    int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        signal(sigs[i], on_crash);
    signal(SIGUSR2, on_stack_request);
}

/* asks each worker thread of the child with a call in flight for its stack (the one that hangs
 * may wait for another), one at a time so that the stacks do not interleave */
static void show_stacks(pid_t pid, int threads)
{
    for (int t = 0; t < threads; t++) {
        fz_shared_thread *sh = &fz_shared->thread[t];
        if (__atomic_load_n(&sh->index, __ATOMIC_SEQ_CST) == -1 || sh->tid <= 0 ||
            syscall(SYS_tgkill, pid, sh->tid, SIGUSR2) != 0)
            continue;
        struct timespec wait = {0, 300 * 1000 * 1000};
        nanosleep(&wait, NULL);
    }
}
#endif

static void print_recent(int threads)
{
    int64_t now = fz_now_ns();
    for (int t = 0; t < threads; t++) {
        fz_shared_thread *sh = &fz_shared->thread[t];
        int64_t n = sh->started, from = n > FZ_RECENT ? n - FZ_RECENT : 0;
        for (int64_t k = from; k < n; k++)
            printf("    thread %d, call %lld, started %.3f ms before the end: %s\n", t,
                   (long long)sh->recent_index[k % FZ_RECENT],
                   (double)(now - sh->recent_ns[k % FZ_RECENT]) * 1e-6, sh->recent[k % FZ_RECENT]);
    }
}

/* runs body in a child process, watching for crashes and hangs; returns 0 when it finished */
int fz_watched(void (*body)(void *), void *arg, int threads, const char *what, int slice, int *crashes,
                   int *hangs)
{
    fflush(stdout);
    for (int t = 0; t < threads; t++)
        fz_shared->thread[t].index = -1;
    pid_t pid = fork();
    if (pid < 0) {
        perror("fuzz_capi: fork");
        exit(2);
    }
    if (pid == 0) {
        fz_in_child = 1;
        catch_crashes();
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
        int64_t now = fz_now_ns();
        for (int t = 0; t < threads && hung < 0; t++) {
            fz_shared_thread *sh = &fz_shared->thread[t];
            if (__atomic_load_n(&sh->index, __ATOMIC_SEQ_CST) != -1 &&
                (double)(now - sh->started_ns) > fz_timeout_s * 1e9)
                hung = t;
        }
        if (hung >= 0) {
            show_stacks(pid, threads);
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
        printf("FAIL fuzz %s: hang: a call ran longer than %.0f s\n", what, fz_timeout_s);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == FZ_EXIT_CONTEXT_LOST) {
        (*crashes)++;
        printf("FAIL fuzz %s: the GPU context was lost (the failure above): a launch or copy faulted, "
               "perhaps calls before it surfaced, on any thread; each thread's last calls, oldest "
               "first (CUDA_LAUNCH_BLOCKING=1 makes the faulting call fail itself):\n", what);
        print_recent(threads);
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
        fz_shared_thread *sh = &fz_shared->thread[t];
        if (sh->index == -1)
            continue;
        any = 1;
        printf("    thread %d, call %lld in flight: %s\n", t, (long long)sh->index, sh->text);
        if (slice) {
            char hint[256];
            fz_replay_hint(hint, sizeof hint, sh->index, t);
            printf("    replay: %s%s\n", hint, threads > 1 ? " (alone: a race may not recur)" : "");
        }
    }
    if (!any)
        printf("    no call in flight (at exit: e.g. a leak found when the process ended)\n");
    fflush(stdout);
    return 1;
}

static void slice_body(void *arg) { worker_process(*(int64_t *)arg); }

/* one run of seed/threads/calls; returns the number of problems */
int fz_run_slice(int64_t calls_per_thread)
{
    memset(fz_shared, 0, sizeof *fz_shared);
    fz_shared->next_index = fz_cfg.first;
    int crashes = 0, hangs = 0;
    int64_t t0 = fz_now_ns();
    char what[64];
    snprintf(what, sizeof what, "seed %llu", (unsigned long long)fz_cfg.seed);
    while (fz_watched(slice_body, &calls_per_thread, fz_threads, what, 1, &crashes, &hangs)) {
        /* the worker died: go on after the segment it was in */
        int64_t seg_start = fz_shared->next_index;
        fz_shared->next_index = seg_start + fz_cfg.segment;
        if (crashes + hangs >= 20) {
            printf("fuzz: stopping after %d crashes and hangs\n", crashes + hangs);
            break;
        }
    }
    int64_t made = 0, skipped = 0, avoided = 0, failures = 0;
    for (int t = 0; t < fz_threads; t++) {
        made += fz_shared->thread[t].calls;
        skipped += fz_shared->thread[t].skipped;
        avoided += fz_shared->thread[t].avoided;
        failures += fz_shared->thread[t].failures;
    }
    int problems = crashes + hangs + (int)(failures > 0 ? failures : 0);
    printf("fuzz: %lld calls, seed %llu, %d crashes, %d hangs, %lld failures (%d thread%s, calls %lld.., "
           "%lld skipped as too large or racing another thread, %lld avoided as known defects, %.1f s)\n",
           (long long)made, (unsigned long long)fz_cfg.seed, crashes, hangs, (long long)failures, fz_threads,
           fz_threads > 1 ? "s" : "", (long long)fz_cfg.first, (long long)skipped, (long long)avoided,
           (double)(fz_now_ns() - t0) / 1e9);
    return problems;
}
