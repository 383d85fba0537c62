# SPDX-License-Identifier: GPL-3.0-or-later
# lib.sh - what the end-to-end scripts share; sourced, never run.
#
# Gives a script: ROOT (the source tree), BUILD (env CYGTRACE_BUILD, default build), CT (the
# cygtrace binary), E2E_DIR (this folder), T (a fresh temp dir under $BUILD/tests/tmp/,
# removed when every test passed); the helpers need, pass, fail, skip, check, run, same,
# expect_error, timed_error, tree_body, tree_as_etrace, braces_check, indent_of, ctx_labels;
# and finish, whose line "NAME: N passed, M failed" (", K skipped" when some were) must stay
# the last line of the script's stdout: tests/run.sh sums the counts from it. Each test is one
# real run of the real programs.

set -u

E2E_NAME=$(basename "$0" .sh)
E2E_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$E2E_DIR/../.." && pwd)
E2E_PASSED=0
E2E_FAILED=0
E2E_SKIPPED=0

# A relative build dir means the caller's (make's) working directory, else the source tree.
BUILD=${CYGTRACE_BUILD:-build}
if [ -d "$BUILD" ]; then
    BUILD=$(cd "$BUILD" && pwd)
elif [ "${BUILD#/}" = "$BUILD" ]; then
    BUILD=$ROOT/$BUILD
fi
CT=$BUILD/cygtrace
CT_NATIVE=$CT

T=$BUILD/tests/tmp/$E2E_NAME
rm -rf "$T"
mkdir -p "$T" || { echo "$E2E_NAME: cannot create $T" >&2; exit 1; }

# VALGRIND=1: $CT is a script that runs the host tool under valgrind, each run logging to its
# own $T/valgrind/PID (not to stderr, which the tests read); finish counts every log that is
# not empty as a failure, and a run with an error also exits 99. CT_NATIVE is the tool itself,
# for the few runs valgrind cannot do (the script says which and why). A run takes many
# times longer: run's time limit grows with it.
E2E_TIMEOUT=20
if [ "${VALGRIND:-0}" = 1 ]; then
    if ! command -v valgrind >/dev/null; then
        echo "FAIL $E2E_NAME-prerequisites: VALGRIND=1 but valgrind is not installed (make deps)"
        echo "$E2E_NAME: 0 passed, 1 failed"
        exit 1
    fi
    mkdir -p "$T/valgrind"
    CT=$T/valgrind/cygtrace
    cat >"$CT" <<EOF_VG
#!/bin/sh
exec valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \\
    --track-fds=no -q --log-file="$T/valgrind/%p" "$CT_NATIVE" "\$@"
EOF_VG
    chmod +x "$CT"
    E2E_TIMEOUT=120
fi

# CYGTRACE_COMPARE=OTHER: a refactoring's proof. $CT is a script that runs each command that
# only reads files (tree, report, export, graph, info) with OTHER (another build of the host
# tool, say the commit before) as well, and keeps a diff in $T/compare/ where the two differ
# in standard output, standard error, exit status or an --output file; finish counts every
# such diff as a failure. The tests see the tool under test's own output. Each command
# compared is a line in $BUILD/tests/compare.log. Runs on a terminal, and all the others
# (pull, live, record, arm, wrap: they talk to a target or write files), run the tool alone.
if [ -n "${CYGTRACE_COMPARE:-}" ] && [ "${VALGRIND:-0}" != 1 ]; then
    mkdir -p "$T/compare"
    CT=$T/compare/cygtrace
    cat >"$CT" <<EOF_CMP
#!/bin/bash
new="$CT_NATIVE" ref="$CYGTRACE_COMPARE" dir="$T/compare" log="$BUILD/tests/compare.log"
EOF_CMP
    cat >>"$CT" <<'EOF_CMP'
