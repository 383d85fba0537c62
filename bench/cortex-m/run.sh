#!/bin/bash
# run.sh [BUILD_DIR] - instructions per recorded event of the Cortex-M runtime on a Cortex-M3
# (QEMU mps2-an385), against empty hooks. Run from the top of the tree.
#
# How it counts: with -icount shift=0 QEMU advances its virtual clock by exactly 1 ns per guest
# instruction, and the board's CMSDK timer counts that clock at 25 MHz: one tick is 40
# instructions. fib.c reads the timer around fib(20) (21891 calls, 43782 events), so the
# resolution is 40 instructions in about a million, and the result is the same on every run.
# The same count by hand from `arm-none-eabi-objdump -d` of the hook agrees to the instruction.
set -eu
O=${1:-build}
B="$O/bench/cortex-m"
make --no-print-directory -f bench/cortex-m/cortex-m.mk O="$O"

declare -A ticks
for v in plain empty dwt timer nots; do
    log=$(mktemp)
    timeout 20 qemu-system-arm -M mps2-an385 -icount shift=0 -display none -monitor none \
        -serial "file:$log" -kernel "$B/fib_$v.elf" 2>/dev/null &
    pid=$!
    for _ in $(seq 100); do grep -q ticks= "$log" && break; sleep 0.1; done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    line=$(grep ticks= "$log" || true)
    rm -f "$log"
    [ -n "$line" ] || { echo "run.sh: fib_$v printed nothing" >&2; exit 1; }
    ticks[$v]=${line##*ticks=}
    events=$(sed 's/.*events=\([0-9]*\).*/\1/' <<<"$line")
done

per() { awk -v a="$1" -v b="$2" -v e="$events" 'BEGIN { printf "%.1f", (a - b) * 40 / e }'; }
echo "Cortex-M3 (QEMU mps2-an385, -icount shift=0), fib(20): $events events"
printf '  %-34s %8s instructions per event\n' \
    "empty hooks - no hooks (the calls)" "$(per "${ticks[empty]}" "${ticks[plain]}")" \
    "runtime, DWT clock - empty hooks" "$(per "${ticks[dwt]}" "${ticks[empty]}")" \
    "runtime, board timer - empty hooks" "$(per "${ticks[timer]}" "${ticks[empty]}")" \
    "runtime, no timestamps - empty" "$(per "${ticks[nots]}" "${ticks[empty]}")"
