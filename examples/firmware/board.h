/* SPDX-License-Identifier: MIT */
/* board.h - what the example programs need from a board: board_base.h's UART, clock rate and
 * idle loop (shared with examples/riscv), and on Cortex-M besides: the UART to stream on, the
 * timer that the trace's clock reads (cygtrace_user_clock), a system reset, an exit. One
 * implementation per board family in boards/, and the common part (board_common.c), built
 * without -finstrument-functions: the trace shows the programs' own calls, not the UART's. */
#ifndef BOARD_H
#define BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "board_base.h"

/* Writes as many of the len bytes at buf as the UART takes now, without waiting; returns how
 * many (0 when its transmitter is busy). The stream drain's sink (stream.c). */
size_t board_uart_try_write(const void *buf, size_t len);

/* The second UART (echo.c talks to a host program on it): a byte received, 1 with *c, or 0
 * when none waits; a byte sent, waiting for room. A board without one receives nothing. */
int board_uart1_try_read(uint8_t *c);
void board_uart1_putc(uint8_t c);

/* Requests a system reset (SYSRESETREQ), as NVIC_SystemReset() does. */
void board_reset(void) __attribute__((noreturn));

/* Ends the program with status: QEMU exits with it (semihosting SYS_EXIT_EXTENDED; QEMU needs
 * -semihosting-config enable=on,target=native, without which the BKPT faults). */
void board_exit(int status) __attribute__((noreturn));

#endif
