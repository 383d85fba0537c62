#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# freertos.sh - the FreeRTOS example (examples/freertos) on QEMU's board models, traced through
# the glue (target/rtos/freertos) and read through the real gdbstub, on each board:
#   crash  freertos.elf runs 40 rounds of producer -> queue "jobs" -> consumer, the producer
#          woken by a timer interrupt through the semaphore "tick_sem", then faults in the
#          consumer: `pull` prints a tree per task and per interrupt, named; the blocking and
#          waking where they happen; no task's calls in another's tree, no call cut by a switch;
#          the fault and its call stack in the consumer's tree; --thread=NAME; `pull -o` then
#          `tree` the same; `report` per task; `export --format=chrome` a track per task
#   wrap   freertos_wrap.elf runs 400 rounds in a ring of 512 records: the records that named
#          the tasks are long gone, the names come from the TCBs (and a saved dump keeps them
#          in DUMP.maps); the fault is still in the consumer's tree
#   live   freertos_live.elf streams over the UART (the idle task drains): `live` names the
#          tasks and shows the waking as it comes; freertos_rtt.elf the same over RTT, read
#          through the gdbstub (`live --gdb`)
# The kernel is third-party: without one (FREERTOS_DIR, else the build's default folder) the
# build skips the example, and this script skips its tests, each by name.
set -u
. "$(dirname "$0")/lib.sh"

BOARDS=${FREERTOS_BOARDS:-mps2-an385 mps2-an386 mps2-an505 microbit}
need "$CT"

# The kernel the build takes (examples/freertos/freertos.mk): FREERTOS_DIR, else the one next
# to the checkout. Without one, the build made no FreeRTOS firmware (any found is stale).
KERNEL=${FREERTOS_DIR-$ROOT/../shared/thirdparty/FreeRTOS-Kernel}
if [ ! -f "$KERNEL/tasks.c" ]; then
    echo "    no FreeRTOS-Kernel at FREERTOS_DIR='$KERNEL': get V11 from" \
        "https://github.com/FreeRTOS/FreeRTOS-Kernel and set FREERTOS_DIR to it"
    why="no FreeRTOS kernel"
    for board in $BOARDS; do
        skip "$board-crash" "$why"
        skip "$board-wrap" "$why"
    done
    skip live "$why"
    skip rtt "$why"
    finish
fi
need_qemu

# section FILE NAME: the lines of the tree of the context named NAME (from its "# context N
# "NAME"" header to the next header).
section() {
    awk -v h="\"$2\"" '/^# context / { on = index($0, h) > 0 && $0 ~ /events$/; next } on' "$1"
}

# irq_of BOARD: the vector table's name of the timer interrupt that gives tick_sem.
irq_of() {
    case $1 in
    mps2-an505) echo IRQ4_Handler ;;
    microbit) echo IRQ10_Handler ;;
    *) echo IRQ9_Handler ;;
    esac
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

