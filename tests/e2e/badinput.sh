#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# badinput.sh - what cygtrace does with inputs that are wrong: one line "cygtrace: INPUT: what is
# wrong" and exit 1 (2 for usage), never a hang or a crash; and for damage it can live with
# (a short dump, a slot that was never written) the tree of what is there plus a note.
set -u
. "$(dirname "$0")/lib.sh"

CRUMBLE=$BUILD/examples/crumble
H=$BUILD/examples/hardcases
need "$CT" "$CRUMBLE" "$H"

# peek FILE OFFSET: the byte at OFFSET, in decimal. poke FILE OFFSET VALUE: overwrites it.
peek() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }
poke() { printf "\\$(printf %03o "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

run prog env CYGTRACE_OUT="$T/good.trace" "$CRUMBLE"
check crumble-runs "exit status $RC" [ "$RC" -eq 0 ]
run good-info "$CT" info "$CRUMBLE" "$T/good.trace"
written=$(awk '/^written:/ { print $2 }' "$T/good-info.out")
events=$(awk '/^thread  1 / { print $3 }' "$T/good-info.out")
check good-info "no 'written:' or 'thread  1' in info" eval '[ -n "$written" ] && [ -n "$events" ]'

# --- dumps that cannot be read --------------------------------------------------------------
head -c 100 "$T/good.trace" >"$T/short100.trace"
expect_error short-control-block 1 'short100\.trace: .*too short' \
    "$CT" tree "$CRUMBLE" "$T/short100.trace"
expect_error short-control-block-info 1 'short100\.trace: .*too short' \
    "$CT" info "$T/short100.trace"
head -c 4096 /dev/urandom >"$T/random.trace"
expect_error random-bytes 1 'random\.trace: .*not a cygtrace dump' \
    "$CT" tree "$CRUMBLE" "$T/random.trace"
expect_error random-bytes-info 1 'random\.trace: .*not a cygtrace dump' "$CT" info "$T/random.trace"
: >"$T/empty.trace"
expect_error empty-dump 1 'empty\.trace: .*empty' "$CT" tree "$CRUMBLE" "$T/empty.trace"
mkdir -p "$T/adir"
expect_error directory-dump 1 'adir: .*[Dd]irectory' "$CT" tree "$CRUMBLE" "$T/adir"
expect_error missing-dump 1 'nothere\.trace: No such file' "$CT" tree "$CRUMBLE" "$T/nothere.trace"
expect_error missing-dump-info 1 'nothere\.trace: No such file' "$CT" info "$T/nothere.trace"
expect_error device-dump 1 '/dev/null: ' "$CT" tree "$CRUMBLE" /dev/null

# A corrupted control block: one byte of the checksummed part changed (cap_log2 at 12).
cp "$T/good.trace" "$T/corrupt.trace"
poke "$T/corrupt.trace" 12 $(($(peek "$T/good.trace" 12) ^ 0xff))
expect_error corrupt-control-block 1 'corrupt\.trace: .*checksum' \
    "$CT" tree "$CRUMBLE" "$T/corrupt.trace"
expect_error corrupt-control-block-info 1 'corrupt\.trace: .*checksum' "$CT" info "$T/corrupt.trace"

# --- ELF files that cannot be used -----------------------------------------------------------
expect_error other-elf 1 'good\.trace: .*build-id.*--force' "$CT" tree "$H" "$T/good.trace"
run other-elf-forced "$CT" tree --force "$H" "$T/good.trace"
check other-elf-force-decodes "status $RC, stdout $(wc -l <"$T/other-elf-forced.out") lines" \
    eval '[ "$RC" -eq 0 ] && [ -s "$T/other-elf-forced.out" ]'
run other-elf-info "$CT" info "$H" "$T/good.trace"
check other-elf-info "info does not say DOES NOT MATCH" eval \
    '[ "$RC" -eq 0 ] && grep -q "DOES NOT MATCH the ELF" "$T/other-elf-info.out"'
strip -o "$T/crumble.stripped" "$CRUMBLE"
expect_error stripped-elf 1 'crumble\.stripped: .*symbols' \
    "$CT" tree "$T/crumble.stripped" "$T/good.trace"
# The same without our runtime linked in: no dynamic symbols of its own either.
if gcc -finstrument-functions -O1 -o "$T/plain" "$ROOT/examples/crumble/crumble.c" 2>/dev/null &&
    strip "$T/plain"; then
    expect_error stripped-plain-elf 1 'plain: .*symbols' "$CT" tree "$T/plain" "$T/good.trace"
else
    fail stripped-plain-elf "cannot build and strip a plain crumble"
fi
echo 'not a program' >"$T/text.elf"
expect_error text-as-elf 1 'text\.elf: .*not an ELF' "$CT" tree "$T/text.elf" "$T/good.trace"
expect_error directory-as-elf 1 'adir: .*[Dd]irectory' "$CT" tree "$T/adir" "$T/good.trace"
expect_error missing-elf 1 'nothere: No such file' "$CT" tree "$T/nothere" "$T/good.trace"

# --- usage ----------------------------------------------------------------------------------
expect_error unknown-command 2 'frobnicate' "$CT" frobnicate
expect_error tree-unknown-option 2 'bogus' "$CT" tree --bogus "$CRUMBLE" "$T/good.trace"
expect_error info-unknown-option 2 'bogus' "$CT" info --bogus "$T/good.trace"
expect_error record-unknown-option 2 'bogus' "$CT" record --bogus -- "$CRUMBLE"
# Without a dump the trace is ./cygtrace.out (uftrace's habit): where there is none, one line.
mkdir -p "$T/empty"
expect_error tree-no-args 1 '^cygtrace: cygtrace\.out: No such file.*; give the trace: cygtrace tree \[ELF\] DUMP$' \
    env -C "$T/empty" "$CT" tree
expect_error tree-one-arg 1 "^cygtrace: cygtrace\\.out: No such file.*; give the trace: cygtrace tree .*crumble DUMP\$" \
    env -C "$T/empty" "$CT" tree "$CRUMBLE"
expect_error tree-three-args 2 'tree' "$CT" tree "$CRUMBLE" "$T/good.trace" extra
expect_error info-no-args 1 'cygtrace\.out: No such file' env -C "$T/empty" "$CT" info
expect_error record-no-program 2 'record' "$CT" record
expect_error tree-bad-style 2 'style' "$CT" tree --style=fancy "$CRUMBLE" "$T/good.trace"
expect_error tree-bad-depth 2 'depth' "$CT" tree --depth=0 "$CRUMBLE" "$T/good.trace"
expect_error tree-bad-depth-text 2 'depth' "$CT" tree --depth=deep "$CRUMBLE" "$T/good.trace"
expect_error tree-bad-thread 2 'thread' "$CT" tree --thread=4x "$CRUMBLE" "$T/good.trace"
expect_error tree-absent-thread 1 'no thread 9' "$CT" tree --thread=9 "$CRUMBLE" "$T/good.trace"
expect_error record-bad-mode 2 'mode' "$CT" record --mode=sometimes -- "$CRUMBLE"
run no-command "$CT"
check no-command "status $RC, or no usage on stderr, or stdout not empty" \
    eval '[ "$RC" -eq 2 ] && grep -q "^usage: cygtrace" "$T/no-command.err" && [ ! -s "$T/no-command.out" ]'

# record: a program that does not exist, one with no instrumentation
run record-missing-program "$CT" record -o "$T/rec.trace" -- "$T/nothere"
check record-missing-program "status $RC, stderr: $(tr '\n' '|' <"$T/record-missing-program.err")" \
    eval '[ "$RC" -eq 127 ] && [ "$(wc -l <"$T/record-missing-program.err")" -eq 1 ] && grep -q "^cygtrace: .*nothere" "$T/record-missing-program.err"'
# (one line says so; the status stays the program's: tests/e2e/record_linux.sh)
expect_error record-uninstrumented 0 'no trace was written' \
    "$CT" record -o "$T/rec.trace" -- /bin/true

# --- damage the tool decodes around ---------------------------------------------------------
# Cut in the middle of the records (4.5 records after the control block): what is there, and
# how many records are missing.
head -c 200 "$T/good.trace" >"$T/short200.trace"
missing=$((written - (200 - 128) / 16))
run short-records "$CT" tree "$CRUMBLE" "$T/short200.trace"
check short-records-status "exit status $RC: $(head -n 1 "$T/short-records.err")" [ "$RC" -eq 0 ]
check short-records-note "no '# $missing records are missing' note" \
    grep -q "^# $missing records are missing: the dump is shorter than its ring" "$T/short-records.out"
check short-records-tree "the tree does not start main() { Crumble_make_apple_crumble() {" \
    same <(printf 'main() {\n  Crumble_make_apple_crumble() {\n') \
    <(tree_body "$T/short-records.out" | grep -v '^#')
run short-records-etrace "$CT" tree --style=etrace "$CRUMBLE" "$T/short200.trace"
check short-records-etrace "status $RC, or the note is not on stderr" eval \
    '[ "$RC" -eq 0 ] && grep -q "^cygtrace: note: $missing records are missing" "$T/short-records-etrace.err" && ! grep -q "missing" "$T/short-records-etrace.out"'
run short-records-info "$CT" info "$CRUMBLE" "$T/short200.trace"
check short-records-info "info does not say 'truncated:  $missing'" \
    grep -q "^truncated:  $missing records missing" "$T/short-records-info.out"

# A slot reserved but never written: record 10 with its lap bit (bit 7 of its byte 15) clear.
off=$((128 + 10 * 16 + 15))
b=$(peek "$T/good.trace" $off)
if [ $((b & 0x80)) -eq 0 ]; then
    fail unwritten-setup "record 10's lap bit is already clear (byte $b): the dump is not as expected"
else
    cp "$T/good.trace" "$T/unwritten.trace"
    poke "$T/unwritten.trace" $off $((b & 0x7f))
    run unwritten "$CT" tree "$CRUMBLE" "$T/unwritten.trace"
    check unwritten-status "exit status $RC: $(head -n 1 "$T/unwritten.err")" [ "$RC" -eq 0 ]
    check unwritten-note "no '# 1 slots were reserved but never written' note" \
        grep -q '^# 1 slots were reserved but never written' "$T/unwritten.out"
    check unwritten-tree "no main() { line" grep -q '^main() {$' <(tree_body "$T/unwritten.out")
    run unwritten-info "$CT" info "$CRUMBLE" "$T/unwritten.trace"
    n=$(awk '/^thread  1 / { print $3 }' "$T/unwritten-info.out")
    check unwritten-one-fewer "thread 1 has ${n:-no} events, expected $((events - 1))" \
        [ "${n:-0}" -eq $((events - 1)) ]
    check unwritten-info "no 'unwritten:  1'" grep -q '^unwritten:  1 ' "$T/unwritten-info.out"
fi

# A RAM image: the control block somewhere inside a bigger file.
{ head -c 4096 /dev/zero; cat "$T/good.trace"; } >"$T/ram.bin"
run ram "$CT" tree --style=etrace "$CRUMBLE" "$T/ram.bin"
check ram-image "status $RC, or not the crumble tree" same "$E2E_DIR/crumble.etrace.expected" "$T/ram.out"
run ram-info "$CT" info "$T/ram.bin"
check ram-image-offset "info does not say 'control block at offset 0x1000'" \
    grep -q 'control block at offset 0x1000' "$T/ram-info.out"

# --- the control area of a version 3 ring (after the records) -------------------------------
# poke_le FILE OFFSET VALUE BYTES: a little-endian field.
poke_le() {
    local v=$3
    for ((i = 0; i < $4; i++)); do
        poke "$1" $(($2 + i)) $((v & 0xff))
        v=$((v >> 8))
    done
}
# The block's CRC-32 again: gzip's trailer holds the CRC-32 of its input, little-endian.
reseal() {
    head -c 80 "$1" | gzip -c | tail -c 8 | head -c 4 |
        dd of="$1" bs=1 seek=80 conv=notrunc status=none
}
# A version 3 dump of the crumble's: its own when the runtime writes version 3, else version 2's
# made one (version 3, and the control area the runtime's init leaves: magic CYGC, every class
# of marks, the gate open, nothing armed).
ring_bytes=$(awk '/^capacity:/ { gsub(/\(/, "", $4); print $4 }' "$T/good-info.out")
ctrl_off=$((128 + ring_bytes))
cp "$T/good.trace" "$T/v3.trace"
if [ "$(peek "$T/v3.trace" 8)" -ne 3 ]; then
    poke "$T/v3.trace" 8 3
    reseal "$T/v3.trace"
    { printf 'CYGC'; head -c 8 /dev/zero; printf '\377\377\377\377'; head -c 10 /dev/zero
      printf '\001'; head -c 229 /dev/zero; } >>"$T/v3.trace"
fi
check v3-size "the version 3 dump is $(stat -c %s "$T/v3.trace") bytes, not $((ctrl_off + 256))" \
    [ "$(stat -c %s "$T/v3.trace")" -eq $((ctrl_off + 256)) ]
run v3-tree "$CT" tree "$CRUMBLE" "$T/v3.trace"
run good-tree "$CT" tree "$CRUMBLE" "$T/good.trace"
check v3-tree "status $RC, stderr '$(head -n 1 "$T/v3-tree.err")', or not the crumble tree" \
    eval '[ "$RC" -eq 0 ] && [ ! -s "$T/v3-tree.err" ] && same "$T/good-tree.out" "$T/v3-tree.out"'
run v3-info "$CT" info "$CRUMBLE" "$T/v3.trace"
check v3-info-none-armed "info does not say 'control:    none armed'" \
    grep -qx 'control:    none armed' "$T/v3-info.out"

# Armed: a freeze at Crumble_make_apple_crumble (its run-time address) that fired, the ring
# frozen by it, a function excluded with its callees, the classes of marks 0 to 3: the tree's
# notes and info say so, by name.
bias=$(awk '/^load bias:/ { print $3 }' "$T/good-info.out")
fn=$(nm "$CRUMBLE" | awk '$3 == "Crumble_make_apple_crumble" { print "0x" $1 }')
cp "$T/v3.trace" "$T/armed.trace"
poke_le "$T/armed.trace" $((ctrl_off + 12)) 15 4          # events: classes 0..3
poke "$T/armed.trace" $((ctrl_off + 20)) 1                 # one trigger
poke "$T/armed.trace" $((ctrl_off + 21)) 1                 # one excluded function
poke "$T/armed.trace" $((ctrl_off + 22)) 1                 # ... with its callees
poke "$T/armed.trace" $((ctrl_off + 24)) 1                 # trigger 0 fired last
poke "$T/armed.trace" $((ctrl_off + 25)) 1                 # once
poke_le "$T/armed.trace" $((ctrl_off + 32)) 7 8            # at event 7
poke_le "$T/armed.trace" $((ctrl_off + 64)) $((fn + ${bias:-0})) 8
poke_le "$T/armed.trace" $((ctrl_off + 72)) 10 4           # after 10 events
poke "$T/armed.trace" $((ctrl_off + 76)) 3                 # a freeze
poke "$T/armed.trace" $((ctrl_off + 77)) 1                 # fired
poke_le "$T/armed.trace" $((ctrl_off + 160)) $((0xbad0)) 8
poke "$T/armed.trace" 84 2                                 # frozen (outside the CRC)
run armed-tree "$CT" tree "$CRUMBLE" "$T/armed.trace"
cat >"$T/armed.expected" <<'EOF_NOTES'
# the trace was frozen (by trigger freeze@Crumble_make_apple_crumble+10)
# control: trigger freeze@Crumble_make_apple_crumble+10 (fired)
# control: hide 0xbad0 (and its callees)
# control: events 0x0000000f (classes of marks recorded)
# control: fired freeze@Crumble_make_apple_crumble+10 at event 7 (1 trigger fired)
EOF_NOTES
check armed-tree-notes "status $RC, or the notes are not what was armed: $(grep '^# [tc]' "$T/armed-tree.out" | tr '\n' '|')" \
    eval '[ "$RC" -eq 0 ] && same "$T/armed.expected" <(grep -e "^# control: " -e "^# the trace was frozen" "$T/armed-tree.out")'
run armed-etrace "$CT" tree --style=etrace "$CRUMBLE" "$T/armed.trace"
check armed-etrace-notes "status $RC, or the control notes are not on stderr" eval \
    '[ "$RC" -eq 0 ] && grep -q "^cygtrace: note: control: trigger freeze@Crumble_make_apple_crumble+10 (fired)" "$T/armed-etrace.err" && ! grep -q control "$T/armed-etrace.out"'
run armed-info "$CT" info "$CRUMBLE" "$T/armed.trace"
check armed-info "info does not list the trigger, the exclusion and what fired" eval \
    'grep -qx "control:    trigger freeze@Crumble_make_apple_crumble+10 (fired)" "$T/armed-info.out" &&
     grep -qx "control:    hide 0xbad0 (and its callees)" "$T/armed-info.out" &&
     grep -q "^control:    fired freeze@Crumble_make_apple_crumble+10 at event 7" "$T/armed-info.out"'

# A control area that is not one (its magic damaged): one warning naming the dump, and the
# records decode all the same.
cp "$T/v3.trace" "$T/badctrl.trace"
poke "$T/badctrl.trace" $((ctrl_off + 1)) 0
run badctrl-tree "$CT" tree "$CRUMBLE" "$T/badctrl.trace"
check badctrl-tree "status $RC, or not one warning naming the dump, or not the crumble tree: $(tr '\n' '|' <"$T/badctrl-tree.err")" \
    eval '[ "$RC" -eq 0 ] && [ "$(wc -l <"$T/badctrl-tree.err")" -eq 1 ] &&
          grep -q "^cygtrace: warning: .*badctrl\.trace: control area has no magic" "$T/badctrl-tree.err" &&
          same "$T/good-tree.out" "$T/badctrl-tree.out"'
run badctrl-info "$CT" info "$CRUMBLE" "$T/badctrl.trace"
check badctrl-info "status $RC, or info does not say the area is unreadable" eval \
    '[ "$RC" -eq 0 ] && grep -qx "control:    unreadable (control area has no magic)" "$T/badctrl-info.out"'
# Too many triggers for its room.
cp "$T/v3.trace" "$T/badcount.trace"
poke "$T/badcount.trace" $((ctrl_off + 20)) 200
run badcount-tree "$CT" tree "$CRUMBLE" "$T/badcount.trace"
check badcount-tree "status $RC, or no warning about the counts" eval \
    '[ "$RC" -eq 0 ] && grep -q "badcount\.trace: control area counts more triggers" "$T/badcount-tree.err"'

# Cut inside the control area, and just before it: the records are all there; one warning
# says where the dump ends; no area is made up.
for cut in 100 0; do
    head -c $((ctrl_off + cut)) "$T/armed.trace" >"$T/cut$cut.trace"
    run cut$cut-tree "$CT" tree "$CRUMBLE" "$T/cut$cut.trace"
    check cut$cut-tree "status $RC, or not one warning 'control area missing: dump ends at byte $((ctrl_off + cut))': $(tr '\n' '|' <"$T/cut$cut-tree.err")" \
        eval '[ "$RC" -eq 0 ] && [ "$(wc -l <"$T/cut$cut-tree.err")" -eq 1 ] &&
              grep -q "cut$cut\.trace: control area missing: dump ends at byte $((ctrl_off + cut))" "$T/cut$cut-tree.err"'
    check cut$cut-tree-body "the records are not decoded as in the whole dump, or a control note" eval \
        '! grep -q "^# control:" "$T/cut$cut-tree.out" && same <(tree_body "$T/good-tree.out" | grep -v "^#") <(tree_body "$T/cut$cut-tree.out" | grep -v "^#")'
    run cut$cut-info "$CT" info "$CRUMBLE" "$T/cut$cut.trace"
    check cut$cut-info "info does not say the area is missing" \
        grep -qx "control:    missing (the dump ends at byte $((ctrl_off + cut)))" "$T/cut$cut-info.out"
done

# A ring of format version 1 (one slot an event; the runtime of 766e8d6, tests/fixtures/ringv1.c,
# kept with its program): decoded as it was then.
FX=$ROOT/tests/fixtures
run v1-tree "$CT" tree "$FX/ringv1" "$FX/ringv1.ring"
check v1-tree "status $RC, or the tree differs from the one of its day: $(head -n 1 "$T/v1-tree.err")" \
    eval '[ "$RC" -eq 0 ] && same "$FX/ringv1.tree" "$T/v1-tree.out"'
run v1-info "$CT" info "$FX/ringv1" "$FX/ringv1.ring"
check v1-info "info does not say 'version 1' with 58 records held, and no control area" \
    eval 'grep -q "^format:     version 1, x86-64" "$T/v1-info.out" &&
          grep -q "^held:       58 records" "$T/v1-info.out" && ! grep -q chunks "$T/v1-info.out" &&
          ! grep -q "^control:" "$T/v1-info.out"'
# A version this cygtrace does not know yet: refused as newer.
cp "$FX/ringv1.ring" "$T/v9.ring"
poke "$T/v9.ring" 8 9
# The block's CRC-32 again: gzip's trailer holds the CRC-32 of its input, little-endian.
head -c 80 "$T/v9.ring" | gzip -c | tail -c 8 | head -c 4 |
    dd of="$T/v9.ring" bs=1 seek=80 conv=notrunc status=none
expect_error v9-newer 1 'v9\.ring: .*newer than this cygtrace' "$CT" info "$T/v9.ring"

finish
