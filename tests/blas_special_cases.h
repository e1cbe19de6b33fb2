/* blas_special_cases.h — test_blas_special.c's cases: each routine, precision and input through
 * every surface that has the routine, against the reference's answer (or cufort's documented one).
 * Vectors are laid out by fill(): the case's values at memory positions k*|inc|, ordinary values
 * between them. */

#define NAN_ NAN
#define INF_ INFINITY
#define ALL ((1 << CAPI) | (1 << F77) | (1 << DROPIN))
#define NO_DROPIN ((1 << CAPI) | (1 << F77))

/* an output vector with increment 0 is written n times at once on the GPU (unspecified there) */
static int on_host(void) { return cufort_backend() == CUFORT_BACKEND_HOST; }

/* On the cuda backend the C ABI and F77 surfaces give cuBLAS's answers where docs/c-abi.md says
 * they differ from the reference; each such rule is computed here from the inputs. */
static int cublas_rule(int s) { return cufort_backend() == CUFORT_BACKEND_CUDA && (s == CAPI || s == F77); }

/* element k of a case's vector at a positive increment, as spread() laid it out */
static void element(const vec *x, int64_t k, int64_t inc, double *re, double *im)
{
    get(x->t, x->b, k * inc, re, im);
}

static void spread(vec *v, char t, const double *re, const double *im, int count, int64_t inc)
{
    double r[SPAN], i[SPAN];
    int64_t step = inc ? llabs(inc) : 1;
    for (int k = 0; k < SPAN; k++) r[k] = 0.25 + k, i[k] = -0.5 + k;
    for (int k = 0; k < count && k * step < SPAN; k++) r[k * step] = re[k], i[k * step] = im ? im[k] : re[k];
    fill(v, t, r, i, SPAN);
}

static const char *surf_label(int s, const char *name, const char *what)
{
    return ckf("%s %s %s", surf_name[s], name, what);
}

/* ---- nrm2, asum ---------------------------------------------------------------------------- */
typedef int red_fn(int, int64_t, const void *, int64_t, double *);
static void reduce_case(const char *name, red_fn *f, char t, int doc_zero, const char *what, int64_t n,
                        int64_t inc, const double *re, int count)
{
    vec x;
    double want, got;
    spread(&x, t, re, NULL, count, inc);
    f(REF, n, x.b, inc, &want);
    const char *why = "reference";
    if (doc_zero && inc <= 0) want = 0, why = "documented (incx <= 0: 0)";
    double cpu = want;
    if (!doc_zero || inc > 0) f(CPU, n, x.b, inc, &cpu);
    /* cuBLAS's nrm2: subnormal elements count as 0, and an infinite element gives Inf beside a NaN
     * (as C's hypot) */
    double gpu = want;
    if (strstr(name, "nrm2") && inc > 0) {
        vec flushed = x;
        int inf = 0;
        for (int64_t k = 0; k < n; k++) {
            double er, ei;
            element(&x, k, inc, &er, &ei);
            inf |= isinf(er) || isinf(ei);
            double least = single(t) ? FLT_MIN : DBL_MIN;   /* subnormal in the element's precision */
            put(t, flushed.b, k * inc, fabs(er) < least ? 0 : er, fabs(ei) < least ? 0 : ei);
        }
        f(REF, n, flushed.b, inc, &gpu);
        if (inf) gpu = INFINITY;
    }
    for (int s = CAPI; s < NSURF; s++) {
        spread(&x, t, re, NULL, count, inc);
        got = -7;
        int st = f(s, n, x.b, inc, &got);
        CHECK(st == 0 && (agree(got, want, tol_of(t)) || (s == DROPIN && agree(got, cpu, tol_of(t))) ||
                          (cublas_rule(s) && agree(got, gpu, tol_of(t)))),
              surf_label(s, name, what),
              "got %.9g (status %d), %s %.9g", got, st, why, want);
    }
}

