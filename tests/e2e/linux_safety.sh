#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# linux_safety.sh - the Linux runtime never harms the program it traces. Each test is an attack
# that hurt a traced program before (tests/harm.c is the victim): a second run in the same
# directory, a full disk, a daemon that closes every descriptor, a first traced call in a signal
# handler that interrupted malloc, a planted symbolic link, a set-user-ID program run with an
# attacker's environment, a bad size, a vfork child, the ring's file truncated under it,
# newlines in the names of files that the map of objects names. The disk-full and set-user-ID
# tests need root (a tmpfs mount, a root-owned program) and say so when they are skipped.
. "$(dirname "$0")/lib.sh"

H=$BUILD/tests/harm
HD=$BUILD/tests/harm-dyn
PLUGIN=$BUILD/examples/libs/plugin.so
need "$CT" "$H" "$HD"

# wait_file FILE: up to 5 s for FILE to exist and hold a control block with a pid.
wait_file() {
    local i
    for i in $(seq 100); do
        [ -s "$1" ] && [ "$(od -An -tu4 -j112 -N4 "$1" 2>/dev/null | tr -d ' ')" != 0 ] && return 0
        sleep 0.05
    done
    return 1
}

# decodes TAG ELF RING FUNCTION: the ring decodes and names FUNCTION.
decodes() {
    run "$1" "$CT" tree "$2" "$3"
    [ "$RC" -eq 0 ] && grep -q "$4()" "$T/$1.out"
}

# --- 1. two runs in one directory --------------------------------------------------------------
d=$T/two && mkdir -p "$d"
(cd "$d" && exec "$H" run 2500) >"$T/first.out" 2>"$T/first.err" &
first=$!
if wait_file "$d/cygtrace.out"; then
    ok=1
    for i in 1 2 3 4 5; do
        (cd "$d" && exec "$H" run 100) >"$T/second$i.out" 2>"$T/second$i.err"
        rc=$?
        pid=$(sed -n 's/.*recording into .*cygtrace\.out\.\([0-9]*\)$/\1/p' "$T/second$i.err")
        if [ $rc -ne 0 ] || [ -z "$pid" ] || [ "$(wc -l <"$T/second$i.err")" -ne 1 ] ||
            ! grep -q "cygtrace: $d/cygtrace.out: in use by process $first; recording into" \
                "$T/second$i.err" ||
            ! decodes "second$i-tree" "$H" "$d/cygtrace.out.$pid" work_round; then
            ok=0
            fail "two-runs-second-$i" "exit $rc: $(head -c 300 "$T/second$i.err")"
        fi
    done
    [ $ok = 1 ] && pass "two-runs-second-picks-its-own-file"
else
    fail "two-runs" "the first run's ring did not appear"
fi
wait $first
rc=$?
check "two-runs-first-survives" "the first run ended with status $rc: \
$(head -c 200 "$T/first.err")" \
    [ $rc -eq 0 ]
check "two-runs-first-trace-whole" "the first run's trace does not decode" \
    decodes first-tree "$H" "$d/cygtrace.out" work_round

# --- 2. a full disk -----------------------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
    echo "    skipped disk-full: mounting a small tmpfs needs root"
else
    m=$T/smallfs && mkdir -p "$m"
    if mount -t tmpfs -o size=1m,mode=0755 cygtrace-test "$m" 2>"$T/mount.err"; then
        run small sh -c "cd '$m' && exec '$H' run 200"
        check "disk-full-small-ring" "status $RC: $(head -c 300 "$T/small.err")" \
            grep -q "no room for the 16384K ring; recording into 512K" "$T/small.err"
        check "disk-full-small-ring-survives" "status $RC" [ "$RC" -eq 0 ]
        check "disk-full-small-ring-decodes" "the smaller ring does not decode" \
            decodes small-tree "$H" "$m/cygtrace.out" work_round
        rm -f "$m"/cygtrace.out*
        dd if=/dev/zero of="$m/fill" bs=4k count=256 2>/dev/null
        run full sh -c "cd '$m' && exec '$H' run 200"
        ok=0
        [ "$RC" -eq 0 ] && grep -q "no room for the trace on this file system; not tracing" \
            "$T/full.err" && ok=1
        check "disk-full-untraced" "status $RC: $(head -c 300 "$T/full.err")" [ $ok = 1 ]
        umount "$m"
    else
        echo "    skipped disk-full: cannot mount a tmpfs: $(head -n 1 "$T/mount.err")"
    fi
