#!/usr/bin/env bash
# scripts/gpu_bundle.sh [build-dir] — makes a built tree runnable on a GPU machine that has the CUDA
# toolkit and driver but no gfortran, OpenBLAS or FFTW: copies into <build-dir>/runtime every shared
# library the libraries, tests and examples load (ldd, to closure) except the C runtime and CUDA's own,
# plus the CPU BLAS and the FFTW the host backend dlopen()s (netlib's libblas.so.3, or OpenBLAS on
# request; libfftw3*.so.3).  Run there with LD_LIBRARY_PATH=build/runtime:build/lib (scripts/gpu_check.sh
# and tests/run_tests.sh set it).  `make gpu-bundle` runs this after building.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${1:-build}
RT=$BUILD/runtime
LIMIT_MIB=${GPU_BUNDLE_LIMIT_MIB:-64}

rm -rf "$RT"
mkdir -p "$RT"
# what must be copied: bench/ only where the benchmarks were built (make bench-build)
CARRY=""
for d in lib tests examples runtime bench; do
    if [ -d "$BUILD/$d" ]; then CARRY+="${CARRY:+ }$BUILD/$d"; fi
done

# Present on any CUDA machine (C runtime, compiler runtime, the driver and CUDA's libraries).
skip_re='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libutil\.|libresolv\.|libgcc_s\.|libstdc\+\+\.|libcuda\.|libcudart\.|libcublas|libcublasLt|libcufft|libcurand|libcusolver|libcusparse|libnvJitLink|libnvrtc|libnccl|libcufort)'

copy_lib() {   # copy_lib SONAME PATH
    local name=$1 path=$2
    [ -e "$RT/$name" ] && return 0
    cp -L "$path" "$RT/$name"
    chmod u+w "$RT/$name"
    echo "  $name <- $(readlink -f "$path")"
}

# The CPU BLAS of the host backend, loaded with dlopen: ldd cannot see it.  Netlib's reference BLAS
# by default (450 KB; the host backend tries libopenblas.so.0, then libblas.so.3): OpenBLAS is 36 MB,
# more than half of the bundle's size limit.  GPU_BUNDLE_CPU_BLAS=openblas takes OpenBLAS.
multiarch=$( (gcc -print-multiarch 2>/dev/null || true) | head -n1)
[ -n "$multiarch" ] || multiarch=x86_64-linux-gnu
echo "gpu-bundle: collecting into $RT"
if [ "${GPU_BUNDLE_CPU_BLAS:-netlib}" = openblas ]; then
    openblas=""
    for c in "/usr/lib/$multiarch/openblas-pthread/libopenblas.so.0" "/usr/lib/$multiarch/libopenblas.so.0" \
             "/usr/lib/$multiarch/openblas-openmp/libopenblas.so.0" "/usr/lib/$multiarch/openblas-serial/libopenblas.so.0"; do
        if [ -e "$c" ]; then openblas=$c; break; fi
    done
    [ -n "$openblas" ] || { echo "gpu-bundle: libopenblas.so.0 not found (scripts/deps.sh installs it)" >&2; exit 1; }
    copy_lib libopenblas.so.0 "$openblas"
else
    netlib=/usr/lib/$multiarch/blas/libblas.so.3
    [ -e "$netlib" ] || { echo "gpu-bundle: $netlib not found (package libblas3)" >&2; exit 1; }
    copy_lib libblas.so.3 "$netlib"
fi

# The real FFTW, loaded with dlopen by the host backend and the FFTW drop-in (c_wrappers/host/
# cpu_fftw.c): both precisions and their threads libraries (~5 MB together).
for lib in libfftw3.so.3 libfftw3f.so.3 libfftw3_threads.so.3 libfftw3f_threads.so.3; do
    [ -e "/usr/lib/$multiarch/$lib" ] || { echo "gpu-bundle: /usr/lib/$multiarch/$lib not found (libfftw3-dev)" >&2; exit 1; }
    copy_lib "$lib" "/usr/lib/$multiarch/$lib"
done

# ldd closure over everything that will run there.  The LAPACK programs are left out: which LAPACK
# they run is chosen at run time (bench/lapack_run.sh, tests/examples/lapack.sh), from <build-dir>/lapack.
changed=1
while [ $changed = 1 ]; do
    changed=0
    while IFS= read -r f; do
        [ "$(head -c 4 "$f" | tr -d '\0')" = $'\x7fELF' ] || continue
        case $(basename "$f") in lapack_*) continue ;; esac
        while read -r name arrow path _; do
            [ "$arrow" = "=>" ] || continue
            [[ $name =~ $skip_re ]] && continue
            if [ "$path" = "not" ]; then
                echo "gpu-bundle: $f needs $name, which is not found here" >&2
                exit 1
            fi
            if [ ! -e "$RT/$name" ]; then copy_lib "$name" "$path"; changed=1; fi
        done < <(LD_LIBRARY_PATH="$RT:$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$f" 2>/dev/null)
    done < <(find $CARRY $( [ -d "$BUILD/bench/probes" ] && echo "$BUILD/bench/probes") -maxdepth 1 -type f 2>/dev/null)
done

# what must be copied to the GPU machine: kept under GPU_BUNDLE_LIMIT_MIB (default 64 MiB) so that
# the copy stays quick
total=$(du -cb $CARRY 2>/dev/null | tail -n1 | cut -f1)
mib=$(( (total + 1048575) / 1048576 ))
echo "gpu-bundle: $(ls "$RT" | wc -l) libraries in $RT; to copy: $CARRY = ${mib} MiB"
du -sh $CARRY 2>/dev/null | sed 's/^/  /'
if [ "$mib" -gt "$LIMIT_MIB" ]; then
    echo "gpu-bundle: over ${LIMIT_MIB} MiB" >&2
    exit 1
fi
echo "gpu-bundle: on the GPU machine run: bash scripts/gpu_check.sh $BUILD"
