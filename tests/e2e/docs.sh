#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# docs.sh - every command and every sample output in README.md and docs/*.md, run against the
# build and compared, so that a newcomer who follows the documents word for word meets no
# command that fails and no output that differs. Also: README.md stays at most 300 lines, and
# every relative link in the documents names a file that exists.
#
# The convention, in the markdown (docs/DEVELOPING.md says the same):
# - A fenced block opened with ```console is a test. A line starting with "$ " is a command
#   (a line ending in "\" goes on on the next); the lines after it, up to the next command or
#   the end of the block, are its output (stdout and stderr together). A command must exit 0.
# - In an output, a line "..." stands for any number of lines (none included); a line that
#   ends in "..." matches any line that starts with what comes before it.
# - `<!-- docs.sh: not run: REASON -->` on the line before a block: the block is not run (a
#   view that needs a terminal, a probe); the test says so, with the reason. Keep these few.
# - `<!-- docs.sh: needs PATH WHY -->` on the line before a block: the block runs only when
#   PATH (in the test's directory, below) exists, else it is skipped, saying so: what a build
#   makes only with a third-party component (the FreeRTOS examples without FreeRTOS-Kernel).
# - Each file runs in a directory of its own, its blocks in order, as a user would: "build" in
#   it is the build under test, and "examples", "tools", "target", "common", "docs" are the
#   source tree's. A command starting with "make " runs in the source tree, on the build under
#   test (make -C ROOT O=BUILD).
# - What varies from run to run is masked, on both sides, and nothing else: durations (a
#   number and us/ms/s, with the spaces that align it), TCP ports, addresses of 5 hex digits or
#   more, build-ids, the TSC's clock rate, pids, the file's own directory (shown as /home/me)
#   and the build's (shown as build), the event and byte counts of a live run's last line
#   (its bytes an event too).
# DOCS_FILES (env): the files to test instead of README.md and docs/*.md (to show that a
# broken sample fails).
. "$(dirname "$0")/lib.sh"

need "$CT" "$BUILD/examples/crumble"

# mask: what varies from run to run, on stdin, made constant. Keep each pattern narrow.
mask() {
    sed -E \
        -e 's/ *[0-9]+\.[0-9]+ (ns|us|ms|s)( |;|,|\)|$)/ <time>\2/g' \
        -e 's/(127\.0\.0\.1|localhost):[0-9]+/\1:<port>/g' \
        -e 's/0x[0-9a-f]{5,}/0x<addr>/g' \
        -e 's/\b[0-9a-f]{40}\b/<build-id>/g' \
        -e 's/^(clock: +)[0-9]+ Hz/\1<hz> Hz/' \
        -e 's/\.out\.[0-9]+/.out.<pid>/g' \
        -e 's/^# [0-9]+ events, [0-9]+ bytes \([0-9.]+ bytes\/event\)/# N events, N bytes (N bytes\/event)/' \
        -e 's/^(process: +)[0-9]+$/\1<pid>/' -e 's/, tid [0-9]+$/, tid <pid>/' \
        -e "s|$1|/home/me|g" -e "s|$BUILD|build|g"
}

# matches EXPECTED ACTUAL: whether the lines of ACTUAL are those of EXPECTED, where a line
# "..." in EXPECTED stands for any number of lines and "TEXT..." for a line starting with TEXT.
matches() {
    awk '
        NR == FNR { e[ne++] = $0; next }
        { a[na++] = $0 }
        function eq(x, y) {
            if (x == y) return 1
            if (x ~ /\.\.\.$/ && x != "...") return index(y, substr(x, 1, length(x) - 3)) == 1
            return 0
        }
        # seg(i, j): whether e[i..] matches a[j..] (backtracking on "..." lines).
        function seg(i, j,   k) {
            if (i == ne) return j == na
            if (e[i] == "...") {
                for (k = j; k <= na; k++) if (seg(i + 1, k)) return 1
                return 0
            }
            return j < na && eq(e[i], a[j]) && seg(i + 1, j + 1)
        }
        END { exit seg(0, 0) ? 0 : 1 }' "$1" "$2"
}

