#!/usr/bin/env bash
# scripts/install_tree.sh — the two halves of `make install` / `make uninstall` (mk/install.mk).
#
#   install_tree.sh install DESTDIR MANIFEST VERSION < list
#       list: one line each, "file MODE SOURCE DIR" (install SOURCE into DIR) or "link TARGET PATH" (a
#       symbolic link PATH -> TARGET); DIR, PATH and MANIFEST are final paths, put under DESTDIR here.
#       Writes MANIFEST: every file and link made, and every directory that did not exist before.  An
#       install over an earlier one keeps the earlier manifest's lines, so that what an older version put
#       there (libcufort.so.1.0.0 under a 1.1.0, say) still goes at uninstall.
#       An install that fails part way writes MANIFEST all the same, with what it put there.
#   install_tree.sh uninstall DESTDIR MANIFEST
#       Removes the files and links MANIFEST names, then the directories it names that are left empty,
#       deepest first; a directory that holds something else stays, and is named.  A MANIFEST that
#       names another path as itself belongs to a tree installed elsewhere and copied or moved here:
#       its paths are that tree's, so nothing is removed.
set -euo pipefail
mode=${1:?usage: install_tree.sh install|uninstall DESTDIR MANIFEST [VERSION]}
dest=${2-}
manifest=${3:?usage: install_tree.sh install|uninstall DESTDIR MANIFEST [VERSION]}
version=${4:-}
case $manifest in /*) ;; *) echo "install: MANIFEST must be an absolute path: $manifest" >&2; exit 2 ;; esac

entries=$(mktemp)
trap 'rm -f "$entries"' EXIT

# newdirs DIR: record DIR and each of its missing parents as made by this install, then make them
newdirs() {
    local d=$1
    while [ ! -d "$dest$d" ] && [ "$d" != / ]; do
        echo "dir $d" >>"$entries"
        d=$(dirname "$d")
    done
    mkdir -p "$dest$1"
}

# MANIFEST from what $entries holds; from the EXIT trap too, so that a failed install can be undone
write_manifest() {
    newdirs "$(dirname "$manifest")"
    echo "file $manifest" >>"$entries"
    {
        echo "# cufort ${version:-?} installed these (paths without DESTDIR); make uninstall removes them"
        awk '!seen[$0]++' "$entries"
    } >"$dest$manifest.tmp"
    mv "$dest$manifest.tmp" "$dest$manifest"
}

case $mode in
install)
    if [ -f "$dest$manifest" ]; then
        grep -E '^(file|link|dir) ' "$dest$manifest" >>"$entries" || true
    fi
    trap 'st=$?; if [ $st -ne 0 ]; then write_manifest || true;
          echo "install: failed; make uninstall removes what $dest$manifest lists" >&2; fi
          rm -f "$entries"' EXIT
    while read -r kind a b c; do
        case $kind in
        file)
            # file MODE SOURCE DIR
            [ -f "$b" ] || { echo "install: $b is missing (make libs)" >&2; exit 1; }
            newdirs "$c"
            rm -f "$dest$c/${b##*/}"
            install -m "$a" "$b" "$dest$c/"
            echo "file $c/${b##*/}" >>"$entries"
            echo "  $c/${b##*/}"
            ;;
        link)
            # link TARGET PATH
            newdirs "$(dirname "$b")"
            ln -sfn "$a" "$dest$b"
            echo "link $b" >>"$entries"
            echo "  $b -> $a"
            ;;
        "") ;;
        *) echo "install: bad list line: $kind $a $b $c" >&2; exit 2 ;;
        esac
    done
    write_manifest
    echo "  $manifest"
    echo "installed cufort ${version}; make uninstall removes what $dest$manifest lists"
    ;;
uninstall)
    if [ ! -f "$dest$manifest" ]; then
        echo "uninstall: no cufort installation here: $dest$manifest is missing" >&2
        exit 1
    fi
    cp "$dest$manifest" "$entries"
    if ! grep -qxF "file $manifest" "$entries"; then
        own=$(awk -v name="/${manifest##*/}" '$1 == "file" && substr($2, length($2) - length(name) + 1) == name {
                  print $2; exit }' "$entries")
        echo "uninstall: $dest$manifest lists the files of a tree installed as ${own:-another path}," \
             "which was copied or moved here: nothing removed (remove this copy with rm -rf)" >&2
        exit 1
    fi
    n=0
    while read -r kind path; do
        case $kind in
        file | link)
            if [ -e "$dest$path" ] || [ -L "$dest$path" ]; then
                rm -f "$dest$path"
                n=$((n + 1))
            fi
            ;;
        esac
    done <"$entries"
    # directories, deepest first
    left=()
    while read -r path; do
        [ -d "$dest$path" ] || continue
        if [ -z "$(ls -A "$dest$path")" ]; then
            rmdir "$dest$path"
        else
            left+=("$path")
        fi
    done < <(awk '$1 == "dir" { print length($2), $2 }' "$entries" | sort -rn | cut -d' ' -f2-)
    echo "uninstalled cufort: $n files and links removed"
    for d in "${left[@]}"; do
        echo "uninstall: kept $dest$d: it holds files cufort did not install" >&2
    done
    ;;
*)
    echo "usage: install_tree.sh install|uninstall DESTDIR MANIFEST [VERSION]" >&2
    exit 2
    ;;
esac
