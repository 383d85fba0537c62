#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/decode_real.sh - decode speed on real-shaped traces (issue 13): four Debian programs
# built from their own sources with -finstrument-functions, each trace decoded by cygtrace and,
# recorded once more by uftrace, by uftrace. fib (bench/run.sh) calls one function; these call
# hundreds, from stacks up to hundreds deep, and three of them from several threads.
#
#   bash bench/decode_real.sh prepare DIR
#       Fetches the Debian sources of zstd, xz-utils, zlib and lua5.4 into DIR (apt-get source:
#       it needs deb-src lines, e.g. the deb lines of /etc/apt/sources.list.d/debian.sources
#       copied as deb-src into a file of their own, then apt-get update), builds the programs
#       with -O2 -g -finstrument-functions and makes their inputs:
#         zstd   programs/zstd, multithreaded: zstd -T2 -B512K -3 on 1.6 MB of a tar of
#                /usr/include (3 jobs on 2 worker threads)
#         xz     src/xz/xz with liblzma linked in: xz -T2 --block-size=256KiB -1 on 1 MB of it
#         zlib   libz.a and bench/real_zlib.c: 1000 headers of /usr/include deflated at levels
#                1, 6 and 9 and inflated back through small buffers
#         lua    the interpreter running bench/real.lua 4 (C calls nested through metamethods
#                and callbacks: stacks hundreds deep)
#   bash bench/decode_real.sh run DIR [LABEL=]CYGTRACE...
#       Records each program with the first CYGTRACE's runtime (`cygtrace record`, a 1 GB ring
#       that holds every event: checked, nothing lost, nothing overwritten) and with `uftrace
#       record --no-libcall` (only the -finstrument-functions hooks, so that both hold the same
#       events: checked), then times `tree`, `report` and `export --format=chrome` of every
#       CYGTRACE given against `uftrace replay`, `report` and `dump --chrome`, output to
#       /dev/null. A round runs every command once, in turn; RUNS rounds interleave them so that
#       drift on a noisy machine hits all alike. Prints markdown tables of medians and peak RSS
#       (GNU time). Two binaries side by side, from the top of the tree:
#
#         bash bench/decode_real.sh run /tmp/real before=/tmp/old/cygtrace after=build/cygtrace
#
# Environment: RUNS (rounds, default 3); PROGRAMS (default "zstd xz zlib lua"); TRACES (a
# directory to keep the recordings in and reuse on the next run; default a temporary one).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${RUNS:-3}
PROGRAMS=${PROGRAMS:-zstd xz zlib lua}
CFLAGS_REAL='-O2 -g -finstrument-functions'

die() { echo "decode_real: $*" >&2; exit 2; }
say() { echo "decode_real: $*" >&2; }
has() { command -v "$1" >/dev/null 2>&1; }
now() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

# ---------------------------------------------------------------------------------------------
# prepare

# The source directory apt-get source unpacked for package $1 in $DIR.
srcdir() {
    local d
    d=$(find "$DIR" -maxdepth 1 -type d -name "$1-[0-9]*" | sort | tail -n 1)
    [ -n "$d" ] || die "$DIR: no $1 sources (apt-get source failed?)"
    echo "$d"
}

