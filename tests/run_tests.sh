#!/usr/bin/env bash
# tests/run_tests.sh [build-dir] — runs every test binary in <build-dir>/tests (and <build-dir>/flang/tests,
# where LLVM flang built the Fortran tests a second time) and every example check in
# tests/examples/*.sh, once per backend, and sums their results.  Needs no compiler: `make check` calls
# it after building, and on a GPU machine without gfortran it runs a carried build tree directly
# (scripts/gpu_check.sh).
#
# Protocol: every test prints "ok ..." / "FAIL ..." lines and a last line "N passed, M failed".  A test
# that crashes, times out or exits non-zero without a summary counts as one more failure, named.  This
# runner's own last line is exactly "N passed, M failed" (totals); its exit status is non-zero when
# anything failed.
#
# Environment:
#   CUFORT_BACKEND          run once with this backend (cuda|host|auto).  Unset: cuda then host when
#                           a GPU is visible (the cross-check), host only when none is.
#   CUFORT_TEST_BACKENDS    explicit list, e.g. "cuda host"; overrides the above
#   CUFORT_TEST_WRAPPER     command put in front of every test binary, e.g.
#                           "compute-sanitizer --tool memcheck --error-exitcode 1"
#   CUFORT_TEST_FILTER      extended regex: run only the tests whose name matches
#   CUFORT_TEST_NO_EXAMPLES=1   skip tests/examples/*.sh
#   CUFORT_TEST_TIMEOUT     seconds per test (default 900)
#   CUFORT_TEST_VERBOSE=1   print every line of every test (default: FAIL and "# skipped" lines, summaries)
#   CUFORT_TEST_LOGDIR      full logs (default <build-dir>/test-logs)
#
# A sanitizer build (make check SANITIZE=address,undefined: <build-dir>/.sanitize exists) runs with
# ASAN_OPTIONS, UBSAN_OPTIONS and LSAN_OPTIONS set here (what the caller set comes after, so it wins)
# and the known false positives of tests/sanitizer/*.supp suppressed; a sanitizer's report in a log
# is one more failure.  On a machine with a GPU, ASan needs protect_shadow_gap=0 (the CUDA driver
# maps memory where ASan would keep its shadow gap), which is added when a GPU is visible.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
LOGDIR=${CUFORT_TEST_LOGDIR:-$BUILD/test-logs}
TIMEOUT=${CUFORT_TEST_TIMEOUT:-900}
WRAPPER=${CUFORT_TEST_WRAPPER:-}
FILTER=${CUFORT_TEST_FILTER:-}
VERBOSE=${CUFORT_TEST_VERBOSE:-0}

# Libraries a GPU machine lacks travel in build/runtime (make gpu-bundle); build/lib is found through
# the binaries' $ORIGIN rpath, but a carried tree may have lost nothing by adding it here too.
LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -d "$BUILD/runtime" ] && LD_LIBRARY_PATH="$BUILD/runtime:$LD_LIBRARY_PATH"
export LD_LIBRARY_PATH

gpu_visible() {
    case ${CUDA_VISIBLE_DEVICES-unset} in "" | -1 | none | NoDevFiles) return 1 ;; esac
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'
}

