#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/run.sh O - runs the benchmarks that bench/bench.mk built into O/bench and prints the
# results table (also kept in O/bench/results.txt).
#
# 1. Checks that every traced run recorded what it should: the ring's write counter must equal
#    the events the workload makes plus the runtime's own records; uftrace's data must hold
#    them all. A variant that fails is reported as FAILED and not timed.
# 2. Hook cost: every variant once per round, RUNS rounds interleaved (a, b, c, a, b, c, ...)
#    so that drift on this noisy machine hits all of them alike; medians. bench/prims (the
#    fast path's parts alone) runs in the same rounds.
# 3. Thread scaling (bench/threads.sh, which also runs alone): fib_mt with 1, 2, 4 and 8
#    threads, every traced run checked, in rounds of its own; markdown tables.
# 4. Instructions per event under callgrind (deterministic).
# 5. Decode throughput: `cygtrace tree`, `report` and `export` (chrome, folded, callgrind)
#    against `uftrace replay`, `report` and `dump --chrome` on the same workload: events/s and
#    peak RSS (GNU time); then peak RSS on a trace 11x shorter and one 7x longer.
#
# Environment: RUNS (default 5), DECODE_RUNS (default 3), FIB_N (34), FIB_MT_N (32),
# THREAD_COUNTS (threads.sh's, "1 2 4 8"), CG_N (fib for callgrind, 25), DECODE_SMALL_N
# (FIB_N - 5), DECODE_BIG_N (FIB_N + 4; 0 skips the big trace).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
O=$(cd "${1:-build}" && pwd)
B=$O/bench
RUNS=${RUNS:-5}
DECODE_RUNS=${DECODE_RUNS:-3}
FIB_N=${FIB_N:-34}
FIB_MT_N=${FIB_MT_N:-32}
CG_N=${CG_N:-25}
RESULTS=$B/results.txt

