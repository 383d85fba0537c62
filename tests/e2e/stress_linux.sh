#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# stress_linux.sh - the Linux runtime under load: 4 worker threads and their per-thread timer
# signals (whose handler records too, often in the middle of a hook) write one small ring in
# overwrite mode while a reader follows it (host/follow.c, the lock-free read of a running
# ring, in tests/stress/stress_check). Checks, from each run:
#   counts    read + lost + the slots that hold no event (padding, unused ends of threads'
#             chunks) == the ring's head; the program's own count + the runtime's specials is
#             what was read, with what was lost (read == it when nothing was lost)
#   records   no torn or invented record: every function is the stress program's and of its
#             thread's family, kinds and order are exactly the thread's pattern after a gap
#             too (a stale record, or one hidden under it, breaks it), handler calls whole; a
#             record lost under a late store (a writer preempted for laps between its slot's
#             check and its store, whose record of that lap covers it at the end of a chunk,
#             where no gap is said) is counted by the checker ("late stores"), up to 8 a run
#   time      timestamps within a thread never go back (but for the one case the hook's
#             order allows: a handler between a reservation and its clock read, counted)
#   balanced  each thread ends between two top-level calls, outside the handler
#   post      the final ring decoded post-mortem (dec.c): the same checks, no slot unwritten
#             amid its chunk (a thread preempted for half a ring leaves its chunk's end unused)
#             but under late stores that no lap wrote over (the last lap's: up to 8)
#   info      cygtrace info: written == head (slots), at most 8 unwritten slots amid a chunk
#   tree      cygtrace tree --no-collapse --thread=N: balanced (but for a call whose exit a
#             late store covered), only the thread's functions
# STRESS_EVENTS (default 10 million; make stress: 100 million) and STRESS_RING (64K) size the
# first run; the second uses the smallest ring (4K: 256 records) with a fifth of the events.
# The third arms a freeze trigger (CYGTRACE_TRIGGER=freeze@FUNC+N) that fires in one worker
# while all run: the same checks of what the ring holds, but the ring ends frozen, N events
# after the trigger's own, with the threads inside their calls (the program goes on, its events
# after the freeze counted by the program only: read + lost <= its count; "balanced" does not
# apply), and the TRIGGER record in a thread's tree. The fourth arms a trigger that never fires
# (a mark the program never makes): every event takes the hooks' slow path all run long, with a
# signal every 20 us, which widens the window between a slot's take and its store; the checks
# are the first run's.
. "$(dirname "$0")/lib.sh"

SB=$BUILD/tests/stress
need "$CT" "$SB/stress_linux" "$SB/stress_check"
EVENTS=${STRESS_EVENTS:-10000000}
RING=${STRESS_RING:-64K}

# The lines of LOG that failed a category: FAIL lines of the live part (before "live:") or
# the post-mortem part, whose message matches REGEX.
fails() {
    awk -v part="$2" -v re="$3" '/^live: / { p = "post"; next }
        { if (p == "") p = "live" }
        p == part && /^FAIL/ && $0 ~ re' "$1"
}

# report TAG NAME LINES: pass NAME when LINES is empty, else fail with the first of them and
# show the details that follow each in the log.
report() {
    if [ -z "$3" ]; then
        pass "$2"
        return
    fi
    fail "$2" "$(printf '%s\n' "$3" | head -n 1)"
    printf '%s\n' "$3" | head -n 6 | while IFS= read -r l; do
        grep -F -x -A 8 -- "$l" "$T/$1.log" | head -n 9 | sed 's/^/    | /'
    done
}

