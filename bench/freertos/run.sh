#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh [BUILD_DIR] - what the FreeRTOS glue costs on the Cortex-M3 (QEMU mps2-an385): the
# instructions each of its functions executes per call (stepped by gdb, bench/count.py: a switch, an
# interrupt's entry and exit, a block on a queue, a wake), and its flash and RAM, linked, from
# the example's map. Run from the top of the tree after `make`.
set -eu
O=${1:-build}
ELF=$O/firmware/mps2-an385/freertos.elf
[ -e "$ELF" ] || { echo "run.sh: $ELF is missing: run make" >&2; exit 1; }
command -v gdb-multiarch >/dev/null || { echo "run.sh: gdb-multiarch is missing (make deps)" >&2; exit 1; }

port=$((20000 + RANDOM % 20000))
timeout 120 qemu-system-arm -M mps2-an385 -display none -monitor none -nographic \
    -serial null -gdb tcp:127.0.0.1:$port -S -kernel "$ELF" </dev/null >/dev/null 2>&1 &
qemu=$!
trap 'kill $qemu 2>/dev/null || true' EXIT
sleep 0.5
echo "instructions per call (5 calls each, after the first 3):"
COUNT_FUNCS="cygtrace_freertos_switched_in cygtrace_freertos_isr_enter cygtrace_freertos_isr_exit
             cygtrace_freertos_block_queue cygtrace_freertos_wake" \
    timeout 100 gdb-multiarch -batch -nx -ex "target remote 127.0.0.1:$port" \
    -x bench/count.py "$ELF" 2>/dev/null | grep -E '^cygtrace_freertos_[a-z_]+( [0-9]+)+$' |
    sed 's/^/  /'

# The glue's object, and what of it the link kept (--gc-sections): its symbols in the ELF.
OBJ=$O/firmware/mps2-an385/freertos/cygtrace_freertos.o
echo "the glue's object (arm-none-eabi-size, bytes):"
arm-none-eabi-size "$OBJ" | sed 's/^/  /'
echo "kept in the link (arm-none-eabi-nm -S, bytes):"
arm-none-eabi-nm -S "$OBJ" | awk 'NF == 4 { print $4 }' | sort >"${TMPDIR:-/tmp}/glue.$$"
arm-none-eabi-nm -S "$ELF" | while read -r _ size type name; do
    [ -n "$name" ] && echo "$name $((16#$size)) $type"
done | sort | join - "${TMPDIR:-/tmp}/glue.$$" |
    awk '{ k = ($3 ~ /[tT]/) ? "flash" : "ram"; n[k] += $2 }
         END { printf "  flash %d, RAM %d\n", n["flash"], n["ram"] }'
rm -f "${TMPDIR:-/tmp}/glue.$$"
