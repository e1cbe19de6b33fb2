#!/usr/bin/env bash
# scripts/check_generated.sh — fails when a generated file in the tree differs from what gen/generate.py
# writes now (someone edited generated output by hand, or changed the table without `make generate`).
# Runs the generator on a scratch copy and compares byte for byte, so the tree is left untouched and the
# answer does not depend on what git has staged (on a fresh clone it equals `make generate` followed by
# `git diff --exit-code`).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null || { echo "check-generated: $PYTHON not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/gen"
cp gen/*.py "$tmp/gen/"
"$PYTHON" "$tmp/gen/generate.py" >/dev/null

bad=0 n=0
while IFS= read -r f; do
    rel=${f#"$tmp"/}
    n=$((n + 1))
    if [ ! -e "$rel" ]; then
        echo "check-generated: $rel is generated but missing from the tree (run make generate)"
        bad=1
    elif ! cmp -s "$f" "$rel"; then
        echo "check-generated: $rel differs from the generator's output (run make generate):"
        # diff exits 1 on a difference: under pipefail that would end the script at the first stale file
        { diff -u "$rel" "$f" || true; } | head -20 | sed 's/^/    /'
        bad=1
    fi
done < <(find "$tmp" -type f ! -path "$tmp/gen/*" | sort)

if [ "$n" -eq 0 ]; then
    echo "check-generated: the generator wrote nothing" >&2
    exit 1
fi
if [ $bad -ne 0 ]; then
    echo "check-generated: FAILED"
    exit 1
fi
echo "check-generated: $n generated files up to date"
