#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/threads.sh O - the thread-scaling curve (issue 12): fib(FIB_MT_N) in each of 1, 2, 4
# and 8 threads at once (bench/fib_mt.c), every hook variant at every thread count, the cost per
# event per thread above the baseline at the same thread count. Prints markdown tables for
# docs/PERFORMANCE.md and the command that reproduces them. bench/run.sh runs it in
# `make bench`; alone, from the top of the tree:
#
#   make -f bench/bench.mk O=build runtimes bins && bash bench/threads.sh build
#
# A round runs every (thread count, variant) pair once, in turn; RUNS rounds interleave them so
# that drift on a noisy VM hits all alike. Reported: medians, and the fastest and slowest run.
#
# Every traced run is checked, not just a first one: contention differs from run to run, and
# it is where a lost or late record would show. Each run starts in a fresh directory of its own
# (CYGTRACE_OUT or uftrace's -d inside it), deleted right after. cygtrace runs in its defaults,
# as a user meets it: a 16M ring that overwrites. A ring holding every event of 8 threads would
# take 1.8 GB and the runs would time its page faults, so the check is run.sh's check_ring
# instead: the write counter (control block byte 88) must be every thread's events plus the
# runtime's own records (and the unused ends of chunks: check_ring), with nothing lost (byte 96), and the timestamps flag (byte 13, bit 2)
# must say which runtime ran. uftrace's .dat files must hold every event. A pair whose run fails
# is shown as FAILED and timed no more, and the script exits 1.
#
# Environment: RUNS (default 5), FIB_MT_N (32), THREAD_COUNTS ("1 2 4 8"; the ratios to one
# thread need 1 in it), BEFORE (another build directory whose static runtime runs alongside). Progress goes to stderr, the tables to stdout.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
O=$(cd "${1:-build}" && pwd)
B=$O/bench
RUNS=${RUNS:-5}
FIB_MT_N=${FIB_MT_N:-32}
THREAD_COUNTS=${THREAD_COUNTS:-1 2 4 8}
CORES=$(nproc)

