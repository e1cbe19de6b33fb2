#!/usr/bin/env bash
# tests/examples/mangling.sh [build-dir] — the external names of every F77_MANGLING scheme, on the
# sources that define Fortran-callable names (the two F77 libraries, both drop-ins, xerbla): each
# scheme's build compiled here (-O0, objects only) and its defined symbols read with nm.  Scheme
# 1 name_, 2 as g77 and f2c (a name with an underscore of its own gets two, one without gets one:
# dgemm_ beside cublas_sgemm__), 3 name, 4 NAME.  Needs a C compiler and nm; where there is none (a
# GPU machine running a carried tree) it says so and checks nothing.
# Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

CC=${CC:-cc}
if ! command -v "$CC" >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
    echo "# skipped: no C compiler ($CC) or nm here"
    echo "0 passed, 0 failed"
    exit 0
fi
SRCS=(c_wrappers/dropin/generated/dropin_blas.c c_wrappers/dropin/lapack_laswp.c
      c_wrappers/dropin/lapack_nb.c c_wrappers/dropin/lsame.c c_wrappers/dropin/pblas_nb.c
      c_wrappers/dropin/errors.c c_wrappers/generated/f77_device.c c_wrappers/generated/f77_thunking.c
      c_wrappers/f77/f77_common.c c_wrappers/f77/f77_fft.c c_wrappers/f77/f77_kernels_device.c
      c_wrappers/f77/xerbla.c c_wrappers/fftw/f77_double.c)
INCS=(-Ic_wrappers/include -Ic_wrappers/core -Ic_wrappers/thunk -Ic_wrappers/host -Ic_wrappers/f77
      -Ic_wrappers/dropin -Ic_wrappers/route -Ic_wrappers/fftw -Ic_wrappers/generated)
PLAIN=(dgemm sgemm zherk isamax ilaenv pilaenv lsame dlaswp xerbla)
UNDERSCORED=(xerbla_array cublas_sgemm cublas_init cufft_plan1d cuf_ssum dfftw_execute)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expected() {   # expected SCHEME NAME
    case $1 in
    1) echo "${2}_" ;;
    2) if [[ $2 == *_* ]]; then echo "${2}__"; else echo "${2}_"; fi ;;
    3) echo "$2" ;;
    4) echo "${2^^}" ;;
    esac
}

for scheme in 1 2 3 4; do
    mkdir -p "$tmp/$scheme"
    built=1
    for src in "${SRCS[@]}"; do
        if ! "$CC" -std=c11 -O0 -w -DCUFORT_F77_MANGLING=$scheme "${INCS[@]}" -c "$src" \
            -o "$tmp/$scheme/$(basename "$src" .c).o" 2>"$tmp/$scheme.err"; then
            bad "scheme $scheme: $src does not compile: $(head -c 300 "$tmp/$scheme.err" | tr '\n' ' ')"
            built=0
        fi
    done
    [ $built = 1 ] || continue
    nm --defined-only "$tmp/$scheme"/*.o | awk 'NF == 3 && $2 ~ /^[TDWBR]$/ { print $3 }' | sort -u \
        >"$tmp/$scheme.syms"
    for group in PLAIN UNDERSCORED; do
        declare -n names=$group
        wrong=()
        for name in "${names[@]}"; do
            want=$(expected $scheme "$name")
            grep -qx -- "$want" "$tmp/$scheme.syms" || wrong+=("$want missing")
            # the same name under any other decoration
            for alt in "${name}_" "${name}__" "$name" "${name^^}"; do
                [ "$alt" != "$want" ] && grep -qx -- "$alt" "$tmp/$scheme.syms" && wrong+=("$alt defined too")
            done
        done
        if [ ${#wrong[@]} -eq 0 ]; then
            ok "F77_MANGLING=$scheme: ${group,,} names as $(expected $scheme "${names[0]}") (${#names[@]} checked)"
        else
            bad "F77_MANGLING=$scheme: ${group,,} names: ${wrong[*]}"
        fi
        unset -n names
    done
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
