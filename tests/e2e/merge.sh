#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# merge.sh - merged timelines: the echo firmware (build/firmware/mps2-an385/echo.elf) under
# QEMU streams its calls over UART0 (TCP), saved by "cygtrace live --save", while the traced
# Linux program build/examples/ping sends it bytes on UART1 (TCP) and waits for each echo.
# "cygtrace export" merges the saved stream (its clock fitted to the host's by the frames'
# arrival times) and the program's ring (its clock mapped by its map's clock lines) into one
# Chrome trace; jq reads it back: two processes, each round's send before the firmware's
# echo_request, the firmware's handling within ERROR_US of the window [send, receive] that
# the round trip gives (the known event pair: the alignment's error), and bad --offset values
# refused with one line. The same merged as a Perfetto trace, read back by protoc and
# pftrace.awk (perfetto.sh): a process each, named after its DUMP, each call on its process's
# tracks, the same order per round, at the Chrome trace's times. And as an SQLite database, two
# traces on the host's clock: one query orders the sends and the firmware's handling.
set -u
. "$(dirname "$0")/lib.sh"

FW=$BUILD/firmware/mps2-an385/echo.elf
PING=$BUILD/examples/ping
ROUNDS=20
ERROR_US=${MERGE_ERROR_US:-1000} # the median round's distance to its window, at most
need "$CT" "$FW" "$PING"
need_qemu
command -v jq >/dev/null || { fail merge-prerequisites "jq is not installed (make deps)"; finish; }

# qemu_echo: the firmware with UART0 on a TCP server that waits for its reader ($SPORT), UART1
# on the next port ($SPORT1), which does not wait; its process id in $QEMU_PID.
qemu_echo() {
    local i w
    for ((i = 0; i < 20; i++)); do
        SPORT=$((20000 + RANDOM % 20000))
        SPORT1=$((SPORT + 1))
        timeout 120 qemu-system-arm -M mps2-an385 -display none -monitor none -nographic \
            -serial "tcp:127.0.0.1:$SPORT,server=on,wait=on" \
            -serial "tcp:127.0.0.1:$SPORT1,server=on,wait=off" -kernel "$FW" \
            </dev/null >"$T/qemu.log" 2>&1 &
        QEMU_PID=$!
        for ((w = 0; w < 100; w++)); do
            grep -qs 'waiting for connection' "$T/qemu.log" && return 0
            kill -0 "$QEMU_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill "$QEMU_PID" 2>/dev/null
        wait "$QEMU_PID" 2>/dev/null
        grep -qsi 'address already in use' "$T/qemu.log" || break
    done
    QEMU_PID=
    fail merge-qemu "QEMU did not start: $(head -n 2 "$T/qemu.log" | tr '\n' '|')"
    finish
}

qemu_echo
timeout 30 "$CT" live --plain --duration=4 --tcp="127.0.0.1:$SPORT" --save="$T/echo.cyg" "$FW" \
    >"$T/live.out" 2>"$T/live.err" &
LIVE_PID=$!
# The reader is connected (the firmware runs) once the stream grows.
for ((w = 0; w < 100; w++)); do
    [ -s "$T/echo.cyg" ] && break
    sleep 0.1
done
CYGTRACE_OUT="$T/ping.trace" timeout 20 "$PING" "$SPORT1" "$ROUNDS" 20 >"$T/ping.out" 2>&1
PING_RC=$?
wait "$LIVE_PID"
LIVE_RC=$?
qemu_stop
check ping "ping exited $PING_RC: $(head -n 2 "$T/ping.out" | tr '\n' '|')" [ "$PING_RC" -eq 0 ]
check live-save "live exited $LIVE_RC: $(head -n 2 "$T/live.err" | tr '\n' '|')" \
    [ "$LIVE_RC" -eq 0 -a -s "$T/echo.cyg" ]
# The saved stream reads as before: its host time frames are no malformed frames.
run tree-saved "$CT" tree "$FW" "$T/echo.cyg"
check tree-saved "tree exited $RC or said malformed: $(head -n 2 "$T/tree-saved.err")" \
    eval '[ "$RC" -eq 0 ] && ! grep -qi malformed "$T/tree-saved.err" && grep -q echo_request "$T/tree-saved.out"'
# The ring's map has its clock pairs: set-up and exit.
check clock-lines "$(grep -c '^clock ' "$T/ping.trace.maps") clock lines in the map" \
    [ "$(grep -c '^clock ' "$T/ping.trace.maps")" -eq 2 ]

