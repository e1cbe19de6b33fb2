#!/usr/bin/env bash
# bench/multi_run.sh [build-dir] — GEMM, Level-3 and batched FFTs over several GPUs of one machine,
# one command: for 1, 2, ... of its GPUs (MULTI_GPUS, default 1 up to all of them), bench_gemm
# times the engine spread over that many (CUFORT_DEVICES) on pageable arrays (a first call: staged;
# and repeated calls, which the pin cache lets DMA the arrays directly) and on pinned ones,
# cublasXt on as many GPUs (BENCH_XT_DEVICES), NVBLAS on as many (NVBLAS_GPU_LIST), and device
# cuBLAS on one GPU (times the count: the limit); bench_l3 times TRSM, SYRK and SYMM, and
# fft_bench a batch of 4096 C2C transforms of 4096 points, on as many GPUs.  Rows
# "prec,n,mode_<g>gpu,ms,tflops" land in $OUT/bench_gemm.csv (else <build-dir>/multi-run), the
# others in multi_run.log; bench/plot_multi.py makes the GEMM table and plot.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup multi "${1:-build}"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} BENCH_REPS=${BENCH_REPS:-5}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
say "devices: $gpus x $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1); $(nproc) cores"
SSIZES=${MULTI_SSIZES:-4096,8192,16384,32768}
DSIZES=${MULTI_DSIZES:-4096,8192,16384}
ZSIZES=${MULTI_ZSIZES:-4096,8192}
run() { say "\$ $*"; "$@" 2>&1 | grep -v '^#' | tee -a "$LOG"; }
cpu=$(ls "$B"/runtime/libopenblas.so.0 "$B"/runtime/libblas.so.3 2>/dev/null | head -n1)
nv=$(ls "$CUDA_DIR"/lib64/libnvblas.so* "$CUDA_DIR"/targets/*/lib/libnvblas.so* 2>/dev/null | head -n1)

for g in ${MULTI_GPUS:-$(seq 1 "$gpus")}; do
    list=$(seq -s, 0 $((g - 1)))
    modes=engine_pageable,engine_pinned,xt_pinned,xt_pageable
    [ "$g" = 1 ] && modes=$modes,device,roofline
    for p in s d z; do
        sizes=$SSIZES; [ $p = d ] && sizes=$DSIZES; [ $p = z ] && sizes=$ZSIZES
        CUFORT_DEVICES=$list BENCH_XT_DEVICES=$g BENCH_XT_BIG=1 BENCH_TAG=_${g}gpu \
            run "$B/bench/bench_gemm" --precs $p --sizes "$sizes" --modes "$modes"
        CUFORT_DEVICES=$list BENCH_PIN_CACHE=1 BENCH_TAG=_${g}gpu_repeat \
            run "$B/bench/bench_gemm" --precs $p --sizes "$sizes" --modes engine_pageable
    done
    CUFORT_DEVICES=$list BENCH_REPS=3 BENCH_TAG=_${g}gpu \
        run "$B/bench/bench_l3" --sizes "${MULTI_L3_SIZES:-16384}" --routines trsm,syrk,symm
    mkdir -p "$L/fft_${g}gpu"
    CUFORT_DEVICES=$list OUT=$L/fft_${g}gpu run "$B/bench/fft_bench"
    if [ -n "$nv" ] && [ -n "$cpu" ]; then
        cfg=$L/nvblas_$g.conf
        { echo "NVBLAS_CPU_BLAS_LIB $cpu"; echo "NVBLAS_GPU_LIST $(seq -s' ' 0 $((g - 1)))"
          echo "NVBLAS_LOGFILE $L/nvblas.log"; } >"$cfg"
        LD_PRELOAD=$nv NVBLAS_CONFIG_FILE=$cfg run "$B/bench/bench_gemm" --nvblas="${g}gpu" --precs sd \
            --sizes "${MULTI_NVBLAS_SIZES:-8192,16384}"
    fi
done
say "csv: $L/bench_gemm.csv"
