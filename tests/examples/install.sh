#!/usr/bin/env bash
# tests/examples/install.sh [build-dir] — cufort as an installed package, met the way a build system
# meets it.  `make check` installs into <build-dir>/install-check/stage (DESTDIR staging of
# PREFIX=/opt/cufort, mk/install.mk); this test, on copies of that tree:
#   - the installed libraries, headers and modules are the build's; every shared library is
#     lib<name>.so -> lib<name>.so.X -> lib<name>.so.X.Y.Z with the SONAME lib<name>.so.X (readelf -d);
#     the modules sit in include/cufort/<compiler>-mod-<n>/, none among the C headers;
#   - pkg-config (--define-variable=prefix= for the stage): every package of the version in cufort.h; a C
#     program, a legacy F77 thunking program and a `use cufort` program built with their --cflags/--libs
#     run against the installed tree (ldd shows no build/lib), and the C program again statically
#     linked (--static) against libcufort.a;
#   - CMake: the tree moved elsewhere, find_package(cufort X.Y.Z EXACT) builds and runs the same three
#     programs against cufort::cufort, cufort::f77_thunking, cufort::fortran, refuses the next major
#     version, and with cufort_USE_STATIC_LIBS links the C program statically;
#   - where LLVM flang built the modules too (mk/flang.mk): its modules in their own directory beside
#     gfortran's, libcufort_fortran_flang beside libcufort_fortran, and a `use cufort` program and the
#     F77 thunking program compiled by flang through pkg-config (cufort-fortran-flang) and through CMake
#     (cufort::fortran is flang's for a flang project);
#   - make uninstall leaves nothing behind, and leaves files it did not install where they are; it
#     refuses a copy of an installed tree (whose manifest names the original's files), and undoes an
#     install that failed part way.
# Where the tree was not built here (a GPU machine running a carried build without compilers) it
# skips.  Protocol: "ok ..."/"FAIL ..." lines, then "N passed, M failed".
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
CHECK=$BUILD/install-check
SRC=$ROOT/tests/install
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ $fail -eq 0 ]; exit; }

if [ ! -f "$CHECK/toolchain.sh" ]; then
    if [ -d "$BUILD/runtime" ] || ! command -v gfortran >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
        echo "# skipped: no installed tree in $CHECK (a tree carried by make gpu-bundle, or no compilers here)"
        finish
    fi
    bad "no installed tree in $CHECK: make check makes it (make install-check-tree)"
    finish
fi
# CC FC F77_FFLAGS F77_PROGRAMS PREFIX VERSION FC_MOD_ID (FLANG FLANG_MOD_ID FLANG_F77_PROGRAMS): what
# the tree was built and installed with
FLANG="" FLANG_MOD_ID="" FLANG_F77_PROGRAMS=0
. "$CHECK/toolchain.sh"
for c in "$CC" "$FC"; do
    if ! command -v "${c%% *}" >/dev/null 2>&1; then
        echo "# skipped: $c, which built the tree, is not here"
        finish
    fi
done
for t in pkg-config cmake readelf ldd; do
    command -v $t >/dev/null 2>&1 || bad "$t is not installed (scripts/deps.sh installs it)"
done
[ $fail -eq 0 ] || finish
MAJOR=${VERSION%%.*}

