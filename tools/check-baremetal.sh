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
#   - the code blocks of docs/embedded.md are tests/baremetal/config.c and
#     stax_impl.c byte for byte;
#   - the program runs under qemu-system-arm (microbit for the M0+ build,
#     mps2-an386 for the M4) with semihosting and must say it passed; without
#     qemu-system-arm it is only linked (and the script says so).
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

# name|macros (every configuration: no stdio, no threads)
configs='full|
reader|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT
writer|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_SELECT
writer-short|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_SELECT -DSTAX_NO_MESSAGES
no-dtd|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT -DSTAX_NO_DTD
no-external|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT -DSTAX_NO_EXTERNAL
no-namespaces|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT -DSTAX_NO_NAMESPACES
no-messages|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT -DSTAX_NO_MESSAGES
no-fast-path|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_SELECT -DSTAX_NO_FAST_PATH
tiny|-DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_WRITER -DSTAX_NO_DTD -DSTAX_NO_NAMESPACES -DSTAX_NO_MESSAGES -DSTAX_NO_FAST_PATH'

# build CPU: every configuration for one CPU, results in $out/CPU/*.result
build() {
    cpu=$1
    case $cpu in
    m0plus) mcpu=cortex-m0plus board=microbit ;;
    m4) mcpu=cortex-m4 board=mps2-an386 ;;
    esac
    echo "$configs" | while IFS='|' read -r name macros; do
        d=$out/$cpu/$name
        mkdir -p "$d"
        flags="-std=c11 -Os -mthumb -mcpu=$mcpu --specs=nano.specs -ffunction-sections -fdata-sections
            -Wall -Wextra -Wpedantic -Wconversion -Werror -DSTAX_NO_STDIO -DSTAX_NO_THREADS $macros
            -I$(dirname "$single")"
        # shellcheck disable=SC2086
        $cc $flags -c tests/baremetal/stax_impl.c -o "$d/stax_impl.o" 2>"$d/log" &&
            $cc $flags -c tests/baremetal/config.c -o "$d/config.o" 2>>"$d/log" &&
            $cc $flags -c tests/baremetal/startup.c -o "$d/startup.o" 2>>"$d/log" &&
            $cc $flags -nostartfiles -T tests/baremetal/link.ld -Wl,--gc-sections -Wl,-Map="$d/map" \
                -o "$d/config.elf" "$d/startup.o" "$d/config.o" "$d/stax_impl.o" 2>>"$d/log" ||
            { echo "FAIL build: see $d/log" >"$d/result"; continue; }
        set -- $(awk -v obj='stax_impl\.o$' -f tools/map-size.awk "$d/map")
        size=$1 text=$2 ro=$3
        arm-none-eabi-nm -u "$d/stax_impl.o" | awk '{ print $NF }' >"$d/undefined"
        calls=$(grep -Ev "^($allowed)\$" "$d/undefined" | tr '\n' ' ' || true)
        run="linked only (no qemu-system-arm)"
        if [ -n "$qemu" ]; then
            timeout 60 $qemu -M $board -nographic -monitor none -serial none \
                -semihosting-config enable=on,target=native -kernel "$d/config.elf" >"$d/run" 2>&1 </dev/null &&
                grep -q 'main returned 0' "$d/run" && run="runs on $board" || run="FAIL run: $(tr '\n' ' ' <"$d/run")"
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

# The example of docs/embedded.md is the program, byte for byte.
for f in tests/baremetal/stax_impl.c tests/baremetal/config.c; do
    awk -v m="<!-- example: $f -->" '$0 == m { on = 1; next } on == 1 && /^```c$/ { on = 2; next }
        on == 2 && /^```$/ { exit } on == 2 { print }' docs/embedded.md | cmp -s - "$f" ||
        die "the code block of $f in docs/embedded.md differs from the file"
done

rm -rf "$out"
mkdir -p "$out"
# the two CPUs side by side, or one after the other in make test (one process a lane)
if [ "${STAX_TEST_JOBS:-2}" = 1 ]; then build m0plus; else build m0plus & fi
build m4
wait
fail=0
for cpu in m0plus m4; do
    echo "$configs" | while IFS='|' read -r name macros; do
        r=$(cat "$out/$cpu/$name/result" 2>/dev/null || echo "FAIL: no result")
        echo "check-baremetal: $r"
    done
done | tee "$out/summary"
grep -q 'FAIL' "$out/summary" && die "see above"
echo "check-baremetal: libc calls: $(cat "$out"/*/*/undefined | grep -v '^__' | sort -u | tr '\n' ' ')"
