#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh [BUILD_DIR] - the Cortex-M runtime on every QEMU board of the examples: instructions
# per recorded event against empty hooks and against a "Poor Man's Trace" ring (hooks_pmt.c),
# the hook's instruction listing, the stream drain's cost (Cortex-M3), and the runtime's flash
# and RAM per core. Run from the top of the tree; prints the tables, exits 1 when a check fails.
#
# How it counts: with -icount shift=0 QEMU advances its virtual clock by exactly 1 ns per guest
# instruction, and the boards' timers count that clock: 25 MHz on mps2-an385 (M3) and mps2-an386
# (M4), 20 MHz on mps2-an505 (M33), 16 MHz on the micro:bit (M0), so one tick is 40, 50 or 62.5
# instructions. fib.c reads the timer around fib(20) (21891 calls, 43782 events) and prints the
# ticks and the rate: instructions = ticks * 1e9 / rate, to a tick (62.5 instructions) in about
# a million, the same on every run. Instructions per event = (instructions with the variant's
# hooks - with empty hooks) / events. The same count by hand from `arm-none-eabi-objdump -d`
# of the M3 hook agrees to the instruction.
#
# Checks: each firmware prints what its hooks recorded (bench_recorded()), which must be 0 for
# empty hooks, events + 1 (the START record) for the runtime, and events modulo the ring for the
# PMT ring (its write index): a variant whose hooks did not record every event is FAILED.
#
# The stream drain: fibloop.c runs fib(10) 100 times (35400 events), with cygtrace_drain()
# after each into a sink that takes everything or into the UART; its cost per event is the
# difference to the same loop without the drain. The hooks' own cost is measured again in that
# loop, and their code is compared with and without the drain called (same instructions).
#
# Bytes per event: bench/rec4.sh, today's records against version 4's words (FORMAT.md 14).
#
# Footprint: fibloop.c linked with each core's libcygtrace.a (what `make` builds, -Os), without
# and with the drain called; the runtime's sections in the link map (mapsize.awk).
set -eu
O=${1:-build}
B="$O/bench/cortex-m"
BOARDS="microbit mps2-an385 mps2-an386 mps2-an505"
declare -A CORE=([microbit]=M0 [mps2-an385]=M3 [mps2-an386]=M4 [mps2-an505]=M33)
declare -A LIB=([microbit]=cortex-m0 [mps2-an385]=cortex-m3 [mps2-an386]=cortex-m4f
                [mps2-an505]=cortex-m33)
PMT_RECORDS=512 # hooks_pmt.c's default
failed=0

# The cores' libraries from the current sources, then the firmware.
make --no-print-directory O="$O" firmware-cores
make --no-print-directory -f bench/cortex-m/cortex-m.mk O="$O"

# run BOARD ELF, field NAME: fw_common.sh's, on qemu-system-arm.
. bench/fw_common.sh
run() { fw_run qemu-system-arm "$1" "$2"; }

# ---------------------------------------------------------------------------------------------
# Hook cost.
VARIANTS="plain empty pmt pmt_ts nots timer mmio dwt ctimer cdwt armed armed6 rec4 v4 cv4"
declare -A ticks hz events bad
for b in $BOARDS; do
    for v in $VARIANTS; do
        [ -f "$B/$b/fib_$v.elf" ] || continue # dwt: not on the M0
        run "$b" "$B/$b/fib_$v.elf"
        ticks[$b.$v]=$(field ticks)
        hz[$b]=$(field hz)
        events[$b]=$(field events)
        rec=$(field rec)
        case $v in
        plain | empty) want=0 ;;
        pmt | pmt_ts) want=$((events[$b] % PMT_RECORDS)) ;;
        rec4) want=${events[$b]} ;; # call records, TIME records apart
        v4 | cv4) want=$rec # events + START + TIME records: at least events + 1
            [ "$rec" -gt "${events[$b]}" ] || want=$((events[$b] + 1)) ;;
        *) want=$((events[$b] + 1)) ;;
        esac
        if [ "$rec" != "$want" ]; then
            bad[$b.$v]="recorded $rec, expected $want"
            failed=1
        fi
    done
