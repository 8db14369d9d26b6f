# shellcheck shell=sh
# Variables set here are used by the scripts that source this file; they set
# script and build, which are used here.
# shellcheck disable=SC2034,SC2154
# Shell helpers of the benchmark scripts (POSIX sh), sourced from the top of the
# source tree after the script sets $script (its name, for messages) and $build.

die() {
    echo "$script: $*" >&2
    exit 1
}

# whole NAME VALUE: VALUE is a whole number, or the script stops.
whole() {
    case $2 in '' | *[!0-9]*) die "$1 must be a whole number, not '$2'" ;; esac
}

# The elements= and attributes= fields of the count line on stdin.
counts_of() { tr ' ' '\n' | grep -E '^(elements|attributes)=' | paste -s -d ' ' -; }

# Installs what the benchmarks need, builds stax (unless $STAX names the binary
# to measure) and the bench programs, and sets stax, gen, expat, libxml2 and
# pugixml to their paths.
build_bench_tools() {
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
    expat=$build/expat_count
    libxml2=$build/libxml2_count
    pugixml=$build/pugixml_count
}

# "CPU, N cores": the machine, for the results.
machine_line() {
    cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null) || cpu=
    echo "${cpu:-unknown CPU}, $(nproc) cores"
}

# The versions of everything measured and of the tools measuring, for the results.
versions_line() {
    v_stax=$("$stax" --version 2>/dev/null | head -n 1) || v_stax=
    v_expat=$(dpkg-query -W -f='${Version}' libexpat1 2>/dev/null) || v_expat=
    v_libxml2=$(dpkg-query -W -f='${Version}' libxml2 2>/dev/null) || v_libxml2=
    v_pugixml=$(dpkg-query -W -f='${Version}' libpugixml1v5 2>/dev/null) || v_pugixml=
    v_cc=$(cc --version 2>/dev/null | head -n 1) || v_cc=
    v_cxx=$(${CXX:-g++} --version 2>/dev/null | head -n 1) || v_cxx=
    v_hyperfine=$(hyperfine --version 2>/dev/null) || v_hyperfine=
    v_valgrind=$(valgrind --version 2>/dev/null) || v_valgrind=
    echo "${v_stax:-stax ?}, expat ${v_expat:-?}, libxml2 ${v_libxml2:-?}, pugixml ${v_pugixml:-?};" \
        "${v_cc:-cc ?}, ${v_cxx:-c++ ?}; ${v_hyperfine:-hyperfine ?}, ${v_valgrind:-valgrind ?}"
}
