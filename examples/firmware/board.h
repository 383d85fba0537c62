/* board.h - what the example programs need from a board: a UART to print on, the timer that the
 * trace's clock reads (cygtrace_user_clock), a system reset, an idle loop. One implementation
 * per board family in boards/, built without -finstrument-functions: the trace shows the
 * programs' own calls, not the UART's. */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

#define BOARD_NOINSTR __attribute__((no_instrument_function))

/* Turns the UART and the free-running timer on; startup.c calls it before cygtrace_cm_init. */
void board_init(void);

/* The timer's rate in Hz: what cygtrace_cm_init() records as the trace's clock. */
uint32_t board_clock_hz(void);

/* Writes to the UART, polling (no interrupts). */
void board_putc(char c);
void board_puts(const char *s);
void board_putu(uint32_t v);

/* Requests a system reset (SYSRESETREQ), as NVIC_SystemReset() does. */
void board_reset(void) __attribute__((noreturn));

/* Sleeps for ever, so that a debugger can stop the core and read the ring. */
void board_idle(void) __attribute__((noreturn));

#endif
