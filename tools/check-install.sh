#!/bin/sh
# `make install` gives a tree a distribution could package, and programs build
# against it with pkg-config alone:
#   1. install into a scratch DESTDIR with PREFIX=/usr; check the exact list of
#      files, the links, the modes, the soname and stax.pc, and that the docs
#      the installed man pages name are installed where they say;
#   2. build tests/install_demo.c with `pkg-config --cflags --libs stax` and run
#      it on the staged shared library (LD_LIBRARY_PATH), then with
#      `pkg-config --static` and -static, and run the installed tool;
#   3. install again with other LIBDIR/BINDIR/INCLUDEDIR/MANDIR/DOCDIR and build there
#      (tools/check-cmake.sh builds against the CMake package);
#   4. `make uninstall` leaves no file behind.
# Usage: MAKE=make sh tools/check-install.sh BUILD_DIR (from the top of the tree)
set -eu
build=${1:-build}
make=${MAKE:-make}
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
die() {
    echo "check-install: $*" >&2
    exit 1
}

ver() { sed -n "s/^#define STAX_VERSION_$1 \\([0-9]*\\)\$/\\1/p" stax.h; }
major=$(ver MAJOR)
version=$major.$(ver MINOR).$(ver PATCH)
so=libstax.so.$version

stage=$tmp/stage
$make --no-print-directory install BUILD="$build" DESTDIR="$stage" PREFIX=/usr >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; die "make install failed"; }

