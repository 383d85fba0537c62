/* SPDX-License-Identifier: MIT */
/* fibloop.c - the stream drain's cost on a Cortex-M firmware: fib(10) (177 calls, 354 events,
 * fewer than the 512 records of the ring) LOOPS times, and with BENCH_SINK a cygtrace_drain()
 * after each, into a sink that takes everything (1) or into the UART (2). Timed like fib.c:
 * ticks of the board timer, 40 instructions each on the AN385 under -icount shift=0. Linked
 * with each core's libcygtrace.a it is also the firmware whose map gives the runtime's size.
 * Prints "loops=L events=E bytes=B head=H ticks=T" and sleeps; bytes is what the sink took,
 * head the records reserved (events and the START record before them). */
#include "board.h"
#include "cygtrace.h"

#ifndef LOOPS
#define LOOPS 100u
#endif
#define FIB_N 10
#define FIB_EVENTS 354u /* 2 (2 F(11) - 1) */

#ifndef BENCH_SINK
#define BENCH_SINK 0
#endif
/* Read the ring's head at the end: not with empty hooks (no ring), nor in the footprint
 * firmware (-DBENCH_HEAD=0), which references nothing of the runtime but what any firmware
 * does (the hooks, the set-up, the fault handler) and, with BENCH_SINK, the drain. */
#ifndef BENCH_HEAD
#ifdef BENCH_EMPTY
#define BENCH_HEAD 0
#else
#define BENCH_HEAD 1
#endif
#endif

uint32_t cygtrace_user_clock(void); /* the board's timer, counting up */

__attribute__((noinline)) int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static size_t sink_bytes;

#if BENCH_SINK == 1
BOARD_NOINSTR static size_t bench_sink(void *arg, const void *buf, size_t len)
{
    (void)arg;
    (void)buf;
    sink_bytes += len;
    return len;
}
#elif BENCH_SINK == 2
BOARD_NOINSTR static size_t bench_sink(void *arg, const void *buf, size_t len)
{
    size_t n = board_uart_try_write(buf, len);

    (void)arg;
    sink_bytes += n;
    return n;
}
#endif

BOARD_NOINSTR int main(void)
{
    volatile int n = FIB_N; /* volatile: no constant folding */
    uint32_t t0, t1, head = 0;
    const uint32_t *ctl;

#if BENCH_SINK
    cygtrace_drain_init(bench_sink, NULL);
#endif
    t0 = cygtrace_user_clock();
    for (unsigned i = 0; i < LOOPS; i++) {
        fib(n);
#if BENCH_SINK
        cygtrace_drain();
#endif
    }
    t1 = cygtrace_user_clock();
#if BENCH_HEAD
    ctl = cygtrace_control_block();
    head = ctl ? ctl[88 / 4] : 0; /* CYG_OFF_HEAD, low word */
#else
    (void)ctl;
#endif
    board_puts("\nloops=");
    board_putu(LOOPS);
    board_puts(" events=");
    board_putu(LOOPS * FIB_EVENTS);
    board_puts(" bytes=");
    board_putu((uint32_t)sink_bytes);
    board_puts(" head=");
    board_putu(head);
    board_puts(" ticks=");
    board_putu(t1 - t0);
    board_puts("\n");
    return 0;
}
