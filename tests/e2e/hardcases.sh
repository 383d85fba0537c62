#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# hardcases.sh - every scenario of examples/hardcases, recorded for real and decoded, with
# assertions on the tree's text: recursion, function pointers, longjmp, inlined calls with call
# sites, threads, crashes (SIGSEGV, abort, SIGKILL), exit() from deep inside, a ring that wraps
# many times, and one that wraps with a longjmp inside.
set -u
. "$(dirname "$0")/lib.sh"

H=$BUILD/examples/hardcases
need "$CT" "$H"

# scenario NAME [ENV=VALUE...]: runs hardcases NAME with its trace in $T/NAME.trace; stdout
# in $T/NAME.out, status in $RC.
scenario() {
    local name=$1
    shift
    rm -f "$T/$name.trace"
    run "$name" env CYGTRACE_OUT="$T/$name.trace" "$@" "$H" "$name"
}

# decode TAG [tree options]: cygtrace tree on the trace of scenario TAG's first word;
# output in $T/TAG.tree, the tree style without durations in $T/TAG.body.
decode() {
    local tag=$1
    shift
    run "$tag-tree" "$CT" tree "$@" "$H" "$T/${tag%%-*}.trace"
    cp "$T/$tag-tree.out" "$T/$tag.tree"
    tree_body "$T/$tag.tree" >"$T/$tag.body"
}

# Lines whose indentation is odd or whose text is not a tree line: both mean a broken depth.
bad_indent() {
    awk '/^#/ || /^$/ { next }
         { match($0, /^ */) }
         RLENGTH % 2 || substr($0, RLENGTH + 1) !~ /^([}]|[A-Za-z_])/ { print NR ": " $0 }' "$1"
}

# --- recurse: fact(5) nested five deep, each level closed in its place ----------------------
scenario recurse
check recurse-runs "status $RC, stdout: $(head -c 80 "$T/recurse.out")" \
    grep -q '5! = 120' "$T/recurse.out"
decode recurse --style=etrace
printf 'main\n|   fact\n|   |   fact\n|   |   |   fact\n|   |   |   |   fact\n|   |   |   |   |   fact\n' \
    >"$T/recurse.expected"
check recurse-etrace "the etrace tree differs" same "$T/recurse.expected" "$T/recurse.tree"
decode recurse-t
tree_as_etrace "$T/recurse-t.tree" >"$T/recurse-t.as-etrace"
check recurse-tree-nesting "the tree style's nesting differs" \
    same "$T/recurse.expected" "$T/recurse-t.as-etrace"
closers=$(awk '/} \/\* fact \*\/$/ { match($0, /^ */); printf "%d ", RLENGTH }' "$T/recurse-t.body")
check recurse-closers "fact closes at indentations '$closers', expected '8 6 4 2 '" \
    [ "$closers" = "8 6 4 2 " ]
# (its one "#" line: the durations are corrected for the hooks' cost)
check recurse-balanced "a note in a complete trace" \
    eval '! grep -v "^# durations corrected for hook cost: " "$T/recurse-t.tree" | grep -q "^#"'

# --- fnptr: calls through pointers, static functions named too ------------------------------
scenario fnptr
check fnptr-runs "status $RC" [ "$RC" -eq 0 ]
check fnptr-statics-are-local "twice and square are not local symbols: the test proves less" \
    eval '[ "$(nm "$H" | grep -Ec " t (twice|square)$")" -eq 2 ]'
decode fnptr --style=etrace
cat >"$T/fnptr.expected" <<'EOF'
main
|   run_fnptr
|   |   apply
|   |   |   twice
|   |   apply
|   |   |   square
|   |   apply
|   |   |   negate
|   |   square
EOF
check fnptr-etrace "the etrace tree differs" same "$T/fnptr.expected" "$T/fnptr.tree"