done

# cell BOARD VARIANT BASE: instructions per event of VARIANT above BASE on BOARD.
cell() {
    if [ -z "${ticks[$1.$2]:-}" ]; then
        echo -
    elif [ -n "${bad[$1.$2]:-}" ]; then
        echo FAILED
    else
        awk -v a="${ticks[$1.$2]}" -v b="${ticks[$1.$3]}" -v hz="${hz[$1]}" -v e="${events[$1]}" \
            'BEGIN { printf "%.1f", (a - b) * 1e9 / hz / e }'
    fi
}
# ratio BOARD A B: A's cost above empty hooks over B's.
ratio() {
    if [ -z "${ticks[$1.$2]:-}" ] || [ -z "${ticks[$1.$3]:-}" ] || [ -n "${bad[$1.$2]:-}" ] ||
        [ -n "${bad[$1.$3]:-}" ]; then
        echo -
    else
        awk -v a="${ticks[$1.$2]}" -v b="${ticks[$1.$3]}" -v e="${ticks[$1.empty]}" \
            'BEGIN { printf "%.2fx", (a - e) / (b - e) }'
    fi
}
row() { # row TITLE CELL-FUNCTION ARGS...: one line of the table, a cell per board
    local title=$1 f=$2 b out
    shift 2
    out=$(printf '  %-38s' "$title")
    for b in $BOARDS; do out+=$(printf ' %10s' "$("$f" "$b" "$@")"); done
    echo "$out"
}

echo "Hook cost: instructions per event, fib(20), ${events[mps2-an385]} events, QEMU -icount shift=0"
printf '  %-38s' ""
for b in $BOARDS; do printf ' %10s' "${CORE[$b]}"; done
printf '\n  %-38s' ""
for b in $BOARDS; do printf ' %10s' "$b"; done
echo
row "empty hooks - no hooks (the call)" cell empty plain
echo "  above empty hooks:"
row "PMT ring, critical section, no time" cell pmt empty
row "PMT ring + board timer" cell pmt_ts empty
row "cygtrace, no timestamps" cell nots empty
row "cygtrace, board timer, a function" cell timer empty
row "cygtrace, board timer, its register" cell mmio empty
row "cygtrace, DWT clock (M3/M4/M33 default)" cell dwt empty
row "  the core's C hooks, board timer" cell ctimer empty
row "  the core's C hooks, DWT clock" cell cdwt empty
row "armed, 1 trigger + 1 exclusion, timer" cell armed empty
row "armed, 6 triggers + 12 exclusions, timer" cell armed6 empty
row "version 4 records (-DCYGTRACE_REC4=1), DWT" cell v4 empty
row "  the version 4 hook alone (hooks_rec4.c)" cell rec4 empty
row "  version 4, the core's C hooks, timer" cell cv4 empty
echo "  ratios (above empty hooks each):"
row "PMT / cygtrace, both without time" ratio pmt nots
row "PMT + timer / cygtrace, board timer" ratio pmt_ts timer
row "PMT + timer / cygtrace, its register" ratio pmt_ts mmio
for k in "${!bad[@]}"; do echo "  FAILED: ${k%%.*} fib_${k#*.}.elf: ${bad[$k]}"; done
# goal BOARD VARIANT MAX WHAT: issue 18's target for one cell.
goal() {
    local x
    x=$(cell "$1" "$2" empty)
    [ "$x" != - ] || return 0
    echo "  goal, at most $3 on the ${CORE[$1]}, $4: $x, $(awk -v x="$x" -v m="$3" \
        'BEGIN { print (x == "FAILED" ? "FAILED" : x <= m ? "met" : "missed by " x - m) }')"
}
goal mps2-an385 dwt 16 "DWT clock"
goal mps2-an385 timer 19 "board timer through a function (CYGTRACE_CM_CLOCK=3)"
goal mps2-an385 mmio 19 "board timer's register (CYGTRACE_CM_CLOCK=4)"
goal mps2-an385 nots 12 "no timestamps"
goal microbit timer 32 "board timer"

