#!/bin/sh
# The headers' include graph must have no cycle: a header includes only
# headers below it (#include "..." lines, relative to the including file's
# folder). Prints each header's includes and fails (exit 1) naming the
# headers of a cycle.
#
#   sh tools/check-includes.sh HEADER...   (make test-layers: the library's and the tool's headers)
set -eu
[ $# -gt 0 ] || { echo "usage: sh tools/check-includes.sh HEADER..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in "$@"; do
    d=$(dirname "$h")
    echo "$h $h" >>"$tmp/graph"
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$h" | while read -r inc; do
        t="$d/$inc"
        [ -f "$t" ] || t=$inc
        echo "$h $(echo "$t" | sed 's|^\./||')"
    done >>"$tmp/graph"
done
sed -i 's|^\./||' "$tmp/graph"
echo "include graph (header: what it includes):"
awk '$1 != $2 { inc[$1] = inc[$1] " " $2 } $1 == $2 { order[++n] = $1 }
     END { for (i = 1; i <= n; i++) printf "  %-22s%s\n", order[i] ":", inc[order[i]] }' "$tmp/graph"
if ! tsort "$tmp/graph" >/dev/null 2>"$tmp/err" || [ -s "$tmp/err" ]; then
    echo "check-includes: the include graph has a cycle:" >&2
    grep -v 'input contains a loop' "$tmp/err" | sed 's/^tsort: /  /' >&2
    exit 1
fi
echo "check-includes: no cycle"
