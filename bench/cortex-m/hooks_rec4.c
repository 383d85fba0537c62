/* SPDX-License-Identifier: MIT */
/* hooks_rec4.c - the version 4 hook of docs/FORMAT.md 14.6 (one 32-bit word an event) on
 * ARMv7-M/v8-M mainline, alone with its ring, for bench/cortex-m/run.sh to count against the
 * runtime's version 3 hook: the same LDM of the hot words, dispatch through cont, LDREX/STREX,
 * the clock read inside the reservation and tested against the epoch, one STR. A clock whose
 * bits from T - 1 up moved sends the event to rec4_time(), which writes a TIME record and the
 * epoch, then the hook starts over. The clock is SysTick's current value, free-running (QEMU
 * has no DWT: the runtime's DWT variant reads SysTick there too).
 *
 * Also the stubs for what startup.c calls in the runtime (as hooks_empty.c), and
 * bench_recorded() for fib.c: the call records written (the TIME records' words apart), which
 * run.sh checks against the events. */
#include <stdint.h>

#include "cyg_format.h"

#define NOINSTR __attribute__((no_instrument_function))
#define K 10u /* 1024 records: 4 KiB, as the runtime's default ring holds 512 of 8 bytes */
#define F CYG4_FN_DEFAULT
#define T (30u - F)

static uint32_t rec4_ring[1u << K];
static volatile uint32_t rec4_head;
static uint32_t rec4_times; /* words of TIME records */

/* What the hook loads in one LDM: last, head, records, clock, epoch, cont. */
struct rec4_hot {
    uint32_t last;
    volatile uint32_t *head;
    uint32_t *recs;
    uint32_t clock;
    uint32_t epoch;
    uint32_t cont;
};
void rec4_ovw(void);
struct rec4_hot rec4_hot = {~0u, &rec4_head, rec4_ring, 0xE000E018u, ~0u, (uint32_t)rec4_ovw};

/* The clock c left the epoch: a TIME record of it (n + 1 words reserved at once), then the
 * epoch. Interrupts masked around the reservation: one core. */
NOINSTR __attribute__((used)) void rec4_time(uint32_t c)
{
    unsigned n = cyg4_special_words(0, c);
    uint32_t primask, seq;

    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    seq = rec4_head;
    rec4_head = seq + n;
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    for (unsigned i = n; i-- > 0;)
        rec4_ring[(seq + i) & ((1u << K) - 1)] = cyg4_special_word(i, CYG_SP_TIME, 0, c, seq, K, n);
    rec4_hot.epoch = c >> (T - 1);
    rec4_times += n;
}

#define S_(x) #x
#define S(x) S_(x)

NOINSTR __attribute__((naked)) void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn;
    (void)site;
    __asm__ volatile(".syntax unified\n\t"
                     "bic r0, r0, #1\n\t"
                     ".global __cyg_profile_func_exit\n\t"
                     ".type __cyg_profile_func_exit, %function\n\t"
                     ".thumb_func\n"
                     "__cyg_profile_func_exit:\n\t"
                     "push {r4, r5, r6, lr}\n"
                     "1:\n\t"
                     "ldr r3, =rec4_hot\n\t"
                     "ldm r3, {r1, r2, r4, r5, r6, pc}\n\t"
                     ".global rec4_ovw\n\t"
                     ".type rec4_ovw, %function\n\t"
                     ".thumb_func\n"
                     "rec4_ovw:\n\t"
                     "ldrex r12, [r2]\n\t"
                     "ldr r3, [r5]\n\t"
                     "cmp r6, r3, lsr #" S(T - 1) "\n\t"
                     "bne 8f\n\t"
                     "add r1, r12, #1\n\t"
                     "strex r6, r1, [r2]\n\t"
                     "cbnz r6, 9f\n\t"
                     "bfi r0, r12, #" S(30 - K) ", #" S(K + 1) "\n\t"
                     "bfi r0, r3, #" S(F) ", #" S(T) "\n\t"
                     "ubfx r12, r12, #0, #" S(K) "\n\t"
                     "str r0, [r4, r12, lsl #2]\n\t"
                     "pop {r4, r5, r6, pc}\n"
                     "9:\n\t"
                     "b 1b\n" /* an interrupt came in between */
                     "8:\n\t"
                     "clrex\n\t"
                     "mov r4, r0\n\t"
                     "mov r0, r3\n\t"
                     "bl rec4_time\n\t"
                     "mov r0, r4\n\t"
                     "b 1b\n\t"
                     ".ltorg");
}

NOINSTR uint32_t bench_recorded(void)
{
    return rec4_head - rec4_times;
}

NOINSTR int cygtrace_cm_init(uint32_t clock_hz)
{
    volatile uint32_t *syst = (volatile uint32_t *)0xE000E010u;

    (void)clock_hz;
    syst[1] = 0xFFFFFFu;
    syst[2] = 0;
    syst[0] = 5u; /* free-running from the core clock, no interrupt */
    for (unsigned i = 0; i < (1u << K); i++)
        rec4_ring[i] = CYG4_FILL;
    return 0;
}

NOINSTR void cygtrace_fault_handler(void)
{
    for (;;)
        ;
}
