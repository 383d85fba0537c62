#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# live_gap.sh - a live stream with a gap in the middle (a link that lost some frames): the tree
# keeps the calls open across the gap. The stream example firmware (stream.elf: main runs 100
# rounds of stream_round and never returns) streams its calls into a file through QEMU's UART;
# 200 bytes cut out of it at several places make the gaps. Before, the exits of the calls made
# in the gap closed main one after the other ("entered before the trace begins"), the rounds
# after it showed at depth 0, and the call stack at the end lost main.
set -u
. "$(dirname "$0")/lib.sh"

BOARD=mps2-an385
ELF=$BUILD/firmware/$BOARD/stream.elf
need "$CT"
need_qemu
if [ ! -f "$ELF" ]; then
    fail "$E2E_NAME-firmware" "$ELF is missing: run make (needs arm-none-eabi-gcc)"
    finish
fi

# The whole run, streamed into a file (semihosting ends QEMU after the last round).
timeout 60 qemu-system-arm -M "$BOARD" -display none -monitor none -nographic \
    -semihosting-config enable=on,target=native -serial "file:$T/clean.cyg" -kernel "$ELF" \
    </dev/null >"$T/qemu.out" 2>&1
check clean-stream "QEMU status $?, $(wc -c <"$T/clean.cyg" 2>/dev/null) bytes of stream" \
    [ -s "$T/clean.cyg" ]
run clean "$CT" live --plain --file="$T/clean.cyg" "$ELF"
rounds=$(tree_body "$T/clean.out" | grep -c '^  stream_round() {$')
check clean-rounds "$rounds rounds under main in the clean stream, expected 100" [ "$rounds" -eq 100 ]

# Lines of a tree (tree_body) at depth 0 but main's entry, a loss line or a note: each one a
# call shown beside main, which never returns.
beside_main() {
    tree_body "$1" | awk '/^#/ || /^\*\*\*/ || /^ / || /^main\(\) \{$/ { next } { print NR ": " $0 }'
}

printf '%s\n' '# call stack at the end of the trace (innermost first):' '#   0   main' \
    >"$T/stack.expected"
for off in 3000 8000 15000 20000 25000; do
    tag=gap-$off
    head -c "$off" "$T/clean.cyg" >"$T/$tag.cyg"
    tail -c +$((off + 201)) "$T/clean.cyg" >>"$T/$tag.cyg"
    for cmd in live tree; do
        if [ $cmd = live ]; then
            run "$tag-$cmd" "$CT" live --plain --file="$T/$tag.cyg" "$ELF"
        else
            run "$tag-$cmd" "$CT" tree "$ELF" "$T/$tag.cyg"
        fi
        out=$T/$tag-$cmd.out
        check "$tag-$cmd-status" "status $RC: $(head -n 1 "$T/$tag-$cmd.err")" [ "$RC" -eq 0 ]
        check "$tag-$cmd-lost" "no loss said: the test proves nothing" \
            grep -Eq '^(\*\*\*|#) [0-9]+ events (were )?lost on the link' "$out"
        beside_main "$out" >"$T/$tag-$cmd.beside"
        check "$tag-$cmd-main-open" "calls beside main: $(head -n 2 "$T/$tag-$cmd.beside" | tr '\n' '|')" \
            [ ! -s "$T/$tag-$cmd.beside" ]
        check "$tag-$cmd-no-before-trace" "$(grep -m 1 'entered before the trace' "$out")" \
            eval '! grep -q "entered before the trace" "$out"'
        check "$tag-$cmd-stack" "the call stack at the end is not main" \
            same "$T/stack.expected" <(grep -A1 '^# call stack at the end' "$out")
        n=$(tree_body "$out" | grep -c '^  stream_round() {$')
        check "$tag-$cmd-rounds" "$n whole rounds under main, expected 97 or more of 100" \
            [ "$n" -ge 97 ]
    done
done

finish
