#!/bin/sh
# The docs say what is true now; their history belongs in commit messages and
# bench/log.md. This fails (exit 1, one FILE:LINE: line per finding) when the
# docs, the header or the man pages hold:
#   - an issue reference: "#18", "issue 18", "issues 9 and 13", "the issue's";
#   - a commit hash: 7 to 40 hex digits with at least one letter and one digit;
#   - the words "round" or "review" (a "round trip" and "rounded" are fine);
#   - a history phrase: "before issue", "(before)", "as before", "this branch",
#     "the final code", "first version", "went from", "earlier run", ...
# Usage: sh tools/check-docs.sh [FILE...]   (default: docs/*.md stax.h man/* README.md)
set -u
[ $# -gt 0 ] || set -- docs/*.md stax.h man/* README.md
command -v perl >/dev/null 2>&1 || { echo "check-docs: perl not found" >&2; exit 2; }

perl -n /dev/fd/3 "$@" 3<<'PERL'
    BEGIN { $found = 0 }
    sub hit { print "$ARGV:$.: $_[0]: $_[1]\n"; $found++ }
    my $l = $_;
    chomp $l;
    # issue references (character references such as &#13; and &#x9; are not)
    hit("issue reference", $1) if $l =~ /((?<![&\w])#[0-9]+\b)/;
    hit("issue reference", $1) if $l =~ /\b(issues?(?:'s)?\s+(?:[0-9]+|of\b|figure))/i;
    hit("issue reference", $1) if $l =~ /\b(the issue's)/i;
    # commit hashes
    hit("commit hash", $1) if $l =~ /\b((?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40})\b/;
    # process words
    hit("the word round", $1) if $l =~ /\b(rounds?\b(?![- ]trips?))/i;
    hit("the word review", $1) if $l =~ /\b(review(?:s|ed|ing|er)?)\b/i;
    # history phrases
    for my $p ('before issue', 'before the fix', 'before the change', 'before this work',
               'before these changes', 'before/after', '\(before\)', 'as before', 'this branch',
               'on the branch', '`\w+` branch', 'final code', 'first versions?', 'went from',
               'earlier runs?', 'was added', 'were added', 'commit before', 'the old one',
               'last review') {
        hit("history phrase", $1) if $l =~ /(?<!\w)($p)(?!\w)/i;
    }
    close ARGV if eof;   # line numbers per file
    END { exit($found ? 1 : 0) }
PERL
st=$?
if [ $st -eq 0 ]; then
    echo "check-docs: $# files hold no issue reference, commit hash, round/review or history phrase"
else
    echo "check-docs: the docs above tell history; move it to bench/log.md or the commit message" >&2
fi
exit $st
