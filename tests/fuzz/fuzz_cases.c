/* fuzz_cases.c — regression cases: "case NAME [known=DEFECT,...]" then its calls, one per line as a
 * failure prints them, until the next case; '#' starts a comment line.  Each case runs in a fresh
 * process after cufort_init and passes when nothing crashes or hangs and every answer is right; a
 * case tagged with a known defect that is being avoided is skipped. */
#include "fuzz.h"

#include <stdlib.h>

/* tests/fuzz/regressions.txt, compiled in (mk/fuzz.mk) */
const char fz_builtin_cases[] =
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
    fz_worker_init(&w, 0, &fz_shared->thread[0]);
    cufort_init();
    for (int i = 0; i < tc->nlines; i++) {
        fz_call c;
        char err[256];
        if (fz_parse(tc->lines[i], &c, err, sizeof err)) {
            printf("FAIL regression %s: line %d: %s\n", tc->name, i + 1, err);
            fz_shared->thread[0].failures++;
            continue;
        }
        w.index = i;
        fz_run_call(&w, &c);
    }
    fz_worker_finish(&w);
    cufort_shutdown();
    exit(0);
}

static void run_case(test_case *tc, int *passed, int *failed)
{
    if (tc->known & fz_avoid) {
        for (int k = 0; k < FZ_K_COUNT; k++)
            if ((tc->known >> k) & fz_avoid & 1u)
                printf("skip regression %s: known defect %s is avoided\n", tc->name, fz_known_name(k));
        return;
    }
    memset(fz_shared, 0, sizeof *fz_shared);
    int crashes = 0, hangs = 0;
    char what[300];
    snprintf(what, sizeof what, "regression %s", tc->name);
    int died = fz_watched(case_body, tc, 1, what, 0, &crashes, &hangs);
    fz_shared_thread *sh = &fz_shared->thread[0];
    if (died || sh->failures) {
        (*failed)++;
        if (!died)
            printf("FAIL regression %s: %lld wrong answers (above)\n", tc->name, (long long)sh->failures);
    } else if (sh->avoided) {
        printf("skip regression %s: a call hit a known defect that is avoided (tag the case known=...)\n",
               tc->name);
    } else {
        (*passed)++;
        printf("ok regression %s\n", tc->name);
    }
}

void fz_run_cases(const char *text, int *passed, int *failed)
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
                run_case(&tc, passed, failed);
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
