#!/bin/bash
# SPDX-License-Identifier: MIT
# build.sh OUT PROGRAM [CMAKE_ARGS...] - builds the Zephyr example (this folder) for
# qemu_cortex_m3 against the Zephyr tree ZEPHYR_BASE (and the modules ZEPHYR_MODULES, ';'
# separated, for a tree without west), with the cygtrace module (target/zephyr), in
# OUT/zephyr/PROGRAM; copies the result to OUT/firmware/qemu_cortex_m3/PROGRAM.elf. Without a
# Zephyr tree or what building it needs (cmake, ninja, arm-none-eabi-gcc, a python3 with
# Zephyr's packages), says what is missing in one line and succeeds, building nothing.
# examples/zephyr/zephyr.mk calls it (make zephyr-firmware).
set -u
out=$1 prog=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${ZEPHYR_PYTHON:-/usr/bin/python3}
missing=
[ -n "${ZEPHYR_BASE:-}" ] && [ -f "$ZEPHYR_BASE/kernel/sched.c" ] ||
    missing="no Zephyr tree at ZEPHYR_BASE='${ZEPHYR_BASE:-}'"
for tool in cmake ninja arm-none-eabi-gcc; do
    [ -n "$missing" ] || command -v "$tool" >/dev/null || missing="no $tool"
done
[ -n "$missing" ] || "$python" -c 'import yaml, pykwalify, elftools, jsonschema' 2>/dev/null ||
    missing="$python lacks Zephyr's packages (python3-yaml, -pykwalify, -pyelftools, -jsonschema)"
if [ -n "$missing" ]; then
    echo "  SKIP    Zephyr example $prog: $missing (a Zephyr 3.x/4.x tree: set ZEPHYR_BASE, docs/zephyr.md)"
    exit 0
fi
cross=$(command -v arm-none-eabi-gcc)
cross=${cross%gcc}
sysroot=${ZEPHYR_SYSROOT:-$(ls -d /usr/lib/arm-none-eabi/newlib 2>/dev/null)}
b=$(mkdir -p "$out/zephyr/$prog" && cd "$out/zephyr/$prog" && pwd)
log=$b.log
echo "  ZEPHYR  $prog (qemu_cortex_m3)"
if [ ! -f "$b/build.ninja" ]; then
    if ! cmake -GNinja -S "$here" -B "$b" -DBOARD=qemu_cortex_m3 \
        -DZEPHYR_TOOLCHAIN_VARIANT=cross-compile -DCROSS_COMPILE="$cross" \
        ${sysroot:+-DSYSROOT_DIR="$sysroot"} -DPython3_EXECUTABLE="$python" \
        ${ZEPHYR_MODULES:+-DZEPHYR_MODULES="$ZEPHYR_MODULES"} \
        -DZEPHYR_EXTRA_MODULES="$root/target/zephyr" -DUSER_CACHE_DIR="$b/.zcache" \
        "$@" >"$log" 2>&1; then
        rm -f "$b/build.ninja"
        echo "build.sh: $prog: cmake failed (the end of $log):" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
fi
if ! ninja -C "$b" >>"$log" 2>&1; then
    echo "build.sh: $prog: the build failed (the end of $log):" >&2
    tail -n 20 "$log" >&2
    exit 1
fi
mkdir -p "$out/firmware/qemu_cortex_m3"
cmp -s "$b/zephyr/zephyr.elf" "$out/firmware/qemu_cortex_m3/$prog.elf" ||
    cp "$b/zephyr/zephyr.elf" "$out/firmware/qemu_cortex_m3/$prog.elf"
