#!/usr/bin/env bash
# tests/examples/user_kernel.sh [build-dir] — examples/user_kernel (a user's own CUDA kernel called from
# Fortran on cufort device memory and a cufort stream) must print b(i) = a(i)**2 for a(i) = (i, i/2-3)
# at i = 1, 2, 3, 100 and their sum over i = 1..100 (cufort_creduce_sum_dev on the same stream),
# computed here independently (every value is exact in single precision).
# Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
BUILD=${1:-build}
bin=${CUFORT_EXAMPLES_DIR:-$BUILD/examples}/user_kernel   # another compiler's build: tests/examples/flang.sh
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

expected=$(awk 'BEGIN {
    for (i = 1; i <= 100; i++) {
        x = i; y = 0.5 * i - 3; re = x * x - y * y; im = 2 * x * y; sr += re; si += im
        if (i <= 3 || i == 100) printf "%5d%14.2f%14.2f\n", i, re, im
    }
    printf "  sum%14.2f%14.2f\n", sr, si
}')

if [ ! -x "$bin" ]; then
    bad "user_kernel: $bin not built"
else
    out=$(timeout "${CUFORT_EXAMPLE_TIMEOUT:-120}" "$bin" 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "user_kernel: exit status $rc: $(echo "$out" | head -c 300 | tr '\n' ' ')"
    else
        backend=$(echo "$out" | sed -n 's/^backend: \([a-z]*\).*/\1/p')
        got=$(echo "$out" | grep -v '^backend:')
        if [ "$got" = "$expected" ]; then
            ok "user_kernel: your kernel's squares and cufort's sum on its stream are right (backend $backend)"
        else
            bad "user_kernel: output differs from the expectation (backend $backend)"
            diff <(echo "$expected") <(echo "$got") | sed 's/^/    /' | head -20
        fi
    fi
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
