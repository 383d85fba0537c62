#!/bin/bash
# SPDX-License-Identifier: MIT
# demo.sh BUILD_DIR [linux|live|rtt|merge|freertos|zephyr|riscv [virt|sifive_e]] - the product's main job, as a user
# would run it.
#   default: a Cortex-M3 firmware (QEMU's mps2-an385 board) crashes in HardFault; cygtrace
#            pulls its frozen ring buffer through QEMU's GDB server and prints the call tree
#            that ends in the fault, with its backtrace.
#   linux:   an instrumented Linux program, its trace file, its call tree.
#   live:    a Cortex-M3 firmware streams its calls over the UART (QEMU's, as TCP); "cygtrace
#            live" shows them as they happen: the ncurses view on a terminal (q quits), else
#            two seconds of the tree as text.
#   rtt:     the same firmware's calls over RTT instead: a ring in target RAM that "cygtrace
#            live --gdb" reads through QEMU's GDB server (halt, read, resume), the UART silent.
#   freertos: a FreeRTOS firmware (two tasks, a timer interrupt) faults in one task; cygtrace
#            pulls the ring and prints a call tree per task and per interrupt, with who woke
#            whom.
#   zephyr:  the same for a Zephyr application built with the cygtrace module (QEMU's
#            qemu_cortex_m3 board, lm3s6965evb): a tree per thread and per interrupt, the
#            blocking on k_msgq and k_sem by name, the usage fault in the consumer's tree.
#   merge:   a firmware (QEMU) that echoes what a traced Linux program sends it, the one's
#            trace saved from its live stream, the other's ring: one Chrome trace, both on the
#            host's clock, and the order of each round's send, echo and receive in it; the
#            same as a Perfetto trace, and as an SQLite database that one query orders.
#   riscv:   the crash demo on RISC-V (QEMU's virt, or sifive_e), pulled through the gdbstub.
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

# qemu_up ARGS...: starts QEMU ($QEMU: its command and board, QEMU's mps2-an385 unless a demo
# says otherwise) with ARGS, PORT in them replaced by a free port ($port): QEMU exits at once
# when the one it is given is taken, then the next one; PORT2 becomes the port after it.
QEMU=(qemu-system-arm -M mps2-an385)
qemu_up() {
    for _ in $(seq 20); do
        port=$((20000 + RANDOM % 40000))
        local args=("${@//PORT2/$((port + 1))}")
        "${QEMU[@]}" -display none -monitor none "${args[@]//PORT/$port}" \
            </dev/null >"$D/qemu.err" 2>&1 &
        qpid=$!
        # Up once it waits for its TCP client, or (gdbstub only) after a moment alive.
        for _ in $(seq 50); do
            grep -qs 'waiting for connection' "$D/qemu.err" && return 0
            kill -0 "$qpid" 2>/dev/null || break
            case "$*" in *server=on*) ;; *) sleep 0.5; kill -0 "$qpid" 2>/dev/null && return 0 ;; esac
            sleep 0.1
        done
        qpid=""
    done
    echo "cygtrace: demo: QEMU did not start: $(cat "$D/qemu.err")" >&2
    exit 1
}

# qemu_down: stops the QEMU qemu_up started.
qemu_down() {
    kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null || true
    qpid=""
}

# live_demo_view WHERE TXT ELF: cygtrace live on the target WHERE (--tcp=..., --gdb=...) in its
# view on a terminal; without one, two seconds of the tree as text (in TXT), its start and end.
live_demo_view() {
    local where="$1" txt="$2" elf="$3"
    if [ -t 0 ] && [ -t 1 ]; then
        run "$B/cygtrace" live "$where" "$elf"
    else
        printf '\n$ %s\n' "$B/cygtrace live --plain --duration=2 $where $elf"
        "$B/cygtrace" live --plain --duration=2 "$where" "$elf" >"$txt"
        head -n 24 "$txt"
        echo "    ... ($(wc -l <"$txt") lines in all: $txt)"
        tail -n 4 "$txt"
    fi
}

