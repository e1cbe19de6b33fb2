#!/usr/bin/env bash
# scripts/fortran_mod_id.sh FC [MODFILE] — prints the name of the directory the Fortran modules of FC
# are installed in (include/cufort/<name>/), the way Debian names its module directories
# (/usr/lib/<multiarch>/fortran/gfortran-mod-15/): the compiler and the version of its module file
# format, because that, not the compiler's release, decides which compilers can read a .mod file
# (gfortran 8 to 14 all write and read format 15).
#   gfortran      gfortran-mod-<n>   n from the header of MODFILE, a module FC wrote (else FC's own probe)
#   flang (LLVM)  flang-mod-<n>      n from MODFILE's "!mod$ v<n>" line
#   others        <name of FC>-<major release>   (ifx-2025, nvfortran-25, ...)
set -euo pipefail
fc=${1:?usage: fortran_mod_id.sh FC [MODFILE]}
mod=${2:-}

probe=""
cleanup() { [ -z "$probe" ] || rm -rf "$probe"; }
trap cleanup EXIT
if [ -z "$mod" ] || [ ! -s "$mod" ]; then
    # no module at hand: have FC write one
    probe=$(mktemp -d)
    printf 'module cufort_mod_probe\nend module cufort_mod_probe\n' >"$probe/p.f90"
    (cd "$probe" && $fc -c p.f90 -o p.o >/dev/null 2>&1) || true
    mod=$probe/cufort_mod_probe.mod
fi

head_of_mod() {   # first line of a module file, gzip'd (gfortran 4.9 on) or plain
    if [ ! -s "$1" ]; then return 0; fi
    if [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' \n')" = 1f8b ]; then
        gzip -dc "$1" 2>/dev/null | head -n1 || true
    else
        head -n1 "$1"
    fi
}
line=$(head_of_mod "$mod")
line=${line#$'\xef\xbb\xbf'}   # flang writes its modules in UTF-8 with a byte order mark
if [[ $line =~ ^GFORTRAN\ module\ version\ \'([0-9]+)\' ]]; then
    echo "gfortran-mod-${BASH_REMATCH[1]}"
elif [[ $line =~ ^\!mod\$\ v([0-9]+) ]]; then
    echo "flang-mod-${BASH_REMATCH[1]}"
else
    # the compiler's name without a version suffix (gfortran-13 -> gfortran), and its major release
    name=$(basename "${fc%% *}")
    name=${name%%-[0-9]*}
    ver=$($fc -dumpversion 2>/dev/null | head -n1 | cut -d. -f1 || true)
    echo "${name}-${ver:-unknown}"
fi
