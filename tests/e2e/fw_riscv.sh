#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fw_riscv.sh - the RISC-V port (target/riscv) on QEMU's 32-bit RISC-V boards, sifive_e (the
# FE310) and virt, running examples/riscv: "cygtrace pull" through QEMU's gdbstub of
#   - crash.elf: the tree ends with the load access fault, named from mcause, and the call
#     stack; the calls nest main -> app_run -> parse_packet -> read_field; pull -o's dump
#     decodes to the same tree; the ring says RISC-V and matches the ELF's build-id;
#   - demo.elf: a normal run's tree;
#   - wrap.elf: the demo run long enough to lap the 512-record ring (overwrite mode):
#     held + overwritten == written, nothing torn, the tree says the older events are gone.
# Under -icount shift=0 every run is the same. Skips (one line) without qemu-system-riscv32
# or riscv64-unknown-elf-gcc.
set -u
. "$(dirname "$0")/lib.sh"

BOARDS=${FW_RISCV_BOARDS:-sifive_e virt}
FW=$BUILD/firmware

if ! command -v qemu-system-riscv32 >/dev/null || ! command -v riscv64-unknown-elf-gcc >/dev/null
then
    echo "skip $E2E_NAME: qemu-system-riscv32 or riscv64-unknown-elf-gcc is missing (make deps)"
    finish
fi
need "$CT"
trap '[ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null' EXIT

# rv_start TAG BOARD ELF: lib.sh's qemu_start on qemu-system-riscv32 (virt without a BIOS: the
# ELF is the whole firmware), with the instruction count as the clock.
QEMU_BIN=qemu-system-riscv32
rv_start() {
    local bios=()
    [ "$2" = virt ] && bios=(-bios none)
    qemu_start "$1" "$2" "$3" "${bios[@]}" -icount shift=0
}

# info_field FILE NAME: the number after "NAME:" in cygtrace info's output.
info_field() {
    awk -v k="$2:" '$1 == k { print $2; exit }' "$1"
}