static void reductions(void)
{
    static const struct {
        const char *what;
        double v[NMAX];
        int count;
    } tab[] = {
        {"huge elements (squares overflow)", {HUGE_, HUGE_, -HUGE_, 1}, 4},
        {"one huge element", {1, -HUGE_, 2}, 3},
        {"tiny elements (squares underflow)", {TINY_, -TINY_, TINY_}, 3},
        {"subnormal elements", {SUB_, SUB_, -SUB_}, 3},
        {"huge, ordinary and tiny", {TINY_, HUGE_, 1, -TINY_}, 4},
        {"Inf", {1, INF_, 2}, 3},
        {"-Inf first", {-INF_, 1, 2}, 3},
        {"NaN first", {NAN_, 1, 2}, 3},
        {"NaN in the middle", {1, NAN_, 2}, 3},
        {"NaN last", {1, 2, NAN_}, 3},
        {"NaN and Inf", {1, INF_, NAN_, 2}, 4},
        {"NaN before Inf", {NAN_, INF_}, 2},
        {"several NaN", {NAN_, 3, NAN_, NAN_}, 4},
        {"huge then NaN", {HUGE_, NAN_, 1}, 3},
    };
    static const struct { const char *what; int64_t n, inc; } incs[] = {
        {"n=0", 0, 1}, {"n=-1", -1, 1}, {"incx=0", 3, 0}, {"n=1 incx=0", 1, 0},
        {"incx=-1", 3, -1}, {"incx=-2", 3, -2}, {"n=1 incx=-1", 1, -1}, {"incx=3", 3, 3},
    };
    static const double plain[] = {1.5, -2, 3, 0.25};
    static const struct { const char *name; red_fn *f; char t; int nrm2; } rt[] = {
        {"snrm2", call_snrm2, 's', 1}, {"dnrm2", call_dnrm2, 'd', 1},
        {"scnrm2", call_scnrm2, 'c', 1}, {"dznrm2", call_dznrm2, 'z', 1},
        {"sasum", call_sasum, 's', 0}, {"dasum", call_dasum, 'd', 0},
        {"scasum", call_scasum, 'c', 0}, {"dzasum", call_dzasum, 'z', 0},
    };
    for (size_t r = 0; r < sizeof rt / sizeof rt[0]; r++) {
        for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++)
            for (int64_t inc = 1; inc <= 2; inc++)
                reduce_case(rt[r].name, rt[r].f, rt[r].t, 0, ckf("%s incx=%lld", tab[k].what, (long long)inc),
                            tab[k].count, inc, tab[k].v, tab[k].count);
        /* classic reference BLAS (and cuBLAS): nrm2 is 0 for incx <= 0 (docs/c-abi.md) */
        for (size_t k = 0; k < sizeof incs / sizeof incs[0]; k++)
            reduce_case(rt[r].name, rt[r].f, rt[r].t, rt[r].nrm2, incs[k].what, incs[k].n, incs[k].inc, plain, 4);
    }
}

/* ---- i?amax, i?amin ---------------------------------------------------------------------------- */
typedef int idx_fn(int, int64_t, const void *, int64_t, int64_t *);
static void index_case(const char *name, idx_fn *f, char t, int surfs, const char *what, int64_t n,
                       int64_t inc, const double *re, const double *im, int count)
{
    vec x;
    int64_t want = -7, got;
    spread(&x, t, re, im, count, inc);
    f(REF, n, x.b, inc, &want);
    int64_t cpu = want;
    if (surfs >> DROPIN & 1) f(CPU, n, x.b, inc, &cpu);
    /* cuBLAS's i?amax / i?amin pass over NaNs wherever they stand (the reference keeps a NaN in
     * first place): the first largest (least) |re|+|im| of the others */
    int64_t gpu = want;
    if (inc > 0 && n > 0) {
        int amax = strstr(name, "amax") != NULL;
        double held = NAN;
        for (int64_t k = 0; k < n; k++) {
            double er, ei;
            element(&x, k, inc, &er, &ei);
            double v = fabs(er) + fabs(ei);
            if (!isnan(v) && (isnan(held) || (amax ? v > held : v < held))) held = v, gpu = k + 1;
        }
    }
    for (int s = CAPI; s < NSURF; s++) {
        if (!(surfs >> s & 1)) continue;
        got = -7;
        int st = f(s, n, x.b, inc, &got);
        CHECK(st == 0 && (got == want || (s == DROPIN && got == cpu) || (cublas_rule(s) && got == gpu)),
              surf_label(s, name, what), "got %lld (status %d), reference %lld",
              (long long)got, st, (long long)want);
    }
}

static void indices(void)
{
    static const struct {
        const char *what;
        double re[NMAX], im[NMAX];
        int count;
    } tab[] = {
        {"ties: the first", {1, -3, 3, 2}, {0, 0, 0, 0}, 4},
        {"ties of |re|+|im|", {1, 3, 1, 0}, {0, 0, -2, 3}, 4},
        {"least ties: the first", {2, -1, 1, 3}, {0, 0, 0, 0}, 4},
        {"-0 and 0", {1, -0.0, 0.0, 2}, {0, 0, 0, 0}, 4},
        {"NaN first", {NAN_, 1, 5}, {0, 0, 0}, 3},
        {"NaN in the middle", {1, NAN_, 5, 0.5}, {0, 0, 0, 0}, 4},
        {"several NaN", {1, NAN_, NAN_, 0.5}, {0, 0, 0, 0}, 4},
        {"all NaN", {NAN_, NAN_}, {0, 0}, 2},
        {"NaN in an imaginary part", {1, 1, 5}, {0, NAN_, 0}, 3},
        {"NaN then Inf", {NAN_, INF_, 2}, {0, 0, 0}, 3},
        {"Inf ties", {1, INF_, -INF_}, {0, 0, 0}, 3},
        {"huge", {HUGE_, -HUGE_, 1}, {HUGE_, HUGE_, 0}, 3},
        {"subnormal", {SUB_, -SUB_, 0}, {0, 0, 0}, 3},
    };
    static const struct { const char *what; int64_t n, inc; } incs[] = {
        {"n=0", 0, 1}, {"n=-1", -1, 1}, {"incx=0", 3, 0}, {"n=1 incx=0", 1, 0},
        {"incx=-1", 3, -1}, {"n=1 incx=-1", 1, -1}, {"incx=2", 3, 2}, {"n=1", 1, 1},
    };
    static const double pre[] = {1, 4, -2, 3}, pim[] = {0, 0.5, 2, -1};
    static const struct { const char *name; idx_fn *f; char t; int surfs; } rt[] = {
        {"isamax", call_isamax, 's', ALL}, {"idamax", call_idamax, 'd', ALL},
        {"icamax", call_icamax, 'c', ALL}, {"izamax", call_izamax, 'z', ALL},
        {"isamin", call_isamin, 's', NO_DROPIN}, {"idamin", call_idamin, 'd', NO_DROPIN},
        {"icamin", call_icamin, 'c', NO_DROPIN}, {"izamin", call_izamin, 'z', NO_DROPIN},
    };
    for (size_t r = 0; r < sizeof rt / sizeof rt[0]; r++) {
        for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++)
            for (int64_t inc = 1; inc <= 2; inc++)
                index_case(rt[r].name, rt[r].f, rt[r].t, rt[r].surfs,
                           ckf("%s incx=%lld", tab[k].what, (long long)inc), tab[k].count, inc, tab[k].re,
                           tab[k].im, tab[k].count);
        for (size_t k = 0; k < sizeof incs / sizeof incs[0]; k++)
            index_case(rt[r].name, rt[r].f, rt[r].t, rt[r].surfs, incs[k].what, incs[k].n, incs[k].inc, pre,
                       pim, 4);
    }
}