fi

# --- 3. descriptors the program closed ----------------------------------------------------------
if [ -e "$PLUGIN" ]; then
    for v in harm harm-dyn; do
        data=$T/daemon-$v.data
        if [ $v = harm ]; then
            run "daemon-$v" env CYGTRACE_OUT="$T/daemon-$v.ring" "$H" daemon "$data" "$PLUGIN"
        else
            run "daemon-$v" "$CT" record -o "$T/daemon-$v.ring" -- "$HD" daemon "$data" "$PLUGIN"
        fi
        check "fds-$v-status" "exit $RC (3: a write to its own descriptor failed)" [ "$RC" -eq 0 ]
        printf 'parent\nchild\nstderr\n' >"$T/daemon.want"
        check "fds-$v-data-untouched" "the program's own file holds other lines" \
            same "$T/daemon.want" "$data"
        check "fds-$v-plugin-named" "the plugin loaded after the daemon closed everything is not \
named" decodes "daemon-$v-tree" "$BUILD/tests/$v" "$T/daemon-$v.ring" plugin_run
    done
else
    fail "fds" "$PLUGIN is missing: run make"
fi
# A forked child that dlopens a plugin before it records: its map names the plugin.
if [ -e "$PLUGIN" ]; then
    rm -f "$T/forkdl.ring"*
    run forkdl env CYGTRACE_OUT="$T/forkdl.ring" "$H" forkdlopen "$PLUGIN"
    child=$(ls "$T"/forkdl.ring.[0-9]* 2>/dev/null | grep -v '\.maps$' | head -n 1)
    check "fork-dlopen-plugin-named" "status $RC, child ring '$child'" \
        decodes forkdl-tree "$H" "${child:-$T/none}" plugin_run
fi
# No descriptor of the runtime stays open in a running traced program, none without O_CLOEXEC.
CYGTRACE_OUT=$T/held.ring "$H" run 1500 >/dev/null 2>&1 &
pid=$!
wait_file "$T/held.ring"
sleep 0.2
# Only while it runs: a program gone has no descriptors to look at.
alive=$(kill -0 $pid 2>/dev/null && echo 1 || echo 0)
held=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c held.ring)
kill $pid 2>/dev/null
wait $pid 2>/dev/null
check "fds-none-held" "alive $alive, $held descriptors of the trace's files open in the program" \
    [ "$alive$held" = 10 ]

# --- 4. first traced call in a signal handler that interrupted malloc ---------------------------
for v in harm harm-dyn; do
    bad=0 why=
    for i in 1 2 3 4 5; do
        if [ $v = harm ]; then
            run "sig-$v-$i" env CYGTRACE_OUT="$T/sig-$v.ring" "$H" sigmalloc
        else
            run "sig-$v-$i" "$CT" record -o "$T/sig-$v.ring" -- "$HD" sigmalloc
        fi
        [ "$RC" -eq 0 ] || { bad=$((bad + 1)); why=$(head -c 200 "$T/sig-$v-$i.err"); }
    done
    check "signal-setup-$v" "$bad of 5 runs died: $why" [ $bad -eq 0 ]
    check "signal-setup-$v-recorded" "the handler's calls are not in the trace" \
        decodes "sig-$v-tree" "$BUILD/tests/$v" "$T/sig-$v.ring" in_handler
done

# --- 5. symbolic links and permissions ----------------------------------------------------------
d=$T/links && mkdir -p "$d"
echo precious >"$d/victim"
ln -s victim "$d/cygtrace.out"
run link sh -c "cd '$d' && exec '$H' run 50"
check "symlink-not-followed" "the victim changed" [ "$(cat "$d/victim")" = precious ]
ok=0
[ "$RC" -eq 0 ] && grep -q "cygtrace.out: is a symbolic link; not following it, not tracing" \
    "$T/link.err" && ok=1
