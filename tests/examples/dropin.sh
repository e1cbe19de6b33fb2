#!/usr/bin/env bash
# tests/examples/dropin.sh [build-dir] — the drop-in BLAS from the outside, as a user meets it:
#   - build/lib/libcufort_blas.so exports every Fortran BLAS name netlib's libblas.a defines;
#   - examples/dgemm_loop.f90, an unchanged program with plain `call dgemm(...)` in a loop, linked
#     against -lblas and relinked against -lcufort_blas, prints the same checksum: relinked with the
#     default routing, relinked with the engine forced (CUFORT_DROPIN_FORCE_GPU=1), and the -lblas
#     binary under LD_PRELOAD=libcufort_blas.so, whose CUFORT_REPORT must show the dgemm calls (so the
#     preload really took them) on the engine;
#   - the engine wanted but unavailable (CUFORT_BACKEND=cuda with no GPU visible): the same checksum,
#     every call counted as a fallback to the CPU BLAS and the reason in the report.
# Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
BUILD=${1:-build}
EX=$BUILD/examples
LIBDIR=$(cd "$BUILD/lib" 2>/dev/null && pwd)
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
. "$(dirname "${BASH_SOURCE[0]}")/../support/build_kind.sh"   # int64_build

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { sed -n "s/^$1: *//p" "$2" | head -n1; }
N=${DROPIN_TEST_N:-192} ITERS=${DROPIN_TEST_ITERS:-6}

# ---- symbols ----
oracle=${ORACLE_BLAS:-/usr/lib/$( (gcc -print-multiarch 2>/dev/null || true) | head -n1)/blas/libblas.a}
[ -f "$oracle" ] || oracle=/usr/lib/x86_64-linux-gnu/blas/libblas.a
if [ ! -f "$LIBDIR/libcufort_blas.so" ]; then
    bad "symbols: $BUILD/lib/libcufort_blas.so not built"
elif [ ! -f "$oracle" ] || ! command -v nm >/dev/null; then
    echo "# symbols: skipped (no $oracle or no nm here)"
else
    # netlib's Fortran names; cblas_* and the *sub_ helpers are its CBLAS layer, not BLAS
    nm --defined-only "$oracle" | awk '$2 == "T" { print $3 }' | grep -v '^cblas_' | grep -v 'sub_$' |
        sort -u >"$tmp/netlib"
    nm -D --defined-only "$LIBDIR/libcufort_blas.so" | awk '{ print $3 }' | sort -u >"$tmp/ours"
    missing=$(comm -23 "$tmp/netlib" "$tmp/ours" | tr '\n' ' ')
    # the block-size queries of LAPACK and ScaLAPACK and the row interchanges (c_wrappers/dropin/
    # lapack_nb.c, pblas_nb.c, lapack_laswp.c)
    extra=$(comm -13 "$tmp/netlib" "$tmp/ours" | grep -v '^cufort_dropin_' | grep -vxE 'p?ilaenv_|[sdcz]laswp_' | tr '\n' ' ')
    if [ "$(wc -l <"$tmp/netlib")" -lt 140 ]; then
        bad "symbols: only $(wc -l <"$tmp/netlib") Fortran names in $oracle"
    elif [ -n "$missing" ]; then
        bad "symbols: libcufort_blas.so lacks netlib names: $missing"
    elif [ -n "$extra" ]; then
        bad "symbols: libcufort_blas.so exports more than BLAS, ilaenv_, pilaenv_, xlaswp_ and cufort_dropin_*: $extra"
    else
        ok "symbols: all $(wc -l <"$tmp/netlib") Fortran BLAS names of netlib's libblas.a, and besides them only the LAPACK helpers"
    fi
fi

# ---- dgemm_loop ----
run() {   # run TAG ENV... -- BINARY ARGS...: output in $tmp/TAG.out, report in $tmp/TAG.report
    local tag=$1
    shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    rm -f "$tmp/$tag.report"
    env CUFORT_REPORT=1 CUFORT_REPORT_FILE="$tmp/$tag.report" "${envs[@]}" \
        timeout "${CUFORT_EXAMPLE_TIMEOUT:-300}" "$@" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
}
# report_row TAG ROUTINE: "calls gpu cpu fallback time gflops bytes" of that routine
report_row() { awk -v r="$2" '$1 == r { print $2, $3, $4, $5, $6, $7, $8 }' "$tmp/$1.report" 2>/dev/null; }

for prog in dgemm_loop dgemm_loop_dropin; do
    [ -x "$EX/$prog" ] || bad "$prog: $EX/$prog not built"
