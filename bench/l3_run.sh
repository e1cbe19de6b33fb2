#!/usr/bin/env bash
# bench/l3_run.sh [build-dir] — the Level-3 benchmark on a GPU machine, one command: bench_l3
# (engine on pageable and pinned arrays, whole-array and naive thunking, device cuBLAS, roofline),
# then the same routines through NVBLAS with autopin under LD_PRELOAD.  Everything lands in $OUT
# (else <build-dir>/l3-run): bench_l3.csv and l3_run.log; bench/plot_l3.py makes the table and
# the PNG from the CSV.  L3_SIZES and L3_ROUTINES narrow it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup l3 "${1:-build}"
rm -f "$L/bench_l3.csv"
SIZES=${L3_SIZES:-256,1024,2048,4096,8192,16384}
ROUTINES=${L3_ROUTINES:-gemm,trsm,trmm,syrk,symm}
"$B/bench/bench_l3" --sizes "$SIZES" --routines "$ROUTINES" 2>&1 | tee -a "$LOG"

# NVBLAS sends each call to the GPU or to this CPU BLAS (its own setting; the bundled one suffices)
nv=$(ls "$CUDA_DIR"/lib64/libnvblas.so* "$CUDA_DIR"/targets/*/lib/libnvblas.so* 2>/dev/null | head -n1)
cpu=$(ls "$B"/runtime/libopenblas.so.0 "$B"/runtime/libblas.so.3 2>/dev/null | head -n1)
if [ -n "$nv" ] && [ -n "$cpu" ]; then
    cfg=$L/nvblas.conf
    printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST 0\nNVBLAS_LOGFILE %s\nNVBLAS_AUTOPIN_MEM_ENABLED\n' \
        "$cpu" "$L/nvblas.log" >"$cfg"
    LD_PRELOAD=$nv NVBLAS_CONFIG_FILE=$cfg "$B/bench/bench_l3" --nvblas --sizes "$SIZES" \
        --routines "$ROUTINES" 2>&1 | tee -a "$LOG"
else
    echo "NVBLAS: no libnvblas.so in $CUDA_DIR, or no CPU BLAS in $B/runtime" | tee -a "$LOG"
fi
