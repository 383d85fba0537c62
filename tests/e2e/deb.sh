#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# deb.sh - the Debian package as a user gets it: "make deb" (about 20 s) into $BUILD/deb/, its
# control fields and file list, lintian (skipped when absent), then its files unpacked with
# dpkg -x into a temp root (never installed system-wide) and used from there only: a program
# built with pkg-config against the static and the shared runtime, run, and decoded by the
# packaged cygtrace; cygtrace record with the packaged runtime; find_package(cygtrace) from
# CMake; the make fragment building a Cortex-M runtime and wrappers from the packaged sources
# and tool; the prebuilt Cortex-M runtimes; the man pages and the bash completion.
set -u
. "$(dirname "$0")/lib.sh"

for tool in dpkg-buildpackage dh gcc pkg-config cmake; do
    if ! command -v $tool >/dev/null; then
        fail "$E2E_NAME-prerequisites" "$tool is not installed (make deps)"
        finish
    fi
done

VER=$(sed -n '1s/^[^ ]* (\([^)-]*\).*/\1/p' "$ROOT/debian/changelog")
ARCH=$(dpkg --print-architecture)
DEB=$BUILD/deb/cygtrace_${VER}_$ARCH.deb

# --- make deb --------------------------------------------------------------------------------
touch "$T/start"
start=$(date +%s)
(cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL timeout 600 \
    make --no-print-directory O="$BUILD" deb) </dev/null >"$T/deb.log" 2>&1
rc=$?
echo "    (make deb: $(($(date +%s) - start)) s)"
check make-deb "status $rc: $(tail -n 1 "$T/deb.log")" [ "$rc" -eq 0 -a -f "$DEB" ]
[ -f "$DEB" ] || finish
# Nothing beside the tree, nothing left in the tree's debian/ (the build runs in a copy).
beside=$(find "$(dirname "$ROOT")" -maxdepth 1 -name 'cygtrace*' -newer "$T/start" 2>/dev/null)
left=$(cd "$ROOT/debian" && ls -d files cygtrace .debhelper debhelper-build-stamp \
    cygtrace.substvars tmp 2>/dev/null)
check deb-writes-in-build "written beside the tree: $beside; left in debian/: $left" \
    [ -z "$beside$left" ]

# --- what the package says and holds ---------------------------------------------------------
dpkg-deb -f "$DEB" Package Version Architecture Depends >"$T/fields"
check deb-fields "$(tr '\n' '|' <"$T/fields")" \
    eval 'grep -qx "Package: cygtrace" "$T/fields" && grep -qx "Version: $VER" "$T/fields" &&
          grep -qx "Architecture: $ARCH" "$T/fields" && grep -q "^Depends: .*libc6" "$T/fields"'
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\./||' >"$T/files"
want="usr/bin/cygtrace usr/lib/libcygtrace.a usr/lib/libcygtrace.so
      usr/lib/pkgconfig/cygtrace.pc usr/lib/pkgconfig/cygtrace-static.pc
      usr/include/cygtrace/cygtrace.h usr/include/cygtrace/cygtrace_wrap.h
      usr/include/cygtrace/cyg_format.h usr/include/cygtrace/cygtrace_cm.h
      usr/include/cygtrace/cygtrace_config.h usr/include/cygtrace/cygtrace_rtt.h
      usr/lib/cmake/cygtrace/cygtrace-config.cmake
      usr/lib/cmake/cygtrace/cygtrace-config-version.cmake
      usr/share/cygtrace/cygtrace.mk usr/share/cygtrace/cygtrace.cmake
      usr/share/cygtrace/cygtrace.gdb usr/share/cygtrace/target/core/cygtrace.c
      usr/share/cygtrace/target/cortex-m/cygtrace_cm.c usr/share/cygtrace/common/crc32.c
      usr/share/cygtrace/target/core/cygtrace_static.c
      usr/share/cygtrace/target/riscv/cygtrace_rv.c
      usr/share/cygtrace/target/rtos/freertos/cygtrace_freertos.h
      usr/share/cygtrace/target/rtos/freertos/cygtrace_freertos.c
      usr/share/cygtrace/target/rtos/freertos/freertos.mk
      usr/share/doc/cygtrace/copyright"
