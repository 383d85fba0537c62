/* SPDX-License-Identifier: MIT */
/* cygtrace_layout.h - what a ring this runtime lays out says of itself: its format version and
 * the fields of its control block that its layout fixes. Not for users: the core's set-up
 * (cyg_core_fresh) and the bare-metal ports' (cygtrace_static.c, which builds a block to
 * compare with a kept ring) include it after cygtrace_port.h, so that the port's settings are
 * known, and fold it with what they know at compile time.
 */
#ifndef CYGTRACE_LAYOUT_H
#define CYGTRACE_LAYOUT_H

#include <stdint.h>

#include "cygtrace_internal.h"
#include "cyg_v4l.h"

/* The format version this runtime writes: 4 with CYGTRACE_REC4 (one word an event); else 3 with
 * the control area; without it, 2 with chunks, else 1 (what 2 adds is all about chunks), which
 * older hosts read too. */
#if CYGTRACE_REC4
#define CYG_RING_VERSION CYG_VERSION4
#define CYG_RING_TAIL (CYGTRACE_CONTROL ? CYG_CTRL_BYTES : 0u)
/* The lowest address of the instrumented code: the link's __cygtrace_text_base, else the
 * hooks' own (the examples' linker script puts them first in .text). */
extern const char __cygtrace_text_base[] __attribute__((weak));
void __cyg_profile_func_enter(void *fn, void *site);
#elif CYGTRACE_CONTROL
#define CYG_RING_VERSION CYG_VERSION
#define CYG_RING_TAIL CYG_CTRL_BYTES /* the control area, after the records */
#elif defined(CYG_PORT_CHUNK_LOG2)
#define CYG_RING_VERSION 2u
#define CYG_RING_TAIL 0u
#else
#define CYG_RING_VERSION 1u
#define CYG_RING_TAIL 0u
#endif

#define CYG_32_TS_WIDE 32u /* version 4: TIME records carry the clock's 32 bits */

#define CYG_LAYOUT_INLINE __attribute__((no_instrument_function, always_inline)) static inline

/* log2 of the chunk in a ring of 2^cap_log2 records: the port's, but at most a quarter of the
 * ring, so that a thread's open chunk leaves the others room; 0 for ports without chunks. */
CYG_LAYOUT_INLINE unsigned cyg_chunk_log2(unsigned cap_log2)
{
#ifdef CYG_PORT_CHUNK_LOG2
    if (cap_log2 < 2)
        return 0;
    return cap_log2 - 2 < CYG_PORT_CHUNK_LOG2 ? cap_log2 - 2 : CYG_PORT_CHUNK_LOG2;
#else
    (void)cap_log2;
    return 0;
#endif
}

/* Fills in the fields of a zeroed block that a ring of 2^log2 records at address at has from
 * its layout, version to ctl_addr (flags: CYG_F_OVERWRITE, CYG_F_CALLSITES). */
CYG_LAYOUT_INLINE void cyg_layout(struct cyg_ctl *ctl, uintptr_t at, unsigned log2, unsigned flags)
{
    unsigned words = CYGTRACE_REC4 ? 1 : (flags & CYG_F_CALLSITES) ? 4 : 2;

    ctl->version = CYG_RING_VERSION;
    ctl->word_bytes = (uint8_t)sizeof(uintptr_t);
    ctl->rec_bytes = (uint8_t)(words * sizeof(uintptr_t));
    ctl->cap_log2 = (uint8_t)log2;
    ctl->flags = (uint8_t)((flags & (CYG_F_OVERWRITE | CYG_F_CALLSITES)) |
                           (CYGTRACE_TIMESTAMPS ? CYG_F_TIMESTAMPS : 0) |
                           (CYG_WORD_BITS == 64 ? CYG_F_THREADS | CYG_F_LAPTAG : 0));
    ctl->machine = CYG_PORT_MACHINE;
    ctl->hdr_bytes = CYG_HDR_BYTES;
    ctl->ts_bits = CYG_WORD_BITS == 64 ? CYG64_TAGGED_TS_BITS : CYG32_TS_BITS;
#ifdef CYG_PORT_CHUNK_LOG2
    ctl->chunk_log2 = (uint8_t)cyg_chunk_log2(log2); /* else 0, as cleared */
#endif
#ifdef CYG_PORT_TS_BITS
    if (CYG_PORT_TS_BITS < ctl->ts_bits) /* a narrower clock (SysTick: 24 bits) */
        ctl->ts_bits = CYG_PORT_TS_BITS;
#endif
    ctl->ctl_addr = (uint64_t)at;
#ifdef CYG_PORT_V4L
    if (flags & CYGTRACE_INIT_V4L) { /* FORMAT.md 15.1 */
        uint8_t *p = (uint8_t *)ctl;

        ctl->version = CYG_V4L_VERSION;
        ctl->rec_bytes = CYG_V4L_REC_BYTES;
        ctl->ts_bits = CYG_V4L_TS_BITS;
        ctl->flags &= (uint8_t)~CYG_F_LAPTAG;
        p[CYG_V4L_OFF_EPOCH_SHIFT] = CYG_V4L_EPOCH_SHIFT;
        p[CYG_V4L_OFF_REGION_BITS] = CYG_V4L_REGION_BITS;
        p[CYG_V4L_OFF_REGIONS] = CYG_V4L_REGIONS;
        p[CYG_V4L_OFF_TAG_BITS] = CYG_V4L_TAG_BITS;
    }
#endif
#if CYGTRACE_REC4
#ifdef CYG_PORT_TS_BITS
    ctl->ts_bits = CYG_PORT_TS_BITS; /* a TIME record's payload: the clock's own width */
#else
    ctl->ts_bits = CYG_32_TS_WIDE;
#endif
    ((uint8_t *)ctl)[CYG_OFF_REC4] =
        (uint8_t)(CYGTRACE_REC4_FN_BITS | (CYGTRACE_CONTROL ? CYG4_AREA : 0));
    {
        uint32_t base = __cygtrace_text_base ? (uint32_t)(uintptr_t)__cygtrace_text_base
                                             : (uint32_t)(uintptr_t)__cyg_profile_func_enter & ~1u;

        for (unsigned i = 0; i < 4; i++)
            ((uint8_t *)ctl)[CYG_OFF_TEXT_BASE + i] = (uint8_t)(base >> (8 * i));
    }
#endif
}

#endif