# hook_listing ELF: the hooks as objdump prints them, addresses and all: the symbol
# __cyg_profile_func_enter for its size (the port's hooks in assembly: both hooks, where they
# go on, and their literal pool; the core's C hooks: the enter hook alone).
hook_listing() {
    local start size
    read -r start size _ < <(arm-none-eabi-nm -S "$1" | awk '$4 == "__cyg_profile_func_enter"')
    arm-none-eabi-objdump -d --no-show-raw-insn --start-address=0x"$start" \
        --stop-address=$((0x$start + 0x$size)) "$1" |
        awk '/<__cyg_profile_func_enter>:/ { on = 1 } on && !/^$/'
}
echo
echo "__cyg_profile_func_enter per core (arm-none-eabi-objdump -d --no-show-raw-insn):"
for b in $BOARDS; do
    v=dwt
    [ -f "$B/$b/fib_$v.elf" ] || v=timer
    listing=$(hook_listing "$B/$b/fib_$v.elf")
    echo "  ${CORE[$b]} ($b, fib_$v.elf, $(grep -c '^ *[0-9a-f]*:' <<<"$listing" |
        awk -v w="$(grep -c '\.word\|\.short' <<<"$listing")" '{ print $1 - w }') instructions in all):"
    sed 's/^/    /' <<<"$listing"
done

# ---------------------------------------------------------------------------------------------
# The stream drain, on the Cortex-M3.
A="$B/mps2-an385"
declare -A lticks bytes
for v in empty timer null uart; do
    run mps2-an385 "$A/loop_$v.elf"
    lticks[$v]=$(field ticks)
    bytes[$v]=$(field bytes)
    loop_events=$(field events)
    head=$(field head)
    if [ "$v" != empty ] && [ "$head" != $((loop_events + 1)) ]; then
        echo "  FAILED: loop_$v.elf: head $head, expected $((loop_events + 1))"
        failed=1
    fi
done

# The hook's instructions, without addresses (the layouts differ).
hook_code() {
    hook_listing "$1" |
        sed -e 's/^ *[0-9a-f]*:[[:space:]]*//' -e 's/[0-9a-f]* <\([^>+]*\)[^>]*>/<\1>/g' \
            -e 's/@.*//' -e 's/\.word.*/.word/' | tail -n +2
}
if [ "$(hook_code "$A/loop_timer.elf")" = "$(hook_code "$A/loop_null.elf")" ]; then
    same_hook=yes
else
    same_hook=NO
fi

per() { awk -v a="$1" -v b="$2" -v e="$loop_events" 'BEGIN { printf "%.1f", (a - b) * 40 / e }'; }
echo
echo "Stream drain, Cortex-M3 (mps2-an385), fib(10) x 100 between drains: $loop_events events"
printf '  %-34s %8s instructions per event\n' \
    "runtime - empty hooks (board timer)" "$(per "${lticks[timer]}" "${lticks[empty]}")" \
    "drain to a sink taking all" "$(per "${lticks[null]}" "${lticks[timer]}")" \
    "drain to the UART" "$(per "${lticks[uart]}" "${lticks[timer]}")"
awk -v b="${bytes[null]}" -v e="$loop_events" \
    'BEGIN { printf "  %-34s %8.2f bytes per event (%d bytes)\n", "stream", b / e, b }'
echo "  hook code the same with the drain called: $same_hook"

# ---------------------------------------------------------------------------------------------
# Footprint: the runtime's sections that the linker kept, per core, without and with the drain.
# sizes MAP: "flash ram ring text rodata data bss" of the runtime in MAP; flash is text +
# rodata, RAM data + bss (data also takes its initial copy in flash), ring the .noinit buffer.
sizes() {
    awk -f bench/cortex-m/mapsize.awk "$1" |
        awk '{ s[$2] += $3 } END {
                 printf "%d %d %d %d %d %d %d\n", s["text"] + s["rodata"], s["data"] + s["bss"],
                     s["noinit"], s["text"], s["rodata"], s["data"], s["bss"] }'
}
echo
echo "Runtime footprint per core, bytes: libcygtrace.a as make builds it (-Os), linked with"
echo "--gc-sections into fibloop.c without and with cygtrace_drain(); flash = text + rodata,"
echo "RAM = data + bss without the ring buffer (data also keeps its initial copy in flash)"
printf '  %-5s %-11s %17s %17s %6s %7s\n' "" "" "no drain" "with drain" "" "ring"
printf '  %-5s %-11s %8s %8s %8s %8s %6s %7s\n' core library flash RAM flash RAM data \
    "(.noinit)"
