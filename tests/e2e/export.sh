#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# export.sh - report and the three exports on real traces, each read back by its real consumer:
# the Chrome JSON by jq (begin/end balanced and nested per thread), the callgrind file by
# callgrind_annotate (inclusive costs equal report's totals), the folded stacks summed per
# function (equal report's self times). Traces: crumble (Linux), hardcases threads (two threads
# in one ring), and the firmware stream example's saved stream (QEMU mps2-an385). Then the
# filters on those traces.
. "$(dirname "$0")/lib.sh"

need "$CT" "$BUILD/examples/crumble" "$BUILD/examples/hardcases"
for tool in jq callgrind_annotate; do
    if ! command -v $tool >/dev/null; then
        fail export-prerequisites "$tool is missing (make deps)"
        finish
    fi
done

# report_col TAG COL: "function value" lines from report --ticks output $T/TAG.out (each time
# is "N ticks": column 2 = total, 4 = self, 8 = max), the all-contexts table only (the last
# one), sorted.
report_col() {
    awk -v c="$2" '/^# all / { delete v } /^ *[0-9]+ / { v[$NF] = $c }
                   END { for (f in v) print f, v[f] }' "$T/$1.out" | sort
}

# folded_self FILE: "function sum" of the self times of the stacks ending in it.
folded_self() {
    awk '{ n = split($1, a, ";"); s[a[n]] += $2 } END { for (f in s) print f, s[f] }' "$1" | sort
}

# callgrind_incl FILE: "function inclusive" as callgrind_annotate prints them ("N (P%)
# FILE:FUNCTION", FILE ??? where the DWARF does not say).
callgrind_incl() {
    # From /: callgrind_annotate cuts the current directory off fl= names but not off cfl=
    # names, and would count a function under both.
    (cd / && callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>&1) |
        awk '$1 ~ /^[0-9,]+$/ { for (i = 2; i < NF && $i !~ /%\)$/; i++);
                                n = $(i + 1)
                                if (n !~ /:/) next
                                v = $1; gsub(",", "", v); sub(/.*:/, "", n); print n, v }' |
        sort
}

# chrome_ok FILE: jq says the JSON parses, each thread's B/E nest and balance, and every
# event has a numeric ts.
chrome_ok() {
    jq -e '[.traceEvents[] | select(.ph == "B" or .ph == "E")] | group_by(.tid) |
           map(reduce .[] as $e ({s: [], ok: true};
               if $e.ph == "B" then .s += [$e.name]
               elif (.s | length) > 0 and .s[-1] == $e.name then .s |= .[:-1]
               else .ok = false end) | .ok and (.s | length) == 0) | all' "$1" >/dev/null &&
        jq -e '[.traceEvents[] | select(.ph != "M") | .ts | numbers] | length > 0' "$1" \
            >/dev/null &&
        jq -e '[.traceEvents[] | select(.ph != "M" and (.ts | type) != "number")] | length == 0' \
            "$1" >/dev/null
}

# check_all TAG ELF TRACE FUNCS...: the three exports of TRACE against report, FUNCS (which do
# not recurse) for the callgrind inclusive costs.
check_all() {
    local tag=$1 elf=$2 trace=$3
    shift 3
    run "$tag-report" "$CT" report --ticks "$elf" "$trace"
    check "$tag-report" "status $RC: $(head -c 300 "$T/$tag-report.err")" [ "$RC" -eq 0 ]
    report_col "$tag-report" 4 | awk '$2 > 0' >"$T/$tag.self"
    report_col "$tag-report" 2 >"$T/$tag.total"

    run "$tag-chrome" "$CT" export --format=chrome "$elf" "$trace" -o "$T/$tag.json"
    check "$tag-chrome-balanced" "jq: bad JSON or unbalanced B/E (status $RC)" chrome_ok "$T/$tag.json"
    check "$tag-chrome-names" "no $tag event" \
        eval "jq -e --arg f '$tag' '[.traceEvents[] | select(.name == \$f)] | length > 0' \
            '$T/$tag.json' >/dev/null"

    run "$tag-folded" "$CT" export --format=folded "$elf" "$trace"
    folded_self "$T/$tag-folded.out" >"$T/$tag.fself"
    check "$tag-folded-equals-report-self" "$(diff "$T/$tag.self" "$T/$tag.fself" | head -5 | tr '\n' '|')" \
        same "$T/$tag.self" "$T/$tag.fself"

    run "$tag-cg" "$CT" export --format=callgrind "$elf" "$trace" -o "$T/$tag.callgrind"
    callgrind_incl "$T/$tag.callgrind" >"$T/$tag.incl"
    local f bad=
    for f in "$@"; do
        a=$(awk -v f="$f" '$1 == f { print $2 }' "$T/$tag.total")
        b=$(awk -v f="$f" '$1 == f { print $2 }' "$T/$tag.incl")
        [ -n "$a" ] && [ "$a" = "$b" ] || bad="$bad $f: report $a, callgrind_annotate $b;"
    done
    check "$tag-callgrind-inclusive-equals-total" "$bad" [ -z "$bad" ]
}

