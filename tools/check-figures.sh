#!/bin/sh
# The figures the docs and man pages give that the code decides are the
# code's, not copies that drift:
#   - the smallest fixed block, STAX_READER_MIN_MEMORY, on each platform
#     (64-bit, i386, other 32-bit targets such as ARM, with and without
#     STAX_NO_STDIO), as stax.h defines it for that platform: in stax(1)'s
#     --memory, docs/api.md, docs/embedded.md and docs/security.md. The
#     header's values are the reader's own on each platform: sizing::* runs
#     natively, on the cross targets and (through the example) bare-metal;
#   - the --memory minimum of stax(1) on 64-bit targets, as the built tool
#     reports it when a block is too small (on a 64-bit build machine);
#   - the 64-bit columns of docs/security.md's profile table, as
#     tools/profile-table.c prints them from the single file;
#   - the version in file names (stax-X.Y.Z.tar.gz, libstax.so.X.Y.Z and
#     libstax.so.X) in README.md, docs/ and the man pages, as stax.h gives it.
# The bare-metal sizes and RAM figures of docs/embedded.md are checked by
# `make test-baremetal` (tools/check-baremetal.sh), on the target.
# Usage: sh tools/check-figures.sh BUILD_DIR (from the top of the tree;
# BUILD_DIR holds the tool and the single file stax.h)
set -eu
build=${1:-build}
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-figures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
command -v perl >/dev/null 2>&1 || { echo "check-figures: perl not found" >&2; exit 2; }
fail=0
bad() {
    echo "check-figures: $*" >&2
    fail=1
}

# STAX_READER_MIN_MEMORY as stax.h defines it for a platform: ARGS are the
# compiler's -D/-U for it, PTRMAX the platform's UINTPTR_MAX.
header_min() { # PTRMAX ARGS...
    max=$1
    shift
    printf '#include <stdint.h>\n#undef UINTPTR_MAX\n#define UINTPTR_MAX %s\n#include "stax.h"\nSTAX_READER_MIN_MEMORY\n' "$max" |
        $cc -E -P -I. "$@" -x c - | tail -n 1 | sed 's/u$//'
}
m64=$(header_min 0xFFFFFFFFFFFFFFFFu -U__i386__)
m64_nostdio=$(header_min 0xFFFFFFFFFFFFFFFFu -U__i386__ -DSTAX_NO_STDIO)
i386=$(header_min 0xFFFFFFFFu -D__i386__)
i386_nostdio=$(header_min 0xFFFFFFFFu -D__i386__ -DSTAX_NO_STDIO)
arm=$(header_min 0xFFFFFFFFu -U__i386__)
arm_nostdio=$(header_min 0xFFFFFFFFu -U__i386__ -DSTAX_NO_STDIO)
for v in "$m64" "$m64_nostdio" "$i386" "$arm" "$arm_nostdio"; do
    case $v in '' | *[!0-9]*) echo "check-figures: STAX_READER_MIN_MEMORY from stax.h: '$v'" >&2; exit 1 ;; esac
done

