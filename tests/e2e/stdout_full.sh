#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# stdout_full.sh - a standard output that cannot be written (/dev/full: a full disk; a closed
# descriptor): every command that writes there says so in one line, "cygtrace: standard
# output: No space left on device", and exits non-zero, never 0 with a report cut short; a
# command that wrote nothing there lost nothing. Each subcommand: its --help, and what it
# prints (tree in each style, report, info, graph, export, pull through tests/fake_gdb, live
# --plain following a ring); arm's own output is tested in fw_arm.sh, against its RAM image.
set -u
. "$(dirname "$0")/lib.sh"

# CYGTRACE_COMPARE's wrapper takes standard output into files of its own: /dev/full must reach
# the tool itself.
[ -n "${CYGTRACE_COMPARE:-}" ] && CT=$CT_NATIVE
CRUMBLE=$BUILD/examples/crumble
FAKE=$BUILD/tests/fake_gdb
need "$CT" "$CRUMBLE" "$FAKE"
cp "$CRUMBLE" "$T/" # the trace must come from the ELF passed, even if a make runs meanwhile
CRUMBLE=$T/crumble

PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done' EXIT

NOSPACE='^cygtrace: standard output: No space left on device$'

# full NAME CMD...: CMD with its standard output on /dev/full: a non-zero status (no signal,
# no timeout), and the line NOSPACE exactly once on stderr.
full() {
    local name=$1 n
    shift
    (
        exec 2>/dev/null
        timeout "$E2E_TIMEOUT" "$@" </dev/null >/dev/full 2>"$T/$name.err"
    )
    RC=$?
    n=$(grep -c "$NOSPACE" "$T/$name.err")
    if [ "$RC" -eq 0 ] || [ "$RC" -ge 124 ]; then
        fail "$name" "exit status $RC: $(tr '\n' '|' <"$T/$name.err" | cut -c1-200)"
    elif [ "$n" -ne 1 ]; then
        fail "$name" "the write error said $n times: $(tr '\n' '|' <"$T/$name.err" | cut -c1-200)"
    else
        pass "$name"
    fi
}

run crumble env CYGTRACE_OUT="$T/good.trace" CYGTRACE_SIZE=64K CYGTRACE_CALLSITES=1 "$CRUMBLE"
check crumble-runs "status $RC" [ "$RC" -eq 0 ]
# The same commands on a writable output: they succeed (the failures below are the output's).
run tree-ok "$CT" tree "$CRUMBLE" "$T/good.trace"
check tree-ok "status $RC: $(head -n 1 "$T/tree-ok.err")" eval '[ "$RC" -eq 0 ] && [ -s "$T/tree-ok.out" ]'

# --- every command's help, and the version -----------------------------------------------------
full help "$CT" --help
full version "$CT" --version
for cmd in tree report graph export info dump pull arm live record wrap; do
    full "$cmd-help" "$CT" "$cmd" --help
done

# --- what the commands print --------------------------------------------------------------------
for style in tree etrace braces; do
    full "tree-$style" "$CT" tree --style="$style" "$CRUMBLE" "$T/good.trace"
done
full report "$CT" report "$CRUMBLE" "$T/good.trace"
full info "$CT" info "$T/good.trace"
full info-elf "$CT" info "$CRUMBLE" "$T/good.trace"
full dump "$CT" dump "$CRUMBLE" "$T/good.trace"
full graph "$CT" graph --function=main "$CRUMBLE" "$T/good.trace"
for fmt in chrome folded callgrind; do
    full "export-$fmt" "$CT" export --format="$fmt" "$CRUMBLE" "$T/good.trace"
done
# live --plain ends at the first write that fails, while the program it follows runs on (it
# would follow it for ever, writing nothing).
cat >"$T/spin.c" <<'EOF'
#include <time.h>

int leaf(int x)
{
    return x * 3 + 1;
}

int main(void)
{
    struct timespec ms = {0, 1000000};
    int acc = 0;

    for (int i = 0; i < 15000; i++) { /* 15 s */
        acc += leaf(i);
        nanosleep(&ms, NULL);
    }
    return acc == 42;
}
EOF
if gcc -std=gnu11 -finstrument-functions -g -O1 -fno-inline -o "$T/spin" "$T/spin.c" \
    "$BUILD/linux/libcygtrace.a" -lpthread 2>"$T/gcc.err"; then
    CYGTRACE_OUT="$T/spin.ring" timeout 20 "$T/spin" </dev/null >/dev/null 2>&1 &
    spin_pid=$!
    PIDS+=($spin_pid)
    sleep 0.3
    start=$(date +%s%N)
    full live-plain "$CT" live --plain --from-start --follow="$T/spin.ring" --duration=10 "$T/spin"
    took=$((($(date +%s%N) - start) / 1000000))
    check live-plain-stops "took $took ms: it did not stop at the write error" [ "$took" -lt 3000 ]
    kill "$spin_pid" 2>/dev/null
else
    fail spin-compile "gcc failed: $(head -n 1 "$T/gcc.err")"
fi

# A descriptor closed all along: the same, with its reason; with nothing written, nothing lost.
# CT_NATIVE: valgrind would open its log as descriptor 1.
(exec 2>/dev/null; timeout "$E2E_TIMEOUT" "$CT_NATIVE" info "$T/good.trace" >&- 2>"$T/closed.err")
RC=$?
check closed-stdout "status $RC: $(tr '\n' '|' <"$T/closed.err")" \
    eval '[ "$RC" -eq 1 ] && grep -qx "cygtrace: standard output: Bad file descriptor" "$T/closed.err"'
(exec 2>/dev/null; timeout "$E2E_TIMEOUT" "$CT_NATIVE" record -o "$T/rec.trace" -- true >&- \
    2>"$T/closed-quiet.err")
RC=$?
check closed-stdout-unused "status $RC: $(tr '\n' '|' <"$T/closed-quiet.err")" \
    eval '[ "$RC" -eq 0 ] && ! grep -q "standard output" "$T/closed-quiet.err"'

# --- pull: the tree it prints, from a fake GDB server serving the trace as memory ---------------
le64() {
    local i
    for ((i = 0; i < 8; i++)); do
        printf "\\x$(printf %02x $((($1 >> (8 * i)) & 255)))"
    done
}
rt=0x$(nm "$CRUMBLE" | awk '$3 == "cyg_rt" { print $1 }')
{ le64 $((rt + 4096)); head -c 4088 /dev/zero; cat "$T/good.trace"; } >"$T/crumble.img"
rm -f "$T/fake.port"
timeout 40 "$FAKE" "$T/fake.port" ok "$T/crumble.img" "$rt" 2>"$T/fake.err" &
FAKE_PID=$!
PIDS+=($FAKE_PID)
for ((i = 0; i < 50; i++)); do
    [ -s "$T/fake.port" ] && break
    sleep 0.1
done
full pull "$CT" pull --timeout=2 --gdb=127.0.0.1:"$(cat "$T/fake.port")" "$CRUMBLE"
wait "$FAKE_PID"
fake_rc=$?
check pull-detached "fake_gdb exited with $fake_rc: no detach" [ "$fake_rc" -eq 0 ]

finish
