#!/bin/sh
# One cross target of `make test-cross`: build the library, the tool, the W3C
# runner and the unit tests with Debian's cross compiler, and run them under
# qemu-user (tools/deps.sh test installs both).
#
#   sh tools/cross.sh TARGET NATIVE_BUILD     TARGET: aarch64 armhf armhf-neon i686 s390x
#
# armhf-neon is armhf built with -mfpu=neon: the NEON code on 32-bit ARM
# (Debian's armhf baseline has no NEON, so armhf itself runs the portable path).
#
# Into build/cross/TARGET:
#   1. the unit tests, through tests/lite (Criterion's interface on a small
#      runner of its own, so that no Criterion library for TARGET is needed);
#   2. the W3C suite with --chunk 3, and --fixed-sweep on the 32-bit targets (build/xmlconf: `make
#      conformance` fetches it; without it this step is skipped and says so);
#   3. the tool: canon, count, select and fmt (and check in a fixed block) over
#      fixtures/ and generated documents, compared byte for byte (stdout,
#      stderr and exit status) with the native build in NATIVE_BUILD.
# The programs are linked statically and run as `qemu-ARCH PROGRAM`: no
# binfmt_misc and no sysroot are needed (and qemu-i386 7.2 hangs in fork() in
# a dynamically linked i386 program, which the unit tests' runner does for
# every test).
set -eu

target=${1:?usage: sh tools/cross.sh TARGET NATIVE_BUILD}
native=${2:?usage: sh tools/cross.sh TARGET NATIVE_BUILD}
MAKE=${MAKE:-make}

cflags=""
case $target in
aarch64) triple=aarch64-linux-gnu qemu=qemu-aarch64 ;;
armhf) triple=arm-linux-gnueabihf qemu=qemu-arm ;;
armhf-neon) triple=arm-linux-gnueabihf qemu=qemu-arm cflags=-mfpu=neon ;;
i686) triple=i686-linux-gnu qemu=qemu-i386 ;;
s390x) triple=s390x-linux-gnu qemu=qemu-s390x ;;
*)
    echo "cross.sh: unknown target '$target' (aarch64 armhf armhf-neon i686 s390x)" >&2
    exit 2
    ;;
esac
for tool in "$triple-gcc" "$qemu"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "cross.sh: $tool missing: sh tools/deps.sh test installs it" >&2
        exit 1
    fi
done

b=build/cross/$target
root=$(pwd)
# Each step says how long it took: the cross targets are most of make test's time.
t0=$(date +%s)
took() { t1=$(date +%s); echo "$target: $1 took $((t1 - t0)) s"; t0=$t1; }
# CROSS_EXTRA: more compiler flags for every target (say -DSTAX_NO_SIMD);
# CROSS_UNIT_ARGS: more arguments for the unit runner (--verbose: each test's
# time and CPU time under qemu, from which the lists below are made).
$MAKE --no-print-directory CC="$triple-gcc" BUILD="$b" CPPFLAGS="-Itests/lite ${CROSS_EXTRA:-}" CFLAGS="$cflags" \
    LDFLAGS=-static WERROR=1 \
    "$b/stax" "$b/conformance" "$b/unit-lite" >"$b.log" 2>&1 || {
    cat "$b.log" >&2
    exit 1
}
took "the build"

# The unit tests find the tool next to their own binary (tests/test_cli.c):
# there, a script that runs the target's tool under qemu.
mkdir -p "$b/qemu"
cp "$b/unit-lite" "$b/qemu/unit-lite"
printf '#!/bin/sh\nexec %s %s "$@"\n' "$qemu" "$root/$b/stax" >"$b/qemu/stax"
chmod +x "$b/qemu/stax"
run() { "$qemu" "$@"; }

