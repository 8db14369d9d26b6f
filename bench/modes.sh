#!/bin/sh
# stax count in each reading mode beside expat, on one generated record
# document made into each mode's document: the plain read; namespace
# processing on (`--namespaces`, expat -n) with no prefix in the document;
# namespaces declared on the root and used (a default and `o:row`); one
# <!ATTLIST> for an element that never occurs; an ATTLIST with defaults for
# the record element; 2,000 references to an internal entity. Callgrind
# instructions per input byte (each mode against stax's plain read and
# against expat in the same mode), then one hyperfine run per mode.
#
#   sh bench/modes.sh         (or: make bench-modes)
#
# Environment:
#   STAX_BENCH_MIB      size of the timed record document, MiB (default 64)
#   STAX_BENCH_CG_MIB   size of the callgrind document, MiB (default 4; 0 skips callgrind)
#   STAX_BENCH_SEED     generator seed (default 1)
#   STAX_BENCH_RUNS     hyperfine --runs (default 10)
#   BUILD               build folder (default build)
#   STAX                the stax binary to measure (default $BUILD/stax, built here)
#
# Writes $BUILD/bench-modes.md. stax and expat must print the same
# elements= on every document (attributes differ where expat leaves out
# xmlns attributes or stax adds defaults) before anything counts.
set -eu

cd "$(dirname "$0")/.."
script=bench/modes.sh
. bench/lib.sh

mib=${STAX_BENCH_MIB:-64}
cg_mib=${STAX_BENCH_CG_MIB:-4}
seed=${STAX_BENCH_SEED:-1}
runs=${STAX_BENCH_RUNS:-10}
build=${BUILD:-build}
whole STAX_BENCH_MIB "$mib"
whole STAX_BENCH_CG_MIB "$cg_mib"
whole STAX_BENCH_SEED "$seed"
whole STAX_BENCH_RUNS "$runs"
[ "$mib" -gt 0 ] || die "STAX_BENCH_MIB must be at least 1"
[ "$runs" -gt 1 ] || die "STAX_BENCH_RUNS must be at least 2"

build_bench_tools
[ "$cg_mib" -eq 0 ] || command -v valgrind >/dev/null || die "valgrind is missing (sh tools/deps.sh bench)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-modes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

MODES="plain ns-on ns-used attlist attdef entity"

# make_docs MIB DIR: each mode's document in DIR/MODE.xml, from one record
# document (its line 2 a comment, line 3 the root's start tag).
make_docs() {
    "$gen" -s record "$1" "$seed" >"$2/plain.xml"
    cp "$2/plain.xml" "$2/ns-on.xml"
    sed '3s|<dataset |<dataset xmlns="urn:example:data" xmlns:o="urn:example:order" |; s|<row>|<o:row>|; s|</row>|</o:row>|' \
        "$2/plain.xml" >"$2/ns-used.xml"
    sed '2a <!DOCTYPE dataset [<!ATTLIST absent a CDATA #IMPLIED>]>' "$2/plain.xml" >"$2/attlist.xml"
    sed '2a <!DOCTYPE dataset [<!ATTLIST row kind CDATA "order" state (open|closed) "open">]>' "$2/plain.xml" >"$2/attdef.xml"
    awk 'NR == 2 { print; print "<!DOCTYPE dataset [<!ENTITY co \"example.com\">]>"; next }
         n < 2000 && /example\.com/ { sub(/example\.com/, "\\&co;"); n++ } { print }' "$2/plain.xml" >"$2/entity.xml"
    [ "$(grep -c '&co;' "$2/entity.xml")" = 2000 ] || die "the entity document has not 2000 references"
}

# The stax and expat flags of a mode.
ns_flag() { case $1 in ns-*) echo "$2" ;; esac; }

# check DIR MODE: stax and expat count the same elements.
check() {
    s=$("$stax" count $(ns_flag "$2" --namespaces) "$1/$2.xml" | tr ' ' '\n' | grep '^elements=')
    e=$("$expat" $(ns_flag "$2" -n) "$1/$2.xml" | tr ' ' '\n' | grep '^elements=')
    [ -n "$s" ] && [ "$s" = "$e" ] || die "$2: stax says '$s', expat '$e'"
}

insns() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*refs: *//p' | tr -d ,; }

out=$build/bench-modes.md
{
    echo "# stax count by reading mode"
    echo
    echo "$(machine_line); $(versions_line)"
    echo
    echo "Command: \`STAX_BENCH_MIB=$mib STAX_BENCH_CG_MIB=$cg_mib STAX_BENCH_SEED=$seed STAX_BENCH_RUNS=$runs make bench-modes\`"
    echo
} >"$out"

if [ "$cg_mib" -gt 0 ]; then
    mkdir -p "$tmp/cg"
    make_docs "$cg_mib" "$tmp/cg"
    {
        echo "Callgrind, $cg_mib MiB record document made into each mode's (instructions per input byte):"
        echo
        echo "| mode | stax ins/B | vs the plain read | expat ins/B (same mode) | expat ÷ stax | expat plain ÷ stax |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: |"
    } >>"$out"
    plain_s= plain_e=
    for m in $MODES; do
        check "$tmp/cg" "$m"
        b=$(wc -c <"$tmp/cg/$m.xml")
        s=$(insns "$stax" count $(ns_flag "$m" --namespaces) "$tmp/cg/$m.xml")
        e=$(insns "$expat" $(ns_flag "$m" -n) "$tmp/cg/$m.xml")
        [ -n "$plain_s" ] || { plain_s=$s; plain_e=$e; }
        awk -v m="$m" -v s="$s" -v e="$e" -v b="$b" -v ps="$plain_s" -v pe="$plain_e" 'BEGIN {
            printf "| %s | %.2f | %.2fx | %.2f | %.2fx | %.2fx |\n", m, s / b, s / ps, e / b, e / s, pe / s }' >>"$out"
        echo "$script: $m: stax $s, expat $e instructions" >&2
    done
    echo >>"$out"
fi

mkdir -p "$tmp/t"
make_docs "$mib" "$tmp/t"
{
    echo "hyperfine, $mib MiB (\`--warmup 2 --runs $runs\`), mean time, expat ÷ stax:"
    echo
    echo "| mode | stax | expat | expat ÷ stax |"
    echo "| --- | ---: | ---: | ---: |"
} >>"$out"
for m in $MODES; do
    check "$tmp/t" "$m"
    hyperfine -N --warmup 2 --runs "$runs" --export-json "$tmp/$m.json" \
        -n stax "$stax count $(ns_flag "$m" --namespaces) $tmp/t/$m.xml" \
        -n expat "$expat $(ns_flag "$m" -n) $tmp/t/$m.xml" >&2
    awk -v m="$m" '/"command": "stax"/ { c = "s" } /"command": "expat"/ { c = "e" }
        /"mean":/ { gsub(/[,]/, ""); t[c] = $2 }
        END { printf "| %s | %.1f ms | %.1f ms | %.2fx |\n", m, t["s"] * 1000, t["e"] * 1000, t["e"] / t["s"] }' \
        "$tmp/$m.json" >>"$out"
done
cat "$out"
