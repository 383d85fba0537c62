/* SPDX-License-Identifier: MIT */
/* demo.c - calls worth a trace: the call structure of the "Poor Man's Trace" example, run
 * DEMO_RUNS times (default 3), then the apple crumble of examples/crumble with the UART for
 * printf. Prints "demo: done" and sleeps, so that a debugger can stop the core and read the ring:
 *     cygtrace tree build/firmware/mps2-an385/demo.elf ring.bin
 *     cygtrace pull --gdb=127.0.0.1:1234 build/firmware/riscv-virt/demo.elf
 * It needs only board_base.h, so examples/riscv builds it too, and as wrap.elf with
 * DEMO_RUNS=60: some 2000 events lap the 512-record ring (overwrite mode, the default) about
 * four times. */
#include "board_base.h"

#define WORK_PUTS(s) board_puts(s)
#define WORK_PUTU(v) board_putu(v)
#include "demo_work.h"

#ifndef DEMO_RUNS
#define DEMO_RUNS 3
#endif

int main(void)
{
    for (int run = 0; run < DEMO_RUNS; run++) {
        board_puts("DEMO_Run: ");
        board_putu((uint32_t)DEMO_Run());
        board_puts("\n");
    }
    Crumble_make_apple_crumble();
    board_puts("demo: done\n");
    return 0;
}
