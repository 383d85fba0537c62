/* SPDX-License-Identifier: MIT */
/* crc32.h - CRC-32 (IEEE 802.3, reflected, as zlib computes it). Freestanding, with a 64-byte
 * table: the target runs it at init and over every byte the stream drain sends. */
#ifndef CRC32_H
#define CRC32_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CRC32_INLINE __attribute__((no_instrument_function, always_inline)) static inline
#else
#define CRC32_INLINE static inline
#endif

/* The CRCs of the 16 nibbles, for crc32_step(). */
extern const uint32_t crc32_nibble[16];

/* Continues a CRC over len bytes; start with crc = 0. crc32_update(0, "123456789", 9) is
 * 0xcbf43926. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t len);

/* The same as crc32_update(), bit by bit without the table: a third of its code (when nothing
 * else links the table) and a third of its speed, for the few bytes of a ring's seal. */
uint32_t crc32_bits(uint32_t crc, const void *data, size_t len);

/* Returns the register after one more byte: crc32_update() is ~(crc32_step()... over the bytes,
 * starting from ~crc). For a pass that does something else with each byte as well (the drain
 * encodes COBS in the same loop), so that the bytes are read once. */
CRC32_INLINE uint32_t crc32_step(uint32_t reg, uint8_t byte)
{
    reg ^= byte;
    reg = (reg >> 4) ^ crc32_nibble[reg & 15u];
    return (reg >> 4) ^ crc32_nibble[reg & 15u];
}

#endif
