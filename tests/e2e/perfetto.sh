#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# perfetto.sh - export --format=perfetto read back by protoc against Perfetto's own
# perfetto_trace.proto (PERFETTO_PROTO_DIR, ../shared/thirdparty/perfetto next to the checkout
# by default), replayed by pftrace.awk as the trace processor would: each track's slices
# balanced, in the file's order and in time order, and nested as the tree nests the calls
# (crumble, with its source locations), a track per thread named as the tree heads it
# (hardcases threads), the calls entered before a lapped ring on a track of their own,
# outermost first (hardcases wrap), a wrapped call's arguments and return value as debug
# annotations (wrapdemo), and on FreeRTOS under QEMU the CPU track, the blocked tracks and the
# fault as an instant event; its bytes against the Chrome JSON's.
# Without protoc or the proto file, each test says by name that it is skipped.
. "$(dirname "$0")/lib.sh"

need "$CT" "$BUILD/examples/crumble" "$BUILD/examples/hardcases" "$BUILD/examples/ticker"
PROTO_DIR=${PERFETTO_PROTO_DIR:-$ROOT/../shared/thirdparty/perfetto}
TESTS="crumble threads merged lapped wrap freertos size"
why=
command -v protoc >/dev/null || why="protoc is not installed (make deps: protobuf-compiler)"
[ -n "$why" ] || [ -f "$PROTO_DIR/perfetto_trace.proto" ] ||
    why="no perfetto_trace.proto in PERFETTO_PROTO_DIR='$PROTO_DIR'"
if [ -n "$why" ]; then
    for t in $TESTS; do
        skip "$t" "$why"
    done
    finish
fi

# pf_read TAG FILE: FILE decoded by protoc and replayed into $T/TAG.facts (pftrace.awk's lines);
# checks that protoc took it and that no reader would find fault with it.
pf_read() {
    if ! protoc --decode=perfetto.protos.Trace -I "$PROTO_DIR" "$PROTO_DIR/perfetto_trace.proto" \
        <"$2" >"$T/$1.txt" 2>"$T/$1.protoc"; then
        fail "$1-protoc" "protoc cannot decode it: $(head -n 2 "$T/$1.protoc" | tr '\n' '|')"
        : >"$T/$1.facts"
        return
    fi
    pass "$1-protoc"
    PF_FACTS=$T/$1.facts
    awk -f "$E2E_DIR/pftrace.awk" "$T/$1.txt" >"$PF_FACTS"
    check "$1-balanced" "$(grep -m 3 '^ERR\|^OPEN' "$PF_FACTS" | tr '\n' '|')" \
        eval '! grep -q "^ERR\|^OPEN" "$PF_FACTS" && grep -q "^B " "$PF_FACTS"'
    time_order "$PF_FACTS" >"$T/$1.order"
    check "$1-time-order" "$(head -n 3 "$T/$1.order" | tr '\n' '|')" [ ! -s "$T/$1.order" ]
}

# time_order FACTS: the trace processor sorts the events by time: each track's begins and ends
# in time order (ties in the file's order) must still nest; prints the ends that do not.
time_order() {
    grep '^[BE] ' "$1" | awk '{ print NR, $0 }' | sort -s -k3,3n -k5,5n | awk '
        { tr = $3; nm = $6; for (i = 7; i <= NF; i++) nm = nm " " $i }
        $2 == "B" { st[tr, ++d[tr]] = nm; next }
        d[tr] < 1 || st[tr, d[tr]] != nm { print "out of order:", $0; if (++bad > 3) exit; next }
        { d[tr]-- }'
}

# track_of TAG NAME: the uuid of the track named NAME.
track_of() {
    awk -v n="$2" '$1 == "T" { u = $2; sub(/^T [0-9]+ /, ""); if ($0 == n) { print u; exit } }' \
        "$T/$1.facts"
}

