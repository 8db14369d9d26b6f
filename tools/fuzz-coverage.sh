#!/bin/sh
# Line coverage of the library from the fuzz corpora.
#
#   sh tools/fuzz-coverage.sh                    build, replay, print the table
#   sh tools/fuzz-coverage.sh --uncovered dtd.c  ... and list dtd.c's lines never run
#                                                (--uncovered may be repeated; "all" lists every file)
#   sh tools/fuzz-coverage.sh --no-replay ...    report again from the last replay
#
# It builds the library (the files of LIB_SRC in the Makefile) with clang's
# source-based coverage (-fprofile-instr-generate -fcoverage-mapping), links the
# fuzz targets into one replay program (tests/fuzz/replay.c: no libFuzzer, no
# sanitizers), replays through each target its seed corpus (tests/fuzz/corpus/T)
# and its saved corpus ($FUZZ_CORPUS/T, default build/fuzz/corpus/T: what
# `make fuzz-T` runs leave), merges the profiles with llvm-profdata and prints
# per-file line coverage with llvm-cov. Crash inputs (tests/fuzz/crashes) are not
# replayed: they abort until their bug is fixed.
#
# Environment: FUZZ_CC (clang), BUILD (build), FUZZ_CORPUS, LLVM_COV (llvm-cov),
# LLVM_PROFDATA (llvm-profdata). Output in $BUILD/cov/.
set -eu

CC=${FUZZ_CC:-clang}
BUILD=${BUILD:-build}
B=$BUILD/cov
CORPUS=${FUZZ_CORPUS:-$BUILD/fuzz/corpus}
COV=${LLVM_COV:-llvm-cov}
PROFDATA=${LLVM_PROFDATA:-llvm-profdata}

replay=1
uncovered=
while [ $# -gt 0 ]; do
    case $1 in
    --no-replay) replay=0 ;;
    --uncovered) shift; uncovered="$uncovered ${1:?--uncovered needs a file}" ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "fuzz-coverage: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

[ -f Makefile ] && [ -d tests/fuzz ] || { echo "fuzz-coverage: run from the top of the stax tree" >&2; exit 2; }
LIB_SRC=$(sed -n 's/^LIB_SRC *= *//p' Makefile)
# and the private headers with code of their own (inline functions: the start
# tag's grammar in reader_tag.h, the block layer in scan.h, ...), reported
# beside the files that include them
LIB_HDR=$(sed -n 's/^LIB_HDR *= *//p' Makefile)
[ -n "$LIB_SRC" ] || { echo "fuzz-coverage: no LIB_SRC in the Makefile" >&2; exit 2; }
# the targets fuzz.mk builds: one list, so a new target is measured too
TARGETS=$(sed -n 's/^FUZZ_TARGETS *= *//p' tests/fuzz/fuzz.mk)
[ -n "$TARGETS" ] || { echo "fuzz-coverage: no FUZZ_TARGETS in tests/fuzz/fuzz.mk" >&2; exit 2; }

if [ $replay = 1 ]; then
    mkdir -p "$B/obj"
    # the fuzz builds' arena (tests/fuzz/fuzz.mk, FUZZ_ARENA)
    STD="-std=c11 -D_POSIX_C_SOURCE=200809L -DSTAX_ABORT_ON_INTERNAL $(sed -n 's/^FUZZ_ARENA *= *//p' tests/fuzz/fuzz.mk) -I."
    objs=
    for f in $LIB_SRC; do
        o=$B/obj/$(basename "$f" .c).o
        $CC $STD -g -O1 -fprofile-instr-generate -fcoverage-mapping -c "$f" -o "$o"
        objs="$objs $o"
    done
    # the harness itself is not measured
    for f in fuzz_check fuzz_gen; do
        $CC $STD -g -O1 -c tests/fuzz/$f.c -o "$B/obj/$f.o"
        objs="$objs $B/obj/$f.o"
    done
    for t in $TARGETS; do
        # each target's entry point and custom mutator (fuzz_reader, fuzz_dtd) under its own name
        $CC $STD -g -O1 -DLLVMFuzzerTestOneInput=fz_target_$t -DLLVMFuzzerCustomMutator=fz_mutator_$t \
            -c tests/fuzz/fuzz_$t.c -o "$B/obj/fuzz_$t.o"
        objs="$objs $B/obj/fuzz_$t.o"
    done
    $CC $STD -g -O1 -c tests/fuzz/replay.c -o "$B/obj/replay.o"
    $CC -fprofile-instr-generate $objs "$B/obj/replay.o" -lpthread -o "$B/replay"

    rm -rf "$B/prof" && mkdir -p "$B/prof"
    for t in $TARGETS; do
        dirs=
        for d in "tests/fuzz/corpus/$t" "$CORPUS/$t"; do
            [ -d "$d" ] && dirs="$dirs $d"
        done
        [ -n "$dirs" ] || { echo "fuzz-coverage: no corpus for $t" >&2; continue; }
        # shellcheck disable=SC2086
        LLVM_PROFILE_FILE="$B/prof/$t.profraw" "$B/replay" "$t" $dirs
    done
    "$PROFDATA" merge -sparse "$B"/prof/*.profraw -o "$B/fuzz.profdata"
fi

[ -f "$B/fuzz.profdata" ] || { echo "fuzz-coverage: no profile; run without --no-replay" >&2; exit 2; }
# The table: lines, then regions and branches, per file.
echo
# shellcheck disable=SC2086
"$COV" report "$B/replay" -instr-profile="$B/fuzz.profdata" $LIB_SRC $LIB_HDR >"$B/report.txt"
awk 'BEGIN { printf "%-18s %7s %7s %8s   %8s %9s\n", "file", "lines", "missed", "lines %", "regions %", "branches %" }
     $1 ~ /\.[ch]$/ || $1 == "TOTAL" { printf "%-18s %7s %7s %8s   %8s %9s\n", $1, $8, $9, $10, $4, $13 }' "$B/report.txt"
echo "(full report: $B/report.txt)"

# Lines with a count of 0 (lines without code have no count).
[ "$uncovered" = " all" ] && uncovered="$LIB_SRC $LIB_HDR"
for f in $uncovered; do
    echo
    echo "== $f: lines never run"
    "$COV" show "$B/replay" -instr-profile="$B/fuzz.profdata" -show-line-counts -format=text "$f" |
        awk -F'|' -v file="$f" 'NF >= 3 { c = $2; gsub(/ /, "", c); if (c == "0") { n = $1; gsub(/ /, "", n); line = $0; sub(/^[^|]*\|[^|]*\|/, "", line); print file ":" n ":" line } }'
done
