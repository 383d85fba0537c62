/* cygtrace_cm.c - the Cortex-M runtime around the portable core: the static ring buffer, boot-time
 * set-up with warm-reset survival (cygtrace_cm.h explains the policy), the clocks and the fault
 * handler. Built with -fno-instrument-functions, like the core.
 */
#include <stddef.h>
#include <stdint.h>

#include "cygtrace_port.h"
#include "cygtrace_cm.h"

#define NOINSTR __attribute__((no_instrument_function))

/* Any other size would leave bytes unused: the capacity is a power of two. */
#define CYG_CM_REC_BYTES (CYGTRACE_CALLSITES ? 16u : 8u)
#define CYG_CM_RING_BYTES ((uint32_t)CYGTRACE_CM_BUFFER_BYTES - CYGTRACE_RING_OVERHEAD)
_Static_assert(CYGTRACE_CM_BUFFER_BYTES > CYGTRACE_RING_OVERHEAD &&
                   CYG_CM_RING_BYTES >= 2 * CYG_CM_REC_BYTES &&
                   (CYG_CM_RING_BYTES & (CYG_CM_RING_BYTES - 1)) == 0,
               "CYGTRACE_CM_BUFFER_BYTES must be CYGTRACE_RING_OVERHEAD (128, and 256 more with "
               "CYGTRACE_CONTROL) + a power of two of records, 2 at least");

/* NOLOAD in the linker script: neither the startup code nor a loader writes it, so a warm reset
 * finds the ring as the last run left it. */
__attribute__((section(".noinit.cygtrace"), aligned(8), used))
uint8_t cygtrace_buffer[CYGTRACE_CM_BUFFER_BYTES];

/* The linker script puts this symbol at the start of .note.gnu.build-id (KEEP, in flash). Weak:
 * without it the ring just carries no build-id. */
extern const uint32_t __cygtrace_build_id[] __attribute__((weak));

#define CYG_CM_REG(a) (*(volatile uint32_t *)(a))
#define CYG_CM_DEMCR CYG_CM_REG(0xE000EDFCu)
#define CYG_CM_DEMCR_TRCENA (1u << 24)
#define CYG_CM_DWT_CTRL CYG_CM_REG(0xE0001000u)
#define CYG_CM_DWT_CTRL_NOCYCCNT (1u << 25)
#define CYG_CM_DWT_CTRL_CYCCNTENA (1u << 0)
#define CYG_CM_DWT_LAR CYG_CM_REG(0xE0001FB0u)
#define CYG_CM_SYST_CSR CYG_CM_REG(0xE000E010u)
#define CYG_CM_SYST_RVR CYG_CM_REG(0xE000E014u)

static uint32_t cyg_cm_clock_hz;

uint32_t cyg_cm_tstate[2][3]; /* cyg_port_tstate(): thread mode, handler mode */

/* Starts the clock the hooks read, unless it is the user's or already running. */
NOINSTR static void cyg_cm_clock_start(void)
{
#if CYGTRACE_CM_CLOCK == 1
    CYG_CM_DEMCR |= CYG_CM_DEMCR_TRCENA;
    CYG_CM_DWT_LAR = 0xC5ACCE55u; /* some M7 parts lock the DWT; elsewhere write-ignored */
    if (!(CYG_CM_DWT_CTRL & CYG_CM_DWT_CTRL_NOCYCCNT))
        CYG_CM_DWT_CTRL |= CYG_CM_DWT_CTRL_CYCCNTENA;
#elif CYGTRACE_CM_CLOCK == 2
    /* An application (an RTOS tick) that runs SysTick already keeps its reload: durations are
     * then good within one reload period only. */
    if (!(CYG_CM_SYST_CSR & 1u)) {
        CYG_CM_SYST_RVR = 0xFFFFFFu;
        CYG_CM_SYST_CVR = 0;
        CYG_CM_SYST_CSR = 5u; /* enable, core clock, no interrupt */
    }
#endif
}