run export "$CT" export --format=chrome "$FW" "$T/echo.cyg" "$PING" "$T/ping.trace" \
    -o "$T/merged.json"
sed 's/^/    /' "$T/export.err"
check export "exit $RC: $(head -n 2 "$T/export.err" | tr '\n' '|')" [ "$RC" -eq 0 ]
check fit-note "no fit note: $(head -n 2 "$T/export.err" | tr '\n' '|')" \
    grep -Eq "^cygtrace: note: .*echo.cyg: its clock fitted to the host's over [0-9]+ frames, rate [-+][0-9.]+ ppm: they arrived [0-9.]+ us \(median\), [0-9.]+ us \(max\)" "$T/export.err"
check processes "not two named processes" \
    [ "$(jq '[.traceEvents[] | select(.name == "process_name") | .pid] | unique | length' "$T/merged.json")" -eq 2 ]

# Per round: send, the firmware's echo_request, receive (us on the host's clock).
jq -r '[.traceEvents[] | select(.ph == "B")] as $b
    | [$b[] | select(.name == "ping_send") | .ts] as $s
    | [$b[] | select(.name == "echo_request") | .ts] as $f
    | [$b[] | select(.name == "ping_received") | .ts] as $r
    | range(0; [$s, $f, $r] | map(length) | max) | "\($s[.]) \($f[.]) \($r[.])"' \
    "$T/merged.json" >"$T/rounds"
check rounds "$(wc -l <"$T/rounds") rounds in the merged trace" [ "$(wc -l <"$T/rounds")" -eq "$ROUNDS" ]
# Order: each round's send before the firmware's echo_request, which comes before the next
# round's send. Error: how far echo_request lies outside [send, receive].
awk '{ s[NR] = $1; f[NR] = $2; r[NR] = $3 }
    END {
        for (i = 1; i <= NR; i++) {
            bad = f[i] == "null" || !(f[i] > s[i]) || (i < NR && !(f[i] < s[i + 1]))
            d = f[i] < s[i] ? s[i] - f[i] : f[i] > r[i] ? f[i] - r[i] : 0
            printf "%.3f %.3f %d\n", d, r[i] - s[i], bad
        }
    }' "$T/rounds" >"$T/distances"
BAD=$(awk '{ n += $3 } END { print n + 0 }' "$T/distances")
MEDIAN=$(sort -n "$T/distances" | awk '{ d[NR] = $1 } END { print d[int((NR + 1) / 2)] }')
MAX=$(sort -n "$T/distances" | tail -n 1 | cut -d' ' -f1)
RTT=$(cut -d' ' -f2 "$T/distances" | sort -n | awk '{ d[NR] = $1 } END { print d[int((NR + 1) / 2)] }')
echo "    $ROUNDS rounds: $BAD out of order; echo_request's distance to [send, receive]: median $MEDIAN us, max $MAX us; round trip: median $RTT us"
check order "$BAD rounds with echo_request not after its send (or after the next)" [ "$BAD" -eq 0 ]
check error "median distance $MEDIAN us, more than $ERROR_US us" \
    awk -v m="$MEDIAN" -v e="$ERROR_US" 'BEGIN { exit !(m <= e) }'

# The same as Perfetto's protobuf: protoc decodes it, pftrace.awk replays it.
PROTO_DIR=${PERFETTO_PROTO_DIR:-$ROOT/../shared/thirdparty/perfetto}
if ! command -v protoc >/dev/null; then
    skip perfetto-merged "protoc is not installed (make deps: protobuf-compiler)"
elif [ ! -f "$PROTO_DIR/perfetto_trace.proto" ]; then
    skip perfetto-merged "no perfetto_trace.proto in PERFETTO_PROTO_DIR='$PROTO_DIR'"
