#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# pull_qemu.sh - "cygtrace pull" against QEMU's gdbstub, the GDB server of a real Cortex-M board
# model running the example firmware (build/firmware/BOARD/{demo,crash,reset}.elf): the demo's
# call tree, a HardFault's tree that ends with the fault and the call stack, and a trace that
# survived a warm reset. QEMU stops the machine while a debugger is connected and resumes it on
# detach: each board is left running as it was found.
set -u
. "$(dirname "$0")/lib.sh"

BOARDS=${PULL_QEMU_BOARDS:-mps2-an385 mps2-an386 mps2-an505 microbit}
FW=$BUILD/firmware
need "$CT"
need_qemu

for board in $BOARDS; do
    elf_copy "$board" "$FW/$board" "$T/$board" demo crash reset demo_hookcost || continue
    demo=$T/$board/demo.elf crash=$T/$board/crash.elf reset=$T/$board/reset.elf
    hookcost=$T/$board/demo_hookcost.elf

    # --- demo: the tree of a normal run ------------------------------------------------------
    tag=$board-demo
    if qemu_start "$tag" "$board" "$demo" && uart_wait "$tag" "demo: done"; then
        run "$tag" "$CT" pull --gdb=127.0.0.1:$PORT "$demo"
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        tree_body "$T/$tag.out" >"$T/$tag.body"
        # DEMO_Run -> decide -> calcValue, and decide -> getValue -> calcValue (demo.c).
        bad=$(nested "$T/$tag.body" DEMO_Run decide calcValue)
        check "$tag-nesting-calcValue" "$bad" [ -z "$bad" ]
        bad=$(nested "$T/$tag.body" DEMO_Run decide getValue calcValue)
        check "$tag-nesting-getValue" "$bad" [ -z "$bad" ]
        check "$tag-crumble" "no Crumble_make_apple_crumble() {" \
            grep -q '^ *Crumble_make_apple_crumble() {$' "$T/$tag.body"
        check "$tag-resumed" "QEMU is gone after the detach" kill -0 "$QEMU_PID"
        # The firmware sleeps after "demo: done": every way of reading gives the same bytes.
        run "$tag-o" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$demo"
        run "$tag-dump-tree" "$CT" tree "$demo" "$T/$tag.dump"
        # The hooks' cost (issue 31): a firmware built without -DCYGTRACE_HOOK_COST gives none,
        # and nothing is said; one given with --hook-cost (in ticks of its clock) is taken out
        # of the same tree, every record of the core counting (one core), and said so.
        run "$tag-hook" "$CT" tree --hook-cost=2 "$demo" "$T/$tag.dump"
        check "$tag-no-hook-figure" "a note without a figure: $(grep -m1 'hook cost' "$T/$tag-dump-tree.out")" \
            eval '! grep -q "durations corrected" "$T/$tag-dump-tree.out"'
        check "$tag-hook-cost-given" "status $RC: $(head -n 1 "$T/$tag-hook.out")" \
            eval '[ "$RC" -eq 0 ] && head -n 1 "$T/$tag-hook.out" | grep -Eq "^# durations corrected for hook cost: [0-9.]+ ns per event \(given by --hook-cost;" &&
                  diff <(tree_body "$T/$tag-dump-tree.out") <(sed 1d "$T/$tag-hook.out" | tree_body -) >/dev/null'
        check "$tag-o-decodes" "tree of pull -o's dump differs from pull's" \
            same "$T/$tag.out" "$T/$tag-dump-tree.out"
        start=$(date +%s)
        run "$tag-halt" "$CT" pull --halt --gdb=127.0.0.1:$PORT -o "$T/$tag-halt.dump" "$demo"
        took=$(($(date +%s) - start))
        check "$tag-halt" "status $RC in $took s: $(head -n 1 "$T/$tag-halt.err")" \
            eval '[ "$RC" -eq 0 ] && [ "$took" -le 3 ]'
        check "$tag-halt-same" "--halt read other bytes" cmp -s "$T/$tag.dump" "$T/$tag-halt.dump"
        run "$tag-gdb" env -u DEBUGINFOD_URLS gdb-multiarch -batch -nx \
            -iex 'set debuginfod enabled off' -x "$ROOT/tools/cygtrace.gdb" \
            -ex "target remote 127.0.0.1:$PORT" -ex "cygtrace-dump $T/$tag-gdb.dump" \
            -ex detach "$demo"
        check "$tag-gdb-same" "gdb's dump differs: $(grep -m1 -i error "$T/$tag-gdb.err")" \
            cmp -s "$T/$tag.dump" "$T/$tag-gdb.dump"
        # What it says, in full: a firmware has no malloc for gdb to copy a string argument with.
        check "$tag-gdb-says" "$(grep -m1 '^cygtrace: ' "$T/$tag-gdb.out"); $(head -n 1 "$T/$tag-gdb.err")" \
            eval 'grep -Eqx "cygtrace: wrote [0-9]+ bytes from 0x[0-9a-f]+ to $T/$tag-gdb.dump" "$T/$tag-gdb.out" &&
                  ! grep -q malloc "$T/$tag-gdb.err"'
        check "$tag-resumed-again" "QEMU is gone after gdb detached" kill -0 "$QEMU_PID"
    fi
    qemu_stop

    # --- demo_hookcost: the hooks' cost given at build time (-DCYGTRACE_HOOK_COST=12) -------------
    tag=$board-hookcost
    if qemu_start "$tag" "$board" "$hookcost" && uart_wait "$tag" "demo: done"; then
        run "$tag" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$hookcost"
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        # bytes 72..75: 12 ticks in 1/256 tick, bit 31 set (given, not measured)
        check "$tag-field" "hook_cost $(od -An -t x4 -j 72 -N 4 "$T/$tag.dump")" \
            [ "$(od -An -t x4 -j 72 -N 4 "$T/$tag.dump" | tr -d ' ')" = 80000c00 ]
        run "$tag-tree" "$CT" tree "$hookcost" "$T/$tag.dump"
        check "$tag-note" "first line: $(head -n 1 "$T/$tag-tree.out")" \
            eval '[ "$RC" -eq 0 ] && head -n 1 "$T/$tag-tree.out" | grep -Eq "^# durations corrected for hook cost: [0-9.]+ ns per event \(given when the runtime was built, CYGTRACE_HOOK_COST;"'
        run "$tag-raw" "$CT" tree --raw-times "$hookcost" "$T/$tag.dump"
        check "$tag-raw" "the tree differs from the demo's, or says it is corrected" \
            eval '! grep -q "durations corrected" "$T/$tag-raw.out" &&
                  diff <(tree_body "$T/$tag-raw.out") <(sed 1d "$T/$tag-tree.out" | tree_body -) >/dev/null'
    fi
    qemu_stop

    # --- crash: the fault and the call stack end the tree --------------------------------------
    tag=$board-crash
    if qemu_start "$tag" "$board" "$crash" && uart_wait "$tag" "crash: HardFault, trace frozen"; then
        run "$tag" "$CT" pull --gdb=127.0.0.1:$PORT "$crash"
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        # Past the tree: "*** HardFault at FUNC+0x..", then the call stack, innermost first, and
        # notes: nothing but "#" lines after the fault.
        fault=$(grep -n '^\*\*\* HardFault at ' "$T/$tag.out" | tail -n 1)
        fline=${fault%%:*}
        fault=${fault#*:}
        where=${fault#\*\*\* HardFault at }
        func=${where%%[+,]*}
        tail -n +"${fline:-1}" "$T/$tag.out" | tail -n +2 >"$T/$tag.after"
        check "$tag-fault-line" "no '*** HardFault at' line" [ -n "$fault" ]
        check "$tag-fault-names-function" "$fault" eval '[[ "$func" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]'
        # LR at the fault is where read_field's call of the entry hook returned, inside it: no
        # caller (the call stack names parse_packet).
        check "$tag-fault-no-own-caller" "$fault" eval '[[ "$fault" != *"called from $func+"* ]]'
        check "$tag-fault-then-stack" "the call stack does not follow the fault line" \
            grep -q '^# call stack at the end of the trace' "$T/$tag.after"
        check "$tag-fault-last" "after the fault line: $(grep -v '^#' "$T/$tag.after" | head -n 1)" \
            eval '! grep -qv "^#" "$T/$tag.after"'
        check "$tag-frozen" "no note that the trace was frozen" \
            grep -q '^# the trace was frozen' "$T/$tag.out"
        stack0=$(awk '$1 == "#" && $2 == "0" { print $3; exit }' "$T/$tag.after")
        check "$tag-stack-innermost" "fault in $func, innermost frame '$stack0'" \
            [ "$func" = "$stack0" ]
        cp "$T/$tag.out" "$T/$tag.tree"
        # A whole-RAM image, saved the way any probe's tools can: the control block is found in
        # it by its magic, and must sit where it says it lives.
        case $board in
        mps2-an505) ram=0x38000000 ramlen=0x10000 ;;
        microbit) ram=0x20000000 ramlen=0x4000 ;;
        *) ram=0x20000000 ramlen=0x10000 ;;
        esac
        run "$tag-ramdump" env -u DEBUGINFOD_URLS gdb-multiarch -batch -nx \
            -iex 'set debuginfod enabled off' -ex "target remote 127.0.0.1:$PORT" \
            -ex "dump binary memory $T/$tag.ram $ram $ram+$ramlen" -ex detach "$crash"
        run "$tag-ram" "$CT" tree --ram=$ram "$crash" "$T/$tag.ram"
        check "$tag-ram-image" "status $RC: $(head -n 1 "$T/$tag-ram.err")" \
            eval '[ "$RC" -eq 0 ] && same "$T/$tag.out" "$T/$tag-ram.out"'
        expect_error "$tag-ram-wrong-base" 1 'check --ram' \
            "$CT" tree --ram=$((ram + 0x100)) "$crash" "$T/$tag.ram"
    fi
    qemu_stop

    # --- reset: the trace kept across a warm reset, resets=1 -----------------------------------
    tag=$board-reset
    if qemu_start "$tag" "$board" "$reset" && uart_wait "$tag" "reset: kept the trace"; then
        run "$tag" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$reset"
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        run "$tag-info" "$CT" info "$reset" "$T/$tag.dump"
        check "$tag-resets" "info: $(grep -m1 '^resets' "$T/$tag-info.out")" \
            grep -Eq '^resets: +1 warm resets? survived' "$T/$tag-info.out"
        run "$tag-tree" "$CT" tree "$reset" "$T/$tag.dump"
        tree_body "$T/$tag-tree.out" >"$T/$tag.body"
        bad=$(nested "$T/$tag.body" control_step sensor_read)
        check "$tag-pre-reset-calls" "status $RC: $bad" eval '[ "$RC" -eq 0 ] && [ -z "$bad" ]'
        bad=$(nested "$T/$tag.body" control_step filter_update)
        check "$tag-pre-reset-calls-2" "$bad" [ -z "$bad" ]
    fi
    qemu_stop
done

finish