# expect FILE WHAT REGEX VALUE...: the groups REGEX captures in FILE (commas
# of thousands removed) are the VALUEs. White space in REGEX matches any
# run of white space, line ends included.
expect() {
    file=$1 what=$2 re=$3
    shift 3
    got=$(RE="$re" perl -0777 -ne '
        (my $re = $ENV{RE}) =~ s/ /\\s+/g;
        if (/$re/) { print join(" ", map { (my $x = $_) =~ s/,//g; $x } @{^CAPTURE}) } else { print "NOT FOUND" }' "$file")
    if [ "$got" = "NOT FOUND" ]; then
        bad "$file: the sentence with $what was not found; if it was reworded, update tools/check-figures.sh"
    elif [ "$got" != "$*" ]; then
        bad "$file: $what: the page says '$got', the code '$*'"
    fi
}

expect man/stax.1 "--memory's minimum on 64-bit, 32-bit ARM and i386" \
    'at least ([0-9]+) on 64-bit targets, ([0-9]+) on 32-bit ARM and ([0-9]+) on i386' "$m64" "$arm" "$i386"
expect docs/api.md "STAX_READER_MIN_MEMORY on each platform" \
    '`STAX_READER_MIN_MEMORY`, for the full build on the target: ([0-9,]+) bytes on 64-bit targets \(([0-9,]+) with `STAX_NO_STDIO`\), ([0-9,]+) on i386, ([0-9,]+) on other 32-bit targets such as ARM \(([0-9,]+) with `STAX_NO_STDIO`\)' \
    "$m64" "$m64_nostdio" "$i386" "$arm" "$arm_nostdio"
expect docs/embedded.md "STAX_READER_MIN_MEMORY on each platform" \
    '`STAX_READER_MIN_MEMORY` is that size for every option zero: ([0-9,]+) bytes on 32-bit ARM \(([0-9,]+) with `STAX_NO_STDIO`\), ([0-9,]+) on 64-bit targets' \
    "$arm" "$arm_nostdio" "$m64"
expect docs/security.md "STAX_READER_MIN_MEMORY on i386, and what STAX_NO_STDIO saves" \
    '\(i386: ([0-9,]+) bytes; `STAX_NO_STDIO` saves ([0-9]+) bytes on 64-bit and on ARM, none on i386' \
    "$i386" "$((m64 - m64_nostdio))"
[ "$((arm - arm_nostdio))" = "$((m64 - m64_nostdio))" ] || bad "stax.h: STAX_NO_STDIO saves $((m64 - m64_nostdio)) bytes" \
    "on 64-bit, $((arm - arm_nostdio)) on ARM: docs/security.md says the same of both"
[ "$i386" = "$i386_nostdio" ] || bad "stax.h: STAX_NO_STDIO saves bytes on i386: docs/security.md says none"
expect docs/security.md "the first row of the profile table (32-bit)" \
    '\| 4 KiB \| [0-9,]+ \| [0-9,]+ \| ([0-9,]+) \|' "$arm"

# The tool's --memory minimum, and the profile table's 64-bit columns.
ptr=$(echo __SIZEOF_POINTER__ | $cc -E -P -x c - | tail -n 1)
if [ "$ptr" = 8 ]; then
    tool=$(printf '<a/>' | "$build/stax" --memory 1 check 2>&1 | sed -n 's/.*(--memory: at least \([0-9]*\) bytes).*/\1/p' || true)
    [ "$tool" = "$m64" ] || bad "stax --memory 1 says 'at least ${tool:-?} bytes'; stax.h's STAX_READER_MIN_MEMORY is $m64"
    expect man/stax.1 "--memory's minimum on 64-bit targets" 'at least ([0-9]+) on 64-bit targets' "$tool"

    $cc -std=c11 -O0 -I"$build" tools/profile-table.c -o "$tmp/profile-table" -lpthread
    "$tmp/profile-table" | sed -n '/^| [0-9]/p' | tr -d ',' | awk -F' [|] ' '{ $1 = $1; print }' >"$tmp/code"
    # the page's rows without the two 32-bit columns
    sed -n '/^| profile | 64-bit |/,/^$/p' docs/security.md | sed -n '/^| [0-9]/p' | tr -d ',' |
        awk -F' [|] ' '{ $4 = ""; $5 = ""; $1 = $1; print }' | tr -s ' ' >"$tmp/page"
    tr -s ' ' <"$tmp/code" >"$tmp/code.n"
    [ -s "$tmp/page" ] || bad "docs/security.md: no profile table (| profile | 64-bit | ...)"
    if ! diff -u "$tmp/page" "$tmp/code.n" >"$tmp/profile.diff"; then
        cat "$tmp/profile.diff" >&2
        bad "docs/security.md's profile table, 64-bit columns (-), is not what tools/profile-table.c prints (+)"
    fi
    tool_note="the tool's --memory minimum and the 64-bit profile table"
else
    tool_note="not the tool's minimum nor the 64-bit profile table: this build is not 64-bit"
fi

# Versions in file names.
ver() { sed -n "s/^#define STAX_VERSION_$1 \\([0-9]*\\)\$/\\1/p" stax.h; }
major=$(ver MAJOR)
version=$major.$(ver MINOR).$(ver PATCH)
grep -noE 'stax-[0-9]+\.[0-9]+\.[0-9]+\.tar\.gz|libstax\.so\.[0-9]+(\.[0-9]+\.[0-9]+)?' README.md docs/*.md man/stax.1 man/stax.3 |
    while IFS=: read -r f l name; do
        case $name in
        "stax-$version.tar.gz" | "libstax.so.$version" | "libstax.so.$major") ;;
        *) echo "$f:$l: $name is not version $version" ;;
        esac
    done >"$tmp/versions"
[ ! -s "$tmp/versions" ] || { cat "$tmp/versions" >&2; bad "file names with another version than stax.h's $version"; }

[ "$fail" = 0 ] || exit 1
echo "check-figures: STAX_READER_MIN_MEMORY ($m64 on 64-bit, $arm on ARM, $i386 on i386) in stax(1) and docs/;" \
    "$tool_note; version $version in file names"