/* ---- dot ------------------------------------------------------------------------------------------ */
typedef int dot_fn(int, int64_t, const void *, int64_t, const void *, int64_t, double[2]);
static void dots(void)
{
    static const struct {
        const char *what;
        double x[NMAX], y[NMAX];
        int64_t n, incx, incy;
    } tab[] = {
        {"NaN times 0", {NAN_, 1, 2}, {0, 1, 1}, 3, 1, 1},
        {"Inf times 0", {INF_, 1}, {0, 1}, 2, 1, 1},
        {"Inf", {INF_, 1}, {2, 1}, 2, 1, 1},
        {"Inf - Inf", {INF_, INF_}, {1, -1}, 2, 1, 1},
        {"huge (overflows)", {HUGE_, HUGE_}, {HUGE_, 1}, 2, 1, 1},
        {"n=0", {1, 2}, {3, 4}, 0, 1, 1},
        {"n=-1", {1, 2}, {3, 4}, -1, 1, 1},
        {"incx=0", {1.5, 2, 3}, {1, 2, 3}, 3, 0, 1},
        {"incx=-1", {1.5, 2, 3}, {1, -2, 4}, 3, -1, 1},
        {"incx=-2 incy=-1", {1.5, 2, 3}, {1, -2, 4}, 3, -2, -1},
        {"incx=2 incy=-2", {1.5, 2, 3}, {1, -2, 4}, 3, 2, -2},
    };
    static const struct { const char *name; dot_fn *f; char t; } rt[] = {
        {"sdot", call_sdot, 's'}, {"ddot", call_ddot, 'd'}, {"cdotu", call_cdotu, 'c'},
        {"cdotc", call_cdotc, 'c'}, {"zdotu", call_zdotu, 'z'}, {"zdotc", call_zdotc, 'z'},
    };
    static const double im[NMAX] = {0.5, -1, 0.25, 2};
    for (size_t r = 0; r < sizeof rt / sizeof rt[0]; r++)
        for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++) {
            vec x, y;
            double want[2], got[2];
            const double *xi = cplx(rt[r].t) ? im : NULL, *yi = xi;
            spread(&x, rt[r].t, tab[k].x, xi ? xi : tab[k].x, 4, tab[k].incx);
            spread(&y, rt[r].t, tab[k].y, yi ? yi : tab[k].y, 4, tab[k].incy);
            double cpu[2], tol = tol_of(rt[r].t);
            rt[r].f(REF, tab[k].n, x.b, tab[k].incx, y.b, tab[k].incy, want);
            rt[r].f(CPU, tab[k].n, x.b, tab[k].incx, y.b, tab[k].incy, cpu);
            /* cuBLAS's complex dot turns an infinite or overflowing element into NaN parts where
             * the reference's complex product keeps Inf or a finite part (docs/c-abi.md): such
             * cases, unless the reference's answer is NaN in both parts, are not run there, and
             * not counted */
            int wild = 0;
            for (int i = 0; i < 2; i++)
                wild |= isinf(tab[k].x[i]) || isinf(tab[k].y[i]) || tab[k].x[i] == HUGE_ || tab[k].y[i] == HUGE_;
            for (int s = CAPI; s < NSURF; s++) {
                if (cublas_rule(s) && cplx(rt[r].t) && wild && !(isnan(want[0]) && isnan(want[1]))) {
                    printf("# not run on the cuda backend: %s\n", surf_label(s, rt[r].name, tab[k].what));
                    continue;
                }
                got[0] = got[1] = -7;
                int st = rt[r].f(s, tab[k].n, x.b, tab[k].incx, y.b, tab[k].incy, got);
                CHECK(st == 0 && ((agree(got[0], want[0], tol) && agree(got[1], want[1], tol)) ||
                                  (s == DROPIN && agree(got[0], cpu[0], tol) && agree(got[1], cpu[1], tol))),
                      surf_label(s, rt[r].name, tab[k].what), "got (%.9g,%.9g) (status %d), reference (%.9g,%.9g)",
                      got[0], got[1], st, want[0], want[1]);
            }
        }
}

