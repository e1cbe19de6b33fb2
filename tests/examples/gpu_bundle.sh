#!/usr/bin/env bash
# tests/examples/gpu_bundle.sh [build-dir] — scripts/gpu_bundle.sh on a copy of the built libraries and
# one test binary: it succeeds whether or not the benchmarks were built (build/bench), carries
# build/bench only when it exists, keeps the libraries' version links (lib<name>.so.X) as links, and
# collects the CPU BLAS the host backend loads.  Skips where the tree cannot be bundled (no netlib
# libblas.so.3 or no gfortran: a GPU machine running a carried build).
# Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

multiarch=$( (gcc -print-multiarch 2>/dev/null || true) | head -n1)
if [ ! -e "/usr/lib/${multiarch:-x86_64-linux-gnu}/blas/libblas.so.3" ] || ! command -v gfortran >/dev/null 2>&1; then
    echo "# skipped: this machine cannot make a bundle (no netlib libblas.so.3 or no gfortran)"
    echo "0 passed, 0 failed"
    exit 0
fi
if [ ! -x "$BUILD/tests/test_version" ] || [ ! -e "$BUILD/lib/libcufort.so" ]; then
    echo "FAIL $BUILD/lib or $BUILD/tests/test_version not built"
    echo "0 passed, 1 failed"
    exit 1
fi

tmp=$(mktemp -d "$BUILD/gpu-bundle-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
b=$tmp/build
mkdir -p "$b/tests"
cp -a "$BUILD/lib" "$b/lib"
cp "$BUILD/tests/test_version" "$b/tests/"

for with_bench in no yes; do
    if [ $with_bench = yes ]; then
        mkdir -p "$b/bench" && cp "$BUILD/tests/test_version" "$b/bench/"
    fi
    out=$(bash "$ROOT/scripts/gpu_bundle.sh" "$b" 2>&1)
    rc=$?
    carry=$(sed -n 's/.*; to copy: \(.*\) = [0-9]* MiB$/\1/p' <<<"$out")
    want="$b/lib $b/tests $b/runtime"
    [ $with_bench = yes ] && want+=" $b/bench"
    if [ $rc -eq 0 ] && [ "$carry" = "$want" ] && [ -e "$b/runtime/libblas.so.3" ]; then
        ok "gpu_bundle.sh, bench/ built: $with_bench: carries ${carry//$b\//}, runtime has libblas.so.3"
    else
        bad "gpu_bundle.sh, bench/ built: $with_bench: exit status $rc, carry '${carry//$b\//}': $(tail -n 4 <<<"$out" | tr '\n' '|')"
    fi
done
links=$(find "$b/lib" -maxdepth 1 -type l -name 'libcufort*.so*' | wc -l)
if [ "$(readlink "$b/lib/libcufort.so")" = "$(readlink "$BUILD/lib/libcufort.so")" ] && [ "$links" -ge 10 ] &&
    [ -z "$(ls "$b/runtime" | grep '^libcufort')" ]; then
    ok "bundle: build/lib keeps its $links version links, no libcufort copy in runtime/"
else
    bad "bundle: $links links in lib/, runtime holds: $(ls "$b/runtime" | tr '\n' ' ')"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
