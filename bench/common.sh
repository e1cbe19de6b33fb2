# bench/common.sh — the setup the bench/*_run.sh scripts share; source it, then call
#   bench_setup NAME [BUILD-DIR]
# It goes to the repository root and sets B (the build directory, default build), L (the logs:
# $OUT, else $B/NAME-run, made and exported as OUT), CUDA_DIR, LD_LIBRARY_PATH (the build's runtime
# and libraries, then CUDA's) and LOG ($L/NAME_run.log, emptied); say prints a line and logs it.
bench_setup() {
    ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    cd "$ROOT" || exit 2
    B=${2:-build}
    L=${OUT:-$B/$1-run}
    mkdir -p "$L"
    export OUT=$L
    CUDA_DIR=$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
    export LD_LIBRARY_PATH="$B/runtime:$B/lib:$CUDA_DIR/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    LOG=$L/$1_run.log
    : >"$LOG"
}

say() { echo "$*" | tee -a "$LOG"; }
