#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh [BUILD_DIR] - what the Zephyr module costs on the Cortex-M3 (QEMU's lm3s6965evb, the
# qemu_cortex_m3 board): the instructions its hooks execute per event (stepped by gdb,
# bench/count.py: a call's entry and exit with the clock k_cycle_get_32(), a switch, an interrupt's
# entry and exit, a block, a wake), the bytes the example's trace takes a round, and the flash
# and RAM of the example with and without CONFIG_CYGTRACE (the second built here, in
# BUILD_DIR/zephyr/zephyr_off). Run from the top of the tree after `make zephyr-firmware`.
set -eu
O=${1:-build}
ELF=$O/firmware/qemu_cortex_m3/zephyr.elf
[ -e "$ELF" ] || { echo "run.sh: $ELF is missing: run make zephyr-firmware" >&2; exit 1; }
command -v gdb-multiarch >/dev/null || { echo "run.sh: gdb-multiarch is missing (make deps)" >&2; exit 1; }

port=$((20000 + RANDOM % 20000))
timeout 120 qemu-system-arm -M lm3s6965evb -display none -monitor none -nographic \
    -serial null -gdb tcp:127.0.0.1:$port -S -kernel "$ELF" </dev/null >/dev/null 2>&1 &
qemu=$!
trap 'kill $qemu 2>/dev/null || true' EXIT
sleep 0.5
echo "instructions per event (5 events each, after the first 3):"
COUNT_FUNCS="__cyg_profile_func_enter __cyg_profile_func_exit cygtrace_user_clock
             sys_trace_thread_switched_in_user sys_trace_isr_enter_user sys_trace_isr_exit_user
             cygtrace_zephyr_block sys_trace_thread_sched_ready_user" \
    timeout 100 gdb-multiarch -batch -nx -ex "target remote 127.0.0.1:$port" \
    -x bench/count.py "$ELF" 2>/dev/null | grep -E '^[a-z_]+( [0-9]+)+$' | sed 's/^/  /'
kill $qemu 2>/dev/null || true
wait $qemu 2>/dev/null || true

# The records of the example's 40 rounds: pulled after the fault.
port=$((20000 + RANDOM % 20000))
log=${TMPDIR:-/tmp}/zephyr-bench.$$
timeout 60 qemu-system-arm -M lm3s6965evb -display none -monitor none -nographic \
    -serial "file:$log.uart" -gdb tcp:127.0.0.1:$port -kernel "$ELF" </dev/null >/dev/null 2>&1 &
qemu=$!
for _ in $(seq 100); do
    grep -qs "trace frozen" "$log.uart" && break
    sleep 0.1
done
"$O/cygtrace" pull --gdb=127.0.0.1:$port -o "$log.dump" "$ELF" >/dev/null
kill $qemu 2>/dev/null || true
echo "the example's trace (cygtrace info, cygtrace dump: records by kind):"
"$O/cygtrace" info "$ELF" "$log.dump" | grep -E '^(written|capacity):' | sed 's/^/  /'
"$O/cygtrace" dump "$ELF" "$log.dump" | awk 'NR > 1 { n[$5]++ }
    END { for (k in n) printf "  %s %d\n", k, n[k] }' | sort
rm -f "$log.uart" "$log.dump" "$log.dump.maps"

# Flash and RAM: the example with the module, and without (CONFIG_CYGTRACE=n).
ZEPHYR_BASE=${ZEPHYR_BASE:-$(cd .. && pwd)/shared/thirdparty/zephyr/zephyr} \
ZEPHYR_MODULES=${ZEPHYR_MODULES:-$(cd .. && pwd)/shared/thirdparty/zephyr/modules/hal/cmsis_6} \
    examples/zephyr/build.sh "$O" zephyr_off -DCONFIG_CYGTRACE=n >/dev/null
echo "flash and RAM (arm-none-eabi-size: text data bss):"
for p in zephyr zephyr_off; do
    arm-none-eabi-size "$O/firmware/qemu_cortex_m3/$p.elf" | awk -v p="$p" 'NR == 2 { print "  " p, $1, $2, $3 }'
done
echo "the module's own objects, kept in the link (arm-none-eabi-nm -S of libcygtrace.a, bytes):"
LIB=$(find "$O/zephyr/zephyr" -name 'libcygtrace.a' | head -n 1)
arm-none-eabi-nm -S "$LIB" 2>/dev/null | awk 'NF == 4 { print $4 }' | sort -u >"$log.syms"
arm-none-eabi-nm -S "$ELF" | while read -r _ size type name; do
    [ -n "$name" ] && echo "$name $((16#$size)) $type"
done | sort | join - "$log.syms" |
    awk '{ k = ($3 ~ /[tTrR]/) ? "flash" : "ram"; n[k] += $2 }
         END { printf "  flash %d, RAM %d (the ring included)\n", n["flash"], n["ram"] }'
rm -f "$log.syms"
