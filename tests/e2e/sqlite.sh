#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sqlite.sh - export --format=sqlite read back by the real sqlite3: per function, the calls
# table's counts, self and total times equal report's; every parent is a call of the same
# trace and context one level up whose time holds its child's; a lapped ring (calls entered
# before the trace) leaves no parent naming a call that has no row; a fault (a SIGSEGV, a
# firmware's HardFault from a saved stream under QEMU) is in faults with the call it hit; a
# wrapped call's arguments and return value in call_values; a second export into the same file
# adds trace 2 and leaves trace 1 as it was; a file that is not a cygtrace database is refused
# and left as it was; an export that fails leaves no database behind (a new one) or the old one
# whole (an append, also when killed). Several ELF DUMP pairs in one export are a trace each
# (traces.clock 'host-monotonic'), their times those of the merged Chrome trace, --offset
# shifting one; alone, a trace stays on its own clock ('own').
. "$(dirname "$0")/lib.sh"

need "$CT" "$BUILD/examples/crumble" "$BUILD/examples/hardcases"
if ! command -v sqlite3 >/dev/null; then
    fail sqlite-prerequisites "sqlite3 is missing (make deps)"
    finish
fi
H=$BUILD/examples/hardcases
DB=$T/t.db

q() { sqlite3 -batch "$@"; }

# report_ns TAG: "function calls total self" (times in ns) from report's output $T/TAG.out,
# the all-contexts table only (the last one), sorted.
report_ns() {
    awk 'function ns(v, u) { return u == "ns" ? v : u == "us" ? v * 1e3 : u == "ms" ? v * 1e6 : v * 1e9 }
         /^# all / { delete c }
         /^ *[0-9]+ / { c[$NF] = $1; t[$NF] = ns($2, $3); s[$NF] = ns($4, $5) }
         END { for (f in c) printf "%s %d %.0f %.0f\n", f, c[f], t[f], s[f] }' "$T/$1.out" | sort
}

# sql_ns TRACE: the same from the calls table; a call inside a call of its own function (direct
# recursion) adds nothing to the total, as report counts it.
sql_ns() {
    q -separator ' ' "$DB" "SELECT f.name, count(*),
            sum(CASE WHEN p.function IS c.function THEN 0 ELSE c.duration END), sum(c.self)
        FROM calls c JOIN functions f ON f.trace = c.trace AND f.function = c.function
        LEFT JOIN calls p ON p.call = c.parent
        WHERE c.trace = $1 GROUP BY f.name" | sort
}

# near A B: report's times are rounded to 3 digits, the table's per call: within a ns per call
# and a thousandth.
compare_ns() {
    join "$1" "$2" | awk 'function abs(x) { return x < 0 ? -x : x }
        { tol = $2 + $3 / 1000 + 2; tol2 = $2 + $4 / 1000 + 2 }
        $2 != $5 || abs($3 - $6) > tol || abs($4 - $7) > tol2 { print "    | " $0; bad = 1 }
        END { exit bad }' && [ "$(wc -l <"$1")" = "$(wc -l <"$2")" ] && [ -s "$1" ]
}

