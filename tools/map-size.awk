# Bytes of flash (code, read-only data, initialized data) that the input
# sections of the object files matching `obj` (an awk regex) keep in a GNU ld
# map file (-Wl,-Map): "TOTAL TEXT RODATA". Sections the linker discarded
# (--gc-sections) are listed before "Linker script and memory map" and are
# not counted.
#   awk -v obj='stax_impl\.o$' -f tools/map-size.awk FILE.map
function hex(s,    i, c, v) {
    v = 0
    s = tolower(substr(s, 3))
    for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1)) - 1
        v = v * 16 + c
    }
    return v
}
/^Linker script and memory map/ { on = 1; next }
!on { next }
/^ \.[^ ]/ {
    sec = $1
    if (NF < 4) next
    size = $3
    file = $4
}
/^                0x/ && NF == 3 { size = $2; file = $3 }
file != "" {
    if (file ~ obj && sec !~ /^\.(bss|comment|ARM\.attributes|debug)/ && sec !~ /^\.(bss|noinit)\./) {
        n = hex(size)
        total += n
        if (sec ~ /^\.text/) text += n
        else ro += n
    }
    file = ""
}
END { printf "%d %d %d\n", total, text, ro }
