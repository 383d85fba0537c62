#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# graph.sh - `cygtrace graph` on the crumble example (Linux): the call graphs whose call counts
# its source (examples/crumble/crumble.c) gives, compared line by line except for the times
# and the order of siblings (by total time: the run decides it); totals against report's; the
# options and the filters; bad input.
set -u
. "$(dirname "$0")/lib.sh"

CRUMBLE=$BUILD/examples/crumble
need "$CT" "$CRUMBLE"

# paths FILE: the callee tree of graph output as "PATH CALLS" lines (PATH: the names from the
# function down, joined by ";"), sorted. A line marked "+-" is a child of the last line whose
# name starts 3 columns to its left; an unmarked line the only child of the line above it.
paths() {
    awk '/^========== CALL GRAPH/ { on = 1; n = 0; next }
         /^$/ || /^#/ || /^=/ { if (!/^# +TOTAL/) on = 0; next }
         on && / : / {
             rest = substr($0, index($0, " : ") + 3)
             col = index(rest, "(")
             if (!col) next # a "|" line
             split(substr(rest, col), w, " "); calls = w[1]; gsub(/[()]/, "", calls)
             name = w[2]
             if (n == 0) p = name
             else if (substr(rest, col - 2, 2) == "+-") p = path[col - 3] ";" name
             else p = prev ";" name
             path[col] = p; prev = p; n++
             print p, calls
         }' "$1" | sort
}

# callers FILE: the callers table as "NAME CALLS", sorted.
callers() {
    awk '/^========== CALLERS/ { on = 1; next } /^$/ { on = 0 }
         on && /^ +[0-9]+ / { print $NF, $1 }' "$1" | sort
}

run prog env CYGTRACE_OUT="$T/c.trace" "$CRUMBLE"
check crumble-runs "exit status $RC" [ "$RC" -eq 0 ]

M=Crumble_make_apple_crumble
run make "$CT" graph --function=$M "$CRUMBLE" "$T/c.trace"
check make-status "status $RC: $(head -n 1 "$T/make.err")" [ "$RC" -eq 0 ]
check make-no-stderr "stderr: $(head -n 1 "$T/make.err")" [ ! -s "$T/make.err" ]
check make-hook-note "first line: $(head -n 1 "$T/make.out")" \
    grep -Eq "^# durations corrected for hook cost: [0-9.]+ ns per event" <(head -n 1 "$T/make.out")
check make-header "second line: $(sed -n 2p "$T/make.out")" \
    grep -Eqx "# $M: 1 call, total [0-9.]+ [mun]?s, self [0-9.]+ [mun]?s" <(sed -n 2p "$T/make.out")
printf 'main 1\n' >"$T/make.callers.expected"
callers "$T/make.out" >"$T/make.callers"
check make-callers "callers differ" same "$T/make.callers.expected" "$T/make.callers"
sort >"$T/make.expected" <<EOF
$M 1
$M;Crumble_buy_stuff 1
$M;Crumble_buy_stuff;Crumble_buy 5
$M;Crumble_prepare_apples 1
$M;Crumble_prepare_apples;Crumble_skin_and_dice 1
$M;Crumble_mix 1
$M;Crumble_finalize 1
$M;Crumble_finalize;Crumble_put 2
$M;Crumble_cook 1
$M;Crumble_cook;Crumble_put 1
$M;Crumble_cook;Crumble_bake 1
EOF
paths "$T/make.out" >"$T/make.paths"
check make-graph "the call graph differs from crumble.c's" same "$T/make.expected" "$T/make.paths"
# The shape of the lines: five children of the function, each marked "+-", separated by "|".
n=$(grep -Ec '^ +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s :  \+-\(1\) Crumble_' "$T/make.out")
check make-five-children "$n lines ' +-(1) Crumble_...', expected 5" [ "$n" -eq 5 ]
n=$(grep -Ec '^ +:  \|$' "$T/make.out")
check make-separators "$n '|' lines between the children, expected 4" [ "$n" -ge 4 ]
check make-no-notes "a note on a complete trace: $(grep '^# [0-9]' "$T/make.out" | head -n 1)" \
    eval '! grep -Eq "^# [0-9]+ " "$T/make.out"'

# Totals in ticks: the function's equals report's; children in order of total, largest first.
run ticks "$CT" graph --ticks --function=$M "$CRUMBLE" "$T/c.trace"
run report "$CT" report --ticks "$CRUMBLE" "$T/c.trace"
gt=$(awk -v f="$M" '$0 ~ "^# " f ":" { print $(NF - 4) }' "$T/ticks.out")
rt=$(awk -v f="$M" '$NF == f { print $2 }' "$T/report.out")
check total-equals-report "graph $gt, report $rt" [ -n "$gt" -a "$gt" = "$rt" ]
order=$(awk '/ :  \+-\(/ { print $1 }' "$T/ticks.out" | awk 'NR > 1 && $1 > last { bad = 1 } { last = $1 } END { print bad + 0 }')
check children-by-total "the children of $M are not in order of total" [ "$order" -eq 0 ]

