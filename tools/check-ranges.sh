#!/bin/sh
# stax check|count --part K/N run as N separate processes under GNU parallel,
# then stax merge over their part records: stdout, stderr and the exit status
# must be those of the serial `stax check|count FILE`, on generated documents
# (records, deep nesting, mixed content, a dump with namespaces), the
# fixtures (not well-formed ones among them), documents whose cuts fall
# inside comments, CDATA sections and attribute values, and one in an
# encoding stax does not read (exit status 2).
#
#   sh tools/check-ranges.sh [BUILD]     (default build; needs BUILD/stax, BUILD/gen)
set -eu
build=${1:-build}
stax=$build/stax
gen=$build/gen
command -v parallel >/dev/null 2>&1 || {
    echo "check-ranges.sh: GNU parallel is missing (sh tools/deps.sh test installs it)" >&2
    exit 1
}
[ -x "$stax" ] && [ -x "$gen" ] || {
    echo "check-ranges.sh: build $stax and $gen first (make all $gen)" >&2
    exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
docs=""
for shape in record deep mixed mixed-dump; do
    "$gen" -s $shape 1 3 > "$tmp/$shape.xml"
    docs="$docs $tmp/$shape.xml"
done
{
    echo '<?xml version="1.0"?><!DOCTYPE log [<!ENTITY rec "<e k=\"1\">expanded</e>">]><log>'
    i=0
    while [ $i -lt 400 ]; do
        echo "<e k='$i'>&rec;<!-- <e k='x'> --><![CDATA[<e>]]><f v='<e>'/>text $i</e>"
        i=$((i + 1))
    done
    echo '</log>'
} > "$tmp/fooling.xml"
sed 's/text 300/text \&undefined; 300/' "$tmp/fooling.xml" > "$tmp/fooling-bad.xml"
# an encoding neither stax nor iconv reads: exit 2, serially and merged
sed '1s/^<?xml version="1.0"?>/<?xml version="1.0" encoding="x-no-such-encoding"?>/' "$tmp/fooling.xml" > "$tmp/unknown-enc.xml"
docs="$docs $tmp/fooling.xml $tmp/fooling-bad.xml $tmp/unknown-enc.xml"
fixtures=$(echo fixtures/*.xml)

# Every range of every case is one job of a single GNU parallel run (each run
# of parallel starts a Perl interpreter: one per case took most of the time);
# then each case's parts are merged and compared with its serial read.
: > "$tmp/jobs"
: > "$tmp/cases"
id=0
sid=0
for doc in $docs $fixtures; do
    case " $fixtures " in
    *" $doc "*) modes="plain" ranges="3 32" ;;
    *) modes="plain --namespaces" ranges="2 7 32" ;;
    esac
    for cmd in check count; do
        for mode in $modes; do
            flags=$mode
            [ "$mode" = plain ] && flags=
            # the serial read, once for every count of ranges it is compared with
            sid=$((sid + 1))
            "$stax" $flags $cmd "$doc" > "$tmp/s.$sid.out" 2> "$tmp/s.$sid.err" && src=0 || src=$?
            case $doc in
            *unknown-enc.xml) [ $src -eq 2 ] || { echo "check-ranges.sh: $cmd $doc exited $src, not 2" >&2; exit 1; } ;;
            esac
            for n in $ranges; do
                id=$((id + 1))
                echo "$id $sid $src $n $cmd $doc $flags" >> "$tmp/cases"
                k=0
                while [ $k -lt $n ]; do
                    echo "$stax $flags $cmd --part $k/$n $doc > $tmp/p.$id.$k" >> "$tmp/jobs"
                    k=$((k + 1))
                done
            done
        done
    done
done

fail=0
parallel --will-cite -j "${STAX_TEST_JOBS:-2}" --joblog "$tmp/joblog" < "$tmp/jobs" || {
    echo "check-ranges.sh: range readers failed:" >&2
    awk -F '\t' 'NR > 1 && $7 != 0 { print "  " $9 " (exit " $7 ")" }' "$tmp/joblog" >&2
    fail=1
}
runs=0
while read -r id sid src n cmd doc flags; do
    "$stax" merge "$doc" "$tmp"/p.$id.* > "$tmp/merged.out" 2> "$tmp/merged.err" && mrc=0 || mrc=$?
    runs=$((runs + 1))
    if [ $mrc -ne $src ] || ! cmp -s "$tmp/s.$sid.out" "$tmp/merged.out" ||
        ! cmp -s "$tmp/s.$sid.err" "$tmp/merged.err"; then
        echo "check-ranges.sh: $flags $cmd $doc in $n ranges: exit $mrc (serially $src)" >&2
        diff "$tmp/s.$sid.out" "$tmp/merged.out" >&2 || :
        diff "$tmp/s.$sid.err" "$tmp/merged.err" >&2 || :
        fail=1
    fi
done < "$tmp/cases"
[ $fail -eq 0 ] || exit 1
echo "check-ranges.sh: $runs merged reads under GNU parallel ($(wc -l < "$tmp/jobs") range readers), each equal to the serial read"
