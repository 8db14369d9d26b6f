#!/bin/sh
# make dist's archive is a release that works on its own:
#   1. it holds exactly the files git tracks, under one folder stax-VERSION/
#      (nothing generated, nothing left out), and a second make dist gives
#      the same bytes;
#   2. unpacked into a scratch folder, away from this tree, it builds (`make`,
#      warnings as errors) and tests: `make unit` on the suites over the
#      fixtures, the tool and the docs' examples, then `make test-docs` and
#      `make test-man`. (-O0: the point is that the files are all there; the
#      optimized builds are tested everywhere else, and make test has a
#      budget);
#   3. the README's FetchContent project, as the README gives it, takes the
#      archive (by a file:// URL) and builds and runs, with no CMake warning
#      (CMP0135 is the one a URL gives when the policy is not set).
# It writes the archive first (tools/dist.sh). A tree that is not a git
# checkout (such as an unpacked archive) has no list of sources to pack:
# there the test says SKIPPED and passes, the way a unit test that needs the
# W3C suite is listed as skipped until the suite is fetched.
# Usage: MAKE=make sh tools/check-dist.sh VERSION ARCHIVE (from the top of the tree)
set -eu
[ $# -eq 2 ] || { echo "usage: sh tools/check-dist.sh VERSION build/stax-VERSION.tar.gz" >&2; exit 2; }
case $2 in /*) archive=$2 ;; *) archive=$(pwd)/$2 ;; esac
make=${MAKE:-make}
die() {
    echo "check-dist: $*" >&2
    exit 1
}
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" != "$(pwd -P)" ]; then
    echo "check-dist: SKIPPED: $(pwd) is not the top of a git checkout, and make dist packs the files git tracks"
    exit 0
fi
sh tools/dist.sh "$1" "$archive"
command -v cmake >/dev/null 2>&1 || die "cmake not found (run: sh tools/deps.sh test)"
# The builds below run their own make, not a part of the one that runs this.
unset MAKEFLAGS MFLAGS MAKELEVEL
jobs=${STAX_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)} # make test: one process a lane
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
name=$(basename "$archive" .tar.gz)
ver() { sed -n "s/^#define STAX_VERSION_$1 \\([0-9]*\\)\$/\\1/p" stax.h; }
version=$(ver MAJOR).$(ver MINOR).$(ver PATCH)
[ "$name" = "stax-$version" ] || die "$archive: the name is not stax-$version.tar.gz"

# Run a command quietly; on failure show the end of its output and stop.
quiet() {
    what=$1
    shift
    "$@" >"$tmp/log" 2>&1 || { tail -n 40 "$tmp/log" >&2; die "$what failed"; }
}

# 1. What it holds.
tar -tzf "$archive" | LC_ALL=C sort >"$tmp/listed"
git ls-files | sed "s,^,$name/," | LC_ALL=C sort >"$tmp/tracked"
diff -u "$tmp/tracked" "$tmp/listed" >&2 || die "the archive (+) does not hold exactly the files git tracks (-)"
for f in Makefile CMakeLists.txt stax.h README.md man/stax.1 docs/install.md tools/check-dist.sh fixtures/attrs.xml \
    tests/harness.c; do
    grep -qx "$name/$f" "$tmp/listed" || die "the archive has no $name/$f"
done
sh tools/dist.sh "$version" "$tmp/again.tar.gz" >/dev/null 2>&1 || die "make dist again failed"
cmp -s "$archive" "$tmp/again.tar.gz" || die "a second make dist gives other bytes"

# 2. A clean unpack builds and tests.
mkdir "$tmp/unpacked"
tar -xzf "$archive" -C "$tmp/unpacked"
src=$tmp/unpacked/$name
[ "$(ls "$tmp/unpacked")" = "$name" ] || die "the archive unpacks into more than $name/"
quiet "make in the unpacked archive" "$make" -C "$src" -j"$jobs" OPT=-O0 WERROR=1 all
quiet "make unit in the unpacked archive" "$make" -C "$src" -j"$jobs" OPT=-O0 WERROR=1 unit \
    "UNIT_ARGS=--filter '@(api|chunks|cli|reader_examples|writer_examples)/*'"
if grep -q '^not ok' "$src/build/unit.tap"; then die "make unit in the unpacked archive: a test failed"; fi
units=$(grep '^ok ' "$src/build/unit.tap" | grep -vc '# SKIP' || true)
[ "$units" -ge 50 ] || die "make unit in the unpacked archive ran $units tests, want the 50 and more of its suites"
quiet "make test-docs test-man in the unpacked archive" "$make" -C "$src" OPT=-O0 WERROR=1 test-docs test-man

# 3. The README's FetchContent project, on the archive.
app=$tmp/app
mkdir -p "$app/third_party"
awk '$0 == "<!-- FetchContent: tools/check-dist.sh builds it -->" { on = 1; next }
    on == 1 && $0 == "```cmake" { on = 2; next } on == 2 && /^```$/ { exit } on == 2 { print }' README.md >"$app/CMakeLists.txt"
grep -q "third_party/$name.tar.gz" "$app/CMakeLists.txt" ||
    die "the README's FetchContent project does not name third_party/$name.tar.gz"
sed -i "s|URL \${CMAKE_CURRENT_SOURCE_DIR}/third_party/$name.tar.gz|URL file://$app/third_party/$name.tar.gz|" "$app/CMakeLists.txt"
grep -q "URL file://" "$app/CMakeLists.txt" || die "the README's FetchContent project: no URL to point at the archive"
cp "$archive" "$app/third_party/"
cp tests/cmake/consumer.c "$app/app.c"
quiet "the README's FetchContent project: configure" cmake -S "$app" -B "$app/build" -DCMAKE_BUILD_TYPE=Debug
cp "$tmp/log" "$tmp/configure.log"
quiet "the README's FetchContent project: build" cmake --build "$app/build" -j "$jobs"
if grep -n 'CMP0135\|CMake Warning\|CMake Deprecation Warning' "$tmp/configure.log" >&2; then
    die "the README's FetchContent project: CMake warns (above)"
fi
out=$("$app/build/app") || die "the README's FetchContent project's program failed"
want="stax $version <count elements=\"3\"></count> stdio"
[ "$out" = "$want" ] || die "the README's FetchContent project's program printed '$out', want '$want'"

echo "check-dist: $(basename "$archive") holds the $(wc -l <"$tmp/listed") files git tracks, the same bytes twice;" \
    "unpacked, make, make unit ($units tests), test-docs and test-man pass; the README's FetchContent project" \
    "takes it with no warning"
