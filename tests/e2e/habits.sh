#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# habits.sh - what a uftrace user types works the same way here, on a real Linux trace
# (examples/hardcases threads, three threads):
#   inputs     `cygtrace tree` alone reads ./cygtrace.out and finds the program from its .maps;
#              one file is the ELF (the dump: ./cygtrace.out) or the dump (the program: its
#              map's); an ELF given wins over the map's; report, graph, export, info and dump
#              the same; a dump no map names a program for, or whose program is gone, one line
#   --time --tid  columns before the duration: each line's thread is its header's tid, the
#              times of a thread's lines never go back, and without the columns the tree is
#              the plain tree
#   dump       every record a line: its slot, its kind, the calls named as the tree names them,
#              the PAD records info counts, the records a small ring wrote over
set -u
. "$(dirname "$0")/lib.sh"

H=$BUILD/examples/hardcases
CR=$BUILD/examples/crumble
need "$CT" "$H" "$CR"

W=$T/work
mkdir -p "$W"
run threads env -C "$W" CYGTRACE_OUT= "$H" threads
check threads-runs "status $RC: $(head -n 1 "$T/threads.err")" \
    eval '[ "$RC" -eq 0 ] && [ -s "$W/cygtrace.out" ] && [ -s "$W/cygtrace.out.maps" ]'

# --- inputs: none, one, both -------------------------------------------------------------------
run tree-both "$CT" tree "$H" "$W/cygtrace.out"
check tree-both "status $RC: $(head -n 1 "$T/tree-both.err")" \
    eval '[ "$RC" -eq 0 ] && [ "$(grep -c "^# thread " "$T/tree-both.out")" -eq 3 ]'
run tree-none env -C "$W" "$CT" tree
check tree-none "status $RC: $(head -n 1 "$T/tree-none.err")" same "$T/tree-both.out" "$T/tree-none.out"
run tree-elf env -C "$W" "$CT" tree "$H"
check tree-elf "status $RC: $(head -n 1 "$T/tree-elf.err")" same "$T/tree-both.out" "$T/tree-elf.out"
run tree-dump "$CT" tree "$W/cygtrace.out"
check tree-dump "status $RC: $(head -n 1 "$T/tree-dump.err")" same "$T/tree-both.out" "$T/tree-dump.out"
for c in report graph "export --format=folded" info dump; do
    tag=${c%% *}
    run "$tag-both" env -C "$W" "$CT" $c "$H" cygtrace.out
    run "$tag-none" env -C "$W" "$CT" $c
    # (export says on stderr that the durations are corrected for the hooks' cost: no more)
    check "$tag-none" "status $RC: $(head -n 1 "$T/$tag-none.err")" \
        eval '[ "$RC" -eq 0 ] && ! grep -qv "^cygtrace: note: durations corrected for hook cost: " "$T/$tag-none.err" &&
              same "$T/$tag-both.out" "$T/$tag-none.out"'
done
# What the map says is only a default: the ELF given is the one used (crumble is not the
# program: refused as another program's trace, not read as hardcases').
expect_error elf-wins 1 'cygtrace\.out: recorded by another build .*crumble has' \
    env -C "$W" "$CT" tree "$CR"
# A map that names a program that is gone: one line, and the ELF given still works.
cp "$W/cygtrace.out" "$W/moved.out"
sed "s#$H\$#$W/gone/hardcases#" "$W/cygtrace.out.maps" >"$W/moved.out.maps"
expect_error program-gone 1 "moved\\.out\\.maps: the program it names, .*/gone/hardcases, cannot be read: No such file.*; give the ELF: cygtrace tree ELF .*moved\\.out\$" \
    "$CT" tree "$W/moved.out"
run program-gone-elf "$CT" tree "$H" "$W/moved.out"
check program-gone-elf "status $RC: $(head -n 1 "$T/program-gone-elf.err")" \
    same "$T/tree-both.out" "$T/program-gone-elf.out"
# No map at all (a firmware's dump, a saved stream, a copy without it).
cp "$W/cygtrace.out" "$W/nomap.out"
expect_error no-map 1 "nomap\\.out: no .*nomap\\.out\\.maps names the program that wrote it .*; give the ELF: cygtrace report ELF .*nomap\\.out\$" \
    "$CT" report "$W/nomap.out"
run no-map-info "$CT" info "$W/nomap.out"
check no-map-info "info needs no program: status $RC: $(head -n 1 "$T/no-map-info.err")" \
    eval '[ "$RC" -eq 0 ] && [ ! -s "$T/no-map-info.err" ] && grep -q "^dump: " "$T/no-map-info.out"'

# --- tree --time --tid ---------------------------------------------------------------------------
run cols env -C "$W" "$CT" tree --time --tid
check cols-runs "status $RC: $(head -n 1 "$T/cols.err")" \
    eval '[ "$RC" -eq 0 ] && grep -Eq "^ +TIME +TID +DURATION  FUNCTION$" "$T/cols.out"'