/* ---- routines that write vectors: run on fresh copies, compare every element of the span ---- */
typedef struct {
    const char *name;
    char t;
    int surfs, exact;
} vrt;

/* call(s, x, y) on fresh copies of x0, y0 per surface; x and y compared to the reference's (the
 * drop-in's also to the CPU BLAS's) */
#define VEC_CASE(R, WHAT, X0, Y0, CALL)                                                            \
    do {                                                                                           \
        vec x = (X0), y = (Y0), wx = (X0), wy = (Y0), cx = (X0), cy = (Y0);                        \
        for (int s = REF; s <= CPU; s += CPU - REF) {                                              \
            vec *px = s == REF ? &wx : &cx, *py = s == REF ? &wy : &cy;                            \
            (void)px, (void)py;                                                                    \
            CALL;                                                                                  \
        }                                                                                          \
        for (int s = CAPI; s < NSURF; s++) {                                                       \
            if (!((R).surfs >> s & 1)) continue;                                                   \
            x = (X0), y = (Y0);                                                                    \
            vec *px = &x, *py = &y;                                                                \
            (void)px, (void)py;                                                                    \
            int st = CALL;                                                                         \
            int dx = differ(&x, &wx, (R).exact), dy = differ(&y, &wy, (R).exact);                  \
            if (s == DROPIN && differ(&x, &cx, (R).exact) < 0 && differ(&y, &cy, (R).exact) < 0)   \
                dx = dy = -1;                                                                      \
            CHECK(st == 0 && dx < 0 && dy < 0, surf_label(s, (R).name, (WHAT)),                   \
                  "status %d; %s", st,                                                             \
                  dx >= 0 ? ckf("x[%d] = %s, reference %s", dx, show(&x, dx), show(&wx, dx))       \
                  : dy >= 0 ? ckf("y[%d] = %s, reference %s", dy, show(&y, dy), show(&wy, dy))     \
                            : "outputs agree");                                                    \
        }                                                                                          \
    } while (0)

static vec mk(char t, const double *re, const double *im, int count, int64_t inc)
{
    vec v;
    spread(&v, t, re, im, count, inc);
    return v;
}

/* an increment case: n, incx, incy, and whether an output increment is 0 (host backend only) */
static const struct { const char *what; int64_t n, incx, incy; } vincs[] = {
    {"n=0", 0, 1, 1}, {"n=-1", -1, 1, 1}, {"incx=-1", 3, -1, 1}, {"incy=-1", 3, 1, -1},
    {"incx=-2 incy=3", 3, -2, 3}, {"incx=2 incy=-2", 3, 2, -2}, {"incx=0", 3, 0, 1},
    {"incy=0", 3, 1, 0}, {"n=1 incx=0 incy=-1", 1, 0, -1},
};
static int out_inc0_ok(int64_t inc) { return inc != 0 || on_host(); }

static void axpys(void)
{
    typedef int fn(int, int64_t, zd, const void *, int64_t, void *, int64_t);
    static const struct { vrt r; fn *f; } rt[] = {
        {{"saxpy", 's', ALL, 0}, call_saxpy}, {{"daxpy", 'd', ALL, 0}, call_daxpy},
        {{"caxpy", 'c', ALL, 0}, call_caxpy}, {{"zaxpy", 'z', ALL, 0}, call_zaxpy},
    };
    static const struct { const char *what; zd alpha; double x[NMAX], y[NMAX]; } tab[] = {
        {"alpha=0, NaN and Inf in x", 0, {NAN_, INF_, 1}, {1, 2, 3}},
        {"alpha=0, NaN in y", 0, {1, 2, 3}, {NAN_, 2, 3}},
        {"alpha=NaN", NAN_, {1, 2, 3}, {1, 2, 3}},
        {"alpha=1, Inf + -Inf", 1, {INF_, 1, 2}, {-INF_, 1, 2}},
        {"alpha=i, NaN in x", I, {NAN_, 1, 2}, {1, 2, 3}},
    };
    static const double x0[] = {1.5, -2, 3, 0.5}, y0[] = {4, 0.25, -1, 2};
    for (size_t r = 0; r < sizeof rt / sizeof rt[0]; r++) {
        char t = rt[r].r.t;
        for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++) {
            if (!cplx(t) && cimag(tab[k].alpha) != 0) continue;
            VEC_CASE(rt[r].r, tab[k].what, mk(t, tab[k].x, NULL, 3, 1), mk(t, tab[k].y, NULL, 3, 1),
                     rt[r].f(s, 3, tab[k].alpha, px->b, 1, py->b, 1));
        }
        for (size_t k = 0; k < sizeof vincs / sizeof vincs[0]; k++)
            if (out_inc0_ok(vincs[k].incy))
                VEC_CASE(rt[r].r, vincs[k].what, mk(t, x0, NULL, 4, vincs[k].incx), mk(t, y0, NULL, 4, vincs[k].incy),
                         rt[r].f(s, vincs[k].n, 0.5 - 2 * I, px->b, vincs[k].incx, py->b, vincs[k].incy));
    }
}

