"""Emits tests/generated/test_blas_edges.c: the argument edges of every BLAS variant's two C ABI entry
points (cufort_<name> on device pointers, cufort_<name>_host on host arrays), from the routine table:

  empty     each dimension that makes a Level-2/3 call empty (m, n, batch) set to 0, every other
            dimension to 2^60 and every array to NULL: the call must succeed at once (timed, and
            the binary's alarm turns a hang into a failure), before any array or size is looked at;
  INT64_MIN each increment set to INT64_MIN (every other argument legal, n = 1 and n = 0): always
            CUFORT_INVALID_VALUE naming the increment, whatever the routine or n;
  overlap   each (output, input) pair of the table's no_alias, the output one element past the
            input: CUFORT_INVALID_VALUE; the same arrays apart: success.
"""

import re

from blas_table import variants
from cgen import C_T, C_R, tcode, opts, header

ME = "emit_edge_tests.py"
OUT = "tests/generated/test_blas_edges.c"

HUGE = "((int64_t)1 << 60)"
EMPTYING = ("m", "n", "batch")
SPACING = 64        # elements between the arrays of the overlap cases (each fits in it)


def legal_min(a):
    """The least legal value of a checked leading dimension or stride, as a C expression."""
    m = re.fullmatch(rf"(?:.* \|\| )?{a.name} >= (.+)", a.check or "")
    return m.group(1) if m and m.group(1) != "0" else None


def is_dim(a):
    return a.kind == "int" and not a.step and (a.check is None or a.check == f"{a.name} >= 0")


def declare(r, v, dim_value, inc_value="1"):
    """C declarations of every non-array argument, in table order (an ld or stride after the
    dimensions it depends on): dimensions from dim_value(name), increments inc_value, leading
    dimensions and strides at their least legal value, options their first letter."""
    lines = []
    for a in r.args:
        if a.kind == "opt":
            lines.append(f"char {a.name} = '{opts(v, a)[0]}';")
        elif a.kind == "int":
            if a.step:
                val = inc_value if isinstance(inc_value, str) else inc_value(a.name)
            elif is_dim(a):
                val = dim_value(a.name)
            else:
                val = legal_min(a) or "0"
            lines.append(f"int64_t {a.name} = {val};")
        elif a.kind == "scalar":
            t = C_T[v.prec] if tcode(v, a) == "T" else C_R[v.prec]
            lines.append(f"{t} {a.name} = 1;")
        elif a.kind == "hostref":
            t = C_T[v.prec] if tcode(v, a) == "T" else C_R[v.prec]
            lines.append(f"{t} {a.name}[{a.count}] = {{0}};")
    if r.result:
        rt = "int64_t" if r.result == "I" else C_T[v.prec] if r.result == "T" else C_R[v.prec]
        lines.append(f"{rt} result;")
    return lines


def elem_t(v, a):
    return C_T[v.prec] if tcode(v, a) == "T" else C_R[v.prec]


def call(r, v, host, arrays):
    """The call expression; arrays(name, a) spells each array argument."""
    args = []
    for a in r.args:
        if a.kind == "array":
            args.append(arrays(a.name, a))
        else:
            args.append(a.name)
    if r.result:
        args.append("&result")
    return f"cufort_{v.name}{'_host' if host else ''}({', '.join(args)})"


def block(lines, indent="    "):
    return [indent + "{"] + [indent + "    " + ln for ln in lines] + [indent + "}"]


def empty_cases(r, v):
    out = []
    for d in [a.name for a in r.args if is_dim(a) and a.name in EMPTYING] if r.level > 1 else []:
        decl = declare(r, v, lambda name, d=d: "0" if name == d else HUGE)
        for host in (False, True):
            what = f"{v.name}{'_host' if host else ''} {d}=0, others 2^60"
            body = decl + [f'TE_QUICK("{what}", {call(r, v, host, lambda n, a: "NULL")});']
            out += block(body)
    return out


def min_cases(r, v):
    out = []
    steps = [(pos, a) for pos, a in enumerate(r.args, 1) if a.kind == "int" and a.step]
    for pos, a in steps:
        for n in ("1", "0"):
            decl = declare(r, v, lambda name, n=n: n,
                           lambda name, a=a: "INT64_MIN" if name == a.name else "1")
            for host in (False, True):
                what = f"{v.name}{'_host' if host else ''} {a.name}=INT64_MIN, dims={n}"
                arr = (lambda nm, b: f"({elem_t(v, b)} *)te_host") if host else \
                      (lambda nm, b: f"({elem_t(v, b)} *)te_dev")
                body = decl + [f'te_bad_inc("{what}", {call(r, v, host, arr)}, {pos});']
                out += block(body)
    return out


