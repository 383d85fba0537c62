#!/bin/bash
# SPDX-License-Identifier: MIT
# rec4.sh [BUILD_DIR] - bytes per event and events per KB of ring, today's 8-byte records of
# 32-bit targets against version 4's one word an event (docs/FORMAT.md section 14), on real
# event mixes: each firmware runs on QEMU, `cygtrace pull` saves its ring, and bench/rec4.c
# writes the same events as version 4 records and reads them back through the host's reader
# (the run fails when any event comes back different). The mixes:
#   fib      bench/cortex-m's fib(20) (Cortex-M3 and the micro:bit's M0), the hook benchmark;
#   freertos the FreeRTOS example (examples/freertos): tasks, a queue, a timer interrupt, the
#            glue's CONTEXT, TIME, SCHED and NAME records, then a fault (and its 400-round
#            variant, whose ring of 512 records wrapped);
#   riscv    the RISC-V example (examples/riscv, QEMU virt): calls, marks, a fault.
# Needs what `make` and `bash bench/cortex-m/run.sh` built (the fib firmware).
set -euo pipefail
O=${1:-build}
CT=$O/cygtrace
T=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$T"' EXIT
pid=
cc -std=gnu11 -Wall -Wextra -Werror -O2 -Ihost -Icommon bench/rec4.c "$O/host/libcyghost.a" \
    -lbfd -ldwarf -lsqlite3 -o "$O/bench/rec4"
failed=0

# one NAME QEMU BOARD ELF TEXT [QEMU_ARGS...]: runs ELF until its UART says TEXT, pulls the
# ring, measures.
one() {
    local name=$1 qemu=$2 board=$3 elf=$4 text=$5 port=$((20000 + RANDOM % 20000)) ok=
    shift 5
    if [ ! -f "$elf" ]; then
        echo "$name: $elf is missing (make; bash bench/cortex-m/run.sh)"
        failed=1
        return
    fi
    timeout 60 "$qemu" -M "$board" -display none -monitor none -nographic \
        -serial "file:$T/uart" -gdb "tcp:127.0.0.1:$port" "$@" -kernel "$elf" </dev/null \
        >"$T/qemu" 2>&1 &
    pid=$!
    for _ in $(seq 200); do grep -aq "$text" "$T/uart" 2>/dev/null && break; sleep 0.1; done
    for _ in 1 2 3 4 5; do # the gdbstub may not listen yet
        "$CT" pull --gdb=127.0.0.1:$port -o "$T/$name.dump" "$elf" >/dev/null 2>"$T/err" &&
            ok=1 && break
        sleep 0.5
    done
    if [ -n "$ok" ]; then
        echo "== $name ($board)"
        "$O/bench/rec4" "$T/$name.dump" 17 "$T/$name.v4" | sed "s|$T/||" || failed=1
        # the command line reads the version 4 ring as the same tree (the names the pull read
        # from the target: the same map)
        [ -f "$T/$name.dump.maps" ] && cp "$T/$name.dump.maps" "$T/$name.v4.maps"
        # (the version 4 ring holds the same events in stop mode: no note of overwritten ones)
        "$CT" tree "$elf" "$T/$name.dump" 2>&1 | grep -v 'older events were overwritten' |
            sed 's/ (before the first context switch the trace holds)//' \
            >"$T/tree3" || true
        "$CT" tree "$elf" "$T/$name.v4" >"$T/tree4" 2>&1 || true
        if cmp -s "$T/tree3" "$T/tree4"; then
            echo "  cygtrace tree: the same $(wc -l <"$T/tree4") lines from both rings"
        else
            echo "  cygtrace tree: DIFFERENT"
            diff "$T/tree3" "$T/tree4" | head -n 6 | sed 's/^/    /'
            failed=1
        fi
    else
        echo "$name: pull failed: $(head -n 1 "$T/err")"
        failed=1
    fi
    kill $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    pid=
}

one fib-m3 qemu-system-arm mps2-an385 "$O/bench/cortex-m/mps2-an385/fib_dwt.elf" 'ticks='
one fib-m0 qemu-system-arm microbit "$O/bench/cortex-m/microbit/fib_timer.elf" 'ticks='
one freertos qemu-system-arm mps2-an385 "$O/firmware/mps2-an385/freertos.elf" 'trace frozen'
one freertos-wrap qemu-system-arm mps2-an385 "$O/firmware/mps2-an385/freertos_wrap.elf" \
    'trace frozen'
one riscv qemu-system-riscv32 virt "$O/firmware/riscv-virt/crash.elf" 'crash:' -bios none
exit $failed
