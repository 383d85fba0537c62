#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fw_arm.sh - "cygtrace arm" against QEMU's gdbstub, the GDB server of a real Cortex-M board model
# running the example firmware ($BUILD/firmware/BOARD/{demo,stream_live}.elf), on each board:
#   reset   armed while QEMU holds the core at reset (-S): the breakpoint on cyg_ctrl_ready, the
#           request written there; the demo then freezes its ring right after decide's entry
#           and 5 more events, and info and the tree say which trigger fired
#   live    armed while stream_live runs: a freeze after Crumble_mix's entry and 2 events
#   filter  --exclude, --hide, then --clear --depth, while it runs: the pulled trees
#   show    --show reads it back and leaves the target running; --events round trip
#   bad     an unknown function, a malformed spec, a data symbol (nothing written), --show
#           before init, a server gone, a core held at reset whose runtime keeps its ring
#           (a warm reset: cyg_ctrl_ready never comes) by timeout and by Ctrl-C
# Then, against tests/fake_gdb serving a RAM image of the first board: what no real server can
# be made to do (E01 on writes, no Z1, no breakpoints at all, a target that never gets there,
# Ctrl-C meanwhile), a version 2 ring, and that no breakpoint is ever left behind.
set -u
. "$(dirname "$0")/lib.sh"
. "$E2E_DIR/fw_common.bash"

BOARDS=${FW_BOARDS:-mps2-an385 mps2-an386 mps2-an505 microbit}
FAKE=$BUILD/tests/fake_gdb
need "$CT" "$FAKE"
need_qemu
PIDS=()
stop_all() {
    [ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
}
trap stop_all EXIT

# events_after TREE_FILE TRIGGER: the events the tree shows after the note "# trigger TRIGGER
# fired" (an entry or an exit line 1, a leaf call 2, "xN" 2N); notes are no events.
events_after() {
    tree_body "$1" | awk -v t="# trigger $2 fired" '
        { line = $0; sub(/^ */, "", line) }
        line == t { found = 1; next }
        !found || line ~ /^#/ || line ~ /^\*\*\*/ || line == "" { next }
        line ~ /\(\) \{$/ || line ~ /^\} / { n++; next }
        match(line, /\(\); x[0-9]+$/) { n += 2 * substr(line, RSTART + 5); next }
        line ~ /\(\);$/ { n += 2; next }
        { print "BAD: " line; exit 1 }
        END { if (found) print n + 0 }'
}

# until_frozen TAG ELF: polls arm --show (5 s at most) until the ring says frozen.
until_frozen() {
    local i
    for ((i = 0; i < 50; i++)); do
        run "$1-show" "$CT" arm --gdb=127.0.0.1:$PORT --show "$2"
        grep -q '^ring at 0x[0-9a-f]*: frozen$' "$T/$1-show.out" && return 0
        sleep 0.1
    done
    return 1
}

# ram BOARD: the board's RAM as "ADDR LEN".
ram() {
    case $1 in
    mps2-an505) echo 0x38000000 0x10000 ;;
    microbit) echo 0x20000000 0x4000 ;;
    *) echo 0x20000000 0x10000 ;;
    esac
}

