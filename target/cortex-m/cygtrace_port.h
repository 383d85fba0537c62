/* SPDX-License-Identifier: MIT */
/* cygtrace_port.h (cortex-m) - the port contract of cygtrace_internal.h for Cortex-M cores:
 * ARMv6-M (M0, M0+), ARMv7-M (M3, M4, M7) and ARMv8-M (M23, M33), one source for all.
 *
 * Reservation: LDREX/STREX on ARMv7-M and ARMv8-M mainline, lock-free: exception entry and
 * return clear the exclusive monitor, so an interrupt that reserves in between makes our STREX
 * fail and we retry. ARMv6-M and ARMv8-M baseline (no exclusives on v6-M, and the same code for
 * both) mask interrupts for the three instructions of the increment instead.
 *
 * Its settings (besides those of cygtrace_config.h; set them with -D) follow, each with its
 * default. */
#ifndef CYGTRACE_PORT_H
#define CYGTRACE_PORT_H

#include <stdint.h>

#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
#define CYG_CM_BASELINE 1 /* no exclusives (v6-M), no DWT cycle counter, Thumb-1 mostly */
#else
#define CYG_CM_BASELINE 0
#endif

/* Timestamp clock: 0 none, 1 DWT CYCCNT (the core clock), 2 SysTick (24 bits, counting down;
 * free-running with reload 0xFFFFFF for durations that mean something), 3 a function of yours,
 * uint32_t cygtrace_user_clock(void), that returns a counter going up (a board timer), 4 a
 * counter the hooks read themselves at the address CYGTRACE_CM_CLOCK_ADDR (a board timer's
 * count register: 4 instructions an event fewer than a function of yours, and no call).
 * Default: 1 where the core has a cycle counter, else 2. */
#ifndef CYGTRACE_CM_CLOCK
#if CYG_CM_BASELINE
#define CYGTRACE_CM_CLOCK 2
#else
#define CYGTRACE_CM_CLOCK 1
#endif
#endif

/* CYGTRACE_CM_CLOCK 1 with the port's hooks (CYGTRACE_CM_ASM_HOOKS): 1 to fall back to SysTick
 * at init when the cycle counter does not count once enabled (QEMU has no DWT; some parts keep
 * it off without a debugger), so that durations are real there too (the hooks are the same;
 * 76 bytes of init code on the M3); 0 to keep the cycle counter whatever it does (the host then
 * says that the clock did not run). An RTOS that later makes SysTick its tick (FreeRTOS does)
 * leaves the fallback's durations good within one tick only: a board timer there
 * (CYGTRACE_CM_CLOCK=4). Default: 1. */
#ifndef CYGTRACE_CM_CLOCK_FALLBACK
#define CYGTRACE_CM_CLOCK_FALLBACK 1
#endif
#if CYGTRACE_CM_CLOCK_FALLBACK != 0 && CYGTRACE_CM_CLOCK_FALLBACK != 1
#error "CYGTRACE_CM_CLOCK_FALLBACK must be 0 or 1"
#endif

/* Width in bits of the counter of CYGTRACE_CM_CLOCK 3 or 4. Default: 32. */
#ifndef CYGTRACE_CM_USER_CLOCK_BITS
#define CYGTRACE_CM_USER_CLOCK_BITS 32
#endif

/* CYGTRACE_CM_CLOCK 4: the counter's address (a 32-bit register, word-aligned; no default),
 * and CYGTRACE_CM_CLOCK_DOWN 1 when it counts down (the hooks invert it). Default: 0. Start
 * the timer before cygtrace_cm_init(). */
#ifndef CYGTRACE_CM_CLOCK_DOWN
#define CYGTRACE_CM_CLOCK_DOWN 0
#endif
#if CYGTRACE_CM_CLOCK == 4 && !defined(CYGTRACE_CM_CLOCK_ADDR)
#error "CYGTRACE_CM_CLOCK=4 reads a counter at CYGTRACE_CM_CLOCK_ADDR: define it (-D...=0x...)"
#endif

/* Call sites cost a runtime test on every event when chosen at run time (CYGTRACE_CALLSITES 2),
 * and nothing on a firmware chooses them at run time: default 0 here. Build the runtime with
 * -DCYGTRACE_CALLSITES=1 for 16-byte records with call sites (--style=braces). */
#ifndef CYGTRACE_CALLSITES
#define CYGTRACE_CALLSITES 0
#endif

/* The public header: its settings, and the firmware defaults of cygtrace_config.h, before
 * the core reads them. */
#include "cygtrace_cm.h"

