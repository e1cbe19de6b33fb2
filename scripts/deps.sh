#!/usr/bin/env bash
# scripts/deps.sh — makes sure the system packages cufort builds and tests with are present.
#
# Checks: gcc, gfortran, a CPU BLAS (OpenBLAS), netlib's reference BLAS as a static library (the test
# oracle), FFTW3, the CUDA toolkit (nvcc, cuBLAS, cudart), and pkg-config and CMake, through which
# make check builds programs against an installed cufort (tests/examples/install.sh).  On Debian/Ubuntu
# as root it installs what is missing (apt-get update once, then apt-get install -y ...); otherwise it
# stops and prints the exact command to run.  `make` calls it once per build directory
# (build/.deps.stamp); CI calls it directly.
# Optional: LLVM flang (Debian/Ubuntu package flang-19), the second Fortran compiler make builds and
# tests the Fortran side with (mk/flang.mk).  It is installed the same way where it can be; where it
# cannot, one line says the flang build and tests will be skipped, and that is no failure.
# CUFORT_NO_FLANG=1 leaves it out.  Optional too, the same way: Open MPI and ScaLAPACK
# (openmpi-bin, libopenmpi-dev, libscalapack-openmpi-dev, scalapack-mpi-test), with which make check
# runs the MPI example and ScaLAPACK's testers (tests/examples/mpi.sh, scalapack.sh);
# CUFORT_NO_MPI=1 leaves them out.
# Exit status: 0 all present, 1 something missing and not installed.
set -euo pipefail

multiarch=$( (gcc -print-multiarch 2>/dev/null || true) | head -n1)
[ -n "$multiarch" ] || multiarch=x86_64-linux-gnu
libdir=/usr/lib/$multiarch

find_nvcc() {
    local c
    for c in "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" "$(command -v nvcc 2>/dev/null || true)" \
             /usr/local/cuda/bin/nvcc; do
        if [ -n "$c" ] && [ -x "$c" ]; then echo "$c"; return 0; fi
    done
    return 1
}

have_lib() {   # have_lib SONAME: the dynamic linker or the multiarch dir knows it
    [ -e "$libdir/$1" ] || [ -e "/usr/lib/$1" ] || { command -v ldconfig >/dev/null &&
        ldconfig -p 2>/dev/null | grep -q " $1 "; }
}

# the commands mk/flang.mk looks for
have_flang() {
    local c
    for c in flang-new flang-new-19 flang; do command -v "$c" >/dev/null 2>&1 && return 0; done
    return 1
}

missing_pkgs=()
missing_what=()
need() { missing_what+=("$1"); shift; missing_pkgs+=("$@"); }

check_all() {
    missing_pkgs=(); missing_what=()
    command -v gcc >/dev/null 2>&1 || need "C compiler (gcc)" gcc
    command -v gfortran >/dev/null 2>&1 || need "Fortran compiler (gfortran)" gfortran
    { have_lib libopenblas.so.0 && { [ -e "$libdir/libopenblas.so" ] || [ -e /usr/lib/libopenblas.so ]; }; } ||
        need "CPU BLAS (OpenBLAS)" libopenblas0-pthread libopenblas-dev
    [ -e "$libdir/blas/libblas.a" ] || need "reference BLAS, static ($libdir/blas/libblas.a)" libblas-dev
    { [ -e "$libdir/lapack/liblapack.so.3" ] && [ -e "$libdir/liblapack.so" ]; } ||
        need "reference LAPACK ($libdir/lapack/liblapack.so.3, -llapack)" liblapack3 liblapack-dev
    [ -e /usr/include/fftw3.h ] || need "FFTW3 (fftw3.h, libfftw3)" libfftw3-dev
    command -v pkg-config >/dev/null 2>&1 || need "pkg-config" pkgconf
    command -v cmake >/dev/null 2>&1 || need "CMake" cmake
    if nvcc=$(find_nvcc); then
        local root; root=$(dirname "$(dirname "$nvcc")")
        [ -e "$root/include/cublas_v2.h" ] || [ -e /usr/include/cublas_v2.h ] ||
            need "cuBLAS headers (cublas_v2.h beside $nvcc)" nvidia-cuda-toolkit
    else
        need "CUDA toolkit (nvcc; set CUDA_HOME if it is installed elsewhere)" nvidia-cuda-toolkit
    fi
    return 0
}