# --- longjmp: job_a/b/c never return; after_jump is run_jobs' callee --------------------------
# (the runtime's setjmp and longjmp records say why; longjmp_linux.sh has the same without
# call sites)
scenario longjmp CYGTRACE_CALLSITES=1
check longjmp-runs "status $RC" grep -q 'back in run_jobs' "$T/longjmp.out"
decode longjmp
cat >"$T/longjmp.expected" <<'EOF'
main() {
  run_jobs() {
    job_a() {
      job_b() {
        job_c();  (never returned: longjmp)
      } /* job_b */  (never returned: longjmp)
    } /* job_a */  (never returned: longjmp)
    after_jump();
  } /* run_jobs */
} /* main */
EOF
ia=$(indent_of "$T/longjmp.body" '^ *job_a\(\) \{$')
ij=$(indent_of "$T/longjmp.body" '^ *after_jump\(\);$')
check longjmp-after-jump-beside-job_a "after_jump indented $ij, job_a $ia" \
    eval '[ "$ia" -ge 0 ] && [ "$ij" -eq "$ia" ]'
ib=$(indent_of "$T/longjmp.body" '^ *job_b\(\)')
ic=$(indent_of "$T/longjmp.body" '^ *job_c\(\)')
check longjmp-job_c-inside-job_b "job_c indented $ic, job_b $ib" \
    eval '[ "$ib" -ge 0 ] && [ "$ic" -eq $((ib + 2)) ]'
for f in job_a job_b job_c; do
    check "longjmp-$f-never-returned" "no '(never returned: longjmp)' on $f" \
        grep -Eq "($f\(\);|/\* $f \*/)  \(never returned: longjmp\)$" "$T/longjmp.body"
done
check longjmp-tree-exact "the tree differs" same "$T/longjmp.expected" "$T/longjmp.body"
decode longjmp-braces --style=braces
braces_check "$T/longjmp-braces.tree" >"$T/longjmp-braces.problems"
check longjmp-braces-callers "$(head -n 2 "$T/longjmp-braces.problems" | tr '\n' '|')" \
    [ ! -s "$T/longjmp-braces.problems" ]
check longjmp-braces-job_c-caller "job_c's caller is not job_b" \
    grep -Eq '^ +\{ [0-9A-F]+->[0-9A-F]+  job_b:0x[0-9A-F]+->job_c$' "$T/longjmp-braces.tree"

# --- inline: helper() inlined into mid(); with call sites the tree nests as without ----------
# gcc gives an inlined function's hooks the call site of the function it is inlined into:
# helper()'s call site is mid()'s, in run_inline(). Taken for a longjmp back into run_inline,
# it made helper() and leaf() siblings of mid(), and mid()'s exit matched no call.
scenario inline
check inline-runs "status $RC" grep -q '^inline: ' "$T/inline.out"
mv "$T/inline.trace" "$T/inline_nosites.trace"
decode inline_nosites
scenario inline CYGTRACE_CALLSITES=1
decode inline
decode inline-braces --style=braces
braces_check "$T/inline-braces.tree" >"$T/inline-braces.problems"
check inline-braces-callers "$(head -n 2 "$T/inline-braces.problems" | tr '\n' '|')" \
    [ ! -s "$T/inline-braces.problems" ]
check inline-braces-named "no 'mid:inlined->helper' line" \
    grep -Eq '^ +\{ [0-9A-F]+->[0-9A-F]+  mid:inlined->helper$' "$T/inline-braces.tree"
cat >"$T/inline.expected" <<'EOF'
main() {
  run_inline() {
    mid() {
      helper();
      leaf();
      helper_leaf() {
        leaf();
      } /* helper_leaf */
    } /* mid */
    mid() {
      helper();
      leaf();
      helper_leaf() {
        leaf();
      } /* helper_leaf */
    } /* mid */
  } /* run_inline */
} /* main */
EOF
check inline-without-sites "the tree without call sites differs" \
    same "$T/inline.expected" "$T/inline_nosites.body"
check inline-with-sites "the tree with call sites differs" same "$T/inline.expected" "$T/inline.body"
# Call sites only add the calling line: leaf()'s, and none for the inlined calls, whose
# recorded site is mid()'s (a line in run_inline).
decode inline-src --srcline
sed -E 's/ \[hardcases\.c:[0-9]+\]//; s/ <- hardcases\.c:[0-9]+/ <-/' "$T/inline-src.body" |
    grep -v '^#' >"$T/inline-src.names"
check inline-srcline-leaf "leaf() without its calling line" \
    grep -Eq '^ +leaf\(\) <-;$' "$T/inline-src.names"
check inline-srcline-inlined "an inlined call shows a calling line: $(grep -m 1 -E 'helper.*<-' "$T/inline-src.names")" \
    eval '! grep -Eq "helper(_leaf)?\(\) <-" "$T/inline-src.names"'
