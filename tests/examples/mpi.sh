#!/usr/bin/env bash
# tests/examples/mpi.sh [build-dir] — the MPI example from the outside: examples/mpi/scalapack_solve.f90,
# an unchanged ScaLAPACK program (PDGEMM, then PDGESV, X checked against X0 on every rank), built
# with mpif90 against Debian's libscalapack-openmpi, on 2 and 4 ranks (oversubscribed, yielding
# when idle: CI has few cores):
#   - on the plain CPU BLAS (the baseline);
#   - unchanged under LD_PRELOAD=libcufort_blas.so, with the default routing and with every
#     Level-3 call forced to the engine; with the engine forced each rank must write its own report
#     (CUFORT_REPORT_FILE=...%r) naming its rank and counting engine calls;
#   - relinked against -lcufort_blas, the engine forced.
# The backend is whatever CUFORT_BACKEND says (run_tests.sh sets it).  Without mpif90, mpirun or
# ScaLAPACK it says so and counts nothing (scripts/deps.sh installs them where it can).
# Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
BUILD=${1:-build}
LIBDIR=$(cd "$BUILD/lib" 2>/dev/null && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

. "$(dirname "${BASH_SOURCE[0]}")/../support/build_kind.sh"   # int64_build
if int64_build; then
    echo "# skipped: the system's MPI Fortran and ScaLAPACK take 4-byte INTEGERs, this F77_INT64 build takes 8"
    finish
fi
if ! command -v mpif90 >/dev/null || ! command -v mpirun >/dev/null; then
    echo "# mpi: skipped (no mpif90/mpirun here: scripts/deps.sh installs openmpi-bin libopenmpi-dev)"
    finish
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$ROOT/examples/mpi/scalapack_solve.f90
if ! mpif90 -O2 "$src" -o "$tmp/solve" -lscalapack-openmpi 2>"$tmp/build.err"; then
    echo "# mpi: skipped (no ScaLAPACK to link: libscalapack-openmpi-dev): $(head -c 300 "$tmp/build.err")"
    finish
fi
# --no-as-needed: the program calls no BLAS itself, so a linker that drops unneeded libraries
# (Ubuntu's default) would leave ScaLAPACK on the system BLAS
if mpif90 -O2 "$src" -o "$tmp/solve_relinked" -L"$LIBDIR" -Wl,--no-as-needed -lcufort_blas \
        -Wl,--as-needed -lscalapack-openmpi -Wl,-rpath,"$LIBDIR" 2>"$tmp/relink.err"; then
    ok "relinked against -lcufort_blas"
else
    bad "relinking against -lcufort_blas: $(head -c 300 "$tmp/relink.err")"
fi

# a sanitizer build: MPI's own allocations, which outlive the program, are not cufort's leaks
[ -f "$BUILD/.sanitize" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
launch=(mpirun --oversubscribe --mca mpi_yield_when_idle 1)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
pass_env=(-x LD_LIBRARY_PATH -x CUFORT_CPU_BLAS)
[ -n "${CUFORT_BACKEND:-}" ] && pass_env+=(-x CUFORT_BACKEND)

run() {   # run TAG RANKS BINARY [mpirun -x options...]: PASSED from rank 0, within the time limit
    local tag=$1 np=$2 bin=$3
    shift 3
    timeout "${CUFORT_EXAMPLE_TIMEOUT:-300}" "${launch[@]}" -np "$np" "${pass_env[@]}" "$@" "$bin" \
        >"$tmp/$tag.out" 2>"$tmp/$tag.err"
    local rc=$?
    if [ $rc -eq 0 ] && grep -q ': PASSED$' "$tmp/$tag.out"; then
        ok "$tag: $(grep ': PASSED$' "$tmp/$tag.out")"
    else
        bad "$tag: exit $rc: $(tail -c 400 "$tmp/$tag.out") $(tail -c 400 "$tmp/$tag.err")"
    fi
}

# every rank of an engine-forced run wrote its own report (report.%r), naming its rank and counting
# its DGEMMs on the engine: the drop-in, not the CPU BLAS, took ScaLAPACK's calls
reports_ok() {   # reports_ok LABEL RANKS
    local reports=0 engine=0 r f calls
    for r in $(seq 0 $(($2 - 1))); do
        f=$tmp/report.$r
        [ -f "$f" ] && grep -q "^# rank $r (local " "$f" && reports=$((reports + 1))
        calls=$(awk '$1 == "dgemm" { print $3 }' "$f" 2>/dev/null)
        [ "${calls:-0}" -gt 0 ] && engine=$((engine + 1))
    done
    if [ "$reports" -eq "$2" ] && [ "$engine" -eq "$2" ]; then
        ok "$1: a report per rank, each naming its rank, its DGEMMs on the engine"
    else
        bad "$1: $reports of $2 reports name their rank, $engine count engine DGEMMs: $(ls "$tmp")"
    fi
}

preload=(-x LD_PRELOAD="$LIBDIR/libcufort_blas.so")
report=(-x CUFORT_DROPIN_FORCE_GPU=1 -x CUFORT_REPORT=1 -x CUFORT_REPORT_FILE="$tmp/report.%r")
for np in 2 4; do
    run "$np ranks, CPU BLAS" "$np" "$tmp/solve"
    run "$np ranks, LD_PRELOAD, default routing" "$np" "$tmp/solve" "${preload[@]}"
    rm -f "$tmp"/report.*
    run "$np ranks, LD_PRELOAD, engine forced" "$np" "$tmp/solve" "${preload[@]}" "${report[@]}"
    reports_ok "$np ranks, LD_PRELOAD, engine forced" "$np"
    if [ -x "$tmp/solve_relinked" ]; then
        rm -f "$tmp"/report.*
        run "$np ranks, relinked, engine forced" "$np" "$tmp/solve_relinked" "${report[@]}"
        reports_ok "$np ranks, relinked, engine forced" "$np"
    fi
done
finish
