/* SPDX-License-Identifier: MIT */
/* cygtrace_cm_hooks.h - the Cortex-M hooks in assembly. Not a header for users:
 * target/core/cygtrace_static.c includes it (CYG_PORT_STATIC_HOOKS) once it has defined the
 * static ring, so that the ring's capacity is in the hooks' instructions (a shift and a field
 * width, no register), and a firmware that gives the ring another size gets hooks for it.
 *
 * One literal and one LDM of cyg_rt.last and cyg_rt.hot. The record's words sit 40 bytes past
 * head (the records follow the 128-byte control block, head is at 88): no pointer to them is
 * read. Word a = (fn & ~1) | exit: the exit hook takes this_fn as given, bit 0 set (a Thumb
 * function's address), the enter hook clears it and falls into the exit hook. Word b = the lap
 * bit, bit cap_log2 of the sequence number inverted (FORMAT.md 4), then the special flag, 0,
 * then the timestamp's 30 bits.
 *
 * Mainline cores (ARMv7-M, ARMv8-M mainline) take the LDM's last word into PC: the hooks go
 * on where the ring's state sends them (hot.cont), so that the usual case, running in
 * overwrite mode with nothing armed, tests nothing:
 *   cyg_cm_ovw   reserve (LDREX/STREX, retried from the top when an interrupt came in
 *                between), the clock, the record. With the control area (CYGTRACE_CONTROL=1)
 *                it first tests last against 0: `cygtrace arm` clears last to send the hooks
 *                to the slow path while cont still says running (FORMAT.md 2.7); without it
 *                only cyg_port_hooks() writes last, together with cont.
 *   cyg_cm_stop  the same, once the sequence number LDREX read is found not past last; past
 *                it, cyg_core_full() without reserving
 *   cyg_cm_slow  not running, or triggers and filters armed: cyg_core_slow(a, 0)
 * Word b's lap bit is one BIC: hot.lap (0x80000000) with the sequence number shifted left so
 * that its bit cap_log2 lands on bit 31; the bits it shifts under bit 31 meet hot.lap's zeros.
 *
 * Baseline cores (ARMv6-M, ARMv8-M baseline) have no CBZ nor LDM into PC: one comparison of
 * the sequence number with last inside the PRIMASK section does for all three (not running,
 * hot.head points at a word that reads ~0, cyg_cm_no_head, so the comparison sends the event
 * out before anything is written).
 *
 * PERFORMANCE.md lists each core's hooks with a count per line.
 */
#ifndef CYGTRACE_CM_HOOKS_H
#define CYGTRACE_CM_HOOKS_H

#include <stddef.h>

_Static_assert(CYG_HDR_BYTES - CYG_OFF_HEAD == 40, "the hooks find the records at head + 40");
_Static_assert(offsetof(struct cyg_rt, last) == 4 && offsetof(struct cyg_rt, hot) == 8,
               "the hooks' LDM takes last and hot from cyg_rt + 4");
_Static_assert(CYG_PORT_STATIC_LOG2 >= 1 && CYG_PORT_STATIC_LOG2 <= 28, "a 32-bit ring");
#if CYGTRACE_REC4
_Static_assert(offsetof(struct cyg_port_hot, recs) == 4 &&
                   offsetof(struct cyg_port_hot, cont) == (CYG_CM_MMIO ? 16 : 8),
               "the version 4 LDM takes last, head, recs, (clock, epoch,) cont");
_Static_assert(CYG_PORT_STATIC_LOG2 <= 30 - CYGTRACE_REC4_FN_BITS,
               "CYGTRACE_REC4: a ring of at most 2^(30 - CYGTRACE_REC4_FN_BITS) records "
               "(FORMAT.md 14.2): a smaller CYGTRACE_CM_BUFFER_BYTES or CYGTRACE_REC4_FN_BITS");
#elif !CYG_CM_BASELINE
_Static_assert(offsetof(struct cyg_port_hot, lap) == 4 &&
                   offsetof(struct cyg_port_hot, cont) == (CYG_CM_MMIO ? 12 : 8),
               "the mainline LDM takes last, head, lap, (clock,) cont");
#else
_Static_assert(offsetof(struct cyg_port_hot, x) == 12, "the baseline LDM takes last..x");
#endif
#if CYG_CM_MMIO
_Static_assert((CYG_CM_CLK_ADDR & 3u) == 0,
               "CYGTRACE_CM_CLOCK_ADDR: a 32-bit register, word-aligned");
#endif

#define CYG_CM_FN(name)                                                                            \
    ".global " #name "\n\t.type " #name ", %%function\n\t.thumb_func\n" #name ":\n\t"
#define CYG_CM_LOCAL(name)                                                                         \
    ".global " #name "\n\t.hidden " #name "\n\t.type " #name ", %%function\n\t.thumb_func\n" #name \
    ":\n\t"

