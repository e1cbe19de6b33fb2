/* check.h — assertion and reporting helpers for the hand-written C tests of the cufort C ABI.
 *
 * Protocol (the test runner aggregates it): every check prints one line,
 *     ok <test> <what>
 *     FAIL <test> <what>: <reason with values>
 * and the binary ends with "N passed, M failed", exiting non-zero when M > 0.  A crash or a hang
 * still ends in a FAIL line and the summary (signal handlers, an alarm).
 *
 * Everything here is static: include it in exactly one translation unit per test binary.
 * ck_child() re-executes the test binary itself in a fresh process (with extra environment
 * variables) to run one scenario that must start before cufort_init or that may crash; its lines
 * are relayed and counted by the parent.  A fresh exec, never a bare fork, so that a CUDA context
 * the parent holds is never inherited. */
#ifndef CUFORT_TEST_CHECK_H
#define CUFORT_TEST_CHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cufort.h"

#define CK_FN static __attribute__((unused))

static const char *ck_test = "test";
static int ck_passed, ck_failed;
static int ck_is_child;
static const char *ck_last_what = "(start)";
static char ck_self[4096]; /* this binary, for ck_child (resolved at ck_begin: valgrind-safe) */

/* ---- formatting: ckf returns one of 16 rotating buffers, so several may be used in one call ---- */
CK_FN const char *ckf(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
CK_FN const char *ckf(const char *fmt, ...)
{
    static __thread char buf[16][512];
    static __thread unsigned next;
    char *b = buf[next++ % 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof buf[0], fmt, ap);
    va_end(ap);
    return b;
}

/* the library's own names (test_context checks cufort_status_string itself) */
#define ck_status_name cufort_status_string

/* The last error message, never NULL (a NULL from the library is itself reported by the tests). */
CK_FN const char *ck_err(void)
{
    const char *m = cufort_last_error();
    return m ? m : "(null)";
}

CK_FN int ck_check(int ok, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), unused));
CK_FN int ck_check(int ok, const char *what, const char *fmt, ...)
{
    ck_last_what = what;
    if (ok) {
        ck_passed++;
        printf("ok %s %s\n", ck_test, what);
    } else {
        char reason[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, sizeof reason, fmt, ap);
        va_end(ap);
        ck_failed++;
        printf("FAIL %s %s: %s\n", ck_test, what, reason);
    }
    fflush(stdout);
    return ok;
}

/* CHECK(cond, what, reason-format, ...) */
#define CHECK(cond, what, ...) ck_check(!!(cond), (what), __VA_ARGS__)

/* CHECK_ST(call, expected, what): the call returns the expected status. */
#define CHECK_ST(call, expected, what)                                                            \
    __extension__({                                                                               \
        int ck_st_ = (call);                                                                      \
        int ck_ex_ = (expected);                                                                  \
        ck_check(ck_st_ == ck_ex_, (what), "%s returned %d (%s), expected %d (%s); last error \"%s\"", \
                 #call, ck_st_, ck_status_name(ck_st_), ck_ex_, ck_status_name(ck_ex_), ck_err()); \
    })

/* CHECK_OK(call, what): the call returns CUFORT_SUCCESS. */
#define CHECK_OK(call, what) CHECK_ST(call, CUFORT_SUCCESS, what)

/* CHECK_MSG(substr, what): this thread's last error message contains substr. */
#define CHECK_MSG(substr, what)                                                                   \
    ck_check(strstr(ck_err(), (substr)) != NULL, (what),                                          \
             "last error \"%s\" does not mention \"%s\"", ck_err(), (substr))

/* CHECK_FAILS_MSG(call, expected, substr, what): expected status and a message naming substr. */
#define CHECK_FAILS_MSG(call, expected, substr, what)                                             \
    do {                                                                                          \
        CHECK_ST(call, expected, (what));                                                         \
        CHECK_MSG(substr, ckf("%s (message)", (what)));                                           \
    } while (0)

/* ---- random data: a seeded xorshift, one per thread (ck_seed seeds the calling thread's); values
 * are never zero ---- */
static _Thread_local uint64_t ck_rng_state = 0x9E3779B97F4A7C15ull;
CK_FN void ck_seed(uint64_t s) { ck_rng_state = s ? s : 0x9E3779B97F4A7C15ull; }
CK_FN uint64_t ck_rand64(void)
{
    uint64_t x = ck_rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return ck_rng_state = x;
}
/* uniform in +-[0.5, 1.5) */
CK_FN double ck_randd(void)
{
    double v = 0.5 + (double)(ck_rand64() >> 11) / 9007199254740992.0;
    return (ck_rand64() & 1) ? -v : v;
}
CK_FN void ck_fill_f(float *x, size_t n) { for (size_t i = 0; i < n; i++) x[i] = (float)ck_randd(); }
CK_FN void ck_fill_d(double *x, size_t n) { for (size_t i = 0; i < n; i++) x[i] = ck_randd(); }
/* bytes 1..255, never zero */
CK_FN void ck_fill_bytes(void *p, size_t n)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(1 + ck_rand64() % 255);
}

/* ---- several threads at once ---- */
/* body(id, err, errlen) runs on each thread and returns its number of failures, describing the
 * first in err; ck_threads runs `count` of them together (count <= 16), one check per thread. */
