#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# trigger_linux.sh - triggers and record-time filters of the Linux runtime, set through the
# environment (CYGTRACE_TRIGGER, _EXCLUDE, _HIDE, _DEPTH, _EVENTS) and through cygtrace
# record's options: freeze@FUNC+N (the ring ends exactly N events after FUNC's entry),
# freeze@FUNC+0, start@FUNC, stop@FUNC, the two together, freeze@mark:ID+N, exclude, hide,
# depth 1 and 2, the classes of marks; names of a shared library and of a plugin that dlopen
# loads later; a link-time address in a PIE; a forked child's own ring; a freeze in one thread
# that freezes the ring for all. And what must not stop the program: an unknown name, an
# indirect function, malformed values (one line each on stderr, the program traced on), a
# library whose segment runs past the end of its file, and malformed record options (one
# line, status 2, the program not run).
set -u
. "$(dirname "$0")/lib.sh"

D=$BUILD/examples/libs
LIBS=$D/libsdemo
need "$CT" "$LIBS" "$BUILD/linux/libcygtrace.so"
if [ ! -e "$BUILD/linux/libcygtrace.a" ]; then
    fail "$E2E_NAME-prerequisites" "$BUILD/linux/libcygtrace.a is missing: run make"
    finish
fi

# trig: known calls in a known order, linked with the runtime (libcygtrace.a).
cat >"$T/trig.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cygtrace.h"

#define FN __attribute__((noinline))

static volatile int sink;
static volatile int workers_stop;

FN void leaf(int i) { sink += i; }
FN void leaf2(int i) { sink -= i; }
FN void init_tables(void) { for (int i = 0; i < 3; i++) leaf(i); }
FN void noisy(int i) { leaf2(i); }
FN void before(void) { leaf(1); }
FN void region(void) { leaf(2); leaf2(2); }
FN void outside(void) { leaf(3); }
FN void d3(void) { leaf(4); }
FN void d2(void) { d3(); }
FN void d1(void) { d2(); }
FN void boom(void) { leaf(5); }
FN void after_boom(int i) { leaf(i); }
FN void after_mark(int i) { leaf(i); }
FN void work(int t) { leaf(t); }
FN void marks(void)
{
    cygtrace_event(3, 7, 0x77);
    cygtrace_event(5, 8, 0x88);
    cygtrace_event(0, 9, 0x99);
}

FN void seq(void)
{
    init_tables();
    noisy(1);
    before();
    region();
    outside();
    region();
    d1();
    marks();
    noisy(2);
    boom();
    for (int i = 0; i < 30; i++)
        after_boom(i);
}

FN void mark_freeze(void)
{
    before();
    cygtrace_mark(42, 0x4242);
    for (int i = 0; i < 30; i++)
        after_mark(i);
}

static void *worker(void *arg)
{
    while (!workers_stop)
        work((int)(long)arg);
    return NULL;
}

/* Three threads call work() all along; the main thread calls boom() 20 ms in, and they go on
 * for 20 ms more. */
FN void threads(void)
{
    pthread_t th[3];
    struct timespec ms20 = {0, 20 * 1000 * 1000};

    for (long i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, worker, (void *)(i + 1));
    nanosleep(&ms20, NULL);
    boom();
    for (int i = 0; i < 30; i++)
        after_boom(i);
    nanosleep(&ms20, NULL);
    workers_stop = 1;
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "seq";

    if (!strcmp(mode, "seq"))
        seq();
    else if (!strcmp(mode, "mark"))
        mark_freeze();
    else if (!strcmp(mode, "threads"))
        threads();
    else
        return 2;
    printf("done %s\n", mode);
    return 0;
}
EOF
P=$T/trig
if ! gcc -std=gnu11 -Wall -finstrument-functions -g -O1 -fno-inline -fPIE -pie \
    -I"$ROOT/target/core" -o "$P" "$T/trig.c" "$BUILD/linux/libcygtrace.a" -lpthread \
    2>"$T/gcc.err"; then
    fail "$E2E_NAME-compile" "gcc failed: $(head -n 1 "$T/gcc.err")"
    finish
fi

# go TAG MODE [VAR=VALUE...]: runs trig MODE with these variables into $T/TAG.ring (no other
# CYGTRACE_ variable), then its tree (--no-collapse) into $T/TAG.tree and its body without
# durations into $T/TAG.body, and cygtrace info into $T/TAG.info.
go() {
    local tag=$1 mode=$2
    shift 2
    rm -f "$T/$tag.ring" "$T/$tag.ring.maps"
    run "$tag" env -u CYGTRACE_TRIGGER -u CYGTRACE_EXCLUDE -u CYGTRACE_HIDE -u CYGTRACE_DEPTH \
        -u CYGTRACE_EVENTS -u CYGTRACE_RING CYGTRACE_OUT="$T/$tag.ring" "$@" "$P" "$mode"
    RUN_RC=$RC
    decode "$tag" "$P"
    RC=$RUN_RC
}