# fault_demo ELF LOG [DUMP]: runs the Cortex-M3 firmware ELF until it reports its HardFault on
# the UART (into LOG), then pulls its frozen ring through QEMU's GDB server: prints its trees,
# or saves it as DUMP.
fault_demo() {
    local elf=$1 log=$2 dump=${3:-} port
    rm -f "$log"
    qemu_up -serial "file:$log" -gdb "tcp:127.0.0.1:PORT" -kernel "$elf"
    printf '\n$ qemu-system-arm -M mps2-an385 -serial file:%s -gdb tcp:127.0.0.1:%s -kernel %s &\n' \
        "$log" "$port" "$elf"
    for _ in $(seq 100); do
        grep -q "HardFault" "$log" 2>/dev/null && break
        sleep 0.2
    done
    sed 's/^/    uart| /' "$log"
    run "$B/cygtrace" pull --gdb="127.0.0.1:$port" ${dump:+-o "$dump"} "$elf"
    qemu_down
}

firmware_demo() {
    echo "cygtrace demo: a Cortex-M3 firmware crashes; its flight recorder is read through a"
    echo "GDB server (here QEMU's) and shows the calls that led to the HardFault."
    fault_demo "$B/firmware/mps2-an385/crash.elf" "$D/uart.log"
}

freertos_demo() {
    local elf="$B/firmware/mps2-an385/freertos.elf"
    if [ ! -f "$elf" ]; then
        echo "cygtrace: demo: $elf: not built (no FreeRTOS-Kernel: make FREERTOS_DIR=...)" >&2
        exit 1
    fi
    echo "cygtrace demo: a FreeRTOS firmware on a Cortex-M3: a timer interrupt wakes the task"
    echo "\"producer\", which feeds \"consumer\" through a queue, until the consumer faults."
    echo "Its flight recorder, read through QEMU's GDB server, has a call tree per task and per"
    echo "interrupt."
    fault_demo "$elf" "$D/freertos-uart.log" "$D/freertos.dump"
    run "$B/cygtrace" report --tasks "$elf" "$D/freertos.dump"
    printf '\n$ %s | head -n 26\n' "$B/cygtrace tree --thread=producer $elf $D/freertos.dump"
    "$B/cygtrace" tree --thread=producer "$elf" "$D/freertos.dump" | head -n 26
    printf '\n$ %s | tail -n 24\n' "$B/cygtrace tree --thread=consumer $elf $D/freertos.dump"
    "$B/cygtrace" tree --thread=consumer "$elf" "$D/freertos.dump" | tail -n 24
    echo
    echo "(every tree: $B/cygtrace tree $elf $D/freertos.dump)"
}

live_demo() {
    local elf="$B/firmware/mps2-an385/stream_live.elf" port
    echo "cygtrace demo: a Cortex-M3 firmware streams its calls over its UART while it runs;"
    echo "cygtrace live decodes them as they come."
    qemu_up -nographic -serial "tcp:127.0.0.1:PORT,server=on,wait=on" -kernel "$elf"
    printf '\n$ qemu-system-arm -M mps2-an385 -serial tcp:127.0.0.1:%s,server=on,wait=on -kernel %s &\n' \
        "$port" "$elf"
    live_demo_view "--tcp=127.0.0.1:$port" "$D/live.txt" "$elf"
    qemu_down
}

rtt_demo() {
    local elf="$B/firmware/mps2-an385/rtt.elf" log="$D/rtt-uart.log" port
    echo "cygtrace demo: a Cortex-M3 firmware streams its calls into an RTT channel in its RAM;"
    echo "cygtrace live reads it through the GDB server (here QEMU's) while the firmware runs."
    rm -f "$log"
    # Held at reset (-S) until cygtrace live attaches: a firmware left running with no reader
    # fills its channel and loses its first thousands of events before the first poll.
    qemu_up -S -serial "file:$log" -gdb "tcp:127.0.0.1:PORT" -kernel "$elf"
    printf '\n$ qemu-system-arm -M mps2-an385 -S -serial file:%s -gdb tcp:127.0.0.1:%s -kernel %s &\n' \
        "$log" "$port" "$elf"
    live_demo_view "--gdb=127.0.0.1:$port" "$D/rtt.txt" "$elf"
    # The UART said one line at the start, and nothing while the trace streamed.
    sed 's/^/    uart| /' "$log"
    qemu_down
}

