#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fw_overwrite.sh - interrupt safety in overwrite mode on every core (stress_ow.elf: stress.c
# built with STRESS_OVERWRITE): a fast timer interrupt records its own calls in the middle of
# the main loop's records, with periods that vary so that it lands all over the hooks, while a
# ring of 512 records is lapped some 250 times; then the firmware freezes the ring and QEMU's
# gdbstub gives it to cygtrace pull. Under -icount shift=0 a run is the same every time, for a
# given seed. Each trial checks:
#   - read + lost == written: the records held plus those overwritten are every reservation,
#     and the reservations are every event the firmware counted (START + 2 per call);
#   - no torn record: no slot of the window unwritten, each record one of the program's
#     functions, read from the raw bytes (fw_seq.awk), not through cygtrace's decoder;
#   - the main loop's events are exactly the newest of its deterministic sequence, and the
#     interrupt's come as whole tick_handler -> tick_work chains between them;
#   - cygtrace tree, the host's view, agrees: as many calls of each function, nothing repaired.
# stress_armed.elf runs the same with the control area armed (a start trigger on work_step, a
# depth limit no call reaches): every event through the hooks' slow path, and one TRIGGER
# record more.
# FW_TRIALS (default 1) runs per board, FW_SEED the first trial's seed (default: random; the
# first trial of each board with the firmware's built-in seed when FW_TRIALS is 1).
set -u
. "$(dirname "$0")/lib.sh"
. "$E2E_DIR/fw_common.bash"

fw_setup 1

