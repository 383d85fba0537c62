#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fuzz_regress.sh - every input a fuzz target ever crashed or hung on (tests/fuzz/regress/
# TARGET/, one test each) and the seed corpus, replayed through the same fuzz targets built
# with the normal compiler (fuzz_replay_TARGET, tests/fuzz/replay.c). A crash, a hang (20 s)
# or a sanitizer report (make check SANITIZE=1 builds them with ASan and UBSan, which report
# and go on: the report is the failure) fails the test.
set -u
. "$(dirname "$0")/lib.sh"

REGRESS=$ROOT/tests/fuzz/regress
SEEDS=$BUILD/fuzz/seeds
TARGETS="dump stream rsp wsig wrap"
for t in $TARGETS; do
    need "$BUILD/tests/fuzz_replay_$t"
done

# replayed NAME TARGET COUNT PATH...: the replay ran PATH... to the end: exit 0, "COUNT inputs"
# (COUNT: how many it had to feed), no sanitizer report.
replayed() {
    local name=$1 t=$2 want=$3
    shift 3
    run "$name" "$BUILD/tests/fuzz_replay_$t" "$@"
    if [ "$RC" -ne 0 ]; then
        fail "$name" "exit status $RC on $(grep '^replay: ' "$T/$name.err" | tail -n 1)"
    elif grep -qE 'runtime error|ERROR: AddressSanitizer|ERROR: LeakSanitizer' "$T/$name.err"; then
        fail "$name" "$(grep -m 1 -E 'runtime error|ERROR: ' "$T/$name.err")"
    elif ! grep -qx "$want inputs" "$T/$name.out"; then
        fail "$name" "replayed '$(cat "$T/$name.out")', expected $want inputs"
    else
        pass "$name"
    fi
}

for t in $TARGETS; do
    for f in "$REGRESS/$t"/*; do
        [ -f "$f" ] || continue
        replayed "regress-$t-$(basename "$f")" "$t" 1 "$f"
    done
    n=$(find "$SEEDS/$t" -type f 2>/dev/null | wc -l)
    if [ "$n" -eq 0 ]; then
        fail "seeds-$t" "no seeds in $SEEDS/$t: run make"
    else
        replayed "seeds-$t" "$t" "$n" "$SEEDS/$t"
    fi
done

finish