unset CYGTRACE_OUT CYGTRACE_SIZE CYGTRACE_MODE CYGTRACE_CALLSITES CYGTRACE_OFF
RUN=$(mktemp -d "$B/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
cd "$RUN"

say() { printf '%s\n' "$*" | tee -a "$RESULTS"; }
now() { date +%s%N; }
has() { command -v "$1" >/dev/null 2>&1; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.*[ ]$1=\([0-9]*\).*/\1/p"; } # field NAME < "... NAME=123 ..."
u64_at() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
u8_at() { od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' '; }

: >"$RESULTS"
failed=0

# ---------------------------------------------------------------------------------------------
# The variants. Each runs one workload in $RUN and prints the workload's own line
# (fib(n)=... events=... ns=...). The static ones are measured against fib_empty, the ones that
# resolve their hooks at run time (preload, uftrace) against fib_plain, which pays the same PLT.

declare -A CMD BASE WHAT
ST_VARIANTS="empty plain static v4 preload nots armed uftrace etrace"
MT_VARIANTS="mt_empty mt_plain mt_static mt_v4 mt_nots mt_uftrace"

CMD[empty]="$B/fib_empty $FIB_N"
CMD[plain]="$B/fib_plain $FIB_N"
CMD[static]="$B/fib_cygtrace $FIB_N"
CMD[preload]="env LD_PRELOAD=$O/linux/libcygtrace.so $B/fib_plain $FIB_N"
CMD[nots]="$B/fib_nots $FIB_N"
CMD[v4]="env CYGTRACE_FORMAT=4 $B/fib_cygtrace $FIB_N"
CMD[mt_v4]="env CYGTRACE_FORMAT=4 $B/fib_mt_cygtrace $FIB_MT_N 2"
# Armed and waiting: a freeze trigger and an exclusion on functions fib never calls, so that
# every event takes the control area's slow path (docs/FORMAT.md 2.7) and is recorded.
ARMED_ENV="CYGTRACE_TRIGGER=freeze@abort+100 CYGTRACE_EXCLUDE=exit"
CMD[armed]="env $ARMED_ENV $B/fib_cygtrace $FIB_N"
CMD[uftrace]="uftrace record -d $RUN/uftrace.data $B/fib_plain $FIB_N"
CMD[etrace]="env BENCH_ETRACE_OUT=$RUN/etrace.out $B/fib_etrace $FIB_N"
CMD[mt_empty]="$B/fib_mt_empty $FIB_MT_N 2"
CMD[mt_plain]="$B/fib_mt_plain $FIB_MT_N 2"
CMD[mt_static]="$B/fib_mt_cygtrace $FIB_MT_N 2"
CMD[mt_nots]="$B/fib_mt_nots $FIB_MT_N 2"
CMD[mt_uftrace]="uftrace record -d $RUN/uftrace.data $B/fib_mt_plain $FIB_MT_N 2"

BASE=([empty]=- [plain]=- [static]=empty [v4]=empty [mt_v4]=mt_empty [preload]=plain [nots]=empty [armed]=empty [uftrace]=plain
      [etrace]=empty [mt_empty]=- [mt_plain]=- [mt_static]=mt_empty [mt_nots]=mt_empty
      [mt_uftrace]=mt_plain)
WHAT=([empty]="a. empty hooks, linked in"
      [plain]="   empty hooks via PLT (glibc's)"
      [static]="b. cygtrace static, default"
      [v4]="h. cygtrace static, version 4"
      [preload]="c. cygtrace LD_PRELOAD .so"
      [nots]="f. cygtrace static, no timestamps"
      [armed]="g. cygtrace static, armed"
      [uftrace]="d. uftrace record"
      [etrace]="e. etrace-style fprintf"
      [mt_empty]="a. empty hooks, linked in"
      [mt_plain]="   empty hooks via PLT (glibc's)"
      [mt_static]="b. cygtrace static, default"
      [mt_v4]="h. cygtrace static, version 4"
      [mt_nots]="f. cygtrace static, no timestamps"
      [mt_uftrace]="d. uftrace record")

declare -A BAD # variant -> why it is not timed
if ! has uftrace; then
    BAD[uftrace]="uftrace not installed"
    BAD[mt_uftrace]="uftrace not installed"
fi

clean_outputs() { rm -rf cygtrace.out "$RUN/uftrace.data" "$RUN/etrace.out"; }

# run_variant NAME: runs it once; appends "inner_ns wall_ns" to $RUN/t.NAME.
run_variant() {
    local out t0 t1
    t0=$(now)
    out=$(${CMD[$1]} 2>"$RUN/stderr") || {
        echo "bench: ${CMD[$1]}: failed" >&2
        cat "$RUN/stderr" >&2
        return 1
    }
    t1=$(now)
    echo "$(field ns <<<"$out") $((t1 - t0))" >>"$RUN/t.$1"
    LAST_OUT=$out
}

# ---------------------------------------------------------------------------------------------
say "== machine"
lscpu_field() { lscpu | sed -n "s/^$1: *//p"; }
hv=$(lscpu_field 'Hypervisor vendor')
say "cpu:     $(lscpu_field 'Model name') (family $(lscpu_field 'CPU family')," \
    "model $(lscpu_field Model)), $(nproc) cores${hv:+, under $hv}"
say "kernel:  $(uname -sr)"
say "gcc:     $(gcc --version | head -n 1)"
has uftrace && say "uftrace: $(uftrace --version | head -n 1)"
say ""

# ---------------------------------------------------------------------------------------------
say "== check: every traced run recorded every event"

# check_ring NAME EXPECTED_COUNTER TIMESTAMPS(0|1): the trace the last run left in cygtrace.out.
# A chunked ring's counter counts slots (docs/FORMAT.md 5.1): the events, then the unused end of
# each thread's last chunk of 64 (and the rare chunk a thread left when lapped): up to 64 more
# a thread. THREADS (default 1) is how many threads recorded besides main.
check_ring() {
    local name=$1 want=$2 ts=$3 threads=${4:-0} head lost flags
    # version 4 (FORMAT.md 15): a CHUNK word in each chunk of 64 slots
    [ "$(u8_at cygtrace.out 8)" = 4 ] && want=$((want + (want + 62) / 63))
    if [ ! -s cygtrace.out ]; then
        BAD[$name]="wrote no cygtrace.out"
        return
    fi
    if [ "$(head -c 8 cygtrace.out)" != CYGTRACE ]; then
        BAD[$name]="cygtrace.out has no CYGTRACE magic"
        return
    fi
    head=$(u64_at cygtrace.out 88)
    lost=$(u64_at cygtrace.out 96)
    flags=$(u8_at cygtrace.out 13)
    if [ "$head" -lt "$want" ] || [ "$head" -gt $((want + 64 * (threads + 1) + want / 1000)) ] ||
        [ "$lost" != 0 ]; then
        BAD[$name]="write counter $head, lost $lost; expected $want (and a chunk a thread), 0"
    elif [ $(((flags >> 2) & 1)) != "$ts" ]; then
        BAD[$name]="timestamps flag is $(((flags >> 2) & 1)), expected $ts"
    fi
    say "  $(printf '%-11s' "$name") write counter $head (expected $want), lost $lost," \
        "flags 0x$(printf %02x "$flags")${BAD[$name]:+  FAILED: ${BAD[$name]}}"
}

# check_uftrace NAME EVENTS: uftrace keeps 16-byte records in one .dat file per thread; the
# workload's events plus a few library calls and scheduler events must all be there.
check_uftrace() {
    local name=$1 want=$2 bytes recs
    bytes=$(find "$RUN/uftrace.data" -name '[0-9]*.dat' -printf '%s\n' |
                awk '{ s += $1 } END { print s + 0 }')
    recs=$((bytes / 16))
    if [ "$recs" -lt "$want" ] || [ "$recs" -gt $((want + 10000)) ]; then
        BAD[$name]="uftrace data holds $recs records, expected $want and a few more"
    fi
    say "  $(printf '%-11s' "$name") uftrace data: $recs records (workload: $want)${BAD[$name]:+" \
        " FAILED: ${BAD[$name]}}"
}

# check_lines NAME WANT: the etrace-style file has one line per event.
check_lines() {
    local n
    n=$(wc -l <"$RUN/etrace.out")
    [ "$n" = "$2" ] || BAD[$1]="etrace.out has $n lines, expected $2"
    say "  $(printf '%-11s' "$1") etrace.out: $n lines (expected $2)${BAD[$1]:+" \
        " FAILED: ${BAD[$1]}}"
}

# check NAME CHECKER ARGS...: runs the variant once, then the checker on what it left.
check() {
    local name=$1
    shift
    [ -z "${BAD[$name]:-}" ] || return 0
    if run_variant "$name" >/dev/null; then
        "$@"
    else
        BAD[$name]="the run failed: $(tail -n 2 "$RUN/stderr" | tr '\n' ' ')"
        say "  $(printf '%-11s' "$name") FAILED: ${BAD[$name]}"
    fi
    clean_outputs
}

# Main's enter and exit are in the trace as well as fib's events; the runtime adds a START
# record and one THREAD record per thread that recorded (main's, and each worker's).
clean_outputs
run_variant empty >/dev/null
EVENTS=$(field events <<<"$LAST_OUT")
CALLS=$(field calls <<<"$LAST_OUT")
say "  fib($FIB_N): $CALLS calls, $EVENTS events (enter + exit each)"
check static check_ring static $((EVENTS + 2 + 1 + 1)) 1
if [ -x "$O/cygtrace" ]; then
    "$B/fib_cygtrace" "$FIB_N" >/dev/null
    info=$("$O/cygtrace" info "$B/fib_cygtrace" cygtrace.out 2>&1) || true
    # One thread: its chunks of 64 slots, the last padded at exit.
    slots=$(((EVENTS + 4 + 63) / 64 * 64))
    if grep -q "^written: *$slots " <<<"$info"; then
        say "  cygtrace info shows the count $slots (slots: $((EVENTS + 4)) records, the rest padding):"
    else
        say "  cygtrace info: FAILED: does not show the count $slots:"
        failed=1
    fi
    sed 's/^/    | /' <<<"$info" | tee -a "$RESULTS"
    clean_outputs
fi
check v4 check_ring v4 $((EVENTS + 4)) 1
check preload check_ring preload $((EVENTS + 4)) 1
check nots check_ring nots $((EVENTS + 4)) 0
check armed check_ring armed $((EVENTS + 4)) 1
check uftrace check_uftrace uftrace "$EVENTS"
check etrace check_lines etrace $((EVENTS + 2))
run_variant mt_empty >/dev/null
MT_EVENTS=$(field events <<<"$LAST_OUT") # per thread
say "  fib_mt: 2 threads x fib($FIB_MT_N), $MT_EVENTS events per thread"
check mt_static check_ring mt_static $((2 * MT_EVENTS + 2 + 1 + 3)) 1 2
check mt_v4 check_ring mt_v4 $((2 * MT_EVENTS + 2 + 1 + 3)) 1 2
check mt_nots check_ring mt_nots $((2 * MT_EVENTS + 6)) 0 2
check mt_uftrace check_uftrace mt_uftrace $((2 * MT_EVENTS))
for v in "${!BAD[@]}"; do
    [ "${BAD[$v]}" = "uftrace not installed" ] || failed=1
done
rm -f "$RUN"/t.*
say ""

# ---------------------------------------------------------------------------------------------
# Bytes per event: what a ring spends on fib's events (records, the chunks' first words, the
# padding), the trace file's slots reserved times the record's bytes, over the events; and the
# events a KB of ring holds.
say "== bytes per event, fib($FIB_N), $EVENTS events (ring slots reserved x record bytes)"
for f in 3 4; do
    CYGTRACE_FORMAT=$f "$B/fib_cygtrace" "$FIB_N" >/dev/null
    head=$(u64_at cygtrace.out 88)
    rb=$(u8_at cygtrace.out 11)
    say "  $(printf 'version %s  %2s-byte records  %7.3f bytes/event  %6.1f events/KB' "$f" "$rb" \
        "$(awk -v h="$head" -v r="$rb" -v n="$EVENTS" 'BEGIN { print h * r / n }')" \
        "$(awk -v h="$head" -v r="$rb" -v n="$EVENTS" 'BEGIN { print 1024 * n / (h * r) }')")"
    clean_outputs
done
say ""

# ---------------------------------------------------------------------------------------------
echo "== timing: $RUNS interleaved rounds (about $((RUNS * 15)) s)"
for ((r = 1; r <= RUNS; r++)); do
    for v in $ST_VARIANTS $MT_VARIANTS; do
        [ -z "${BAD[$v]:-}" ] || continue
        run_variant "$v" >/dev/null
        clean_outputs
    done
    "$B/prims" >>"$RUN/prims" # in the same rounds: cross-core costs drift on a VM
    printf '  round %d of %d done\n' "$r" "$RUNS"
done

declare -A INNER WALL
for v in $ST_VARIANTS $MT_VARIANTS; do
    [ -f "$RUN/t.$v" ] || continue
    INNER[$v]=$(cut -d' ' -f1 "$RUN/t.$v" | median)
    WALL[$v]=$(cut -d' ' -f2 "$RUN/t.$v" | median)
done

ms() { awk -v t="$1" 'BEGIN { printf "%.1f", t / 1e6 }'; }
# ns per event above the baseline, from the medians: (t - t_base) / events.
per_event() { awk -v t="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.2f", (t - b) / n }'; }

# spread VARIANT: the fastest and slowest fib() time of its runs, in ms.
spread() {
    cut -d' ' -f1 "$RUN/t.$1" | sort -n |
        awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "(%.0f-%.0f)", lo / 1e6, hi / 1e6 }'
}

# table TITLE EVENTS VARIANTS...
table() {
    local title=$1 n=$2 v base row
    shift 2
    say "$title"
    say "  variant                            baseline  fib() ms    (min-max)  ns/event" \
        "  run ms  ns/event"
    say "                                                  median                (in fib)" \
        "  median  (whole run)"
    for v in "$@"; do
        base=${BASE[$v]}
        row=$(printf '%-34s' "${WHAT[$v]}")
        if [ -n "${BAD[$v]:-}" ]; then
            row+=" FAILED: ${BAD[$v]}"
        elif [ "$base" = - ]; then
            row+=$(printf ' %-8s %9s %12s %9s %8s %9s' - "$(ms "${INNER[$v]}")" \
                "$(spread "$v")" - "$(ms "${WALL[$v]}")" -)
        else
            row+=$(printf ' %-8s %9s %12s %9s %8s %9s' "${base#mt_}" \
                "$(ms "${INNER[$v]}")" "$(spread "$v")" \
                "$(per_event "${INNER[$v]}" "${INNER[$base]}" "$n")" \
                "$(ms "${WALL[$v]}")" "$(per_event "${WALL[$v]}" "${WALL[$base]}" "$n")")
        fi
        say "  $row"
    done
}

say ""
table "== hook cost, fib($FIB_N), $EVENTS events, one thread; medians of $RUNS" \
    "$EVENTS" $ST_VARIANTS
say ""
table "== hook cost, 2 threads x fib($FIB_MT_N) at once, $MT_EVENTS events per thread; wall time
   of both threads; ns/event = (t - t_baseline) / events per thread" "$MT_EVENTS" $MT_VARIANTS

ratio() { # ratio A B: A's cost above its baseline over B's (from fib() medians)
    local a=$1 b=$2
    [ -n "${INNER[$a]:-}" ] && [ -n "${INNER[$b]:-}" ] || { echo "n/a"; return; }
    awk -v a="${INNER[$a]}" -v ab="${INNER[${BASE[$a]}]}" -v b="${INNER[$b]}" \
        -v bb="${INNER[${BASE[$b]}]}" 'BEGIN { printf "%.1fx", (a - ab) / (b - bb) }'
}
say ""
say "  uftrace / cygtrace static, per event above baseline:   $(ratio uftrace static)" \
    "(1 thread), $(ratio mt_uftrace mt_static) (2 threads)"
say "  uftrace / cygtrace preload, per event above baseline:  $(ratio uftrace preload)"

# ---------------------------------------------------------------------------------------------
say ""
say "== primitives of the fast path alone (bench/prims.c), ns per operation; medians of $RUNS"
for p in $(awk '!seen[$1]++ { print $1 }' "$RUN/prims"); do
    say "  $(printf '%-32s %6s' "$p" "$(awk -v p="$p" '$1 == p { print $2 }' "$RUN/prims" |
                                        median)")"
done

# ---------------------------------------------------------------------------------------------
# Thread scaling. Its own rounds: five variants at four thread counts take about 25 s a round.
say ""
say "== thread scaling (bench/threads.sh)"
if ! RUNS=$RUNS FIB_MT_N=$FIB_MT_N bash "$HERE/threads.sh" "$O" | tee -a "$RESULTS"; then
    failed=1
fi

# ---------------------------------------------------------------------------------------------
say ""
if has valgrind; then
    say "== instructions per event, callgrind, fib($CG_N), inside fib() only"
    declare -A IR
    for v in empty cygtrace v4 nots armed; do
        bin=$B/fib_$v env=
        [ "$v" = armed ] && bin=$B/fib_cygtrace env=$ARMED_ENV
        [ "$v" = v4 ] && bin=$B/fib_cygtrace env=CYGTRACE_FORMAT=4
        IR[$v]=$(env $env valgrind --tool=callgrind --callgrind-out-file="$RUN/cg.$v" \
                     --collect-atstart=no --toggle-collect=fib "$bin" "$CG_N" 2>&1 >/dev/null |
                 sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
        clean_outputs
    done
    cg_events=$("$B/fib_empty" "$CG_N" | field events)
    for v in empty cygtrace v4 nots armed; do
        say "  $(printf '%-10s %10s Ir  %6.2f Ir/event  %6.2f above empty' "$v" "${IR[$v]}" \
            "$(awk -v i="${IR[$v]}" -v n="$cg_events" 'BEGIN { print i / n }')" \
            "$(awk -v i="${IR[$v]}" -v e="${IR[empty]}" -v n="$cg_events" \
                'BEGIN { print (i - e) / n }')")"
    done
else
    say "== instructions per event: skipped: valgrind not installed"
fi

# ---------------------------------------------------------------------------------------------
# Decode. Every command reads the whole trace and writes to /dev/null. The whole run must fit in
# the ring so that both tools decode the same events: fib(34)'s 2^25.1 events take
# CYGTRACE_SIZE=1G, 2^26 16-byte records (ring_size). Then peak RSS once more on a trace about
# 11 times smaller and one about 7 times bigger: bounded memory means the same RSS on all three.

# ring_size EVENTS: the CYGTRACE_SIZE whose ring of 16-byte records holds EVENTS.
ring_size() {
    local r=4096
    while [ "$r" -lt "$1" ]; do r=$((r * 2)); done
    echo $((r * 16))
}

# trace N NAME [UF]: fib(N) recorded by cygtrace into $RUN/NAME.out (checked: every event,
# nothing wrapped) and, unless UF is 0 or uftrace is missing, by uftrace into $RUN/NAME.uftrace;
# sets $tevents.
trace() {
    local n=$1 name=$2 uf=${3:-1} want
    tevents=$("$B/fib_empty" "$n" | field events)
    want=$((tevents + 4))
    CYGTRACE_SIZE=$(ring_size "$want") "$B/fib_cygtrace" "$n" >/dev/null
    check_ring "$name" "$want" 1
    if [ -n "${BAD[$name]:-}" ]; then
        failed=1
    elif [ $((1 << $(u8_at cygtrace.out 12))) -lt "$want" ]; then
        say "  FAILED: $name: the ring wrapped: the decoders would not see the same events"
        failed=1
    fi
    mv cygtrace.out "$RUN/$name.out"
    if [ "$uf" = 1 ] && [ -z "${BAD[uftrace]:-}" ]; then
        uftrace record -d "$RUN/$name.uftrace" "$B/fib_plain" "$n" >/dev/null
    fi
}

# The decoders; each DCMD runs with the trace's name in $t.
CT_DECODERS="tree report chrome folded callgrind"
UF_DECODERS="uf_replay uf_report uf_chrome"
declare -A DNAME=([tree]="cygtrace tree" [report]="cygtrace report"
                  [chrome]="cygtrace export --format=chrome" [folded]="cygtrace export --format=folded"
                  [callgrind]="cygtrace export --format=callgrind" [uf_replay]="uftrace replay"
                  [uf_report]="uftrace report" [uf_chrome]="uftrace dump --chrome")
declare -A PEER=([report]=uf_report [chrome]=uf_chrome) # the uftrace command doing the same job
dcmd() { # dcmd DECODER TRACE: the command line
    local ct="$O/cygtrace" elf="$B/fib_cygtrace" out="$RUN/$2.out" uf="$RUN/$2.uftrace"
    case $1 in
    tree) echo "$ct tree $elf $out" ;;
    report) echo "$ct report $elf $out" ;;
    chrome | folded | callgrind) echo "$ct export --format=$1 $elf $out" ;;
    uf_replay) echo "uftrace replay -d $uf" ;;
    uf_report) echo "uftrace report -d $uf" ;;
    uf_chrome) echo "uftrace dump --chrome -d $uf" ;;
    esac
}

