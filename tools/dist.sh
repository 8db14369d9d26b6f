#!/bin/sh
# make dist: the release archive OUT (build/stax-VERSION.tar.gz), the files
# git tracks (sources, docs, tests, fixtures, tools; nothing generated) as
# they are in the tree, under one folder stax-VERSION/. The same tree gives
# the same bytes: names sorted, owner 0, every file dated by the last
# commit, gzip without a time stamp. A tree that is not a git checkout is
# refused: git's list is what says which files are the sources.
# Usage: sh tools/dist.sh VERSION OUT.tar.gz (from the top of the tree)
set -eu
[ $# -eq 2 ] || { echo "usage: sh tools/dist.sh VERSION OUT.tar.gz" >&2; exit 2; }
version=$1
out=$2
die() {
    echo "dist: $*" >&2
    exit 1
}
case $version in
[0-9]*.[0-9]*.[0-9]*) ;;
*) die "no version (STAX_VERSION_MAJOR, _MINOR and _PATCH in stax.h): '$version'" ;;
esac
command -v git >/dev/null 2>&1 || die "git not found: make dist packs the files git tracks"
[ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ] ||
    die "$(pwd) is not the top of a git checkout: make dist packs the files git tracks (git ls-files)"
missing=$(git ls-files --deleted)
[ -z "$missing" ] || die "tracked files missing from the tree: $missing"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "dist: note: the tree has changes not committed; the archive holds the files as they are" >&2
fi

name=stax-$version
mkdir -p "$(dirname "$out")"
git ls-files -z |
    tar --null -T - --transform "s,^,$name/,S" --sort=name --owner=0 --group=0 --numeric-owner \
        --mtime="@$(git log -1 --format=%ct)" -cf - |
    gzip -n -9 >"$out.tmp"
mv "$out.tmp" "$out"
echo "dist: $out: $(git ls-files | wc -l) files under $name/"