check inline-srcline-nesting "the nesting with --srcline differs" \
    same "$T/inline.expected" <(sed -E 's/ <-//' "$T/inline-src.names")

# --- threads: one tree per thread, each balanced --------------------------------------------
scenario threads
check threads-runs "status $RC" grep -q 'joined' "$T/threads.out"
decode threads
grep -E '^# thread [0-9]+ \(tid [0-9]+\), [0-9]+ events$' "$T/threads.tree" >"$T/threads.headers"
n=$(wc -l <"$T/threads.headers")
check threads-three-headers "$n '# thread N (tid T), M events' headers, expected 3" [ "$n" -eq 3 ]
ids=$(awk '{ print $3 }' "$T/threads.headers" | sort -u | wc -l)
tids=$(awk '{ print $5 }' "$T/threads.headers" | sort -u | wc -l)
check threads-distinct "thread numbers or tids repeat" eval '[ "$ids" -eq 3 ] && [ "$tids" -eq 3 ]'
# A 4K ring no longer holds the threads' THREAD records: their tids come from the map's thread
# lines (without the map, at least one header has none: the case is real).
rm -f "$T/threads4k.trace"*
run threads4k env CYGTRACE_OUT="$T/threads4k.trace" CYGTRACE_SIZE=4K "$H" threads
run threads4k-tree "$CT" tree "$H" "$T/threads4k.trace"
mv "$T/threads4k.trace.maps" "$T/threads4k.nomaps"
run threads4k-nomap "$CT" tree "$H" "$T/threads4k.trace"
all=$(grep -c '^# thread ' "$T/threads4k-tree.out")
named=$(grep -cE '^# thread [0-9]+ \(tid [0-9]+\)' "$T/threads4k-tree.out")
unnamed=$(grep -cE '^# thread [0-9]+, ' "$T/threads4k-nomap.out")
check threads-wrapped-tids "$named of $all headers have a tid ($unnamed without the map)" \
    eval '[ "$all" -ge 2 ] && [ "$named" -eq "$all" ] && [ "$unnamed" -ge 1 ]'

# More threads than a fixed table holds (report and graph had 1024 places and said "out of
# memory": not compared with an older tool, CT_NATIVE): each its own row.
scenario manythreads
check manythreads-runs "status $RC" grep -q '1100 joined' "$T/manythreads.out"
run manythreads-report "$CT_NATIVE" report "$H" "$T/manythreads.trace"
check manythreads-report-all "status $RC: $(tail -n 1 "$T/manythreads-report.err")" \
    grep -q '^# all 1101 threads$' "$T/manythreads-report.out"
run manythreads-graph "$CT_NATIVE" graph --function=step_b2 "$H" "$T/manythreads.trace"
check manythreads-graph-all "status $RC: $(tail -n 1 "$T/manythreads-graph.err")" \
    grep -q '^# all 1101 threads$' "$T/manythreads-graph.out"

# One file per thread section: threads.sec.N.
rm -f "$T"/threads.sec.*
awk -v dir="$T" '/^# thread / { f = dir "/threads.sec." $3 } f { print > f }' "$T/threads.body"
for w in a b; do
    other=$([ $w = a ] && echo b || echo a)
    sec=$(grep -l "^worker_$w() {$" "$T"/threads.sec.* 2>/dev/null | head -n 1)
    if [ -z "$sec" ]; then
        fail "threads-worker_$w" "no section starts worker_$w"
        continue
    fi
    check "threads-worker_$w-alone" "its section shows other functions" \
        eval "! grep -Eq 'main|run_threads|worker_$other|step_$other' '$sec'"
    c1=$(grep -c "^  step_${w}1() {$" "$sec")
    c2=$(grep -c "^    step_${w}2();$" "$sec")
    check "threads-worker_$w-calls" "step_${w}1 $c1 times, step_${w}2 $c2 times, expected 200" \
        eval '[ "$c1" -eq 200 ] && [ "$c2" -eq 200 ]'
    check "threads-worker_$w-balanced" "notes or open frames: $(grep -m1 -E '^#  |never|before' "$sec")" \
        eval "! grep -Eq '^# [^t]|never returned|entered before' '$sec'"
    check "threads-worker_$w-closes" "last line: $(tail -n 1 "$sec")" \
        grep -qx "} /\* worker_$w \*/" <(grep -v '^$' "$sec" | tail -n 1)
    check "threads-worker_$w-events" "header: $(head -n 1 "$sec")" \
        grep -q ', 802 events$' <(head -n 1 "$sec")
    num=$(head -n 1 "$sec" | awk '{ print $3 }')
    run "threads-only-$w" "$CT" tree --style=etrace --thread="$num" "$H" "$T/threads.trace"
    check "threads-select-$w" "--thread=$num shows another thread or a header" \
        eval "[ \$(grep -c '^worker_$w\$' '$T/threads-only-$w.out') -eq 1 ] && ! grep -Eq '^#|worker_$other|main' '$T/threads-only-$w.out'"
