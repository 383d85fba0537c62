# SPDX-License-Identifier: MIT
# mapsize.awk - what a GNU ld link map says the linker kept of the runtime: one line per object
# of the runtime and kind of section, "OBJECT KIND BYTES", KIND one of text, rodata, data, bss
# and noinit (the ring buffer's section, .noinit.cygtrace).
#   awk -f bench/cortex-m/mapsize.awk firmware.map
# The runtime's objects are the members of a libcygtrace.a, or objects built from target/ or
# common/. Only the memory map counts (after "Linker script and memory map"): the list of
# discarded input sections before it has sizes too. ld prints an input section on one line, or,
# when its name is long, the name on one line and address, size and object on the next.

function hex(s,   i, n) {
    n = 0
    s = tolower(substr(s, 3))
    for (i = 1; i <= length(s); i++)
        n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return n
}

function kind(section) {
    if (section ~ /^\.text/) return "text"
    if (section ~ /^\.rodata/) return "rodata"
    if (section ~ /^\.data/) return "data"
    if (section ~ /^\.bss/ || section == "COMMON") return "bss"
    if (section ~ /^\.noinit/) return "noinit"
    return ""
}

function add(section, size, obj,   k, o) {
    k = kind(section)
    if (k == "") return
    if (obj ~ /libcygtrace\.a\(/) {
        o = obj
        sub(/.*\(/, "", o)
        sub(/\)$/, "", o)
    } else if (obj ~ /\/(target|common)\/[^ ]*\.o$/) {
        o = obj
        sub(/.*\//, "", o)
    } else {
        return
    }
    bytes[o " " k] += hex(size)
}

/^Linker script and memory map/ { on = 1; next }
!on { next }
# A long input section name alone on its line: the rest follows.
/^ [.A-Za-z][^ ]*$/ { pend = $1; next }
/^ [.A-Za-z][^ ]* +0x[0-9a-f]+ +0x[0-9a-f]+ +[^ ]/ { add($1, $3, $4); pend = ""; next }
pend != "" && /^ +0x[0-9a-f]+ +0x[0-9a-f]+ +[^ ]/ { add(pend, $2, $3) }
{ pend = "" }

END {
    for (ok in bytes)
        if (bytes[ok] > 0)
            print ok, bytes[ok]
}
