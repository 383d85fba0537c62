#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# srcline.sh - --srcline and --signatures on the real examples: crumble, hardcases with call
# sites (CYGTRACE_CALLSITES=1), and the Cortex-M stream firmware run in QEMU with its UART
# saved to a file. Every "[FILE:LINE]" must be a line of FILE that declares the function, every
# "<- FILE:LINE" a line that calls (the callee, or through a pointer), and every signature the
# parameter list written in the source. Without the options the output is what it was.
set -u
. "$(dirname "$0")/lib.sh"

need "$CT" "$BUILD/examples/crumble" "$BUILD/examples/hardcases"

not_grep() {
    ! grep -q "$@"
}

# The source file called NAME under examples/ (every example's base names are distinct).
src_of() {
    find "$ROOT/examples" -name "$1" -type f | head -n 1
}

# Parameter lists compared as C means them: DWARF's "long int" is the source's "long".
norm() {
    sed -e 's/long unsigned int/unsigned long/g; s/long long int/long long/g' \
        -e 's/long int/long/g; s/short int/short/g; s/unsigned int/unsigned/g' \
        -e 's/[[:space:]]//g'
}

# check_lines TAG FILE: every "NAME(...) [SRC:LINE]" and "<- SRC:LINE" of a tree checked
# against the source; the count of each is in $T/TAG.decl and $T/TAG.site.
check_lines() {
    local tag=$1 out=$2 bad=0 ndecl=0 nsite=0 name file line src text site sfile sline
    while IFS= read -r l; do
        [[ $l =~ ([A-Za-z_][A-Za-z_0-9]*)\([^\[]*\)\ \[([^]:]+):([0-9]+)\] ]] || continue
        name=${BASH_REMATCH[1]} file=${BASH_REMATCH[2]} line=${BASH_REMATCH[3]}
        src=$(src_of "$file")
        text=$(sed -n "${line}p" "$src" 2>/dev/null)
        if [[ ! $text =~ (^|[^A-Za-z_0-9])$name[[:space:]]*\( ]]; then
            echo "    $tag: $name [$file:$line] is: $text"
            bad=$((bad + 1))
        fi
        ndecl=$((ndecl + 1))
        if [[ $l =~ \<-\ ([^:]+):([0-9]+) ]]; then
            sfile=${BASH_REMATCH[1]} sline=${BASH_REMATCH[2]}
            site=$(sed -n "${sline}p" "$(src_of "$sfile")" 2>/dev/null)
            # a direct call names the callee; a call through a pointer has a "(" at least
            if [[ ! $site =~ $name[[:space:]]*\( ]] && [[ ! $site =~ \( ]]; then
                echo "    $tag: call of $name at $sfile:$sline is: $site"
                bad=$((bad + 1))
            fi
            [[ $site =~ $name[[:space:]]*\( ]] && nsite=$((nsite + 1))
        fi
    done <"$out"
    echo "$ndecl" >"$T/$tag.decl"
    echo "$nsite" >"$T/$tag.site"
    return $((bad > 0))
}

# params_of NAME: the text between the parentheses after the first NAME( of stdin.
params_of() {
    awk -v name="$1" '{
        if (!match($0, "(^|[^A-Za-z_0-9])" name "[ \t]*[(]")) exit
        s = substr($0, RSTART + RLENGTH); d = 1
        for (i = 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (c == "(") d++
            else if (c == ")" && --d == 0) { print substr(s, 1, i - 1); exit }
        }
    }'
}

# check_sigs TAG FILE: every "NAME(PARAMS) [SRC:LINE]" has the PARAMS of the definition at
# SRC:LINE (read up to its closing parenthesis, which may be lines further).
check_sigs() {
    local tag=$1 out=$2 bad=0 n=0 name params file line src want
    while IFS= read -r l; do
        [[ $l =~ ([A-Za-z_][A-Za-z_0-9]*)\(([^\[]*)\)\ \[([^]:]+):([0-9]+)\] ]] || continue
        name=${BASH_REMATCH[1]} params=${BASH_REMATCH[2]}
        file=${BASH_REMATCH[3]} line=${BASH_REMATCH[4]}
        src=$(src_of "$file")
        want=$(sed -n "${line},$((line + 4))p" "$src" | tr '\n' ' ' | params_of "$name")
        if [ "$(printf '%s' "$params" | norm)" != "$(printf '%s' "$want" | norm)" ]; then
            echo "    $tag: $name($params) but $file:$line says ($want)"
            bad=$((bad + 1))
        fi
        n=$((n + 1))
    done < <(sort -u "$out")
    echo "$n" >"$T/$tag.sigs"
    return $((bad > 0))
}

# --- crumble: every function's line ---------------------------------------------------------
C=$BUILD/examples/crumble
run crumble env CYGTRACE_OUT="$T/crumble.trace" "$C"
run crumble-plain "$CT" tree "$C" "$T/crumble.trace"
run crumble-src "$CT" tree --srcline "$C" "$T/crumble.trace"
check crumble-srcline "a source line that is not the function's" check_lines crumble "$T/crumble-src.out"
check crumble-srcline-count "no [file:line] at all" test "$(cat "$T/crumble.decl")" -gt 5
# Taking the locations out gives back the tree without them, line for line.
sed -e 's/ \[[^]]*\]//' "$T/crumble-src.out" >"$T/crumble-src.stripped"
check crumble-same-tree "--srcline changed more than the locations" \
    same "$T/crumble-plain.out" "$T/crumble-src.stripped"
run crumble-sig "$CT" tree --srcline --signatures "$C" "$T/crumble.trace"
check crumble-signatures "a signature that is not the prototype" check_sigs crumble "$T/crumble-sig.out"
run crumble-etrace "$CT" tree --style=etrace --srcline "$C" "$T/crumble.trace"
check crumble-etrace "etrace --srcline: no [file:line]" grep -q '^main \[crumble.c:[0-9]*\]$' \
    "$T/crumble-etrace.out"
run crumble-full "$CT" tree --srcline=full "$C" "$T/crumble.trace"
check crumble-full-path "--srcline=full: no whole path" grep -q "\[$ROOT/examples/crumble/" \
    "$T/crumble-full.out"

# --- hardcases with call sites: declarations and call-site lines -----------------------------
H=$BUILD/examples/hardcases
for s in recurse fnptr threads; do
    run "h-$s" env CYGTRACE_OUT="$T/h-$s.trace" CYGTRACE_CALLSITES=1 "$H" "$s"
    run "h-$s-src" "$CT" tree --srcline --signatures "$H" "$T/h-$s.trace"
    check "hardcases-$s-srcline" "a wrong line" check_lines "h-$s" "$T/h-$s-src.out"
    check "hardcases-$s-sites" "no call-site line names its callee" \
        test "$(cat "$T/h-$s.site")" -gt 0
    check "hardcases-$s-signatures" "a wrong signature" check_sigs "h-$s" "$T/h-$s-src.out"
done

# --- colour: never unless asked or on a terminal ---------------------------------------------
run color-always "$CT" tree --color=always "$C" "$T/crumble.trace"
check color-always "--color=always wrote no escape" grep -q $'\033\\[1mmain\033\\[0m()' \
    "$T/color-always.out"
run color-auto env TERM=xterm "$CT" tree --color=auto "$C" "$T/crumble.trace"
check color-auto-pipe "--color=auto coloured a pipe" same "$T/crumble-plain.out" "$T/color-auto.out"
if command -v script >/dev/null; then
    # a real terminal (script's pty): colour, unless NO_COLOR says no
    run color-tty env TERM=xterm script -qec "'$CT' tree '$C' '$T/crumble.trace'" /dev/null
    check color-tty "no colour on a terminal" grep -q $'\033\\[1m' "$T/color-tty.out"
    run color-nocolor env TERM=xterm NO_COLOR=1 script -qec "'$CT' tree '$C' '$T/crumble.trace'" /dev/null
    check color-no-color "NO_COLOR=1 still coloured" not_grep $'\033\\[' "$T/color-nocolor.out"
fi
expect_error color-bad 2 'color=pink: not a choice' "$CT" tree --color=pink "$C" "$T/crumble.trace"

# --- no DWARF: names as before ----------------------------------------------------------------
strip -g -o "$T/crumble-nodebug" "$C"
run nodebug "$CT" tree --srcline --signatures "$T/crumble-nodebug" "$T/crumble.trace"
check nodebug-names "without DWARF --srcline changed the tree" \
    same "$T/crumble-plain.out" "$T/nodebug.out"

# --- the Cortex-M stream firmware in QEMU, its UART saved to a file ---------------------------
FWELF=$BUILD/firmware/mps2-an385/stream.elf
if ! command -v qemu-system-arm >/dev/null || [ ! -f "$FWELF" ]; then
    fail fw-prerequisites "qemu-system-arm or $FWELF missing (make deps; make)"
else
    timeout 60 qemu-system-arm -M mps2-an385 -display none -monitor none -nographic \
        -semihosting-config enable=on,target=native -serial "file:$T/fw.cyg" \
        -kernel "$FWELF" </dev/null >"$T/fw.qemu" 2>&1
    run fw-src "$CT" tree --srcline --signatures "$FWELF" "$T/fw.cyg"
    check fw-srcline "a wrong line in the firmware's tree" check_lines fw "$T/fw-src.out"
    check fw-srcline-count "no [file:line] in the firmware's tree" test "$(cat "$T/fw.decl")" -gt 5
    check fw-signatures "a wrong firmware signature" check_sigs fw "$T/fw-src.out"
    check fw-decide "decide(int i) not shown" grep -q 'decide(int i) \[demo_work.h:' "$T/fw-src.out"
fi

finish
