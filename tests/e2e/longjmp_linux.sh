#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# longjmp_linux.sh - longjmps in the default tree (no call sites): the runtime records setjmp
# and longjmp, and the tree closes the calls a longjmp skipped where its setjmp was, as
# uftrace shows them. tests/jumps.c, linked with libcygtrace.a (its --wrap wrappers) and
# preloaded by cygtrace record (built with _FORTIFY_SOURCE: longjmp is __longjmp_chk there);
# one longjmp out of six frames, nested buffers, four threads, siglongjmp out of a signal
# handler, _setjmp/_longjmp and sigsetjmp(0); with call sites the same tree; after_jump as deep
# as uftrace puts it; linked with _FORTIFY_SOURCE, and with -static (with and without the
# --wrap options); a hole that took an exit, said to be that.
set -u
. "$(dirname "$0")/lib.sh"

J=$BUILD/tests/jumps
JD=$BUILD/tests/jumps-dyn
need "$CT" "$J" "$JD"

# trace WHO SCENARIO [ENV=VALUE...]: runs jumps (WHO linked) or jumps-dyn under cygtrace
# record (WHO dyn), then cygtrace tree; the body (no durations) in $T/WHO-SCENARIO.body.
trace() {
    local who=$1 s=$2 tag=$1-$2 elf
    shift 2
    rm -f "$T/$tag.ring"
    if [ "$who" = linked ]; then
        elf=$J
        run "$tag" env CYGTRACE_OUT="$T/$tag.ring" "$@" "$J" "$s"
    else
        elf=$JD
        run "$tag" env "$@" "$CT" record -o "$T/$tag.ring" -- "$JD" "$s"
    fi
    check "$tag-runs" "status $RC: $(head -n 1 "$T/$tag.err")" \
        eval '[ "$RC" -eq 0 ] && grep -qx "$s: done" "$T/$tag.out"'
    run "$tag-tree" "$CT" tree "$elf" "$T/$tag.ring"
    tree_body "$T/$tag-tree.out" | grep -v '^#' >"$T/$tag.body"
}

cat >"$T/six.expected" <<'EOF'
main() {
  f1() {
    f2() {
      f3() {
        f4() {
          f5() {
            f6();  (never returned: longjmp)
          } /* f5 */  (never returned: longjmp)
        } /* f4 */  (never returned: longjmp)
      } /* f3 */  (never returned: longjmp)
    } /* f2 */  (never returned: longjmp)
  } /* f1 */  (never returned: longjmp)
  after_jump();
} /* main */
EOF
cat >"$T/nested.expected" <<'EOF'
main() {
  outer() {
    h1() {
      inner() {
        h2() {
          h3();  (never returned: longjmp)
        } /* h2 */  (never returned: longjmp)
        after_inner();
        h2() {
          h4();  (never returned: longjmp)
        } /* h2 */  (never returned: longjmp)
      } /* inner */  (never returned: longjmp)
    } /* h1 */  (never returned: longjmp)
    after_outer();
  } /* outer */
} /* main */
EOF
cat >"$T/signal.expected" <<'EOF'
main() {
  sig_run() {
    s1() {
      s2() {
        s3() {
          on_sig();  (never returned: longjmp)
        } /* s3 */  (never returned: longjmp)
      } /* s2 */  (never returned: longjmp)
    } /* s1 */  (never returned: longjmp)
    after_jump();
  } /* sig_run */
} /* main */
EOF
cat >"$T/plain.expected" <<'EOF'
main() {
  plain() {
    p1() {
      p2();  (never returned: longjmp)
    } /* p1 */  (never returned: longjmp)
    after_jump();
    p1() {
      p2();  (never returned: longjmp)
    } /* p1 */  (never returned: longjmp)
    after_jump();
  } /* plain */
} /* main */
EOF

