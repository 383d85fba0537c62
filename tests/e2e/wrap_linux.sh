#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# wrap_linux.sh - a Linux program's calls into precompiled code, traced through the wrappers
# `cygtrace wrap` wrote (examples/wrap: libvend.a from its DWARF, open/read/close/malloc/free
# from libc.sig), as every output shows them: the tree with arguments and return values, line
# for line; --no-args; --srcline naming the wrapped function's source; the chrome export's
# args; report's names; info's count of the table. Then the table taken away, and made junk:
# the calls and their values still show.
set -u
. "$(dirname "$0")/lib.sh"

DEMO=$BUILD/examples/wrap/wrapdemo
need "$CT" "$DEMO"

not_any() {
    ! grep -Eq "$@"
}

cp "$DEMO" "$T/wrapdemo"
(cd "$T" && CYGTRACE_OUT="$T/demo.trace" timeout 20 ./wrapdemo </dev/null >"$T/demo.out" 2>&1)
check run "wrapdemo failed: $(head -n 1 "$T/demo.out")" [ -s "$T/demo.trace" ]

# Addresses and the register open's third argument happens to hold change from run to run.
norm() {
    sed -E -e 's/0x[0-9a-f]{6,}/0xADDR/g' -e 's/mode=[0-9]+/mode=N/'
}

run tree "$CT" tree "$T/wrapdemo" "$T/demo.trace"
# (its first line says that the durations are corrected for the hooks' cost: not a value's)
check tree-hook-note "first line: $(head -n 1 "$T/tree.out")" \
    grep -q '^# durations corrected for hook cost: ' <(head -n 1 "$T/tree.out")
sed -i 1d "$T/tree.out"
tree_body "$T/tree.out" | norm >"$T/tree.body"
cat >"$T/tree.want" <<'EOF_TREE'
main() {
  show_vend() {
    vend_name(id=9) = NULL;
    vend_add(a=2, b=3) = 5;
    vend_add(a=-7, b=2147483647) = 2147483640;
    vend_name(id=1) = "one";
    vend_name(id=2) = "a name longer than the thirty-tw"...;
    vend_scale(v=1.5, k=3) = 4.5;
    vend_scale(v=-0.1, k=7) = -0.7;
    vend_dist(p=0xADDR) = 7;
    vend_reset();
    vend_set_mode(m=VEND_FAST) = VEND_OFF;
    vend_set_mode(m=VEND_BROKEN) = VEND_FAST;
    vend_set_mode(m=VEND_SLOW) = VEND_BROKEN;
    vend_paint(c=VEND_BLUE, level=200) = 4200;
    vend_mix64(x=1311768467463790320, y=-5) = 1311768465054264623;
    vend_mix64(x=9223372036854775808, y=4611686018427387904) = 13835058072462032896;
    vend_half(f=3) = 1.5;
    vend_is_even(v=7) = false;
    vend_is_even(v=4) = true;
    vend_upper(c='q') = 'Q';
    vend_len(s=NULL) = 0;
    vend_len(s="hello") = 5;
    vend_checksum(data=0xADDR, n=4) = 4180939907;
    vend_apply(f=0xADDR, v=21) {
      twice();
    } = 42; /* vend_apply */
  } /* show_vend */
  show_libc() {
    malloc(size=64) = 0xADDR;
    open(path="./wrapdemo", flags=0, mode=N) = 3;
    read(fd=3, buf=0xADDR, count=4) = 4;
    close(fd=3) = 0;
    open(path="/nonexistent/wrapdemo", flags=0, mode=N) = -1;
    free(ptr=0xADDR);
  } /* show_libc */
} /* main */
EOF_TREE
check tree-values "the tree differs" same "$T/tree.want" "$T/tree.body"
check tree-no-stray "a value's line or note: $(grep -m1 '^#' "$T/tree.out")" \
    not_any '^#' "$T/tree.out"

run noargs "$CT" tree --no-args "$T/wrapdemo" "$T/demo.trace"
check no-args "values shown, or calls lost" \
    eval 'grep -q "^ *[0-9.]* [nu]s *vend_add();" "$T/noargs.out" &&
          ! grep -q "vend_add(a=" "$T/noargs.out" && grep -q "open();" "$T/noargs.out"'

# The wrapped function's own source line, not the generated wrapper's.
run srcline "$CT" tree --srcline "$T/wrapdemo" "$T/demo.trace"
check srcline "no vend.c line for vend_add: $(grep -m1 'vend_add' "$T/srcline.out")" \
    grep -Eq 'vend_add\(a=2, b=3\) = 5 \[vend\.c:[0-9]+\];' "$T/srcline.out"
check srcline-no-wrapper "the generated file named" not_any 'cygtrace_wrap\.c' "$T/srcline.out"

run sig "$CT" tree --signatures --no-args "$T/wrapdemo" "$T/demo.trace"
check signatures-no-args "$(grep -m1 'vend_add' "$T/sig.out")" \
    grep -Eq 'vend_add\(int a, int b\); x2$' "$T/sig.out"

