/* fft_layout.c — a plan's layouts, resolved once when it is made: where each side's elements live
 * (in place and out of place), how far each side spans, and whether the plan may run in place.
 * Every product is checked, so a layout whose span does not fit int64 bytes is refused instead of
 * wrapping to a small extent that passes the pointer checks. */
#include <stdio.h>

#include "fft_internal.h"

/* Logical sizes of the input or output side: the complex side of a real transform keeps
 * n_last/2+1 elements in its last dimension. */
static void side_sizes(const struct cufort_fft_plan_s *p, int input, cufort_fft_side *s)
{
    int real = input ? cufort_fft_real_in(p->type) : cufort_fft_real_out(p->type);
    int half = !real && (cufort_fft_real_in(p->type) || cufort_fft_real_out(p->type));
    for (int i = 0; i < 3; i++)
        s->m[i] = i < 3 - p->rank ? 1 : p->n[i - (3 - p->rank)];
    if (half)
        s->m[2] = s->m[2] / 2 + 1;
    s->complex_side = !real;
}

/* The basic layout, or the caller's advanced one; in place, a real side of the basic layout is
 * padded to the complex side's length (2*(n_last/2+1) reals per row).  0, or 1 on overflow. */
static int side_layout(const struct cufort_fft_plan_s *p, int input, int in_place, cufort_fft_side *s)
{
    side_sizes(p, input, s);
    if (p->advanced) {
        const int64_t *e = input ? p->inembed : p->onembed;
        for (int i = 0; i < 3; i++)
            s->embed[i] = i < 3 - p->rank ? 1 : e[i - (3 - p->rank)];
        s->stride = input ? p->istride : p->ostride;
        s->dist = input ? p->idist : p->odist;
        return 0;
    }
    for (int i = 0; i < 3; i++)
        s->embed[i] = s->m[i];
    s->stride = 1;
    int over = in_place && !s->complex_side && __builtin_mul_overflow(s->m[2] / 2 + 1, 2, &s->embed[2]);
    return over | __builtin_mul_overflow(s->embed[0], s->embed[1], &s->dist) |
           __builtin_mul_overflow(s->dist, s->embed[2], &s->dist);
}

/* Elements from a side's first to its last, and their bytes: 0, or 1 when either overflows. */
static int side_span(const cufort_fft_side *s, int64_t batch, int64_t elem_bytes, int64_t *elems)
{
    int64_t last, dists, bytes;
    int over = __builtin_mul_overflow(s->m[0] - 1, s->embed[1], &last);
    over |= __builtin_add_overflow(last, s->m[1] - 1, &last);
    over |= __builtin_mul_overflow(last, s->embed[2], &last);
    over |= __builtin_add_overflow(last, s->m[2] - 1, &last);
    over |= __builtin_mul_overflow(last, s->stride, &last);
    over |= __builtin_mul_overflow(batch - 1, s->dist, &dists);
    over |= __builtin_add_overflow(last, dists, &last);
    over |= __builtin_add_overflow(last, 1, elems);
    return over | __builtin_mul_overflow(*elems, elem_bytes, &bytes);
}

int64_t cufort_fft_elem_size(const struct cufort_fft_plan_s *p, const cufort_fft_side *s)
{
    return (cufort_fft_double(p->type) ? 8 : 4) * (s->complex_side ? 2 : 1);
}

static int too_large(const char *fn, const struct cufort_fft_plan_s *p, int side, int in_place)
{
    const char *which = side ? "output" : "input", *ip = in_place ? " in place" : "";
    if (p->advanced)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: the %s layout (%sembed, %sstride = %lld, "
                           "%sdist = %lld, with n and batch = %lld) spans more than INT64_MAX bytes%s",
                           fn, which, side ? "on" : "in", side ? "o" : "i",
                           (long long)(side ? p->ostride : p->istride), side ? "o" : "i",
                           (long long)(side ? p->odist : p->idist), (long long)p->batch, ip);
    char n[80];
    int at = 0;
    for (int i = 0; i < p->rank; i++)
        at += snprintf(n + at, sizeof n - (size_t)at, "%s%lld", i ? ", " : "", (long long)p->n[i]);
    return cufort_fail(CUFORT_INVALID_VALUE, "%s: n = {%s} with batch = %lld: the %s spans more than "
                       "INT64_MAX bytes%s", fn, n, (long long)p->batch, which, ip);
}

