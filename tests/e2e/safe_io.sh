#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# safe_io.sh - inputs and outputs that could make the host tool destroy, hang or lie (issue 13):
# an output that is one of the command's inputs (directly, through a symbolic or a hard link,
# or as the standard output); outputs cut short by an error or by Ctrl-C, which must leave the
# old file as it was; named pipes and devices where a file is expected, and side files
# (DUMP.maps) that never end; ELF files without a build-id, the right one and wrong ones; and
# what info prints (alignment, a machine that differs while both sides have build-ids).
set -u
. "$(dirname "$0")/lib.sh"

CRUMBLE=$BUILD/examples/crumble
H=$BUILD/examples/hardcases
need "$CT" "$CRUMBLE" "$H"

run prog env CYGTRACE_OUT="$T/good.trace" "$CRUMBLE"
check crumble-runs "exit status $RC" [ "$RC" -eq 0 ]
run good-tree "$CT" tree "$CRUMBLE" "$T/good.trace"

# timed NAME MAX_MS CMD...: runs CMD as run does, then checks that it took less than MAX_MS.
timed() {
    local name=$1 max=$2 start took
    shift 2
    start=$(date +%s%N)
    run "$name" "$@"
    took=$((($(date +%s%N) - start) / 1000000))
    check "$name-bounded" "took $took ms" [ "$took" -lt "$max" ]
}

TIMED_ERROR_MS=5000

# warned NAME REGEX: the run NAME exited 0 with one line on stderr, a warning matching REGEX.
warned() {
    local name=$1 re=$2
    # (besides it, export's note that the durations are corrected for the hooks' cost)
    check "$name" "status $RC, stderr: $(tr '\n' '|' <"$T/$name.err" | cut -c1-300)" eval \
        '[ "$RC" -eq 0 ] &&
         [ "$(grep -vc "^cygtrace: note: durations corrected for hook cost: " "$T/$name.err")" -eq 1 ] &&
         grep -Eq "^cygtrace: warning: .*$re" "$T/$name.err"'
}

# leftovers DIR: the temporary files an output left behind in DIR (hidden, ".NAME.XXXXXX").
leftovers() {
    find "$1" -maxdepth 1 -name '.*.??????' | tr '\n' ' '
}

# --- item 5: an output that is an input is refused, and nothing is half-written -------------
mkdir -p "$T/out"
cp "$T/good.trace" "$T/out/own.trace"
cp "$T/good.trace.maps" "$T/out/own.trace.maps"
cp "$CRUMBLE" "$T/out/crumble"
cp "$T/good.trace" "$T/own.orig"
O=$T/out
expect_error export-onto-dump 1 'own\.trace: is the dump .*; write the output elsewhere' \
    "$CT" export --format=chrome "$O/crumble" "$O/own.trace" -o "$O/own.trace"
check export-onto-dump-intact "the dump changed" cmp -s "$T/own.orig" "$O/own.trace"
ln -s own.trace "$O/link.json"
expect_error export-onto-dump-symlink 1 'link\.json: is the dump' \
    "$CT" export --format=chrome "$O/crumble" "$O/own.trace" -o "$O/link.json"
ln "$O/own.trace" "$O/hard.json"
expect_error export-onto-dump-hardlink 1 'hard\.json: is the dump' \
    "$CT" export --format=folded "$O/crumble" "$O/own.trace" -o "$O/hard.json"
expect_error export-onto-elf 1 'crumble: is the ELF' \
    "$CT" export --format=callgrind "$O/crumble" "$O/own.trace" -o "$O/crumble"
expect_error export-onto-maps 1 'own\.trace\.maps: is the dump.s map' \
    "$CT" export --format=chrome "$O/crumble" "$O/own.trace" -o "$O/own.trace.maps"
# >> keeps the dump and appends to it: the export would read what it writes.
expect_error export-stdout-onto-dump 1 'standard output: is the dump' \
    sh -c 'exec "$0" export --format=folded "$1" "$2" >>"$2"' "$CT" "$O/crumble" "$O/own.trace"
check export-onto-inputs-intact "the dump, its map or the ELF changed" eval \
    'cmp -s "$T/own.orig" "$O/own.trace" && cmp -s "$T/good.trace.maps" "$O/own.trace.maps" &&
     cmp -s "$CRUMBLE" "$O/crumble"'

# An error after the output was named: the file it would replace stays as it was.
echo OLD >"$O/old.json"
expect_error export-error-keeps-old 1 'nosuchfunction' \
    "$CT" export --format=chrome --only=nosuchfunction "$CRUMBLE" "$T/good.trace" -o "$O/old.json"
check export-error-keeps-old-file "old.json now holds: $(head -c 60 "$O/old.json" | tr '\n' '|')" \
    eval '[ "$(cat "$O/old.json")" = OLD ]'
check export-error-no-leftovers "left behind: $(leftovers "$O")" eval '[ -z "$(leftovers "$O")" ]'