# consistent NAME TRACE: every parent of the trace's calls is a row of the same trace and
# context, one level up, starting no later and ending no earlier (but for the rounding of
# ticks to ns: start and duration are each rounded).
consistent() {
    local bad
    bad=$(q "$DB" "SELECT count(*) FROM calls c LEFT JOIN calls p ON p.call = c.parent
                    WHERE c.trace = $2 AND c.parent IS NOT NULL AND (p.call IS NULL
                      OR p.trace != c.trace OR p.context != c.context OR p.depth != c.depth - 1
                      OR p.start > c.start OR p.start + p.duration + 2 < c.start + c.duration)")
    check "$1" "$bad calls whose parent is not the call around them" [ "$bad" = 0 ]
}

# --- one trace: crumble --------------------------------------------------------------------
run crumble env CYGTRACE_OUT="$T/crumble.trace" "$BUILD/examples/crumble"
run crumble-report "$CT" report "$BUILD/examples/crumble" "$T/crumble.trace"
run crumble-export "$CT" export --format=sqlite "$BUILD/examples/crumble" "$T/crumble.trace" -o "$DB"
# stderr: the one note that the durations are corrected for the hooks' cost, nothing else
only_hook_note() {
    [ "$(grep -c '' "$1")" = 1 ] && grep -q '^cygtrace: note: durations corrected for hook cost: ' "$1"
}
check sqlite-export "exit $RC: $(head -n 1 "$T/crumble-export.err")" \
    eval '[ "$RC" = 0 ] && only_hook_note "$T/crumble-export.err"'
check sqlite-integrity "integrity_check: $(q "$DB" 'PRAGMA integrity_check' 2>&1 | head -n 1)" \
    [ "$(q "$DB" 'PRAGMA integrity_check' 2>&1)" = ok ]
check sqlite-application-id "not marked as cygtrace's" [ "$(q "$DB" 'PRAGMA application_id')" = 1129924436 ]
report_ns crumble-report >"$T/crumble.rep"
sql_ns 1 >"$T/crumble.sql"
check sqlite-report "the calls table's calls, total and self per function differ from report's" \
    compare_ns "$T/crumble.rep" "$T/crumble.sql"
consistent sqlite-parents 1
check sqlite-unit "time_unit is not ns" [ "$(q "$DB" 'SELECT time_unit FROM traces')" = ns ]
check sqlite-clock-own "clock, offset: $(q "$DB" 'SELECT clock, offset FROM traces')" \
    [ "$(q "$DB" "SELECT clock, coalesce(offset, 'null') FROM traces")" = "own|null" ]
check sqlite-functions "main has no source line" \
    [ "$(q "$DB" "SELECT file LIKE '%crumble.c' AND line > 0 FROM functions WHERE name = 'main'")" = 1 ]
check sqlite-roots "not one call at depth 0 without a parent (main)" \
    [ "$(q "$DB" "SELECT count(*) FROM calls WHERE parent IS NULL")" = 1 ]

# --- appended: threads, recursion, a lapped ring, a fault ----------------------------------
cp "$DB" "$T/one.db"
n=1
for s in threads recurse wrapjmp segv; do
    size=1M
    [ $s = wrapjmp ] && size=4K # the ring laps: calls entered before it
    run "$s" env CYGTRACE_OUT="$T/$s.trace" CYGTRACE_SIZE=$size "$H" $s
    n=$((n + 1))
    run "$s-report" "$CT" report "$H" "$T/$s.trace"
    run "$s-export" "$CT" export --format=sqlite "$H" "$T/$s.trace" -o "$DB"
    check "sqlite-append-$s" "exit $RC: $(head -n 1 "$T/$s-export.err")" [ "$RC" = 0 ]
    check "sqlite-trace-id-$s" "the trace is not number $n" \
        [ "$(q "$DB" "SELECT max(trace), count(*) FROM traces")" = "$n|$n" ]
    report_ns "$s-report" >"$T/$s.rep"
    sql_ns $n >"$T/$s.sql"
    check "sqlite-report-$s" "calls, total or self per function differ from report's" \
        compare_ns "$T/$s.rep" "$T/$s.sql"
    consistent "sqlite-parents-$s" $n
done
check sqlite-threads "the threads trace has not 3 threads" \
    [ "$(q "$DB" "SELECT count(*) FROM contexts WHERE trace = 2 AND kind = 'thread' AND os_tid > 0")" = 3 ]
check sqlite-lapped "the lapped ring has no call entered before it" \
    [ "$(q "$DB" "SELECT count(*) > 0 FROM calls WHERE trace = 4 AND ended = 'entered-before'")" = 1 ]
check sqlite-orphans "a parent names a call that has no row" \
    [ "$(q "$DB" "SELECT count(*) FROM calls c WHERE parent IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM calls p WHERE p.call = c.parent)")" = 0 ]
