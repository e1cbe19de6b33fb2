#!/usr/bin/env bash
# scripts/gpu_check.sh [build-dir] [step ...] — the GPU half of `make check`, on a machine with a GPU and
# the CUDA toolkit but no gfortran/OpenBLAS: runs a tree built elsewhere with `make gpu-bundle`, never
# rebuilding.  Steps (default all, in this order):
#   smi       nvidia-smi
#   cuda      tests/run_tests.sh with CUFORT_BACKEND=cuda (Debian's ScaLAPACK testers among them when
#             the tree carries build/mpi from `make bench-mpi-collect`)
#   host      tests/run_tests.sh with CUFORT_BACKEND=host (the cross-check oracle)
#   fuzz      the fuzzer over the C ABI on the cuda backend: build/tests/fuzz_capi, 10^6 calls
#             (GPU_CHECK_FUZZ_SEED, default 1; GPU_CHECK_FUZZ_CALLS, default 1000000); a crash, hang or
#             wrong answer prints the call and how to replay it.  On a sanitizer build (build-san)
#             ASan needs ASAN_OPTIONS=protect_shadow_gap=0 with the CUDA driver, which run_tests.sh
#             sets and this step sets too.
#   memcheck  compute-sanitizer --tool memcheck --leak-check full over every test binary, cuda backend;
#             --report-api-errors no, because the tests provoke failing CUDA calls on purpose (an
#             allocation of 2^60 bytes must fail cleanly): memory errors and leaks are what count;
#             --target-processes application-only, because some tests start children that must die
#             with `error stop` (leaving memory behind is what those children are there to show)
#             (GPU_CHECK_SANITIZER_FLAGS replaces "--tool memcheck --leak-check full --report-api-errors no", e.g.
#             "--tool racecheck"; CUFORT_TEST_FILTER narrows any step to some tests)
#   demo      scripts/demo.sh
# Logs go to $OUT when set, else <build-dir>/gpu-check; at most 7 files: nvidia-smi.txt
# check-cuda.log check-host.log fuzz.log memcheck.log demo.log summary.txt.
# Exit status non-zero when any step failed.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
BUILD=build
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
steps=${*:-smi cuda host fuzz memcheck demo}
LOGS=${OUT:-$BUILD/gpu-check}
mkdir -p "$LOGS"

CUDA_DIR=${CUDA_HOME:-}
if [ -z "$CUDA_DIR" ] && command -v nvcc >/dev/null 2>&1; then CUDA_DIR=$(dirname "$(dirname "$(command -v nvcc)")"); fi
[ -n "$CUDA_DIR" ] || CUDA_DIR=/usr/local/cuda
LD_LIBRARY_PATH="$BUILD/runtime:$BUILD/lib:$CUDA_DIR/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
SANITIZER=$(command -v compute-sanitizer 2>/dev/null || echo "$CUDA_DIR/bin/compute-sanitizer")
# The host backend runs on the bundled reference BLAS, not whatever the GPU machine has: the H100
# host's own OpenBLAS (Ubuntu 24.04's) returns an infinite imaginary part from crotg/zrotg, which
# the suite caught (2026-11-22).
if [ -z "${CUFORT_CPU_BLAS:-}" ] && [ -e "$BUILD/runtime/libblas.so.3" ]; then
    export CUFORT_CPU_BLAS="$ROOT/$BUILD/runtime/libblas.so.3"
fi
export CUFORT_TEST_LOGDIR=${CUFORT_TEST_LOGDIR:-$BUILD/test-logs-gpu}

summary=$LOGS/summary.txt
: >"$summary"
status=0
note() { echo "$*" | tee -a "$summary"; }
last_line() { grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n1; }

for step in $steps; do
    case $step in
    smi)
        nvidia-smi 2>&1 | tee "$LOGS/nvidia-smi.txt"
        dev=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -n1)
        note "device: ${dev:-none found}"
        ;;
    cuda | host)
        log=$LOGS/check-$step.log
        CUFORT_BACKEND=$step bash tests/run_tests.sh "$BUILD" 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
        note "check $step: $(last_line "$log") (exit $rc)"
        [ "$rc" -eq 0 ] || status=1
        ;;
    fuzz)
        log=$LOGS/fuzz.log
        [ -f "$BUILD/.sanitize" ] && export ASAN_OPTIONS="protect_shadow_gap=0:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
        CUFORT_BACKEND=cuda "$BUILD/tests/fuzz_capi" --seed "${GPU_CHECK_FUZZ_SEED:-1}" \
            --calls "${GPU_CHECK_FUZZ_CALLS:-1000000}" 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
        note "fuzz cuda: $(grep -E '^fuzz: [0-9]+ calls' "$log" | tail -n1) (exit $rc)"
        [ "$rc" -eq 0 ] || status=1
        ;;
    memcheck)
        # the fuzzer's calls run in child processes, which application-only leaves unchecked: its
        # slice is kept short here (the fuzz step makes the 10^6 calls)
        log=$LOGS/memcheck.log
        CUFORT_FUZZ_CALLS=2000 CUFORT_BACKEND=cuda CUFORT_TEST_NO_EXAMPLES=1 \
            CUFORT_TEST_WRAPPER="$SANITIZER ${GPU_CHECK_SANITIZER_FLAGS:---tool memcheck --leak-check full --report-api-errors no --target-processes application-only} --error-exitcode 86" \
            CUFORT_TEST_LOGDIR=$BUILD/test-logs-memcheck \
            bash tests/run_tests.sh "$BUILD" 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
        errs=$(cat "$BUILD"/test-logs-memcheck/cuda/*.log 2>/dev/null | grep -E 'ERROR SUMMARY' | sort | uniq -c | tr '\n' ';')
        note "memcheck: $(last_line "$log") (exit $rc); sanitizer: ${errs:-no summary}"
        [ "$rc" -eq 0 ] || status=1
        ;;
    demo)
        log=$LOGS/demo.log
        bash scripts/demo.sh "$BUILD" 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
        note "demo: exit $rc"
        [ "$rc" -eq 0 ] || status=1
        ;;
    *)
        echo "gpu_check: unknown step '$step' (smi cuda host fuzz memcheck demo)" >&2
        status=2
        ;;
    esac
done
echo "== summary"
cat "$summary"
exit $status
