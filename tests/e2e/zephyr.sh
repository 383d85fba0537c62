#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# zephyr.sh - the Zephyr example (examples/zephyr) built with the cygtrace module
# (target/zephyr) for qemu_cortex_m3, run under QEMU (its lm3s6965evb machine) and read through
# the real gdbstub:
#   crash   zephyr.elf: a timer interrupt (timer_isr) gives the k_sem "tick_sem" to the thread
#           "producer", which puts jobs into the k_msgq "jobs" for "consumer", until the
#           consumer divides by zero: `pull` prints a tree per thread and per interrupt, named;
#           the blocking by object and operation, and the waking, where they happen; no
#           thread's calls in another's tree, no call cut by a switch; the usage fault and its
#           call stack in the consumer's tree only; --thread=NAME; `pull -o` then `tree` the
#           same; the records; `report --tasks`; `export --format=chrome` a track per thread;
#           `info` the objects by their symbols; after a warm reset the ring is kept, frozen
#   kernel  zephyr_kernel.elf, the kernel instrumented too (CONFIG_CYGTRACE_INSTRUMENT_KERNEL):
#           it boots, the ring wraps, the threads are named from their k_thread (DUMP.maps),
#           the blocking shows inside the kernel's own calls, and the fault ends the consumer's
#           tree (recorded at the fault's entry, before Zephyr's fault dump)
#   live    zephyr_live.elf streams over the UART (the idle thread drains): `live` names the
#           threads and shows the blocking and the waking as they come
#   rtt     zephyr_rtt.elf the same into an RTT channel, read through the gdbstub (`live --gdb`)
# Zephyr is third-party: without a Zephyr tree (ZEPHYR_BASE, else the build's default folder),
# or without what building it needs (cmake, ninja, Zephyr's python packages), the build skips
# the example, and this script skips its tests, each by name.
set -u
. "$(dirname "$0")/lib.sh"
. "$E2E_DIR/fw_common.bash"

need "$CT"
FW=$BUILD/firmware/qemu_cortex_m3
ZBASE=${ZEPHYR_BASE-$ROOT/../shared/thirdparty/zephyr/zephyr}
why=
if [ ! -f "$ZBASE/kernel/sched.c" ]; then
    echo "    no Zephyr tree at ZEPHYR_BASE='$ZBASE': set ZEPHYR_BASE to one (docs/zephyr.md)"
    why="no Zephyr tree"
else
    for tool in cmake ninja arm-none-eabi-gcc; do
        command -v "$tool" >/dev/null || why=${why:-"no $tool"}
    done
    [ -n "$why" ] || "${ZEPHYR_PYTHON:-/usr/bin/python3}" -c 'import yaml, pykwalify, elftools, jsonschema' 2>/dev/null ||
        why="no python3 with Zephyr's packages"
fi
if [ -n "$why" ]; then
    skip crash "$why"
    skip kernel "$why"
    skip live "$why"
    skip rtt "$why"
    finish
fi
need_qemu
BOARD=lm3s6965evb

# section FILE NAME: the lines of the tree of the context named NAME.
section() {
    awk -v h="\"$2\"" '/^# context / { on = index($0, h) > 0 && $0 ~ /events$/; next } on' "$1"
}

# balanced FILE NAME: every "NAME() {" in FILE closes with "} /* NAME */", but the last one,
# which may still be open at the end; prints what is wrong.
balanced() {
    awk -v fn="$2" '
        index($0, fn "() {") { open++ }
        index($0, "} /* " fn " */") { closed++ }
        index($0, "(entered before the trace begins)") || index($0, "never returned") { bad++ }
        END {
            if (open - closed > 1 || open < closed || bad)
                printf "%d opened, %d closed, %d cut", open, closed, bad
        }' "$1"
}

