#!/bin/sh
# The Python package beside pyexpat, ElementTree, lxml and twisted's domish
# (Debian's packages), each task in a process of its own (bench/python_task.py):
#   - titles: the text of every title of a mixed-dump document, through
#     stax.select, lxml's and ElementTree's iterparse, pyexpat, and the tool
#     (`stax select //title`), in one hyperfine run;
#   - records: every row of a record document as a dict, through
#     stax.records and the same peers, in one hyperfine run;
#   - stanzas: an XMPP message (a body, a chat state, a delay) serialized by
#     stax.stanza from domish elements, by domish, lxml and ElementTree, and
#     by stax.tostring from lxml and ElementTree trees (timeit, best of 5);
#   - peak RSS of stax.select and stax.records over STAX_BENCH_MIB and over
#     STAX_BENCH_STREAM_MIB streamed from the generator through a pipe.
#
#   sh bench/python.sh            (or: make bench-python)
#
# Environment: STAX_BENCH_MIB (default 100), STAX_BENCH_STREAM_MIB (default
# 4096; 0 skips it), STAX_BENCH_RUNS (hyperfine --runs, default 3), PYTHON
# (default /usr/bin/python3), BUILD (default build; `make python` there).
# Writes $BUILD/bench-python.md.
set -eu

cd "$(dirname "$0")/.."
script=bench/python.sh
. bench/lib.sh

mib=${STAX_BENCH_MIB:-100}
stream_mib=${STAX_BENCH_STREAM_MIB:-4096}
runs=${STAX_BENCH_RUNS:-3}
build=${BUILD:-build}
py=${PYTHON:-/usr/bin/python3}
whole STAX_BENCH_MIB "$mib"
whole STAX_BENCH_STREAM_MIB "$stream_mib"
whole STAX_BENCH_RUNS "$runs"

sh tools/deps.sh all
make --no-print-directory -s BUILD="$build" PYTHON="$py" all python "$build/gen"
stax=$build/stax
export PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1
task="$py bench/python_task.py"
dump=$build/bench-py-dump.xml
rec=$build/bench-py-record.xml
[ -s "$dump" ] && [ "$(wc -c <"$dump")" -eq $((mib * 1048576)) ] || "$build/gen" "$mib" >"$dump"
[ -s "$rec" ] && [ "$(wc -c <"$rec")" -eq $((mib * 1048576)) ] || "$build/gen" -s record "$mib" >"$rec"
out=$build/bench-python.md
{
    echo "Machine: $(machine_line); $($py --version 2>&1), lxml $($py -c 'import lxml.etree as e; print(e.__version__)')," \
        "twisted $($py -c 'import twisted; print(twisted.__version__)'); $(hyperfine --version)"
    echo
    echo "### Titles of a $mib MiB mixed-dump document"
    echo
} >"$out"
hyperfine --runs "$runs" --warmup 1 --export-markdown "$build/bench-py-titles.md" \
    -n "stax.select" "$task titles-stax $dump" \
    -n "stax select (the tool)" "$stax select //title $dump" \
    -n "lxml iterparse" "$task titles-lxml $dump" \
    -n "ElementTree iterparse" "$task titles-etree $dump" \
    -n "pyexpat" "$task titles-expat $dump"
cat "$build/bench-py-titles.md" >>"$out"
{
    echo
    echo "### Every row of a $mib MiB record document as a dict"
    echo
} >>"$out"
hyperfine --runs "$runs" --warmup 1 --export-markdown "$build/bench-py-records.md" \
    -n "stax.records" "$task records-stax $rec" \
    -n "lxml iterparse" "$task records-lxml $rec" \
    -n "ElementTree iterparse" "$task records-etree $rec" \
    -n "pyexpat" "$task records-expat $rec"
cat "$build/bench-py-records.md" >>"$out"
{
    echo
    echo "### Stanzas (timeit, best of 5 runs of 50,000)"
    echo
    echo '```'
    for lib in stax domish lxml etree stax-lxml stax-etree; do $task "stanzas-$lib" 50000; done
    echo '```'
    echo
    echo "### Peak RSS"
    echo
    echo "| run | peak RSS |"
    echo "| --- | --- |"
    for t in titles-stax records-stax titles-lxml; do
        k=$(/usr/bin/time -f %M $task $t "$( [ "${t#titles}" = "$t" ] && echo "$rec" || echo "$dump")" 2>&1 >/dev/null | tail -n 1)
        echo "| $t, $mib MiB file | $((k / 1024)) MiB |"
    done
    if [ "$stream_mib" -gt 0 ]; then
        k=$("$build/gen" "$stream_mib" | /usr/bin/time -f %M $task titles-stax /dev/stdin 2>&1 >/dev/null | tail -n 1)
        echo "| titles-stax, $stream_mib MiB from a pipe | $((k / 1024)) MiB |"
        k=$("$build/gen" -s record "$stream_mib" | /usr/bin/time -f %M $task records-stax /dev/stdin 2>&1 >/dev/null | tail -n 1)
        echo "| records-stax, $stream_mib MiB from a pipe | $((k / 1024)) MiB |"
    fi
} >>"$out"
cat "$out"
