#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# diff.sh - `cygtrace diff` on two builds of a real program (examples/diffdemo, traced on
# Linux): the plain build against one where parse spins 40 ms instead of 1 ms, route's third
# call takes detour instead of direct, and the loop of step runs once more. diff must name the
# inserted iteration and the changed path in its divergences, parse at the top of its costs, and
# exit as --fail-above says; its JSON must be what jq reads back; the same trace against itself
# has no difference; the crumble example against itself too, given as dumps alone (the
# program found through DUMP.maps); bad input gets one line.
set -u
. "$(dirname "$0")/lib.sh"

CRUMBLE=$BUILD/examples/crumble
need "$CT" "$CRUMBLE" "$BUILD/examples/diffdemo" "$BUILD/examples/diffdemo-b"
cp "$BUILD/examples/diffdemo" "$T/a"
cp "$BUILD/examples/diffdemo-b" "$T/b"
run rec-a env CYGTRACE_OUT="$T/a.trace" "$T/a"
run rec-b env CYGTRACE_OUT="$T/b.trace" "$T/b"
check record "status $RC" [ -s "$T/a.trace" ] && [ -s "$T/b.trace" ]

# Text: the first divergence is the loop's one more step, under main; then route's call of
# detour in place of direct, under main > route; parse leads the costs of functions.
run text "$CT" diff "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
check text-status "status $RC: $(head -n 1 "$T/text.err")" [ "$RC" -eq 0 ]
check text-count "not 2 differences: $(grep '^##' "$T/text.out" | head -n 1)" \
    grep -q '^## thread 1 (A) and thread 1 (B): 2 differences$' "$T/text.out"
check text-first "the first difference is not the extra step under main" \
    awk '/^first difference/ { f = 1; next } f == 1 && $1 == "main" { f = 2; next }
         f == 2 && /then A:/ { f = 3; next } f == 3 { exit !($0 ~ /\| \+ step$/) } END { if (f < 3) exit 1 }' "$T/text.out"
check text-path "route's detour not named under main > route" \
    grep -q '^  main > route#3: A calls direct where B calls detour$' "$T/text.out"
check text-slowest "parse does not lead the functions' costs" \
    awk '/^## functions/ { getline; getline; exit !($NF == "parse" || $(NF-1) == "parse" || $NF == "main") }' "$T/text.out"
check text-parse-slower "parse's change is not +30 ms or more" \
    awk '$NF == "parse" && $6 == "ms" && $5 + 0 >= 30 { found = 1 } END { exit !found }' "$T/text.out"
check text-hook-cost "no hook-cost note for A and B" \
    eval "grep -q '^# A: durations corrected for hook cost: ' '$T/text.out' &&
          grep -q '^# B: durations corrected for hook cost: ' '$T/text.out'"
check no-colour "colour escapes in the text to a file" bash -c "! grep -q $'\033' '$T/text.out'"
run colour "$CT" diff --color=always "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
check colour "--color=always: no escapes" grep -q $'\033\\[31m' "$T/colour.out"

# JSON, read back with jq.
jqe() { jq -e "$@" >/dev/null; }
if command -v jq >/dev/null; then
    run json "$CT" diff --format=json "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
    check json-valid "jq does not read it" jqe . "$T/json.out"
    check json-hunks "hunks not [inserted step under main, replaced direct by detour under main>route]" \
        jqe '.contexts[0].hunks | length == 2
               and .[0].kind == "inserted" and .[0].path == ["main"] and .[0].b[0].function == "step"
               and .[1].kind == "replaced" and .[1].path == ["main","route"] and .[1].path_nth == [1,3]
               and .[1].a[0].function == "direct" and .[1].b[0].function == "detour"' "$T/json.out"
    check json-parse "parse not slower by 30 ms, or its path not there" \
        jqe '([.functions[] | select(.function == "parse" and .change >= 30000000)] | length == 1)
               and ([.paths[] | select(.path == "main > parse" and .calls == [1,1])] | length == 1)
               and ([.paths[] | select(.path == "main > route > detour" and .calls == [0,1])] | length == 1)' \
        "$T/json.out"
    # The hooks' cost: taken out of both traces' times and said for each; --raw-times keeps
    # them, so every function's total in A is at least the corrected one.
    check json-hook-cost "a trace's hook_cost note missing" \
        jqe '(.a.hook_cost | startswith("durations corrected for hook cost: "))
               and (.b.hook_cost | startswith("durations corrected for hook cost: "))' "$T/json.out"
    run json-raw "$CT" diff --raw-times --format=json "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
    check json-raw "--raw-times: a hook_cost note, or a total below the corrected one" \
        jqe --slurpfile c "$T/json.out" '.a.hook_cost == null and .b.hook_cost == null
               and ([.functions[] | {key: .function, value: .total[0]}] | from_entries) as $raw
               | [$c[0].functions[] | select(.total[0] != null and .total[0] > $raw[.function])]
               | length == 0' "$T/json-raw.out"
