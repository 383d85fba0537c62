#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# live_rtt.sh - "cygtrace live --gdb": the rtt example firmware (build/firmware/BOARD/rtt.elf)
# streams its calls into the RTT channel "cygtrace" in RAM, and live reads it through QEMU's
# gdbstub, halting the target for each read. On every QEMU board: the channel found (by the
# symbol cygtrace_rtt, and by a scan of RAM without it), the workload's functions in the live
# tree, none lost at the default rate from reset on, the saved stream decoded the same by
# "tree"; losses counted when the host polls once a second; Ctrl-C and a detach that leaves
# the target running; the server killed in the middle of a run. Then, against tests/fake_gdb
# serving the firmware's RAM: a corrupt control block, none at all, a channel that is not
# named "cygtrace", a server that answers E01. Prints the numbers per board: halt time per
# poll, events/s, bytes/event.
set -u
. "$(dirname "$0")/lib.sh"
. "$E2E_DIR/fw_common.bash"

BOARDS=${LIVE_BOARDS:-mps2-an385 mps2-an386 mps2-an505 microbit}
FAKE=$BUILD/tests/fake_gdb
SECS=${RTT_SECONDS:-4}
need "$CT" "$FAKE"
need_qemu
FAKE_PID=
trap '[ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null' EXIT

# rtt_field FILE N: the N-th number of live's "rtt:" note (1 polls, 2 seconds, 3 polls a second,
# 4 halt median ms, 5 mean, 6 max, 7 bytes a poll, 8 max, 9 polls that found the channel full).
rtt_field() {
    grep -E '^(# |cygtrace: note: )rtt: [0-9]+ polls' "$1" | tail -n 1 |
        grep -oE '[0-9]+(\.[0-9]+)?' | sed -n "$2p"
}

# summary FILE FIELD: live's summary "N events, B bytes (X bytes/event); why": 1 events,
# 2 bytes, 3 bytes/event.
summary() {
    grep -E '^(# |cygtrace: note: )[0-9]+ events' "$1" | tail -n 1 |
        grep -oE '[0-9]+(\.[0-9]+)?' | sed -n "$2p"
}

lost_of() {
    sed -nE 's/^# ([0-9]+) events were lost on the target.*/\1/p' "$1" | tail -n 1
}

# names FILE: the functions of a tree-style output, sorted, once each.
names() {
    tree_body "$1" | grep -v '^#' | grep -v '^\*\*\*' |
        sed -E 's/^ *//; s/^\} \/\* (.*) \*\/.*/\1/; s/\(\).*//; s/;.*//' | sort -u
}

# the real QEMU under qemu_start's timeout: what "the server killed" kills
qemu_child() {
    pgrep -P "$QEMU_PID" qemu-system-arm | head -n 1
}