for board in $BOARDS; do
    tag=$board-crash
    mkdir -p "$T/$board"
    ELF=$T/$board/freertos.elf
    if ! cp "$BUILD/firmware/$board/freertos.elf" "$ELF" 2>/dev/null; then
        fail "$tag-firmware" "$BUILD/firmware/$board/freertos.elf is missing: run make"
        continue
    fi
    irq=$(irq_of "$board")
    if qemu_start "$tag" "$board" "$ELF" && uart_wait "$tag" "trace frozen"; then
        run "$tag-pull" "$CT" pull --gdb=127.0.0.1:$PORT "$ELF"
        out=$T/$tag-pull.out
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag-pull.err")" \
            eval '[ "$RC" -eq 0 ] && [ ! -s "$T/$tag-pull.err" ]'
        for name in producer consumer "$irq"; do
            check "$tag-named-$name" "no tree headed \"$name\": $(grep '^# context' "$out" | tr '\n' '|')" \
                grep -Eq "^# context [0-9]+ \"$name\", [0-9]+ events$" "$out"
        done
        check "$tag-no-unknown" "$(grep -m 1 'unknown type' "$out")" \
            eval '! grep -q "unknown type" "$out"'
        section "$out" consumer >"$T/$tag.consumer"
        section "$out" producer >"$T/$tag.producer"
        section "$out" "$irq" >"$T/$tag.irq"
        check "$tag-consumer-blocks" "no 'blocked on queue \"jobs\" (receive)' in the consumer's tree" \
            grep -q '^ *-- blocked on queue "jobs" (receive)$' "$T/$tag.consumer"
        check "$tag-consumer-woken" "no 'woken by producer' in the consumer's tree" \
            grep -q '^ *-- woken by producer$' "$T/$tag.consumer"
        check "$tag-producer-blocks" "no 'blocked on semaphore \"tick_sem\" (take)' in the producer's tree" \
            grep -q '^ *-- blocked on semaphore "tick_sem" (take)$' "$T/$tag.producer"
        check "$tag-producer-woken" "no 'woken by $irq' in the producer's tree" \
            grep -q "^ *-- woken by $irq\$" "$T/$tag.producer"
        check "$tag-producer-wakes" "no 'wakes consumer' in the producer's tree" \
            grep -q '^ *-- wakes consumer$' "$T/$tag.producer"
        check "$tag-irq-wakes" "no 'wakes producer' in $irq's tree" \
            grep -q '^ *-- wakes producer$' "$T/$tag.irq"
        # The blocking is where it happens: inside the API call that blocked.
        check "$tag-blocked-inside" "the consumer's block is not inside xQueueReceive" \
            eval '[ "$(awk "/xQueueReceive\\(\\) \\{/ { d = 1 } /-- blocked on queue/ && d { print \"in\"; exit }" "$T/$tag.consumer")" = in ]'
        check "$tag-own-calls" "a task's tree holds another's calls" \
            eval '! grep -q "make_job()" "$T/$tag.consumer" && ! grep -q "consume()" "$T/$tag.producer" &&
                  ! grep -q "make_job()\|consume()" "$T/$tag.irq"'
        # A switch closes nothing and opens nothing: the calls a task was in when it blocked or
        # was preempted go on in its tree.
        for f in xQueueSemaphoreTake xQueueGenericSend; do
            why=$(balanced "$T/$tag.producer" "$f")
            check "$tag-producer-$f-whole" "$why" [ -z "$why" ]
        done
        why=$(balanced "$T/$tag.consumer" xQueueReceive)
        check "$tag-consumer-xQueueReceive-whole" "$why" [ -z "$why" ]
        check "$tag-fault-in-consumer" "no HardFault in store_result in the consumer's tree" \
            grep -q '^\*\*\* HardFault at store_result' "$T/$tag.consumer"
        check "$tag-fault-stack" "$(grep '^#   ' "$T/$tag.consumer" | tr '\n' '|')" \
            eval '[ "$(grep "^#   [0-9]" "$T/$tag.consumer" | awk "{ print \$3 }" | tr "\n" " ")" = \
                    "store_result consume consumer " ]'
        check "$tag-fault-once" "the fault shows in another tree too" \
            eval '[ "$(grep -c "^\*\*\* HardFault" "$out")" -eq 1 ]'

        run "$tag-thread" "$CT" pull --gdb=127.0.0.1:$PORT --thread=consumer "$ELF"
        check "$tag-thread" "status $RC: $(head -n 1 "$T/$tag-thread.err")" \
            eval '[ "$RC" -eq 0 ] && grep -q "^\*\*\* HardFault" "$T/$tag-thread.out" &&
                  ! grep -q "make_job()" "$T/$tag-thread.out"'

        run "$tag-save" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$ELF"
        check "$tag-save" "status $RC: $(head -n 1 "$T/$tag-save.err")" [ "$RC" -eq 0 ]
        run "$tag-tree" "$CT" tree "$ELF" "$T/$tag.dump"
        check "$tag-tree-same" "tree of the saved dump differs from pull's" same "$out" "$T/$tag-tree.out"

        # The records themselves: the switches to the tasks by name, the clock's TIME
        # records, the fault where the tree shows it.
        run "$tag-dump" "$CT" dump "$ELF" "$T/$tag.dump"
        check "$tag-dump" "status $RC: $(head -n 1 "$T/$tag-dump.err")" \
            eval '[ "$RC" -eq 0 ] && grep -Eq " context +0x[0-9a-f]{8}  to [0-9]+ \(consumer\)$" "$T/$tag-dump.out" &&
                  grep -Eq " time +0x[0-9a-f]{8}$" "$T/$tag-dump.out" &&
                  grep -Eq " fault +0x[0-9a-f]{8}  store_result\+0x[0-9a-f]+ \(kind [0-9]+\)$" "$T/$tag-dump.out"'
        run "$tag-report" "$CT" report --tasks "$ELF" "$T/$tag.dump"
        check "$tag-report" "status $RC: $(head -n 1 "$T/$tag-report.err")" \
            eval '[ "$RC" -eq 0 ] && grep -q "producer" "$T/$tag-report.out" &&
                  grep -q "consumer" "$T/$tag-report.out" && grep -q "$irq" "$T/$tag-report.out"'
        run "$tag-report-one" "$CT" report --tasks --thread=consumer "$ELF" "$T/$tag.dump"
        check "$tag-report-one" "status $RC: $(grep -v '^#' "$T/$tag-report-one.out" | tr '\n' '|')" \
            eval '[ "$RC" -eq 0 ] && [ "$(grep -v "^#" "$T/$tag-report-one.out" | grep -vc " running ")" = 1 ] &&
                  grep -v "^#" "$T/$tag-report-one.out" | grep -q "  consumer  "'
        expect_error "$tag-report-nosuch" 1 'no context called "nosuch"' \
            "$CT" report --tasks --thread=nosuch "$ELF" "$T/$tag.dump"
        run "$tag-chrome" "$CT" export --format=chrome "$ELF" "$T/$tag.dump"
        check "$tag-chrome" "status $RC: no thread_name of the tasks" \
            eval '[ "$RC" -eq 0 ] && grep -q "\"thread_name\"" "$T/$tag-chrome.out" &&
                  grep -q "\"name\": *\"context [0-9]* \\\\\"producer\\\\\"\"" "$T/$tag-chrome.out" &&
                  grep -q "\"name\": *\"context [0-9]* \\\\\"consumer\\\\\"\"" "$T/$tag-chrome.out"'
        # Every output names a context the same: the tree's headers, report's and graph's, the
        # Chrome tracks (which add the contexts that made no call: the idle task), and the
        # names in report's table of tasks.
        ctx_labels head "$out" >"$T/$tag.labels"
        check "$tag-labels-irq" "no header names $irq: $(tr '\n' '|' <"$T/$tag.labels")" \
            grep -Eqx "context [0-9]+ \"$irq\"" "$T/$tag.labels"
        run "$tag-report-all" "$CT" report "$ELF" "$T/$tag.dump"
        run "$tag-graph" "$CT" graph "$ELF" "$T/$tag.dump"
        for o in report-all graph; do
            ctx_labels head "$T/$tag-$o.out" >"$T/$tag.labels-$o"
            check "$tag-labels-$o" "$o names the contexts otherwise than tree" \
                same "$T/$tag.labels" "$T/$tag.labels-$o"
        done
        if command -v jq >/dev/null; then
            ctx_labels chrome "$T/$tag-chrome.out" >"$T/$tag.labels-chrome"
            check "$tag-labels-chrome" "a tree's header is no Chrome track: $(comm -23 "$T/$tag.labels" "$T/$tag.labels-chrome" | tr '\n' '|')" \
                eval '[ -z "$(comm -23 "$T/$tag.labels" "$T/$tag.labels-chrome")" ] &&
                      grep -Eqx "context [0-9]+ \"IDLE\"" "$T/$tag.labels-chrome"'
            why=
            while read -r name; do
                grep -q "  $name  " "$T/$tag-report.out" || why="$why $name"
            done < <(sed -n 's/^context [0-9]* "\(.*\)"$/\1/p' "$T/$tag.labels-chrome")
            check "$tag-labels-tasks" "not in report's table of tasks:$why" [ -z "$why" ]
        else
            skip "$tag-labels-chrome" "jq is not installed (make deps)"
        fi
        if command -v python3 >/dev/null; then
            check "$tag-chrome-json" "not JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/$tag-chrome.out"
        fi
    fi
    qemu_stop

    # --- wrap: names from the TCBs -------------------------------------------------------------
    tag=$board-wrap
    ELF=$T/$board/freertos_wrap.elf
    if ! cp "$BUILD/firmware/$board/freertos_wrap.elf" "$ELF" 2>/dev/null; then
        fail "$tag-firmware" "$BUILD/firmware/$board/freertos_wrap.elf is missing: run make"
        continue
    fi
    if qemu_start "$tag" "$board" "$ELF" && uart_wait "$tag" "trace frozen"; then
        run "$tag-save" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$ELF"
        check "$tag-save" "status $RC: $(head -n 1 "$T/$tag-save.err")" [ "$RC" -eq 0 ]
        run "$tag-info" "$CT" info "$ELF" "$T/$tag.dump"
        check "$tag-lapped" "the ring did not wrap: $(grep -E '^(lapped|overwritten)' "$T/$tag-info.out" | tr '\n' ' ')" \
            grep -q '^lapped: *yes' "$T/$tag-info.out"
        check "$tag-maps" "no task names in $tag.dump.maps: $(tr '\n' '|' <"$T/$tag.dump.maps" 2>/dev/null)" \
            eval 'grep -qx "ctxname [0-9]* producer" "$T/$tag.dump.maps" &&
                  grep -qx "ctxname [0-9]* consumer" "$T/$tag.dump.maps"'
        run "$tag-tree" "$CT" tree "$ELF" "$T/$tag.dump"
        for name in producer consumer; do
            check "$tag-named-$name" "no tree headed \"$name\": $(grep '^# context' "$T/$tag-tree.out" | tr '\n' '|')" \
                grep -Eq "^# context [0-9]+ \"$name\", [0-9]+ events$" "$T/$tag-tree.out"
        done
        section "$T/$tag-tree.out" consumer >"$T/$tag.consumer"
        check "$tag-fault-in-consumer" "no HardFault in the consumer's tree" \
            grep -q '^\*\*\* HardFault at store_result' "$T/$tag.consumer"
        # Without DUMP.maps the ring alone cannot name them: the names came from the kernel.
        mv "$T/$tag.dump.maps" "$T/$tag.maps"
        run "$tag-nomaps" "$CT" tree "$ELF" "$T/$tag.dump"
        check "$tag-names-from-tcbs" "the wrapped ring still names the tasks by itself" \
            eval '[ "$RC" -eq 0 ] && ! grep -q "\"producer\"\|\"consumer\"" "$T/$tag-nomaps.out"'
        # A pull into the same file of a program without the glue must not leave the names.
        cp "$T/$tag.maps" "$T/$tag.dump.maps"
        fw=$BUILD/firmware/$board/crash.elf
        if [ -e "$fw" ]; then
            qemu_stop
            if qemu_start "$tag-plain" "$board" "$fw" && uart_wait "$tag-plain" "Fault"; then
                run "$tag-plain" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$fw"
                check "$tag-stale-maps" "status $RC; a stale $tag.dump.maps was left" \
                    eval '[ "$RC" -eq 0 ] && [ ! -e "$T/$tag.dump.maps" ]'
            fi
        fi
    fi
    qemu_stop
