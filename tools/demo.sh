#!/bin/bash
# demo.sh BUILD_DIR [linux] - the product's main job, as a user would run it.
#   default: a Cortex-M3 firmware (QEMU's mps2-an385 board) crashes in HardFault; cygtrace
#            pulls its frozen ring buffer through QEMU's GDB server and prints the call tree
#            that ends in the fault, with its backtrace.
#   linux:   an instrumented Linux program, its trace file, its call tree.
set -eu
B=${1:-build}
D="$B/demo"
mkdir -p "$D"

run() { printf '\n$ %s\n' "$*"; "$@"; }

linux_demo() {
    local trace="$D/crumble.trace"
    echo "cygtrace demo: an instrumented Linux program, its ring buffer, its call tree."
    printf '\n$ CYGTRACE_OUT=%s %s/examples/crumble\n' "$trace" "$B"
    CYGTRACE_OUT="$trace" "$B/examples/crumble"
    run "$B/cygtrace" tree "$B/examples/crumble" "$trace"
    run "$B/cygtrace" tree --style=etrace "$B/examples/crumble" "$trace"
    run "$B/cygtrace" info "$B/examples/crumble" "$trace"
}

qpid=""
trap '[ -n "$qpid" ] && kill "$qpid" 2>/dev/null; true' EXIT

firmware_demo() {
    local elf="$B/firmware/mps2-an385/crash.elf" log="$D/uart.log" port
    echo "cygtrace demo: a Cortex-M3 firmware crashes; its flight recorder is read through a"
    echo "GDB server (here QEMU's) and shows the calls that led to the HardFault."
    # A free port: QEMU exits at once when the one it is given is taken.
    for _ in $(seq 20); do
        port=$((20000 + RANDOM % 40000))
        rm -f "$log"
        qemu-system-arm -M mps2-an385 -display none -monitor none -serial "file:$log" \
            -gdb "tcp:127.0.0.1:$port" -kernel "$elf" 2>"$D/qemu.err" &
        qpid=$!
        sleep 0.5
        kill -0 "$qpid" 2>/dev/null && break
        qpid=""
    done
    [ -n "$qpid" ] || { echo "cygtrace: demo: QEMU did not start: $(cat "$D/qemu.err")" >&2; exit 1; }
    printf '\n$ qemu-system-arm -M mps2-an385 -serial file:%s -gdb tcp:127.0.0.1:%s -kernel %s &\n' \
        "$log" "$port" "$elf"
    for _ in $(seq 100); do
        grep -q "HardFault" "$log" 2>/dev/null && break
        sleep 0.2
    done
    sed 's/^/    uart| /' "$log"
    run "$B/cygtrace" pull --gdb="127.0.0.1:$port" "$elf"
    kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null || true
    qpid=""
}

if [ "${2:-}" = linux ]; then linux_demo; else firmware_demo; fi
