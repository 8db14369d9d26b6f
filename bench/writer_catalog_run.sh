#!/bin/sh
# The catalog and stanza benchmarks (bench/writer_catalog.c, writer_stanza.c):
# each program's writers in one hyperfine run, then the instructions of a
# smaller run of each under callgrind. Prints a markdown report on stdout.
#
#   make build/writer_catalog build/writer_stanza && sh bench/writer_catalog_run.sh
#
# Environment: STAX_CATALOG_SIZE (default 1G), STAX_STANZAS (default
# 4000000), BUILD (default build), RUNS (hyperfine runs, default 10).
set -eu
cd "$(dirname "$0")/.."
size=${STAX_CATALOG_SIZE:-1G}
stanzas=${STAX_STANZAS:-4000000}
build=${BUILD:-build}
runs=${RUNS:-10}
cat=$build/writer_catalog
st=$build/writer_stanza
for p in "$cat" "$st"; do [ -x "$p" ] || { echo "writer_catalog_run.sh: build $p first" >&2; exit 1; }; done
command -v hyperfine >/dev/null || { echo "writer_catalog_run.sh: hyperfine is not installed" >&2; exit 1; }

# Same bytes first, or the comparison means nothing.
for w in stax libxml2 floor; do "$cat" $w 4M "$build/catalog-$w.xml"; done
cmp "$build/catalog-stax.xml" "$build/catalog-libxml2.xml"
cmp "$build/catalog-stax.xml" "$build/catalog-floor.xml"
for w in stax libxml2; do "$st" $w 20000 "$build/stanza-$w.xml"; done
cmp "$build/stanza-stax.xml" "$build/stanza-libxml2.xml"
bytes=$("$cat" stax "$size" /dev/stdout | wc -c)
sbytes=$(wc -c <"$build/stanza-stax.xml")
rm -f "$build"/catalog-*.xml "$build"/stanza-*.xml

hyperfine -N --warmup 1 --runs "$runs" --export-json "$build/writer-catalog.json" \
    -n "catalog stax" "$cat stax $size" -n "catalog libxml2" "$cat libxml2 $size" \
    -n "catalog floor" "$cat floor $size" -n "catalog format" "$cat format $size" >&2
hyperfine -N --warmup 1 --runs "$runs" --export-json "$build/writer-stanza.json" \
    -n "stanza stax" "$st stax $stanzas" -n "stanza libxml2" "$st libxml2 $stanzas" >&2

echo "Catalog: $bytes bytes to /dev/null. Stanzas: $stanzas of $((sbytes / 20000)) bytes on average, each flushed to a null sink."
echo
echo "| run | mean s | ± s | user s | rate | libxml2 / this |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
python3 - "$build/writer-catalog.json" "$build/writer-stanza.json" "$bytes" "$stanzas" <<'PY'
import json, sys
for path, unit, n in ((sys.argv[1], "MiB/s", int(sys.argv[3]) / 1048576), (sys.argv[2], "stanzas/s", int(sys.argv[4]))):
    res = {r["command"]: r for r in json.load(open(path))["results"]}
    lx = [r for k, r in res.items() if "libxml2" in k][0]["mean"]
    for k, r in res.items():
        print("| %s | %.3f | %.3f | %.3f | %.0f %s | %.2fx |" % (k, r["mean"], r["stddev"], r["user"], n / r["mean"], unit, lx / r["mean"]))
PY

cg() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | sed -n 's/.*refs: *//p' | tr -d ,; }
cb=$("$cat" stax 16M /dev/stdout | wc -c)
echo
echo "| program (callgrind) | instructions | per output byte or stanza |"
echo "| --- | ---: | ---: |"
for w in stax libxml2 floor format; do
    n=$(cg "$cat" $w 16M)
    echo "| \`writer_catalog $w 16M\` | $n | $(python3 -c "print('%.2f' % ($n / $cb))") |"
done
for w in stax libxml2; do
    n=$(cg "$st" $w 100000)
    echo "| \`writer_stanza $w 100000\` | $n | $((n / 100000)) |"
done
