#!/bin/sh
# The single file under its configuration macros, and #line directives only
# when asked for:
#   - SINGLE (written without --line) has no #line; LINE (with --line) has them
#     and compiles (-fsyntax-only: the code is SINGLE's, which is built and
#     run; the directives only change the names and lines messages give);
#   - tests/single_options.c around tests/single_options_impl.c, built and run
#     with each set of macros below; the implementation's object must not call
#     malloc/realloc/free (STAX_REALLOC/STAX_FREE replace them) nor any printf,
#     nor pthreads under STAX_NO_THREADS, nor read/write/stdio under
#     STAX_NO_STDIO.
# Usage: CC='cc -std=c11 ...' sh tools/check-single.sh SINGLE LINE OUT_DIR
set -eu
[ $# -eq 3 ] || { echo "usage: sh tools/check-single.sh SINGLE.h LINE.h OUT_DIR" >&2; exit 2; }
single=$1
line=$2
out=$3/options
cc=${CC:-cc -std=c11}
die() {
    echo "check-single: $*" >&2
    exit 1
}

if grep -q '^#line' "$single"; then die "$single has #line directives (only --line adds them)"; fi
grep -q '^#line 1 "stax.c"$' "$line" || die "$line has no #line directive for stax.c"
rm -rf "$out"
mkdir -p "$out/line"
cp "$line" "$out/line/stax.h"
$cc -I"$out/line" -fsyntax-only tests/single_impl.c || die "the --line single file does not compile"

n=0
for macros in "" "-DSTAX_NO_THREADS" "-DSTAX_NO_EXTRA_ENCODINGS" \
    "-DSTAX_NO_STDIO -DSTAX_NO_THREADS -DSTAX_NO_EXTRA_ENCODINGS -DSTAX_NO_SIMD"; do
    n=$((n + 1))
    d=$out/$n
    mkdir -p "$d"
    # shellcheck disable=SC2086
    $cc $macros -I"$(dirname "$single")" -c tests/single_options_impl.c -o "$d/impl.o"
    # shellcheck disable=SC2086
    $cc $macros -I"$(dirname "$single")" -c tests/single_options.c -o "$d/main.o"
    case $macros in *STAX_NO_THREADS*) threads= ;; *) threads=-lpthread ;; esac
    $cc -o "$d/run" "$d/main.o" "$d/impl.o" $threads
    "$d/run" || die "tests/single_options.c failed with: ${macros:-no macros}"

    forbidden='malloc|calloc|realloc|free|.*printf.*'
    case $macros in *STAX_NO_THREADS*) forbidden="$forbidden|pthread_.*" ;; esac
    case $macros in *STAX_NO_STDIO*) forbidden="$forbidden|read|write|fread|fwrite|fflush|ferror" ;; esac
    nm -u "$d/impl.o" | awk '{ print $NF }' >"$d/undefined"
    if grep -Ex "$forbidden" "$d/undefined" >"$d/bad"; then
        die "with '${macros:-no macros}' the implementation still calls: $(tr '\n' ' ' <"$d/bad")"
    fi
    echo "check-single: ${macros:-no macros}: runs; calls only $(tr '\n' ' ' <"$d/undefined")"
done
