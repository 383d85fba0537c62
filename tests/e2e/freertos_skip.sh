#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# freertos_skip.sh - a machine without the FreeRTOS kernel (a user's clone: no FREERTOS_DIR, no
# ../shared/thirdparty beside it): the build skips the FreeRTOS example in one line that says
# where to get the kernel, the build's default is a folder relative to the checkout and never
# one of our own machines', and freertos.sh passes with each of its tests said skipped by name.
set -u
. "$(dirname "$0")/lib.sh"

need "$CT"

# The build, told of no kernel: the one line, and success.
out=$(cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    make --no-print-directory O="$BUILD" freertos-firmware FREERTOS_DIR=/nonexistent 2>&1)
rc=$?
check build-skips "status $rc: $out" \
    eval '[ "$rc" -eq 0 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] &&
          printf "%s\n" "$out" | grep -q "SKIP .*FreeRTOS example: no FreeRTOS-Kernel at FREERTOS_DIR=./nonexistent. (get V11 from https://github.com/FreeRTOS/FreeRTOS-Kernel"'

# A clone of the sources elsewhere, with nothing beside it: the default is no kernel at all.
C=$T/elsewhere/cygtrace
mkdir -p "$C"
(cd "$ROOT" && tar -cf - Makefile common host target tools examples docs tests/*.mk tests/stress/*.mk tests/fuzz/*.mk) | tar -xf - -C "$C"
printf 'print-freertos-dir:\n\t@echo "[$(FREERTOS_DIR)]"\n' >"$T/print.mk"
dir=$(cd "$C" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u FREERTOS_DIR \
    make --no-print-directory -s -f Makefile -f "$T/print.mk" O="$T/elsewhere/build" \
    print-freertos-dir 2>"$T/print.err")
check default-kernel-relative "a clone elsewhere finds a kernel at '$dir' $(head -n 1 "$T/print.err")" \
    [ "$dir" = "[]" ]
# ... and one with a kernel beside it (our CI's) finds that one.
mkdir -p "$T/elsewhere/shared/thirdparty/FreeRTOS-Kernel"
dir=$(cd "$C" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u FREERTOS_DIR \
    make --no-print-directory -s -f Makefile -f "$T/print.mk" O="$T/elsewhere/build" \
    print-freertos-dir 2>"$T/print.err")
check default-kernel-beside "the kernel beside the clone is not the default: '$dir'" \
    [ "$dir" = "[$C/../shared/thirdparty/FreeRTOS-Kernel]" ]

# freertos.sh on a build that has no FreeRTOS firmware (as the build above makes none).
B=$T/build
mkdir -p "$B/firmware"
ln -s "$CT_NATIVE" "$B/cygtrace"
out=$(FREERTOS_DIR=/nonexistent CYGTRACE_BUILD="$B" bash "$E2E_DIR/freertos.sh" 2>&1)
rc=$?
last=$(printf '%s\n' "$out" | tail -n 1)
check script-passes "status $rc: $last" \
    eval '[ "$rc" -eq 0 ] && [[ $last =~ ^freertos:\ 0\ passed,\ 0\ failed,\ ([0-9]+)\ skipped$ ]]'
missing=
for name in mps2-an385-crash mps2-an385-wrap microbit-crash live rtt; do
    printf '%s\n' "$out" | grep -q "^skip $name: no FreeRTOS kernel$" || missing="$missing $name"
done
check script-names-skips "not said skipped:$missing" [ -z "$missing" ]
check script-says-where "$(printf '%s\n' "$out" | head -n 1)" \
    eval 'printf "%s\n" "$out" | grep -q "get V11 from https://github.com/FreeRTOS/FreeRTOS-Kernel and set FREERTOS_DIR"'

finish
