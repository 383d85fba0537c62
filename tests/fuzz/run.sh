#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh BUILD SECONDS PARALLEL TARGET... - runs each libFuzzer target of BUILD/fuzz for SECONDS
# (or until FUZZ_RUNS executions when the environment sets it; PARALLEL at once, 2 at most),
# growing BUILD/fuzz/corpus/TARGET from the seeds; prints one line per target (executions,
# exec/s, coverage, findings) and fails when any target found a crash, a hang (5 s for one
# input) or a leak, naming the reproducer.
set -u
B=$1 SECS=$2 PAR=$3
shift 3
[ "$PAR" -ge 1 ] 2>/dev/null || PAR=1
[ "$PAR" -gt 2 ] && PAR=2
F=$B/fuzz
pids=()
status=0

start() {
    local t=$1
    rm -rf "$F/artifacts/$t" # what an earlier run found is in its log, or in regress/
    mkdir -p "$F/corpus/$t" "$F/artifacts/$t"
    # -max_len: rings (500 records), streams and sessions bigger than this add nothing but
    # time per input. No allocation stacks in ASan reports (a replay of the reproducer gives
    # them): unwinding at every malloc and free is a tenth of the time.
    ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0} \
    "$F/fuzz_$t" "$F/corpus/$t" "$F/seeds/$t" -max_total_time="$SECS" -timeout=5 \
        -rss_limit_mb=2048 -max_len="$([ "$t" = dump ] && echo 8192 || echo 16384)" \
        ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -print_final_stats=1 \
        -artifact_prefix="$F/artifacts/$t/" >"$F/$t.log" 2>&1 &
    pids+=($!)
}

report() {
    local t=$1 rc=$2 log=$F/$1.log execs eps cov ft found
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
    found=$(find "$F/artifacts/$t" -type f | wc -l)
    printf '  FUZZ    %-7s %s executions, %s exec/s, %s, %s findings\n' "$t" "${execs:-?}" \
        "${eps:-?}" "${cov:-cov: ?}" "$found"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        echo "  FUZZ    $t: exit status $rc; log $log; reproducers:"
        find "$F/artifacts/$t" -type f | sed 's/^/            /'
        status=1
    fi
}

running=()
for t in "$@"; do
    start "$t"
    running+=("$t")
    if [ "${#pids[@]}" -ge "$PAR" ]; then
        wait "${pids[0]}"
        report "${running[0]}" $?
        pids=("${pids[@]:1}")
        running=("${running[@]:1}")
    fi
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    report "${running[$i]}" $?
done
exit $status
