#!/bin/sh
# The background thread (STAX_WRITE_BACKGROUND) against the plain writer:
# the books document written at buffer sizes of 4 KiB, 64 KiB and 1 MiB to a
# file, to a pipe (into `cat >/dev/null`) and to a slow sink (writer_bench
# -slow: a sink that hashes every byte before it writes them to /dev/null, as
# a compressing sink works on them), all in one hyperfine run. Prints a
# markdown table on stdout (docs/writer.md, "Background thread").
#
#   make writer-bench-tools && sh bench/writer_sinks_run.sh
#
# Environment: STAX_WRITER_MIB (document size, default 64), BUILD (default build).
set -eu
cd "$(dirname "$0")/.."
mib=${STAX_WRITER_MIB:-64}
build=${BUILD:-build}
stax=$build/writer_bench
json=$build/writer-sinks.json
[ -x "$stax" ] || { echo "writer_sinks_run.sh: build $stax first (make writer-bench-tools)" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "writer_sinks_run.sh: hyperfine is not installed" >&2; exit 1; }

# The thread must not change a byte.
"$stax" 4 "$build/sinks-a.xml"
"$stax" 4 "$build/sinks-b.xml" -bg -buf 4096
cmp "$build/sinks-a.xml" "$build/sinks-b.xml"
rm -f "$build/sinks-a.xml" "$build/sinks-b.xml"

set --
for buf in 4096 65536 1048576; do
    for mode in plain bg; do
        flag=
        [ $mode = bg ] && flag=-bg
        set -- "$@" -n "file $buf $mode" "$stax $mib $build/sinks-out.xml -buf $buf $flag"
        set -- "$@" -n "pipe $buf $mode" "$stax $mib - -buf $buf $flag | cat >/dev/null"
        set -- "$@" -n "slow $buf $mode" "$stax $mib /dev/null -buf $buf -slow $flag"
    done
done
hyperfine --warmup 1 --runs 10 --export-json "$json" "$@" >&2
rm -f "$build/sinks-out.xml"

echo "Document: $mib MiB requested; mean seconds of 10 runs (± standard deviation)."
echo
echo "| sink | buffer | plain writer | background thread | background vs plain |"
echo "| --- | ---: | ---: | ---: | ---: |"
python3 - "$json" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
names = {"file": "file", "pipe": "pipe into `cat`", "slow": "slow sink (hash, then /dev/null)"}
for sink in ("file", "pipe", "slow"):
    for buf in (4096, 65536, 1048576):
        p, b = res["%s %d plain" % (sink, buf)], res["%s %d bg" % (sink, buf)]
        size = "%d KiB" % (buf // 1024) if buf < 1048576 else "1 MiB"
        print("| %s | %s | %.3f ± %.3f | %.3f ± %.3f | %.2fx |" % (names[sink], size, p["mean"], p["stddev"],
              b["mean"], b["stddev"], p["mean"] / b["mean"]))
PY