# tree_check FILE FAMILY [FROZEN]: the tree of one thread is balanced after its truncated start,
# and names only the thread's family (f<FAMILY>_...) and the handler; prints what is wrong.
# FROZEN (a ring a trigger froze): a call may be shown as never returned, where a late store
# (see live_run) left the slot of its exit unwritten. A late store amid a thread's chunk is a
# hole of that thread: the tree says where it may have taken an exit.
tree_check() {
    tree_body "$1" | awk -v fam="$2" -v frozen="${3:-}" '
        function bad(why) { print "line " NR ": " why ": " $0 }
        BEGIN { n = 0 } # a number: an unset n would index the arrays with ""
        /^ *#/ || /^ *$/ { next } # notes, and the line where a trigger fired
        {
            match($0, /^ */); ind = RLENGTH; rest = substr($0, ind + 1)
            if (frozen) sub(/ +\(never returned[^)]*\);?$/, "", rest)
            # a call open at a hole of this thread (a late store) that closed without its exit:
            # the tree says so only then, never "longjmp or unwound"
            sub(/ +\(exit lost in a hole\)$/, "", rest)
            if (rest ~ /\(entered before the trace begins\)$/) {
                if (n) bad("a call closed before the trace began, with calls open inside it")
                next
            }
            if (match(rest, /^[a-z0-9_]+\(\)( \{|;)$/)) {
                name = rest; sub(/\(.*/, "", name)
            } else if (match(rest, /^\} \/\* [a-z0-9_]+ \*\//)) {
                name = rest; sub(/^\} \/\* /, "", name); sub(/ .*/, "", name)
            } else {
                bad("not a tree line"); next
            }
            if (name !~ "^f" fam "_(top|mid|leaf)[0-3]$" && name !~ /^h[0-2]$/)
                bad("not a function of thread family f" fam)
            if (rest ~ /\{$/) { started = 1; callee[n] = name; at[n++] = ind }
            else if (rest ~ /^\}/) {
                if (n == 0 || callee[n - 1] != name || at[n - 1] != ind) bad("closes no open call")
                else n--
            }
        }
        END { if (n) print "end: " n " calls left open"; if (!started) print "no whole call" }'
}

