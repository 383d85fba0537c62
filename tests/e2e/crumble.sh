#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# crumble.sh - the crumble example end to end: recorded by the linked runtime and by
# `cygtrace record` (preload into a program built without it), decoded in every style.
set -u
. "$(dirname "$0")/lib.sh"

CRUMBLE=$BUILD/examples/crumble
EXPECTED=$E2E_DIR/crumble.etrace.expected
need "$CT" "$CRUMBLE"

# Linked with libcygtrace.a: the environment picks the file.
run prog env CYGTRACE_OUT="$T/linked.trace" "$CRUMBLE"
check crumble-runs "exit status $RC" [ "$RC" -eq 0 ]
check crumble-own-output "the program's stdout is missing" grep -q '^bake for 40 minutes$' "$T/prog.out"
check crumble-trace-written "no $T/linked.trace" [ -s "$T/linked.trace" ]

run etrace "$CT" tree --style=etrace "$CRUMBLE" "$T/linked.trace"
if [ "$RC" -eq 0 ] && same "$EXPECTED" "$T/etrace.out"; then
    pass etrace-exact
else
    fail etrace-exact "status $RC, or the output differs from $EXPECTED (above)"
fi
check etrace-no-notes "stderr: $(head -n 1 "$T/etrace.err")" [ ! -s "$T/etrace.err" ]

run nocollapse "$CT" tree --style=etrace --no-collapse "$CRUMBLE" "$T/linked.trace"
n=$(grep -c '^|   |   |   Crumble_buy$' "$T/nocollapse.out")
check no-collapse-five-buys "$n Crumble_buy lines, expected 5" [ "$n" -eq 5 ]
check no-collapse-no-totals "a '(total:' line with --no-collapse" \
    eval '! grep -q "(total:" "$T/nocollapse.out"'
# Without collapsing, "X (total: N times)" becomes N lines of X.
awk '/ \(total: [0-9]+ times\)$/ {
         n = $0; sub(/^.*\(total: /, "", n); sub(/ times\)$/, "", n)
         sub(/ \(total: [0-9]+ times\)$/, ""); for (i = 1; i < n; i++) print; next }
     { print }' "$EXPECTED" >"$T/nocollapse.expected"
check no-collapse-exact "the output differs from the expanded expectation" \
    same "$T/nocollapse.expected" "$T/nocollapse.out"

# The tree style: same functions, same nesting, durations in front.
run tree "$CT" tree "$CRUMBLE" "$T/linked.trace"
check tree-status "exit status $RC: $(head -n 1 "$T/tree.err")" [ "$RC" -eq 0 ]
# the runtime measured its hooks: the durations are corrected, and the first line says so
check tree-hook-note "first line: $(head -n 1 "$T/tree.out")" \
    grep -Eqx '# durations corrected for hook cost: [0-9.]+ ns per event \(measured by the runtime; --raw-times to show as recorded\)' <(head -n 1 "$T/tree.out")
check tree-header "second line is not the DURATION header: $(sed -n 2p "$T/tree.out")" \
    grep -qx '    DURATION  FUNCTION' <(sed -n 2p "$T/tree.out")
tree_as_etrace "$T/tree.out" >"$T/tree.as-etrace"
check tree-same-structure "the tree style's nesting differs from etrace's" \
    same "$EXPECTED" "$T/tree.as-etrace"
check tree-leaf-collapsed "no 'Crumble_buy(); x5' line" \
    grep -Eq '^ +[0-9.]+ [mun]?s +Crumble_buy\(\); x5$' "$T/tree.out"
check tree-caller-closed "no '} /* Crumble_buy_stuff */' line with a duration" \
    grep -Eq '^ +[0-9.]+ [mun]?s +\} /\* Crumble_buy_stuff \*/$' "$T/tree.out"
check tree-main-closes-last "the last line is not main's closing brace" \
    grep -Eq '^ +[0-9.]+ [mun]?s  \} /\* main \*/$' <(tail -n 1 "$T/tree.out")
check tree-balanced "a note or an open frame in a complete trace" \
    eval '! sed 1d "$T/tree.out" | grep -q "^#"'

# --depth=2: main and its callee, nothing deeper.
run depth "$CT" tree --style=etrace --depth=2 "$CRUMBLE" "$T/linked.trace"
printf 'main\n|   Crumble_make_apple_crumble\n' >"$T/depth.expected"
check depth2-etrace "status $RC, or not just main and Crumble_make_apple_crumble" \
    same "$T/depth.expected" "$T/depth.out"
run depthtree "$CT" tree --depth=2 "$CRUMBLE" "$T/linked.trace"
names=$(tree_body "$T/depthtree.out" | grep -v '^#' | grep -o '[A-Za-z_][A-Za-z_0-9]*' | sort -u | tr '\n' ' ')
check depth2-tree "functions shown: $names" [ "$names" = "Crumble_make_apple_crumble main " ]

run info "$CT" info "$CRUMBLE" "$T/linked.trace"
check info-status "exit status $RC" [ "$RC" -eq 0 ]
check info-build-id "no 'matches the ELF'" grep -q 'matches the ELF' "$T/info.out"
check info-thread "no 'thread  1' line" grep -q '^thread  1 ' "$T/info.out"
check info-not-lapped "not 'lapped:     no'" grep -q '^lapped:     no$' "$T/info.out"

# `cygtrace record`: the same source built without our runtime, so its hooks are glibc's
# empty stubs until the preload overrides them; the program is PIE, so addresses must be
# relocated with the recorded load bias.
if gcc -finstrument-functions -g -O1 -fno-inline -o "$T/crumble_plain" \
    "$ROOT/examples/crumble/crumble.c" 2>"$T/gcc.err"; then
    run record "$CT" record -o "$T/preload.trace" -- "$T/crumble_plain"
    check record-status "exit status $RC: $(tail -n 1 "$T/record.err")" [ "$RC" -eq 0 ]
    check record-program-stdout "the program's stdout differs" same "$T/prog.out" "$T/record.out"
    check record-says-records "stderr: $(tail -n 1 "$T/record.err")" \
        grep -Eq '^cygtrace: .*preload\.trace: [0-9]+ records' "$T/record.err"
    run recetrace "$CT" tree --style=etrace "$T/crumble_plain" "$T/preload.trace"
    if [ "$RC" -eq 0 ] && same "$EXPECTED" "$T/recetrace.out"; then
        pass record-etrace-exact
    else
        fail record-etrace-exact "status $RC: $(head -n 1 "$T/recetrace.err")"
    fi

    # record returns the program's exit status.
    printf 'int three(void) { return 3; }\nint main(void) { return three(); }\n' >"$T/three.c"
    gcc -finstrument-functions -O1 -fno-inline -o "$T/three" "$T/three.c"
    run three "$CT" record -o "$T/three.trace" -- "$T/three"
    check record-exit-status "exit status $RC, expected the program's 3" [ "$RC" -eq 3 ]
else
    fail record-compile "gcc failed: $(head -n 1 "$T/gcc.err")"
fi

finish