check "symlink-said" "status $RC, stderr: $(head -c 200 "$T/link.err")" [ $ok = 1 ]
rm -f "$d/cygtrace.out"
ln -s victim "$d/cygtrace.out.maps"
run link-maps sh -c "cd '$d' && exec '$H' run 50"
check "symlink-maps-not-followed" "the victim changed" [ "$(cat "$d/victim")" = precious ]
check "symlink-maps-ring-kept" "status $RC, stderr: $(head -c 200 "$T/link-maps.err")" \
    decodes link-maps-tree "$H" "$d/cygtrace.out" work_round
rm -f "$d"/cygtrace.out*
ln "$d/victim" "$d/cygtrace.out"
run hardlink sh -c "cd '$d' && exec '$H' run 50"
ok=0
[ "$(cat "$d/victim")" = precious ] && grep -q "has other hard links" "$T/hardlink.err" && ok=1
check "hardlink-refused" "the victim changed, or no word: $(head -c 200 "$T/hardlink.err")" \
    [ $ok = 1 ]
rm -f "$d"/cygtrace.out*
mkfifo "$d/cygtrace.out"
run fifo sh -c "cd '$d' && exec '$H' run 50"
ok=0
[ "$RC" -eq 0 ] && grep -q "is not a regular file" "$T/fifo.err" && ok=1
check "fifo-no-hang" "status $RC: $(head -c 200 "$T/fifo.err")" [ $ok = 1 ]
rm -f "$d"/cygtrace.out*
run private sh -c "cd '$d' && umask 022 && exec '$H' run 50"
check "files-0600" "modes $(stat -c %a "$d/cygtrace.out" "$d/cygtrace.out.maps" | tr '\n' ' ')" \
    [ "$(stat -c %a "$d/cygtrace.out" "$d/cygtrace.out.maps" | sort -u)" = 600 ]
if [ "$(id -u)" -eq 0 ]; then
    rm -f "$d"/cygtrace.out*
    touch "$d/cygtrace.out" && chown 65534 "$d/cygtrace.out"
    run other sh -c "cd '$d' && exec '$H' run 50"
    ok=0
    [ ! -s "$d/cygtrace.out" ] && grep -q "belongs to another user" "$T/other.err" && ok=1
    check "other-users-file-refused" "stderr: $(head -c 200 "$T/other.err")" [ $ok = 1 ]
fi

# --- 6. a set-user-ID program and its caller's environment --------------------------------------
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
    echo "    skipped setuid: needs root and setpriv"
else
    d=$T/suid && mkdir -p "$d/cwd" && chmod 755 "$T" "$d" && chmod 777 "$d/cwd"
    cp "$H" "$d/harm" && chown 0:0 "$d/harm" && chmod 4755 "$d/harm"
    echo precious >"$d/victim" && chmod 644 "$d/victim"
    run suid sh -c "cd '$d/cwd' && CYGTRACE_OUT='$d/victim' exec setpriv --reuid=65534 \
--regid=65534 --clear-groups '$d/harm' run 50"
    if grep -q "Operation not permitted\|cannot" "$T/suid.err" && [ "$RC" -ne 0 ]; then
        echo "    skipped setuid: setpriv cannot drop to uid 65534 here"
    else
        check "setuid-env-ignored" "the victim changed" [ "$(cat "$d/victim")" = precious ]
        check "setuid-no-trace" "a trace was written: $(ls "$d/cwd")" [ -z "$(ls "$d/cwd")" ]
        ok=0
        [ "$RC" -eq 0 ] && grep -q "set-user-ID or set-group-ID program: not tracing" \
            "$T/suid.err" && ok=1
        check "setuid-said" "status $RC, stderr: $(head -c 200 "$T/suid.err")" [ $ok = 1 ]
    fi
fi

