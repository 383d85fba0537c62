/* stress.c - interrupts that record in the middle of a record. The main loop calls a chain of
 * instrumented functions of varying depth while a fast timer interrupt (SysTick on the MPS2
 * boards; the nRF51 has none: TIMER1 there) calls an instrumented chain of its own, so that
 * interrupts land inside the hooks thousands of times, between a reservation and its commit
 * included (over a thousand times within the 32768 records of the MPS2 boards' ring, some sixty
 * within the micro:bit's 1024). The ring stops when full (cygtrace_set_mode), so nothing is
 * overwritten and every event is either in it or counted as lost. At the end the firmware
 * prints what it knows:
 *
 *     stress: main=<calls> isr=<calls> isr_fit=<ISR chains whose first entry fit> \
 *             window=<interrupts between a reservation and its commit>
 *     stress: done
 *
 * tests/e2e/fw_stress.sh checks the pulled trace against these counts. */
#include "board.h"
#include "cyg_format.h"
#include "cygtrace_cm.h"

#define NOINSTR BOARD_NOINSTR
#define STRESS_STEPS 6000u /* main-loop steps: work_step() calls */
#define STRESS_DEPTH 6u    /* work_dive() nests 1..STRESS_DEPTH deep */

#define REG(a) (*(volatile uint32_t *)(a))
#ifdef BOARD_NRF51
/* nRF51 TIMER1 (IRQ 9): 16 MHz, cleared on COMPARE[0], which interrupts. */
#define TIMER1 0x40009000u
#define TIMER1_IRQ 9u
#define T1_START REG(TIMER1 + 0x000u)
#define T1_STOP REG(TIMER1 + 0x004u)
#define T1_COMPARE0 REG(TIMER1 + 0x140u)
#define T1_SHORTS REG(TIMER1 + 0x200u) /* bit 0: COMPARE[0] -> CLEAR */
#define T1_INTENSET REG(TIMER1 + 0x304u)
#define T1_INTENCLR REG(TIMER1 + 0x308u)
#define T1_MODE REG(TIMER1 + 0x504u)
#define T1_BITMODE REG(TIMER1 + 0x508u)
#define T1_PRESCALER REG(TIMER1 + 0x510u)
#define T1_CC0 REG(TIMER1 + 0x540u)
#define NVIC_ISER REG(0xE000E100u)
#define NVIC_ICER REG(0xE000E180u)
#define NVIC_ICPR REG(0xE000E280u)
/* 3..10 ticks of 62.5 ns: with -icount shift=0 (1 ns per instruction) 187..625 instructions. */
#define STRESS_TICKS_MIN 3u
#define STRESS_TICKS_SPREAD 8u
#else
#define SYST_CSR REG(0xE000E010u) /* bit 0 enable, 1 interrupt, 2 core clock */
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define SCB_ICSR REG(0xE000ED04u)
#define ICSR_PENDSTCLR (1u << 25)
/* 5..16 ticks of 40 ns (AN505: 50 ns): with -icount shift=0 (1 ns per instruction) 200..640
 * instructions (AN505: 250..800). */
#define STRESS_TICKS_MIN 5u
#define STRESS_TICKS_SPREAD 12u
#endif

/* Main context only: an interrupt never writes them, so plain increments are safe. */
static volatile uint32_t main_calls;
/* Interrupt only; main reads them once the timer is stopped and interrupts are masked. */
static volatile uint32_t isr_calls, isr_fit, isr_window;
static volatile uint32_t sink;
static uint32_t rng = 0x2545F491u;

/* ---- instrumented: what the trace must show ------------------------------------------------ */

void work_leaf(uint32_t i)
{
    main_calls++;
    sink += i;
}

void work_dive(uint32_t depth, uint32_t i)
{
    main_calls++;
    if (depth > 1u)
        work_dive(depth - 1u, i);
    else
        work_leaf(i);
}

void work_step(uint32_t i)
{
    main_calls++;
    work_dive(1u + i % STRESS_DEPTH, i);
}

void tick_work(void)
{
    isr_calls++;
    sink ^= rng;
}

void tick_handler(void)
{
    isr_calls++;
    tick_work();
}

