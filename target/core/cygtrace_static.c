/* SPDX-License-Identifier: MIT */
/* cygtrace_static.c - a ring in a static buffer that survives warm resets: the boot-time set-up
 * of the bare-metal ports (Cortex-M, RISC-V), one source for both. cygtrace_cm.h states the
 * policy; the port names the functions (CYG_STATIC_API) and supplies the clock's start
 * (cygtrace_static.h). The buffer's size is this file's alone: it defines cyg_rt with the
 * ring's place and size, so that no set-up writes them. A fresh ring and a kept one are told
 * apart by one block, built once: this image's (cyg_static_block), compared word by word with
 * the kept ring's, or built in the buffer itself. Built with -fno-instrument-functions, like
 * the core.
 */
#include <stddef.h>
#include <stdint.h>

#include "cygtrace_port.h"
#include "crc32.h"
#include "cygtrace_layout.h"
#include "cygtrace_core.h"

/* Any other size would leave bytes unused: the capacity is a power of two. */
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

/* The hooks' view of the ring, with its place and size from the start: the set-up writes only
 * which block it is (ctl) and the state (last). */
struct cyg_rt cyg_rt = {
    CYG_RT_IDLE,
    .recs = (uintptr_t *)(void *)(CYG_PORT_STATIC_MEM + CYG_HDR_BYTES),
    .mask = CYG_PORT_STATIC_MASK,
    .head = &((struct cyg_ctl *)(void *)CYG_PORT_STATIC_MEM)->head.v,
    .cap_log2 = CYG_PORT_STATIC_LOG2,
    .shift = CYG_PORT_STATIC_SHIFT,
};

/* The words of a block that its seal covers, after the magic (bytes 8..79): what a ring this
 * image made here holds. */
#define CYG_STATIC_W0 2u
#define CYG_STATIC_WN (CYG_OFF_CHECK / 4u)
#define CYG_STATIC_CTL ((struct cyg_ctl *)(void *)cygtrace_buffer)

_Static_assert(sizeof(uintptr_t) == 4 && CYG_OFF_FLAGS == 13u, "the block's words, 32-bit");

/* Words CYG_STATIC_W0.. of the block this image gives a fresh ring (in the ring, or on the
 * stack to compare a kept ring with), which hold 0 before: its layout, and the image's GNU
 * build-id (the note namesz 4, descsz, type 3 NT_GNU_BUILD_ID, "GNU\0", then descsz bytes of
 * id). Neither the magic nor the seal: only the ring itself ever holds them (cyg_core_open()). */
#if CYG_STATIC_KEEP
__attribute__((noinline)) /* two callers: once */
#endif
NOINSTR static void cyg_static_block(struct cyg_ctl *h)
{
    const uint32_t *n = __cygtrace_build_id;

    cyg_layout(h, (uintptr_t)cygtrace_buffer, CYG_PORT_STATIC_LOG2,
               (CYGTRACE_OVERWRITE ? CYG_F_OVERWRITE : 0) |
                   (CYGTRACE_CALLSITES ? CYG_F_CALLSITES : 0));
#if CYGTRACE_HOOK_COST
    h->hook_cost = (uint32_t)CYGTRACE_HOOK_COST << 8 | CYG_HOOK_COST_GIVEN; /* a figure given */
#endif
    if (cyg_port_clock_down()) { /* the clock the start fell back to */
        h->flags |= CYG_F_TS_DOWN;
        h->ts_bits = (uint8_t)cyg_port_clock_down();
    }
    if (n && n[0] == 4u && n[1] - 1u < CYG_BUILD_ID_MAX && n[2] == 3u && n[3] == 0x00554E47u) {
        for (unsigned i = 0; i < n[1]; i++) /* no memcpy: the runtime calls no C library */
            h->build_id[i] = ((const uint8_t *)(n + 4))[i];
        h->build_id_len = (uint8_t)n[1];
    }
}

/* Whether the buffer holds a ring to keep: sealed, and the block h but for the mode, which
 * cygtrace_set_mode() may have changed (and resealed); in a sane state, with counters in their
 * low words (FORMAT.md 2.1) and one record at least. */
