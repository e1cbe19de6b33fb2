#!/usr/bin/env bash
# bench/gemm_run.sh [build-dir] — the GEMM benchmark on a GPU machine, one command:
# bench_gemm (engine, naive thunking, cublasXt, CPU BLAS, drop-in, device cuBLAS, roofline), the same
# through NVBLAS under LD_PRELOAD (plain and with autopin), the engine with TF32 and under an 8 GiB
# device-memory cap, the legacy dgemm loop relinked against the drop-in, and ooc_gemm (one SGEMM
# larger than the GPU).  Everything lands in $OUT (else <build-dir>/gemm-run): bench_gemm.csv and
# gemm_run.log; bench/plot_gemm.py makes the table and the PNG from the CSV.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup gemm "${1:-build}"
rm -f "$L/bench_gemm.csv"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
say "device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -n1)"

# The CPU BLAS: the machine's OpenBLAS when it has one (the CPU column, the drop-in's CPU path and
# NVBLAS's fallback), else the bundled reference BLAS.
cpu=$(ldconfig -p 2>/dev/null | awk '/libopenblas\.so\.0 /{print $NF; exit}')
[ -n "$cpu" ] || cpu=$(ls "$B"/runtime/libopenblas.so.0 "$B"/runtime/libblas.so.3 2>/dev/null | head -n1)
export BENCH_CPU_BLAS=$cpu CUFORT_CPU_BLAS=$cpu
# The drop-in sets this before it loads the CPU BLAS (c_wrappers/dropin/cpu_blas.c); bench_gemm
# loads OpenBLAS itself first, for its CPU column, so the same setting is made here.
export OPENBLAS_THREAD_TIMEOUT=${OPENBLAS_THREAD_TIMEOUT:-4}
say "CPU BLAS: $cpu, $OMP_NUM_THREADS threads"
SIZES=${GEMM_SIZES:-64,128,256,384,512,768,1024,2048,4096,8192,16384}
ZSIZES=${GEMM_ZSIZES:-64,128,256,512,1024,2048,4096,8192}

run() { say "\$ $*"; "$@" 2>&1 | tee -a "$LOG"; }
run "$B/bench/bench_gemm" --precs sd --sizes "$SIZES"
run "$B/bench/bench_gemm" --precs z --sizes "$ZSIZES"

nv=$(ls "$CUDA_DIR"/lib64/libnvblas.so* "$CUDA_DIR"/targets/*/lib/libnvblas.so* 2>/dev/null | head -n1)
if [ -n "$nv" ]; then
    for pin in plain autopin; do
        cfg=$L/nvblas_$pin.conf
        { echo "NVBLAS_CPU_BLAS_LIB $cpu"; echo "NVBLAS_GPU_LIST 0"; echo "NVBLAS_LOGFILE $L/nvblas.log"
          [ $pin = autopin ] && echo "NVBLAS_AUTOPIN_MEM_ENABLED"; } >"$cfg"
        say "\$ LD_PRELOAD=$nv NVBLAS_CONFIG_FILE=$cfg bench_gemm --nvblas=$pin"
        LD_PRELOAD=$nv NVBLAS_CONFIG_FILE=$cfg "$B/bench/bench_gemm" --nvblas="$pin" --precs sdz \
            --sizes "${NVBLAS_SIZES:-256,1024,2048,4096,8192}" 2>&1 | tee -a "$LOG"
    done
else
    say "NVBLAS: no libnvblas.so in $CUDA_DIR"
fi

BENCH_TAG=_tf32 CUFORT_ALLOW_TF32=1 run "$B/bench/bench_gemm" --precs s --sizes 4096,8192,16384 \
    --modes engine_pageable,engine_pinned
BENCH_TAG=_cap8G CUFORT_DEVICE_MEMORY_CAP=8G run "$B/bench/bench_gemm" --precs sd --sizes 16384 \
    --modes engine_pageable,engine_pinned

# The legacy loop linked against -lblas runs on the machine's CPU BLAS (not the bundled reference
# BLAS that build/runtime puts first), relinked against the drop-in it runs on the GPU.
if [ -x "$B/examples/dgemm_loop" ] && [ -x "$B/examples/dgemm_loop_dropin" ]; then
    mkdir -p "$L/cpublas" && ln -sf "$cpu" "$L/cpublas/libblas.so.3"
    for x in dgemm_loop dgemm_loop_dropin; do
        say "\$ $x ${DGEMM_LOOP_ARGS:-4096 10} (libblas.so.3 = $cpu)"
        s=$(date +%s%N)
        LD_LIBRARY_PATH="$L/cpublas:$LD_LIBRARY_PATH" CUFORT_REPORT=1 "$B/examples/$x" ${DGEMM_LOOP_ARGS:-4096 10} 2>&1 \
            | tail -n 8 | tee -a "$LOG"
        say "$x: $(( ($(date +%s%N) - s) / 1000000 )) ms wall"
    done
fi

[ "${GEMM_OOC:-1}" = 1 ] && run "$B/bench/ooc_gemm"
say "gemm_run: done"
