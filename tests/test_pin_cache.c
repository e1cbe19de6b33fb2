/* test_pin_cache.c — host arrays that thunked calls keep passing are pinned in place, and never
 * trusted after their pages go.  Each case writes new values into an array and checks the call's
 * result bit for bit (sscal by 2 is exact): on the cuda backend a pin kept across munmap, madvise
 * or mremap would DMA the old pages and return the old values doubled.  The cache's own counts
 * (cufort_pin_cache_info) are checked on both backends; the host backend pins nothing but keeps
 * the same books.  The cache takes any array over 32 MiB, so most arrays here are 33-48 MiB; from
 * 1 MiB, static ones and malloc blocks of their own mapping (small_static, small_dynamic).  Without
 * userfaultfd the cache never pins: the cases say so, as skipped. */
#define _GNU_SOURCE
#include <complex.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cufort.h"

#define MIB ((size_t)1 << 20)

static float value(int64_t i, int gen) { return 1.0f + (float)((i * 7 + gen * 131) % 9973) * 0.25f; }

/* fill with generation gen's values, scale by 2 through the thunk, count the wrong elements */
static int64_t scaled_wrong(float *x, int64_t n, int gen)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = value(i, gen);
    if (cufort_sscal_host(n, 2.0f, x, 1))
        return -1;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        if (x[i] != 2.0f * value(i, gen) && bad++ == 0)
            printf("# x[%lld] = %g, want %g (generation %d)\n", (long long)i, x[i],
                   2.0f * value(i, gen), gen);
    return bad;
}

static int pinned_arrays(int64_t *bytes)
{
    int64_t b = 0;
    int arrays = -1, watch = 0;
    cufort_pin_cache_info(&b, &arrays, &watch);
    if (bytes)
        *bytes = b;
    return arrays;
}

static int can_watch;

/* calls 1..calls on x, each result checked; returns the pinned count after the last */
static int use(float *x, int64_t n, int calls, int gen, const char *what)
{
    int64_t bad = 0;
    for (int c = 0; c < calls && bad == 0; c++)
        bad = scaled_wrong(x, n, gen + c);
    CHECK(bad == 0, what, "%lld elements wrong (-1: the call failed: %s)", (long long)bad,
          cufort_last_error());
    return pinned_arrays(NULL);
}

/* each case starts from an empty table: earlier cases leave pins (heap blocks freed without an
 * unmap keep their pages) and entries needing more sightings at addresses malloc hands out again */
static void fresh(void)
{
    cufort_pin_cache_limit(0);
    cufort_pin_cache_limit(-1);
}