case "$1" in tree | report | export | graph | info) ;; *) exec "$new" "$@" ;; esac
[ -t 1 ] && exec "$new" "$@"
out= prev=
for a in "$@"; do
    # Standard output onto an input (or its map): the tool must see it to refuse it.
    for f in "$a" "$a.maps"; do
        [ -f "$f" ] && [ /dev/stdout -ef "$f" ] && exec "$new" "$@"
    done
    case "$a" in --output=*) out=${a#--output=} ;; -o?*) out=${a#-o} ;; esac
    case "$prev" in -o | --output) out=$a ;; esac
    prev=$a
done
w=$(mktemp -d "$dir/run.XXXXXX") || exec "$new" "$@"
"$ref" "$@" >"$w/ref.out" 2>"$w/ref.err"
echo $? >"$w/ref.rc"
[ -n "$out" ] && [ -f "$out" ] && cp "$out" "$w/ref.file"
"$new" "$@" >"$w/new.out" 2>"$w/new.err"
rc=$?
echo $rc >"$w/new.rc"
[ -n "$out" ] && [ -f "$out" ] && cp "$out" "$w/new.file"
cat "$w/new.out"
cat "$w/new.err" >&2
echo "$*" >>"$log"
d=
for f in out err rc file; do
    if [ -e "$w/ref.$f" ] || [ -e "$w/new.$f" ]; then
        cmp -s "$w/ref.$f" "$w/new.$f" || d="$d $f"
    fi
done
if [ -n "$d" ]; then
    { echo "cygtrace $*"; echo "differs in:$d"; } >"$w/DIFF"
else
    rm -rf "$w"
fi
exit $rc
EOF_CMP
    chmod +x "$CT"
fi

ulimit -c 0 2>/dev/null # the crash scenarios must not leave core files behind

pass() {
    echo "ok   $1"
    E2E_PASSED=$((E2E_PASSED + 1))
}

fail() {
    echo "FAIL $1: $2"
    E2E_FAILED=$((E2E_FAILED + 1))
}

# skip NAME WHY: a test this machine cannot run (a third-party part missing), said by name:
# "skip NAME: WHY"; counted in finish's line, neither passed nor failed.
skip() {
    echo "skip $1: $2"
    E2E_SKIPPED=$((E2E_SKIPPED + 1))
}

# check NAME WHY CONDITION...: pass if the command CONDITION... succeeds, else fail with WHY.
check() {
    local name=$1 why=$2
    shift 2
    if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}

# run TAG CMD...: runs CMD under timeout 20 (120 with VALGRIND=1) with stdin from /dev/null;
# stdout goes to $T/TAG.out, stderr to $T/TAG.err, the status to $RC (128 + N for signal N).
# A subshell with its stderr closed waits for it: a shell reports a child killed by a signal
# ("Segmentation fault") on its stderr, and the crash scenarios are meant to die.
run() {
    local tag=$1
    shift
    (
        exec 2>/dev/null
        timeout "$E2E_TIMEOUT" "$@" </dev/null >"$T/$tag.out" 2>"$T/$tag.err"
        exit $?
    )
    RC=$?
}

# Whether the files are equal; if not, shows the difference (indented, so it is not a result).
same() {
    if cmp -s "$1" "$2"; then
        return 0
    fi
    diff -u "$1" "$2" | head -40 | sed 's/^/    | /'
    return 1
}

