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
# A version 4 ring (docs/FORMAT.md 14: one word a slot, -DCYGTRACE_REC4=1) is read the same:
# its TIME and TIMELO records are no events, a special's more words belong to it, and the more
# words at the oldest end whose header the newest lap overwrote are skipped (orphans).
# Prints one "bad: ..." line per problem (at most 20), then one summary line:
#   held=N first=S head=H main=M isr=I unwritten=U orphans=O (version 4's more words no header
#   took)
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
# A version 4 ring's words into seqof[], ev[], n, unwritten, first.
function v4(   f, base, s, x, i, k, v, more, type, data, pay, fb, addr, ok) {
    f = w[30] % 32; base = w[31] # bytes 120 (rec4) and 124..127 (text_base)
    first = head > cap ? head - cap : 0
    n = 0; unwritten = 0; orphans = 0
    for (s = first; s < head; s++) {
        x = w[32 + s % cap]
        if (int(x / 2^30) % 2 != int(s / cap) % 2) { seqof[n] = s; ev[n++] = "unwritten"; unwritten++; continue }
        if (x < 2^31) {
            fb = x % 2^f
            addr = base + ((fb - base % 2^f + 2^f) % 2^f)
            seqof[n] = s
            ev[n++] = (addr % 2 ? "X " : "E ") ((addr - addr % 2) in sym ? sym[addr - addr % 2] : sprintf("0x%x", addr))
            continue
        }
        if (int(x / 2^29) % 2 == 0) { # a more word no header took (the modes say where)
            orph[orphans++] = s
            continue
        }
        type = int(x / 2^23) % 64; more = int(x / 2^21) % 4; v = x % 2^21; ok = 1
        for (k = 1; k <= more; k++) {
            i = w[32 + (s + k) % cap]
            if (s + k >= head || int(i / 2^30) % 2 != int((s + k) / cap) % 2 || i < 2^31 ||
                int(i / 2^29) % 2) ok = 0
            else v += (i % 2^29) * 2^(21 + 29 * (k - 1))
        }
        if (!ok) { seqof[n] = s; ev[n++] = "unwritten"; unwritten++; continue }
        s += more
        if (type == 11 || type == 16) continue # TIME, TIMELO: no event
        data = int(v / 2^32) % 2^24; pay = v % 2^32
        seqof[n] = s - more
        ev[n++] = "S" type " " data " " pay
    }
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
    if (rec == 4 && w[2] % 65536 == 4 && nw >= 32 + cap) {
        v4()
    } else if (rec != 8 || nw < 32 + 2 * cap) {
        print "bad: records of " rec " bytes, " nw " words"; exit 1
    }
    if (rec == 8) {
        first = head > cap ? head - cap : 0
        n = 0; unwritten = 0
    }
    for (s = first; s < head && rec == 8; s++) {
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
    for (j = 0; j < orphans; j++) # its header overwritten by the newest lap
        if (mode != "fault" && orph[j] - first > 2)
            bad("seq " orph[j] ": a special's word without its header")
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
    } else if (mode == "fault" && rec == 4) {
        # Version 4: sequence numbers count TIME records and more words too, so the events are
        # checked in order: FAULT_LR and FAULT last, before them the main loop's events, each the
        # one after the one before (one may be missing: the event the hook was writing).
        if (ev[n - 1] !~ /^S5 3 / || ev[n - 2] != "S4 3 " inject)
            bad("the last events are " ev[n - 2] ", " ev[n - 1] ", expected FAULT, FAULT_LR")
        for (j = 0; j < orphans; j++) # a TIME record the fault cut short, just before FAULT
            if (orph[j] - first > 2 && seqof[n - 2] - orph[j] > 3)
                bad("seq " orph[j] ": a special's word without its header")
        k = -1; skipped = 0
        for (j = 0; j < n - 2; j++) {
            if (ev[j] == "unwritten") {
                if (j < n - 4) bad("seq " seqof[j] ": reserved but never written")
                continue
            }
            if (ev[j] ~ /^S6 0 0$/) continue # START
            if (k < 0) { # the oldest event: its place in the sequence (66 a period)
                for (k = 0; k < 66 && main_ev(k) != ev[j]; k++) ;
                for (; k < 66; k++) {
                    ok = 1
                    for (i = j; i < j + 40 && i < n - 2; i++) if (ev[i] != main_ev(k + i - j)) ok = 0
                    if (ok) break
                }
                if (k == 66) { bad("seq " seqof[j] ": " ev[j] " starts no run of the main loop"); k = 0 }
            } else if (ev[j] != main_ev(k) && ev[j] == main_ev(k + 1) && j >= n - 4 && !skipped) {
                k++; skipped = 1 # the event the hook was writing when it faulted
            } else if (ev[j] != main_ev(k)) {
                bad("seq " seqof[j] ": " ev[j] ", expected " main_ev(k))
            }
            k++; nmain++
        }
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
    printf "held=%d first=%d head=%d main=%d isr=%d unwritten=%d orphans=%d\n", n, first, head,
           nmain, nisr, unwritten, orphans
}