# decode DECODER TRACE: runs it once, output to /dev/null; appends "wall_ns rss_kb" to
# $RUN/d.TRACE.DECODER. Returns 1 when the command fails.
decode() {
    local t0 t1
    t0=$(now)
    # shellcheck disable=SC2046 # the command line is split on purpose
    if ! /usr/bin/time -f '%M' -o "$RUN/rss" $(dcmd "$1" "$2") >/dev/null 2>"$RUN/stderr"; then
        say "  ${DNAME[$1]}: FAILED: $(dcmd "$1" "$2"): $(tail -n 3 "$RUN/stderr" | tr '\n' ' ')"
        failed=1
        return 1
    fi
    t1=$(now)
    echo "$((t1 - t0)) $(tail -n 1 "$RUN/rss")" >>"$RUN/d.$2.$1"
}

# check_report DECODER FIELD: fib's call count in its report on the main trace (field FIELD of
# fib's line: the first in cygtrace's, the one before the name in uftrace's) must be the
# workload's.
check_report() {
    local got
    # shellcheck disable=SC2046 # the command line is split on purpose
    got=$($(dcmd "$1" main) 2>/dev/null | awk -v f="$2" '$NF == "fib" { print $(f ? f : NF - 1) }')
    if [ "$got" != "$CALLS" ]; then
        say "  FAILED: ${DNAME[$1]} says fib was called ${got:-no} times, not $CALLS"
        failed=1
    fi
}