done

# --- live: the tasks over the UART -------------------------------------------------------------
tag=live
ELF=$T/freertos_live.elf
if cp "$BUILD/firmware/mps2-an385/freertos_live.elf" "$ELF" 2>/dev/null; then
    for ((i = 0; i < 20; i++)); do
        SPORT=$((20000 + RANDOM % 20000))
        timeout 30 qemu-system-arm -M mps2-an385 -display none -monitor none -nographic \
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
        for name in producer consumer; do
            check "$tag-named-$name" "no context \"$name\" in the live output" \
                grep -Eq "^# context [0-9]+ \"$name\"$" "$T/$tag.out"
        done
        check "$tag-woken" "no wake in the live output" \
            eval 'grep -q "^ *-- woken by producer$" "$T/$tag.out" &&
                  grep -q "^ *-- blocked on queue \"jobs\" (receive)$" "$T/$tag.out"'
        check "$tag-no-unknown" "$(grep -m 1 'unknown type' "$T/$tag.out")" \
            eval '! grep -q "unknown type" "$T/$tag.out"'
    else
        fail "$tag-qemu" "QEMU did not start: $(head -n 2 "$T/$tag.qemu" | tr '\n' '|')"
    fi
    qemu_stop
else
    fail "$tag-firmware" "$BUILD/firmware/mps2-an385/freertos_live.elf is missing: run make"