for board in $BOARDS; do
    fw_copy "$board" rtt || continue
    elf=$ELF

    # --- from reset on, at the default rate: the channel, the tree, no loss, the saved stream
    tag=$board-run
    if qemu_start "$tag" "$board" "$elf" -S; then
        run "$tag" "$CT" live --plain --gdb=127.0.0.1:$PORT --duration="$SECS" \
            --save="$T/$tag.cyg" "$elf"
        check "$tag-status" "status $RC: $(tail -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        check "$tag-channel" "no note of the channel: $(head -n 1 "$T/$tag.err")" \
            grep -q 'rtt: up buffer 0 "cygtrace" (1024 bytes at 0x[0-9a-f]*) of the control block at 0x[0-9a-f]* (cygtrace_rtt)' "$T/$tag.err"
        names "$T/$tag.out" >"$T/$tag.names"
        missing=$(printf '%s\n' main stream_round DEMO_Run decide getValue calcValue \
            Crumble_make_apple_crumble Crumble_buy Crumble_bake | sort | comm -23 - "$T/$tag.names")
        check "$tag-names" "functions not in the live tree: $missing" [ -z "$missing" ]
        events=$(summary "$T/$tag.out" 1)
        bpe=$(summary "$T/$tag.out" 3)
        lost=$(lost_of "$T/$tag.out")
        check "$tag-events" "only ${events:-0} events in $SECS s" [ "${events:-0}" -gt 10000 ]
        check "$tag-no-loss" "${lost:-0} events lost at 100 Hz from reset on" [ -z "$lost" ]
        polls=$(rtt_field "$T/$tag.out" 1)
        rate=$(rtt_field "$T/$tag.out" 3)
        check "$tag-polls" "$polls polls at $rate a second, expected about 100" \
            awk -v r="${rate:-0}" 'BEGIN { exit !(r >= 80 && r <= 110) }'
        med=$(rtt_field "$T/$tag.out" 4) mean=$(rtt_field "$T/$tag.out" 5)
        max=$(rtt_field "$T/$tag.out" 6) bpp=$(rtt_field "$T/$tag.out" 7)
        check "$tag-halt" "the target halted $med ms a poll (median)" \
            awk -v m="${med:-99}" 'BEGIN { exit !(m > 0 && m < 5) }'

        # The saved stream: the same tree, events over the target's own time.
        run "$tag-tree" "$CT" tree --style=etrace "$elf" "$T/$tag.cyg"
        run "$tag-etrace" "$CT" live --plain --style=etrace --file="$T/$tag.cyg" "$elf"
        grep -v '^#' "$T/$tag-tree.out" >"$T/$tag-tree.body"
        grep -v '^#' "$T/$tag-etrace.out" >"$T/$tag-etrace.body"
        check "$tag-saved" "tree of the saved stream differs from live's" \
            same "$T/$tag-etrace.body" "$T/$tag-tree.body"
        check "$tag-saved-nonempty" "nothing in the saved stream's tree" [ -s "$T/$tag-tree.body" ]
        run "$tag-info" "$CT" info "$elf" "$T/$tag.cyg"
        span=$(sed -nE 's/^span: +([0-9.]+) s.*/\1/p' "$T/$tag-info.out")
        eps=$(awk -v e="${events:-0}" -v s="${span:-0}" 'BEGIN { if (s > 0) printf "%d", e / s; else print 0 }')

        # --- Ctrl-C: the summary, status 0; the detach leaves the target running, so that the
        # next session finds the channel full (it filled meanwhile) and events lost at the join.
        tag=$board-sigint
        timeout 20 "$CT" live --plain --gdb=127.0.0.1:$PORT "$elf" \
            </dev/null >"$T/$tag.out" 2>"$T/$tag.err" &
        lp=$!
        sleep 1.5
        kill -INT "$lp"
        wait "$lp"
        RC=$?
        check "$tag-status" "status $RC: $(tail -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        check "$tag-summary" "no 'interrupted' summary: $(tail -n 1 "$T/$tag.out")" \
            grep -qE '^# [0-9]+ events, .*; interrupted$' "$T/$tag.out"
        sleep 0.5
        tag=$board-resumed
        run "$tag" "$CT" live --plain --gdb=127.0.0.1:$PORT --duration=0.5 "$elf"
        check "$tag-status" "status $RC: $(tail -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        check "$tag-ran" "the target did not run after the Ctrl-C session's detach: the channel was full at $(rtt_field "$T/$tag.out" 9) polls, $(lost_of "$T/$tag.out") events lost" \
            [ "$(rtt_field "$T/$tag.out" 9)" -ge 1 -a "$(lost_of "$T/$tag.out")" -gt 0 ]

        # --- without the symbol: the scan of the ELF's RAM sections finds the block
        tag=$board-scan
        arm-none-eabi-objcopy -N cygtrace_rtt "$elf" "$T/$board/nosym.elf"
        run "$tag" "$CT" live --plain --gdb=127.0.0.1:$PORT --duration=0.5 "$T/$board/nosym.elf"
        check "$tag-status" "status $RC: $(tail -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        check "$tag-found" "not found by the scan: $(head -n 1 "$T/$tag.err")" \
            grep -q 'rtt: up buffer 0 "cygtrace" .* (a scan of RAM)' "$T/$tag.err"
        check "$tag-events" "no events" [ "$(summary "$T/$tag.out" 1)" -gt 0 ]

        # --- once a second: the 1 KB channel overflows, the ring laps the drain, and the stream
        # says how many records it lost.
        tag=$board-slow
        run "$tag" "$CT" live --plain --poll=1 --gdb=127.0.0.1:$PORT --duration=3.5 "$elf"
        check "$tag-status" "status $RC: $(tail -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        slow_lost=$(lost_of "$T/$tag.out")
        check "$tag-lost" "no loss counted at --poll=1" [ "${slow_lost:-0}" -gt 1000 ]
        full=$(rtt_field "$T/$tag.out" 9)
        check "$tag-full" "the channel was full at ${full:-0} polls, expected each" \
            [ "${full:-0}" -ge 3 ]

        # --- the server killed in the middle: what came is shown, then one error, status 1
        tag=$board-killed
        timeout 20 "$CT" live --plain --gdb=127.0.0.1:$PORT "$elf" \
            </dev/null >"$T/$tag.out" 2>"$T/$tag.err" &
        lp=$!
        sleep 1.5
        kill -9 "$(qemu_child)" 2>/dev/null
        # (the shell would say on its stderr that QEMU's timeout died of the same signal)
        { wait "$lp"; RC=$?; qemu_stop; } 2>/dev/null
        check "$tag-status" "status $RC, expected 1" [ "$RC" -eq 1 ]
        check "$tag-error" "no error line: $(tail -n 1 "$T/$tag.err")" \
            grep -qE '^cygtrace: 127\.0\.0\.1:[0-9]+: .*(closed the connection|connection reset)' "$T/$tag.err"
        check "$tag-events" "nothing shown before the server went" \
            [ "$(summary "$T/$tag.out" 1)" -gt 0 ]
        qemu_stop

        echo "    $board: halted $med ms a poll (median; mean $mean, max $max) at $rate polls/s," \
             "$bpp bytes a poll; $events events in ${span}s of target time = $eps events/s" \
             "without loss; $bpe bytes/event; --poll=1 lost ${slow_lost:-0}"
    fi