done
main_sec=$(grep -l '^main() {$' "$T"/threads.sec.* 2>/dev/null | head -n 1)
printf 'main() {\n  run_threads();\n} /* main */\n' >"$T/threads.main.expected"
check threads-main "the main thread's tree differs" \
    same "$T/threads.main.expected" <(grep -Ev '^#|^$' "${main_sec:-/dev/null}")
run threads-info "$CT" info "$H" "$T/threads.trace"
n=$(grep -Ec '^thread  [0-9]+ +[0-9]+ events, tid [0-9]+$' "$T/threads-info.out")
check threads-info "info lists $n threads, expected 3" [ "$n" -eq 3 ]

# --- segv, abort, kill, exit: the trace survives; its end holds the call stack ---------------
printf '%s\n' '# call stack at the end of the trace (innermost first):' '#   0   level3' \
    '#   1   level2' '#   2   level1' '#   3   main' >"$T/stack.expected"
printf '%s\n' 'main() {' '  level1() {' '    level2() {' '      level3() {' >"$T/open.expected"
for s in segv:139 abort:134 kill:137 exit:0; do
    name=${s%%:*}
    want=${s##*:}
    scenario "$name"
    check "$name-status" "exit status $RC, expected $want" [ "$RC" -eq "$want" ]
    check "$name-trace-survives" "no trace file" [ -s "$T/$name.trace" ]
    decode "$name"
    check "$name-decodes" "tree exit status $RC: $(head -n 1 "$T/$name-tree.err")" [ "$RC" -eq 0 ]
    check "$name-call-stack" "the tree does not end with the call stack level3..main" \
        same "$T/stack.expected" <(grep -A4 '^# call stack at the end' "$T/$name.tree")
    check "$name-open-frames" "the tree does not open main..level3" \
        same "$T/open.expected" <(grep -v '^#\|^\*\*\*' "$T/$name.body")
    # A signal the runtime can catch is a fault record: where it died, and the ring frozen.
    fault=$(grep '^\*\*\*' "$T/$name.tree")
    case $name in
    segv) re='^\*\*\* signal 11 \(SIGSEGV\) at level3\+0x[0-9a-f]+, address 0x0$' ;;
    abort) re='^\*\*\* signal 6 \(SIGABRT\) at 0x[0-9a-f]+ \(outside the ELF\)$' ;;
    *) re='^$' ;; # SIGKILL cannot be caught; exit() is no fault
    esac
    check "$name-fault-line" "fault line '$fault'" eval '[[ "$fault" =~ $re ]]'
    if [ "$name" = segv ] || [ "$name" = abort ]; then
        check "$name-frozen" "no note that the ring was frozen" \
            grep -q '^# the trace was frozen' "$T/$name.tree"
    fi
done

# CYGTRACE_SIGNALS=0 leaves the program's signals alone: no fault record, same call stack.
run nosig env CYGTRACE_OUT="$T/nosig.trace" CYGTRACE_SIGNALS=0 "$H" segv
check nosig-status "exit status $RC, expected 139" [ "$RC" -eq 139 ]
run nosig-tree "$CT" tree "$H" "$T/nosig.trace"
check nosig-no-fault "a fault line: $(grep -m1 '^\*\*\*' "$T/nosig-tree.out")" \
    eval '! grep -q "^\*\*\*" "$T/nosig-tree.out"'
check nosig-call-stack "the tree does not end with the call stack level3..main" \
    same "$T/stack.expected" <(tail -n 5 "$T/nosig-tree.out")

