#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/hookcost.sh [O] - durations corrected for the hooks' own cost (issue 31), on fib(N):
# the untraced program's time for fib(N) (bench/fib.c built without -finstrument-functions,
# its own clock around the call) against the traced program's fib(N) as `cygtrace report`
# shows it, as recorded (--raw-times) and corrected (the default: the runtime's figure per
# event taken out). RUNS rounds, each the untraced run then the traced one, so that the load of
# the machine hits both alike; medians, and the ratios to the untraced time.
#
# Prints one line per round and two summaries, the medians and the minima (the least disturbed
# runs: on a loaded machine a traced run that the scheduler preempted holds that time too):
#   untraced_ns=... raw_ns=... corrected_ns=... hook_ns=... raw_x=... corrected_x=...
# Environment: FIB_N (default 25: 485 570 events, which the default 16 MB ring holds whole),
# RUNS (default 7). Run from the top of the tree after `make`.
set -euo pipefail
O=${1:-build}
B=$O/bench
N=${FIB_N:-25}
RUNS=${RUNS:-7}
make --no-print-directory -f bench/bench.mk O="$O" "$B/fib_cygtrace" "$B/fib_untraced" >/dev/null
unset CYGTRACE_SIZE CYGTRACE_MODE CYGTRACE_CALLSITES CYGTRACE_OFF
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# ns VALUE UNIT: a time as report prints it, in ns.
ns() { awk -v v="$1" -v u="$2" 'BEGIN { m = u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1
                                       printf "%.0f", v * m }'; }
# fib's total in report's table (recursion: the outermost calls' time), in ns.
fib_total() {
    "$O/cygtrace" report "$@" "$B/fib_cygtrace" "$T/fib.ring" |
        awk '$NF == "fib" { print $2, $3; exit }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: >"$T/rounds"
for r in $(seq "$RUNS"); do
    u=$("$B/fib_untraced" "$N" | sed -n 's/.* ns=\([0-9]*\).*/\1/p')
    CYGTRACE_OUT="$T/fib.ring" "$B/fib_cygtrace" "$N" >/dev/null
    read -r v unit <<<"$(fib_total --raw-times)"
    raw=$(ns "$v" "$unit")
    read -r v unit <<<"$(fib_total)"
    cor=$(ns "$v" "$unit")
    hook=$("$O/cygtrace" report "$B/fib_cygtrace" "$T/fib.ring" |
        sed -n 's/^# durations corrected for hook cost: \([0-9.]*\) ns per event.*/\1/p')
    echo "$u $raw $cor ${hook:-0}" >>"$T/rounds"
    awk -v u="$u" -v r="$raw" -v c="$cor" -v h="${hook:-0}" -v i="$r" 'BEGIN {
        printf "round %d: untraced_ns=%d raw_ns=%d corrected_ns=%d hook_ns=%s raw_x=%.2f corrected_x=%.2f\n",
               i, u, r, c, h, r / u, c / u }'
done
# summary NAME PICK: the rounds' PICK (median, or min: the least disturbed) of each column.
summary() {
    u=$(awk '{ print $1 }' "$T/rounds" | $2)
    raw=$(awk '{ print $2 }' "$T/rounds" | $2)
    cor=$(awk '{ print $3 }' "$T/rounds" | $2)
    hook=$(awk '{ print $4 }' "$T/rounds" | median)
    awk -v u="$u" -v r="$raw" -v c="$cor" -v h="$hook" -v n="$N" -v k="$RUNS" -v what="$1" 'BEGIN {
        printf "fib(%d), %s of %d: untraced_ns=%d raw_ns=%d corrected_ns=%d hook_ns=%s raw_x=%.2f corrected_x=%.2f\n",
               n, what, k, u, r, c, h, r / u, c / u }'
}
minimum() { sort -n | head -1; }
summary medians median
summary minima minimum
