#!/bin/sh
# stax count beside expat, libxml2 and pugixml on documents of each shape
# `build/gen -l` lists (record, attrs, text, deep, mixed, nonascii and the
# generated mixed dump): one hyperfine run per shape, then callgrind
# instruction counts per input byte on a smaller document of each shape, and
# a table of the reader's targets (the reader v3 issue's).
#
#   sh bench/shapes.sh         (or: make bench-shapes)
#
# Environment:
#   STAX_BENCH_MIB      size of each timed document, MiB (default 64)
#   STAX_BENCH_CG_MIB   size of each callgrind document, MiB (default 8, or
#                       STAX_BENCH_MIB when that is smaller; 0 skips callgrind)
#   STAX_BENCH_SEED     generator seed (default 1)
#   STAX_BENCH_RUNS     hyperfine --runs (default 10)
#   STAX_BENCH_SHAPES   the shapes to run, separated by spaces (default: all)
#   STAX_BENCH_CHECK    1: only check the documents (exact size, the same bytes
#                       for the same seed, the four programs agree) and time
#                       nothing (make bench-check; default 0)
#   BUILD               build folder (default build)
#   STAX                the stax binary to measure (default $BUILD/stax, built here)
#
# Writes $BUILD/bench-shapes.md (the tables, the commands, the machine) and
# hyperfine's JSON export of each shape in $BUILD/bench-shapes/SHAPE.json.
# Every program must print the same elements= and attributes= on every
# document before its time or instructions count.
set -eu

cd "$(dirname "$0")/.."
script=bench/shapes.sh
. bench/lib.sh

mib=${STAX_BENCH_MIB:-64}
cg_mib=${STAX_BENCH_CG_MIB:-}
seed=${STAX_BENCH_SEED:-1}
runs=${STAX_BENCH_RUNS:-10}
check_only=${STAX_BENCH_CHECK:-0}
build=${BUILD:-build}
whole STAX_BENCH_MIB "$mib"
[ -z "$cg_mib" ] || whole STAX_BENCH_CG_MIB "$cg_mib"
whole STAX_BENCH_SEED "$seed"
whole STAX_BENCH_RUNS "$runs"
[ "$mib" -gt 0 ] || die "STAX_BENCH_MIB must be at least 1"
[ -n "$cg_mib" ] || cg_mib=$((mib < 8 ? mib : 8))
[ "$runs" -gt 1 ] || die "STAX_BENCH_RUNS must be at least 2"
case $check_only in 0 | 1) ;; *) die "STAX_BENCH_CHECK must be 0 or 1, not '$check_only'" ;; esac

build_bench_tools
shapes=${STAX_BENCH_SHAPES:-$("$gen" -l)}
for shape in $shapes; do
    "$gen" -l | grep -qx -- "$shape" || die "no shape '$shape' (build/gen -l lists them)"
done
[ "$cg_mib" -eq 0 ] || [ "$check_only" = 1 ] || command -v valgrind >/dev/null || die "valgrind is missing (sh tools/deps.sh bench)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-shapes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
doc=$tmp/doc.xml
json_dir=$build/bench-shapes
mkdir -p "$json_dir"
: >"$tmp/speed.tsv"
: >"$tmp/instructions.tsv"
: >"$tmp/runs.md"

# check_counts FILE: every program prints the same counts on FILE; prints them.
check_counts() {
    "$stax" count "$1" >"$tmp/counts" || die "stax count failed on $1"
    want=$(counts_of <"$tmp/counts")
    case $want in elements=*' 'attributes=*) ;; *) die "stax count printed no counts on $1" ;; esac
    for peer in "$expat" "$libxml2" "$pugixml"; do
        "$peer" "$1" >"$tmp/counts" || die "$(basename "$peer") failed on $1"
        got=$(counts_of <"$tmp/counts")
        [ "$got" = "$want" ] || die "counts differ on $1: stax: $want; $(basename "$peer"): $got"
    done
    echo "$want"
}

