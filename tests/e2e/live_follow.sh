#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# live_follow.sh - "cygtrace live --follow --from-start" started before the program it follows:
# every event the program made is either shown or counted lost, whether its ring lapped before
# the first poll (overwrite mode) or filled up and dropped the rest (stop mode); and the names
# are resolved, however early in the program's set-up the follow came. Without --from-start,
# the same: a ring that comes after live started is read from its first record (main's entry,
# the calls before the first poll), whether the program paces its calls or runs flat out.
set -u
. "$(dirname "$0")/lib.sh"

need "$CT"
if [ ! -e "$BUILD/linux/libcygtrace.a" ]; then
    fail "$E2E_NAME-prerequisites" "$BUILD/linux/libcygtrace.a is missing: run make"
    finish
fi

# burst N M: N calls of leaf() flat out (a small ring laps long before a reader's first poll),
# then M calls at a pace a reader keeps up with (5 per millisecond).
cat >"$T/burst.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int leaf(int x)
{
    return x * 3 + 1;
}

int main(int argc, char **argv)
{
    long burst = argc > 1 ? atol(argv[1]) : 0, paced = argc > 2 ? atol(argv[2]) : 0, acc = 0;
    struct timespec ms = {0, 1000000};

    for (long i = 0; i < burst; i++)
        acc += leaf((int)i);
    for (long i = 0; i < paced; i++) {
        acc += leaf((int)i);
        if (i % 5 == 4)
            nanosleep(&ms, NULL);
    }
    printf("calls %ld\n", burst + paced + 1); /* main too */
    return acc == 42;
}
EOF
if ! gcc -std=gnu11 -finstrument-functions -g -O1 -fno-inline -o "$T/burst" "$T/burst.c" \
    "$BUILD/linux/libcygtrace.a" -lpthread 2>"$T/gcc.err"; then
    fail burst-compile "gcc failed: $(head -n 1 "$T/gcc.err")"
    finish
fi

# follow TAG [--now] ENV... -- ARGS: starts live --follow --from-start (--now: without it) on
# $T/TAG.ring before the ring exists, then runs burst ARGS with CYGTRACE_OUT=$T/TAG.ring and
# the ENV settings; live's output in $T/TAG.out and .err, its status in $LRC. Both run under
# timeout, and live is killed by its pid if it has not ended 10 s after the program.
follow() {
    local tag=$1 env=() lpid i start=--from-start
    shift
    if [ "$1" = --now ]; then
        start=
        shift
    fi
    while [ "$1" != -- ]; do
        env+=("$1")
        shift
    done
    shift
    rm -f "$T/$tag.ring" "$T/$tag.ring.maps"
    timeout 30 "$CT" live --plain --no-collapse --follow="$T/$tag.ring" $start "$T/burst" \
        </dev/null >"$T/$tag.out" 2>"$T/$tag.err" &
    lpid=$!
    sleep 0.2 # live is waiting for the ring now
    env "${env[@]}" CYGTRACE_OUT="$T/$tag.ring" timeout 20 "$T/burst" "$@" \
        </dev/null >"$T/$tag.prog" 2>&1
    for ((i = 0; i < 100; i++)); do
        kill -0 "$lpid" 2>/dev/null || break
        sleep 0.1
    done
    kill "$lpid" 2>/dev/null
    wait "$lpid"
    LRC=$?
}

