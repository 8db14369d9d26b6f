#!/bin/sh
# stax check|count --part K/N run as N separate processes under GNU parallel,
# then stax merge over their part records: stdout, stderr and the exit status
# must be those of the serial `stax check|count FILE`, on generated documents
# (records, deep nesting, mixed content, a dump with namespaces), the
# fixtures (not well-formed ones among them) and documents whose cuts fall
# inside comments, CDATA sections and attribute values.
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
docs="$docs $tmp/fooling.xml $tmp/fooling-bad.xml"
fixtures=$(echo fixtures/*.xml)

runs=0
fail=0
for doc in $docs $fixtures; do
    case " $fixtures " in
    *" $doc "*) modes="plain" ranges="3 32" ;;
    *) modes="plain --namespaces" ranges="2 7 32" ;;
    esac
    for cmd in check count; do
        for mode in $modes; do
            flags=$mode
            [ "$mode" = plain ] && flags=
            "$stax" $flags $cmd "$doc" > "$tmp/serial.out" 2> "$tmp/serial.err" && src=0 || src=$?
            for n in $ranges; do
                rm -f "$tmp"/p.*
                # one process per range, two at a time: nothing is shared but the file
                seq 0 $((n - 1)) | parallel --will-cite -j 2 "$stax $flags $cmd --part {}/$n $doc > $tmp/p.{}" || {
                    echo "check-ranges.sh: a range reader failed: $cmd --part K/$n $doc" >&2
                    fail=1
                    continue
                }
                "$stax" merge "$doc" "$tmp"/p.* > "$tmp/merged.out" 2> "$tmp/merged.err" && mrc=0 || mrc=$?
                runs=$((runs + 1))
                if [ $mrc -ne $src ] || ! cmp -s "$tmp/serial.out" "$tmp/merged.out" ||
                    ! cmp -s "$tmp/serial.err" "$tmp/merged.err"; then
                    echo "check-ranges.sh: $flags $cmd $doc in $n ranges: exit $mrc (serially $src)" >&2
                    diff "$tmp/serial.out" "$tmp/merged.out" >&2 || :
                    diff "$tmp/serial.err" "$tmp/merged.err" >&2 || :
                    fail=1
                fi
            done
        done
    done
done
[ $fail -eq 0 ] || exit 1
echo "check-ranges.sh: $runs merged reads under GNU parallel, each equal to the serial read"