same() {
    [ -s "$1" ] && cmp -s "$1" "$2"
}

# --- crumble ---------------------------------------------------------------------------------
run crumble env CYGTRACE_OUT="$T/crumble.trace" "$BUILD/examples/crumble"
CR=$BUILD/examples/crumble
check_all Crumble_buy "$CR" "$T/crumble.trace" main Crumble_make_apple_crumble Crumble_buy_stuff \
    Crumble_buy Crumble_finalize Crumble_put
check crumble-report-header "no header line" \
    grep -qE '^ +calls +total +self +avg +max +function$' "$T/Crumble_buy-report.out"

# --- hardcases threads: two contexts in one ring ------------------------------------------------
run threads env CYGTRACE_OUT="$T/threads.trace" "$BUILD/examples/hardcases" threads
H=$BUILD/examples/hardcases
check_all step_a2 "$H" "$T/threads.trace" step_a1 step_a2 step_b2 worker_a worker_b
run threads-report "$CT" report "$H" "$T/threads.trace"
check threads-report-per-thread "not one table per thread and one for all" eval \
    '[ "$(grep -c "^# thread" "$T/threads-report.out")" -ge 2 ] &&
     grep -q "^# all [0-9]* threads" "$T/threads-report.out"'
check threads-chrome-tids "not one tid per thread" \
    [ "$(jq '[.traceEvents[] | select(.ph == "B") | .tid] | unique | length' "$T/step_a2.json")" -ge 2 ]
# Every output names a thread the same: tree's, report's and graph's headers, the Chrome
# tracks, and the live view's (--plain, following the ring the program left).
run threads-tree "$CT" tree "$H" "$T/threads.trace"
run threads-graph "$CT" graph "$H" "$T/threads.trace"
run threads-live "$CT" live --plain --from-start --duration=1 --follow="$T/threads.trace" "$H"
ctx_labels head "$T/threads-tree.out" >"$T/threads.labels"
check threads-labels-tid "not 3 headers 'thread N (tid T)': $(tr '\n' '|' <"$T/threads.labels")" \
    [ "$(grep -Ecx 'thread [0-9]+ \(tid [0-9]+\)' "$T/threads.labels")" -eq 3 ]
for o in report graph live; do
    ctx_labels head "$T/threads-$o.out" >"$T/threads.labels-$o"
    check "threads-labels-$o" "$o names the threads otherwise than tree" \
        same "$T/threads.labels" "$T/threads.labels-$o"
done
ctx_labels chrome "$T/step_a2.json" >"$T/threads.labels-chrome"
check threads-labels-chrome "the Chrome tracks name the threads otherwise than tree" \
    same "$T/threads.labels" "$T/threads.labels-chrome"

# --- firmware: the stream example's saved stream ------------------------------------------------
FWELF=$BUILD/firmware/mps2-an385/stream.elf
if command -v qemu-system-arm >/dev/null && [ -f "$FWELF" ]; then
    timeout 60 qemu-system-arm -M mps2-an385 -display none -monitor none \
        -semihosting-config enable=on,target=native -serial "file:$T/s.cyg" -kernel "$FWELF" \
        </dev/null >"$T/qemu.log" 2>&1
    check fw-stream-saved "QEMU status $?, $(wc -c <"$T/s.cyg" 2>/dev/null) bytes" [ -s "$T/s.cyg" ]
    check_all decide "$FWELF" "$T/s.cyg" stream_round DEMO_Run Crumble_make_apple_crumble \
        Crumble_buy_stuff
else
    fail fw-stream "qemu-system-arm or $FWELF missing (make deps; make)"
fi

# --- filters on the real traces -----------------------------------------------------------------
# --only: the report holds only the function and what it calls, --hide leaves them out.
run only "$CT" report --only=Crumble_buy_stuff "$CR" "$T/crumble.trace"
check filter-only "$(tr '\n' '|' <"$T/only.out")" \
    [ "$(awk '/^ *[0-9]+ / { print $NF }' "$T/only.out" | sort | tr '\n' ' ')" = "Crumble_buy Crumble_buy_stuff " ]
run hide "$CT" tree --hide=Crumble_buy_stuff "$CR" "$T/crumble.trace"
check filter-hide "Crumble_buy still shown" \
    eval '! grep -q Crumble_buy "$T/hide.out" && grep -q Crumble_mix "$T/hide.out"'
run depth "$CT" export --format=folded --depth=2 "$CR" "$T/crumble.trace"
check filter-depth "a stack deeper than 2" \
    eval '[ -s "$T/depth.out" ] && ! grep -q ";.*;" "$T/depth.out"'
# --min-time: each call kept lasted that long (report's max of every function >= it).
run mint "$CT" report --ticks --min-time=1000 "$H" "$T/threads.trace"
min_ok() {
    [ "$(awk '/^ *[0-9]+ / { n++; if ($8 < 1000) bad++ } END { print (n > 0 && !bad) }' "$1")" = 1 ]
}
check filter-min-time "a call shorter than 1000 ticks kept, or no call left" min_ok "$T/mint.out"
check filter-min-time-fewer "min-time left nothing out" \
    [ "$(grep -c '^ *[0-9]' "$T/mint.out")" -lt "$(grep -c '^ *[0-9]' "$T/step_a2-report.out")" ]