/* Naked, for the ring's capacity as operands: %c0 cap_log2, %c1 31 - cap_log2. In
 * .text.__cyg_profile_func_enter, which the examples' linker script places with the clock
 * between __cygtrace_hooks_start and _end (the stress tests' interrupts aim there). */
NOINSTR __attribute__((naked)) void __cyg_profile_func_enter(void *this_fn __attribute__((unused)),
                                                             void *site __attribute__((unused)))
{
    __asm__ volatile(".syntax unified\n\t"
#if CYGTRACE_REC4
        /* FORMAT.md 14.6: one word, the clock read and its epoch tested inside the
         * reservation. */
        "bic r0, r0, #1\n\t" /* X: entry */
        CYG_CM_FN(__cyg_profile_func_exit)
        "push {r4, r5, r6, lr}\n"
        "1:\n\t"
        "ldr r3, =cyg_rt + 4\n\t"
#if CYG_CM_MMIO
        "ldm r3, {r1, r2, r4, r5, r6, pc}\n\t" /* last, head, recs, clock, epoch; on at cont */
#else
        "ldm r3, {r1, r2, r4, pc}\n\t" /* last, head, recs; on at cont */
#endif
#if CYGTRACE_STOP_MODE
        CYG_CM_LOCAL(cyg_cm_stop)
        "cbz r1, 7f\n\t"
        "ldrex r12, [r2]\n\t"
        "cmp r12, r1\n\t"
        "bhi 8f\n\t" /* full: no reservation */
        "b 2f\n\t"
#endif
        CYG_CM_LOCAL(cyg_cm_ovw)
#if CYGTRACE_CONTROL
        "cbz r1, 7f\n\t"
#endif
        "ldrex r12, [r2]\n" /* seq = head++ */
        "2:\n\t"
#if CYG_CM_MMIO
        "ldr r3, [r5]\n\t" /* the clock, inside the reservation */
#if CYG_CM_CLK_DOWN
        "mvn r3, r3\n\t"
#endif
        "cmp r6, r3, lsr #%c3\n\t" /* its epoch */
        "bne 6f\n\t"
#endif
        "add r1, r12, #1\n\t"
        "strex r6, r1, [r2]\n\t"
        "cbnz r6, 9f\n\t"
        /* L: bits cap_log2..0 of seq in bits 30..30 - cap_log2 (bit 31 is the function
         * address's: 0) */
        "bfi r0, r12, #%c4, #%c6\n\t"
#if CYG_CM_MMIO
        "bfi r0, r3, #%c2, #%c5\n\t" /* the time, over the bits of seq below L */
#else
        "bfc r0, #%c2, #%c5\n\t"
#endif
        "ubfx r12, r12, #0, #%c0\n\t" /* the slot */
        "str r0, [r4, r12, lsl #2]\n\t"
        "pop {r4, r5, r6, pc}\n"
#if CYGTRACE_STOP_MODE
        "8:\n\t"
        "clrex\n\t"
        "pop {r4, r5, r6, lr}\n\t"
        "b cyg_core_full\n"
#endif
        "9:\n\t"
        "b 1b\n" /* from the literal: the state may have changed too */
#if CYG_CM_MMIO
        "6:\n\t" /* out of the epoch: a TIME record, then again */
        "clrex\n\t"
        "mov r4, r0\n\t"
        "mov r0, r3\n\t"
        "bl cyg_core_time4\n\t"
        "mov r0, r4\n\t"
        "b 1b\n"
#endif
        "7:\n\t"
        CYG_CM_LOCAL(cyg_cm_slow)
        "pop {r4, r5, r6, lr}\n\t"
        "movs r1, #0\n\t"
        "b cyg_core_slow\n\t"
#elif !CYG_CM_BASELINE
        "bic r0, r0, #1\n\t" /* word a: entry */
        CYG_CM_FN(__cyg_profile_func_exit)
        "push {r4, r5, r6, lr}\n"
        "1:\n\t"
        "ldr r3, =cyg_rt + 4\n\t"
#if CYG_CM_MMIO
        "ldm r3, {r1, r2, r4, r5, pc}\n\t" /* last, head, lap, clock; on at cont */
#else
        "ldm r3, {r1, r2, r4, pc}\n\t" /* last, head, lap; on at cont */
#endif
#if CYGTRACE_STOP_MODE
        CYG_CM_LOCAL(cyg_cm_stop)
        "cbz r1, 7f\n\t"
        "ldrex r12, [r2]\n\t"
        "cmp r12, r1\n\t"
        "bhi 8f\n\t" /* full: no reservation */
        "b 2f\n\t"
#endif
        CYG_CM_LOCAL(cyg_cm_ovw)
#if CYGTRACE_CONTROL
        "cbz r1, 7f\n\t"
#endif
        "ldrex r12, [r2]\n" /* seq = head++ */
        "2:\n\t"
        "add r1, r12, #1\n\t"
        "strex r3, r1, [r2]\n\t"
        "cbnz r3, 9f\n\t"
#if CYGTRACE_TIMESTAMPS && CYGTRACE_CM_CLOCK == 3
        /* Word a before the call, b after it, in the slot: r6 and r5 survive the call. */
        "ubfx r6, r12, #0, #%c0\n\t"
        "add r6, r2, r6, lsl #3\n\t"
        "str r0, [r6, #40]\n\t"
        "bic r5, r4, r12, lsl #%c1\n\t" /* the lap bit alone */
        "bl cygtrace_user_clock\n\t"
        "bfi r5, r0, #0, #30\n\t" /* under the timestamp */
        "str r5, [r6, #44]\n\t"
#else
        "bic r4, r4, r12, lsl #%c1\n\t" /* the lap bit */
#if CYG_CM_MMIO
        "ldr r5, [r5]\n\t"
#if CYG_CM_CLK_DOWN
        "mvn r5, r5\n\t"
#endif
        "bfi r4, r5, #0, #30\n\t" /* under the timestamp */
#endif
        "ubfx r12, r12, #0, #%c0\n\t" /* the slot */
        "add r2, r2, r12, lsl #3\n\t"
        "strd r0, r4, [r2, #40]\n\t" /* both words: CYG_PORT_STORE_PAIR says why that is safe */
#endif
        "pop {r4, r5, r6, pc}\n"
#if CYGTRACE_STOP_MODE
        "8:\n\t"
        "clrex\n\t"
        "pop {r4, r5, r6, lr}\n\t"
        "b cyg_core_full\n"
#endif
        "9:\n\t"
        "b 1b\n" /* from the literal: the state may have changed too */
        "7:\n\t"
        CYG_CM_LOCAL(cyg_cm_slow)
        "pop {r4, r5, r6, lr}\n\t"
        "movs r1, #0\n\t"
        "b cyg_core_slow\n\t"
#else
        "movs r3, #1\n\t"
        "bics r0, r3\n\t" /* word a: entry */
        CYG_CM_FN(__cyg_profile_func_exit)
        "push {r3, r4, r5, r6, r7, lr}\n\t" /* six: the stack stays 8-aligned for calls */
        "ldr r3, =cyg_rt + 4\n\t"
        "ldm r3!, {r1, r2, r4, r5, r6}\n\t" /* last, head, mask * 8, k, x */
        /* PRIMASK, not CPSIE: a hook called with interrupts masked leaves them masked. */
        "mrs r3, primask\n\t"
        "cpsid i\n\t"
        "ldr r7, [r2]\n\t" /* seq = head++, unless past last */
        "cmp r7, r1\n\t"
        "bhi 8f\n\t"
        "adds r1, r7, #1\n\t"
        "str r1, [r2]\n\t"
        "msr primask, r3\n\t"
        "lsls r1, r7, #3\n\t"
        "ands r1, r4\n\t"
        "adds r4, r2, r1\n\t" /* the slot, less 40 */
        "mvns r7, r7\n\t"
        "lsrs r7, r5\n\t"
        "lsls r7, r7, #31\n\t" /* the lap bit */
        "str r0, [r4, #40]\n\t"
#if CYGTRACE_TIMESTAMPS && CYGTRACE_CM_CLOCK == 3
        "bl cygtrace_user_clock\n\t"
        "lsls r0, r0, #2\n\t"
        "lsrs r0, r0, #2\n\t"
        "orrs r7, r0\n\t"
#elif CYG_CM_MMIO
        "ldr r6, [r6]\n\t"
#if CYG_CM_CLK_DOWN
        "mvns r6, r6\n\t"
#endif
        "lsls r6, r6, #2\n\t"
        "lsrs r6, r6, #2\n\t"
        "orrs r7, r6\n\t"
#endif
        "str r7, [r4, #44]\n\t" /* word b last */
        "pop {r3, r4, r5, r6, r7, pc}\n"
        "8:\n\t"
        "msr primask, r3\n\t"
#if CYGTRACE_STOP_MODE /* else past last only when not running (last 0) */
        "cmp r1, #0\n\t"
        "beq 7f\n\t"
        "bl cyg_core_full\n\t"
        "pop {r3, r4, r5, r6, r7, pc}\n"
#endif
        "7:\n\t"
        CYG_CM_LOCAL(cyg_cm_slow)
        "movs r1, #0\n\t"
        "bl cyg_core_slow\n\t"
        "pop {r3, r4, r5, r6, r7, pc}\n\t"
#endif
        ".ltorg\n\t"
        ".size __cyg_profile_func_exit, . - __cyg_profile_func_exit" ::"i"(CYG_PORT_STATIC_LOG2),
        "i"(31 - CYG_PORT_STATIC_LOG2), "i"(CYGTRACE_REC4_FN_BITS),
        "i"(29 - CYGTRACE_REC4_FN_BITS), "i"(30 - CYG_PORT_STATIC_LOG2),
        "i"(30 - CYGTRACE_REC4_FN_BITS), "i"(CYG_PORT_STATIC_LOG2 + 1));
}

#endif
