#!/bin/sh
# The single file built for bare-metal Cortex-M0+ and Cortex-M4 with
# arm-none-eabi-gcc and newlib-nano (-Os -mthumb, -Wall -Wextra -Wpedantic
# -Wconversion -Werror), in each configuration below, linked with
# --gc-sections into tests/baremetal/ (config.c reads a configuration from
# flash in a fixed block; the allocator macros are defined away and nothing
# links stdio or syscalls, so a call to either fails the link). For each:
#   - the flash the implementation keeps (its code, read-only data and
#     initialized data, from the link map) is printed, and compared with its
#     budget when BUDGETS (from the Makefile) has one: "CPU:CONFIG:BYTES ...";
#   - `nm -u` of the implementation's object lists only the libc functions
#     docs/embedded.md promises (and the compiler's helpers);
#   - the program runs under qemu-system-arm (microbit for the M0+ build,
#     mps2-an386 for the M4) with semihosting and must say it passed; without
#     qemu-system-arm it is only linked (and the script says so).
# Then docs/embedded.md is checked against what was built and run:
#   - its code blocks are tests/baremetal/config.c and stax_impl.c byte for
#     byte, and its compile and link line builds the example and runs; the
#     same line without STAX_NO_THREADS stops at stax's #error naming the
#     switch, and with the allocator macros left out fails to link on _sbrk;
#   - the size tables (each configuration with its switches, and what each
#     part takes) and the RAM table (tests/baremetal/figures.c run on the
#     M4) are the ones this run measured: the switches and the RAM figures
#     exactly, the sizes within 1% (and 16 bytes) when the compiler is the
#     version the page names. (A line added to a source file moves the M0+
#     sizes by a few bytes: internal error messages carry __LINE__, and
#     Thumb-1 loads some constants in fewer bytes than others.)
#     STAX_UPDATE_DOCS=1 writes the measured tables into the page instead.
# Usage: BUDGETS='...' sh tools/check-baremetal.sh SINGLE.h OUT_DIR
set -eu
[ $# -eq 2 ] || { echo "usage: sh tools/check-baremetal.sh SINGLE.h OUT_DIR" >&2; exit 2; }
single=$1
out=$2
budgets=${BUDGETS:-}
cc=arm-none-eabi-gcc
die() {
    echo "check-baremetal: $*" >&2
    exit 1
}
command -v $cc >/dev/null 2>&1 || die "$cc not found (sh tools/deps.sh test installs it)"
qemu=
if command -v qemu-system-arm >/dev/null 2>&1; then qemu=qemu-system-arm; fi

# The libc functions the single file may call (docs/embedded.md), then the
# compiler's helpers (64-bit division and shifts on 32-bit targets).
allowed='memcpy|memmove|memset|memcmp|memchr|strlen|__aeabi_[a-z0-9_]+|__gnu_[a-z0-9_]+|__[a-z0-9]+[sd]i[23]'

# name|target on the M4|what it is|macros, in the order of the size table of
# docs/embedded.md (every configuration: no stdio, no threads)
configs='tiny|24 KiB|the reader, every part left out|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_DTD -DSTAX_NO_NAMESPACES -DSTAX_NO_MESSAGES -DSTAX_NO_FAST_PATH
no-messages|48 KiB|the full reader (DTD, external entities, namespaces), short messages|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT -DSTAX_NO_MESSAGES
reader||the full reader with its messages|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT
writer-short|60 KiB|reader and writer, short messages (the writer keeps its own), no namespace-aware writer calls|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_SELECT -DSTAX_NO_MESSAGES -DSTAX_NO_WRITER_NS
writer||reader and writer|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_SELECT
full||everything: reader, writer, select, every encoding|
no-dtd||the full reader without the DTD (so without external entities)|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT -DSTAX_NO_DTD
no-external||the full reader without external entities|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT -DSTAX_NO_EXTERNAL
no-namespaces||the full reader without namespaces|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT -DSTAX_NO_NAMESPACES
no-fast-path||the full reader without the fast path|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT -DSTAX_NO_FAST_PATH'

# What each part takes on the M4: label|configuration|configuration it is
# measured against (the difference of their sizes).
parts='the DTD and the external entities it declares|reader|no-dtd
the DTD alone|no-external|no-dtd
external entities|reader|no-external
namespaces|reader|no-namespaces
the messages of the reader|reader|no-messages
the fast path|reader|no-fast-path
the writer, with its messages|writer|reader
select and the extra encodings|full|writer'

doc=docs/embedded.md
top=$(pwd)
flags_of() { # CPU MACROS: the flags of every compile
    echo "-std=c11 -Os -mthumb -mcpu=$1 --specs=nano.specs -ffunction-sections -fdata-sections
        -Wall -Wextra -Wpedantic -Wconversion -Werror -DSTAX_NO_STDIO -DSTAX_NO_THREADS $2 -I$(dirname "$single")"
}
# run_qemu BOARD ELF LOG: 0 when the program says main returned 0
run_qemu() {
    timeout 60 $qemu -M "$1" -nographic -monitor none -serial none \
        -semihosting-config enable=on,target=native -kernel "$2" >"$3" 2>&1 </dev/null &&
        grep -q 'main returned 0' "$3"
}

# build CPU: every configuration for one CPU, results in $out/CPU/*.result
build() {
    cpu=$1
    case $cpu in
    m0plus) mcpu=cortex-m0plus board=microbit ;;
    m4) mcpu=cortex-m4 board=mps2-an386 ;;
    esac
    echo "$configs" | while IFS='|' read -r name target what macros; do
        d=$out/$cpu/$name
        mkdir -p "$d"
        flags=$(flags_of $mcpu "$macros")
        # shellcheck disable=SC2086
        $cc $flags -c tests/baremetal/stax_impl.c -o "$d/stax_impl.o" 2>"$d/log" &&
            $cc $flags -c tests/baremetal/config.c -o "$d/config.o" 2>>"$d/log" &&
            $cc $flags -c tests/baremetal/startup.c -o "$d/startup.o" 2>>"$d/log" &&
            $cc $flags -nostartfiles -T tests/baremetal/link.ld -Wl,--gc-sections -Wl,-Map="$d/map" \
                -o "$d/config.elf" "$d/startup.o" "$d/config.o" "$d/stax_impl.o" 2>>"$d/log" ||
            { echo "FAIL build: see $d/log" >"$d/result"; continue; }
        set -- $(awk -v obj='stax_impl\.o$' -f tools/map-size.awk "$d/map")
        size=$1 text=$2 ro=$3
        echo "$size $ro" >"$d/size"
        arm-none-eabi-nm -u "$d/stax_impl.o" | awk '{ print $NF }' >"$d/undefined"
        calls=$(grep -Ev "^($allowed)\$" "$d/undefined" | tr '\n' ' ' || true)
        run="linked only (no qemu-system-arm)"
        if [ -n "$qemu" ]; then
            run_qemu $board "$d/config.elf" "$d/run" && run="runs on $board" || run="FAIL run: $(tr '\n' ' ' <"$d/run")"
        fi
        budget=$(echo " $budgets " | tr ' ' '\n' | sed -n "s/^$cpu:$name:\\([0-9]*\\)\$/\\1/p")
        verdict=ok
        [ -z "$calls" ] || verdict="FAIL libc: $calls"
        case $run in FAIL*) verdict=$run ;; esac
        if [ -n "$budget" ] && [ "$size" -gt "$budget" ]; then verdict="FAIL over budget $budget"; fi
        printf '%-7s %-14s %6d bytes (code %6d, data %5d)%s; %s; %s\n' "$cpu" "$name" "$size" "$text" "$ro" \
            "${budget:+, budget $budget}" "$run" "$verdict" >"$d/result"
    done
}

