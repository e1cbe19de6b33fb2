#!/usr/bin/env bash
# tests/examples/lapack.sh [build-dir] — reference LAPACK on the drop-in BLAS, as a legacy program
# meets it: examples/lapack_solve (DPOTRF/DPOTRS and DGESV, linked against -llapack -lblas) run on
# the system's reference LAPACK with libcufort_blas.so preloaded.
#   - the residuals stay small, with LAPACK's own block size and with CUFORT_LAPACK_NB;
#   - the preload takes LAPACK's BLAS calls (the report counts them);
#   - the block size reaches LAPACK: a blocked lower DPOTRF of order n makes ceil(n/nb) - 1 DGEMM
#     calls (its recursive DPOTRF2 none, nor does DPOTRS), so at n = 700 the report's DGEMM count
#     is 0 by default (the library's 1024 for DPOTRF), 10 with CUFORT_LAPACK_NB=0 (reference
#     LAPACK's own 64), 6 with CUFORT_LAPACK_NB=100 and 2 with 300.
# Reference LAPACK: $CUFORT_REF_LAPACK_DIR, else <build-dir>/lapack/reference (bench/lapack_run.sh
# --collect), else the system's /usr/lib/<multiarch>/lapack (package liblapack3).
# Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
BUILD=${1:-build}
EX=$BUILD/examples
LIBDIR=$(cd "$BUILD/lib" 2>/dev/null && pwd)
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ $fail -eq 0 ]; exit; }

multiarch=$( (gcc -print-multiarch 2>/dev/null || true) | head -n1)
sys=/usr/lib/${multiarch:-x86_64-linux-gnu}
ref=${CUFORT_REF_LAPACK_DIR:-}
[ -z "$ref" ] && [ -e "$BUILD/lapack/reference/liblapack.so.3" ] && ref=$BUILD/lapack/reference
[ -z "$ref" ] && [ -e "$sys/lapack/liblapack.so.3" ] && ref=$sys/lapack
if [ ! -x "$EX/lapack_solve" ]; then
    echo "# lapack_solve not built (4-byte INTEGER builds only): skipped"
    finish
fi
if [ -z "$ref" ]; then
    bad "no reference LAPACK (liblapack3, or CUFORT_REF_LAPACK_DIR)"
    finish
fi
# reference BLAS beside it where LAPACK's folder has none
blasdir=$ref
[ -e "$ref/libblas.so.3" ] || blasdir=$sys/blas

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=700
# run TAG NB [ARGS]: the example preloaded, its report in $tmp/TAG.report
run() {
    local tag=$1 nb=$2
    shift 2
    env CUFORT_LAPACK_NB="$nb" CUFORT_REPORT=1 CUFORT_REPORT_FILE="$tmp/$tag.report" \
        LD_PRELOAD="$LIBDIR/libcufort_blas.so" LD_LIBRARY_PATH="$ref:$blasdir:$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        timeout "${CUFORT_EXAMPLE_TIMEOUT:-300}" "$EX/lapack_solve" "$@" >"$tmp/$tag.out" 2>&1
}
calls() { awk -v r="$2" '$1 == r { print $2 }' "$tmp/$1.report" 2>/dev/null; }

run both "" "$N" both
rc=$?
if [ $rc -ne 0 ] || [ "$(grep -c ' residual ' "$tmp/both.out")" != 2 ]; then
    bad "DPOTRF/DPOTRS and DGESV on the drop-in: exit status $rc: $(head -c 300 "$tmp/both.out")"
else
    ok "DPOTRF/DPOTRS and DGESV on the drop-in: $(tr '\n' ' ' <"$tmp/both.out")"
    g=$(calls both dgemm) t=$(calls both dtrsm)
    if [ "${g:-0}" -gt 0 ] && [ "${t:-0}" -gt 0 ]; then
        ok "the preload took LAPACK's BLAS calls ($g DGEMM, $t DTRSM)"
    else
        bad "the report shows no DGEMM or DTRSM from LAPACK: $(head -c 300 "$tmp/both.report" 2>/dev/null)"
    fi
fi

for nb in "" 0 100 300; do
    case $nb in "") size=1024 ;; 0) size=64 ;; *) size=$nb ;; esac
    want=$(( (N + size - 1) / size - 1 ))
    run "nb$nb" "$nb" "$N" cholesky
    rc=$?
    got=$(calls "nb$nb" dgemm)
    what="CUFORT_LAPACK_NB=${nb:-(unset)}, DPOTRF of $N"
    if [ $rc -ne 0 ]; then
        bad "$what: exit status $rc: $(head -c 300 "$tmp/nb$nb.out")"
    elif [ "${got:-0}" != "$want" ]; then
        bad "$what: $((${got:-0})) DGEMM calls, $want expected of block size $size"
    else
        ok "$what: $want DGEMM calls, block size $size; $(cat "$tmp/nb$nb.out")"
    fi
done
finish