else
    run pf-export "$CT" export --format=perfetto "$FW" "$T/echo.cyg" "$PING" "$T/ping.trace" \
        -o "$T/merged.pftrace"
    check pf-export "exit $RC: $(head -n 2 "$T/pf-export.err" | tr '\n' '|')" [ "$RC" -eq 0 ]
    protoc --decode=perfetto.protos.Trace -I "$PROTO_DIR" "$PROTO_DIR/perfetto_trace.proto" \
        <"$T/merged.pftrace" >"$T/merged.pf.txt" 2>"$T/protoc.err"
    check pf-protoc "protoc: $(head -n 2 "$T/protoc.err" | tr '\n' '|')" [ -s "$T/merged.pf.txt" ]
    awk -f "$E2E_DIR/pftrace.awk" "$T/merged.pf.txt" >"$T/merged.facts"
    check pf-balanced "$(grep -m 3 '^ERR\|^OPEN' "$T/merged.facts" | tr '\n' '|')" \
        eval '! grep -q "^ERR\|^OPEN" "$T/merged.facts"'
    grep '^P ' "$T/merged.facts" >"$T/pf.procs"
    check pf-processes "$(tr '\n' '|' <"$T/pf.procs")" \
        eval '[ "$(wc -l <"$T/pf.procs")" -eq 2 ] && grep -q " $T/echo.cyg\$" "$T/pf.procs" &&
              grep -q " $T/ping.trace\$" "$T/pf.procs" && [ "$(cut -d" " -f3 "$T/pf.procs" | sort -u | wc -l)" -eq 2 ]'
    # Each function on its own process's tracks: the firmware's in echo.cyg's, ping's in ping.trace's.
    awk -v fw="$T/echo.cyg" -v pg="$T/ping.trace" '
        $1 == "P" { name[$3] = $4 } $1 == "O" { pid[$2] = $3 }
        $1 == "B" && $5 == "echo_request" && name[pid[$2]] != fw { print }
        $1 == "B" && ($5 == "ping_send" || $5 == "ping_received") && name[pid[$2]] != pg { print }' \
        "$T/merged.facts" >"$T/pf.misplaced"
    check pf-tracks "calls on another process's track: $(head -n 2 "$T/pf.misplaced" | tr '\n' '|')" \
        [ ! -s "$T/pf.misplaced" ]
    # Per round as in the Chrome trace (ns here): each send before its echo_request, before the next send.
    for f in ping_send echo_request ping_received; do
        awk -v f="$f" '$1 == "B" && $5 == f { print $4 }' "$T/merged.facts" | sort -n >"$T/pf.$f"
    done
    paste -d' ' "$T/pf.ping_send" "$T/pf.echo_request" "$T/pf.ping_received" >"$T/pf.rounds"
    PF_BAD=$(awk '{ s[NR] = $1; f[NR] = $2 }
        END { for (i = 1; i <= NR; i++) n += f[i] == "" || !(f[i] > s[i]) || (i < NR && !(f[i] < s[i + 1])); print n + 0 }' \
        "$T/pf.rounds")
    check pf-rounds "$(wc -l <"$T/pf.rounds") rounds" [ "$(wc -l <"$T/pf.rounds")" -eq "$ROUNDS" ]
    check pf-order "$PF_BAD rounds with echo_request not after its send (or after the next)" [ "$PF_BAD" -eq 0 ]
    # The same times as the Chrome trace's (us there), to the nanosecond's rounding.
    check pf-times "first send: perfetto $(head -n 1 "$T/pf.ping_send") ns, chrome $(head -n 1 "$T/rounds" | cut -d' ' -f1) us" \
        awk -v p="$(head -n 1 "$T/pf.ping_send")" -v c="$(head -n 1 "$T/rounds" | cut -d' ' -f1)" \
            -v pf="$(head -n 1 "$T/pf.echo_request")" -v cf="$(head -n 1 "$T/rounds" | cut -d' ' -f2)" \
            'BEGIN { d = p - c * 1000; e = pf - cf * 1000; exit !(d < 2 && d > -2 && e < 2 && e > -2) }'
fi

# The same in SQLite: a trace each, one query across both puts each echo_request between its
# send and the next.
if ! command -v sqlite3 >/dev/null; then
    skip sqlite-merged "sqlite3 is not installed (make deps)"
else
    run sql-export "$CT" export --format=sqlite "$FW" "$T/echo.cyg" "$PING" "$T/ping.trace" \
        -o "$T/merged.db"
    check sql-export "exit $RC: $(head -n 2 "$T/sql-export.err" | tr '\n' '|')" [ "$RC" -eq 0 ]
    check sql-traces "traces: $(sqlite3 "$T/merged.db" 'SELECT trace, clock FROM traces' | tr '\n' ' ')" \
        [ "$(sqlite3 "$T/merged.db" 'SELECT trace, clock FROM traces' | tr '\n' ' ')" = "1|host-monotonic 2|host-monotonic " ]
    sqlite3 "$T/merged.db" "SELECT f.name FROM calls c
        JOIN functions f ON f.trace = c.trace AND f.function = c.function
        WHERE f.name IN ('ping_send', 'echo_request') ORDER BY c.start" | uniq -c >"$T/sql.order"
    check sql-order "not $ROUNDS times ping_send then echo_request: $(head -n 4 "$T/sql.order" | tr -s ' \n' ' ')" \
        eval '[ "$(awk "{ print \$1, \$2 }" "$T/sql.order" | sort | uniq -c | tr -s " \n" " ")" = \
               " $ROUNDS 1 echo_request $ROUNDS 1 ping_send " ] && head -n 1 "$T/sql.order" | grep -q ping_send'
    check sql-times "echo_request's first start differs from the Chrome trace's" \
        [ "$(sqlite3 "$T/merged.db" "SELECT min(c.start) FROM calls c JOIN functions f ON f.trace = c.trace
               AND f.function = c.function WHERE f.name = 'echo_request'")" = \
          "$(head -n 1 "$T/rounds" | awk '{ printf "%.0f", $2 * 1000 }')" ]
fi

# --offset: a manual shift moves exactly that input.
run offset "$CT" export --format=chrome --offset=2:-1.5ms "$FW" "$T/echo.cyg" "$PING" "$T/ping.trace" \
    -o "$T/shifted.json"
first_ts() { jq "[.traceEvents[] | select(.name == \"ping_send\") | .ts][0]" "$1"; }
check offset "ping_send moved by $(jq -n "$(first_ts "$T/shifted.json") - $(first_ts "$T/merged.json")") us" \
    eval 'jq -en "($(first_ts "$T/shifted.json") - $(first_ts "$T/merged.json") + 1500) | fabs < 0.002" >/dev/null'

fw_ts() { jq "[.traceEvents[] | select(.name == \"echo_request\") | .ts][0]" "$1"; }
check offset-other "echo_request moved: $(fw_ts "$T/merged.json") to $(fw_ts "$T/shifted.json")" \
    [ "$(fw_ts "$T/merged.json")" = "$(fw_ts "$T/shifted.json")" ]

# A stream saved without host times (QEMU's -serial file:, or cygtrace before them) stays on
# its own clock, and a note says so and how to shift it.
STREAM=$BUILD/firmware/mps2-an385/stream.elf
run qemu-file timeout 60 qemu-system-arm -M mps2-an385 -display none -monitor none -nographic \
    -semihosting-config enable=on,target=native -serial "file:$T/plain.cyg" -kernel "$STREAM"
run export-plain "$CT" export --format=chrome "$STREAM" "$T/plain.cyg" "$PING" "$T/ping.trace" \
    -o "$T/plain.json"
check export-plain "exit $RC, or no note: $(tr '\n' '|' <"$T/export-plain.err")" \
    eval '[ "$RC" -eq 0 ] && grep -q "plain.cyg: nothing maps its clock onto the host.s .*--offset=INPUT:TIME shifts it" "$T/export-plain.err"'

# Bad --offset values and inputs: one line each.
for bad in 1 1:5 :1ms 1:1.5 1:ms 1:1e400s 2:--1ms; do
    expect_error "offset-bad-$bad" 2 "--offset=.*not INPUT:TIME" \
        "$CT" export --format=chrome --offset="$bad" "$FW" "$T/echo.cyg" "$PING" "$T/ping.trace"
done
expect_error offset-no-input 2 "--offset=3:1ms: no input 3 \(give its number, 1 to 2, or its DUMP\)" \
    "$CT" export --format=chrome --offset=3:1ms "$FW" "$T/echo.cyg" "$PING" "$T/ping.trace"
expect_error merge-odd 2 "several inputs go as ELF DUMP pairs" \
    "$CT" export --format=chrome "$FW" "$T/echo.cyg" "$PING"
expect_error merge-folded 2 "several inputs merge into --format=chrome, perfetto or sqlite only" \
    "$CT" export --format=folded "$FW" "$T/echo.cyg" "$PING" "$T/ping.trace"
expect_error offset-folded 2 "--offset places inputs on a time line: --format=chrome, perfetto or sqlite only" \
    "$CT" export --format=folded --offset=1:1ms "$PING" "$T/ping.trace"
finish
