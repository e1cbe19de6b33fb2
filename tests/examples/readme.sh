#!/usr/bin/env bash
# tests/examples/readme.sh [build-dir] — the README's Fortran examples, as a user would copy them:
# scripts/readme_programs.py writes each ```fortran block of README.md into a program (the F77
# fragments inside one that sets up their array and checks every element after; the `use cufort`
# program as it stands), and mk/readme.mk compiles each with the -l flags of the README's own
# command line under it.  Each program prints its own "ok"/"FAIL" lines; the modern one prints the
# error its comment promises (~1e-7), which must be under 1e-5.
# Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
BUILD=${1:-build}
EX=$BUILD/examples
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for name in thunking device dropin modern; do
    bin=$EX/readme_$name
    if [ ! -x "$bin" ]; then
        bad "readme $name: $bin not built"
        continue
    fi
    timeout "${CUFORT_EXAMPLE_TIMEOUT:-120}" "$bin" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "readme $name: exit status $rc: $(head -c 300 "$tmp/$name.err" "$tmp/$name.out" | tr '\n' ' ')"
        continue
    fi
    if [ $name = modern ]; then
        err=$(tr -d ' \n' <"$tmp/$name.out")
        if [[ $err =~ ^[0-9.]+(E[-+][0-9]+)?$ ]] && awk -v e="$err" 'BEGIN { exit !(e + 0 < 1e-5) }'; then
            ok "readme modern: use cufort demo prints $err (backend ${CUFORT_BACKEND:-auto})"
        else
            bad "readme modern: printed '$(head -c 200 "$tmp/$name.out")', expected a number under 1e-5"
        fi
        continue
    fi
    n_ok=$(grep -c '^ok ' "$tmp/$name.out")
    n_bad=$(grep -c '^FAIL ' "$tmp/$name.out")
    grep -E '^(ok|FAIL) ' "$tmp/$name.out" | sed "s/\$/ (backend ${CUFORT_BACKEND:-auto})/"
    pass=$((pass + n_ok)) fail=$((fail + n_bad))
    if [ "$n_ok" -eq 0 ] && [ "$n_bad" -eq 0 ]; then
        bad "readme $name: printed no result"
    fi
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