# generate SHAPE MIB: the document in $doc, checked for its size.
generate() {
    "$gen" -s "$1" "$2" "$seed" >"$doc" || die "gen -s $1 $2 $seed failed"
    size=$(wc -c <"$doc")
    [ "$size" -eq $(($2 * 1048576)) ] || die "gen -s $1 $2 $seed wrote $size bytes"
}

if [ "$check_only" = 1 ]; then
    for shape in $shapes; do
        generate "$shape" "$mib"
        "$gen" -s "$shape" "$mib" "$seed" | cmp -s - "$doc" || die "gen -s $shape: other bytes the second time"
        counts=$(check_counts "$doc")
        echo "== $shape: $mib MiB, the same bytes twice, all four count $counts"
    done
    exit 0
fi

for shape in $shapes; do
    echo "== $shape: generating $mib MiB (seed $seed)"
    generate "$shape" "$mib"
    counts=$(check_counts "$doc")
    echo "== $shape: all four count $counts"
    hyperfine -N --warmup 2 --runs "$runs" --style basic --export-json "$json_dir/$shape.json" \
        --export-csv "$tmp/$shape.csv" --export-markdown "$tmp/$shape.md" \
        -n stax "'$stax' count '$doc'" -n expat "'$expat' '$doc'" \
        -n libxml2 "'$libxml2' '$doc'" -n pugixml "'$pugixml' '$doc'"
    # CSV: command,mean,stddev,median,user,system,min,max (seconds).
    awk -F, -v shape="$shape" -v counts="$counts" '
        NR > 1 { mean[$1] = $2 }
        END { printf "%s\t%s\t%s\t%s\t%s\t%s\n", shape, counts, mean["stax"], mean["expat"], mean["libxml2"], mean["pugixml"] }
    ' "$tmp/$shape.csv" >>"$tmp/speed.tsv"
    {
        echo "### $shape"
        echo
        echo "\`gen -s $shape $mib $seed\`: $counts."
        echo
        cat "$tmp/$shape.md"
        echo
    } >>"$tmp/runs.md"
    rm -f "$doc"
done

# instructions PROGRAM ARGS...: callgrind's instruction count of one run.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" </dev/null >/dev/null 2>"$tmp/cg-err" ||
        die "callgrind: $* failed: $(tail -n 3 "$tmp/cg-err")"
    awk '/Collected :/ { n = $NF } END { if (n == "") exit 1; print n }' "$tmp/cg-err" ||
        die "callgrind: no instruction count from $*"
}

if [ "$cg_mib" -gt 0 ]; then
    for shape in $shapes; do
        echo "== $shape: callgrind on $cg_mib MiB"
        generate "$shape" "$cg_mib"
        check_counts "$doc" >/dev/null
        echo "   instructions of stax, expat, libxml2, pugixml:"
        ir_stax=$(instructions "$stax" count "$doc")
        ir_expat=$(instructions "$expat" "$doc")
        ir_libxml2=$(instructions "$libxml2" "$doc")
        ir_pugixml=$(instructions "$pugixml" "$doc")
        echo "   $ir_stax $ir_expat $ir_libxml2 $ir_pugixml"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$shape" "$(wc -c <"$doc")" "$ir_stax" "$ir_expat" "$ir_libxml2" \
            "$ir_pugixml" >>"$tmp/instructions.tsv"
        rm -f "$doc"
    done
fi