# expect_error NAME STATUS REGEX CMD...: CMD must fail the way cygtrace fails: exit STATUS
# (1: bad input, 2: usage), no timeout and no crash, stdout empty, and exactly one line on
# stderr that starts with "cygtrace: " and matches the extended REGEX.
expect_error() {
    local name=$1 want=$2 re=$3 lines first
    shift 3
    run "$name" "$@"
    lines=$(wc -l <"$T/$name.err")
    first=$(head -n 1 "$T/$name.err")
    if [ "$RC" -ge 124 ]; then
        fail "$name" "exit status $RC (timeout or signal): $first"
    elif [ "$RC" -ne "$want" ]; then
        fail "$name" "exit status $RC, expected $want: $first"
    elif [ -s "$T/$name.out" ]; then
        fail "$name" "stdout not empty: $(head -n 1 "$T/$name.out")"
    elif [ "$lines" -ne 1 ]; then
        fail "$name" "$lines lines on stderr, expected 1: $(tr '\n' '|' <"$T/$name.err" | cut -c1-160)"
    elif [ "${first#cygtrace: }" = "$first" ]; then
        fail "$name" "stderr does not start with 'cygtrace: ': $first"
    elif ! grep -Eq -- "$re" "$T/$name.err"; then
        fail "$name" "stderr does not match /$re/: $first"
    else
        pass "$name"
    fi
}

# timed_error NAME REGEX CMD...: expect_error with status 1, and NAME-bounded: in less than
# TIMED_ERROR_MS milliseconds (default 5000).
timed_error() {
    local name=$1 re=$2 start took
    shift 2
    start=$(date +%s%N)
    expect_error "$name" 1 "$re" "$@"
    took=$((($(date +%s%N) - start) / 1000000))
    check "$name-bounded" "took $took ms" [ "$took" -lt "${TIMED_ERROR_MS:-5000}" ]
}

# tree_body FILE: the tree style without its duration column and DURATION headers (and the
# line that says the durations are corrected for the hooks' cost, a header too), so that
# indentation can be compared (2 spaces per level); "#" notes and "***" fault lines, which have
# no duration column, stay as they are.
tree_body() {
    awk '/^# durations corrected for hook cost: / { next }
         /^ *DURATION  FUNCTION$/ { timed = 1; next }
         /^#/ || /^\*\*\*/ || !timed { print; next }
         { print substr($0, 15) }' "$1"
}

# tree_as_etrace FILE: the tree style rewritten as the etrace style would show it (callers and
# leaves by name, "x5" as a "(total: 5 times)" line, closing braces dropped), to compare the
# two styles' structure. A line it cannot read, or an odd indentation, shows as "BAD: line".
tree_as_etrace() {
    tree_body "$1" | awk '
        function bars(d,   s) { s = ""; while (d-- > 0) s = s "|   "; return s }
        /^#/ || /^$/ { next }
        {
            match($0, /^ */); n = RLENGTH; rest = substr($0, n + 1)
            if (n % 2) { print "BAD: " $0; next }
            d = n / 2
            if (rest ~ /^} \/\* /) next
            if (rest ~ /^[^ ]+\(\) \{$/) { sub(/\(\) \{$/, "", rest); print bars(d) rest; next }
            if (match(rest, /\(\); x[0-9]+$/)) {
                name = substr(rest, 1, RSTART - 1); cnt = substr(rest, RSTART + 5)
                print bars(d) name; print bars(d) name " (total: " cnt " times)"; next
            }
            if (rest ~ /^[^ ]+\(\);$/) { sub(/\(\);$/, "", rest); print bars(d) rest; next }
            print "BAD: " $0
        }'
}

# braces_check FILE: checks the braces style's structure and prints one line per problem
# (nothing when it is right): each "{" line one space deeper than its parent, closed by a "}"
# line with the same indentation, call site, function and callee, and the caller named in
# every line is the function of the enclosing "{" line.
braces_check() {
    awk '
        function bad(why) { print "line " NR ": " why ": " $0 }
        BEGIN { n = 0 } # a number: an unset n would index the arrays with ""
        {
            match($0, /^ */); ind = RLENGTH
            arrow = $1 == "{" ? "->" : "<-"
            if (($1 != "{" && $1 != "}") || split($2, p, arrow) != 2 || split($3, q, arrow) != 2) {
                bad("not a braces line"); next
            }
            caller = q[1]; sub(/:(0x[0-9A-F]+|inlined)$/, "", caller)
            if ($1 == "{") {
                if (ind != n) bad("indented " ind " at depth " n)
                site[n] = p[1]; fn[n] = p[2]; callee[n] = q[2]
                # the code a call runs in: for an inlined call, that of the enclosing call
                code[n] = q[1] ~ /:inlined$/ && n > 0 ? code[n - 1] : q[2]; n++
            } else {
                if (n == 0) { bad("a } without its {"); next }
                n--
                if (ind != n || p[1] != site[n] || p[2] != fn[n] || q[2] != callee[n])
                    bad("does not match its { line")
            }
            e = n - 1 - ($1 == "{")
            if (e >= 0 && caller != callee[e] && caller != code[e])
                bad("caller " caller ", but the enclosing call is " callee[e])
        }
        END { if (n) print "end: " n " calls never closed" }' "$1"
}

# ctx_labels KIND FILE: the labels an output gives the trace's contexts, one a line, sorted and
# unique: "context 1 "producer"", "thread 2 (tid 77)". KIND: head, the headers of tree, report,
# graph ("# LABEL, N events") and live --plain ("# LABEL", "# LABEL: calls still open");
# chrome, the Chrome export's track names (jq), but the CPU's.
ctx_labels() {
    case $1 in
    head) sed -n -E 's/^# ((context|thread) [0-9]+( "[^"]*")?( \([^)]*\))?)(, [0-9]+ events|: calls still open)?$/\1/p' "$2" ;;
    chrome) jq -r '.traceEvents[] | select(.ph == "M" and .name == "thread_name") | .args.name' "$2" |
        grep -vx CPU ;;
    esac | sort -u
}

