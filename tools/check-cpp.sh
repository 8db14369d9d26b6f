#!/bin/sh
# The single file compiles as C99 (gcc and clang, -fsyntax-only: what C99
# refuses the compiler's front end reports, and the code generated is the C11
# build's, which the other suites run) and as C++, and works there. With g++ and clang++, at
# -std=c++11 and -std=c++20 (-Wall -Wextra -Wpedantic, warnings are errors
# with WERROR=1):
#   - tests/cpp_impl.cpp (STAX_IMPLEMENTATION, one translation unit) compiles,
#     and its public functions have their C names;
#   - tests/cpp_caller.cpp, a C++ program over the header, links with it and
#     a private STAX_STATIC copy (tests/cpp_static.cpp) and prints what it must;
#   - a C program (tests/install_demo.c, built by CC) links with it too;
#   - the usage block of stax.h (tools/check-usage.sh) and the examples of
#     docs/api.md, compiled as C++, print what the header and the page say.
# Usage: sh tools/check-cpp.sh BUILD_DIR (from the top of the tree, after `make single`)
# $warn holds several flags: it is split on purpose.
# shellcheck disable=SC2086
set -eu
build=${1:-build}
single=$build/stax.h
[ -f "$single" ] || { echo "check-cpp: no $single (make single)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-cpp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
die() {
    echo "check-cpp: $*" >&2
    exit 1
}
werror=
[ "${WERROR:-}" != 1 ] || werror=-Werror
cc=${CC:-cc}
# The examples of docs/api.md that are C++ as they stand (reader_fixed.c
# aligns its block with C11's _Alignas, reader_external.c converts void *
# implicitly). Their `= {0}` initializers are fine
# C++ but draw -Wmissing-field-initializers there, hence its -Wno.
examples="reader_push reader_pull reader_namespaces reader_dtd reader_errors select_titles"

# The ```text block after the marker <!-- output: tests/examples/NAME.c --> in docs/api.md.
output_block() {
    awk -v marker="<!-- output: tests/examples/$1.c -->" '
        $0 == marker { found = 1; next }
        found == 1 && /^```text$/ { found = 2; next }
        found == 2 && /^```$/ { exit }
        found == 2 { print }
    ' docs/api.md
}

want_caller=$(cat <<'EOF'
read: ok doc[lang=fr] p[id=1,n=a&b] 'café' q[]
wrote: <list><item v="doc[lang=fr]"></item><item v="p[id=1,n=a&amp;b]"></item><item v="'café'"></item><item v="q[]"></item></list>
error: 1 2:6: end tag 'a' does not match start tag 'b'
static copy: 4 -1
EOF
)
version=$(sed -n 's/^#define STAX_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' stax.h | paste -sd.)

for c99 in gcc clang; do
    $c99 -std=c99 -Wall -Wextra -Wpedantic $werror -I"$build" -fsyntax-only tests/single_impl.c ||
        die "$c99 -std=c99: the single file does not compile as C99"
done

n=0
for cxx in g++ clang++; do
    command -v "$cxx" >/dev/null 2>&1 || die "$cxx not found (run: sh tools/deps.sh test)"
    for std in c++11 c++20; do
        d=$tmp/$cxx-$std
        mkdir -p "$d"
        warn="-Wall -Wextra -Wpedantic $werror"
        $cxx -std=$std $warn -O2 -I"$build" -c tests/cpp_impl.cpp -o "$d/impl.o" ||
            die "$cxx -std=$std: the single file does not compile as C++"
        for f in stax_reader_new stax_writer_new stax_select_new stax_version; do
            nm "$d/impl.o" | grep -q " T $f\$" || die "$cxx -std=$std: $f is not defined with its C name"
        done
        $cxx -std=$std $warn -I"$build" -c tests/cpp_static.cpp -o "$d/static.o"
        $cxx -std=$std $warn -I"$build" -c tests/cpp_caller.cpp -o "$d/caller.o"
        $cxx -o "$d/caller" "$d/caller.o" "$d/static.o" "$d/impl.o" -lpthread
        out=$("$d/caller") || die "$cxx -std=$std: tests/cpp_caller.cpp failed"
        [ "$out" = "$want_caller
version: $version" ] || die "$cxx -std=$std: tests/cpp_caller.cpp printed:
$out"
        # C callers link with the C++-compiled implementation.
        $cc -std=c11 -Wall -Wextra -Werror -I"$build" -c tests/install_demo.c -o "$d/demo.o"
        $cxx -o "$d/demo" "$d/demo.o" "$d/impl.o" -lpthread
        [ "$("$d/demo")" = "<stax version=\"$version\">мир</stax>" ] || die "$cxx -std=$std: the C demo failed"
        # The usage block of stax.h.
        sh tools/check-usage.sh "$build" "$cxx -std=$std $warn -I$build" "$d/impl.o" >/dev/null ||
            die "$cxx -std=$std: the usage block of stax.h as C++"
        for ex in $examples; do
            $cxx -x c++ -std=$std $warn -Wno-missing-field-initializers -I"$build" -o "$d/$ex" "tests/examples/$ex.c" \
                -x none "$d/impl.o" -lpthread || die "$cxx -std=$std: tests/examples/$ex.c does not compile as C++"
            output_block "$ex" >"$d/$ex.want"
            [ -s "$d/$ex.want" ] || die "docs/api.md has no output block for tests/examples/$ex.c"
            "$d/$ex" >"$d/$ex.out" || die "$cxx -std=$std: tests/examples/$ex.c failed"
            diff -u "$d/$ex.want" "$d/$ex.out" >&2 ||
                die "$cxx -std=$std: tests/examples/$ex.c prints other than docs/api.md says (- page, + program)"
        done
        n=$((n + 1))
    done
done
echo "check-cpp: the single file compiles as C99 and as C++ ($n builds: g++ and clang++, C++11 and C++20); C++ and C callers," \
    "a STAX_STATIC copy, the usage block and $(echo "$examples" | wc -w) examples of docs/api.md run on it"