# --- 7. a size that is no size ------------------------------------------------------------------
for s in -1 99999999999999999999 1T 12Q; do
    rm -f "$T/size.ring"*
    run "size$s" env CYGTRACE_OUT="$T/size.ring" CYGTRACE_SIZE="$s" "$H" run 20
    ok=0
    # (a version 4 ring, CYGTRACE_FORMAT=4: its region table too, FORMAT.md 15.1)
    [ "$RC" -eq 0 ] && [ "$(stat -c %s "$T/size.ring")" = $((16 * 1024 * 1024 + 384 +
        $([ "$(od -An -t u2 -j 8 -N 2 "$T/size.ring" | tr -d ' ')" = 4 ] && echo 128 ||
            echo 0))) ] &&
        grep -q "CYGTRACE_SIZE=$s: not a size from 4K to 64G (like 64M); using 16M" \
            "$T/size$s.err" && ok=1
    check "size-$s" "status $RC, $(stat -c %s "$T/size.ring" 2>/dev/null) bytes: \
$(head -c 200 "$T/size$s.err")" [ $ok = 1 ]
done

# --- 8. a vfork child ---------------------------------------------------------------------------
for v in harm harm-dyn; do
    if [ $v = harm ]; then
        run "vfork-$v" env CYGTRACE_OUT="$T/vfork-$v.ring" "$H" vfork
    else
        run "vfork-$v" "$CT" record -o "$T/vfork-$v.ring" -- "$HD" vfork
    fi
    run "vfork-$v-tree" "$CT" tree "$BUILD/tests/$v" "$T/vfork-$v.ring"
    check "vfork-$v-own-thread" "$(tr '\n' '|' <"$T/vfork-$v-tree.out" | head -c 400)" \
        awk '/^# thread 1 /{ t = 1 } /^# thread 2 \(vfork child, pid [0-9]+\)/{ t = 2; c++ }
             /vfork_child_work\(\)/ && t != 2 { bad = 1 } /after_vfork\(\)/ && t != 1 { bad = 1 }
             /vfork_child_work\(\)/ && t == 2 { w = 1 }
             END { exit !(c == 1 && w && !bad) }' "$T/vfork-$v-tree.out"
done

# --- 9. the ring's file truncated while the program runs ---------------------------------------
# truncated TAG HOW CMD...: runs CMD in the background, cuts its ring ($T/TAG.ring) short once
# the ring is live (HOW: empty, ": >"; small, a cp of a small file over it), waits for it; RC.
truncated() {
    local tag=$1 how=$2 pid
    shift 2
    rm -f "$T/$tag.ring"
    (exec 2>/dev/null; timeout "$E2E_TIMEOUT" "$@" </dev/null >"$T/$tag.out" 2>"$T/$tag.err") &
    pid=$!
    if wait_file "$T/$tag.ring"; then
        sleep 0.3
        if [ "$how" = empty ]; then : >"$T/$tag.ring"; else cp "$T/small" "$T/$tag.ring"; fi
    fi
    wait $pid
    RC=$?
}
# cut_ok NAME TAG: status 0 and the one line that says what happened (cygtrace record has its
# own word on the file it finds cut afterwards).
cut_ok() {
    local err=$T/$2.err want="^cygtrace: $T/$2.ring: was truncated by another program while \
recording; recording stopped, the program runs on untraced$"
    check "$1" "status $RC: $(head -c 400 "$err")" \
        eval '[ "$RC" -eq 0 ] && [ "$(grep -c "^cygtrace: .*: was truncated" "$err")" -eq 1 ] &&
              grep -q "$want" "$err"'
}
head -c 100 /dev/urandom >"$T/small"
for v in harm harm-dyn; do
    for how in empty small; do
        tag=cut-$v-$how
        if [ $v = harm ]; then
            truncated $tag $how env CYGTRACE_OUT="$T/$tag.ring" "$H" threads 1500
        else
            truncated $tag $how "$CT" record -o "$T/$tag.ring" -- "$HD" threads 1500
        fi
        cut_ok "truncated-ring-$v-$how-runs-on" $tag
    done