# The tables, from speed.tsv (shape, counts, mean seconds of stax, expat,
# libxml2, pugixml) and instructions.tsv (shape, bytes, instructions of the same four).
tables=$(awk -F'\t' -v mib="$mib" -v cg_mib="$cg_mib" '
    function x(v) { return sprintf("%.2f×", v) }
    function target(v, ok, goal) { return sprintf("%s %s", v, ok ? "✓" : "✗ (" goal ")") }
    FILENAME == ARGV[1] { order[++n] = $1; counts[$1] = $2; s[$1] = $3; e[$1] = $4; l[$1] = $5; p[$1] = $6; next }
    { bytes[$1] = $2; is[$1] = $3; ie[$1] = $4; il[$1] = $5; ip[$1] = $6 }
    END {
        print "## Speed: MiB/s (hyperfine mean of each, " mib " MiB a shape) and stax'"'"'s speed ÷ each peer'"'"'s"
        print ""
        print "| shape | stax | expat | libxml2 | pugixml | ÷ expat | ÷ libxml2 | ÷ pugixml |"
        print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        for (i = 1; i <= n; i++) {
            k = order[i]
            printf "| %s | %.0f | %.0f | %.0f | %.0f | %s | %s | %s |\n", k, mib / s[k], mib / e[k], mib / l[k], mib / p[k], x(e[k] / s[k]), x(l[k] / s[k]), x(p[k] / s[k])
        }
        if (cg_mib > 0) {
            print ""
            print "## Instructions per input byte (callgrind, " cg_mib " MiB a shape) and expat'"'"'s ÷ stax'"'"'s"
            print ""
            print "| shape | stax | expat | libxml2 | pugixml | expat ÷ stax | libxml2 ÷ stax | pugixml ÷ stax |"
            print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
            for (i = 1; i <= n; i++) {
                k = order[i]
                b = bytes[k]
                printf "| %s | %.1f | %.1f | %.1f | %.1f | %s | %s | %s |\n", k, is[k] / b, ie[k] / b, il[k] / b, ip[k] / b, x(ie[k] / is[k]), x(il[k] / is[k]), x(ip[k] / is[k])
            }
        }
        print ""
        print "## Targets (the reader v3 issue): ✓ met, ✗ missed, – does not apply"
        print ""
        print "| shape | speed ≥ 5× expat | the generated document: ≥ 7× | ≥ 6× fewer instructions than expat | records and the generated document: ≥ 8× fewer | < 3 instructions a byte |"
        print "| --- | --- | --- | --- | --- | --- |"
        for (i = 1; i <= n; i++) {
            k = order[i]
            sx = e[k] / s[k]
            row = "| " k " | " target(x(sx), sx >= 5, "5×")
            if (cg_mib > 0) { ix = ie[k] / is[k]; ib = is[k] / bytes[k] }
            row = row " | " (k == "mixed-dump" ? target(x(sx), sx >= 7, "7×") : "–")
            row = row " | " (cg_mib > 0 ? target(x(ix), ix >= 6, "6×") : "not measured")
            strict = k == "record" || k == "mixed-dump"
            row = row " | " (!strict ? "–" : cg_mib > 0 ? target(x(ix), ix >= 8, "8×") : "not measured")
            light = k == "text" || k == "nonascii"
            row = row " | " (!light ? "–" : cg_mib > 0 ? target(sprintf("%.2f", ib), ib < 3, "< 3") : "not measured")
            print row " |"
        }
    }
' "$tmp/speed.tsv" "$tmp/instructions.tsv")

commit=$(git describe --always --dirty 2>/dev/null) || commit=
{
    echo "# stax beside expat, libxml2 and pugixml, by document shape"
    echo
    echo "$(date -u +%Y-%m-%d), commit ${commit:-?}; $(machine_line)."
    echo "$(versions_line)."
    echo "Timed: \`hyperfine -N --warmup 2 --runs $runs\`, one run a shape over the four programs reading the"
    echo "same $mib MiB file (\`build/gen -s SHAPE $mib $seed\`); MiB/s from the mean time, process start and"
    echo "(for pugixml) building the whole tree included. Instructions: \`valgrind --tool=callgrind\` on"
    echo "\`build/gen -s SHAPE $cg_mib $seed\`, the whole process (start-up included)."
    echo
    echo "$tables"
    echo
    echo "## The hyperfine runs"
    echo
    cat "$tmp/runs.md"
} >"$build/bench-shapes.md"

echo
echo "$tables"
echo
echo "== written to $build/bench-shapes.md (hyperfine JSON in $json_dir/)"
