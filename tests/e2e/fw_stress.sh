#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fw_stress.sh - interrupt safety on every core (build/firmware/BOARD/stress.elf, stress.c): a
# fast timer interrupt records while the main loop records, under QEMU with -icount shift=0 (one
# instruction per ns: the timer's period is in instructions, and every run is the same). The
# ring stops when full. Pulled and decoded, the trace must hold every event the firmware made
# or count it as lost, no slot reserved and never written, only the program's own functions,
# in a call structure that the firmware's code allows, with the interrupt's calls nested at
# every depth of the main loop's, and exactly as many interrupt entries as fit in the ring.
set -u
. "$(dirname "$0")/lib.sh"
. "$E2E_DIR/fw_common.bash"

BOARDS=${FW_STRESS_BOARDS:-mps2-an385 mps2-an386 mps2-an505 microbit}
need "$CT"
need_qemu

# shape FILE: reads an etrace-style tree (--no-collapse) of stress.elf and prints one line per
# call that the firmware's code cannot make ("bad: ..."), then one summary line:
#   handlers=N depths=D parents=P
# where N counts tick_handler entries, D the distinct depths they sit at, and P the callers
# they interrupted, "-" for none (between two work_step calls). The main loop is
# main -> work_step(i) -> work_dive x (1 + i % 6) -> work_leaf: the k-th work_step holds exactly
# 1 + k % 6 work_dive levels and one work_leaf, but the last one, which the full ring may cut.
# The interrupt, tick_handler -> tick_work, may come anywhere in it.
shape() {
    awk '
        function bad(why) { print "bad: line " NR ": " why ": " $0; nbad++ }
        function end_step() {
            if (k >= 0 && !(dives == 1 + k % 6 && leaves == 1) && !last)
                bad("work_step #" k " held " dives " work_dive levels and " leaves \
                    " work_leaf, expected " 1 + k % 6 " and 1")
        }
        /^#/ || /^$/ { next }
        BEGIN { k = -1 }
        {
            line = $0; d = 0
            while (substr(line, 1, 4) == "|   ") { line = substr(line, 5); d++ }
            name = line; stack[d] = name; up = d > 0 ? stack[d - 1] : "-"
            if (name == "work_step") {
                if (d != 0) bad("work_step inside " up)
                end_step(); k++; dives = 0; leaves = 0
            } else if (name == "work_dive") {
                if (up != "work_step" && up != "work_dive") bad("work_dive inside " up)
                dives++
            } else if (name == "work_leaf") {
                if (up != "work_dive") bad("work_leaf inside " up)
                leaves++
            } else if (name == "tick_handler") {
                if (up == "tick_handler" || up == "tick_work") bad("tick_handler inside " up)
                handlers++
                if (!(d in depth)) { depth[d] = 1; ndepth++ }
                if (!(up in parent)) { parent[up] = 1; parents = parents " " up }
            } else if (name == "tick_work") {
                if (up != "tick_handler") bad("tick_work inside " up)
            } else {
                bad("not a function of stress.c")
            }
        }
        END {
            last = 1; end_step()
            printf "handlers=%d depths=%d parents=%s\n", handlers, ndepth, parents
        }' "$1"
}

