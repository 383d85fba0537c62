/* board.h - what the RISC-V example programs need from a board: a UART to print on, the rate of
 * the trace's clock, an idle loop. One implementation per board (board_sifive_e.c,
 * board_virt.c) and the common part (board_common.c), built without -finstrument-functions:
 * the trace shows the programs' own calls, not the UART's. */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

#define BOARD_NOINSTR __attribute__((no_instrument_function))

/* Turns the UART on; start.c calls it before cygtrace_rv_init. */
void board_init(void);

/* The rate of mcycle, the trace's clock, in Hz: what cygtrace_rv_init() records. */
uint32_t board_clock_hz(void);

/* Writes to the UART, polling (no interrupts). */
void board_putc(char c);
void board_puts(const char *s);
void board_putu(uint32_t v);
void board_putx(uint32_t v);

/* Sleeps for ever (wfi, interrupts off), so that a debugger can stop the hart and read the
 * ring. */
void board_idle(void) __attribute__((noreturn));

#endif
