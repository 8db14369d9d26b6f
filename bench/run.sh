#!/bin/sh
# Compare stax with expat, libxml2 and pugixml (a DOM: the in-memory
# reference) in one hyperfine run over the same generated document, then
# measure peak RSS, and check that a multi-GiB stream keeps RSS flat.
# bench/shapes.sh does the same comparison on documents of other shapes.
#
#   sh bench/run.sh            (or: make bench, which runs both)
#
# Environment:
#   STAX_BENCH_MIB         document size for the comparison, MiB (default 100)
#   STAX_BENCH_SEED        generator seed (default 1)
#   STAX_BENCH_RUNS        hyperfine --runs (default: hyperfine decides, >= 10)
#   STAX_BENCH_STREAM_MIB  size of the streaming RSS check, MiB (default 4096;
#                          0 skips it)
#   BUILD                  build folder (default build)
#   STAX                   the stax binary to measure (default $BUILD/stax, built here)
#
# Writes $BUILD/bench-results.md: the hyperfine table, the ratios, the RSS table
# and the streaming check, with the machine and library versions.
set -eu

cd "$(dirname "$0")/.."
script=bench/run.sh
. bench/lib.sh

mib=${STAX_BENCH_MIB:-100}
seed=${STAX_BENCH_SEED:-1}
runs=${STAX_BENCH_RUNS:-}
stream_mib=${STAX_BENCH_STREAM_MIB:-4096}
build=${BUILD:-build}

whole STAX_BENCH_MIB "$mib"
whole STAX_BENCH_SEED "$seed"
whole STAX_BENCH_STREAM_MIB "$stream_mib"
[ -z "$runs" ] || whole STAX_BENCH_RUNS "$runs"
[ "$mib" -gt 0 ] || die "STAX_BENCH_MIB must be at least 1"

build_bench_tools
results=$build/bench-results.md

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
doc=$tmp/doc.xml

echo "== generating $mib MiB (seed $seed)"
"$gen" "$mib" "$seed" >"$doc"

# All four must agree before their times mean anything.
want=$("$stax" count - <"$doc" | counts_of) || die "stax count failed on the document"
[ -n "$want" ] || die "stax count printed no counts"
for peer in "$expat" "$libxml2" "$pugixml"; do
    got=$("$peer" - <"$doc" | counts_of) || die "$peer failed on the document"
    [ "$got" = "$want" ] || die "counts differ: stax: $want; $(basename "$peer"): $got"
done
echo "== all four count: $want"

echo "== hyperfine: stax count, expat, libxml2, pugixml over the same $mib MiB"
set -- --warmup 1 --style basic --export-markdown "$tmp/hyperfine.md" --export-csv "$tmp/hyperfine.csv"
[ -z "$runs" ] || set -- "$@" --runs "$runs"
hyperfine "$@" \
    -n "stax count" "'$stax' count - < '$doc'" \
    -n "expat" "'$expat' - < '$doc'" \
    -n "libxml2" "'$libxml2' - < '$doc'" \
    -n "pugixml" "'$pugixml' - < '$doc'"

# CSV: command,mean,stddev,median,user,system,min,max (seconds).
mean_of() { awk -F, -v name="$1" '$1 == name { print $2 }' "$tmp/hyperfine.csv"; }
stax_s=$(mean_of "stax count")
expat_s=$(mean_of "expat")
libxml2_s=$(mean_of "libxml2")
pugixml_s=$(mean_of "pugixml")
ratios=$(awk -v s="$stax_s" -v e="$expat_s" -v l="$libxml2_s" -v p="$pugixml_s" -v mib="$mib" 'BEGIN {
    printf "| parser | mean | throughput | time / stax time |\n| --- | ---: | ---: | ---: |\n"
    printf "| stax count | %.3f s | %.0f MiB/s | 1.00 |\n", s, mib / s
    printf "| expat | %.3f s | %.0f MiB/s | %.2f |\n", e, mib / e, e / s
    printf "| libxml2 | %.3f s | %.0f MiB/s | %.2f |\n", l, mib / l, l / s
    printf "| pugixml | %.3f s | %.0f MiB/s | %.2f |\n", p, mib / p, p / s
}')

# Peak RSS of each over the same file.
rss_of() {
    /usr/bin/time -v -o "$tmp/time" "$@" <"$doc" >/dev/null || die "$* failed"
    awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$tmp/time"
}
rss=$(printf '| parser | peak RSS (MiB) |\n| --- | ---: |\n')
rss="$rss
| stax count | $(rss_of "$stax" count -) |
| expat | $(rss_of "$expat" -) |
| libxml2 | $(rss_of "$libxml2" -) |
| pugixml | $(rss_of "$pugixml" -) |"

stream="(skipped: STAX_BENCH_STREAM_MIB=0)"
if [ "$stream_mib" -gt 0 ]; then
    echo "== streaming $stream_mib MiB from the generator through stax count"
    t0=$(date +%s%N)
    "$gen" "$stream_mib" "$seed" | /usr/bin/time -v -o "$tmp/time" "$stax" count - >"$tmp/stream-count" ||
        die "stax count failed on the $stream_mib MiB stream"
    t1=$(date +%s%N)
    stream=$(awk -F': ' -v ns=$((t1 - t0)) -v mib="$stream_mib" -v out="$(cat "$tmp/stream-count")" '
        /Maximum resident set size/ { rss = $2 / 1024 }
        END {
            s = ns / 1e9
            printf "`gen %d | stax count -`: %.1f s, %.0f MiB/s, peak RSS %.1f MiB (%s)\n", mib, s, mib / s, rss, out
        }' "$tmp/time")
fi

mkdir -p "$build"
{
    echo "# stax benchmark results"
    echo
    echo "$(date -u +%Y-%m-%d), $(machine_line); $(versions_line)."
    echo "Document: \`gen $mib $seed\` ($mib MiB), read from stdin in 64 KiB chunks; counts: $want."
    echo
    echo "## Time (hyperfine, --warmup 1)"
    echo
    cat "$tmp/hyperfine.md"
    echo
    echo "$ratios"
    echo
    echo "## Peak RSS"
    echo
    echo "$rss"
    echo
    echo "## Streaming"
    echo
    echo "$stream"
} >"$results"

echo
echo "$ratios"
echo
echo "$rss"
echo
echo "$stream"
echo
echo "== written to $results"
