/* SPDX-License-Identifier: MIT */
/* start.c - the reset code of every RISC-V example, on both boards. Built without
 * -finstrument-functions: nothing may record before cygtrace_rv_init(), and until .data is
 * copied the runtime's own state is not even there.
 *
 * _start (the first bytes of .text: sifive_e's reset ROM jumps to 0x20400000, virt's to the
 * ELF's entry) parks every hart but hart 0, sets gp and sp, and calls start_c. Then the order
 * a firmware of yours needs too: .data, .bss (never .noinit: the ring lives there), mtvec,
 * cygtrace_rv_init(), then main() with recording on. */
#include <stdint.h>

#include "board.h"
#include "cygtrace_rv.h"

extern uint32_t __data_start[], __data_end[], __data_load[], __bss_start[], __bss_end[];
int main(void);
void start_c(void) __attribute__((noreturn));

/* mhartid is CSR 0xF14, mtvec 0x305: .insn, as cygtrace_port.h explains. gp without
 * relaxation, or the assembler would make "la gp" relative to gp itself. */
__asm__(".section .text.start, \"ax\"\n"
        ".globl _start\n"
        "_start:\n\t"
        ".insn i 0x73, 2, t0, x0, -236\n\t" /* 0xF14, sign-extended */
        "bnez t0, 2f\n\t"
        ".option push\n\t"
        ".option norelax\n\t"
        "la gp, __global_pointer$\n\t"
        ".option pop\n\t"
        "la sp, __stack_top\n\t"
        "j start_c\n"
        "2:\n\t"
        "wfi\n\t"
        "j 2b\n"
        ".previous\n");

BOARD_NOINSTR void start_c(void)
{
    const uint32_t *from = __data_load;
    uint32_t *to;
    uintptr_t trap = (uintptr_t)cygtrace_rv_trap_handler;

    for (to = __data_start; to < __data_end;)
        *to++ = *from++;
    for (to = __bss_start; to < __bss_end;)
        *to++ = 0;
    /* Direct mode: every trap to the runtime, which records it as a fault. The examples take
     * no interrupts. */
    __asm__ volatile(".insn i 0x73, 1, x0, %0, 0x305" ::"r"(trap) : "memory");
    board_init();
    cygtrace_rv_init(board_clock_hz());
    main();
    board_idle();
}