# indent_of FILE REGEX: the leading spaces of the first line of FILE matching REGEX, or -1.
indent_of() {
    awk -v re="$2" '$0 ~ re { match($0, /^ */); print RLENGTH; found = 1; exit }
                    END { if (!found) print -1 }' "$1"
}

# Whether the programs a script needs exist; if not, says so as one failure and finishes.
need() {
    local f
    for f in "$@"; do
        if [ ! -x "$f" ]; then
            fail "$E2E_NAME-prerequisites" "$f is missing: run make"
            finish
        fi
    done
}

# finish: the summary line (last on stdout) and the exit status; keeps $T when a test failed.
finish() {
    local log
    for log in "$T"/valgrind/[0-9]*; do
        [ -s "$log" ] &&
            fail "valgrind-$(basename "$log")" "$(grep -m 1 -E '^==[0-9]+== [^ ]' "$log")"
    done
    for log in "$T"/compare/run.*/DIFF; do
        [ -f "$log" ] && fail "compare-$(basename "$(dirname "$log")")" "$(tr '\n' ' ' <"$log")"
    done
    if [ "$E2E_FAILED" -eq 0 ]; then
        rm -rf "$T"
    else
        echo "    (files kept in $T)"
    fi
    if [ "$E2E_SKIPPED" -gt 0 ]; then
        echo "$E2E_NAME: $E2E_PASSED passed, $E2E_FAILED failed, $E2E_SKIPPED skipped"
    else
        echo "$E2E_NAME: $E2E_PASSED passed, $E2E_FAILED failed"
    fi
    [ "$E2E_FAILED" -eq 0 ]
    exit
}

# --- QEMU: the firmware examples on real board models ---------------------------------------

QEMU_PID=

# need_qemu: ends the script (one failure) without qemu-system-arm; else makes sure that the
# QEMU it starts is killed when the script exits, however it exits.
need_qemu() {
    if ! command -v qemu-system-arm >/dev/null; then
        fail "$E2E_NAME-prerequisites" "qemu-system-arm is not installed (make deps)"
        finish
    fi
    trap '[ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null' EXIT
}

