#!/usr/bin/env bash
# bench/mpi_run.sh [--collect | --testers] [build-dir] — ScaLAPACK under mpirun, as a distributed
# program runs it (bench/scalapack_bench.f90, one binary for every run), three ways:
#   cpu     OpenBLAS, one thread per rank;
#   dropin  the same binary with the drop-in BLAS preloaded, a report per rank;
#   mps     dropin with NVIDIA's Multi-Process Service, so that the ranks' kernels share the GPU
#           instead of taking turns (skipped where its daemon does not start).
# --collect builds <build-dir>/mpi/scalapack_bench and copies there what it needs beyond a bare
# Open MPI install: ScaLAPACK, the Fortran runtime and MPI's Fortran bindings, OpenBLAS (36 MB,
# xz-compressed, unpacked on first use into <build-dir>/mpi-openblas), and Debian's ScaLAPACK testers
# with their inputs.  Carry <build-dir>/mpi, <build-dir>/lib and <build-dir>/runtime.
# --prepare only unpacks OpenBLAS (tests/examples/scalapack.sh runs the collected testers where
# none are installed).
# --testers runs those testers (MPI_TESTERS, default all collected; MPI_TESTER_RANKS ranks, default
# 16) on the CPU BLAS, under the drop-in, and under the drop-in with every Level-3 call forced to
# the GPU: testers.csv ("tester,mode,ranks,seconds,passed,failed").
# Environment: MPI_RANKS (1 4 16), MPI_ROUTINES (pdgemm pdpotrf pdgetrf), MPI_SIZES (8192 16384),
# MPI_NBS (64 128 256 512), MPI_MODES (cpu dropin mps), MPI_REPS (3), MPI_TIMEOUT (seconds per run,
# 300), MPI_BUDGET (seconds for everything, 540: runs not started by then are skipped), MPI_ARGS
# (more mpirun options).  The most telling runs come first, so that a spent budget cuts the least:
# 4 ranks at the first size, pdgemm and pdpotrf, cpu and dropin; then mps; then pdgetrf; then the
# other rank counts; then the other sizes.  Output: $OUT (default <build-dir>/mpi-out): mpi.csv
# ("mode,routine,n,nb,ranks,call,seconds,gflops"), one log per run, the drop-in's reports.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
task=bench
case ${1:-} in
    --collect) task=collect; shift ;;
    --testers) task=testers; shift ;;
    --prepare) task=prepare; shift ;;
esac
[ $task = collect ] && mkdir -p "${1:-build}"
BUILD=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "mpi_run: no build directory ${1:-build}" >&2; exit 2; }
LIBS=$BUILD/mpi
TESTER_NAMES="xdlu xdllt xdqr xdls xdinv xslu xsllt xsqr xsls xsinv xclu xcllt xcqr xcls xcinv
              xzlu xzllt xzqr xzls xzinv"
# what a machine with Open MPI has without ScaLAPACK, a BLAS or a Fortran compiler
BASE_LIBS='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libgcc_s|libz|libudev|libhwloc'
BASE_LIBS+='|libevent[a-z_.0-9-]*|libmpi|libopen-rte|libopen-pal)\.so'
OPENBLAS_NAMES='^(libopenblas\.so\.0|libblas\.so\.3|liblapack\.so\.3)$'

if [ $task = collect ]; then
    multiarch=$( (gcc -print-multiarch 2>/dev/null || true) | head -n1)
    d=/usr/lib/${multiarch:-x86_64-linux-gnu}
    testers=$d/scalapack/openmpi-tests
    rm -rf "$LIBS" && mkdir -p "$LIBS/testers" || exit 1
    # --as-needed: MPI's unused Fortran 2008 bindings would be one more library to carry
    mpif90 -O2 -Wl,--as-needed bench/scalapack_bench.f90 -o "$LIBS/scalapack_bench" \
        -lscalapack-openmpi -lopenblas || exit 1
    for t in $TESTER_NAMES; do
        [ -x "$testers/$t" ] && cp "$testers/$t" "$LIBS/testers/"
    done
    cp -L "$testers"/{LU,LLT,QR,LS,INV}.dat "$LIBS/testers/" || exit 1
    xz -T0 -6 -c "$(readlink -f "$d/libopenblas.so.0")" > "$LIBS/libopenblas.so.0.xz" || exit 1
    # everything else the binaries load from this machine's packages
    ldd "$LIBS/scalapack_bench" "$LIBS"/testers/x* | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' |
        sort -u | while read -r name path; do
            [[ $name =~ $BASE_LIBS || $name =~ $OPENBLAS_NAMES ]] || cp -L "$path" "$LIBS/$name" || exit 1
        done || exit 1
    ls "$LIBS"
    du -sh "$LIBS"
    exit 0