/* In place, a real transform's two sides share one array, so the real side must overlay the
 * complex side as in the basic layout: the same stride in each side's own elements, twice the
 * complex side's distance, twice its last embed, the other embeds equal.  This is FFTW's convention
 * (its advanced interface counts the real side in reals and doubles the complex side's strides),
 * and the basic layouts of cuFFT and FFTW are its special case.  On other layouts FFTW's planner can
 * recurse until the stack runs out and cuFFT can fault, so exec refuses them with the reason kept
 * here. */
static void in_place_rule(struct cufort_fft_plan_s *p)
{
    p->in_place_refusal[0] = '\0';
    int fwd = cufort_fft_real_in(p->type);
    if (!p->advanced || (!fwd && !cufort_fft_real_out(p->type)))
        return;
    const cufort_fft_side *r = &p->side[1][fwd ? 0 : 1], *c = &p->side[1][fwd ? 1 : 0];
    const char *rs = fwd ? "i" : "o", *cs = fwd ? "o" : "i", *t = cufort_fft_double(p->type)
        ? (fwd ? "D2Z" : "Z2D") : (fwd ? "R2C" : "C2R");
    int last = p->rank - 1;
    int64_t twice;
    char why[120] = "";
    if (r->stride != c->stride)
        snprintf(why, sizeof why, "%sstride = %lld differs from %sstride = %lld", rs,
                 (long long)r->stride, cs, (long long)c->stride);
    else if (__builtin_mul_overflow(c->dist, 2, &twice) || r->dist != twice)
        snprintf(why, sizeof why, "%sdist = %lld is not 2*%sdist = 2*%lld", rs, (long long)r->dist, cs,
                 (long long)c->dist);
    else if (p->rank > 1 && (__builtin_mul_overflow(c->embed[2], 2, &twice) || r->embed[2] != twice))
        snprintf(why, sizeof why, "%snembed[%d] = %lld is not 2*%snembed[%d] = 2*%lld", rs, last,
                 (long long)r->embed[2], cs, last, (long long)c->embed[2]);
    else if (p->rank > 2 && r->embed[1] != c->embed[1])
        snprintf(why, sizeof why, "%snembed[1] = %lld differs from %snembed[1] = %lld", rs,
                 (long long)r->embed[1], cs, (long long)c->embed[1]);
    if (why[0])
        snprintf(p->in_place_refusal, sizeof p->in_place_refusal,
                 "in place, the real side of this %s plan must overlay its complex side "
                 "(%sstride == %sstride, %sdist == 2*%sdist, %snembed[last] == 2*%snembed[last], other "
                 "embeds equal), but %s; run it out of place", t, rs, cs, rs, cs, rs, cs, why);
}

/* An advanced layout must hold every logical element, with positive strides and distances
 * (embed[0] is not used, as in cuFFT and FFTW). */
static int check_advanced(const char *fn, const struct cufort_fft_plan_s *p)
{
    for (int side = 0; side < 2; side++) {
        cufort_fft_side s;
        side_sizes(p, side == 0, &s);
        const int64_t *e = side == 0 ? p->inembed : p->onembed;
        for (int i = 1; i < p->rank; i++)
            if (e[i] < s.m[3 - p->rank + i])
                return cufort_fail(CUFORT_INVALID_VALUE, "%s: %s[%d] = %lld is smaller than the %lld "
                                   "elements of that dimension", fn, side ? "onembed" : "inembed", i,
                                   (long long)e[i], (long long)s.m[3 - p->rank + i]);
        if ((side ? p->ostride : p->istride) < 1 || (side ? p->odist : p->idist) < 1)
            return cufort_fail(CUFORT_INVALID_VALUE, "%s: %s stride and distance must be >= 1", fn,
                               side ? "output" : "input");
    }
    return CUFORT_SUCCESS;
}

int cufort_fft_resolve_layout(const char *fn, struct cufort_fft_plan_s *p)
{
    int st = p->advanced ? check_advanced(fn, p) : CUFORT_SUCCESS;
    if (st)
        return st;
    for (int in_place = 0; in_place < 2; in_place++)
        for (int side = 0; side < 2; side++) {
            cufort_fft_side *s = &p->side[in_place][side];
            if (side_layout(p, side == 0, in_place, s) ||
                side_span(s, p->batch, cufort_fft_elem_size(p, s), &p->span[in_place][side]))
                return too_large(fn, p, side, in_place);
        }
    in_place_rule(p);
    return CUFORT_SUCCESS;
}
