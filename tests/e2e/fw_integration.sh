#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fw_integration.sh - a user's firmware built the two documented ways, outside the cygtrace
# tree: the project in tests/e2e/integration/ (app.c, fast.c, the board support of
# examples/firmware by path, for mps2-an385) copied to a temp dir and built with make and
# tools/cygtrace.mk, and with CMake and tools/cygtrace.cmake; then both again with the copies
# that "make install" puts in PREFIX/share/cygtrace/. Each firmware runs under QEMU and
# "cygtrace pull" (no --force: the build-id must match) reads its trace: exactly the calls of
# app.c but those of hidden_checksum (excluded by name) and fast.c (excluded as a file), and the
# call into vendor.c, a precompiled library wrapped by the make function / CMake function
# cygtrace_wrap, with its arguments and return value. Built with the runtime's default clock,
# whose cycle counter QEMU does not run: its durations are real all the same (the runtime falls
# back to SysTick); built without that fallback, every output says that the clock did not run.
set -u
. "$(dirname "$0")/lib.sh"

SRC=$E2E_DIR/integration
FW=$ROOT/examples/firmware
need "$CT"
need_qemu
for tool in arm-none-eabi-gcc cmake make; do
    if ! command -v $tool >/dev/null; then
        fail "$E2E_NAME-prerequisites" "$tool is not installed (make deps)"
        finish
    fi
done

# The trace of app.c (tree --style=etrace --no-collapse), the same whichever way it is built.
cat >"$T/expected" <<'EOF'
main
|   app_run
|   |   app_sum
|   |   |   app_scale
|   |   |   app_scale
|   |   |   app_scale
|   |   app_scale
|   |   vendor_crc
EOF

# build TAG CMD...: runs the build command CMD (5 minutes at most, outside any make that runs
# this script) in $T/TAG, a fresh copy of the project; log in $T/TAG.build.
build() {
    local tag=$1 rc
    shift
    rm -rf "${T:?}/$tag"
    cp -r "$SRC" "$T/$tag"
    (cd "$T/$tag" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL timeout 300 "$@") \
        </dev/null >"$T/$tag.build" 2>&1
    rc=$?
    check "$tag-build" "status $rc: $(grep -m1 -i 'error' "$T/$tag.build")" [ "$rc" -eq 0 ]
    return $rc
}

# try TAG ELF CT: the firmware's trace, pulled with the cygtrace binary CT.
try() {
    local tag=$1 elf=$2 ct=$3 fn missing=
    for fn in main app_run app_sum app_scale hidden_checksum fast_mix fast_add vendor_crc \
        __wrap_vendor_crc; do
        arm-none-eabi-nm "$elf" 2>/dev/null | grep -q " T $fn\$" || missing="$missing $fn"
    done
    # Compiled and linked, so that their absence from the trace is the exclusion's doing.
    check "$tag-symbols" "not in the ELF:$missing" [ -z "$missing" ]
    qemu_start "$tag" mps2-an385 "$elf" || return
    if uart_wait "$tag" "app: done"; then
        run "$tag-pull" "$ct" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$elf"
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag-pull.err")" [ "$RC" -eq 0 ]
        run "$tag-info" "$ct" info "$elf" "$T/$tag.dump"
        check "$tag-build-id" "$(grep -m1 '^build-id:' "$T/$tag-info.out")" \
            grep -q '^build-id: *[0-9a-f]\{40\} (matches the ELF)$' "$T/$tag-info.out"
        run "$tag-tree" "$ct" tree --style=etrace --no-collapse "$elf" "$T/$tag.dump"
        grep -v '^#' "$T/$tag-tree.out" >"$T/$tag.calls"
        for fn in main app_run app_sum app_scale; do
            check "$tag-has-$fn" "$fn is not in the trace" grep -q "^[| ]*$fn\$" "$T/$tag.calls"
        done
        for fn in hidden_checksum fast_mix fast_add; do
            check "$tag-no-$fn" "$fn is in the trace, excluded though" \
                eval "! grep -q '$fn' '$T/$tag-tree.out'"
        done
        check "$tag-trace" "status $RC, not the calls of app.c" same "$T/expected" "$T/$tag.calls"
        run "$tag-values" "$ct" tree "$elf" "$T/$tag.dump"
        check "$tag-wrapped-values" "$(grep -m1 vendor_crc "$T/$tag-values.out")" \
            grep -Eq '^ *([0-9.]+ [mun]?s +)?vendor_crc\(v=[0-9]+, tag="app"\) = [0-9]+;$' \
            "$T/$tag-values.out"
        # main's duration, the last line: more than 0 (under QEMU: SysTick, not the DWT's 0)
        check "$tag-durations" "$(grep -m1 -e '} /\* main' -e 'did not run' "$T/$tag-values.out")" \
            grep -Eq '^ *(0\.0*[1-9]|[1-9])[0-9.]* [mun]?s +} /\* main \*/$' "$T/$tag-values.out"
    fi
    qemu_stop
}

