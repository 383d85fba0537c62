#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# pull_linux.sh - "cygtrace pull" against a real GDB server: gdbserver attached to a running
# Linux example (hardcases wait: a few calls, then asleep inside wait_here). What pull reads
# out of the process's memory must be what its trace file holds: the same tree, the same bytes
# with -o, and the same bytes as gdb's own "dump binary memory" through tools/cygtrace.gdb.
set -u
. "$(dirname "$0")/lib.sh"

need "$CT" "$BUILD/examples/hardcases"
cp "$BUILD/examples/hardcases" "$T/" # what runs is what pull reads, even if make runs meanwhile
H=$T/hardcases
for tool in gdbserver gdb-multiarch; do
    if ! command -v $tool >/dev/null; then
        fail "$E2E_NAME-prerequisites" "$tool is not installed (make deps)"
        finish
    fi
done

PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do
        kill "$p" 2>/dev/null
    done
}
trap cleanup EXIT

# wait_for FILE REGEX SECONDS: polls until FILE has a line matching REGEX; prints the line.
wait_for() {
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        if grep -Eq "$2" "$1" 2>/dev/null; then
            grep -E -m1 "$2" "$1"
            return 0
        fi
        sleep 0.1
    done
    return 1
}

# gdbserver_attach TAG: gdbserver attached to $PID on a free port (it picks it: port 0);
# sets $PORT, or fails TAG and returns 1. It exits when its client detaches.
gdbserver_attach() {
    local line
    timeout 60 gdbserver --once --attach 127.0.0.1:0 "$PID" >"$T/$1.gdbserver" 2>&1 &
    PIDS+=($!)
    if ! line=$(wait_for "$T/$1.gdbserver" '^Listening on port [0-9]+' 10); then
        fail "$1" "gdbserver did not listen: $(tr '\n' '|' <"$T/$1.gdbserver")"
        return 1
    fi
    PORT=${line##* }
    return 0
}

# The program: records main -> run_wait -> fact x3 -> wait_here, then sleeps 30 s.
CYGTRACE_OUT=$T/trace.out timeout 60 "$H" wait >"$T/wait.out" 2>&1 </dev/null &
PIDS+=($!)
if ! line=$(wait_for "$T/wait.out" '^wait: pid [0-9]+$' 10); then
    fail wait-starts "no 'wait: pid N' line: $(head -c 200 "$T/wait.out")"
    finish
fi
PID=${line##* }
PIDS+=("$PID")
pass wait-starts

# --- pull over gdbserver's port: the tree of the file -----------------------------------------
if gdbserver_attach pull; then
    start=$(date +%s)
    run pull "$CT" pull --gdb=127.0.0.1:$PORT "$H"
    took=$(($(date +%s) - start))
    # The process is stopped under gdbserver until we detach, so the file is what pull read.
    run file-tree "$CT" tree "$H" "$T/trace.out"
    check pull-exit "status $RC: $(head -n 1 "$T/pull.err")" [ "$RC" -eq 0 ]
    check pull-stderr-empty "stderr: $(head -n 1 "$T/pull.err")" [ ! -s "$T/pull.err" ]
    check pull-same-tree "pull and tree differ" same "$T/file-tree.out" "$T/pull.out"
    check pull-fast "16 MB took $took s" [ "$took" -le 10 ]
    check pull-shows-open-frames "no wait_here() { / call stack" eval \
        'grep -q "^ *wait_here() {$" "$T/pull.out" && grep -q "^#   0   wait_here$" "$T/pull.out"'
    check pull-fact-closed "fact is not closed in the tree" grep -q '} /\* fact \*/$' "$T/pull.out"
    wait_for "$T/pull.gdbserver" 'Detaching from process' 5 >/dev/null
    detached=$?
    check pull-detached "gdbserver did not detach: $(tail -n 1 "$T/pull.gdbserver")" \
        [ "$detached" -eq 0 ]
    check pull-target-alive "the process is gone after the detach" kill -0 "$PID"
fi

# --- pull -o: the dump is the trace file, byte for byte ----------------------------------------
if gdbserver_attach pull-o; then
    run pull-o "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/pull.dump" "$H"
    check pull-o-exit "status $RC: $(head -n 1 "$T/pull-o.err")" [ "$RC" -eq 0 ]
    check pull-o-quiet "stdout or stderr not empty" \
        eval '[ ! -s "$T/pull-o.out" ] && [ ! -s "$T/pull-o.err" ]'
    check pull-o-same-bytes "the dump differs from the trace file" cmp -s "$T/trace.out" "$T/pull.dump"
    run dump-tree "$CT" tree "$H" "$T/pull.dump"
    check pull-o-decodes "tree of the dump differs" same "$T/file-tree.out" "$T/dump-tree.out"
fi

# --- the display options pass through, and --halt on a target already stopped ---------------
if gdbserver_attach pull-etrace; then
    # gdbserver stopped the process when it attached: the interrupt gets no stop reply, and pull
    # goes on after the (short) timeout.
    run pull-etrace "$CT" pull --halt --timeout=1 --style=etrace --depth=3 --gdb=127.0.0.1:$PORT "$H"
    run file-etrace "$CT" tree --style=etrace --depth=3 "$H" "$T/trace.out"
    check pull-etrace "status $RC: $(head -n 1 "$T/pull-etrace.err")" [ "$RC" -eq 0 ]
    check pull-etrace-same "pull --style=etrace differs from tree's" \
        same "$T/file-etrace.out" "$T/pull-etrace.out"
fi

# --- progress on a terminal (script gives the command a pty) ----------------------------------
if command -v script >/dev/null && gdbserver_attach pull-tty; then
    timeout 30 script -qec "'$CT' pull --gdb=127.0.0.1:$PORT -o '$T/tty.dump' '$H'" /dev/null \
        </dev/null >"$T/pull-tty.out" 2>&1
    check pull-tty-progress "no progress line: $(tr '\r\n' '||' <"$T/pull-tty.out" | cut -c1-160)" \
        grep -Eq 'pulling 16384 of 16384 KB \(100%\), [0-9]+ KB/s' "$T/pull-tty.out"
    check pull-tty-dump "the dump differs" cmp -s "$T/trace.out" "$T/tty.dump"
fi
check pull-no-tty-no-progress "progress on a non-tty stderr" \
    eval '! grep -q pulling "$T/pull.err" "$T/pull-o.err"'

# --- gdb with tools/cygtrace.gdb: the same bytes ------------------------------------------------
run gdb env -u DEBUGINFOD_URLS gdb-multiarch -batch -nx -iex 'set debuginfod enabled off' \
    -x "$ROOT/tools/cygtrace.gdb" -ex "attach $PID" -ex cygtrace-info \
    -ex "cygtrace-dump $T/gdb.dump" -ex detach "$H"
check gdb-dump-written "gdb wrote no dump: $(grep -m1 -i error "$T/gdb.err")" [ -s "$T/gdb.dump" ]
check gdb-dump-same-bytes "gdb's dump differs from pull -o's" cmp -s "$T/pull.dump" "$T/gdb.dump"
run gdb-tree "$CT" tree "$H" "$T/gdb.dump"
check gdb-dump-decodes "tree of gdb's dump differs" same "$T/file-tree.out" "$T/gdb-tree.out"
check gdb-info "cygtrace-info: $(grep -E '^(state|head)' "$T/gdb.out" | tr '\n' '|')" eval \
    'grep -q "^state: *running$" "$T/gdb.out" && grep -Eq "^head: *[0-9]+ events written$" "$T/gdb.out"'

# --- an ELF without the runtime: said before anything is asked of a server ---------------------
expect_error no-cyg_rt 1 'gdbserver: ELF has no cyg_rt symbol: is the cygtrace runtime linked in\?' \
    "$CT" pull --gdb=127.0.0.1:1 "$(command -v gdbserver)"

kill "$PID" 2>/dev/null
finish