for board in $BOARDS; do
    fw_copy "$board" demo || continue
    demo=$ELF
    fw_copy "$board" stream_live || continue
    live=$ELF

    # --- reset: armed before the firmware boots ------------------------------------------------
    tag=$board-reset
    if qemu_start "$tag" "$board" "$demo" -S; then
        run "$tag-arm" "$CT" arm --gdb=127.0.0.1:$PORT --trigger=freeze@decide+5 "$demo"
        check "$tag-arm" "status $RC: $(head -n 1 "$T/$tag-arm.err")" \
            eval '[ "$RC" -eq 0 ] && grep -qx "armed at cyg_ctrl_ready, before the first event:" "$T/$tag-arm.out"'
        check "$tag-arm-says" "$(tr '\n' '|' <"$T/$tag-arm.out")" \
            grep -qx '  trigger freeze@decide+5' "$T/$tag-arm.out"
        if uart_wait "$tag" "demo: done"; then
            run "$tag-pull" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$demo"
            check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag-pull.err")" [ "$RC" -eq 0 ]
            run "$tag-info" "$CT" info "$demo" "$T/$tag.dump"
            check "$tag-info-frozen" "$(grep -m1 '^state' "$T/$tag-info.out")" \
                grep -Eq '^state: +frozen' "$T/$tag-info.out"
            check "$tag-info-fired" "$(grep '^control' "$T/$tag-info.out" | tr '\n' '|')" \
                grep -Eq '^control: +fired freeze@decide\+5 at event [0-9]+' "$T/$tag-info.out"
            run "$tag-tree" "$CT" tree "$demo" "$T/$tag.dump"
            n=$(events_after "$T/$tag-tree.out" freeze@decide+5)
            check "$tag-window" "after the trigger: '$n' events, expected decide's entry + 5" \
                [ "$n" = 6 ]
            check "$tag-frozen-by" "no note of the trigger that froze it" \
                grep -q '^# the trace was frozen (by trigger freeze@decide+5)' "$T/$tag-tree.out"
        fi
    fi
    qemu_stop

    # --- live: armed while it runs, then filters -------------------------------------------------
    tag=$board-live
    if qemu_start "$tag" "$board" "$live"; then
        sleep 0.3
        run "$tag-show0" "$CT" arm --gdb=127.0.0.1:$PORT --show "$live"
        check "$tag-show-nothing" "status $RC: $(cat "$T/$tag-show0.out" "$T/$tag-show0.err" | tr '\n' '|')" \
            eval '[ "$RC" -eq 0 ] && grep -qx "ring at 0x[0-9a-f]*: running" "$T/$tag-show0.out" &&
                  grep -qx "  nothing armed" "$T/$tag-show0.out"'

        # Bad input first: nothing may be written by any of them.
        expect_error "$tag-unknown" 1 "live.elf: no function 'no_such_function' in it" \
            "$CT" arm --gdb=127.0.0.1:$PORT --trigger=freeze@decide,freeze@no_such_function "$live"
        expect_error "$tag-data-symbol" 1 "'cyg_rt' is not the start of a function" \
            "$CT" arm --gdb=127.0.0.1:$PORT --exclude=cyg_rt "$live"
        expect_error "$tag-bad-kind" 2 "unknown kind 'explode'" \
            "$CT" arm --gdb=127.0.0.1:$PORT --trigger=explode@decide "$live"
        expect_error "$tag-bad-count" 2 "not a number of events" \
            "$CT" arm --gdb=127.0.0.1:$PORT --trigger=freeze@decide+x "$live"
        expect_error "$tag-bad-after" 2 "only a freeze takes \+N" \
            "$CT" arm --gdb=127.0.0.1:$PORT --trigger=start@decide+1 "$live"
        expect_error "$tag-too-many" 2 "more than 6 triggers in all" \
            "$CT" arm --gdb=127.0.0.1:$PORT --trigger=start@decide,start@decide,start@decide \
            --trigger=start@decide,start@decide,start@decide,start@decide "$live"
        run "$tag-show1" "$CT" arm --gdb=127.0.0.1:$PORT --show "$live"
        check "$tag-bad-wrote-nothing" "$(tr '\n' '|' <"$T/$tag-show1.out")" \
            grep -qx "  nothing armed" "$T/$tag-show1.out"

        run "$tag-arm" "$CT" arm --gdb=127.0.0.1:$PORT --exclude=calcValue --hide=Crumble_buy_stuff \
            --events=0,3-5 "$live"
        check "$tag-filter-arm" "status $RC: $(head -n 1 "$T/$tag-arm.err")" \
            eval '[ "$RC" -eq 0 ] && grep -qx "armed (the ring at 0x[0-9a-f]* is running):" "$T/$tag-arm.out"'
        sleep 0.5
        run "$tag-show2" "$CT" arm --gdb=127.0.0.1:$PORT --show "$live"
        check "$tag-show-filters" "$(tr '\n' '|' <"$T/$tag-show2.out")" \
            eval 'grep -qx "  exclude calcValue" "$T/$tag-show2.out" &&
                  grep -qx "  hide Crumble_buy_stuff (and its callees)" "$T/$tag-show2.out" &&
                  grep -qx "  events 0x00000039 (classes of marks recorded)" "$T/$tag-show2.out" &&
                  ! grep -q "not yet applied" "$T/$tag-show2.out"'
        # 2 exclusions armed, 11 more do not fit the 12: refused, nothing written.
        full='more than 12 excluded functions \(the target has 0 triggers and 2 excluded'
        full="$full functions armed already; --clear first\); nothing written"
        expect_error "$tag-full" 1 "$full" \
            "$CT" arm --gdb=127.0.0.1:$PORT --exclude=decide,decide,decide,decide,decide,decide \
            --hide=decide,decide,decide,decide,decide "$live"
        run "$tag-show3" "$CT" arm --gdb=127.0.0.1:$PORT --show "$live"
        check "$tag-full-wrote-nothing" "$(tr '\n' '|' <"$T/$tag-show3.out")" \
            eval '[ "$(grep -c "^  exclude\|^  hide" "$T/$tag-show3.out")" -eq 2 ]'
        run "$tag-filter" "$CT" pull --gdb=127.0.0.1:$PORT "$live"
        tree_body "$T/$tag-filter.out" | grep -v '^ *#' >"$T/$tag-filter.body"
        check "$tag-exclude" "calcValue is in the tree" \
            eval '! grep -q "calcValue" "$T/$tag-filter.body" && grep -q "getValue();" "$T/$tag-filter.body"'
        check "$tag-hide" "Crumble_buy_stuff or its callee Crumble_buy is in the tree" \
            eval '! grep -q "Crumble_buy" "$T/$tag-filter.body" && grep -q "Crumble_mix();" "$T/$tag-filter.body"'

        run "$tag-depth" "$CT" arm --gdb=127.0.0.1:$PORT --clear --depth=3 "$live"
        check "$tag-depth-arm" "status $RC: $(tr '\n' '|' <"$T/$tag-depth.out")" \
            eval '[ "$RC" -eq 0 ] && [ "$(grep -c "^  " "$T/$tag-depth.out")" -eq 1 ] &&
                  grep -qx "  depth 3" "$T/$tag-depth.out"'
        sleep 0.5
        run "$tag-depth-pull" "$CT" pull --gdb=127.0.0.1:$PORT "$live"
        tree_body "$T/$tag-depth-pull.out" | grep -v '^ *#' >"$T/$tag-depth.body"
        # stream_round (1) > DEMO_Run (2) > decide (3) > getValue (4): the third level is the last.
        check "$tag-depth-3" "getValue, calcValue or Crumble_buy in the tree" \
            eval '! grep -Eq "getValue|calcValue|Crumble_buy\(" "$T/$tag-depth.body" &&
                  grep -q "decide(); x4" "$T/$tag-depth.body"'

        # A freeze armed while it runs.
        run "$tag-freeze" "$CT" arm --gdb=127.0.0.1:$PORT --clear --trigger=freeze@Crumble_mix+2 "$live"
        check "$tag-freeze-arm" "status $RC: $(head -n 1 "$T/$tag-freeze.err")" [ "$RC" -eq 0 ]
        if until_frozen "$tag" "$live"; then
            pass "$tag-frozen"
            check "$tag-show-fired" "$(tr '\n' '|' <"$T/$tag-show.out")" \
                eval 'grep -qx "  trigger freeze@Crumble_mix+2 (fired)" "$T/$tag-show.out" &&
                      grep -Eqx "  fired freeze@Crumble_mix\+2 at event [0-9]+ \(1 trigger fired\)" \
                          "$T/$tag-show.out"'
            run "$tag-pull" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$live"
            run "$tag-tree" "$CT" tree "$live" "$T/$tag.dump"
            n=$(events_after "$T/$tag-tree.out" freeze@Crumble_mix+2)
            check "$tag-window" "after the trigger: '$n' events, expected Crumble_mix's entry + 2" \
                [ "$n" = 3 ]
            run "$tag-info" "$CT" info "$live" "$T/$tag.dump"
            check "$tag-info-fired" "$(grep '^control' "$T/$tag-info.out" | tr '\n' '|')" \
                grep -Eq '^control: +fired freeze@Crumble_mix\+2 at event' "$T/$tag-info.out"
            # Disarmed after it fired: still a control area that reads back.
            run "$tag-clear" "$CT" arm --gdb=127.0.0.1:$PORT --clear "$live"
            run "$tag-show-cleared" "$CT" arm --gdb=127.0.0.1:$PORT --show "$live"
            check "$tag-clear-after-fired" \
                "status $RC: $(cat "$T/$tag-show-cleared.err" "$T/$tag-show-cleared.out" | tr '\n' '|')" \
                eval '[ "$RC" -eq 0 ] && ! grep -q "^  trigger" "$T/$tag-show-cleared.out"'
        else
            fail "$tag-frozen" "not frozen 5 s after arming: $(tr '\n' '|' <"$T/$tag-show.out")"
        fi
        # --show leaves it running (the UART goes on: the drain streams the ring, frozen or not,
        # so look at QEMU itself), and a server gone is one line, at once.
        check "$tag-still-running" "QEMU is gone" kill -0 "$QEMU_PID"
        gone_port=$PORT
    fi
    qemu_stop
    [ -n "${gone_port:-}" ] && timed_error "$board-server-gone" 'connection refused' \
        "$CT" arm --gdb=127.0.0.1:$gone_port --trigger=freeze@decide "$live"

    # --- before init: --show has nothing to read; a warm reset keeps the ring, so
    # cyg_ctrl_ready never comes: a timeout, and Ctrl-C -------------------------------------------
    tag=$board-early
    if qemu_start "$tag" "$board" "$demo" -S; then
        expect_error "$tag-show" 1 'has not set up its ring yet' \
            "$CT" arm --gdb=127.0.0.1:$PORT --show "$demo"
        run "$tag-go" "$CT" arm --gdb=127.0.0.1:$PORT --events=all "$demo" # boots it
        uart_wait "$tag" "demo: done" &&
            timed_error "$tag-warm-reset" 'did not reach cyg_ctrl_ready within 1 s.*nothing written' \
                "$CT" arm --gdb=127.0.0.1:$PORT --monitor=system_reset --timeout=1 \
                --trigger=freeze@decide "$demo"
        # The core ran on after it (the breakpoint gone): the second boot says done again.
        for ((i = 0; i < 50; i++)); do
            [ "$(grep -c 'demo: done' "$T/$tag.uart")" -ge 2 ] && break
            sleep 0.1
        done
        check "$tag-ran-on" "the firmware did not boot again: $(grep -c 'demo: done' "$T/$tag.uart")" \
            [ "$(grep -c 'demo: done' "$T/$tag.uart")" -ge 2 ]
        env --default-signal=INT "$CT_NATIVE" arm --gdb=127.0.0.1:$PORT --monitor=system_reset \
            --timeout=30 --trigger=freeze@decide "$demo" >"$T/$tag-int.out" 2>"$T/$tag-int.err" &
        arm_pid=$!
        sleep 2 # the halt of a halted core waits a second for the stop reply that never comes
        start=$(date +%s%N)
        kill -INT "$arm_pid"
        wait "$arm_pid"
        RC=$?
        took=$((($(date +%s%N) - start) / 1000000))
        check "$tag-ctrl-c" "status $RC in $took ms: $(tr '\n' '|' <"$T/$tag-int.err")" \
            eval '[ "$RC" -eq 130 ] && [ "$took" -lt 2500 ] &&
                  grep -qx "cygtrace: gdb 127.0.0.1:$PORT: interrupted; breakpoint removed, detached from the target" \
                      "$T/$tag-int.err"'
        for ((i = 0; i < 50; i++)); do
            [ "$(grep -c 'demo: done' "$T/$tag.uart")" -ge 3 ] && break
            sleep 0.1
        done
        check "$tag-ctrl-c-ran-on" "the firmware did not boot again after Ctrl-C" \
            [ "$(grep -c 'demo: done' "$T/$tag.uart")" -ge 3 ]
    fi
    qemu_stop
