/* SPDX-License-Identifier: MIT */
/* cyg_v4l.h - version 4 rings of 64-bit Linux: one 8-byte word a record (docs/FORMAT.md
 * section 15). The writer is target/core (CYG_PORT_CHUNK_LOG2 ports); the reader
 * host/decode/dec4l.c. */
#ifndef CYG_V4L_H
#define CYG_V4L_H

#include <stdint.h>

#define CYG_V4L_VERSION 4u
#define CYG_V4L_REC_BYTES 8u

/* Control block bytes of this layout (outside the check, each checked for its one value;
 * FORMAT.md 15.1). */
#define CYG_V4L_OFF_EPOCH_SHIFT 116u
#define CYG_V4L_OFF_REGION_BITS 117u
#define CYG_V4L_OFF_REGIONS 118u
#define CYG_V4L_OFF_TAG_BITS 119u

#define CYG_V4L_TS_BITS 24u    /* time bits of a call */
#define CYG_V4L_EPOCH_SHIFT 20u
#define CYG_V4L_EPOCH_BITS 30u
#define CYG_V4L_REGION_BITS 24u
#define CYG_V4L_REGIONS 16u
#define CYG_V4L_TAG_BITS 9u
#define CYG_V4L_TABLE_BYTES (CYG_V4L_REGIONS * 8u) /* after the control area */
#define CYG_V4L_TIME_BITS 50u  /* the times the decoder rebuilds */

#define CYG_V4L_LAP (UINT64_C(1) << 63)
#define CYG_V4L_SPECIAL (UINT64_C(1) << 62)
#define CYG_V4L_EXIT (UINT64_C(1) << 61)  /* calls */
#define CYG_V4L_EXT (UINT64_C(1) << 61)   /* specials: the extension word */
#define CYG_V4L_TAG_MASK (UINT64_C(0x1ff) << 52)
#define CYG_V4L_LAPS (CYG_V4L_LAP | CYG_V4L_TAG_MASK)
#define CYG_V4L_REG_SHIFT 48u
#define CYG_V4L_OFF_SHIFT 24u
#define CYG_V4L_TS_MASK ((UINT64_C(1) << CYG_V4L_TS_BITS) - 1u)
#define CYG_V4L_OFF_MASK ((UINT64_C(1) << CYG_V4L_REGION_BITS) - 1u)
#define CYG_V4L_TYPE_SHIFT 46u
#define CYG_V4L_DATA_MASK ((UINT64_C(1) << 46) - 1u)
#define CYG_V4L_PHI_SHIFT 32u  /* head: payload bits 63..52 at data bits 43..32 */
#define CYG_V4L_EXT_MASK ((UINT64_C(1) << 52) - 1u)
#define CYG_V4L_THREAD_SHIFT 30u /* CHUNK: the thread index at data bits 45..30 */
#define CYG_V4L_EPOCH_MASK ((UINT64_C(1) << CYG_V4L_EPOCH_BITS) - 1u)

/* This layout's own special types (FORMAT.md 15.2). */
#define CYG_V4L_SP_CALL64 60u
#define CYG_V4L_SP_EPOCH 61u
#define CYG_V4L_SP_CHUNK 62u

/* The lap bit and tag of slot number seq in a ring of 2^cap_log2 words. */
static inline __attribute__((no_instrument_function)) uint64_t cyg_v4l_laps(uint64_t seq,
                                                                            unsigned cap_log2)
{
    uint64_t x = ~seq >> cap_log2;

    return x << 63 | ((x << 51) & CYG_V4L_TAG_MASK);
}

/* Whether a special of this type takes one word (no payload). */
static inline __attribute__((no_instrument_function)) int cyg_v4l_one_word(unsigned type)
{
    return type == 8u || type == CYG_V4L_SP_EPOCH || type == CYG_V4L_SP_CHUNK;
}

/* A special's head word (lap bits apart) and its extension's, for type, data, payload. */
static inline __attribute__((no_instrument_function)) uint64_t
cyg_v4l_head(unsigned type, uint64_t data, uint64_t payload)
{
    return CYG_V4L_SPECIAL | (uint64_t)type << CYG_V4L_TYPE_SHIFT |
           (cyg_v4l_one_word(type) ? data & CYG_V4L_DATA_MASK
                                   : (data & 0xffffffffu) | (payload >> 52) << CYG_V4L_PHI_SHIFT);
}

static inline __attribute__((no_instrument_function)) uint64_t cyg_v4l_ext(uint64_t payload)
{
    return CYG_V4L_SPECIAL | CYG_V4L_EXT | (payload & CYG_V4L_EXT_MASK);
}

#endif