merge_demo() {
    local elf="$B/firmware/mps2-an385/echo.elf" ping="$B/examples/ping" port lpid
    echo "cygtrace demo: a Cortex-M3 firmware streams its calls over UART0 and echoes what comes"
    echo "in on UART1, where a traced Linux program sends a byte and waits for it, 20 times."
    echo "The firmware's saved stream and the program's ring merge into one trace on one clock."
    qemu_up -nographic -serial "tcp:127.0.0.1:PORT,server=on,wait=on" \
        -serial "tcp:127.0.0.1:PORT2,server=on,wait=off" -kernel "$elf"
    printf '\n$ qemu-system-arm -M mps2-an385 -serial tcp:127.0.0.1:%s,server=on,wait=on -serial tcp:127.0.0.1:%s,server=on,wait=off -kernel %s &\n' \
        "$port" "$((port + 1))" "$elf"
    printf '$ %s &\n' "$B/cygtrace live --plain --duration=3 --tcp=127.0.0.1:$port --save=$D/echo.cyg $elf >/dev/null"
    "$B/cygtrace" live --plain --duration=3 --tcp="127.0.0.1:$port" --save="$D/echo.cyg" "$elf" \
        >/dev/null &
    lpid=$!
    sleep 1
    printf '$ CYGTRACE_OUT=%s %s %s 20 20\n' "$D/ping.trace" "$ping" "$((port + 1))"
    CYGTRACE_OUT="$D/ping.trace" "$ping" "$((port + 1))" 20 20
    wait "$lpid"
    qemu_down
    run "$B/cygtrace" export --format=chrome "$elf" "$D/echo.cyg" "$ping" "$D/ping.trace" \
        -o "$D/merged.json"
    echo
    echo "$D/merged.json opens in ui.perfetto.dev: two processes on one time line. Each round,"
    echo "in microseconds after the program's send: the firmware's echo_request, the program's"
    echo "receive (the firmware's handling must fall between send and receive, give or take"
    echo "the alignment's error):"
    jq -r '[.traceEvents[] | select(.ph == "B")] as $b
        | [$b[] | select(.name == "ping_send") | .ts] as $s
        | [$b[] | select(.name == "echo_request") | .ts] as $f
        | [$b[] | select(.name == "ping_received") | .ts] as $r
        | range(0; [$s, $f, $r] | map(length) | min)
        | "  round \(. + 1): echo_request +\(($f[.] - $s[.]) * 1000 | round / 1000) us, received +\(($r[.] - $s[.]) * 1000 | round / 1000) us"' \
        "$D/merged.json"
    run "$B/cygtrace" export --format=perfetto "$elf" "$D/echo.cyg" "$ping" "$D/ping.trace" \
        -o "$D/merged.pftrace"
    echo "$D/merged.pftrace: the same in Perfetto's own format, a process each."
    rm -f "$D/merged.db" # a cygtrace database would get these as traces 3 and 4
    run "$B/cygtrace" export --format=sqlite "$elf" "$D/echo.cyg" "$ping" "$D/ping.trace" \
        -o "$D/merged.db"
    echo "And as SQL, two traces on the host's clock: the first rounds, across both of them."
    run sqlite3 "$D/merged.db" "SELECT t.trace, f.name, c.start FROM calls c JOIN traces t USING (trace)
        JOIN functions f ON f.trace = c.trace AND f.function = c.function
        WHERE f.name IN ('ping_send', 'echo_request', 'ping_received') ORDER BY c.start LIMIT 6"
}

