#!/usr/bin/env bash
# bench/probes/ab_run.sh [build-dir] [other-lib-dir] — two builds of libcufort compared in turns on
# a GPU machine: vec_bench and fft_bench twice each, the two libraries taking turns run by run (the
# binaries are the tree's; only the library the loader finds changes), then the cuda test suite and
# compute-sanitizer memcheck over the tests of the thunk engine, the staging, the BLAS, FFT and
# kernel host-array paths and the GEMM engine.  other-lib-dir (default <build-dir>/oldlib) holds the
# other libcufort.so, e.g. copied from a build of main before building a branch.  Needs no compiler:
# build with `make check bench-build gpu-bundle` and copy the tree and other-lib-dir.  Files under
# $OUT (else <build-dir>/ab-run): vec.log fft.log summary.txt w.tgz (every log).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
B=${1:-build}
OTHER=${2:-$B/oldlib}
L=${OUT:-$B/ab-run}
mkdir -p "$L"
W=$(mktemp -d)
mkdir -p "$W/check" "$W/memcheck" "$W/fft"
CUDA_DIR=$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
[ -e "$OTHER/libcufort.so" ] || { echo "no libcufort.so in $OTHER" >&2; exit 2; }
OTHER=$(cd "$OTHER" && pwd)
# The binaries ask the loader for libcufort's SONAME (libcufort.so.1); a library from before versioned
# SONAMEs is only libcufort.so, which the loader would pass over for this tree's own: give it that name.
soname=$(readelf -d "$B/lib/libcufort.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ -n "$soname" ] && [ ! -e "$OTHER/$soname" ]; then
    mkdir -p "$W/other"
    ln -s "$OTHER/libcufort.so" "$W/other/$soname"
    OTHER=$W/other
fi

for run in 1 2; do
    for lib in "$ROOT/$B/lib" "$OTHER"; do
        export LD_LIBRARY_PATH="$lib:$ROOT/$B/runtime:$ROOT/$B/lib:$CUDA_DIR/lib64"
        echo "== run $run library $lib" | tee -a "$L/vec.log" >>"$L/fft.log"
        timeout 150 "$B/bench/vec_bench" >>"$L/vec.log" 2>&1
        echo "exit $?" >>"$L/vec.log"
        OUT=$W/fft timeout 150 "$B/bench/fft_bench" >>"$L/fft.log" 2>&1
        echo "exit $?" >>"$L/fft.log"
    done
done
unset LD_LIBRARY_PATH

OUT=$W/check timeout 240 bash scripts/gpu_check.sh "$B" smi cuda >"$W/check/run.out" 2>&1
OUT=$W/memcheck CUFORT_TEST_FILTER='test_thunk|test_staging|test_blas_host|test_fft$|test_gemm_engine|test_kernels$|test_blas_f77_thunking|test_fft_f77_thunking|test_kernels_f77_thunking' \
    timeout 240 bash scripts/gpu_check.sh "$B" memcheck >"$W/memcheck/run.out" 2>&1
cat "$W/check/summary.txt" "$W/memcheck/summary.txt" >"$L/summary.txt" 2>/dev/null
cp "$L/vec.log" "$L/fft.log" "$W/"
tar czf "$L/w.tgz" -C "$W" .
cat "$L/summary.txt"
grep -E 'KiB|^==|exit [1-9]' "$L/vec.log"
grep -E '^c2c|^==|exit [1-9]' "$L/fft.log"