fi

# OpenBLAS under its own name (the drop-in's CPU BLAS looks for it first) and as the BLAS and LAPACK
# ScaLAPACK was linked against; outside $LIBS, which has to stay small enough to carry
ob=$BUILD/mpi-openblas
if [ ! -e "$ob/libopenblas.so.0" ]; then
    mkdir -p "$ob"
    xzfile=$LIBS/libopenblas.so.0.xz
    { xz -dc "$xzfile" 2>/dev/null ||
      python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$xzfile"; } \
        > "$ob/libopenblas.so.0" ||
        { echo "mpi_run: no OpenBLAS in $LIBS (--collect)" >&2; rm -f "$ob/libopenblas.so.0"; exit 1; }
fi
ln -sf libopenblas.so.0 "$ob/libblas.so.3"
ln -sf libopenblas.so.0 "$ob/liblapack.so.3"
LD_LIBRARY_PATH=$ob:$LIBS:$BUILD/runtime:$BUILD/lib:${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
export OPENBLAS_NUM_THREADS=1
# OpenBLAS picks its kernels by CPU model, and on a model it does not know falls back to Prescott's
# (no AVX), several times slower; the CPU's flags name the right ones
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
    if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
    elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell
    fi
fi
missing=$(ldd "$LIBS/scalapack_bench" | awk '/not found/ { print $1 }')
[ -z "$missing" ] || { echo "mpi_run: not found: $missing" >&2; exit 1; }
[ $task = prepare ] && exit 0

OUT=$(mkdir -p "${OUT:-$BUILD/mpi-out}" && cd "${OUT:-$BUILD/mpi-out}" && pwd)
LIMIT=${MPI_TIMEOUT:-300}
BUDGET=${MPI_BUDGET:-540}
launch=(mpirun --oversubscribe -x LD_LIBRARY_PATH -x OPENBLAS_NUM_THREADS)
[ -n "${OPENBLAS_CORETYPE:-}" ] && launch+=(-x OPENBLAS_CORETYPE)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
[ -n "${CUFORT_BACKEND:-}" ] && launch+=(-x CUFORT_BACKEND)
read -ra extra <<< "${MPI_ARGS:-}"
launch+=("${extra[@]}")
preload=(-x LD_PRELOAD="$BUILD/lib/libcufort_blas.so")
skipped=0

in_budget() {   # whether a run may start; counts the ones that may not
    [ $((BUDGET - SECONDS)) -ge 10 ] && return 0
    skipped=$((skipped + 1))
    return 1
}

mpi() {   # mpi RANKS LOG [mpirun arguments...]: one run, stopped where the budget ends
    local np=$1 log=$2 left=$((BUDGET - SECONDS)) yield=()
    shift 2
    # ranks waiting in MPI spin; with more ranks than cores they would take the busy ones' time
    [ "$np" -gt "$(nproc)" ] && yield=(--mca mpi_yield_when_idle 1)
    timeout -k 10 $((left < LIMIT ? left : LIMIT)) "${launch[@]}" "${yield[@]}" -np "$np" "$@" >"$log" 2>&1
}

if [ $task = testers ]; then
    np=${MPI_TESTER_RANKS:-16}
    CSV=$OUT/testers.csv
    [ -e "$CSV" ] || echo "tester,mode,ranks,seconds,passed,failed" > "$CSV"
    mkdir -p "$OUT/testers"
    cd "$LIBS/testers" || exit 1   # each tester reads its .dat from the working directory
    declare -A secs
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
    for t in ${MPI_TESTERS:-$TESTER_NAMES}; do
        [ -x "$t" ] || continue
        line="$t:"
        for mode in cpu dropin forced; do
            in_budget || continue
            args=()
            [ $mode != cpu ] && args=("${preload[@]}")
            [ $mode = forced ] && args+=(-x CUFORT_DROPIN_FORCE_GPU=1)
            log=$OUT/testers/$t.$mode.log
            start=$(date +%s.%N)
            mpi "$np" "$log" "${args[@]}" "./$t"
            rc=$?
            secs[$mode]=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.2f", $2 - $1 }')
            passed=$(grep -c ' PASSED' "$log") failed=$(grep -c ' FAILED' "$log")
            echo "$t,$mode,$np,${secs[$mode]},$passed,$failed" >> "$CSV"
            line+=" $mode ${secs[$mode]} s, rc=$rc, $passed PASSED, $failed FAILED;"
        done
        [ $skipped = 0 ] || break
        echo "$line drop-in/cpu $(ratio "${secs[dropin]}" "${secs[cpu]}"), forced/cpu $(ratio "${secs[forced]}" "${secs[cpu]}")"
    done
    [ $skipped = 0 ] || echo "mpi_run: budget of $BUDGET s spent; testers from $t on skipped"
    exit 0
fi

CSV=$OUT/mpi.csv
[ -e "$CSV" ] || echo "mode,routine,n,nb,ranks,call,seconds,gflops" > "$CSV"
REPS=${MPI_REPS:-3}
mps_state=off   # off, on, or unavailable
# the daemon's own directories: a socket path must stay short, and $OUT is for results
tmp=$(mktemp -d)
export CUDA_MPS_PIPE_DIRECTORY=$tmp/mps_pipe CUDA_MPS_LOG_DIRECTORY=$tmp/mps_log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"

mps() {   # mps on|off: the daemon for the mps runs, and never beside the others
    if [ "$1" = on ] && [ $mps_state = off ]; then
        if nvidia-cuda-mps-control -d 2>/dev/null; then
            mps_state=on
        else
            echo "mpi_run: MPS unavailable (nvidia-cuda-mps-control -d failed); mps runs skipped"
            mps_state=unavailable
        fi
    elif [ "$1" = off ] && [ $mps_state = on ]; then
        echo quit | nvidia-cuda-mps-control
        mps_state=off
    fi
}
trap 'mps off; rm -rf "$tmp"' EXIT

RANKS=${MPI_RANKS:-1 4 16} ROUTINES=${MPI_ROUTINES:-pdgemm pdpotrf pdgetrf}
SIZES=${MPI_SIZES:-8192 16384} NBS=${MPI_NBS:-64 128 256 512} MODES=${MPI_MODES:-cpu dropin mps}
among() { [[ " $2 " == *" $1 "* ]]; }
declare -A done_runs
runs() {   # runs "RANKS" "ROUTINES" "SIZES" "MODES": each combination also asked for and not yet run
    local np r n mode nb tag args rc
    for n in $3; do among "$n" "$SIZES" || continue
    for np in $1; do among "$np" "$RANKS" || continue
    for r in $2; do among "$r" "$ROUTINES" || continue
    for mode in $4; do among "$mode" "$MODES" || continue
    for nb in $NBS; do
        tag=${mode}_${r}_${n}_nb${nb}_np$np
        [ -z "${done_runs[$tag]:-}" ] || continue
        done_runs[$tag]=1
        in_budget || continue
        if [ "$mode" = mps ]; then mps on; else mps off; fi
        [ "$mode" = mps ] && [ $mps_state = unavailable ] && continue
        args=()
        [ "$mode" != cpu ] &&
            args=("${preload[@]}" -x CUFORT_REPORT=1 -x CUFORT_REPORT_FILE="$OUT/report.$tag.%r.txt")
        mpi "$np" "$OUT/$tag.log" "${args[@]}" "$LIBS/scalapack_bench" "$r" "$n" "$nb" "$REPS"
        rc=$?
        echo "$mode $r n=$n nb=$nb ranks=$np rc=$rc: $(grep -E 'check|info' "$OUT/$tag.log" | head -n 1)"
        awk -v mode="$mode" '/^pd[a-z]+,[0-9]+,/ { print mode "," $0 }' "$OUT/$tag.log" >> "$CSV"
    done; done; done; done; done
}

first_n=${SIZES%% *}
runs 4 "pdgemm pdpotrf" "$first_n" "cpu dropin"
runs 4 "pdgemm pdpotrf" "$first_n" mps
runs 4 "$ROUTINES" "$first_n" "$MODES"
runs "$RANKS" "$ROUTINES" "$first_n" "$MODES"
runs "$RANKS" "$ROUTINES" "$SIZES" "$MODES"
[ $skipped = 0 ] || echo "mpi_run: budget of $BUDGET s spent; $skipped runs skipped"
echo "mpi_run: $CSV"