check sqlite-fault "the SIGSEGV is not in faults, in level3" \
    [ "$(q "$DB" "SELECT f.kind, f.code, fn.name, f.text LIKE '*** signal 11 (SIGSEGV) at level3%'
                   FROM faults f JOIN calls c USING (call)
                   JOIN functions fn ON fn.trace = c.trace AND fn.function = c.function
                   WHERE f.trace = 5")" = "fault|267|level3|1" ]
check sqlite-trace-1-kept "trace 1 changed when others were added" \
    [ "$(q "$T/one.db" "SELECT * FROM calls ORDER BY call")" = \
      "$(q "$DB" "SELECT * FROM calls WHERE trace = 1 ORDER BY call")" ]
check sqlite-ids "call ids are not unique" \
    [ "$(q "$DB" "SELECT count(DISTINCT call) = count(*) FROM calls")" = 1 ]

# --- several traces in one export, on the host's clock -------------------------------------
M=$T/multi.db
run multi-export "$CT" export --format=sqlite "$BUILD/examples/crumble" "$T/crumble.trace" \
    "$H" "$T/threads.trace" -o "$M"
check sqlite-multi "exit $RC: $(head -n 1 "$T/multi-export.err")" \
    eval '[ "$RC" = 0 ] && ! grep -v -q "^cygtrace: note: .*: durations corrected for hook cost: " "$T/multi-export.err"'
check sqlite-multi-traces "traces: $(q "$M" 'SELECT trace, dump, clock, offset FROM traces' | tr '\n' ' ')" \
    [ "$(q "$M" 'SELECT trace, dump, clock, offset FROM traces' | tr '\n' ' ')" = \
      "1|$T/crumble.trace|host-monotonic|0 2|$T/threads.trace|host-monotonic|0 " ]
# Per function the same calls as each trace exported alone (traces 1 and 2 of $DB), durations
# within the clocks' rate difference; parents as consistent; call ids unique.
fn_sums() {
    q -separator ' ' "$1" "SELECT f.name, count(*), sum(c.duration) FROM calls c
        JOIN functions f ON f.trace = c.trace AND f.function = c.function
        WHERE c.trace = $2 GROUP BY f.name ORDER BY f.name"
}
for n in 1 2; do
    fn_sums "$DB" $n >"$T/multi-alone.$n"
    fn_sums "$M" $n >"$T/multi.$n"
    check "sqlite-multi-calls-$n" "trace $n's calls or durations differ from its own export's: $(join "$T/multi-alone.$n" "$T/multi.$n" | head -n 2 | tr '\n' '|')" \
        eval 'join "$T/multi-alone.$n" "$T/multi.$n" |
              awk "{ d = \$3 - \$5; if (d < 0) d = -d } \$2 != \$4 || d > \$3 / 10000 + 2 * \$2 { bad = 1 } END { exit bad }" &&
              [ -s "$T/multi.$n" ] && [ "$(wc -l <"$T/multi.$n")" = "$(wc -l <"$T/multi-alone.$n")" ]'
    DB=$M consistent "sqlite-multi-parents-$n" $n
done
check sqlite-multi-ids "call ids not unique, or trace 2's not after trace 1's" \
    [ "$(q "$M" "SELECT count(DISTINCT call) = count(*), (SELECT max(call) FROM calls WHERE trace = 1) <
                  (SELECT min(call) FROM calls WHERE trace = 2) FROM calls")" = "1|1" ]
# main's start in each: the merged Chrome trace's ts (us, 3 decimals) to the ns.
run multi-chrome "$CT" export --format=chrome "$BUILD/examples/crumble" "$T/crumble.trace" \
    "$H" "$T/threads.trace"
