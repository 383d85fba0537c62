#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# linux_libs.sh - examples/libs recorded with cygtrace record: functions of a shared library
# and of a dlopen'ed plugin named with their library in a PIE program's tree; a forked child
# and exec'ed programs each with a ring of their own, listed by record and by info; a crash
# inside the plugin; and a ring without its map decoded as before (library calls as addresses).
set -u
. "$(dirname "$0")/lib.sh"

D=$BUILD/examples/libs
P=$D/libsdemo
need "$CT" "$P" "$BUILD/linux/libcygtrace.so"

# rec MODE: cygtrace record of libsdemo MODE into $T/MODE.trace (stdout, stderr, status as run).
rec() {
    run "$1" "$CT" record -o "$T/$1.trace" -- "$P" "$1"
}

# tree TAG FILE: the tree of FILE without durations into $T/TAG.body.
tree() {
    run "$1-tree" "$CT" tree "$P" "$2"
    tree_body "$T/$1-tree.out" >"$T/$1.body"
}

# rings MODE: the ring files (not maps) a run of MODE left, one per line, sorted.
rings() {
    (cd "$T" && ls -1 | grep -E "^$1\\.trace(\\.[0-9]+)*\$" | sort)
}

check pie "libsdemo is not a PIE: the test proves less" \
    eval 'readelf -h "$P" | grep -q "DYN "'

# --- libs: a linked shared library and a dlopen'ed plugin, named with their library ---------
rec libs
check libs-runs "status $RC: $(head -c 120 "$T/libs.err")" grep -q 'area 6, plugin 27' "$T/libs.out"
check libs-one-ring "rings: $(rings libs | tr '\n' ' ')" [ "$(rings libs)" = libs.trace ]
check libs-map-objects "libs.trace.maps lacks the program, libshape.so or plugin.so" \
    eval 'grep -q "^object .* $P\$" "$T/libs.trace.maps" &&
          grep -q "^object .*/libshape.so\$" "$T/libs.trace.maps" &&
          grep -q "^object .*/plugin.so\$" "$T/libs.trace.maps"'
check libs-map-first-is-program "first object: $(grep -m1 '^object' "$T/libs.trace.maps")" \
    eval '[ "$(grep -m1 "^object" "$T/libs.trace.maps" | cut -d" " -f6-)" = "$P" ]'
# The plugin is written at the dlsym after the dlopen, after the objects of set-up.
check libs-map-plugin-last "plugin.so is not the last object" \
    eval 'grep "^object" "$T/libs.trace.maps" | tail -n 1 | grep -q "/plugin.so\$"'
tree libs "$T/libs.trace"
cat >"$T/libs.expected" <<'EOF2'
main() {
  run_libs() {
    open_plugin();
    libshape.so:shape_area() {
      libshape.so:shape_row(); x2
    } /* libshape.so:shape_area */
    plugin.so:plugin_run() {
      plugin.so:plugin_step(); x2
    } /* plugin.so:plugin_run */
  } /* run_libs */
} /* main */
EOF2
check libs-tree "the tree differs" same "$T/libs.expected" "$T/libs.body"

# Without the map (an old dump, or the map lost) the program's names are as before and the
# libraries' calls are addresses: nothing else changes.
cp "$T/libs.trace" "$T/nomap.trace"
tree nomap "$T/nomap.trace"
check nomap-program-named "status $RC; run_libs missing" grep -q '^  run_libs() {$' "$T/nomap.body"
check nomap-libs-unnamed "library names without the map: $(grep -m1 'so:' "$T/nomap.body")" \
    eval '! grep -q "\.so:" "$T/nomap.body" && [ "$(grep -c "0x[0-9a-f]*()" "$T/nomap.body")" -ge 3 ]'

