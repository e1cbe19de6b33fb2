/* fuzz_text.c — a call as one line and back:
 *     cufort_sgemm transa=N transb=t m=3 ... alpha=1.5 A=dev:4096:0+1024 lda=5 ... C=@A+64
 * Arrays: null | bogus+OFF | dev:BYTES:BLOCK+OFF | pinned:BYTES:BLOCK+OFF | host:BYTES+OFF |
 * hostmem:BYTES+OFF | freed:BYTES+OFF | @ARG+OFF (the same memory as argument ARG, OFF bytes on).
 * Handles: P0..P5, S0..S5, E0..E5 (slots), null, bogus, junk.  Characters print as themselves or \xNN;
 * reals with 17 digits, complex values as re,im. */
#include "fuzz.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>

static const char *PLACES[] = {"null", "dev", "host", "pinned", "freed", "hostmem", "bogus", "@"};

typedef struct { char *p; size_t left; int n; } out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->p, o->left, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    o->n += k;
    size_t used = (size_t)k < o->left ? (size_t)k : o->left ? o->left - 1 : 0;
    o->p += used;
    o->left -= used;
}

int fz_format(const fz_call *c, char *buf, size_t size)
{
    const fz_op *op = &fz_ops[c->op];
    out o = {buf, size, 0};
    if (size)
        buf[0] = 0;
    put(&o, "%s", op->name);
    for (int i = 0; i < op->nparams; i++) {
        const fz_arg *a = &c->arg[i];
        put(&o, " %s=", op->params[i].name);
        switch (a->type) {
        case FZ_INT:
            put(&o, "%" PRId64, a->i);
            break;
        case FZ_CHAR:
            if (isgraph((unsigned char)a->c) && a->c != '\\')
                put(&o, "%c", a->c);
            else
                put(&o, "\\x%02x", (unsigned char)a->c);
            break;
        case FZ_REAL:
            put(&o, "%.17g", a->re[0]);
            break;
        case FZ_CPLX:
            put(&o, "%.17g,%.17g", a->re[0], a->re[1]);
            break;
        case FZ_HANDLE:
            if (a->h.slot >= 0)
                put(&o, "%c%d", a->h.kind, a->h.slot);
            else
                put(&o, "%s", a->h.slot == FZ_H_NULL ? "null" : a->h.slot == FZ_H_BOGUS ? "bogus" : "junk");
            break;
        case FZ_ARRAY: {
            const fz_array *x = &a->a;
            if (x->place == FZ_NULL)
                put(&o, "null");
            else if (x->place == FZ_BOGUS)
                put(&o, "bogus+%" PRId64, x->off);
            else if (x->place == FZ_ALIAS)
                put(&o, "@%s+%" PRId64, op->params[x->of].name, x->off);
            else if (x->place == FZ_DEV || x->place == FZ_PINNED)
                put(&o, "%s:%" PRId64 ":%d+%" PRId64, PLACES[x->place], x->bytes, x->of, x->off);
            else
                put(&o, "%s:%" PRId64 "+%" PRId64, PLACES[x->place], x->bytes, x->off);
            break;
        }
        }
    }
    return o.n;
}

/* ---- parsing ---- */