SANITIZED=""
if [ -f "$BUILD/.sanitize" ]; then
    SANITIZED=$(cat "$BUILD/.sanitize")
    supp=$ROOT/tests/sanitizer
    gap=""
    if gpu_visible || [ "${CUFORT_BACKEND:-}" = cuda ] || [[ ${CUFORT_TEST_BACKENDS:-} == *cuda* ]]; then
        gap=":protect_shadow_gap=0"
    fi
    # allocator_may_return_null: a test's allocation of 2^60 bytes must fail cleanly, not stop ASan;
    # verify_asan_link_order=0: the drop-in example preloads libcufort_blas.so ahead of the runtime
    # its (instrumented) program links
    export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:verify_asan_link_order=0:suppressions=$supp/asan.supp$gap${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
fi

if [ -n "${CUFORT_TEST_BACKENDS:-}" ]; then
    backends=$CUFORT_TEST_BACKENDS
elif [ -n "${CUFORT_BACKEND:-}" ]; then
    backends=$CUFORT_BACKEND
elif gpu_visible; then
    backends="cuda host"
else
    backends="host"
fi

tests=()
# build/flang/tests: the Fortran tests built with LLVM flang too (mk/flang.mk)
for f in "$BUILD"/tests/* "$BUILD"/flang/tests/*; do
    [ -f "$f" ] && [ -x "$f" ] && tests+=("$f")
done
if [ "${CUFORT_TEST_NO_EXAMPLES:-0}" != 1 ]; then
    for f in "$ROOT"/tests/examples/*.sh; do
        [ -f "$f" ] && tests+=("$f")
    done
fi

total_pass=0 total_fail=0
failures=()

run_one() {   # run_one BACKEND PATH
    local backend=$1 path=$2 name log rc summary p f cmd
    name=$(basename "$path")
    name=${name%.sh}
    case $path in *.sh) name=example_$name ;; esac
    log=$LOGDIR/$backend/$name.log
    mkdir -p "$LOGDIR/$backend"
    if [[ $path == *.sh ]]; then
        cmd=(bash "$path" "$BUILD")
    else
        # shellcheck disable=SC2206
        cmd=($WRAPPER "$path")
    fi
    local t0=$SECONDS
    # in a subshell, so that bash's own "Segmentation fault" notice stays out of the output
    (CUFORT_BACKEND=$backend exec timeout -k 10 "$TIMEOUT" "${cmd[@]}" >"$log" 2>&1 </dev/null) 2>/dev/null
    rc=$?
    local secs=$((SECONDS - t0))
    summary=$(grep -E '^[[:space:]]*[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
    # a test that never calls CUDA (test_adapt: a policy on a simulated clock) leaves a sanitizer
    # nothing to check, which compute-sanitizer reports with exit status 255; the test's own
    # result stands
    if [ -n "$WRAPPER" ] && [ $rc -eq 255 ] && [[ $summary == *" 0 failed"* ]] &&
        grep -q 'Target application terminated before first instrumented API call' "$log"; then
        rc=0
    fi
    if [ -n "$summary" ]; then
        p=$(sed -E 's/^[[:space:]]*([0-9]+) passed.*/\1/' <<<"$summary")
        f=$(sed -E 's/^[[:space:]]*[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$summary")
    else
        p=$(grep -c '^ok' "$log")
        f=$(grep -c '^FAIL' "$log")
    fi
    if [ "$VERBOSE" = 1 ]; then
        sed "s/^/[$backend] /" "$log"
    else
        grep -E '^FAIL|^# skipped|ERROR SUMMARY: [1-9]|Segmentation|Aborted|core dumped' "$log" | head -n 50 |
            sed "s/^/[$backend] $name: /"
    fi
    local serr san=""
    serr=$(grep -E '^=+ ERROR SUMMARY: [1-9]' "$log" | tail -n1 | sed -E 's/.*SUMMARY: ([0-9]+).*/\1/')
    if [ -n "$SANITIZED" ] && grep -qE '^==[0-9]+==ERROR: [A-Za-z]+Sanitizer|: runtime error: ' "$log"; then
        san=1
    fi
    local why=""
    if [ $rc -eq 124 ] || { [ $rc -eq 137 ] && [ $secs -ge "$TIMEOUT" ]; }; then
        why="timed out after ${TIMEOUT}s"
    elif [ $rc -gt 128 ]; then
        why="killed by signal $((rc - 128))"
    elif [ -z "$summary" ]; then
        why="exit status $rc without a summary line"
    elif [ $rc -ne 0 ] && [ "$f" -eq 0 ] && [ -z "$serr" ] && [ -z "$san" ]; then
        why="exit status $rc"
    fi
    if [ -n "$why" ]; then
        f=$((f + 1))
        echo "FAIL [$backend] $name: $why (log: $log)"
        tail -n 5 "$log" | sed "s/^/    > /"
    fi
    # a sanitizer's findings are failures of their own, even where the test failed anyway
    if [ -n "$serr" ]; then
        f=$((f + 1))
        echo "FAIL [$backend] $name: compute-sanitizer reported $serr errors (log: $log)"
        grep -E '^=+ ' "$log" | grep -v -E 'COMPUTE-SANITIZER|^=+ *$' | head -n 40 | sed "s/^/    > /"
    fi
    if [ -n "$san" ]; then
        f=$((f + 1))
        echo "FAIL [$backend] $name: sanitizer report (log: $log)"
        grep -E -A3 '^==[0-9]+==ERROR: [A-Za-z]+Sanitizer|: runtime error: ' "$log" | head -n 12 | sed "s/^/    > /"
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    [ "$f" -gt 0 ] && failures+=("[$backend] $name ($f)")
    printf '[%s] %-28s %6d passed, %d failed  (%ds)\n' "$backend" "$name" "$p" "$f" "$secs"
}

if [ ${#tests[@]} -eq 0 ]; then
    echo "FAIL no tests found under $BUILD/tests or tests/examples (run make check)"
    echo "0 passed, 1 failed"
    exit 1
fi

echo "cufort tests: backends: $backends; build: $BUILD${WRAPPER:+; wrapper: $WRAPPER}${SANITIZED:+; sanitizers: $SANITIZED}"
for backend in $backends; do
    for t in "${tests[@]}"; do
        n=$(basename "$t")
        if [ -n "$FILTER" ] && ! [[ ${n%.sh} =~ $FILTER ]]; then continue; fi
        run_one "$backend" "$t"
    done
done

if [ ${#failures[@]} -gt 0 ]; then
    echo "failed: ${failures[*]}"
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
