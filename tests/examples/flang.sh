#!/usr/bin/env bash
# tests/examples/flang.sh [build-dir] — the examples LLVM flang built (mk/flang.mk, in
# <build-dir>/flang/examples) through the checks of the gfortran builds: matrixmod.sh, sgemm.sh and
# user_kernel.sh, their lines marked "flang".  (What else flang built, the Fortran tests and the modern
# examples, runs as build/flang/tests/flang_*.)  Where this tree was built without flang it says so in one
# line and counts nothing.  Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
EX=$BUILD/flang/examples
pass=0 fail=0

if [ ! -d "$EX" ]; then
    # one line: no flang-new found (scripts/deps.sh installs Debian's flang-19), FLANG= given, or FC is flang
    echo "# skipped: no second build with LLVM flang in $BUILD/flang (flang-new not found, or FC is flang)"
    echo "0 passed, 0 failed"
    exit 0
fi

checks="user_kernel"
if [ -e "$EX/matrixmod_thunking" ]; then
    checks="matrixmod sgemm user_kernel"
else
    echo "# F77 examples not built with flang: the F77_MANGLING of this build has no flang flag"
fi
for c in $checks; do
    out=$(CUFORT_EXAMPLES_DIR=$EX bash "$ROOT/tests/examples/$c.sh" "$BUILD" 2>&1)
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$out" | tail -n1)
    grep -v -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$out" | sed -E 's/^(ok|FAIL) /\1 flang /'
    if [ -z "$summary" ]; then
        echo "FAIL flang $c.sh: no summary line"
        fail=$((fail + 1))
        continue
    fi
    p=${summary%% passed*}
    f=${summary#*passed, }
    pass=$((pass + p))
    fail=$((fail + ${f%% failed*}))
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
