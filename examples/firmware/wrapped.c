/* SPDX-License-Identifier: MIT */
/* wrapped.c - calls into a precompiled vendor driver (driver/drv.c, built into libdrv.a without
 * -finstrument-functions), recorded with their arguments and return values by the wrappers
 * that `cygtrace wrap` generated from the library's DWARF at build time (firmware.mk): the
 * program is linked with @wrap/cygtrace_wrap.flags, so its calls to drv_read reach
 * __wrap_drv_read, which records and calls the driver's own drv_read. This file is instrumented
 * as the other programs are: the driver's calls show inside the functions that make them.
 *
 * main -> app_init (reset, configure, mode), app_poll (registers, names, a message, the counter,
 * a scaled reading), then app_fail hands the driver a corrupt configuration pointer: the bus
 * fault happens inside drv_configure, and the tree ends with the wrapped call that faulted and
 * its argument. The fault hook reports on the UART and the core waits for a debugger:
 *     cygtrace pull --gdb=127.0.0.1:3333 build/firmware/mps2-an385/wrapped.elf
 *
 * wrapped_live.c builds it with WRAPPED_LIVE: init and poll in rounds, streamed over the UART
 * for ever, for "cygtrace live". */
#include "board.h"
#include "cygtrace_cm.h"
#include "driver/drv.h"

/* Nothing answers there on any of the four boards: a precise bus error (see crash.c). */
#define BAD_POINTER 0xBFFFFFF0u

static volatile uint32_t sink; /* keeps the results alive */

/* ---- instrumented: the application ----------------------------------------------------------- */

void app_init(void)
{
    static const struct drv_config cfg = {115200, DRV_SLOW, 2};

    drv_reset();
    sink += (uint32_t)drv_configure(&cfg);
    sink += drv_set_mode(DRV_FAST);
}

/* A channel's name, sent as a message: two wrapped calls, the string going out and coming in. */
void app_announce(int channel)
{
    const char *name = drv_name(channel);

    if (name)
        sink += (uint32_t)drv_send(name);
}

void app_poll(void)
{
    sink += (uint32_t)drv_read(3);
    sink += (uint32_t)drv_write(5, 7u);
    app_announce(2);
    app_announce(9);
    sink += (uint32_t)drv_counter();
    sink += (uint32_t)drv_scale(42, 0.5);
}

#ifndef WRAPPED_LIVE
void app_fail(void)
{
    sink += (uint32_t)drv_configure((const struct drv_config *)BAD_POINTER);
    board_puts("wrapped: survived the bad pointer?\n");
}

int main(void)
{
    app_init();
    app_poll();
    board_puts("wrapped: polled\n");
    app_fail();
    return 0;
}

/* Called by cygtrace_fault_handler once the trace is frozen. */
BOARD_NOINSTR void cygtrace_cm_fault_hook(void)
{
    board_puts("wrapped: fault, trace frozen\n");
    board_idle();
}
#else
void live_round(void)
{
    app_init();
    app_poll();
}

/* ---- not instrumented: the drain's sink and the idle time ------------------------------------ */

/* The UART, as far as it takes bytes now. */
BOARD_NOINSTR static size_t uart_sink(void *arg, const void *buf, size_t len)
{
    (void)arg;
    return board_uart_try_write(buf, len);
}

/* 5 ms of the board timer, draining: a round is 52 records, some 300 bytes of stream (a value
 * record carries a whole word), which a real UART at 921600 baud sends in about 3.3 ms. */
BOARD_NOINSTR static void live_idle(void)
{
    uint32_t t0 = cygtrace_user_clock(), ticks = board_clock_hz() / 200u;

    while (cygtrace_user_clock() - t0 < ticks)
        cygtrace_drain();
}

int main(void)
{
    cygtrace_drain_init(uart_sink, NULL);
    for (;;) {
        live_round();
        cygtrace_drain();
        live_idle();
    }
}
#endif
