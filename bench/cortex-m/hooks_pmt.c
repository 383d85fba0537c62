/* SPDX-License-Identifier: MIT */
/* hooks_pmt.c - the hooks of Erich Styger's "Poor Man's Trace" (mcuoneclipse.com, 2015), as that
 * design reads when written down plainly, for bench/cortex-m/run.sh to compare against:
 *
 *   - a global flag turns recording on and off, tested by both hooks;
 *   - an element is { is_enter, this_fn, call_site }: 9 bytes, 12 with the alignment;
 *   - the ring is an array with an input index and a fill count, the index wrapping by a
 *     compare (no power-of-two mask), both updated, and the element stored, inside a critical
 *     section that saves PRIMASK, masks interrupts and puts PRIMASK back afterwards.
 *
 * One change, so that both sides do the same job: the original refuses an element when the
 * ring is full, and every event after the first PMT_RECORDS would then cost only the test. Here
 * a full ring drops its oldest element instead (a flight recorder, like cygtrace's default
 * overwrite mode): the output index moves on, the count stays.
 *
 * The original records no time. Built with -DPMT_TIMESTAMP=1, each element also gets the board
 * timer (cygtrace_user_clock(), the same clock as cygtrace's CYGTRACE_CM_CLOCK=3) read inside
 * the critical section, so that timestamps stay in order: the variant to hold against cygtrace
 * with the board timer, while the plain one compares with cygtrace without timestamps.
 *
 * Also the stubs for what startup.c calls in the runtime (as hooks_empty.c), and
 * bench_recorded() for fib.c: the elements written, modulo PMT_RECORDS. */
#include <stdbool.h>
#include <stdint.h>

#define NOINSTR __attribute__((no_instrument_function))

#ifndef PMT_RECORDS
#define PMT_RECORDS 512u /* the ring cygtrace's Cortex-M runtime gets by default */
#endif
#ifndef PMT_TIMESTAMP
#define PMT_TIMESTAMP 0
#endif

struct pmt_element {
    bool is_enter;
    void *this_fn;
    void *call_site;
#if PMT_TIMESTAMP
    uint32_t time;
#endif
};

static struct pmt_element pmt_ring[PMT_RECORDS];
static uint16_t pmt_in;    /* the next element to write */
static uint16_t pmt_out;   /* the oldest element, where a reader would start */
static uint16_t pmt_count; /* elements between out and in */
static volatile bool pmt_enabled = true;

#if PMT_TIMESTAMP
uint32_t cygtrace_user_clock(void); /* the board's timer, going up */
#endif

NOINSTR static void pmt_store(bool is_enter, void *this_fn, void *call_site)
{
    struct pmt_element *e;
    uint32_t primask;

    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    if (pmt_count == PMT_RECORDS) {
        if (++pmt_out == PMT_RECORDS)
            pmt_out = 0;
        pmt_count--;
    }
    e = &pmt_ring[pmt_in];
    e->is_enter = is_enter;
    e->this_fn = this_fn;
    e->call_site = call_site;
#if PMT_TIMESTAMP
    e->time = cygtrace_user_clock();
#endif
    if (++pmt_in == PMT_RECORDS)
        pmt_in = 0;
    pmt_count++;
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

NOINSTR void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    if (pmt_enabled)
        pmt_store(true, this_fn, call_site);
}

NOINSTR void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    if (pmt_enabled)
        pmt_store(false, this_fn, call_site);
}

/* Returns the elements written so far, modulo PMT_RECORDS: fib.c prints it, run.sh checks it
 * against the events the workload makes. */
NOINSTR uint32_t bench_recorded(void)
{
    return pmt_in;
}

NOINSTR int cygtrace_cm_init(uint32_t clock_hz)
{
    (void)clock_hz;
    return 0;
}

NOINSTR void cygtrace_fault_handler(void)
{
    for (;;)
        ;
}