# --- crash: the application instrumented ------------------------------------------------------
tag=crash
if elf_copy "$tag" "$FW" "$T/fw" zephyr; then
    ELF=$T/fw/zephyr.elf
    if qemu_start "$tag" "$BOARD" "$ELF" && uart_wait "$tag" "trace frozen"; then
        check "$tag-uart-fault" "no usage fault on the UART" grep -q 'Division by zero' "$T/$tag.uart"
        run "$tag-pull" "$CT" pull --gdb=127.0.0.1:$PORT "$ELF"
        out=$T/$tag-pull.out
        # Nothing on stderr: the ring carries the image's build-id, which is the ELF's.
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag-pull.err")" \
            eval '[ "$RC" -eq 0 ] && [ ! -s "$T/$tag-pull.err" ]'
        for name in producer consumer timer_isr; do
            check "$tag-named-$name" "no tree headed \"$name\": $(grep '^# context' "$out" | tr '\n' '|')" \
                grep -Eq "^# context [0-9]+ \"$name\", [0-9]+ events$" "$out"
        done
        check "$tag-no-unknown" "$(grep -m 1 'unknown type' "$out")" \
            eval '! grep -q "unknown type" "$out"'
        section "$out" consumer >"$T/$tag.consumer"
        section "$out" producer >"$T/$tag.producer"
        section "$out" timer_isr >"$T/$tag.irq"
        check "$tag-consumer-blocks" "no 'blocked on k_msgq \"jobs\" (get)' in the consumer's tree" \
            grep -q '^ *-- blocked on k_msgq "jobs" (get)$' "$T/$tag.consumer"
        check "$tag-consumer-woken" "no 'woken by producer' in the consumer's tree" \
            grep -q '^ *-- woken by producer$' "$T/$tag.consumer"
        check "$tag-producer-blocks" "no 'blocked on k_sem \"tick_sem\" (take)' in the producer's tree" \
            grep -q '^ *-- blocked on k_sem "tick_sem" (take)$' "$T/$tag.producer"
        check "$tag-producer-woken" "no 'woken by timer_isr' in the producer's tree" \
            grep -q '^ *-- woken by timer_isr$' "$T/$tag.producer"
        check "$tag-producer-wakes" "no 'wakes consumer' in the producer's tree" \
            grep -q '^ *-- wakes consumer$' "$T/$tag.producer"
        check "$tag-irq-wakes" "no 'wakes producer' in timer_isr's tree" \
            grep -q '^ *-- wakes producer$' "$T/$tag.irq"
        # k_msleep(1) every 8th round: a delay in ticks, ended by the system timer's interrupt,
        # which goes by its handler in the vector table (SysTick's).
        check "$tag-producer-delay" "no 'delay 1 tick' then 'woken by sys_clock_isr' in the producer's tree" \
            eval 'grep -A1 "^ *-- delay 1 tick$" "$T/$tag.producer" | grep -q "^ *-- woken by sys_clock_isr$"'
        # The blocking is where it happens: inside the API call that blocked.
        why=$(nested "$T/$tag.consumer" consumer_main k_msgq_get)
        check "$tag-consumer-nested" "$why" [ -z "$why" ]
        check "$tag-blocked-inside" "the consumer's block is not inside k_msgq_get" \
            eval '[ "$(awk "/k_msgq_get\\(\\) \\{/ { d = 1 } /-- blocked on k_msgq/ && d { print \"in\"; exit }" "$T/$tag.consumer")" = in ]'
        check "$tag-own-calls" "a thread's tree holds another's calls" \
            eval '! grep -q "make_job()" "$T/$tag.consumer" && ! grep -q "consume()" "$T/$tag.producer" &&
                  ! grep -q "make_job()\|consume()" "$T/$tag.irq"'
        for f in k_sem_take k_msgq_put; do
            why=$(balanced "$T/$tag.producer" "$f")
            check "$tag-producer-$f-whole" "$why" [ -z "$why" ]
        done
        why=$(balanced "$T/$tag.consumer" k_msgq_get)
        check "$tag-consumer-k_msgq_get-whole" "$why" [ -z "$why" ]
        check "$tag-fault-in-consumer" "no UsageFault in store_result in the consumer's tree" \
            grep -q '^\*\*\* UsageFault at store_result' "$T/$tag.consumer"
        check "$tag-fault-last" "the consumer's tree goes on after the fault: $(sed -n '/^\*\*\* UsageFault/,$p' "$T/$tag.consumer" | sed -n 2p)" \
            eval '[ "$(sed -n "/^\*\*\* UsageFault/,\$p" "$T/$tag.consumer" | grep -vc "^#\|^\$")" -eq 1 ]'
        check "$tag-fault-stack" "$(grep '^#   ' "$T/$tag.consumer" | tr '\n' '|')" \
            eval '[ "$(grep "^#   [0-9]" "$T/$tag.consumer" | awk "{ print \$3 }" | tr "\n" " ")" = \
                    "store_result consume consumer_main " ]'
        check "$tag-fault-once" "the fault shows in another tree too" \
            eval '[ "$(grep -c "^\*\*\* UsageFault" "$out")" -eq 1 ]'

        run "$tag-thread" "$CT" pull --gdb=127.0.0.1:$PORT --thread=consumer "$ELF"
        check "$tag-thread" "status $RC: $(head -n 1 "$T/$tag-thread.err")" \
            eval '[ "$RC" -eq 0 ] && grep -q "^\*\*\* UsageFault" "$T/$tag-thread.out" &&
                  ! grep -q "make_job()" "$T/$tag-thread.out"'

        run "$tag-save" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$ELF"
        check "$tag-save" "status $RC: $(head -n 1 "$T/$tag-save.err")" [ "$RC" -eq 0 ]
        run "$tag-tree" "$CT" tree "$ELF" "$T/$tag.dump"
        check "$tag-tree-same" "tree of the saved dump differs from pull's" same "$out" "$T/$tag-tree.out"
        run "$tag-dump" "$CT" dump "$ELF" "$T/$tag.dump"
        check "$tag-dump" "status $RC: $(head -n 1 "$T/$tag-dump.err")" \
            eval '[ "$RC" -eq 0 ] && grep -Eq " context +0x[0-9a-f]{8}  to [0-9]+ \(consumer\)$" "$T/$tag-dump.out" &&
                  grep -Eq " time +0x[0-9a-f]{8}$" "$T/$tag-dump.out" &&
                  grep -Eq " fault +0x[0-9a-f]{8}  store_result\+0x[0-9a-f]+ \(kind 6\)$" "$T/$tag-dump.out"'
        run "$tag-info" "$CT" info "$ELF" "$T/$tag.dump"
        check "$tag-build-id" "$(grep -i 'build' "$T/$tag-info.out" | tr '\n' '|')" \
            grep -Eq "^build-id: +$(arm-none-eabi-readelf -n "$ELF" | sed -n 's/.*Build ID: //p')" "$T/$tag-info.out"
        check "$tag-info-objects" "$(grep '^object' "$T/$tag-info.out" | tr '\n' '|')" \
            eval 'grep -Eq "^object: +k_msgq \"jobs\" at 0x" "$T/$tag-info.out" &&
                  grep -Eq "^object: +k_sem \"tick_sem\" at 0x" "$T/$tag-info.out" &&
                  grep -Eq "^object: +k_mutex \"results\" at $(fw_sym "$ELF" results_lock)$" "$T/$tag-info.out"'
        run "$tag-report" "$CT" report --tasks "$ELF" "$T/$tag.dump"
        check "$tag-report" "status $RC: $(grep -v '^#' "$T/$tag-report.out" | tr '\n' '|')" \
            eval '[ "$RC" -eq 0 ] && grep -Eq "  consumer +producer \([0-9]+ of [0-9]+\)$" "$T/$tag-report.out" &&
                  grep -q "  sys_clock_isr  " "$T/$tag-report.out" &&
                  grep -Eq "  producer +timer_isr \([0-9]+ of [0-9]+\)$" "$T/$tag-report.out" &&
                  grep -q "  timer_isr  " "$T/$tag-report.out"'
        run "$tag-chrome" "$CT" export --format=chrome "$ELF" "$T/$tag.dump"
        check "$tag-chrome" "status $RC: no thread_name of the threads" \
            eval '[ "$RC" -eq 0 ] && grep -q "\"name\": *\"context [0-9]* \\\\\"producer\\\\\"\"" "$T/$tag-chrome.out" &&
                  grep -q "\"name\": *\"context [0-9]* \\\\\"consumer\\\\\"\"" "$T/$tag-chrome.out"'
        if command -v python3 >/dev/null; then
            check "$tag-chrome-json" "not JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/$tag-chrome.out"
        fi
        # A warm reset (QEMU's system reset, through the gdbstub): the ring in .noinit is kept,
        # frozen, with the fault of the run before; the new run records nothing over it.
        if command -v gdb-multiarch >/dev/null; then
            timeout 20 gdb-multiarch -batch -nx -ex "target remote 127.0.0.1:$PORT" \
                -ex 'monitor system_reset' -ex detach </dev/null >"$T/$tag-reset.gdb" 2>&1
            for ((i = 0; i < 100; i++)); do
                [ "$(grep -c 'trace frozen' "$T/$tag.uart")" -ge 2 ] && break
                sleep 0.1
            done
            run "$tag-reset" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag-reset.dump" "$ELF"
            run "$tag-reset-info" "$CT" info "$ELF" "$T/$tag-reset.dump"
            run "$tag-reset-tree" "$CT" tree --thread=consumer "$ELF" "$T/$tag-reset.dump"
            check "$tag-reset-kept" "$(grep -E '^(state|resets):' "$T/$tag-reset-info.out" | tr '\n' ' ') $(grep -c 'Booting' "$T/$tag.uart") boots" \
                eval '[ "$(grep -c "Booting" "$T/$tag.uart")" -ge 2 ] &&
                      grep -q "^resets: *1 warm reset" "$T/$tag-reset-info.out" &&
                      grep -q "^state: *frozen" "$T/$tag-reset-info.out" &&
                      grep -q "^\*\*\* UsageFault at store_result" "$T/$tag-reset-tree.out"'
        else
            skip "$tag-reset" "no gdb-multiarch (make deps)"
        fi
    fi
    qemu_stop
