# Sourced by the bench scripts (from the top of the tree, with $build set):
# installs the bench dependencies, builds what is measured, and sets
#   stax  the binary to measure: $STAX if set, else $build/stax (built here)
#   gen   the document generator, $build/gen
bench_build() {
    sh tools/deps.sh bench
    if [ -n "${STAX:-}" ]; then
        stax=$STAX
        make --no-print-directory -s BUILD="$build" bench-tools
    else
        stax=$build/stax
        make --no-print-directory -s BUILD="$build" all bench-tools
    fi
    [ -x "$stax" ] || die "$stax was not built"
    gen=$build/gen
}
