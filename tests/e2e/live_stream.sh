#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# live_stream.sh - "cygtrace live" on real links: the stream example firmware
# (build/firmware/BOARD/stream.elf) streaming its calls over the UART of QEMU's board models,
# read over TCP (QEMU -serial tcp:) and over a pseudo-terminal (-serial pty); the saved stream
# decoded again by "tree"; the stream through a noisy line; a host that joins in the middle;
# a device that disappears; a running Linux program followed through its ring; bad input.
set -u
. "$(dirname "$0")/lib.sh"

BOARDS=${LIVE_BOARDS:-mps2-an385 mps2-an386 mps2-an505 microbit}
FW=$BUILD/firmware
ROUNDS=100                   # stream.c: STREAM_ROUNDS
ROUND=$E2E_DIR/stream_round.etrace.expected
need "$CT" "$BUILD/tests/noisy" "$BUILD/examples/ticker"
need_qemu

# qemu_stream TAG BOARD ELF SERIAL [QEMU_ARGS...]: runs the firmware with its UART on SERIAL
# ("tcp" : a TCP server on a free port, $SPORT, that waits for the host before the firmware
# starts; "pty": a pseudo-terminal, its path in $PTS). Semihosting lets the firmware end QEMU.
qemu_stream() {
    local tag=$1 board=$2 elf=$3 kind=$4 i w serial
    shift 4
    for ((i = 0; i < 20; i++)); do
        SPORT=$((20000 + RANDOM % 20000))
        [ "$kind" = tcp ] && serial="tcp:127.0.0.1:$SPORT,server=on,wait=on" || serial=pty
        timeout 120 qemu-system-arm -M "$board" "$@" -display none -monitor none -nographic \
            -semihosting-config enable=on,target=native -serial "$serial" -kernel "$elf" \
            </dev/null >"$T/$tag.qemu" 2>&1 &
        QEMU_PID=$!
        # Ready once it says where it serves: the pty's path, or that it waits for the host.
        for ((w = 0; w < 100; w++)); do
            if [ "$kind" = pty ]; then
                PTS=$(grep -o '/dev/pts/[0-9]*' "$T/$tag.qemu" | head -n 1)
                [ -n "$PTS" ] && return 0
            elif grep -q 'waiting for connection' "$T/$tag.qemu"; then
                return 0
            fi
            kill -0 "$QEMU_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill "$QEMU_PID" 2>/dev/null
        wait "$QEMU_PID" 2>/dev/null
        grep -qi 'address already in use' "$T/$tag.qemu" || break
    done
    QEMU_PID=
    fail "$tag-qemu" "QEMU did not start: $(head -n 2 "$T/$tag.qemu" | tr '\n' '|')"
    return 1
}

# summary FILE FIELD: from live's summary note "N events, B bytes (X bytes/event); why" (a "#"
# line, or a "cygtrace: note:" line on stderr in the other styles): 1 events, 3 bytes,
# 4 bytes/event.
summary() {
    grep -E '^(# |cygtrace: note: )[0-9]+ events' "$1" | tail -n 1 |
        sed -nE "s/^(# |cygtrace: note: )([0-9]+) events(, ([0-9]+) bytes \(([0-9.]+) bytes\/event\))?.*/\\$(($2 + 1))/p"
}

# The stream example's tree in the etrace style: main, then ROUNDS identical rounds.
expected_etrace() {
    echo main
    for ((r = 0; r < ROUNDS; r++)); do cat "$ROUND"; done
}

# names FILE: the function names of a tree-style output, sorted, one each.
names() {
    tree_body "$1" | grep -v '^#' | grep -v '^\*\*\*' |
        sed -E 's/^ *//; s/^\} \/\* (.*) \*\/.*/\1/; s/\(\).*//' | sort -u
}

