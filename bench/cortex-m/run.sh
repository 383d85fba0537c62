#!/bin/bash
# run.sh [BUILD_DIR] - instructions per recorded event of the Cortex-M runtime on a Cortex-M3
# (QEMU mps2-an385), against empty hooks. Run from the top of the tree.
#
# How it counts: with -icount shift=0 QEMU advances its virtual clock by exactly 1 ns per guest
# instruction, and the board's CMSDK timer counts that clock at 25 MHz: one tick is 40
# instructions. fib.c reads the timer around fib(20) (21891 calls, 43782 events), so the
# resolution is 40 instructions in about a million, and the result is the same on every run.
# The same count by hand from `arm-none-eabi-objdump -d` of the hook agrees to the instruction.
#
# The stream drain: fibloop.c runs fib(10) 100 times (35400 events), with cygtrace_drain()
# after each into a sink that takes everything or into the UART; its cost per event is the
# difference to the same loop without the drain. The hooks' own cost is measured again in that
# loop, and their code is compared with and without the drain called (same instructions).
set -eu
O=${1:-build}
B="$O/bench/cortex-m"
make --no-print-directory -f bench/cortex-m/cortex-m.mk O="$O"

# run ELF: runs it until it prints its ticks= line; sets $line.
run() {
    local log pid
    log=$(mktemp)
    timeout 20 qemu-system-arm -M mps2-an385 -icount shift=0 -display none -monitor none \
        -serial "file:$log" -kernel "$1" 2>/dev/null &
    pid=$!
    for _ in $(seq 100); do grep -aq 'ticks=[0-9]*$' "$log" && break; sleep 0.1; done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    line=$(grep -a 'ticks=[0-9]*$' "$log" | tail -n 1 || true)
    rm -f "$log"
    [ -n "$line" ] || { echo "run.sh: $1 printed nothing" >&2; exit 1; }
}
field() { sed "s/.*[ \n]$1=\([0-9]*\).*/\1/" <<<"$line"; }

declare -A ticks bytes
for v in plain empty dwt timer nots; do
    run "$B/fib_$v.elf"
    ticks[$v]=$(field ticks)
    events=$(field events)
done
for v in empty timer null uart; do
    run "$B/loop_$v.elf"
    ticks[loop_$v]=$(field ticks)
    bytes[$v]=$(field bytes)
    loop_events=$(field events)
done

# The hook's instructions, without addresses (the layouts differ).
hook_code() {
    arm-none-eabi-objdump -d --no-show-raw-insn "$1" |
        awk '/<__cyg_profile_func_enter>:/,/^$/' |
        sed -e 's/^ *[0-9a-f]*:[[:space:]]*//' -e 's/[0-9a-f]* <\([^>+]*\)[^>]*>/<\1>/g' \
            -e 's/@.*//' -e 's/\.word.*/.word/' | tail -n +2
}
if [ "$(hook_code "$B/fib_timer.elf")" = "$(hook_code "$B/loop_null.elf")" ]; then
    same_hook=yes
else
    same_hook=NO
fi

per() { awk -v a="$1" -v b="$2" -v e="${3:-$events}" 'BEGIN { printf "%.1f", (a - b) * 40 / e }'; }
echo "Cortex-M3 (QEMU mps2-an385, -icount shift=0), fib(20): $events events"
printf '  %-34s %8s instructions per event\n' \
    "empty hooks - no hooks (the calls)" "$(per "${ticks[empty]}" "${ticks[plain]}")" \
    "runtime, DWT clock - empty hooks" "$(per "${ticks[dwt]}" "${ticks[empty]}")" \
    "runtime, board timer - empty hooks" "$(per "${ticks[timer]}" "${ticks[empty]}")" \
    "runtime, no timestamps - empty" "$(per "${ticks[nots]}" "${ticks[empty]}")"
echo "Stream drain, fib(10) x 100 between drains: $loop_events events"
printf '  %-34s %8s instructions per event\n' \
    "runtime - empty hooks (as above)" \
    "$(per "${ticks[loop_timer]}" "${ticks[loop_empty]}" "$loop_events")" \
    "drain to a sink taking all" \
    "$(per "${ticks[loop_null]}" "${ticks[loop_timer]}" "$loop_events")" \
    "drain to the UART" "$(per "${ticks[loop_uart]}" "${ticks[loop_timer]}" "$loop_events")"
awk -v b="${bytes[null]}" -v e="$loop_events" \
    'BEGIN { printf "  %-34s %8.2f bytes per event (%d bytes)\n", "stream", b / e, b }'
echo "  hook code the same with the drain called: $same_hook"

# Flash of the runtime with streaming, as the linker keeps it (-Os, --gc-sections) in the
# stream example for mps2-an385: the .text and .rodata of the runtime's objects in its map.
map=$O/firmware/mps2-an385/stream.elf.map
if [ -f "$map" ]; then
    echo "Runtime flash in examples/firmware/stream.elf (mps2-an385, Cortex-M3, -Os), bytes:"
    awk 'function hex(s,   i, n) {
             n = 0; s = tolower(substr(s, 3))
             for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
             return n
         }
         /memory map/ { on = 1; next }
         !on { next }
         /^ \.(text|rodata)[^ ]*$/ { pend = 1; next }
         /^ \.(text|rodata)[^ ]* +0x[0-9a-f]+ +0x[0-9a-f]+ / { add($3, $4); pend = 0; next }
         pend && /^ +0x[0-9a-f]+ +0x[0-9a-f]+ +[^ ]+\.o$/ { add($2, $3) }
         { pend = 0 }
         function add(size, obj,   b) {
             if (obj !~ /\/(target|common)\//) return
             b = obj; sub(/.*\//, "", b); sz[b] += hex(size)
         }
         END {
             n = split("cygtrace.o cygtrace_drain.o cygtrace_cm.o crc32.o cobs.o", o, " ")
             for (i = 1; i <= n; i++) { printf "  %-34s %8d\n", o[i], sz[o[i]]; t += sz[o[i]] }
             printf "  %-34s %8d\n", "runtime with streaming", t
         }' "$map"
fi
