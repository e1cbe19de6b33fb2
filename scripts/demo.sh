#!/usr/bin/env bash
# scripts/demo.sh [build-dir] — runs the examples (built by `make demo`) and says what ran where.
# Needs no compiler, so it also runs on a GPU machine from a build tree copied there (scripts/gpu_check.sh).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
BUILD=${1:-build}
EX=$BUILD/examples
LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -d "$BUILD/runtime" ] && LD_LIBRARY_PATH="$BUILD/runtime:$LD_LIBRARY_PATH"
export LD_LIBRARY_PATH
export CUFORT_REPORT=${CUFORT_REPORT:-1}    # per-routine report at exit, where the library has one

status=0
run() {   # run TITLE BINARY
    echo
    echo "== $1"
    if [ ! -x "$2" ]; then
        echo "   (not built: $2)"
        status=1
        return
    fi
    "$2" || { echo "   exit status $?"; status=1; }
}

echo "== where cufort runs ($EX/cufort_info)"
if [ -x "$EX/cufort_info" ]; then
    "$EX/cufort_info" | sed 's/^/   /'
    backend=$("$EX/cufort_info" | sed -n 's/^backend: \([a-z]*\).*/\1/p')
else
    echo "   (not built)"
    backend=unknown
fi
where="cufort backend '$backend'"

run "examples/matrixmod_cpu.f: host BLAS sscal (CPU BLAS, no cufort)" "$EX/matrixmod_cpu"
run "examples/matrixmod_thunking.f: cublas_sscal on host arrays (libcufort_f77_thunking; $where)" \
    "$EX/matrixmod_thunking"
run "examples/matrixmod_device.F: cublas_alloc/cublas_set_matrix + cublas_sscal on integer*8 device pointers (libcufort_f77; $where)" \
    "$EX/matrixmod_device"
run "examples/sgemm_example.F90: SGEMM, host BLAS build (CPU BLAS, no cufort)" "$EX/sgemm_example_host"
run "examples/sgemm_example.F90 -DCUBLAS: cublas_SGEMM thunking build (libcufort_f77_thunking; $where)" \
    "$EX/sgemm_example_cublas"
run "examples/user_kernel: your own CUDA kernel (csquare.cu) called from Fortran on cufort device memory and a cufort stream ($where)" \
    "$EX/user_kernel"
echo
echo "(the three matrixmod outputs must be identical, and the two SGEMM checksums; make check verifies both)"
echo
echo "MPI: examples/mpi/ holds a ScaLAPACK program run unchanged on cufort's drop-in BLAS, with mpirun"
echo "lines (examples/mpi/run.sh) and a Slurm job (examples/mpi/cufort.sbatch); make check runs it on"
echo "2 and 4 ranks (tests/examples/mpi.sh)."
exit $status
