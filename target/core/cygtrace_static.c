/* cygtrace_static.c - a ring in a static buffer that survives warm resets: the boot-time set-up
 * of the bare-metal ports (Cortex-M, RISC-V), one source for both. cygtrace_cm.h states the
 * policy; the port names the functions (CYG_STATIC_API) and supplies the clock's start
 * (cygtrace_static.h). Built with -fno-instrument-functions, like the core.
 */
#include <stddef.h>
#include <stdint.h>

#include "cygtrace_port.h"

#define NOINSTR __attribute__((no_instrument_function))

/* Any other size would leave bytes unused: the capacity is a power of two. */
#define CYG_STATIC_REC_BYTES (CYGTRACE_CALLSITES ? 16u : 8u)
#define CYG_STATIC_RING_BYTES ((uint32_t)CYG_STATIC_BYTES - CYGTRACE_RING_OVERHEAD)
_Static_assert(CYG_STATIC_BYTES > CYGTRACE_RING_OVERHEAD &&
                   CYG_STATIC_RING_BYTES >= 2 * CYG_STATIC_REC_BYTES &&
                   (CYG_STATIC_RING_BYTES & (CYG_STATIC_RING_BYTES - 1)) == 0,
               "CYGTRACE_CM_BUFFER_BYTES (CYGTRACE_RV_BUFFER_BYTES) must be "
               "CYGTRACE_RING_OVERHEAD (128, and 256 more with CYGTRACE_CONTROL) + a power of two "
               "of records, 2 at least");

/* NOLOAD in the linker script: neither the startup code nor a loader writes it, so a warm reset
 * finds the ring as the last run left it. */
__attribute__((section(".noinit.cygtrace"), aligned(8), used))
uint8_t cygtrace_buffer[CYG_STATIC_BYTES];

/* The linker script puts this symbol at the start of .note.gnu.build-id (KEEP, in flash). Weak:
 * without it the ring just carries no build-id. */
extern const uint32_t __cygtrace_build_id[] __attribute__((weak));

static uint32_t cyg_static_clock_hz;

/* The image's GNU build-id note, or NULL: namesz 4, descsz, type 3 (NT_GNU_BUILD_ID), "GNU\0",
 * then descsz bytes of id. */
NOINSTR static const uint32_t *cyg_static_note(void)
{
    const uint32_t *n = __cygtrace_build_id;

    if (n && n[0] == 4u && n[1] > 0 && n[1] <= CYG_BUILD_ID_MAX && n[2] == 3u &&
        n[3] == 0x00554E47u)
        return n;
    return NULL;
}

/* 1 when the ring and this image both know their build-id and the two differ. */
NOINSTR static int cyg_static_other_build(const struct cyg_ctl *ctl)
{
    const uint32_t *n = cyg_static_note();

    if (!n || !ctl->build_id_len)
        return 0;
    if (n[1] != ctl->build_id_len)
        return 1;
    for (unsigned i = 0; i < n[1]; i++) /* no memcmp: the runtime calls no C library */
        if (((const uint8_t *)(n + 4))[i] != ctl->build_id[i])
            return 1;
    return 0;
}

/* The capacity is known here at compile time: the set-up needs none of cygtrace_init()'s
 * arithmetic on a buffer's size, nor a seal for each of the fields it fills in after. */
#define CYG_STATIC_LOG2 ((unsigned)__builtin_ctz(CYG_STATIC_RING_BYTES / CYG_STATIC_REC_BYTES))
#define CYG_STATIC_CTL ((struct cyg_ctl *)(void *)cygtrace_buffer)

NOINSTR void CYG_STATIC_API(discard)(void)
{
    struct cyg_ctl *ctl = CYG_STATIC_CTL;
    const uint32_t *note = cyg_static_note();

    cyg_core_fresh(ctl, CYG_STATIC_LOG2,
                   (CYGTRACE_OVERWRITE ? CYG_F_OVERWRITE : 0) |
                       (CYGTRACE_CALLSITES ? CYG_F_CALLSITES : 0));
    ctl->ts_hz = cyg_static_clock_hz;
    if (note) {
        for (unsigned i = 0; i < note[1]; i++)
            ctl->build_id[i] = ((const uint8_t *)(note + 4))[i];
        ctl->build_id_len = (uint8_t)note[1];
    }
    cyg_core_open(ctl);
}

NOINSTR int CYG_STATIC_API(init)(uint32_t clock_hz)
{
    struct cyg_ctl *ctl = CYG_STATIC_CTL;

    cyg_static_clock_hz = clock_hz;
    cyg_port_clock_start();
    /* Adopting freezes the ring before anything can record into it; a ring not worth keeping
     * is made afresh just after. resets and state are outside the check: no reseal. */
    if (CYG_STATIC_KEEP && cyg_core_adopt(ctl, CYG_STATIC_LOG2) > 0 &&
        ctl->head.v != 0 && !cyg_static_other_build(ctl)) {
        if (ctl->resets < 255u)
            ctl->resets++;
        return ctl->resets;
    }
    CYG_STATIC_API(discard)();
    return 0;
}

NOINSTR unsigned CYG_STATIC_API(resets)(void)
{
    const struct cyg_ctl *ctl = cygtrace_control_block();

    return ctl ? ctl->resets : 0;
}