# The code blocks of docs/embedded.md are the program, byte for byte, and its
# compile and link line is the one below the marker.
block_after() { # MARKER FENCE: the lines of the code block after the marker line
    awk -v m="$1" -v f="$2" '$0 == m { on = 1; next } on == 1 && $0 == f { on = 2; next }
        on == 2 && /^```$/ { exit } on == 2 { print }' "$doc"
}
for f in tests/baremetal/stax_impl.c tests/baremetal/config.c; do
    block_after "<!-- example: $f -->" '```c' | cmp -s - "$f" ||
        die "the code block of $f in $doc differs from the file"
done
command=$(block_after '<!-- command: tools/check-baremetal.sh runs it -->' '```sh' | sed 's/\\$//' | tr '\n' ' ')
[ -n "$command" ] || die "$doc has no compile and link line (a sh block after <!-- command: ... -->)"

# The page's compile and link line, run in a folder where build/ and tests/
# are this tree's (the line names them from the top of the tree); then the
# same line without STAX_NO_THREADS, and with an implementation that keeps
# the default allocator. One line of result in $out/command/result.
doc_command() {
    d=$out/command
    mkdir -p "$d"
    case $single in /*) sdir=$(dirname "$single") ;; *) sdir=$top/$(dirname "$single") ;; esac
    ln -s "$sdir" "$d/build"
    ln -s "$top/tests" "$d/tests"
    r="the compile and link line builds the example"
    if ! (cd "$d" && sh -c "$command") >"$d/log" 2>&1; then
        r="FAIL: the compile and link line of $doc failed (see $d/log)"
    elif [ -n "$qemu" ]; then
        elf=$(echo "$command" | sed -n 's/.* -o \([^ ]*\).*/\1/p')
        run_qemu mps2-an386 "$d/$elf" "$d/run" && r="$r, which runs" || r="FAIL: the program of the compile and link line: $(tr '\n' ' ' <"$d/run")"
    fi
    # without STAX_NO_THREADS: the #error that names it, and no other error
    nothreads=$(echo "$command" | sed 's/ -DSTAX_NO_THREADS//')
    [ "$nothreads" != "$command" ] || r="FAIL: the compile and link line has no -DSTAX_NO_THREADS"
    if (cd "$d" && sh -c "$nothreads") >"$d/log-threads" 2>&1; then
        r="FAIL: the line without STAX_NO_THREADS builds"
    elif ! grep -q '#error "stax: this target has no POSIX threads: define STAX_NO_THREADS' "$d/log-threads" ||
        [ "$(grep -c 'error:' "$d/log-threads")" != 1 ]; then
        r="FAIL: without STAX_NO_THREADS, not stax's #error alone: $(grep 'error' "$d/log-threads" | head -3 | tr '\n' ' ')"
    fi
    # the allocator macros left out: newlib's malloc needs _sbrk
    printf '#define STAX_IMPLEMENTATION\n#include "stax.h"\n' >"$d/malloc_impl.c"
    withmalloc=$(echo "$command" | sed 's| tests/baremetal/stax_impl.c| malloc_impl.c|')
    [ "$withmalloc" != "$command" ] || r="FAIL: the compile and link line does not build tests/baremetal/stax_impl.c"
    if (cd "$d" && sh -c "$withmalloc") >"$d/log-malloc" 2>&1; then
        r="FAIL: the line with the default allocator links"
    elif ! grep -q "undefined reference to \`_sbrk'" "$d/log-malloc"; then
        r="FAIL: with the default allocator, no undefined _sbrk: $(grep 'error' "$d/log-malloc" | head -3 | tr '\n' ' ')"
    fi
    case $r in FAIL*) ;; *) r="$r; without -DSTAX_NO_THREADS it stops at the #error, with malloc it needs _sbrk" ;; esac
    echo "$r" >"$d/result"
}