# qemu_start TAG BOARD ELF [QEMU_ARGS...]: runs the firmware on QEMU's model of BOARD with its
# UART in $T/TAG.uart and its gdbstub on a free port ($PORT), its process id in $QEMU_PID (a
# script that starts QEMU kills it in its EXIT trap). A port someone else holds makes QEMU exit
# at once: then the next one. The QEMU is $QEMU_BIN, qemu-system-arm unless the script says
# otherwise (fw_riscv.sh: qemu-system-riscv32).
qemu_start() {
    local tag=$1 board=$2 elf=$3 base=$((20000 + RANDOM % 20000)) i
    shift 3
    for ((i = 0; i < 20; i++)); do
        PORT=$((base + i * 7))
        rm -f "$T/$tag.uart"
        timeout 60 "${QEMU_BIN:-qemu-system-arm}" -M "$board" "$@" -display none -monitor none \
            -nographic -serial "file:$T/$tag.uart" -gdb "tcp:127.0.0.1:$PORT" -kernel "$elf" \
            </dev/null >"$T/$tag.qemu" 2>&1 &
        QEMU_PID=$!
        sleep 0.3
        if kill -0 "$QEMU_PID" 2>/dev/null; then
            return 0
        fi
        wait "$QEMU_PID" 2>/dev/null
        grep -qi 'gdbserver\|address already in use' "$T/$tag.qemu" || break
    done
    QEMU_PID=
    fail "$tag-qemu" "QEMU did not start: $(head -n 2 "$T/$tag.qemu" | tr '\n' '|')"
    return 1
}

qemu_stop() {
    if [ -n "$QEMU_PID" ]; then
        kill "$QEMU_PID" 2>/dev/null
        wait "$QEMU_PID" 2>/dev/null
        QEMU_PID=
    fi
}

# uart_wait TAG TEXT: waits (20 s at most) for TEXT in the firmware's UART output.
uart_wait() {
    local i
    for ((i = 0; i < 200; i++)); do
        grep -qF "$2" "$T/$1.uart" 2>/dev/null && return 0
        kill -0 "$QEMU_PID" 2>/dev/null || break
        sleep 0.1
    done
    fail "$1-uart" "no '$2' on the UART: $(tr '\n' '|' <"$T/$1.uart" 2>/dev/null | cut -c1-160)"
    return 1
}

# elf_copy TAG DIR DEST PROGRAM...: copies DIR/PROGRAM.elf for each PROGRAM into DEST, so that
# QEMU and pull see the same ELF even if a make rebuilds it meanwhile; a TAG-firmware failure
# for each one missing, and then returns 1.
elf_copy() {
    local tag=$1 dir=$2 dest=$3 prog missing=0
    shift 3
    mkdir -p "$dest"
    for prog in "$@"; do
        if ! cp "$dir/$prog.elf" "$dest/" 2>/dev/null; then
            fail "$tag-firmware" "$dir/$prog.elf is missing: run make"
            missing=1
        fi
    done
    return "$missing"
}

# nested FILE NAME...: in the tree FILE (a tree_body), the first call of each NAME ("NAME() {"
# or "NAME();") after the one before is indented deeper than it: the calls nest as listed.
# Prints what is wrong, nothing when they do.
nested() {
    local file=$1 prev=-1 prev_line=0 name found n line
    shift
    for name in "$@"; do
        found=$(awk -v fn="$name" -v after="$prev_line" '
            NR <= after { next }
            { match($0, /^ */); ind = RLENGTH; rest = substr($0, ind + 1) }
            index(rest, fn "() {") == 1 || index(rest, fn "();") == 1 { print ind, NR; exit }' "$file")
        if [ -z "$found" ]; then
            echo "no call of $name after line $prev_line"
            return
        fi
        read -r n line <<<"$found"
        if [ "$n" -le "$prev" ] || [ "$line" -le "$prev_line" ]; then
            echo "$name (line $line, indented $n) is not inside the call before it"
            return
        fi
        prev=$n
        prev_line=$line
    done
}