done

# --- fake_gdb serving the first board's RAM: the blocks no firmware makes ----------------------
board=${BOARDS%% *}
elf=$T/$board/rtt.elf
IMG=$T/ram.img
case $board in
mps2-an505) RAM=0x38000000 RAMLEN=0x10000 ;;
microbit) RAM=0x20000000 RAMLEN=0x4000 ;;
*) RAM=0x20000000 RAMLEN=0x10000 ;;
esac
if [ -f "$elf" ] && qemu_start fake-src "$board" "$elf" && uart_wait fake-src "rtt: streaming"; then
    sleep 0.2
    run fake-ramdump env -u DEBUGINFOD_URLS gdb-multiarch -batch -nx \
        -iex 'set debuginfod enabled off' -ex "target remote 127.0.0.1:$PORT" \
        -ex "dump binary memory $IMG $RAM $RAM+$RAMLEN" -ex detach "$elf"
fi
qemu_stop

# fake TAG MODE [IMAGE]: fake_gdb serving IMAGE (default $IMG) at $RAM; sets WHERE, FAKE_PID.
fake() {
    local i
    rm -f "$T/$1.port"
    timeout 40 "$FAKE" "$T/$1.port" "$2" "${3:-$IMG}" "$RAM" 2>"$T/$1.fake.err" &
    FAKE_PID=$!
    for ((i = 0; i < 50; i++)); do
        [ -s "$T/$1.port" ] && break
        sleep 0.1
    done
    WHERE=127.0.0.1:$(cat "$T/$1.port" 2>/dev/null)
}

# fake_done TAG: fake_gdb saw the detach.
fake_done() {
    local rc
    wait "$FAKE_PID"
    rc=$?
    FAKE_PID=
    check "$1-detached" "fake_gdb exited with $rc (3: no detach)" [ "$rc" -eq 0 ]
}

if [ -s "$IMG" ]; then
    blk=$(($(fw_sym "$elf" cygtrace_rtt) - RAM))
    # up buffer 0's wr_off (4-byte pointers): 24 + 12
    wr=$((blk + 36))
    corrupt=$T/corrupt.img
    cp "$IMG" "$corrupt"
    printf '\x07\x04\x00\x00' | dd of="$corrupt" bs=1 seek="$wr" conv=notrunc 2>/dev/null
    fake bad ok "$corrupt"
    expect_error fake-bad 1 'wr_off 1031 .* for a size of 1024' \
        "$CT" live --plain --gdb="$WHERE" "$elf"
    fake_done fake-bad

    fake none noctl
    expect_error fake-none 1 'no RTT control block after 1 s .*cygtrace_rtt' \
        "$CT" live --plain --timeout=1 --gdb="$WHERE" "$elf"
    fake_done fake-none

    fake e01 e01
    expect_error fake-e01 1 'E01' "$CT" live --plain --timeout=1 --gdb="$WHERE" "$elf"
    fake_done fake-e01

    # The channel's name is in flash, which the fake does not serve: up buffer 0, a warning.
    fake unnamed ok
    run fake-unnamed "$CT" live --plain --duration=0.5 --gdb="$WHERE" "$elf"
    check fake-unnamed-status "status $RC: $(tail -n 1 "$T/fake-unnamed.err")" [ "$RC" -eq 0 ]
    check fake-unnamed-warning "no warning: $(head -n 1 "$T/fake-unnamed.err")" \
        grep -q 'warning: .*has no up buffer named "cygtrace": reading up buffer 0' "$T/fake-unnamed.err"
    fake_done fake-unnamed
else
    fail fake-ramdump "no RAM image of $board's rtt firmware: $(head -n 1 "$T/fake-ramdump.err" 2>/dev/null)"
fi

# --- usage ------------------------------------------------------------------------------------
expect_error usage-poll 2 '--poll=0: not a rate' "$CT" live --gdb=127.0.0.1:1 --poll=0 x.elf
expect_error usage-poll-alone 2 'go with --gdb' "$CT" live --tcp=127.0.0.1:1 --poll=10 x.elf
expect_error usage-two 2 'needs one source' "$CT" live --tcp=127.0.0.1:1 --gdb=127.0.0.1:1 x.elf

finish