# record reports a crash and returns the program's status
run record-segv "$CT" record -o "$T/record-segv.trace" -- "$H" segv
check record-segv-status "exit status $RC, expected 139" [ "$RC" -eq 139 ]
check record-segv-says-signal "stderr: $(head -n 1 "$T/record-segv.err")" \
    grep -q '^cygtrace: .*killed by signal 11' "$T/record-segv.err"
run record-segv-tree "$CT" tree "$H" "$T/record-segv.trace"
check record-segv-call-stack "the tree does not end with the call stack level3..main" \
    same "$T/stack.expected" <(grep -A4 '^# call stack at the end' "$T/record-segv-tree.out")

# --- wrap: 1.6 million events through a 256-record ring --------------------------------------
scenario wrap CYGTRACE_SIZE=4K
check wrap-runs "status $RC" grep -q '^wrap: 200000 calls' "$T/wrap.out"
decode wrap
check wrap-decodes "tree exit status $RC: $(head -n 1 "$T/wrap-tree.err")" [ "$RC" -eq 0 ]
bad_indent "$T/wrap.body" >"$T/wrap.badindent"
check wrap-indentation "odd or negative indentation: $(head -n 2 "$T/wrap.badindent" | tr '\n' '|')" \
    eval '[ ! -s "$T/wrap.badindent" ] && [ -s "$T/wrap.body" ]'
tree_as_etrace "$T/wrap.tree" | grep '^BAD' >"$T/wrap.unparsed"
check wrap-lines-parse "lines that are not tree lines: $(head -n 2 "$T/wrap.unparsed" | tr '\n' '|')" \
    [ ! -s "$T/wrap.unparsed" ]
check wrap-leaves "no 'chain4();' line" grep -Eq '^ +chain4\(\);$' "$T/wrap.body"
check wrap-chains "no 'chain1() {' line" grep -Eq '^ +chain1\(\) \{$' "$T/wrap.body"
first=$(indent_of "$T/wrap.body" '^ *[a-z]')
check wrap-starts-deep "the first line is indented $first, expected 6 or more (inside main, outer, middle)" \
    [ "$first" -ge 6 ]
printf '%s\n' '    } /* middle */  (entered before the trace begins)' \
    '  } /* outer */  (entered before the trace begins)' \
    '} /* main */  (entered before the trace begins)' >"$T/wrap.end.expected"
check wrap-outer-frames "the last lines are not middle, outer, main entered before the trace" \
    same "$T/wrap.end.expected" <(grep -v '^#' "$T/wrap.body" | tail -n 3)
check wrap-note "no '# N older events were overwritten' note" \
    grep -Eq '^# [0-9]+ older events were overwritten' "$T/wrap.tree"
check wrap-no-stack-left "a call stack at the end of a trace that returned to the top" \
    eval '! grep -q "call stack at the end" "$T/wrap.tree"'
decode wrap-etrace --style=etrace
check wrap-etrace "etrace: status $RC, or a line not made of '|   ' and a name" \
    eval '[ "$RC" -eq 0 ] && [ -s "$T/wrap-etrace.tree" ] && ! grep -Evq "^(\|   )*[A-Za-z_][A-Za-z_0-9]*( \(total: [0-9]+ times\))?\$" "$T/wrap-etrace.tree"'
run wrap-info "$CT" info "$H" "$T/wrap.trace"
check wrap-info-lapped "no 'lapped:     yes'" grep -qx 'lapped:     yes' "$T/wrap-info.out"
# 4K of 16-byte records; of 8-byte ones in a version 4 ring (CYGTRACE_FORMAT=4)
recs=256
grep -q '^format: *version 4,' "$T/wrap-info.out" && recs=512
check wrap-info-capacity "no 'capacity:   $recs records'" \
    grep -q "^capacity:   $recs records" "$T/wrap-info.out"

# --- wrapjmp: a 4K ring that holds a longjmp ------------------------------------------------
# The trace starts inside main, jump_outer and work; protect() longjmps out of five calls of
# dive(), whose exits never come. Counted as calls minus returns, they made the trace start
# one call deep: jump_outer's and main's exits matched no call and the end showed at depth 0.
scenario wrapjmp
mv "$T/wrapjmp.trace" "$T/wrapjmp_full.trace"
decode wrapjmp_full
scenario wrapjmp CYGTRACE_SIZE=4K
check wrapjmp-runs "status $RC" grep -q '^wrapjmp: ' "$T/wrapjmp.out"
decode wrapjmp
check wrapjmp-wrapped "no '# N older events were overwritten' note: the test proves nothing" \
    grep -Eq '^# [0-9]+ older events were overwritten' "$T/wrapjmp.tree"
