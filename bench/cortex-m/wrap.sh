#!/bin/bash
# SPDX-License-Identifier: MIT
# wrap.sh [BUILD_DIR] - what a wrapped call costs on the Cortex-M3 (mps2-an385), against the
# same function called plainly and compiled with -finstrument-functions; and the flash a
# wrapper takes. Run from the top of the tree; prints the tables, exits 1 when a check fails.
#
# How it counts: as run.sh does. Under QEMU -icount shift=0 each guest instruction is 1 ns of
# virtual time and the AN385's timer counts 25 MHz of it, 40 instructions a tick. wrapcall.c
# times 100000 calls of bench_inc(int) and of bench_len("temperature") (bench/wrap_work.c):
# instructions per call = ticks * 1e9 / hz / calls, the loop around the call included; the
# plain variant's figure is that loop and the call alone. QEMU's timer moves in steps of 250
# ticks here: 100000 calls make that 0.1 instruction a call at most.
#
# Checks: each firmware prints the records its ring reserved during each loop, which must be
# 0 (plain), 2 a call (instr: entry, exit) and, wrapped, 4 a call for bench_inc (entry, the
# argument, the return value, exit) and 6 for bench_len (the 11 bytes of "temperature" are 3
# words of 4 bytes on the M3): a variant that did not record what it should is FAILED.
#
# Flash: the symbols' sizes (arm-none-eabi-nm -S) in the linked firmware, -Os and
# --gc-sections: each generated wrapper, in this benchmark and in the driver example
# (build/firmware/mps2-an385/wrapped.elf, nine functions of every kind of value), and the
# runtime's functions that only wrappers call. The signature table is not allocated: no flash.
set -eu
O=${1:-build}
B="$O/bench/cortex-m/wrap"
EX_ELF="$O/firmware/mps2-an385/wrapped.elf"
failed=0

# The host tool (the generator), the M3 runtime library and the example, then the benchmark.
make --no-print-directory O="$O" "$O/cygtrace" firmware-cores "$EX_ELF"
make --no-print-directory -f bench/cortex-m/wrap.mk O="$O"

# run ELF: runs it on the AN385 until it prints "done"; its output in $out.
run() {
    local log pid
    log=$(mktemp)
    timeout 30 qemu-system-arm -M mps2-an385 -icount shift=0 -display none -monitor none \
        -serial "file:$log" -kernel "$1" 2>/dev/null &
    pid=$!
    for _ in $(seq 200); do grep -aq '^done' "$log" && break; sleep 0.1; done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    out=$(cat "$log")
    rm -f "$log"
    grep -q '^done' <<<"$out" || { echo "wrap.sh: $1 printed no 'done'" >&2; exit 1; }
}
# field WORKLOAD NAME: a number of the workload's line in $out.
field() {
    awk -v w="$1" -v n="$2" '$1 == w { for (i = 2; i <= NF; i++) if (index($i, n "=") == 1)
                                           print substr($i, length(n) + 2) }' <<<"$out"
}

declare -A ins rec_per
for v in plain instr wrapped; do
    run "$B/call_$v.elf"
    for w in inc len; do
        calls=$(field $w calls)
        ins[$v.$w]=$(awk -v t="$(field $w ticks)" -v hz="$(field $w hz)" -v c="$calls" \
            'BEGIN { printf "%.1f", t * 1e9 / hz / c }')
        rec_per[$v.$w]=$(awk -v r="$(field $w rec)" -v c="$calls" 'BEGIN { printf "%g", r / c }')
    done
done
declare -A want=([plain.inc]=0 [plain.len]=0 [instr.inc]=2 [instr.len]=2 [wrapped.inc]=4
                 [wrapped.len]=6)
for k in "${!want[@]}"; do
    if [ "${rec_per[$k]}" != "${want[$k]}" ]; then
        echo "  FAILED: call_${k%.*}.elf, ${k#*.}: ${rec_per[$k]} records a call, expected ${want[$k]}"
        ins[$k]=FAILED
        failed=1
    fi