# Written: a new file gets the mode any new file gets (0666 less the umask), a file replaced
# keeps its own, a symbolic link stays a link to the file that now holds the output.
run export-new "$CT" export --format=folded "$CRUMBLE" "$T/good.trace" -o "$O/new.folded"
touch "$O/touched"
check export-new "status $RC, or mode $(stat -c %a "$O/new.folded" 2>/dev/null) and not $(stat -c %a "$O/touched")" \
    eval '[ "$RC" -eq 0 ] && [ -s "$O/new.folded" ] &&
          [ "$(stat -c %a "$O/new.folded")" = "$(stat -c %a "$O/touched")" ]'
echo OLD >"$O/kept.folded"
chmod 600 "$O/kept.folded"
run export-replace "$CT" export --format=folded "$CRUMBLE" "$T/good.trace" -o "$O/kept.folded"
check export-replace-keeps-mode "status $RC, mode $(stat -c %a "$O/kept.folded")" eval \
    '[ "$RC" -eq 0 ] && [ "$(stat -c %a "$O/kept.folded")" = 600 ] && cmp -s "$O/new.folded" "$O/kept.folded"'
ln -s kept.folded "$O/via-link"
run export-via-link "$CT" export --format=folded "$CRUMBLE" "$T/good.trace" -o "$O/via-link"
check export-via-link "status $RC, or via-link is no longer a link" eval \
    '[ "$RC" -eq 0 ] && [ -L "$O/via-link" ] && cmp -s "$O/new.folded" "$O/kept.folded"'
run export-devnull "$CT" export --format=chrome "$CRUMBLE" "$T/good.trace" -o /dev/null
check export-devnull "status $RC: $(head -n 1 "$T/export-devnull.err")" [ "$RC" -eq 0 ]
check export-written-no-leftovers "left behind: $(leftovers "$O")" eval '[ -z "$(leftovers "$O")" ]'

# Ctrl-C in the middle of a long export: the old file stays, no temporary file is left.
# CT_NATIVE: the signal must reach the tool, not valgrind. env --default-signal: a command
# started in the background of a script ignores SIGINT otherwise.
run wrap env CYGTRACE_OUT="$T/wrap.trace" CYGTRACE_SIZE=64M "$H" wrap
echo OLD >"$O/big.json"
env --default-signal=INT "$CT_NATIVE" export --format=chrome "$H" "$T/wrap.trace" \
    -o "$O/big.json" >/dev/null 2>"$T/interrupted.err" &
pid=$!
seen=
for ((i = 0; i < 200000; i++)); do
    if compgen -G "$O/.big.json.*" >/dev/null; then
        seen=1
        break
    fi
    kill -0 "$pid" 2>/dev/null || break
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
RC=$?
check export-interrupted "status $RC (expected 130, SIGINT), temporary file seen: ${seen:-no}" \
    eval '[ -n "$seen" ] && [ "$RC" -eq 130 ]'
check export-interrupted-keeps-old "big.json now holds: $(head -c 60 "$O/big.json" | tr '\n' '|')" \
    eval '[ "$(cat "$O/big.json")" = OLD ]'
check export-interrupted-no-leftovers "left behind: $(leftovers "$O")" eval '[ -z "$(leftovers "$O")" ]'

# --- item 6: a named pipe or a device where a file is expected, side files without end -------
mkfifo "$T/fifo.trace"
for cmd in tree report "export --format=chrome"; do
    timed_error "fifo-dump-${cmd%% *}" 'fifo\.trace: a named pipe, not a file' \
        "$CT" $cmd "$CRUMBLE" "$T/fifo.trace"
done
timed_error fifo-dump-info 'fifo\.trace: a named pipe, not a file' "$CT" info "$T/fifo.trace"
timed_error fifo-elf 'fifo\.trace: .*not an ELF|fifo\.trace: a named pipe' \
    "$CT" tree "$T/fifo.trace" "$T/good.trace"
expect_error chardev-dump 1 '/dev/zero: a character device, not a file' \
    "$CT" info /dev/zero

# DUMP.maps: refused with a warning, the tree goes on without it.
cp "$T/good.trace" "$T/m.trace"
mkfifo "$T/m.trace.maps"
timed maps-fifo 5000 "$CT" tree "$CRUMBLE" "$T/m.trace"
warned maps-fifo 'm\.trace\.maps: a named pipe, not a file'
check maps-fifo-tree "the tree differs from the dump's without a map" \
    same "$T/good-tree.out" "$T/maps-fifo.out"
timed maps-fifo-info 5000 "$CT" info "$T/m.trace"
warned maps-fifo-info 'm\.trace\.maps: a named pipe'
rm "$T/m.trace.maps"
ln -s /dev/zero "$T/m.trace.maps"
timed maps-devzero 5000 "$CT" tree "$CRUMBLE" "$T/m.trace"
warned maps-devzero 'm\.trace\.maps: a character device, not a file'
rm "$T/m.trace.maps"
# A regular file larger than any map the runtime writes (sparse: costs no disk).
truncate -s 100M "$T/m.trace.maps"
timed maps-huge 5000 "$CT" tree "$CRUMBLE" "$T/m.trace"
warned maps-huge 'm\.trace\.maps: .*larger than'
rm "$T/m.trace.maps"