# --time-range: a window of the firmware stream holds fewer calls, all of them well nested.
if [ -s "$T/s.cyg" ]; then
    run range "$CT" export --format=chrome --time-range=100ms..200ms "$FWELF" "$T/s.cyg" -o "$T/range.json"
    check filter-time-range-balanced "unbalanced or bad JSON" chrome_ok "$T/range.json"
    check filter-time-range-window "events outside 100..200 ms after the first" \
        eval "jq -e '[.traceEvents[] | select(.ph == \"B\" or .ph == \"E\") | .ts] |
                     (max - min) <= 100000.5' '$T/range.json' >/dev/null"
    full=$(jq '[.traceEvents[] | select(.ph == "B")] | length' "$T/decide.json")
    part=$(jq '[.traceEvents[] | select(.ph == "B")] | length' "$T/range.json")
    check filter-time-range-fewer "$part of $full calls" [ "$part" -gt 0 ] && [ "$part" -lt "$full" ]
fi
expect_bad() {
    run "$1" "$CT" "${@:2}"
    check "$1" "status $RC, stderr $(head -c 200 "$T/$1.err")" \
        eval "[ \"\$RC\" -ne 0 ] && grep -q '^cygtrace: ' '$T/$1.err'"
}
expect_bad bad-format export --format=svg "$CR" "$T/crumble.trace"
expect_bad bad-only report --only=no_such_function "$CR" "$T/crumble.trace"
expect_bad bad-min tree --min-time=3parsecs "$CR" "$T/crumble.trace"
expect_bad bad-range tree --time-range=5ms "$CR" "$T/crumble.trace"
expect_bad bad-sort report --sort=colour "$CR" "$T/crumble.trace"

# --- issue 13, item 9 -------------------------------------------------------------------------
# A time range past the end: no call at all, every format still a valid file (the callgrind
# writer sorted a NULL array, which UBSan stops in make check SANITIZE=1).
for fmt in callgrind folded chrome; do
    run "past-end-$fmt" "$CT" export --format=$fmt --time-range=1000s.. "$CR" "$T/crumble.trace"
    check "past-end-$fmt" "status $RC: $(head -n 1 "$T/past-end-$fmt.err")" [ "$RC" -eq 0 ]
done
check past-end-callgrind-summary "no 'summary: 0'" grep -qx 'summary: 0' "$T/past-end-callgrind.out"
check past-end-chrome-json "not JSON" eval 'jq -e .traceEvents "$T/past-end-chrome.out" >/dev/null'

# --only with two threads, one of which never calls it: that thread's statistics and export
# end with no call at all (a memset of a table never allocated, UB; found by fuzz_dump).
for cmd in report "export --format=chrome" "export --format=callgrind"; do
    tag=only-one-thread-${cmd##*=}
    run "$tag" "$CT" $cmd --only=step_a2 "$H" "$T/threads.trace"
    check "$tag" "status $RC: $(head -n 1 "$T/$tag.err")" eval \
        '[ "$RC" -eq 0 ] && grep -q step_a2 "$T/$tag.out"'
done

# A clock of 1 Hz (the rate is not in the control block's checksum: bytes 104..111): the x86
# counter's ticks as seconds overflowed 64 bits of nanoseconds and every ts came out 0.000.
cp "$T/crumble.trace" "$T/hz1.trace"
printf '\001\000\000\000\000\000\000\000' | dd of="$T/hz1.trace" bs=1 seek=104 conv=notrunc status=none
run hz1-chrome "$CT" export --format=chrome "$CR" "$T/hz1.trace" -o "$T/hz1.json"
check hz1-chrome "status $RC: $(head -n 1 "$T/hz1-chrome.err")" [ "$RC" -eq 0 ]
check hz1-chrome-ts "the ts are not distinct seconds: $(jq -c '[.traceEvents[] | select(.ph == "B") | .ts][0:3]' "$T/hz1.json" 2>&1)" \
    eval 'jq -e "[.traceEvents[] | select(.ph == \"B\") | .ts] |
                 (unique | length) > 1 and all(. >= 1000000)" "$T/hz1.json" >/dev/null'

# callgrind names the source files (DWARF): KCachegrind opens them.
check callgrind-fl "no fl= line naming crumble.c: $(grep -m 2 '^fl=' "$T/Crumble_buy.callgrind" | tr '\n' '|')" \
    grep -q '^fl=.*/crumble\.c$' "$T/Crumble_buy.callgrind"
check callgrind-annotate-files "callgrind_annotate shows no crumble.c:main" \
    eval 'cd / && callgrind_annotate --inclusive=yes "$T/Crumble_buy.callgrind" | grep -q "crumble\.c:main\b"'

finish
