#!/usr/bin/env bash
# tests/examples/doc_programs.sh [build-dir] — the examples of README.md and docs/, as a user would
# copy them: scripts/doc_programs.py writes each into a program (the README's F77 fragments inside
# one that sets up their array and checks every element after; complete programs as they stand) and
# what its output must be (<name>.expect, beside the program in the examples directory), and
# mk/doc_programs.mk compiles each with the -l flags the documentation gives.  Expectations: "ok" (the program's own ok/FAIL lines count), "small"
# (every number printed under 1e-5: the documented programs print errors "~1e-7"), "values X Y ..."
# (the numbers printed, each within 1e-5 relative).
# Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
BUILD=${1:-build}
EX=$BUILD/examples
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
tag="(backend ${CUFORT_BACKEND:-auto})"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

shopt -s nullglob
expects=("$EX"/*.expect)
[ ${#expects[@]} -ge 7 ] || bad "doc programs: ${#expects[@]} expectations in $EX, want 7 (make examples)"
for e in "${expects[@]}"; do
    name=$(basename "$e" .expect)
    read -r kind values <"$e"
    bin=$EX/$name
    if [ ! -x "$bin" ]; then
        bad "$name: $bin not built"
        continue
    fi
    timeout "${CUFORT_EXAMPLE_TIMEOUT:-120}" "$bin" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "$name: exit status $rc: $(head -c 300 "$tmp/$name.err" "$tmp/$name.out" | tr '\n' ' ')"
        continue
    fi
    printed=$(tr -s ' \n' '  ' <"$tmp/$name.out" | sed 's/^ *//; s/ *$//')
    case $kind in
    ok)
        n_ok=$(grep -c '^ok ' "$tmp/$name.out")
        n_bad=$(grep -c '^FAIL ' "$tmp/$name.out")
        grep -E '^(ok|FAIL) ' "$tmp/$name.out" | sed "s/\$/ $tag/"
        pass=$((pass + n_ok)) fail=$((fail + n_bad))
        [ "$n_ok" -gt 0 ] || [ "$n_bad" -gt 0 ] || bad "$name: printed no result"
        ;;
    small)
        if awk '{ for (i = 1; i <= NF; i++) { if ($i !~ /^[-+]?[0-9.]+([EeDd][-+]?[0-9]+)?$/) exit 1;
                  x = $i; sub(/[Dd]/, "E", x); if (x + 0 >= 1e-5 || x + 0 <= -1e-5) exit 1; n++ } }
                END { exit !(n > 0) }' "$tmp/$name.out"; then
            ok "$name: prints $printed, each under 1e-5 $tag"
        else
            bad "$name: printed '$(head -c 200 "$tmp/$name.out")', expected numbers under 1e-5"
        fi
        ;;
    values)
        if awk -v want="$values" 'BEGIN { n = split(want, w, " ") }
                { for (i = 1; i <= NF; i++) got[++m] = $i }
                END { if (m != n) exit 1
                      for (i = 1; i <= n; i++) { d = got[i] - w[i]; if (d < 0) d = -d
                          if (d > 1e-5 * (w[i] < 0 ? -w[i] : w[i])) exit 1 } }' "$tmp/$name.out"; then
            ok "$name: prints $printed, as expected $tag"
        else
            bad "$name: printed '$(head -c 200 "$tmp/$name.out")', expected $values"
        fi
        ;;
    *) bad "$name: unknown expectation '$kind'" ;;
    esac
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
