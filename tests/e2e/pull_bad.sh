#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# pull_bad.sh - "cygtrace pull" against servers that go wrong: one that answers E01, hangs up in
# the middle of the records, garbles every checksum, goes silent, holds no control block; an ELF
# from another build; hosts and ports where nobody answers; bad --gdb syntax. Each gets one line
# "cygtrace: ..." on stderr and a non-zero exit, well within a bounded time.
#
# The servers are tests/fake_gdb, serving a real trace file (crumble's) as target memory. Its
# good mode is the control: the same server answering well gives the tree of the file, over
# each way of reading (binary 'x', hex 'm', small packets, acknowledged packets, a serial tty).
set -u
. "$(dirname "$0")/lib.sh"

FAKE=$BUILD/tests/fake_gdb
need "$CT" "$BUILD/examples/crumble" "$BUILD/examples/hardcases" "$FAKE"
# Copies: the traces must come from the ELF files the tests pass, even if a make runs meanwhile.
cp "$BUILD/examples/crumble" "$BUILD/examples/hardcases" "$T/"
CRUMBLE=$T/crumble
H=$T/hardcases

PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done' EXIT

# le64 VALUE: 8 little-endian bytes.
le64() {
    local i
    for ((i = 0; i < 8; i++)); do
        printf "\\x$(printf %02x $((($1 >> (8 * i)) & 255)))"
    done
}

# image ELF DUMP OUT: a memory image for fake_gdb, to be served at the ELF's cyg_rt (printed):
# the pointer cyg_rt.ctl, then the dump 4 KB further on, where the pointer says. fake_gdb
# answers qOffsets with 0, so the link-time address is the run-time one.
image() {
    local rt
    rt=0x$(nm "$1" | awk '$3 == "cyg_rt" { print $1 }')
    { le64 $((rt + 4096)); head -c 4088 /dev/zero; cat "$2"; } >"$3"
    echo "$rt"
}

# fake TAG MODE IMAGE ADDR: starts fake_gdb; sets WHERE (HOST:PORT, or the pty's path) and
# FAKE_PID. Its exit status is 0 when the client detached.
fake() {
    local i
    rm -f "$T/$1.port"
    timeout 40 "$FAKE" "$T/$1.port" "$2" "$3" "$4" 2>"$T/$1.fake.err" &
    FAKE_PID=$!
    PIDS+=($FAKE_PID)
    for ((i = 0; i < 50; i++)); do
        [ -s "$T/$1.port" ] && break
        sleep 0.1
    done
    WHERE=$(cat "$T/$1.port" 2>/dev/null)
    [ "${WHERE#/}" = "$WHERE" ] && WHERE=127.0.0.1:$WHERE
}

TIMED_ERROR_MS=15000

run crumble env CYGTRACE_OUT="$T/crumble.trace" CYGTRACE_SIZE=64K "$CRUMBLE"
check crumble-runs "status $RC" [ "$RC" -eq 0 ]
RT=$(image "$CRUMBLE" "$T/crumble.trace" "$T/crumble.img")
run file-tree "$CT" tree "$CRUMBLE" "$T/crumble.trace"