prepare() {
    local z x l zl
    mkdir -p "$DIR"
    DIR=$(cd "$DIR" && pwd)
    has apt-get && has dpkg-source || die "apt-get source needs apt and dpkg-dev"
    (cd "$DIR" && apt-get source zstd xz-utils zlib lua5.4 >"$DIR/apt.log" 2>&1) ||
        die "apt-get source failed (no deb-src lines? see $DIR/apt.log)"
    z=$(srcdir libzstd)
    say "building zstd"
    make -C "$z/programs" -j"$(nproc)" zstd CFLAGS="$CFLAGS_REAL" HAVE_PTHREAD=1 HAVE_ZLIB=0 \
        HAVE_LZMA=0 HAVE_LZ4=0 >"$DIR/zstd.log" 2>&1 || die "zstd: build failed ($DIR/zstd.log)"
    cp "$z/programs/zstd" "$DIR/zstd"
    x=$(srcdir xz-utils)
    say "building xz"
    (cd "$x" && ./configure CFLAGS="$CFLAGS_REAL" --disable-shared --disable-nls --disable-doc &&
        make -j"$(nproc)") >"$DIR/xz.log" 2>&1 || die "xz: build failed ($DIR/xz.log)"
    cp "$x/src/xz/xz" "$DIR/xz"
    zl=$(srcdir zlib)
    say "building zlib"
    (cd "$zl" && CFLAGS="$CFLAGS_REAL" ./configure --static && make -j"$(nproc)" libz.a) \
        >"$DIR/zlib.log" 2>&1 || die "zlib: build failed ($DIR/zlib.log)"
    # shellcheck disable=SC2086 # the flags are split on purpose
    gcc $CFLAGS_REAL -I"$zl" "$TOP/bench/real_zlib.c" "$zl/libz.a" -o "$DIR/zlib_rt"
    l=$(srcdir lua5.4)
    say "building lua"
    # Debian's patched Makefile builds with libtool; the interpreter is every source but luac's.
    echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$l/src/lua5.4-deb-multiarch.h"
    # shellcheck disable=SC2046,SC2086
    gcc -std=gnu99 $CFLAGS_REAL -DLUA_COMPAT_5_3 -DLUA_USE_LINUX \
        $(find "$l/src" -name '*.c' ! -name luac.c | sort) -o "$DIR/lua" -lm -ldl -Wl,-E
    say "making the inputs"
    tar cf "$DIR/include.tar" --sort=name -C /usr/include .
    head -c 1600000 "$DIR/include.tar" >"$DIR/in.zstd"
    head -c 1000000 "$DIR/include.tar" >"$DIR/in.xz"
    find /usr/include -name '*.h' | sort | awk 'NR <= 1000' >"$DIR/list.zlib"
    cp "$TOP/bench/real.lua" "$DIR/real.lua"
    say "ready: bash bench/decode_real.sh run $DIR build/cygtrace"
}

# ---------------------------------------------------------------------------------------------
# run

elf_of() { case $1 in zlib) echo "$DIR/zlib_rt" ;; *) echo "$DIR/$1" ;; esac; }

# run_prog PROGRAM PREFIX...: runs the program's workload under PREFIX, output to /dev/null.
run_prog() {
    local p=$1
    shift
    case $p in
    zstd) "$@" "$DIR/zstd" -q -T2 -B512K -3 -f -c "$DIR/in.zstd" >/dev/null ;;
    xz) "$@" "$DIR/xz" -T2 --block-size=256KiB -1 -c "$DIR/in.xz" >/dev/null ;;
    zlib) "$@" "$DIR/zlib_rt" <"$DIR/list.zlib" >/dev/null ;;
    lua) "$@" "$DIR/lua" "$DIR/real.lua" 4 >/dev/null ;;
    *) die "$p: not a program (zstd, xz, zlib, lua)" ;;
    esac
}

