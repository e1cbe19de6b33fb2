/* test_lapack_helpers.c — the LAPACK helpers the drop-in library provides (c_wrappers/dropin/
 * lapack_laswp.c, lapack_nb.c) against their definitions:
 *   xLASWP   every precision, increments 1, 2, -1 and -2, sub-ranges k1..k2, lda > rows, pivots
 *            drawn at random (some equal to their row), on one thread and on many, against the
 *            reference algorithm written out here from LAPACK's documentation; the rows past
 *            the interchanged ones, and the padding past lda's rows, must stay as they were; and
 *            in a fork's child after the parent's were shared among threads;
 *   ILAENV   CUFORT_LAPACK_NB unset: 1024 for xPOTRF and xGETRF, else LAPACK's answer, here 1
 *            ("unblocked"), since no LAPACK is loaded after the library;
 *   PILAENV  CUFORT_PBLAS_NB unset: 1024 in every precision (ScaLAPACK's own would be 32).
 * Fortran INTEGERs are the drop-in's: 8 bytes in a build with F77_INT64=1.
 * Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef CUFORT_F77_INT64
typedef int64_t fint;
#else
typedef int32_t fint;
#endif
typedef void laswp_fn(const fint *, void *, const fint *, const fint *, const fint *, const fint *, const fint *);
void slaswp_(const fint *, void *, const fint *, const fint *, const fint *, const fint *, const fint *);
void dlaswp_(const fint *, void *, const fint *, const fint *, const fint *, const fint *, const fint *);
void claswp_(const fint *, void *, const fint *, const fint *, const fint *, const fint *, const fint *);
void zlaswp_(const fint *, void *, const fint *, const fint *, const fint *, const fint *, const fint *);
fint ilaenv_(const fint *, const char *, const char *, const fint *, const fint *, const fint *, const fint *,
             size_t, size_t);
fint pilaenv_(const fint *, const char *, size_t);

static int passed, failed;

/* LAPACK's DLASWP, element size es */
static void reference(size_t es, int n, char *a, int lda, int k1, int k2, const fint *ipiv, int incx)
{
    int ix0, i1, i2, inc;
    if (incx > 0)
        ix0 = k1, i1 = k1, i2 = k2, inc = 1;
    else if (incx < 0)
        ix0 = k1 + (k1 - k2) * incx, i1 = k2, i2 = k1, inc = -1;
    else
        return;
    char t[16];
    for (int j = 0; j < n; j++) {
        int ix = ix0;
        for (int i = i1; inc > 0 ? i <= i2 : i >= i2; i += inc, ix += incx) {
            int ip = (int)ipiv[ix - 1];
            if (ip != i) {
                char *x = a + ((size_t)(i - 1) + (size_t)j * lda) * es, *y = a + ((size_t)(ip - 1) + (size_t)j * lda) * es;
                memcpy(t, x, es), memcpy(x, y, es), memcpy(y, t, es);
            }
        }
    }
}

static void one(const char *name, laswp_fn *f, size_t es, int m, int n, int lda, int k1, int k2, int incx)
{
    size_t bytes = (size_t)lda * n * es;
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    /* IPIV is read at k1, k1 + |incx|, ... k1 + (k2 - k1) |incx| (row k1 + (p - k1) / |incx|) */
    int len = k2 >= k1 ? k1 + (k2 - k1) * abs(incx) : 1;
    /* valid rows past the end too, so that reading the wrong entries shows as wrong swaps */
    fint *ipiv = malloc(sizeof(fint) * (size_t)(len + 64));
    for (size_t i = 0; i < bytes; i++)
        a[i] = (unsigned char)rand();
    memcpy(b, a, bytes);
    /* pivot of row i: a row at or below it (as LU makes them), sometimes i itself */
    for (int p = 1; p <= len + 64; p++) {
        int row = p < k1 ? 1 : k1 + (p - k1) / abs(incx);
        row = row > m ? m : row;
        ipiv[p - 1] = rand() % 4 == 0 ? row : row + rand() % (m - row + 1);
    }
    fint fn = n, flda = lda, fk1 = k1, fk2 = k2, fincx = incx;
    f(&fn, a, &flda, &fk1, &fk2, ipiv, &fincx);
    reference(es, n, (char *)b, lda, k1, k2, ipiv, incx);
    if (memcmp(a, b, bytes)) {
        printf("FAIL %s m=%d n=%d lda=%d k1=%d k2=%d incx=%d: differs from the reference\n", name, m, n, lda, k1, k2, incx);
        failed++;
    } else {
        printf("ok %s m=%d n=%d lda=%d k1=%d k2=%d incx=%d\n", name, m, n, lda, k1, k2, incx);
        passed++;
    }
    free(a), free(b), free(ipiv);
}