# account TAG: whether "shown + lost = made": the events live showed plus the losses it
# reported, against the records the program wrote plus those its runtime counted as dropped
# (cygtrace info of the ring once the program is done); the figures in $ACCOUNT, $WRITTEN.
account() {
    local tag=$1 events lost dropped
    events=$(sed -n 's/^# \([0-9]*\) events; .*/\1/p' "$T/$tag.out")
    lost=$(sed -n 's/^# \([0-9]*\) events were lost: .*/\1/p' "$T/$tag.out")
    run "$tag-info" "$CT" info "$T/$tag.ring"
    # head counts slots; those of a chunk that hold no event (padding, an unused end) are no
    # record the program wrote.
    # A version 4 ring (CYGTRACE_FORMAT=4) starts each chunk with a CHUNK word, no record: those
    # of the chunks it overwrote too (FORMAT.md 15.3).
    WRITTEN=$(awk '/^written:/ { w = $2 } /^padding:/ { p = $2 } /^unwritten:/ { u = $2 }
        /^format: *version 4,/ { v4 = 1 } /^overwritten:/ { o = $2 }
        END { if (w != "") print int(w - p - u - (v4 ? o / 64 : 0)) }' "$T/$tag-info.out")
    dropped=$(sed -n 's/^lost: *\([0-9]*\).*/\1/p' "$T/$tag-info.out")
    ACCOUNT="shown ${events:-?} + lost ${lost:-0}"
    ACCOUNT+=", made: written ${WRITTEN:-?} + dropped ${dropped:-?}"
    [ -n "$events" ] && [ -n "$WRITTEN" ] && [ -n "$dropped" ] &&
        [ $((events + ${lost:-0})) -eq $((WRITTEN + dropped)) ]
}

# --- overwrite: a 16K ring (1024 records) lapped many times before live's first look ------------
follow lapped CYGTRACE_SIZE=16K -- 5000 500
calls=$(sed -n 's/^calls //p' "$T/lapped.prog")
check lapped-status "live status $LRC: $(tail -n 1 "$T/lapped.err")" [ "$LRC" -eq 0 ]
check lapped-end "the follow did not end with the program: $(tail -n 1 "$T/lapped.out")" \
    grep -q '; the program exited$' "$T/lapped.out"
account lapped
check lapped-accounted "$ACCOUNT" [ $? -eq 0 ]
check lapped-made "the program made ${calls:-?} calls, the ring holds ${WRITTEN:-?} records" \
    [ "${calls:-0}" -eq 5501 -a "${WRITTEN:-0}" -ge 11002 ]
check lapped-loss-said "no loss line at the top of the tree: $(sed -n 2p "$T/lapped.out")" \
    grep -Eq '^\*\*\* [0-9]+ events lost' "$T/lapped.out"
# Names from the program's load bias, also when live came in the middle of its set-up.
shown=$(grep -c ' leaf();$' "$T/lapped.out")
check lapped-named \
    "leaf() shown $shown times; unnamed: $(grep -m 1 '0x[0-9a-f]*()' "$T/lapped.out")" \
    eval '[ "$shown" -ge 100 ] && ! grep -q "0x[0-9a-f]*()" "$T/lapped.out"'

# --- stop mode: the ring fills up and the runtime drops (and counts) the rest -------------------
follow full CYGTRACE_SIZE=4K CYGTRACE_MODE=stop -- 3000 0
check full-status "live status $LRC: $(tail -n 1 "$T/full.err")" [ "$LRC" -eq 0 ]
account full
check full-accounted "$ACCOUNT" [ $? -eq 0 ]
check full-says-why "summary: $(grep '^# [0-9]' "$T/full.out" | tr '\n' '|')" \
    grep -q '^# [0-9]* events were lost: the ring was full (stop mode)$' "$T/full.out"

# --- without --from-start: the ring came after live, so all of it is shown ---------------------
# paced: main's entry, then calls at 5 a millisecond (the first ones before live's first poll);
# flat: 3000 calls and the exit in a few hundred microseconds, before live's first look. The
# ring (1M) holds them all: every event is shown, none lost (the THREAD and START records
# count as events too: 2 a call + 2).
for spec in "paced 0 200" "flat 3000 0"; do
    set -- $spec
    tag=now-$1
    follow "$tag" --now -- "$2" "$3"
    calls=$(sed -n 's/^calls //p' "$T/$tag.prog")
    check "$tag-status" "live status $LRC: $(tail -n 1 "$T/$tag.err")" [ "$LRC" -eq 0 ]
    check "$tag-main" "main's entry or exit not shown: $(sed -n 2,3p "$T/$tag.out" | tr '\n' '|')" \
        eval 'grep -q "^ *main() {$" "$T/$tag.out" && grep -q "} /\* main \*/$" "$T/$tag.out"'
    shown=$(grep -c ' leaf();$' "$T/$tag.out")
    check "$tag-calls" "leaf() shown $shown times, the program made $((${calls:-1} - 1))" \
        [ "$shown" -eq $((${calls:-1} - 1)) -a "$shown" -eq $(($2 + $3)) ]
    events=$(sed -n 's/^# \([0-9]*\) events; .*/\1/p' "$T/$tag.out")
    check "$tag-events" "$(grep '^# [0-9]' "$T/$tag.out" | tr '\n' '|'), the program made ${calls:-?} calls" \
        eval '[ "${events:-0}" -eq $((2 * ${calls:-0} + 2)) ] && ! grep -q "events were lost" "$T/$tag.out"'
    account "$tag"
    check "$tag-accounted" "$ACCOUNT" [ $? -eq 0 ]
done

finish