static void scals(void)
{
    typedef int fn(int, int64_t, zd, void *, int64_t);
    static const struct { vrt r; fn *f; } rt[] = {
        {{"sscal", 's', ALL, 0}, call_sscal}, {{"dscal", 'd', ALL, 0}, call_dscal},
        {{"cscal", 'c', ALL, 0}, call_cscal}, {{"zscal", 'z', ALL, 0}, call_zscal},
        {{"csscal", 'c', ALL, 0}, call_csscal}, {{"zdscal", 'z', ALL, 0}, call_zdscal},
    };
    static const struct { const char *what; zd alpha; double x[NMAX]; } tab[] = {
        {"alpha=0, NaN and Inf in x", 0, {NAN_, INF_, 1, -2}},
        {"alpha=NaN", NAN_, {1, 0, 2, 3}},
        {"alpha=Inf, 0 in x", INF_, {0, 1, 2, 3}},
        {"alpha=1, NaN in x", 1, {NAN_, 1, 2, 3}},
        {"alpha=huge", HUGE_, {HUGE_, TINY_, 1, 2}},
    };
    static const double x0[] = {1.5, -2, 3, 0.5};
    for (size_t r = 0; r < sizeof rt / sizeof rt[0]; r++) {
        char t = rt[r].r.t;
        vec none = mk(t, x0, NULL, 0, 1);
        for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++) {
            zd a = creal(tab[k].alpha) == HUGE_ ? special(t, HUGE_) : tab[k].alpha;
            VEC_CASE(rt[r].r, tab[k].what, mk(t, tab[k].x, NULL, 4, 1), none, rt[r].f(s, 4, a, px->b, 1));
        }
        for (size_t k = 0; k < sizeof vincs / sizeof vincs[0]; k++)
            VEC_CASE(rt[r].r, vincs[k].what, mk(t, x0, NULL, 4, vincs[k].incx), none,
                     rt[r].f(s, vincs[k].n, 0.5, px->b, vincs[k].incx));
    }
}

static void pairs(void)
{
    typedef int fn(int, int64_t, void *, int64_t, void *, int64_t);
    static const struct { vrt r; fn *f; int swap; } rt[] = {
        {{"scopy", 's', ALL, 1}, call_scopy, 0}, {{"dcopy", 'd', ALL, 1}, call_dcopy, 0},
        {{"ccopy", 'c', ALL, 1}, call_ccopy, 0}, {{"zcopy", 'z', ALL, 1}, call_zcopy, 0},
        {{"sswap", 's', ALL, 1}, call_sswap, 1}, {{"dswap", 'd', ALL, 1}, call_dswap, 1},
        {{"cswap", 'c', ALL, 1}, call_cswap, 1}, {{"zswap", 'z', ALL, 1}, call_zswap, 1},
    };
    /* bits a copy must keep: -0, subnormals, NaN, Inf */
    static const double x0[] = {-0.0, SUB_, NAN_, -INF_}, y0[] = {4, 0.25, -1, 2};
    for (size_t r = 0; r < sizeof rt / sizeof rt[0]; r++) {
        char t = rt[r].r.t;
        for (size_t k = 0; k < sizeof vincs / sizeof vincs[0]; k++)
            if (out_inc0_ok(vincs[k].incy) && (!rt[r].swap || out_inc0_ok(vincs[k].incx)))
                VEC_CASE(rt[r].r, vincs[k].what, mk(t, x0, NULL, 4, vincs[k].incx), mk(t, y0, NULL, 4, vincs[k].incy),
                         rt[r].f(s, vincs[k].n, px->b, vincs[k].incx, py->b, vincs[k].incy));
        VEC_CASE(rt[r].r, "special values", mk(t, x0, NULL, 4, 1), mk(t, y0, NULL, 4, 1),
                 rt[r].f(s, 4, px->b, 1, py->b, 1));
    }
}