# decode TAG ELF: the tree and info of $T/TAG.ring.
decode() {
    run "$1-tree" "$CT" tree --no-collapse "$2" "$T/$1.ring"
    cp "$T/$1-tree.out" "$T/$1.tree"
    tree_body "$T/$1.tree" | grep -v '^#' >"$T/$1.body"
    run "$1-info" "$CT" info "$2" "$T/$1.ring"
    cp "$T/$1-info.out" "$T/$1.info"
}

# events_after TAG: the events the tree shows from the line "# trigger ... fired" on (the
# trigger's own included): a call on one line is two, an opening or closing line and a mark
# one each. -1 when no trigger fired.
events_after() {
    awk 'BEGIN { n = -1 }
         /^ *# trigger .* fired( \(.*\))?$/ { n = 0; next }
         n < 0 { next }
         /^# / { exit }
         /\(\);$/ { n += 2; next }
         /\(\) \{$/ || /\} \/\* / || /# mark / { n++ }
         END { print n }' "$T/$1.tree"
}

# ok_run TAG: the program ran to its end and said nothing on stderr.
ok_run() {
    [ "$RC" -eq 0 ] && grep -q '^done ' "$T/$1.out" && [ ! -s "$T/$1.err" ]
}

# names TAG: the function names of the body, in order, one per line (calls and openings).
names() {
    sed -n 's/^ *\([a-z_0-9.:]*\)() {$/\1/p; s/^ *\([a-z_0-9.:]*\)();$/\1/p' "$T/$1.body"
}

# indent TAG REGEX: the indentation of the first line of the body that matches.
indent() {
    indent_of "$T/$1.body" "$2"
}

why() {
    echo "status $RC, stderr: $(head -c 300 "$T/$1.err" | tr '\n' '|'); tree: $(tail -n 4 "$T/$1.tree" | tr '\n' '|')"
}

# whole TAG: the program's whole sequence was recorded, nothing armed.
whole() {
    [ "$RC" -eq 0 ] && grep -q '^done ' "$T/$1.out" && grep -q "^  } /\* seq \*/" "$T/$1.body" &&
        ! grep -q '^ *# trigger' "$T/$1.tree" && grep -qx 'control: *none armed' "$T/$1.info" &&
        ! grep '^control:' "$T/$1.info" | grep -qv 'none armed$'
}

# --- nothing armed: the whole sequence, no control lines -------------------------------------
go base seq
check base-runs "$(why base)" ok_run base
check base-whole "$(why base)" whole base

# --- freeze@FUNC+N: the ring ends N events after FUNC's entry ---------------------------------
go f10 seq CYGTRACE_TRIGGER=freeze@boom+10
n=$(events_after f10)
check freeze-n-runs "$(why f10)" ok_run f10
check freeze-n-window "$n events from the trigger on, expected 1 + 10" [ "$n" = 11 ]
# boom> leaf> leaf< boom< after_boom> leaf> leaf< after_boom> after_boom> leaf> leaf<
check freeze-n-last-lines "$(tail -n 3 "$T/f10.body" | tr '\n' '|')" \
    eval '[ "$(tail -n 3 "$T/f10.body")" = "$(printf "    } /* after_boom */\n    after_boom() {\n      leaf();")" ]'
check freeze-n-info "$(grep -E '^(state|control)' "$T/f10.info" | tr '\n' '|')" \
    eval 'grep -q "^state: *frozen" "$T/f10.info" &&
          grep -q "^control: *trigger freeze@boom+10 (fired)" "$T/f10.info" &&
          grep -q "^control: *fired freeze@boom+10 at event" "$T/f10.info"'
check freeze-n-tree-says "$(grep '^#' "$T/f10.tree" | tr '\n' '|')" \
    grep -q "^# the trace was frozen (by trigger freeze@boom+10)" "$T/f10.tree"

go f0 seq CYGTRACE_TRIGGER=freeze@boom+0
check freeze-0 "$(events_after f0) events from the trigger on; $(why f0)" \
    eval 'ok_run f0 && [ "$(events_after f0)" = 1 ] && [ "$(tail -n 1 "$T/f0.body")" = "    boom() {" ]'
go fbare seq CYGTRACE_TRIGGER=freeze@boom
check freeze-no-n-is-0 "$(events_after fbare) events from the trigger on; $(why fbare)" \
    eval 'ok_run fbare && [ "$(events_after fbare)" = 1 ]'

