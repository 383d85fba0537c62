# SPDX-License-Identifier: GPL-3.0-or-later
# fw_seq.awk - reads a ring pulled from stress_ow.elf or fault_hook.elf straight from its bytes,
# independently of cygtrace's decoder, and checks every record it holds against the sequence
# that the firmware's code makes (examples/firmware/stress_work.h): the k-th event of the main
# loop is a function of k alone, so a stale record (a previous lap's, left in a slot) or an
# invented one cannot pass for it.
#
#   od -An -v -tu4 -w4 DUMP | awk -f fw_seq.awk -v mode=MODE [-v ...] NM_FILE -
#
# NM_FILE is "ADDRESS TYPE NAME" lines, addresses in decimal (arm-none-eabi-nm -t d); the second input is the dump's
# 32-bit words, one per line. Modes:
#   overwrite  -v main_calls=N: the ring holds the newest events of a run whose main loop made
#              N calls, with the timer interrupt's chains (tick_handler -> tick_work: 4 events
#              with consecutive sequence numbers, since nothing preempts the interrupt) between
#              any two of them; every slot written, the main loop's events exactly the last ones
#              of its sequence.
#   fault      -v hit_head=H: the ring holds the newest events of the main loop alone (sequence
#              number s is its event s - 1; 0 is START), then FAULT (kind HardFault, PC
#              fault_inject) at sequence number H and FAULT_LR at H + 1; the slot before FAULT,
#              the event the hook was writing, may be unwritten; no other.
# Prints one "bad: ..." line per problem (at most 20), then one summary line:
#   held=N first=S head=H main=M isr=I unwritten=U
function bad(why) {
    if (++nbad <= 20) print "bad: " why
}
# The main loop's event k (from 0): step i makes 2 (1 + i % 6) + 4 events, 66 per 6 steps.
function main_ev(k,   r, n) {
    r = k % 66
    for (n = 1; r >= 2 * n + 4; n++)
        r -= 2 * n + 4
    if (r == 0) return "E work_step"
    if (r <= n) return "E work_dive"
    if (r == n + 1) return "E work_leaf"
    if (r == n + 2) return "X work_leaf"
    if (r <= 2 * n + 2) return "X work_dive"
    return "X work_step"
}
function isr_pos(ev) {
    return ev == "E tick_handler" ? 0 : ev == "E tick_work" ? 1 : ev == "X tick_work" ? 2 : \
           ev == "X tick_handler" ? 3 : -1
}
FNR == NR {
    a = $1 + 0
    sym[a - a % 2] = $3
    if ($3 == "fault_inject") inject = a - a % 2
    next
}
{ w[nw++] = $1 }
END {
    if (nw < 32 || w[0] != 1413962051 || w[1] != 1162035538) { print "bad: not a ring"; exit 1 }
    rec = int(w[2] / 2^24) % 256; log2 = w[3] % 256; cap = 2^log2; head = w[22]
    if (rec != 8 || nw < 32 + 2 * cap) { print "bad: records of " rec " bytes, " nw " words"; exit 1 }
    first = head > cap ? head - cap : 0
    n = 0; unwritten = 0
    for (s = first; s < head; s++) {
        i = 32 + 2 * (s % cap); a = w[i]; b = w[i + 1]
        if (int(b / 2^31) != 1 - int(s / cap) % 2) {
            seqof[n] = s; ev[n++] = "unwritten"; unwritten++
        } else if (int(b / 2^30) % 2) {
            seqof[n] = s
            ev[n++] = "S" int(b / 2^24) % 64 " " b % 2^24 " " a
        } else {
            seqof[n] = s
            ev[n++] = (a % 2 ? "X " : "E ") ((a - a % 2) in sym ? sym[a - a % 2] : sprintf("0x%x", a))
        }
    }
    if (list) { # -v list=1: the events, one per line, for a test to count
        for (j = 0; j < n; j++) print ev[j]
        exit
    }
    nmain = 0; nisr = 0
    if (mode == "overwrite") {
        for (j = 0; j < n; j++) {
            if (ev[j] == "unwritten") { bad("seq " seqof[j] ": reserved but never written"); continue }
            if (seqof[j] == 0 && ev[j] ~ /^S6 /) continue # START
            p = isr_pos(ev[j])
            if (p >= 0) {
                # The oldest events may be the end of a chain whose start was overwritten.
                if (p != q && !(j == 0 && p > 0))
                    bad("seq " seqof[j] ": " ev[j] " at position " q " of an interrupt's chain")
                q = (p + 1) % 4; nisr += p == 0
                continue
            }
            if (q != 0) bad("seq " seqof[j] ": " ev[j] " inside an interrupt's chain")
            mseq[nmain] = seqof[j]; mev[nmain++] = ev[j]
        }
        if (q != 0) bad("the last interrupt's chain is not finished")
        base = 2 * main_calls - nmain
        for (j = 0; j < nmain; j++)
            if (mev[j] != main_ev(base + j))
                bad("seq " mseq[j] ": " mev[j] ", the main loop's event " base + j " is " \
                    main_ev(base + j))
    } else if (mode == "fault") {
        if (head != hit_head + 2) bad("head " head ", expected " hit_head + 2 " (FAULT, FAULT_LR)")
        for (j = 0; j < n; j++) {
            s = seqof[j]
            if (s == head - 1) want = "S5 3 *"
            else if (s == head - 2) want = "S4 3 " inject
            else if (s == 0) want = "S6 0 0"
            else want = main_ev(s - 1)
            if (ev[j] == "unwritten") {
                if (s != head - 3) bad("seq " s ": reserved but never written, expected " want)
                continue
            }
            if (want ~ /\*$/ ? index(ev[j], substr(want, 1, length(want) - 1)) != 1 : ev[j] != want)
                bad("seq " s ": " ev[j] ", expected " want)
            nmain += ev[j] ~ /^[EX] /
        }
    } else {
        print "bad: no mode"; exit 1
    }
    printf "held=%d first=%d head=%d main=%d isr=%d unwritten=%d\n", n, first, head, nmain, nisr,
           unwritten
}