# riscv [BOARD]: the crash demo on a 32-bit RISC-V microcontroller, QEMU's virt board (or
# sifive_e, the HiFive1's FE310): a load access fault, the ring read through QEMU's gdbstub.
riscv_demo() {
    local board=${1:-virt} elf log="$D/riscv-uart.log" port bios=()
    elf="$B/firmware/riscv-$board/crash.elf"
    [ "$board" = virt ] && bios=(-bios none)
    echo "cygtrace demo: a RISC-V (rv32imac) firmware crashes on a bad pointer; its flight"
    echo "recorder is read through a GDB server (here QEMU's) and shows the calls that led there."
    if ! command -v qemu-system-riscv32 >/dev/null; then
        echo "cygtrace: demo: qemu-system-riscv32 is missing; run 'make deps' (qemu-system-misc)" >&2
        exit 1
    fi
    rm -f "$log"
    QEMU=(timeout 120 qemu-system-riscv32 -M "$board" "${bios[@]}" -icount shift=0)
    qemu_up -serial "file:$log" -gdb "tcp:127.0.0.1:PORT" -kernel "$elf"
    printf '\n$ qemu-system-riscv32 -M %s %s-icount shift=0 -serial file:%s -gdb tcp:127.0.0.1:%s -kernel %s &\n' \
        "$board" "${bios[*]:+${bios[*]} }" "$log" "$port" "$elf"
    for _ in $(seq 100); do
        grep -q "trace frozen" "$log" 2>/dev/null && break
        sleep 0.2
    done
    tr -d '\r' <"$log" | sed 's/^/    uart| /' # Zephyr's console ends its lines with CR LF
    run "$B/cygtrace" pull --srcline --gdb="127.0.0.1:$port" "$elf"
    qemu_down
}

zephyr_demo() {
    local elf="$B/firmware/qemu_cortex_m3/zephyr.elf" log="$D/zephyr-uart.log"
    local dump="$D/zephyr.dump"
    if [ ! -f "$elf" ]; then
        echo "cygtrace: demo: $elf: not built (no Zephyr tree: make ZEPHYR_BASE=..., docs/zephyr.md)" >&2
        exit 1
    fi
    echo "cygtrace demo: a Zephyr application on QEMU's qemu_cortex_m3: a timer interrupt gives"
    echo "the semaphore \"tick_sem\" to the thread \"producer\", which feeds \"consumer\" through the"
    echo "message queue \"jobs\", until the consumer faults. Its flight recorder, read through"
    echo "QEMU's GDB server, has a call tree per thread and per interrupt."
    QEMU=(qemu-system-arm -M lm3s6965evb)
    rm -f "$log"
    qemu_up -nographic -serial "file:$log" -gdb "tcp:127.0.0.1:PORT" -kernel "$elf"
    printf '\n$ qemu-system-arm -M lm3s6965evb -serial file:%s -gdb tcp:127.0.0.1:%s -kernel %s &\n' \
        "$log" "$port" "$elf"
    for _ in $(seq 100); do
        grep -q "trace frozen" "$log" 2>/dev/null && break
        sleep 0.2
    done
    tr -d '\r' <"$log" | sed 's/^/    uart| /' # Zephyr's console ends its lines with CR LF
    run "$B/cygtrace" pull --gdb="127.0.0.1:$port" -o "$dump" "$elf"
    qemu_down
    run "$B/cygtrace" report --tasks "$elf" "$dump"
    printf '\n$ %s | head -n 22\n' "$B/cygtrace tree --thread=producer $elf $dump"
    "$B/cygtrace" tree --thread=producer "$elf" "$dump" | head -n 22
    printf '\n$ %s | tail -n 22\n' "$B/cygtrace tree --thread=consumer $elf $dump"
    "$B/cygtrace" tree --thread=consumer "$elf" "$dump" | tail -n 22
    echo
    echo "(every tree: $B/cygtrace tree $elf $dump)"
}

case "${2:-}" in
zephyr) zephyr_demo ;;
riscv) riscv_demo "${3:-}" ;;
linux) linux_demo ;;
live) live_demo ;;
rtt) rtt_demo ;;
merge) merge_demo ;;
freertos) freertos_demo ;;
*) firmware_demo ;;
esac
