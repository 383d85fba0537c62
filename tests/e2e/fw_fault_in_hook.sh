#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fw_fault_in_hook.sh - a crash in the middle of a hook, on every core (fault_hook.elf): once
# the overwriting ring has lapped a few times, the first timer interrupt that lands inside
# __cyg_profile_func_enter, __cyg_profile_func_exit or the clock they call makes the interrupted
# code fault right there, through the runtime's fault handler, as a real crash would. Each
# trial's seed (written into the firmware's RAM before it starts) moves where that is. After
# each trial the ring is pulled through QEMU's gdbstub and must hold exactly a contiguous run of
# the deterministic sequence that the main loop makes, read from its raw bytes (fw_seq.awk):
# nothing stale, nothing invented, the event being written when the fault came either whole or
# absent (its slot unwritten, and only that slot), then the fault record at the sequence
# number the ring's head had when the interrupt came. cygtrace info and tree must agree.
# FW_TRIALS (default 5) trials per board, from FW_SEED (default: random); the summary says in
# how many the fault hit inside the hook, how many between a reservation and its commit, and
# at how many distinct instructions.
set -u
. "$(dirname "$0")/lib.sh"
. "$E2E_DIR/fw_common.bash"

fw_setup 5

# trial BOARD SEED: one run. Appends "HIT_PC UNWRITTEN" to $T/BOARD.hits when the fault hit.
trial() {
    local board=$1 seed=$2 tag=$1-fault-$2
    if ! qemu_start "$tag" "$board" "$ELF" -icount shift=0 \
        -device "$(fw_seed_arg "$ELF" fault_hook_seed "$seed")" ||
        ! uart_wait "$tag" "fault_hook: frozen"; then
        qemu_stop
        return
    fi
    run "$tag-pull" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$ELF"
    qemu_stop
    check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag-pull.err")" [ "$RC" -eq 0 ]
    [ "$RC" -eq 0 ] || return
    local line
    line=$(grep -m1 '^fault_hook: seed=' "$T/$tag.uart")
    check "$tag-seed" "the firmware ran with another seed: $line" \
        eval '[[ "$line" == "fault_hook: seed=$seed "* ]]'
    if grep -q '^fault_hook: no hit' "$T/$tag.uart"; then
        echo "    $board seed $seed: no interrupt landed in a hook"
        return
    fi
    if [[ ! $line =~ hit_pc=([0-9]+)\ head=([0-9]+) ]]; then
        fail "$tag-uart" "no hit on the UART: $(tr '\n' '|' <"$T/$tag.uart" | cut -c1-160)"
        return
    fi
    local pc=${BASH_REMATCH[1]} hit_head=${BASH_REMATCH[2]}
    local lo hi
    lo=$(($(fw_sym "$ELF" __cygtrace_hooks_start))) hi=$(($(fw_sym "$ELF" __cygtrace_hooks_end)))
    check "$tag-pc-in-hook" "hit_pc $(printf 0x%x "$pc") outside the hooks" \
        eval '[ "$pc" -ge "$lo" ] && [ "$pc" -lt "$hi" ]'

    run "$tag-info" "$CT" info "$ELF" "$T/$tag.dump"
    local i=$T/$tag-info.out written held over unwritten
    written=$(info_field "$i" written) held=$(info_field "$i" held)
    over=$(info_field "$i" overwritten) unwritten=$(info_field "$i" unwritten)
    check "$tag-info" "status $RC: $(head -n 1 "$T/$tag-info.err")" \
        eval '[ "$RC" -eq 0 ] && [ -n "$written" ] && [ -n "$held" ] && [ -n "$over" ] &&
              [ -n "$unwritten" ]'
    check "$tag-frozen" "$(grep -m1 '^state:' "$i")" grep -q '^state: *frozen' "$i"
    if fw_v4 "$T/$tag.dump"; then
        # Version 4 (one word a slot): head counts TIME records and specials' more words too,
        # which info does not hold as events; a special the fault cut short, or whose header
        # the newest lap overwrote, leaves a few words unwritten (fw_seq.awk says where).
        check "$tag-read-plus-lost" "held $held + unwritten $unwritten + overwritten $over > written $written" \
            [ $((${held:-0} + ${unwritten:-0} + ${over:-0})) -le "${written:--1}" ]
        check "$tag-at-most-one-unwritten" "$unwritten slots reserved but never written" \
            [ "${unwritten:-6}" -le 5 ]
    else
        check "$tag-read-plus-lost" "held $held + unwritten $unwritten + overwritten $over != written $written" \
            [ $((${held:-0} + ${unwritten:-0} + ${over:-0})) -eq "${written:--1}" ]
        check "$tag-at-most-one-unwritten" "$unwritten slots reserved but never written" \
            [ "${unwritten:-2}" -le 1 ]
    fi

    fw_seq "$tag" "$ELF" "$T/$tag.dump" fault -v hit_head="$hit_head"
    local nbad raw_unwritten
    nbad=$(grep -c '^bad:' "$T/$tag.seq")
    check "$tag-sequence" "$nbad records off the sequence, first: $(grep -m1 '^bad:' "$T/$tag.seq")" \
        [ "$nbad" -eq 0 ]
    raw_unwritten=$(fw_seq_field "$tag" unwritten)
    fw_v4 "$T/$tag.dump" && raw_unwritten=$((raw_unwritten + $(fw_seq_field "$tag" orphans)))
    check "$tag-raw-unwritten" "the raw ring has $raw_unwritten unwritten slots, cygtrace info $unwritten" \
        [ "${raw_unwritten:--1}" -eq "${unwritten:--2}" ]

    # The host's view: the fault, with the calls that led there still open.
    run "$tag-tree" "$CT" tree "$ELF" "$T/$tag.dump"
    check "$tag-tree-fault" "status $RC, no fault line: $(tail -n 3 "$T/$tag-tree.out" | tr '\n' '|')" \
        eval '[ "$RC" -eq 0 ] && grep -q "^\*\*\*.*fault_inject" "$T/$tag-tree.out"'

    [ "$board" = "$SELFTEST" ] && SELFTEST= &&
        fw_seq_selftest "$tag" "$ELF" "$T/$tag.dump" fault -v hit_head="$hit_head"
    echo "$pc ${unwritten:-?}" >>"$T/$board.hits"
}

