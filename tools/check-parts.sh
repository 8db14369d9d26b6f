#!/bin/sh
# The single file with parts left out: tests/single_parts.c around
# tests/single_options_impl.c, built natively and run once per switch below
# (each with STAX_NO_STDIO and STAX_NO_THREADS, as firmware builds it), and
# for each the implementation's object checked with nm:
#   - it calls nothing from libc but what docs/embedded.md lists;
#   - STAX_SMALL (the code built for size, as -Os gives it): the Latin-1
#     table is gone;
#   - STAX_NO_WRITER / STAX_NO_SELECT: no stax_writer_ / stax_select_ function
#     is left in it; STAX_NO_WRITER_NS: no namespace-aware writer call; STAX_NO_FAST_PATH: no stax__rd_fast; STAX_NO_RESUME: no
#     save or resume function; STAX_NO_DTD,
#     STAX_NO_EXTERNAL, STAX_NO_NAMESPACES, STAX_NO_MESSAGES: the part's
#     messages are gone with its code (omitted.c stands in for the functions
#     the reader calls).
# Usage: CC='cc -std=c11 ...' sh tools/check-parts.sh SINGLE.h OUT_DIR
set -eu
[ $# -eq 2 ] || { echo "usage: sh tools/check-parts.sh SINGLE.h OUT_DIR" >&2; exit 2; }
single=$1
out=$2/parts
cc=${CC:-cc -std=c11}
die() {
    echo "check-parts: $*" >&2
    exit 1
}
# libc (docs/embedded.md), the test's allocator hooks, the compiler's helpers
allowed='memcpy|memmove|memset|memcmp|memchr|strlen|stax_test_realloc|stax_test_free|__cpu_indicator_init|__cpu_model|__stack_chk_fail|_GLOBAL_OFFSET_TABLE_'

rm -rf "$out"
n=0
for macros in "" "-DSTAX_NO_DTD" "-DSTAX_NO_EXTERNAL" "-DSTAX_NO_NAMESPACES" "-DSTAX_NO_MESSAGES" "-DSTAX_NO_WRITER" "-DSTAX_NO_WRITER_NS" \
    "-DSTAX_NO_SELECT" "-DSTAX_NO_FAST_PATH" "-DSTAX_NO_RESUME" "-DSTAX_SMALL" \
    "-DSTAX_NO_DTD -DSTAX_NO_NAMESPACES -DSTAX_NO_MESSAGES -DSTAX_NO_WRITER -DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_FAST_PATH -DSTAX_NO_RESUME -DSTAX_SMALL"; do
    n=$((n + 1))
    d=$out/$n
    mkdir -p "$d"
    all="-DSTAX_NO_STDIO -DSTAX_NO_THREADS $macros"
    # shellcheck disable=SC2086
    $cc $all -I"$(dirname "$single")" -c tests/single_options_impl.c -o "$d/impl.o"
    # shellcheck disable=SC2086
    $cc $all -I"$(dirname "$single")" -c tests/single_parts.c -o "$d/main.o"
    $cc -o "$d/run" "$d/main.o" "$d/impl.o"
    "$d/run" || die "tests/single_parts.c failed with: ${macros:-nothing left out}"
    nm -u "$d/impl.o" | awk '{ print $NF }' >"$d/undefined"
    bad=$(grep -Evx "$allowed" "$d/undefined" | tr '\n' ' ' || true)
    [ -z "$bad" ] || die "with '${macros:-nothing left out}' the implementation calls: $bad"
    nm --defined-only "$d/impl.o" | awk '{ print $NF }' >"$d/defined"
    strings -n 8 "$d/impl.o" >"$d/strings"
    gone() { # gone MACRO FILE REGEX: with MACRO, no line of $d/FILE matches REGEX
        case " $macros " in *" $1 "*)
            if grep -Eq "$3" "$d/$2"; then die "with $1 still there: $(grep -E "$3" "$d/$2" | head -3 | tr '\n' ' ')"; fi ;;
        esac
    }
    gone -DSTAX_NO_WRITER defined '^stax_(writer|select)_'
    gone -DSTAX_NO_SELECT defined '^stax_select_'
    gone -DSTAX_NO_WRITER_NS defined '^stax_writer_(start_ns|attr_ns|inherit_ns)$'
    gone -DSTAX_NO_DTD strings 'DTD larger than max_dtd|ATTLIST'
    gone -DSTAX_NO_EXTERNAL strings 'the resolver could not give it'
    gone -DSTAX_NO_NAMESPACES strings 'is not a QName|unbound prefix'
    gone -DSTAX_NO_FAST_PATH defined '^stax__rd_fast$'
    gone -DSTAX_NO_RESUME defined '^stax_(reader_save|reader_resume|context_)'
    gone -DSTAX_NO_MESSAGES strings 'does not match start tag'
    gone -DSTAX_SMALL defined '^enc_latin1_utf8$'
    echo "check-parts: ${macros:-nothing left out}: runs; calls $(tr '\n' ' ' <"$d/undefined")"
done