# Each line: "SECONDS.NNNNNNNNN  [TID]  ...", the tid its header's, the times of one thread's
# lines in order.
why=$(awk '
    /^# thread / { tid = $5; sub(/\)?,$/, "", tid); last = 0; next }
    /^#/ || /^$/ || /^\*\*\*/ || /TIME +TID/ { next }
    {
        if ($1 !~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$/) {
            print NR ": no time: " $0
            exit
        }
        t = $2 == "[" ? $3 : $2
        gsub(/\[|\]/, "", t)
        if (t != tid) { print NR ": tid " t ", its header says " tid; exit }
        if ($1 + 0 < last) { print NR ": time goes back: " $0; exit }
        last = $1 + 0
    }' "$T/cols.out")
check cols-tid-time "$why" [ -z "$why" ]
n=$(grep -cE '^ +[0-9]+\.[0-9]{9}  \[ *[0-9]+\]  ' "$T/cols.out")
check cols-every-line "$n lines with both columns" [ "$n" -ge 1000 ]
# The columns are 30 characters before what the plain tree shows, and change nothing else.
awk '/^#/ || /^$/ || /^\*\*\*/ { print; next }
     /TIME +TID/ { print substr($0, 31); next }
     { print substr($0, 31) }' "$T/cols.out" >"$T/cols.stripped"
check cols-same-tree "without its columns the tree differs" same "$T/tree-both.out" "$T/cols.stripped"
# The entry of main and its exit: the span between the two times at least the duration shown
# (which takes the hooks' own cost out; shown to 4 digits, so rounded up by 0.05% at most).
read -r t0 t1 d <<<"$(awk '/^# thread 1 / { on = 1 } on && / main\(\) \{$/ { t0 = $1 }
    on && /\} \/\* main \*\/$/ { print t0, $1, $4 " " $5; exit }' "$T/cols.out")"
check cols-main-span "main from $t0 to $t1, shown as $d" \
    awk -v a="$t0" -v b="$t1" -v d="$d" 'BEGIN { split(d, p, " "); m = p[2] == "ms" ? 1e-3 : p[2] == "us" ? 1e-6 : p[2] == "s" ? 1 : 1e-9
        exit !(a > 0 && (b - a) * 1.0006 + 1e-9 >= p[1] * m) }'
run cols-tid-only env -C "$W" "$CT" tree --tid --thread=2
check cols-tid-only "status $RC: $(head -n 3 "$T/cols-tid-only.out" | tr '\n' '|')" \
    eval '[ "$RC" -eq 0 ] && grep -Eq "^ +TID +DURATION  FUNCTION$" "$T/cols-tid-only.out" &&
          ! grep -Eq "^ +[0-9]+\.[0-9]{9} " "$T/cols-tid-only.out"'
expect_error cols-etrace 2 'time and --tid are columns of --style=tree' \
    env -C "$W" "$CT" tree --time --style=etrace

# --- dump ----------------------------------------------------------------------------------------
D=$T/dump-none.out
check dump-header "$(head -n 1 "$D")" \
    grep -Eq '^ +SLOT +SEQ +CTX +TIME +KIND +ADDRESS +WHAT$' "$D"
# The entries and exits are the events the tree's headers count, each thread's.
for id in 1 2 3; do
    want=$(sed -n "s/^# thread $id (tid [0-9]*), \\([0-9]*\\) events\$/\\1/p" "$T/tree-both.out")
    got=$(awk -v id="$id" '$3 == id && ($5 == "enter" || $5 == "exit")' "$D" | wc -l)
    check "dump-events-$id" "thread $id: $got entries and exits, the tree counts $want" [ "$got" = "$want" ]
done
# The calls are named as the tree names them: worker_a's first callees, in order.
check dump-names "no 'enter ... step_a1' in thread 2 or 3" \
    eval 'awk "(\$3 == 2 || \$3 == 3) && \$5 == \"enter\" { print \$7 }" "$D" | grep -qx step_a1'
# The PAD records, which info counts: as many here.
pads=$(sed -n 's/^padding: *\([0-9]*\) slots.*/\1/p' "$T/info-both.out")
check dump-pads "$(grep -c ' pad ' "$D") pad lines, info says ${pads:-none}" \
    [ "$(grep -c '^ *[0-9]* *[0-9]* *[0-9]* *[0-9]*  pad ' "$D")" = "${pads:-0}" ]
# The slot is the sequence number in a ring of this capacity; a thread record names its tid.
cap=$(sed -n 's/^capacity: *\([0-9]*\) records.*/\1/p' "$T/info-both.out")
why=$(awk -v cap="$cap" '$1 ~ /^[0-9]+$/ && $1 != $2 % cap { print NR ": " $0; exit }' "$D")
check dump-slots "$why" [ -n "$cap" ] && [ -z "$why" ]
check dump-thread-tid "no thread record with its tid" \
    eval 'grep -Eq " thread +0x[0-9a-f]+  tid [0-9]+$" "$D"'
# A ring that wrapped (4 KB): what it wrote over, said at the end.
run small env -C "$W" CYGTRACE_OUT="$W/small.out" CYGTRACE_SIZE=4K "$H" threads
run dump-small "$CT" dump "$W/small.out"
check dump-small "status $RC: $(tail -n 1 "$T/dump-small.out")" \
    eval '[ "$RC" -eq 0 ] && grep -Eq "^# [0-9]+ older records were written over \(the ring wrapped\)$" "$T/dump-small.out"'

finish