is_debian=0
[ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1 && is_debian=1
can_install=0
[ "$is_debian" = 1 ] && [ "$(id -u)" = 0 ] && [ "${CUFORT_NO_INSTALL:-0}" != 1 ] && can_install=1
apt_updated=0

optional_flang() {   # never fails: without flang, make skips its flang part
    [ "${CUFORT_NO_FLANG:-0}" != 1 ] || return 0
    have_flang && return 0
    if [ "$can_install" = 1 ]; then
        export DEBIAN_FRONTEND=noninteractive
        [ "$apt_updated" = 1 ] || apt-get update -q </dev/null >&2 || true
        if apt-get install -y -q flang-19 </dev/null >&2 && have_flang; then
            echo "cufort: LLVM flang installed (flang-19): make also builds and tests the Fortran side with it" >&2
            return 0
        fi
    fi
    echo "cufort: LLVM flang not installed (package flang-19): the flang build and tests will be skipped" >&2
}

have_mpi() {   # what tests/examples/mpi.sh builds and runs the ScaLAPACK example with
    command -v mpif90 >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 &&
        { have_lib libscalapack-openmpi.so || [ -e "$libdir/libscalapack-openmpi.so" ]; } &&
        [ -x "$libdir/scalapack/openmpi-tests/xdlu" ]
}

optional_mpi() {   # never fails: without MPI and ScaLAPACK, make check skips the MPI example
    [ "${CUFORT_NO_MPI:-0}" != 1 ] || return 0
    have_mpi && return 0
    if [ "$can_install" = 1 ]; then
        export DEBIAN_FRONTEND=noninteractive
        [ "$apt_updated" = 1 ] || apt-get update -q </dev/null >&2 || true
        if apt-get install -y -q --no-install-recommends openmpi-bin libopenmpi-dev \
                libscalapack-openmpi-dev scalapack-mpi-test </dev/null >&2 && have_mpi; then
            echo "cufort: Open MPI and ScaLAPACK installed: make check runs the MPI example and ScaLAPACK's testers" >&2
            return 0
        fi
    fi
    echo "cufort: Open MPI / ScaLAPACK not installed (openmpi-bin libopenmpi-dev libscalapack-openmpi-dev" \
         "scalapack-mpi-test): the MPI example and ScaLAPACK's testers will be skipped" >&2
}

check_all
if [ ${#missing_pkgs[@]} -eq 0 ]; then
    optional_flang
    optional_mpi
    exit 0
fi

# de-duplicate, keep order
pkgs=$(printf '%s\n' "${missing_pkgs[@]}" | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//')
echo "cufort: missing system packages:" >&2
printf '  - %s\n' "${missing_what[@]}" >&2

if [ "$can_install" = 1 ]; then
    export DEBIAN_FRONTEND=noninteractive
    echo "cufort: installing: apt-get install -y $pkgs" >&2
    apt-get update -q </dev/null >&2
    apt_updated=1
    # shellcheck disable=SC2086
    if ! apt-get install -y -q $pkgs </dev/null >&2; then
        case " $pkgs " in
        *" nvidia-cuda-toolkit "*)
            echo "cufort: nvidia-cuda-toolkit is in Debian's non-free component (or install NVIDIA's" >&2
            echo "        CUDA toolkit and set CUDA_HOME)." >&2 ;;
        esac
        exit 1
    fi
    check_all
    if [ ${#missing_pkgs[@]} -ne 0 ]; then
        echo "cufort: still missing after install:" >&2
        printf '  - %s\n' "${missing_what[@]}" >&2
        exit 1
    fi
    echo "cufort: system packages installed" >&2
    optional_flang
    optional_mpi
    exit 0
fi

if [ "$is_debian" = 1 ]; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo "
    echo "cufort: install them with:" >&2
    echo "  ${sudo}apt-get update && ${sudo}apt-get install -y $pkgs" >&2
else
    echo "cufort: install the equivalents of these Debian packages with your package manager:" >&2
    echo "  $pkgs" >&2
fi
exit 1