/* The clocks the hooks read from memory (1, 2, 4): where, and whether it counts down. */
#if CYGTRACE_CM_CLOCK == 1
#define CYG_CM_CLK_ADDR 0xE0001004u /* DWT CYCCNT */
#define CYG_CM_CLK_DOWN 0
#elif CYGTRACE_CM_CLOCK == 2
#define CYG_CM_CLK_ADDR 0xE000E018u /* SysTick CVR */
#define CYG_CM_CLK_DOWN 1
#elif CYGTRACE_CM_CLOCK == 4
#define CYG_CM_CLK_ADDR CYGTRACE_CM_CLOCK_ADDR
#define CYG_CM_CLK_DOWN CYGTRACE_CM_CLOCK_DOWN
#endif
#if CYGTRACE_TIMESTAMPS && (CYGTRACE_CM_CLOCK == 1 || CYGTRACE_CM_CLOCK == 2 || \
                            CYGTRACE_CM_CLOCK == 4)
#define CYG_CM_MMIO 1
#else
#define CYG_CM_MMIO 0
#undef CYG_CM_CLK_ADDR
#define CYG_CM_CLK_ADDR 0u /* none read */
#endif

/* The hooks: 1 the port's own, in assembly (cygtrace_cm_hooks.h: per core the fewest
 * instructions, the format, the lap bit and interrupt safety as the core's), 0 the portable
 * core's, in C (which records with call sites take in any case, CYGTRACE_CALLSITES=1).
 * Default: 1. */
#ifndef CYGTRACE_CM_ASM_HOOKS
#define CYGTRACE_CM_ASM_HOOKS 1
#endif

#if CYGTRACE_CM_ASM_HOOKS != 0 && CYGTRACE_CM_ASM_HOOKS != 1
#error "CYGTRACE_CM_ASM_HOOKS must be 0 or 1"
#endif
#if CYGTRACE_CM_ASM_HOOKS && CYGTRACE_CALLSITES == 0
/* The hooks of cygtrace_cm_hooks.h. They load cyg_rt.last and this in one LDM (that file says
 * what each word is for). They are compiled with the static ring (cygtrace_static.c includes
 * CYG_PORT_STATIC_HOOKS), so that its capacity is in their instructions: a firmware that gives
 * the ring another size (CYGTRACE_CM_BUFFER_BYTES) to that file gets hooks for that size. */
#define CYG_PORT_HOOKS 1
#define CYG_PORT_STATIC_HOOKS "cygtrace_cm_hooks.h"
#if CYGTRACE_REC4 && CYG_CM_BASELINE && CYGTRACE_CM_ASM_HOOKS && CYGTRACE_CALLSITES == 0
#error "CYGTRACE_REC4=1 on ARMv6-M and ARMv8-M baseline: the core's C hooks (-DCYGTRACE_CM_ASM_HOOKS=0), for now"
#elif CYGTRACE_REC4
/* Version 4 (FORMAT.md 14.6): the records, and the clock's epoch, in the same LDM. */
struct cyg_port_hot {
    volatile uintptr_t *head; /* &ctl->head.v */
    uintptr_t *recs;          /* the first record */
#if CYG_CM_MMIO
    uintptr_t clock;          /* the counter's address, CYG_CM_CLK_ADDR */
    uintptr_t epoch;          /* the clock's bits from T - 1 up at the last TIME record */
#endif
    uintptr_t cont;           /* cyg_cm_ovw, cyg_cm_stop or cyg_cm_slow */
#if !CYG_CM_MMIO
    uintptr_t epoch;          /* unused without a clock the hooks read */
#endif
};
#elif !CYG_CM_BASELINE
struct cyg_port_hot {
    volatile uintptr_t *head; /* &ctl->head.v */
    uintptr_t lap;            /* 0x80000000: word b's lap bit, which BIC clears on odd laps */
#if CYG_CM_MMIO
    uintptr_t clock;          /* the counter's address, CYG_CM_CLK_ADDR */
#endif
    uintptr_t cont;           /* cyg_cm_ovw, cyg_cm_stop or cyg_cm_slow */
};
#else
struct cyg_port_hot {
    volatile uintptr_t *head; /* &ctl->head.v; not running: cyg_cm_no_head */
    uintptr_t mask;           /* (capacity - 1) * 8, a slot's offset */
    uintptr_t k;              /* cap_log2 */
    uintptr_t x;              /* SysTick's current value register, or the counter's address */
};
#endif
/* Where the mainline hooks go on (baseline ones have no cont; cyg_cm_slow is both kinds'). */
void cyg_cm_ovw(void) __attribute__((visibility("hidden")));
void cyg_cm_stop(void) __attribute__((visibility("hidden")));
void cyg_cm_slow(void) __attribute__((visibility("hidden")));
extern const uintptr_t cyg_cm_no_head __attribute__((visibility("hidden")));
/* The ring is the static one (cygtrace_static.h): all but last, cont and (baseline cores) head
 * are constants from the start, so that cyg_port_hooks() writes only those. */