check wrapjmp-all-matched "$(grep -m 1 'matched no call' "$T/wrapjmp.tree")" \
    eval '! grep -q "matched no call" "$T/wrapjmp.tree"'
# From protect() on, the wrapped trace nests as the whole one; the frames it starts inside
# are said to be.
tail_from_protect() {
    grep -v '^#' "$1" | sed -n '/^ *protect() {$/,$p' | sed 's/  (entered before the trace begins)$//'
}
tail_from_protect "$T/wrapjmp_full.body" >"$T/wrapjmp_full.end"
tail_from_protect "$T/wrapjmp.body" >"$T/wrapjmp.end"
check wrapjmp-end-as-unwrapped "the end differs from the unwrapped trace's" \
    eval '[ "$(wc -l <"$T/wrapjmp_full.end")" -ge 15 ] && same "$T/wrapjmp_full.end" "$T/wrapjmp.end"'
printf '%s\n' '  } /* jump_outer */  (entered before the trace begins)' \
    '} /* main */  (entered before the trace begins)' >"$T/wrapjmp.last.expected"
check wrapjmp-last-lines "the last lines are not jump_outer and main entered before the trace" \
    same "$T/wrapjmp.last.expected" <(grep -v '^#' "$T/wrapjmp.body" | tail -n 2)

# stop-when-full: the first 256 records stay, the rest are counted, and held + lost = all.
run wrap-stop env CYGTRACE_OUT="$T/wrap-stop.trace" CYGTRACE_SIZE=4K CYGTRACE_MODE=stop "$H" wrap
check wrap-stop-runs "status $RC" [ "$RC" -eq 0 ]
run wrap-stop-tree "$CT" tree "$H" "$T/wrap-stop.trace"
check wrap-stop-decodes "tree exit status $RC" [ "$RC" -eq 0 ]
check wrap-stop-lost-note "no '# N events were lost' note" \
    grep -Eq '^# [0-9]+ events were lost: the buffer was full' "$T/wrap-stop-tree.out"
tree_body "$T/wrap-stop-tree.out" | bad_indent /dev/stdin >"$T/wrap-stop.badindent"
check wrap-stop-indentation "$(head -n 2 "$T/wrap-stop.badindent" | tr '\n' '|')" \
    [ ! -s "$T/wrap-stop.badindent" ]
run wrap-stop-info "$CT" info "$H" "$T/wrap-stop.trace"
held=$(awk '/^held:/ { print $2 }' "$T/wrap-stop-info.out")
lost=$(awk '/^lost:/ { print $2 }' "$T/wrap-stop-info.out")
# The overwrite run's events: the records held and those lapped (one thread: every slot it
# reserved before its last chunk holds one of its events).
# (a version 4 ring: each chunk of 64 slots it overwrote began with its CHUNK word, no event)
total=$(awk '/^held:/ { h = $2 } /^overwritten:/ { o = $2 } /^format: *version 4,/ { v4 = 1 }
    END { print int(h + o - (v4 ? o / 64 : 0)) }' "$T/wrap-info.out")
# A version 4 ring also holds an EPOCH word now and then (a thread preempted for milliseconds
# in the middle of a chunk: FORMAT.md 15.3), which the overwrite run's count cannot tell from an
# event: a thousandth less is allowed there, never more.
if grep -q '^format: *version 4,' "$T/wrap-info.out"; then
    total=${total%.*}
    check wrap-stop-accounting "held $held + lost $lost: not within a thousandth under $total" \
        eval '[ $((${held:-0} + ${lost:-0})) -le "${total:--1}" ] &&
              [ $((${held:-0} + ${lost:-0})) -ge $((${total:-0} - ${total:-0} / 1000)) ]'
else
    check wrap-stop-accounting "held $held + lost $lost != $total events of the overwrite run" \
        [ "$((${held:-0} + ${lost:-0}))" -eq "${total:--1}" ]
fi

finish
