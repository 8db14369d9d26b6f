#!/bin/sh
# Writer benchmark: the books document through the stax writer and through
# libxml2's xmlTextWriter, to a null sink and to a file, in one hyperfine run,
# then the peak RSS of each. Prints a markdown report on stdout.
#
#   make writer-bench-tools && sh bench/writer_run.sh
#
# Environment: STAX_WRITER_MIB (document size, default 256), BUILD (default
# build), STAX_WRITER_OUT (folder for the output files, default $BUILD).
set -eu
cd "$(dirname "$0")/.."
mib=${STAX_WRITER_MIB:-256}
build=${BUILD:-build}
out=${STAX_WRITER_OUT:-$build}
stax=$build/writer_bench
lx=$build/writer_libxml2
json=$build/writer-bench.json

for p in "$stax" "$lx"; do [ -x "$p" ] || { echo "writer_run.sh: build $p first (make writer-bench-tools)" >&2; exit 1; }; done
command -v hyperfine >/dev/null || { echo "writer_run.sh: hyperfine is not installed" >&2; exit 1; }

# Same bytes first, or the comparison means nothing.
"$stax" 4 "$out/writer-check-stax.xml"
"$lx" 4 "$out/writer-check-libxml2.xml"
cmp "$out/writer-check-stax.xml" "$out/writer-check-libxml2.xml"
rm -f "$out/writer-check-stax.xml" "$out/writer-check-libxml2.xml"

# The file runs are bounded by the kernel's write path: "cp" of the same bytes
# to the same folder, in the same run, shows that floor.
"$stax" "$mib" "$out/writer-ref.xml"
hyperfine --warmup 1 --export-json "$json" \
    -n "stax null" "$stax $mib -null" \
    -n "libxml2 null" "$lx $mib -null" \
    -n "stax file" "$stax $mib $out/writer-stax.xml" \
    -n "stax file, background" "$stax $mib $out/writer-stax-bg.xml -bg" \
    -n "libxml2 file" "$lx $mib $out/writer-libxml2.xml" \
    -n "cp file" "cp $out/writer-ref.xml $out/writer-cp.xml" >&2
bytes=$(wc -c <"$out/writer-stax.xml")
cmp "$out/writer-stax.xml" "$out/writer-stax-bg.xml"
rm -f "$out/writer-stax.xml" "$out/writer-stax-bg.xml" "$out/writer-libxml2.xml" "$out/writer-ref.xml" "$out/writer-cp.xml"

rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }

echo "Document: $bytes bytes ($mib MiB requested), books records of about 922 bytes."
echo
echo "| run | mean s | ± s | MiB/s | vs libxml2 |"
echo "| --- | ---: | ---: | ---: | ---: |"
python3 - "$json" "$bytes" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[2]) / 1048576
for sink in ("null", "file"):
    lx = res["libxml2 " + sink]["mean"]
    for who in ("stax", "libxml2"):
        r = res[who + " " + sink]
        print("| %s %s | %.3f | %.3f | %.0f | %.2fx |" % (who, sink, r["mean"], r["stddev"], n / r["mean"], lx / r["mean"]))
lx = res["libxml2 file"]["mean"]
r = res["stax file, background"]
print("| stax file, background thread, 1 MiB buffers | %.3f | %.3f | %.0f | %.2fx |" % (r["mean"], r["stddev"], n / r["mean"], lx / r["mean"]))
r = res["cp file"]
print("| cp of the same bytes (the file floor) | %.3f | %.3f | %.0f | |" % (r["mean"], r["stddev"], n / r["mean"]))
PY
echo
echo "| run | peak RSS (KiB) |"
echo "| --- | ---: |"
for m in 16 $mib; do
    echo "| stax null, $m MiB | $(rss "$stax" "$m" -null) |"
    echo "| libxml2 null, $m MiB | $(rss "$lx" "$m" -null) |"
done
echo "| stax file, background, $mib MiB | $(rss "$stax" "$mib" "$out/writer-stax-bg.xml" -bg) |"
rm -f "$out/writer-stax-bg.xml"