fi

# --- live over RTT: the same, read through the gdbstub ------------------------------------------
tag=rtt
ELF=$T/freertos_rtt.elf
if cp "$BUILD/firmware/mps2-an385/freertos_rtt.elf" "$ELF" 2>/dev/null; then
    if qemu_start "$tag" mps2-an385 "$ELF"; then
        run "$tag" "$CT" live --plain --duration=2 --gdb=127.0.0.1:$PORT "$ELF"
        check "$tag-runs" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        for name in producer consumer IRQ9_Handler; do
            check "$tag-named-$name" "no context \"$name\" in the live output" \
                grep -Eq "^# context [0-9]+ \"$name\"$" "$T/$tag.out"
        done
        check "$tag-woken" "no wake in the live output" \
            eval 'grep -q "^ *-- woken by IRQ9_Handler$" "$T/$tag.out" &&
                  grep -q "^ *-- wakes consumer$" "$T/$tag.out"'
        # A switch alone prints nothing: the idle task, which makes no calls, is switched in
        # hundreds of times a second and gets a header only for a loss (the drain runs in it).
        check "$tag-idle-quiet" "$(grep -c '"IDLE"' "$T/$tag.out") headers of the idle task" \
            eval '[ "$(grep -c "^# context [0-9]* \"IDLE\"$" "$T/$tag.out")" -le 2 ]'
    fi
    qemu_stop
else
    fail "$tag-firmware" "$BUILD/firmware/mps2-an385/freertos_rtt.elf is missing: run make"
fi
finish