# Which unit tests run on which target, to keep `make test` within its time
# (CROSS_UNIT_ALL=1 runs every test on every target). Every target runs them
# as a sample (tests/harness.h: the long inputs a tenth as long, every 4th
# case of the big sweeps), as the sanitizer builds do.
# - i686 (32-bit) and s390x (big-endian) run every test that takes under 2 s
#   under qemu (measured with the runner's --verbose). The slower ones run on
#   one target each, the one whose difference they are most likely to meet:
#   - i686 (32-bit: sizes, limits and memory in fixed blocks): the long
#     inputs in fixed blocks, the fixed-block sweeps, the bounded DTDs, the
#     hardening limits;
#   - s390x (big-endian: saved contexts, the carry, the entity windows): save
#     and resume, the million references, the chunked long inputs, billion
#     laughs, the writer over the W3C suite;
#   - aarch64 (threads on a weakly ordered CPU): the parallel reader and
#     the tool at -j, the writer's background thread, select's random sweeps.
# - aarch64 has the native build's sizes and byte order: beside its list it
#   runs what depends on its CPU, the suites of armhf below (NEON, and the
#   AArch64 UTF-8 validation) and those that run threads (parallel*,
#   select_state, writer_async); the rest (the tool's commands, the DTD, the
#   external entities, resume, select, the long inputs) runs on i686 and
#   s390x, whose sizes or byte order differ from the native build's.
# - armhf (32-bit ARM; the portable loops): the suites whose code depends on
#   the CPU: the scanners and decoders, the reader at every chunk size and
#   its sizes, the carry, the hash, namespaces, the errors and positions, the
#   writer and its escaper.
# - armhf-neon (armhf's sizes and byte order, with NEON): of those, the suites
#   whose code reaches the NEON scanners (scan.h): all but the sizes, the
#   hash, the DTD store, the writer's numbers and its memory.
on_i686="long_fixed/entity_only long_fixed/text_entity long_fixed/ns_many_elements long_fixed/text_charref
long_fixed/cdata writer_memory/fixed_block_sweep_is_monotonic parallel/fixed_blocks
dtd/empty_entities_in_a_default_are_bounded dtd/parameter_entity_bomb_is_bounded
hardening/nested_chains_up_to_max_token hardening/attribute_values_every_type_and_source
hardening/fixed_block_outcome_is_monotonic dtd/quadratic_blowup"
on_s390x="carry/a_million_references_stream_at_megabyte_chunks long_repro/million_refs_chunk_1m
resume/generated_shapes resume/w3c_sample resume/fixtures dtd/billion_laughs_in_content
dtd/billion_laughs_in_attribute long_chunks/entity_only long_chunks/text_entity long_chunks/ns_one_element
long_chunks/ns_many_elements long_chunks/dtd_entities long_chunks/dtd_attlists long_chunks/comments
long_chunks/cdata writer_fmt/w3c_suite"
on_aarch64="parallel/w3c_sample parallel/tool_output_equals_one_thread parallel/pipe_records_in_parts_within_the_buffers
parallel/fixtures parallel/generated_shapes parallel/tool_generated_shapes parallel_cli/fixtures
parallel_cli/generated_shapes parallel_cli/parts_documents_that_fool_a_splitter
parallel_cli/documents_that_fool_a_splitter parallel_cli/parts_fixtures writer_async/one_huge_text_resumes_linearly
namespaces/prefix_lookup_does_not_walk_every_binding select/random_records_with_every_match_agree_with_the_tree_walker
select/random_records_agree_with_the_tree_walker select/random_paths_agree_with_the_tree_walker
select/random_records_of_attributes_agree_with_the_tree_walker"
cpu_suites="scan encoding encoding_tables reader reader_encoding reader_examples chunks positions sizing hash
namespaces errors api limits dtd_store writer writer_numbers writer_errors writer_examples writer_memory"
neon_suites="scan encoding encoding_tables reader reader_encoding reader_examples chunks positions namespaces
errors api writer writer_errors writer_examples"
thread_suites="parallel parallel_cli select_state writer_async"
selection=""
if [ "${CROSS_UNIT_ALL:-0}" != 1 ]; then
    case $target in
    aarch64)
        for s in $cpu_suites carry $thread_suites; do selection="$selection --filter $s/*"; done
        for t in $on_aarch64; do selection="$selection --filter $t"; done
        for t in $on_i686 $on_s390x; do selection="$selection --exclude $t"; done
        ;;
    i686) for t in $on_aarch64 $on_s390x; do selection="$selection --exclude $t"; done ;;
    s390x) for t in $on_aarch64 $on_i686; do selection="$selection --exclude $t"; done ;;
    armhf | armhf-neon)
        suites=$cpu_suites
        [ "$target" = armhf ] || suites=$neon_suites
        for s in $suites carry; do selection="$selection --filter $s/*"; done
        selection="$selection --exclude carry/a_million_references_stream_at_megabyte_chunks"
        ;;
    esac
fi

fail=0
echo "$target: unit tests"
# $selection is a list of words on purpose, its globs for the runner (set -f).
set -f
# shellcheck disable=SC2086
STAX_LITE_TIMEOUT_SCALE=20 run "$b/qemu/unit-lite" --jobs 1 $selection ${CROSS_UNIT_ARGS:-} >"$b/unit.out" 2>&1 || fail=1
set +f
if [ $fail -ne 0 ] || grep -q '^\[FAIL\]' "$b/unit.out"; then
    grep -v '^\[INFO\]' "$b/unit.out" >&2
    echo "$target: unit tests FAILED" >&2
    fail=1
fi
tail -n 1 "$b/unit.out"
took "the unit tests"

# The fixed-block sweep (every document in blocks of growing sizes) where the
# sizes differ from the native build's: on the two 32-bit ABIs (i686 aligns
# 64-bit fields to 4 bytes, ARM's EABI to 8). The 64-bit targets have the
# native build's sizes; the sweep is seven eighths of this step under qemu.
sweep=""
case $target in armhf | i686) sweep=--fixed-sweep ;; esac
echo "$target: W3C suite, --chunk 3 $sweep"
if [ -f build/xmlconf/package/cleaned/xmlconf-flattened.xml ]; then
    # shellcheck disable=SC2086
    if run "$b/conformance" build/xmlconf/package --chunk 3 --quiet $sweep >"$b/conformance.out" 2>&1; then
        cat "$b/conformance.out"
    else
        cat "$b/conformance.out" >&2
        echo "$target: W3C suite FAILED" >&2
        fail=1
    fi
