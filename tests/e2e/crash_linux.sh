#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# crash_linux.sh - kill -9 trials: the stress workload (tests/stress/stress_linux.c) with 1 or
# 4 threads, a 4K, 64K or 1M ring, overwrite or stop mode, with or without its timer signals,
# killed with SIGKILL after a random delay, mostly in the middle of a hook; then the ring file
# is decoded post-mortem (dec.c) and, per thread, the events must be EXACTLY a contiguous run
# of the thread's deterministic sequence (handler calls whole, between two of its events):
# nothing stale from an older lap, nothing invented, nothing reordered or missing but the
# thread's last event, whose slot is counted as unwritten, never shown.
#
# The choices and the delay of a trial come from its seed, printed on its line; the seeds are
# STRESS_SEED, STRESS_SEED + 1, ... (default: from the clock). A failing trial's parameters
# come back with STRESS_SEED=<its seed> STRESS_TRIALS=1; the moment the kill lands in the
# threads' interleaving does not, so a rare failure may need several runs.
# STRESS_TRIALS: 25 by default, 200 in make stress.
. "$(dirname "$0")/lib.sh"

SB=$BUILD/tests/stress
need "$CT" "$SB/stress_linux" "$SB/stress_check"
TRIALS=${STRESS_TRIALS:-25}
SEED=${STRESS_SEED:-}
[ -n "$SEED" ] || SEED=$(($(date +%s) % 1000000))
echo "    seeds $SEED..$((SEED + TRIALS - 1)); one again: STRESS_SEED=<seed> STRESS_TRIALS=1 bash $0"

timeout $((TRIALS * 3 + 60)) "$SB/stress_check" crash --trials "$TRIALS" --seed "$SEED" \
    --timeout 20 "$T" -- "$SB/stress_linux" </dev/null >"$T/crash.log" 2>&1
RC=$?

# One result per trial: its line says ok, or FAIL followed by what was wrong.
n=0
while IFS= read -r line; do
    seed=$(sed -n 's/^trial seed \([0-9]*\):.*/\1/p' <<<"$line")
    [ -n "$seed" ] || continue
    n=$((n + 1))
    if [[ $line == *": ok head "* ]]; then
        pass "crash-seed-$seed"
    else
        fail "crash-seed-$seed" "${line#trial seed $seed: }"
        awk -v s="trial seed $seed:" 'index($0, s) == 1 { on = 1; next }
            on && /^trial seed / { exit } on' "$T/crash.log" | head -n 12 | sed 's/^/    | /'
    fi
done <"$T/crash.log"

summary=$(grep '^crash: .* trials, ' "$T/crash.log")
echo "    ${summary:-no summary}"
if [ "$RC" -ge 124 ] || [ "$n" -ne "$TRIALS" ] || [ -z "$summary" ]; then
    fail "crash-all-trials" "status $RC, $n trial lines of $TRIALS: $(tail -n 1 "$T/crash.log")"
else
    pass "crash-all-trials"
fi

# The kill must land in the middle of a record now and then, or the trials prove little.
caught=$(sed -n 's/.* failed, \([0-9]*\) killed a writer .*/\1/p' <<<"$summary")
[ "$TRIALS" -lt 10 ] || check crash-caught-mid-record \
    "no trial of $TRIALS killed a writer in the middle of a hook" \
    test "${caught:-0}" -gt 0

# The host tool on the last trial's ring agrees with the checker on what it holds.
last=$(grep '^trial seed ' "$T/crash.log" | tail -n 1)
run info "$CT" info "$SB/stress_linux" "$T/crash.ring"
dec=$(sed -n 's/.* decoded \([0-9]*\) unwritten .*/\1/p' <<<"$last")
unw=$(sed -n 's/.* unwritten \([0-9]*\) holes .*/\1/p' <<<"$last")
if [ "$RC" -ne 0 ] || [ -z "$dec" ]; then
    fail crash-info "status $RC: $(head -n 1 "$T/info.err")"
elif ! grep -q "^held: *$dec records" "$T/info.out" ||
    ! grep -q "^unwritten: *$unw slots" "$T/info.out"; then
    fail crash-info "checker: decoded $dec, unwritten $unw; info: $(grep -E '^(held|unwritten)' "$T/info.out" | tr '\n' '|')"
else
    pass crash-info
fi

finish
