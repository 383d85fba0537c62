#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh BUILD_DIR - every test: the Check runner (all module suites), then each end-to-end
# script. Prints one line per Check suite and one per script (name, passed and failed counts,
# time), then one total line, `total: N passed, M failed` (CI reads it). The whole output of
# each goes to a log file under $B/tests/log/ (unit.log, unit.xml, e2e-NAME.log); a suite or
# script that fails has its failing tests' lines printed under it, and the log's path. A
# script's lines that start with "skip " (a test it could not run, and why) are printed under
# its line too, whether it failed or not.
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

LOG=$B/tests/log
rm -rf "$LOG" && mkdir -p "$LOG" || exit 1

# line NAME PASSED FAILED SECONDS: the one line of a suite or a script.
line() {
    printf '%-24s %5d passed, %d failed  (%s s)\n' "$1" "$2" "$3" "$4"
}

# secs START: the seconds since START (an $EPOCHREALTIME), one decimal.
secs() {
    local now=$EPOCHREALTIME
    awk -v a="$1" -v b="$now" 'BEGIN { printf "%.1f", b - a }'
}

# The Check runner: its normal output to unit.log, and its XML log, which names each test's
# suite and time, to unit.xml; a line per suite from the latter.
t0=$EPOCHREALTIME
# The runner links the Linux runtime and gives it rings of its own: no file ring besides.
CYGTRACE_OFF=1 CK_XML_LOG_FILE_NAME="$LOG/unit.xml" "$B/tests/check_cygtrace" >"$LOG/unit.log" 2>&1
rc=$?
total_secs=$(secs "$t0")
summary=$(grep -E '^[0-9]+%: Checks: ' "$LOG/unit.log" | tail -n 1)
if [[ $summary =~ Checks:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+) ]]; then
    bad=$((BASH_REMATCH[2] + BASH_REMATCH[3]))
    passed=$((passed + BASH_REMATCH[1] - bad))
    failed=$((failed + bad))
    # One record per suite: name, passed, failed, seconds, the failing tests' names.
    awk '
        /<title>/ { if (name != "") out(); gsub(/.*<title>|<\/title>.*/, ""); name = $0
                    ok = bad = 0; t = 0; ids = "" }
        /<test result="success">/ { ok++ }
        /<test result="(failure|error)">/ { bad++; failing = 1 }
        /<id>/ { gsub(/.*<id>|<\/id>.*/, ""); id = $0
                 if (failing && index(ids " ", " " id " ") == 0) ids = ids " " id
                 failing = 0 }
        /<duration>/ { gsub(/.*<duration>|<\/duration>.*/, ""); if ($0 > 0) t += $0 }
        function out() { printf "%s %d %d %.1f%s\n", name, ok, bad, t, ids }
        END { if (name != "") out() }' "$LOG/unit.xml" 2>/dev/null |
        while read -r name ok nbad t ids; do
            line "unit $name" "$ok" "$nbad" "$t"
            for id in $ids; do
                grep -E ":[FE]:[^:]*:$id:" "$LOG/unit.log" | sed 's/^/    /'
            done
            [ "$nbad" -gt 0 ] && echo "    (log: $LOG/unit.log)"
        done
    if [ ! -s "$LOG/unit.xml" ]; then
        line unit "$((BASH_REMATCH[1] - bad))" "$bad" "$total_secs"
        [ "$bad" -gt 0 ] && grep -E ':[FE]:' "$LOG/unit.log" | sed 's/^/    /'
    fi
    if [ $rc -ne 0 ] && [ "$bad" -eq 0 ]; then
        echo "unit: exit status $rc with no test failed (log: $LOG/unit.log)"
        failed=$((failed + 1))
    fi
else
    echo "unit: no summary line (crashed? exit status $rc); its last lines:"
    tail -n 20 "$LOG/unit.log" | sed 's/^/    /'
    echo "    (log: $LOG/unit.log)"
    failed=$((failed + 1))
fi

for t in tests/e2e/*.sh; do
    [ -e "$t" ] && [ "$(basename "$t")" != lib.sh ] || continue
    name=$(basename "$t" .sh)
    log=$LOG/e2e-$name.log
    t0=$EPOCHREALTIME
    # In a subshell, so that bash's line about a script killed by a signal goes to the log.
    (timeout 600 bash "$t"; exit $?) >"$log" 2>&1
    rc=$?
    t=$(secs "$t0")
    last=$(tail -n 1 "$log")
    if [[ $last =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
        p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
        [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
        line "e2e $name" "$p" "$f" "$t"
        grep -E '^skip ' "$log" | sed 's/^/    /'
        passed=$((passed + p))
        failed=$((failed + f))
        if [ "$f" -gt 0 ]; then
            grep -E '^(FAIL|    \(files kept)' "$log" | sed 's/^/    /'
            [ $rc -ne 0 ] && [ "${BASH_REMATCH[2]}" -eq 0 ] && echo "    exit status $rc"
            echo "    (log: $log)"
        fi
    else
        echo "e2e $name: no summary line (exit status $rc); its last lines:"
        tail -n 20 "$log" | sed 's/^/    /'
        echo "    (log: $log)"
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
