#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fw_rec4.sh - the interrupt and fault trials of fw_overwrite.sh, fw_fault_in_hook.sh and
# fw_stress.sh, and pull_qemu.sh's demo, crash (a RAM image too) and warm reset, again, with the
# runtime writing version 4 records (one word an event, docs/FORMAT.md 14: -DCYGTRACE_REC4=1,
# F 14 so that stress.elf's ring of 2^16 records fits), on the mainline cores (the ARMv6-M hook
# is not written yet): stress_ow, stress_armed, fault_hook, stress, demo, demo_hookcost, crash and reset built
# with FWEX_EXTRA into $BUILD/rec4, then each script run on that folder. Each trial script's
# checks read the ring from its bytes too (fw_seq.awk knows the words). Then RISC-V's
# crash.elf (the core's C hooks) on QEMU virt: its tree ends with the fault.
set -u
. "$(dirname "$0")/lib.sh"

BOARDS="mps2-an385 mps2-an386 mps2-an505"
need "$CT"
need_qemu
R=$BUILD/rec4
mkdir -p "$R"
ln -sf "$CT" "$R/cygtrace"
targets=()
for b in $BOARDS; do
    for p in stress stress_ow stress_armed fault_hook demo demo_hookcost crash reset; do
        targets+=("$R/firmware/$b/$p.elf")
    done
done
if ! make -C "$ROOT" --no-print-directory -j2 O="$R" \
    FWEX_EXTRA="-DCYGTRACE_REC4=1 -DCYGTRACE_REC4_FN_BITS=14" "${targets[@]}" >"$T/make.out" 2>&1
then
    fail build "$(grep -m1 -E 'error|Error' "$T/make.out")"
    finish
fi
pass build
for s in fw_overwrite fw_fault_in_hook fw_stress pull_qemu; do
    CYGTRACE_BUILD=$R FW_BOARDS="$BOARDS" FW_STRESS_BOARDS="$BOARDS" PULL_QEMU_BOARDS="$BOARDS" \
        FW_TRIALS=${FW_TRIALS:-3} \
        bash "$E2E_DIR/$s.sh" >"$T/$s.out" 2>&1
    check "$s" "$(grep -m1 '^FAIL' "$T/$s.out"; tail -n 1 "$T/$s.out")" \
        grep -q "^$s: [0-9]* passed, 0 failed" "$T/$s.out"
    grep '^    ' "$T/$s.out" | grep -v 'seed .*trials per board' | sed 's/^/  /'
    echo "    $(tail -n 1 "$T/$s.out")"
done
# RISC-V (the core's C hooks): crash.elf on QEMU virt, its ring version 4, the fault at the end
# of its tree as with version 3.
if command -v qemu-system-riscv32 >/dev/null && command -v riscv64-unknown-elf-gcc >/dev/null; then
    rv=$R/firmware/riscv-virt/crash.elf
    if make -C "$ROOT" --no-print-directory -j2 O="$R" \
        FWEX_EXTRA="-DCYGTRACE_REC4=1 -DCYGTRACE_REC4_FN_BITS=14" "$rv" >"$T/make-rv.out" 2>&1 &&
        QEMU_BIN=qemu-system-riscv32 qemu_start rv virt "$rv" -bios none && uart_wait rv "crash:"
    then
        run rv-pull "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/rv.dump" "$rv"
        qemu_stop
        run rv-info "$CT" info "$rv" "$T/rv.dump"
        check rv-version-4 "$(grep -m1 '^format:' "$T/rv-info.out")" \
            grep -q '^format: *version 4, RISC-V, 4-byte records' "$T/rv-info.out"
        run rv-tree "$CT" tree "$rv" "$T/rv.dump"
        check rv-fault "$(tail -n 3 "$T/rv-tree.out" | tr '\n' '|')" \
            grep -q '^\*\*\* load access fault (mcause 5) at read_field' "$T/rv-tree.out"
    else
        qemu_stop
        fail rv "$(grep -m1 -E 'error|Error' "$T/make-rv.out") $(head -c 200 "$T/rv.uart" 2>/dev/null)"
    fi
else
    skip rv "no qemu-system-riscv32 or riscv64-unknown-elf-gcc"
fi
# The trials saw version 4 rings, not the default's.
check v4-rings "stress_ow.elf's ring is not version 4" \
    eval 'arm-none-eabi-objdump -d "$R/firmware/mps2-an385/stress_ow.elf" | grep -q "<cyg_core_time4>:"'
finish
