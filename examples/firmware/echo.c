/* SPDX-License-Identifier: MIT */
/* echo.c - a firmware that answers a host program, its trace streamed live: the pair of a
 * merged timeline (cygtrace export with several inputs, docs/exports.md). It streams its calls
 * over UART0 as stream_live.c does, and echoes every byte that comes in on UART1 through
 * echo_request -> echo_reply, so that a traced Linux program that sends a byte and waits for it
 * back has its send before echo_request and its receive after echo_reply on the one clock:
 *
 *     qemu-system-arm -M mps2-an385 -display none -monitor none \
 *         -serial tcp:127.0.0.1:PORT0,server=on,wait=on \
 *         -serial tcp:127.0.0.1:PORT1,server=on,wait=off \
 *         -kernel build/firmware/mps2-an385/echo.elf
 *
 * Between requests it ticks every millisecond of the board timer (echo_tick), so that frames
 * keep coming: their host arrival times are what maps its clock onto the host's. */
#include "board.h"
#include "cygtrace_cm.h"

static volatile uint32_t ticks, echoed;

/* ---- instrumented ---------------------------------------------------------------------- */

void echo_tick(void)
{
    ticks++;
}

void echo_reply(uint8_t c)
{
    board_uart1_putc(c);
    echoed++;
}

void echo_request(uint8_t c)
{
    echo_reply(c);
}

/* ---- not instrumented: the sink and the loop ----------------------------------------------- */

BOARD_NOINSTR static size_t uart_sink(void *arg, const void *buf, size_t len)
{
    (void)arg;
    return board_uart_try_write(buf, len);
}

int main(void)
{
    uint32_t last = cygtrace_user_clock(), ms = board_clock_hz() / 1000u;
    uint8_t c;

    cygtrace_drain_init(uart_sink, NULL);
    for (;;) {
        if (board_uart1_try_read(&c)) {
            echo_request(c);
            cygtrace_drain(); /* at once: the request's frame leaves now */
        }
        if (cygtrace_user_clock() - last >= ms) {
            last += ms;
            echo_tick();
        }
        cygtrace_drain();
    }
}