sed -n 's/^{"ph":"B","pid":[0-9]*,"tid":1,"ts":\([0-9]*\)\.\([0-9]*\),"name":"main"}.*/\1\2/p' \
    "$T/multi-chrome.out" >"$T/multi.chrome-main"
main_starts() {
    q "$1" "SELECT c.start FROM calls c JOIN functions f ON f.trace = c.trace
        AND f.function = c.function WHERE f.name = 'main' AND c.depth = 0 ORDER BY c.trace"
}
main_starts "$M" >"$T/multi.sql-main"
check sqlite-multi-clock "main starts at $(tr '\n' ' ' <"$T/multi.sql-main")ns, Chrome's at $(tr '\n' ' ' <"$T/multi.chrome-main")" \
    eval '[ "$(wc -l <"$T/multi.sql-main")" = 2 ] && same "$T/multi.chrome-main" "$T/multi.sql-main"'
# --offset: one trace shifted by it, the other not; said in traces.offset. Added to the database.
run multi-offset "$CT" export --format=sqlite --offset=2:-1.5ms "$BUILD/examples/crumble" \
    "$T/crumble.trace" "$H" "$T/threads.trace" -o "$M"
check sqlite-multi-append "exit $RC, or not traces 3 and 4: $(head -n 1 "$T/multi-offset.err")" \
    [ "$RC" = 0 -a "$(q "$M" 'SELECT count(*), max(trace) FROM traces')" = "4|4" ]
check sqlite-multi-offset "main's starts: $(main_starts "$M" | tr '\n' ' ')" \
    eval '[ "$(main_starts "$M" | sed -n 3p)" = "$(sed -n 1p "$T/multi.sql-main")" ] &&
          [ "$(main_starts "$M" | sed -n 4p)" = "$(($(sed -n 2p "$T/multi.sql-main") - 1500000))" ] &&
          [ "$(q "$M" "SELECT offset FROM traces WHERE trace = 4")" = -1500000 ]'

# A second input that cannot be read: the database as it was, no trace of the first added.
cp "$M" "$T/multi-before.db"
expect_error multi-bad 1 "" "$CT" export --format=sqlite "$BUILD/examples/crumble" "$T/crumble.trace" \
    "$BUILD/examples/crumble" "$T/threads.trace" -o "$M"
check sqlite-multi-bad-kept "the database changed" \
    [ "$(q "$T/multi-before.db" 'SELECT count(*) FROM calls')|4" = "$(q "$M" 'SELECT count(*), max(trace) FROM traces JOIN calls USING (trace)')" ]
# An older schema (1: no clock) is refused with a line, not SQLite's error.
cp "$T/multi-before.db" "$T/old.db"
q "$T/old.db" "PRAGMA user_version = 1"
expect_error old-schema 1 "old.db: a cygtrace database of schema 1, this cygtrace writes schema 2; name a new file" \
    "$CT" export --format=sqlite "$BUILD/examples/crumble" "$T/crumble.trace" -o "$T/old.db"

# --- a wrapped library's values ------------------------------------------------------------
W=$BUILD/examples/wrap/wrapdemo
if [ -x "$W" ]; then
    run wrapdemo env CYGTRACE_OUT="$T/wrap.trace" "$W"
    run wrap-export "$CT" export --format=sqlite "$W" "$T/wrap.trace" -o "$T/w.db"
    check sqlite-values "vend_add(2, 3) = 5 is not in call_values" \
        [ "$(q "$T/w.db" "SELECT group_concat(coalesce(v.name, '?') || '=' || v.value, ' ')
                       FROM call_values v JOIN calls c USING (call)
                       JOIN functions f ON f.trace = c.trace AND f.function = c.function
                       WHERE f.name = 'vend_add' GROUP BY v.call LIMIT 1")" = "a=2 b=3 return=5" ]
else
    skip sqlite-values "no $W"
fi