#define CYG_CM_HEAD (&((struct cyg_ctl *)(void *)CYG_PORT_STATIC_MEM)->head.v)
#define CYG_CM_RECS ((uintptr_t *)(void *)(CYG_PORT_STATIC_MEM + CYG_HDR_BYTES))
#if CYGTRACE_REC4 && CYG_CM_MMIO
#define CYG_PORT_HOT_INIT                                                                          \
    {                                                                                              \
        .head = CYG_CM_HEAD, .recs = CYG_CM_RECS, .clock = CYG_CM_CLK_ADDR, .epoch = ~0u,          \
        .cont = (uintptr_t)cyg_cm_slow                                                             \
    }
#elif CYGTRACE_REC4
#define CYG_PORT_HOT_INIT                                                                          \
    {                                                                                              \
        .head = CYG_CM_HEAD, .recs = CYG_CM_RECS, .cont = (uintptr_t)cyg_cm_slow                   \
    }
#elif !CYG_CM_BASELINE && CYG_CM_MMIO
#define CYG_PORT_HOT_INIT                                                                          \
    {                                                                                              \
        .head = CYG_CM_HEAD, .lap = 0x80000000u, .clock = CYG_CM_CLK_ADDR,                         \
        .cont = (uintptr_t)cyg_cm_slow                                                             \
    }
#elif !CYG_CM_BASELINE
#define CYG_PORT_HOT_INIT                                                                          \
    {                                                                                              \
        .head = CYG_CM_HEAD, .lap = 0x80000000u, .cont = (uintptr_t)cyg_cm_slow                    \
    }
#else
#define CYG_PORT_HOT_INIT                                                                          \
    {                                                                                              \
        .head = (volatile uintptr_t *)&cyg_cm_no_head, .mask = CYG_PORT_STATIC_MASK << 3,          \
        .k = CYG_PORT_STATIC_LOG2, .x = CYG_CM_MMIO ? CYG_CM_CLK_ADDR : 0u                         \
    }
#endif
void cyg_port_hooks(uintptr_t last) __attribute__((visibility("hidden")));
#endif

#include "cygtrace_internal.h"

#if CYGTRACE_CM_CLOCK < 0 || CYGTRACE_CM_CLOCK > 4
#error "CYGTRACE_CM_CLOCK must be 0 (none), 1 (DWT), 2 (SysTick), 3 (a function) or 4 (an address)"
#endif
#if CYGTRACE_CM_CLOCK == 1 && CYG_CM_BASELINE
#error "CYGTRACE_CM_CLOCK=1: ARMv6-M and ARMv8-M baseline cores have no DWT cycle counter"
#endif
#if CYGTRACE_CM_USER_CLOCK_BITS < 8 || CYGTRACE_CM_USER_CLOCK_BITS > 32
#error "CYGTRACE_CM_USER_CLOCK_BITS must be 8..32"
#endif
#if CYGTRACE_CALLSITES == 2
#error "CYGTRACE_CALLSITES=2 (chosen at run time) is not for Cortex-M: use 0 or 1"
#endif
#if CYGTRACE_REC4 && (CYGTRACE_CALLSITES != 0 || \
                      (CYGTRACE_CM_ASM_HOOKS && CYGTRACE_TIMESTAMPS && !CYG_CM_MMIO))
#error "CYGTRACE_REC4=1: no call sites, and the port's hooks want a clock they read (CYGTRACE_CM_CLOCK 1, 2 or 4; a function's: -DCYGTRACE_CM_ASM_HOOKS=0)"
#endif

#define CYG_PORT_MACHINE 40u /* EM_ARM */

/* The host unwraps timestamps at the clock's width (ts_bits in the control block). */
#if CYGTRACE_CM_CLOCK == 2
#define CYG_PORT_TS_BITS 24
#elif CYGTRACE_CM_CLOCK >= 3
#define CYG_PORT_TS_BITS CYGTRACE_CM_USER_CLOCK_BITS
#endif

#define CYG_CM_REG(a) (*(volatile uint32_t *)(a))
#define CYG_CM_SYST_CVR_ADDR 0xE000E018u /* SysTick's current value */
#define CYG_CM_SYST_CVR CYG_CM_REG(CYG_CM_SYST_CVR_ADDR)

