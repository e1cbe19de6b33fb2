#!/usr/bin/env bash
# tests/examples/sgemm.sh [build-dir] — seed 001's SGEMM example built twice from one source: host
# SGEMM and (-DCUBLAS) the thunking cublas_SGEMM.  Each build compares its C with a double-precision
# triple loop (exact data: the difference must be 0); the two builds must print the same checksums.
# Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
BUILD=${1:-build}
EX=${CUFORT_EXAMPLES_DIR:-$BUILD/examples}   # another compiler's builds: tests/examples/flang.sh
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { sed -n "s/^$1: *//p" "$2" | head -n1; }

ran=()
for prog in sgemm_example_host sgemm_example_cublas; do
    bin=$EX/$prog
    if [ ! -x "$bin" ]; then
        bad "$prog: $bin not built"
        continue
    fi
    timeout "${CUFORT_EXAMPLE_TIMEOUT:-120}" "$bin" >"$tmp/$prog.out" 2>"$tmp/$prog.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "$prog: exit status $rc: $(head -c 300 "$tmp/$prog.err" "$tmp/$prog.out" | tr '\n' ' ')"
        continue
    fi
    md=$(field maxdiff "$tmp/$prog.out")
    if [ -n "$md" ] && awk -v d="$md" 'BEGIN { exit !(d + 0 == 0) }'; then
        ok "$prog: $(field called "$tmp/$prog.out"): C equals the float64 reference (maxdiff $md)"
        ran+=("$prog")
    else
        bad "$prog: maxdiff '${md}' against the float64 reference, expected 0"
    fi
done

if [ ${#ran[@]} -eq 2 ]; then
    h=$tmp/sgemm_example_host.out c=$tmp/sgemm_example_cublas.out
    if [ "$(field checksum "$h")" = "$(field checksum "$c")" ] &&
        [ "$(field abssum "$h")" = "$(field abssum "$c")" ] && [ -n "$(field checksum "$h")" ]; then
        ok "sgemm_example: host SGEMM and cublas_SGEMM builds agree (checksum $(field checksum "$h"), backend ${CUFORT_BACKEND:-auto})"
    else
        bad "sgemm_example: builds disagree: host $(field checksum "$h")/$(field abssum "$h"), cublas $(field checksum "$c")/$(field abssum "$c")"
    fi
else
    bad "sgemm_example: both builds must run to compare them"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
