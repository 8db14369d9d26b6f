#!/bin/sh
# stax select beside xmlstarlet sel and xmllint --xpath, with stax count as
# the yardstick, on the generated document: one hyperfine run per query,
# peak RSS, then a larger document (time and RSS, one run each) and a stream
# from the generator (RSS stays flat).
#
#   sh bench/select_run.sh            (or: make bench-select)
#
# Environment:
#   STAX_BENCH_MIB         document size for the comparison, MiB (default 100)
#   STAX_BENCH_LARGE_MIB   the larger document, MiB (default 1024; 0 skips it)
#   STAX_BENCH_LARGE_PEERS 1: run xmlstarlet and xmllint on it too, once each, if
#                          MemAvailable holds 12 times its size (they build the
#                          whole tree: about 10 bytes of RSS per input byte);
#                          0: stax only (default 1)
#   STAX_BENCH_STREAM_MIB  size streamed from the generator through stax select
#                          (default 4096; 0 skips it)
#   STAX_BENCH_SEED        generator seed (default 1)
#   STAX_BENCH_RUNS        hyperfine --runs (default 5: the peers take seconds)
#   STAX_BENCH_ROUNDS      rounds of the ratio to stax count (default 10; 0 skips them):
#                          each round is one hyperfine run of stax count and the
#                          three stax select queries, 3 runs each after 1 warm-up;
#                          the table gives each query's time / stax count's per round
#                          (medians), and its CPU time (user + system) / stax count's,
#                          as the median, lowest and highest over the rounds
#   BUILD                  build folder (default build)
#   STAX                   the stax binary to measure (default $BUILD/stax, built here)
#
# The queries (the generated document has the default namespace urn:stax:bench,
# so the peers name it; stax without --namespaces matches names as written):
#   titles:  //page/title         few matches, text values
#   ids:     //node/@id           many small matches
#   csv:     --csv '@id,@lat,@lon,tag[@k="name"]/@v' //node, beside an
#            xmlstarlet template that prints the same fields without quoting
# Before timing, each peer's output is checked against stax's: xmlstarlet sel
# -T prints the same bytes as stax select; xmllint --xpath prints text nodes
# escaped and attributes as ` name="value"`, the same as stax select --xml
# (after the leading space). Writes $BUILD/select-bench-results.md.
set -eu

self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/.."

mib=${STAX_BENCH_MIB:-100}
large_mib=${STAX_BENCH_LARGE_MIB:-1024}
large_peers=${STAX_BENCH_LARGE_PEERS:-1}
stream_mib=${STAX_BENCH_STREAM_MIB:-4096}
seed=${STAX_BENCH_SEED:-1}
runs=${STAX_BENCH_RUNS:-5}
rounds=${STAX_BENCH_ROUNDS:-10}
build=${BUILD:-build}

script=bench/select_run.sh
. bench/lib.sh
whole STAX_BENCH_MIB "$mib"
whole STAX_BENCH_LARGE_MIB "$large_mib"
whole STAX_BENCH_STREAM_MIB "$stream_mib"
whole STAX_BENCH_SEED "$seed"
whole STAX_BENCH_RUNS "$runs"
whole STAX_BENCH_ROUNDS "$rounds"
[ "$mib" -gt 0 ] || die "STAX_BENCH_MIB must be at least 1"

build_bench_tools
results=$build/select-bench-results.md

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-select-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ns=urn:stax:bench
csv_cols='@id,@lat,@lon,tag[@k="name"]/@v'
# The commands, each reading $1 (a file).
q_count() { "$stax" count "$1"; }
q_titles() { "$stax" select //page/title "$1"; }
q_titles_xml() { "$stax" select --xml '//page/title/text()' "$1"; }
q_ids() { "$stax" select '//node/@id' "$1"; }
q_ids_xml() { "$stax" select --xml '//node/@id' "$1"; }
q_csv() { "$stax" select --csv "$csv_cols" //node "$1"; }
x_titles() { xmlstarlet sel -T -N b=$ns -t -m '//b:page/b:title' -v . -n "$1"; }
x_ids() { xmlstarlet sel -T -N b=$ns -t -m '//b:node' -v @id -n "$1"; }
x_csv() { xmlstarlet sel -T -N b=$ns -t -m '//b:node' -v @id -o , -v @lat -o , -v @lon -o , -v '(b:tag[@k="name"]/@v)[1]' -n "$1"; }
l_titles() { xmllint --xpath '//*[local-name()="page"]/*[local-name()="title"]/text()' "$1"; }
l_ids() { xmllint --xpath '//*[local-name()="node"]/@id' "$1" | sed 's/^ //'; }

doc=$tmp/doc.xml
echo "== generating $mib MiB (seed $seed)"
"$gen" "$mib" "$seed" >"$doc"

echo "== checking that the peers print what stax prints"
same() { # same NAME CMD1 CMD2: both outputs over $doc are the same bytes
    "$2" "$doc" >"$tmp/a" || die "$2 failed"
    "$3" "$doc" >"$tmp/b" || die "$3 failed"
    cmp -s "$tmp/a" "$tmp/b" || die "$1: $2 and $3 print different bytes"
    echo "   $1: $(wc -l <"$tmp/a") lines, the same"
}
same titles q_titles x_titles
same titles q_titles_xml l_titles
same ids q_ids x_ids
same ids q_ids_xml l_ids
# xmlstarlet does not quote fields: compare with stax's quotes taken off
# (no value of the generated document holds a line end)
q_csv "$doc" | sed -E 's/"(([^"]|"")*)"/\1/g; s/""/"/g' >"$tmp/a"
x_csv "$doc" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || die "csv: stax and xmlstarlet give different rows"
echo "   csv: $(wc -l <"$tmp/a") rows, the same once stax's RFC 4180 quotes are taken off"

# hyperfine over the functions above: export them through a small script.
cat >"$tmp/q.sh" <<EOF
stax='$stax'
ns=$ns
csv_cols='$csv_cols'
$(sed -n '/^q_count()/,/^l_ids()/p' "$self")
"\$@"
EOF

label() { # what a command is called in the tables
    case $1 in
    q_count) echo "stax count" ;;
    q_titles) echo "stax select //page/title" ;;
    q_titles_xml) echo "stax select --xml //page/title/text()" ;;
    q_ids) echo "stax select //node/@id" ;;
    q_ids_xml) echo "stax select --xml //node/@id" ;;
    q_csv) echo "stax select --csv ... //node" ;;
    x_titles | x_ids | x_csv) echo "xmlstarlet sel -T ($1)" ;;
    l_titles | l_ids) echo "xmllint --xpath ($1)" ;;
    esac
}

