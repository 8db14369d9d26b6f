#!/bin/sh
# The main job: stream a large generated document through `stax count` (and
# `stax fmt`, reader + writer) and print throughput and peak RSS.
#
#   sh bench/main.sh            (or: make main)
#
# Environment:
#   STAX_BENCH_MIB    document size in MiB (default 1024)
#   STAX_BENCH_SEED   generator seed (default 1)
#   STAX_BENCH_INPUT  file: write the document to a temporary file first and
#                     feed it on stdin, so only stax is timed (default);
#                     pipe: stream it from the generator (nothing on disk).
#                     file falls back to pipe when the disk lacks room.
#   STAX_BENCH_CHECK  1: cross-check the counts with expat and the fmt output
#                     with a second count (default 1; 0 skips, saving time)
#   BUILD             build folder (default build)
#   STAX              the stax binary to measure (default $BUILD/stax, built here)
set -eu

cd "$(dirname "$0")/.."

mib=${STAX_BENCH_MIB:-1024}
seed=${STAX_BENCH_SEED:-1}
input=${STAX_BENCH_INPUT:-file}
check=${STAX_BENCH_CHECK:-1}
build=${BUILD:-build}

die() {
    echo "bench/main.sh: $*" >&2
    exit 1
}

case $mib in '' | *[!0-9]*) die "STAX_BENCH_MIB must be a whole number of MiB, not '$mib'" ;; esac
[ "$mib" -gt 0 ] || die "STAX_BENCH_MIB must be at least 1"
case $seed in '' | *[!0-9]*) die "STAX_BENCH_SEED must be a number, not '$seed'" ;; esac
case $input in file | pipe) ;; *) die "STAX_BENCH_INPUT must be file or pipe, not '$input'" ;; esac

. bench/common.sh
bench_build
bytes=$((mib * 1048576))

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-main.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
doc=$tmp/doc.xml

if [ "$input" = file ]; then
    free_kib=$(df -Pk "$tmp" | awk 'NR == 2 { print $4 }')
    if [ "$free_kib" -lt $((mib * 1024 + 262144)) ]; then
        echo "bench/main.sh: not enough room in $tmp for $mib MiB; streaming from the generator instead"
        input=pipe
    fi
fi

now_ns() { date +%s%N; }

# feed CMD...: run CMD with the document on stdin, from the file or piped from
# the generator.
feed() {
    if [ "$input" = file ]; then
        "$@" <"$doc"
    else
        "$gen" "$mib" "$seed" | "$@"
    fi
}

# run LABEL OUT CMD...: feed CMD with output to OUT; print its time,
# throughput and peak RSS.
run() {
    label=$1
    out=$2
    shift 2
    t0=$(now_ns)
    feed /usr/bin/time -v -o "$tmp/time" "$@" >"$out" || die "$label failed (exit $?)"
    t1=$(now_ns)
    rss_kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time")
    awk -v label="$label" -v ns=$((t1 - t0)) -v bytes="$bytes" -v rss="$rss_kib" 'BEGIN {
        s = ns / 1e9
        printf "%-12s %9.2f s %10.1f MiB/s %10.1f MiB peak RSS\n", label, s, bytes / 1048576 / s, rss / 1024
    }'
}

# The elements= and attributes= fields of a count line.
counts_of() { tr ' ' '\n' <"$1" | grep -E '^(elements|attributes)=' | paste -s -d ' ' -; }

echo "== stax main job: $mib MiB generated document (seed $seed), input by $input"
if [ "$input" = file ]; then
    t0=$(now_ns)
    "$gen" "$mib" "$seed" >"$doc"
    t1=$(now_ns)
    awk -v ns=$((t1 - t0)) -v mib="$mib" 'BEGIN { printf "generated in %.2f s (%.0f MiB/s)\n", ns / 1e9, mib / (ns / 1e9) }'
fi

run "stax count" "$tmp/stax-count" "$stax" count -
echo "  stax count: $(cat "$tmp/stax-count")"

if printf '<a/>' | "$stax" fmt - >/dev/null 2>&1; then
    run "stax fmt" /dev/null "$stax" fmt -
    if [ "$check" = 1 ]; then
        feed "$stax" fmt - | "$stax" count - >"$tmp/fmt-count" ||
            die "stax fmt | stax count failed"
        [ "$(counts_of "$tmp/fmt-count")" = "$(counts_of "$tmp/stax-count")" ] ||
            die "the fmt output counts differently: $(cat "$tmp/fmt-count")"
        echo "  check: the fmt output has the same elements and attributes"
    fi
else
    echo "stax fmt     (not available in this build; skipped)"
fi

if [ "$check" = 1 ]; then
    feed "$build/expat_count" - >"$tmp/expat-count" || die "expat_count failed"
    [ "$(counts_of "$tmp/expat-count")" = "$(counts_of "$tmp/stax-count")" ] ||
        die "counts differ from expat's: $(cat "$tmp/expat-count")"
    echo "  check: expat counts the same ($(cat "$tmp/expat-count"))"
fi
