#!/bin/sh
# Compare stax with expat and libxml2 in one hyperfine run over the same
# generated document, then measure peak RSS, and check that a multi-GiB
# stream keeps RSS flat.
#
#   sh bench/run.sh            (or: make bench)
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

mib=${STAX_BENCH_MIB:-100}
seed=${STAX_BENCH_SEED:-1}
runs=${STAX_BENCH_RUNS:-}
stream_mib=${STAX_BENCH_STREAM_MIB:-4096}
build=${BUILD:-build}

die() {
    echo "bench/run.sh: $*" >&2
    exit 1
}
whole() {
    case $2 in '' | *[!0-9]*) die "$1 must be a whole number, not '$2'" ;; esac
}
whole STAX_BENCH_MIB "$mib"
whole STAX_BENCH_SEED "$seed"
whole STAX_BENCH_STREAM_MIB "$stream_mib"
[ -z "$runs" ] || whole STAX_BENCH_RUNS "$runs"
[ "$mib" -gt 0 ] || die "STAX_BENCH_MIB must be at least 1"

. bench/common.sh
bench_build
expat=$build/expat_count
libxml2=$build/libxml2_count
results=$build/bench-results.md

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
doc=$tmp/doc.xml

echo "== generating $mib MiB (seed $seed)"
"$gen" "$mib" "$seed" >"$doc"

# All three must agree before their times mean anything.
counts_of() { tr ' ' '\n' | grep -E '^(elements|attributes)=' | paste -s -d ' ' -; }
want=$("$stax" count - <"$doc" | counts_of) || die "stax count failed on the document"
for peer in "$expat" "$libxml2"; do
    got=$("$peer" - <"$doc" | counts_of) || die "$peer failed on the document"
    [ "$got" = "$want" ] || die "counts differ: stax: $want; $(basename "$peer"): $got"
done
echo "== all three count: $want"

echo "== hyperfine: stax count, expat, libxml2 over the same $mib MiB"
set -- --warmup 1 --style basic --export-markdown "$tmp/hyperfine.md" --export-csv "$tmp/hyperfine.csv"
[ -z "$runs" ] || set -- "$@" --runs "$runs"
hyperfine "$@" \
    -n "stax count" "'$stax' count - < '$doc'" \
    -n "expat" "'$expat' - < '$doc'" \
    -n "libxml2" "'$libxml2' - < '$doc'"

# CSV: command,mean,stddev,median,user,system,min,max (seconds).
mean_of() { awk -F, -v name="$1" '$1 == name { print $2 }' "$tmp/hyperfine.csv"; }
stax_s=$(mean_of "stax count")
expat_s=$(mean_of "expat")
libxml2_s=$(mean_of "libxml2")
ratios=$(awk -v s="$stax_s" -v e="$expat_s" -v l="$libxml2_s" -v mib="$mib" 'BEGIN {
    printf "| parser | mean | throughput | time / stax time |\n| --- | ---: | ---: | ---: |\n"
    printf "| stax count | %.3f s | %.0f MiB/s | 1.00 |\n", s, mib / s
    printf "| expat | %.3f s | %.0f MiB/s | %.2f |\n", e, mib / e, e / s
    printf "| libxml2 | %.3f s | %.0f MiB/s | %.2f |\n", l, mib / l, l / s
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
| libxml2 | $(rss_of "$libxml2" -) |"

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

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null) || cpu=
stax_v=$("$stax" --version 2>/dev/null | head -n 1) || stax_v=
expat_v=$(dpkg-query -W -f='${Version}' libexpat1 2>/dev/null) || expat_v=
libxml2_v=$(dpkg-query -W -f='${Version}' libxml2 2>/dev/null) || libxml2_v=
cc_v=$(cc --version 2>/dev/null | head -n 1) || cc_v=
versions="${stax_v:-stax ?}, expat ${expat_v:-?}, libxml2 ${libxml2_v:-?}, ${cc_v:-cc ?}"

mkdir -p "$build"
{
    echo "# stax benchmark results"
    echo
    echo "$(date -u +%Y-%m-%d), ${cpu:-unknown CPU}, $(nproc) cores; $versions."
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