typedef int (*ck_thread_body)(int id, char *err, size_t errlen);
typedef struct { ck_thread_body body; int id, fails; char err[256]; } ck_thread_arg;

CK_FN void *ck_thread_main(void *p)
{
    ck_thread_arg *a = p;
    a->fails = a->body(a->id, a->err, sizeof a->err);
    return NULL;
}

CK_FN void ck_threads(int count, ck_thread_body body, const char *what)
{
    pthread_t th[16];
    ck_thread_arg a[16];
    count = count < 16 ? count : 16;
    for (int i = 0; i < count; i++) {
        a[i] = (ck_thread_arg){.body = body, .id = i};
        pthread_create(&th[i], NULL, ck_thread_main, &a[i]);
    }
    for (int i = 0; i < count; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < count; i++)
        CHECK(a[i].fails == 0, ckf("thread %d %s", i, what), "%d failures; first: %s", a[i].fails,
              a[i].err);
}

/* The devices a test may spread calls over: `simulated` of them on the host backend
 * (CUFORT_HOST_DEVICES), as many as there are on a GPU machine; 0, saying the checks are skipped,
 * when there are fewer than two. */
CK_FN int ck_spread_devices(const char *simulated)
{
    setenv("CUFORT_HOST_DEVICES", simulated, 1);
    int count = 0;
    CHECK_OK(cufort_device_count(&count), "device count");
    if (count >= 2)
        return count;
    printf("# skipped: spreading over devices needs 2 (the %s backend sees %d)\n",
           cufort_backend_name(), count);
    return 0;
}

/* ---- crashes and hangs still end in a FAIL line and a summary ---- */
CK_FN void ck_summary(void)
{
    if (!ck_is_child) printf("%d passed, %d failed\n", ck_passed, ck_failed);
    fflush(stdout);
}

CK_FN void ck_fatal_signal(int sig)
{
    /* last resort: not async-signal-safe, but the process is going down anyway */
    ck_failed++;
    printf("FAIL %s crash: signal %d (%s) after check \"%s\"\n", ck_test, sig,
           sig == SIGALRM ? "timeout" : strsignal(sig), ck_last_what);
    ck_summary();
    _exit(1);
}

CK_FN void ck_begin(const char *test, int timeout_s)
{
    ck_test = test;
    setvbuf(stdout, NULL, _IOLBF, 0);
    ssize_t len = readlink("/proc/self/exe", ck_self, sizeof ck_self - 1);
    ck_self[len > 0 ? len : 0] = '\0';
    signal(SIGSEGV, ck_fatal_signal);
    signal(SIGBUS, ck_fatal_signal);
    signal(SIGFPE, ck_fatal_signal);
    signal(SIGILL, ck_fatal_signal);
    signal(SIGABRT, ck_fatal_signal);
    signal(SIGALRM, ck_fatal_signal);
    alarm(timeout_s);
}

/* In main: returns the exit status. */
CK_FN int ck_end(void)
{
    ck_summary();
    return ck_failed > 0 ? 1 : 0;
}

/* ---- child processes ----
 * In main, first thing:  if (argc == 3 && !strcmp(argv[1], "--child")) return run_child(argv[2]);
 * where run_child sets ck_is_child = 1 (ck_child_main does) and runs the named scenario.
 * ck_child("mode", "what", "VAR=value", ..., NULL) runs it with those variables set ("VAR=" with an
 * empty value unsets VAR) and counts the lines it prints; a non-zero exit or a signal is a FAIL. */
CK_FN int ck_child_main(const char *test)
{
    ck_is_child = 1;
    ck_test = test;
    return 0;
}

CK_FN void ck_child(const char *mode, const char *what, ...)
{
    int fd[2];
    fflush(stdout);
    if (pipe(fd) != 0) {
        CHECK(0, what, "pipe failed");
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        CHECK(0, what, "fork failed");
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        close(fd[1]);
        va_list ap;
        va_start(ap, what);
        for (const char *kv; (kv = va_arg(ap, const char *)) != NULL;) {
            const char *eq = strchr(kv, '=');
            if (!eq) continue;
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - kv), kv);
            if (eq[1]) setenv(name, eq + 1, 1);
            else unsetenv(name);
        }
        va_end(ap);
        execl(ck_self[0] ? ck_self : "/proc/self/exe", ck_test, "--child", mode, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    char line[2048];
    int child_fail = 0;
    while (in && fgets(line, sizeof line, in)) {
        fputs(line, stdout);
        if (!strncmp(line, "ok ", 3)) ck_passed++;
        else if (!strncmp(line, "FAIL ", 5)) ck_failed++, child_fail++;
    }
    if (in) fclose(in);
    int ws = 0;
    waitpid(pid, &ws, 0);
    if (WIFSIGNALED(ws))
        CHECK(0, what, "child process \"%s\" died of signal %d (%s)", mode, WTERMSIG(ws),
              strsignal(WTERMSIG(ws)));
    else if (WEXITSTATUS(ws) != 0 && child_fail == 0)
        CHECK(0, what, "child process \"%s\" exited %d with no FAIL line", mode, WEXITSTATUS(ws));
    fflush(stdout);
}

#endif