tmp=$(mktemp -d "$BUILD/install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The programs must load the installed libraries: keep the runner's build/lib out of their way.
LD_LIBRARY_PATH=$(tr ':' '\n' <<<"${LD_LIBRARY_PATH:-}" | grep -v -x -F "$BUILD/lib" | paste -sd: -)
export LD_LIBRARY_PATH

stage=$CHECK/stage
tree=$stage$PREFIX
LIBS="cufort cufort_f77 cufort_f77_thunking cufort_fortran cufort_blas cufort_fftw${FLANG:+ cufort_fortran_flang}"
PCS="cufort cufort-f77 cufort-f77-thunking cufort-fortran cufort-blas cufort-fftw${FLANG:+ cufort-fortran-flang}"
flang_here=0
if [ -n "$FLANG" ]; then
    if command -v "${FLANG%% *}" >/dev/null 2>&1; then
        flang_here=1
    else
        echo "# skipped: programs compiled by $FLANG, which built the tree's flang modules, is not here"
    fi
fi

# ---- the installed tree -------------------------------------------------------------------------
differs=""
nfiles=0
for f in "$BUILD"/lib/lib*.so."$VERSION" "$BUILD"/lib/lib*.a; do
    # flang's flavour left in build/lib by an earlier build with flang is not installed
    [ -z "$FLANG" ] && [[ ${f##*/} == libcufort_fortran_flang.* ]] && continue
    nfiles=$((nfiles + 1)); cmp -s "$f" "$tree/lib/${f##*/}" || differs+=" lib/${f##*/}"
done
for f in "$ROOT"/c_wrappers/include/*.h "$ROOT"/c_wrappers/dropin/cufort_dropin.h; do
    nfiles=$((nfiles + 1)); cmp -s "$f" "$tree/include/${f##*/}" || differs+=" include/${f##*/}"
done
moddir=$tree/include/cufort/$FC_MOD_ID
for f in "$BUILD"/include/*.mod; do
    nfiles=$((nfiles + 1)); cmp -s "$f" "$moddir/${f##*/}" || differs+=" ${f##*/}"
done
flang_moddir=$tree/include/cufort/$FLANG_MOD_ID
if [ -n "$FLANG" ]; then
    for f in "$BUILD"/flang/include/*.mod; do
        nfiles=$((nfiles + 1)); cmp -s "$f" "$flang_moddir/${f##*/}" || differs+=" $FLANG_MOD_ID/${f##*/}"
    done
fi
if [ -z "$differs" ]; then
    ok "installed tree: $nfiles libraries, headers and modules, the same as the build's"
else
    bad "installed tree differs from the build (make check reinstalls it):$differs"
fi

for l in $LIBS; do
    so=$tree/lib/lib$l.so
    chain="$(readlink "$so") $(readlink "$so.$MAJOR")"
    soname=$(readelf -d "$so.$VERSION" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    if [ "$chain" = "lib$l.so.$MAJOR lib$l.so.$VERSION" ] && [ -f "$so.$VERSION" ] && [ "$soname" = "lib$l.so.$MAJOR" ]; then
        ok "lib$l.so -> lib$l.so.$MAJOR -> lib$l.so.$VERSION, SONAME $soname"
    else
        bad "lib$l: links '$chain', SONAME '$soname', want lib$l.so.$MAJOR lib$l.so.$VERSION and lib$l.so.$MAJOR"
    fi
done
for l in cufort cufort_f77 cufort_f77_thunking cufort_fortran${FLANG:+ cufort_fortran_flang}; do
    [ -f "$tree/lib/lib$l.a" ] || bad "lib/lib$l.a not installed"
done

mod_dirs=include/cufort/$FC_MOD_ID/${FLANG:+ and include/cufort/$FLANG_MOD_ID/}
if [ -f "$moddir/cufort.mod" ] && [ -z "$(ls "$tree/include"/*.mod 2>/dev/null)" ] &&
    [ -f "$tree/include/cufort.h" ] && [ -f "$tree/include/cufort_dropin.h" ] &&
    { [ -z "$FLANG" ] || { [ -f "$flang_moddir/cufort.mod" ] && [ "$FLANG_MOD_ID" != "$FC_MOD_ID" ]; }; }; then
    ok "layout: C headers in include/, Fortran modules in $mod_dirs only"
else
    bad "layout: want include/cufort.h, include/cufort_dropin.h, cufort.mod in $mod_dirs and no .mod in include/: $(cd "$tree" && find include | tr '\n' ' ')"
fi

# run_prog WHAT BINARY LIBDIR WANT...: runs it, checks every WANT line is in its output and that the
# cufort libraries it loaded come from LIBDIR
run_prog() {
    local what=$1 bin=$2 libdir=$3 out loaded
    shift 3
    out=$("$bin" 2>&1)
    local rc=$? miss=""
    for w in "$@"; do grep -q -x -F "$w" <<<"$out" || miss+=" '$w'"; done
    loaded=$(ldd "$bin" 2>/dev/null | awk '$1 ~ /^libcufort/ { print $3 }' | grep -v "^$libdir/" | tr '\n' ' ')
    if [ $rc -ne 0 ] || [ -n "$miss" ]; then
        bad "$what: exit status $rc, missing$miss in: $(head -c 400 <<<"$out" | tr '\n' '|')"
    elif [ -n "$loaded" ]; then
        bad "$what: loads cufort from outside $libdir: $loaded"
    else
        ok "$what: $(tr '\n' ' ' <<<"$out" | sed 's/ $//')"
    fi
}
# check_needed WHAT BINARY LIB: BINARY records LIB by its SONAME, and every cufort library by a SONAME
check_needed() {
    local n unversioned
    n=$(needed "$2")
    unversioned=$(tr ' ' '\n' <<<"$n" | grep . | grep -v "\.so\.$MAJOR\$" | tr '\n' ' ')
    if [[ " $n" == *" $3.so.$MAJOR "* ]] && [ -z "$unversioned" ]; then
        ok "$1: records $n"
    else
        bad "$1: records '$n', want $3.so.$MAJOR and only versioned names"
    fi
}
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(libcufort[^]]*\)\]/\1/p' | LC_ALL=C sort | tr '\n' ' '; }

# ---- pkg-config -----------------------------------------------------------------------------------
# the files name PREFIX; the tree is staged under DESTDIR: what a package's build does
export PKG_CONFIG_PATH=$tree/lib/pkgconfig
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
pkg-config() { command pkg-config --define-variable=prefix="$tree" "$@"; }
versions="" want=""
for p in $PCS; do
    versions+="$p=$(pkg-config --modversion "$p" 2>&1) "
    want+="$p=$VERSION "
done
named=$(command pkg-config --variable=prefix cufort)
if [ "$versions" = "$want" ] && [ "$named" = "$PREFIX" ]; then
    ok "pkg-config: $(wc -w <<<"$PCS") packages, version $VERSION, prefix $named"
else
    bad "pkg-config: $versions(want $VERSION each), prefix $named (want $PREFIX)"
fi
fmod=$(pkg-config --cflags cufort-fortran)
if [[ " $fmod " == *" -I$tree/include/cufort/$FC_MOD_ID "* ]]; then
    ok "pkg-config --cflags cufort-fortran: the module directory ($fmod)"
else
    bad "pkg-config --cflags cufort-fortran: '$fmod' lacks -I$tree/include/cufort/$FC_MOD_ID"
fi
rpath=-Wl,-rpath,$tree/lib
pc_build() {   # pc_build WHAT OUT COMPILER SOURCE PACKAGE [FLAGS...]
    local what=$1 out=$2 cc=$3 src=$4 pkg=$5
    shift 5
    # shellcheck disable=SC2046
    if ! $cc "$@" -o "$out" "$src" $(pkg-config --cflags --libs "$pkg") $rpath >"$out.log" 2>&1; then
        bad "$what: does not build: $(head -c 600 "$out.log")"
        return 1
    fi
}
if pc_build "C program (pkg-config cufort)" "$tmp/pc_c" "$CC" "$SRC/c_abi.c" cufort; then
    run_prog "C program (pkg-config cufort)" "$tmp/pc_c" "$tree/lib" "version $VERSION"
    check_needed "C program (pkg-config cufort)" "$tmp/pc_c" libcufort
fi
# shellcheck disable=SC2086
if [ "$F77_PROGRAMS" != 1 ]; then
    echo "# F77 programs skipped: F77_MANGLING=4 (upper-case names) has no gfortran equivalent"
elif pc_build "F77 thunking program (pkg-config cufort-f77-thunking)" "$tmp/pc_thunk" "$FC" "$SRC/thunking.f" \
    cufort-f77-thunking $(pkg-config --variable=fflags cufort-f77-thunking); then
    run_prog "F77 thunking program (pkg-config cufort-f77-thunking)" "$tmp/pc_thunk" "$tree/lib" "daxpy ok"
    check_needed "F77 thunking program (pkg-config cufort-f77-thunking)" "$tmp/pc_thunk" libcufort_f77_thunking
fi
if pc_build "use cufort program (pkg-config cufort-fortran)" "$tmp/pc_modern" "$FC" "$SRC/modern.f90" \
    cufort-fortran -J"$tmp"; then
    run_prog "use cufort program (pkg-config cufort-fortran)" "$tmp/pc_modern" "$tree/lib" "version $VERSION"
    check_needed "use cufort program (pkg-config cufort-fortran)" "$tmp/pc_modern" libcufort_fortran
fi
if [ $flang_here = 1 ]; then
    fmod=$(pkg-config --cflags cufort-fortran-flang)
    if [[ " $fmod " == *" -I$flang_moddir "* ]]; then
        ok "pkg-config --cflags cufort-fortran-flang: flang's module directory ($fmod)"
    else
        bad "pkg-config --cflags cufort-fortran-flang: '$fmod' lacks -I$flang_moddir"
    fi
    mkdir -p "$tmp/flang_mod"
    if pc_build "use cufort program by $FLANG (pkg-config cufort-fortran-flang)" "$tmp/pc_flang_modern" "$FLANG" \
        "$SRC/modern.f90" cufort-fortran-flang -J"$tmp/flang_mod"; then
        run_prog "use cufort program by $FLANG (pkg-config cufort-fortran-flang)" "$tmp/pc_flang_modern" "$tree/lib" \
            "version $VERSION"
        check_needed "use cufort program by $FLANG (pkg-config cufort-fortran-flang)" "$tmp/pc_flang_modern" \
            libcufort_fortran_flang
    fi
    # shellcheck disable=SC2046
    if [ "$FLANG_F77_PROGRAMS" = 1 ] && pc_build "F77 thunking program by $FLANG (pkg-config cufort-f77-thunking)" \
        "$tmp/pc_flang_thunk" "$FLANG" "$SRC/thunking.f" cufort-f77-thunking \
        $(pkg-config --variable=fflags cufort-f77-thunking); then
        run_prog "F77 thunking program by $FLANG (pkg-config cufort-f77-thunking)" "$tmp/pc_flang_thunk" "$tree/lib" \
            "daxpy ok"
    fi
fi
# static: libcufort.a in place of -lcufort, and what Libs.private says it needs
static_libs=$(pkg-config --static --libs cufort | sed 's/\(^\| \)-lcufort\( \|$\)/ -Wl,-Bstatic -lcufort -Wl,-Bdynamic /')
# shellcheck disable=SC2086
if $CC -o "$tmp/pc_static" "$SRC/c_abi.c" $(pkg-config --cflags cufort) $static_libs >"$tmp/pc_static.log" 2>&1; then
    if [ -z "$(needed "$tmp/pc_static")" ]; then
        run_prog "C program, static (pkg-config --static cufort)" "$tmp/pc_static" "$tree/lib" "version $VERSION"
    else
        bad "C program, static: still needs $(needed "$tmp/pc_static")"
    fi
else
    bad "C program, static (pkg-config --static --libs cufort: $static_libs): $(head -c 600 "$tmp/pc_static.log")"
fi
unset PKG_CONFIG_PATH
unset -f pkg-config

# ---- CMake, on the tree moved elsewhere ----------------------------------------------------------
moved=$tmp/elsewhere/cufort-$VERSION
mkdir -p "$(dirname "$moved")"
cp -a "$tree" "$moved"
cmake_build() {   # [CMAKE_FC=compiler] cmake_build WHAT DIR [CMAKE ARGS...]
    local what=$1 dir=$2 fc=${CMAKE_FC:-$FC} f77=${CMAKE_F77_PROGRAMS:-$F77_PROGRAMS}
    # flags that came with the compilers (a sanitizer build's -fsanitize=...) go to CMake as flags
    local cflags=${CC#"${CC%% *}"} fflags=${fc#"${fc%% *}"} lflags
    lflags=$cflags
    [ -z "${CMAKE_FC:-}" ] || lflags=""   # another Fortran compiler links: not gcc's flags
    shift 2
    if ! cmake -S "$SRC" -B "$dir" -DCMAKE_PREFIX_PATH="$moved" -DCMAKE_C_COMPILER="${CC%% *}" \
        -DCMAKE_C_FLAGS="$cflags" -DCMAKE_Fortran_FLAGS="$fflags" -DCMAKE_EXE_LINKER_FLAGS="$lflags" \
        -DCMAKE_Fortran_COMPILER="${fc%% *}" -DCUFORT_F77_PROGRAMS="$f77" \
        -DCUFORT_EXPECTED_VERSION="$VERSION" "$@" >"$dir.log" 2>&1 ||
        ! cmake --build "$dir" >>"$dir.log" 2>&1; then
        bad "$what: $(grep -E -A4 'Error|error' "$dir.log" | head -c 800)"
        return 1
    fi
    ok "$what: $(sed -n 's/^-- \(cufort .*\)/\1/p' "$dir.log")"
}
if cmake_build "CMake find_package(cufort $VERSION EXACT) on the moved tree" "$tmp/cmake"; then
    run_prog "C program (CMake cufort::cufort)" "$tmp/cmake/c_abi" "$moved/lib" "version $VERSION"
    [ "$F77_PROGRAMS" != 1 ] ||
        run_prog "F77 thunking program (CMake cufort::f77_thunking)" "$tmp/cmake/thunking" "$moved/lib" "daxpy ok"
    run_prog "use cufort program (CMake cufort::fortran)" "$tmp/cmake/modern" "$moved/lib" "version $VERSION"
fi
if [ $flang_here = 1 ] && CMAKE_FC=$FLANG CMAKE_F77_PROGRAMS=$FLANG_F77_PROGRAMS \
    cmake_build "CMake with $FLANG: cufort::fortran is flang's" "$tmp/cmake_flang"; then
    run_prog "use cufort program by $FLANG (CMake cufort::fortran)" "$tmp/cmake_flang/modern" "$moved/lib" \
        "version $VERSION"
    check_needed "use cufort program by $FLANG (CMake cufort::fortran)" "$tmp/cmake_flang/modern" libcufort_fortran_flang
    [ "$FLANG_F77_PROGRAMS" != 1 ] || run_prog "F77 thunking program by $FLANG (CMake cufort::f77_thunking)" \
        "$tmp/cmake_flang/thunking" "$moved/lib" "daxpy ok"
fi
if cmake_build "CMake, cufort_USE_STATIC_LIBS" "$tmp/cmake_static" -DCUFORT_STATIC=ON; then
    if [ -z "$(needed "$tmp/cmake_static/c_abi")" ]; then
        run_prog "C program, static (CMake cufort::cufort)" "$tmp/cmake_static/c_abi" "$moved/lib" "version $VERSION"
    else
        bad "C program, static (CMake): still needs $(needed "$tmp/cmake_static/c_abi")"
    fi
fi

# ---- uninstall ------------------------------------------------------------------------------------
uninstall() {   # uninstall DESTDIR: make uninstall, as a user runs it
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" --no-print-directory uninstall \
        BUILD="$BUILD" PREFIX="$PREFIX" DESTDIR="$1" >"$1.log" 2>&1
}
cp -a "$stage" "$tmp/stage1"
if uninstall "$tmp/stage1" && [ -z "$(ls -A "$tmp/stage1")" ]; then
    ok "make uninstall: nothing left ($(tail -n1 "$tmp/stage1.log"))"
else
    bad "make uninstall left: $(cd "$tmp/stage1" && find . -mindepth 1 | head -n 20 | tr '\n' ' ') $(tail -n3 "$tmp/stage1.log")"
fi
cp -a "$stage" "$tmp/stage2"
echo mine >"$tmp/stage2$PREFIX/include/mine.h"
echo mine >"$tmp/stage2$PREFIX/lib/libmine.so"
uninstall "$tmp/stage2"
left=$(cd "$tmp/stage2" && find . -mindepth 1 | sort | tr '\n' ' ')
want=$(printf '%s\n' . ".$PREFIX/include/mine.h" ".$PREFIX/lib/libmine.so" ".$PREFIX/include" ".$PREFIX/lib" |
       while read -r p; do d=$p; while [ "$d" != . ]; do echo "$d"; d=$(dirname "$d"); done; done | sort -u | tr '\n' ' ')
if [ "$left" = "$want" ]; then
    ok "make uninstall: files it did not install stay, with their directories"
else
    bad "make uninstall with foreign files: left '$left', want '$want'"
fi

# a copy of an installed tree: its manifest names the original's files, so uninstall refuses
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" --no-print-directory uninstall BUILD="$BUILD" \
    PREFIX="$moved" DESTDIR= >"$tmp/moved_uninstall.log" 2>&1; then
    bad "make uninstall of a copied tree ran: $(tail -n2 "$tmp/moved_uninstall.log")"
elif grep -q "copied or moved here" "$tmp/moved_uninstall.log" && [ -e "$moved/lib/libcufort.so" ] &&
    [ -e "$tree/lib/libcufort.so" ]; then
    ok "make uninstall of a copied tree: refused, the copy and the original intact"
else
    bad "make uninstall of a copied tree: $(tail -n2 "$tmp/moved_uninstall.log")"
fi

# an install that fails part way (a file where a directory belongs) can be undone
mkdir -p "$tmp/stage3$PREFIX" && echo mine >"$tmp/stage3$PREFIX/include"
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" --no-print-directory install BUILD="$BUILD" \
    PREFIX="$PREFIX" DESTDIR="$tmp/stage3" >"$tmp/stage3.install.log" 2>&1; then
    bad "make install over a file named include succeeded"
else
    uninstall "$tmp/stage3"
    left=$(cd "$tmp/stage3" && find . -mindepth 1 | sort | tr '\n' ' ')
    want=$(d=".$PREFIX/include"; while [ "$d" != . ]; do echo "$d"; d=$(dirname "$d"); done | sort | tr '\n' ' ')
    if [ "$left" = "$want" ]; then
        ok "make uninstall after a failed install: only what was there before is left"
    else
        bad "make uninstall after a failed install: left '$left', want '$want'; $(tail -n2 "$tmp/stage3.log")"
    fi
fi

finish
