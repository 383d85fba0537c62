#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# runner.sh - tests/run.sh, the runner of make check, on a tree of its own: a Check runner with
# a passing and a failing suite, and three scripts (one passes, one fails, one crashes). It
# must print a line per suite and per script, the failing tests' lines and the log that holds
# the rest, keep every other line of their output out, and end with the total line CI reads.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/tree/tests/e2e" "$T/tree/b/tests"
# shellcheck disable=SC2046 # pkg-config gives several words
if ! gcc "$E2E_DIR/runner/check_fake.c" -o "$T/tree/b/tests/check_cygtrace" \
    $(pkg-config --cflags --libs check) 2>"$T/cc.err"; then
    fail runner-build "$(head -n 1 "$T/cc.err")"
    finish
fi
cp "$E2E_DIR/lib.sh" "$T/tree/tests/e2e/"
cat >"$T/tree/tests/e2e/good.sh" <<'EOS'
. "$(dirname "$0")/lib.sh"
echo "a line of detail"; pass one; echo "skip three: no such board"; pass two; finish
EOS
cat >"$T/tree/tests/e2e/bad.sh" <<'EOS'
. "$(dirname "$0")/lib.sh"
pass one; echo "noise that belongs in the log"; fail two "it broke"; finish
EOS
cat >"$T/tree/tests/e2e/crash.sh" <<'EOS'
echo "the crash's last words"; kill -SEGV $$
EOS
(cd "$T/tree" && CYGTRACE_BUILD=b bash "$ROOT/tests/run.sh" b >"$T/out" 2>"$T/err")
rc=$?
L=$T/tree/b/tests/log

check runner-status "exit status $rc, not 1" [ $rc -eq 1 ]
check runner-total "no total line: $(tail -n 1 "$T/out")" \
    [ "$(tail -n 1 "$T/out")" = "total: 5 passed, 3 failed" ]
check runner-suite-lines "no line per suite: $(grep unit "$T/out" | tr '\n' '|')" \
    grep -qE '^unit alpha +1 passed, 0 failed  \([0-9.]+ s\)$' "$T/out"
check runner-suite-fail "the failing suite's line and its test's: $(tr '\n' '|' <"$T/out")" \
    bash -c "grep -A1 -E '^unit beta +1 passed, 1 failed' '$T/out' | grep -q ':F:core:test_b_bad:0: Assertion'"
check runner-script-lines "no line per script" \
    grep -qE '^e2e good +2 passed, 0 failed  \([0-9.]+ s\)$' "$T/out"
check runner-skip "a skipped test is not named under its script's line" \
    bash -c "grep -A1 -E '^e2e good +2 passed' '$T/out' | grep -qx '    skip three: no such board'"
check runner-script-fail "the failing script's FAIL line under its line" \
    bash -c "grep -A1 -E '^e2e bad +1 passed, 1 failed' '$T/out' | grep -qx '    FAIL two: it broke'"
check runner-logs-named "the logs are not named on failure" \
    bash -c "grep -qx '    (log: b/tests/log/e2e-bad.log)' '$T/out' &&
             grep -qx '    (log: b/tests/log/unit.log)' '$T/out'"
check runner-crash "a crashed script is not reported with its last lines" \
    bash -c "grep -A1 '^e2e crash: no summary line (exit status 139)' '$T/out' |
             grep -q \"the crash's last words\""
check runner-quiet "the details are printed, not only logged: $(grep -E 'detail|noise|Running|:P:' "$T/out" | head -n 1)" \
    bash -c "! grep -qE 'detail|noise|Running suite|:P:' '$T/out'"
check runner-logs "the logs do not hold the details" \
    bash -c "grep -q 'a line of detail' '$L/e2e-good.log' && grep -q 'noise that' '$L/e2e-bad.log' &&
             grep -q 'Running suite' '$L/unit.log' && [ -s '$L/unit.xml' ]"
check runner-lines "$(wc -l <"$T/out") lines of output, not 16" [ "$(wc -l <"$T/out")" -eq 16 ]
check runner-stderr "stderr not empty: $(head -n 1 "$T/err")" [ ! -s "$T/err" ]
finish