done

# above VARIANT WORKLOAD: instructions per call above the plain call.
above() {
    awk -v a="${ins[$1.$2]}" -v b="${ins[plain.$2]}" 'BEGIN {
        if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/) print "-"; else printf "%.1f", a - b }'
}
ratio() {
    awk -v w="$(above wrapped "$1")" -v i="$(above instr "$1")" 'BEGIN {
        if (w == "-" || i == "-" || i <= 0) print "-"; else printf "%.2fx", w / i }'
}
echo "Wrapped calls, Cortex-M3 (mps2-an385), QEMU -icount shift=0, $calls calls each:"
echo "instructions per call, the calling loop included; records per call in brackets"
printf '  %-46s %14s %20s\n' "" "bench_inc(int)" "bench_len(\"temperature\")"
for v in plain instr wrapped; do
    case $v in
    plain) what="plain call (no hooks)" ;;
    instr) what="-finstrument-functions + runtime hooks" ;;
    wrapped) what="precompiled, wrapped (cygtrace wrap)" ;;
    esac
    printf '  %-46s %9s [%s] %15s [%s]\n' "$what" "${ins[$v.inc]}" "${rec_per[$v.inc]}" \
        "${ins[$v.len]}" "${rec_per[$v.len]}"
done
echo "  above the plain call:"
printf '  %-46s %14s %20s\n' "-finstrument-functions + runtime hooks" "$(above instr inc)" \
    "$(above instr len)"
printf '  %-46s %14s %20s\n' "wrapped" "$(above wrapped inc)" "$(above wrapped len)"
printf '  %-46s %14s %20s\n' "wrapped / instrumented" "$(ratio inc)" "$(ratio len)"

# ---------------------------------------------------------------------------------------------
# Flash. sym_sizes ELF REGEX: "name bytes" of the symbols whose name matches REGEX.
sym_sizes() {
    local addr size type name
    arm-none-eabi-nm -S "$1" | while read -r addr size type name; do
        [ -n "$name" ] && [[ $name =~ $2 ]] && echo "$name $((16#$size))"
    done | sort
}
echo
echo "Flash per wrapper, Cortex-M3, -Os, --gc-sections (arm-none-eabi-nm -S, bytes of code"
echo "and its literal pool); the signature table (.cygtrace_wrap) is not allocated: 0 bytes"
echo "  this benchmark ($B/call_wrapped.elf):"
sym_sizes "$B/call_wrapped.elf" '^__wrap_' | awk '{ printf "    %-28s %5d\n", $1, $2 }'
if [ -f "$EX_ELF" ]; then
    echo "  the driver example ($EX_ELF):"
    sym_sizes "$EX_ELF" '^__wrap_' | awk '{ printf "    %-28s %5d\n", $1, $2; s += $2; n++ }
        END { if (n) printf "    %-28s %5d (%d wrappers, %.0f each)\n", "all", s, n, s / n }'
fi
echo "  the runtime's functions that only wrappers call (once per firmware; the example's):"
sym_sizes "$EX_ELF" '^(cygtrace_wrap_(enter|exit|value|value64|string)|cyg_value_word|cyg_value_put_out)$' |
    awk '{ printf "    %-28s %5d\n", $1, $2; s += $2 } END { printf "    %-28s %5d\n", "all", s }'
if [ -f "$EX_ELF" ]; then
    tbl=$(arm-none-eabi-objdump -h "$EX_ELF" | awk '$2 == ".cygtrace_wrap" { print $3 }')
    [ -n "$tbl" ] && tbl=$((16#$tbl))
    echo "  the driver example's signature table: ${tbl:-none} bytes in the ELF, none in flash"
fi

if [ "$failed" = 1 ]; then
    echo "wrap.sh: some checks FAILED (see above): those numbers are missing" >&2
    exit 1
fi