# --- crumble: nesting equal to the tree's, source locations ------------------------------------
CR=$BUILD/examples/crumble
run crumble env CYGTRACE_OUT="$T/crumble.trace" "$CR"
run crumble-export "$CT" export --format=perfetto --srcline "$CR" "$T/crumble.trace" -o "$T/c.pftrace"
check crumble-export "status $RC: $(head -n 1 "$T/crumble-export.err")" [ "$RC" -eq 0 ]
pf_read crumble "$T/c.pftrace"
# "DEPTH NAME" of every call, in order: the tree's (2 spaces a level), the trace's begins.
run crumble-tree "$CT" tree --no-collapse "$CR" "$T/crumble.trace"
tree_body "$T/crumble-tree.out" |
    awk '/^[#*]/ || /^ *}/ || /^$/ { next }
         { match($0, /^ */); n = $0; sub(/^ */, "", n); sub(/\(.*/, "", n); print RLENGTH / 2, n }' \
        >"$T/crumble.tree-nest"
awk '$1 == "B" { print $3 - 1, $5 }' "$T/crumble.facts" >"$T/crumble.pf-nest"
check crumble-nesting "$(diff "$T/crumble.tree-nest" "$T/crumble.pf-nest" | head -4 | tr '\n' '|')" \
    same "$T/crumble.tree-nest" "$T/crumble.pf-nest"
check crumble-srcloc "no crumble.c line for Crumble_buy: $(grep -m1 '^S .* Crumble_buy ' "$T/crumble.facts")" \
    grep -Eq '^S [0-9]+ Crumble_buy .*/crumble\.c:[0-9]+$' "$T/crumble.facts"
run crumble-nosrc "$CT" export --format=perfetto "$CR" "$T/crumble.trace" -o "$T/c2.pftrace"
pf_read crumble-nosrc "$T/c2.pftrace"
check crumble-nosrc "source locations without --srcline" eval '! grep -q "^S " "$T/crumble-nosrc.facts"'
# A durations check: main's slice lasts what the tree says, to the nanosecond (give or take
# one: the slice's ends are each rounded to a ns, the tree's duration once).
want=$(awk '/} \/\* main \*\// { print $1 * ($2 == "us" ? 1000 : $2 == "ms" ? 1000000 : 1) }' \
    "$T/crumble-tree.out")
got=$(awk '$1 == "B" && $5 == "main" { b = $4 } $1 == "E" && $5 == "main" { print $4 - b }' \
    "$T/crumble.facts")
check crumble-duration "main: tree $want ns, trace $got ns" \
    eval '[ -n "$want" ] && [ -n "$got" ] && d=$((${want%.*} - got)) && [ "${d#-}" -le 1 ]'
# One process, named after the ELF, its pid the ring's; every track of it.
check crumble-process "$(grep '^P ' "$T/crumble.facts" | tr '\n' '|')" \
    eval '[ "$(grep -c "^P " "$T/crumble.facts")" -eq 1 ] && grep -q "^P 1 [1-9][0-9]* crumble$" "$T/crumble.facts" &&
          [ "$(awk "\$1 == \"O\" { print \$3 }" "$T/crumble.facts" | sort -u | wc -l)" -eq 1 ]'

# --- hardcases threads: a thread track each, named as the tree heads it ------------------------
H=$BUILD/examples/hardcases
run threads env CYGTRACE_OUT="$T/threads.trace" "$H" threads
run threads-export "$CT" export --format=perfetto "$H" "$T/threads.trace" -o "$T/t.pftrace"
check threads-export "status $RC: $(head -n 1 "$T/threads-export.err")" [ "$RC" -eq 0 ]
pf_read threads "$T/t.pftrace"
run threads-tree "$CT" tree "$H" "$T/threads.trace"
ctx_labels head "$T/threads-tree.out" >"$T/threads.labels"
awk '$1 == "T" && $2 != 1 { sub(/^T [0-9]+ /, ""); print }' "$T/threads.facts" |
    grep -v ': entered before the trace$' | sort -u >"$T/threads.labels-pf"
check threads-tracks "the tracks name the threads otherwise than tree: $(diff "$T/threads.labels" "$T/threads.labels-pf" | tr '\n' '|')" \
    same "$T/threads.labels" "$T/threads.labels-pf"
check threads-tids "not a ThreadDescriptor per thread" \
    [ "$(grep -c '^ *tid: [0-9]' "$T/threads.txt")" -eq "$(wc -l <"$T/threads.labels")" ]
check threads-slices "not two tracks with slices" \
    [ "$(awk '$1 == "B" { print $2 }' "$T/threads.facts" | sort -u | wc -l)" -ge 2 ]

# --- merged: two rings, a process each on the host's clock; --offset moves one -------------
run merged-export "$CT" export --format=perfetto "$CR" "$T/crumble.trace" "$H" "$T/threads.trace" \
    -o "$T/m.pftrace"
check merged-export "status $RC: $(head -n 1 "$T/merged-export.err")" [ "$RC" -eq 0 ]
pf_read merged "$T/m.pftrace"
# P UUID PID NAME: the processes, named after their DUMPs, with distinct pids and uuids
grep '^P ' "$T/merged.facts" >"$T/merged.procs"
check merged-processes "$(tr '\n' '|' <"$T/merged.procs")" \
    eval '[ "$(wc -l <"$T/merged.procs")" -eq 2 ] && grep -q " $T/crumble.trace\$" "$T/merged.procs" &&
          grep -q " $T/threads.trace\$" "$T/merged.procs" &&
          [ "$(cut -d" " -f3 "$T/merged.procs" | sort -u | wc -l)" -eq 2 ]'
# Each slice on a track of the process it belongs to: crumble's functions in crumble's.
cpid=$(awk -v d="$T/crumble.trace" '$1 == "P" && $4 == d { print $3 }' "$T/merged.facts")
awk -v p="$cpid" '$1 == "O" { pid[$2] = $3 } $1 == "B" && $5 == "Crumble_buy" && pid[$2] != p { print }' \
    "$T/merged.facts" >"$T/merged.wrong"
check merged-tracks "crumble's calls not on crumble's tracks: $(head -n 2 "$T/merged.wrong" | tr '\n' '|')" \
    eval '[ -n "$cpid" ] && [ ! -s "$T/merged.wrong" ] && grep -q " Crumble_buy$" "$T/merged.facts"'
# On the host's clock both (within a minute of each other), not each from its own 0.
first_b() { awk -v p="$2" '$1 == "O" { pid[$2] = $3 } $1 == "B" && pid[$2] == p { print $4; exit }' "$T/$1.facts"; }
tpid=$(awk -v d="$T/threads.trace" '$1 == "P" && $4 == d { print $3 }' "$T/merged.facts")
check merged-clock "crumble's first call at $(first_b merged "$cpid") ns, threads' at $(first_b merged "$tpid") ns" \
    awk -v a="$(first_b merged "$cpid")" -v b="$(first_b merged "$tpid")" \
        'BEGIN { d = a - b; exit !(a > 1e9 && b > 1e9 && d < 60e9 && d > -60e9) }'
run merged-offset "$CT" export --format=perfetto --offset=1:2.5ms "$CR" "$T/crumble.trace" "$H" \
    "$T/threads.trace" -o "$T/mo.pftrace"
pf_read merged-offset "$T/mo.pftrace"
check merged-offset "crumble's first call moved $(($(first_b merged-offset "$cpid") - $(first_b merged "$cpid"))) ns, threads' $(($(first_b merged-offset "$tpid") - $(first_b merged "$tpid"))) ns" \
    eval '[ $(($(first_b merged-offset "$cpid") - $(first_b merged "$cpid"))) -eq 2500000 ] &&
          [ "$(first_b merged-offset "$tpid")" = "$(first_b merged "$tpid")" ]'
# A shift before the clock's 0: written as 0, and said.
run merged-early "$CT" export --format=perfetto --offset=1:-100000s "$CR" "$T/crumble.trace" "$H" \
    "$T/threads.trace" -o "$T/me.pftrace"
check merged-early "status $RC, or no note: $(tr '\n' '|' <"$T/merged-early.err")" \
    eval '[ "$RC" -eq 0 ] && grep -q "^cygtrace: note: [0-9]* times came before the clock.s 0 (--offset) and were written as 0" "$T/merged-early.err"'

# --- hardcases wrap: a lapped ring, the calls entered before it on their own track ------------
run lapped env CYGTRACE_OUT="$T/lapped.trace" "$H" wrap
run lapped-export "$CT" export --format=perfetto "$H" "$T/lapped.trace" -o "$T/l.pftrace"
check lapped-export "status $RC: $(head -n 1 "$T/lapped-export.err")" [ "$RC" -eq 0 ]
pf_read lapped "$T/l.pftrace"
run lapped-chrome "$CT" export --format=chrome "$H" "$T/lapped.trace"
# The Chrome X events come innermost first; the track holds them outermost first, nested.
sed -n 's/.*"ph":"X".*"name":"\([^"]*\)","args":{"entered":"before the trace"}}.*/\1/p' \
    "$T/lapped-chrome.out" | tac >"$T/lapped.x"
u=$(awk '$1 == "T" && /: entered before the trace$/ { print $2; exit }' "$T/lapped.facts")
awk -v u="$u" '$1 == "B" && $2 == u { print $5 }' "$T/lapped.facts" >"$T/lapped.before"
check lapped-before "the before track's calls: $(tr '\n' ' ' <"$T/lapped.before"), Chrome's: $(tr '\n' ' ' <"$T/lapped.x")" \
    same "$T/lapped.x" "$T/lapped.before"
# Outermost first, each inside the one before or beside it (calls of one caller whose entries
# the lap took: chain1, chain2, chain3 under middle), from depth 1 on.
check lapped-before-nested "not outermost first, nested or side by side" \
    awk -v u="$u" '$1 == "B" && $2 == u { n++; if ($3 < 1 || $3 > prev + 1 || (n == 1 && $3 != 1)) bad = 1; prev = $3 }
                   END { exit bad || !n }' "$T/lapped.facts"

# --- wrapdemo: arguments and return values as debug annotations --------------------------------
DEMO=$BUILD/examples/wrap/wrapdemo
if [ -x "$DEMO" ]; then
    cp "$DEMO" "$T/wrapdemo"
    (cd "$T" && CYGTRACE_OUT="$T/demo.trace" timeout 20 ./wrapdemo </dev/null >"$T/demo.out" 2>&1)
    run wrap-export "$CT" export --format=perfetto "$T/wrapdemo" "$T/demo.trace" -o "$T/w.pftrace"
    check wrap-export "status $RC: $(head -n 1 "$T/wrap-export.err")" [ "$RC" -eq 0 ]
    pf_read wrap "$T/w.pftrace"
    grep '^A .* vend_add ' "$T/wrap.facts" | head -n 3 | cut -d' ' -f3- >"$T/wrap.add"
    printf 'vend_add a=2\nvend_add b=3\nvend_add return=5\n' >"$T/wrap.add-want"
    check wrap-annotations "vend_add's annotations: $(tr '\n' '|' <"$T/wrap.add")" \
        same "$T/wrap.add-want" "$T/wrap.add"
    check wrap-string "no vend_name return=\"one\"" grep -q '^A [0-9]* vend_name return="one"$' "$T/wrap.facts"
else
    fail wrap "$DEMO is missing: run make"
fi

# --- FreeRTOS under QEMU: the schedule's tracks, the fault --------------------------------------
KERNEL=${FREERTOS_DIR-$ROOT/../shared/thirdparty/FreeRTOS-Kernel}
FW=$BUILD/firmware/mps2-an385/freertos.elf
if [ ! -f "$KERNEL/tasks.c" ]; then
    skip freertos "no FreeRTOS kernel at FREERTOS_DIR='$KERNEL'"
elif ! command -v qemu-system-arm >/dev/null; then
    skip freertos "qemu-system-arm is not installed (make deps)"
elif [ ! -f "$FW" ]; then
    fail freertos "$FW is missing: run make"
else
    need_qemu
    cp "$FW" "$T/freertos.elf"
    if qemu_start rtos mps2-an385 "$T/freertos.elf" && uart_wait rtos "trace frozen"; then
        run rtos-pull "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/rtos.dump" "$T/freertos.elf"
        check rtos-pull "status $RC: $(head -n 1 "$T/rtos-pull.err")" [ "$RC" -eq 0 ]
    fi
    qemu_stop
    run rtos-export "$CT" export --format=perfetto "$T/freertos.elf" "$T/rtos.dump" -o "$T/r.pftrace"
    check rtos-export "status $RC: $(head -n 1 "$T/rtos-export.err")" [ "$RC" -eq 0 ]
    pf_read rtos "$T/r.pftrace"
    cpu=$(track_of rtos CPU)
    check rtos-cpu "no CPU track with producer and consumer running" \
        eval '[ -n "$cpu" ] && grep -q "^B $cpu 1 [0-9]* producer$" "$T/rtos.facts" &&
              grep -q "^B $cpu 1 [0-9]* consumer$" "$T/rtos.facts"'
    blk=$(awk '$1 == "T" && / "consumer": blocked$/ { print $2; exit }' "$T/rtos.facts")
    check rtos-blocked "no consumer blocked on queue \"jobs\" on its blocked track" \
        eval '[ -n "$blk" ] && grep -q "^B $blk 1 [0-9]* blocked on queue \"jobs\"" "$T/rtos.facts"'
    check rtos-woken "no 'woken by producer' annotation" \
        grep -q "^A $blk .*woken by=producer$" "$T/rtos.facts"
    cons=$(awk '$1 == "T" && / "consumer"$/ { print $2; exit }' "$T/rtos.facts")
    check rtos-fault "no HardFault instant on the consumer's track" \
        eval '[ -n "$cons" ] && grep -q "^I $cons [0-9]* .*HardFault" "$T/rtos.facts"'
fi

# --- size: at most a fifth of the Chrome JSON's bytes ------------------------------------------
run ticker env CYGTRACE_OUT="$T/ticker.trace" CYGTRACE_SIZE=4M "$BUILD/examples/ticker" 1 200000
run size-chrome "$CT" export --format=chrome "$BUILD/examples/ticker" "$T/ticker.trace" -o "$T/k.json"
run size-perfetto "$CT" export --format=perfetto "$BUILD/examples/ticker" "$T/ticker.trace" -o "$T/k.pftrace"
pf_read size "$T/k.pftrace"
a=$(wc -c <"$T/k.json")
b=$(wc -c <"$T/k.pftrace")
check size-fifth "perfetto $b bytes, chrome $a" eval '[ "$b" -gt 0 ] && [ $((b * 5)) -le "$a" ]'
check size-calls "not as many begins as the JSON's B and X events" \
    [ "$(grep -c '^B ' "$T/size.facts")" -eq "$(grep -c '"ph":"[BX]"' "$T/k.json")" ]

finish