# --- the control: the same server, answering well --------------------------------------------
for mode in ok ok,hex ok,small ok,ack,hex ok,pty; do
    tag=good-${mode//,/-}
    fake "$tag" "$mode" "$T/crumble.img" "$RT"
    run "$tag" "$CT" pull --timeout=2 --gdb="$WHERE" "$CRUMBLE"
    check "$tag" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
    check "$tag-same-tree" "pull over fake_gdb $mode differs from the file's tree" \
        same "$T/file-tree.out" "$T/$tag.out"
    wait "$FAKE_PID"
    fake_rc=$?
    check "$tag-detached" "fake_gdb exited with $fake_rc: no detach" [ "$fake_rc" -eq 0 ]
done
check good-pty-is-serial "fake_gdb ok,pty gave no device path: $WHERE" \
    eval '[ "${WHERE#/dev/}" != "$WHERE" ]'

# As a Black Magic Probe wants it: a serial line, a scan, an attach; with a halt and -o.
fake monitor ok,pty "$T/crumble.img" "$RT"
run monitor "$CT" pull --halt --monitor="reset halt" --monitor=version --attach=1 \
    -o "$T/monitor.dump" --gdb="$WHERE" "$CRUMBLE"
check monitor-exit "status $RC: $(head -n 1 "$T/monitor.err")" [ "$RC" -eq 0 ]
check monitor-output "the monitor commands' output is not on stderr: $(tr '\n' '|' <"$T/monitor.err")" \
    eval 'grep -qx "fake_gdb: monitor reset halt" "$T/monitor.err" &&
          grep -qx "fake_gdb: monitor version" "$T/monitor.err"'
check monitor-dump "the dump differs from the trace file" cmp -s "$T/crumble.trace" "$T/monitor.dump"

# --- servers that go wrong ----------------------------------------------------------------------
fake no-target ok "$T/crumble.img" "$RT"
timed_error no-target 'attach 2: the server answered E01 \(no such target; scan first' \
    "$CT" pull --attach=2 --gdb="$WHERE" "$CRUMBLE"
fake e01 e01 "$T/crumble.img" "$RT"
timed_error e01 'cyg_rt: reading 8 bytes at 0x[0-9a-f]+: the server answered E01' \
    "$CT" pull --timeout=2 --gdb="$WHERE" "$CRUMBLE"
fake close close "$T/crumble.img" "$RT"
timed_error close 'the records: reading [0-9]+ bytes at 0x[0-9a-f]+: the server closed the connection' \
    "$CT" pull --timeout=2 --gdb="$WHERE" "$CRUMBLE"
fake close-o close "$T/crumble.img" "$RT"
timed_error close-o 'the server closed the connection' \
    "$CT" pull --timeout=2 -o "$T/close.dump" --gdb="$WHERE" "$CRUMBLE"
check close-o-no-file "a dump was written from half a read" [ ! -e "$T/close.dump" ]
fake badsum badsum "$T/crumble.img" "$RT"
timed_error badsum 'checksum.*not a GDB server' "$CT" pull --timeout=2 --gdb="$WHERE" "$CRUMBLE"
fake badsum-ack badsum,ack "$T/crumble.img" "$RT"
timed_error badsum-ack 'checksum' "$CT" pull --timeout=2 --gdb="$WHERE" "$CRUMBLE"
fake silent silent "$T/crumble.img" "$RT"
timed_error silent 'cyg_rt: reading 8 bytes at 0x[0-9a-f]+: no answer within 2 s' \
    "$CT" pull --timeout=2 --gdb="$WHERE" "$CRUMBLE"
fake noctl noctl "$T/crumble.img" "$RT"
timed_error noctl 'the runtime has not set up its buffer yet \(cyg_rt points at no control block\)' \
    "$CT" pull --timeout=2 --gdb="$WHERE" "$CRUMBLE"

fake etext etext "$T/crumble.img" "$RT"
timed_error etext 'cyg_rt: reading 8 bytes at 0x[0-9a-f]+: the server answered E\.memory error' \
    "$CT" pull --timeout=2 --gdb="$WHERE" "$CRUMBLE"
# Console output every second does not keep a request alive: --timeout bounds the whole wait.
fake chatty chatty "$T/crumble.img" "$RT"
timed_error chatty 'cyg_rt: reading 8 bytes at 0x[0-9a-f]+: no answer within 2 s' \
    "$CT" pull --timeout=2 --gdb="$WHERE" "$CRUMBLE"

# --- Ctrl-C while a server keeps us waiting: ends at once, detaches, dies of the signal ---------
# interrupt TAG MODE SIGNAL STATUS: pull --timeout=30 from fake_gdb MODE, SIGNAL after 0.5 s.
# CT_NATIVE: the signal must reach the tool, not valgrind. env --default-signal: a command
# started in the background of a script ignores SIGINT otherwise.
interrupt() {
    local tag=$1 mode=$2 sig=$3 want=$4 pull_pid start took fake_rc
    fake "$tag" "$mode" "$T/crumble.img" "$RT"
    env --default-signal=INT "$CT_NATIVE" pull --timeout=30 --gdb="$WHERE" "$CRUMBLE" \
        >"$T/$tag.out" 2>"$T/$tag.err" &
    pull_pid=$!
    sleep 0.5
    start=$(date +%s%N)
    kill -"$sig" "$pull_pid"
    wait "$pull_pid"
    RC=$?
    took=$((($(date +%s%N) - start) / 1000000))
    wait "$FAKE_PID"
    fake_rc=$?
    check "$tag-dies-of-signal" "status $RC, expected $want (SIG$sig)" [ "$RC" -eq "$want" ]
    check "$tag-at-once" "took $took ms after the signal" [ "$took" -lt 1500 ]
    check "$tag-says-so" "stderr: $(tr '\n' '|' <"$T/$tag.err")" \
        grep -qx "cygtrace: gdb $WHERE: interrupted; detached from the target" "$T/$tag.err"
    check "$tag-detached" "fake_gdb exited with $fake_rc: no detach" [ "$fake_rc" -eq 0 ]
}
interrupt ctrl-c-silent silent INT 130
interrupt ctrl-c-chatty chatty INT 130
interrupt sigterm-silent silent TERM 143

# -o onto the ELF: refused before anything is asked of the server, the ELF intact.
cp "$CRUMBLE" "$T/crumble-o"
timed_error onto-elf 'crumble-o: is the ELF \(an input\); write the output elsewhere' \
    "$CT" pull --timeout=2 --gdb=127.0.0.1:1 -o "$T/crumble-o" "$T/crumble-o"
check onto-elf-intact "the ELF changed" cmp -s "$CRUMBLE" "$T/crumble-o"

# --- interrupted in the middle of a long read: still detaches, then dies of the signal --------
run big env CYGTRACE_OUT="$T/big.trace" "$CRUMBLE"
RT=$(image "$CRUMBLE" "$T/big.trace" "$T/big.img")
fake interrupted ok,slow "$T/big.img" "$RT" # 16 MB in 4 KB packets, 1 ms each: seconds
# CT_NATIVE: the signal comes 0.5 s after the start; under valgrind the tool is not reading yet.
timeout 20 "$CT_NATIVE" pull --gdb="$WHERE" -o "$T/interrupted.dump" "$CRUMBLE" \
    >"$T/interrupted.out" 2>"$T/interrupted.err" &
pull_pid=$!
sleep 0.5
kill -TERM "$pull_pid"
wait "$pull_pid"
RC=$?
wait "$FAKE_PID"
fake_rc=$?
check interrupted-dies-of-signal "status $RC, expected 143 (SIGTERM)" [ "$RC" -eq 143 ]
check interrupted-says-so "stderr: $(tr '\n' '|' <"$T/interrupted.err")" \
    grep -qx "cygtrace: gdb $WHERE: interrupted; detached from the target" "$T/interrupted.err"
check interrupted-detached "fake_gdb exited with $fake_rc: no detach" [ "$fake_rc" -eq 0 ]
check interrupted-no-dump "a dump was written from half a read" [ ! -e "$T/interrupted.dump" ]

# --- an ELF that does not match: refused before the records are read, unless --force ----------
HRT=$(image "$H" "$T/crumble.trace" "$T/other.img")
fake other-elf ok "$T/other.img" "$HRT"
timed_error other-elf 'another build \(build-id [0-9a-f]+, .*hardcases has [0-9a-f]+\).*--force' \
    "$CT" pull --timeout=2 --gdb="$WHERE" "$H"
fake other-elf-force ok "$T/other.img" "$HRT"
run other-elf-force "$CT" pull --force --timeout=2 --gdb="$WHERE" "$H"
run other-elf-tree "$CT" tree --force "$H" "$T/crumble.trace"
check other-elf-force "status $RC: $(head -n 1 "$T/other-elf-force.err")" [ "$RC" -eq 0 ]
check other-elf-force-same "pull --force differs from tree --force" \
    same "$T/other-elf-tree.out" "$T/other-elf-force.out"

# --- nobody there ----------------------------------------------------------------------------
timed_error unknown-host 'gdb nonexistent\.invalid:1234: unknown host' \
    "$CT" pull --timeout=2 --gdb=nonexistent.invalid:1234 "$CRUMBLE"
timed_error refused 'gdb 127\.0\.0\.1:1: connection refused; is the GDB server .* running' \
    "$CT" pull --timeout=2 --gdb=127.0.0.1:1 "$CRUMBLE"
timed_error no-tty 'gdb /dev/nonexistent-tty: No such file' \
    "$CT" pull --timeout=2 --gdb=/dev/nonexistent-tty "$CRUMBLE"
timed_error not-a-tty 'gdb /dev/null: not a serial device' \
    "$CT" pull --timeout=2 --gdb=/dev/null "$CRUMBLE"

# --- usage --------------------------------------------------------------------------------------
expect_error syntax-no-port 2 '--gdb=foo: not HOST:PORT or a serial device path' \
    "$CT" pull --gdb=foo "$CRUMBLE"
expect_error syntax-bad-port 2 "--gdb=host:99999: '99999' is not a port number" \
    "$CT" pull --gdb=host:99999 "$CRUMBLE"
expect_error syntax-bad-baud 2 '--gdb=/dev/nonexistent-tty:0: 0: not a baud rate' \
    "$CT" pull --gdb=/dev/nonexistent-tty:0 "$CRUMBLE"
expect_error no-gdb 2 'pull: needs --gdb=' "$CT" pull "$CRUMBLE"
expect_error no-elf 2 'pull: needs one ELF file' "$CT" pull --gdb=:3333
expect_error bad-timeout 2 '--timeout=0: not a number of seconds' \
    "$CT" pull --timeout=0 --gdb=:3333 "$CRUMBLE"
expect_error bad-option 2 'pull: --frobnicate: unknown option' \
    "$CT" pull --frobnicate --gdb=:3333 "$CRUMBLE"
run help "$CT" pull --help
check help "status $RC, or no --gdb in the usage" \
    eval '[ "$RC" -eq 0 ] && grep -q -- "--gdb=HOST:PORT" "$T/help.out"'

finish
