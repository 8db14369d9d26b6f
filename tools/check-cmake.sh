#!/bin/sh
# The CMake build and package (CMakeLists.txt, cmake/), against the Makefile's:
#   1. CMake builds the libraries and the tool with the Makefile's flags: the
#      same file names, soname and exported symbols, a tool that runs;
#      `cmake --install` into a scratch DESTDIR installs the files `make
#      install` installs, and the same stax.pc, package files and man pages
#      (which name the installed docs); both build the same library sources;
#   2. the consumer project tests/cmake/ is built and run four ways:
#      find_package(stax 0.1 REQUIRED) against a `make install` DESTDIR tree
#      and against the `cmake --install` one (the shared, static and default
#      targets), add_subdirectory of this tree, and FetchContent of an archive
#      of it (from a local path, no network; with STAX_NO_STDIO, STAX_NO_DTD
#      and STAX_NO_NAMESPACES on);
#   3. the version file accepts and refuses what it should.
# Usage: MAKE=make sh tools/check-cmake.sh BUILD_DIR (from the top of the tree)
set -eu
build=${1:-build}
make=${MAKE:-make}
command -v cmake >/dev/null 2>&1 || { echo "check-cmake: cmake not found (run: sh tools/deps.sh test)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-cmake.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
die() {
    echo "check-cmake: $*" >&2
    exit 1
}
# CMake's builds run their own make, not a part of the one that runs this.
unset MAKEFLAGS MFLAGS MAKELEVEL
jobs=${STAX_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}  # make test: one process a lane
top=$(pwd)
ver() { sed -n "s/^#define STAX_VERSION_$1 \\([0-9]*\\)\$/\\1/p" stax.h; }
major=$(ver MAJOR)
version=$major.$(ver MINOR).$(ver PATCH)

# Run a command quietly; on failure show its output and stop.
quiet() {
    what=$1
    shift
    "$@" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; die "$what failed"; }
}

# 1. The CMake build of this tree, and its install.
quiet "cmake configure" cmake -S . -B "$tmp/self" -DSTAX_WERROR=ON -DCMAKE_INSTALL_LIBDIR=lib
quiet "cmake --build" cmake --build "$tmp/self" -j "$jobs"
for f in libstax.a "libstax.so.$version"; do [ -f "$tmp/self/$f" ] || die "the CMake build has no $f"; done
[ "$(readlink "$tmp/self/libstax.so.$major")" = "libstax.so.$version" ] || die "libstax.so.$major is not a link to libstax.so.$version"
soname=$(readelf -d "$tmp/self/libstax.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libstax.so.$major" ] || die "the CMake build's soname is '$soname'"
exports() { nm -D --defined-only "$1" | awk '{ print $NF }' | sed 's/@.*//' | sort -u; }
exports "$build/libstax.so" >"$tmp/make.exports"
exports "$tmp/self/libstax.so.$version" >"$tmp/cmake.exports"
diff -u "$tmp/make.exports" "$tmp/cmake.exports" >&2 || die "the two shared libraries export different symbols (- make, + cmake)"
[ "$("$tmp/self/stax" --version)" = "stax $version" ] || die "the CMake-built tool's --version"
[ "$(printf '<a><b/></a>' | "$tmp/self/stax" count | sed 's/ .*//')" = elements=2 ] || die "the CMake-built tool cannot count"

quiet "make install" "$make" --no-print-directory install BUILD="$build" DESTDIR="$tmp/make-stage" PREFIX=/usr
DESTDIR=$tmp/cmake-stage quiet "cmake --install" cmake --install "$tmp/self" --prefix /usr
(cd "$tmp/make-stage" && find . ! -type d | LC_ALL=C sort) >"$tmp/make.files"
(cd "$tmp/cmake-stage" && find . ! -type d | LC_ALL=C sort) >"$tmp/cmake.files"
grep -qx ./usr/lib/cmake/stax/staxConfig.cmake "$tmp/make.files" || die "make install installs no staxConfig.cmake"
grep -qx ./usr/lib/cmake/stax/staxConfigVersion.cmake "$tmp/make.files" || die "make install installs no staxConfigVersion.cmake"
diff -u "$tmp/make.files" "$tmp/cmake.files" >&2 || die "make install (-) and cmake --install (+) install different files"
for f in usr/lib/pkgconfig/stax.pc usr/lib/cmake/stax/staxConfig.cmake usr/lib/cmake/stax/staxConfigVersion.cmake \
    usr/share/man/man1/stax.1 usr/share/man/man3/stax.3; do
    diff -u "$tmp/make-stage/$f" "$tmp/cmake-stage/$f" >&2 || die "$f differs between make install (-) and cmake --install (+)"
done

# The library's sources: the Makefile's LIB_SRC, and CMakeLists.txt's list.
sed -n 's/^LIB_SRC = //p' Makefile | tr ' ' '\n' | sed '/^$/d' | sort >"$tmp/make.src"
sed -n '/^set(_stax_sources /,/)/p' CMakeLists.txt | sed 's/set(_stax_sources//; s/)//' | tr ' ' '\n' | sed '/^$/d' |
    sort >"$tmp/cmake.src"
[ -s "$tmp/make.src" ] && [ -s "$tmp/cmake.src" ] || die "no library sources found in the Makefile or CMakeLists.txt"
diff -u "$tmp/make.src" "$tmp/cmake.src" >&2 || die "the Makefile (-) and CMakeLists.txt (+) build different library sources"