for core in cortex-m0 cortex-m3 cortex-m4f cortex-m7 cortex-m33; do
    want="$want usr/lib/cygtrace/$core/libcygtrace.a"
done
missing=
for f in $want; do
    grep -qx "$f" "$T/files" || missing="$missing $f"
done
check deb-files "not in the package:$missing" [ -z "$missing" ]

if command -v lintian >/dev/null; then
    lintian --fail-on error,warning "$DEB" >"$T/lintian.out" 2>&1
    rc=$?
    check lintian "status $rc: $(head -n 3 "$T/lintian.out" | tr '\n' '|')" [ "$rc" -eq 0 ]
else
    echo "skip lintian: not installed (make deps)"
fi

# --- unpacked into a temp root ---------------------------------------------------------------
R=$T/root
U=$R/usr
dpkg -x "$DEB" "$R"
RCT=$U/bin/cygtrace
run version "$RCT" --version
check packaged-tool "status $RC: $(head -n 1 "$T/version.err")" [ "$RC" -eq 0 ]

cat >"$T/app.c" <<'EOF'
#include <stdio.h>

#include "cygtrace.h"

static int leaf(int x)
{
    return x * 3;
}

static int branch(int x)
{
    cygtrace_mark(7, (uintptr_t)x);
    return leaf(x) + leaf(x + 1);
}

int main(void)
{
    printf("%d\n", branch(2));
    return 0;
}
EOF

# Only the temp root's .pc files (PKG_CONFIG_LIBDIR replaces the default search path); the
# words without pkg-config's trailing space.
pc() {
    local out
    out=$(PKG_CONFIG_LIBDIR=$U/lib/pkgconfig pkg-config --define-prefix "$@") || return
    # shellcheck disable=SC2086 # split and joined by one space, on purpose
    echo $out
}

# traced TAG ELF [ENV...]: runs ELF (with ENV), its ring in $T/TAG.trace, and decodes it with
# the packaged tool; checks the calls of app.c are in the tree.
traced() {
    local tag=$1 elf=$2
    shift 2
    run "$tag-run" env CYGTRACE_OUT="$T/$tag.trace" "$@" "$elf"
    check "$tag-run" "status $RC, output $(head -c 40 "$T/$tag-run.out")" \
        eval '[ "$RC" -eq 0 ] && [ "$(cat "$T/$tag-run.out")" = 15 ]'
    run "$tag-tree" "$RCT" tree "$elf" "$T/$tag.trace"
    check "$tag-tree" "status $RC: $(head -n 1 "$T/$tag-tree.err")" \
        eval '[ "$RC" -eq 0 ] && grep -q "main() {" "$T/$tag-tree.out" &&
              grep -q "branch() {" "$T/$tag-tree.out" && grep -q "leaf(); x2" "$T/$tag-tree.out"'
}

JMP_WRAP=-Wl,--wrap=_setjmp,--wrap=setjmp,--wrap=__sigsetjmp,--wrap=longjmp,--wrap=_longjmp,--wrap=siglongjmp,--wrap=__longjmp_chk
cflags=$(pc --cflags cygtrace-static)
libs=$(pc --libs cygtrace-static)
check pc-static "cflags '$cflags', libs '$libs'" \
    [ "$cflags" = "-I$U/include/cygtrace" -a "$libs" = "-L$U/lib -l:libcygtrace.a -lpthread $JMP_WRAP" ]
check pc-version "$(pc --modversion cygtrace)" [ "$(pc --modversion cygtrace)" = "$VER" ]
# shellcheck disable=SC2086
if gcc -finstrument-functions -g -O1 -fno-inline $cflags -o "$T/app-static" "$T/app.c" $libs \
    2>"$T/gcc-static.err"; then
    check static-no-so "app-static needs libcygtrace.so" \
        eval '! readelf -d "$T/app-static" | grep -q "libcygtrace"'
    traced static "$T/app-static"
else
    fail static-build "$(head -n 1 "$T/gcc-static.err")"
