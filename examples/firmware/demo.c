/* demo.c - calls worth a trace: the call structure of the "Poor Man's Trace" example, run a few
 * times, then the apple crumble of examples/crumble with the UART for printf. Prints
 * "demo: done" and sleeps, so that a debugger can stop the core and read the ring:
 *     cygtrace tree build/firmware/mps2-an385/demo.elf ring.bin */
#include "board.h"

#define WORK_PUTS(s) board_puts(s)
#define WORK_PUTU(v) board_putu(v)
#include "demo_work.h"

int main(void)
{
    for (int run = 0; run < 3; run++) {
        board_puts("DEMO_Run: ");
        board_putu((uint32_t)DEMO_Run());
        board_puts("\n");
    }
    Crumble_make_apple_crumble();
    board_puts("demo: done\n");
    return 0;
}
