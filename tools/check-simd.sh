#!/bin/sh
# The library's SIMD is behind one layer: intrinsics and their headers
# appear in scan.h alone (the block types and their operations), and every
# kernel is written on those types. Fails (exit 1) naming each other file
# and line that uses an x86 (_mm_*, _mm256_*, _mm512_*) or NEON (v*q_u8 and
# kin) intrinsic or includes their headers.
#
#   sh tools/check-simd.sh FILE...          (make test-layers: LIB_SRC and LIB_HDR)
set -eu
[ $# -gt 0 ] || { echo "usage: sh tools/check-simd.sh FILE..." >&2; exit 2; }
bad=0
for f in "$@"; do
    [ "$(basename "$f")" = scan.h ] && continue
    if grep -nE '_mm(256|512)?_[a-z]|\bv[a-z0-9]+q?_[usfp](8|16|32|64)\b|[a-z]+intrin\.h|arm_neon\.h' "$f" >/dev/null; then
        grep -nE '_mm(256|512)?_[a-z]|\bv[a-z0-9]+q?_[usfp](8|16|32|64)\b|[a-z]+intrin\.h|arm_neon\.h' "$f" |
            sed "s|^|check-simd: $f:|" >&2
        bad=1
    fi
done
[ $bad = 0 ] || { echo "check-simd: SIMD outside scan.h: write it on the block types of scan.h" >&2; exit 1; }
echo "check-simd: intrinsics in scan.h alone ($# files read)"