static void rots(void)
{
    typedef int fn(int, int64_t, void *, int64_t, void *, int64_t, double, double);
    static const struct { vrt r; fn *f; } rt[] = {
        {{"srot", 's', ALL, 0}, call_srot}, {{"drot", 'd', ALL, 0}, call_drot},
        {{"csrot", 'c', ALL, 0}, call_csrot}, {{"zdrot", 'z', ALL, 0}, call_zdrot},
    };
    static const struct { const char *what; double c, s, x[NMAX], y[NMAX]; } tab[] = {
        {"c=1 s=0, NaN in y", 1, 0, {1, 2, 3}, {NAN_, 1, 2}},
        {"c=0 s=1, Inf in x", 0, 1, {INF_, 2, 3}, {1, 1, 2}},
        {"c=0.6 s=0.8, huge", 0.6, 0.8, {HUGE_, 2, 3}, {HUGE_, 1, 2}},
    };
    static const double x0[] = {1.5, -2, 3, 0.5}, y0[] = {4, 0.25, -1, 2};
    for (size_t r = 0; r < sizeof rt / sizeof rt[0]; r++) {
        char t = rt[r].r.t;
        /* csrot, zdrot: reference BLAS makes c and s complex, (1,0)*(Inf,Inf) = (NaN,NaN); cufort
         * scales each part by the real s and gives Inf, and the case is left out for them */
        for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++)
            if (!cplx(t) || !isinf(tab[k].x[0]))
                VEC_CASE(rt[r].r, tab[k].what, mk(t, tab[k].x, NULL, 3, 1), mk(t, tab[k].y, NULL, 3, 1),
                         rt[r].f(s, 3, px->b, 1, py->b, 1, tab[k].c, tab[k].s));
        for (size_t k = 0; k < sizeof vincs / sizeof vincs[0]; k++)
            if (out_inc0_ok(vincs[k].incx) && out_inc0_ok(vincs[k].incy))
                VEC_CASE(rt[r].r, vincs[k].what, mk(t, x0, NULL, 4, vincs[k].incx), mk(t, y0, NULL, 4, vincs[k].incy),
                         rt[r].f(s, vincs[k].n, px->b, vincs[k].incx, py->b, vincs[k].incy, 0.6, -0.8));
    }
}

static void rotms(void)
{
    typedef int fn(int, int64_t, void *, int64_t, void *, int64_t, const double[5]);
    static const struct { vrt r; fn *f; } rt[] = {
        {{"srotm", 's', ALL, 0}, call_srotm}, {{"drotm", 'd', ALL, 0}, call_drotm},
    };
    /* entries a flag does not use hold 99: they must not be read */
    static const struct { const char *what; double p[5]; } tab[] = {
        {"flag -2 (identity)", {-2, 99, 99, 99, 99}},
        {"flag -1 (full H)", {-1, 0.5, -2, 3, 0.25}},
        {"flag 0 (unit diagonal)", {0, 99, -2, 3, 99}},
        {"flag 1 (unit off-diagonal)", {1, 0.5, 99, 99, 0.25}},
    };
    static const double x0[] = {1.5, -2, NAN_, 0.5}, y0[] = {4, 0.25, -1, INF_};
    for (size_t r = 0; r < sizeof rt / sizeof rt[0]; r++) {
        char t = rt[r].r.t;
        for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++) {
            VEC_CASE(rt[r].r, tab[k].what, mk(t, x0, NULL, 4, 1), mk(t, y0, NULL, 4, 1),
                     rt[r].f(s, 4, px->b, 1, py->b, 1, tab[k].p));
            for (size_t i = 0; i < sizeof vincs / sizeof vincs[0]; i++)
                if (out_inc0_ok(vincs[i].incx) && out_inc0_ok(vincs[i].incy))
                    VEC_CASE(rt[r].r, ckf("%s %s", tab[k].what, vincs[i].what), mk(t, x0, NULL, 2, vincs[i].incx),
                             mk(t, y0, NULL, 2, vincs[i].incy),
                             rt[r].f(s, vincs[i].n, px->b, vincs[i].incx, py->b, vincs[i].incy, tab[k].p));
        }
    }
}

/* ---- the generators -------------------------------------------------------------------------------- */
/* the first of a, b, c, s (complex: b is an input, left alone) that differs, -1: none */
static int rotg_differ(char t, const zd got[4], const zd want[4])
{
    for (int i = 0; i < 4; i++)
        if ((i != 1 || !cplx(t)) && (!agree(creal(got[i]), creal(want[i]), tol_of(t)) ||
                                     !agree(cimag(got[i]), cimag(want[i]), tol_of(t))))
            return i;
    return -1;
}

