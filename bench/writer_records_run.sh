#!/bin/sh
# Record-writing benchmark: the books document with numbers computed per
# record (writer_bench -records), written to a null sink by the stax writer
# with its number calls, by the stax writer with snprintf, and by libxml2's
# xmlTextWriter with its printf-style calls, in one hyperfine run. Prints a
# markdown report on stdout; with STAX_RECORDS_CALLGRIND=1 also the
# instruction counts of a 16 MiB run of each (valgrind).
#
#   make writer-bench-tools && sh bench/writer_records_run.sh
#
# Environment: STAX_WRITER_MIB (document size, default 256), BUILD (default build).
set -eu
cd "$(dirname "$0")/.."
mib=${STAX_WRITER_MIB:-256}
build=${BUILD:-build}
stax=$build/writer_bench
lx=$build/writer_libxml2
json=$build/writer-records.json

for p in "$stax" "$lx"; do [ -x "$p" ] || { echo "writer_records_run.sh: build $p first (make writer-bench-tools)" >&2; exit 1; }; done
command -v hyperfine >/dev/null || { echo "writer_records_run.sh: hyperfine is not installed" >&2; exit 1; }

# Same bytes first, or the comparison means nothing.
"$stax" 4 "$build/records-a.xml" -records
"$stax" 4 "$build/records-b.xml" -records-snprintf
"$lx" 4 "$build/records-c.xml" -records
cmp "$build/records-a.xml" "$build/records-b.xml"
cmp "$build/records-a.xml" "$build/records-c.xml"
rm -f "$build/records-a.xml" "$build/records-b.xml" "$build/records-c.xml"

hyperfine -N --warmup 2 --runs 20 --export-json "$json" \
    -n "stax, number calls" "$stax $mib -null -records" \
    -n "stax, snprintf" "$stax $mib -null -records-snprintf" \
    -n "libxml2, printf-style calls" "$lx $mib -null -records" >&2
bytes=$("$stax" "$mib" /dev/stdout -records | wc -c)

echo "Document: $bytes bytes ($mib MiB requested), books records with 6 numbers each and 2 per chapter."
echo
echo "| run | mean s | ± s | MiB/s | vs libxml2 |"
echo "| --- | ---: | ---: | ---: | ---: |"
python3 - "$json" "$bytes" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
n = int(sys.argv[2]) / 1048576
lx = [r for r in res if r["command"].startswith("libxml2")][0]["mean"]
for r in res:
    print("| %s | %.3f | %.3f | %.0f | %.2fx |" % (r["command"], r["mean"], r["stddev"], n / r["mean"], lx / r["mean"]))
PY

if [ "${STAX_RECORDS_CALLGRIND:-0}" = 1 ]; then
    echo
    echo "| program (16 MiB, null sink) | instructions |"
    echo "| --- | ---: |"
    for args in "$stax 16 -null -records" "$stax 16 -null -records-snprintf" "$lx 16 -null -records"; do
        # shellcheck disable=SC2086
        n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $args 2>&1 | sed -n 's/.*Collected : //p')
        echo "| \`$args\` | $n |"
    done
fi