fi
cflags=$(pc --cflags cygtrace)
libs=$(pc --libs cygtrace)
# shellcheck disable=SC2086
if gcc -finstrument-functions -g -O1 -fno-inline $cflags -o "$T/app-shared" "$T/app.c" $libs \
    2>"$T/gcc-shared.err"; then
    check shared-needs-so "app-shared does not need libcygtrace.so" \
        eval 'readelf -d "$T/app-shared" | grep -q "NEEDED.*\[libcygtrace.so\]"'
    traced shared "$T/app-shared" LD_LIBRARY_PATH="$U/lib"
else
    fail shared-build "$(head -n 1 "$T/gcc-shared.err")"
fi

# cygtrace record preloads the packaged runtime, found beside the packaged tool (../lib).
cat >"$T/plain.c" <<'EOF'
#include <stdio.h>
static int leaf(int x) { return x * 3; }
static int branch(int x) { return leaf(x) + leaf(x + 1); }
int main(void) { printf("%d\n", branch(2)); return 0; }
EOF
if gcc -finstrument-functions -g -O1 -fno-inline -o "$T/plain" "$T/plain.c" 2>"$T/gcc-plain.err"
then
    run record "$RCT" record -o "$T/record.trace" -- "$T/plain"
    run record-tree "$RCT" tree "$T/plain" "$T/record.trace"
    check record "status $RC: $(head -n 1 "$T/record.err") $(head -n 1 "$T/record-tree.err")" \
        eval '[ "$RC" -eq 0 ] && grep -q "branch() {" "$T/record-tree.out"'
else
    fail record-build "$(head -n 1 "$T/gcc-plain.err")"
fi

# --- find_package(cygtrace) --------------------------------------------------------------------
mkdir -p "$T/cm"
cp "$T/app.c" "$T/cm/app.c"
cat >"$T/cm/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(deb_cmake C)
find_package(cygtrace 0.1 REQUIRED)
message(STATUS "cygtrace_DIR=${cygtrace_DIR}")
message(STATUS "CYGTRACE_DIR=${CYGTRACE_DIR}")
message(STATUS "CYGTRACE_TOOL=${CYGTRACE_TOOL}")
message(STATUS "CYGTRACE_CORES=${CYGTRACE_CORES}")
# The prebuilt static runtime, instrumented by hand.
add_executable(app-imported app.c)
target_compile_options(app-imported PRIVATE -finstrument-functions -O1 -fno-inline -g)
target_link_libraries(app-imported PRIVATE cygtrace::static)
# The runtime built from PREFIX/share/cygtrace by cygtrace_instrument.
add_executable(app-instrumented app.c)
target_compile_options(app-instrumented PRIVATE -O1 -fno-inline -g)
cygtrace_instrument(app-instrumented PORT linux)
EOF
(cd "$T/cm" && timeout 300 cmake -S . -B build -DCMAKE_PREFIX_PATH="$U" &&
    timeout 300 cmake --build build) </dev/null >"$T/cmake.log" 2>&1
rc=$?
check cmake-build "status $rc: $(grep -m1 -i 'error' "$T/cmake.log")" [ "$rc" -eq 0 ]
check cmake-found-in-root "$(grep -E 'cygtrace_DIR|CYGTRACE_(DIR|TOOL|CORES)' "$T/cmake.log" |
    tr '\n' '|')" \
    eval 'grep -qx -- "-- cygtrace_DIR=$U/lib/cmake/cygtrace" "$T/cmake.log" &&
          grep -qx -- "-- CYGTRACE_DIR=$U/share/cygtrace" "$T/cmake.log" &&
          grep -qx -- "-- CYGTRACE_TOOL=$U/bin/cygtrace" "$T/cmake.log" &&
          grep -qx -- "-- CYGTRACE_CORES=cortex-m0;cortex-m3;cortex-m4f;cortex-m7;cortex-m33" \
              "$T/cmake.log"'
if [ "$rc" -eq 0 ]; then
    traced cmake-imported "$T/cm/build/app-imported"
    traced cmake-instrumented "$T/cm/build/app-instrumented"
    check cmake-runtime-from-root "the runtime is not built from $U/share/cygtrace" \
        eval 'grep -rqF "$U/share/cygtrace/target/core/cygtrace.c" "$T/cm/build/CMakeFiles" &&
              ! grep -rqF -e "$ROOT/target/" -e "$ROOT/common/" "$T/cm/build/CMakeFiles"'