done
if [ -x "$EX/dgemm_loop" ] && [ -x "$EX/dgemm_loop_dropin" ]; then
    run blas -- "$EX/dgemm_loop" "$N" "$ITERS"
    rc=$?
    ref=$(field checksum "$tmp/blas.out")
    if [ $rc -ne 0 ] || [ -z "$ref" ]; then
        bad "dgemm_loop (-lblas): exit status $rc, no checksum: $(head -c 300 "$tmp/blas.err")"
    else
        ok "dgemm_loop (-lblas): checksum $ref"
        [ -s "$tmp/blas.report" ] && bad "dgemm_loop (-lblas): a cufort report without cufort"
    fi
    # tag, what, where the calls must run: "gpu" (all on the engine), "cpu", "fallback" (meant for the
    # engine, run on the CPU BLAS) or "any" (the build's default thresholds decide); env; binary
    check() {
        local tag=$1 what=$2 where=$3
        shift 3
        run "$tag" "$@" "$N" "$ITERS"
        local rc=$? sum row calls gpu cpu fb gflops bytes
        sum=$(field checksum "$tmp/$tag.out")
        if [ $rc -ne 0 ] || [ -z "$sum" ]; then
            bad "$what: exit status $rc: $(head -c 300 "$tmp/$tag.err")"
            return
        fi
        if [ "$sum" != "$ref" ] || [ "$(field abssum "$tmp/$tag.out")" != "$(field abssum "$tmp/blas.out")" ]; then
            bad "$what: checksum $sum, the -lblas build printed $ref"
        else
            ok "$what: same checksum as the -lblas build ($sum)"
        fi
        row=$(report_row "$tag" dgemm)
        read -r calls gpu cpu fb _ gflops bytes <<<"${row:-x x x x x x x}"
        local want_bytes=$((ITERS * 4 * N * N * 8))
        case $where in
            gpu) [ "$calls" = "$ITERS" ] && [ "$gpu" = "$ITERS" ] && [ "$cpu" = 0 ] &&
                     [ "${bytes%%.*}" = "$want_bytes" ] ;;
            cpu) [ "$calls" = "$ITERS" ] && [ "$gpu" = 0 ] && [ "$cpu" = "$ITERS" ] && [ "$fb" = 0 ] &&
                     [ "${bytes%%.*}" = 0 ] ;;
            any) [ "$calls" = "$ITERS" ] && [ $((gpu + cpu)) = "$ITERS" ] && [ "$fb" = 0 ] ;;
            fallback) [ "$calls" = "$ITERS" ] && [ "$cpu" = "$ITERS" ] && [ "$fb" = "$ITERS" ] &&
                          grep -q '^# first fallback to the CPU BLAS: dgemm: ' "$tmp/$tag.report" ;;
        esac
        if [ $? -eq 0 ] && awk -v g="$gflops" 'BEGIN { exit !(g + 0 > 0) }'; then
            ok "$what: CUFORT_REPORT: dgemm $calls calls, $gpu on the engine, $cpu on the CPU BLAS, $fb fallbacks, $gflops GFLOP/s, $bytes bytes"
        else
            bad "$what: CUFORT_REPORT dgemm row '$row' (calls gpu cpu fallback time GFLOP/s bytes), expected $ITERS calls $where; report: $(tr '\n' '|' <"$tmp/$tag.report" 2>/dev/null | head -c 600)"
        fi
    }
    check relinked "dgemm_loop_dropin (relinked, default routing)" any -- "$EX/dgemm_loop_dropin"
    check cpu "dgemm_loop_dropin (relinked, CUFORT_GPU_THRESHOLD=1e30: CPU BLAS)" cpu \
        CUFORT_GPU_THRESHOLD=1e30 -- "$EX/dgemm_loop_dropin"
    check forced "dgemm_loop_dropin (relinked, engine forced)" gpu \
        CUFORT_DROPIN_FORCE_GPU=1 -- "$EX/dgemm_loop_dropin"
    if int64_build; then
        echo "# dgemm_loop (-lblas, 4-byte INTEGERs) under LD_PRELOAD: skipped in an F77_INT64 build"
    else
        check preload "dgemm_loop (-lblas) under LD_PRELOAD=libcufort_blas.so, default routing" any \
            LD_PRELOAD="$LIBDIR/libcufort_blas.so" -- "$EX/dgemm_loop"
        check preload_forced "dgemm_loop (-lblas) under LD_PRELOAD=libcufort_blas.so, engine forced" gpu \
            LD_PRELOAD="$LIBDIR/libcufort_blas.so" CUFORT_DROPIN_FORCE_GPU=1 -- "$EX/dgemm_loop"
    fi
    check nogpu "dgemm_loop_dropin, engine forced but no GPU (CUFORT_BACKEND=cuda, none visible)" fallback \
        CUFORT_BACKEND=cuda CUDA_VISIBLE_DEVICES= CUFORT_DROPIN_FORCE_GPU=1 -- "$EX/dgemm_loop_dropin"
    if [ -s "$tmp/forced.report" ] && grep -q '^# routing: every Level-3 call to the engine (forced)' "$tmp/forced.report" &&
        grep -q '^# routine ' "$tmp/forced.report"; then
        ok "CUFORT_REPORT header: routing line and column names"
    else
        bad "CUFORT_REPORT header missing: $(head -c 400 "$tmp/forced.report" 2>/dev/null)"
    fi
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
