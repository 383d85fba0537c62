/* cygtrace_cm.c - the Cortex-M runtime around the portable core: the fault handler and the hooks
 * in assembly. The static ring and its set-up at boot are target/core/cygtrace_static.c's, the
 * clock's start cygtrace_port.h's. Built with -fno-instrument-functions, like the core.
 */
#include <stddef.h>
#include <stdint.h>

#include "cygtrace_port.h"

uint32_t cyg_cm_tstate[2][3]; /* cyg_port_tstate(): thread mode, handler mode */

NOINSTR __attribute__((weak, noreturn)) void cygtrace_cm_fault_hook(void)
{
    for (;;)
        ;
}

/* Bit 2 of EXC_RETURN (in LR on entry) says which stack holds the exception frame: PSP when
 * set. The frame is r0 r1 r2 r3 r12 lr pc xpsr: LR at offset 20, PC at 24. IPSR is the
 * exception number, which is what the CYG_FAULT_* kinds are. Thumb-1 only (no CBZ, no IT), so
 * the same code runs on ARMv6-M; it never returns, so it may clobber what it likes. */
NOINSTR __attribute__((naked)) void cygtrace_fault_handler(void)
{
    __asm__ volatile("movs r0, #4\n\t"
                     "mov r1, lr\n\t"
                     "tst r0, r1\n\t"
                     "beq 1f\n\t"
                     "mrs r3, psp\n\t"
                     "b 2f\n"
                     "1:\n\t"
                     "mrs r3, msp\n"
                     "2:\n\t"
                     "ldr r1, [r3, #24]\n\t"
                     "ldr r2, [r3, #20]\n\t"
                     "mrs r0, ipsr\n\t"
                     "bl cygtrace_fault\n\t"
                     "bl cygtrace_cm_fault_hook\n"
                     "3:\n\t"
                     "b 3b\n");
}

#ifdef CYG_PORT_HOOKS
/* The hooks, in assembly: one literal and one LDM of cyg_rt.last and cyg_rt.hot. The record's
 * words sit 40 bytes past head (the records follow the 128-byte control block, head is at
 * 88): no pointer to them is read. Word a = (fn & ~1) | exit: the exit hook takes this_fn as
 * given, bit 0 set (a Thumb function's address), the enter hook clears it and falls into the
 * exit hook. Word b = the lap bit, bit cap_log2 of the sequence number inverted (FORMAT.md 4),
 * then the special flag, 0, then the timestamp's 30 bits.
 *
 * Mainline cores (ARMv7-M, ARMv8-M mainline) take the LDM's last word into PC: the hooks go
 * on where the ring's state sends them (hot.cont), so that the usual case, running in
 * overwrite mode with nothing armed, compares nothing with last but 0 (the host clears last to
 * send them to the slow path while cont still says running; FORMAT.md 2.7):
 *   cyg_cm_ovw   reserve (LDREX/STREX, retried from the top when an interrupt came in
 *                between), the clock, the record
 *   cyg_cm_stop  the same, once the sequence number LDREX read is found not past last; past
 *                it, cyg_core_full() without reserving
 *   cyg_cm_slow  not running, or triggers and filters armed: cyg_core_slow(a, 0)
 * Baseline cores (ARMv6-M, ARMv8-M baseline) have no CBZ nor LDM into PC: one comparison of
 * the sequence number with last inside the PRIMASK section does for all three (not running,
 * hot.head points at a word that reads ~0, cyg_cm_no_head, so the comparison sends the event
 * out before anything is written). */
_Static_assert(CYG_HDR_BYTES - CYG_OFF_HEAD == 40, "the hooks find the records at head + 40");
_Static_assert(offsetof(struct cyg_rt, last) == 4 && offsetof(struct cyg_rt, hot) == 8 &&
                   offsetof(struct cyg_port_hot, cont) == 16,
               "the hooks' LDM takes last, head, mask, k, x and cont from cyg_rt + 4");

/* Where the mainline hooks go on (baseline ones have no cont). */
void cyg_cm_ovw(void) __attribute__((visibility("hidden")));
void cyg_cm_stop(void) __attribute__((visibility("hidden")));

#if CYG_CM_BASELINE
const uintptr_t cyg_cm_no_head = ~(uintptr_t)0;
#endif

