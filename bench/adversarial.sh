#!/bin/sh
# Linear time on adversarial shapes: `stax check` at two sizes of each shape
# bench/adversarial.py writes (long text with references, in ASCII and in
# UTF-8, references to undeclared entities, thousands of short entities,
# attribute values of references, long comments and PIs, many namespaces on
# many elements and on one element, deep nesting with attribute defaults),
# and expat (bench/expat_count) at the larger size, in one hyperfine run per
# shape.
#
#   sh bench/adversarial.sh        (or: make bench-adversarial)
#
# Per shape it prints stax's time at N and 2N, their ratio, expat's time at
# 2N and stax ÷ expat, then a FAIL line for every shape where the ratio is
# above 2.2 (not linear) or stax is slower than expat (skipped-refs: more
# than 2.5 times expat's time, expat_bound below), and exits 1 if there
# was one. The times are CPU times (user + system, hyperfine's means): on a
# shared machine the wall time also counts the waits for a core, which are
# not the program's (the wall-time means are in the table too, and the
# JSON). The ns-* shapes are read with namespaces by both.
#
# Environment:
#   STAX_ADV_SHAPES   the shapes to run, separated by spaces (default: all)
#   STAX_ADV_KIB      N in KiB for every shape (default: per shape, chosen so
#                     that stax takes at least about 50 ms at N)
#   STAX_BENCH_RUNS   hyperfine --runs (default 5)
#   BUILD             build folder (default build)
#   STAX              the stax binary to measure (default $BUILD/stax, built here)
#
# Writes the table to $BUILD/bench-adversarial.md and hyperfine's JSON of
# each shape to $BUILD/bench-adversarial/SHAPE.json.
set -eu

cd "$(dirname "$0")/.."
script=bench/adversarial.sh
. bench/lib.sh

build=${BUILD:-build}
runs=${STAX_BENCH_RUNS:-5}
kib_all=${STAX_ADV_KIB:-}
whole STAX_BENCH_RUNS "$runs"
[ "$runs" -gt 1 ] || die "STAX_BENCH_RUNS must be at least 2"
[ -z "$kib_all" ] || whole STAX_ADV_KIB "$kib_all"

sh tools/deps.sh bench
command -v python3 >/dev/null || die "python3 is missing (sh tools/deps.sh test)"
if [ -n "${STAX:-}" ]; then
    stax=$STAX
    make --no-print-directory -s BUILD="$build" "$build/expat_count"
else
    stax=$build/stax
    make --no-print-directory -s BUILD="$build" all "$build/expat_count"
fi
[ -x "$stax" ] || die "$stax was not built"
expat=$build/expat_count
gen="python3 bench/adversarial.py"

all_shapes=$($gen -l)
shapes=${STAX_ADV_SHAPES:-$all_shapes}
for shape in $shapes; do
    echo "$all_shapes" | grep -x -- "$shape" >/dev/null || die "no shape '$shape' (python3 bench/adversarial.py -l lists them)"
done

# N in KiB per shape: stax takes at least about 50 ms of CPU at N (about
# 100 ms of a shared machine's time), so that start-up and noise stay small.
default_kib() {
    case $1 in
    comments-pis) echo 65536 ;;
    *) echo 8192 ;;
    esac
}

# How many times expat's CPU time stax may take at 2N: 1 (ahead of expat),
# but for skipped-refs, where stax gives each reference to an undeclared
# entity an ENTITY_REF event and ends the text's call there (a round of the
# general path's driver, some 700 instructions a reference) and expat_count,
# with no skipped-entity handler, gives nothing: stax takes about twice
# expat's time there, and the bound still catches a return of the quadratic
# UTF-8 check (16 to 26 times expat's time at N = 256 KiB).
expat_bound() {
    case $1 in
    skipped-refs) echo 2.5 ;;
    *) echo 1 ;;
    esac
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-adversarial.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
json_dir=$build/bench-adversarial
mkdir -p "$json_dir"
: >"$tmp/rows.tsv"
: >"$tmp/fail"