# live_run TAG EVENTS RING [TRIGGER [ARMED]]: one run, its checks, and the figures it printed.
# ARMED: a trigger that never fires instead (TRIGGER empty), signals every 20 us.
live_run() {
    local tag=$1 ev=$2 ring=$3 trig=${4:-} arm=${5:-} head read lost events specials th fam bad
    local us=${arm:+20}
    echo "    $tag: $ev events, ring $ring, 4 threads, signals every ${us:-50} us${trig:+, $trig}${arm:+, $arm armed}"
    env ${trig:+CYGTRACE_TRIGGER=$trig} ${arm:+CYGTRACE_TRIGGER=$arm} \
        timeout 900 "$SB/stress_check" live --timeout 800 "$T/$tag.ring" "$T/$tag.table" -- \
        "$SB/stress_linux" --threads 4 --events "$ev" --ring "$ring" --out "$T/$tag.ring" \
        --table "$T/$tag.table" --signal-us "${us:-50}" --go </dev/null >"$T/$tag.log" 2>&1
    RC=$?
    grep -E '^(program|reader|note|post):' "$T/$tag.log" | sed 's/^/    /'
    if [ $RC -ge 124 ] || ! grep -q '^live: ' "$T/$tag.log"; then
        fail "$tag-run" "status $RC: $(grep -v '^    ' "$T/$tag.log" | head -n 2 | tr '\n' '|')"
        return
    fi
    read -r read lost head < <(sed -n \
        's/^reader: read \([0-9]*\) + lost \([0-9]*\) = [0-9]*, head \([0-9]*\);.*/\1 \2 \3/p' \
        "$T/$tag.log")
    read -r events specials < <(sed -n \
        's/^program: events \([0-9]*\) (handler [0-9]*) + specials \([0-9]*\) .*/\1 \2/p' \
        "$T/$tag.log")
    read -r pad unfilled pending < <(sed -n \
        's/^reader: slots with no event: \([0-9]*\) padding, \([0-9]*\) .*, \([0-9]*\) still .*/\1 \2 \3/p' \
        "$T/$tag.log")
    # records lost under late stores (see "records" above): the reader counts their slots as
    # unused ends of chunks
    late=$(sed -n 's/^reader: read .*; late stores: \([0-9]*\)$/\1/p' "$T/$tag.log")
    late=${late:-0}
    empty=$((${pad:-0} + ${unfilled:-0} + ${pending:-0}))
    if [ -z "$head" ] || [ -z "$events" ]; then
        fail "$tag-counts" "no figures from the reader or the program"
    elif [ -n "$trig" ]; then
        # Frozen: the program's count goes on past what the ring could take; + 1 TRIGGER record.
        if [ $((read + lost + empty)) -ne "$head" ] || [ "$read" -eq 0 ] ||
            [ $((read + lost)) -gt $((events + specials + 1)) ]; then
            fail "$tag-counts" "read $read + lost $lost + $empty slots with no event, head $head, program $events + $specials"
        else
            pass "$tag-counts"
        fi
    elif [ $((read + lost + empty)) -ne "$head" ] ||
        { [ "$lost" -eq 0 ] && [ $((read + late)) -ne $((events + specials)) ]; } ||
        [ "$read" -gt $((events + specials)) ] ||
        [ $((read + lost + late)) -lt $((events + specials)) ]; then
        fail "$tag-counts" "read $read + lost $lost + $empty slots with no event, head $head, program $events + $specials"
    elif [ "$read" -eq 0 ]; then
        fail "$tag-counts" "the reader read nothing"
    else
        pass "$tag-counts"
    fi
    # (a frozen ring ends where the freeze caught each thread: inside a call, or a handler)
    report "$tag" "$tag-records" "$(fails "$T/$tag.log" live \
        'expected|lead up|no run|inside the signal|not a function|family|kind|thread index|late st' |
        { [ -n "$trig" ] && grep -v ': ends inside ' || cat; })"
    report "$tag" "$tag-time" "$(fails "$T/$tag.log" live 'ticks before')"
    # the post-mortem's late stores at the ends of chunks (its holes are the others)
    plate=$(sed -n 's/^post: .* late stores \([0-9]*\) .*/\1/p' "$T/$tag.log")
    if [ -z "$trig" ]; then
        # The last lap keeps a late store (below) too: no lap writes over it. The checker
        # allows a few holes then ("slots unwritten amid their chunks"), and late stores.
        report "$tag" "$tag-balanced" "$(fails "$T/$tag.log" live 'ends inside')"
        report "$tag" "$tag-post" "$(fails "$T/$tag.log" post '.')"
    else
        # A frozen ring keeps what a writer late by a lap stored: a thread descheduled between
        # its slot's check and its store (4 threads on fewer cores) wakes after the freeze and
        # stores its record of an older lap over a newer one, which the decoder then counts as
        # unwritten, never as an event. In a ring that goes on, the next lap writes over it.
        # Amid its chunk the slot is a hole (a gap for the checker, "unwritten amid their
        # chunks" here); at a chunk's end it looks like the chunk's unused end, and the checker
        # tells it by its lap tag ("late stores", live and post).
        report "$tag" "$tag-post" "$(fails "$T/$tag.log" post '.' |
            grep -v -e 'ends inside' -e 'unwritten amid their chunks')"
    fi

    run "$tag-info" "$CT" info "$SB/stress_linux" "$T/$tag.ring"
    if [ "$RC" -ne 0 ]; then
        fail "$tag-info" "cygtrace info failed: $(head -n 1 "$T/$tag-info.err")"
    elif ! grep -q "^written: *$head \(records\|slots\)" "$T/$tag-info.out" ||
        { ! grep -Eq '^unwritten: *(0 slots|[0-9]+ slots .*: 0 in the middle of a chunk)' \
              "$T/$tag-info.out" &&
          # a few late stores (see above), two a thread at most: frozen, or in the last lap
          [ "$(sed -n 's/^unwritten: .*: \([0-9]*\) in the middle .*/\1/p' \
                   "$T/$tag-info.out")" -gt 8 ]; }; then
        fail "$tag-info" "$(grep -E '^(written|unwritten)' "$T/$tag-info.out" | tr '\n' '|'), head $head"
    else
        pass "$tag-info"
    fi
    if [ -n "$trig" ]; then
        # Frozen by the trigger, and it is in the ring: N + 1 events from it on at most (a
        # writer the freeze caught mid-record may write one more), in every thread's tree.
        fired=$(sed -n 's/^control: *fired .* at event \([0-9]*\) .*/\1/p' "$T/$tag-info.out")
        if ! grep -q '^state: *frozen' "$T/$tag-info.out" || [ -z "$fired" ]; then
            fail "$tag-frozen" "$(grep -E '^(state|control)' "$T/$tag-info.out" | tr '\n' '|')"
        elif [ $((head - fired)) -gt $((${trig##*+} + 5 * 64)) ]; then
            fail "$tag-frozen" "head $head, fired at $fired: more than the window and a chunk a thread"
        else
            pass "$tag-frozen"
        fi
    fi

    # Each thread the final ring still holds, by the host's own tree builder. A late store
    # that no lap wrote over (holes, or the post-mortem's late stores) may have taken a call's
    # exit: the call is left open.
    holes=$(sed -n 's/^unwritten: .*: \([0-9]*\) in the middle .*/\1/p' "$T/$tag-info.out")
    # Threads with events only: a frozen ring may hold a thread's THREAD record and none of its
    # events (the freeze came before its first event took a slot, and nothing is stored, nor a
    # chunk claimed, in a frozen ring).
    bad=
    while read -r th; do
        run "$tag-tree$th" "$CT" tree --no-collapse --thread="$th" "$SB/stress_linux" \
            "$T/$tag.ring"
        fam=$(grep -v '^ *#' "$T/$tag-tree$th.out" | grep -o -m 1 -E '\bf[a-d]_(top|mid|leaf)' |
            cut -c2)
        # A ring that never wrapped (frozen early) still holds the main thread's set-up.
        [ -n "$trig" ] && [ "$RC" -eq 0 ] && [ -z "$fam" ] && continue
        # A small ring may keep nothing of a thread but a signal handler's call (the end of its
        # last chunk, after its worker's records were overwritten): checked as a tree of no
        # worker family (x: none), the handler's functions only.
        [ "$RC" -eq 0 ] && [ -z "$fam" ] && tree_body "$T/$tag-tree$th.out" | grep -q -E '^ *h0\(\)' &&
            fam=x
        if [ "$RC" -ne 0 ] || [ -z "$fam" ]; then
            bad="$bad thread $th: status $RC, no worker call;"
            continue
        fi
        # A frozen ring ends with the threads inside their calls, and may hold no whole call of
        # a thread that the freeze caught early in its chunk.
        tree_check "$T/$tag-tree$th.out" "$fam" "$trig" |
            if [ -n "$trig" ]; then grep -v -e 'calls left open$' -e '^no whole call$'
            elif [ $((${holes:-0} + ${plate:-0})) -gt 0 ]; then grep -v 'calls left open$'
            else cat; fi >"$T/$tag-tree$th.bad"
        [ -s "$T/$tag-tree$th.bad" ] && bad="$bad thread $th: $(head -n 1 "$T/$tag-tree$th.bad");"
    done < <(awk -v frozen="$trig" \
        '$1 == "thread" && !(frozen != "" && $3 == 0) { print $2 }' "$T/$tag-info.out")
    if [ -n "$bad" ]; then fail "$tag-tree" "$bad"; else pass "$tag-tree"; fi
    if [ -n "$trig" ]; then
        grep -l "# trigger ${trig%%+*}+[0-9]* fired" "$T/$tag"-tree*.out >/dev/null 2>&1 &&
            pass "$tag-trigger-in-tree" ||
            fail "$tag-trigger-in-tree" "no thread's tree shows '# trigger $trig fired'"
    fi
}

live_run stress "$EVENTS" "$RING"
live_run stress-4k $((EVENTS / 5)) 4K
# fc_mid2: a function of the third worker, which fires while the others record; the window
# (2000 events) fits in the 64K ring (4096 records), so the ring still holds the trigger.
live_run stress-trigger $((EVENTS / 5)) 64K freeze@fc_mid2+2000
live_run stress-armed $((EVENTS / 10)) 64K "" freeze@mark:4000

finish