for who in linked dyn; do
    for s in six nested signal plain; do
        trace "$who" "$s"
        check "$who-$s-tree" "the tree differs" same "$T/$s.expected" "$T/$who-$s.body"
    done

    # Four threads, each 50 times out of g1 .. g6: every after_jump is worker's callee (one
    # deep), beside g1, in every thread's tree; every g1 .. g6 never returned, for a longjmp.
    trace "$who" threads
    awk '/^# thread / { th = $3 } /^ *(after_jump\(\);|g1\(\) \{)$/ {
             match($0, /^ */); n[th " " substr($0, RLENGTH + 1, 2) " " RLENGTH]++ }
         END { for (k in n) print k, n[k] }' \
        <(tree_body "$T/$who-threads-tree.out") | sort >"$T/$who-threads.counts"
    check "$who-threads-depth" "after_jump and g1 per thread (thread, name, indent, count): $(head -n 8 "$T/$who-threads.counts" | tr '\n' '|')" \
        eval '[ "$(wc -l <"$T/$who-threads.counts")" -eq 8 ] &&
              [ "$(awk "\$4 != 50 || \$3 != 2" "$T/$who-threads.counts" | wc -l)" -eq 0 ]'
    check "$who-threads-never-returned" "$(grep -c 'never returned: longjmp)$' "$T/$who-threads.body") lines say a longjmp, expected 1200" \
        [ "$(grep -c 'never returned: longjmp)$' "$T/$who-threads.body")" -eq 1200 ]
    check "$who-threads-no-other-note" "$(grep -m 1 -o 'never returned: longjmp or.*' "$T/$who-threads.body")" \
        eval '! grep -q "longjmp or unwound\|call stack at the end" "$T/$who-threads-tree.out"'

    # With call sites, the same tree.
    trace "$who" six CYGTRACE_CALLSITES=1
    mv "$T/$who-six.body" "$T/$who-six-sites.body"
    check "$who-six-callsites" "the tree with call sites differs" \
        same "$T/six.expected" "$T/$who-six-sites.body"
done

# uftrace, which hooks setjmp and longjmp itself (its library calls on), puts after_jump as
# deep as this tree does, out of six frames and out of a signal handler.
if command -v uftrace >/dev/null; then
    for s in six signal; do
        rm -rf "$T/$s.uftrace"
        timeout 60 uftrace record -d "$T/$s.uftrace" "$JD" "$s" >/dev/null 2>&1
        timeout 60 uftrace replay -d "$T/$s.uftrace" -f none --no-pager >"$T/$s.u" 2>&1
        iu=$(indent_of "$T/$s.u" '^ *after_jump\(\);$')
        ic=$(indent_of "$T/$s.expected" '^ *after_jump\(\);$') # as checked above
        check "uftrace-$s-after_jump" "after_jump indented $ic here, $iu by uftrace" \
            eval '[ "$iu" -gt 0 ] && [ "$ic" -eq "$iu" ]'
    done
else
    skip uftrace-after_jump "uftrace is not installed (make deps)"
fi

# The wrappers go on to the real functions whether or not anything records.
run off-dyn env CYGTRACE_OFF=1 "$CT" record -o "$T/off.ring" -- "$JD" signal
check off-dyn-runs "status $RC: $(head -n 1 "$T/off-dyn.err")" \
    eval '[ "$RC" -eq 0 ] && grep -qx "signal: done" "$T/off-dyn.out"'
run off-linked env CYGTRACE_OFF=1 CYGTRACE_OUT="$T/off2.ring" "$J" nested
check off-linked-runs "status $RC: $(head -n 1 "$T/off-linked.err")" \
    eval '[ "$RC" -eq 0 ] && grep -qx "nested: done" "$T/off-linked.out"'