die() { echo "threads: $*" >&2; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS=$RUNS: not a count of rounds (like 5)"
[[ $FIB_MT_N =~ ^[1-3]?[0-9]$ ]] || die "FIB_MT_N=$FIB_MT_N: not a number from 0 to 39"
for t in $THREAD_COUNTS; do
    if ! [[ $t =~ ^[1-9][0-9]*$ ]] || [ "$t" -gt 64 ]; then
        die "THREAD_COUNTS=$THREAD_COUNTS: $t is not a thread count from 1 to 64"
    fi
done
for f in fib_mt_empty fib_mt_plain fib_mt_cygtrace fib_mt_nots; do
    [ -x "$B/$f" ] || die "$B/$f: not built; make -f bench/bench.mk O=${1:-build} runtimes bins"
done

unset CYGTRACE_OUT CYGTRACE_SIZE CYGTRACE_MODE CYGTRACE_CALLSITES CYGTRACE_OFF CYGTRACE_RING
RUN=$(mktemp -d "$B/threads.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now() { date +%s%N; }
has() { command -v "$1" >/dev/null 2>&1; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.*[ ]$1=\([0-9]*\).*/\1/p"; } # field NAME < "... NAME=123 ..."
u64_at() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
u8_at() { od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' '; }
grouped() { sed ':a; s/\B[0-9]\{3\}\>/ &/; ta' <<<"$1"; } # 14098310 -> 14 098 310

# ---------------------------------------------------------------------------------------------
# The variants: one object file, fib_mt.o, linked with each set of hooks (bench/bench.mk).
# cygtrace is measured against empty hooks linked in; uftrace against glibc's empty hooks
# through the PLT, which it pays as well (as in run.sh).

VARIANTS="empty plain static v4 nots uftrace"
declare -A BIN=([empty]=fib_mt_empty [plain]=fib_mt_plain [static]=fib_mt_cygtrace
                [v4]=fib_mt_cygtrace
                [nots]=fib_mt_nots [uftrace]=fib_mt_plain)
declare -A BASE=([empty]=- [plain]=- [static]=empty [v4]=empty [nots]=empty [uftrace]=plain)
declare -A WHAT=([empty]="a. empty hooks, linked in" [plain]="empty hooks via PLT (glibc's)"
                 [static]="**b. cygtrace static, default**"
                 [v4]="h. cygtrace static, version 4 (CYGTRACE_FORMAT=4)"
                 [nots]="f. cygtrace static, no timestamps" [uftrace]="d. uftrace record")
# BEFORE=DIR: the static runtime of another build (another commit's fib_mt_cygtrace, built by
# bench.mk into DIR) in the same rounds, to compare a change side by side.
if [ -n "${BEFORE:-}" ]; then
    [ -x "$BEFORE/bench/fib_mt_cygtrace" ] || die "BEFORE=$BEFORE: no bench/fib_mt_cygtrace there"
    VARIANTS="empty plain before static v4 nots uftrace"
    BIN[before]=$(cd "$BEFORE" && pwd)/bench/fib_mt_cygtrace
    BASE[before]=empty
    WHAT[before]="b0. cygtrace static, BEFORE ($BEFORE)"
fi
declare -A BAD # "variant.threads" -> why it has no numbers

# check_ring RING WANT TIMESTAMPS(0|1): prints what is wrong with the ring, or nothing.
# A chunked ring's counter counts slots (docs/FORMAT.md 5.1): the events, then the unused end of
# each thread's last chunk of 64 (and the rare chunk a thread left when the others lapped it
# while it was preempted): the check allows 64 a thread and a thousandth.
check_ring() {
    local ring=$1 want=$2 ts=$3 threads=${4:-1} head lost flags
    if [ ! -s "$ring" ]; then
        echo "wrote no ring"
    elif [ "$(head -c 8 "$ring")" != CYGTRACE ]; then
        echo "the ring has no CYGTRACE magic"
    else
        head=$(u64_at "$ring" 88)
        # version 4 (FORMAT.md 15): a CHUNK word in each chunk of 64 slots
        [ "$(u8_at "$ring" 8)" = 4 ] && want=$((want + (want + 62) / 63))
        lost=$(u64_at "$ring" 96)
        flags=$(u8_at "$ring" 13)
        if [ "$head" -lt "$want" ] ||
            [ "$head" -gt $((want + 64 * (threads + 1) + want / 1000)) ] || [ "$lost" != 0 ]; then
            echo "write counter $head, lost $lost; expected $want (and a chunk a thread), 0"
        elif [ $(((flags >> 2) & 1)) != "$ts" ]; then
            echo "timestamps flag is $(((flags >> 2) & 1)), expected $ts"
        fi
    fi
}

# check_uftrace DIR WANT: uftrace keeps 16-byte records in one .dat file per thread; the
# workload's events plus a few library calls and scheduler events must all be there.
check_uftrace() {
    local recs
    recs=$(find "$1" -name '[0-9]*.dat' -printf '%s\n' |
               awk '{ s += $1 } END { print int(s / 16) }')
    if [ "$recs" -lt "$2" ] || [ "$recs" -gt $(($2 + 10000)) ]; then
        echo "uftrace data holds $recs records, expected $2 and a few more"
    fi
}

# check VARIANT THREADS DIR OUTPUT: prints what is wrong with the run, or nothing. Main's enter
# and exit are in the ring as well as fib's events; the runtime adds a START record and one
# THREAD record per thread that recorded (main's, and each worker's).
check() {
    local v=$1 t=$2 dir=$3 got_t got_e
    got_t=$(field threads <<<"$4")
    got_e=$(field events <<<"$4")
    if [ "$got_t" != "$t" ] || [ "$got_e" != "$EVENTS" ]; then
        echo "it printed threads=${got_t:-?} events=${got_e:-?}; expected $t and $EVENTS"
        return
    fi
    case $v in
    static | before | v4) check_ring "$dir/ring" $((t * EVENTS + 2 + 1 + t + 1)) 1 "$t" ;;
    nots) check_ring "$dir/ring" $((t * EVENTS + 2 + 1 + t + 1)) 0 "$t" ;;
    uftrace) check_uftrace "$dir/uftrace.data" $((t * EVENTS)) ;;
    esac
}