NOINSTR void cyg_port_hooks(uintptr_t last)
{
    uint32_t primask;

    /* Masked: a hook in an interrupt sees last and cont (head) from the same call, and an
     * interrupt that changes the state (a full ring, a freeze) is not undone by the rest of
     * this one. The rest of hot is the static ring's, from the start (CYG_PORT_HOT_INIT). */
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    cyg_rt.last = last;
#if CYG_CM_BASELINE
    cyg_rt.hot.head = last == 0 ? (volatile uintptr_t *)&cyg_cm_no_head : CYG_CM_HEAD;
#else
    cyg_rt.hot.cont = last == 0                                      ? (uintptr_t)cyg_cm_slow
                      : !CYGTRACE_STOP_MODE || last == ~(uintptr_t)0 ? (uintptr_t)cyg_cm_ovw
                                                                     : (uintptr_t)cyg_cm_stop;
#endif
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

#define CYG_CM_FN(name)                                                                            \
    ".global " #name "\n\t.type " #name ", %function\n\t.thumb_func\n" #name ":\n\t"
#define CYG_CM_LOCAL(name)                                                                         \
    ".global " #name "\n\t.hidden " #name "\n\t.type " #name ", %function\n\t.thumb_func\n" #name \
    ":\n\t"

/* Word b before its lap bit (mainline): the timestamp (r6), or x, that bit alone (r5). */
#if CYGTRACE_TIMESTAMPS && (CYGTRACE_CM_CLOCK == 1 || CYGTRACE_CM_CLOCK == 2)
#define CYG_CM_B "r6"
#else
#define CYG_CM_B "r5"
#endif

/* In .text.__cyg_profile_func_enter, which the examples' linker script places with the clock
 * between __cygtrace_hooks_start and _end (the stress tests' interrupts aim there). */
__asm__(".pushsection .text.__cyg_profile_func_enter,\"ax\",%progbits\n\t"
        ".syntax unified\n\t"
        ".thumb\n\t"
        ".p2align 2\n\t"
#if !CYG_CM_BASELINE
        CYG_CM_FN(__cyg_profile_func_enter)
        "bic r0, r0, #1\n\t" /* word a: entry */
        CYG_CM_FN(__cyg_profile_func_exit)
        "push {r4, r5, r6, lr}\n"
        "1:\n\t"
        "ldr r3, =cyg_rt + 4\n\t"
        "ldm r3, {r1, r2, r3, r4, r5, pc}\n\t" /* last, head, mask, k, x; on at cont */
#if CYGTRACE_STOP_MODE
        CYG_CM_LOCAL(cyg_cm_stop)
        "cbz r1, 7f\n\t"
        "ldrex r12, [r2]\n\t"
        "cmp r12, r1\n\t"
        "bhi 8f\n\t" /* full: no reservation */
        "b 2f\n\t"
#endif
        CYG_CM_LOCAL(cyg_cm_ovw)
        "cbz r1, 7f\n\t"
        "ldrex r12, [r2]\n" /* seq = head++ */
        "2:\n\t"
        "add r6, r12, #1\n\t"
        "strex r1, r6, [r2]\n\t"
        "cbnz r1, 9f\n\t"
#if CYGTRACE_TIMESTAMPS && CYGTRACE_CM_CLOCK == 3
        /* Word a before the call, b after it, in the slot: r6 and r5 survive the call. */
        "and r6, r12, r3\n\t"
        "add r6, r2, r6, lsl #3\n\t"
        "str r0, [r6, #40]\n\t"
        "lsr r12, r12, r4\n\t"
        "bic r5, r5, r12, lsl #31\n\t" /* the lap bit alone */
        "bl cygtrace_user_clock\n\t"
        "bfi r5, r0, #0, #30\n\t"      /* under the timestamp */
        "str r5, [r6, #44]\n\t"
#else
#if CYGTRACE_TIMESTAMPS && CYGTRACE_CM_CLOCK == 1
        "ldr r6, [r5, #2]\n\t"
        "bfi r6, r5, #30, #2\n\t"
#elif CYGTRACE_TIMESTAMPS && CYGTRACE_CM_CLOCK == 2
        "ldr r6, [r5, #-2]\n\t"
        "mvn r6, r6\n\t" /* SysTick counts down */
        "bfi r6, r5, #30, #2\n\t"
#endif
        "lsr r1, r12, r4\n\t"
        "bic r6, " CYG_CM_B ", r1, lsl #31\n\t" /* the lap bit */
        "and r12, r12, r3\n\t"
        "add r2, r2, r12, lsl #3\n\t"
        "strd r0, r6, [r2, #40]\n\t" /* both words: CYG_PORT_STORE_PAIR says why that is safe */
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
        CYG_CM_FN(__cyg_profile_func_enter)
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
#elif CYGTRACE_TIMESTAMPS && CYGTRACE_CM_CLOCK == 2
        "ldr r6, [r6]\n\t"
        "mvns r6, r6\n\t" /* SysTick counts down */
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
        ".size __cyg_profile_func_enter, . - __cyg_profile_func_enter\n\t"
        ".size __cyg_profile_func_exit, . - __cyg_profile_func_exit\n\t"
        ".popsection");
#endif
