#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh [BUILD_DIR] - the RISC-V runtime (target/riscv) on QEMU's virt and sifive_e boards:
# instructions per recorded event against empty hooks, the hook's instruction listing, and the
# runtime's flash and RAM. Run from the top of the tree; prints the tables, exits 1 when a
# check fails. The method is bench/cortex-m/run.sh's:
#
# How it counts: with -icount shift=0 QEMU's mcycle (and minstret) is its instruction counter
# (target/riscv/csr.c: icount_get() when icount is on), so fib.c's mcycle difference around
# fib(20) (21891 calls, 43782 events) is an exact instruction count, the same on every run.
# Instructions per event = (count with the variant's hooks - count with empty hooks) / events.
# Checks: each firmware prints what its hooks recorded, which must be 0 for empty hooks and
# events + 1 (the START record) for the runtime: a variant that dropped events is FAILED.
#
# Footprint: crash.elf as examples/riscv builds it (-Os, --gc-sections), the runtime's sections
# in its link map (bench/cortex-m/mapsize.awk, with .sdata/.sbss/.srodata counted as data, bss
# and rodata).
set -eu
O=${1:-build}
B="$O/bench/riscv"
CC=${RV_CC:-riscv64-unknown-elf-gcc}
BOARDS="virt sifive_e"
EX=examples/riscv
failed=0
. bench/fw_common.sh

command -v "$CC" >/dev/null || { echo "run.sh: $CC not found (make deps)" >&2; exit 1; }
command -v qemu-system-riscv32 >/dev/null ||
    { echo "run.sh: qemu-system-riscv32 not found (make deps: qemu-system-misc)" >&2; exit 1; }

ARCH="-march=rv32imac -mabi=ilp32"
CFLAGS="-std=gnu11 -Wall -Wextra -Werror -g $ARCH -ffreestanding -ffunction-sections \
        -fdata-sections -Icommon -Itarget/core -Itarget/riscv -I$EX"
# The runtime's sources: the RISC-V port's of target/sources.mk (--gc-sections drops the drain).
RT_SRC=$(printf 'all:\n\t@echo $(CYGTRACE_RT_SRC_core) $(CYGTRACE_RT_SRC_riscv)\n' |
         make -s --no-print-directory -f target/sources.mk -f -)
# Runtime variants: name and defines (the runtime and hooks -Os, as examples/riscv builds them).
declare -A RT=([mcycle]="" [nots]="-DCYGTRACE_TIMESTAMPS=0" [mtime]="-DCYGTRACE_RV_CLOCK=2"
               [mcycle_O2]="-O2" [v4]="-DCYGTRACE_REC4=1")
VARIANTS="plain empty nots mcycle mtime mcycle_O2 v4"

# cc OUT SRC FLAGS...: compiles SRC into OUT.
cc() {
    local out=$1 src=$2
    shift 2
    mkdir -p "$(dirname "$out")"
    $CC $CFLAGS "$@" -c "$src" -o "$out"
}