for board in $BOARDS; do
    elf=$T/$board-stream.elf
    if ! cp "$FW/$board/stream.elf" "$elf" 2>/dev/null; then
        fail "$board-firmware" "$FW/$board/stream.elf is missing: run make (needs arm-none-eabi-gcc)"
        continue
    fi

    # --- over TCP: the whole run, decoded as it comes, and saved ------------------------------
    tag=$board-tcp
    if qemu_stream "$tag" "$board" "$elf" tcp; then
        run "$tag" "$CT" live --plain --style=etrace --tcp=127.0.0.1:$SPORT --save="$T/$tag.cyg" "$elf"
        wait "$QEMU_PID" 2>/dev/null
        qrc=$?
        QEMU_PID=
        check "$tag-status" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        check "$tag-qemu-exit" "QEMU exited with $qrc, the firmware should end it with 0" [ "$qrc" -eq 0 ]
        expected_etrace >"$T/$tag.expected"
        grep -v '^#' "$T/$tag.out" >"$T/$tag.body"
        check "$tag-tree" "the streamed tree is not main + $ROUNDS rounds of $ROUND" \
            same "$T/$tag.expected" "$T/$tag.body"
        events=$(summary "$T/$tag.err" 1)
        bpe=$(summary "$T/$tag.err" 4)
        # 124 events a round, main's entry and the START record.
        check "$tag-events" "$events events, expected $((ROUNDS * 124 + 2))" \
            [ "${events:-0}" -eq $((ROUNDS * 124 + 2)) ]
        check "$tag-bytes-per-event" "$bpe bytes/event, the budget is 3" \
            awk -v b="${bpe:-99}" 'BEGIN { exit !(b <= 3.0) }'
        echo "    $board: $events events, $bpe bytes/event on the wire"

        # The saved stream decodes again, the same, with "tree" and "info".
        run "$tag-tree" "$CT" tree --style=etrace "$elf" "$T/$tag.cyg"
        grep -v '^#' "$T/$tag-tree.out" >"$T/$tag-tree.body"
        check "$tag-saved" "tree of the saved stream differs from what live showed" \
            same "$T/$tag.body" "$T/$tag-tree.body"
        run "$tag-info" "$CT" info "$elf" "$T/$tag.cyg"
        check "$tag-info" "info: status $RC: $(head -n 1 "$T/$tag-info.out")" \
            grep -q "matches the ELF" "$T/$tag-info.out"
    fi
done