static void rotgs(void)
{
    typedef int fn(int, zd[4]);
    static const struct { const char *name; fn *f; char t; } rt[] = {
        {"srotg", call_srotg, 's'}, {"drotg", call_drotg, 'd'},
        {"crotg", call_crotg, 'c'}, {"zrotg", call_zrotg, 'z'},
    };
    static const struct { const char *what; zd a, b; int complex_only; } tab[] = {
        {"a=b=0", 0, 0, 0},
        {"a=0", 0, 2, 0},
        {"b=0", 3, 0, 0},
        {"a=-0 b=-2", -0.0, -2, 0},
        {"3, 4", 3, 4, 0},
        {"-4, 3", -4, 3, 0},
        {"4, -3", 4, -3, 0},
        {"huge, huge", HUGE_, HUGE_, 0},
        {"huge, 1", HUGE_, 1, 0},
        {"tiny, tiny", TINY_, -TINY_, 0},
        {"subnormal, subnormal", SUB_, SUB_, 0},
        {"a=0, complex b", 0, 3 + 4 * I, 1},
        {"complex a, b=0", 3 - 4 * I, 0, 1},
        {"complex a, b", 1 + 2 * I, 3 - I, 1},
        {"huge complex", HUGE_ + HUGE_ * I, HUGE_ - HUGE_ * I, 1},
    };
    for (size_t r = 0; r < sizeof rt / sizeof rt[0]; r++) {
        char t = rt[r].t;
        for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++) {
            if (tab[k].complex_only && !cplx(t)) continue;
            zd in[4], want[4], got[4];
            in[0] = special(t, creal(tab[k].a)) + I * special(t, cimag(tab[k].a));
            in[1] = special(t, creal(tab[k].b)) + I * special(t, cimag(tab[k].b));
            if (!cplx(t)) in[0] = creal(in[0]), in[1] = creal(in[1]);
            in[2] = in[3] = 0;
            memcpy(want, in, sizeof in);
            rt[r].f(REF, want);
            zd cpu[4], classic[4] = {in[1], in[1], 0, 1};
            memcpy(cpu, in, sizeof in);
            rt[r].f(CPU, cpu);
            for (int s = CAPI; s < NSURF; s++) {
                /* cuBLAS's crotg / zrotg lose the rotation on subnormal inputs, and its crotg on
                 * complex ones near overflow (docs/c-abi.md): not run there, and not counted */
                if (cublas_rule(s) && cplx(t) &&
                    (strstr(tab[k].what, "subnormal") || (t == 'c' && !strcmp(tab[k].what, "huge complex")))) {
                    printf("# not run on the cuda backend: %s\n", surf_label(s, rt[r].name, tab[k].what));
                    continue;
                }
                memcpy(got, in, sizeof in);
                int st = rt[r].f(s, got), bad = rotg_differ(t, got, want);
                /* complex a = 0: classic reference BLAS's r = b, s = 1 is as good a rotation as
                 * 3.10's r = |b|, s = conj(b)/|b| */
                if (bad >= 0 && cplx(t) && in[0] == 0 && rotg_differ(t, got, classic) < 0) bad = -1;
                if (bad >= 0 && s == DROPIN && rotg_differ(t, got, cpu) < 0) bad = -1;
                static const char *out[4] = {"a (r)", "b (z)", "c", "s"};
                int b = bad < 0 ? 0 : bad;
                CHECK(st == 0 && bad < 0, surf_label(s, rt[r].name, tab[k].what),
                      "status %d; %s = (%.9g,%.9g), reference (%.9g,%.9g)", st, bad < 0 ? "-" : out[b],
                      creal(got[b]), cimag(got[b]), creal(want[b]), cimag(want[b]));
            }
        }
    }
}

/* the first output (d1, d2, x1, param) that differs where got's flag defines it, -1: none */
static int rotmg_differ(const double got[9], const double want[9], double tol)
{
    static const int used[4][5] = {{1, 1, 1, 1, 1}, {1, 0, 1, 1, 0}, {1, 1, 0, 0, 1}, {1, 0, 0, 0, 0}};
    int flag = (int)want[4], row = flag == -1 ? 0 : flag == 0 ? 1 : flag == 1 ? 2 : 3;
    for (int i = 0; i < 9; i++)
        if (i != 3 && (i < 4 || used[row][i - 4]) && !agree(got[i], want[i], tol)) return i;
    return -1;
}

/* What rotmg must give, reference or not: H (x1, y1) = (x1', 0), d1' x1'^2 = d1 x1^2 + d2 y1^2
 * (both scaled by the square root of d), or flag -2 with d and x1 untouched.  NULL: it does. */
static const char *rotmg_wrong(const double got[9], const double in[9], double tol)
{
    double f = got[4], h11 = got[5], h21 = got[6], h12 = got[7], h22 = got[8];
    if (f == -2) return got[0] == in[0] && got[1] == in[1] && got[2] == in[2] ? NULL : "flag -2 changed d or x1";
    if (f == 0) h11 = h22 = 1;
    if (f == 1) h21 = -1, h12 = 1;
    if (f != -1 && f != 0 && f != 1) return ckf("flag %g", f);
    if (got[0] == 0 && got[1] == 0 && got[2] == 0 && h11 == 0 && h12 == 0 && h21 == 0 && h22 == 0) return NULL;
    double x = in[2], y = in[3], sd1 = sqrt(fabs(in[0])), sd2 = sqrt(fabs(in[1]));
    double scale = fmax(fabs(sd1 * x), fabs(sd2 * y));
    double zero = sqrt(fabs(got[1])) * (h21 * x + h22 * y), first = sqrt(fabs(got[0])) * (h11 * x + h12 * y);
    if (fabs(zero) > 1e3 * tol * scale) return ckf("H (x1, y1) has second part %.9g, not 0", zero);
    if (!agree(first, sqrt(fabs(got[0])) * got[2], 1e3 * tol))
        return ckf("H (x1, y1) = %.9g, x1' %.9g", first, got[2]);
    double before = in[0] * x * x + in[1] * y * y, after = got[0] * got[2] * got[2];
    if (!agree(after, before, 1e3 * tol)) return ckf("d1' x1'^2 = %.9g, d1 x1^2 + d2 y1^2 = %.9g", after, before);
    return NULL;
}

