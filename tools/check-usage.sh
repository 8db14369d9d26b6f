#!/bin/sh
# The usage block at the top of stax.h must stay true: extract its push-reader
# snippet, compile it against the library, and run it on a good and a bad
# document. Usage: sh tools/check-usage.sh BUILD_DIR [CXX IMPL]
# With CXX (a C++ compiler command, its flags included) and IMPL (the single
# file's implementation compiled as C++: tools/check-cpp.sh) the snippet is
# compiled as C++ with CXX and linked with IMPL instead.
set -eu
build=${1:-build}
cxx=${2:-}
impl=${3:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-usage.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
{
    printf '#define _POSIX_C_SOURCE 200809L\n#include "stax.h"\n#include <stdio.h>\n#include <unistd.h>\n'
    printf 'int main(void) {\n    int fd = 0;\n'
    sed -n '/^ \*     stax_reader \*r = stax_reader_new(NULL);/,/^ \*     stax_reader_free(r);/p' stax.h | sed 's/^ \*     //'
    printf '    printf("elements=%%lu\\n", elements);\n    return st == STAX_END ? 0 : 1;\n}\n'
} > "$tmp/usage.c"
grep -q 'stax_reader_free' "$tmp/usage.c" || { echo "check-usage: snippet not found in stax.h" >&2; exit 1; }
if [ -n "$cxx" ]; then
    # shellcheck disable=SC2086
    $cxx -x c++ "$tmp/usage.c" -x none "$impl" -lpthread -o "$tmp/usage"
else
    ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -I. "$tmp/usage.c" "$build/libstax.a" -o "$tmp/usage"
fi
out=$(printf '<r><a/><b x="1">t</b></r>' | "$tmp/usage")
[ "$out" = "elements=3" ] || { echo "check-usage: got '$out', want elements=3" >&2; exit 1; }
if printf '<a><b></a>' | "$tmp/usage" >/dev/null 2>"$tmp/err"; then
    echo "check-usage: a mismatched end tag was accepted" >&2
    exit 1
fi
grep -q "^1:7: end tag 'a' does not match start tag 'b'" "$tmp/err" || { echo "check-usage: unexpected error: $(cat "$tmp/err")" >&2; exit 1; }
echo "check-usage: the usage block of stax.h compiles and runs"