# record PROGRAM: its two traces in $T, recorded unless there already; sets EVENTS[PROGRAM],
# THREADS[PROGRAM] and UF_EVENTS[PROGRAM], or FAILED[PROGRAM].
record() {
    local p=$1 ring=$T/$1.ring uf=$T/$1.uftrace info head cap lost bytes
    if [ ! -f "$ring" ]; then
        say "$p: cygtrace record"
        run_prog "$p" "${CT[0]}" record -o "$ring" --size=1G -- 2>/dev/null
    fi
    if [ ! -d "$uf" ] && [ -n "$UFTRACE" ]; then
        say "$p: uftrace record"
        run_prog "$p" uftrace record --no-libcall -d "$uf" 2>/dev/null
    fi
    # The control block: records written (byte 88), the capacity (2^byte 12), lost (byte 96).
    head=$(od -An -t u8 -j 88 -N 8 "$ring" | tr -d ' ')
    cap=$((1 << $(od -An -t u1 -j 12 -N 1 "$ring" | tr -d ' ')))
    lost=$(od -An -t u8 -j 96 -N 8 "$ring" | tr -d ' ')
    if [ "$head" -ge "$cap" ] || [ "$lost" != 0 ]; then
        FAILED[$p]="the ring wrapped or lost events ($head written, $cap slots, $lost lost)"
        return
    fi
    info=$("${CT[0]}" info "$(elf_of "$p")" "$ring" 2>&1) || {
        FAILED[$p]="cygtrace info failed: $(tail -n 1 <<<"$info")"
        return
    }
    EVENTS[$p]=$(awk '$1 == "thread" && $4 == "events," { n += $3 } END { print n + 0 }' <<<"$info")
    THREADS[$p]=$(awk '$1 == "thread" && $4 == "events," { n++ } END { print n + 0 }' <<<"$info")
    if [ -n "$UFTRACE" ]; then
        bytes=$(find "$uf" -name '[0-9]*.dat' -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
        UF_EVENTS[$p]=$((bytes / 16))
        # The two runtimes start and stop at slightly different moments of the process (a few
        # dozen calls at either end); more than 0.1% apart means one of them lost events.
        if [ $(((UF_EVENTS[$p] - EVENTS[$p]) * 1000 / EVENTS[$p])) -ne 0 ]; then
            FAILED[$p]="uftrace holds ${UF_EVENTS[$p]} records, cygtrace ${EVENTS[$p]} events"
        fi
    fi
}

# cmdline DECODER PROGRAM: the command line of a decoder (k.tree, k.report, k.chrome for the
# k-th cygtrace; uf.replay, uf.report, uf.chrome).
cmdline() {
    local ring=$T/$2.ring elf
    elf=$(elf_of "$2")
    case $1 in
    uf.replay) echo "uftrace replay -d $T/$2.uftrace" ;;
    uf.report) echo "uftrace report -d $T/$2.uftrace" ;;
    uf.chrome) echo "uftrace dump --chrome -d $T/$2.uftrace" ;;
    *.tree) echo "${CT[${1%%.*}]} tree $elf $ring" ;;
    *.report) echo "${CT[${1%%.*}]} report $elf $ring" ;;
    *.chrome) echo "${CT[${1%%.*}]} export --format=chrome $elf $ring" ;;
    esac
}

# decode DECODER PROGRAM: once, output to /dev/null; appends "wall_ns rss_kb" to its file.
decode() {
    local t0 t1
    t0=$(now)
    # shellcheck disable=SC2046 # the command line is split on purpose
    if ! /usr/bin/time -f '%M' -o "$T/rss" $(cmdline "$1" "$2") >/dev/null 2>"$T/stderr"; then
        say "$2: FAILED: $(cmdline "$1" "$2"): $(tail -n 3 "$T/stderr" | tr '\n' ' ')"
        failed=1
        return
    fi
    t1=$(now)
    echo "$((t1 - t0)) $(tail -n 1 "$T/rss")" >>"$T/d.$2.$1"
}

label() {
    case $1 in
    uf.replay) echo "uftrace replay" ;;
    uf.report) echo "uftrace report" ;;
    uf.chrome) echo "uftrace dump --chrome" ;;
    *.tree) echo "${LABEL[${1%%.*}]} tree" ;;
    *.report) echo "${LABEL[${1%%.*}]} report" ;;
    *.chrome) echo "${LABEL[${1%%.*}]} export --format=chrome" ;;
    esac
}

wall() { [ -f "$T/d.$2.$1" ] && cut -d' ' -f1 "$T/d.$2.$1" | median; }