def overlap_cases(r, v):
    out = []
    arrays = [a for a in r.args if a.kind == "array"]
    for o, i, _ in r.no_alias:
        slot = {a.name: k for k, a in enumerate(arrays)}
        decl = declare(r, v, lambda name: "2")
        for host in (False, True):
            base = "te_host" if host else "te_dev"

            def at(nm, a, shift, base=base):
                off = f"{slot[nm] * SPACING}" if not (shift and nm == o) else \
                      f"{slot[i] * SPACING} + 1"
                return f"({elem_t(v, a)} *){base} + {off}"

            tag = f"{v.name}{'_host' if host else ''}"
            body = decl + [
                f'te_overlap("{tag} {o} one element past {i}", '
                f"{call(r, v, host, lambda nm, a: at(nm, a, True))});",
                f'te_apart("{tag} {o} apart from {i}", '
                f"{call(r, v, host, lambda nm, a: at(nm, a, False))});"]
            out += block(body)
    return out


PRELUDE = r"""#include "check.h"   /* first: it asks for _GNU_SOURCE */

#include <ctype.h>
#include <stdint.h>
#include <time.h>

/* the helpers the routine table's conditions use (as c_wrappers/core/internal.h defines them) */
#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define NOTR(c) (toupper((unsigned char)(c)) == 'N')
#define LEFT(c) (toupper((unsigned char)(c)) == 'L')
#define MUL_WIDE(a, b) ((__int128)(a) * (__int128)(b))

/* Buffers the calls point into: device memory (cufort_alloc) and host memory, zeroed, large enough
 * for every overlap case (arrays SPACING elements apart, complex double). */
enum { TE_BYTES = 16 * SPACING_ELEMS * 8 };
static void *te_dev;
static _Alignas(256) unsigned char te_host[TE_BYTES];

static double te_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* An empty call: success, at once (a loop over the huge dimension would take minutes or never
 * end; the binary's alarm ends it with a FAIL line). */
static void te_quick_done(const char *what, int st, double seconds)
{
    CHECK(st == CUFORT_SUCCESS && seconds < 1.0, what, "status %d (%s) after %.3f s; last error "
          "\"%s\"", st, ck_status_name(st), seconds, ck_err());
}
#define TE_QUICK(what, call)                                                                      \
    do {                                                                                          \
        double t0_ = te_now();                                                                    \
        int st_ = (call);                                                                         \
        te_quick_done((what), st_, te_now() - t0_);                                               \
    } while (0)

static void te_bad_inc(const char *what, int st, int position)
{
    CHECK(st == CUFORT_INVALID_VALUE && cufort_last_info() == position &&
              strstr(ck_err(), "INT64_MIN") != NULL,
          what, "status %d (%s), last_info %d (expected %d), last error \"%s\"", st,
          ck_status_name(st), cufort_last_info(), position, ck_err());
}

static void te_overlap(const char *what, int st)
{
    CHECK(st == CUFORT_INVALID_VALUE && strstr(ck_err(), "overlaps") != NULL, what,
          "status %d (%s), last error \"%s\"", st, ck_status_name(st), ck_err());
}

static void te_apart(const char *what, int st)
{
    CHECK(st == CUFORT_SUCCESS, what, "status %d (%s), last error \"%s\"", st, ck_status_name(st),
          ck_err());
}
"""


def source():
    head = header(ME, "test_blas_edges.c — the C ABI of every BLAS variant at its argument edges:\n"
                  " * empty dimensions beside huge ones, INT64_MIN increments, overlapping outputs.")
    out = [head, PRELUDE.replace("SPACING_ELEMS", str(SPACING))]
    names = []
    for r, v in variants():
        body = empty_cases(r, v) + min_cases(r, v) + overlap_cases(r, v)
        if not body:
            continue
        names.append(v.name)
        out += [f"static void edges_{v.name}(void)", "{"] + body + ["}", ""]
    out += ["int main(int argc, char **argv)", "{", "    (void)argc;", "    (void)argv;",
            '    ck_begin("test_blas_edges", 120);',
            '    if (!CHECK_OK(cufort_init(), "init")) return ck_end();',
            '    if (!CHECK_OK(cufort_alloc(&te_dev, TE_BYTES), "device buffer")) return ck_end();',
            "    CHECK_OK(cufort_set_vector(TE_BYTES, 1, te_host, 1, te_dev, 1), \"device buffer zeroed\");"]
    out += [f"    edges_{n}();" for n in names]
    out += ["    cufort_free(te_dev);", "    cufort_shutdown();", "    return ck_end();", "}"]
    return "\n".join(out) + "\n"


def emit(write):
    write(OUT, source())
