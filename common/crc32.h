/* crc32.h - CRC-32 (IEEE 802.3, reflected, as zlib computes it). Freestanding, with a 64-byte
 * table: the target runs it at init and over every byte the stream drain sends. */
#ifndef CRC32_H
#define CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues a CRC over len bytes; start with crc = 0. crc32_update(0, "123456789", 9) is
 * 0xcbf43926. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t len);

#endif