# run_one VARIANT THREADS: runs it once in a fresh directory and checks it; appends
# "inner_ns wall_ns" to $RUN/t.VARIANT.THREADS, or marks the pair as FAILED.
run_one() {
    local v=$1 t=$2 dir out t0 t1 why
    local bin=${BIN[$1]}
    [[ $bin == /* ]] || bin=$B/$bin
    local -a cmd=("$bin" "$FIB_MT_N" "$2")
    dir=$(mktemp -d "$RUN/$v.$t.XXXXXX")
    case $v in
    static | nots | before) cmd=(env "CYGTRACE_OUT=$dir/ring" "${cmd[@]}") ;;
    v4) cmd=(env "CYGTRACE_OUT=$dir/ring" CYGTRACE_FORMAT=4 "${cmd[@]}") ;;
    uftrace) cmd=(uftrace record -d "$dir/uftrace.data" "${cmd[@]}") ;;
    esac
    t0=$(now)
    if out=$(cd "$dir" && "${cmd[@]}" 2>"$dir/stderr"); then
        t1=$(now)
        why=$(check "$v" "$t" "$dir" "$out")
    else
        why="exit status $?: $(tail -n 2 "$dir/stderr" | tr '\n' ' ')"
    fi
    rm -rf "$dir"
    if [ -n "$why" ]; then
        BAD[$v.$t]="FAILED: $why"
        echo "threads: ${cmd[*]}: FAILED: $why" >&2
    else
        echo "$(field ns <<<"$out") $((t1 - t0))" >>"$RUN/t.$v.$t"
    fi
}

# ---------------------------------------------------------------------------------------------
EVENTS=$("$B/fib_mt_empty" "$FIB_MT_N" 1 | field events) # per thread
[ -n "$EVENTS" ] || die "$B/fib_mt_empty $FIB_MT_N 1: printed no events="
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
if ! has uftrace; then
    for t in $THREAD_COUNTS; do BAD[uftrace.$t]="skipped: uftrace not installed"; done
fi

start=$(now)
for ((r = 1; r <= RUNS; r++)); do
    for t in $THREAD_COUNTS; do
        for v in $VARIANTS; do
            [ -n "${BAD[$v.$t]:-}" ] || run_one "$v" "$t"
        done
    done
    printf '  threads: round %d of %d done (%d s)\n' "$r" "$RUNS" \
        $((($(now) - start) / 1000000000)) >&2
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

declare -A INNER WALL
for t in $THREAD_COUNTS; do
    for v in $VARIANTS; do
        if [ -f "$RUN/t.$v.$t" ] && [ -z "${BAD[$v.$t]:-}" ]; then
            INNER[$v.$t]=$(cut -d' ' -f1 "$RUN/t.$v.$t" | median)
            WALL[$v.$t]=$(cut -d' ' -f2 "$RUN/t.$v.$t" | median)
        fi
    done
done

# cost VARIANT THREADS: ns per event per thread above the baseline at the same thread count,
# from the medians of the threads' wall time; nothing when either is missing.
cost() {
    local b=${BASE[$1]}
    [ -n "${INNER[$1.$2]:-}" ] && [ -n "${INNER[$b.$2]:-}" ] || return 0
    awk -v t="${INNER[$1.$2]}" -v b="${INNER[$b.$2]}" -v n="$EVENTS" 'BEGIN { print (t - b) / n }'
}

# ratio A B: A / B to one decimal and an x, or n/a when either is missing or B is not above 0.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b <= 0) print "n/a";
                                     else printf "%.1fx\n", a / b }'
}

# spread VARIANT THREADS: median (min-max) of the threads' wall time, in ms; whole ms for the
# extremes, tenths below 100 ms.
spread() {
    cut -d' ' -f1 "$RUN/t.$1.$2" | sort -n | awk -v m="${INNER[$1.$2]}" '
        NR == 1 { lo = $1 } { hi = $1 }
        END { f = hi < 1e8 ? "%.1f" : "%.0f"
              printf "%.1f (" f "-" f ")", m / 1e6, lo / 1e6, hi / 1e6 }'
}

# spoken LIST: "1 2 4 8" -> "1, 2, 4 and 8"
spoken() {
    awk '{ for (i = 1; i <= NF; i++)
               printf "%s%s", $i, i == NF ? "" : i == NF - 1 ? " and " : ", " }' <<<"$1"
}
over=""
for t in $THREAD_COUNTS; do [ "$t" -le "$CORES" ] || over+=" $t"; done
title="### Thread scaling: fib($FIB_MT_N) in each of $(spoken "$THREAD_COUNTS") threads,"
title+=" $(grouped "$EVENTS") events per thread; medians of $RUNS"
[ -z "$over" ] || title+=" ($CORES cores: $(spoken "$over") threads are oversubscribed)"

echo "$title"
echo
echo "| threads | variant | baseline | wall ms median (min-max) | ns/event/thread above baseline" \
    "| core ns/event | whole run ms |"
echo "|---:|---|---|---:|---:|---:|---:|"
for t in $THREAD_COUNTS; do
    for v in $VARIANTS; do
        b=${BASE[$v]}
        if [ -n "${BAD[$v.$t]:-}" ]; then
            echo "| $t | ${WHAT[$v]} | ${b#-} | ${BAD[$v.$t]} | | | |"
            continue
        fi
        c=$(cost "$v" "$t")
        cells=$(awk -v c="$c" -v t="$t" -v k="$CORES" -v w="${WALL[$v.$t]}" 'BEGIN {
            if (c == "") printf "| | |"
            else printf "| %.2f | %.2f |", c, c * (t < k ? t : k) / t
            printf " %.1f |", w / 1e6 }')
        if [ "$v" = static ]; then # the headline figure in bold, as in PERFORMANCE.md
            cells="| **${cells#| }"
            cells=${cells/ |/** |}
        fi
        echo "| $t | ${WHAT[$v]} | ${b#-} | $(spread "$v" "$t") $cells"
    done
done

# The summary: each variant's cost per event per thread and its ratio to one thread's; uftrace
# against the static runtime; and how the empty-hook baseline itself scaled (1.0x: the threads
# had a core each; 2.0x at 2 threads: they shared one, and so does every figure of that row).
SUMMARY="static nots uftrace"
head="| threads | a. empty hooks: wall / 1 thread's | b. static ns/event/thread | / 1 thread |"
head+=" f. no timestamps | / 1 thread | d. uftrace | / 1 thread | uftrace / static |"
if [ -n "${BEFORE:-}" ]; then
    SUMMARY="before static nots uftrace"
    head="| threads | a. empty hooks: wall / 1 thread's | b0. BEFORE ns/event/thread | / 1 thread |"
    head+=" b. static | / 1 thread | f. no timestamps | / 1 thread | d. uftrace | / 1 thread |"
    head+=" uftrace / static |"
fi
echo
echo "$head"
echo "|---:|---:$(for v in $SUMMARY; do printf '|---:|---:'; done)|---:|"
for t in $THREAD_COUNTS; do
    row="| $t | $(ratio "${INNER[empty.$t]:-}" "${INNER[empty.1]:-}")"
    for v in $SUMMARY; do
        c=$(cost "$v" "$t")
        row+=" | $(awk -v c="$c" 'BEGIN { print c == "" ? "-" : sprintf("%.2f", c) }')"
        row+=" | $(ratio "$c" "$(cost "$v" 1)")"
    done
    echo "$row | **$(ratio "$(cost uftrace "$t")" "$(cost static "$t")")** |"
done

model=$(lscpu | sed -n 's/^Model name: *//p')
hv=$(lscpu | sed -n 's/^Hypervisor vendor: *//p')
rev=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo "unknown")
rel=${O#"$TOP"/}
echo
echo "Wall time: the threads' own, from before the first \`pthread_create\` to after the last"
echo "join (fib_mt prints it); whole run: the process's, start to exit. ns/event/thread ="
echo "(t - t_baseline) / events per thread, the baseline at the same thread count: empty hooks"
echo "linked in for cygtrace, glibc's empty hooks through the PLT for uftrace (which pays that"
echo "call too). core ns/event = that x min(threads, cores) / threads, the core time per event:"
echo "with more threads than cores the threads take turns, so the per-thread figure grows by"
echo "threads / cores even when an event costs the same. Every traced run was checked (write"
echo "counter = events of all threads + threads + 4 (and a chunk a thread), nothing lost; uftrace: every event in its"
echo "data). $model, $CORES cores${hv:+, under $hv}, $(uname -r); tree $rev; load average"
echo "$LOAD0 before, $LOAD1 after. Reproduce, from the top of the tree:"
echo
echo '```'
echo "make -f bench/bench.mk O=$rel runtimes bins"
echo "RUNS=$RUNS FIB_MT_N=$FIB_MT_N THREAD_COUNTS=\"$THREAD_COUNTS\"${BEFORE:+ BEFORE=$BEFORE}" \
    "bash bench/threads.sh $rel"
echo '```'

for k in "${!BAD[@]}"; do
    [ "${BAD[$k]#FAILED}" = "${BAD[$k]}" ] || exit 1
done
