/* cygtrace_rv.c - the RISC-V runtime around the portable core: the static ring buffer, boot-time
 * set-up with warm-reset survival (the policy of the Cortex-M port, cygtrace_rv.h), and the
 * trap support that records a fault. Built with -fno-instrument-functions, like the core.
 *
 * The set-up is the Cortex-M port's (cygtrace_cm.c) less its clocks: mcycle runs from reset and
 * the CLINT's mtime always, so there is nothing to start.
 */
#include <stddef.h>
#include <stdint.h>

#include "cygtrace_port.h"
#include "cygtrace_rv.h"

#define NOINSTR __attribute__((no_instrument_function))

#define CYG_RV_REC_BYTES (CYGTRACE_CALLSITES ? 16u : 8u)
#define CYG_RV_RING_BYTES ((uint32_t)CYGTRACE_RV_BUFFER_BYTES - CYGTRACE_RING_OVERHEAD)
_Static_assert(CYGTRACE_RV_BUFFER_BYTES > CYGTRACE_RING_OVERHEAD &&
                   CYG_RV_RING_BYTES >= 2 * CYG_RV_REC_BYTES &&
                   (CYG_RV_RING_BYTES & (CYG_RV_RING_BYTES - 1)) == 0,
               "CYGTRACE_RV_BUFFER_BYTES must be CYGTRACE_RING_OVERHEAD (128, and 256 more with "
               "CYGTRACE_CONTROL) + a power of two of records, 2 at least");

/* NOLOAD in the linker script: neither the startup code nor a loader writes it, so a warm reset
 * finds the ring as the last run left it. */
__attribute__((section(".noinit.cygtrace"), aligned(8), used))
uint8_t cygtrace_buffer[CYGTRACE_RV_BUFFER_BYTES];

/* The linker script puts this symbol at the start of .note.gnu.build-id. Weak: without it the
 * ring just carries no build-id. */
extern const uint32_t __cygtrace_build_id[] __attribute__((weak));

static uint32_t cyg_rv_clock_hz;

/* The image's GNU build-id note, or NULL: namesz 4, descsz, type 3 (NT_GNU_BUILD_ID), "GNU\0",
 * then descsz bytes of id. */
NOINSTR static const uint32_t *cyg_rv_note(void)
{
    const uint32_t *n = __cygtrace_build_id;

    if (n && n[0] == 4u && n[1] > 0 && n[1] <= CYG_BUILD_ID_MAX && n[2] == 3u &&
        n[3] == 0x00554E47u)
        return n;
    return NULL;
}

/* 1 when the ring and this image both know their build-id and the two differ. */
NOINSTR static int cyg_rv_other_build(const struct cyg_ctl *ctl)
{
    const uint32_t *n = cyg_rv_note();

    if (!n || !ctl->build_id_len)
        return 0;
    if (n[1] != ctl->build_id_len)
        return 1;
    for (unsigned i = 0; i < n[1]; i++) /* no memcmp: the runtime calls no C library */
        if (((const uint8_t *)(n + 4))[i] != ctl->build_id[i])
            return 1;
    return 0;
}

NOINSTR void cygtrace_rv_discard(void)
{
    const uint32_t *note = cyg_rv_note();

    cygtrace_init(cygtrace_buffer, sizeof cygtrace_buffer,
                  (CYGTRACE_OVERWRITE ? CYG_F_OVERWRITE : 0) |
                      (CYGTRACE_CALLSITES ? CYG_F_CALLSITES : 0));
    cyg_core_set_image(0, 0, cyg_rv_clock_hz);
    if (note)
        cygtrace_set_build_id(note + 4, note[1]);
}

NOINSTR int cygtrace_rv_init(uint32_t clock_hz)
{
    struct cyg_ctl *ctl = (struct cyg_ctl *)(void *)cygtrace_buffer;

    cyg_rv_clock_hz = clock_hz;
    /* Adopting freezes the ring before anything can record into it; a ring not worth keeping
     * is made afresh just after. */
    if (CYGTRACE_RV_KEEP && cyg_core_adopt(cygtrace_buffer, sizeof cygtrace_buffer) > 0 &&
        ctl->head.v != 0 && !cyg_rv_other_build(ctl)) {
        if (ctl->resets < 255u)
            ctl->resets++;
        return ctl->resets;
    }
    cygtrace_rv_discard();
    return 0;
}

NOINSTR unsigned cygtrace_rv_resets(void)
{
    const struct cyg_ctl *ctl = cygtrace_control_block();

    return ctl ? ctl->resets : 0;
}

NOINSTR __attribute__((weak, noreturn)) void cygtrace_rv_fault_hook(uint32_t mcause)
{
    (void)mcause;
    for (;;)
        __asm__ volatile("wfi");
}

NOINSTR void cygtrace_rv_fault(uint32_t mcause, uint32_t mepc, uint32_t ra)
{
    /* mcause: the interrupt flag in bit 31, the code below it (exception codes go to 63,
     * custom ones included; more than 127 do not fit the kind and are cut). */
    unsigned kind = CYG_FAULT_RISCV + (mcause & CYG_FAULT_RISCV_CODE) +
                    (mcause >> 31 ? CYG_FAULT_RISCV_IRQ : 0u);

    cygtrace_fault(kind, mepc, ra);
    cygtrace_rv_fault_hook(mcause);
}

/* ra is still the trapped code's here: nothing ran between the trap and this code. It never
 * returns, so it saves nothing and uses the trapped code's stack as it found it (the 16-byte
 * alignment of the psABI holds at any instruction boundary of compiled code). */
NOINSTR __attribute__((naked, aligned(4))) void cygtrace_rv_trap_handler(void)
{
    __asm__ volatile(".insn i 0x73, 2, a0, x0, " CYG_RV_STR(CYG_RV_MCAUSE) "\n\t"
                     ".insn i 0x73, 2, a1, x0, " CYG_RV_STR(CYG_RV_MEPC) "\n\t"
                     "mv a2, ra\n\t"
                     "call cygtrace_rv_fault\n"
                     "1:\n\t"
                     "j 1b\n");
}
