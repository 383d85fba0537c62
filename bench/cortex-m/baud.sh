#!/bin/bash
# SPDX-License-Identifier: MIT
# baud.sh [BUILD_DIR] - the events per second the firmware's stream sustains over a UART at
# 115200 and 921600 baud without losing any: examples/firmware/stream.c on a Cortex-M3 (QEMU
# mps2-an385), built with -DSTREAM_BAUD=B, whose sink then takes no more bytes than a UART at B
# would have sent by now (8N1: B/10 bytes a second, by the board timer), and -DSTREAM_IDLE_US=I,
# the idle time after each round of 124 events, which sets the rate the program offers. For
# each baud rate a bisection finds the shortest idle time with nothing lost over 200 rounds;
# the rate is then the events over the time from the first call to the last (cygtrace info).
# QEMU runs with -icount shift=4 (16 ns an instruction, a 62.5 MHz core): the board timer,
# and so the link, runs on instruction time, and every run gives the same numbers.
#
# Over 200 rounds a rate slightly above what the link carries fills the 512-record ring only
# partly: the figure can be high by the ring over the events, about 2%.
set -eu
O=${1:-build}
B="$O/bench/cortex-m/baud"
F="$O/firmware/mps2-an385/obj"
CC=arm-none-eabi-gcc
rm -rf "$B" # the ELFs of an earlier run may hold an older runtime; within this run they are reused
mkdir -p "$B"
[ -f "$F/target/core/cygtrace_drain.o" ] || { echo "baud.sh: build the firmware first (make)" >&2; exit 1; }

# build BAUD IDLE_US: the stream example with that link and idle time, in $elf.
build() {
    elf="$B/stream-$1-$2.elf"
    [ -f "$elf" ] && return
    $CC -std=gnu11 -Wall -Wextra -Werror -g -mcpu=cortex-m3 -mthumb -ffreestanding \
        -ffunction-sections -fdata-sections -DCYGTRACE_CM_CLOCK=3 -Icommon -Itarget/core \
        -Itarget/cortex-m -Iexamples/firmware -finstrument-functions -O1 -fno-inline \
        -DSTREAM_BAUD="$1" -DSTREAM_IDLE_US="$2" -DSTREAM_ROUNDS=200 \
        -c examples/firmware/stream.c -o "$elf.o"
    $CC -mcpu=cortex-m3 -mthumb -nostartfiles --specs=nano.specs -Wl,--gc-sections \
        -Wl,--build-id -Lexamples/firmware -T examples/firmware/boards/mps2-an385.ld -o "$elf" \
        "$elf.o" "$F/target/core/cygtrace.o" "$F/target/core/cygtrace_ctrl.o" \
        "$F/target/core/cygtrace_mark.o" "$F/target/core/cygtrace_static.o" \
        "$F/target/core/cygtrace_drain.o" \
        "$F/target/cortex-m/cygtrace_cm.o" "$F/common/crc32.o" "$F/common/cobs.o" \
        "$F/examples/firmware/startup.o" "$F/examples/firmware/board_common.o" \
        "$F/examples/firmware/boards/cmsdk.o"
}

# trial BAUD IDLE_US: runs it; sets $lost (events the target lost), $events and $rate.
trial() {
    build "$1" "$2"
    timeout 300 qemu-system-arm -M mps2-an385 -icount shift=4 -display none -monitor none \
        -nographic -semihosting-config enable=on,target=native -serial "file:$B/s.cyg" \
        -kernel "$elf" </dev/null >/dev/null 2>&1 || true
    "$O/cygtrace" info "$elf" "$B/s.cyg" >"$B/info.txt"
    lost=$(sed -nE 's/^ +([0-9]+) events were lost on the target.*/\1/p' "$B/info.txt")
    lost=${lost:-0}
    events=$(sed -nE 's/^received: .* ([0-9]+) events$/\1/p' "$B/info.txt")
    rate=$(awk -v e="$events" '/^span: / {
               t = $2; if ($3 == "ms") t /= 1e3; else if ($3 == "us") t /= 1e6
               printf "%.0f", e / t }' "$B/info.txt")
    bpe=$(sed -nE 's/^bytes\/event:(.*)/\1/p' "$B/info.txt")
}

echo "Stream over a UART, Cortex-M3 (QEMU mps2-an385, -icount shift=4), stream.c, 200 rounds:"
for baud in 115200 921600; do
    lo=0 hi=100000 # idle times: lo loses (or is untried), hi does not
    trial "$baud" "$hi"
    [ "$lost" -eq 0 ] || { echo "baud.sh: $baud baud loses even at ${hi} us idle" >&2; exit 1; }
    while [ $((hi - lo)) -gt $((hi / 50 + 10)) ]; do
        mid=$(((lo + hi) / 2))
        trial "$baud" "$mid"
        if [ "$lost" -eq 0 ]; then hi=$mid; else lo=$mid; fi
    done
    trial "$baud" "$hi"
    best=$rate best_bpe=$bpe
    trial "$baud" "$lo"
    printf '  %7d baud: %6d events/s with no loss (%s bytes/event; baud/10/bytes = %d);' \
        "$baud" "$best" "$best_bpe" "$(awk -v b="$baud" -v x="$best_bpe" 'BEGIN { printf "%d", b / 10 / x }')"
    printf ' at %d events/s, %d lost\n' "$rate" "$lost"
done