OBJS="cygtrace.o cygtrace_ctrl.o cygtrace_mark.o cygtrace_static.o cygtrace_cm.o cygtrace_drain.o
      crc32.o cobs.o"
for b in $BOARDS; do
    read -r f0 r0 _ <<<"$(sizes "$B/$b/fp_nodrain.map")"
    read -r f1 r1 ring _ _ d1 _ <<<"$(sizes "$B/$b/fp_drain.map")"
    printf '  %-5s %-11s %8d %8d %8d %8d %6d %7d\n' "${CORE[$b]}" "${LIB[$b]}" "$f0" "$r0" "$f1" \
        "$r1" "$d1" "$ring"
    if [ "$f0" -le 0 ] || [ "$f1" -le "$f0" ]; then
        echo "  FAILED: $b: no runtime in the map, or the drain added nothing"
        failed=1
    fi
done
echo "  flash with the drain, by object (text + rodata):"
for b in $BOARDS; do
    awk -f bench/cortex-m/mapsize.awk "$B/$b/fp_drain.map" |
        awk -v objs="$OBJS" -v core="${CORE[$b]}" '
            $2 == "text" || $2 == "rodata" { s[$1] += $3 }
            END {
                n = split(objs, o, " ")
                printf "    %-5s", core
                for (i = 1; i <= n; i++) printf " %s %d", o[i], s[o[i]]
                print ""
            }'
done

# The M3's runtime with other settings (cortex-m.mk's FP_SETTINGS), and issue 18's flash goals.
flash() { sizes "$B/mps2-an385/$1.map" | awk '{ print $1 }'; }
echo "  the M3 (mps2-an385) with other settings, flash without and with the drain:"
printf '    %-76s %6d %6d\n' "the default (no control area, warm-reset keeping, stop mode)" \
    "$(flash fp_nodrain)" "$(flash fp_drain)"
for v in "minnf:the minimal configuration: the next, no fault records (handler)" \
    "min:-DCYGTRACE_CM_KEEP=0 -DCYGTRACE_STOP_MODE=0 -DCYGTRACE_CM_CLOCK_FALLBACK=0" \
    "nokeep:-DCYGTRACE_CM_KEEP=0" "nostop:-DCYGTRACE_STOP_MODE=0" \
    "control:-DCYGTRACE_CONTROL=1 (what cygtrace arm needs)"; do
    printf '    %-76s %6d %6d\n' "${v#*:}" "$(flash "fp_${v%%:*}")" "$(flash "fp_${v%%:*}_drain")"
done
# fgoal WHAT BYTES MAX: issue 18's flash target for one figure.
fgoal() {
    echo "  goal, at most $3 bytes of flash on the M3, $1: $2, $(awk -v x="$2" -v m="$3" \
        'BEGIN { print x <= m ? "met" : "missed by " x - m }')"
}
fgoal "the default without the drain" "$(flash fp_nodrain)" 768
fgoal "the minimal configuration without the drain" "$(flash fp_minnf)" 512
fgoal "the default with the drain" "$(flash fp_drain)" 1843

# ---------------------------------------------------------------------------------------------
# Bytes per event: today's records against version 4's words, on fib and the FreeRTOS example
# (bench/rec4.sh: the rings pulled from QEMU, written again as version 4, read back).
echo
echo "Bytes per event and events per KB of ring (bench/rec4.sh)"
if [ -x "$O/cygtrace" ]; then
    bash bench/rec4.sh "$O" | sed 's/^/  /' || failed=1
else
    echo "  $O/cygtrace is missing: make"
fi

if [ "$failed" = 1 ]; then
    echo "run.sh: some checks FAILED (see above): those numbers are missing" >&2
    exit 1
fi