/* The image's GNU build-id note, or NULL: namesz 4, descsz, type 3 (NT_GNU_BUILD_ID), "GNU\0",
 * then descsz bytes of id. */
NOINSTR static const uint32_t *cyg_cm_note(void)
{
    const uint32_t *n = __cygtrace_build_id;

    if (n && n[0] == 4u && n[1] > 0 && n[1] <= CYG_BUILD_ID_MAX && n[2] == 3u &&
        n[3] == 0x00554E47u)
        return n;
    return NULL;
}

/* 1 when the ring and this image both know their build-id and the two differ. */
NOINSTR static int cyg_cm_other_build(const struct cyg_ctl *ctl)
{
    const uint32_t *n = cyg_cm_note();

    if (!n || !ctl->build_id_len)
        return 0;
    if (n[1] != ctl->build_id_len)
        return 1;
    for (unsigned i = 0; i < n[1]; i++) /* no memcmp: see cyg_zero() in cygtrace.c */
        if (((const uint8_t *)(n + 4))[i] != ctl->build_id[i])
            return 1;
    return 0;
}

NOINSTR void cygtrace_cm_discard(void)
{
    const uint32_t *note = cyg_cm_note();

    cygtrace_init(cygtrace_buffer, sizeof cygtrace_buffer,
                  (CYGTRACE_OVERWRITE ? CYG_F_OVERWRITE : 0) |
                      (CYGTRACE_CALLSITES ? CYG_F_CALLSITES : 0));
    cyg_core_set_image(0, 0, cyg_cm_clock_hz);
    if (note)
        cygtrace_set_build_id(note + 4, note[1]);
}

NOINSTR int cygtrace_cm_init(uint32_t clock_hz)
{
    struct cyg_ctl *ctl = (struct cyg_ctl *)(void *)cygtrace_buffer;

    cyg_cm_clock_hz = clock_hz;
    cyg_cm_clock_start();
    /* Adopting freezes the ring before anything can record into it; a ring not worth keeping
     * is made afresh just after. resets and state are outside the check: no reseal. */
    if (CYGTRACE_CM_KEEP && cyg_core_adopt(cygtrace_buffer, sizeof cygtrace_buffer) > 0 &&
        ctl->head.v != 0 && !cyg_cm_other_build(ctl)) {
        if (ctl->resets < 255u)
            ctl->resets++;
        return ctl->resets;
    }
    cygtrace_cm_discard();
    return 0;
}

NOINSTR unsigned cygtrace_cm_resets(void)
{
    const struct cyg_ctl *ctl = cygtrace_control_block();

    return ctl ? ctl->resets : 0;
}

NOINSTR __attribute__((weak, noreturn)) void cygtrace_cm_fault_hook(void)
{
    for (;;)
        ;
}

/* Bit 2 of EXC_RETURN (in LR on entry) says which stack holds the exception frame: PSP when
 * set. The frame is r0 r1 r2 r3 r12 lr pc xpsr: LR at offset 20, PC at 24. IPSR is the
 * exception number, which is what the CYG_FAULT_* kinds are. Thumb-1 only (no CBZ, no IT), so
 * the same code runs on ARMv6-M; it never returns, so it may clobber what it likes. */
NOINSTR __attribute__((naked)) void cygtrace_fault_handler(void)
{
    __asm__ volatile("movs r0, #4\n\t"
                     "mov r1, lr\n\t"
                     "tst r0, r1\n\t"
                     "beq 1f\n\t"
                     "mrs r3, psp\n\t"
                     "b 2f\n"
                     "1:\n\t"
                     "mrs r3, msp\n"
                     "2:\n\t"
                     "ldr r1, [r3, #24]\n\t"
                     "ldr r2, [r3, #20]\n\t"
                     "mrs r0, ipsr\n\t"
                     "bl cygtrace_fault\n\t"
                     "bl cygtrace_cm_fault_hook\n"
                     "3:\n\t"
                     "b 3b\n");
}