# --- start and stop -----------------------------------------------------------------------------
go start seq CYGTRACE_TRIGGER=start@region
check start "names: $(names start | tr '\n' ' '); $(why start)" \
    eval 'ok_run start && [ "$(names start | head -n 1)" = region ] &&
          ! names start | grep -qx -e init_tables -e before &&
          names start | grep -qx outside && names start | grep -qx after_boom &&
          grep -q "^ *# trigger start@region fired" "$T/start.tree"'
go stop seq CYGTRACE_TRIGGER=stop@region
check stop "names: $(names stop | tr '\n' ' '); $(why stop)" \
    eval 'ok_run stop && names stop | grep -qx init_tables &&
          [ "$(names stop | grep -cx region)" = 1 ] && ! names stop | grep -qx outside &&
          [ "$(grep -v "^ *#" "$T/stop.body" | tail -n 1 | sed "s/^ *//")" = "} /* region */" ]'
go startstop seq CYGTRACE_TRIGGER=start@region,stop@region
check start-stop "names: $(names startstop | tr '\n' ' '); $(why startstop)" \
    eval 'ok_run startstop &&
          [ "$(names startstop | tr "\n" " ")" = "region leaf leaf2 region leaf leaf2 " ] &&
          [ "$(grep -c "# trigger st.*@region fired" "$T/startstop.tree")" = 4 ]'

# --- freeze at a mark -----------------------------------------------------------------------------
go fmark mark CYGTRACE_TRIGGER=freeze@mark:42+5
check freeze-mark "$(events_after fmark) events from the trigger on, expected 1 + 5; $(why fmark)" \
    eval 'ok_run fmark && [ "$(events_after fmark)" = 6 ] &&
          grep -A1 "# trigger freeze@mark:42+5 fired" "$T/fmark.tree" | grep -q "# mark 42 = 0x4242"'

# --- record-time filters -------------------------------------------------------------------------
go excl seq CYGTRACE_EXCLUDE=noisy
check exclude "names: $(names excl | tr '\n' ' '); $(why excl)" \
    eval 'ok_run excl && ! names excl | grep -qx noisy &&
          [ "$(names excl | grep -cx leaf2)" = 4 ] &&
          [ "$(indent excl "^ *leaf2[(]")" = "$(indent excl "^ *before[(]")" ]'
go hide seq CYGTRACE_HIDE=init_tables
check hide "names: $(names hide | head -n 5 | tr '\n' ' '); $(why hide)" \
    eval 'ok_run hide && ! names hide | grep -qx init_tables &&
          [ "$(names hide | sed -n 3p)" = noisy ]'
go both seq CYGTRACE_HIDE=init_tables,d2 CYGTRACE_EXCLUDE=noisy,after_boom
check exclude-hide-lists "names: $(names both | sort -u | tr '\n' ' '); $(why both)" \
    eval 'ok_run both && ! names both | grep -qx -e init_tables -e d2 -e d3 -e noisy -e after_boom &&
          names both | grep -qx d1 && [ "$(names both | grep -cx leaf)" -ge 30 ]'
go depth1 seq CYGTRACE_DEPTH=1
check depth-1 "body: $(tr '\n' '|' <"$T/depth1.body"); $(why depth1)" \
    eval 'ok_run depth1 && [ "$(names depth1 | tr "\n" " ")" = "main " ]'
go depth2 seq CYGTRACE_DEPTH=2
check depth-2 "names: $(names depth2 | tr '\n' ' '); $(why depth2)" \
    eval 'ok_run depth2 && [ "$(names depth2 | tr "\n" " ")" = "main seq " ]'
go depth3 seq CYGTRACE_DEPTH=3
check depth-3 "names: $(names depth3 | sort -u | tr '\n' ' '); $(why depth3)" \
    eval 'ok_run depth3 && names depth3 | grep -qx d1 && ! names depth3 | grep -qx -e d2 -e leaf'

# The classes of marks: 7 is class 3, 8 class 5, 9 class 0.
marks_of() {
    sed -n 's/^ *# mark \([0-9]*\) .*/\1/p' "$T/$1.body" | tr '\n' ' '
}
for ev in "3:7 " "0,5:8 9 " "0x20:8 " "none:" "all:7 8 9 " "4-31:8 "; do
    go "ev${ev%%:*}" seq CYGTRACE_EVENTS="${ev%%:*}"
    check "events-${ev%%:*}" "marks: '$(marks_of "ev${ev%%:*}")', expected '${ev#*:}'; $(why "ev${ev%%:*}")" \
        eval 'ok_run "ev${ev%%:*}" && [ "$(marks_of "ev${ev%%:*}")" = "${ev#*:}" ]'
done

# --- names: a link-time address in a PIE, several triggers at once --------------------------------
addr=$(nm "$P" | sed -n 's/^0*\([0-9a-f]*\) T boom$/\1/p')
go addr seq CYGTRACE_TRIGGER="freeze@0x$addr+0"
check address "boom at 0x$addr: $(events_after addr) events; $(why addr)" \
    eval '[ -n "$addr" ] && ok_run addr && [ "$(tail -n 1 "$T/addr.body")" = "    boom() {" ]'
go several seq CYGTRACE_TRIGGER=start@before,stop@outside,start@d1,freeze@boom+3
check several-triggers "names: $(names several | tr '\n' ' '); $(why several)" \
    eval 'ok_run several &&
          [ "$(names several | tr "\n" " ")" = "before leaf region leaf leaf2 outside leaf d1 d2 d3 leaf marks noisy leaf2 boom leaf " ]'

# --- threads: a freeze in one thread freezes the ring for all --------------------------------------
go threads threads CYGTRACE_TRIGGER=freeze@boom+10 CYGTRACE_SIZE=64K
written=$(sed -n 's/^written: *\([0-9]*\) .*/\1/p' "$T/threads.info")
fired=$(sed -n 's/^control: *fired .* at event \([0-9]*\) .*/\1/p' "$T/threads.info")
check threads-runs "$(why threads)" ok_run threads
# The workers went on for 20 ms after the freeze (millions of calls): had they recorded, the
# 4096-record ring would hold none of the main thread's calls. At most a chunk more a thread.
check threads-frozen-for-all "written $written, fired at $fired" \
    eval '[ -n "$written" ] && [ -n "$fired" ] && [ $((written - fired)) -le $((4 * 64 + 11)) ] &&
          grep -q "^state: *frozen" "$T/threads.info"'
run threads-main "$CT" tree --no-collapse --thread=1 "$P" "$T/threads.ring"
check threads-trigger-kept "main thread: $(grep -v '^#' "$T/threads-main.out" | tr '\n' '|' | cut -c1-200)" \
    eval 'grep -q "# trigger freeze@boom+10 fired" "$T/threads-main.out" &&
          grep -q "boom() {" "$T/threads-main.out"'

# --- shared libraries (preloaded runtime): a linked library, a plugin dlopen'ed later -------------
lib_go() {
    local tag=$1 mode=$2
    shift 2
    rm -f "$T/$tag.ring" "$T/$tag.ring".*
    run "$tag" env -u CYGTRACE_TRIGGER -u CYGTRACE_EXCLUDE -u CYGTRACE_HIDE -u CYGTRACE_DEPTH \
        -u CYGTRACE_EVENTS -u CYGTRACE_RING CYGTRACE_OUT="$T/$tag.ring" \
        LD_PRELOAD="$BUILD/linux/libcygtrace.so" "$@" "$LIBS" "$mode"
    RUN_RC=$RC
    decode "$tag" "$LIBS"
    RC=$RUN_RC
}
lib_go shlib libs CYGTRACE_TRIGGER=freeze@shape_area+0
check shared-library "$(why shlib)" \
    eval '[ "$RC" -eq 0 ] && [ ! -s "$T/shlib.err" ] &&
          [ "$(tail -n 1 "$T/shlib.body")" = "    libshape.so:shape_area() {" ] &&
          grep -q "^control: *fired freeze@libshape.so:shape_area+0" "$T/shlib.info"'
lib_go plugin libs CYGTRACE_TRIGGER=start@plugin_run
check plugin-said "stderr: $(tr '\n' '|' <"$T/plugin.err")" \
    eval '[ "$(wc -l <"$T/plugin.err")" = 1 ] &&
          grep -q "^cygtrace: CYGTRACE_TRIGGER: .start@plugin_run.: no function plugin_run in the \
program or its libraries; armed if a library that dlopen loads later has one$" "$T/plugin.err"'
# Armed at the program's first call of the loader after the dlopen that brought it in (the
# runtime cannot run code when dlopen returns without changing what it loads): the dlsym of
# plugin_run. Recording goes on until then (nothing held it back yet: shape_area, called
# between the dlopen and the dlsym, is recorded), and the trigger fires at plugin_run.
check plugin-armed-after-dlopen "names: $(names plugin | tr '\n' ' '); $(why plugin)" \
    eval '[ "$RC" -eq 0 ] && names plugin | grep -A1 -x open_plugin | tail -n 1 | grep -qx libshape.so:shape_area &&
          names plugin | grep -qx plugin.so:plugin_run && grep -q "^control: *trigger start@plugin.so:plugin_run (fired)" "$T/plugin.info"'
# A forked child arms the same triggers in its own ring: it freezes there, the parent's does not.
lib_go fork fork CYGTRACE_TRIGGER=freeze@shape_area+0
child=$(cd "$T" && ls fork.ring.* 2>/dev/null | grep -E '^fork\.ring\.[0-9]+$' | head -n 1)
if [ -n "$child" ]; then
    mv "$T/$child" "$T/forkchild.ring"
    mv "$T/$child.maps" "$T/forkchild.ring.maps"
    decode forkchild "$LIBS"
fi
check fork-child-armed "child ring '$child': $(tail -n 2 "$T/forkchild.body" 2>/dev/null | tr '\n' '|')" \
    eval '[ -n "$child" ] && [ "$(tail -n 1 "$T/forkchild.body" | sed "s/^ *//")" = "libshape.so:shape_area() {" ] &&
          grep -q "^state: *frozen" "$T/forkchild.info"'
check fork-parent-not-fired "parent: $(grep -E '^(state|control)' "$T/fork.info" | tr '\n' '|')" \
    eval 'grep -q "^control: *trigger freeze@libshape.so:shape_area+0\$" "$T/fork.info" &&
          names fork | grep -qx parent_after'

# --- what must not stop the program ---------------------------------------------------------------
go unknown seq CYGTRACE_TRIGGER=freeze@nosuch+10
check unknown-name "$(why unknown)" \
    eval 'whole unknown && [ "$(wc -l <"$T/unknown.err")" = 1 ] &&
          grep -q "^cygtrace: CYGTRACE_TRIGGER: .freeze@nosuch+10.: no function nosuch in the program or its libraries" "$T/unknown.err"'
go ifunc seq CYGTRACE_EXCLUDE=strlen
check indirect-function "$(why ifunc)" \
    eval 'whole ifunc && [ "$(wc -l <"$T/ifunc.err")" = 1 ] &&
          grep -q "^cygtrace: CYGTRACE_EXCLUDE: .strlen.: strlen is an indirect function (STT_GNU_IFUNC)" "$T/ifunc.err"'
# Each malformed value: one line naming it, the program traced whole.
i=0
while IFS='|' read -r var val re; do
    i=$((i + 1))
    go "bad$i" seq "$var=$val"
    check "malformed-$i-$var=$val" "$(why "bad$i")" \
        eval 'whole "bad$i" && [ "$(wc -l <"$T/bad$i.err")" = 1 ] && grep -q -- "$re" "$T/bad$i.err"'
done <<'EOF'
CYGTRACE_TRIGGER|boom|^cygtrace: CYGTRACE_TRIGGER: 'boom': not KIND@WHERE
CYGTRACE_TRIGGER|explode@boom|'explode@boom': unknown kind (start, stop or freeze); ignored$
CYGTRACE_TRIGGER|start@boom+3|'start@boom+3': only a freeze takes +N; ignored$
CYGTRACE_TRIGGER|freeze@boom+x|'freeze@boom+x': +N is not a number of events
CYGTRACE_TRIGGER|freeze@boom+99999999999|+N is not a number of events
CYGTRACE_TRIGGER|freeze@mark:x|'freeze@mark:x': the mark id is not a number
CYGTRACE_TRIGGER|stop@mark:1|'stop@mark:1': only a freeze fires on a mark
CYGTRACE_TRIGGER|freeze@bo-om|'freeze@bo-om': not a function's name; ignored$
CYGTRACE_TRIGGER|freeze@|'freeze@': not a function's name
CYGTRACE_TRIGGER|start@0xffffffffffffffffffff|'start@0xffffffffffffffffffff': not an address from 0x1 to 0xffffffffffffffff; ignored$
CYGTRACE_TRIGGER|freeze@0x0|'freeze@0x0': not an address from 0x1 to 0xffffffffffffffff; ignored$
CYGTRACE_TRIGGER|freeze@0x10+5|'freeze@0x10+5': not in the program's code (give the address nm shows in the program); ignored$
CYGTRACE_TRIGGER|stop@0xfffffffffffffff0|'stop@0xfffffffffffffff0': not in the program's code
CYGTRACE_EXCLUDE|no such|'no such': not a function's name; ignored$
CYGTRACE_EXCLUDE|0xfoo|'0xfoo': not a function's name
CYGTRACE_HIDE|1abc|'1abc': not a function's name
CYGTRACE_DEPTH|-1|^cygtrace: CYGTRACE_DEPTH=-1: not a number of levels
CYGTRACE_DEPTH|99999999999|CYGTRACE_DEPTH=99999999999: not a number of levels
CYGTRACE_EVENTS|0,32|^cygtrace: CYGTRACE_EVENTS=0,32: not all, none, a 0x mask or a list of classes
CYGTRACE_EVENTS|5-3|CYGTRACE_EVENTS=5-3: not all
CYGTRACE_EVENTS|0x100000000|CYGTRACE_EVENTS=0x100000000: not all
EOF
# The valid items of a list stay armed.
go mixed seq CYGTRACE_TRIGGER=bad,freeze@boom+0
check malformed-rest-armed "$(why mixed)" \
    eval '[ "$(wc -l <"$T/mixed.err")" = 1 ] && [ "$(tail -n 1 "$T/mixed.body")" = "    boom() {" ]'
go empty seq CYGTRACE_EXCLUDE=,noisy
check empty-item "$(why empty)" \
    eval '[ "$(wc -l <"$T/empty.err")" = 1 ] &&
          grep -q "^cygtrace: CYGTRACE_EXCLUDE: .\{2\}: an empty item; ignored$" "$T/empty.err" &&
          ! names empty | grep -qx noisy'
go toomany seq CYGTRACE_TRIGGER=stop@leaf,stop@leaf,stop@leaf,stop@leaf,stop@leaf,stop@leaf,freeze@boom
check too-many-triggers "$(why toomany)" \
    eval '[ "$(wc -l <"$T/toomany.err")" = 1 ] &&
          grep -q "^cygtrace: CYGTRACE_TRIGGER: .freeze@boom.: more than 6 triggers; it and the rest ignored$" "$T/toomany.err"'
# The area full (6 triggers, 12 exclusions), then one more hidden function: refused alone, the
# rest armed as given (a hidden item once cleared the slot past the table, and the counts).
go full seq CYGTRACE_TRIGGER=stop@boom,stop@boom,stop@boom,stop@boom,stop@boom,stop@boom \
    CYGTRACE_EXCLUDE=leaf,leaf2,d3,d2,d1,noisy,before,outside,after_boom,after_mark,work,marks \
    CYGTRACE_HIDE=region
check area-full-then-hide "$(why full)" \
    eval '[ "$(wc -l <"$T/full.err")" = 1 ] &&
          grep -q "^cygtrace: CYGTRACE_HIDE: .region.: more than 12 excluded or hidden functions; it and the rest ignored$" "$T/full.err" &&
          [ "$(grep -c "^control: *trigger stop@boom" "$T/full.info")" = 6 ] &&
          [ "$(grep -c "^control: *exclude " "$T/full.info")" = 12 ] &&
          ! grep -q "^control: *hide" "$T/full.info"'
# A program of 6000 functions: its symbol table is read in chunks, and every name is found,
# wherever its symbol sits (a chunk not a whole number of symbols once lost all past the first).
awk 'BEGIN { for (i = 0; i < 6000; i++) printf "__attribute__((noinline)) void fn%d(void) {}\n", i
             print "int main(void) { fn0(); fn2999(); fn5999(); return 0; }" }' >"$T/many.c"
if gcc -std=gnu11 -finstrument-functions -O1 -fPIE -pie -o "$T/many" "$T/many.c" \
    "$BUILD/linux/libcygtrace.a" -lpthread 2>"$T/many-gcc.err"; then
    run many env -u CYGTRACE_TRIGGER -u CYGTRACE_HIDE -u CYGTRACE_DEPTH -u CYGTRACE_EVENTS \
        -u CYGTRACE_RING CYGTRACE_OUT="$T/many.ring" CYGTRACE_EXCLUDE=fn0,fn10,fn2999,fn3000,fn5999 \
        "$T/many"
    RUN_RC=$RC
    run many-info "$CT" info "$T/many" "$T/many.ring"
    check many-symbols "status $RUN_RC: $(head -n 2 "$T/many.err" | tr '\n' '|')" \
        eval '[ "$RUN_RC" -eq 0 ] && [ ! -s "$T/many.err" ] &&
              [ "$(grep -c "^control: *exclude fn" "$T/many-info.out")" = 5 ]'
else
    fail many-compile "gcc failed: $(head -n 1 "$T/many-gcc.err")"
fi
# A library that the dynamic linker loads and runs, whose last segment runs past the end of its
# file with the name of a symbol nobody calls there, and no section headers (tests/elfcut.c
# makes it from a normal one): looking a name up in it must not read that page (SIGBUS).
mkdir -p "$T/cut"
cat >"$T/cut/cut.c" <<'EOF'
int cut_used(int x) { return x + 1; }
int cut_unused_fn(int x) { return x * 2; }
EOF
cat >"$T/cut/prog.c" <<'EOF'
#include <stdio.h>
int cut_used(int);
__attribute__((noinline)) int work(int x) { return cut_used(x); }
int main(void) { printf("cut %d\n", work(1)); return 0; }
EOF
if gcc -O1 -o "$T/cut/elfcut" "$ROOT/tests/elfcut.c" 2>"$T/cut-gcc.err" &&
    gcc -shared -fPIC -O1 -o "$T/cut/libcut.so" "$T/cut/cut.c" 2>>"$T/cut-gcc.err" &&
    gcc -finstrument-functions -O1 -o "$T/cut/prog" "$T/cut/prog.c" -L"$T/cut" -lcut \
        -Wl,-rpath,"$T/cut" "$BUILD/linux/libcygtrace.a" -lpthread 2>>"$T/cut-gcc.err" &&
    gcc -finstrument-functions -O1 -o "$T/cut/prog-dyn" "$T/cut/prog.c" -L"$T/cut" -lcut \
        -Wl,-rpath,"$T/cut" 2>>"$T/cut-gcc.err" &&
    "$T/cut/elfcut" "$T/cut/libcut.so" "$T/cut/libcut.cut" cut_unused_fn 2>>"$T/cut-gcc.err" &&
    mv "$T/cut/libcut.cut" "$T/cut/libcut.so"; then
    run cut-plain env -u CYGTRACE_TRIGGER CYGTRACE_OUT="$T/cut-plain.ring" "$T/cut/prog"
    check cut-library-loads "status $RC: $(head -c 200 "$T/cut-plain.err")" \
        eval '[ "$RC" -eq 0 ] && grep -qx "cut 2" "$T/cut-plain.out"'
    for v in linked preloaded; do
        for fn in nosuch cut_unused_fn cut_used; do
            tag=cut-$v-$fn
            if [ $v = linked ]; then
                run $tag env CYGTRACE_OUT="$T/$tag.ring" CYGTRACE_TRIGGER=freeze@$fn "$T/cut/prog"
            else
                run $tag env -u CYGTRACE_TRIGGER "$CT" record -o "$T/$tag.ring" \
                    --trigger=freeze@$fn -- "$T/cut/prog-dyn"
            fi
            RUN_RC=$RC
            run $tag-info "$CT" info "$T/cut/prog" "$T/$tag.ring"
            if [ $fn = cut_used ]; then
                check "cut-library-$v-$fn" "status $RUN_RC: $(head -c 300 "$T/$tag.err")" \
                    eval '[ "$RUN_RC" -eq 0 ] && ! grep -q "^cygtrace: CYGTRACE_TRIGGER" "$T/$tag.err" &&
                          grep -q "^control: *trigger freeze@" "$T/$tag-info.out"'
            else
                check "cut-library-$v-$fn" "status $RUN_RC: $(head -c 300 "$T/$tag.err")" \
                    eval '[ "$RUN_RC" -eq 0 ] && grep -qx "cut 2" "$T/$tag.out" &&
                          [ "$(grep -c "^cygtrace: CYGTRACE_TRIGGER: .freeze@$fn+0.: no function $fn" "$T/$tag.err")" = 1 ]'
            fi
        done
    done
else
    fail cut-library-compile "$(head -n 2 "$T/cut-gcc.err")"
fi
# A set-user-ID program ignores the environment (secure_getenv): AT_SECURE, as root, through
# setpriv is what linux_safety.sh tests; here the variables simply must not crash a run.
# Two lines of syntax, then of the twelve x not found three, and the count of the rest.
go long seq CYGTRACE_TRIGGER="freeze@$(printf 'a%.0s' $(seq 300))" CYGTRACE_EXCLUDE="$(printf 'x%.0s,' $(seq 40))y"
check long-values "$(why long)" \
    eval 'whole long && [ "$(wc -l <"$T/long.err")" = 6 ] &&
          grep -q "^cygtrace: CYGTRACE_TRIGGER: .\.\.\..: too long an item; ignored$" "$T/long.err" &&
          grep -q "^cygtrace: CYGTRACE_EXCLUDE: .x.: more than 12 excluded or hidden functions; it and the rest ignored$" "$T/long.err" &&
          [ "$(grep -c "no function x in" "$T/long.err")" = 3 ] &&
          [ "$(tail -n 1 "$T/long.err")" = "cygtrace: CYGTRACE_TRIGGER, CYGTRACE_EXCLUDE, CYGTRACE_HIDE: 9 more lines like these, not shown" ]'
# 100 000 commas: five lines and the count, not 100 001 lines.
go commas seq CYGTRACE_TRIGGER="$(head -c 100000 /dev/zero | tr '\0' ,)"
check many-bad-items-counted "$(wc -l <"$T/commas.err") lines: $(why commas)" \
    eval 'whole commas && [ "$(wc -l <"$T/commas.err")" = 6 ] &&
          [ "$(grep -c "^cygtrace: CYGTRACE_TRIGGER: .\{2\}: an empty item; ignored$" "$T/commas.err")" = 5 ] &&
          [ "$(tail -n 1 "$T/commas.err")" = "cygtrace: CYGTRACE_TRIGGER, CYGTRACE_EXCLUDE, CYGTRACE_HIDE: 99996 more lines like these, not shown" ]'

# --- the same through cygtrace record ---------------------------------------------------------------
rec() {
    local tag=$1
    shift
    rm -f "$T/$tag.ring" "$T/$tag.ring.maps"
    run "$tag" env -u CYGTRACE_TRIGGER -u CYGTRACE_EXCLUDE -u CYGTRACE_HIDE -u CYGTRACE_DEPTH \
        -u CYGTRACE_EVENTS "$CT" record -o "$T/$tag.ring" "$@"
    RUN_RC=$RC
    decode "$tag" "$P"
    RC=$RUN_RC
}
rec rf10 --trigger=freeze@boom+10 -- "$P" seq
check record-freeze "$(events_after rf10) events from the trigger on; $(why rf10)" \
    eval '[ "$RC" -eq 0 ] && [ "$(events_after rf10)" = 11 ] &&
          grep -q "^cygtrace: $T/rf10.ring: [0-9]* records" "$T/rf10.err"'
rec rss --trigger=start@region --trigger=stop@region -- "$P" seq
check record-start-stop "names: $(names rss | tr '\n' ' ')" \
    eval '[ "$RC" -eq 0 ] && [ "$(names rss | tr "\n" " ")" = "region leaf leaf2 region leaf leaf2 " ]'
rec rfilt --hide=init_tables --exclude=noisy --exclude=after_boom --depth=3 --events=5 -- "$P" seq
check record-filters "names: $(names rfilt | sort -u | tr '\n' ' '); marks: $(marks_of rfilt)" \
    eval '[ "$RC" -eq 0 ] && ! names rfilt | grep -qx -e init_tables -e noisy -e after_boom -e d2 &&
          names rfilt | grep -qx d1 && [ "$(marks_of rfilt)" = "8 " ]'
rec rfmark --trigger=freeze@mark:42+5 -- "$P" mark
check record-freeze-mark "$(events_after rfmark) events" [ "$(events_after rfmark)" = 6 ]
rec runknown --trigger=freeze@nosuch -- "$P" seq
check record-unknown-name "$(why runknown)" \
    eval 'whole runknown && grep -q "CYGTRACE_TRIGGER: .freeze@nosuch+0.: no function nosuch" "$T/runknown.err"'
lib_rec() {
    rm -f "$T/rlib.ring"*
    run rlib "$CT" record -o "$T/rlib.ring" --trigger=freeze@plugin_step+0 -- "$LIBS" libs
    RUN_RC=$RC
    decode rlib "$LIBS"
    RC=$RUN_RC
}
lib_rec
check record-plugin "$(why rlib)" \
    eval '[ "$RC" -eq 0 ] && [ "$(tail -n 1 "$T/rlib.body")" = "      plugin.so:plugin_step() {" ]'

# Malformed options: one line, status 2, the program not run.
i=0
while IFS='|' read -r opt re; do
    i=$((i + 1))
    rm -f "$T/ran"
    expect_error "record-malformed-$i" 2 "$re" "$CT" record -o "$T/rbad.ring" "$opt" -- \
        sh -c "touch '$T/ran'"
    check "record-malformed-$i-not-run" "the program ran for $opt" [ ! -e "$T/ran" ]
done <<'EOF'
--trigger=boom|^cygtrace: record: --trigger: trigger 'boom': not KIND@WHERE
--trigger=freeze@boom+x|trigger 'freeze@boom\+x': \+N is not a number of events
--trigger=start@a,start@b,start@c,start@d,start@e,start@f,start@g|more than 6 triggers
--trigger=freeze@mark:600000|the mark id is not a number from 0 to 524287
--trigger=start@0xffffffffffffffffffff|trigger 'start@0xffffffffffffffffffff': not an address from 0x1 to 0xffffffffffffffff
--trigger=freeze@0x0|trigger 'freeze@0x0': not an address from 0x1
--exclude=a b|^cygtrace: record: --exclude: 'a b' is not a function's name
--hide=x,,y|^cygtrace: record: --hide: .*an empty item
--depth=two|^cygtrace: record: --depth=two: not a number of levels
--depth=-1|--depth=-1: not a number of levels
--events=0,32|^cygtrace: record: --events '0,32': not all, none
--events=0x1ffffffff|--events '0x1ffffffff': not a 32-bit mask
EOF
expect_error record-too-many-excluded 2 'at most 12 between them' "$CT" record -o "$T/rbad.ring" \
    --exclude=a,b,c,d,e,f,g --hide=h,i,j,k,l,m -- sh -c "touch '$T/ran'"

finish
