# SPDX-License-Identifier: MIT
# fw_common.sh - what bench/cortex-m/run.sh and bench/riscv/run.sh share, sourced by both: a
# benchmark firmware run on QEMU under -icount shift=0, and the fields of the line it prints.

# fw_run QEMU BOARD ELF [QEMU_ARGS...]: runs ELF on QEMU's BOARD until it prints its ticks=
# line; sets $line. Exits the script when it prints none.
fw_run() {
    local qemu=$1 board=$2 elf=$3 log pid
    shift 3
    log=$(mktemp)
    timeout 20 "$qemu" -M "$board" "$@" -icount shift=0 -display none -monitor none \
        -serial "file:$log" -kernel "$elf" </dev/null 2>/dev/null &
    pid=$!
    for _ in $(seq 100); do grep -aq 'ticks=[0-9]*$' "$log" && break; sleep 0.1; done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    line=$(grep -a 'ticks=[0-9]*$' "$log" | tail -n 1 || true)
    rm -f "$log"
    [ -n "$line" ] || { echo "run.sh: $elf on $board printed nothing" >&2; exit 1; }
}

# field NAME: the number after NAME= in $line.
field() { sed "s/.*[ \n]$1=\([0-9]*\).*/\1/" <<<"$line"; }