int main(void)
{
    srand(20261126);
    struct { const char *name; laswp_fn *f; size_t es; } fns[] = {
        {"slaswp", slaswp_, 4}, {"dlaswp", dlaswp_, 8}, {"claswp", claswp_, 8}, {"zlaswp", zlaswp_, 16}};
    /* m, n, lda, k1, k2: small (one thread) and large (the columns shared out) */
    static const int shapes[][5] = {{7, 5, 9, 1, 7}, {40, 33, 41, 3, 17}, {600, 300, 611, 1, 600},
                                    {900, 257, 900, 129, 700}, {5, 4, 5, 3, 2}};
    static const int incs[] = {1, 2, -1, -2};
    for (int f = 0; f < 4; f++)
        for (int s = 0; s < 5; s++)
            for (int i = 0; i < 4; i++) {
                const int *sh = shapes[s];
                one(fns[f].name, fns[f].f, fns[f].es, sh[0], sh[1], sh[2], sh[3], sh[4], incs[i]);
            }
    /* fork() after the columns were shared among threads: the child's own large DLASWP must
     * finish (libgomp's threads do not survive fork; they made it wait for them forever) and be
     * right; the child answers in its exit status, 2 for a hang (alarm) */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        if (!freopen("/dev/null", "w", stdout))
            _exit(3);
        int before = failed;
        one("dlaswp in a fork's child", dlaswp_, 8, 900, 257, 900, 129, 700, 1);
        fflush(stdout);
        _exit(failed != before);
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) {
        printf("ok dlaswp after fork: the child's finishes, right\n");
        passed++;
    } else {
        printf("FAIL dlaswp after fork: the child %s\n",
               WIFSIGNALED(ws) ? "hung (killed by its alarm) or crashed" : "computed it wrong");
        failed++;
    }
    /* CUFORT_LAPACK_NB unset: the Cholesky and LU factorizations get 1024; the rest LAPACK's own
     * answer, 1 here with no LAPACK */
    struct { const char *name; int want; } q[] = {{"DGETRF", 1024}, {"zpotrf", 1024}, {"SGETRF2", 1},
                                                   {"DGEQRF", 1}, {"DPOTRS", 1}};
    fint one_ = 1, nn = 1000, m1 = -1;
    for (int i = 0; i < 5; i++) {
        int nb = (int)ilaenv_(&one_, q[i].name, " ", &nn, &nn, &m1, &m1, strlen(q[i].name), 1);
        if (nb == q[i].want) {
            printf("ok ilaenv block size of %s: %d\n", q[i].name, nb);
            passed++;
        } else {
            printf("FAIL ilaenv block size of %s: %d, expected %d\n", q[i].name, nb, q[i].want);
            failed++;
        }
    }
    fint ctxt = 0;
    for (const char *prec = "SDCZI"; *prec; prec++) {
        int nb = (int)pilaenv_(&ctxt, prec, 1);
        if (nb == 1024) {
            printf("ok pilaenv block size for %c: %d\n", *prec, nb);
            passed++;
        } else {
            printf("FAIL pilaenv block size for %c: %d, expected 1024\n", *prec, nb);
            failed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