# The RAM figures: tests/baremetal/figures.c run on the M4, every part in
# (all) and with STAX_NO_DTD and STAX_NO_MESSAGES (small).
figures() { # NAME MACROS
    d=$out/figures/$1
    mkdir -p "$d"
    # shellcheck disable=SC2046
    if ! $cc $(flags_of cortex-m4 "$2") -nostartfiles -T tests/baremetal/link.ld -Wl,--gc-sections \
        tests/baremetal/startup.c tests/baremetal/figures.c -o "$d/figures.elf" 2>"$d/log"; then
        echo "FAIL build: see $d/log" >"$d/result"
    elif [ -z "$qemu" ]; then
        echo "not run (no qemu-system-arm)" >"$d/result"
    elif run_qemu mps2-an386 "$d/figures.elf" "$d/run"; then
        echo "ok" >"$d/result"
    else
        echo "FAIL run: $(tr '\n' ' ' <"$d/run")" >"$d/result"
    fi
}

# 1234567 -> 1,234,567
th() { printf '%s' "$1" | sed ':a;s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/;ta'; }

# The page's size tables, from this run's sizes.
gen_sizes() {
    echo '<!-- sizes: written by make test-baremetal (tools/check-baremetal.sh); STAX_UPDATE_DOCS=1 writes them anew -->'
    echo "arm-none-eabi-gcc $($cc -dumpversion), newlib-nano, \`-Os -mthumb\`, linked with \`--gc-sections\`; every"
    echo "configuration with \`STAX_NO_STDIO\`, \`STAX_NO_THREADS\` and the allocator macros defined away:"
    echo
    echo '| configuration | its switches | Cortex-M0+ | Cortex-M4 | of it data, read-only and initialized (M4) | target (M4) |'
    echo '| --- | --- | --- | --- | --- | --- |'
    echo "$configs" | while IFS='|' read -r name target what macros; do
        read -r m0 _ <"$out/m0plus/$name/size"
        read -r m4 ro <"$out/m4/$name/size"
        # shellcheck disable=SC2086
        sw=$(echo $macros | sed 's/-D\([A-Z_]*\)/`\1`/g; s/ /, /g')
        echo "| \`$name\`: $what | ${sw:-none} | $(th "$m0") | $(th "$m4") | $(th "$ro") | $target |"
    done
    echo
    echo 'What each part takes on the Cortex-M4, the difference between two rows:'
    echo
    echo '| part | bytes | rows |'
    echo '| --- | --- | --- |'
    echo "$parts" | while IFS='|' read -r label a b; do
        read -r sa _ <"$out/m4/$a/size"
        read -r sb _ <"$out/m4/$b/size"
        echo "| $label | $(th $((sa - sb))) | \`$a\` - \`$b\` |"
    done
    echo '<!-- end of sizes -->'
}