/* ---- not instrumented: the interrupt's frame, the timer, main ------------------------------ */

/* The next period, pseudo-random (xorshift32), so that the interrupts land everywhere in the
 * main loop's code, not at one point of a cycle. */
NOINSTR static uint32_t next_ticks(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return STRESS_TICKS_MIN + rng % STRESS_TICKS_SPREAD;
}

/* Before the instrumented chain records anything, the ring says how this interrupt fits:
 *   - head < capacity: tick_handler's entry will be written (nothing else runs until it has
 *     reserved: main is preempted, and there is one interrupt only): the decoded trace must hold
 *     exactly isr_fit entries of tick_handler;
 *   - the last reserved record, head - 1, not written yet (on the first lap a written record has
 *     its lap bit set over zeroed memory): main was interrupted between a hook's reservation and
 *     its commit, the window where a nested writer could corrupt it. */
NOINSTR static void stress_tick(void)
{
    const struct cyg_ctl *ctl = cygtrace_control_block();
    const uint32_t *recs = (const uint32_t *)(const void *)((const uint8_t *)ctl + CYG_HDR_BYTES);
    uint32_t head = (uint32_t)ctl->head.v, cap = 1u << ctl->cap_log2;

#ifdef BOARD_NRF51
    T1_COMPARE0 = 0;
    (void)T1_COMPARE0; /* the write reaches the timer before the return re-enables it */
    T1_CC0 = next_ticks();
#else
    SYST_RVR = next_ticks(); /* from the next reload on */
#endif
    if (head < cap) {
        isr_fit++;
        if (head > 0 && !(recs[(head - 1u) * (ctl->rec_bytes / 4u) + 1u] & CYG32_LAP))
            isr_window++;
    }
    tick_handler();
}

/* The timer's interrupt, under the name startup.c's vector table gives its slot. */
#ifdef BOARD_NRF51
void IRQ9_Handler(void) __attribute__((alias("stress_tick"))); /* TIMER1 */
_Static_assert(TIMER1_IRQ == 9u, "IRQ9_Handler is TIMER1's slot");
#else
void SysTick_Handler(void) __attribute__((alias("stress_tick")));
#endif

NOINSTR static void timer_start(void)
{
#ifdef BOARD_NRF51
    T1_MODE = 0;      /* timer */
    T1_BITMODE = 3;   /* 32 bits */
    T1_PRESCALER = 0; /* 16 MHz */
    T1_CC0 = next_ticks();
    T1_SHORTS = 1u;
    T1_INTENSET = 1u << 16; /* COMPARE[0] */
    NVIC_ISER = 1u << TIMER1_IRQ;
    T1_START = 1;
#else
    SYST_RVR = next_ticks();
    SYST_CVR = 0;
    SYST_CSR = 7u;
#endif
}

/* Stops the timer for good; an interrupt already pending may still come until interrupts are
 * masked, and counts itself as usual. */
NOINSTR static void timer_stop(void)
{
#ifdef BOARD_NRF51
    T1_STOP = 1;
    T1_INTENCLR = 1u << 16;
    NVIC_ICER = 1u << TIMER1_IRQ;
    NVIC_ICPR = 1u << TIMER1_IRQ;
#else
    SYST_CSR = 0;
    SCB_ICSR = ICSR_PENDSTCLR;
#endif
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

NOINSTR static void print_count(const char *name, uint32_t v)
{
    board_puts(name);
    board_putu(v);
}

/* Not instrumented: nothing records before stop mode is on, and the loop's own frame adds no
 * event that the counts would have to name. */
NOINSTR int main(void)
{
    cygtrace_set_mode(CYGTRACE_MODE_STOP);
    timer_start();
    for (uint32_t i = 0; i < STRESS_STEPS; i++)
        work_step(i);
    timer_stop();
    __asm__ volatile("cpsid i" ::: "memory");
    cygtrace_freeze();
    print_count("stress: main=", main_calls);
    print_count(" isr=", isr_calls);
    print_count(" isr_fit=", isr_fit);
    print_count(" window=", isr_window);
    board_puts("\nstress: done\n");
    return 0;
}