fi

# --- the make fragment: a Cortex-M3 runtime and a library's wrappers from the packaged files ---
if command -v arm-none-eabi-gcc >/dev/null; then
    mkdir -p "$T/mk"
    cat >"$T/mk/vendor.c" <<'EOF'
int vendor_mix(int a, int b) { return a * 31 + b; }
EOF
    cat >"$T/mk/app.c" <<'EOF'
#include "cygtrace_cm.h"
int vendor_mix(int a, int b);
int app_step(int x) { return vendor_mix(x, 2); }
EOF
    cat >"$T/mk/Makefile" <<'EOF'
CC := arm-none-eabi-gcc
CYGTRACE_CPU := -mcpu=cortex-m3 -mthumb
include $(CYGTRACE_DIR)/cygtrace.mk
$(call cygtrace_wrap,libvendor.a,wrap/vendor)
all: app.o $(CYGTRACE_LIB) $(CYGTRACE_WRAP_OBJS)
app.o: app.c
	$(CC) $(CYGTRACE_CPU) -g -O1 $(CYGTRACE_CFLAGS) -c $< -o $@
libvendor.a: vendor.c
	$(CC) $(CYGTRACE_CPU) -g -O1 -c $< -o vendor.o && arm-none-eabi-ar rcs $@ vendor.o
EOF
    (cd "$T/mk" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL timeout 300 \
        make CYGTRACE_DIR="$U/share/cygtrace") </dev/null >"$T/mk.log" 2>&1
    rc=$?
    check make-fragment "status $rc: $(grep -m1 -i 'error' "$T/mk.log")" [ "$rc" -eq 0 ]
    check make-fragment-from-root "not built from $U, or with another tool: $(grep -m1 wrap "$T/mk.log")" \
        eval 'grep -qF "$U/share/cygtrace/target/core/cygtrace.c" "$T/mk.log" &&
              grep -qF "$U/share/cygtrace/../../bin/cygtrace wrap" "$T/mk.log" &&
              ! grep -qF -e "$ROOT/target/" -e "$ROOT/common/" "$T/mk.log"'
    check make-fragment-wrapped "no __wrap_vendor_mix in wrap/vendor/cygtrace_wrap.o" \
        eval 'arm-none-eabi-nm "$T/mk/wrap/vendor/cygtrace_wrap.o" 2>/dev/null |
              grep -q " T __wrap_vendor_mix$"'
    bad=
    for core in cortex-m0 cortex-m3 cortex-m4f cortex-m7 cortex-m33; do
        arm-none-eabi-nm "$U/lib/cygtrace/$core/libcygtrace.a" 2>/dev/null |
            grep -q ' T cygtrace_cm_init$' || bad="$bad $core"
    done
    check prebuilt-cores "no cygtrace_cm_init in:$bad" [ -z "$bad" ]
else
    echo "skip make-fragment: arm-none-eabi-gcc is not installed (make deps)"
fi

# --- man pages, completion ------------------------------------------------------------------
if [ -f "$ROOT/docs/man/man.mk" ]; then
    missing=
    for txt in "$ROOT"/docs/man/*.txt; do
        page=$(basename "$txt" .txt)
        [ "$page" = cygtrace-runtime ] && sec=3 || sec=1
        f=$U/share/man/man$sec/$page.$sec.gz
        gzip -dc "$f" 2>/dev/null | grep -q '^\.TH ' || missing="$missing $page.$sec"
    done
    check man-pages "missing or not man(7):$missing" \
        [ -z "$missing" -a -f "$U/share/man/man1/cygtrace.1.gz" ]
else
    echo "skip man-pages: no docs/man/man.mk"
fi
if [ -f "$ROOT/tools/cygtrace.bash" ]; then
    check bash-completion "not in usr/share/bash-completion/completions/cygtrace" \
        cmp -s "$ROOT/tools/cygtrace.bash" "$U/share/bash-completion/completions/cygtrace"
else
    echo "skip bash-completion: no tools/cygtrace.bash"
fi

finish
