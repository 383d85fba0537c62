#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# uftrace_cross.sh - the same -finstrument-functions programs traced by uftrace (record +
# replay) and by cygtrace (record, the runtime preloaded, + tree): the same function names in
# the same order and nesting, line for line. The programs are built here without our runtime,
# as uftrace needs them (glibc's empty hooks, which either tracer replaces); library calls are
# left out of uftrace's record (--no-libcall), as cygtrace sees only instrumented code.
set -u
. "$(dirname "$0")/lib.sh"

need "$CT"
if ! command -v uftrace >/dev/null; then
    fail "$E2E_NAME-prerequisites" "uftrace is not installed (make deps)"
    finish
fi
CFLAGS=(-finstrument-functions -g -O1 -fno-inline -fno-omit-frame-pointer)

# calls FILE: a tree-style output without its duration column, notes or blank lines.
calls() {
    awk '/^ *DURATION  FUNCTION$/ { t = 1; next } /^#/ || /^$/ { next } t { print substr($0, 15) }' "$1"
}

# cross NAME PROGRAM [ARGS...]: both tracers on one run each of PROGRAM.
cross() {
    local name=$1
    shift
    rm -rf "$T/$name.uftrace"
    if ! timeout 60 uftrace record --no-libcall -d "$T/$name.uftrace" "$@" >/dev/null 2>"$T/$name.uerr"; then
        fail "$name" "uftrace record failed: $(head -n 1 "$T/$name.uerr")"
        return
    fi
    timeout 60 uftrace replay -d "$T/$name.uftrace" -f none --no-pager >"$T/$name.u" 2>&1
    run "$name-record" "$CT" record -o "$T/$name.ring" -- "$@"
    run "$name-tree" "$CT" tree --no-collapse "$1" "$T/$name.ring"
    calls "$T/$name-tree.out" >"$T/$name.c"
    check "$name" "cygtrace and uftrace differ ($(wc -l <"$T/$name.c") and $(wc -l <"$T/$name.u") lines)" \
        same "$T/$name.u" "$T/$name.c"
    check "$name-not-empty" "uftrace showed nothing" [ "$(wc -l <"$T/$name.u")" -gt 5 ]
}

gcc "${CFLAGS[@]}" -o "$T/crumble" "$ROOT/examples/crumble/crumble.c"
gcc "${CFLAGS[@]}" -pthread -o "$T/hardcases" "$ROOT/examples/hardcases/hardcases.c"
gcc "${CFLAGS[@]}" -o "$T/fib" "$ROOT/bench/fib.c"
cross crumble "$T/crumble"
cross recurse "$T/hardcases" recurse
cross fnptr "$T/hardcases" fnptr
cross fib "$T/fib" 12

finish
