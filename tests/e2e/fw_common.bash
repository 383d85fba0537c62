# SPDX-License-Identifier: GPL-3.0-or-later
# fw_common.bash - what the firmware stress scripts share (fw_stress.sh, fw_overwrite.sh,
# fw_fault_in_hook.sh); sourced after lib.sh, never run (run.sh runs *.sh only).

# info_field FILE NAME: the first number after "NAME:" in cygtrace info's output, or empty.
info_field() {
    awk -v f="$2:" '$1 == f { print $2; exit }
                    index($0, f) == 1 && $1 != f { sub(/^[^:]*: */, ""); print $1; exit }' "$1"
}

# fw_copy BOARD PROGRAM: copies the ELF to $T/BOARD/ and sets ELF to the copy: QEMU and pull
# must see the same ELF even if a make rebuilds it meanwhile. Fails (and returns 1) when the
# build has none.
fw_copy() {
    mkdir -p "$T/$1"
    ELF=$T/$1/$2.elf
    if ! cp "$BUILD/firmware/$1/$2.elf" "$ELF" 2>/dev/null; then
        fail "$1-$2-firmware" "$BUILD/firmware/$1/$2.elf is missing: run make (needs arm-none-eabi-gcc)"
        return 1
    fi
}

# fw_sym ELF NAME: the address of symbol NAME in ELF, in hex with 0x, or empty.
fw_sym() {
    arm-none-eabi-nm "$1" | awk -v n="$2" '$3 == n { print "0x" $1; exit }'
}

# fw_seed_arg ELF SYMBOL SEED: the QEMU option that writes SEED (32 bits) to SYMBOL before the
# firmware starts: the symbol lives in .noinit, which the startup code leaves alone.
fw_seed_arg() {
    local addr
    addr=$(fw_sym "$1" "$2")
    [ -n "$addr" ] && echo "loader,addr=$addr,data=$3,data-len=4"
}

# fw_next_seed SEED: the next trial's seed (an LCG step), never 0 (which means "none").
fw_next_seed() {
    local s=$(((${1} * 1103515245 + 12345) & 0xFFFFFFFF))
    echo $((s == 0 ? 1 : s))
}

# fw_seq TAG ELF DUMP MODE [AWK_ARGS...]: fw_seq.awk over the dump's bytes; its output in
# $T/TAG.seq (the "bad:" lines, then the summary line).
fw_seq() {
    local tag=$1 elf=$2 dump=$3 mode=$4
    shift 4
    arm-none-eabi-nm -t d "$elf" >"$T/$tag.nm"
    od -An -v -tu4 -w4 "$dump" | awk -f "$E2E_DIR/fw_seq.awk" -v mode="$mode" "$@" \
        "$T/$tag.nm" - >"$T/$tag.seq" 2>&1
}

# fw_seq_field TAG NAME: a number of fw_seq's summary line.
fw_seq_field() {
    tail -n 1 "$T/$1.seq" | tr ' ' '\n' | awk -F= -v n="$2" '$1 == n { print $2 }'
}

# fw_hook_insns ELF: how many instructions lie between __cygtrace_hooks_start and
# __cygtrace_hooks_end (the hooks and the clock they call), literal pools left out.
fw_hook_insns() {
    arm-none-eabi-objdump -d --start-address="$(fw_sym "$1" __cygtrace_hooks_start)" \
        --stop-address="$(fw_sym "$1" __cygtrace_hooks_end)" "$1" |
        awk '/^ *[0-9a-f]+:\t/ && !/\.word|\.short|\.byte/ { n++ } END { print n + 0 }'
}

# fw_flip DUMP OUT OFFSET MASK: OUT is DUMP with the byte at OFFSET XORed with MASK: a record
# made stale, torn or invented, for a checker to prove that it notices.
fw_flip() {
    local byte
    cp "$1" "$2"
    byte=$(od -An -tu1 -j "$3" -N 1 "$1" | tr -d ' ')
    printf "\\$(printf '%03o' $((byte ^ $4)))" | dd of="$2" bs=1 seek="$3" conv=notrunc 2>/dev/null
}

# fw_seq_selftest TAG ELF DUMP MODE [AWK_ARGS...]: fw_seq.awk must reject DUMP with one record
# of the middle of its window changed: an entry turned into an exit (an invented event), and
# the lap bit flipped (a slot that was never written, or a previous lap's record).
fw_seq_selftest() {
    local tag=$1 elf=$2 dump=$3 mode=$4 head cap slot
    shift 4
    head=$(od -An -tu4 -j 88 -N 4 "$dump" | tr -d ' ')
    cap=$((1 << $(od -An -tu1 -j 12 -N 1 "$dump" | tr -d ' ')))
    slot=$(((head - cap / 2) % cap))
    if fw_v4 "$dump"; then # one word a slot: its exit bit, its lap bit (bit 30)
        fw_flip "$dump" "$T/$tag-invented.dump" $((128 + 4 * slot)) 1
        fw_seq "$tag-invented" "$elf" "$T/$tag-invented.dump" "$mode" "$@"
        check "$tag-catches-invented" "fw_seq.awk took an entry turned into an exit at slot $slot" \
            grep -q '^bad:' "$T/$tag-invented.seq"
        fw_flip "$dump" "$T/$tag-stale.dump" $((128 + 4 * slot + 3)) 64
        fw_seq "$tag-stale" "$elf" "$T/$tag-stale.dump" "$mode" "$@"
        check "$tag-catches-stale" "fw_seq.awk took a record of the wrong lap at slot $slot" \
            grep -q '^bad:' "$T/$tag-stale.seq"
        return
    fi
    fw_flip "$dump" "$T/$tag-invented.dump" $((128 + 8 * slot)) 1
    fw_seq "$tag-invented" "$elf" "$T/$tag-invented.dump" "$mode" "$@"
    check "$tag-catches-invented" "fw_seq.awk took an entry turned into an exit at slot $slot" \
        grep -q '^bad:' "$T/$tag-invented.seq"
    fw_flip "$dump" "$T/$tag-stale.dump" $((128 + 8 * slot + 7)) 128
    fw_seq "$tag-stale" "$elf" "$T/$tag-stale.dump" "$mode" "$@"
    check "$tag-catches-stale" "fw_seq.awk took a record of the wrong lap at slot $slot" \
        grep -q '^bad:' "$T/$tag-stale.seq"
}

# fw_v4 DUMP: whether DUMP is a version 4 ring of one word a slot (-DCYGTRACE_REC4=1).
fw_v4() {
    [ "$(od -An -tu1 -j 11 -N 1 "$1" | tr -d ' ')" = 4 ]
}

# fw_setup DEFAULT_TRIALS: a trial script's boards, trials and first seed (FW_BOARDS, FW_TRIALS,
# FW_SEED: random unless given, and printed), and its prerequisites.
fw_setup() {
    BOARDS=${FW_BOARDS:-mps2-an385 mps2-an386 mps2-an505 microbit}
    TRIALS=${FW_TRIALS:-$1}
    SEED=${FW_SEED:-$(((RANDOM << 15 | RANDOM) + 1))}
    need "$CT"
    need_qemu
    command -v arm-none-eabi-nm >/dev/null ||
        { fail "$E2E_NAME-prerequisites" "no arm-none-eabi-nm"; finish; }
    echo "    seed $SEED, $TRIALS trials per board (rerun one: FW_SEED=<seed> FW_TRIALS=1)"
}
