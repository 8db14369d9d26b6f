#!/bin/sh
# The library's link graph must have no cycle: each object uses symbols
# only of objects below it. Reads `nm` of the objects, prints each object's
# dependencies and the layer order (bottom first), and fails (exit 1)
# naming the objects of a cycle.
#
#   sh tools/check-layers.sh OBJ...        (make test-layers: build/obj/*.o of LIB_SRC)
set -eu
[ $# -gt 0 ] || { echo "usage: sh tools/check-layers.sh OBJ..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in "$@"; do
    b=$(basename "$o" .o)
    nm --defined-only "$o" | awk -v b="$b" 'NF == 3 && $2 ~ /^[TDBRVW]$/ { print $3, b }' >>"$tmp/defs"
    nm -u "$o" | awk -v b="$b" '{ print $NF, b }' >>"$tmp/uses"
done
sort -u "$tmp/defs" >"$tmp/defs.s"
sort -u "$tmp/uses" >"$tmp/uses.s"
# edge: user -> definer (only between the objects given)
join "$tmp/uses.s" "$tmp/defs.s" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/edges"
{ for o in "$@"; do b=$(basename "$o" .o); echo "$b $b"; done; cat "$tmp/edges"; } >"$tmp/graph"
echo "link graph (object: the objects it uses):"
for o in "$@"; do
    b=$(basename "$o" .o)
    printf '  %-14s %s\n' "$b:" "$(awk -v b="$b" '$1 == b { printf "%s ", $2 }' "$tmp/edges")"
done
# tsort prints users before what they use; a loop is reported on stderr
if ! tsort "$tmp/graph" >"$tmp/order" 2>"$tmp/err" || [ -s "$tmp/err" ]; then
    echo "check-layers: the link graph has a cycle:" >&2
    grep -v 'input contains a loop' "$tmp/err" | sed 's/^tsort: /  /' >&2
    exit 1
fi
# layers: an object's layer is one above the highest layer it uses
tac "$tmp/order" >"$tmp/bottom"
awk 'NR == FNR { dep[$1] = dep[$1] " " $2; next }
     { n = split(dep[$1], d, " "); l = 0
       for (i = 1; i <= n; i++) if (d[i] in lv && lv[d[i]] + 1 > l) l = lv[d[i]] + 1
       lv[$1] = l; at[l] = at[l] " " $1; if (l > top) top = l }
     END { print "layers, bottom first:"; for (l = 0; l <= top; l++) printf "  %d:%s\n", l, at[l] }' "$tmp/edges" "$tmp/bottom"
echo "check-layers: no cycle"
