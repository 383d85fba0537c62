#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# v4_linux.sh - version 4 rings of 64-bit Linux (CYGTRACE_FORMAT=4, docs/FORMAT.md section 15):
# one 8-byte word a call. A program with two threads, an object far from its own code (a
# dlopen'd library) and marks is recorded in version 3 and in version 4: the trees are the same
# call for call, the version 4 file is half the records' bytes for twice the records, info says
# which it is; a setting it cannot use is said and left at 3; call sites keep version 3; a
# block of a layout this host does not know is one line. Then the stress and kill -9 trials in
# version 4, shortened (V4_STRESS_EVENTS, V4_CRASH_TRIALS): records never torn nor invented,
# the live reader's accounting.
set -u
. "$(dirname "$0")/lib.sh"

need "$CT"
if [ ! -e "$BUILD/linux/libcygtrace.a" ] || [ "$(getconf LONG_BIT)" != 64 ]; then
    skip "$E2E_NAME" "needs the 64-bit Linux runtime"
    finish
fi

cat >"$T/plug.c" <<'EOF'
int plug_leaf(int x) { return x * 7; }
int plug_call(int x) { return plug_leaf(x) + 1; }
EOF
cat >"$T/prog.c" <<'EOF'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "cygtrace.h"

int leaf(int x) { return x + 1; }
int mid(int x) { return leaf(x) * 2; }
static void *worker(void *arg)
{
    long n = (long)arg, acc = 0;
    for (long i = 0; i < n; i++)
        acc += mid((int)i);
    return (void *)acc;
}
int main(int argc, char **argv)
{
    pthread_t t;
    void *h = dlopen(argc > 1 ? argv[1] : "./plug.so", RTLD_NOW);
    int (*pc)(int) = h ? (int (*)(int))dlsym(h, "plug_call") : 0;
    long acc = 0;

    pthread_create(&t, NULL, worker, (void *)300L);
    for (int i = 0; i < 200; i++)
        acc += mid(i) + (pc ? pc(i) : 0);
    cygtrace_mark(5, (uintptr_t)0x123456789abcdef0u);
    pthread_join(t, NULL);
    printf("done %ld\n", acc);
    return 0;
}
EOF
if ! gcc -O1 -fno-inline -finstrument-functions -shared -fPIC -o "$T/plug.so" "$T/plug.c" \
        2>"$T/cc.err" ||
    ! gcc -O1 -fno-inline -finstrument-functions -g -I"$ROOT/target/core" -o "$T/prog" \
        "$T/prog.c" "$BUILD/linux/libcygtrace.a" -lpthread -ldl 2>>"$T/cc.err"; then
    fail build "$(head -n 1 "$T/cc.err")"
    finish
fi

for f in 3 4; do
    run "rec$f" env CYGTRACE_FORMAT=$f CYGTRACE_SIZE=64K CYGTRACE_OUT="$T/v$f.ring" "$T/prog" \
        "$T/plug.so"
    check "rec$f-runs" "status $RC: $(head -n 1 "$T/rec$f.err")" \
        eval '[ "$RC" -eq 0 ] && grep -qx "done [0-9]*" "$T/rec$f.out" && [ ! -s "$T/rec$f.err" ]'
    run "info$f" "$CT" info "$T/prog" "$T/v$f.ring"
    for th in 1 2; do
        run "tree$f-$th" "$CT" tree --no-collapse --thread=$th "$T/prog" "$T/v$f.ring"
        tree_body "$T/tree$f-$th.out" | grep -v '^#' >"$T/body$f-$th"
    done
done

check info4-format "$(sed -n 2p "$T/info4.out")" \
    grep -q '^format: *version 4, x86-64, 8-byte records' "$T/info4.out"
check info3-format "$(sed -n 2p "$T/info3.out")" \
    grep -q '^format: *version 3, x86-64, 16-byte records' "$T/info3.out"
c3=$(sed -n 's/^capacity: *\([0-9]*\) records (65536 bytes)$/\1/p' "$T/info3.out")
c4=$(sed -n 's/^capacity: *\([0-9]*\) records (65536 bytes)$/\1/p' "$T/info4.out")
check capacity "version 3 holds ${c3:-?} records, version 4 ${c4:-?}, in the same 64K" \
    eval '[ -n "$c3" ] && [ "${c4:-0}" -eq $((2 * c3)) ]'