for board in $BOARDS; do
    tag=$board-stress
    fw_copy "$board" stress || continue
    elf=$ELF
    if ! qemu_start "$tag" "$board" "$elf" -icount shift=0 || ! uart_wait "$tag" "stress: done"; then
        qemu_stop
        continue
    fi
    # stress: main=<calls> isr=<calls> isr_fit=<tick_handler entries that fit> window=<...>
    counts=$(grep -m1 '^stress: main=' "$T/$tag.uart")
    if [[ ! $counts =~ main=([0-9]+)\ isr=([0-9]+)\ isr_fit=([0-9]+)\ window=([0-9]+) ]]; then
        fail "$tag-counts" "no counts on the UART: $(tr '\n' '|' <"$T/$tag.uart" | cut -c1-160)"
        qemu_stop
        continue
    fi
    main=${BASH_REMATCH[1]} isr=${BASH_REMATCH[2]} fit=${BASH_REMATCH[3]} window=${BASH_REMATCH[4]}
    # Without --force: the build-id the runtime recorded must be the ELF's.
    run "$tag-pull" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$elf"
    qemu_stop
    check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag-pull.err")" [ "$RC" -eq 0 ]
    [ "$RC" -eq 0 ] || continue

    # The events the firmware made: the START record of cygtrace_cm_init() (main is not
    # instrumented, and set_mode, freeze and the build-id record nothing), then an entry and
    # an exit for every call of an instrumented function, each of which counts itself in main=
    # or isr=. Every one of them is either written or lost: written + lost, exactly.
    made=$((1 + 2 * (main + isr)))
    run "$tag-info" "$CT" info "$elf" "$T/$tag.dump"
    written=$(info_field "$T/$tag-info.out" written)
    lost=$(info_field "$T/$tag-info.out" lost)
    unwritten=$(info_field "$T/$tag-info.out" unwritten)
    check "$tag-info" "status $RC: $(head -n 1 "$T/$tag-info.err")" \
        eval '[ "$RC" -eq 0 ] && [ -n "$written" ] && [ -n "$lost" ] && [ -n "$unwritten" ]'
    check "$tag-unwritten" "$unwritten slots reserved but never written" \
        [ "${unwritten:-1}" -eq 0 ]
    if fw_v4 "$T/$tag.dump"; then
        # Version 4: written counts the slots of TIME records and specials' more words too;
        # the events the ring holds and those it lost are what was made, exactly.
        written=$(info_field "$T/$tag-info.out" held)
        check "$tag-written-plus-lost" "held $written + lost $lost != $made events made" \
            [ $((${written:-0} + ${lost:-0})) -eq "$made" ]
    else
        check "$tag-written-plus-lost" "written $written + lost $lost != $made events made" \
            [ $((${written:-0} + ${lost:-0})) -eq "$made" ]
    fi
    check "$tag-stop-mode" "$(grep -m1 '^mode:' "$T/$tag-info.out")" \
        grep -q '^mode: *stop when full' "$T/$tag-info.out"
    # A timer this fast must land between a hook's reservation and its commit, often.
    check "$tag-window" "only $window interrupts between a reservation and its commit" \
        [ "$window" -ge 20 ]

    run "$tag-tree" "$CT" tree --style=etrace --no-collapse "$elf" "$T/$tag.dump"
    check "$tag-tree" "status $RC: $(head -n 1 "$T/$tag-tree.err")" [ "$RC" -eq 0 ]
    check "$tag-no-address" "a line with an address: $(grep -m1 '0x' "$T/$tag-tree.out")" \
        eval '! grep -q 0x "$T/$tag-tree.out"'
    shape "$T/$tag-tree.out" >"$T/$tag.shape"
    check "$tag-call-structure" "$(grep -c '^bad:' "$T/$tag.shape") bad calls, first: \
$(grep -m1 '^bad:' "$T/$tag.shape")" eval '! grep -q "^bad:" "$T/$tag.shape"'
    summary=$(tail -n 1 "$T/$tag.shape")
    handlers=0 depths=0 parents=
    if [[ $summary =~ handlers=([0-9]+)\ depths=([0-9]+)\ parents=(.*)$ ]]; then
        handlers=${BASH_REMATCH[1]} depths=${BASH_REMATCH[2]} parents=${BASH_REMATCH[3]}
    fi
    check "$tag-isr-entries" "$handlers tick_handler entries in the trace, the firmware counted \
$fit that fit (of $isr calls)" [ "$handlers" -eq "$fit" ]
    # Inside work_step, work_dive and work_leaf, and between steps, at four depths at least.
    check "$tag-isr-nesting" "tick_handler at $depths depths, inside:$parents" \
        eval '[ "$depths" -ge 4 ] && [[ " $parents " == *" - "* ]] &&
              [[ " $parents " == *" work_step "* ]] && [[ " $parents " == *" work_dive "* ]] &&
              [[ " $parents " == *" work_leaf "* ]]'
    echo "    $board: main=$main isr=$isr fit=$fit window=$window written=$written lost=$lost \
depths=$depths"
done

finish