# --- from the source tree ----------------------------------------------------------------------
if build make make CYGTRACE_DIR="$ROOT" CYGTRACE_TOOL="$CT"; then
    try make "$T/make/app.elf" "$CT"
fi
if build cmake sh -c 'cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=arm-none-eabi.cmake \
        -DCYGTRACE_CMAKE="$1/tools/cygtrace.cmake" -DFW="$2" -DCYGTRACE_TOOL="$3" &&
        cmake --build build' sh "$ROOT" "$FW" "$CT"; then
    try cmake "$T/cmake/build/app.elf" "$CT"
fi
# Without the fallback (-DCYGTRACE_CM_CLOCK_FALLBACK=0) the cycle counter stays, and QEMU does
# not run it: tree, report, export and info each say so in one line.
STOOD='all timestamps are 0: the clock did not run (DWT off?)'
if build nofallback make CYGTRACE_DIR="$ROOT" CYGTRACE_TOOL="$CT" \
    CYGTRACE_DEFINES=-DCYGTRACE_CM_CLOCK_FALLBACK=0 &&
    qemu_start nofallback mps2-an385 "$T/nofallback/app.elf"; then
    elf=$T/nofallback/app.elf
    uart_wait nofallback "app: done" &&
        run nofallback-pull "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/nofallback.dump" "$elf" &&
        check nofallback-pull "status $RC: $(head -n 1 "$T/nofallback-pull.err")" [ "$RC" -eq 0 ]
    if [ -s "$T/nofallback.dump" ]; then
        run nofallback-tree "$CT" tree "$elf" "$T/nofallback.dump"
        check nofallback-tree "$(tail -n 1 "$T/nofallback-tree.out")" \
            grep -qxF "# $STOOD; durations are not shown" "$T/nofallback-tree.out"
        check nofallback-tree-no-durations "$(grep -m1 ' s ' "$T/nofallback-tree.out")" \
            eval "! grep -q 's  *} /\* main' '$T/nofallback-tree.out'"
        run nofallback-report "$CT" report "$elf" "$T/nofallback.dump"
        check nofallback-report "$(tail -n 1 "$T/nofallback-report.out")" \
            grep -qxF "# $STOOD; only the calls are counted" "$T/nofallback-report.out"
        run nofallback-export "$CT" export --format=chrome -o "$T/nofallback.json" "$elf" \
            "$T/nofallback.dump"
        check nofallback-export "$(head -n 1 "$T/nofallback-export.err")" \
            grep -qxF "cygtrace: note: $STOOD; every duration is 0" "$T/nofallback-export.err"
        run nofallback-info "$CT" info "$elf" "$T/nofallback.dump"
        check nofallback-info "$(grep -m1 '^span:' "$T/nofallback-info.out")" \
            grep -qxF "span:       none: $STOOD" "$T/nofallback-info.out"
    fi
    qemu_stop
fi
# The ELFs differ (their build-ids): pull refuses the other build's without --force.
if [ -f "$T/make/app.elf" ] && [ -f "$T/cmake/build/app.elf" ] &&
    qemu_start cmake-other mps2-an385 "$T/cmake/build/app.elf"; then
    uart_wait cmake-other "app: done" &&
        expect_error cmake-other-build 1 'another build.*--force' \
            "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/other.dump" "$T/make/app.elf"
    qemu_stop
fi

# --- from "make install PREFIX=..." ------------------------------------------------------------
INST=$T/inst
(cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL timeout 300 \
    make --no-print-directory O="$BUILD" install PREFIX="$INST") </dev/null >"$T/install.log" 2>&1
rc=$?
check install "status $rc: $(tail -n 1 "$T/install.log")" [ "$rc" -eq 0 ]
if [ "$rc" -eq 0 ]; then
    SHARE=$INST/share/cygtrace
    if build make-installed make CYGTRACE_DIR="$SHARE" CYGTRACE_MK="$SHARE/cygtrace.mk" \
        FW="$FW"; then
        try make-installed "$T/make-installed/app.elf" "$INST/bin/cygtrace"
    fi
    if build cmake-installed sh -c 'cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=arm-none-eabi.cmake \
            -DCYGTRACE_CMAKE="$1/cygtrace.cmake" -DFW="$2" && cmake --build build' \
            sh "$SHARE" "$FW"; then
        try cmake-installed "$T/cmake-installed/build/app.elf" "$INST/bin/cygtrace"
    fi
    # The installed copies build the runtime from PREFIX/share/cygtrace, not from the tree.
    for tag in make-installed cmake-installed; do
        [ "$tag" = make-installed ] && log=$T/$tag.build || log=$T/$tag/build/CMakeFiles
        check "$tag-runtime" "the runtime is not built from $SHARE, or $ROOT/target is read" \
            eval 'grep -rqF "$SHARE/target/core/cygtrace.c" "$log" &&
                  ! grep -rqF -e "$ROOT/target/" -e "$ROOT/common/" "$log"'
    done
fi

finish
