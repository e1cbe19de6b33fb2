#!/usr/bin/env bash
# bench/gpu_run.sh [build-dir] — issue 5's GPU session in one command (device tool): the kernel tests
# on the cuda backend (C ABI, both F77 libraries, the user_kernel example), compute-sanitizer memcheck
# and racecheck on the kernel tests, then the benchmark.  Needs no compiler: the tree is built
# elsewhere (make BUILD=<dir> libs tests examples bench-build; scripts/gpu_bundle.sh <dir>).  Five
# files go to $OUT (else <build-dir>/gpu-run): summary.txt tests.log sanitizer.log bench.log
# bench_kernels.csv; the last lines printed are the bench table and the summary.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
B=${1:-build}
L=${OUT:-$B/gpu-run}
mkdir -p "$L"
CUDA_DIR=$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
export LD_LIBRARY_PATH="$B/runtime:$B/lib:$CUDA_DIR/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
SAN=$(command -v compute-sanitizer 2>/dev/null || echo "$CUDA_DIR/bin/compute-sanitizer")
S=$L/summary.txt
: >"$S"
note() { echo "$*" | tee -a "$S"; }
last() { grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n1; }
note "device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
OUT=$L "$B/bench/bench_kernels" ${BENCH_REPS:-100} >"$L/bench.log" 2>&1
note "bench: exit $?"
T=$L/tests.log
: >"$T"
for be in cuda host; do
    for t in test_kernels test_kernels_f77_device test_kernels_f77_thunking; do
        CUFORT_BACKEND=$be timeout 600 "$B/tests/$t" >"$L/one.log" 2>&1
        rc=$?
        { echo "==== $t [$be] exit $rc"; cat "$L/one.log"; } >>"$T"
        note "$t [$be]: $(last "$L/one.log") (exit $rc)"
    done
    CUFORT_BACKEND=$be bash tests/examples/user_kernel.sh "$B" >"$L/one.log" 2>&1
    rc=$?
    { echo "==== example user_kernel [$be] exit $rc"; cat "$L/one.log"; } >>"$T"
    note "example user_kernel [$be]: $(last "$L/one.log") (exit $rc)"
done
rm -f "$L/one.log"
grep -h '^FAIL\|^#' "$T" | head -n 20
SL=$L/sanitizer.log
CUFORT_BACKEND=cuda CUFORT_KERNELS_QUICK=1 timeout ${MEMCHECK_TIMEOUT:-240} "$SAN" --tool memcheck --leak-check full \
    --report-api-errors no --error-exitcode 86 "$B/tests/test_kernels" 2>&1 | head -c 4000000 >"$SL.m"
rc=${PIPESTATUS[0]}
note "memcheck test_kernels (quick): exit $rc; $(last "$SL.m"); $(grep 'ERROR SUMMARY' "$SL.m" | tail -n1)"
CUFORT_BACKEND=cuda CUFORT_KERNELS_QUICK=2 timeout ${RACECHECK_TIMEOUT:-200} "$SAN" --tool racecheck --racecheck-report all \
    --error-exitcode 86 "$B/tests/test_kernels" 2>&1 | head -c 4000000 >"$SL.r"
rc=${PIPESTATUS[0]}
note "racecheck test_kernels (quick 2): exit $rc; $(last "$SL.r"); $(grep 'RACECHECK SUMMARY\|ERROR SUMMARY' "$SL.r" | tail -n1)"
{ echo "==== memcheck"; grep -v '^ok ' "$SL.m"; echo "==== racecheck"; grep -v '^ok ' "$SL.r"; } >"$SL"
rm -f "$SL.m" "$SL.r"
sed -n '/^== /,$p' "$L/bench.log"
echo "== summary"
cat "$S"
