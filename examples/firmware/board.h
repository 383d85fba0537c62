/* board.h - what the example programs need from a board: a UART to print or stream on, the timer
 * that the trace's clock reads (cygtrace_user_clock), a system reset, an idle loop, an exit.
 * One implementation per board family in boards/, built without -finstrument-functions: the
 * trace shows the programs' own calls, not the UART's. */
#ifndef BOARD_H
#define BOARD_H

#include <stddef.h>
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

/* Writes as many of the len bytes at buf as the UART takes now, without waiting; returns how
 * many (0 when its transmitter is busy). The stream drain's sink (stream.c). */
size_t board_uart_try_write(const void *buf, size_t len);

/* Requests a system reset (SYSRESETREQ), as NVIC_SystemReset() does. */
void board_reset(void) __attribute__((noreturn));

/* Sleeps for ever, so that a debugger can stop the core and read the ring. */
void board_idle(void) __attribute__((noreturn));

/* Ends the program with status: QEMU exits with it (semihosting SYS_EXIT_EXTENDED; QEMU needs
 * -semihosting-config enable=on,target=native, without which the BKPT faults). */
void board_exit(int status) __attribute__((noreturn));

#endif