size4=$(stat -c %s "$T/v4.ring")
check file-size "$size4 bytes: not 128 + 64K + 256 + 128" [ "$size4" -eq $((128 + 65536 + 256 + 128)) ]
for th in 1 2; do
    check "tree-$th-same" "thread $th's tree differs" same "$T/body3-$th" "$T/body4-$th"
    check "tree-$th-calls" "thread $th's tree holds no mid()" grep -q 'mid()' "$T/body4-$th"
done
check plug-named "the dlopen'd library's calls are not named" grep -q 'plug_call() {' "$T/body4-1"
check mark "the mark's 64-bit value is not in the tree" \
    grep -q -i 'mark 5.*0x123456789abcdef0' "$T/tree4-1.out"
held3=$(sed -n 's/^held: *\([0-9]*\) records.*/\1/p' "$T/info3.out")
held4=$(sed -n 's/^held: *\([0-9]*\) records.*/\1/p' "$T/info4.out")
check held "held ${held3:-?} records in version 3, ${held4:-?} in 4" \
    eval '[ -n "$held3" ] && [ "$held3" = "$held4" ]'

# a setting it cannot use: one line, and the default it says (3, or 4 in a runtime built with
# -DCYGTRACE_LINUX_FORMAT=4)
run bogus env CYGTRACE_FORMAT=5 CYGTRACE_OUT="$T/bogus.ring" "$T/prog" "$T/plug.so"
check bogus-said "stderr: $(head -n 2 "$T/bogus.err" | tr '\n' '|')" \
    eval '[ "$(wc -l <"$T/bogus.err")" -eq 1 ] && grep -Eq "CYGTRACE_FORMAT is neither 3 nor 4; using [34]$" "$T/bogus.err"'
said=$(sed -n 's/.*; using \([34]\)$/\1/p' "$T/bogus.err")
run bogus-info "$CT" info "$T/prog" "$T/bogus.ring"
check bogus-default "$(sed -n 2p "$T/bogus-info.out"), said ${said:-?}" \
    grep -q "^format: *version ${said:-x}," "$T/bogus-info.out"
# call sites keep version 3's four words
run sites env CYGTRACE_FORMAT=4 CYGTRACE_CALLSITES=1 CYGTRACE_OUT="$T/sites.ring" "$T/prog" \
    "$T/plug.so"
run sites-info "$CT" info "$T/prog" "$T/sites.ring"
check sites-v3 "$(sed -n 2p "$T/sites-info.out")" \
    grep -q '^format: *version 3, x86-64, 32-byte records, timestamps, call sites' \
    "$T/sites-info.out"

# a version 4 block of a layout this host does not know (its region size, byte 117: outside
# the check, so nothing to seal again)
python3 - "$T/v4.ring" "$T/odd.ring" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[117] = 20
open(sys.argv[2], 'wb').write(d)
EOF
expect_error odd-layout 1 'odd.ring: .*version 4 layout this cygtrace does not know' \
    "$CT" info "$T/prog" "$T/odd.ring"
head -c 100 "$T/v4.ring" >"$T/short.ring"
expect_error short 1 'short.ring: .*too short' "$CT" info "$T/short.ring"

# The stress and kill -9 trials, in version 4, shortened.
SCRIPTS=$(dirname "$0")
if CYGTRACE_FORMAT=4 STRESS_EVENTS=${V4_STRESS_EVENTS:-2000000} CYGTRACE_BUILD=$BUILD \
    bash "$SCRIPTS/stress_linux.sh" >"$T/stress.log" 2>&1; then
    pass stress
else
    fail stress "$(grep -m 3 '^FAIL' "$T/stress.log" | tr '\n' '|')"
fi
if CYGTRACE_FORMAT=4 STRESS_TRIALS=${V4_CRASH_TRIALS:-10} CYGTRACE_BUILD=$BUILD \
    bash "$SCRIPTS/crash_linux.sh" >"$T/crash.log" 2>&1; then
    pass crash
else
    fail crash "$(grep -m 3 '^FAIL' "$T/crash.log" | tr '\n' '|')"
fi
finish