for shape in $shapes; do
    kib=${kib_all:-$(default_kib "$shape")}
    ns=
    xns=
    case $shape in ns-*) ns=--namespaces xns=-n ;; esac
    $gen "$shape" "$kib" "$tmp/n.xml" || die "adversarial.py $shape $kib failed"
    $gen "$shape" $((2 * kib)) "$tmp/2n.xml" || die "adversarial.py $shape $((2 * kib)) failed"
    echo "== $shape: N = $(wc -c <"$tmp/n.xml") bytes, 2N = $(wc -c <"$tmp/2n.xml") bytes"
    # Both must accept both documents before anything is timed.
    ok=1
    for f in n 2n; do
        if ! "$stax" check $ns "$tmp/$f.xml" 2>"$tmp/err"; then
            echo "FAIL $shape: stax check $ns rejects the ${f} document: $(head -c 300 "$tmp/err")" | tee -a "$tmp/fail"
            ok=0
        fi
        $expat $xns "$tmp/$f.xml" >/dev/null 2>"$tmp/err" ||
            die "expat_count $xns rejects the $shape $f document: $(head -c 300 "$tmp/err")"
    done
    if [ "$ok" = 1 ]; then
        hyperfine -N --warmup 1 --runs "$runs" --style basic --export-json "$json_dir/$shape.json" \
            --export-csv "$tmp/$shape.csv" \
            -n stax-N "'$stax' check $ns '$tmp/n.xml'" -n stax-2N "'$stax' check $ns '$tmp/2n.xml'" \
            -n expat-2N "'$expat' $xns '$tmp/2n.xml'"
        # CSV: command,mean,stddev,median,user,system,min,max (seconds).
        # rows: shape, KiB, CPU of stax N, stax 2N, expat 2N, then their wall-time means
        awk -F, -v shape="$shape" -v kib="$kib" -v bound="$(expat_bound "$shape")" '
            NR > 1 { cpu[$1] = $5 + $6; wall[$1] = $2 }
            END {
                printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", shape, kib, cpu["stax-N"], cpu["stax-2N"], cpu["expat-2N"],
                    wall["stax-N"], wall["stax-2N"], wall["expat-2N"], bound
            }
        ' "$tmp/$shape.csv" >>"$tmp/rows.tsv"
    fi
    rm -f "$tmp/n.xml" "$tmp/2n.xml"
done

table=$(awk -F'\t' '
    BEGIN {
        print "| shape | N (KiB) | stax at N (ms) | stax at 2N (ms) | 2N ÷ N | expat at 2N (ms) | stax ÷ expat | wall: stax N, 2N, expat 2N (ms) |"
        print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    }
    { printf "| %s | %d | %.1f | %.1f | %.2f | %.1f | %.2f | %.1f, %.1f, %.1f |\n", $1, $2, $3 * 1000, $4 * 1000, $4 / $3, $5 * 1000, $4 / $5, $6 * 1000, $7 * 1000, $8 * 1000 }
' "$tmp/rows.tsv")
awk -F'\t' '
    $4 / $3 > 2.2 { printf "FAIL %s: not linear: %.1f ms of CPU at N, %.1f ms at 2N (%.2fx > 2.2x)\n", $1, $3 * 1000, $4 * 1000, $4 / $3 }
    $4 > $5 * $9 { printf "FAIL %s: more than %s times expat'"'"'s time at 2N: %.1f ms of CPU, expat %.1f ms (%.2fx)\n", $1, $9, $4 * 1000, $5 * 1000, $4 / $5 }
' "$tmp/rows.tsv" >>"$tmp/fail"

commit=$(git describe --always --dirty 2>/dev/null) || commit=
{
    echo "# stax check beside expat on adversarial shapes, at N and 2N"
    echo
    echo "$(date -u +%Y-%m-%d), commit ${commit:-?}; $(machine_line)."
    echo "Timed: \`hyperfine -N --warmup 1 --runs $runs\`, one run a shape: \`stax check\` on"
    echo "\`python3 bench/adversarial.py SHAPE N\` and on 2N, \`expat_count\` on 2N (the ns-* shapes with"
    echo "\`--namespaces\` and \`expat_count -n\`). Times: the means of user + system CPU time (the"
    echo "verdicts), and of wall time (last column); process start included."
    echo
    echo "$table"
    if [ -s "$tmp/fail" ]; then
        echo
        sed 's/^/    /' "$tmp/fail"
    fi
} >"$build/bench-adversarial.md"

echo
echo "$table"
echo
echo "== written to $build/bench-adversarial.md (hyperfine JSON in $json_dir/)"
if [ -s "$tmp/fail" ]; then
    cat "$tmp/fail"
    exit 1
fi
echo "bench-adversarial: every shape linear (2N ÷ N <= 2.2) and within its bound of expat's time (faster, but for skipped-refs)"