# 1. The tree.
{
    cat <<EOF
./usr/bin/stax
./usr/include/stax.h
./usr/lib/cmake/stax/staxConfig.cmake
./usr/lib/cmake/stax/staxConfigVersion.cmake
./usr/lib/libstax.a
./usr/lib/libstax.so
./usr/lib/libstax.so.$major
./usr/lib/$so
./usr/lib/pkgconfig/stax.pc
./usr/share/doc/stax/README.md
./usr/share/man/man1/stax.1
./usr/share/man/man3/stax.3
EOF
    for f in docs/*.md; do echo "./usr/share/doc/stax/$f"; done
} | LC_ALL=C sort >"$tmp/want"
(cd "$stage" && find . ! -type d | LC_ALL=C sort) >"$tmp/got"
diff -u "$tmp/want" "$tmp/got" >&2 || die "the installed files are not the expected ones (- expected, + installed)"

lib=$stage/usr/lib
[ "$(readlink "$lib/libstax.so")" = "libstax.so.$major" ] || die "libstax.so does not link to libstax.so.$major"
[ "$(readlink "$lib/libstax.so.$major")" = "$so" ] || die "libstax.so.$major does not link to $so"
for f in usr/bin/stax usr/lib/$so; do
    [ "$(stat -c %a "$stage/$f")" = 755 ] || die "$f is mode $(stat -c %a "$stage/$f"), want 755"
done
for f in usr/include/stax.h usr/lib/libstax.a usr/lib/pkgconfig/stax.pc usr/share/man/man1/stax.1 \
    usr/share/man/man3/stax.3 usr/lib/cmake/stax/staxConfig.cmake usr/lib/cmake/stax/staxConfigVersion.cmake \
    usr/share/doc/stax/README.md usr/share/doc/stax/docs/api.md; do
    [ "$(stat -c %a "$stage/$f")" = 644 ] || die "$f is mode $(stat -c %a "$stage/$f"), want 644"
done
for f in README.md docs/*.md; do
    cmp -s "$f" "$stage/usr/share/doc/stax/$f" || die "the installed $f is not $f"
done
# The man pages name the docs where they are installed, and they are there.
# pages DIR DOCDIR: every path the installed pages name under DOCDIR
pages_docs() {
    for page in "$1"/man1/stax.1 "$1"/man3/stax.3; do
        if grep -n 'Pa docs/' "$page" >&2; then die "$page names docs/ of the source tree (above), not the installed docs"; fi
        grep -o "Pa $2/[^ ]*" "$page" | sed 's/^Pa //'
    done | sort -u
}
pages_docs "$stage/usr/share/man" /usr/share/doc/stax >"$tmp/named"
grep -q 'api.md$' "$tmp/named" || die "the installed stax(3) does not name /usr/share/doc/stax/docs/api.md"
while read -r f; do [ -f "$stage$f" ] || die "the installed man pages name $f, which is not installed"; done <"$tmp/named"
soname=$(readelf -d "$lib/$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libstax.so.$major" ] || die "soname '$soname', want libstax.so.$major"
cmp -s stax.h "$stage/usr/include/stax.h" || die "the installed stax.h is not stax.h"

export PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_LIBDIR=
[ "$(pkg-config --modversion stax)" = "$version" ] || die "pkg-config --modversion stax is not $version"
grep -qx 'prefix=/usr' "$lib/pkgconfig/stax.pc" || die "stax.pc: prefix is not /usr"

# 2. Programs against the staged tree, shared then static.
flags=$(pkg-config --cflags --libs stax)
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -Werror -o "$tmp/demo" tests/install_demo.c $flags || die "cc with '$flags' failed"
readelf -d "$tmp/demo" | grep -q "(NEEDED).*\[libstax.so.$major\]" || die "the demo does not need libstax.so.$major"
want_out="<stax version=\"$version\">мир</stax>"
out=$(LD_LIBRARY_PATH="$lib" "$tmp/demo") || die "the demo failed on the shared library"
[ "$out" = "$want_out" ] || die "shared demo printed '$out', want '$want_out'"
LD_LIBRARY_PATH="$lib" ldd "$tmp/demo" | grep -q "libstax.so.$major => $lib/" || die "the demo did not load $lib/libstax.so.$major"

sflags=$(pkg-config --cflags --libs --static stax)
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -Werror -static -o "$tmp/demo-static" tests/install_demo.c $sflags ||
    die "cc -static with '$sflags' failed"
if readelf -d "$tmp/demo-static" 2>/dev/null | grep -q NEEDED; then die "the -static demo needs shared libraries"; fi
out=$("$tmp/demo-static") || die "the static demo failed"
[ "$out" = "$want_out" ] || die "static demo printed '$out', want '$want_out'"

[ "$("$stage/usr/bin/stax" --version)" = "stax $version" ] || die "the installed tool's --version is not 'stax $version'"
[ "$(printf '<a><b/></a>' | "$stage/usr/bin/stax" count | sed 's/ .*//')" = elements=2 ] || die "the installed tool cannot count"

# 3. Other directories, as a multiarch distribution would choose them.
alt=$tmp/alt
$make --no-print-directory install BUILD="$build" DESTDIR="$alt" PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu \
    INCLUDEDIR=/usr/include/stax BINDIR=/usr/games MANDIR=/usr/man DOCDIR=/usr/share/doc/libstax-dev >"$tmp/install2.log" 2>&1 ||
    { cat "$tmp/install2.log" >&2; die "make install with other directories failed"; }
for f in usr/lib/x86_64-linux-gnu/$so usr/lib/x86_64-linux-gnu/pkgconfig/stax.pc usr/include/stax/stax.h \
    usr/games/stax usr/man/man1/stax.1 usr/man/man3/stax.3 usr/lib/x86_64-linux-gnu/cmake/stax/staxConfig.cmake \
    usr/share/doc/libstax-dev/README.md usr/share/doc/libstax-dev/docs/embedded.md; do
    [ -f "$alt/$f" ] || die "with other directories, $f is missing"
done
pages_docs "$alt/usr/man" /usr/share/doc/libstax-dev >"$tmp/named-alt"
grep -q 'api.md$' "$tmp/named-alt" || die "with DOCDIR, the installed stax(3) does not name DOCDIR/docs/api.md"
while read -r f; do [ -f "$alt$f" ] || die "with DOCDIR, the man pages name $f, which is not installed"; done <"$tmp/named-alt"
flags=$(PKG_CONFIG_PATH="$alt/usr/lib/x86_64-linux-gnu/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$alt" pkg-config --cflags --libs stax)
# shellcheck disable=SC2086
$cc -std=c11 -o "$tmp/demo-alt" tests/install_demo.c $flags || die "cc with '$flags' failed (other directories)"
out=$(LD_LIBRARY_PATH="$alt/usr/lib/x86_64-linux-gnu" "$tmp/demo-alt") || die "the demo failed (other directories)"
[ "$out" = "$want_out" ] || die "demo printed '$out' (other directories)"
# The CMake package finds stax.h from its own folder.
# shellcheck disable=SC2016
grep -q '"${_stax_dir}/../../../../include/stax"' "$alt/usr/lib/x86_64-linux-gnu/cmake/stax/staxConfig.cmake" ||
    die "with other directories, staxConfig.cmake does not point at usr/include/stax"

# 4. Uninstall.
for d in "$stage" "$alt"; do
    extra=
    [ "$d" = "$alt" ] && extra="LIBDIR=/usr/lib/x86_64-linux-gnu INCLUDEDIR=/usr/include/stax BINDIR=/usr/games MANDIR=/usr/man \
        DOCDIR=/usr/share/doc/libstax-dev"
    # shellcheck disable=SC2086
    $make --no-print-directory uninstall BUILD="$build" DESTDIR="$d" PREFIX=/usr $extra >/dev/null
    left=$(cd "$d" && find . ! -type d)
    [ -z "$left" ] || die "make uninstall left: $left"
    for docdir in usr/share/doc/stax usr/share/doc/libstax-dev; do
        [ ! -d "$d/$docdir" ] || die "make uninstall left the folder $docdir"
    done
done

echo "check-install: make install (DESTDIR, PREFIX=/usr and other directories; the docs where the man pages say)," \
    "pkg-config shared and --static, uninstall"