else
    echo "$target: SKIPPED: no W3C suite in build/xmlconf (make conformance fetches it)"
fi
took "the W3C suite"

# Files over 2 GiB on 32-bit targets (the build defines _FILE_OFFSET_BITS=64,
# and cli/lfs.c asserts that off_t is 64-bit). Sparse files, so nothing is
# written and next to nothing read: an external entity "<e/>" followed by a
# hole to 2.2 GB, referred to by a small document. The tool opens it, fstat's
# it (a 32-bit off_t fails there with EOVERFLOW, "Value too large for defined
# data type", also under qemu: glibc checks the size) and reads it (whole, up
# to max_external_text): the error must then be that limit's, not EOVERFLOW.
# The same for a document "<r/>" followed by a hole (a real 32-bit kernel
# refuses to open it without O_LARGEFILE).
case $target in
armhf | i686)
    echo "$target: files over 2 GiB"
    printf '<e/>' >"$b/big.ent"
    truncate -s 2200000000 "$b/big.ent"
    printf '<!DOCTYPE r [<!ENTITY e SYSTEM "big.ent">]><r>&e;</r>' >"$b/big-ref.xml"
    printf '<r/>' >"$b/big.xml"
    truncate -s 2200000000 "$b/big.xml"
    st=0
    run "$b/stax" check --external "$b/big-ref.xml" 2>"$b/big.err" || st=$?
    if [ $st -ne 1 ] || ! grep -q 'larger than max_external_text.*"big.ent"' "$b/big.err"; then
        echo "$target: stax check --external over a 2.2 GB entity: exit $st, not over max_external_text:" >&2
        cat "$b/big.err" >&2
        fail=1
    fi
    st=0
    run "$b/stax" check "$b/big.xml" 2>"$b/big.err" || st=$?
    if [ $st -ne 1 ] || ! grep -q 'big.xml:1:5: ' "$b/big.err"; then
        echo "$target: stax check over a 2.2 GB document: exit $st, not the NUL byte at 1:5:" >&2
        cat "$b/big.err" >&2
        fail=1
    fi
    rm -f "$b/big.ent" "$b/big.xml"
    echo "$target: a 2.2 GB document and entity: opened, stat'ed and read"
    ;;
esac

echo "$target: the tool beside $native/stax"
docs=$(ls fixtures/*.xml)
"$native/gen" 2 7 >"$b/gen-mixed.xml"
"$native/gen" -s nonascii 0.5 3 >"$b/gen-nonascii.xml"
"$native/gen" -s attrs 0.5 5 >"$b/gen-attrs.xml"
docs="$docs $b/gen-mixed.xml $b/gen-nonascii.xml $b/gen-attrs.xml"
# Each command starts qemu: armhf and armhf-neon, whose unit tests are the
# CPU's suites, and aarch64 (with the native build's sizes and byte order)
# run the four that read and write every byte; i686 and s390x, whose sizes
# or byte order differ from the native build's, all ten.
# (select //* with 64 MiB of held output: its bookkeeping counts in max_held,
# and is smaller on 32-bit targets, so a document over the default 4 MiB stops
# later there; docs/select.md)
cmds="canon|canon --chunk 3|count|count --memory 65536|select --max-held 67108864 //*|select --count //@*|select --xml /*/*[2]|fmt|fmt --indent 0|check --memory 16384"
case $target in aarch64 | armhf | armhf-neon) cmds="canon --chunk 3|count --memory 65536|select --xml /*/*[2]|fmt" ;; esac
n=0
set -f # the paths are the tool's, not the shell's globs
for f in $docs; do
    old_ifs=$IFS
    IFS='|'
    # shellcheck disable=SC2086
    set -- $cmds
    IFS=$old_ifs
    for cmd in "$@"; do
        # $cmd is split into words on purpose.
        # shellcheck disable=SC2086
        st=0; "$native/stax" $cmd "$f" >"$b/want.out" 2>"$b/want.err" || st=$?
        # shellcheck disable=SC2086
        ct=0; run "$b/stax" $cmd "$f" >"$b/got.out" 2>"$b/got.err" || ct=$?
        if [ $st -ne $ct ] || ! cmp -s "$b/want.out" "$b/got.out" || ! cmp -s "$b/want.err" "$b/got.err"; then
            echo "$target: stax $cmd $f differs from the native build (exit $ct, native $st):" >&2
            diff "$b/want.out" "$b/got.out" | head -5 >&2 || true
            diff "$b/want.err" "$b/got.err" | head -5 >&2 || true
            fail=1
        fi
        n=$((n + 1))
    done
done
set +f
echo "$target: $n runs of the tool beside the native one"
took "the tool's runs"
if [ $fail -ne 0 ]; then
    echo "$target: FAILED" >&2
    exit 1
fi
echo "$target: passed"
