#!/bin/sh
# Code comments state a constraint ("out of line: inline, it takes the
# loop's registers"), not a measurement that the next change makes false
# ("cost deep 1.9%"): measurements belong in docs/benchmarks.md (what is
# true now) and bench/log.md (history). This fails (exit 1, one FILE:LINE:
# line per finding) when a comment of the C sources holds a percentage.
# Usage: sh tools/check-comments.sh [FILE...]   (default: the library's and the tool's C files)
set -u
[ $# -gt 0 ] || set -- *.c *.h cli/*.c cli/*.h
command -v perl >/dev/null 2>&1 || { echo "check-comments: perl not found" >&2; exit 2; }

perl -n /dev/fd/3 "$@" 3<<'PERL'
    BEGIN { $found = 0; $in = 0 }
    my $l = $_;
    chomp $l;
    my $c = '';
    if ($in) {                       # inside a block comment
        if ($l =~ m{^(.*?)\*/}) { $c = $1; $in = 0 } else { $c = $l }
    } else {
        (my $code = $l) =~ s/"(?:[^"\\]|\\.)*"//g;   # string literals are no comment
        if ($code =~ m{/\*(.*?)(\*/|$)}) { $c = $1; $in = $2 eq '' }
        elsif ($code =~ m{//(.*)$}) { $c = $1 }
    }
    if ($c =~ /(\d(?:\.\d+)?\s?%)(?![-+ #0-9.]*[a-zA-Z])|(\d\s?%\s)/) {
        print "$ARGV:$.: a percentage in a comment: $l\n";
        $found++;
    }
    if (eof) { close ARGV; $in = 0 }
    END { exit($found ? 1 : 0) }
PERL
st=$?
[ $st -ne 0 ] || echo "check-comments: $# files hold no percentage in a comment"
exit $st
