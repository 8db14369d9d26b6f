#!/bin/sh
# stax on one and on two threads: `stax count`, `stax check`, `stax select
# //page/title` and `stax canon` with -j 1 and -j 2 on a generated document
# (default 256 MiB, the mixed dump; from a file), and on a small one (64 KiB)
# where -j must not lose, in one hyperfine run each, with expat
# (bench/expat_count) beside them on the large one. Peak RSS of each command
# from /usr/bin/time.
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
        "$stax -j 1 count $doc" "$stax -j 2 count $doc" "$stax -j 1 check $doc" "$stax -j 2 check $doc" \
        "$stax -j 1 select //page/title $doc" "$stax -j 2 select //page/title $doc" \
        "$stax -j 1 canon $doc" "$stax -j 2 canon $doc" ${extra:+"$extra"}
    { echo "### $name ($(wc -c <"$doc") bytes)"; echo; cat "$build/bench-parallel-$name.tmd"; echo; } >>"$out"
done
{
    echo "### peak RSS ($(basename "$big"))"
    echo
    for j in 1 2; do
        for c in count check "select //page/title" canon; do
            /usr/bin/time -f "- \`stax -j $j $c\`: %M KiB" "$stax" -j $j $c "$big" 2>>"$out" >/dev/null
        done
    done
} >>"$out"
cat "$out"