else
    skip json "no jq"
fi

# CI: parse slowed by far more than 50%: exit 3, one line per offender on stderr, parse's and
# its path's among them; a limit it stays under passes; the same trace twice passes. (The
# floor of 1 ms keeps a call of step that the scheduler interrupted, on a busy machine, out.)
run fail "$CT" diff --fail-above=50% --fail-min=1ms "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
check fail-status "status $RC, expected 3" [ "$RC" -eq 3 ]
check fail-parse "parse not named on stderr" grep -q '^cygtrace: slower: function parse: ' "$T/fail.err"
check fail-path "main > parse not named on stderr" \
    grep -q '^cygtrace: slower: path main > parse: ' "$T/fail.err"
check fail-only "a line on stderr that is not an offender" \
    bash -c "! grep -v '^cygtrace: slower: ' '$T/fail.err'"
check fail-no-step "step (not slower by 1 ms) named" \
    bash -c "! grep -q 'function step:' '$T/fail.err'"
run fail-time "$CT" diff --fail-above=20ms "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
check fail-time "--fail-above=20ms: status $RC, expected 3" [ "$RC" -eq 3 ]
run pass-time "$CT" diff --fail-above=10s "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
check pass-time "--fail-above=10s: status $RC, expected 0" [ "$RC" -eq 0 ] && [ ! -s "$T/pass-time.err" ]
run pass-min "$CT" diff --fail-above=1% --fail-min=5s "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
check pass-min "--fail-min=5s: status $RC, expected 0" [ "$RC" -eq 0 ]
run same "$CT" diff --fail-above=0 "$T/a" "$T/a.trace" "$T/a" "$T/a.trace"
check same-status "the same trace twice: status $RC" [ "$RC" -eq 0 ]
check same-text "the same trace twice: not 'the same calls'" \
    grep -q '^## thread 1 (A) and thread 1 (B): the same calls$' "$T/same.out"

# The repository's example, given as dumps alone (DUMP.maps names the program).
run crumble env CYGTRACE_OUT="$T/c.trace" "$CRUMBLE"
run crumble-diff "$CT" diff "$T/c.trace" "$T/c.trace"
check crumble-diff "status $RC, or differences" grep -q 'the same calls$' "$T/crumble-diff.out"
run cross "$CT" diff "$CRUMBLE" "$T/c.trace" "$T/a" "$T/a.trace"
check cross "crumble against diffdemo: status $RC, or main not paired" \
    grep -q '^## thread 1 (A) and thread 1 (B): ' "$T/cross.out"

# Three threads (the ring of format version 1 kept in tests/fixtures), paired in order.
FIX=$ROOT/tests/fixtures/ringv1
run threads "$CT" diff "$FIX" "$FIX.ring" "$FIX" "$FIX.ring"
check threads "status $RC, or not 3 threads paired, each the same" \
    test "$(grep -c '^## thread [123] (A) and thread [123] (B): the same calls$' "$T/threads.out")" = 3

# One thread against three: the two left over are B's alone.
run unpaired "$CT" diff "$T/a" "$T/a.trace" "$FIX" "$FIX.ring"
check unpaired "status $RC, or B's threads 2 and 3 not said to be B's alone" \
    test "$(grep -c '^## nothing (A) and thread [23] (B): only in B$' "$T/unpaired.out")" = 2

# Bad input: one line; 1 for the inputs, 2 for usage.
expect_error missing-dump 1 'nothing\.trace: No such file' \
    "$CT" diff "$T/a" "$T/a.trace" "$T/b" "$T/nothing.trace"
expect_error three-files 2 'diff: needs ELF1 DUMP1 ELF2 DUMP2 \(or DUMP1 DUMP2\), 3 files given' \
    "$CT" diff "$T/a" "$T/a.trace" "$T/b"
expect_error one-file 2 '1 file given' "$CT" diff "$T/a.trace"
expect_error bad-limit 2 '--fail-above=fast: not a percentage' \
    "$CT" diff --fail-above=fast "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
expect_error negative-limit 2 '--fail-above=-5%' \
    "$CT" diff --fail-above=-5% "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
expect_error ticks-limit 2 'give a time \(2ms\), not ticks' \
    "$CT" diff --fail-above=500ticks "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
expect_error min-alone 2 '--fail-min=1ms: goes with --fail-above' \
    "$CT" diff --fail-min=1ms "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
expect_error bad-format 2 '--format=xml: not a choice' \
    "$CT" diff --format=xml "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
expect_error bad-top 2 '--top=x: not a number' "$CT" diff --top=x "$T/a" "$T/a.trace" "$T/b" "$T/b.trace"
expect_error wrong-elf 1 '' "$CT" diff "$T/a" "$T/a.trace" "$CRUMBLE" "$T/b.trace"

finish