# A map that is not one is ignored the same way.
echo garbage >"$T/nomap.trace.maps"
tree badmap "$T/nomap.trace"
check badmap-ignored "status $RC; the tree differs from the one without a map" \
    eval '[ "$RC" -eq 0 ] && same "$T/nomap.body" "$T/badmap.body"'

# --- fork: the child writes MODE.trace.<pid>; record and info say so --------------------------
rec fork
child=$(sed -n 's/^child \([0-9]*\): area 4$/\1/p' "$T/fork.out")
check fork-runs "status $RC: $(tr '\n' '|' <"$T/fork.out")" \
    eval '[ "$RC" -eq 0 ] && [ -n "$child" ] && grep -q "exited 0" "$T/fork.out"'
check fork-two-rings "rings: $(rings fork | tr '\n' ' ')" \
    [ "$(rings fork | tr '\n' ' ')" = "fork.trace fork.trace.$child " ]
check fork-record-lists-child "record's report: $(tr '\n' '|' <"$T/fork.err")" \
    eval 'grep -q "process $child (fork of [0-9]*) recorded too" "$T/fork.err" &&
          grep -q "^cygtrace: $T/fork.trace.$child: [0-9]* records" "$T/fork.err"'
tree fork "$T/fork.trace"
cat >"$T/fork.expected" <<'EOF2'
main() {
  run_fork() {
    parent_after();
  } /* run_fork */
} /* main */
EOF2
check fork-parent-tree "the parent's tree differs" same "$T/fork.expected" "$T/fork.body"
tree fork-child "$T/fork.trace.$child"
cat >"$T/fork-child.expected" <<'EOF2'
child_work() {
  libshape.so:shape_area() {
    libshape.so:shape_row(); x2
  } /* libshape.so:shape_area */
} /* child_work */
EOF2
check fork-child-tree "the child's tree differs" same "$T/fork-child.expected" "$T/fork-child.body"
run fork-info "$CT" info "$P" "$T/fork.trace.$child"
parent=$(sed -n 's/^process: *\([0-9]*\)$/\1/p' <("$CT" info "$T/fork.trace" 2>/dev/null))
check fork-info-child "info: $(grep -E '^(process|run):' "$T/fork-info.out" | tr '\n' '|')" \
    eval 'grep -q "^process: *$child\$" "$T/fork-info.out" &&
          grep -q "^run: *forked from process $parent, which records into $T/fork.trace\$" "$T/fork-info.out"'
run fork-info-parent "$CT" info "$T/fork.trace"
check fork-info-parent "info of the parent lists no child process $child" \
    grep -q "^also: *process $child (fork, parent $parent) records into $T/fork.trace.$child\$" \
    "$T/fork-info-parent.out"

# --- exec: the exec'ed program writes MODE.trace.<pid>; the ring before it keeps its calls ------
rec exec
pid=$(sed -n 's/^exec-child \([0-9]*\): area 3$/\1/p' "$T/exec.out")
check exec-runs "status $RC: $(tr '\n' '|' <"$T/exec.out")" eval '[ "$RC" -eq 0 ] && [ -n "$pid" ]'
check exec-two-rings "rings: $(rings exec | tr '\n' ' ')" \
    [ "$(rings exec | tr '\n' ' ')" = "exec.trace exec.trace.$pid " ]
tree exec "$T/exec.trace"
check exec-before "the first program's ring does not end in run_exec" \
    eval 'grep -q "^#   0   run_exec\$" "$T/exec.body" && ! grep -q exec_child_work "$T/exec.body"'
tree exec-child "$T/exec.trace.$pid"
cat >"$T/exec-child.expected" <<'EOF2'
main() {
  exec_child_work() {
    libshape.so:shape_area() {
      libshape.so:shape_row(); x3
    } /* libshape.so:shape_area */
  } /* exec_child_work */
} /* main */
EOF2
check exec-child-tree "the exec'ed program's tree differs" same "$T/exec-child.expected" "$T/exec-child.body"
check exec-record-lists "record's report: $(tr '\n' '|' <"$T/exec.err")" \
    grep -q "^cygtrace: $T/exec.trace.$pid: [0-9]* records" "$T/exec.err"
