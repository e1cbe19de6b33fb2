#!/usr/bin/env bash
# tests/examples/fftw.sh [build-dir] — the FFTW drop-in from the outside, as a user meets it:
#   - build/lib/libcufort_fftw.so exports every name of FFTW's C API (fftw3.h, double and single) and
#     every legacy Fortran name the real libraries export (dfftw_*, sfftw_*), and nothing else but
#     cufort_fftw_*;
#   - examples/fftw_legacy.f (an unchanged program calling dfftw_*/sfftw_*) and examples/fftw_f03.f90
#     (FFTW's own fftw3.f03), each linked against -lfftw3 -lfftw3f, print the same values relinked
#     against -lcufort_fftw (default routing, and the engine forced: CUFORT_FFTW_FORCE_GPU=1) and
#     under LD_PRELOAD=libcufort_fftw.so, whose CUFORT_REPORT must show the transforms on the engine
#     (so the preload really took them); each program also checks its transforms itself;
#   - the engine wanted but unavailable (CUFORT_BACKEND=cuda with no GPU visible): the same values,
#     the transforms counted as fallbacks to FFTW;
#   - CUFORT_CPU_FFTW naming the drop-in itself, or nothing: a message and exit 1.
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

# ---- symbols ----
header=/usr/include/fftw3.h
reals=$(ls /usr/lib/*/libfftw3.so.3 /usr/lib/*/libfftw3f.so.3 /usr/lib/*/libfftw3_threads.so.3 \
    /usr/lib/*/libfftw3f_threads.so.3 2>/dev/null)
if [ ! -f "$LIBDIR/libcufort_fftw.so" ]; then
    bad "symbols: $BUILD/lib/libcufort_fftw.so not built"
elif [ ! -f "$header" ] || [ -z "$reals" ] || ! command -v nm >/dev/null; then
    echo "# symbols: skipped (no $header, no FFTW libraries or no nm here)"
else
    sed -n '/define FFTW_DEFINE_API(X, R, C)/,/end of FFTW_DEFINE_API/p' "$header" |
        grep -o 'X([a-z0-9_]*)' | sed 's/X(\(.*\))/\1/' | sort -u |
        grep -v -x -e plan -e plan_s -e iodim -e iodim64 -e r2r_kind -e complex -e write_char_func \
            -e read_char_func | sed -e 's/^/fftw_/p' -e 's/^fftw_/fftwf_/' | sort -u >"$tmp/api"
    # the legacy names the real libraries export in the build's scheme (gfortran's: name_)
    nm -D --defined-only $reals | awk '{ print $3 }' | grep -E '^[ds]fftw_[a-z0-9_]*[a-z0-9]_$' |
        sort -u >"$tmp/legacy"
    nm -D --defined-only "$LIBDIR/libcufort_fftw.so" | awk '{ print $3 }' | sort -u >"$tmp/ours"
    if ! grep -q '^dfftw_execute_$' "$tmp/ours"; then
        echo "# legacy names: another F77 name scheme in this build, not compared with FFTW's"
        : >"$tmp/legacy"
    fi
    cat "$tmp/api" "$tmp/legacy" | sort -u >"$tmp/want"
    missing=$(comm -23 "$tmp/want" "$tmp/ours" | tr '\n' ' ')
    # (AddressSanitizer's own __odr_asan.* markers, in a sanitizer build, are not the library's names)
    extra=$(comm -13 "$tmp/want" "$tmp/ours" | grep -v -e '^cufort_fftw_' -e '^[ds]fftw_' -e '^__odr_asan\.' |
            tr '\n' ' ')
    if [ "$(wc -l <"$tmp/api")" -lt 150 ]; then
        bad "symbols: only $(wc -l <"$tmp/api") API names read from $header"
    elif [ -n "$missing" ]; then
        bad "symbols: libcufort_fftw.so lacks: $missing"
    elif [ -n "$extra" ]; then
        bad "symbols: libcufort_fftw.so exports more than FFTW's names and cufort_fftw_*: $extra"
    else
        ok "symbols: all $(wc -l <"$tmp/api") C API names of fftw3.h and $(wc -l <"$tmp/legacy") legacy Fortran names, nothing else"
    fi
fi

# ---- the programs ----
run() {   # run TAG ENV... -- BINARY: output in $tmp/TAG.out, report in $tmp/TAG.report
    local tag=$1
    shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    rm -f "$tmp/$tag.report"
    env CUFORT_REPORT=1 CUFORT_REPORT_FILE="$tmp/$tag.report" "${envs[@]}" \
        timeout "${CUFORT_EXAMPLE_TIMEOUT:-300}" "$@" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
}
# same_values A B: every "value NAME X" line of A matches B's to 1e-12 relative (1e-5 for names
# of single-precision transforms, which contain "fftwf" or "sfftw")
same_values() {
    awk 'FNR == NR && $1 == "value" { v[$2] = $3; next }
         $1 == "value" { seen++; tol = ($2 ~ /fftwf|sfftw/) ? 1e-5 : 1e-12
                         if (!($2 in v)) { print "no " $2; bad = 1; next }
                         d = $3 - v[$2]; if (d < 0) d = -d; m = v[$2] < 0 ? -v[$2] : v[$2]
                         if (d > tol * m) { print $2 ": " $3 " against " v[$2]; bad = 1 } }
         END { if (!seen) print "no values"; exit bad || !seen }' "$1" "$2"
}
# engine_rows TAG: "gpu cpu fallback" summed over the report's dft rows
engine_rows() {
    awk '$1 ~ /^(c2c|r2c|c2r)_/ { g += $3; c += $4; f += $5 } END { print g + 0, c + 0, f + 0 }' \
        "$tmp/$1.report" 2>/dev/null
}