static void rotmgs(void)
{
    typedef int fn(int, double[9]);
    static const struct { const char *name; fn *f; char t; } rt[] = {
        {"srotmg", call_srotmg, 's'}, {"drotmg", call_drotmg, 'd'},
    };
    /* ref_bug: netlib 3.11 overwrites h21 and h12 with -1 and 1 on a second rescaling (fixed
     * upstream since): such a case is held to the definition alone */
    static const struct { const char *what; double d1, d2, x1, y1; int ref_bug; } tab[] = {
        {"d2*y1=0 (flag -2)", 1, 1, 1, 0, 0},
        {"d1<0 (flag -1, zeroed)", -1, 1, 1, 1, 0},
        {"|q1|>|q2| (flag 0)", 2, 1, 3, 1, 0},
        {"|q1|<=|q2| (flag 1)", 1, 2, 1, 3, 0},
        {"flag 1 with q2<0 (zeroed)", 1, -1, 1, 2, 0},
        {"x1=0", 1, 1, 0, 1, 0},
        {"d1=0", 0, 1, 1, 1, 0},
        {"d2<0, |q1|>|q2|", 4, -1, 2, 1, 0},
        {"d1 tiny (rescaled up)", 1e-9, 1, 1, 1e-6, 0},
        {"d1 huge (rescaled down)", 1e9, 1, 1, 1e-3, 0},
        {"d2 huge (rescaled down)", 1, 1e9, 1e-3, 1, 0},
        {"d2 tiny (rescaled up)", 1, 1e-9, 1e-6, 1, 0},
        {"d1 very tiny (rescaled twice)", 1e-20, 1, 1, 1e-9, 1},
        {"d1 very huge (rescaled twice)", 1e20, 1, 1, 1e-9, 1},
    };
    static const char *out[9] = {"d1", "d2", "x1", "y1", "flag", "h11", "h21", "h12", "h22"};
    for (size_t r = 0; r < 2; r++)
        for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++) {
            double in[9] = {tab[k].d1, tab[k].d2, tab[k].x1, tab[k].y1}, want[9], cpu[9], got[9];
            double tol = 4 * tol_of(rt[r].t);
            memcpy(want, in, sizeof in);
            memcpy(cpu, in, sizeof in);
            rt[r].f(REF, want);
            rt[r].f(CPU, cpu);
            for (int s = CAPI; s < NSURF; s++) {
                memcpy(got, in, sizeof in);
                int st = rt[r].f(s, got);
                const char *why = rotmg_wrong(got, in, tol);
                int bad = tab[k].ref_bug ? -1 : rotmg_differ(got, want, tol);
                if (s == DROPIN && rotmg_differ(got, cpu, tol) < 0) bad = -1, why = NULL;
                int b = bad < 0 ? 0 : bad;
                CHECK(st == 0 && bad < 0 && !why, surf_label(s, rt[r].name, tab[k].what), "status %d; %s", st,
                      why ? why : ckf("%s = %.9g, reference %.9g", out[b], got[b], want[b]));
            }
        }
}

/* ---- Level 2: zero scalars read nothing they need not ------------------------------------------ */
static void level2(void)
{
    typedef int gemv_fn(int, int64_t, int64_t, double, const void *, const void *, double, void *);
    typedef int ger_fn(int, int64_t, int64_t, double, const void *, const void *, void *);
    static const struct { vrt r; gemv_fn *gemv; ger_fn *ger; } rt[] = {
        {{"sgemv/sger", 's', ALL, 0}, call_sgemv, call_sger}, {{"dgemv/dger", 'd', ALL, 0}, call_dgemv, call_dger},
    };
    static const double a0[] = {NAN_, 1, INF_, 2}, x0[] = {INF_, NAN_}, y0[] = {NAN_, 3}, y1[] = {1, 3};
    static const double a1[] = {1, 2, 3, 4}, x1[] = {1, -1};
    for (size_t r = 0; r < 2; r++) {
        char t = rt[r].r.t;
        vec A = mk(t, a0, NULL, 4, 1), X = mk(t, x0, NULL, 2, 1);
        VEC_CASE(rt[r].r, "gemv alpha=0 beta=1, NaN and Inf in A and x", A, mk(t, y1, NULL, 2, 1),
                 rt[r].gemv(s, 2, 2, 0, A.b, X.b, 1, py->b));
        VEC_CASE(rt[r].r, "gemv alpha=0 beta=0, NaN in y", A, mk(t, y0, NULL, 2, 1),
                 rt[r].gemv(s, 2, 2, 0, A.b, X.b, 0, py->b));
        vec A1 = mk(t, a1, NULL, 4, 1), X1 = mk(t, x1, NULL, 2, 1);
        VEC_CASE(rt[r].r, "gemv beta=0, NaN in y", A1, mk(t, y0, NULL, 2, 1),
                 rt[r].gemv(s, 2, 2, 1, A1.b, X1.b, 0, py->b));
        VEC_CASE(rt[r].r, "ger alpha=0, NaN in x and y", mk(t, a1, NULL, 4, 1), X,
                 rt[r].ger(s, 2, 2, 0, X.b, X.b, px->b));
    }
}

static void run_cases(void)
{
    reductions();
    indices();
    dots();
    axpys();
    scals();
    pairs();
    rots();
    rotms();
    rotgs();
    rotmgs();
    level2();
}