build() { # build BOARD: $B/BOARD/fib_VARIANT.elf for every variant
    local b=$1 d=$B/$1 v s objs
    local support="$EX/start.c $EX/board_common.c $EX/board_$b.c"
    for s in $support; do cc "$d/obj/$(basename "$s" .c).o" "$s" -Os -fno-instrument-functions; done
    cc "$d/obj/fib_instr.o" bench/riscv/fib.c -O1 -fno-inline -finstrument-functions
    cc "$d/obj/fib_plain.o" bench/riscv/fib.c -O1 -fno-inline
    cc "$d/obj/hooks_empty.o" bench/riscv/hooks_empty.c -Os
    cc "$d/obj/recorded_rt.o" bench/cortex-m/recorded_rt.c -Os # portable: the runtime's API
    objs="$d/obj/start.o $d/obj/board_common.o $d/obj/board_$b.o"
    for v in "${!RT[@]}"; do
        for s in $RT_SRC; do
            cc "$d/obj/rt_$v/$(basename "$s" .c).o" "$s" -Os -fno-instrument-functions ${RT[$v]}
        done
    done
    link() { # link VARIANT OBJS...
        local v=$1
        shift
        $CC $ARCH -nostdlib -nostartfiles -Wl,--gc-sections -Wl,--build-id -L$EX \
            -Wl,-Map="$d/fib_$v.elf.map" -T "$EX/$b.ld" -o "$d/fib_$v.elf" $objs "$@" -lgcc
    }
    link plain "$d/obj/fib_plain.o" "$d/obj/hooks_empty.o"
    link empty "$d/obj/fib_instr.o" "$d/obj/hooks_empty.o"
    for v in "${!RT[@]}"; do
        link "$v" "$d/obj/fib_instr.o" "$d/obj/recorded_rt.o" "$d"/obj/rt_"$v"/*.o
    done
}

# run BOARD ELF, field NAME: fw_common.sh's, on qemu-system-riscv32 (virt without a BIOS: the
# ELF is the whole firmware).
run() {
    local bios=()
    [ "$1" = virt ] && bios=(-bios none)
    fw_run qemu-system-riscv32 "$1" "$2" "${bios[@]}"
}

declare -A ticks events bad
for b in $BOARDS; do
    build "$b"
    for v in $VARIANTS; do
        run "$b" "$B/$b/fib_$v.elf"
        ticks[$b.$v]=$(field ticks)
        events[$b]=$(field events)
        rec=$(field rec)
        case $v in
        plain | empty) want=0 ;;
        v4) want=$rec # events + START + TIME records' words: at least events + 1
            [ "$rec" -gt "${events[$b]}" ] || want=$((events[$b] + 1)) ;;
        *) want=$((events[$b] + 1)) ;;
        esac
        if [ "$rec" != "$want" ]; then
            bad[$b.$v]="recorded $rec, expected $want"
            failed=1
        fi
    done
done

cell() { # cell BOARD VARIANT BASE: instructions per event of VARIANT above BASE
    if [ -n "${bad[$1.$2]:-}" ]; then
        echo FAILED
    else
        awk -v a="${ticks[$1.$2]}" -v b="${ticks[$1.$3]}" -v e="${events[$1]}" \
            'BEGIN { printf "%.2f", (a - b) / e }'
    fi
}
row() {
    local title=$1 out b
    shift
    out=$(printf '  %-42s' "$title")
    for b in $BOARDS; do out+=$(printf ' %10s' "$(cell "$b" "$@")"); done
    echo "$out"
}
echo "Hook cost: instructions per event, fib(20), ${events[virt]} events, qemu-system-riscv32 -icount shift=0"
printf '  %-42s' ""
for b in $BOARDS; do printf ' %10s' "$b"; done
echo
row "empty hooks - no hooks (the call)" empty plain
echo "  above empty hooks:"
row "cygtrace, no timestamps" nots empty
row "cygtrace, mcycle clock (default)" mcycle empty
row "cygtrace, CLINT mtime clock" mtime empty
row "cygtrace, mcycle, runtime built -O2" mcycle_O2 empty
row "version 4 records (-DCYGTRACE_REC4=1), mcycle" v4 empty
for k in "${!bad[@]}"; do echo "  FAILED: ${k%%.*} fib_${k#*.}.elf: ${bad[$k]}"; done

hook_listing() {
    riscv64-unknown-elf-objdump -d --no-show-raw-insn "$1" |
        awk '/<__cyg_profile_func_enter>:/ { on = 1 } on && /^$/ { exit } on'
}
for v in mcycle mcycle_O2; do
    listing=$(hook_listing "$B/virt/fib_$v.elf")
    echo
    echo "__cyg_profile_func_enter, fib_$v.elf ($(grep -c '^ *[0-9a-f]*:' <<<"$listing") instructions in all):"
    sed 's/^/    /' <<<"$listing"
done

# Footprint: the runtime's sections kept in crash.elf (the examples' build), by object.
sizes() {
    sed -e 's/^ \.sdata/ .data/' -e 's/^ \.sbss/ .bss/' -e 's/^ \.srodata/ .rodata/' "$1" |
        awk -f bench/cortex-m/mapsize.awk
}
echo
echo "Runtime footprint, bytes: examples/riscv crash.elf (runtime -Os, --gc-sections); flash ="
echo "text + rodata, RAM = data + bss without the ring (data also keeps its copy in flash)"
for b in $BOARDS; do
    map=$O/firmware/riscv-$b/crash.elf.map
    if [ ! -f "$map" ]; then
        echo "  $b: $map missing: make O=$O firmware-riscv"
        failed=1
        continue
    fi
    sizes "$map" | awk -v b="$b" '
        { s[$2] += $3; o[$1] = o[$1] " " $2 "=" $3 }
        END {
            printf "  %-9s flash %5d  RAM %4d  ring (.noinit) %d\n", b,
                s["text"] + s["rodata"], s["data"] + s["bss"], s["noinit"]
            for (k in o) printf "    %-14s%s\n", k, o[k]
        }'
done

if [ "$failed" = 1 ]; then
    echo "run.sh: some checks FAILED (see above)" >&2
    exit 1
fi