hf() { # hf TAG NAME... : one hyperfine run over the named commands
    tag=$1
    shift
    set -- --warmup 1 --runs "$runs" --style basic --export-markdown "$tmp/$tag.md" --export-csv "$tmp/$tag.csv"
    for q in $cmds; do set -- "$@" -n "$(label "$q")" "sh '$tmp/q.sh' $q '$doc' >/dev/null"; done
    hyperfine "$@"
}
mean_of() { awk -F, -v name="$(label "$2")" '$1 == name { print $2 }' "$tmp/$1.csv"; }

echo "== hyperfine: titles"
cmds="q_count q_titles q_titles_xml x_titles l_titles"
hf titles
echo "== hyperfine: ids"
cmds="q_count q_ids q_ids_xml x_ids l_ids"
hf ids
echo "== hyperfine: csv"
cmds="q_count q_csv x_csv"
hf csv

# The ratio to stax count again, in rounds: a machine shared with others
# drifts within one hyperfine run, which runs each command's runs back to
# back, so that one run's ratio can be off by more than what is measured.
# Each round measures the four stax commands close together; the rounds'
# ratios (medians within a round) give the median and the spread.
ratios="(skipped: STAX_BENCH_ROUNDS=0)"
if [ "$rounds" -gt 0 ]; then
    echo "== hyperfine: $rounds rounds of stax count and the three stax select queries"
    : >"$tmp/rounds"
    r=1
    while [ "$r" -le "$rounds" ]; do
        set -- --warmup 1 --runs 3 --style none --export-csv "$tmp/round.csv"
        for q in q_count q_titles q_ids q_csv; do set -- "$@" -n "$q" "sh '$tmp/q.sh' $q '$doc' >/dev/null"; done
        hyperfine "$@" >/dev/null
        # command,mean,stddev,median,user,system,...: each query's median
        # time / stax count's, then its CPU time (user + system) / stax count's
        awk -F, 'NR > 1 { m[$1] = $4; c[$1] = $5 + $6 }
            END { printf "%s %s %s %s %s %s\n", m["q_titles"] / m["q_count"], m["q_ids"] / m["q_count"], m["q_csv"] / m["q_count"],
                         c["q_titles"] / c["q_count"], c["q_ids"] / c["q_count"], c["q_csv"] / c["q_count"] }' \
            "$tmp/round.csv" >>"$tmp/rounds"
        echo "   round $r: titles, ids, csv / count = $(tail -n 1 "$tmp/rounds") (time, then CPU time)"
        r=$((r + 1))
    done
    ratios=$(awk -v n="$rounds" '
        function med(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                       return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
        { for (f = 1; f <= 6; f++) v[f, NR] = $f }
        END {
            print "| query | time: median of " n " rounds | lowest | highest | CPU time: median | lowest | highest |"
            print "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
            split("`stax select //page/title`,`stax select //node/@id`,`stax select --csv ... //node`", name, ",")
            for (q = 1; q <= 3; q++) {
                split("", a); for (k = 1; k <= NR; k++) a[k] = v[q, k]; m = med(a, NR); lo = a[1]; hi = a[NR]
                split("", a); for (k = 1; k <= NR; k++) a[k] = v[q + 3, k]; cm = med(a, NR)
                printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", name[q], m, lo, hi, cm, a[1], a[NR]
            }
        }' "$tmp/rounds")
fi

ratio_table() { # ratio_table TAG NAME...: mean, and time / stax count's
    tag=$1
    shift
    c=$(mean_of "$tag" q_count)
    printf '| command | mean | time / stax count |\n| --- | ---: | ---: |\n'
    for q in "$@"; do
        awk -v n="$(label "$q")" -v m="$(mean_of "$tag" "$q")" -v c="$c" 'BEGIN { printf "| `%s` | %.3f s | %.2f |\n", n, m, m / c }'
    done
}

rss_of() { # peak RSS in MiB and seconds of one run: rss_of FILE CMD
    f=$1
    shift
    /usr/bin/time -f '%M %e' -o "$tmp/time" sh "$tmp/q.sh" "$@" "$f" >/dev/null || die "$* failed"
    awk '{ printf "%.1f MiB, %.2f s", $1 / 1024, $2 }' "$tmp/time"
}
peer_rss_of() { # the same for a peer, which may give up on a large document: say why
    f=$1
    shift
    if /usr/bin/time -f '%M %e' -o "$tmp/time" sh "$tmp/q.sh" "$@" "$f" >/dev/null 2>"$tmp/err"; then
        awk '{ printf "%.1f MiB, %.2f s", $1 / 1024, $2 }' "$tmp/time"
    else
        printf 'fails after %s s: %s' "$(awk 'END { print $NF }' "$tmp/time")" "$(grep -m 1 . "$tmp/err")"
    fi
}

echo "== peak RSS at $mib MiB"
rss="| command | $mib MiB |
| --- | ---: |"
for q in q_count q_titles q_ids q_csv q_ids_xml x_titles x_ids l_titles l_ids; do
    rss="$rss
| \`$(label "$q")\` | $(rss_of "$doc" "$q") |"
done

large="(skipped: STAX_BENCH_LARGE_MIB=0)"
if [ "$large_mib" -gt 0 ]; then
    rm -f "$doc"
    big=$tmp/big.xml
    echo "== generating $large_mib MiB"
    "$gen" "$large_mib" "$seed" >"$big"
    large="| command | $large_mib MiB: peak RSS, time (one run) |
| --- | ---: |"
    for q in q_count q_titles q_ids q_csv q_ids_xml; do
        large="$large
| \`$(label "$q")\` | $(rss_of "$big" "$q") |"
    done
    avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
    if [ "$large_peers" = 1 ] && [ "$avail" -ge $((large_mib * 12)) ]; then
        for q in x_titles l_titles; do
            large="$large
| \`$(label "$q")\` | $(peer_rss_of "$big" "$q") |"
        done
    else
        large="$large

(xmlstarlet and xmllint not run: STAX_BENCH_LARGE_PEERS=$large_peers, $avail MiB available, $((large_mib * 12)) MiB wanted)"
    fi
    rm -f "$big"
fi

stream="(skipped: STAX_BENCH_STREAM_MIB=0)"
if [ "$stream_mib" -gt 0 ]; then
    echo "== streaming $stream_mib MiB from the generator through stax select //page/title"
    "$gen" "$stream_mib" "$seed" | /usr/bin/time -f '%M %e' -o "$tmp/time" "$stax" select //page/title - | wc -l >"$tmp/n"
    stream=$(awk -v mib="$stream_mib" -v n="$(cat "$tmp/n")" '{
        printf "`gen %d | stax select //page/title -`: %.1f s, peak RSS %.1f MiB, %d titles\n", mib, $2, $1 / 1024, n }' "$tmp/time")
fi

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null) || cpu=
stax_v=$("$stax" --version 2>/dev/null | head -n 1) || stax_v=
xs_v=$(dpkg-query -W -f='${Version}' xmlstarlet 2>/dev/null) || xs_v=
lx_v=$(dpkg-query -W -f='${Version}' libxml2 2>/dev/null) || lx_v=
load=$(cut -d' ' -f1-3 /proc/loadavg)

mkdir -p "$build"
{
    echo "# stax select benchmark results"
    echo
    echo "$(date -u +%Y-%m-%d), ${cpu:-unknown CPU}, $(nproc) cores, load average $load before the run;"
    echo "${stax_v:-stax ?}, xmlstarlet ${xs_v:-?}, libxml2 ${lx_v:-?}."
    echo "Document: \`gen $mib $seed\` ($mib MiB), read from a file; hyperfine --warmup 1 --runs $runs."
    echo
    echo "## titles: //page/title"
    echo
    cat "$tmp/titles.md"
    echo
    ratio_table titles q_titles q_titles_xml x_titles l_titles
    echo
    echo "## ids: //node/@id"
    echo
    cat "$tmp/ids.md"
    echo
    ratio_table ids q_ids q_ids_xml x_ids l_ids
    echo
    echo "## csv: --csv '$csv_cols' //node"
    echo
    cat "$tmp/csv.md"
    echo
    ratio_table csv q_csv x_csv
    echo
    echo "## Time / stax count, in $rounds rounds (3 runs each after 1 warm-up)"
    echo
    echo "$ratios"
    echo
    echo "## Peak RSS and time, one run each"
    echo
    echo "$rss"
    echo
    echo "$large"
    echo
    echo "## Streaming"
    echo
    echo "$stream"
} >"$results"
cat "$results"
echo "== written to $results"
