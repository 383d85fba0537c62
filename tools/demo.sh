#!/bin/sh
# demo.sh BUILD_DIR - runs the instrumented crumble example and prints its call tree, the way a
# user would: run the program, then decode its trace file with the ELF.
set -eu
B=${1:-build}
D="$B/demo"
mkdir -p "$D"
trace="$D/crumble.trace"

run() { printf '\n$ %s\n' "$*"; "$@"; }

echo "cygtrace demo: an instrumented Linux program, its ring buffer, its call tree."
printf '\n$ CYGTRACE_OUT=%s %s/examples/crumble\n' "$trace" "$B"
CYGTRACE_OUT="$trace" "$B/examples/crumble"
run "$B/cygtrace" tree "$B/examples/crumble" "$trace"
run "$B/cygtrace" tree --style=etrace "$B/examples/crumble" "$trace"
run "$B/cygtrace" info "$B/examples/crumble" "$trace"