# --- the saved stream of the first board through a noisy line, and joined in the middle -------
board=${BOARDS%% *}
elf=$T/$board-stream.elf clean=$T/$board-tcp.cyg
if [ -s "$clean" ]; then
    run clean "$CT" live --plain --file="$clean" "$elf"
    clean_events=$(summary "$T/clean.out" 1)
    run clean-info "$CT" info "$elf" "$clean"
    clean_frames=$(sed -nE 's/^received: +([0-9]+) frames.*/\1/p' "$T/clean-info.out")
    names "$T/clean.out" >"$T/clean.names"
    for noise in "--flip=0.0005" "--drop=0.0005" "--dup=0.0005" \
                 "--flip=0.001 --drop=0.001 --dup=0.001"; do
        tag=noise-$(echo "$noise" | tr -d ' -' | tr '=.' '__')
        # shellcheck disable=SC2086
        "$BUILD/tests/noisy" $noise --seed=7 <"$clean" >"$T/$tag.cyg" 2>"$T/$tag.noisy"
        run "$tag" "$CT" live --plain --file="$T/$tag.cyg" "$elf"
        check "$tag-status" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        events=$(summary "$T/$tag.out" 1)
        lost=$(sed -nE 's/^# ([0-9]+) events were lost on the link.*/\1/p' "$T/$tag.out")
        damaged=$(sed -nE 's/^# ([0-9]+) damaged frames.*/\1/p' "$T/$tag.out")
        # Every event shown is a real one: with what the noise took, never more than the clean
        # stream holds; and the loss is seen and counted.
        check "$tag-no-invented" "$events events + ${lost:-0} lost > $clean_events in the clean stream" \
            [ $((${events:-0} + ${lost:-0})) -le "$clean_events" ]
        check "$tag-counted" "no damaged frame or loss reported ($(cat "$T/$tag.noisy"))" \
            [ "${damaged:-0}" -gt 0 -a "${lost:-0}" -gt 0 ]
        # Decoding resumes at the next frame: each damaged byte costs the frame it is in (two,
        # when it merges them by hitting a delimiter), never more.
        errors=$(sed -nE 's/.* ([0-9]+) flipped, ([0-9]+) dropped, ([0-9]+) duplicated/\1 + \2 + \3/p' "$T/$tag.noisy")
        run "$tag-info" "$CT" info "$elf" "$T/$tag.cyg"
        frames=$(sed -nE 's/^received: +([0-9]+) frames.*/\1/p' "$T/$tag-info.out")
        check "$tag-resumes" "$frames frames decoded of $clean_frames, with $((errors)) bytes damaged" \
            [ "${frames:-0}" -ge $((clean_frames - 2 * (errors))) ]
        names "$T/$tag.out" >"$T/$tag.names"
        check "$tag-names" "names that are not in the clean tree: $(comm -13 "$T/clean.names" "$T/$tag.names" | head -3 | tr '\n' ' ')" \
            [ -z "$(comm -13 "$T/clean.names" "$T/$tag.names")" ]
    done

    # A link that plays old stretches again (whole frames, 2 KB and more with a description
    # among them, twice): no restart, nothing shown twice, no loss, the stream goes on where it
    # was (the drain's session tells a replay from a target that started over).
    size=$(stat -c %s "$clean")
    # frame_end N: the offset just after the first frame delimiter at or after byte N.
    frame_end() { od -An -v -tu1 -w1 "$clean" | awk -v n="$1" 'NR > n && $1 == 0 { print NR; exit }'; }
    if [ "$size" -gt 14000 ]; then
        a=$(frame_end 3000) b=$(frame_end 5500) c=$(frame_end 8000) d=$(frame_end 11000)
        { head -c "$c" "$clean"; tail -c +$((a + 1)) "$clean" | head -c $((b - a))
          tail -c +$((c + 1)) "$clean" | head -c $((d - c)); head -c "$b" "$clean"
          tail -c +$((d + 1)) "$clean"; } >"$T/replay.cyg"
        run replay "$CT" live --plain --file="$T/replay.cyg" "$elf"
        events=$(summary "$T/replay.out" 1)
        check replay-no-restart "$(grep '^#' "$T/replay.out" | tr '\n' ' ')" \
            eval '! grep -q "started the stream over" "$T/replay.out" &&
                  grep -q "old descriptions came again" "$T/replay.out" &&
                  ! grep -q "were lost on the link" "$T/replay.out"'
        check replay-shown-once "$events events shown, $clean_events in the clean stream" \
            [ "${events:-0}" -eq "$clean_events" ]
        check replay-tree-same "the tree of the replayed stream differs from the clean one" \
            same <(tree_body "$T/clean.out" | grep -v '^#') <(tree_body "$T/replay.out" | grep -v '^#')
    else
        fail replay "the clean stream has only $size bytes: too short to replay stretches of it"
    fi

    # The same noise on the live link: QEMU's UART -> noisy's TCP proxy -> cygtrace live.
    tag=noise-proxy
    if qemu_stream "$tag" "$board" "$elf" tcp; then
        "$BUILD/tests/noisy" --flip=0.0005 --drop=0.0005 --dup=0.0005 --seed=11 \
            --tcp-proxy="0:127.0.0.1:$SPORT" 2>"$T/$tag.noisy" &
        npid=$!
        for ((i = 0; i < 50; i++)); do
            pport=$(sed -nE 's/^noisy: listening on ([0-9]+)$/\1/p' "$T/$tag.noisy")
            [ -n "$pport" ] && break
            sleep 0.1
        done
        run "$tag" "$CT" live --plain --tcp="127.0.0.1:${pport:-1}" "$elf"
        wait "$QEMU_PID" 2>/dev/null
        QEMU_PID=
        kill "$npid" 2>/dev/null
        wait "$npid" 2>/dev/null
        events=$(summary "$T/$tag.out" 1)
        lost=$(sed -nE 's/^# ([0-9]+) events were lost on the link.*/\1/p' "$T/$tag.out")
        check "$tag-status" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        check "$tag-no-invented" "$events events + ${lost:-0} lost > $clean_events" \
            [ $((${events:-0} + ${lost:-0})) -le "$clean_events" ]
        check "$tag-counted" "no loss reported through the noisy proxy ($(cat "$T/$tag.noisy" | tr '\n' ' '))" \
            [ "${lost:-0}" -gt 0 ]
        check "$tag-most" "only ${events:-0} of $clean_events events through the noisy proxy" \
            [ "${events:-0}" -ge $((clean_events / 2)) ]
        names "$T/$tag.out" >"$T/$tag.names"
        check "$tag-names" "names that are not in the clean tree" \
            [ -z "$(comm -13 "$T/clean.names" "$T/$tag.names")" ]
    fi

    # Joined in the middle of a frame: nothing until the next description, then all of it.
    tail -c +1001 "$clean" >"$T/join.cyg"
    run join "$CT" live --plain --file="$T/join.cyg" "$elf"
    events=$(summary "$T/join.out" 1)
    check join-status "status $RC: $(head -n 1 "$T/join.err")" [ "$RC" -eq 0 ]
    check join-decodes "$events events after joining 1000 bytes in (of $clean_events)" \
        [ "${events:-0}" -gt $((clean_events * 3 / 4)) -a "${events:-0}" -lt "$clean_events" ]
    check join-waits "the frames before the first description were not counted" \
        grep -q 'came before the first description' "$T/join.out"
fi