fig() { sed -n "s/^figure $2 //p" "$out/figures/$1/run"; }
# The page's RAM table, from figures.c's lines.
gen_ram() {
    echo '<!-- ram: written by make test-baremetal (tests/baremetal/figures.c run on the Cortex-M4); STAX_UPDATE_DOCS=1 writes it anew -->'
    echo "For the example's document ($(fig all document) bytes) on a 32-bit target (Cortex-M, \`STAX_NO_STDIO\`):"
    echo
    echo '| options | every part in | `STAX_NO_DTD`, `STAX_NO_MESSAGES` |'
    echo '| --- | --- | --- |'
    echo "| every option zero (the block's defaults: $(fig all zero_max_token)-byte tokens, depth $(fig all zero_max_depth))" \
        "| $(fig all min_zero) bytes | $(fig small min_zero) bytes |"
    echo "| $(fig all limits) | $(fig all min_limits) bytes | $(fig small min_limits) bytes |"
    echo "| of it, the reader's own struct | $(fig all reader) bytes | $(fig small reader) bytes |"
    echo '<!-- end of ram -->'
}

doc_block() { # NAME: the block of the page, markers included
    awk -v s="<!-- $1:" -v e="<!-- end of $1 -->" 'index($0, s) == 1 { on = 1 } on { print } on && $0 == e { exit }' "$doc"
}
# Compare the page's block NAME with FILE, or write FILE into the page with
# STAX_UPDATE_DOCS=1. MASK: the words alone (every number masked); CLOSE:
# the words, and each number within 1% (and 16) of FILE's; empty: exactly.
doc_compare() { # NAME FILE MASK|CLOSE|
    doc_block "$1" >"$2.doc"
    [ -s "$2.doc" ] || die "$doc has no <!-- $1: ... --> block"
    if [ "${STAX_UPDATE_DOCS:-}" = 1 ]; then
        awk -v s="<!-- $1:" -v e="<!-- end of $1 -->" -v f="$2" '
            index($0, s) == 1 { while ((getline l < f) > 0) print l; skip = 1; next }
            skip { if ($0 == e) skip = 0; next } { print }' "$doc" >"$out/doc.new"
        cat "$out/doc.new" >"$doc"
        echo "check-baremetal: $doc: the $1 table written"
        return 0
    fi
    for f in "$2.doc" "$2"; do
        if [ -n "$3" ]; then sed -E 's/[0-9][0-9,.]*/N/g' "$f"; else cat "$f"; fi >"$f.cmp"
    done
    if diff -u "$2.doc.cmp" "$2.cmp" >"$2.diff"; then
        [ "$3" = CLOSE ] || return 0
        awk 'function nums(s, a,    n, m) {
                n = 0
                while (match(s, /[0-9][0-9,]*/)) {
                    m = substr(s, RSTART, RLENGTH)
                    gsub(",", "", m)
                    a[++n] = m + 0
                    s = substr(s, RSTART + RLENGTH)
                }
                return n
            }
            NR == FNR { page[FNR] = $0; next }
            {
                n = nums($0, got)
                nums(page[FNR], was)
                for (i = 1; i <= n; i++) {
                    tol = got[i] / 100
                    if (tol < 16) tol = 16
                    d = was[i] - got[i]
                    if (d < 0) d = -d
                    if (d > tol) { print "+" $0; bad = 1; break }
                }
            }
            END { exit bad }' "$2.doc" "$2" >"$2.diff" && return 0
    fi
    cat "$2.diff"
    die "the $1 table of $doc (-) is not what this run measured (+): STAX_UPDATE_DOCS=1 make test-baremetal writes it"
}