# --- firmware: saved streams (QEMU mps2-an385), one with a HardFault ------------------------
FW=$BUILD/firmware/mps2-an385
if command -v qemu-system-arm >/dev/null && [ -f "$FW/stream.elf" ] && [ -f "$FW/stream_crash.elf" ]; then
    for s in stream stream_crash; do
        timeout 60 qemu-system-arm -M mps2-an385 -display none -monitor none \
            -semihosting-config enable=on,target=native -serial "file:$T/$s.cyg" \
            -kernel "$FW/$s.elf" </dev/null >"$T/qemu-$s.log" 2>&1
        run "$s-report" "$CT" report "$FW/$s.elf" "$T/$s.cyg"
        run "$s-export" "$CT" export --format=sqlite "$FW/$s.elf" "$T/$s.cyg" -o "$T/fw.db"
        check "sqlite-$s" "exit $RC: $(head -n 1 "$T/$s-export.err")" [ "$RC" = 0 ]
        n=$(q "$T/fw.db" "SELECT max(trace) FROM traces")
        report_ns "$s-report" >"$T/$s.rep"
        DB=$T/fw.db sql_ns "$n" >"$T/$s.sql"
        check "sqlite-report-$s" "calls, total or self per function differ from report's" \
            compare_ns "$T/$s.rep" "$T/$s.sql"
        DB=$T/fw.db consistent "sqlite-parents-$s" "$n"
    done
    check sqlite-hardfault "the HardFault is not in faults, in read_sensor, with its LR" \
        [ "$(q "$T/fw.db" "SELECT f.kind, fn.name, f.lr IS NOT NULL, f.text LIKE '*** HardFault at read_sensor%'
                         FROM faults f JOIN calls c USING (call)
                         JOIN functions fn ON fn.trace = c.trace AND fn.function = c.function")" \
          = "fault|read_sensor|1|1" ]
    check sqlite-fw-contexts "a firmware's context is not a 'context' with the tree's label" \
        [ "$(q "$T/fw.db" "SELECT DISTINCT kind || ':' || label FROM contexts")" = "context:context 0" ]
    # FreeRTOS: tasks named by the glue, interrupts by their handlers (a stream cut after 4 s)
    if [ -f "$FW/freertos_live.elf" ]; then
        timeout 4 qemu-system-arm -M mps2-an385 -display none -monitor none \
            -semihosting-config enable=on,target=native -serial "file:$T/rtos.cyg" \
            -kernel "$FW/freertos_live.elf" </dev/null >"$T/qemu-rtos.log" 2>&1
        run rtos-export "$CT" export --format=sqlite "$FW/freertos_live.elf" "$T/rtos.cyg" -o "$T/rtos.db"
        check sqlite-rtos-contexts "the tasks and interrupts: $(q "$T/rtos.db" "SELECT group_concat(kind || ' ' || name, ', ') FROM contexts" | head -c 200)" \
            [ "$(q "$T/rtos.db" "SELECT kind || ' ' || name FROM contexts WHERE name IN
                ('producer', 'consumer', 'SysTick_Handler') ORDER BY name")" = \
              "$(printf 'interrupt SysTick_Handler\ntask consumer\ntask producer')" ]
    else
        skip sqlite-rtos-contexts "no $FW/freertos_live.elf (FreeRTOS-Kernel missing)"
    fi
else
    skip sqlite-firmware "no qemu-system-arm or no $FW/stream.elf (make deps; make)"
fi

# --- what is refused, and failures that leave nothing half written --------------------------
echo "not a database" >"$T/text.db"
cp "$T/text.db" "$T/text.keep"
expect_error sqlite-refuse-text 1 "text.db: not a cygtrace database" \
    "$CT" export --format=sqlite "$BUILD/examples/crumble" "$T/crumble.trace" -o "$T/text.db"