# run_cmd N CMD EXPECTED_FILE WHERE: runs one documented command in $W, compares its output.
run_cmd() {
    local n=$1 cmd=$2 exp=$3 where=$4 rc
    case "$cmd" in
    make\ *)
        local san=
        [ "$(basename "$BUILD")" = build-san ] && san=SANITIZE=1
        # As a user runs it: not as a part of the make check that may run this script.
        cmd="env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C '$ROOT' --no-print-directory \
             O='$BUILD' $san ${cmd#make }"
        ;;
    esac
    (
        exec 2>/dev/null
        cd "$W" && timeout 120 bash -c "$cmd" </dev/null >"$T/$n.raw" 2>&1
        exit $?
    )
    rc=$?
    mask "$W" <"$T/$n.raw" >"$T/$n.out"
    mask "$W" <"$exp" >"$T/$n.exp"
    if [ $rc -ne 0 ]; then
        fail "docs-$where" "\$ $2: exit status $rc"
        sed -n '1,10s/^/    | /p' "$T/$n.raw"
    elif matches "$T/$n.exp" "$T/$n.out"; then
        pass "docs-$where"
    else
        fail "docs-$where" "\$ $2: the output differs from the document's (- document, + run; masked)"
        diff "$T/$n.exp" "$T/$n.out" | sed -n '1,30s/^/    /p'
    fi
}

# doc FILE: runs the console blocks of FILE, in a directory of its own.
doc() {
    local f=$1 rel=${1#"$ROOT"/} name W inblock=0 skip='' ln=0 cmd='' cmdln='' exp n=0 line
    name=$(echo "$rel" | tr '/.' '__')
    W=$T/$name
    mkdir -p "$W"
    ln -s "$BUILD" "$W/build"
    for d in examples tools target common docs; do ln -s "$ROOT/$d" "$W/$d"; done
    exp=$T/$name.expected
    flush() {
        [ -n "$cmd" ] || return 0
        n=$((n + 1))
        run_cmd "$name.$n" "$cmd" "$exp" "$rel:$cmdln"
        cmd=
    }
    while IFS= read -r line || [ -n "$line" ]; do
        ln=$((ln + 1))
        if [ $inblock = 0 ]; then
            case "$line" in
            '<!-- docs.sh: not run: '*) skip=${line#'<!-- docs.sh: not run: '} skip=${skip%' -->'} ;;
            '<!-- docs.sh: needs '*)
                skip=${line#'<!-- docs.sh: needs '} skip=${skip%' -->'}
                # Runs when the file is there: skip only names what is missing.
                if [ -e "$W/${skip%% *}" ]; then skip=; else skip="no ${skip%% *}: ${skip#* }"; fi
                ;;
            '```console')
                if [ -n "$skip" ]; then
                    echo "skip docs-$rel:$ln: $skip"
                    inblock=2
                else
                    inblock=1
                fi
                skip=
                ;;
            '```'*) inblock=3 skip= ;;
            '') ;;
            *) skip= ;;
            esac
            continue
        fi
        if [ "$line" = '```' ]; then
            [ $inblock = 1 ] && flush
            inblock=0
            continue
        fi
        [ $inblock = 1 ] || continue
        if [ -n "$cmd" ] && [ "${cmd%\\}" != "$cmd" ] && [ ! -s "$exp" ]; then
            cmd="$cmd"$'\n'"$line" # a continued command: bash joins the lines
        elif [ "${line#'$ '}" != "$line" ]; then
            flush
            cmd=${line#'$ '} cmdln=$ln
            : >"$exp"
        else
            printf '%s\n' "$line" >>"$exp"
        fi
    done <"$f"
}

# The matcher itself, on a sample that drifted and on one that did not: a test that cannot fail
# proves nothing.
printf 'a\n...\nd\ne...\n' >"$T/m.exp"
printf 'a\nb\nc\nd\neeee\n' >"$T/m.ok"
printf 'a\nb\nc\nD\neeee\n' >"$T/m.bad"
check docs-matcher "the matcher accepts a drifted sample or rejects a good one" \
    bash -c "$(declare -f matches); matches '$T/m.exp' '$T/m.ok' && ! matches '$T/m.exp' '$T/m.bad'"

if [ -n "${DOCS_FILES:-}" ]; then
    for f in $DOCS_FILES; do doc "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"; done
    finish
fi

for f in "$ROOT/README.md" "$ROOT"/docs/*.md; do
    doc "$f"
done

lines=$(wc -l <"$ROOT/README.md")
check docs-readme-length "README.md has $lines lines, more than 300" [ "$lines" -le 300 ]

# Every relative link of the documents names a file of the tree.
bad=
for f in "$ROOT/README.md" "$ROOT"/docs/*.md; do
    for l in $(grep -oE '\]\([^)#]+' "$f" | sed 's/^](//' | grep -vE '^[a-z]+:'); do
        [ -e "$(dirname "$f")/$l" ] || bad="$bad ${f#"$ROOT"/}:$l"
    done
done
check docs-links "links to nothing:$bad" [ -z "$bad" ]
finish