for prog in fftw_legacy fftw_f03; do
    if [ ! -x "$EX/$prog" ] || [ ! -x "$EX/${prog}_dropin" ]; then
        bad "$prog: $EX/$prog or ${prog}_dropin not built"
        continue
    fi
    run "$prog.real" -- "$EX/$prog"
    rc=$?
    if [ $rc -ne 0 ] || grep -q '^FAIL' "$tmp/$prog.real.out"; then
        bad "$prog (-lfftw3): exit status $rc: $(grep '^FAIL' "$tmp/$prog.real.out" | head -3) $(head -c 300 "$tmp/$prog.real.err")"
        continue
    fi
    ok "$prog (-lfftw3): $(grep -c '^ok' "$tmp/$prog.real.out") transforms checked"
    [ -s "$tmp/$prog.real.report" ] && bad "$prog (-lfftw3): a cufort report without cufort"
    legacy_preload=1
    [ "$prog" = fftw_legacy ] && [ -s "$tmp/legacy" ] || [ "$prog" = fftw_f03 ] || legacy_preload=0
    if [ "$prog" = fftw_legacy ] && int64_build; then
        echo "# fftw_legacy (-lfftw3, 4-byte INTEGERs) under LD_PRELOAD: skipped in an F77_INT64 build"
        legacy_preload=0
    fi

    # tag, what, where ("gpu": every dft on the engine, "any", "fallback"), env, binary
    check() {
        local tag=$1 what=$2 where=$3
        shift 3
        run "$prog.$tag" "$@"
        local rc=$? diff gpu cpu fb
        if [ $rc -ne 0 ] || grep -q '^FAIL' "$tmp/$prog.$tag.out"; then
            bad "$what: exit status $rc: $(grep '^FAIL' "$tmp/$prog.$tag.out" | head -3) $(head -c 300 "$tmp/$prog.$tag.err")"
            return
        fi
        if diff=$(same_values "$tmp/$prog.real.out" "$tmp/$prog.$tag.out"); then
            ok "$what: the values of the -lfftw3 build"
        else
            bad "$what: values differ from the -lfftw3 build: $diff"
        fi
        read -r gpu cpu fb <<<"$(engine_rows "$prog.$tag")"
        case $where in
            gpu) [ "$gpu" -gt 0 ] && [ "$cpu" = 0 ] ;;
            any) [ $((gpu + cpu)) -gt 0 ] && [ "$fb" = 0 ] ;;
            fallback) [ "$gpu" = 0 ] && [ "$cpu" -gt 0 ] && [ "$fb" = "$cpu" ] &&
                          grep -q '^# first fallback to the real FFTW: ' "$tmp/$prog.$tag.report" ;;
        esac
        if [ $? -eq 0 ]; then
            ok "$what: CUFORT_REPORT: $gpu transforms on the engine, $cpu on FFTW, $fb fallbacks"
        else
            bad "$what: CUFORT_REPORT: $gpu on the engine, $cpu on FFTW, $fb fallbacks, expected $where; report: $(tr '\n' '|' <"$tmp/$prog.$tag.report" 2>/dev/null | head -c 600)"
        fi
    }
    check relinked "${prog}_dropin (relinked, default routing)" any -- "$EX/${prog}_dropin"
    check forced "${prog}_dropin (relinked, engine forced)" gpu CUFORT_FFTW_FORCE_GPU=1 -- "$EX/${prog}_dropin"
    if [ $legacy_preload = 1 ]; then
        check preload "$prog (-lfftw3) under LD_PRELOAD=libcufort_fftw.so, engine forced" gpu \
            LD_PRELOAD="$LIBDIR/libcufort_fftw.so" CUFORT_FFTW_FORCE_GPU=1 -- "$EX/$prog"
    fi
    check nogpu "${prog}_dropin, engine forced but no GPU (CUFORT_BACKEND=cuda, none visible)" fallback \
        CUFORT_BACKEND=cuda CUDA_VISIBLE_DEVICES= CUFORT_FFTW_FORCE_GPU=1 -- "$EX/${prog}_dropin"
done

# ---- the real FFTW named wrongly: a message naming the variable, exit 1, never a recursion ----
if [ -x "$EX/fftw_legacy_dropin" ]; then
    out=$(CUFORT_CPU_FFTW="$LIBDIR/libcufort_fftw.so" timeout 60 "$EX/fftw_legacy_dropin" 2>&1)
    rc=$?
    if [ $rc = 1 ] && grep -q 'is the drop-in library itself' <<<"$out" && grep -q CUFORT_CPU_FFTW <<<"$out"; then
        ok "CUFORT_CPU_FFTW = the drop-in itself: refused with a message, exit 1"
    else
        bad "CUFORT_CPU_FFTW = the drop-in itself: exit $rc, output: $(head -c 300 <<<"$out")"
    fi
    out=$(CUFORT_CPU_FFTW=/nonexistent/libfftw3.so.3 timeout 60 "$EX/fftw_legacy_dropin" 2>&1)
    rc=$?
    if [ $rc = 1 ] && grep -q 'could not be opened' <<<"$out"; then
        ok "CUFORT_CPU_FFTW missing: refused with a message, exit 1"
    else
        bad "CUFORT_CPU_FFTW missing: exit $rc, output: $(head -c 300 <<<"$out")"
    fi
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