# --- over a pseudo-terminal: joining a stream that runs already; then the device goes away -----
board=${BOARDS%% *}
live_elf=$T/$board-stream_live.elf
if cp "$FW/$board/stream_live.elf" "$live_elf" 2>/dev/null &&
    qemu_stream pty "$board" "$live_elf" pty; then
    sleep 1 # it streams with nobody reading: QEMU drops the bytes, the host joins mid-stream
    (
        timeout 30 "$CT" live --plain --style=etrace --serial="$PTS:921600" "$live_elf" \
            >"$T/pty.out" 2>"$T/pty.err" </dev/null
        echo $? >"$T/pty.rc"
    ) &
    lpid=$!
    for ((i = 0; i < 100; i++)); do
        [ "$(grep -c stream_round "$T/pty.out" 2>/dev/null)" -ge 5 ] && break
        sleep 0.1
    done
    qemu_stop # the device disappears under the reader
    wait "$lpid"
    # Joined inside main: the rounds show one level up, and whole ones are exactly the round.
    sed 's/^|   //' "$ROUND" | tr '\n' '~' >"$T/pty.round"
    tr '\n' '~' <"$T/pty.out" >"$T/pty.flat"
    check pty-rounds "no whole round as expected in what came over the pty: $(head -c 300 "$T/pty.out" | tr '\n' '|')" \
        grep -qF -- "$(cat "$T/pty.round")stream_round~" "$T/pty.flat"
    check pty-gone "status $(cat "$T/pty.rc"), stderr: $(tr '\n' '|' <"$T/pty.err")" \
        [ "$(cat "$T/pty.rc")" -eq 1 -a "$(grep -c "^cygtrace: $PTS:921600: device disappeared" "$T/pty.err")" -eq 1 ]
fi

# --- a running Linux program, followed through its ring ----------------------------------------
ticker=$BUILD/examples/ticker
rm -f "$T/ticker.ring"
CYGTRACE_OUT=$T/ticker.ring "$ticker" 1.5 2000 >"$T/ticker.stdout" &
tpid=$!
run follow "$CT" live --plain --follow="$T/ticker.ring" --from-start "$ticker"
wait "$tpid"
check follow-status "status $RC: $(head -n 1 "$T/follow.err")" [ "$RC" -eq 0 ]
check follow-end "the follow did not end with the program: $(tail -n 1 "$T/follow.out")" \
    grep -q '; the program exited$' "$T/follow.out"
# All of it, as "tree" shows the ring once the program is done.
run follow-tree "$CT" tree "$ticker" "$T/ticker.ring"
tree_body "$T/follow.out" | grep -v '^#' | cut -c1-200 >"$T/follow.body"
tree_body "$T/follow-tree.out" | grep -v '^#' | cut -c1-200 >"$T/follow-tree.body"
check follow-same "live --follow showed other calls than tree shows of the ring" \
    same "$T/follow-tree.body" "$T/follow.body"
check follow-calls "no control_round in the followed tree" grep -q 'control_round() {' "$T/follow.body"

# --- bad input: one line, the input named, a non-zero status --------------------------------------
stream_elf=$T/${BOARDS%% *}-stream.elf
expect_error live-no-source 2 'needs one source' "$CT" live --plain "$ticker"
expect_error live-two-sources 2 'needs one source' \
    "$CT" live --plain --file=/dev/null --tcp=127.0.0.1:1 "$ticker"
expect_error live-no-elf 2 'needs the ELF' "$CT" live --plain --file=/dev/null
expect_error live-bad-duration 2 'duration=soon: not a number' \
    "$CT" live --plain --duration=soon --file=/dev/null "$ticker"
expect_error live-no-device 1 '^cygtrace: /dev/ttyNOPE0: no such' \
    "$CT" live --plain --serial=/dev/ttyNOPE0 "$ticker"
expect_error live-not-tty 1 'not a terminal' "$CT" live --plain --serial="$T/join.cyg" "$ticker"
expect_error live-bad-baud 1 '12345' "$CT" live --plain --serial=/dev/null:12345x "$ticker"
# A port nobody listens on.
for ((i = 0; i < 20; i++)); do
    port=$((20000 + RANDOM % 20000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
done
expect_error live-refused 1 "127.0.0.1:$port: .*refused" \
    "$CT" live --plain --tcp=127.0.0.1:$port "$ticker"
expect_error live-no-file 1 'no such file' "$CT" live --plain --file="$T/nothing.cyg" "$ticker"
# Waiting for a ring that never comes: a note that it waits, then the error.
run live-no-ring "$CT" live --plain --duration=0.5 --follow="$T/nothing.ring" "$ticker"
check live-no-ring "status $RC, stderr: $(tr '\n' '|' <"$T/live-no-ring.err")" \
    [ "$RC" -eq 1 -a "$(grep -c "^cygtrace: $T/nothing.ring: .*no such file" "$T/live-no-ring.err")" -eq 2 ]
if [ -s "$T/${BOARDS%% *}-tcp.cyg" ]; then
    expect_error live-other-build 1 'recorded by another build|recorded on' \
        "$CT" live --plain --file="$T/${BOARDS%% *}-tcp.cyg" "$FW/${BOARDS%% *}/demo.elf"
    expect_error live-no-tty 1 'not a terminal; use --plain' \
        "$CT" live --file="$T/${BOARDS%% *}-tcp.cyg" "$stream_elf"
fi

finish