rm -rf "$out"
mkdir -p "$out"
# the two CPUs side by side, or one after the other in make test (one process a lane)
if [ "${STAX_TEST_JOBS:-2}" = 1 ]; then build m0plus; else build m0plus & fi
build m4
doc_command
figures all ""
figures small "-DSTAX_NO_DTD -DSTAX_NO_MESSAGES"
wait
for cpu in m0plus m4; do
    echo "$configs" | while IFS='|' read -r name target what macros; do
        r=$(cat "$out/$cpu/$name/result" 2>/dev/null || echo "FAIL: no result")
        echo "check-baremetal: $r"
    done
done | tee "$out/summary"
for f in command/result figures/all/result figures/small/result; do
    echo "check-baremetal: $f: $(cat "$out/$f")"
done | tee -a "$out/summary"
grep -q 'FAIL' "$out/summary" && die "see above"
echo "check-baremetal: libc calls: $(cat "$out"/*/*/undefined | grep -v '^__' | sort -u | tr '\n' ' ')"

# The page's tables against this run.
gen_sizes >"$out/sizes.md"
doc_ver=$(doc_block sizes | sed -n 's/^arm-none-eabi-gcc \([0-9.]*\),.*/\1/p')
if [ "$doc_ver" = "$($cc -dumpversion)" ] || [ "${STAX_UPDATE_DOCS:-}" = 1 ]; then
    doc_compare sizes "$out/sizes.md" CLOSE
    echo "check-baremetal: $doc: the size tables are this run's (the sizes within 1%)"
else
    doc_compare sizes "$out/sizes.md" MASK
    echo "check-baremetal: $doc: the size tables name this run's configurations and switches;" \
        "their sizes are for arm-none-eabi-gcc $doc_ver, not compared with $($cc -dumpversion)'s"
fi
if [ -n "$qemu" ]; then
    gen_ram >"$out/ram.md"
    doc_compare ram "$out/ram.md" ""
    echo "check-baremetal: $doc: the RAM table is this run's"
else
    echo "check-baremetal: $doc: the RAM table not checked (no qemu-system-arm to run figures.c)"
fi