say ""
if [ ! -x "$O/cygtrace" ]; then
    say "== decode: skipped: $O/cygtrace not built"
elif [ ! -x /usr/bin/time ]; then
    say "== decode: skipped: /usr/bin/time missing (apt-get install time)"
else
    DECODERS=$CT_DECODERS
    if [ -z "${BAD[uftrace]:-}" ]; then
        DECODERS+=" uf_replay uf_report"
        # Debian's uftrace v0.13 has dump --chrome; check rather than assume.
        uf_help=$(uftrace dump --help 2>&1 || true)
        ! grep -q -- --chrome <<<"$uf_help" || DECODERS+=" uf_chrome"
    fi
    say "== decode throughput, fib($FIB_N) trace, $EVENTS events, output to /dev/null;" \
        "medians of $DECODE_RUNS"
    trace "$FIB_N" main
    check_report report 1
    [ -n "${BAD[uftrace]:-}" ] || check_report uf_report 0
    for ((r = 1; r <= DECODE_RUNS; r++)); do
        for d in $DECODERS; do decode "$d" main || true; done
    done
    say "  decoder                              wall s   Mevents/s  peak RSS MB  / uftrace replay" \
        " / uftrace same job"
    declare -A WALLD
    for d in $DECODERS; do
        [ -f "$RUN/d.main.$d" ] && WALLD[$d]=$(cut -d' ' -f1 "$RUN/d.main.$d" | median)
    done
    for d in $DECODERS; do
        [ -n "${WALLD[$d]:-}" ] || continue
        m=$(cut -d' ' -f2 "$RUN/d.main.$d" | median)
        vs_replay=- vs_peer=-
        if [ "${d#uf_}" = "$d" ] && [ -n "${WALLD[uf_replay]:-}" ]; then
            vs_replay=$(awk -v a="${WALLD[uf_replay]}" -v b="${WALLD[$d]}" \
                'BEGIN { printf "%.1fx", a / b }')
        fi
        p=${PEER[$d]:-}
        if [ -n "$p" ] && [ -n "${WALLD[$p]:-}" ]; then
            vs_peer=$(awk -v a="${WALLD[$p]}" -v b="${WALLD[$d]}" \
                'BEGIN { printf "%.1fx (%s)", a / b, "'"${DNAME[$p]#uftrace }"'" }')
        fi
        say "  $(awk -v d="${DNAME[$d]}" -v n="$EVENTS" -v w="${WALLD[$d]}" -v m="$m" \
            -v r="$vs_replay" -v p="$vs_peer" 'BEGIN {
            printf "%-34s %8.2f %11.2f %12.1f %16s  %s", d, w / 1e9, n / w * 1e3, m / 1024, r, p
            }')"
    done

    # Peak RSS against the trace's length: a smaller trace, every decoder once; a bigger one
    # (DECODE_BIG_N, 0 to skip: it takes about a minute and a half and 4 GB of disk),
    # cygtrace's decoders once.
    SMALL_N=${DECODE_SMALL_N:-$((FIB_N - 5))}
    BIG_N=${DECODE_BIG_N:-$((FIB_N + 4))}
    say ""
    say "== peak RSS (MB) against the trace's length, one run each"
    trace "$SMALL_N" small
    small_events=$tevents
    for d in $DECODERS; do decode "$d" small || true; done
    rm -rf "$RUN/small.out" "$RUN/small.uftrace"
    big_events=0
    if [ "$BIG_N" -gt 0 ]; then
        # Not uftrace: replaying a trace this long alone would take minutes.
        trace "$BIG_N" big 0
        big_events=$tevents
        for d in $CT_DECODERS; do decode "$d" big || true; done
        rm -rf "$RUN/big.out"
    fi
    rss() { [ -f "$RUN/d.$2.$1" ] && awk '{ printf "%.1f", $2 / 1024 }' "$RUN/d.$2.$1" | head -n 1; }
    say "  $(printf '%-34s %14s %14s %14s' decoder "fib($SMALL_N)" "fib($FIB_N)" \
        "$([ "$BIG_N" -gt 0 ] && echo "fib($BIG_N)")")"
    say "  $(printf '%-34s %14s %14s %14s' "events" "$small_events" "$EVENTS" \
        "$([ "$BIG_N" -gt 0 ] && echo "$big_events")")"
    for d in $DECODERS; do
        say "  $(printf '%-34s %14s %14s %14s' "${DNAME[$d]}" "$(rss "$d" small || echo -)" \
            "$(awk '{ print $2 }' "$RUN/d.main.$d" 2>/dev/null | median |
               awk '{ printf "%.1f", $1 / 1024 }')" "$(rss "$d" big || echo -)")"
    done
    if [ "$BIG_N" -gt 0 ]; then
        say "  (big trace: $(awk -v a="$big_events" -v b="$EVENTS" 'BEGIN { printf "%.1f", a / b }')x" \
            "the events of fib($FIB_N); wall s there:$(for d in $CT_DECODERS; do
                [ -f "$RUN/d.big.$d" ] && awk -v d="$d" '{ printf " %s %.1f", d, $1 / 1e9 }' \
                    "$RUN/d.big.$d"; done))"
    fi
fi

say ""
say "(kept in $RESULTS)"
if [ "$failed" = 1 ]; then
    echo "bench: some checks FAILED (see above): their numbers are missing or not to be trusted" >&2
    exit 1
fi
