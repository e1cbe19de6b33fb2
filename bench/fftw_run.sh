#!/usr/bin/env bash
# bench/fftw_run.sh [build-dir] — the FFTW drop-in's benchmark on a GPU machine, one command:
# bench/fftw_bench (single precision; c2c 2^24, c2c 4096x4096, 256 x 65536 batched, r2c 512^3 and
# 1-d c2c 2^8..2^20) for each contestant in a process of its own:
#   cufort         libcufort_fftw.so, default routing, FFTW_BENCH_THREADS threads for its CPU part
#   cufort_engine  the same with every transform on the engine (CUFORT_FFTW_FORCE_GPU=1)
#   cufftw         NVIDIA's libcufftw.so from the CUDA toolkit
#   fftw_<N>t      the real FFTW with N threads (fftwf_plan_with_nthreads), and fftw_1t (small sizes)
#   turns_*        small sizes again, the drop-in and the real FFTW timed in turns in one process
#                  (FFTW_TURNS rounds, default 3, with N threads and with 1)
# Everything lands in $OUT (else <build-dir>/fftw-run): fftw_bench.csv, fftw_run.log, the drop-in's
# CUFORT_REPORT (cufort_report.txt), and fftw_bench.png + fftw_bench.md from bench/plot_fftw.py
# (where python3 has matplotlib; otherwise run it on the CSV elsewhere).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup fftw "${1:-build}"
rm -f "$L/fftw_bench.csv"
T=${FFTW_BENCH_THREADS:-16}
say "device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
say "host: $(nproc) cores; FFTW threads: $T"

cufftw=$(ls "$CUDA_DIR"/lib64/libcufftw.so "$CUDA_DIR"/targets/*/lib/libcufftw.so "$CUDA_DIR"/lib64/libcufftw.so.* 2>/dev/null | head -n1)
BIN=$B/bench/fftw_bench
status=0
run() { say "\$ $*"; "$@" 2>&1 | tee -a "$LOG"; [ "${PIPESTATUS[0]}" = 0 ] || status=1; }

CUFORT_REPORT=1 CUFORT_REPORT_FILE="$L/cufort_report.txt" \
    run "$BIN" --lib "$B/lib/libcufort_fftw.so" --name cufort --threads "$T"
CUFORT_REPORT=1 CUFORT_REPORT_FILE="$L/cufort_report.txt" CUFORT_FFTW_FORCE_GPU=1 \
    run "$BIN" --lib "$B/lib/libcufort_fftw.so" --name cufort_engine --threads "$T"
if [ -n "$cufftw" ]; then
    run "$BIN" --lib "$cufftw" --name cufftw
else
    say "# cuFFTW: no libcufftw.so under $CUDA_DIR"
fi
run "$BIN" --lib libfftw3f.so.3 --threads-lib libfftw3f_threads.so.3 --threads "$T" --name "fftw_${T}t"
run "$BIN" --lib libfftw3f.so.3 --name fftw_1t --cases small
# small transforms against the real FFTW in turns in one process, FFTW_TURNS rounds, T threads and 1
for round in $(seq "${FFTW_TURNS:-3}"); do
    for t in "$T" 1; do
        run "$BIN" --lib "$B/lib/libcufort_fftw.so" --name "turns_cufort_${t}t" --threads "$t" \
            --vs libfftw3f.so.3 --vs-name "turns_fftw_${t}t" --vs-threads-lib libfftw3f_threads.so.3 \
            --cases small --reps 400
    done
done

if python3 -c 'import matplotlib' 2>/dev/null; then
    run python3 bench/plot_fftw.py "$L/fftw_bench.csv" "$L/fftw_bench.png" "$L/fftw_bench.md"
else
    say "# no matplotlib here: python3 bench/plot_fftw.py $L/fftw_bench.csv elsewhere"
fi
say "results in $L (status $status)"
exit $status
