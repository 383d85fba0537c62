#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fw_wrap.sh - wrapped calls on firmware (cygtrace wrap, issue 14): build/firmware/BOARD/
# wrapped.elf calls a precompiled driver library (examples/firmware/driver, no
# -finstrument-functions) through the wrappers that `cygtrace wrap` generated from the
# library's DWARF at build time, then faults inside one driver call. For each board, under QEMU:
# "cygtrace pull" through the gdbstub must show every driver call exactly, with its arguments
# and return value (ints, the enum by its enumerators' names, strings either way, NULL, the
# pointer to the configuration, a 64-bit integer, a double), under the instrumented function
# that made it, and the fault inside the last one. Also: the signature table is in the ELF but
# in no loadable segment (no flash), the generated wrappers build with -Werror for every core
# and optimisation level; and wrapped_live.elf, streamed over the UART to "cygtrace live",
# shows the same calls round after round (LIVE_BOARDS, default every board).
set -u
. "$(dirname "$0")/lib.sh"
. "$E2E_DIR/fw_common.bash"

BOARDS=${FW_BOARDS:-mps2-an385 mps2-an386 mps2-an505 microbit}
LIVE_BOARDS=${LIVE_BOARDS:-$BOARDS}
DRIVER="drv_reset drv_configure drv_set_mode drv_read drv_write drv_name drv_send drv_counter
        drv_scale"
need "$CT"
need_qemu
for tool in arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-objdump arm-none-eabi-readelf \
    arm-none-eabi-objcopy; do
    command -v $tool >/dev/null || { fail "$E2E_NAME-prerequisites" "no $tool"; finish; }
done

# cfg_addr ELF: the address of app_init's configuration (the static cfg.N), as the tree shows
# a pointer: 0x and lower-case hex without leading zeros.
cfg_addr() {
    local addr
    addr=$(arm-none-eabi-nm "$1" | awk '$3 ~ /^cfg\.[0-9]+$/ { print $1; exit }')
    [ -n "$addr" ] && printf '0x%x\n' "0x$addr"
}

# calls INDENT CFG: the lines of app_init and app_poll (wrapped.c) in a tree_body, indented
# INDENT more spaces: every driver call with its values, inside the function that made it.
calls() {
    sed "s/^/$1/" <<EOF
app_init() {
  drv_reset();
  drv_configure(cfg=$2) = 0;
  drv_set_mode(mode=DRV_FAST) = DRV_SLOW;
} /* app_init */
app_poll() {
  drv_read(reg=3) = 42;
  drv_write(reg=5, value=7) = 0;
  app_announce() {
    drv_name(id=2) = "two";
    drv_send(msg="two") = 3;
  } /* app_announce */
  app_announce() {
    drv_name(id=9) = NULL;
  } /* app_announce */
  drv_counter() = 8589934595;
  drv_scale(raw=42, gain=0.5) = 21;
} /* app_poll */
EOF
}

