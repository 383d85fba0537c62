#!/bin/bash
# run.sh BUILD_DIR - every test: the Check runner (all module suites), then each end-to-end
# script. Prints each runner's own summary, then one total line.
set -u
B=${1:-build}
export CYGTRACE_BUILD="$B"
passed=0 failed=0

echo "== unit tests (Check)"
out=$("$B/tests/check_cygtrace" 2>&1)
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

echo
echo "total: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