done

# --- fake_gdb: the servers no real one can be made to be ---------------------------------------
board=${BOARDS%% *}
# fake TAG MODE: fake_gdb serving $IMG at $RAM; sets WHERE and FAKE_PID. It exits 0 when the
# client detached with no breakpoint left, 4 when one was left.
fake() {
    local i
    rm -f "$T/$1.port"
    timeout 40 "$FAKE" "$T/$1.port" "$2" "$IMG" "$RAM" 2>"$T/$1.fake.err" &
    FAKE_PID=$!
    PIDS+=($FAKE_PID)
    for ((i = 0; i < 50; i++)); do
        [ -s "$T/$1.port" ] && break
        sleep 0.1
    done
    WHERE=127.0.0.1:$(cat "$T/$1.port" 2>/dev/null)
}

# fake_done TAG: fake_gdb's exit status must say: detached, no breakpoint left.
fake_done() {
    local rc
    wait "$FAKE_PID"
    rc=$?
    check "$1-detached" "fake_gdb exited with $rc (3: no detach, 4: a breakpoint left)" [ "$rc" -eq 0 ]
}

demo=$T/$board/demo.elf
read -r RAM RAMLEN <<<"$(ram "$board")"
IMG=$T/ram.img
if [ -f "$demo" ] && qemu_start fake-src "$board" "$demo" && uart_wait fake-src "demo: done"; then
    run fake-ramdump env -u DEBUGINFOD_URLS gdb-multiarch -batch -nx \
        -iex 'set debuginfod enabled off' -ex "target remote 127.0.0.1:$PORT" \
        -ex "dump binary memory $IMG $RAM $RAM+$RAMLEN" -ex detach "$demo"
