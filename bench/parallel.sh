#!/bin/sh
# stax on one and on two threads: `stax count`, `stax check`, `stax select
# //page/title` and `stax canon` with -j 1, -j 2 (and count with -j 0) on a
# generated document (default 256 MiB, the mixed dump) from the file, and on a
# small one (64 KiB) where -j must not lose, in one hyperfine run each, with
# expat (bench/expat_count) beside them on the large one; then count, check
# and select through a pipe from cat. The serial part of each -j 2 run
# (Amdahl) and the speed-up it projects on 4, 16 and 64 cores. Peak RSS of
# each command from /usr/bin/time.
#
#   sh bench/parallel.sh
#
# Environment:
#   STAX_PAR_MIB      size of the large document in MiB (default 256)
#   STAX_PAR_SHAPE    its shape (build/gen -l; default mixed-dump)
#   STAX_BENCH_RUNS   hyperfine --runs (default 5)
#   BUILD             build folder (default build)
#   STAX              the stax binary to measure (default $BUILD/stax, built here)
#
# Writes hyperfine's tables to $BUILD/bench-parallel.md and its JSON to
# $BUILD/bench-parallel-*.json.
set -eu
script=bench/parallel.sh build=${BUILD:-build}
runs=${STAX_BENCH_RUNS:-5} mib=${STAX_PAR_MIB:-256} shape=${STAX_PAR_SHAPE:-mixed-dump}
cd "$(dirname "$0")/.." && . bench/lib.sh
for v in STAX_BENCH_RUNS:$runs STAX_PAR_MIB:$mib; do whole "${v%%:*}" "${v#*:}"; done
build_bench_tools
command -v hyperfine >/dev/null 2>&1 || die "hyperfine not found (sh tools/deps.sh bench)"

big=$build/bench-parallel-$shape-$mib.xml
small=$build/bench-parallel-small.xml
[ -s "$big" ] || "$gen" -s "$shape" "$mib" 1 >"$big"
"$gen" -s "$shape" 0.0625 1 >"$small"

# The same counts and outputs on every thread count, before anything is timed.
one=$("$stax" -j 1 count "$big")
for j in 2 0; do
    [ "$("$stax" -j $j count "$big")" = "$one" ] || die "-j $j count differs from -j 1"
done
for c in "select //page/title" canon; do
    one=$("$stax" -j 1 $c "$big" | cksum)
    [ "$("$stax" -j 2 $c "$big" | cksum)" = "$one" ] || die "-j 2 $c differs from -j 1"
done

out=$build/bench-parallel.md
: >"$out"
for doc in "$big" "$small"; do
    name=$(basename "$doc" .xml)
    extra=
    [ "$doc" = "$small" ] || extra="$expat $doc"
    hyperfine --style basic --warmup 1 --runs "$runs" -N --export-markdown "$build/bench-parallel-$name.tmd" \
        --export-json "$build/bench-parallel-$name.json" \
        "$stax -j 1 count $doc" "$stax -j 2 count $doc" "$stax -j 0 count $doc" \
        "$stax -j 1 check $doc" "$stax -j 2 check $doc" \
        "$stax -j 1 select //page/title $doc" "$stax -j 2 select //page/title $doc" \
        "$stax -j 1 canon $doc" "$stax -j 2 canon $doc" ${extra:+"$extra"}
    { echo "### $name ($(wc -c <"$doc") bytes), from the file"; echo; cat "$build/bench-parallel-$name.tmd"; echo; } >>"$out"
done

# Through a pipe from cat (the ring of buffers and its feeder thread); cat alone beside them.
name=$(basename "$big" .xml)-pipe
hyperfine --style basic --warmup 1 --runs "$runs" --export-markdown "$build/bench-parallel-$name.tmd" \
    --export-json "$build/bench-parallel-$name.json" "cat $big > /dev/null" \
    "cat $big | $stax -j 1 count" "cat $big | $stax -j 2 count" \
    "cat $big | $stax -j 1 check" "cat $big | $stax -j 2 check" \
    "cat $big | $stax -j 1 select //page/title > /dev/null" "cat $big | $stax -j 2 select //page/title > /dev/null"
{ echo "### $(basename "$big" .xml) through a pipe"; echo; cat "$build/bench-parallel-$name.tmd"; echo; } >>"$out"

# The serial part s of each -j 2 run, from Amdahl's law: with W the CPU time of
# the run (user + system: the work, done on two cores) and t2 its wall-clock
# time, t2 = W * (s + (1 - s) / 2), so s = 2 * t2 / W - 1: the share of the work
# during which one core waited. The speed-up it allows on 4, 16 and 64 cores
# is 1 / (s + (1 - s) / N), over one core doing the same work. An upper bound
# of s: it counts as serial whatever two cores lose to each other (memory
# bandwidth, the feeder, the scheduler, cat for a pipe).
field() { grep "\"$1\"" "$2" | sed 's/.*: *//; s/,$//'; }
project() { # name json index-of-j1 index-of-j2 (0-based, in the json's order)
    { field mean "$2"; echo; field user "$2"; echo; field system "$2"; } | awk -v name="$1" -v a="$3" -v b="$4" 'BEGIN { part = 0 }
        /^$/ { part++; n = 0; next }
        { v[part, n++] = $1 }
        END {
            t1 = v[0, a]; t2 = v[0, b]; w = v[1, b] + v[2, b]; s = 2 * t2 / w - 1; if (s < 0) s = 0
            printf "| %s | %.3f | %.3f | %.2f | %.3f | %.1f%% | %.1f | %.1f | %.1f |\n", name, t1, t2, t1 / t2, w, 100 * s,
                1 / (s + (1 - s) / 4), 1 / (s + (1 - s) / 16), 1 / (s + (1 - s) / 64)
        }'
}
json=$build/bench-parallel-$(basename "$big" .xml).json
pipe=$build/bench-parallel-$(basename "$big" .xml)-pipe.json
{
    echo "### serial part and projection ($(basename "$big"))"
    echo
    echo "| command | -j 1 [s] | -j 2 [s] | ratio | -j 2 CPU [s] | serial part | 4 cores | 16 cores | 64 cores |"
    echo "|:---|---:|---:|---:|---:|---:|---:|---:|---:|"
    project "count" "$json" 0 1
    project "check" "$json" 3 4
    project "select //page/title" "$json" 5 6
    project "canon" "$json" 7 8
    project "cat \| count" "$pipe" 1 2
    project "cat \| check" "$pipe" 3 4
    project "cat \| select //page/title" "$pipe" 5 6
    echo
} >>"$out"
{
    echo "### peak RSS ($(basename "$big"))"
    echo
    for j in 1 2; do
        for c in count check "select //page/title" canon; do
            /usr/bin/time -f "- \`stax -j $j $c\`: %M KiB" "$stax" -j $j $c "$big" 2>>"$out" >/dev/null
        done
        for c in count "select //page/title"; do
            # shellcheck disable=SC2016
            cat "$big" | /usr/bin/time -f "- \`cat | stax -j $j $c\`: %M KiB" "$stax" -j $j $c 2>>"$out" >/dev/null
        done
    done
} >>"$out"
cat "$out"
