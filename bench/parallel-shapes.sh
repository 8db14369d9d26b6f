#!/bin/sh
# stax -j 1 and -j 2 on every shape of build/gen: `count` and `check` from the
# file, `count` through a pipe from cat, expat (bench/expat_count) beside them,
# one hyperfine run per shape (default 256 MiB each). The ratio -j 1 / -j 2 of
# each, in one table.
#
#   sh bench/parallel-shapes.sh
#
# Environment:
#   STAX_PAR_MIB      size of each document in MiB (default 256)
#   STAX_BENCH_SHAPES the shapes (default: all of build/gen -l)
#   STAX_BENCH_RUNS   hyperfine --runs (default 5)
#   BUILD             build folder (default build)
#   STAX              the stax binary to measure (default $BUILD/stax, built here)
#
# Writes $BUILD/bench-parallel-shapes.md, and hyperfine's JSON of each shape to
# $BUILD/bench-parallel-shapes-SHAPE.json.
set -eu
script=bench/parallel-shapes.sh build=${BUILD:-build}
runs=${STAX_BENCH_RUNS:-5} mib=${STAX_PAR_MIB:-256}
cd "$(dirname "$0")/.." && . bench/lib.sh
for v in STAX_BENCH_RUNS:$runs STAX_PAR_MIB:$mib; do whole "${v%%:*}" "${v#*:}"; done
build_bench_tools
command -v hyperfine >/dev/null 2>&1 || die "hyperfine not found (sh tools/deps.sh bench)"
shapes=${STAX_BENCH_SHAPES:-$("$gen" -l)}

out=$build/bench-parallel-shapes.md
{
    echo "| shape | count -j 1 [s] | count -j 2 [s] | ratio | check -j 1 [s] | check -j 2 [s] | ratio | cat \\| count -j 1 [s] | cat \\| count -j 2 [s] | ratio | expat [s] |"
    echo "|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$out"
for shape in $shapes; do
    doc=$build/bench-parallel-$shape-$mib.xml
    [ -s "$doc" ] || "$gen" -s "$shape" "$mib" 1 >"$doc"
    one=$("$stax" -j 1 count "$doc")
    [ "$("$stax" -j 2 count "$doc")" = "$one" ] || die "$shape: -j 2 count differs from -j 1"
    [ "$(cat "$doc" | "$stax" -j 2 count)" = "$one" ] || die "$shape: cat | -j 2 count differs from -j 1"
    json=$build/bench-parallel-shapes-$shape.json
    hyperfine --style basic --warmup 1 --runs "$runs" --export-json "$json" \
        "$stax -j 1 count $doc" "$stax -j 2 count $doc" "$stax -j 1 check $doc" "$stax -j 2 check $doc" \
        "cat $doc | $stax -j 1 count" "cat $doc | $stax -j 2 count" "$expat $doc"
    grep '"mean"' "$json" | sed 's/.*: *//; s/,$//' | awk -v shape="$shape" '
        { m[NR] = $1 }
        END {
            printf "| %s | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %.3f |\n", shape,
                m[1], m[2], m[1] / m[2], m[3], m[4], m[3] / m[4], m[5], m[6], m[5] / m[6], m[7]
        }' >>"$out"
    rm -f "$doc"
done
cat "$out"
