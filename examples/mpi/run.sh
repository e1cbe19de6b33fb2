#!/usr/bin/env bash
# examples/mpi/run.sh [prefix] — the ScaLAPACK example under plain mpirun, three ways: the CPU BLAS,
# the same binary with cufort's drop-in preloaded, and relinked against it.  `prefix` is where
# cufort is installed (default: this checkout's build/).  Each rank takes the GPU of its local rank
# modulo the GPU count, and ranks sharing a GPU budget their share of its memory (README, "MPI").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-$here/../../build}
lib=$prefix/lib
np=${NP:-4}
mpif90 -O2 "$here/scalapack_solve.f90" -o solve_cpu -lscalapack-openmpi
mpif90 -O2 "$here/scalapack_solve.f90" -o solve_cufort -L"$lib" -Wl,--no-as-needed -lcufort_blas \
    -Wl,--as-needed -lscalapack-openmpi -Wl,-rpath,"$lib"

mpirun -np "$np" ./solve_cpu 4000 256
# unchanged binary; a report per rank says which GPU it used and what ran there
mpirun -np "$np" -x LD_PRELOAD="$lib/libcufort_blas.so" -x CUFORT_REPORT=1 \
    -x CUFORT_REPORT_FILE=report.%r.txt ./solve_cpu 4000 256
mpirun -np "$np" ./solve_cufort 4000 256
# several ranks on one GPU run better under NVIDIA's Multi-Process Service, where it may be started:
#   nvidia-cuda-mps-control -d; mpirun ...; echo quit | nvidia-cuda-mps-control
