#!/bin/sh
# The shared library exports the public API and nothing else: its dynamic
# symbols are exactly the functions stax.h declares STAXDEF, its soname is
# libstax.so.MAJOR, and it resolves every symbol it uses (it was linked with
# what it needs). Usage: sh tools/check-symbols.sh BUILD_DIR
set -eu
build=${1:-build}
so=$build/libstax.so
[ -f "$so" ] || { echo "check-symbols: no $so (run make lib)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-symbols.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Every defined dynamic symbol, whatever its kind (functions, data, TLS).
nm -D --defined-only "$so" | awk '{ print $NF }' | sed 's/@.*//' | sort -u >"$tmp/exported"
# The API: each STAXDEF declaration names one function.
sed -n 's/^STAXDEF[^(]*[^a-z0-9_]\(stax_[a-z0-9_]*\)(.*/\1/p' stax.h | sort -u >"$tmp/declared"
[ -s "$tmp/declared" ] || { echo "check-symbols: no STAXDEF declaration found in stax.h" >&2; exit 1; }

st=0
if grep -v '^stax_[a-z0-9]' "$tmp/exported" >"$tmp/foreign"; then
    echo "check-symbols: $so exports names outside the public API:" >&2
    sed 's/^/  /' "$tmp/foreign" >&2
    st=1
fi
comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/extra"
if [ -s "$tmp/extra" ]; then
    echo "check-symbols: $so exports functions stax.h does not declare:" >&2
    sed 's/^/  /' "$tmp/extra" >&2
    st=1
fi
comm -13 "$tmp/exported" "$tmp/declared" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
    echo "check-symbols: stax.h declares functions $so does not export:" >&2
    sed 's/^/  /' "$tmp/missing" >&2
    st=1
fi

major=$(sed -n 's/^#define STAX_VERSION_MAJOR \([0-9]*\)$/\1/p' stax.h)
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libstax.so.$major" ]; then
    echo "check-symbols: soname '$soname', want libstax.so.$major" >&2
    st=1
fi

# A program linked against it with --no-allow-shlib-undefined: every symbol
# the library uses must come from a library it names (NEEDED).
printf 'int main(void) { return 0; }\n' >"$tmp/empty.c"
if ! ${CC:-cc} "$tmp/empty.c" -o "$tmp/empty" -Wl,--no-as-needed "$so" -Wl,--no-allow-shlib-undefined 2>"$tmp/link.err"; then
    echo "check-symbols: $so leaves symbols unresolved:" >&2
    sed 's/^/  /' "$tmp/link.err" >&2
    st=1
fi

[ $st -eq 0 ] && echo "check-symbols: $so (soname $soname) exports exactly the $(wc -l <"$tmp/declared") functions of stax.h"
exit $st