#if CYGTRACE_CM_CLOCK == 3
uint32_t cygtrace_user_clock(void);
#endif

#define CYG_CM_INLINE __attribute__((no_instrument_function, always_inline)) static inline

CYG_CM_INLINE uintptr_t cyg_port_reserve(volatile uintptr_t *head)
{
    uint32_t old;
#if CYG_CM_BASELINE
    uint32_t primask;

    /* PRIMASK, not CPSIE: a hook called with interrupts already masked leaves them masked. */
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    old = *head;
    *head = old + 1u;
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
#else
    uint32_t fail, next;

    /* One asm block: nothing the compiler could put between LDREX and STREX (a spill, say)
     * can clear the monitor and make the loop spin. */
    __asm__ volatile("1: ldrex %0, [%3]\n\t"
                     "adds %2, %0, #1\n\t"
                     "strex %1, %2, [%3]\n\t"
                     "cmp %1, #0\n\t"
                     "bne 1b"
                     : "=&r"(old), "=&r"(fail), "=&r"(next)
                     : "r"(head)
                     : "cc", "memory");
#endif
    return old;
}

/* cyg_port_reserve, adding n (a version 4 special's slots, in one step). */
CYG_CM_INLINE uintptr_t cyg_port_reserve_n(volatile uintptr_t *head, uintptr_t n)
{
    uint32_t old;
#if CYG_CM_BASELINE
    uint32_t primask;

    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    old = *head;
    *head = old + n;
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
#else
    uint32_t fail, next;

    __asm__ volatile("1: ldrex %0, [%3]\n\t"
                     "adds %2, %0, %4\n\t"
                     "strex %1, %2, [%3]\n\t"
                     "cmp %1, #0\n\t"
                     "bne 1b"
                     : "=&r"(old), "=&r"(fail), "=&r"(next)
                     : "r"(head), "r"(n)
                     : "cc", "memory");
#endif
    return old;
}

#if CYG_CM_BASELINE
/* The compiler would call __atomic_compare_exchange_1, which bare-metal toolchains lack. */
#define CYG_PORT_CAS_STATE 1
CYG_CM_INLINE int cyg_port_cas_state(volatile uint8_t *state, uint8_t from, uint8_t to)
{
    uint32_t primask;
    int ok;

    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    ok = *state == from;
    if (ok)
        *state = to;
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    return ok;
}
#endif

/* The DWT clock with the port's hooks falls back to SysTick when the cycle counter does not
 * count at init (CYGTRACE_CM_CLOCK_FALLBACK): the hooks read whatever counter hot.clock points
 * at, so pointing it at SysTick's current value costs them nothing. SysTick counts down: the
 * ring says so (CYG_F_TS_DOWN, ts_bits 24) and the host inverts. The core's C hooks read DWT's
 * address as a constant: no fallback there. */
#if defined(CYG_PORT_HOOKS) && CYGTRACE_CM_CLOCK == 1 && CYG_CM_MMIO && \
    CYGTRACE_CM_CLOCK_FALLBACK
#define CYG_CM_FALLBACK 1
#else
#define CYG_CM_FALLBACK 0
#endif

CYG_CM_INLINE uintptr_t cyg_port_now(void)
{
#if CYG_CM_FALLBACK
    return *(volatile uint32_t *)cyg_rt.hot.clock; /* what the hooks read */
#elif CYG_CM_MMIO
    return CYG_CM_CLK_DOWN ? ~CYG_CM_REG(CYG_CM_CLK_ADDR) : CYG_CM_REG(CYG_CM_CLK_ADDR);
#elif CYGTRACE_CM_CLOCK == 3
    return cygtrace_user_clock();
#else
    return 0;
#endif
}

#if !CYG_CM_BASELINE
/* A record's two words in one STRD: one instruction less than two STRs with their address
 * computed once (the hook's fast path is counted in instructions). Nothing else on this core
 * sees the record half done with b but not a: an interrupt abandons a STRD and restarts it
 * whole on return, and a STRD that was cut short wrote its lower word, a, first (M3/M4/M33:
 * two beats in ascending order on the bus; M7: one 64-bit beat, records are 8-aligned); a
 * halted core stops between instructions. Baseline cores have no STRD: two STRs. */
#define CYG_PORT_STORE_PAIR 1
CYG_CM_INLINE void cyg_port_store_pair(uintptr_t *r, uintptr_t a, uintptr_t b)
{
    __asm__ volatile("strd %1, %2, [%0]" ::"r"(r), "r"(a), "r"(b) : "memory");
}
#endif