# Linked with libcygtrace.a and _FORTIFY_SOURCE: longjmp and siglongjmp are __longjmp_chk,
# which the --wrap options send through the runtime too.
WRAP=-Wl,--wrap=_setjmp,--wrap=setjmp,--wrap=__sigsetjmp,--wrap=longjmp,--wrap=_longjmp,--wrap=siglongjmp,--wrap=__longjmp_chk
if gcc -finstrument-functions -g -O1 -fno-inline -D_FORTIFY_SOURCE=2 -o "$T/fortify" \
    "$ROOT/tests/jumps.c" "$BUILD/linux/libcygtrace.a" -lpthread "$WRAP" 2>"$T/fortify.cc"; then
    check fortify-chk "no __wrap___longjmp_chk in the program: the test proves less" \
        eval 'nm "$T/fortify" | grep -q " T __wrap___longjmp_chk$"'
    for s in six signal; do
        run "fortify-$s" env CYGTRACE_OUT="$T/fortify-$s.ring" "$T/fortify" "$s"
        run "fortify-$s-tree" "$CT" tree "$T/fortify" "$T/fortify-$s.ring"
        tree_body "$T/fortify-$s-tree.out" | grep -v '^#' >"$T/fortify-$s.body"
        check "fortify-$s-tree" "status $RC: the tree differs" same "$T/$s.expected" "$T/fortify-$s.body"
    done
else
    fail fortify-build "$(grep -m 1 error "$T/fortify.cc")"
fi

# A program linked with -static and the --wrap options: the wrappers go on to the C library's
# functions, which the archive leaves in place; without the options nothing is wrapped.
for how in wrap plain; do
    opts=$WRAP
    [ "$how" = plain ] && opts=
    # shellcheck disable=SC2086
    if gcc -finstrument-functions -g -O1 -fno-inline -static -o "$T/static-$how" \
        "$ROOT/tests/jumps.c" "$BUILD/linux/libcygtrace.a" -lpthread $opts 2>"$T/static-$how.cc"; then
        run "static-$how" env CYGTRACE_OUT="$T/static-$how.ring" "$T/static-$how" six
        check "static-$how-runs" "status $RC" \
            eval '[ "$RC" -eq 0 ] && grep -qx "six: done" "$T/static-$how.out"'
        run "static-$how-tree" "$CT" tree "$T/static-$how" "$T/static-$how.ring"
        tree_body "$T/static-$how-tree.out" | grep -v '^#' >"$T/static-$how.body"
        if [ "$how" = wrap ]; then
            check static-wrap-tree "the tree differs" same "$T/six.expected" "$T/static-wrap.body"
        fi
    else
        fail "static-$how-build" "$(grep -m 1 error "$T/static-$how.cc")"
    fi
done

# A hole (a late store amid a thread's chunk) that took a call's exit: the ring of "six" with
# after_jump's exit record wiped. The tree says the exit may be in the hole, and does not blame
# a longjmp or an unwinding for it.
cp "$T/linked-six.ring" "$T/hole.ring"
bias=$(od -An -t u8 -j 32 -N 8 "$T/hole.ring" | tr -d ' ')
fn=$((0x$(nm "$J" | awk '$3 == "after_jump" { print $1 }') + bias))
slot= i=0
while read -r a b; do # the first exit record (bit 61 set, 62 clear) of after_jump
    if [ $((0x$a & 0xffffffffffff)) -eq "$fn" ] && [ $(((0x$b >> 61) & 3)) -eq 1 ]; then
        slot=$i
        break
    fi
    i=$((i + 1))
done < <(od -An -v -t x8 -w16 -j 128 -N 16384 "$T/hole.ring")
if [ -n "$slot" ]; then
    dd if=/dev/zero of="$T/hole.ring" bs=16 seek=$((8 + slot)) count=1 conv=notrunc status=none
    run hole-tree "$CT" tree "$J" "$T/hole.ring"
    tree_body "$T/hole-tree.out" | grep -v '^#' >"$T/hole.body"
    sed 's/^\(  after_jump();\)$/\1  (exit lost in a hole)/' "$T/six.expected" >"$T/hole.expected"
    check hole-tree "the tree differs" same "$T/hole.expected" "$T/hole.body"
    check hole-noted "no note of the hole" grep -q '^# 1 slots were reserved but never written' \
        "$T/hole-tree.out"
else
    fail hole-slot "no exit record of after_jump in the ring"
fi

finish
