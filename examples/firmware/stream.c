/* SPDX-License-Identifier: MIT */
/* stream.c - the trace streamed live over the UART while the program runs (common/cyg_stream.h).
 * The work is the demo's calls (the "Poor Man's Trace" DEMO_Run three times, then the apple
 * crumble, whose recipe text is not printed: the UART carries the stream now), STREAM_ROUNDS
 * rounds of it. The main loop calls cygtrace_drain() between work items and while it idles
 * after each round; the drain hands the new records to the UART as far as its transmitter
 * takes them, without waiting. After the last round cygtrace_drain_flush() sends the rest and
 * the program ends QEMU with status 0 (semihosting):
 *
 *     qemu-system-arm -M mps2-an385 -display none -monitor none \
 *         -semihosting-config enable=on,target=native -serial file:stream.bin \
 *         -kernel build/firmware/mps2-an385/stream.elf
 *
 * stream_live.c builds it with STREAM_ROUNDS 0: it streams until QEMU is stopped, for watching
 * with "cygtrace live" (the ncurses view) or joining at any time.
 *
 * stream_crash.c builds this file with STREAM_CRASH: there a timer interrupt drains (SysTick,
 * 1 kHz; TIMER1 on the micro:bit, which has no SysTick) and the main loop only sleeps in its
 * idle time; after the rounds a bad pointer read ends in HardFault, and the fault hook flushes
 * the drain, so the host gets the fault's records too; QEMU exits with status 3 (HardFault).
 *
 * rtt.c builds it with STREAM_RTT: for ever, into the RTT channel of target/core/cygtrace_rtt.c
 * rather than the UART (which says one line at the start and nothing after).
 *
 * A round makes 124 events: stream_round, 3 x 15 calls of DEMO_Run, 16 of the crumble. */
#include "board.h"
#include "cygtrace_cm.h"
#ifdef STREAM_RTT
#include "cygtrace_rtt.h"
#endif

#ifndef STREAM_ROUNDS /* 0: for ever (stream_live.c) */
#define STREAM_ROUNDS 100u
#endif
/* Idle time after each round: the drain catches up. A round is about 300 bytes of stream, which
 * a real UART at 921600 baud sends in 3.3 ms; QEMU's UART takes them at once. */
#ifndef STREAM_IDLE_US
#define STREAM_IDLE_US 5000u
#endif
/* QEMU's UART takes every byte at once. Built with -DSTREAM_BAUD=115200 (say), the sink takes
 * no more than a real UART at that rate would have sent by now (8N1: baud/10 bytes a second),
 * by the board timer, and the stream shows what such a link loses. */
#ifndef STREAM_BAUD
#define STREAM_BAUD 0
#endif

#ifdef STREAM_CRASH
#define STREAM_DRAIN() ((void)0) /* the timer interrupt drains */
#else
#define STREAM_DRAIN() cygtrace_drain()
#endif

static volatile uint32_t crumbs;

/* What the demo prints, the stream example only adds up: the calls stay the same. */
BOARD_NOINSTR static void quiet(const char *s)
{
    while (*s)
        crumbs += (uint8_t)*s++;
}

/* ---- instrumented: the demo's calls -------------------------------------------------------- */

#define WORK_PUTS(s) quiet(s)
#define WORK_PUTU(v) (crumbs += (v))
#include "demo_work.h"

/* One round of work, the drain between its items; the idle loop after it drains the crumble
 * and this function's own exit. Each drain call that finds records makes a frame of its own
 * (QEMU's UART takes it whole at once): every frame costs some 15 bytes besides its events, and
 * noise on the line takes whole frames. Some 30 events a frame weighs the two. */
void stream_round(void)
{
    for (int i = 0; i < 3; i++) {
        crumbs += (uint32_t)DEMO_Run();
        STREAM_DRAIN();
    }
    Crumble_make_apple_crumble();
}

#ifdef STREAM_CRASH
/* Nothing answers there on any of the four boards: a precise bus error (see crash.c). */
#define BAD_POINTER 0xBFFFFFF0u

uint32_t read_sensor(const volatile uint32_t *reg)
{
    return *reg;
}

void poll_sensors(void)
{
    crumbs += read_sensor((const volatile uint32_t *)BAD_POINTER);
}
#endif

/* ---- not instrumented: the sink, the idle loop, the timer ---------------------------------- */