# 2. The consumer, each way; what it must print.
want="stax $version <count elements=\"3\"></count>"
consume() {
    name=$1
    shift
    quiet "the consumer ($name): configure" cmake -S tests/cmake -B "$tmp/$name" "$@"
    quiet "the consumer ($name): build" cmake --build "$tmp/$name" -j "$jobs"
}
check_run() {
    out=$("$1") || die "$1 failed"
    [ "$out" = "$2" ] || die "$1 printed '$out', want '$2'"
}
for stage in make-stage cmake-stage; do
    consume "find-$stage" -DSTAX_HOW=find_package -DCMAKE_PREFIX_PATH="$tmp/$stage/usr"
    d=$tmp/find-$stage
    for exe in consumer consumer_shared consumer_static; do check_run "$d/$exe" "$want stdio"; done
    # stax::stax is the installed shared library, loaded from the staged tree;
    # stax::stax_static needs nothing at run time.
    ldd "$d/consumer" | grep -q "libstax.so.$major => $tmp/$stage/usr/lib/libstax.so.$major" ||
        die "find_package ($stage): the consumer does not load the staged libstax.so.$major"
    if readelf -d "$d/consumer_static" | grep -q 'NEEDED.*libstax'; then die "stax::stax_static links the shared library"; fi
done

consume subdirectory -DSTAX_HOW=add_subdirectory -DSTAX_SOURCE="$top" -DCMAKE_BUILD_TYPE=Debug
check_run "$tmp/subdirectory/consumer" "$want stdio"
[ ! -e "$tmp/subdirectory/stax/stax" ] || die "add_subdirectory built the tool"

# An archive of the tree as a release would hold it (no build folders, no .git).
(cd .. && tar -czf "$tmp/stax-src.tar.gz" --exclude=.git --exclude="$(basename "$top")/build" \
    --exclude="$(basename "$top")/$build" "$(basename "$top")")
sha=$(sha256sum "$tmp/stax-src.tar.gz" | cut -d' ' -f1)
consume fetch -DSTAX_HOW=FetchContent -DSTAX_URL="file://$tmp/stax-src.tar.gz" -DSTAX_SHA256="$sha" \
    -DCMAKE_BUILD_TYPE=Debug
check_run "$tmp/fetch/consumer" "$want no stdio"
if find "$tmp/fetch" -name 'libstax.so*' | grep -q .; then die "FetchContent with STAX_BUILD_SHARED OFF built the shared library"; fi

# 3. The version file: the same major version, not above the installed one.
cat >"$tmp/version.cmake" <<'EOF'
function(try request expect)
    unset(PACKAGE_VERSION_COMPATIBLE)
    unset(PACKAGE_VERSION_UNSUITABLE)
    set(PACKAGE_FIND_VERSION_RANGE "")
    if(request MATCHES "^([0-9.]+)\\.\\.\\.(<?)([0-9.]+)$")
        set(PACKAGE_FIND_VERSION_RANGE "${request}")
        set(PACKAGE_FIND_VERSION_MIN "${CMAKE_MATCH_1}")
        set(PACKAGE_FIND_VERSION_MAX "${CMAKE_MATCH_3}")
        set(PACKAGE_FIND_VERSION "${CMAKE_MATCH_1}")
        if(CMAKE_MATCH_2 STREQUAL "<")
            set(PACKAGE_FIND_VERSION_RANGE_MAX EXCLUDE)
        else()
            set(PACKAGE_FIND_VERSION_RANGE_MAX INCLUDE)
        endif()
        string(REGEX REPLACE "\\..*" "" PACKAGE_FIND_VERSION_MIN_MAJOR "${PACKAGE_FIND_VERSION_MIN}")
    else()
        set(PACKAGE_FIND_VERSION "${request}")
    endif()
    string(REGEX REPLACE "\\..*" "" PACKAGE_FIND_VERSION_MAJOR "${PACKAGE_FIND_VERSION}")
    include("${FILE}")
    if(PACKAGE_VERSION_UNSUITABLE)
        set(PACKAGE_VERSION_COMPATIBLE FALSE)
    endif()
    if(NOT PACKAGE_VERSION_COMPATIBLE STREQUAL expect)
        message(FATAL_ERROR "find_package(stax ${request}) against ${PACKAGE_VERSION}: compatible is ${PACKAGE_VERSION_COMPATIBLE}, want ${expect}")
    endif()
endfunction()
set(CMAKE_SIZEOF_VOID_P 8)
math(EXPR next_minor "${MINOR} + 1")
math(EXPR next_major "${MAJOR} + 1")
try("" TRUE)
try("${MAJOR}" TRUE)
try("${MAJOR}.${MINOR}" TRUE)
try("${MAJOR}.${MINOR}.${PATCH}" TRUE)
try("${MAJOR}.${MINOR}...${next_major}.0" TRUE)
try("${MAJOR}.0...<${MAJOR}.${MINOR}" FALSE)
try("${MAJOR}.${next_minor}" FALSE)
try("${next_major}.0" FALSE)
set(CMAKE_SIZEOF_VOID_P 4)
try("${MAJOR}.${MINOR}" FALSE)
EOF
for stage in make-stage cmake-stage; do
    quiet "the version file ($stage)" cmake -DFILE="$tmp/$stage/usr/lib/cmake/stax/staxConfigVersion.cmake" \
        -DMAJOR="$major" -DMINOR="$(ver MINOR)" -DPATCH="$(ver PATCH)" -P "$tmp/version.cmake"
done

echo "check-cmake: the CMake build matches the Makefile's (files, soname, exports, install);" \
    "find_package against make install and cmake --install, add_subdirectory and FetchContent build and run"
