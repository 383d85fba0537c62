/* SPDX-License-Identifier: MIT */
/* crc32.c - CRC-32 (IEEE 802.3, reflected), four bits at a time: a 64-byte table instead of the
 * usual 1 KB, about 12 instructions a byte on Cortex-M instead of 40 bitwise. The stream drain
 * runs it over every byte it sends; the ring's seal, over 80 bytes at set-up, goes bit by bit
 * (crc32_bits), so that a firmware that does not stream links no table. */
#include "crc32.h"

const uint32_t crc32_nibble[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
    0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
    0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
};

#if defined(__GNUC__)
__attribute__((no_instrument_function))
#endif
uint32_t crc32_update(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;

    crc = ~crc;
    while (len--)
        crc = crc32_step(crc, *p++);
    return ~crc;
}

#if defined(__GNUC__)
__attribute__((no_instrument_function))
#endif
uint32_t crc32_bits(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;

    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (unsigned k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}
