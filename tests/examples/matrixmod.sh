#!/usr/bin/env bash
# tests/examples/matrixmod.sh [build-dir] — the three matrixmod examples (thunking cublas_sscal,
# non-thunking cublas_sscal on integer*8 device pointers, host BLAS sscal) must print the same matrix,
# equal to one computed here independently of any BLAS: seed 001's a(i,j) = (i-1)*M + j, M=6, N=5;
# row p=2 from column q=3 scaled by alpha=16 (n-q+1 elements), then column q from row p by beta=12.
# Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
BUILD=${1:-build}
EX=${CUFORT_EXAMPLES_DIR:-$BUILD/examples}   # another compiler's builds: tests/examples/flang.sh
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

expected=$(awk 'BEGIN {
    M = 6; N = 5; p = 2; q = 3; alpha = 16; beta = 12
    for (j = 1; j <= N; j++) for (i = 1; i <= M; i++) a[i, j] = (i - 1) * M + j
    for (j = q; j <= N; j++) a[p, j] *= alpha          # sscal(n-q+1, alpha, m(p,q), ldm)
    for (i = p; i <= M; i++) a[i, q] *= beta           # sscal(ldm-p+1, beta, m(p,q), 1)
    for (j = 1; j <= N; j++) {                         # one line per column, F7.0 each
        line = ""
        for (i = 1; i <= M; i++) line = line sprintf("%6d.", a[i, j])
        print line
    }
}')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
outs=()
for prog in matrixmod_thunking matrixmod_device matrixmod_cpu; do
    bin=$EX/$prog
    if [ ! -x "$bin" ]; then
        bad "$prog: $bin not built"
        continue
    fi
    timeout "${CUFORT_EXAMPLE_TIMEOUT:-120}" "$bin" >"$tmp/$prog.out" 2>"$tmp/$prog.err"
    rc=$?
    # gfortran's STOP with no code prints nothing and exits 0
    if [ $rc -ne 0 ]; then
        bad "$prog: exit status $rc: $(head -c 300 "$tmp/$prog.err" "$tmp/$prog.out" | tr '\n' ' ')"
        continue
    fi
    if [ "$(cat "$tmp/$prog.out")" = "$expected" ]; then
        ok "$prog: prints the expected matrix (backend ${CUFORT_BACKEND:-auto})"
        outs+=("$prog")
    else
        bad "$prog: matrix differs from the expectation"
        diff <(echo "$expected") "$tmp/$prog.out" | sed 's/^/    /' | head -20
    fi
done

if [ ${#outs[@]} -eq 3 ] && cmp -s "$tmp/matrixmod_thunking.out" "$tmp/matrixmod_device.out" &&
    cmp -s "$tmp/matrixmod_device.out" "$tmp/matrixmod_cpu.out"; then
    ok "matrixmod: thunking, non-thunking and host BLAS outputs are identical"
else
    bad "matrixmod: the three outputs are not all identical and correct"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
