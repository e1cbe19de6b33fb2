#!/usr/bin/env bash
# bench/lapack_run.sh [--collect] [build-dir] — LAPACK's factorizations as a legacy program runs them
# (bench/lapack_factor.f90, unchanged between runs), three ways:
#   reference LAPACK (Debian's liblapack3) on the drop-in BLAS under LD_PRELOAD, at LAPACK_NBS block
#     sizes (CUFORT_LAPACK_NB; "default": not set, "ref": LAPACK's own choice), each with the
#     drop-in's report;
#   OpenBLAS's own LAPACK on every core;
#   cuSOLVER on arrays already on the GPU (bench/cusolver_factor.c), the limit for a GPU LAPACK.
# --collect copies the libraries this needs from this machine's packages into <build-dir>/lapack
# (reference LAPACK and BLAS; OpenBLAS, 36 MB, xz-compressed, unpacked on first use), so that the
# tree can run where they are not installed.
# Environment: LAPACK_SIZES (default 8192 16384), LAPACK_ROUTINES (dpotrf dgetrf dgeqrf zpotrf; also
# dgemm, for the CPU's rate), LAPACK_NBS (default ref 512 2048), LAPACK_REPS (3), LAPACK_IMPLS
# (openblas dropin cusolver), LAPACK_TIMEOUT (seconds per run, 300).  Output: $OUT (default <build-dir>/lapack-out):
# lapack.csv ("impl,routine,n,nb,call,seconds,gflops"), one log per run, reports.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
collect=0
if [ "${1:-}" = --collect ]; then collect=1; shift; fi
BUILD=${1:-build}
LIBS=$BUILD/lapack

if [ $collect = 1 ]; then
    multiarch=$( (gcc -print-multiarch 2>/dev/null || true) | head -n1)
    d=/usr/lib/${multiarch:-x86_64-linux-gnu}
    mkdir -p "$LIBS/reference" "$LIBS/openblas"
    cp -L "$d/lapack/liblapack.so.3" "$d/blas/libblas.so.3" "$LIBS/reference/" || exit 1
    xz -T0 -6 -c "$d/openblas-pthread/libopenblas.so.0" > "$LIBS/openblas/libopenblas.so.0.xz" || exit 1
    du -sh "$LIBS"
    exit 0
fi

OUT=${OUT:-$BUILD/lapack-out}
mkdir -p "$OUT"
ob=$LIBS/openblas
if [ ! -e "$ob/libopenblas.so.0" ]; then
    { xz -dc "$ob/libopenblas.so.0.xz" 2>/dev/null ||
      python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$ob/libopenblas.so.0.xz"; } \
        > "$ob/libopenblas.so.0" || { echo "lapack_run: no OpenBLAS in $ob (--collect)" >&2; rm -f "$ob/libopenblas.so.0"; exit 1; }
fi
# OpenBLAS under LAPACK's and BLAS's names; alone in its own folder for the drop-in's CPU path
mkdir -p "$ob/as-lapack" "$ob/cpu"
for n in liblapack.so.3 libblas.so.3 libopenblas.so.0; do ln -sf ../libopenblas.so.0 "$ob/as-lapack/$n"; done
ln -sf ../libopenblas.so.0 "$ob/cpu/libopenblas.so.0"

RT=$BUILD/runtime:$BUILD/lib:${CUDA_HOME:-/usr/local/cuda}/lib64
SIZES=${LAPACK_SIZES:-8192 16384}
ROUTINES=${LAPACK_ROUTINES:-dpotrf dgetrf dgeqrf zpotrf}
NBS=${LAPACK_NBS:-default ref 512 2048}
REPS=${LAPACK_REPS:-3}
IMPLS=" ${LAPACK_IMPLS:-openblas dropin cusolver} "
LIMIT=${LAPACK_TIMEOUT:-300}
CSV=$OUT/lapack.csv
[ -e "$CSV" ] || echo "impl,routine,n,nb,call,seconds,gflops" > "$CSV"

record() {   # record IMPL NB LOG: the timing lines of a run into the CSV
    awk -v impl="$1" -v nb="$2" '$3 ~ /^[0-9]+$/ && NF == 5 { print impl "," $1 "," $2 "," nb "," $3 "," $4 "," $5 }' "$3" >> "$CSV"
}

for n in $SIZES; do
    for r in $ROUTINES; do
        if [[ $IMPLS == *" openblas "* ]]; then
            log=$OUT/openblas_${r}_$n.log
            LD_LIBRARY_PATH=$ob/as-lapack:$RT timeout "$LIMIT" "$BUILD/bench/lapack_factor" "$r" "$n" "$REPS" > "$log" 2>&1
            echo "openblas $r $n rc=$?: $(tail -n 2 "$log" | tr '\n' ' ')"
            record openblas "" "$log"
        fi
        [[ $IMPLS == *" dropin "* ]] || NBS=""
        for nb in $NBS; do
            log=$OUT/dropin_${r}_${n}_nb$nb.log
            case $nb in default) nbv="" ;; ref) nbv=0 ;; *) nbv=$nb ;; esac
            CUFORT_LAPACK_NB=$nbv CUFORT_REPORT=1 CUFORT_REPORT_FILE=$OUT/report_${r}_${n}_nb$nb.txt \
                LD_PRELOAD=$BUILD/lib/libcufort_blas.so LD_LIBRARY_PATH=$LIBS/reference:$ob/cpu:$RT \
                timeout "$LIMIT" "$BUILD/bench/lapack_factor" "$r" "$n" "$REPS" > "$log" 2>&1
            echo "drop-in nb=$nb $r $n rc=$?: $(tail -n 2 "$log" | tr '\n' ' ')"
            record dropin "$nb" "$log"
        done
        if [[ $IMPLS == *" cusolver "* ]] && [ "$r" != dgemm ]; then
            log=$OUT/cusolver_${r}_$n.log
            LD_LIBRARY_PATH=$RT timeout "$LIMIT" "$BUILD/bench/cusolver_factor" "$r" "$n" "$((REPS + 1))" > "$log" 2>&1
            echo "cusolver $r $n rc=$?: $(tail -n 1 "$log")"
            record cusolver "" "$log"
        fi
    done
done