fi
qemu_stop
if [ -s "$IMG" ]; then
    ctl=$(($(od -An -tu4 -j $(($(fw_sym "$demo" cyg_rt) - RAM)) -N 4 "$IMG")))
    ctloff=$((ctl - RAM))

    fake fake-boot ok,boot,noz1
    run fake-boot "$CT" arm --gdb="$WHERE" --trigger=freeze@decide+5 "$demo"
    check fake-boot-z0 "status $RC: $(head -n 1 "$T/fake-boot.err")" \
        eval '[ "$RC" -eq 0 ] && grep -qx "armed at cyg_ctrl_ready, before the first event:" "$T/fake-boot.out"'
    fake_done fake-boot

    fake fake-nobp ok,boot,nobp
    timed_error fake-nobp 'at cyg_ctrl_ready: the server has no hardware breakpoints.*no software breakpoints' \
        "$CT" arm --gdb="$WHERE" --trigger=freeze@decide "$demo"
    fake_done fake-nobp

    fake fake-norun ok,boot,norun
    timed_error fake-norun 'did not reach cyg_ctrl_ready within 1 s' \
        "$CT" arm --gdb="$WHERE" --timeout=1 --trigger=freeze@decide "$demo"
    fake_done fake-norun

    fake fake-ewrite ewrite
    timed_error fake-ewrite 'writing [0-9]+ bytes at 0x[0-9a-f]+: the server answered E01' \
        "$CT" arm --gdb="$WHERE" --trigger=freeze@decide "$demo"
    fake_done fake-ewrite

    fake fake-hex ok,nox,ack,small
    run fake-hex "$CT" arm --gdb="$WHERE" --trigger=freeze@decide --exclude=calcValue "$demo"
    check fake-hex "status $RC: $(head -n 1 "$T/fake-hex.err")" [ "$RC" -eq 0 ]
    fake_done fake-hex

    fake fake-ctrl-c ok,boot,norun
    env --default-signal=INT "$CT_NATIVE" arm --gdb="$WHERE" --timeout=30 --trigger=freeze@decide \
        "$demo" >"$T/fake-ctrl-c.out" 2>"$T/fake-ctrl-c.err" &
    arm_pid=$!
    sleep 0.5
    kill -INT "$arm_pid"
    wait "$arm_pid"
    RC=$?
    check fake-ctrl-c "status $RC: $(tr '\n' '|' <"$T/fake-ctrl-c.err")" \
        eval '[ "$RC" -eq 130 ] && grep -q "interrupted; breakpoint removed" "$T/fake-ctrl-c.err"'
    fake_done fake-ctrl-c

    # A standard output that cannot be written: what arm says is lost, and it says so.
    fake fake-full ok
    (exec 2>/dev/null; timeout 20 "$CT" arm --gdb="$WHERE" --show "$demo" >/dev/full \
        2>"$T/fake-full.err")
    RC=$?
    check fake-full "status $RC: $(tr '\n' '|' <"$T/fake-full.err")" \
        eval '[ "$RC" -eq 1 ] && grep -qx "cygtrace: standard output: No space left on device" "$T/fake-full.err"'
    fake_done fake-full

    # A valid control block (CRC and all) where cyg_rt points, but not in cygtrace_buffer: a
    # copy of the ring in other RAM, or one that starts inside the buffer and runs past its
    # end. Its "control area" is other memory: nothing is written (a server that refuses every
    # write shows that none was tried), and --show shows nothing either.
    buf=$(fw_sym "$demo" cygtrace_buffer)
    bufsize=$((0x$(arm-none-eabi-nm -S "$demo" | awk '$4 == "cygtrace_buffer" { print $2 }')))
    rtoff=$(($(fw_sym "$demo" cyg_rt) - RAM))
    # (the copy: at the end of RAM, clear of the buffer, which the start-up puts low)
    for stray in outside:$(((RAM + RAMLEN - bufsize - 64) & ~7)) overlap:$((buf + 64)); do
        what=${stray%%:*} at=${stray#*:}
        cp "$IMG" "$T/$what.img"
        dd if="$IMG" bs=1 skip=$ctloff count=$bufsize 2>/dev/null |
            dd of="$T/$what.img" bs=1 seek=$((at - RAM)) conv=notrunc 2>/dev/null
        for ((i = 0; i < 4; i++)); do printf "\\x$(printf %02x $((at >> 8 * i & 255)))"; done |
            dd of="$T/$what.img" bs=1 seek=$rtoff conv=notrunc 2>/dev/null
        IMG=$T/$what.img
        for mode in ok ewrite; do
            fake "fake-$what-$mode" "$mode"
            timed_error "fake-$what-$mode" "cyg_rt points at a ring at 0x[0-9a-f]+\.\.0x[0-9a-f]+, not inside .*cygtrace_buffer \(0x${buf#0x}\.\..*nothing written" \
                "$CT" arm --gdb="$WHERE" --trigger=freeze@decide "$demo"
            fake_done "fake-$what-$mode"
        done
        fake "fake-$what-show" ok
        timed_error "fake-$what-show" 'not inside .*cygtrace_buffer.*nothing shown' \
            "$CT" arm --gdb="$WHERE" --show "$demo"
        fake_done "fake-$what-show"
        IMG=$T/ram.img
    done

    # A version 2 ring (no control area): the version byte, and the check made anew (gzip's
    # trailer is the CRC-32 of what it packed, little-endian).
    cp "$IMG" "$T/v2.img"
    printf '\002' | dd of="$T/v2.img" bs=1 seek=$((ctloff + 8)) conv=notrunc 2>/dev/null
    dd if="$T/v2.img" bs=1 skip=$ctloff count=80 2>/dev/null | gzip -c | tail -c 8 | head -c 4 |
        dd of="$T/v2.img" bs=1 seek=$((ctloff + 80)) conv=notrunc 2>/dev/null
    IMG=$T/v2.img
    fake fake-v2 ok
    timed_error fake-v2 'format version 2, which has no control area' \
        "$CT" arm --gdb="$WHERE" --trigger=freeze@decide "$demo"
    fake_done fake-v2
else
    fail fake-image "no RAM image of $board: $(head -n 1 "$T/fake-ramdump.err" 2>/dev/null)"
fi

finish