# Crumble_put: called from two places, its callers aggregated.
run put "$CT" graph --function=Crumble_put "$CRUMBLE" "$T/c.trace"
check put-header "no '3 calls' header" grep -Eq '^# Crumble_put: 3 calls, ' "$T/put.out"
printf 'Crumble_cook 1\nCrumble_finalize 2\n' >"$T/put.callers.expected"
callers "$T/put.out" >"$T/put.callers"
check put-callers "callers differ" same "$T/put.callers.expected" "$T/put.callers"
printf 'Crumble_put 3\n' >"$T/put.expected"
paths "$T/put.out" >"$T/put.paths"
check put-graph "the call graph differs" same "$T/put.expected" "$T/put.paths"

# Without --function: the bottom-level calls, here main alone, and no callers table.
run root "$CT" graph "$CRUMBLE" "$T/c.trace"
check root-header "no main header" grep -Eq '^# main: 1 call, ' "$T/root.out"
{ echo "main 1"; sed "s/^/main;/" "$T/make.expected"; } | sort >"$T/root.expected"
paths "$T/root.out" >"$T/root.paths"
check root-graph "the call graph of main differs" same "$T/root.expected" "$T/root.paths"
check root-no-callers "a callers table at the bottom level" eval '! grep -q "CALLERS" "$T/root.out"'

# Two functions at once: two graphs.
run two "$CT" graph --function=Crumble_cook --function=Crumble_mix "$CRUMBLE" "$T/c.trace"
n=$(grep -c '^========== CALL GRAPH' "$T/two.out")
check two-functions "status $RC, $n graphs" [ "$RC" -eq 0 -a "$n" -eq 2 ]

# --depth=1: the function's direct callees only.
run depth "$CT" graph --depth=1 --function=$M "$CRUMBLE" "$T/c.trace"
grep -v ';.*;' "$T/make.expected" >"$T/depth.expected"
paths "$T/depth.out" >"$T/depth.paths"
check depth1 "not just the direct callees" same "$T/depth.expected" "$T/depth.paths"

# The filters, as tree takes them.
run hide "$CT" graph --hide=Crumble_cook --function=$M "$CRUMBLE" "$T/c.trace"
grep -v Crumble_cook "$T/make.expected" >"$T/hide.expected"
paths "$T/hide.out" >"$T/hide.paths"
check hide "--hide=Crumble_cook left something else out or kept it" \
    same "$T/hide.expected" "$T/hide.paths"
run only "$CT" graph --only=Crumble_finalize "$CRUMBLE" "$T/c.trace"
printf 'Crumble_finalize 1\nCrumble_finalize;Crumble_put 2\n' >"$T/only.expected"
paths "$T/only.out" >"$T/only.paths"
check only "--only=Crumble_finalize: not its graph alone" same "$T/only.expected" "$T/only.paths"
run range "$CT" graph --time-range=..0us "$CRUMBLE" "$T/c.trace"
check time-range "status $RC: $(head -n 1 "$T/range.err")" [ "$RC" -eq 0 ]
run thread "$CT" graph --thread=1 --function=Crumble_mix "$CRUMBLE" "$T/c.trace"
check thread "status $RC, or no graph of Crumble_mix" \
    grep -q '^# Crumble_mix: 1 call' "$T/thread.out"

# A function never called (here: hidden) is not an error: a line says so.
run never "$CT" graph --hide=Crumble_cook --function=Crumble_bake "$CRUMBLE" "$T/c.trace"
check never-called "status $RC: $(head -n 1 "$T/never.out")" \
    grep -q '^# Crumble_bake was not called in the trace$' "$T/never.out"

# Bad input: one clear line; 1 for the inputs, 2 for usage.
expect_error unknown-function 1 'no such function' \
    "$CT" graph --function=Crumble_nothing "$CRUMBLE" "$T/c.trace"
expect_error bad-option 2 'bogus' "$CT" graph --bogus "$CRUMBLE" "$T/c.trace"
expect_error bad-depth 2 'depth' "$CT" graph --depth=0 "$CRUMBLE" "$T/c.trace"
expect_error empty-function 2 'function' "$CT" graph --function= "$CRUMBLE" "$T/c.trace"
mkdir -p "$T/empty"
expect_error one-input 1 'cygtrace\.out: No such file.*give the trace: cygtrace graph .*crumble DUMP$' \
    env -C "$T/empty" "$CT" graph "$CRUMBLE"
expect_error three-inputs 2 'graph: needs \[ELF\] \[DUMP\]' "$CT" graph "$CRUMBLE" "$T/c.trace" x
expect_error no-dump 1 '' "$CT" graph "$CRUMBLE" "$T/nothing.trace"

finish