fi

# --- kernel: the kernel instrumented too -------------------------------------------------------
tag=kernel
if elf_copy "$tag" "$FW" "$T/fw" zephyr_kernel; then
    ELF=$T/fw/zephyr_kernel.elf
    if qemu_start "$tag" "$BOARD" "$ELF" && uart_wait "$tag" "trace frozen"; then
        run "$tag-save" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$ELF"
        check "$tag-save" "status $RC: $(head -n 1 "$T/$tag-save.err")" \
            eval '[ "$RC" -eq 0 ] && [ ! -s "$T/$tag-save.err" ]'
        run "$tag-info" "$CT" info "$ELF" "$T/$tag.dump"
        check "$tag-lapped" "the ring did not wrap: $(grep -E '^lapped' "$T/$tag-info.out")" \
            grep -q '^lapped: *yes' "$T/$tag-info.out"
        check "$tag-maps" "no thread names in $tag.dump.maps: $(tr '\n' '|' <"$T/$tag.dump.maps" 2>/dev/null)" \
            eval 'grep -qx "ctxname [0-9]* producer" "$T/$tag.dump.maps" &&
                  grep -qx "ctxname [0-9]* consumer" "$T/$tag.dump.maps"'
        run "$tag-tree" "$CT" tree "$ELF" "$T/$tag.dump"
        out=$T/$tag-tree.out
        for name in producer consumer timer_isr; do
            check "$tag-named-$name" "no tree headed \"$name\": $(grep '^# context' "$out" | tr '\n' '|')" \
                grep -Eq "^# context [0-9]+ \"$name\", [0-9]+ events$" "$out"
        done
        section "$out" consumer >"$T/$tag.consumer"
        why=$(nested "$T/$tag.consumer" z_impl_k_msgq_get z_pend_curr z_swap)
        check "$tag-kernel-calls" "$why" [ -z "$why" ]
        check "$tag-blocked-inside" "the consumer's block is not inside z_impl_k_msgq_get" \
            eval '[ "$(awk "/z_impl_k_msgq_get\\(\\) \\{/ { d = 1 } /-- blocked on k_msgq \"jobs\" \\(get\\)/ && d { print \"in\"; exit }" "$T/$tag.consumer")" = in ]'
        check "$tag-fault-last" "the consumer's tree does not end in the fault: $(grep -v '^#\|^$' "$T/$tag.consumer" | tail -n 1)" \
            eval 'grep -v "^#\|^\$" "$T/$tag.consumer" | tail -n 1 | grep -q "^\*\*\* UsageFault at store_result"'
        check "$tag-no-dump-calls" "Zephyr's fault dump is in the trace" \
            eval '! grep -q "z_fatal_error\|char_out" "$out"'
    fi
    qemu_stop