run chrome "$CT" export --format=chrome "$T/wrapdemo" "$T/demo.trace"
check chrome-args "no args on vend_add's begin: $(grep -m1 vend_add "$T/chrome.out")" \
    grep -q '"name":"vend_add","args":{"a":"2","b":"3"}}' "$T/chrome.out"
check chrome-return "no return on vend_name's end" \
    grep -q '"name":"vend_name","args":{"return":"\\"one\\""}}' "$T/chrome.out"

run info "$CT" info "$T/wrapdemo" "$T/demo.trace"
check info-wrappers "no wrappers line: $(grep -m1 wrapp "$T/info.out")" \
    grep -Eq '^wrappers: +19 functions described' "$T/info.out"

# The report names wrapped functions as the calls they wrap.
run report "$CT" report "$T/wrapdemo" "$T/demo.trace"
check report-names "no vend_add row, or a __wrap_ name" \
    eval 'grep -Eq " vend_add$" "$T/report.out" && ! grep -q __wrap_ "$T/report.out"'

# Two threads calling wrapped functions into a small ring that laps many times (its newest
# records may be one thread's only: which one is the scheduler's choice): every value shown is
# its own call's (a value whose call's entry was overwritten goes to no call, not to
# the one below it), so each vend_add line adds up and each vend_name names its id.
cat >"$T/threads.c" <<'EOF_C'
#include <pthread.h>
#include "vend.h"
static void *work(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < 20000; i++) {
        vend_add(i, t);
        vend_name(i % 4);
    }
    return 0;
}
int main(void)
{
    pthread_t a, b;
    pthread_create(&a, 0, work, (void *)1L);
    pthread_create(&b, 0, work, (void *)2L);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
EOF_C
W=$BUILD/examples/wrap
run threads-ld gcc -g -O1 -finstrument-functions -I"$ROOT/examples/wrap" -o "$T/threads" \
    "$T/threads.c" "$W/vend/cygtrace_wrap.o" "$W/libvend.a" @"$W/vend/cygtrace_wrap.flags" \
    "$BUILD/linux/libcygtrace.a" -lpthread
(cd "$T" && CYGTRACE_OUT="$T/threads.trace" CYGTRACE_SIZE=64K timeout 20 ./threads \
    </dev/null >/dev/null 2>&1)
run threads-tree "$CT" tree "$T/threads" "$T/threads.trace"
# checked_lines FILE: "N" lines checked, or "BAD: line" for the first that does not add up
checked_lines() {
    awk '
        match($0, /vend_add\(a=-?[0-9]+, b=-?[0-9]+\) = -?[0-9]+;/) {
            split(substr($0, RSTART, RLENGTH), f, /[=,)]/)
            if (f[2] + f[4] != f[6] + 0) { print "BAD: " $0; exit }
            n++
        }
        match($0, /vend_name\(id=[0-9]+\) = [^;]*;/) {
            s = substr($0, RSTART, RLENGTH); id = s; sub(/^vend_name\(id=/, "", id); id += 0
            want = id == 0 ? "\"zero\"" : id == 1 ? "\"one\"" : id == 2 ? "\"a name" : "NULL"
            if (index(s, ") = " want) == 0) { print "BAD: " $0; exit }
            n++
        }
        /vend_(add|name)\([^)]*\?/ { print "BAD: " $0; exit }
        END { if (n) print n }' "$1"
}
res=$(checked_lines "$T/threads-tree.out")
check threads-values "status $RC, $res" \
    eval '[ "$RC" -eq 0 ] && [[ $res =~ ^[0-9]+$ ]] && [ "$res" -gt 100 ] &&
          grep -Eq "^# thread [23] " "$T/threads-tree.out"'

# Without the table (strip it), values still show, unnamed; enums as numbers.
objcopy --remove-section=.cygtrace_wrap "$T/wrapdemo" "$T/notable" 2>/dev/null
run notable "$CT" tree "$T/notable" "$T/demo.trace"
check no-table "values without names: $(grep -m1 'vend_add' "$T/notable.out")" \
    eval 'grep -q "vend_add(2, 3) = 5;" "$T/notable.out" &&
          grep -q "vend_set_mode(7) = 0;" "$T/notable.out"'

# A table of junk: its lines are skipped and counted; the tree still shows every call.
printf 'cygtrace-wrap 1\nF\tvend_add\t99\tint\t-\tint\nP\tjunk\nE\n\001\002\n' >"$T/junk.sec"
objcopy --remove-section=.cygtrace_wrap --add-section .cygtrace_wrap="$T/junk.sec" \
    "$T/wrapdemo" "$T/junk" 2>/dev/null
run junk-info "$CT" info "$T/junk" "$T/demo.trace"
check junk-counted "$(grep -m1 wrapp "$T/junk-info.out")" \
    grep -q 'wrappers: *0 functions described (cygtrace wrap), 4 malformed lines' "$T/junk-info.out"
run junk-tree "$CT" tree "$T/junk" "$T/demo.trace"
check junk-tree "status $RC, or calls missing" \
    eval '[ "$RC" -eq 0 ] && grep -q "vend_add(2, 3) = 5;" "$T/junk-tree.out"'

finish