# summary BOARD: hits, hits between a reservation and its commit, distinct PCs, by function.
summary() {
    local board=$1 hits=0 window=0 pcs=0 where
    if [ -s "$T/$board.hits" ]; then
        hits=$(wc -l <"$T/$board.hits")
        window=$(awk '$2 == 1' "$T/$board.hits" | wc -l)
        pcs=$(cut -d' ' -f1 "$T/$board.hits" | sort -u | wc -l)
    fi
    where=$(arm-none-eabi-nm -t d -S "$ELF" | awk -v f="$T/$board.hits" '
        NF == 4 && ($4 == "__cyg_profile_func_enter" || $4 == "__cyg_profile_func_exit" ||
                    $4 == "cygtrace_user_clock") { lo[$4] = $1 + 0; hi[$4] = $1 + $2 }
        END {
            while ((getline l < f) > 0) {
                split(l, p, " ")
                if (p[1] in seen) continue
                seen[p[1]] = 1
                for (s in lo) if (p[1] >= lo[s] && p[1] < hi[s]) n[s]++
            }
            printf "enter %d, exit %d, clock %d", n["__cyg_profile_func_enter"],
                   n["__cyg_profile_func_exit"], n["cygtrace_user_clock"]
        }')
    echo "    $board: $TRIALS trials, $hits faults inside the hook ($window between a reservation \
and its commit), at $pcs distinct PCs ($where) of $(fw_hook_insns "$ELF") instructions"
    TOTAL_TRIALS=$((TOTAL_TRIALS + TRIALS)) TOTAL_HITS=$((TOTAL_HITS + hits))
    TOTAL_WINDOW=$((TOTAL_WINDOW + window)) TOTAL_PCS=$((TOTAL_PCS + pcs))
    # Most trials must hit: the hooks are most of what the main loop runs.
    check "$board-fault-hits" "only $hits of $TRIALS trials hit inside the hook" \
        [ $((hits * 10)) -ge $((TRIALS * 8)) ]
}

TOTAL_TRIALS=0 TOTAL_HITS=0 TOTAL_WINDOW=0 TOTAL_PCS=0
SELFTEST=${BOARDS%% *} # the checker proves once that it can fail
for board in $BOARDS; do
    fw_copy "$board" fault_hook || continue
    seed=$SEED
    for ((k = 0; k < TRIALS; k++)); do
        trial "$board" "$seed"
        seed=$(fw_next_seed "$seed")
    done
    summary "$board"
done
echo "    all boards: $TOTAL_TRIALS trials, $TOTAL_HITS faults inside the hook, $TOTAL_WINDOW \
between a reservation and its commit, $TOTAL_PCS distinct PCs (per board, summed)"

finish
