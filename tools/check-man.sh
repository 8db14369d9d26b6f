#!/bin/sh
# The man pages stay true and clean:
#   - man/stax.1 and man/stax.3 lint clean with mandoc (warnings are errors)
#     and render with groff (what man -l uses) without a warning;
#   - stax(1) names exactly the options and the commands `stax --help` lists;
#   - the example of stax(3) compiles against the library and does what it
#     says on a good and a bad document.
# Usage: sh tools/check-man.sh BUILD_DIR (from the top of the tree)
set -eu
build=${1:-build}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stax-man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
die() {
    echo "check-man: $*" >&2
    exit 1
}
command -v mandoc >/dev/null 2>&1 || die "mandoc not found (run: sh tools/deps.sh test)"

for page in man/stax.1 man/stax.3; do
    mandoc -T lint -W warning "$page" >"$tmp/lint" 2>&1 || true
    [ ! -s "$tmp/lint" ] || { cat "$tmp/lint" >&2; die "$page: mandoc -T lint"; }
    groff -t -ww -z -mandoc "$page" >"$tmp/groff" 2>&1 || true
    [ ! -s "$tmp/groff" ] || { cat "$tmp/groff" >&2; die "$page: groff -ww"; }
done

# Options: every -x / --word token of the help text, against every Fl macro
# argument of the page (".Fl -chunk" is --chunk, ".Fl h" is -h).
"$build/stax" --help >"$tmp/help"
grep -oE '(^|[^A-Za-z0-9-])--?[A-Za-z0-9][A-Za-z0-9-]*' "$tmp/help" | sed 's/^[^-]*//' | sort -u >"$tmp/help.opts"
grep -oE '(^|[[:space:]])Fl [^[:space:]]+' man/stax.1 | sed 's/.*Fl /-/' | sort -u >"$tmp/man.opts"
[ -s "$tmp/help.opts" ] || die "no option found in stax --help"
if ! diff -u "$tmp/help.opts" "$tmp/man.opts" >"$tmp/opts.diff"; then
    cat "$tmp/opts.diff" >&2
    die "stax --help (-) and man/stax.1 (+) name different options"
fi

# Commands: the "commands:" block of the help, against the .It Cm entries of
# the page's COMMANDS section.
sed -n '/^commands:/,/^[a-z]/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' "$tmp/help" | sort -u >"$tmp/help.cmds"
sed -n '/^\.Sh COMMANDS/,/^\.Sh /s/^\.It Cm \([a-z][a-z0-9-]*\).*/\1/p' man/stax.1 | sort -u >"$tmp/man.cmds"
[ -s "$tmp/help.cmds" ] || die "no command found in stax --help"
if ! diff -u "$tmp/help.cmds" "$tmp/man.cmds" >"$tmp/cmds.diff"; then
    cat "$tmp/cmds.diff" >&2
    die "stax --help (-) and man/stax.1 (+) name different commands"
fi

# The complete example of stax(3): the .Bd -literal block of EXAMPLES that
# holds main, with the roff escapes it uses (\e for a backslash) undone.
sed -n '/^\.Sh EXAMPLES/,/^\.Sh /p' man/stax.3 | sed -n '/^\.Bd -literal$/,/^\.Ed$/p' | sed '/^\.Bd/d; /^\.Ed/d' |
    sed 's/\\e/\\/g; s/\\&//g' >"$tmp/example.c"
grep -q '^int main' "$tmp/example.c" || die "no example program in the EXAMPLES of man/stax.3"
${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -I. "$tmp/example.c" "$build/libstax.a" -lpthread -o "$tmp/example" ||
    die "the example of stax(3) does not compile"
out=$(printf '<feed><title>A &amp; B</title><entry><title>C<![CDATA[<d>]]></title></entry></feed>' | "$tmp/example")
want='<titles><title>A &amp; B</title><title>C&lt;d&gt;</title></titles>'
[ "$out" = "$want" ] || die "the example of stax(3) printed '$out', want '$want'"
if printf '<feed><title>x</feed>' | "$tmp/example" >/dev/null 2>"$tmp/err"; then die "the example accepted a bad document"; fi
grep -q "^1:15: end tag 'feed' does not match start tag 'title'" "$tmp/err" ||
    die "the example's error message: $(cat "$tmp/err")"

echo "check-man: stax.1 and stax.3 lint clean; stax.1 has the $(wc -l <"$tmp/help.opts") options and" \
    "$(wc -l <"$tmp/help.cmds") commands of --help; the example of stax.3 runs"
