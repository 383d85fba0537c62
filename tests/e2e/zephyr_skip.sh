#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# zephyr_skip.sh - a machine without a Zephyr tree (a user's clone: no ZEPHYR_BASE, no
# ../shared/thirdparty beside it): the build skips the Zephyr example in one line per program
# that says what is missing and where to read on, the build's default is a folder relative to
# the checkout, and zephyr.sh passes with each of its tests said skipped by name.
set -u
. "$(dirname "$0")/lib.sh"

need "$CT"

# The build, told of no tree: a line a program, and success.
out=$(cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    make --no-print-directory O="$T/nobuild" zephyr-firmware ZEPHYR_BASE=/nonexistent 2>&1)
rc=$?
check build-skips "status $rc: $out" \
    eval '[ "$rc" -eq 0 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 4 ] &&
          [ "$(printf "%s\n" "$out" | grep -c "SKIP .*Zephyr example zephyr[a-z_]*: no Zephyr tree at ZEPHYR_BASE=./nonexistent. (a Zephyr 3.x/4.x tree: set ZEPHYR_BASE, docs/zephyr.md)")" -eq 4 ] &&
          [ ! -e "$T/nobuild/firmware/qemu_cortex_m3" ]'

# A tree but no cmake on the PATH: said so.
mkdir -p "$T/bin"
for tool in bash sh env dirname cat ls mkdir rm cp cmp tail; do
    p=$(command -v "$tool") && ln -sf "$p" "$T/bin/$tool"
done
# (a stand-in for the tree: what build.sh looks for in one, so that a clone with no Zephyr beside
# it tests this too)
mkdir -p "$T/ztree/kernel" && : >"$T/ztree/kernel/sched.c"
out=$(cd "$ROOT" && PATH=$T/bin ZEPHYR_BASE=$T/ztree \
    bash examples/zephyr/build.sh "$T/nobuild" zephyr 2>&1)
rc=$?
check build-no-cmake "status $rc: $out" \
    eval '[ "$rc" -eq 0 ] && printf "%s\n" "$out" | grep -q "SKIP .*Zephyr example zephyr: no cmake "'

# A clone of the sources elsewhere, with nothing beside it: the default is no tree at all.
C=$T/elsewhere/cygtrace
mkdir -p "$C"
(cd "$ROOT" && tar -cf - Makefile common host target tools examples docs tests/*.mk tests/stress/*.mk tests/fuzz/*.mk) | tar -xf - -C "$C"
printf 'print-zephyr-base:\n\t@echo "[$(ZEPHYR_BASE)][$(ZEPHYR_MODULES)]"\n' >"$T/print.mk"
dir=$(cd "$C" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u ZEPHYR_BASE -u ZEPHYR_MODULES \
    make --no-print-directory -s -f Makefile -f "$T/print.mk" O="$T/elsewhere/build" \
    print-zephyr-base 2>"$T/print.err")
check default-tree-relative "a clone elsewhere finds a tree at '$dir' $(head -n 1 "$T/print.err")" \
    [ "$dir" = "[][]" ]
# ... and one with a tree beside it (our CI's) finds that one, and its CMSIS.
mkdir -p "$T/elsewhere/shared/thirdparty/zephyr/zephyr" "$T/elsewhere/shared/thirdparty/zephyr/modules/hal/cmsis_6"
dir=$(cd "$C" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u ZEPHYR_BASE -u ZEPHYR_MODULES \
    make --no-print-directory -s -f Makefile -f "$T/print.mk" O="$T/elsewhere/build" \
    print-zephyr-base 2>"$T/print.err")
check default-tree-beside "the tree beside the clone is not the default: '$dir'" \
    [ "$dir" = "[$C/../shared/thirdparty/zephyr/zephyr][$C/../shared/thirdparty/zephyr/modules/hal/cmsis_6]" ]

# zephyr.sh on a build that has no Zephyr firmware, told of no tree.
B=$T/build
mkdir -p "$B/firmware"
ln -s "$CT_NATIVE" "$B/cygtrace"
out=$(ZEPHYR_BASE=/nonexistent CYGTRACE_BUILD="$B" bash "$E2E_DIR/zephyr.sh" 2>&1)
rc=$?
last=$(printf '%s\n' "$out" | tail -n 1)
check script-passes "status $rc: $last" \
    eval '[ "$rc" -eq 0 ] && [[ $last =~ ^zephyr:\ 0\ passed,\ 0\ failed,\ 4\ skipped$ ]]'
missing=
for name in crash kernel live rtt; do
    printf '%s\n' "$out" | grep -q "^skip $name: no Zephyr tree$" || missing="$missing $name"
done
check script-names-skips "not said skipped:$missing" [ -z "$missing" ]
check script-says-where "$(printf '%s\n' "$out" | head -n 1)" \
    eval 'printf "%s\n" "$out" | grep -q "no Zephyr tree at ZEPHYR_BASE=./nonexistent.: set ZEPHYR_BASE to one (docs/zephyr.md)"'

finish