done
# The program's own SIGBUS handler, installed before the runtime's set-up or after it, by
# sigaction, signal or sysv_signal: it gets its own bus errors and its raise, and none of the
# ring's.
for how in sigaction signal sysv_signal; do
    for when in early late; do
        tag=cut-own-$how-$when
        if [ $when = early ]; then
            truncated $tag empty env HARM_BUS_EARLY=$how CYGTRACE_OUT="$T/$tag.ring" \
                "$H" ownbus $how 1500
        else
            truncated $tag empty env CYGTRACE_OUT="$T/$tag.ring" "$H" ownbus $how 1500
        fi
        cut_ok "own-sigbus-handler-$how-$when" $tag
    done
    run own-dyn-$how "$CT" record -o "$T/own-dyn-$how.ring" -- "$HD" ownbus $how
    check "own-sigbus-handler-$how-preloaded" "status $RC: $(head -c 300 "$T/own-dyn-$how.err")" \
        [ "$RC" -eq 0 ]
done
# A bus error of the program's own, with no handler: it dies of it, as without the runtime, and
# the trace ends with it.
run bus env CYGTRACE_OUT="$T/bus.ring" "$H" bus
check "unrelated-sigbus-kills" "status $RC, not 135: $(head -c 300 "$T/bus.err")" [ "$RC" -eq 135 ]
run bus-tree "$CT" tree "$H" "$T/bus.ring"
check "unrelated-sigbus-recorded" "the trace does not end with the SIGBUS" \
    grep -q "signal 7 (SIGBUS) at bus_error" "$T/bus-tree.out"
run bus-dyn "$CT" record -o "$T/bus-dyn.ring" -- "$HD" bus
check "unrelated-sigbus-kills-preloaded" "status $RC, not 135" [ "$RC" -eq 135 ]

# --- 10. newlines in file names ----------------------------------------------------------------
# CYGTRACE_OUT and a dlopen'ed plugin's directory whose names hold newlines and what would read
# as map lines: the maps write them escaped (\x0a), the host reads them back, no line injected.
nl=$'\n'
out="$T/out${nl}ctxname 0 INJECTED${nl}thread 1 4242"
pdir="$T/plug${nl}thread 2 4343${nl}object 1000 2000 0 - /bin/sh"
mkdir -p "$pdir" && cp "$PLUGIN" "$pdir/plugin.so"
run nl-fork env CYGTRACE_OUT="$out" "$H" forkdlopen "$pdir/plugin.so"
# ls shows the child's ring "$out.PID" on lines of its own: its last is "thread 1 4242.PID".
kpid=$(ls "$T" | grep -a -E '^thread 1 4242\.[0-9]+$' | head -n 1 | sed 's/.*\.//')
kid=$out.$kpid
check "newline-names-run" "status $RC: $(head -c 300 "$T/nl-fork.err")" [ "$RC" -eq 0 -a -n "$kpid" ]
# injected: the map's lines that are not of the kinds and forms the runtime writes.
injected() {
    grep -a -v -E '^(cygtrace-maps 1|process [0-9]+ [0-9]+ (start|fork|exec) .+|object [0-9a-f]+ [0-9a-f]+ [0-9a-f]+ [0-9a-f-]+ /.*|thread [0-9]+ [0-9]+( vfork)?|child [0-9]+ [0-9]+ (fork|exec) /.*|clock [0-9]+ [0-9]+)$' "$1" ||
        grep -a -E '^thread [0-9]+ (4242|4343)$|^object 1000 ' "$1"
}
for who in first child; do
    if [ $who = first ]; then m=$out.maps; else m=$kid.maps; fi
    check "newline-names-no-line-injected-$who" "$(injected "$m" | head -n 3 | tr '\n' '|')" \
        eval '[ -s "$m" ] && ! injected "$m" >/dev/null'
done
check "newline-names-escaped" "$(grep -a -c 'x0a' "$kid.maps") escaped lines" \
    eval 'grep -a -q "^process [0-9]* [0-9]* fork $T/out\\\\x0actxname 0 INJECTED\\\\x0athread 1 4242\$" "$kid.maps" &&
          grep -a -q "^object .* $T/plug\\\\x0athread 2 4343\\\\x0aobject 1000 2000 0 - /bin/sh/plugin.so\$" "$kid.maps" &&
          grep -a -q "^child [0-9]* [0-9]* fork $T/out\\\\x0actxname 0 INJECTED\\\\x0athread 1 4242\\.[0-9]*\$" "$out.maps"'
check "newline-names-plugin-named" "the child's trace does not name plugin_run" \
    decodes nl-kid-tree "$H" "$kid" plugin_run

finish