run exec-info "$CT" info "$T/exec.trace.$pid"
check exec-info "info: $(grep '^run:' "$T/exec-info.out")" \
    grep -q "^run: *a program exec'ed by process $pid (before the exec: $T/exec.trace)\$" "$T/exec-info.out"

# --- exec2: two execs in one process: MODE.trace, MODE.trace.<pid>, MODE.trace.<pid>.1 ------------
rec exec2
pid=$(sed -n 's/^exec-child \([0-9]*\): area 3$/\1/p' "$T/exec2.out")
check exec2-three-rings "rings: $(rings exec2 | tr '\n' ' ')" \
    [ "$(rings exec2 | tr '\n' ' ')" = "exec2.trace exec2.trace.$pid exec2.trace.$pid.1 " ]
tree exec2-mid "$T/exec2.trace.$pid"
check exec2-middle "the middle program's ring does not end in run_exec" \
    eval 'grep -q "^#   0   run_exec\$" "$T/exec2-mid.body" && ! grep -q exec_child_work "$T/exec2-mid.body"'
tree exec2-last "$T/exec2.trace.$pid.1"
check exec2-last "the last program's tree differs" same "$T/exec-child.expected" "$T/exec2-last.body"
n=$(grep -c "^cygtrace: $T/exec2.trace[.0-9]*: [0-9]* records" "$T/exec2.err")
check exec2-record-lists "record reported $n rings, expected 3" [ "$n" -eq 3 ]

# --- crash: a SIGSEGV inside the plugin ends the trace there, named ---------------------------
rec crash
check crash-dies "status $RC, expected 139 (SIGSEGV)" [ "$RC" -eq 139 ]
tree crash "$T/crash.trace"
check crash-fault-named "fault line: $(grep -m1 '^\*\*\*' "$T/crash.body")" \
    grep -Eq '^\*\*\* signal 11 \(SIGSEGV\) at plugin\.so:plugin_crash\+0x[0-9a-f]+' "$T/crash.body"
check crash-stack "stack: $(grep '^#   ' "$T/crash.body" | tr '\n' '|')" \
    eval 'grep -q "^#   0   plugin.so:plugin_crash\$" "$T/crash.body" &&
          grep -q "^#   1   run_crash\$" "$T/crash.body"'

# --- noplugin: dlopen's error for a plugin that is not there is the real one ------------------
rec noplugin
check noplugin-error "status $RC, stderr: $(head -n 1 "$T/noplugin.err")" \
    eval '[ "$RC" -eq 3 ] &&
          grep -q "^nosuch-plugin.so: cannot open shared object file" "$T/noplugin.err"'

# --- static: libsdemo-static links libcygtrace.a itself (its own dlopen wrapper, no preload) ---
S=$D/libsdemo-static
if [ -x "$S" ]; then
    run static-libs env CYGTRACE_OUT="$T/static-libs.trace" "$S" libs
    run static-libs-tree "$CT" tree "$S" "$T/static-libs.trace"
    tree_body "$T/static-libs-tree.out" >"$T/static-libs.body"
    check static-libs-tree "the tree differs from the preloaded run's" \
        same "$T/libs.expected" "$T/static-libs.body"
    run static-fork env CYGTRACE_OUT="$T/static-fork.trace" "$S" fork
    child=$(sed -n 's/^child \([0-9]*\): area 4$/\1/p' "$T/static-fork.out")
    run static-fork-tree "$CT" tree "$S" "$T/static-fork.trace.$child"
    tree_body "$T/static-fork-tree.out" >"$T/static-fork.body"
    check static-fork-child-tree "the child's tree differs" \
        same "$T/fork-child.expected" "$T/static-fork.body"
else
    fail static-prerequisites "$S is missing: run make"
fi

finish