# check_table TAG ELF: the signature table is in the ELF, not allocated, in no segment and not
# in the flash image.
check_table() {
    local tag=$1 elf=$2 flags
    # objdump -h: a line per section, then one with its flags.
    flags=$(arm-none-eabi-objdump -h "$elf" | awk '$2 == ".cygtrace_wrap" { f = 1; next }
                                                   f { print; exit }')
    check "$tag-table-present" "no .cygtrace_wrap section" [ -n "$flags" ]
    check "$tag-table-not-alloc" "its flags are $flags" eval '[[ "$flags" != *ALLOC* ]]'
    arm-none-eabi-readelf -lW "$elf" >"$T/$tag.segments"
    check "$tag-table-no-segment" "a segment holds it: $(grep -E '^ +[0-9]+ .*cygtrace_wrap' "$T/$tag.segments")" \
        eval '! grep -qE "^ +[0-9]+ .*\.cygtrace_wrap" "$T/$tag.segments"'
    arm-none-eabi-objcopy -O binary "$elf" "$T/$tag.bin"
    check "$tag-table-no-flash" "the flash image holds the table" \
        eval '! grep -qa "cygtrace-wrap 1" "$T/$tag.bin"'
}

# --- the generated wrappers: every core, -Werror, -O0 to -O2 --------------------------------
gen=$BUILD/firmware/${BOARDS%% *}/wrap
if [ -s "$gen/cygtrace_wrap.c" ]; then
    sort "$gen/cygtrace_wrap.flags" >"$T/flags.got"
    for f in $DRIVER; do echo "-Wl,--wrap=$f"; done | sort >"$T/flags.want"
    check gen-flags "cygtrace_wrap.flags is not one --wrap per driver function" \
        same "$T/flags.want" "$T/flags.got"
    for core in "-mcpu=cortex-m0" "-mcpu=cortex-m3" \
                "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard" \
                "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard" "-mcpu=cortex-m33"; do
        for opt in -O0 -Os -O2; do
            tag=gen-${core%% *}$opt
            tag=${tag/-mcpu=/}
            # shellcheck disable=SC2086
            run "$tag" arm-none-eabi-gcc -std=gnu11 -Wall -Wextra -Werror -g -mthumb $core $opt \
                -ffreestanding -I"$ROOT/common" -I"$ROOT/target/core" -I"$ROOT/target/cortex-m" \
                -c "$gen/cygtrace_wrap.c" -o "$T/$tag.o"
            check "$tag" "$(head -n 3 "$T/$tag.err" | tr '\n' '|')" \
                eval '[ "$RC" -eq 0 ] && [ ! -s "$T/$tag.err" ]'
        done
    done
else
    fail gen "$gen/cygtrace_wrap.c is missing: run make (needs cygtrace wrap and arm-none-eabi-gcc)"
fi

# --- wrapped: pulled through the gdbstub after the fault --------------------------------------
for board in $BOARDS; do
    fw_copy "$board" wrapped || continue
    tag=$board-wrapped
    check_table "$tag" "$ELF"
    cfg=$(cfg_addr "$ELF")
    { echo "main() {"; calls "  " "$cfg"; echo "  app_fail() {"
      echo "    drv_configure(cfg=0xbffffff0) {"; } >"$T/$tag.expected"
    if qemu_start "$tag" "$board" "$ELF" && uart_wait "$tag" "wrapped: fault, trace frozen"; then
        run "$tag" "$CT" pull --gdb=127.0.0.1:$PORT "$ELF"
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        tree_body "$T/$tag.out" >"$T/$tag.body"
        # Everything before the fault, line for line.
        awk '/^\*\*\*/ { exit } { print }' "$T/$tag.body" >"$T/$tag.calls"
        check "$tag-tree" "the tree is not the driver's calls as wrapped.c makes them" \
            same "$T/$tag.expected" "$T/$tag.calls"
        # The fault inside the driver's own drv_configure, the wrapped call still open.
        check "$tag-fault" "$(grep -m 1 '^\*\*\*' "$T/$tag.body")" \
            grep -qE '^\*\*\* HardFault at drv_configure\+0x[0-9a-f]+' "$T/$tag.body"
        stack=$(awk '$1 == "#" && $2 ~ /^[0-9]+$/ { printf "%s ", $3 }' "$T/$tag.body")
        check "$tag-stack" "call stack: $stack" [ "$stack" = "drv_configure app_fail main " ]
        # The same from a dump, and with --no-args the values are gone, the calls not.
        run "$tag-o" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$ELF"
        run "$tag-dump" "$CT" tree "$ELF" "$T/$tag.dump"
        check "$tag-dump-same" "tree of the dump differs from pull's" \
            same "$T/$tag.out" "$T/$tag-dump.out"
        run "$tag-noargs" "$CT" tree --no-args "$ELF" "$T/$tag.dump"
        tree_body "$T/$tag-noargs.out" | awk '/^\*\*\*/ { exit } { print }' >"$T/$tag-noargs.calls"
        sed -E 's/\(.*\) = .*;$/();/; s/\(.+\) \{$/() {/' "$T/$tag.expected" >"$T/$tag-noargs.expected"
        check "$tag-no-args" "tree --no-args is not the calls without values" \
            same "$T/$tag-noargs.expected" "$T/$tag-noargs.calls"
    fi
    qemu_stop
done

# --- wrapped_live: the calls streamed over the UART, watched with cygtrace live -----------------
# qemu_live TAG BOARD ELF: QEMU with the UART a TCP server on a free port ($SPORT) that waits
# for the host before the firmware starts.
qemu_live() {
    local tag=$1 board=$2 elf=$3 i w
    for ((i = 0; i < 20; i++)); do
        SPORT=$((20000 + RANDOM % 20000))
        timeout 60 qemu-system-arm -M "$board" -display none -monitor none -nographic \
            -serial "tcp:127.0.0.1:$SPORT,server=on,wait=on" -kernel "$elf" \
            </dev/null >"$T/$tag.qemu" 2>&1 &
        QEMU_PID=$!
        for ((w = 0; w < 100; w++)); do
            grep -q 'waiting for connection' "$T/$tag.qemu" && return 0
            kill -0 "$QEMU_PID" 2>/dev/null || break
            sleep 0.1
        done
        qemu_stop
        grep -qi 'address already in use' "$T/$tag.qemu" || break
    done
    QEMU_PID=
    fail "$tag-qemu" "QEMU did not start: $(head -n 2 "$T/$tag.qemu" | tr '\n' '|')"
    return 1
}

# rounds FILE: how many whole rounds of $T/round.flat the tree_body of FILE holds.
rounds() {
    tree_body "$1" | tr '\n' '~' | grep -oF -- "$(cat "$T/round.flat")" | wc -l
}

for board in $LIVE_BOARDS; do
    fw_copy "$board" wrapped_live || continue
    tag=$board-live
    check_table "$tag" "$ELF"
    { echo "  live_round() {"; calls "    " "$(cfg_addr "$ELF")"; echo "  } /* live_round */"; } |
        tr '\n' '~' >"$T/round.flat"
    if qemu_live "$tag" "$board" "$ELF"; then
        run "$tag" "$CT" live --plain --duration=2 --tcp=127.0.0.1:$SPORT --save="$T/$tag.cyg" "$ELF"
        qemu_stop
        check "$tag-status" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        n=$(rounds "$T/$tag.out")
        check "$tag-rounds" "$n whole rounds with every value as expected: $(head -c 400 "$T/$tag.out" | tr '\n' '|')" \
            [ "$n" -ge 3 ]
        check "$tag-no-loss" "$(grep -m 1 'lost' "$T/$tag.out")" eval '! grep -q lost "$T/$tag.out"'
        echo "    $board: $n rounds in 2 s, $(grep -E '^# [0-9]+ events' "$T/$tag.out" | tail -n 1 | cut -c3-)"
        # The saved stream, decoded again by tree: the same rounds.
        run "$tag-tree" "$CT" tree "$ELF" "$T/$tag.cyg"
        m=$(rounds "$T/$tag-tree.out")
        check "$tag-saved" "tree of the saved stream: $m rounds, live showed $n" [ "$m" -eq "$n" ]
    fi
done

finish
