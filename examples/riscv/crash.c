/* crash.c - a bad pointer read a few calls deep: main -> app_run -> parse_packet -> read_field,
 * which loads through a corrupt payload pointer. Nothing answers at that address on either
 * board: a load access fault (mcause 5), precise, so mepc is the load itself. The trap goes to
 * cygtrace_rv_trap_handler (mtvec, start.c): the ring gets the faulting PC and ra and freezes,
 * then the hook below reports on the UART and the hart waits for a debugger:
 *     cygtrace pull --gdb=127.0.0.1:1234 build/firmware/riscv-virt/crash.elf
 * ends with the fault, where it happened and the calls that led there. */
#include "board.h"

/* Unmapped on sifive_e (nothing above the 16 KB DTIM) and on virt (RAM ends at 0x88000000
 * with the default 128 MB; the PCIe window, which answers all ones without a fault, is
 * 0x30000000-0x7FFFFFFF). */
#define BAD_POINTER 0xF0000000u

struct packet {
    uint32_t len;
    const volatile uint32_t *payload;
};

static const uint32_t payload[2] = {0x1234, 0x5678};

uint32_t read_field(const struct packet *p, unsigned i)
{
    return p->payload[i];
}

uint32_t parse_packet(const struct packet *p)
{
    uint32_t sum = 0;

    for (unsigned i = 0; i < p->len; i++)
        sum += read_field(p, i);
    return sum;
}

void app_run(void)
{
    const struct packet good = {2, payload};
    const struct packet corrupt = {2, (const volatile uint32_t *)BAD_POINTER};

    board_puts("crash: good packet ");
    board_putu(parse_packet(&good));
    board_puts("\n");
    parse_packet(&corrupt);
    board_puts("crash: survived the bad pointer?\n");
}

int main(void)
{
    app_run();
    return 0;
}

/* Called by cygtrace_rv_fault once the trace is frozen. */
BOARD_NOINSTR void cygtrace_rv_fault_hook(uint32_t mcause)
{
    uint32_t mtval;

    __asm__ volatile(".insn i 0x73, 2, %0, x0, 0x343" : "=r"(mtval)); /* csrr mtval */
    board_puts("crash: ");
    board_puts(mcause == 5u ? "load access fault" : "trap");
    board_puts(" (mcause ");
    board_putu(mcause);
    board_puts(", mtval ");
    board_putx(mtval);
    board_puts("), trace frozen\n");
    board_idle();
}
