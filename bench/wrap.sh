#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wrap.sh [BUILD_DIR] - what a wrapped call costs on Linux (x86-64), against the same function
# called plainly and compiled with -finstrument-functions: nanoseconds per call of bench_inc(int)
# and bench_len("temperature") (bench/wrap_work.c), 10 million calls each (N), RUNS rounds
# (default 7) of the three variants interleaved (plain, instr, wrapped, plain, ...) so that
# drift on a noisy machine hits them alike; medians. Run from the top of the tree.
#
# Checks: after each traced run, the ring's write counter (cygtrace.out, byte 88) must hold the
# records the calls make: 2 a call instrumented (entry, exit); wrapped, 4 for bench_inc (entry,
# the argument, the return value, exit) and 5 for bench_len (the 11 bytes of "temperature" are
# 2 words of 8 bytes); plus the warm-up call and the runtime's own few, rounded up to a chunk
# (at most 256 more). A variant that recorded less is FAILED.
set -euo pipefail
O=${1:-build}
RUNS=${RUNS:-7}
N=${N:-10000000}
B=$O/bench/wrap

make --no-print-directory O="$O" "$O/cygtrace" runtime
make --no-print-directory -f bench/wrap.mk O="$O"
B=$(cd "$B" && pwd)

unset CYGTRACE_OUT CYGTRACE_SIZE CYGTRACE_MODE CYGTRACE_CALLSITES CYGTRACE_OFF
RUN=$(mktemp -d)
trap 'rm -rf "$RUN"' EXIT
cd "$RUN"

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
field() { awk -v w="$1" -v n="$2" '$1 == w { for (i = 2; i <= NF; i++) if (index($i, n "=") == 1)
                                                print substr($i, length(n) + 2) }' "$3"; }

declare -A want=([instr]=$((4 * N + 2)) [wrapped]=$((9 * N + 4)))
failed=0
for ((r = 0; r < RUNS; r++)); do
    for v in plain instr wrapped; do
        rm -f cygtrace.out cygtrace.out.maps
        "$B/wrap_$v" "$N" >out
        for w in inc len; do
            awk -v t="$(field $w ns out)" -v n="$(field $w calls out)" \
                'BEGIN { printf "%.2f\n", t / n }' >>"t.$v.$w"
        done
        if [ "$v" != plain ]; then
            head=$(od -An -t u8 -j 88 -N 8 cygtrace.out | tr -d ' ')
            if [ "$head" -lt "${want[$v]}" ] || [ "$head" -gt $((want[$v] + 256)) ]; then
                echo "  FAILED: wrap_$v: the ring's write counter is $head, expected ${want[$v]} (+ 256 at most)"
                failed=1
            fi
        fi
    done
done

declare -A med
for v in plain instr wrapped; do
    for w in inc len; do med[$v.$w]=$(median <"t.$v.$w"); done
done
above() { awk -v a="${med[$1.$2]}" -v b="${med[plain.$2]}" 'BEGIN { printf "%.1f", a - b }'; }
ratio() {
    awk -v w="${med[wrapped.$1]}" -v i="${med[instr.$1]}" -v p="${med[plain.$1]}" \
        'BEGIN { printf "%.2fx", (w - p) / (i - p) }'
}
echo "Wrapped calls, x86-64 Linux: ns per call, the calling loop included; medians of $RUNS"
echo "rounds of $N calls each ($(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores)"
printf '  %-46s %14s %20s\n' "" "bench_inc(int)" "bench_len(\"temperature\")"
printf '  %-46s %14s %20s\n' "plain call (no hooks)" "${med[plain.inc]}" "${med[plain.len]}" \
    "-finstrument-functions + runtime hooks" "${med[instr.inc]}" "${med[instr.len]}" \
    "precompiled, wrapped (cygtrace wrap)" "${med[wrapped.inc]}" "${med[wrapped.len]}"
echo "  above the plain call:"
printf '  %-46s %14s %20s\n' "-finstrument-functions + runtime hooks" "$(above instr inc)" \
    "$(above instr len)" "wrapped" "$(above wrapped inc)" "$(above wrapped len)" \
    "wrapped / instrumented" "$(ratio inc)" "$(ratio len)"
echo "  every round (ns per call, inc / len):"
for v in plain instr wrapped; do
    printf '    %-8s %s\n' "$v" "$(paste -d/ "t.$v.inc" "t.$v.len" | tr '\n' ' ')"
done

if [ "$failed" = 1 ]; then
    echo "wrap.sh: some checks FAILED (see above)" >&2
    exit 1
fi
