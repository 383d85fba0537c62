#!/bin/bash
# run.sh BUILD_DIR - every test: the Check runner (all module suites), then each end-to-end
# script. Prints each runner's own summary, then one total line.
#
# A build made with SANITIZE=1 runs as it is: the options below make every ASan, UBSan or
# LeakSanitizer finding abort the process (a crash the tests see). ASan and LeakSanitizer
# also write their reports to $B/tests/sanitizer/, and every report there counts as a failure
# of its own, so a finding in a process whose status no test looks at (a helper, a run in the
# background) still fails. UBSan's reports stay on the process's stderr (GCC 12's combined
# runtime ignores log_path for them): the test's output, kept in $B/tests/tmp/ when it fails.
# Options in the caller's ASAN_OPTIONS / UBSAN_OPTIONS come after ours and win.
# VALGRIND=1 (env): the end-to-end scripts run the host tool under valgrind (tests/e2e/lib.sh).
set -u
B=${1:-build}
export CYGTRACE_BUILD="$B"
passed=0 failed=0

SAN_DIR=$B/tests/sanitizer
rm -rf "$SAN_DIR" && mkdir -p "$SAN_DIR" || exit 1
SAN_DIR=$(cd "$SAN_DIR" && pwd) # the scripts change directory
san="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$SAN_DIR/report"
export ASAN_OPTIONS="$san:detect_leaks=1:disable_coredump=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="$san${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

echo "== unit tests (Check)"
# The runner links the Linux runtime and gives it rings of its own: no file ring besides.
out=$(CYGTRACE_OFF=1 "$B/tests/check_cygtrace" 2>&1)
rc=$?
printf '%s\n' "$out" | grep -v '^Running suite' | grep -v ':P:'
line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks: ' | tail -n 1)
if [[ $line =~ Checks:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+) ]]; then
    bad=$((BASH_REMATCH[2] + BASH_REMATCH[3]))
    passed=$((passed + BASH_REMATCH[1] - bad))
    failed=$((failed + bad))
else
    echo "unit tests: no summary line (crashed?)"
    failed=$((failed + 1))
fi
[ $rc -ne 0 ] && [ "${bad:-1}" -eq 0 ] && failed=$((failed + 1))

for t in tests/e2e/*.sh; do
    [ -e "$t" ] && [ "$(basename "$t")" != lib.sh ] || continue
    echo "== $t"
    out=$(timeout 600 bash "$t" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    last=$(printf '%s\n' "$out" | tail -n 1)
    if [[ $last =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
        [ $rc -ne 0 ] && [ "${BASH_REMATCH[2]}" -eq 0 ] && failed=$((failed + 1))
    else
        echo "$t: no summary line (exit status $rc)"
        failed=$((failed + 1))
    fi
done

for r in "$SAN_DIR"/report*; do
    [ -e "$r" ] || continue
    echo "== sanitizer report $r"
    head -n 30 "$r"
    failed=$((failed + 1))
done

echo
echo "total: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
