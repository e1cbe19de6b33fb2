# tests/support/build_kind.sh — sourced by the checks in tests/examples/ that run programs built
# for the system's libraries: what kind of build $BUILD is, from its flags signature (the
# Makefile's FLAGS_FILE, <build-dir>/.flags; a carried tree without it is a default build).
#
# int64_build: a build with F77_INT64=1.  Its Fortran-callable names take 8-byte INTEGERs, which a
# program compiled for the system's 4-byte BLAS, LAPACK, FFTW, MPI or ScaLAPACK cannot pass.
int64_build() { grep -q -- '-DCUFORT_F77_INT64' "$BUILD/.flags" 2>/dev/null; }