static void *map(void *at, size_t bytes, int flags)
{
    void *p = mmap(at, bytes, PROT_READ | PROT_WRITE,
                   flags | (at ? MAP_FIXED_NOREPLACE : 0), -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* from an empty table, a new private mapping whose first n floats two calls pin (checked) */
static float *pinned_mapping(size_t bytes, int64_t n, int gen, const char *what)
{
    fresh();
    float *x = map(NULL, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
    use(x, n, 2, gen, ckf("%s: two calls", what));
    CHECK(pinned_arrays(NULL) == 1, ckf("%s: pinned", what), "%d pinned", pinned_arrays(NULL));
    return x;
}

static void repeated(void)
{
    fresh();
    int64_t n = (40 << 18) + 5;   /* 40 MiB + 20 bytes, malloc'd: a mapping of its own */
    float *x = malloc((size_t)n * sizeof *x);
    int after1 = use(x, n, 1, 0, "repeated: first call");
    int after2 = use(x, n, 1, 1, "repeated: second call");
    int64_t bytes = 0;
    pinned_arrays(&bytes);
    CHECK(after1 == 0, "repeated: nothing pinned after one call", "%d pinned", after1);
    CHECK(after2 == 1 && bytes <= n * 4 && bytes > n * 4 - 2 * (int64_t)getpagesize(),
          "repeated: its whole pages pinned at its third copy (the second call's upload)",
          "%d arrays, %lld bytes pinned for %lld", after2, (long long)bytes, (long long)n * 4);
    use(x, n, 4, 2, "repeated: four calls on the pinned array");
    /* the program pins it itself: the cache lets go first */
    CHECK_OK(cufort_host_register(x, n * 4), "repeated: cufort_host_register over a cached pin");
    CHECK(pinned_arrays(NULL) == 0, "repeated: the cache let go", "%d pinned", pinned_arrays(NULL));
    use(x, n, 2, 6, "repeated: calls on the program's own pin");
    CHECK_OK(cufort_host_unregister(x), "repeated: cufort_host_unregister");
    free(x);
    CHECK(pinned_arrays(NULL) == 0, "repeated: nothing pinned after free", "%d pinned",
          pinned_arrays(NULL));
}

/* two arrays sharing a page (one malloc block): each pins its own whole pages; the shared page
 * goes as a small pageable copy with either */
static void neighbours(void)
{
    fresh();
    int64_t n = (34 << 18) + 333;
    float *block = malloc((size_t)(2 * n + 8) * sizeof *block), *a = block + 1, *b = a + n + 3;
    int64_t bad = 0;
    for (int c = 0; c < 3 && bad == 0; c++) {
        bad = scaled_wrong(a, n, 5 + c);
        bad = bad ? bad : scaled_wrong(b, n, 8 + c);
    }
    int both = pinned_arrays(NULL);
    for (int c = 0; c < 2 && bad == 0; c++)
        bad = scaled_wrong(c ? a : b, n, 11 + c);
    CHECK(bad == 0 && both == 2, "neighbours: both pinned, results right",
          "%lld wrong, %d pinned", (long long)bad, both);
    free(block);
}

/* x(1:m) pinned, then x(1:n), n > m, used again and again takes the pin over; then x(1:m) and a
 * 1 MiB piece of it go by DMA from the larger pin */
static void grown(void)
{
    fresh();
    int64_t n = 48 << 18, m = (33 << 18) + 7;   /* 48 MiB and 33 MiB + 28 bytes */
    float *x = malloc((size_t)n * sizeof *x);
    use(x, m, 2, 500, "grown: x(1:m), two calls");
    int64_t small = 0, large = 0;
    int first = pinned_arrays(&small);
    use(x, n, 2, 510, "grown: x(1:n), two calls");
    int second = pinned_arrays(&large);
    use(x, m, 2, 520, "grown: x(1:m) again, two calls");
    use(x + 7, 1 << 18, 2, 530, "grown: 1 MiB inside, two calls");
    int64_t after = 0;
    int third = pinned_arrays(&after);
    CHECK(first == 1 && small <= m * 4 && second == 1 && large > m * 4 && third == 1 &&
              after == large,
          "grown: the larger range took the pin over, and serves the smaller",
          "%d (%lld bytes), %d (%lld), %d (%lld)", first, (long long)small, second,
          (long long)large, third, (long long)after);
    free(x);
}

/* a plain copy (cufort_set_vector, cufort_get_vector) that starts inside a pin and runs past its
 * end, over memory next to the array: the driver refuses such a copy, so the pin goes first */
static void straddled(void)
{
    fresh();
    size_t region = 48 * MIB;
    char *r = map(NULL, region, MAP_PRIVATE | MAP_ANONYMOUS);
    float *a = (float *)(r + 4 * MIB);
    use(a, (int64_t)(40 * MIB / 4), 2, 600, "straddled: the array, two calls");
    int before = pinned_arrays(NULL);
    int64_t n = (int64_t)(24 * MIB / 4);
    float *from = (float *)(r + 24 * MIB), *back = malloc(24 * MIB);
    for (int64_t i = 0; i < n; i++)
        from[i] = value(i, 610);
    void *d = NULL;
    CHECK_OK(cufort_alloc(&d, (int64_t)(24 * MIB)), "straddled: device buffer");
    CHECK_OK(cufort_set_vector(n, 4, from, 1, d, 1), "straddled: set_vector from inside the pin on");
    CHECK_OK(cufort_get_vector(n, 4, d, 1, back, 1), "straddled: get_vector");
    CHECK(before == 1 && pinned_arrays(NULL) == 0 && !memcmp(back, from, 24 * MIB),
          "straddled: the pin went, the bytes arrived", "%d then %d pinned, bytes %s", before,
          pinned_arrays(NULL), memcmp(back, from, 24 * MIB) ? "differ" : "same");
    cufort_free(d);
    free(back);
    munmap(r, region);
}

/* pinned, then unmapped: the pin must be gone by the time munmap returns, and a new mapping at the
 * same addresses must be read, not the old pages */
static void unmapped(void)
{
    size_t bytes = 40 * MIB + 4096;
    int64_t n = (int64_t)(bytes / 4) - 3;
    float *x = pinned_mapping(bytes, n, 10, "unmapped");
    munmap(x, bytes);
    CHECK(pinned_arrays(NULL) == 0, "unmapped: unpinned when munmap returns", "%d pinned",
          pinned_arrays(NULL));
    float *y = map(x, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
    printf("# the new mapping is %s\n", y == x ? "at the same address" : "elsewhere");
    use(y, n, 3, 20, "unmapped: new pages at the old addresses, three calls");
    munmap(y, bytes);
}

/* pinned, then part of it discarded (the pages read as zeros after) */
static void discarded(void)
{
    size_t bytes = 36 * MIB;
    int64_t n = (int64_t)(bytes / 4);
    float *x = pinned_mapping(bytes, n, 30, "discarded");
    madvise((char *)x + 3 * MIB, 64 << 10, MADV_DONTNEED);
    CHECK(pinned_arrays(NULL) == 0 && x[3 * MIB / 4] == 0.0f,
          "discarded: unpinned when madvise returns, the pages zeros", "%d pinned, x = %g",
          pinned_arrays(NULL), x[3 * MIB / 4]);
    use(x, n, 2, 40, "discarded: two calls after");
    munmap(x, bytes);
}

/* pinned, then moved by mremap to addresses of its own */
static void moved(void)
{
    size_t bytes = 36 * MIB;
    int64_t n = (int64_t)(bytes / 4);
    float *x = pinned_mapping(bytes, n, 50, "moved");
    char *hole = map(NULL, 2 * bytes, MAP_PRIVATE | MAP_ANONYMOUS);
    float *y = mremap(x, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
    CHECK(y == (float *)hole && pinned_arrays(NULL) == 0,
          "moved: unpinned when mremap returns", "moved to %p (want %p), %d pinned", (void *)y,
          (void *)hole, pinned_arrays(NULL));
    float *z = map(x, bytes, MAP_PRIVATE | MAP_ANONYMOUS);   /* fresh pages where it was */
    use(y, n, 3, 60, "moved: three calls at the new addresses");
    if (z)
        use(z, n, 3, 70, "moved: three calls on new pages at the old addresses");
    munmap(hole, 2 * bytes);
    if (z)
        munmap(z, bytes);
}

/* a temporary mapped and unmapped around every call, at the same address: pinned ever more rarely */
static void temporaries(void)
{
    fresh();
    size_t bytes = 34 * MIB;
    int64_t n = (int64_t)(bytes / 4);
    float *first = map(NULL, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
    munmap(first, bytes);
    int pins = 0, wrong = 0, rounds = 48;
    for (int r = 0; r < rounds; r++) {
        float *x = map(first, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
        if (!x)
            x = map(NULL, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
        wrong += scaled_wrong(x, n, 80 + r) != 0;
        pins += pinned_arrays(NULL);
        munmap(x, bytes);
        wrong += pinned_arrays(NULL) != 0;
    }
    printf("# temporaries: pinned in %d of %d rounds\n", pins, rounds);
    CHECK(wrong == 0, "temporaries: 48 mapped, used once, unmapped", "%d wrong", wrong);
    CHECK(pins <= 4, "temporaries: pinned at most 4 times in 48 (each loss doubles the count)",
          "pinned %d times", pins);
}

static void not_cached(void)
{
    fresh();
    /* a shared mapping can lose its pages without an event: never pinned */
    size_t bytes = 36 * MIB;
    float *s = map(NULL, bytes, MAP_SHARED | MAP_ANONYMOUS);
    int got = use(s, (int64_t)(bytes / 4), 5, 90, "shared mapping: five calls");
    CHECK(got == 0, "shared mapping: never pinned", "%d pinned", got);
    munmap(s, bytes);
}

/* From 1 MiB to 32 MiB only memory that nothing but an unmap takes away is pinned: static data
 * and a block that malloc mapped on its own.  A heap block or a stack array keeps its pages when
 * freed or returned from, so a pin there would outlive it: never pinned. */
static float static_array[(3 * MIB + 64) / 4];

static void small_static(void)
{
    fresh();
    int64_t n = (int64_t)(sizeof static_array / 4) - 5;
    int got = use(static_array + 1, n, 3, 700, "static 3 MiB array: three calls");
    CHECK(got == 1, "static 3 MiB array: pinned", "%d pinned", got);
    use(static_array + 1, n, 3, 703, "static 3 MiB array: three calls on the pin");
    fresh();
    got = use(static_array, (int64_t)(MIB / 4) - 16, 5, 706, "static array under 1 MiB: five calls");
    CHECK(got == 0, "static array under 1 MiB: never pinned", "%d pinned", got);
}

static int64_t on_stack(int64_t n, int gen)
{
    float x[n];
    use(x, n, 5, gen, "2 MiB stack array: five calls");
    return pinned_arrays(NULL);
}

static void small_dynamic(void)
{
    int64_t n;
    float *x;
    int got;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    /* a sanitizer's malloc keeps its own books: no glibc block, nothing to pin */
    fresh();
    n = (5 << 18) + 3;
    x = malloc((size_t)n * 4);
    got = use(x, n, 5, 740, "5 MiB block of the sanitizer's malloc: five calls");
    CHECK(got == 0, "5 MiB block of the sanitizer's malloc: never pinned", "%d pinned", got);
    free(x);
#else
    fresh();
    n = (5 << 18) + 3;   /* 5 MiB + 12 bytes */
    x = malloc((size_t)n * 4);
    got = use(x, n, 3, 740, "5 MiB malloc block of its own mapping: three calls");
    CHECK(got == 1, "5 MiB malloc block of its own mapping: pinned", "%d pinned", got);
    use(x + 1024, n - 2048, 2, 743, "a part of it: two calls on the pin");
    free(x);
    CHECK(pinned_arrays(NULL) == 0, "5 MiB malloc block: unpinned when free returns", "%d pinned",
          pinned_arrays(NULL));
    /* inside a block but not at its start: nothing says how the block goes */
    x = malloc((size_t)n * 4);
    got = use(x + 1024, n - 1024, 5, 750, "5 MiB inside a malloc block: five calls");
    CHECK(got == 0, "5 MiB inside a malloc block: never pinned", "%d pinned", got);
    free(x);
#endif
    fresh();
    got = (int)on_stack((int64_t)(2 * MIB / 4), 720);
    CHECK(got == 0, "2 MiB stack array: never pinned", "%d pinned", got);
    /* a heap block: malloc maps nothing below its threshold */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    n = (int64_t)(16 * MIB / 4);
    x = malloc((size_t)n * 4);
    got = use(x, n, 5, 730, "16 MiB heap block: five calls");
    CHECK(got == 0, "16 MiB heap block: never pinned", "%d pinned", got);
    free(x);
    mallopt(M_MMAP_THRESHOLD, 256 << 10);
}

/* a reduction's 16-byte result written across a pin's end (a complex element at an 8-byte
 * boundary of a pinned array): the driver refuses any copy that starts inside a pinned range and
 * runs past its end, so the result must not reach the driver there */
static void result_straddle(void)
{
    fresh();
    size_t pg = (size_t)getpagesize();
    char *block = malloc(40 * MIB + 2 * pg);
    /* the array ends 64 bytes past a page boundary, where its pin ends */
    uintptr_t pin_end = ((uintptr_t)block + 40 * MIB + pg) / pg * pg;
    use((float *)block, (int64_t)((pin_end + 64 - (uintptr_t)block) / 4), 3, 800,
        "result across a pin: the array, three calls");
    CHECK(pinned_arrays(NULL) == 1, "result across a pin: the array pinned", "%d pinned",
          pinned_arrays(NULL));
    cufort_cdouble *r = (cufort_cdouble *)(pin_end - 8);
    enum { N = 1000 };
    cufort_cdouble v[N], want = 0;
    for (int i = 0; i < N; i++) {
        v[i] = (ck_randd() - 0.5) + I * (ck_randd() - 0.5);
        want += v[i];
    }
    void *dv = NULL;
    CHECK_OK(cufort_alloc(&dv, N * sizeof *v), "result across a pin: device vector");
    CHECK_OK(cufort_set_vector(N, sizeof *v, v, 1, dv, 1), "result across a pin: upload");
    *r = 0;
    CHECK_OK(cufort_zreduce_sum(N, dv, 1, r), "result across a pin: cufort_zreduce_sum");
    CHECK(cabs(*r - want) < 1e-12 * N, "result across a pin: device vector's sum right",
          "%g%+gi against %g%+gi", creal(*r), cimag(*r), creal(want), cimag(want));
    *r = 0;
    CHECK_OK(cufort_zreduce_sum_host(N, v, 1, r), "result across a pin: cufort_zreduce_sum_host");
    CHECK(cabs(*r - want) < 1e-12 * N, "result across a pin: host vector's sum right",
          "%g%+gi against %g%+gi", creal(*r), cimag(*r), creal(want), cimag(want));
    cufort_free(dv);
    free(block);
}

static void limited(void)
{
    fresh();
    size_t bytes = 36 * MIB;
    int64_t n = (int64_t)(bytes / 4);
    float *a = map(NULL, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
    float *b = map(NULL, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
    CHECK_OK(cufort_pin_cache_limit(60 * MIB), "limit: 60 MiB");
    use(a, n, 2, 110, "limit: a, two calls");
    int with_a = pinned_arrays(NULL);
    use(b, n, 2, 120, "limit: b, two calls");
    int64_t held = 0;
    int with_b = pinned_arrays(&held);
    CHECK(with_a == 1 && with_b == 1 && held <= (int64_t)(60 * MIB),
          "limit: b's pin pushed a's out", "%d then %d pinned, %lld bytes", with_a, with_b,
          (long long)held);
    use(a, n, 3, 130, "limit: a again, three calls");
    CHECK_OK(cufort_pin_cache_limit(0), "limit: off");
    int off = use(b, n, 4, 140, "limit: off, b four calls");
    CHECK(off == 0, "limit: off unpins everything and pins nothing", "%d pinned", off);
    CHECK_OK(cufort_pin_cache_limit(-1), "limit: back to the default");
    munmap(a, bytes);
    munmap(b, bytes);
}

/* under a cap for two pins, a third pin pushes out the least recently used one: b, pinned after a
 * but not used since a's last call (a discard on b then finds nothing pinned there) */
static void recently_used(void)
{
    fresh();
    size_t bytes = 36 * MIB;
    int64_t n = (int64_t)(bytes / 4);
    float *a = map(NULL, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
    float *b = map(NULL, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
    float *c = map(NULL, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
    CHECK_OK(cufort_pin_cache_limit(80 * MIB), "least recently used: limit 80 MiB");
    use(a, n, 2, 700, "least recently used: a, two calls");
    use(b, n, 2, 710, "least recently used: b, two calls");
    use(a, n, 1, 720, "least recently used: a again");
    use(c, n, 2, 730, "least recently used: c, two calls");
    int with_c = pinned_arrays(NULL);
    madvise((char *)b + MIB, 64 << 10, MADV_DONTNEED);
    int after = pinned_arrays(NULL);
    CHECK(with_c == 2 && after == 2, "least recently used: c's pin pushed out b's, not a's",
          "%d pinned with c, %d after discarding part of b", with_c, after);
    CHECK_OK(cufort_pin_cache_limit(-1), "least recently used: back to the default");
    munmap(a, bytes);
    munmap(b, bytes);
    munmap(c, bytes);
}

/* out-of-place transforms: both arrays pinned from the third call; a batch then goes in parts
 * (fft_pipeline.c), all of it checked against the first, staged, result */
static void transforms(void)
{
    struct { int64_t nx, batch; const char *what; } cases[] = {
        {1 << 23, 1, "fft 2^23 C2C"}, {4096, 1280, "fft 4096 x 1280 C2C (in parts once pinned)"}};
    for (int k = 0; k < 2; k++) {
        fresh();
        size_t n = (size_t)(cases[k].nx * cases[k].batch);
        float complex *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out),
                      *first = malloc(n * sizeof *first);
        for (size_t i = 0; i < n; i++)
            in[i] = (float)ck_randd() - 0.5f + I * ((float)ck_randd() - 0.5f);
        cufort_fft_plan plan = NULL;
        CHECK_OK(cufort_fft_plan_1d(&plan, CUFORT_FFT_C2C, cases[k].nx, cases[k].batch),
                 ckf("%s: plan", cases[k].what));
        double worst = 0, scale = 0;
        int failed = 0;
        for (int c = 0; c < 5 && !failed; c++) {
            for (size_t i = 0; i < n; i++)
                out[i] = NAN;
            failed = cufort_fft_exec_host(plan, in, out, CUFORT_FFT_FORWARD) != 0;
            if (c == 0)
                memcpy(first, out, n * sizeof *out);
            for (size_t i = 0; i < n && c == 0; i++)
                scale = fmax(scale, cabs(first[i]));
            for (size_t i = 0; i < n; i++)
                worst = fmax(worst, isnan(crealf(out[i])) ? INFINITY : cabs(out[i] - first[i]));
        }
        int held = pinned_arrays(NULL);
        CHECK(!failed && worst <= 1e-6 * scale && held == 2,
              ckf("%s: five calls, both arrays pinned, results as the first", cases[k].what),
              "failed %d (%s), worst difference %.3g of %.3g, %d pinned", failed,
              cufort_last_error(), worst, scale, held);
        cufort_fft_destroy(plan);
        free(in);
        free(out);
        free(first);
    }
}

/* Relative errors of one element against a double-precision reference, over the sum of the
 * terms' magnitudes: got = op(A) B (single), got = alpha A B + beta_c (double), and got = alpha
 * (A B)(i, j) with A upper triangular (DTRMM, left, no transpose, non-unit). */
static double sgemm_error(const float *a, int64_t lda, const float *b, int64_t ldb, int64_t k,
                          float got, int64_t i, int64_t j)
{
    double ref = 0, mag = 0;
    for (int64_t l = 0; l < k; l++) {
        ref += (double)a[i + l * lda] * b[l + j * ldb];
        mag += fabs((double)a[i + l * lda] * b[l + j * ldb]);
    }
    return fabs(got - ref) / (mag + 1e-30);
}

static double dgemm_error(const double *a, int64_t lda, const double *b, int64_t ldb, int64_t k,
                          double alpha, double beta_c, double got, int64_t i, int64_t j)
{
    double ref = beta_c, mag = fabs(ref);
    for (int64_t l = 0; l < k; l++) {
        ref += alpha * a[i + l * lda] * b[l + j * ldb];
        mag += fabs(alpha * a[i + l * lda] * b[l + j * ldb]);
    }
    return fabs(got - ref) / (mag + 1e-300);
}

static double dtrmm_error(const double *a, int64_t lda, const double *b, int64_t ldb, int64_t n,
                          double alpha, double got, int64_t i, int64_t j)
{
    double ref = 0, mag = 0;
    for (int64_t l = i; l < n; l++) {
        ref += alpha * a[i + l * lda] * b[l + j * ldb];
        mag += fabs(alpha * a[i + l * lda] * b[l + j * ldb]);
    }
    return fabs(got - ref) / (mag + 1e-300);
}

/* the GEMM engine on a 34 MiB A used again and again, held whole once the cache pins it (B and C
 * are too small to be cached): every call's C is the first call's, and right against a
 * double-precision reference */
static void gemm_panels(void)
{
    fresh();
    int64_t m = 8192, k = 1100, n = 8;
    float *a = malloc((size_t)(m * k) * 4), *b = malloc((size_t)(k * n) * 4);
    float *c = malloc((size_t)(m * n) * 4), *first = malloc((size_t)(m * n) * 4);
    for (int64_t i = 0; i < m * k; i++)
        a[i] = (float)ck_randd() - 0.5f;
    for (int64_t i = 0; i < k * n; i++)
        b[i] = (float)ck_randd() - 0.5f;
    int failed = 0, differ = 0;
    for (int call = 0; call < 5 && !failed; call++) {
        for (int64_t i = 0; i < m * n; i++)
            c[i] = NAN;
        failed = cufort_sgemm_host('N', 'N', m, n, k, 1.0f, a, m, b, k, 0.0f, c, m) != 0;
        if (call == 0)
            memcpy(first, c, (size_t)(m * n) * 4);
        differ += memcmp(c, first, (size_t)(m * n) * 4) != 0;
    }
    double worst = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i += 97)
            worst = fmax(worst, sgemm_error(a, m, b, k, k, c[i + j * m], i, j));
    printf("# gemm_panels: %d arrays pinned after five calls\n", pinned_arrays(NULL));
    CHECK(!failed && differ == 0 && worst < 1e-5,
          "gemm engine: five SGEMMs on a 34 MiB A, results as the first and right",
          "failed %d (%s), %d calls differ, worst relative error %.3g", failed,
          cufort_last_error(), differ, worst);
    free(a);
    free(b);
    free(c);
    free(first);
}

/* DGEMMs repeated on pageable arrays with long leading dimensions (each array's extent over the
 * cache's least size, the work small): from the third call A, B and C (beta != 0) are pinned and
 * held whole for the call, their blocks going by DMA where they lie and in pieces at the arrays'
 * partial first and last pages; with beta C added on the host (CUFORT_GEMM_HOST_BETA=1, as for a
 * C of 64 MiB or more) C is not offered.  Every call is right; the held calls agree bit for bit
 * (the first two, staged, may round otherwise: the GPU or the host adds beta C). */
static void gemm_held(int host_beta, int want_pins, const char *what)
{
    fresh();
    if (host_beta)
        setenv("CUFORT_GEMM_HOST_BETA", "1", 1);
    int64_t m = 300, n = 280, k = 260, ld = 20000;
    size_t bytes = (size_t)(ld * (n - 1) + m) * 8;
    double *a = malloc(bytes), *b = malloc(bytes), *c0 = malloc(bytes), *c = malloc(bytes);
    double *held = malloc((size_t)(m * n) * 8);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            a[i + j * ld] = ck_randd() - 0.5;
            b[i + j * ld] = ck_randd() - 0.5;
            c0[i + j * ld] = ck_randd() - 0.5;
        }
    int failed = 0, differ = 0;
    double worst = 0;
    for (int call = 0; call < 5 && !failed; call++) {
        for (int64_t j = 0; j < n; j++)
            memcpy(c + j * ld, c0 + j * ld, (size_t)m * 8);
        failed = cufort_dgemm_host('N', 'N', m, n, k, 1.25, a, ld, b, ld, 0.75, c, ld) != 0;
        for (int64_t j = 0; j < n && call >= 2; j++) {
            if (call == 2)
                memcpy(held + j * m, c + j * ld, (size_t)m * 8);
            differ += memcmp(held + j * m, c + j * ld, (size_t)m * 8) != 0;
        }
        for (int64_t j = 0; j < n; j += j < 4 || j > n - 5 ? 1 : 37)
            for (int64_t i = 0; i < m; i++)
                worst = fmax(worst, dgemm_error(a, ld, b, ld, k, 1.25, 0.75 * c0[i + j * ld],
                                                c[i + j * ld], i, j));
    }
    int pins = pinned_arrays(NULL);
    unsetenv("CUFORT_GEMM_HOST_BETA");
    CHECK(!failed && differ == 0 && worst < 1e-13 && pins == want_pins, what,
          "failed %d (%s), %d columns differ, worst relative error %.3g, %d pinned (want %d)",
          failed, cufort_last_error(), differ, worst, pins, want_pins);
    free(a);
    free(b);
    free(c0);
    free(c);
    free(held);
}

/* the straddle tests' outcome: every call returned (a hang ends in ck_begin's timeout, a FAIL) and
 * was right, and only A is pinned */
static void straddle_check(const char *what, int failed, double worst)
{
    int pins = pinned_arrays(NULL);
    CHECK(!failed && worst < 1e-13 && pins == 1, what,
          "failed %d (%s), worst relative error %.3g, %d pinned", failed, cufort_last_error(),
          worst, pins);
}

/* A and B in one workspace: B's small block starts inside A's pinned span and runs past its end,
 * which the driver refuses as one copy, while the call holds A's pin.  The copy must go another way
 * (not wait for a pin its own call holds), and every call be right. */
static void gemm_straddle(void)
{
    fresh();
    int64_t ld = 10000, m = 4000, k = 1100, n = 7;
    double *w = malloc((size_t)(ld * 1200) * 8), *c0 = malloc((size_t)(m * n) * 8);
    double *c = malloc((size_t)(m * n) * 8);
    for (int64_t i = 0; i < ld * 1200; i++)
        w[i] = ck_randd() - 0.5;
    for (int64_t i = 0; i < m * n; i++)
        c0[i] = ck_randd() - 0.5;
    const double *a = w, *b = w + m + (k - 6) * ld;   /* B: rows m+1.., columns k-5..k+1 */
    int failed = 0;
    double worst = 0;
    for (int call = 0; call < 5 && !failed; call++) {
        memcpy(c, c0, (size_t)(m * n) * 8);
        failed = cufort_dgemm_host('N', 'N', m, n, k, 1.0, a, ld, b, ld, 0.5, c, m) != 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i += 37)
                worst = fmax(worst, dgemm_error(a, ld, b, ld, k, 1.0, 0.5 * c0[i + j * m],
                                                c[i + j * m], i, j));
    }
    straddle_check("gemm engine: B straddling the end of A's held pin, five calls, all right",
                   failed, worst);
    free(w);
    free(c0);
    free(c);
}

/* the same for the Level-3 engine: a DTRMM whose small B lies below A in one workspace, starting
 * inside A's held pin and running past its end */
static void l3_straddle(void)
{
    fresh();
    setenv("CUFORT_L3_WHOLE_BYTES", "0", 1);   /* the engine's pipeline, not the whole-array path */
    int64_t ld = 10000, n = 2100, nrhs = 3;
    double *w = malloc((size_t)(ld * (n + 2)) * 8), *b0 = malloc((size_t)(n * nrhs) * 8);
    for (int64_t i = 0; i < ld * (n + 2); i++)
        w[i] = ck_randd() - 0.5;
    for (int64_t i = 0; i < n * nrhs; i++)
        b0[i] = ck_randd() - 0.5;
    double *a = w, *b = w + n + (n - 2) * ld;   /* B: rows n+1..2n, columns n-1..n+1 */
    int failed = 0;
    double worst = 0;
    for (int call = 0; call < 5 && !failed; call++) {
        for (int64_t j = 0; j < nrhs; j++)
            memcpy(b + j * ld, b0 + j * n, (size_t)n * 8);
        failed = cufort_dtrmm_host('L', 'U', 'N', 'N', n, nrhs, 1.5, a, ld, b, ld) != 0;
        for (int64_t j = 0; j < nrhs; j++)
            for (int64_t i = 0; i < n; i += 29)
                worst = fmax(worst, dtrmm_error(a, ld, b0, n, n, 1.5, b[i + j * ld], i, j));
    }
    unsetenv("CUFORT_L3_WHOLE_BYTES");
    straddle_check("l3 engine: B straddling the end of A's held pin, five calls, all right", failed,
                   worst);
    free(w);
    free(b0);
}

/* a Level-3 engine call repeated on arrays the cache pins: the blocks touching an array's partial
 * first and last pages go partly by DMA and partly through staging, and give what the first call
 * (all staged) gave, and the right product */
static void l3_partial_pages(void)
{
    fresh();
    int64_t n = 3001;   /* A and B 72 MB each: the engine's pipeline, not the generic path */
    size_t bytes = (size_t)(n * n) * 8;
    double *a = malloc(bytes), *b0 = malloc(bytes), *b = malloc(bytes), *first = malloc(bytes);
    for (int64_t i = 0; i < n * n; i++) {
        a[i] = ck_randd() - 0.5;
        b0[i] = ck_randd() - 0.5;
    }
    for (int64_t i = 0; i < n; i++)
        a[i + i * n] += 4.0;
    int failed = 0, differ = 0;
    for (int call = 0; call < 5 && !failed; call++) {
        memcpy(b, b0, bytes);
        failed = cufort_dtrmm_host('L', 'U', 'N', 'N', n, n, 1.5, a, n, b, n) != 0;
        if (call == 0)
            memcpy(first, b, bytes);
        differ += memcmp(b, first, bytes) != 0;
    }
    int pins = pinned_arrays(NULL);
    double worst = 0;
    for (int64_t i = 0; i < n; i += 97)
        for (int64_t j = 0; j < n; j += j < 8 || j > n - 9 ? 1 : 61)
            worst = fmax(worst, dtrmm_error(a, n, b0, n, n, 1.5, b[i + j * n], i, j));
    CHECK(!failed && differ == 0 && worst < 1e-12,
          "l3 engine: five DTRMMs on 72 MB arrays, results as the first and right",
          "failed %d (%s), %d calls differ, worst relative error %.3g", failed,
          cufort_last_error(), differ, worst);
    if (can_watch)
        CHECK(pins == 2, "l3 engine: A and B pinned after five calls", "%d pinned", pins);
    free(a);
    free(b0);
    free(b);
    free(first);
}

/* a fork's child: the parent's pin is not its business, and unmapping the array (the child's copy)
 * must not wait for a watcher thread the child does not have */
static void forked(void)
{
    size_t bytes = 36 * MIB;
    int64_t n = (int64_t)(bytes / 4);
    float *x = pinned_mapping(bytes, n, 400, "fork");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        munmap(x, bytes);
        int64_t held = -1;
        int arrays = -1, watch = -1;
        cufort_pin_cache_info(&held, &arrays, &watch);
        _exit(arrays == 0 && held == 0 && watch == 0 ? 0 : 1);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "fork: the child unmaps the array at once and holds no pins", "child status %#x", status);
    int kept = pinned_arrays(NULL);
    use(x, n, 2, 410, "fork: two calls after, in the parent");
    CHECK(kept == 1, "fork: the parent keeps its pin", "%d pinned", kept);
    munmap(x, bytes);
}

/* threads: each its own array, one of them remapping its array between calls */
static int thread_body(int id, char *err, size_t errlen)
{
    size_t bytes = 36 * MIB;
    int64_t n = (int64_t)(bytes / 4);
    float *x = map(NULL, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
    int fails = 0;
    for (int c = 0; c < 8; c++) {
        int64_t bad = scaled_wrong(x, n, 200 + 10 * id + c);
        if (bad && fails++ == 0)
            snprintf(err, errlen, "call %d: %lld wrong (%s)", c, (long long)bad,
                     cufort_last_error());
        if (id == 0 && c % 3 == 2) {
            munmap(x, bytes);
            x = map(NULL, bytes, MAP_PRIVATE | MAP_ANONYMOUS);
        }
    }
    munmap(x, bytes);
    return fails;
}

/* thread 0 turns the cache off and on again and again while the others copy through their pins:
 * a pin in use stays until its copy is done */
static int churn_body(int id, char *err, size_t errlen)
{
    if (id == 0) {
        for (int i = 0; i < 40; i++) {
            cufort_pin_cache_limit(0);
            usleep(2000);
            cufort_pin_cache_limit(-1);
            usleep(3000);
        }
        return 0;
    }
    return thread_body(id, err, errlen);
}

/* threads: SGEMMs that all read one shared A (37 MB, held by several calls at once once pinned),
 * each thread with its own B and C; with `churn`, thread 0 turns the cache off and on meanwhile */
enum { SHARED_M = 4096, SHARED_K = 2304, SHARED_N = 4 };
static float *shared_a;

static int shared_gemms(int id, int churn, char *err, size_t errlen)
{
    if (churn && id == 0)
        return churn_body(0, err, errlen);
    int64_t m = SHARED_M, k = SHARED_K, n = SHARED_N;
    float *b = malloc((size_t)(k * n) * 4), *c = malloc((size_t)(m * n) * 4);
    for (int64_t i = 0; i < k * n; i++)
        b[i] = (float)((i * 7 + id * 13) % 17) / 17.0f - 0.5f;
    int fails = 0;
    for (int call = 0; call < 6; call++) {
        for (int64_t i = 0; i < m * n; i++)
            c[i] = NAN;
        int st = cufort_sgemm_host('N', 'N', m, n, k, 1.0f, shared_a, m, b, k, 0.0f, c, m);
        double worst = 0;
        for (int64_t j = 0; j < n && !st; j++)
            for (int64_t i = id; i < m; i += 61) {
                double e = sgemm_error(shared_a, m, b, k, k, c[i + j * m], i, j);
                worst = e == e ? fmax(worst, e) : 1;
            }
        if ((st || worst > 1e-5) && fails++ == 0)
            snprintf(err, errlen, "call %d: status %d (%s), worst relative error %.3g", call, st,
                     cufort_last_error(), worst);
    }
    free(b);
    free(c);
    return fails;
}

static int shared_body(int id, char *err, size_t errlen)
{
    return shared_gemms(id, 0, err, errlen);
}
static int shared_churn_body(int id, char *err, size_t errlen)
{
    return shared_gemms(id, 1, err, errlen);
}

int main(void)
{
    setenv("CUFORT_STAGING_THREADS", "3", 0);
    /* every block of 256 KiB or more gets a mapping of its own, as in a program that has freed none
     * yet (glibc raises its threshold to the size of each such block freed, up to 32 MiB) */
    mallopt(M_MMAP_THRESHOLD, 256 << 10);
    ck_begin("pin_cache", 300);
    CHECK_OK(cufort_init(), "init");
    printf("# backend %s\n", cufort_backend_name());
    int64_t bytes;
    int arrays;
    CHECK_OK(cufort_pin_cache_info(&bytes, &arrays, &can_watch), "info");
    if (!can_watch) {
        /* the cache is off here: results must still be right, and nothing pinned */
        printf("# skipped: no userfaultfd on this host; the pin cache never pins\n");
        float *x = malloc(40 * MIB);
        int got = use(x, (int64_t)(10 * MIB), 4, 0, "no watching: four calls");
        CHECK(got == 0, "no watching: nothing pinned", "%d pinned", got);
        free(x);
        cufort_shutdown();
        return ck_end();
    }
    repeated();
    neighbours();
    grown();
    straddled();
    unmapped();
    discarded();
    moved();
    temporaries();
    not_cached();
    small_static();
    small_dynamic();
    result_straddle();
    limited();
    recently_used();
    transforms();
    gemm_panels();
    gemm_held(0, 3, "gemm engine: five DGEMMs, A, B and C held from the third, all right");
    gemm_held(1, 2, "gemm engine: five DGEMMs, A and B held, beta C on the host, all right");
    gemm_straddle();
    l3_straddle();
    l3_partial_pages();
    forked();
    ck_threads(4, thread_body, "own arrays, one remapped between calls");
    ck_threads(4, churn_body, "own arrays while another thread turns the cache off and on");
    fresh();
    shared_a = malloc((size_t)SHARED_M * SHARED_K * 4);
    for (int64_t i = 0; i < (int64_t)SHARED_M * SHARED_K; i++)
        shared_a[i] = (float)ck_randd() - 0.5f;
    ck_threads(4, shared_body, "gemm engine: one A held by four threads' calls at once");
    CHECK(pinned_arrays(NULL) == 1, "gemm engine: the shared A pinned", "%d pinned",
          pinned_arrays(NULL));
    ck_threads(4, shared_churn_body, "gemm engine: a shared A, the cache turned off and on");
    free(shared_a);
    /* pins go with the context */
    fresh();
    float *x = malloc(40 * MIB);
    use(x, (int64_t)(10 * MIB), 2, 300, "before shutdown: two calls");
    int before = pinned_arrays(NULL);
    cufort_shutdown();
    CHECK(before == 1 && pinned_arrays(NULL) == 0, "shutdown unpins", "%d then %d pinned", before,
          pinned_arrays(NULL));
    CHECK_OK(cufort_init(), "init again");
    use(x, (int64_t)(10 * MIB), 3, 310, "a second life: three calls");
    CHECK(pinned_arrays(NULL) == 1, "a second life: pinned again", "%d pinned", pinned_arrays(NULL));
    free(x);
    cufort_shutdown();
    return ck_end();
}