for board in $BOARDS; do
    elf_copy "$board" "$FW/riscv-$board" "$T/$board" crash demo wrap || continue
    crash=$T/$board/crash.elf demo=$T/$board/demo.elf wrap=$T/$board/wrap.elf

    # --- crash: the fault and the call stack end the tree --------------------------------------
    tag=rv-$board-crash
    if rv_start "$tag" "$board" "$crash" && uart_wait "$tag" "trace frozen"; then
        check "$tag-uart" "UART: $(tr '\n' '|' <"$T/$tag.uart")" \
            grep -q 'crash: load access fault (mcause 5, mtval 0xf0000000)' "$T/$tag.uart"
        run "$tag" "$CT" pull --gdb=127.0.0.1:$PORT "$crash"
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        tree_body "$T/$tag.out" >"$T/$tag.body"
        bad=$(nested "$T/$tag.body" main app_run parse_packet read_field)
        check "$tag-nesting" "$bad" [ -z "$bad" ]
        fault=$(grep -n '^\*\*\* ' "$T/$tag.out" | tail -n 1)
        fline=${fault%%:*}
        fault=${fault#*:}
        check "$tag-fault-line" "fault line: '$fault'" \
            eval '[[ "$fault" =~ ^\*\*\*\ load\ access\ fault\ \(mcause\ 5\)\ at\ read_field\+0x[0-9a-f]+$ ]]'
        tail -n +"${fline:-1}" "$T/$tag.out" | tail -n +2 >"$T/$tag.after"
        check "$tag-fault-then-stack" "the call stack does not follow the fault line" \
            grep -q '^# call stack at the end of the trace' "$T/$tag.after"
        check "$tag-fault-last" "after the fault line: $(grep -v '^#' "$T/$tag.after" | head -n 1)" \
            eval '! grep -qv "^#" "$T/$tag.after"'
        stack=$(awk '$1 == "#" && $2 ~ /^[0-9]+$/ { printf "%s ", $3 }' "$T/$tag.after")
        check "$tag-backtrace" "call stack '$stack'" \
            [ "$stack" = "read_field parse_packet app_run main " ]
        check "$tag-frozen" "no note that the trace was frozen" \
            grep -q '^# the trace was frozen' "$T/$tag.out"
        run "$tag-o" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$crash"
        run "$tag-dump-tree" "$CT" tree "$crash" "$T/$tag.dump"
        check "$tag-o-decodes" "tree of pull -o's dump differs from pull's" \
            same "$T/$tag.out" "$T/$tag-dump-tree.out"
        run "$tag-info" "$CT" info "$crash" "$T/$tag.dump"
        check "$tag-info-riscv" "$(grep -m1 '^format:' "$T/$tag-info.out")" \
            grep -q '^format: .*RISC-V, 8-byte records, timestamps' "$T/$tag-info.out"
        check "$tag-info-build-id" "$(grep -m1 '^build-id:' "$T/$tag-info.out")" \
            grep -q '^build-id: .*(matches the ELF)' "$T/$tag-info.out"
        check "$tag-info-frozen" "$(grep -m1 '^state:' "$T/$tag-info.out")" \
            grep -q '^state: *frozen' "$T/$tag-info.out"
        run "$tag-srcline" "$CT" tree --srcline "$crash" "$T/$tag.dump"
        check "$tag-srcline" "no crash_work.h line: $(grep -m1 read_field "$T/$tag-srcline.out")" \
            grep -Eq '^ +read_field\(\) \[crash_work\.h:[0-9]+\] \{$' "$T/$tag-srcline.out"
        # A warm reset (QEMU's system reset writes the ELF's segments again, not .noinit):
        # the firmware crashes a second time, and the ring still holds the first crash, kept.
        run "$tag-reset" env -u DEBUGINFOD_URLS gdb-multiarch -batch -nx \
            -iex 'set debuginfod enabled off' -ex "target remote 127.0.0.1:$PORT" \
            -ex 'monitor system_reset' -ex detach "$crash"
        for ((k = 0; k < 100; k++)); do
            [ "$(grep -c 'trace frozen' "$T/$tag.uart")" -ge 2 ] && break
            sleep 0.1
        done
        run "$tag-kept" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag-kept.dump" "$crash"
        run "$tag-kept-info" "$CT" info "$crash" "$T/$tag-kept.dump"
        check "$tag-warm-reset-kept" "$(grep -m1 '^resets' "$T/$tag-kept-info.out")" \
            grep -Eq '^resets: +1 warm resets? survived' "$T/$tag-kept-info.out"
        run "$tag-kept-tree" "$CT" tree "$crash" "$T/$tag-kept.dump"
        check "$tag-warm-reset-same-tree" "the kept trace's tree differs" \
            same "$T/$tag.out" "$T/$tag-kept-tree.out"
    fi
    qemu_stop

    # --- demo: the tree of a normal run ------------------------------------------------------
    tag=rv-$board-demo
    if rv_start "$tag" "$board" "$demo" && uart_wait "$tag" "demo: done"; then
        run "$tag" "$CT" pull --gdb=127.0.0.1:$PORT "$demo"
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        tree_body "$T/$tag.out" >"$T/$tag.body"
        bad=$(nested "$T/$tag.body" main DEMO_Run decide getValue calcValue)
        check "$tag-nesting" "$bad" [ -z "$bad" ]
        check "$tag-crumble" "no Crumble_make_apple_crumble() {" \
            grep -q '^ *Crumble_make_apple_crumble() {$' "$T/$tag.body"
        check "$tag-resumed" "QEMU is gone after the detach" kill -0 "$QEMU_PID"
    fi
    qemu_stop

    # --- wrap: the ring lapped in overwrite mode -----------------------------------------------
    tag=rv-$board-wrap
    if rv_start "$tag" "$board" "$wrap" && uart_wait "$tag" "demo: done"; then
        run "$tag-pull" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$wrap"
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag-pull.err")" [ "$RC" -eq 0 ]
        run "$tag-info" "$CT" info "$wrap" "$T/$tag.dump"
        i=$T/$tag-info.out
        written=$(info_field "$i" written) held=$(info_field "$i" held)
        over=$(info_field "$i" overwritten) unwritten=$(info_field "$i" unwritten)
        lost=$(info_field "$i" lost) cap=$(info_field "$i" capacity)
        check "$tag-overwrite-mode" "$(grep -m1 '^mode:' "$i")" grep -q '^mode: *overwrite' "$i"
        check "$tag-lapped" "written ${written:-?} in a ring of ${cap:-?}" \
            eval '[ -n "$written" ] && [ -n "$cap" ] && [ "$written" -gt $((3 * cap)) ] &&
                  grep -q "^lapped: *yes" "$i"'
        check "$tag-read-plus-over" "held $held + overwritten $over + lost $lost != written $written" \
            eval '[ $((${held:-0} + ${over:-0} + ${lost:-0})) -eq "${written:--1}" ] &&
                  [ "${held:-0}" -eq "${cap:--1}" ]'
        check "$tag-no-torn" "${unwritten:-?} slots reserved but never written" \
            [ "${unwritten:-1}" -eq 0 ]
        run "$tag-tree" "$CT" tree "$wrap" "$T/$tag.dump"
        check "$tag-tree" "status $RC: $(head -n 1 "$T/$tag-tree.err")" [ "$RC" -eq 0 ]
        check "$tag-tree-overwritten" "no note of the overwritten events: $(tail -n 1 "$T/$tag-tree.out")" \
            grep -q "^# $over older events were overwritten" "$T/$tag-tree.out"
        check "$tag-tree-ends" "the run's last call is not in the tree" \
            grep -q '^ *Crumble_bake();$' <(tree_body "$T/$tag-tree.out")
    fi
    qemu_stop
done

finish