# trial BOARD SEED: one run; SEED 0 leaves the firmware's own.
trial() {
    local board=$1 seed=$2 tag=$1-$PROG-$2 qargs=()
    if [ "$seed" != 0 ]; then
        qargs=(-device "$(fw_seed_arg "$ELF" stress_seed "$seed")")
    fi
    if ! qemu_start "$tag" "$board" "$ELF" -icount shift=0 "${qargs[@]}" ||
        ! uart_wait "$tag" "stress: done"; then
        qemu_stop
        return
    fi
    local counts
    counts=$(grep -m1 '^stress: main=' "$T/$tag.uart")
    if [[ ! $counts =~ main=([0-9]+)\ isr=([0-9]+)\ isr_fit=[0-9]+\ window=([0-9]+)\ hook_pcs=([0-9]+)\ steps=([0-9]+)\ seed=([0-9]+) ]]; then
        fail "$tag-counts" "no counts on the UART: $(tr '\n' '|' <"$T/$tag.uart" | cut -c1-160)"
        qemu_stop
        return
    fi
    local main=${BASH_REMATCH[1]} isr=${BASH_REMATCH[2]} window=${BASH_REMATCH[3]}
    local pcs=${BASH_REMATCH[4]} steps=${BASH_REMATCH[5]}
    run "$tag-pull" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$ELF"
    qemu_stop
    check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag-pull.err")" [ "$RC" -eq 0 ]
    [ "$RC" -eq 0 ] || return

    # work_step(i) makes 2 + 1 + i % 6 calls: 33 per 6 steps.
    check "$tag-main-calls" "$main main-loop calls for $steps steps, expected $((steps / 6 * 33))" \
        [ "$main" -eq $((steps / 6 * 33)) ]
    local made=$((1 + 2 * (main + isr))) # START, then an entry and an exit a call
    [ "$PROG" = stress_armed ] && made=$((made + 1)) # the start trigger's record
    run "$tag-info" "$CT" info "$ELF" "$T/$tag.dump"
    local i=$T/$tag-info.out written held over unwritten lost cap
    written=$(info_field "$i" written) held=$(info_field "$i" held)
    over=$(info_field "$i" overwritten) unwritten=$(info_field "$i" unwritten)
    lost=$(info_field "$i" lost) cap=$(info_field "$i" capacity)
    check "$tag-info" "status $RC: $(head -n 1 "$T/$tag-info.err")" \
        eval '[ "$RC" -eq 0 ] && [ -n "$written" ] && [ -n "$held" ] && [ -n "$over" ] &&
              [ -n "$unwritten" ] && [ -n "$lost" ] && [ -n "$cap" ]'
    check "$tag-overwrite-mode" "$(grep -m1 '^mode:' "$i")" grep -q '^mode: *overwrite' "$i"
    if fw_v4 "$T/$tag.dump"; then
        # Version 4: head counts TIME records and specials' more words too; the slots of the
        # specials whose headers the newest lap overwrote read as unwritten (two at most).
        check "$tag-written-is-made" "written $written, but the firmware made $made events" \
            [ "${written:-0}" -ge "$made" ]
        check "$tag-read-plus-lost" "held $held + overwritten $over + lost $lost > written $written" \
            [ $((${held:-0} + ${over:-0} + ${lost:-0})) -le "${written:--1}" ]
        check "$tag-no-torn" "$unwritten slots reserved but never written" [ "${unwritten:-3}" -le 2 ]
    else
        check "$tag-written-is-made" "written $written, but the firmware made $made events" \
            [ "${written:-0}" -eq "$made" ]
        check "$tag-read-plus-lost" "held $held + overwritten $over + lost $lost != written $written" \
            [ $((${held:-0} + ${over:-0} + ${lost:-0})) -eq "${written:--1}" ]
        check "$tag-no-torn" "$unwritten slots reserved but never written" [ "${unwritten:-1}" -eq 0 ]
    fi
    check "$tag-laps" "written $written in a ring of $cap: under 50 laps" \
        [ "${written:-0}" -ge $((50 * ${cap:-1 << 30})) ]
    check "$tag-window" "only $window interrupts between a reservation and its commit" \
        [ "$window" -ge 20 ]

    fw_seq "$tag" "$ELF" "$T/$tag.dump" overwrite -v main_calls="$main"
    local nbad rheld risr rmain
    nbad=$(grep -c '^bad:' "$T/$tag.seq")
    check "$tag-sequence" "$nbad records off the sequence, first: $(grep -m1 '^bad:' "$T/$tag.seq")" \
        [ "$nbad" -eq 0 ]
    rheld=$(fw_seq_field "$tag" held) risr=$(fw_seq_field "$tag" isr) rmain=$(fw_seq_field "$tag" main)
    check "$tag-raw-held" "the raw ring holds $rheld records, cygtrace info says $held" \
        [ "${rheld:--1}" -eq "${held:--2}" ]
    check "$tag-isr-in-window" "only $risr interrupt chains among the newest $rheld records" \
        [ "${risr:-0}" -ge 5 ]

    # The host's view: the same calls, and nothing it had to repair but the calls whose entry
    # the lapped ring lost (no unmatched exit, no unwritten slot).
    run "$tag-tree" "$CT" tree --style=etrace --no-collapse "$ELF" "$T/$tag.dump"
    local t=$T/$tag-tree.out
    check "$tag-tree" "status $RC: $(head -n 1 "$T/$tag-tree.err")" [ "$RC" -eq 0 ]
    check "$tag-tree-clean" "$(grep -m1 -E 'matched no call|never written|0x' "$t")" \
        eval '! grep -qE "matched no call|never written|0x" "$t"'
    local fn n_tree n_raw
    for fn in tick_handler work_leaf; do
        n_tree=$(grep -cE "^(\|   )*$fn\$" "$t")
        n_raw=$(grep -c "^E $fn\$" <(od -An -v -tu4 -w4 "$T/$tag.dump" |
            awk -f "$E2E_DIR/fw_seq.awk" -v mode=overwrite -v main_calls="$main" -v list=1 \
                "$T/$tag.nm" -))
        check "$tag-tree-$fn" "$n_tree $fn calls in the tree, $n_raw entries in the raw ring" \
            [ "$n_tree" -eq "$n_raw" ]
    done
    [ "$board" = "$SELFTEST" ] && SELFTEST= &&
        fw_seq_selftest "$tag" "$ELF" "$T/$tag.dump" overwrite -v main_calls="$main"
    echo "    $board seed $seed: main=$main isr=$isr written=$written laps=$((written / cap)) \
window=$window hook_pcs=$pcs of $(fw_hook_insns "$ELF") instructions, window: $rheld records, \
$rmain main, $risr interrupt chains"
}

SELFTEST=${BOARDS%% *} # the checker proves once that it can fail
for board in $BOARDS; do
    for PROG in stress_ow stress_armed; do
        fw_copy "$board" $PROG || continue
        seed=$SEED
        for ((k = 0; k < TRIALS; k++)); do
            if [ "$TRIALS" -eq 1 ] && [ -z "${FW_SEED:-}" ]; then
                trial "$board" 0
            else
                trial "$board" "$seed"
            fi
            seed=$(fw_next_seed "$seed")
        done
    done
done

finish