NOINSTR static int cyg_static_kept(const struct cyg_ctl *h)
{
    const struct cyg_ctl *ctl = CYG_STATIC_CTL;
    const uint32_t *k = (const uint32_t *)(const void *)ctl;
    const uint32_t *w = (const uint32_t *)(const void *)h;

    /* The check covers the magic too: a block whose seal a reset cut short fails it. */
    if (ctl->check != crc32_bits(0, ctl, CYG_OFF_CHECK))
        return 0;
    for (unsigned i = CYG_STATIC_W0; i < CYG_STATIC_WN; i++)
        if ((k[i] ^ w[i]) & ~(i == CYG_OFF_FLAGS / 4u ? (uint32_t)CYG_F_OVERWRITE << 8 : 0u))
            return 0;
    return ctl->state <= CYG_S_FULL && ctl->head.v != 0 &&
           ((ctl->head.pad | ctl->lost.pad) >> 32) == 0;
}

/* A fresh ring: the old one's magic goes first, with the rest, then this image's block and the
 * clock's rate; sealed (the magic last) and started. */
NOINSTR void CYG_STATIC_API(discard)(void)
{
    uint32_t *w = (uint32_t *)(void *)cygtrace_buffer;

    cyg_core_detach(); /* hooks stay out while the block is rebuilt */
    for (unsigned i = 0; i < CYG_STATIC_BYTES / 4u; i++)
        w[i] = 0;
#if CYGTRACE_REC4
    /* Version 4's lap bit is not inverted: the records start as a word no lap takes. */
    for (unsigned i = 0; i <= CYG_PORT_STATIC_MASK; i++)
        w[CYG_HDR_BYTES / 4u + i] = CYG4_FILL;
#endif
    cyg_static_block(CYG_STATIC_CTL);
    CYG_STATIC_CTL->ts_hz = cyg_static_clock_hz;
#if CYGTRACE_CONTROL
    cyg_core_open(CYG_STATIC_CTL); /* the control area's, the debugger's moment, and START */
#else
    /* cyg_core_open() and cygtrace_start() for a ring known to be empty and without a control
     * area: the START record in slot 0 (its lap bit, seq 0's: 1), the state, then the hooks,
     * which come in after START. Neither function is linked for this (issue 18's flash). */
    cyg_core_seal(CYG_STATIC_CTL);
    if (CYGTRACE_AUTOSTART) {
#if CYGTRACE_REC4
        w[CYG_HDR_BYTES / 4u] = cyg4_special_word(0, CYG_SP_START, 0, 0, 0, 1, 1);
#else
        w[CYG_HDR_BYTES / 4u + 1u] = 1u << 31 | CYG32_SPECIAL | CYG_SP_START << CYG32_TYPE_SHIFT;
#endif
        CYG_STATIC_CTL->head.v = 1;
        CYG_STATIC_CTL->state = CYG_S_RUNNING;
    }
    __atomic_store_n(&cyg_rt.ctl, CYG_STATIC_CTL, __ATOMIC_RELEASE);
    if (CYGTRACE_AUTOSTART)
        cyg_set_last(CYGTRACE_STOP_MODE && !CYGTRACE_OVERWRITE ? CYG_PORT_STATIC_MASK
                                                               : ~(uintptr_t)0);
#endif
}

NOINSTR int CYG_STATIC_API(init)(uint32_t clock_hz)
{
    struct cyg_ctl *ctl = CYG_STATIC_CTL;

    cyg_static_clock_hz = clock_hz;
    cyg_port_clock_start();
    if (CYG_STATIC_KEEP) {
        struct cyg_ctl h;

        for (unsigned i = 0; i < CYG_STATIC_WN; i++)
            ((uint32_t *)(void *)&h)[i] = 0;
        cyg_static_block(&h);
        /* Kept, it is frozen before anything can record into it. resets and state are outside
         * the check: no reseal. */
        if (cyg_static_kept(&h)) {
#if CYGTRACE_CONTROL
            cyg_core_keep(ctl);
#else
            cyg_set_last(0); /* cyg_core_keep(): the hooks out, FROZEN, the API's ring */
            ctl->state = CYG_S_FROZEN;
            __atomic_store_n(&cyg_rt.ctl, ctl, __ATOMIC_RELEASE);
#endif
            if (ctl->resets < 255u)
                ctl->resets++;
            return ctl->resets;
        }
    }
    CYG_STATIC_API(discard)();
    return 0;
}

NOINSTR unsigned CYG_STATIC_API(resets)(void)
{
    const struct cyg_ctl *ctl = cygtrace_control_block();

    return ctl ? ctl->resets : 0;
}

/* The port's hooks, when they take the ring's size as constants (cygtrace_cm_hooks.h): in the
 * file that sizes the ring, so that the two cannot disagree. */
#ifdef CYG_PORT_STATIC_HOOKS
#include CYG_PORT_STATIC_HOOKS
#endif