static int fail(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_i64(const char *s, const char **end, int64_t *v)
{
    char *e;
    errno = 0;
    long long x = strtoll(s, &e, 10);
    if (e == s || errno)
        return -1;
    *v = x;
    *end = e;
    return 0;
}

static int parse_array(const fz_op *op, const char *s, fz_array *a)
{
    const char *e = s;
    memset(a, 0, sizeof *a);
    if (strcmp(s, "null") == 0)
        return 0;
    if (s[0] == '@') {
        const char *plus = strchr(s, '+');
        if (!plus)
            return -1;
        size_t len = (size_t)(plus - s - 1);
        a->place = FZ_ALIAS;
        a->of = -1;
        for (int i = 0; i < op->nparams; i++)
            if (strlen(op->params[i].name) == len && strncmp(op->params[i].name, s + 1, len) == 0)
                a->of = i;
        return a->of < 0 || parse_i64(plus + 1, &e, &a->off) || *e ? -1 : 0;
    }
    if (strncmp(s, "bogus+", 6) == 0) {
        a->place = FZ_BOGUS;
        return parse_i64(s + 6, &e, &a->off) || *e ? -1 : 0;
    }
    const char *colon = strchr(s, ':');
    if (!colon)
        return -1;
    a->place = -1;
    for (int p = FZ_DEV; p <= FZ_HOSTMEM; p++)
        if ((size_t)(colon - s) == strlen(PLACES[p]) && strncmp(s, PLACES[p], (size_t)(colon - s)) == 0)
            a->place = p;
    if (a->place < 0 || parse_i64(colon + 1, &e, &a->bytes))
        return -1;
    if (a->place == FZ_DEV || a->place == FZ_PINNED) {
        int64_t which;
        if (*e != ':' || parse_i64(e + 1, &e, &which))
            return -1;
        a->of = (int)which;
    }
    if (*e != '+' || parse_i64(e + 1, &e, &a->off) || *e)
        return -1;
    return 0;
}

static int parse_value(const fz_op *op, int i, const char *s, fz_arg *a)
{
    const char *e;
    char *end;
    a->type = op->params[i].type;
    switch (a->type) {
    case FZ_INT:
        return parse_i64(s, &e, &a->i) || *e ? -1 : 0;
    case FZ_CHAR:
        if (s[0] == '\\' && s[1] == 'x') {
            long x = strtol(s + 2, &end, 16);
            a->c = (char)x;
            return *end || end == s + 2 ? -1 : 0;
        }
        a->c = s[0];
        return s[0] && !s[1] ? 0 : -1;
    case FZ_REAL:
        a->re[0] = strtod(s, &end);
        a->re[1] = 0;
        return end == s || *end ? -1 : 0;
    case FZ_CPLX:
        a->re[0] = strtod(s, &end);
        if (end == s || *end != ',')
            return -1;
        s = end + 1;
        a->re[1] = strtod(s, &end);
        return end == s || *end ? -1 : 0;
    case FZ_HANDLE:
        a->h.kind = op->params[i].role;
        if (strcmp(s, "null") == 0)
            a->h.slot = FZ_H_NULL;
        else if (strcmp(s, "bogus") == 0)
            a->h.slot = FZ_H_BOGUS;
        else if (strcmp(s, "junk") == 0)
            a->h.slot = FZ_H_JUNK;
        else if (s[0] == a->h.kind && s[1] >= '0' && s[1] < '0' + FZ_SLOTS && !s[2])
            a->h.slot = s[1] - '0';
        else
            return -1;
        return 0;
    default:
        return parse_array(op, s, &a->a);
    }
}

int fz_parse(const char *line, fz_call *c, char *err, size_t errsize)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", line);
    char *save, *tok = strtok_r(copy, " \t\r\n", &save);
    if (!tok)
        return fail(err, errsize, "empty line");
    memset(c, 0, sizeof *c);
    c->op = fz_find_op(tok);
    if (c->op < 0)
        return fail(err, errsize, "no operation named %s", tok);
    const fz_op *op = &fz_ops[c->op];
    int seen[FZ_MAX_ARGS] = {0};
    while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return fail(err, errsize, "%s: expected name=value, got '%s'", op->name, tok);
        *eq = 0;
        int i = -1;
        for (int k = 0; k < op->nparams; k++)
            if (strcmp(op->params[k].name, tok) == 0)
                i = k;
        if (i < 0)
            return fail(err, errsize, "%s has no argument %s", op->name, tok);
        if (parse_value(op, i, eq + 1, &c->arg[i]))
            return fail(err, errsize, "%s: cannot read %s=%s", op->name, tok, eq + 1);
        seen[i] = 1;
    }
    for (int k = 0; k < op->nparams; k++)
        if (!seen[k])
            return fail(err, errsize, "%s: argument %s missing", op->name, op->params[k].name);
    return 0;
}