#ifndef STREAM_RTT
/* The drain's sink: the UART, as far as it takes bytes now. */
BOARD_NOINSTR static size_t uart_sink(void *arg, const void *buf, size_t len)
{
    if (STREAM_BAUD) {
        static uint32_t t0, sent, started;
        uint64_t due;

        if (!started) {
            started = 1;
            t0 = cygtrace_user_clock();
        }
        due = (uint64_t)(cygtrace_user_clock() - t0) * (STREAM_BAUD / 10u) / board_clock_hz();
        if (due - sent < len)
            len = (size_t)(due - sent);
        len = board_uart_try_write(buf, len);
        sent += (uint32_t)len;
        return len;
    }
    (void)arg;
    return board_uart_try_write(buf, len);
}
#endif

/* The idle loop, for us microseconds of the board timer: it drains, or (STREAM_CRASH) sleeps
 * while the timer interrupt drains. */
BOARD_NOINSTR static void stream_idle(uint32_t us)
{
    uint32_t t0 = cygtrace_user_clock(), ticks = board_clock_hz() / 1000000u * us;

    while (cygtrace_user_clock() - t0 < ticks) {
#ifdef STREAM_CRASH
        __asm__ volatile("wfi");
#else
        cygtrace_drain();
#endif
    }
}

#ifdef STREAM_CRASH
#define REG(a) (*(volatile uint32_t *)(a))
#ifdef BOARD_NRF51
/* nRF51 TIMER1 (IRQ 9) at 16 MHz, cleared on COMPARE[0], which interrupts. */
#define T1_START REG(0x40009000u)
#define T1_COMPARE0 REG(0x40009140u)
#define T1_SHORTS REG(0x40009200u)
#define T1_INTENSET REG(0x40009304u)
#define T1_MODE REG(0x40009504u)
#define T1_BITMODE REG(0x40009508u)
#define T1_PRESCALER REG(0x40009510u)
#define T1_CC0 REG(0x40009540u)
#define NVIC_ISER REG(0xE000E100u)
#else
#define SYST_CSR REG(0xE000E010u) /* bit 0 enable, 1 interrupt, 2 core clock */
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#endif

/* The drain's one interrupt: it never runs while another drain call is under way. */
BOARD_NOINSTR static void stream_tick(void)
{
#ifdef BOARD_NRF51
    T1_COMPARE0 = 0;
    (void)T1_COMPARE0; /* the write reaches the timer before the return re-enables it */
#endif
    cygtrace_drain();
}

#ifdef BOARD_NRF51
void IRQ9_Handler(void) __attribute__((alias("stream_tick"))); /* TIMER1 */
#else
void SysTick_Handler(void) __attribute__((alias("stream_tick")));
#endif

/* 1 kHz. SysTick counts the core clock, which is the board timer's on the MPS2 boards. */
BOARD_NOINSTR static void timer_start(void)
{
#ifdef BOARD_NRF51
    T1_MODE = 0;
    T1_BITMODE = 3;
    T1_PRESCALER = 0;
    T1_CC0 = board_clock_hz() / 1000u;
    T1_SHORTS = 1u;
    T1_INTENSET = 1u << 16; /* COMPARE[0] */
    NVIC_ISER = 1u << 9;
    T1_START = 1;
#else
    SYST_RVR = board_clock_hz() / 1000u - 1u;
    SYST_CVR = 0;
    SYST_CSR = 7u;
#endif
}

/* Called by cygtrace_fault_handler once the fault is recorded and the ring frozen: at the
 * fault's priority no timer interrupt drains any more, so this is the drain's only caller. */
BOARD_NOINSTR void cygtrace_cm_fault_hook(void)
{
    cygtrace_drain_flush();
    board_exit(3);
}
#endif

int main(void)
{
    /* From the oldest record on: main's entry is in the stream. */
#ifdef STREAM_RTT
    board_puts("rtt: streaming the trace over RTT (cygtrace_rtt, up channel 0 \"cygtrace\")\n");
    cygtrace_rtt_init(); /* the control block before the first frame: a host finds it at once */
    cygtrace_drain_init(cygtrace_rtt_sink, NULL);
#else
    cygtrace_drain_init(uart_sink, NULL);
#endif
#ifdef STREAM_CRASH
    timer_start();
#endif
    for (uint32_t left = STREAM_ROUNDS; STREAM_ROUNDS == 0 || left > 0; left--) {
        stream_round();
        stream_idle(STREAM_IDLE_US);
    }
#ifdef STREAM_CRASH
    poll_sensors();
    board_exit(1); /* not reached: the read faults */
#else
    cygtrace_drain_flush();
    board_exit(0);
#endif
}