check sqlite-refuse-text-kept "the refused file changed" cmp -s "$T/text.db" "$T/text.keep"
q "$T/other.db" "CREATE TABLE t(a); INSERT INTO t VALUES (1)"
cp "$T/other.db" "$T/other.keep"
expect_error sqlite-refuse-other 1 "other.db: not a cygtrace database \(an SQLite database of another" \
    "$CT" export --format=sqlite "$BUILD/examples/crumble" "$T/crumble.trace" -o "$T/other.db"
check sqlite-refuse-other-kept "the refused database changed" cmp -s "$T/other.db" "$T/other.keep"
expect_error sqlite-refuse-dir 1 "not a regular file" \
    "$CT" export --format=sqlite "$BUILD/examples/crumble" "$T/crumble.trace" -o "$T"
expect_error sqlite-needs-o 2 "needs -o FILE" \
    "$CT" export --format=sqlite "$BUILD/examples/crumble" "$T/crumble.trace"
expect_error sqlite-refuse-input 1 "crumble.trace" \
    "$CT" export --format=sqlite "$BUILD/examples/crumble" "$T/crumble.trace" -o "$T/crumble.trace"

# A write that fails (the file size limit: EFBIG, its signal ignored): one line, and no file
# (new), or the database as it was (append).
mkdir "$T/full"
run full-new bash -c "ulimit -f 16; trap '' XFSZ; exec '$CT' export --format=sqlite \
    '$H' '$T/threads.trace' -o '$T/full/new.db'"
check sqlite-full-new "exit $RC, $(wc -l <"$T/full-new.err") lines: $(head -n 1 "$T/full-new.err")" \
    [ "$RC" = 1 -a "$(wc -l <"$T/full-new.err")" = 1 ]
check sqlite-full-new-nothing "left behind: $(ls -A "$T/full")" [ -z "$(ls -A "$T/full")" ]
cp "$T/one.db" "$T/full/old.db"
run full-old bash -c "ulimit -f 16; trap '' XFSZ; exec '$CT' export --format=sqlite \
    '$H' '$T/wrapjmp.trace' -o '$T/full/old.db'"
check sqlite-full-old "exit $RC: $(head -n 1 "$T/full-old.err")" [ "$RC" = 1 ]
check sqlite-full-old-whole "the database is not as it was" \
    [ "$(q "$T/full/old.db" "PRAGMA integrity_check; SELECT count(*) FROM traces;
                              SELECT count(*) FROM calls")" = "$(printf 'ok\n1\n%s' \
      "$(q "$T/one.db" "SELECT count(*) FROM calls")")" ]
# An append killed (SIGKILL: no handler runs) in the middle of its transaction: the journal
# it leaves rolls the database back at its next opening, which finds it as it was.
run wrap env CYGTRACE_OUT="$T/wrap.trace" "$H" wrap
cp "$T/one.db" "$T/kill.db"
"$CT_NATIVE" export --format=sqlite "$H" "$T/wrap.trace" -o "$T/kill.db" 2>/dev/null &
pid=$!
for _ in $(seq 500); do
    [ -e "$T/kill.db-journal" ] && break
    sleep 0.01
done
killed=no
[ -e "$T/kill.db-journal" ] && kill -9 $pid 2>/dev/null && killed=yes
wait $pid 2>/dev/null
if [ $killed = yes ]; then
    check sqlite-killed-whole "the database is not as it was after a killed append" \
        [ "$(q "$T/kill.db" "PRAGMA integrity_check; SELECT count(*) FROM traces")" = "$(printf 'ok\n1')" ]
    run kill-again "$CT" export --format=sqlite "$BUILD/examples/crumble" "$T/crumble.trace" -o "$T/kill.db"
    check sqlite-killed-append "the next export: exit $RC, $(q "$T/kill.db" "SELECT count(*) FROM traces") traces" \
        [ "$RC" = 0 -a "$(q "$T/kill.db" "SELECT count(*) FROM traces")" = 2 ]
else
    fail sqlite-killed-whole "the export ended before it could be killed"
fi
finish
