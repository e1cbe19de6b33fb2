/* env.c — numeric settings from the environment (env.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "env.h"

/* Each variable is reported once: some are read at every call.  A fixed table of names (copied:
 * a caller may build the name in a buffer of its own), each slot claimed with compare-and-swap
 * rather than under a lock, so that a forked child never waits on one.  Two threads meeting the
 * same bad value at once may both report it. */
enum { REPORTED_MAX = 64, NAME_MAX_LEN = 64 };
static char reported[REPORTED_MAX][NAME_MAX_LEN];
static int slot_state[REPORTED_MAX];   /* 0 free, 1 being written, 2 holds a name */

static int first_report(const char *name)
{
    for (int i = 0; i < REPORTED_MAX; i++) {
        int state = __atomic_load_n(&slot_state[i], __ATOMIC_ACQUIRE);
        if (state == 2 && !strncmp(reported[i], name, NAME_MAX_LEN - 1))
            return 0;
        if (state == 0 && __atomic_compare_exchange_n(&slot_state[i], &state, 1, 0,
                                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            snprintf(reported[i], NAME_MAX_LEN, "%s", name);
            __atomic_store_n(&slot_state[i], 2, __ATOMIC_RELEASE);
            return 1;
        }
    }
    return 1;   /* the table is full: report every time */
}

static void refuse(const char *name, const char *value, const char *want)
{
    if (!first_report(name))
        return;
    size_t len = strlen(value);
    fprintf(stderr, "cufort: ignoring %s=\"%.40s%s\" (want %s); its default stands\n", name, value,
            len > 40 ? "..." : "", want);
}

static const char *value_of(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* nothing but blanks from s on */
static int rest_blank(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == 0;
}

int cufort_env_int(const char *name, int64_t lo, int64_t hi, int64_t *out)
{
    const char *v = value_of(name);
    if (!v)
        return 0;
    char *end, want[64];
    long long x = strtoll(v, &end, 10);   /* saturates */
    if (end == v || !rest_blank(end) || x < lo) {
        snprintf(want, sizeof want, "a whole number of at least %lld", (long long)lo);
        refuse(name, v, want);
        return 0;
    }
    *out = x > hi ? hi : x;
    return 1;
}

int cufort_env_real(const char *name, double lo, double hi, double *out)
{
    const char *v = value_of(name);
    if (!v)
        return 0;
    char *end, want[64];
    double x = strtod(v, &end);
    if (end == v || !rest_blank(end) || !(x >= lo)) {   /* NaN fails x >= lo */
        snprintf(want, sizeof want, "a number of at least %g", lo);
        refuse(name, v, want);
        return 0;
    }
    *out = x > hi ? hi : x;
    return 1;
}

int cufort_env_bytes(const char *name, size_t *out)
{
    const char *v = value_of(name);
    if (!v)
        return 0;
    char *end;
    double x = strtod(v, &end), unit = 1;
    int none = end == v;
    while (isspace((unsigned char)*end))
        end++;
    switch (toupper((unsigned char)*end)) {
    case 'K': unit = 1024.0, end++; break;
    case 'M': unit = 1024.0 * 1024, end++; break;
    case 'G': unit = 1024.0 * 1024 * 1024, end++; break;
    }
    if (unit > 1 && (!strncasecmp(end, "iB", 2) || toupper((unsigned char)*end) == 'B'))
        end += toupper((unsigned char)*end) == 'B' ? 1 : 2;
    if (none || !rest_blank(end) || !(x >= 0)) {
        refuse(name, v, "a byte count of at least 0, with K, M or G after it or not");
        return 0;
    }
    x *= unit;
    *out = x >= (double)SIZE_MAX ? SIZE_MAX : (size_t)x;
    return 1;
}
