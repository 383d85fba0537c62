/* SPDX-License-Identifier: MIT */
/* board_base.h - what every example board gives, Cortex-M (board.h here) and RISC-V
 * (examples/riscv/board.h) alike: a UART to print on, the rate of the trace's clock, an idle
 * loop. Each board.h includes it and adds what its own programs need; a program that needs no
 * more (demo.c) includes only this, and builds for either. All of it is built without
 * -finstrument-functions: the trace shows the programs' own calls, not the UART's. */
#ifndef BOARD_BASE_H
#define BOARD_BASE_H

#include <stdint.h>

#define BOARD_NOINSTR __attribute__((no_instrument_function))

/* Turns the UART (and on Cortex-M the free-running timer) on; the start code calls it before
 * the runtime's init (cygtrace_cm_init, cygtrace_rv_init). */
void board_init(void);

/* The rate of the trace's clock in Hz, what the runtime's init records: the board's timer on
 * Cortex-M, mcycle on RISC-V. */
uint32_t board_clock_hz(void);

/* Write to the UART, polling (no interrupts): board_putc is the board's own, the others are
 * built on it (board_print.h). */
void board_putc(char c);
void board_puts(const char *s);
void board_putu(uint32_t v);
void board_putx(uint32_t v);

/* Sleeps for ever (wfi), so that a debugger can stop the core and read the ring. */
void board_idle(void) __attribute__((noreturn));

#endif