fi

# --- live: the threads over the UART -----------------------------------------------------------
tag=live
if elf_copy "$tag" "$FW" "$T/fw" zephyr_live; then
    ELF=$T/fw/zephyr_live.elf
    QEMU_PID=
    for ((i = 0; i < 20; i++)); do
        SPORT=$((20000 + RANDOM % 20000))
        timeout 30 qemu-system-arm -M "$BOARD" -display none -monitor none -nographic \
            -serial "tcp:127.0.0.1:$SPORT,server=on,wait=on" -kernel "$ELF" \
            </dev/null >"$T/$tag.qemu" 2>&1 &
        QEMU_PID=$!
        for ((w = 0; w < 100; w++)); do
            grep -q 'waiting for connection' "$T/$tag.qemu" && break
            kill -0 "$QEMU_PID" 2>/dev/null || break
            sleep 0.1
        done
        grep -q 'waiting for connection' "$T/$tag.qemu" && break
        qemu_stop
        grep -qi 'address already in use' "$T/$tag.qemu" || break
    done
    if [ -n "$QEMU_PID" ]; then
        run "$tag" "$CT" live --plain --duration=2 --tcp=127.0.0.1:$SPORT "$ELF"
        check "$tag-runs" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        for name in producer consumer timer_isr; do
            check "$tag-named-$name" "no context \"$name\" in the live output" \
                grep -Eq "^# context [0-9]+ \"$name\"$" "$T/$tag.out"
        done
        check "$tag-blocking" "no blocking and waking in the live output" \
            eval 'grep -q "^ *-- woken by producer$" "$T/$tag.out" &&
                  grep -q "^ *-- blocked on k_msgq \"jobs\" (get)$" "$T/$tag.out" &&
                  grep -q "^ *-- blocked on k_sem \"tick_sem\" (take)$" "$T/$tag.out"'
        check "$tag-no-unknown" "$(grep -m 1 'unknown type' "$T/$tag.out")" \
            eval '! grep -q "unknown type" "$T/$tag.out"'
    else
        fail "$tag-qemu" "QEMU did not start: $(head -n 2 "$T/$tag.qemu" | tr '\n' '|')"
    fi
    qemu_stop
