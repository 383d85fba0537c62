/* SPDX-License-Identifier: MIT */
/* cobs.c - COBS encoding and decoding. */
#include "cobs.h"

#if defined(__GNUC__)
#define COBS_NOINSTR __attribute__((no_instrument_function))
#else
#define COBS_NOINSTR
#endif

/* Back to front: each zero becomes the distance to the next zero (or to the end), and the
 * block's first byte the distance to the first. With n <= 254 no distance exceeds 255, so no
 * extra code byte is ever needed and the block fits where the bytes were. */
COBS_NOINSTR size_t cobs_encode_short(uint8_t *buf, size_t n)
{
    uint8_t next = 1;

    for (size_t i = n; i > 0; i--) {
        if (buf[i] == 0) {
            buf[i] = next;
            next = 1;
        } else {
            next++;
        }
    }
    buf[0] = next;
    return n + 1;
}

COBS_NOINSTR size_t cobs_encode(const uint8_t *src, size_t len, uint8_t *dst)
{
    size_t code_at = 0, o = 1;
    uint8_t code = 1;

    for (size_t i = 0; i < len; i++) {
        if (src[i] != 0) {
            dst[o++] = src[i];
            code++;
        }
        if (src[i] == 0 || code == 0xff) {
            dst[code_at] = code;
            code = 1;
            code_at = o++;
            /* A full run of 254 that ends the input needs no empty block after it. */
            if (src[i] != 0 && i + 1 == len) {
                return o - 1;
            }
        }
    }
    dst[code_at] = code;
    return o;
}

COBS_NOINSTR long cobs_decode(const uint8_t *src, size_t len, uint8_t *dst)
{
    size_t i = 0, o = 0;

    while (i < len) {
        uint8_t code = src[i++];

        if (code == 0 || i + code - 1 > len)
            return -1;
        for (uint8_t k = 1; k < code; k++) {
            if (src[i] == 0)
                return -1;
            dst[o++] = src[i++];
        }
        /* A code of 255 carries no zero after its 254 bytes; neither does the last block. */
        if (code != 0xff && i < len)
            dst[o++] = 0;
    }
    return (long)o;
}