table() {
    local p=$1 d w rss vs_replay vs_peer peer
    echo
    echo "$p: ${EVENTS[$p]} events, ${THREADS[$p]} threads (uftrace: ${UF_EVENTS[$p]:-?} records);" \
        "medians of $RUNS"
    echo
    echo "| command | wall s | M events/s | uftrace replay / this | uftrace's same job / this | peak RSS MB |"
    echo "|---|---:|---:|---:|---:|---:|"
    for d in $DECODERS; do
        w=$(wall "$d" "$p")
        [ -n "$w" ] || continue
        rss=$(cut -d' ' -f2 "$T/d.$p.$d" | median)
        vs_replay= vs_peer=
        if [ "${d%%.*}" != uf ]; then
            [ -z "$(wall uf.replay "$p")" ] ||
                vs_replay=$(awk -v a="$(wall uf.replay "$p")" -v b="$w" 'BEGIN { printf "%.1fx", a / b }')
            peer=uf.${d#*.}
            if [ "$peer" != uf.tree ] && [ -n "$(wall "$peer" "$p")" ]; then
                vs_peer=$(awk -v a="$(wall "$peer" "$p")" -v b="$w" 'BEGIN { printf "%.1fx", a / b }')
            fi
        fi
        awk -v c="$(label "$d")" -v w="$w" -v n="${EVENTS[$p]}" -v r="$vs_replay" -v q="$vs_peer" \
            -v m="$rss" 'BEGIN { printf "| %s | %.2f | %.1f | %s | %s | %.1f |\n", c, w / 1e9,
                n / w * 1e3, r, q, m / 1024 }'
    done
}

run() {
    local i=0 a r p d
    [ $# -gt 0 ] || die "run: which cygtrace? (bash bench/decode_real.sh run DIR build/cygtrace)"
    [ -d "$DIR" ] || die "$DIR: not there; bash bench/decode_real.sh prepare $DIR first"
    DIR=$(cd "$DIR" && pwd)
    [[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS=$RUNS: not a count of rounds (like 3)"
    [ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
    for a in "$@"; do
        if [[ $a == *=* ]]; then LABEL[$i]=${a%%=*} CT[$i]=${a#*=}; else LABEL[$i]=cygtrace CT[$i]=$a; fi
        [ -x "${CT[$i]}" ] || die "${CT[$i]}: not an executable"
        CT[$i]=$(cd "$(dirname "${CT[$i]}")" && pwd)/$(basename "${CT[$i]}")
        i=$((i + 1))
    done
    UFTRACE=
    has uftrace && UFTRACE=uftrace || say "uftrace not installed: cygtrace alone"
    if [ -n "${TRACES:-}" ]; then
        mkdir -p "$TRACES"
        T=$(cd "$TRACES" && pwd)
    else
        T=$(mktemp -d)
        trap 'rm -rf "$T"' EXIT
    fi
    unset CYGTRACE_OUT CYGTRACE_SIZE CYGTRACE_MODE CYGTRACE_CALLSITES CYGTRACE_OFF
    DECODERS=
    for ((k = 0; k < i; k++)); do DECODERS+=" $k.tree $k.report $k.chrome"; done
    [ -z "$UFTRACE" ] || DECODERS+=" uf.replay uf.report uf.chrome"
    rm -f "$T"/d.*
    failed=0
    for p in $PROGRAMS; do record "$p"; done
    for ((r = 1; r <= RUNS; r++)); do
        say "round $r of $RUNS"
        for p in $PROGRAMS; do
            [ -z "${FAILED[$p]:-}" ] || continue
            for d in $DECODERS; do decode "$d" "$p"; done
        done
    done
    echo "Machine: $(nproc) CPUs, $(uname -r); uftrace: $(uftrace --version 2>/dev/null | awk 'NR == 1')"
    for ((k = 0; k < i; k++)); do echo "${LABEL[$k]}: ${CT[$k]}"; done
    for p in $PROGRAMS; do
        if [ -n "${FAILED[$p]:-}" ]; then
            echo
            echo "$p: FAILED: ${FAILED[$p]}"
            failed=1
            continue
        fi
        table "$p"
    done
    return $failed
}

declare -a CT LABEL
declare -A EVENTS THREADS UF_EVENTS FAILED
[ $# -ge 2 ] || usage
CMD=$1 DIR=$2
shift 2
case $CMD in
prepare) prepare ;;
run) run "$@" ;;
*) usage ;;
esac