fi
# --- live over RTT: the same, read through the gdbstub ------------------------------------------
tag=rtt
if elf_copy "$tag" "$FW" "$T/fw" zephyr_rtt; then
    ELF=$T/fw/zephyr_rtt.elf
    if qemu_start "$tag" "$BOARD" "$ELF"; then
        run "$tag" "$CT" live --plain --duration=2 --gdb=127.0.0.1:$PORT "$ELF"
        check "$tag-runs" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        for name in producer consumer timer_isr; do
            check "$tag-named-$name" "no context \"$name\" in the live output" \
                grep -Eq "^# context [0-9]+ \"$name\"$" "$T/$tag.out"
        done
        check "$tag-blocking" "no blocking and waking in the live output" \
            eval 'grep -q "^ *-- woken by timer_isr$" "$T/$tag.out" &&
                  grep -q "^ *-- wakes consumer$" "$T/$tag.out" &&
                  grep -q "^ *-- blocked on k_msgq \"jobs\" (get)$" "$T/$tag.out"'
        check "$tag-uart-free" "the UART carries the stream: $(head -c 80 "$T/$tag.uart" | tr -c '[:print:]\n' '?')" \
            grep -q 'cygtrace zephyr example' "$T/$tag.uart"
    fi
    qemu_stop
fi
finish