/* The control area's depth and hide filters count apart in thread mode and in handler mode:
 * interrupts nest and return, so one state serves them all; the code they interrupt keeps its
 * own. (An RTOS's tasks share the thread mode's.) */
#define CYG_PORT_TSTATE 1
extern uint32_t cyg_cm_tstate[2][3] __attribute__((visibility("hidden")));

CYG_CM_INLINE uint32_t *cyg_port_tstate(void)
{
    uint32_t ipsr;

    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    return cyg_cm_tstate[ipsr != 0];
}

/* Starts SysTick (SYST_CSR, RVR, CVR: syst[0..2]) free-running over its 24 bits from the core
 * clock, unless an application (an RTOS tick) runs it already: that keeps its reload. Returns
 * whether it started it. */
CYG_CM_INLINE int cyg_cm_systick_start(volatile uint32_t *syst)
{
    if (syst[0] & 1u) /* ENABLE */
        return 0;
    syst[1] = 0xFFFFFFu;
    syst[2] = 0;
    syst[0] = 5u; /* enable, core clock, no interrupt */
    return 1;
}

/* Starts the clock the hooks read at boot (cygtrace_cm_init()), unless it is the user's or
 * already running. A cycle counter that does not count once enabled (two reads alike: the PPB
 * serialises them, cycles apart) gives way to SysTick (CYG_CM_FALLBACK), when the runtime can
 * have it to itself: a SysTick that an application runs already wraps at its own reload, and
 * would give durations wrong by up to 2^24 ticks (the host says, rather, that the clock did
 * not run). */
CYG_CM_INLINE void cyg_port_clock_start(void)
{
    volatile uint32_t *syst = &CYG_CM_REG(0xE000E010u);

#if CYGTRACE_CM_CLOCK == 1
    CYG_CM_REG(0xE000EDFCu) |= 1u << 24; /* DEMCR.TRCENA */
    CYG_CM_REG(0xE0001FB0u) = 0xC5ACCE55u; /* DWT LAR: some M7 parts lock the DWT; elsewhere
                                              write-ignored */
    if (!(CYG_CM_REG(0xE0001000u) & (1u << 25))) /* DWT CTRL.NOCYCCNT */
        CYG_CM_REG(0xE0001000u) |= 1u << 0; /* CYCCNTENA */
#if CYG_CM_FALLBACK
    __asm__("" : "+r"(syst)); /* in a register: CVR's address is that plus 8, no literal */
    if (CYG_CM_REG(0xE0001004u) == CYG_CM_REG(0xE0001004u) && cyg_cm_systick_start(syst)) {
        /* Counting once it left the 0 the start wrote: a core does in a cycle, QEMU when its
         * main loop gets round to the reload (a program that ran before would read 0 all
         * along); one that never does is no clock either. */
        uint32_t n = 1u << 20;

        while (!syst[2] && --n)
            ;
        if (n)
            cyg_rt.hot.clock = (uintptr_t)&syst[2]; /* CYG_CM_SYST_CVR_ADDR */
    }
#endif
#elif CYGTRACE_CM_CLOCK == 2
    /* Durations of a SysTick that an application reloads are good within its period only. */
    (void)cyg_cm_systick_start(syst);
#endif
    (void)syst;
}

/* 0, or the width of the clock that counts down which cyg_port_clock_start() fell back to:
 * the ring says CYG_F_TS_DOWN and that ts_bits. Bit 15 of the counter's address tells it:
 * SysTick's (0xE000E018) has it, DWT CYCCNT's (0xE0001004) not. */
CYG_CM_INLINE unsigned cyg_port_clock_down(void)
{
#if CYG_CM_FALLBACK
    _Static_assert((CYG_CM_SYST_CVR_ADDR & 0x8000u) && !(CYG_CM_CLK_ADDR & 0x8000u),
                   "bit 15 tells SysTick from DWT");
    return (cyg_rt.hot.clock & 0x8000u) ? 24u : 0u;
#else
    return 0;
#endif
}

/* The ring in a static buffer (target/core/cygtrace_static.c), under cygtrace_cm.h's names and
 * settings, and the rest of the contract, as every single-core bare-metal port has it. */
#define CYG_STATIC_API(name) cygtrace_cm_##name
#define CYG_STATIC_BYTES CYGTRACE_CM_BUFFER_BYTES
#define CYG_STATIC_KEEP CYGTRACE_CM_KEEP
#include "cygtrace_static.h"

#endif