# --- item 7: ELF files without a build-id -----------------------------------------------------
# The right ELF without its build-id: decoded as before, with a warning on every command.
objcopy --remove-section=.note.gnu.build-id "$CRUMBLE" "$T/crumble-noid"
for cmd in tree report "export --format=folded" info; do
    tag=noid-${cmd%% *}
    run "$tag" "$CT" $cmd "$T/crumble-noid" "$T/good.trace"
    warned "$tag" 'crumble-noid: has no build-id to check .*good\.trace.* against; checked only'
done
check noid-tree-same "the tree differs from the one with the ELF's build-id" \
    same "$T/good-tree.out" "$T/noid-tree.out"
check noid-info-says "info does not say the ELF has none" \
    grep -q '^build-id: .*(cannot check: the ELF has none)' "$T/noid-info.out"

# Two builds of one program, one function longer in the second (linked without a build-id):
# the first functions sit where they were, the rest moved. A dump of the first is not decoded
# with the second (names would be wrong), unless --force.
gen() {
    echo '#include <stdio.h>'
    for i in $(seq 0 15); do
        echo "__attribute__((noinline)) int f$i(int x) { volatile int v = x;"
        [ "$i" = 3 ] && echo '#ifdef PAD
  v += x * 3; v ^= x >> 1; v += x * 5; v ^= x >> 2; v += x * 7; v ^= x >> 3;
#endif'
        echo "  return v + 1; }"
    done
    echo 'int main(void) { int s = 0;'
    for i in $(seq 0 15); do echo "  s += f$i(s);"; done
    echo '  printf("%d\n", s); return 0; }'
}
gen >"$T/shift.c"
cc_shift() {
    gcc -finstrument-functions -O1 -I"$ROOT/target/core" "$@" "$T/shift.c" \
        "$BUILD/linux/libcygtrace.a" -lpthread 2>"$T/shift-cc.err"
}
if cc_shift -o "$T/shift-a" && cc_shift -DPAD -Wl,--build-id=none -o "$T/shift-b" &&
    cc_shift -Wl,--build-id=none -o "$T/shift-none" && cc_shift -no-pie -Wl,--build-id=none \
    -o "$T/shift-nopie"; then
    run shift-a env CYGTRACE_OUT="$T/shift-a.trace" "$T/shift-a"
    expect_error wrong-noid-elf 1 'shift-b: .* of the [0-9]+ functions .*shift-a\.trace.* do not start a function of it.*--force' \
        "$CT" tree "$T/shift-b" "$T/shift-a.trace"
    expect_error wrong-noid-elf-export 1 'shift-b: .*do not start a function' \
        "$CT" export --format=chrome "$T/shift-b" "$T/shift-a.trace" -o "$T/shift.json"
    run wrong-noid-elf-forced "$CT" tree --force "$T/shift-b" "$T/shift-a.trace"
    check wrong-noid-elf-forced "status $RC: $(tail -n 1 "$T/wrong-noid-elf-forced.err")" \
        eval '[ "$RC" -eq 0 ] && [ -s "$T/wrong-noid-elf-forced.out" ]'
    # A program built without a build-id records none: nothing to compare on either side.
    run shift-none env CYGTRACE_OUT="$T/shift-none.trace" "$T/shift-none"
    run neither-id "$CT" tree "$T/shift-none" "$T/shift-none.trace"
    warned neither-id 'neither .*shift-none nor .*shift-none\.trace has a build-id'
    check neither-id-tree "no f15 in the tree" grep -q 'f15();' "$T/neither-id.out"
    # Recorded by a position-independent program, decoded with one that is not.
    expect_error wrong-load-address 1 'shift-nopie: .*load.*not position-independent' \
        "$CT" tree "$T/shift-nopie" "$T/shift-none.trace"
else
    fail shift-builds "cannot build the test programs: $(head -n 2 "$T/shift-cc.err" | tr '\n' '|')"
fi

# --- item 9: what info prints -------------------------------------------------------------------
run info "$CT" info "$CRUMBLE" "$T/good.trace"
check info-overwritten "no 'overwritten: 0'" grep -qx 'overwritten: 0' "$T/info.out"
# Values in column 13, or one space after a label too long for that (overwritten:).
misaligned() {
    grep -E '^[a-z][a-z /-]*:' "$1" | grep -Ev '^.{11} [^ ]|^[a-z][a-z /-]{10,}: [^ ]'
}
check info-aligned "misaligned: $(misaligned "$T/info.out" | head -n 2 | tr '\n' '|')" \
    eval '[ -z "$(misaligned "$T/info.out")" ]'
ARM=$BUILD/tests/fixtures/sym_arm
if [ -f "$ARM" ]; then
    run info-arm "$CT" info "$ARM" "$T/good.trace"
    check info-arm-mismatch "$(grep '^build-id:' "$T/info-arm.out")" \
        grep -q '^build-id: .*(DOES NOT MATCH the ELF: it is ARM (32-bit), the dump x86-64 (64-bit))' \
        "$T/info-arm.out"
else
    fail info-arm "$ARM is missing (make sym-fixtures; arm-none-eabi-gcc from make deps)"
fi

finish
